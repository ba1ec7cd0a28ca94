// `once OP-ID -- COMMAND`: run a side effect at most once per op id (the guard is
// src/store/run-once.ts). A run cut off mid-way is a decision (did it happen?) for `decide`;
// without an answer the record comes back with the question.
import type { Decision } from "../core/plan-resume.js";
import type { OpRecord } from "../core/once.js";
import { runOnce, type OnceOutcome } from "../store/run-once.js";
import { assertProjectRoot } from "../store/state-paths.js";
import { decisionWithDir } from "./decision-dir.js";
import type { OpContext } from "./op-context.js";
import type { Decide } from "./resume.js";

export interface OnceInput {
  readonly check?: string | undefined;
  readonly markDone?: boolean | undefined;
  readonly redo?: boolean | undefined;
  /** The command's stdout as it comes (the CLI passes it through); the record keeps the first 16 KiB. */
  readonly onStdout?: ((chunk: Uint8Array) => void) | undefined;
  readonly decide?: Decide | undefined;
}

/** `once --json`. */
export interface OnceResult {
  op_id: string;
  outcome: OnceOutcome["outcome"];
  status: OpRecord["status"];
  ran: boolean;
  command: string[];
  exit_code: number | null;
  /** The first 16 KiB of stdout: text, or base64 when the bytes are not UTF-8 (`stdout_encoding`). */
  stdout: string | null;
  stdout_encoding: "utf8" | "base64";
  stdout_truncated: boolean;
  /** Why the command could not be started ("not found", "permission denied", …), or null. */
  start_error: string | null;
  how: OpRecord["how"] | null;
  runs: number;
  started_at: string;
  finished_at: string | null;
  decision: Decision | null;
}

export interface OnceRun {
  readonly result: OnceResult;
  readonly outcome: OnceOutcome;
}

export async function runOnceOp(
  context: Pick<OpContext, "paths" | "now" | "dirArg">,
  opId: string,
  argv: readonly string[],
  input: OnceInput,
): Promise<OnceRun> {
  assertProjectRoot(context.paths); // a --dir that is not there is never "no project" (§2)
  const options = {
    check: input.check,
    markDone: input.markDone === true,
    redo: input.redo === true,
    now: context.now,
    ...(input.onStdout ? { onStdout: input.onStdout } : {}),
  };
  let outcome = await runOnce(context.paths, opId, argv, options);
  if (outcome.outcome === "decide")
    outcome = { ...outcome, decision: decisionWithDir(outcome.decision, context.dirArg) };
  if (outcome.outcome === "decide") {
    const answer = input.decide ? await input.decide(outcome.decision) : "no-terminal";
    if (answer === "no-terminal")
      return { result: { ...onceJson("decide", outcome.record), decision: outcome.decision }, outcome };
    outcome = await runOnce(
      context.paths,
      opId,
      argv,
      answer ? { ...options, markDone: true } : { ...options, redo: true },
    );
    // An answer (--mark-done or --redo) always settles the question.
    if (outcome.outcome === "decide") throw new Error(`op ${opId}: still undecided after an answer`);
  }
  return { result: onceJson(outcome.outcome, outcome.record), outcome };
}

function onceJson(outcome: OnceOutcome["outcome"], r: OpRecord): OnceResult {
  return {
    op_id: r.op_id,
    outcome,
    status: r.status,
    ran: outcome === "ran",
    command: r.command,
    exit_code: r.exit_code ?? null,
    stdout: r.stdout ?? null,
    stdout_encoding: r.stdout_encoding ?? "utf8",
    stdout_truncated: r.stdout_truncated ?? false,
    start_error: r.start_error ?? null,
    how: r.how ?? null,
    runs: r.runs,
    started_at: r.started_at,
    finished_at: r.finished_at ?? null,
    decision: null,
  };
}
