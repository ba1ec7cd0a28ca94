// The phase table: each step of a workflow's flow (core/flow.ts) as the planner, the phase
// machine, validation and the Claude Code briefing read it: its agent, the outputs that prove it
// done, its approval gate. PHASES and PHASE_TABLE are the built-in develop's.

import { DEVELOP, REPORT, hasGate, stepAgent, stepProduces, type Flow } from "./flow.js";
import { flowOf, type Pinned } from "./flow-of.js";

export { DEFAULT_DESIGNS, REPORT } from "./flow.js";
export { REPORTS_DIR, STATE_DIR } from "./paths.js";

/** The built-in develop's steps: what a workflow without a pinned definition walks. */
export const PHASES: readonly string[] = DEVELOP.steps.map((s) => s.id);
/** A step id of the workflow's definition (develop's: REQUIREMENTS … REFLECTION). */
export type Phase = string;

export const PHASE_STATUSES = ["pending", "in_progress", "complete", "failed"] as const;
export type PhaseStatus = (typeof PHASE_STATUSES)[number];

export interface PhaseSpec {
  readonly phase: Phase;
  /** The agent that does the phase's first step (null: a command dotagent runs). */
  readonly agent: string | null;
  /** Whether a person must approve the phase (a user_checkpoints entry) before it completes. */
  readonly gate: boolean;
  /** Files any one of which proves the phase done (a tasks step is proved by its tasks instead). */
  readonly outputs: readonly string[];
  /** One line for people and agents: what the phase produces. */
  readonly produces: string;
}

/** The phase table of a flow: each step's agent, gate, outputs, keyed by step id. */
export function phaseTable(flow: Flow): Readonly<Record<Phase, PhaseSpec>> {
  return Object.fromEntries(
    flow.steps.map((s) => [
      s.id,
      { phase: s.id, agent: stepAgent(s), gate: hasGate(s), outputs: s.reports, produces: stepProduces(s) },
    ]),
  );
}

export const PHASE_TABLE: Readonly<Record<Phase, PhaseSpec>> = phaseTable(DEVELOP);

const tables = new WeakMap<Flow, Readonly<Record<Phase, PhaseSpec>>>();

/** The spec of step `phase` in the workflow `state` walks (flowOf: its pinned definition, or develop). */
export function specOf(state: { readonly workflow?: Pinned | undefined }, phase: Phase): PhaseSpec {
  const flow = flowOf(state);
  let table = tables.get(flow);
  if (table === undefined) {
    table = phaseTable(flow);
    tables.set(flow, table);
  }
  const spec = table[phase];
  if (spec === undefined) throw new Error(`${phase} is no step of workflow ${flow.name}`);
  return spec;
}

/** The step ids, in order, of the workflow `state` walks. */
export function phasesOf(state: { readonly workflow?: Pinned | undefined }): readonly Phase[] {
  return flowOf(state).steps.map((s) => s.id);
}

export function phaseIndexIn(state: { readonly workflow?: Pinned | undefined }, phase: Phase): number {
  return phasesOf(state).indexOf(phase);
}

export function nextPhaseIn(state: { readonly workflow?: Pinned | undefined }, phase: Phase): Phase | undefined {
  const phases = phasesOf(state);
  return phases[phases.indexOf(phase) + 1];
}

/** Whether `value` is shaped like a step id (develop's phases, or a definition's steps: SPEC §20), e.g. for an archive's manifest. */
export function isPhase(value: unknown): value is Phase {
  return typeof value === "string" && /^[A-Za-z][A-Za-z0-9_-]{0,39}$/.test(value);
}

export function taskOutputPath(taskId: string): string {
  return `${REPORT.tasksDir}/${taskId}.json`;
}

/** Where a failed check report (develop: verification.json) is kept for rework round n. */
export function reworkCopyPath(round: number, report: string = REPORT.verification): string {
  return report.replace(/\.(json|md)$/, `.rework-${round}.$1`);
}
