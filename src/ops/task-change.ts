// `task add|import|start|complete|fail|retry|next`: task progress in IMPLEMENTATION under the lock,
// and the plan import's validation (the same schema whether the plan came from a file or a program).
import { DotagentError, EXIT } from "../core/errors.js";
import { formatProblem } from "../core/validate.js";
import { reportAt } from "../core/reports.js";
import {
  addTasks,
  completeTask,
  emptyExecution,
  failTask,
  maxAttemptsOf,
  outputOf,
  readyTasks,
  releaseTask,
  retryTask,
  type NewTask,
  type TaskResult as CoreTaskResult,
} from "../core/tasks.js";
import { importPlan, startPlannedTask, type ImportResult as CoreImportResult } from "../core/plans.js";
import type { ExecutionState, MergeRecord, PlanRecord, Task } from "../schema/execution.js";
import type { PhaseState } from "../schema/phase.js";
import type { StateSnapshot } from "../core/snapshot.js";
import type { MachineEvent } from "../core/transitions.js";
import { loadSnapshot } from "../store/session.js";
import { currentOwner, judgeRunningTasks } from "../store/process-facts.js";
import { isInFlight } from "../core/ownership.js";
import { markStart } from "../store/start-markers.js";
import { StateWriter } from "../store/state-writer.js";
import { locked, type OpContext } from "./op-context.js";
import { requireValid, requireWorkflow } from "./state-guard.js";
import { nextFields, settle, type NextFields } from "./settle.js";
import {
  isolateStart,
  landTask,
  makeStartedWorktree,
  prepareLanding,
  startedWorktreeOf,
  unfinishedStart,
  type IsolatedStart,
} from "./worktree-tasks.js";

export const TASK_ACTIONS = ["add", "import", "start", "complete", "fail", "retry", "next"] as const;
/** The CLI's actions, and `release`: the headless runner gives back the tasks it stopped (Ctrl-C). */
export type TaskAction = Exclude<(typeof TASK_ACTIONS)[number], "next"> | "release";

export interface TaskChange {
  readonly action: TaskAction;
  /** The task (every action but import), already checked with checkTaskId. */
  readonly id?: string | undefined;
  readonly title?: string | undefined;
  readonly dependsOn?: readonly string[] | undefined;
  readonly output?: string | undefined;
  readonly error?: string | undefined;
  readonly extraAttempts?: number | undefined;
  /** `start`: the pid that runs the task (default: this Claude Code session or this process); `release`: the pid that owns it. */
  readonly owner?: number | undefined;
  /** `import`: the plan, validated by parseTaskPlan. */
  readonly tasks?: readonly NewTask[] | undefined;
}

/** A task as the next step needs it: execution.json's field names, without empty and bookkeeping ones. */
export interface TaskView {
  id: string;
  title?: string;
  status: Task["status"];
  attempts: number;
  output: string;
  error?: string;
  /** Its git worktree (SPEC §19): where its executor works, and the merge of its branch. */
  worktree?: TaskWorktreeView;
}

/** A task's worktree as `task … --json` shows it. */
export interface TaskWorktreeView {
  /** Project-relative folder of the worktree. */
  path: string;
  /** Absolute: where the executor works (the project folder inside the worktree). */
  dir: string;
  branch: string;
  into: string;
  base: string;
  merge: MergeRecord | null;
  /** The lines its executor's prompt gets (Worktree:, Branch:, Report file:, Merge conflict:). */
  prompt_lines: string[];
}

/** `task start|complete|fail|retry --json` (and the runner's release). */
export interface TaskResult extends NextFields {
  ok: true;
  task: TaskView | null;
  max_attempts: number | null;
}

/** `task add|import --json`. */
export interface TasksAddedResult extends NextFields {
  ok: true;
  added: string[];
  skipped?: string[];
  plan?: PlanRecord | null;
  total: number;
}

/** `task next --json`: ready tasks in dependency order. */
export interface NextResult {
  tasks: Array<{ id: string; title: string | null; depends_on: string[]; attempts: number; output: string }>;
}

export interface TaskOutcome {
  readonly result: TaskResult | TasksAddedResult;
  readonly state: ExecutionState;
  readonly task: Task | undefined;
  readonly maxAttempts: number | undefined;
  readonly imported: Extract<CoreImportResult, { ok: true }> | undefined;
  /** `complete` of a task with a worktree: what its landing did, in words ("complete, merged into main (1a2b3c4)", "not merged: …"). */
  readonly landed?: string | undefined;
}

const PLAN_SHAPE =
  'expected a JSON array like [{"id":"task-001","title":"…","depends_on":[]}] or an object with such a "tasks" array';

/** A parsed task plan (an array of tasks or an object with a `tasks` array), or exit 2 naming `where`. */
export async function parseTaskPlan(value: unknown, where: string): Promise<NewTask[]> {
  // The schema (and zod) load only for an import.
  const [{ parseWith }, { taskImportSchema }] = await Promise.all([
    import("../schema/common.js"),
    import("../schema/execution.js"),
  ]);
  const parsed = parseWith(taskImportSchema, value);
  if (!parsed.ok)
    throw new DotagentError(
      "import_invalid",
      `${formatProblem({ file: where, ...parsed.problems[0]! })}; ${PLAN_SHAPE}`,
      EXIT.usage,
    );
  const tasks = Array.isArray(parsed.value) ? parsed.value : parsed.value.tasks;
  return tasks.map((t) => ({ id: t.id, title: t.title, depends_on: t.depends_on }));
}

/** The message of a plan that is not JSON at all (the CLI's file or stdin). */
export function notJsonPlan(where: string, message: string): DotagentError {
  return new DotagentError("import_invalid", `${where}: ${message}; ${PLAN_SHAPE}`, EXIT.usage);
}

function taskView(task: Task, root: string): TaskView {
  // The place and prompt lines matter while the task is to run (a merged task's worktree is gone).
  const started = task.worktree != null && task.status !== "complete" ? startedWorktreeOf(root, task) : undefined;
  const worktree: TaskWorktreeView | undefined =
    task.worktree == null
      ? undefined
      : {
          path: task.worktree.path,
          dir: started?.at.dir ?? `${root}/${task.worktree.path}`,
          branch: task.worktree.branch,
          into: task.worktree.into,
          base: task.worktree.base,
          merge: task.worktree.merge ?? null,
          prompt_lines: started?.lines ?? [],
        };
  return {
    id: task.id,
    ...(task.title ? { title: task.title } : {}),
    status: task.status,
    attempts: task.attempts,
    output: outputOf(task),
    ...(task.error ? { error: task.error } : {}),
    ...(worktree ? { worktree } : {}),
  };
}

/**
 * Writes a task change. Starting a task whose output file is left from an earlier attempt sets
 * that file aside first, so recovery never mistakes the old output for this attempt's. That
 * touches two files, so it goes through the journaled change.
 */
export function writeTaskChange(
  writer: StateWriter,
  snapshot: StateSnapshot,
  phase: PhaseState,
  outcome: { state: ExecutionState; events: ReadonlyArray<{ type: string; [key: string]: unknown }> },
  started: Task | undefined,
  now: Date,
): void {
  const stale = started === undefined ? undefined : outputOf(started);
  const found = stale === undefined ? "missing" : reportAt(snapshot.reports, stale).status;
  if (stale !== undefined && started !== undefined && found !== "missing" && found !== "outside") {
    const to = `${stale.replace(/\.json$/, "")}.attempt-${started.attempts}-${now.getTime()}.json`;
    const moves = [{ type: "move" as const, from: stale, to }];
    writer.applyChange({
      phaseBefore: phase,
      journal: { type: "task_start", task_id: started.id, started_at: now.toISOString(), moves: [{ from: stale, to }] },
      moves,
      execution: outcome.state,
      phase,
      events: outcome.events as MachineEvent[],
    });
  } else {
    writer.writeExecution(outcome.state);
    writer.appendEvents(outcome.events);
  }
}

export async function changeTask(context: OpContext, change: TaskChange): Promise<TaskOutcome> {
  const { action } = change;
  const id = action === "import" ? "" : (change.id ?? "");
  const outputPath = change.output;
  const now = context.now();
  // A completing task's work in its worktree is committed before the lock (SPEC §19).
  const prepared = action === "complete" && id !== "" ? await prepareLanding(context, id, outputPath) : undefined;
  const done = await locked(context, `task ${action}`, async () => {
    const extraRequests = [
      ...(outputPath ? [{ path: outputPath, mode: "parse" as const }] : []),
      ...(id ? [{ path: `memory/reports/tasks/${id}.json`, mode: "parse" as const }] : []),
    ];
    const snapshot = await loadSnapshot(context.paths, extraRequests);
    const phase = requireWorkflow(snapshot, now);
    const execution: ExecutionState =
      snapshot.execution.kind === "ok" ? snapshot.execution.value : emptyExecution(phase.workflow_id, now);
    // A running task with a worktree completes by landing: merged into the workflow's branch first (SPEC §19).
    const existing = execution.tasks.find((t) => t.id === id);
    // An attempt is its executor's: from an agent's shell, its end is not the model's to record
    // while the executor is at work (the hooks record it when it stops).
    if (
      context.byModel &&
      (action === "fail" || action === "complete" || action === "release") &&
      existing?.status === "running" &&
      isInFlight(judgeRunningTasks(snapshot, now), id)
    ) {
      throw new DotagentError(
        "agent_at_work",
        `${id}'s executor is at work; its result is recorded when it stops (its notification or the Agent call's result says so): wait for it`,
        EXIT.refused,
        { task: id },
      );
    }
    if (
      action === "complete" &&
      existing !== undefined &&
      existing.status !== "complete" &&
      existing.worktree != null
    ) {
      const check = completeTask(execution, id, snapshot.reports, now, outputPath);
      if (!check.ok) throw new DotagentError(check.code, check.message, EXIT.refused);
      const landing = await landTask(context, id, now, outputPath, { prepared });
      const settled = await settle(context, now);
      const after = settled.execution ?? execution;
      return {
        state: after,
        task: after.tasks.find((t) => t.id === id),
        imported: undefined,
        plan: settled.plan,
        landed: landing.what.replace(/^executor for \S+: /, ""),
      };
    }
    let outcome: CoreTaskResult | CoreImportResult;
    let isolated: IsolatedStart | undefined;
    switch (action) {
      case "add":
        outcome = addTasks(execution, [{ id, title: change.title, depends_on: change.dependsOn }], now);
        break;
      case "import":
        outcome = importPlan(execution, phase, change.tasks ?? [], now);
        break;
      case "start": {
        const owner = currentOwner(now, change.owner);
        outcome = startPlannedTask(execution, phase, id, now, owner, judgeRunningTasks(snapshot, now).get(id));
        const unfinished = outcome.ok ? undefined : unfinishedStart(context.paths.root, phase, execution, id, owner);
        if (unfinished !== undefined) {
          // Its own start, cut off while it made the worktree: finished now.
          isolated = { state: execution, events: [], worktree: unfinished, warning: undefined };
          outcome = { ok: true, state: execution, events: [] };
        } else if (outcome.ok) {
          isolated = isolateStart(context, phase, execution, outcome.state, id, owner, now);
          outcome = {
            ...outcome,
            state: isolated.state,
            events: [...isolated.events, ...outcome.events] as typeof outcome.events,
          };
        }
        break;
      }
      case "complete":
        outcome = completeTask(execution, id, snapshot.reports, now, outputPath);
        break;
      case "fail":
        outcome = failTask(execution, id, change.error, now);
        break;
      case "release":
        outcome = releaseTask(execution, id, now, change.owner);
        break;
      default:
        outcome = retryTask(execution, id, change.extraAttempts ?? 0, now);
    }
    if (!outcome.ok) throw new DotagentError(outcome.code, outcome.message, EXIT.refused);
    const task = outcome.state.tasks.find((t) => t.id === id);
    if (outcome.state !== execution)
      writeTaskChange(
        new StateWriter(context.paths, snapshot, now, context.warn),
        snapshot,
        phase,
        outcome,
        action === "start" ? task : undefined,
        now,
      );
    if (isolated?.warning) context.warn(isolated.warning);
    if (isolated?.mended) context.warn(`task ${id}: ${isolated.mended}`);
    // Its worktree is made after the lock: a second start meanwhile sees it in flight.
    if (isolated?.worktree?.make !== undefined) markStart(context.paths.root, context.paths.stateDir, id);
    // The step after this one: the last task's completion also completes IMPLEMENTATION.
    const settled = await settle(context, now, action === "start" ? [id] : []);
    const after = settled.execution ?? outcome.state;
    return {
      state: after,
      task: after.tasks.find((t) => t.id === id) ?? task,
      imported: "plan" in outcome ? outcome : undefined,
      plan: settled.plan,
      worktree: isolated?.worktree,
    };
  });
  // A started task's worktree is made after the lock, beside the other starts of its batch.
  if (done.worktree !== undefined) await makeStartedWorktree(context, id, done.worktree, now);
  const { state, task, imported, plan, landed } = done;
  const maxAttempts = task ? maxAttemptsOf(task, state) : undefined;
  const result: TaskResult | TasksAddedResult =
    action === "import" || action === "add"
      ? {
          ok: true,
          added: action === "add" ? [id] : (imported?.added ?? []),
          ...(imported ? { skipped: imported.skipped, plan: imported.plan } : {}),
          total: state.tasks.length,
          ...nextFields(plan),
        }
      : {
          ok: true,
          task: task ? taskView(task, context.paths.root) : null,
          max_attempts: maxAttempts ?? null,
          ...nextFields(plan),
        };
  return { result, state, task, maxAttempts, imported, landed };
}

/** Ready tasks in dependency order; reads without the lock, refuses untrusted state (exit 3). */
export async function nextTasks(context: OpContext): Promise<NextResult> {
  const snapshot = await loadSnapshot(context.paths);
  requireValid(snapshot, context.now());
  const execution = snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined;
  const ready = execution ? readyTasks(execution) : [];
  return {
    tasks: ready.map((t) => ({
      id: t.id,
      title: t.title ?? null,
      depends_on: [...(t.depends_on ?? [])],
      attempts: t.attempts,
      output: outputOf(t),
    })),
  };
}
