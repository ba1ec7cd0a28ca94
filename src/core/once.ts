// The idempotency guard's decisions (`dotagent once`), pure: given what is recorded for one
// operation id and whether its runner still lives, what to do. The store (src/store/run-once.ts)
// reads the record under the op's own lock and carries the decision out.
//
// Record life: none → "running" (the intent, written before the command starts) → "done" (exit
// 0) or "failed" (non-zero). Only "done" is final: a failed command had its say and may be run
// again. "running" found by a process that holds the op's lock means its runner died mid-effect:
// nobody knows whether the effect happened, so a person (or `--check`) decides.
import { shellQuote } from "./plan-resume.js";
import type { Decision } from "./plan-resume.js";

export const OP_STATUSES = ["running", "done", "failed"] as const;
export type OpStatus = (typeof OP_STATUSES)[number];

/** How a "done" or "failed" result came about. */
export type OpHow = "ran" | "checked" | "marked_done";

export interface OpRecord {
  op_id: string;
  /** The command as argv (run without a shell). */
  command: string[];
  status: OpStatus;
  started_at: string;
  runner: { pid: number; hostname: string };
  /** How many times the command was started under this id (a retry after failure or a crash adds one). */
  runs: number;
  finished_at?: string | null;
  exit_code?: number | null;
  stdout?: string | null;
  stdout_truncated?: boolean;
  how?: OpHow | null;
}

/** What the caller asked for beyond "run it once". */
export interface OnceRequest {
  /** A probe for the unknown case: exit 0 means the effect happened. */
  check?: string | undefined;
  /** The person's answer to "did it happen?": yes. */
  markDone?: boolean;
  /** The person's answer to "did it happen?": no, run it again. */
  redo?: boolean;
}

export type OncePlan =
  | { action: "run"; reason: "new" | "retry_after_failure" | "redo_after_crash" | "check_failed" }
  | { action: "replay"; record: OpRecord }
  | { action: "check"; record: OpRecord; check: string }
  | { action: "mark_done"; record: OpRecord | null }
  | { action: "decide"; record: OpRecord; decision: Decision };

/**
 * Decides, for a caller holding the op's lock, what to do with the record found. A "running"
 * record seen under the lock is a crash mid-effect (the runner held the lock until its result).
 */
export function planOnce(opId: string, record: OpRecord | null, command: readonly string[], request: OnceRequest): OncePlan {
  if (record?.status === "done") return { action: "replay", record };
  if (request.markDone) return { action: "mark_done", record };
  if (record === null) return { action: "run", reason: "new" };
  if (record.status === "failed") return { action: "run", reason: "retry_after_failure" };
  if (request.redo) return { action: "run", reason: "redo_after_crash" };
  if (request.check !== undefined) return { action: "check", record, check: request.check };
  return { action: "decide", record, decision: unknownDecision(opId, record, command) };
}

export function unknownDecision(opId: string, record: OpRecord, command: readonly string[]): Decision {
  const line = (argv: readonly string[]) => argv.map(shellQuote).join(" ");
  const rerun = command.length > 0 ? command : record.command;
  return {
    question: `\`${line(record.command)}\` (op ${opId}) was started at ${record.started_at} by pid ${record.runner.pid}, which died before recording its result. Did it take effect?`,
    default: false,
    yes: `dotagent once ${shellQuote(opId)} --mark-done`,
    no: `dotagent once ${shellQuote(opId)} --redo -- ${line(rerun)}`,
  };
}

/** Keeps at most `limit` bytes of output (the first ones, cut on a character boundary). */
export function capOutput(text: string, limit: number): { text: string; truncated: boolean } {
  if (Buffer.byteLength(text) <= limit) return { text, truncated: false };
  const cut = Buffer.from(text).subarray(0, limit).toString("utf8");
  // A multi-byte character cut in half decodes as U+FFFD: drop it.
  return { text: cut.endsWith("\uFFFD") ? cut.slice(0, -1) : cut, truncated: true };
}

/** A record read from disk, or a reason it is not one (never throws). */
export function parseOpRecord(text: string): OpRecord | { invalid: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { invalid: "not valid JSON" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { invalid: "not a JSON object" };
  const r = value as Record<string, unknown>;
  if (typeof r.op_id !== "string") return { invalid: "op_id: expected a string" };
  if (!Array.isArray(r.command) || !r.command.every((a) => typeof a === "string")) return { invalid: "command: expected an array of strings" };
  if (!(OP_STATUSES as readonly unknown[]).includes(r.status)) return { invalid: `status: expected one of ${OP_STATUSES.join(", ")}` };
  if (typeof r.started_at !== "string") return { invalid: "started_at: expected a string" };
  const runner = r.runner as Record<string, unknown> | undefined;
  if (typeof runner !== "object" || runner === null || typeof runner.pid !== "number" || typeof runner.hostname !== "string") return { invalid: "runner: expected {pid, hostname}" };
  if (r.status !== "running" && typeof r.exit_code !== "number") return { invalid: "exit_code: expected a number" };
  const record = r as unknown as OpRecord;
  return typeof record.runs === "number" ? record : { ...record, runs: 1 };
}
