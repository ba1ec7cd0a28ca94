// Task plans recorded whole (issue 10, failure 3). A plan is the full task list of a round — round
// 0 from final_design.json, round N from a failed verification's rework-N report — written with
// every one of its tasks in one execution.json write and recorded in `plans`. IMPLEMENTATION is
// done only when the current round's plan is recorded and every task is complete, so a crash
// half-way through planning can never pass for a finished plan.
//
// An execution.json without the `plans` key predates plan records (legacy): for it, tasks present
// count as planned and a rework round stays open until `phase complete IMPLEMENTATION`, as before.
import type { ExecutionState, PlanRecord, Task } from "../schema/execution.js";
import type { PhaseState } from "../schema/phase.js";
import { reworkCopyPath } from "./phases.js";
import { flowOf } from "./flow-of.js";
import type { ErrorCode } from "./error-codes.js";
import { addTasks, startTask, type NewTask, type TaskResult } from "./tasks.js";
import type { Owner, OwnerVerdict } from "./ownership.js";

export interface PlanEvent {
  type: string;
  [key: string]: unknown;
}

export const PLAN_FILE = "memory/reports/plan.json";

/** Where the skill writes round N's plan before `task import`. */
export function planFileOf(round: number): string {
  return round === 0 ? PLAN_FILE : PLAN_FILE.replace(/\.json$/, `.rework-${round}.json`);
}

/** The planning round the workflow is in: the open rework round, else 0. */
export function currentRound(phase: PhaseState | undefined): number {
  const rework = phase?.rework;
  return phase !== undefined && phase.current_phase === tasksStepOf(phase) && rework != null && !rework.closed_at
    ? rework.round
    : 0;
}

/** The workflow's one `tasks` step (develop: IMPLEMENTATION; fix: FIX), if it has one. */
export function tasksStepOf(phase: PhaseState): string | undefined {
  return flowOf(phase).steps.find((s) => s.kind === "tasks")?.id;
}

/** A file written before plan records existed (or by hand per the contract's example). */
export function isLegacyExecution(execution: ExecutionState | undefined): boolean {
  return execution !== undefined && execution.plans === undefined;
}

export type PlanStatus =
  | { readonly kind: "legacy" }
  | { readonly kind: "recorded"; readonly round: number; readonly record: PlanRecord }
  /** `loose`: tasks added one by one in this round (task add) that no plan records yet. */
  | { readonly kind: "unrecorded"; readonly round: number; readonly loose: readonly string[] };

export function planStatus(phase: PhaseState | undefined, execution: ExecutionState | undefined): PlanStatus {
  if (isLegacyExecution(execution)) return { kind: "legacy" };
  const round = currentRound(phase);
  const record = execution?.plans?.find((p) => p.round === round);
  if (record !== undefined) return { kind: "recorded", round, record };
  // Round 0's loose tasks are all the tasks; a rework round's are those not complete (the earlier
  // rounds' tasks were all complete when its verification ran).
  const loose = (execution?.tasks ?? []).filter((t) => round === 0 || t.status !== "complete").map((t) => t.id);
  return { kind: "unrecorded", round, loose };
}

/** Why IMPLEMENTATION is not done yet for lack of a plan, or undefined when that is not the reason. */
export function missingPlan(phase: PhaseState | undefined, execution: ExecutionState | undefined): string | undefined {
  const status = planStatus(phase, execution);
  if (status.kind !== "unrecorded") return undefined;
  return status.round === 0
    ? "no task plan is recorded (`dotagent task import FILE`)"
    : `rework round ${status.round} has no task plan recorded (\`dotagent task import FILE\`)`;
}

/** The `plan_tasks` reason: where to plan from, where to write the plan, what is already there. */
/** The report a round's tasks come from (project-relative): round 0 the plan's source, round N the failed check's copy. */
export function planFrom(
  round: number,
  failedReport?: string | null,
  source = "memory/reports/final_design.json",
): string {
  return round === 0 ? source : (failedReport ?? reworkCopyPath(round));
}

export function planTasksReason(
  status: Extract<PlanStatus, { kind: "unrecorded" }>,
  failedReport?: string | null,
  source = "memory/reports/final_design.json",
): string {
  const file = planFileOf(status.round);
  const from = planFrom(status.round, failedReport, source).replace("memory/reports/", "");
  const loose = status.loose.length === 0 ? "" : `; include ${shortList(status.loose)}, added one by one`;
  const round = status.round === 0 ? "" : `rework round ${status.round}: `;
  return `${round}write every task from ${from} to ${file}, then \`dotagent task import ${file}\`${loose}`;
}

function shortList(ids: readonly string[]): string {
  return ids.length <= 5 ? ids.join(", ") : `${ids.slice(0, 5).join(", ")} and ${ids.length - 5} more`;
}

export type ImportResult =
  | {
      ok: true;
      state: ExecutionState;
      events: PlanEvent[];
      added: string[];
      skipped: string[];
      plan: PlanRecord | null;
    }
  | { ok: false; code: ErrorCode; message: string };

function sameTask(task: Task, add: NewTask): boolean {
  const deps = add.depends_on ?? [];
  const have = task.depends_on ?? [];
  return (
    (task.title ?? undefined) === (add.title ?? undefined) &&
    have.length === deps.length &&
    have.every((d, i) => d === deps[i])
  );
}

/**
 * Imports a plan: adds its new tasks and records the round's plan, as one new state (one write).
 * Tasks already present with the same id, title and depends_on are skipped, so importing again
 * after a crash is harmless; the same id with other content is refused. When the round's plan is
 * already recorded, the import only adds tasks (extra tasks after a plan).
 */
export function importPlan(
  state: ExecutionState,
  phase: PhaseState | undefined,
  tasks: readonly NewTask[],
  now: Date,
): ImportResult {
  if (tasks.length === 0)
    return {
      ok: false,
      code: "empty_plan",
      message: 'the plan has no tasks; list every task as {"id": …, "title": …, "depends_on": […]}',
    };
  const byId = new Map(state.tasks.map((t) => [t.id, t]));
  const fresh: NewTask[] = [];
  const skipped: string[] = [];
  for (const add of tasks) {
    const have = byId.get(add.id);
    if (have === undefined) fresh.push(add);
    else if (sameTask(have, add)) skipped.push(add.id);
    else
      return {
        ok: false,
        code: "task_conflict",
        message: `task ${add.id} already exists with another title or depends_on; give the new task another id, or import the same content`,
      };
  }
  const added = addTasks(state, fresh, now);
  if (!added.ok) return added;
  const status = planStatus(phase, state);
  const round = currentRound(phase);
  const plan = status.kind === "recorded" ? null : { round, recorded_at: now.toISOString(), tasks: tasks.length };
  const next =
    plan === null
      ? added.state
      : { ...added.state, updated_at: now.toISOString(), plans: [...(state.plans ?? []), plan] };
  const events: PlanEvent[] =
    plan === null ? added.events : [...added.events, { type: "plan_recorded", round, tasks: plan.tasks }];
  return { ok: true, state: next, events, added: fresh.map((t) => t.id), skipped, plan };
}

/** `task start`, refused while the current round's plan is not recorded (how tasks were lost). */
export function startPlannedTask(
  state: ExecutionState,
  phase: PhaseState | undefined,
  id: string,
  now: Date,
  owner?: Owner,
  runningVerdict?: OwnerVerdict,
): TaskResult {
  const started = startTask(state, id, now, owner, runningVerdict);
  const plan = planStatus(phase, state);
  if (!started.ok || plan.kind !== "unrecorded") return started;
  return {
    ok: false,
    code: "plan_not_recorded",
    message: `task ${id} cannot start before the task plan is recorded: ${planTasksReason(plan)}`,
  };
}
