// Ctrl-C of `dotagent run`: one error for every place a run can be stopped (a question at a gate,
// an agent at work, between steps). Nothing is marked failed: the agents' SDK sessions stay
// recorded (memory/runs/<workflow>/) and continue on the next run; the tasks the run had started
// are given back (pending, no attempt counted). Exit 130, as shells report an interrupt.
import { DotagentError, EXIT } from "../core/errors.js";

export function interruptedError(sessionsKept: readonly string[] = []): DotagentError {
  const kept =
    sessionsKept.length === 0
      ? ""
      : ` (${sessionsKept.length === 1 ? "the session" : "the sessions"} of ${sessionsKept.join(", ")} ${sessionsKept.length === 1 ? "is" : "are"} kept; nothing was marked failed)`;
  return new DotagentError("interrupted", `interrupted; \`dotagent run\` continues${kept}`, EXIT.interrupted, {
    sessions_kept: [...sessionsKept],
  });
}

export function isInterrupted(error: unknown): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === "interrupted";
}
