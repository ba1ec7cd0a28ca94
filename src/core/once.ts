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
  /**
   * The command's process, recorded as soon as it started (pid, and its start time in clock ticks
   * from /proc/<pid>/stat field 22, null where there is no /proc): while it lives, the op is
   * running even if the runner was killed.
   */
  child?: { pid: number; start: string | null } | null;
  /** How many times the command was started under this id (a retry after failure or a crash adds one). */
  runs: number;
  finished_at?: string | null;
  /** 0 for done; 1–255 for failed (127 not found, 126 not startable, 128 + n killed by signal n). */
  exit_code?: number | null;
  /** The first STDOUT_LIMIT bytes of stdout: as text when they are UTF-8, else base64 (`stdout_encoding`). */
  stdout?: string | null;
  /** How `stdout` holds the bytes; absent (records before it) means utf8. */
  stdout_encoding?: OutputEncoding;
  stdout_truncated?: boolean;
  /** Why the command could not be started ("not found", "permission denied", …), null when it ran. */
  start_error?: string | null;
  how?: OpHow | null;
}

export type OutputEncoding = "utf8" | "base64";

/** What the caller asked for beyond "run it once". */
export interface OnceRequest {
  /** A probe for the unknown case: exit 0 means the effect happened. */
  check?: string | undefined;
  /** The person's answer to "did it happen?": yes. */
  markDone?: boolean;
  /** The person's answer to "did it happen?": no, run it again. */
  redo?: boolean;
}

/** What the store found out about the processes behind a `running` record. */
export interface OnceFacts {
  /** The recorded command process (`child`) still runs on this host: its runner died, it did not. */
  readonly commandRunning: boolean;
}

export type OncePlan =
  | { action: "run"; reason: "new" | "retry_after_failure" | "redo_after_crash" | "check_failed" }
  /** The runner is gone but its command still runs: no answer (not even --redo) until it ends. */
  | { action: "running"; record: OpRecord; pid: number }
  | { action: "replay"; record: OpRecord }
  | { action: "check"; record: OpRecord; check: string }
  | { action: "mark_done"; record: OpRecord | null }
  | { action: "decide"; record: OpRecord; decision: Decision };

/**
 * Decides, for a caller holding the op's lock, what to do with the record found. A "running"
 * record seen under the lock is a crash mid-effect (the runner held the lock until its result).
 */
export function planOnce(
  opId: string,
  record: OpRecord | null,
  command: readonly string[],
  request: OnceRequest,
  facts: OnceFacts = { commandRunning: false },
): OncePlan {
  if (record?.status === "done") return { action: "replay", record };
  // Asking "did it take effect?" (or running it again beside it) while it still runs would be a guess.
  if (record?.status === "running" && facts.commandRunning && record.child)
    return { action: "running", record, pid: record.child.pid };
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

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function asUtf8(bytes: Uint8Array): string | null {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * The record's form of a command's stdout: its first `limit` bytes, as text when they are UTF-8
 * (a multi-byte character cut by the limit is dropped), else base64, so replay gives back every
 * kept byte as it was.
 */
export function encodeOutput(
  bytes: Uint8Array,
  limit: number,
  seenMore = false,
): { stdout: string; stdout_encoding: OutputEncoding; stdout_truncated: boolean } {
  const kept = bytes.subarray(0, limit);
  const truncated = seenMore || bytes.length > limit;
  const text = asUtf8(kept);
  if (text !== null) return { stdout: text, stdout_encoding: "utf8", stdout_truncated: truncated };
  if (truncated) {
    for (let drop = 1; drop <= 3 && drop < kept.length; drop++) {
      const shorter = asUtf8(kept.subarray(0, kept.length - drop));
      if (shorter !== null) return { stdout: shorter, stdout_encoding: "utf8", stdout_truncated: true };
    }
  }
  return { stdout: Buffer.from(kept).toString("base64"), stdout_encoding: "base64", stdout_truncated: truncated };
}

/** The recorded stdout as bytes, exactly as the command wrote them (empty when none). */
export function decodeOutput(record: Pick<OpRecord, "stdout" | "stdout_encoding">): Uint8Array {
  if (!record.stdout) return Buffer.alloc(0);
  return Buffer.from(record.stdout, record.stdout_encoding === "base64" ? "base64" : "utf8");
}

/**
 * The most a command may take in its record (its argv as written in op.json): with the 16 KiB of
 * stdout (at most ~96 KiB once escaped) and the other fields, a record always stays under the
 * 1 MiB op.json is read with, so every result recorded can be read back.
 */
export const MAX_COMMAND_BYTES = 512 * 1024;

/** Bytes the argv takes in op.json (pretty-printed, nested one level). */
export function commandRecordBytes(command: readonly string[]): number {
  return Buffer.byteLength(JSON.stringify(command, null, 4)) + 2;
}

/**
 * Why `command` cannot be run and recorded, in one line, or null. Checked before anything is
 * recorded: a program name that is empty, an argument with a NUL byte (no program can receive
 * it), or an argv too big for its record.
 */
export function commandProblem(command: readonly string[]): string | null {
  if (command.length === 0) return null;
  if (command[0] === "") return "the program name is empty";
  const nul = command.findIndex((arg) => arg.includes("\0"));
  if (nul >= 0)
    return `${nul === 0 ? "the program name" : `argument ${nul}`} holds a NUL byte, which no program can receive`;
  const bytes = commandRecordBytes(command);
  if (bytes > MAX_COMMAND_BYTES)
    return `the command takes ${formatKiB(bytes)} in its record, over the ${formatKiB(MAX_COMMAND_BYTES)} a record keeps: put it in a script and run that`;
  return null;
}

function formatKiB(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}

const isInt = (v: unknown, min: number, max: number): v is number =>
  typeof v === "number" && Number.isSafeInteger(v) && v >= min && v <= max;
const optional = (v: unknown, ok: (v: unknown) => boolean) => v === undefined || v === null || ok(v);
const isString = (v: unknown): v is string => typeof v === "string";
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * A record read from disk, or a reason it is not one (never throws). Strict: a record is replayed
 * as a command's result, so a field of the wrong type or range (an exit code of 1.5, 300, "0"),
 * a `done` with a non-zero exit code, or another op's record (`op_id` not `opId`) is refused,
 * never coerced.
 */
export function parseOpRecord(text: string, opId?: string): OpRecord | { invalid: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { invalid: "not valid JSON" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { invalid: "not a JSON object" };
  const r = value as Record<string, unknown>;
  if (typeof r.op_id !== "string") return { invalid: "op_id: expected a string" };
  if (opId !== undefined && r.op_id !== opId)
    return {
      invalid: `op_id: ${JSON.stringify(r.op_id.slice(0, 40))}${r.op_id.length > 40 ? "…" : ""} is another op's record, not ${opId}'s`,
    };
  if (!Array.isArray(r.command) || !r.command.every(isString))
    return { invalid: "command: expected an array of strings" };
  if (!(OP_STATUSES as readonly unknown[]).includes(r.status))
    return { invalid: `status: expected one of ${OP_STATUSES.join(", ")}` };
  if (typeof r.started_at !== "string") return { invalid: "started_at: expected a string" };
  const runner = r.runner as Record<string, unknown> | undefined;
  if (
    typeof runner !== "object" ||
    runner === null ||
    !isInt(runner.pid, 1, 2 ** 31) ||
    typeof runner.hostname !== "string"
  )
    return { invalid: "runner: expected {pid: a positive integer, hostname}" };
  const child = r.child as Record<string, unknown> | null | undefined;
  if (
    child !== undefined &&
    child !== null &&
    (typeof child !== "object" ||
      !isInt(child.pid, 1, 2 ** 31) ||
      !optional(child.start, (s) => typeof s === "string" && /^\d+$/.test(s)))
  )
    return { invalid: "child: expected {pid: a positive integer, start: digits or null}" };
  if (r.runs !== undefined && !isInt(r.runs, 0, Number.MAX_SAFE_INTEGER))
    return { invalid: "runs: expected a whole number" };
  const exit = r.exit_code;
  if (r.status === "running" && exit !== undefined && exit !== null)
    return { invalid: `exit_code: ${JSON.stringify(exit)} on a running record, which has none yet` };
  if (r.status === "done" && exit !== 0)
    return { invalid: `exit_code: ${JSON.stringify(exit) ?? "missing"} with status done, which means exit 0` };
  if (r.status === "failed" && !isInt(exit, 1, 255))
    return {
      invalid: `exit_code: ${JSON.stringify(exit) ?? "missing"} with status failed: expected a whole number from 1 to 255`,
    };
  if (!optional(r.finished_at, isString)) return { invalid: "finished_at: expected a string or null" };
  if (!optional(r.stdout_encoding, (e) => e === "utf8" || e === "base64"))
    return { invalid: "stdout_encoding: expected utf8 or base64" };
  if (!optional(r.stdout, isString)) return { invalid: "stdout: expected a string or null" };
  if (
    r.stdout_encoding === "base64" &&
    typeof r.stdout === "string" &&
    (r.stdout.length % 4 !== 0 || !BASE64.test(r.stdout))
  )
    return { invalid: "stdout: not base64, as stdout_encoding says" };
  if (!optional(r.stdout_truncated, (b) => typeof b === "boolean"))
    return { invalid: "stdout_truncated: expected true or false" };
  if (!optional(r.start_error, isString)) return { invalid: "start_error: expected a string or null" };
  if (!optional(r.how, (h) => h === "ran" || h === "checked" || h === "marked_done"))
    return { invalid: "how: expected ran, checked or marked_done" };
  const record = r as unknown as OpRecord;
  return typeof record.runs === "number" ? record : { ...record, runs: 1 };
}
