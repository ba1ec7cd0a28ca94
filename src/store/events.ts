// The event log (CONTRACT §7): memory/state/events.jsonl, one JSON object a line, append-only.
// An append is one write() of one whole line on an O_APPEND descriptor, then fsync. A crash can
// still leave a torn last line: readers skip any line that does not parse, and the next append
// starts on a fresh line so the torn one never swallows a good event.
import { closeSync, fstatSync, fsyncSync, openSync, readSync, writeSync, readFileSync } from "node:fs";
import { basename } from "node:path";
import { writeFailure } from "./io-error.js";

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
    fd = openSync(file, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { lastSeq: 0, endsWithNewline: true };
    throw error;
  }
  try {
    const size = fstatSync(fd).size;
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

/** Appends events; the caller holds the state lock, so sequence numbers are unique. */
export function appendEvents(file: string, events: ReadonlyArray<{ type: string; [key: string]: unknown }>, at: Date): EventRecord[] {
  if (events.length === 0) return [];
  let records: EventRecord[];
  try {
    const { lastSeq, endsWithNewline } = readTail(file);
    records = events.map((event, i): EventRecord => ({ seq: lastSeq + i + 1, at: at.toISOString(), ...event }));
    const text = (endsWithNewline ? "" : "\n") + records.map((r) => JSON.stringify(r)).join("\n") + "\n";
    const fd = openSync(file, "a");
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    throw writeFailure(`memory/state/${basename(file)}`, error);
  }
  return records;
}

/** Every complete event, oldest first; torn or garbled lines are skipped. */
export function readEvents(file: string): EventRecord[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const out: EventRecord[] = [];
  for (const line of text.split("\n")) {
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
