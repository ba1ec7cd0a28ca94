// The phase machine: a pure function from (state, event, context) to a new state plus the file
// effects the shell must carry out, or a refusal that says what is missing. No file system, no
// clock: the reports on disk and the time come in through the context.
import { REPORT, nextPhaseIn, phaseIndexIn, phasesOf, reworkCopyPath, specOf, type Phase } from "./phases.js";
import { flowOf, pinFlow } from "./flow-of.js";
import { DEVELOP, stepOf, type CheckStep, type Flow, type Step } from "./flow.js";
import { isValidReport, presentReport, reportAt, type ReportSnapshot } from "./reports.js";
import { kindOf } from "./steps/index.js";
import { asReworkingCheck, sendsWorkBack } from "./steps/check.js";
import type { PhaseState } from "../schema/phase.js";
import type { ExecutionState } from "../schema/execution.js";
import { count } from "./words.js";
import type { ErrorCode } from "./error-codes.js";

export { reworkCopyPath } from "./phases.js";

export type PhaseEvent =
  /** `designs`: the designs ARCHITECTURE asks for (recorded as designs_requested). */
  | { type: "start"; phase?: Phase | undefined; designs?: readonly string[] | undefined }
  | { type: "complete"; phase?: Phase | undefined; output?: string | undefined }
  | { type: "fail"; phase?: Phase | undefined; error?: string | undefined }
  | { type: "approve"; phase?: Phase | undefined }
  | { type: "rework" };

export interface MachineContext {
  readonly reports: ReportSnapshot;
  readonly execution: ExecutionState | undefined;
  readonly now: Date;
}

/** A file the shell moves as part of the change; moves make a change span several files. */
export interface MoveEffect {
  readonly type: "move";
  readonly from: string;
  readonly to: string;
}

export interface MachineEvent {
  type: string;
  [key: string]: unknown;
}

export type TransitionResult =
  | { ok: true; state: PhaseState; events: MachineEvent[]; effects: MoveEffect[] }
  | { ok: false; code: ErrorCode; message: string };

export function inputsHash(request: string): string {
  // Loaded on use: node:crypto costs a few milliseconds at start-up and most commands never hash.
  return process
    .getBuiltinModule("node:crypto")
    .createHash("sha256")
    .update(JSON.stringify({ request }))
    .digest("hex")
    .slice(0, 16);
}

export function createWorkflow(workflowId: string, request: string | undefined, now: Date, flow?: Flow): PhaseState {
  const at = now.toISOString();
  const pinned = flow === undefined ? undefined : pinFlow(flow);
  return {
    schema_version: 1,
    workflow_id: workflowId,
    started_at: at,
    last_updated: at,
    current_phase: (flow ?? DEVELOP).steps[0]!.id,
    phase_status: "pending",
    completed_phases: [],
    user_checkpoints: [],
    interruption_safe: true,
    ...(request === undefined ? {} : { request, inputs_hash: inputsHash(request) }),
    ...(pinned === undefined ? {} : { workflow: pinned as NonNullable<PhaseState["workflow"]> }),
  };
}

/** A workflow id from the request: `wf-add-login`, else `wf-<date>`. */
export function suggestWorkflowId(request: string | undefined, now: Date): string {
  const slug = (request ?? "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .split("-")
    .slice(0, 5)
    .join("-")
    .slice(0, 40)
    .replace(/-+$/, "");
  if (slug !== "") return `wf-${slug}`;
  return `wf-${now.toISOString().slice(0, 19).replace(/[-:]/g, "").replace("T", "-")}`;
}

export function isApproved(state: PhaseState, phase: Phase): boolean {
  return state.user_checkpoints.some((c) => c.phase === phase);
}

export function isWorkflowComplete(state: PhaseState): boolean {
  const phases = phasesOf(state);
  return state.current_phase === phases[phases.length - 1] && state.phase_status === "complete";
}

/** The step `phase` of the workflow `state` walks. */
export function stepIn(state: PhaseState | undefined, phase: Phase): Step {
  const step = stepOf(flowOf(state ?? {}), phase);
  if (step === undefined) throw new Error(`${phase} is no step of workflow ${flowOf(state ?? {}).name}`);
  return step;
}

export type Proof = { done: true; output: string } | { done: false; missing: string };

/** Whether the files that prove a phase done are on disk and valid (CONTRACT §1 table). */
export function provePhase(
  phase: Phase,
  reports: ReportSnapshot,
  execution: ExecutionState | undefined,
  state?: PhaseState,
): Proof {
  const step = stepIn(state, phase);
  return kindOf(step).prove(step, { reports, execution, state });
}

/** Whether a check's report (develop: verification.json) exists, is valid, and says it failed. */
export function verificationFailed(reports: ReportSnapshot, path: string = REPORT.verification): boolean {
  const report = reportAt(reports, path);
  return isValidReport(report) && (report as { data: { passed: boolean } }).data.passed === false;
}

/** The check step `phase` is, when it can send work back. */
export function reworkingCheck(
  state: PhaseState,
  phase: Phase = state.current_phase,
): (CheckStep & { rework: string; max_rounds: number }) | undefined {
  return asReworkingCheck(stepIn(state, phase));
}

/** The step a rework round went back to: its record's `to`, else the workflow's tasks step (develop's IMPLEMENTATION). */
export function reworkTarget(state: PhaseState): Phase | undefined {
  if (!state.rework) return undefined;
  if (state.rework.to !== undefined) return state.rework.to;
  return flowOf(state).steps.find((s) => s.kind === "tasks")?.id;
}

/**
 * The reports a rework round moves aside (each to its `.rework-<round>` copy): the failed check's,
 * then, when it goes back to an agent step, that step's and those of every step between whose
 * reports exist, so each runs again instead of counting as done.
 */
export function reworkMoves(
  flow: Flow,
  check: CheckStep & { rework: string },
  round: number,
  reports: ReportSnapshot,
): MoveEffect[] {
  const moves: MoveEffect[] = [{ type: "move", from: check.reports[0]!, to: reworkCopyPath(round, check.reports[0]!) }];
  const from = flow.steps.findIndex((s) => s.id === check.rework);
  const to = flow.steps.findIndex((s) => s.id === check.id);
  for (const step of flow.steps.slice(from, to)) {
    if (!kindOf(step).reworkMovesReports) continue;
    for (const path of step.reports)
      if (presentReport(reportAt(reports, path)) || reportAt(reports, path).status === "invalid")
        moves.push({ type: "move", from: path, to: reworkCopyPath(round, path) });
  }
  return moves;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function refuse(code: ErrorCode, message: string): TransitionResult {
  return { ok: false, code, message };
}

/** Completes the current phase: append it, move on (or finish the workflow after REFLECTION). */
export function advance(
  state: PhaseState,
  output: string | null,
  now: Date,
  extra: { skipped?: boolean } = {},
): PhaseState {
  const phase = state.current_phase;
  const completed = [
    ...state.completed_phases,
    { phase, completed_at: now.toISOString(), output, ...(extra.skipped ? { skipped: true } : {}) },
  ];
  const next = nextPhaseIn(state, phase);
  const { error: _error, ...rest } = state;
  // A rework round ends when the step it went back to completes; its record stays so round numbers go on.
  if (rest.rework && phase === reworkTarget(state) && !rest.rework.closed_at)
    rest.rework = { ...rest.rework, closed_at: now.toISOString() };
  if (next === undefined) return { ...rest, completed_phases: completed, phase_status: "complete" };
  return { ...rest, completed_phases: completed, current_phase: next, phase_status: "pending" };
}

/**
 * Sends the workflow from the failed `check` (develop: VERIFICATION) back to the step it names
 * (develop: IMPLEMENTATION), round n. `moves` are the reports moved aside (reworkMoves); the first
 * is the failed report's copy. develop's record stays as it was (no `step`/`to`).
 */
export function applyRework(
  state: PhaseState,
  check: CheckStep & { rework: string },
  round: number,
  verificationCopy: string,
  now: Date,
  moves: readonly MoveEffect[] = [],
): PhaseState {
  const target = check.rework;
  const at = phaseIndexIn(state, target);
  const moved = new Set([check.reports[0]!, ...moves.map((m) => m.from)]);
  const pinned = state.workflow !== undefined;
  return {
    ...state,
    current_phase: target,
    phase_status: "in_progress",
    completed_phases: state.completed_phases.filter((c) => phaseIndexIn(state, c.phase) < at),
    rework: {
      round,
      verification: verificationCopy,
      started_at: now.toISOString(),
      ...(pinned ? { step: check.id, to: target } : {}),
    },
    error: null,
    // The next report is the next agent's: the moved ones' records go with them.
    ...(state.agent_reports === undefined ? {} : { agent_reports: state.agent_reports.filter((p) => !moved.has(p)) }),
  };
}

export function isReworkOpen(state: PhaseState): boolean {
  return state.rework != null && !state.rework.closed_at && state.current_phase === reworkTarget(state);
}

export function nextReworkRound(state: PhaseState): number {
  return (state.rework?.round ?? 0) + 1;
}

export function transition(state: PhaseState, event: PhaseEvent, context: MachineContext): TransitionResult {
  const current = state.current_phase;
  const at = context.now.toISOString();
  const checks = flowOf(state).steps.filter(sendsWorkBack);
  const reworkFrom =
    checks.find((c) => c.id === current) ?? checks.find((c) => state.rework?.step === c.id) ?? checks[0];
  const phase = event.type === "rework" ? (reworkFrom?.id ?? current) : (event.phase ?? current);
  // Done already (a command that records a step also advances, so this is often a repeat): a no-op.
  const unchanged: TransitionResult = { ok: true, state, events: [], effects: [] };
  if (event.type === "complete" && state.completed_phases.some((c) => c.phase === phase)) return unchanged;
  if (
    event.type === "rework" &&
    reworkFrom !== undefined &&
    isReworkOpen(state) &&
    reportAt(context.reports, reworkFrom.reports[0]!).status === "missing"
  )
    return unchanged;
  if (isWorkflowComplete(state) && event.type !== "approve")
    return refuse(
      "workflow_complete",
      `workflow ${state.workflow_id} is complete; start a new one with \`dotagent init --request …\``,
    );
  if (event.type !== "approve" && phase !== current) {
    return refuse(
      "wrong_phase",
      `${phase} cannot ${event.type}: the current phase is ${current} (${state.phase_status})`,
    );
  }
  switch (event.type) {
    case "start": {
      const designs = event.designs;
      if (designs !== undefined && !kindOf(stepIn(state, phase)).takesDesigns)
        return refuse(
          "no_designs",
          `only a choose step (${flowOf(state).steps.find((s) => kindOf(s).takesDesigns)?.id ?? "none in this workflow"}) asks for designs; ${phase} takes no --designs`,
        );
      const sameDesigns = designs === undefined || sameList(designs, state.designs_requested ?? []);
      if (state.phase_status === "in_progress" && sameDesigns) return { ok: true, state, events: [], effects: [] };
      let next = state;
      const events: MachineEvent[] = [];
      if (state.phase_status !== "in_progress") {
        next = { ...next, phase_status: "in_progress", error: null };
        events.push({ type: "phase_started", phase });
      }
      if (!sameDesigns) {
        next = { ...next, designs_requested: [...designs] };
        events.push({ type: "designs_requested", phase, designs: [...designs] });
      }
      return { ok: true, state: next, events, effects: [] };
    }
    case "fail":
      return {
        ok: true,
        state: { ...state, phase_status: "failed", error: event.error ?? "failed" },
        events: [{ type: "phase_failed", phase, error: event.error ?? "failed" }],
        effects: [],
      };
    case "approve": {
      if (!specOf(state, phase).gate)
        return refuse(
          "no_gate",
          `${phase} has no approval gate; only ${phasesOf(state)
            .filter((p) => specOf(state, p).gate)
            .join(" and ")} need approval`,
        );
      if (phaseIndexIn(state, phase) > phaseIndexIn(state, current))
        return refuse("wrong_phase", `${phase} cannot be approved yet: the current phase is ${current}`);
      if (isApproved(state, phase)) return { ok: true, state, events: [], effects: [] };
      const gated = stepIn(state, phase);
      const refusal = kindOf(gated).refuseApproval(gated, context.reports);
      if (refusal !== undefined) return refuse("phase_incomplete", refusal);
      return {
        ok: true,
        state: { ...state, user_checkpoints: [...state.user_checkpoints, { phase, approved_at: at }] },
        events: [{ type: "phase_approved", phase }],
        effects: [],
      };
    }
    case "complete": {
      const proof = provePhase(phase, context.reports, context.execution, state);
      if (!proof.done) return refuse("phase_incomplete", `${phase} cannot complete: ${proof.missing}`);
      if (
        event.output !== undefined &&
        event.output !== proof.output &&
        !isValidReport(reportAt(context.reports, event.output)) &&
        kindOf(stepIn(state, phase)).outputIsReport
      ) {
        return refuse("phase_incomplete", `${phase} cannot complete: ${event.output} is not a valid report`);
      }
      if (specOf(state, phase).gate && !isApproved(state, phase)) {
        return refuse(
          "not_approved",
          `${phase} cannot complete: the user has not approved it yet; show them ${specOf(state, phase).produces} and run \`dotagent phase approve ${phase}\``,
        );
      }
      const next = advance(state, event.output ?? proof.output, context.now);
      return {
        ok: true,
        state: next,
        events: [{ type: "phase_completed", phase, output: event.output ?? proof.output }],
        effects: [],
      };
    }
    case "rework": {
      const check = reworkFrom === undefined ? undefined : reworkingCheck(state, reworkFrom.id);
      if (check === undefined)
        return refuse("no_rework", `workflow ${flowOf(state).name} has no check step that sends work back`);
      const name = check.reports[0]!.replace(/^memory\/reports\//, "");
      if (!verificationFailed(context.reports, check.reports[0]!)) {
        return refuse("no_rework", `${check.id} cannot go back to ${check.rework}: ${name} does not say passed: false`);
      }
      const round = nextReworkRound(state);
      if (round > check.max_rounds) {
        const error = `${check.id} failed ${count(check.max_rounds, "rework round")} (max_rounds ${check.max_rounds}); the last report is ${name}`;
        return {
          ok: true,
          state: { ...state, phase_status: "failed", error },
          events: [{ type: "phase_failed", phase: check.id, error, rounds: check.max_rounds }],
          effects: [],
        };
      }
      const moves = reworkMoves(flowOf(state), check, round, context.reports);
      const copy = moves[0]!.to;
      return {
        ok: true,
        state: applyRework(state, check, round, copy, context.now, moves),
        events: [{ type: "phase_rework", phase: check.rework, round, verification: copy }],
        effects: moves,
      };
    }
  }
}
