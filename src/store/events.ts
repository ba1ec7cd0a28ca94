// The event log (CONTRACT §7): memory/state/events.jsonl, one JSON object a line, append-only.
// An append is one write() of one whole line on an O_APPEND descriptor, then fsync (write-file.ts's
// appendFileInside: never through a link, never blocking on a FIFO). A crash can
// still leave a torn last line: readers skip any line that does not parse, and the next append
// starts on a fresh line so the torn one never swallows a good event.
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { basename } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import { writeFailure } from "./io-error.js";
import { MAX_STATE_BYTES, readProjectText } from "./read-file.js";
import { appendFileInside } from "./write-file.js";

// Never through a link (the state-path rule), never blocking on a FIFO swapped in.
const SAFE = constants.O_NOFOLLOW | constants.O_NONBLOCK;

export interface EventRecord {
  seq: number;
  at: string;
  type: string;
  [key: string]: unknown;
}

const TAIL_BYTES = 64 * 1024;

/** Reads the end of the file to find the last sequence number and whether the file ends cleanly. */
function readTail(file: string): { lastSeq: number; endsWithNewline: boolean } {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | SAFE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { lastSeq: 0, endsWithNewline: true };
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile())
      throw writeFailure(
        `memory/state/${basename(file)}`,
        Object.assign(new Error("not a regular file"), { code: "EINVAL" }),
      );
    const size = stat.size;
    if (size === 0) return { lastSeq: 0, endsWithNewline: true };
    const length = Math.min(size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    const text = buffer.toString("utf8");
    const lines = text.split("\n");
    for (let i = lines.length - 1; i >= 0; i--) {
      const seq = seqOf(lines[i] ?? "");
      if (seq !== undefined) return { lastSeq: seq, endsWithNewline: text.endsWith("\n") };
    }
    return { lastSeq: 0, endsWithNewline: text.endsWith("\n") };
  } finally {
    closeSync(fd);
  }
}

function seqOf(line: string): number | undefined {
  if (line.trim() === "") return undefined;
  try {
    const value = JSON.parse(line) as { seq?: unknown };
    return typeof value.seq === "number" ? value.seq : undefined;
  } catch {
    return undefined;
  }
}

/** Appends events to `file` under `root` (the project); the caller holds the state lock, so sequence numbers are unique. */
export function appendEvents(
  root: string,
  file: string,
  events: ReadonlyArray<{ type: string; [key: string]: unknown }>,
  at: Date,
): EventRecord[] {
  if (events.length === 0) return [];
  let records: EventRecord[];
  try {
    const { lastSeq, endsWithNewline } = readTail(file);
    records = events.map((event, i): EventRecord => ({ seq: lastSeq + i + 1, at: at.toISOString(), ...event }));
    const text = (endsWithNewline ? "" : "\n") + records.map((r) => JSON.stringify(r)).join("\n") + "\n";
    appendFileInside(root, file, text, { fsync: true });
  } catch (error) {
    throw writeFailure(`memory/state/${basename(file)}`, error);
  }
  return records;
}

/** The complete events in the last `maxBytes` of the log, oldest first (a cut first line and torn or garbled ones skipped); none when it cannot be read. */
export function readEventsTail(file: string, maxBytes = TAIL_BYTES): EventRecord[] {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | SAFE);
  } catch {
    return [];
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size === 0) return [];
    const length = Math.min(stat.size, maxBytes);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, stat.size - length);
    const lines = buffer.toString("utf8").split("\n");
    if (length < stat.size) lines.shift();
    return parseEventLines(lines);
  } catch {
    return [];
  } finally {
    closeSync(fd);
  }
}

/** Every complete event, oldest first; torn or garbled lines are skipped. */
export function readEvents(file: string): EventRecord[] {
  const read = readProjectText(file, { maxBytes: MAX_STATE_BYTES, links: "refuse" });
  if (read.kind === "missing") return [];
  if (read.kind === "refused") {
    const rel = `memory/state/${basename(file)}`;
    throw new DotagentError(
      "state_unreadable",
      `${rel} ${read.reason}; ${read.errno === undefined ? "for the person: archive the workflow (`dotagent archive`) or move the file away" : "check the permissions of memory/state/"}`,
      EXIT.invalid,
      { path: rel },
    );
  }
  return parseEventLines(read.text.split("\n"));
}

/** The events among `lines`, in order; blank, torn (a crash mid-append) or garbled lines are skipped. */
function parseEventLines(lines: readonly string[]): EventRecord[] {
  const out: EventRecord[] = [];
  for (const line of lines) {
    if (line.trim() === "") continue;
    try {
      const value = JSON.parse(line) as EventRecord;
      if (value !== null && typeof value === "object" && typeof value.type === "string") out.push(value);
    } catch {
      // torn line from a crash mid-append
    }
  }
  return out;
}
