// The state files a checkpoint holds, judged with the live state's own rules (§9) before they are
// listed as restorable or restored: a checkpoint whose files match their checksums but fail
// validation (phases out of order, a task graph with a cycle) is damaged, never returned to.
// Only one rule is left out: a completed phase's or task's output need not be in the live tree
// now (a rollback may have archived it); rollback refuses that case itself
// (`rollback_outputs_missing`) with the archive to restore.
import { parsePhaseState, type PhaseState } from "../schema/phase.js";
import { parseExecutionState, type ExecutionState } from "../schema/execution.js";
import type { StateSnapshot } from "./snapshot.js";
import { formatProblem, validateState } from "./validate.js";

export type HeldState =
  { ok: true; phase: PhaseState; execution: ExecutionState | null } | { ok: false; problem: string };

export function judgeHeldState(phase: unknown, execution: unknown | null, now: Date): HeldState {
  const parsedPhase = parsePhaseState(phase);
  if (!parsedPhase.ok)
    return { ok: false, problem: formatProblem({ file: "phase.json", ...parsedPhase.problems[0]! }) };
  const parsedExecution = execution === null ? null : parseExecutionState(execution);
  if (parsedExecution !== null && !parsedExecution.ok)
    return { ok: false, problem: formatProblem({ file: "execution.json", ...parsedExecution.problems[0]! }) };
  const snapshot: StateSnapshot = {
    phase: { kind: "ok", file: "memory/state/phase.json", value: parsedPhase.value, stamp: "held" },
    execution:
      parsedExecution === null
        ? { kind: "missing", file: "memory/state/execution.json" }
        : { kind: "ok", file: "memory/state/execution.json", value: parsedExecution.value, stamp: "held" },
    reports: { files: new Map(), designs: [] },
    tempFiles: [],
  };
  const errors = validateState(snapshot, now, { staleAfterMs: Number.POSITIVE_INFINITY }).errors.filter(
    (e) => e.code !== "output_missing",
  );
  const first = errors[0];
  if (first !== undefined)
    return { ok: false, problem: formatProblem({ ...first, file: first.file.replace("memory/state/", "") }) };
  return { ok: true, phase: parsedPhase.value, execution: parsedExecution === null ? null : parsedExecution.value };
}
