// `dotagent tasks [show ID]`: the task plan, one row per task (src/core/task-list.ts), and one task
// with its events. Read-only: takes no lock and writes nothing, like `status`; state that cannot be
// trusted is refused (exit 3) the way `task next` refuses it.
import { DotagentError, EXIT } from "../core/errors.js";
import type { Phase } from "../core/phases.js";
import { currentRound } from "../core/plans.js";
import { dependantsOf } from "../core/plan-edit.js";
import { taskRow, taskRows, type TaskRow } from "../core/task-list.js";
import { countByStatus, outputOf } from "../core/tasks.js";
import { isWorkflowComplete } from "../core/transitions.js";
import type { TaskStatus } from "../schema/json.js";
import { readEvents, type EventRecord } from "../store/events.js";
import { judgeRunningTasks } from "../store/process-facts.js";
import { loadSnapshot } from "../store/session.js";
import type { OpContext } from "./op-context.js";
import { requireValid } from "./state-guard.js";

/** `tasks --json`. `counts` and `total` count every task; `tasks` holds those the filter lets through. */
export interface TaskListResult {
  workflow_id: string | null;
  phase: Phase | null;
  /** Whether the workflow is complete (its last step done), as `status` says it: `phase` is then its last step. */
  complete: boolean;
  /** The planning round: 0, or the open rework round. */
  round: number;
  total: number;
  counts: Record<TaskStatus, number>;
  /** The statuses asked for (`--status`), or null: every task. */
  filter: TaskStatus[] | null;
  tasks: TaskRow[];
}

/** One task as `tasks show ID --json` gives it: its row, its report file and its dependants. */
export type TaskDetail = TaskRow & { output: string; dependants: string[] };

/** `tasks show ID --json`: the task and every event of the log that names it, oldest first. */
export interface TaskShowResult {
  workflow_id: string;
  task: TaskDetail;
  events: EventRecord[];
}

async function readPlan(context: Pick<OpContext, "paths" | "now">) {
  const snapshot = await loadSnapshot(context.paths);
  const now = context.now();
  requireValid(snapshot, now);
  const phase = snapshot.phase.kind === "ok" ? snapshot.phase.value : undefined;
  const execution = snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined;
  return { phase, execution, verdicts: judgeRunningTasks(snapshot, now) };
}

export async function listTasks(
  context: Pick<OpContext, "paths" | "now">,
  statuses?: readonly TaskStatus[],
): Promise<TaskListResult> {
  const { phase, execution, verdicts } = await readPlan(context);
  return {
    workflow_id: phase?.workflow_id ?? null,
    phase: phase?.current_phase ?? null,
    complete: phase !== undefined && isWorkflowComplete(phase),
    round: currentRound(phase),
    total: execution?.tasks.length ?? 0,
    counts: countByStatus(execution) as Record<TaskStatus, number>,
    filter: statuses === undefined ? null : [...statuses],
    tasks: taskRows(execution, verdicts, statuses),
  };
}

export async function showTask(context: Pick<OpContext, "paths" | "now">, id: string): Promise<TaskShowResult> {
  const { phase, execution, verdicts } = await readPlan(context);
  const task = execution?.tasks.find((t) => t.id === id);
  if (phase === undefined || execution === undefined || task === undefined) {
    throw new DotagentError(
      "unknown_task",
      `task ${id} does not exist${phase === undefined ? " (no workflow here)" : ""}; \`dotagent tasks\` lists the plan`,
      EXIT.refused,
      { task: id },
    );
  }
  const events = readEvents(context.paths.eventsFile).filter((e) => e.task_id === id);
  return {
    workflow_id: phase.workflow_id,
    task: {
      ...taskRow(task, execution, verdicts),
      output: outputOf(task),
      dependants: dependantsOf(execution.tasks, id),
    },
    events,
  };
}
