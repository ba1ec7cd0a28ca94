// Builders for the pure core's inputs, shared by the unit tests beside the code.
import type { PhaseState } from "../schema/phase.js";
import type { ExecutionState, Task } from "../schema/execution.js";
import type { ReportSnapshot, ReportState } from "./reports.js";
import type { StateSnapshot } from "./snapshot.js";
import { PHASES, REPORT, type Phase } from "./phases.js";

export const NOW = new Date("2026-11-20T12:00:00Z");

export function phaseState(overrides: Partial<PhaseState> = {}): PhaseState {
  return {
    workflow_id: "wf-login",
    started_at: "2026-11-20T09:00:00Z",
    last_updated: "2026-11-20T10:30:00Z",
    current_phase: "REQUIREMENTS",
    phase_status: "in_progress",
    completed_phases: [],
    user_checkpoints: [],
    interruption_safe: true,
    ...overrides,
  };
}

/** A phase state at `phase` with every earlier phase completed and approved. */
export function atPhase(phase: Phase, overrides: Partial<PhaseState> = {}): PhaseState {
  const before = PHASES.slice(0, PHASES.indexOf(phase));
  return phaseState({
    current_phase: phase,
    completed_phases: before.map((p, i) => ({
      phase: p,
      completed_at: `2026-11-20T10:0${i}:00Z`,
      output: OUTPUT_OF[p],
    })),
    user_checkpoints: before
      .filter((p) => p === "REQUIREMENTS" || p === "ARCHITECTURE")
      .map((p) => ({ phase: p, approved_at: "2026-11-20T09:30:00Z" })),
    ...overrides,
  });
}

export const OUTPUT_OF: Record<Phase, string> = {
  REQUIREMENTS: REPORT.demand,
  ARCHITECTURE: REPORT.finalDesign,
  IMPLEMENTATION: REPORT.execution,
  VERIFICATION: REPORT.verification,
  REFLECTION: REPORT.reflectionMd,
};

export function task(id: string, overrides: Partial<Task> = {}): Task {
  return {
    id,
    status: "pending",
    depends_on: [],
    attempts: 0,
    started_at: null,
    completed_at: null,
    output: `memory/reports/tasks/${id}.json`,
    error: null,
    ...overrides,
  };
}

export function execution(tasks: Task[], overrides: Partial<ExecutionState> = {}): ExecutionState {
  return {
    workflow_id: "wf-login",
    updated_at: "2026-11-20T11:00:00Z",
    interruption_safe: true,
    max_attempts: 3,
    tasks,
    ...overrides,
  };
}

export const VALID: ReportState = { status: "valid", data: { ok: true } };

const KINDS = new Set(["missing", "exists", "valid", "invalid", "outside"]);
function isReportState(value: object): value is ReportState {
  return KINDS.has((value as { status?: string }).status ?? "") && !("task_id" in value);
}

export function reports(files: Record<string, ReportState | object> = {}, designs: string[] = []): ReportSnapshot {
  const out = new Map<string, ReportState>();
  for (const [path, value] of Object.entries(files))
    out.set(path, isReportState(value) ? value : { status: "valid", data: value });
  for (const d of designs) out.set(d, VALID);
  return { files: out, designs };
}

/** Reports proving every phase before `phase` (what atPhase's completed_phases refer to). */
export function reportsBefore(
  phase: Phase,
  extra: Record<string, ReportState | object> = {},
  designs: string[] = [],
): ReportSnapshot {
  const files: Record<string, ReportState | object> = {};
  for (const p of PHASES.slice(0, PHASES.indexOf(phase)))
    files[OUTPUT_OF[p]!] = p === "VERIFICATION" ? { passed: true } : { ok: true };
  if (PHASES.indexOf(phase) > PHASES.indexOf("IMPLEMENTATION")) files[REPORT.execution] = { status: "exists" };
  return reports({ ...files, ...extra }, designs);
}

export function snapshot(
  phase: PhaseState | undefined,
  exec?: ExecutionState,
  reportSnapshot: ReportSnapshot = reports(),
  tempFiles: string[] = [],
): StateSnapshot {
  return {
    phase:
      phase === undefined
        ? { kind: "missing", file: "memory/state/phase.json" }
        : { kind: "ok", file: "memory/state/phase.json", value: phase, stamp: "s" },
    execution:
      exec === undefined
        ? { kind: "missing", file: "memory/state/execution.json" }
        : { kind: "ok", file: "memory/state/execution.json", value: exec, stamp: "s" },
    reports: reportSnapshot,
    tempFiles,
  };
}
