// `status`: the resume plan without writing, plus task counts and the side effects not done.
// Takes no lock; start-up path of the CLI and the hook, so nothing heavy is imported here.
import { join } from "node:path";
import type { ResumePlan } from "../core/plan-resume.js";
import { planWithRecovery } from "./recovery.js";
import { REPORT, specOf } from "../core/phases.js";
import { isWorkflowComplete, provePhase } from "../core/transitions.js";
import { countByStatus } from "../core/tasks.js";
import { worktreeViews, type WorktreeView } from "../core/worktrees.js";
import type { IsolationRecord } from "../schema/execution.js";
import { checkoutQuestionFor } from "../store/worktrees.js";
import { loadSnapshot } from "../store/session.js";
import { listOpenOps, type OpSummary } from "../store/op-records.js";
import { judgeRunningTasks } from "../store/process-facts.js";
import type { OpContext } from "./op-context.js";
import type { TaskListResult } from "./task-list.js";
import { flowOf, flowOrDefault } from "../core/flow-of.js";
import { stepIds, type Flow } from "../core/flow.js";
import { currentRound } from "../core/plans.js";
import { taskRows } from "../core/task-list.js";
import type { OwnerVerdicts } from "../core/ownership.js";
import type { ExecutionState } from "../schema/execution.js";
import type { PhaseState } from "../schema/phase.js";
import { planJson, type PlanJson } from "./plan-json.js";
import { planWithDir } from "./decision-dir.js";
import { standingOf, type StepStanding } from "../core/step-standing.js";
import { DEFAULT_LEASE_MS, judgeLock, readLock } from "../store/lock.js";
import { runApprovesItself, runSessionsAtWork } from "../store/run-sessions.js";

/** `status --json`: the resume plan (as `resume --dry-run`), task counts by status, open ops, and the tasks by worktree (SPEC §19). */
export type StatusResult = PlanJson & {
  tasks: Record<string, number>;
  ops: OpSummary[];
  isolation: IsolationRecord | null;
  worktrees: WorktreeView[];
};

export interface StatusOutcome {
  readonly result: StatusResult;
  readonly plan: ResumePlan;
  /** The current phase is approved but cannot complete yet: what it still needs, for people (the next line of plain status). */
  readonly approvedNeeds: string | null;
  /**
   * For people's plain output only (never in --json): the workflow's steps, its request and its
   * task rows. Made when first read: `--json` and the library never read it (its rows are a pass
   * over every task, for output that shows none of them).
   */
  readonly view: StatusView | null;
  /** The flow the workflow walks (flowOrDefault), where the plan's gates are for its Next lines. */
  readonly flow: Flow;
  /** A live `dotagent run` driving the workflow (its process id; whether it approves its gates itself), for people's Next line; null when none runs. */
  readonly liveRun: { readonly pid: number; readonly approves: boolean } | null;
  /** The workflow's `dotagent run` approves its gates itself (`--approve auto` remembered), live or not. */
  readonly runApproves: boolean;
}

/** What `status` shows a person above the resume plan (SPEC §10 "status"). */
export interface StatusView {
  /** The pinned flow's step ids, in order (flowOf). */
  readonly steps: readonly string[];
  readonly tasksStep: string | null;
  readonly phase: PhaseState;
  readonly request: string | null;
  /** Where the current step stands, from its work (the first line's words; phase_status stays as stored in --json). */
  readonly standing: StepStanding;
  /** The rows `dotagent tasks` shows, for the same plan. */
  readonly tasks: TaskListResult;
}

export async function readStatus(
  context: Pick<OpContext, "paths" | "now" | "dirArg">,
  staleAfterMs: number | undefined,
): Promise<StatusOutcome> {
  const snapshot = await loadSnapshot(context.paths);
  const now = context.now();
  const owners = judgeRunningTasks(snapshot, now);
  const plan = planWithDir(
    await planWithRecovery(context.paths, snapshot, now, {
      staleAfterMs,
      owners,
      checkout: checkoutQuestionFor(context.paths.root, snapshot),
    }),
    context.dirArg,
  );
  const execution = snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined;
  const tasks = countByStatus(execution);
  const ops = listOpenOps(context.paths, now);
  const isolation = execution?.isolation ?? null;
  let view: StatusView | null | undefined;
  let run: RunLock | undefined;
  const lock = () => (run ??= runLock(context.paths.root, now));
  return {
    result: { ...planJson(plan, false), tasks, ops, isolation, worktrees: worktreeViews(execution) },
    plan,
    approvedNeeds: approvedNeeds(snapshot, plan),
    flow: flowOrDefault(snapshot.phase),
    get view() {
      if (view === undefined) view = viewOf(context.paths.root, snapshot, execution, tasks, owners, plan, lock());
      return view;
    },
    get runApproves() {
      const phase = snapshot.phase.kind === "ok" ? snapshot.phase.value : undefined;
      return phase !== undefined && runApprovesItself(context.paths.root, phase.workflow_id, phase.started_at);
    },
    get liveRun() {
      const held = lock();
      if (held.state !== "alive") return null;
      const phase = snapshot.phase.kind === "ok" ? snapshot.phase.value : undefined;
      const approves =
        phase !== undefined && runApprovesItself(context.paths.root, phase.workflow_id, phase.started_at);
      return { pid: held.pid, approves };
    },
  };
}

function viewOf(
  root: string,
  snapshot: Awaited<ReturnType<typeof loadSnapshot>>,
  execution: ExecutionState | undefined,
  counts: Record<string, number>,
  owners: OwnerVerdicts,
  plan: ResumePlan,
  lock: RunLock,
): StatusView | null {
  if (snapshot.phase.kind !== "ok") return null;
  const phase = snapshot.phase.value;
  const run = lock.state;
  // A live run's sessions at work now; a killed run's sessions it left at work (saved since it took the lock).
  const runAgents = lock.state === null ? [] : runSessionsAtWork(root, phase.workflow_id, lock.since);
  const runApproves = lock.state !== null && runApprovesItself(root, phase.workflow_id, phase.started_at);
  const flow = flowOf(phase);
  const rows = taskRows(execution, owners);
  return {
    steps: stepIds(flow),
    tasksStep: flow.steps.find((s) => s.kind === "tasks")?.id ?? null,
    phase,
    request: phase.request ?? null,
    standing: standingOf({ phase, execution, owners, plan, run, runAgents, runApproves }),
    tasks: {
      workflow_id: phase.workflow_id,
      phase: phase.current_phase,
      complete: isWorkflowComplete(phase),
      round: currentRound(phase),
      total: rows.length,
      counts: counts as TaskListResult["counts"],
      filter: null,
      tasks: rows,
    },
  };
}

type RunLock =
  | { readonly state: "alive"; readonly pid: number; readonly since: string }
  | { readonly state: "gone"; readonly since: string }
  | { readonly state: null };

/**
 * Whether a `dotagent run` drives the workflow (memory/runs/.lock, src/run/runner.ts): its holder
 * alive (its process and when it took the lock), gone (a run killed: nobody released the lock),
 * or no lock at all (none, or unreadable).
 */
function runLock(root: string, now: Date): RunLock {
  const holder = readLock(join(root, "memory", "runs"));
  if (holder === null || holder === "unreadable") return { state: null };
  return judgeLock(holder, now, DEFAULT_LEASE_MS).stale
    ? { state: "gone", since: holder.acquired_at }
    : { state: "alive", pid: holder.pid, since: holder.acquired_at };
}

/** "ARCHITECTURE is approved; to complete it needs …": an approval given before the gate's output exists. */
function approvedNeeds(snapshot: Awaited<ReturnType<typeof loadSnapshot>>, plan: ResumePlan): string | null {
  if (snapshot.phase.kind !== "ok" || plan.situation !== "interrupted") return null;
  const state = snapshot.phase.value;
  const phase = state.current_phase;
  if (!specOf(state, phase).gate || !state.user_checkpoints.some((c) => c.phase === phase)) return null;
  const proof = provePhase(
    phase,
    snapshot.reports,
    snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined,
    state,
  );
  if (proof.done) return null;
  const output = specOf(state, phase).outputs[0]!;
  const format =
    output === REPORT.finalDesign
      ? "; it holds the pick: {chosen, design, tasks: [{id, title, depends_on}]} (SPEC.md §1)"
      : "";
  return `write ${output} — ${phase} is approved, but ${proof.missing}${format}; then \`dotagent phase complete ${phase}\``;
}
