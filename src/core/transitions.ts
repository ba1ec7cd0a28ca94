// The phase machine: a pure function from (state, event, context) to a new state plus the file
// effects the shell must carry out, or a refusal that says what is missing. No file system, no
// clock: the reports on disk and the time come in through the context.
import { PHASES, PHASE_TABLE, REPORT, nextPhase, phaseIndex, reworkCopyPath, type Phase } from "./phases.js";
import { isValidReport, presentReport, reportAt, type ReportSnapshot, type ReportState } from "./reports.js";
import { missingPlan } from "./plans.js";
import { isSettled, outputOf } from "./tasks.js";
import type { PhaseState } from "../schema/phase.js";
import type { ExecutionState } from "../schema/execution.js";
import { count } from "./words.js";

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
  | { ok: false; code: string; message: string };

export function inputsHash(request: string): string {
  // Loaded on use: node:crypto costs a few milliseconds at start-up and most commands never hash.
  return process.getBuiltinModule("node:crypto").createHash("sha256").update(JSON.stringify({ request })).digest("hex").slice(0, 16);
}

export function createWorkflow(workflowId: string, request: string | undefined, now: Date): PhaseState {
  const at = now.toISOString();
  return {
    schema_version: 1,
    workflow_id: workflowId,
    started_at: at,
    last_updated: at,
    current_phase: "REQUIREMENTS",
    phase_status: "pending",
    completed_phases: [],
    user_checkpoints: [],
    interruption_safe: true,
    ...(request === undefined ? {} : { request, inputs_hash: inputsHash(request) }),
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
  return state.current_phase === "REFLECTION" && state.phase_status === "complete";
}

export type Proof = { done: true; output: string } | { done: false; missing: string };

function describe(path: string, state: ReportState): string {
  const name = path.replace(/^memory\/reports\//, "");
  switch (state.status) {
    case "missing":
      return `${name} does not exist`;
    case "invalid":
    case "outside":
      return `${name} ${state.reason}`;
    default:
      return `${name} is not valid`;
  }
}

/** Whether the files that prove a phase done are on disk and valid (CONTRACT §1 table). */
export function provePhase(phase: Phase, reports: ReportSnapshot, execution: ExecutionState | undefined, state?: PhaseState): Proof {
  if (phase === "IMPLEMENTATION") {
    if (execution === undefined) return { done: false, missing: "execution.json does not exist" };
    const noPlan = missingPlan(state, execution);
    if (noPlan !== undefined) return { done: false, missing: noPlan };
    if (execution.tasks.length === 0) return { done: false, missing: "execution.json has no tasks" };
    const open = execution.tasks.filter((t) => !isSettled(t));
    if (open.length > 0) return { done: false, missing: `${count(open.length, "task")} not complete (${open.slice(0, 5).map((t) => `${t.id}: ${t.status}`).join(", ")}${open.length > 5 ? ", …" : ""})` };
    const noOutput = execution.tasks.find((t) => t.status === "complete" && !presentReport(reportAt(reports, outputOf(t))));
    if (noOutput !== undefined) return { done: false, missing: `${outputOf(noOutput)} of task ${noOutput.id} does not exist` };
    return { done: true, output: REPORT.execution };
  }
  if (phase === "VERIFICATION") {
    const report = reportAt(reports, REPORT.verification);
    if (!isValidReport(report)) return { done: false, missing: describe(REPORT.verification, report) };
    if ((report as { data: { passed: boolean } }).data.passed !== true) return { done: false, missing: "verification.json says passed: false (run `dotagent phase rework`)" };
    return { done: true, output: REPORT.verification };
  }
  const outputs = PHASE_TABLE[phase].outputs;
  const found = outputs.find((path) => isValidReport(reportAt(reports, path)));
  if (found !== undefined) return { done: true, output: found };
  return { done: false, missing: outputs.map((path) => describe(path, reportAt(reports, path))).join(" and ") };
}

/** Whether verification.json exists, is valid, and says it failed. */
export function verificationFailed(reports: ReportSnapshot): boolean {
  const report = reportAt(reports, REPORT.verification);
  return isValidReport(report) && (report as { data: { passed: boolean } }).data.passed === false;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** The requested designs (phase start ARCHITECTURE --designs) without a valid designs/<name>.json. */
export function missingDesigns(state: PhaseState, reports: ReportSnapshot): string[] {
  return (state.designs_requested ?? []).filter((name) => !isValidReport(reportAt(reports, designPath(name))));
}

export function designPath(name: string): string {
  return `${REPORT.designsDir}/${name}.json`;
}

function refuse(code: string, message: string): TransitionResult {
  return { ok: false, code, message };
}

/** Completes the current phase: append it, move on (or finish the workflow after REFLECTION). */
export function advance(state: PhaseState, output: string, now: Date): PhaseState {
  const phase = state.current_phase;
  const completed = [...state.completed_phases, { phase, completed_at: now.toISOString(), output }];
  const next = nextPhase(phase);
  const { error: _error, ...rest } = state;
  // A rework round ends when IMPLEMENTATION completes; its record stays so round numbers go on.
  if (rest.rework && phase === "IMPLEMENTATION" && !rest.rework.closed_at) rest.rework = { ...rest.rework, closed_at: now.toISOString() };
  if (next === undefined) return { ...rest, completed_phases: completed, phase_status: "complete" };
  return { ...rest, completed_phases: completed, current_phase: next, phase_status: "pending" };
}

/** Sends the workflow from a failed VERIFICATION back to IMPLEMENTATION (round n). */
export function applyRework(state: PhaseState, round: number, verificationCopy: string, now: Date): PhaseState {
  const implementation = phaseIndex("IMPLEMENTATION");
  return {
    ...state,
    current_phase: "IMPLEMENTATION",
    phase_status: "in_progress",
    completed_phases: state.completed_phases.filter((c) => phaseIndex(c.phase) < implementation),
    rework: { round, verification: verificationCopy, started_at: now.toISOString() },
    error: null,
    // The next verification.json is the next qa's: the moved one's record goes with it.
    ...(state.agent_reports === undefined ? {} : { agent_reports: state.agent_reports.filter((p) => p !== REPORT.verification) }),
  };
}

export function isReworkOpen(state: PhaseState): boolean {
  return state.current_phase === "IMPLEMENTATION" && state.rework != null && !state.rework.closed_at;
}

export function nextReworkRound(state: PhaseState): number {
  return (state.rework?.round ?? 0) + 1;
}

export function transition(state: PhaseState, event: PhaseEvent, context: MachineContext): TransitionResult {
  const current = state.current_phase;
  const at = context.now.toISOString();
  const phase = event.type === "rework" ? "VERIFICATION" : (event.phase ?? current);
  // Done already (a command that records a step also advances, so this is often a repeat): a no-op.
  const unchanged: TransitionResult = { ok: true, state, events: [], effects: [] };
  if (event.type === "complete" && state.completed_phases.some((c) => c.phase === phase)) return unchanged;
  if (event.type === "rework" && isReworkOpen(state) && reportAt(context.reports, REPORT.verification).status === "missing") return unchanged;
  if (isWorkflowComplete(state) && event.type !== "approve") return refuse("workflow_complete", `workflow ${state.workflow_id} is complete; start a new one with \`dotagent init --request …\``);
  if (event.type !== "approve" && phase !== current) {
    return refuse("wrong_phase", `${phase} cannot ${event.type}: the current phase is ${current} (${state.phase_status})`);
  }
  switch (event.type) {
    case "start": {
      const designs = event.designs;
      if (designs !== undefined && phase !== "ARCHITECTURE") return refuse("no_designs", `only ARCHITECTURE asks for designs; ${phase} takes no --designs`);
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
      if (!PHASE_TABLE[phase].gate) return refuse("no_gate", `${phase} has no approval gate; only ${PHASES.filter((p) => PHASE_TABLE[p].gate).join(" and ")} need approval`);
      if (phaseIndex(phase) > phaseIndex(current)) return refuse("wrong_phase", `${phase} cannot be approved yet: the current phase is ${current}`);
      if (isApproved(state, phase)) return { ok: true, state, events: [], effects: [] };
      // The person approves the demand they were shown: there must be one to show.
      if (phase === "REQUIREMENTS" && !isValidReport(reportAt(context.reports, REPORT.demand))) {
        return refuse("phase_incomplete", `REQUIREMENTS cannot be approved yet: ${describe(REPORT.demand, reportAt(context.reports, REPORT.demand)).replace(/^demand\.json/, REPORT.demand)}; the pm agent writes it first, then the person approves what it says`);
      }
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
      if (event.output !== undefined && event.output !== proof.output && !isValidReport(reportAt(context.reports, event.output)) && phase !== "IMPLEMENTATION") {
        return refuse("phase_incomplete", `${phase} cannot complete: ${event.output} is not a valid report`);
      }
      if (PHASE_TABLE[phase].gate && !isApproved(state, phase)) {
        return refuse("not_approved", `${phase} cannot complete: the user has not approved it yet; show them ${PHASE_TABLE[phase].produces} and run \`dotagent phase approve ${phase}\``);
      }
      const next = advance(state, event.output ?? proof.output, context.now);
      return { ok: true, state: next, events: [{ type: "phase_completed", phase, output: event.output ?? proof.output }], effects: [] };
    }
    case "rework": {
      if (!verificationFailed(context.reports)) {
        return refuse("no_rework", "VERIFICATION cannot go back to IMPLEMENTATION: verification.json does not say passed: false");
      }
      const round = nextReworkRound(state);
      const copy = reworkCopyPath(round);
      return {
        ok: true,
        state: applyRework(state, round, copy, context.now),
        events: [{ type: "phase_rework", phase: "IMPLEMENTATION", round, verification: copy }],
        effects: [{ type: "move", from: REPORT.verification, to: copy }],
      };
    }
  }
}
