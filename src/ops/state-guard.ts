// Shared steps of the commands that change state: load under the lock, refuse untrusted state
// with exit 3 (the message names the file, the JSON path and the remedy).
import { DotagentError, EXIT } from "../core/errors.js";
import { formatProblem, validateState } from "../core/validate.js";
import type { StateSnapshot } from "../core/snapshot.js";
import type { PhaseState } from "../schema/phase.js";

/** Throws exit 3 when the state cannot be trusted (CONTRACT §9 errors). */
export function requireValid(snapshot: StateSnapshot, now: Date): void {
  if (snapshot.clearing && snapshot.clearing.problem === null) {
    throw new DotagentError(
      "clear_interrupted",
      `a fresh start was cut off while clearing the state archived as ${snapshot.clearing.archive}; run \`dotagent resume\` to finish it`,
      EXIT.invalid,
    );
  }
  const { errors } = validateState(snapshot, now, { staleAfterMs: Number.POSITIVE_INFINITY });
  const first = errors[0];
  if (first !== undefined) {
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : "";
    throw new DotagentError(
      "state_invalid",
      `${formatProblem(first)}${more}; run \`dotagent validate\` for every problem, or \`dotagent resume\` to decide`,
      EXIT.invalid,
      { errors },
    );
  }
}

export function requireWorkflow(snapshot: StateSnapshot, now: Date): PhaseState {
  requireValid(snapshot, now);
  if (snapshot.phase.kind !== "ok")
    throw new DotagentError(
      "no_workflow",
      // `status` says how to start one to whoever reads it: /develop or `dotagent run` to a person, init to the model.
      "no workflow here (memory/state/phase.json does not exist); `dotagent status` says how to start one",
      EXIT.refused,
    );
  return snapshot.phase.value;
}
