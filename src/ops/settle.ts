// After a command's write, under the same lock: plan from the state just written and carry out
// what the planner does by itself (advance a phase whose report is there and whose gate is met,
// record the design's task plan, recover tasks whose owner is gone), so every command that records
// a step answers with the next one (`next`), the object `resume` would give, without a second call.
import {
  planResume,
  type AgentInFlight,
  type Decision,
  type NextAction,
  type ResumePlan,
} from "../core/plan-resume.js";
import { reportsCoverChange, type StateSnapshot } from "../core/snapshot.js";
import type { PhaseState } from "../schema/phase.js";
import type { ExecutionState } from "../schema/execution.js";
import type { CheckoutFacts } from "../core/worktrees.js";
import type { MachineEvent } from "../core/transitions.js";
import { loadSnapshot, type WrittenStates } from "../store/session.js";
import { judgeRunningTasks } from "../store/process-facts.js";
import { checkoutFactsFor, checkoutMatters, needsWorktreeRecovery } from "../store/worktrees.js";
import { StateWriter } from "../store/state-writer.js";
import { adoptLiveFiles } from "../store/last-write.js";
import { finishClear } from "./fresh-start.js";
import { tasksStepOf } from "../core/plans.js";
import type { OpContext } from "./op-context.js";

/** The fields a recording command adds to its --json result; `decision` when the next step is the person's question (SPEC §10). */
export interface NextFields {
  next: NextAction;
  in_flight: string[];
  agents_in_flight: AgentInFlight[];
  decision?: Decision;
}

export function nextFields(plan: ResumePlan): NextFields {
  return {
    next: plan.next,
    in_flight: plan.in_flight,
    agents_in_flight: plan.agents_in_flight,
    ...(plan.decision !== null ? { decision: plan.decision } : {}),
  };
}

/**
 * The main checkout as the model's shell sees it: with the person's changes to decide about, and
 * a client whose sandbox keeps .git read-only for the model (OpContext.modelGitReadOnly, asked only
 * then), not writable, so the question says its yes cannot commit from there (SPEC §19).
 */
export function checkoutAsModelSees(context: Pick<OpContext, "modelGitReadOnly">, facts: CheckoutFacts): CheckoutFacts;
export function checkoutAsModelSees(
  context: Pick<OpContext, "modelGitReadOnly">,
  facts: CheckoutFacts | undefined,
): CheckoutFacts | undefined;
export function checkoutAsModelSees(
  context: Pick<OpContext, "modelGitReadOnly">,
  facts: CheckoutFacts | undefined,
): CheckoutFacts | undefined {
  return facts?.git === true &&
    facts.dirty.length > 0 &&
    facts.writable !== false &&
    context.modelGitReadOnly?.() === true
    ? { ...facts, writable: false }
    : facts;
}

/** The state files after a plan was carried out (undefined: not there). */
export interface Settled {
  readonly plan: ResumePlan;
  readonly phase: PhaseState | undefined;
  readonly execution: ExecutionState | undefined;
  /** The main checkout's facts when the plan needed them (a round's isolation still to decide). */
  readonly checkout?: CheckoutFacts;
}

/** Carries out a plan's writes: journal, moves, execution.json, phase.json, events (+ `resumed` when asked). */
export async function applyPlan(
  context: OpContext,
  snapshot: StateSnapshot,
  plan: ResumePlan,
  now: Date,
  options: { archivedFiles?: Parameters<typeof finishClear>[2]; logResumed: boolean },
): Promise<Omit<Settled, "plan">> {
  let phase = snapshot.phase.kind === "ok" ? snapshot.phase.value : undefined;
  let execution = snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined;
  if (plan.writes.finishClear) {
    await finishClear(context.paths, plan.writes.finishClear, options.archivedFiles);
    return { phase: undefined, execution: undefined };
  }
  const writer = new StateWriter(context.paths, snapshot, now, context.warn);
  const { writes } = plan;
  if (writes.adoptEdits !== undefined && writes.adoptEdits.length > 0) {
    // Kept by the person: the live bytes become dotagent's last write, and a checkpoint keeps them.
    adoptLiveFiles(context.paths.root, context.paths.stateDir);
    writer.appendEvents([{ type: "hand_edit_kept", files: writes.adoptEdits }]);
  }
  if (phase !== undefined && (writes.phase || writes.execution || writes.moves.length > 0)) {
    const written = writer.applyChange({
      phaseBefore: phase,
      journal: writes.journal,
      moves: writes.moves,
      execution: writes.execution,
      phase: writes.phase,
      events: writes.events,
    });
    phase = written.phase ?? phase;
    execution = written.execution ?? execution;
  }
  // `repair_codes` tells a resume that set something right from one that only planned the next step (run-story.ts, SPEC §7).
  if (options.logResumed)
    writer.appendEvents([
      {
        type: "resumed",
        situation: plan.situation,
        next: plan.next.action,
        repairs: plan.repairs.length,
        repair_codes: plan.repairs.map((r) => r.code),
      },
    ]);
  return { phase, execution };
}

/**
 * Plans from disk and carries out the planner's own steps; the caller holds the lock. `started`:
 * tasks this very command started, never taken back by its own settle (their owner counts as
 * live even when it is a process already gone, such as an `--owner` given for it). `written`: the
 * state files the caller just wrote (StateWriter.writtenStates), taken as written.
 */
export async function settle(
  context: OpContext,
  now: Date,
  started: readonly string[] = [],
  written: WrittenStates = {},
): Promise<Settled> {
  const settled = await settlePlan(context, now, started, written);
  // Its answer puts the question to an agent's shell (`decision` beside `next`): asked, so the
  // person's next prompt answers it (person-gate.ts).
  if (settled.plan.decision !== null && context.byModel === true)
    (await import("./person-gate.js")).recordAskedLocked(context, settled.phase, settled.plan.decision);
  return settled;
}

/**
 * Settle planned before a command's write instead of after it: the plan of the state the command
 * is about to write (`execution`; phase.json as `snapshot` read it, no file moved), when all it
 * would carry out is execution.json and events — the running tasks whose session is gone
 * recovered, say — or nothing. The command writes its change and `execution` (when set) at once,
 * one write and one append, and answers with `plan`, which is what settle would plan from that
 * write. `snapshot` is the command's read under the lock it still holds: its reports stand for
 * settle's reading when they answer every report the state asks for, and with `checked`
 * validation looks at the changed tasks only. Undefined when the plan would do more (ask the
 * person, step a phase, record a plan, move a file, mend worktrees, look at git): the command
 * writes its change and settles after it.
 */
export function planAhead(
  context: OpContext,
  snapshot: StateSnapshot,
  execution: ExecutionState,
  started: readonly string[],
  now: Date,
): { plan: ResumePlan; execution: ExecutionState | undefined; events: MachineEvent[] } | undefined {
  if (snapshot.phase.kind !== "ok" || snapshot.execution.kind === "corrupt" || snapshot.rollback || snapshot.clearing)
    return undefined;
  const read = snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined;
  if (!reportsCoverChange(snapshot.reports, snapshot.phase.value, execution, read)) return undefined;
  const ahead: StateSnapshot = {
    ...snapshot,
    execution: { kind: "ok", file: snapshot.execution.file, value: execution, stamp: "ahead" },
  };
  if (needsWorktreeRecovery(context.paths.root, ahead) || checkoutMatters(ahead)) return undefined;
  const owners = judgeRunningTasks(ahead, now);
  for (const id of started) owners.set(id, "live");
  const plan = planResume(ahead, now, { owners });
  const { writes } = plan;
  if (
    plan.decision !== null ||
    writes.phase !== undefined ||
    writes.moves.length > 0 ||
    writes.journal !== undefined ||
    writes.finishClear !== undefined ||
    (writes.adoptEdits !== undefined && writes.adoptEdits.length > 0) ||
    (writes.execution === undefined && writes.events.length > 0) ||
    writes.events.some((e) => e.type === "plan_recorded")
  )
    return undefined;
  return { plan, execution: writes.execution, events: writes.events };
}

async function settlePlan(
  context: OpContext,
  now: Date,
  started: readonly string[],
  written: WrittenStates,
): Promise<Settled> {
  // What this command just wrote under the lock it holds is taken as written, not read back.
  let snapshot = await loadSnapshot(context.paths, [], written);
  // Merges cut off, tasks done in their worktrees whose session is gone, worktrees nobody needs.
  if (needsWorktreeRecovery(context.paths.root, snapshot)) {
    const { recoverWorktrees } = await import("./worktree-tasks.js");
    if ((await recoverWorktrees(context, now, { skip: started, read: snapshot })).length > 0)
      snapshot = await loadSnapshot(context.paths);
  }
  const owners = judgeRunningTasks(snapshot, now);
  for (const id of started) owners.set(id, "live");
  const checkout = checkoutAsModelSees(context, checkoutFactsFor(context.paths.root, snapshot));
  const plan = planResume(snapshot, now, { owners, checkout });
  // The isolation question leaves the rest of the plan to carry out (a phase reached, a plan recorded).
  if (plan.decision !== null && plan.decisionKind !== "isolation")
    return {
      plan,
      phase: snapshot.phase.kind === "ok" ? snapshot.phase.value : undefined,
      execution: snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined,
      ...(checkout ? { checkout } : {}),
    };
  const applied = await applyPlan(context, snapshot, plan, now, { logResumed: false });
  // The tasks step (develop: IMPLEMENTATION) just completed: every task is merged, so no task branch or worktree is left (SPEC §19).
  const tasksStep = snapshot.phase.kind === "ok" ? tasksStepOf(snapshot.phase.value) : undefined;
  if (
    tasksStep !== undefined &&
    plan.writes.events.some((e) => e.type === "phase_completed" && e.phase === tasksStep) &&
    applied.execution?.tasks.some((t) => t.worktree != null)
  ) {
    const { sweepWorktrees } = await import("./worktree-tasks.js");
    try {
      sweepWorktrees(context.paths.root, now, { branches: true, execution: applied.execution });
    } catch (error) {
      context.warn(
        `the task worktrees could not be tidied (${(error as Error).message}); \`dotagent resume\` tries again`,
      );
    }
  }
  // The plan this very settle recorded (ARCHITECTURE's approval imports the tasks) asks to run
  // them: the main checkout decides whether they may start, so the answer is the question if it
  // has uncommitted changes, never a run_tasks the hook then refuses (SPEC §19).
  if (
    plan.next.action === "run_tasks" &&
    checkout === undefined &&
    plan.writes.events.some((e) => e.type === "plan_recorded")
  ) {
    const after = await loadSnapshot(context.paths);
    const facts = checkoutAsModelSees(context, checkoutFactsFor(context.paths.root, after));
    const asked = facts === undefined ? undefined : planResume(after, now, { owners, checkout: facts });
    if (asked?.next.action === "confirm_isolation")
      return {
        plan: { ...plan, next: asked.next, decision: asked.decision, decisionKind: asked.decisionKind },
        ...applied,
        checkout: facts!,
      };
  }
  return { plan, ...applied, ...(checkout ? { checkout } : {}) };
}
