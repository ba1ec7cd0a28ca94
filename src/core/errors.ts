// Expected failures are values of this one class: a stable code, the exit code of CONTRACT §10,
// a one-line message naming the file and what to do. The CLI entry turns them into one line and
// an exit code; anything else is a bug and is reported as such. The codes are a closed set, each
// with its exit code and meaning: error-codes.ts.

import type { ErrorCode } from "./error-codes.js";

export const EXIT = {
  ok: 0,
  refused: 1,
  usage: 2,
  invalid: 3,
  locked: 4,
  decide: 5,
  /** Stopped by Ctrl-C (`dotagent run`): 128 + SIGINT, as shells report it. */
  interrupted: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export class DotagentError extends Error {
  override readonly name = "DotagentError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly exitCode: ExitCode = EXIT.refused,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/**
 * A planner's refusal (issue 41, docs/architecture.md "Operations as plans"): the error as a value
 * (code, message, exit code), thrown by the op that carries the plan out (refusalError).
 */
export interface Refusal {
  readonly kind: "refuse";
  readonly code: ErrorCode;
  readonly message: string;
  readonly exit: ExitCode;
  readonly details?: Readonly<Record<string, unknown>>;
}

export const refuse = (
  code: ErrorCode,
  message: string,
  exit: ExitCode = EXIT.refused,
  details?: Record<string, unknown>,
): Refusal => ({ kind: "refuse", code, message, exit, ...(details ? { details } : {}) });

/** The refusal as the error the CLI and the library report (one line, its exit code). */
export function refusalError(plan: Refusal): DotagentError {
  return new DotagentError(plan.code, plan.message, plan.exit, plan.details);
}

export function usageError(message: string): DotagentError {
  return new DotagentError("usage", message, EXIT.usage);
}

export function refused(code: ErrorCode, message: string, details: Record<string, unknown> = {}): DotagentError {
  return new DotagentError(code, message, EXIT.refused, details);
}
