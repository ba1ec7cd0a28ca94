// The phase table: the one place that knows the five phases, their agents, the outputs that
// prove them done and their approval gates. The planner, the phase machine, validation and the
// Claude Code briefing all read this table instead of branching on phase names.

export const PHASES = ["REQUIREMENTS", "ARCHITECTURE", "IMPLEMENTATION", "VERIFICATION", "REFLECTION"] as const;
export type Phase = (typeof PHASES)[number];

export const PHASE_STATUSES = ["pending", "in_progress", "complete", "failed"] as const;
export type PhaseStatus = (typeof PHASE_STATUSES)[number];

export const REPORTS_DIR = "memory/reports";
export const STATE_DIR = "memory/state";

export const REPORT = {
  demand: `${REPORTS_DIR}/demand.json`,
  designsDir: `${REPORTS_DIR}/designs`,
  roundtable: `${REPORTS_DIR}/roundtable.json`,
  finalDesign: `${REPORTS_DIR}/final_design.json`,
  tasksDir: `${REPORTS_DIR}/tasks`,
  verification: `${REPORTS_DIR}/verification.json`,
  reflectionJson: `${REPORTS_DIR}/reflection.json`,
  reflectionMd: `${REPORTS_DIR}/reflection.md`,
  execution: `${STATE_DIR}/execution.json`,
} as const;

export interface PhaseSpec {
  readonly phase: Phase;
  /** The agent that does the phase's first step. */
  readonly agent: string;
  /** Whether a person must approve the phase (a user_checkpoints entry) before it completes. */
  readonly gate: boolean;
  /** Files any one of which proves the phase done (IMPLEMENTATION is proved by its tasks instead). */
  readonly outputs: readonly string[];
  /** One line for people and agents: what the phase produces. */
  readonly produces: string;
}

export const PHASE_TABLE: Readonly<Record<Phase, PhaseSpec>> = {
  REQUIREMENTS: {
    phase: "REQUIREMENTS",
    agent: "pm",
    gate: true,
    outputs: [REPORT.demand],
    produces: "demand.json",
  },
  ARCHITECTURE: {
    phase: "ARCHITECTURE",
    agent: "architect",
    gate: true,
    outputs: [REPORT.finalDesign],
    produces: "designs/*.json, roundtable.json and final_design.json",
  },
  IMPLEMENTATION: {
    phase: "IMPLEMENTATION",
    agent: "executor",
    gate: false,
    outputs: [REPORT.execution],
    produces: "execution.json with every task complete and tasks/<id>.json per task",
  },
  VERIFICATION: {
    phase: "VERIFICATION",
    agent: "qa",
    gate: false,
    outputs: [REPORT.verification],
    produces: "verification.json",
  },
  REFLECTION: {
    phase: "REFLECTION",
    agent: "reflector",
    gate: false,
    outputs: [REPORT.reflectionJson, REPORT.reflectionMd],
    produces: "reflection.json or reflection.md",
  },
};

/**
 * The designs ARCHITECTURE asks for when nobody chose others (`phase start ARCHITECTURE --designs`):
 * a small, direct one and a more robust one, each written by its own architect.
 */
export const DEFAULT_DESIGNS: readonly { readonly name: string; readonly angle: string }[] = [
  { name: "minimal", angle: "the smallest change that meets every acceptance criterion" },
  { name: "robust", angle: "a design that holds up as the feature grows" },
];

export function phaseIndex(phase: Phase): number {
  return PHASES.indexOf(phase);
}

export function nextPhase(phase: Phase): Phase | undefined {
  return PHASES[phaseIndex(phase) + 1];
}

export function isPhase(value: unknown): value is Phase {
  return typeof value === "string" && (PHASES as readonly string[]).includes(value);
}

export function taskOutputPath(taskId: string): string {
  return `${REPORT.tasksDir}/${taskId}.json`;
}

/** Where a failed verification.json is kept for rework round n. */
export function reworkCopyPath(round: number): string {
  return REPORT.verification.replace(/\.json$/, `.rework-${round}.json`);
}
