// Operations as plans (issue 41): what a `task` command does, decided as a value before anything
// is written. Each planner takes the loaded state and the facts the decision needs (the clock, who
// calls, the running tasks' owners as judged, the reports present) and the request, and returns a
// refusal (error code, message, exit code) or what to carry out: the new execution state, its
// events, the output file to set aside. Pure: no file system, no process table, no clock. The op
// (src/ops/task-change.ts, src/ops/plan-edit.ts) reads the facts, carries the plan out under the
// lock through src/store/, and settles; what git does (a task's worktree, its landing) stays there.
// The decisions are tested as tables in task-plan.test.ts, without spawning the CLI. The request
// and result types (TaskChange, SetAside, NextResult) live in tasks.ts, beside NewTask.
import { EXIT, refuse, type Refusal } from "./errors.js";
import { applyPlanEdit, planEditQuestion, type PlanEdit, type PlanEditOutcome } from "./plan-edit.js";
import { importPlan, startPlannedTask, type ImportResult } from "./plans.js";
import type { ReportSnapshot } from "./reports.js";
import { isInFlight, type Owner, type OwnerVerdicts } from "./ownership.js";
import {
  addTasks,
  completeTask,
  emptyExecution,
  failTask,
  outputOf,
  readyTasks,
  releaseTask,
  retryQuestion,
  retryTask,
  staleOutputMove,
  type NextResult,
  type SetAside,
  type TaskAction,
  type TaskChange,
  type TaskEvent,
  type TaskResult,
} from "./tasks.js";
import type { ExecutionState, Task } from "../schema/execution.js";
import type { PhaseState } from "../schema/phase.js";

/** What a task change is decided from, read by the op before it plans. */
export interface TaskFacts {
  readonly phase: PhaseState;
  /** execution.json as loaded; undefined while there is none (an empty plan then). */
  readonly execution: ExecutionState | undefined;
  readonly reports: ReportSnapshot;
  readonly now: Date;
  /** The call comes from an agent's shell (OpContext.byModel). */
  readonly byModel: boolean;
  /** The running tasks' owners as judged (store/process-facts.ts); asked only when needsVerdicts says so. */
  readonly verdicts?: OwnerVerdicts | undefined;
  /** `start`: who runs the task (store/process-facts.ts currentOwner). */
  readonly owner?: Owner | undefined;
}

export type { Refusal } from "./errors.js";
export { refusalError } from "./errors.js";

export type TaskPlan =
  | Refusal
  /** A running task with a worktree completes by landing: its branch merged first (SPEC §19); git decides the rest. */
  | { readonly kind: "land"; readonly id: string }
  | {
      readonly kind: "write";
      /** The plan before the change (an empty one when execution.json is not there yet). */
      readonly before: ExecutionState;
      /** The plan after it; `before` itself when nothing changes (nothing is written then). */
      readonly state: ExecutionState;
      readonly events: readonly TaskEvent[];
      /** `import`: what was added, skipped, recorded. */
      readonly imported?: Extract<ImportResult, { ok: true }> | undefined;
      /** `start`: the started task's output left from an earlier attempt, moved aside in the same write. */
      readonly setAside?: SetAside | undefined;
    };

/** Whether the plan needs the running tasks' owners judged (a look at the process table). */
export function needsVerdicts(action: TaskAction, byModel: boolean): boolean {
  return action === "start" || (byModel && (action === "fail" || action === "complete" || action === "release"));
}

/** The plan of `task add|import|start|complete|fail|retry` and the runner's release. */
export function planTaskChange(facts: TaskFacts, change: TaskChange): TaskPlan {
  const { action } = change;
  const { phase, reports, now } = facts;
  const id = action === "import" ? "" : (change.id ?? "");
  const before = facts.execution ?? emptyExecution(phase.workflow_id, now);
  const existing = before.tasks.find((t) => t.id === id);
  // An attempt is its executor's: from an agent's shell, its end is not the model's to record
  // while the executor is at work (the hooks record it when it stops).
  if (
    facts.byModel &&
    (action === "fail" || action === "complete" || action === "release") &&
    existing?.status === "running" &&
    isInFlight(facts.verdicts, id)
  )
    return refuse(
      "agent_at_work",
      `${id}'s executor is at work; its result is recorded when it stops (its notification or the Agent call's result says so): wait for it`,
      EXIT.refused,
      { task: id },
    );
  if (action === "complete" && existing !== undefined && existing.status !== "complete" && existing.worktree != null) {
    const check = completeTask(before, id, reports, now, change.output);
    return check.ok ? { kind: "land", id } : refuse(check.code, check.message);
  }
  if (action === "import") {
    const imported = importPlan(before, phase, change.tasks ?? [], now);
    if (!imported.ok) return refuse(imported.code, imported.message);
    return { kind: "write", before, state: imported.state, events: imported.events as TaskEvent[], imported };
  }
  const outcome = changeOne(facts, before, id, action, change);
  if (!outcome.ok) return refuse(outcome.code, outcome.message);
  const setAside =
    action === "start"
      ? staleOutputMove(
          reports,
          outcome.state.tasks.find((t) => t.id === id),
          now,
        )
      : undefined;
  return { kind: "write", before, state: outcome.state, events: outcome.events, ...(setAside ? { setAside } : {}) };
}

/** One task's change by the core's rules (tasks.ts, plans.ts). */
function changeOne(
  facts: TaskFacts,
  before: ExecutionState,
  id: string,
  action: Exclude<TaskAction, "import">,
  change: TaskChange,
): TaskResult {
  const { now } = facts;
  switch (action) {
    case "add":
      return addTasks(before, [{ id, title: change.title, depends_on: change.dependsOn }], now);
    case "start":
      return startPlannedTask(before, facts.phase, id, now, facts.owner, facts.verdicts?.get(id));
    case "complete":
      return completeTask(before, id, facts.reports, now, change.output);
    case "fail":
      return failTask(before, id, change.error, now);
    case "release":
      return releaseTask(before, id, now, change.owner);
    case "retry":
      return retryTask(before, id, change.extraAttempts ?? 0, now);
  }
}

/** A plan edit's plan: the edit's outcome, and the question it puts to the person when asked from an agent's shell. */
export type EditPlan =
  | Refusal
  | {
      readonly kind: "edit";
      /** The plan before the edit. */
      readonly plan: ExecutionState;
      readonly outcome: Extract<PlanEditOutcome, { ok: true }>;
      /** SPEC §10: the plan is the person's; from an agent's shell the edit is asked first. */
      readonly question: string;
    };

/** `task edit|remove|skip`: a person's change to the recorded plan (the rules: plan-edit.ts). */
export function planTaskEdit(execution: ExecutionState | undefined, edit: PlanEdit, now: Date): EditPlan {
  if (execution === undefined)
    return refuse(
      "unknown_task",
      `task ${edit.id} does not exist: no task is planned yet (memory/state/execution.json does not exist)`,
    );
  const outcome = applyPlanEdit(execution, edit, now);
  if (!outcome.ok) return refuse(outcome.code, outcome.message);
  return { kind: "edit", plan: execution, outcome, question: planEditQuestion(execution, edit) };
}

/**
 * Whether a `task retry` is the person's to decide (SPEC §10): more attempts asked from an agent's
 * shell. A requeue (no extra attempts) spends none they did not give and runs at once.
 */
export function retryIsPersons(extraAttempts: number, byModel: boolean): boolean {
  return extraAttempts > 0 && byModel;
}

/** The question a retry that gives `extra` more attempts puts to the person, or its refusal (never asked about). */
export function planRetryQuestion(
  phase: PhaseState,
  execution: ExecutionState | undefined,
  id: string,
  extra: number,
  now: Date,
): Refusal | { readonly kind: "ask"; readonly question: string } {
  const plan = execution ?? emptyExecution(phase.workflow_id, now);
  const checked = retryTask(plan, id, extra, now);
  if (!checked.ok) return refuse(checked.code, checked.message);
  return { kind: "ask", question: retryQuestion(plan, id, extra) };
}

export function nextTasksOf(execution: ExecutionState | undefined): NextResult {
  return {
    tasks: (execution ? readyTasks(execution) : []).map((t) => ({
      id: t.id,
      title: t.title ?? null,
      depends_on: [...(t.depends_on ?? [])],
      attempts: t.attempts,
      output: outputOf(t),
    })),
  };
}

/** The plain line of `task start|complete|fail|retry`: the task as it is now, and what git did. */
export function taskChangeLine(
  action: TaskAction,
  id: string,
  task: Task | undefined,
  max: number | undefined,
  landed: string | undefined,
): string {
  const tries = task && task.attempts > 0 ? ` (${task.attempts} of ${max} attempts used)` : "";
  if (landed !== undefined)
    return landed.startsWith("complete") ? `${id}: ${landed}` : `${id}: ${landed}; now ${task?.status ?? "?"}${tries}`;
  const w = task?.worktree;
  if (action === "start" && task?.status === "running" && w != null)
    return `${id}: running in ${w.path}, branch ${w.branch} (merges into ${w.into})`;
  if (action === "complete" && task?.status === "complete" && w?.merge?.state === "merged")
    return `${id}: complete, ${w.merge.commit ? `merged into ${w.merge.into} (${w.merge.commit.slice(0, 7)})` : `nothing to merge into ${w.merge.into}`}`;
  return `${id}: ${task?.status}${tries}`;
}
