// The log of a DotagentSaver thread (saver.ts; SPEC §21) as values: its records, how they are
// framed, and the index a reader builds of them. Nothing here touches the disk.
//
// <dir>/<thread folder>/checkpoints.log (thread-names.ts names the folder) only ever grows: its
// written part, then zero bytes its writer filled ahead (so that a record written there changes
// no file length, and its fdatasync flushes data alone). Each put and each putWrites writes one
// record where the written part ends: a line
//
//   <crc32 of the rest, 8 hex digits> <head JSON>\t<the serializer's bytes, one part after another>\n
//
// and every record starts with a line break of its own. The head says what the record is (kind,
// thread, namespace, ids) and how long each part is; a part is the serializer's bytes as they are,
// or their base64 when they hold a line break or a zero byte (JSON holds neither). So a line is one
// record, the first zero byte is where the written part ends, and a record a writer killed
// mid-write left cut short is a line that fails its checksum (or has no line break yet): it is
// skipped, and the next record starts a line of its own after it, so nothing written later is
// lost with it. An index reads only heads; a record's bytes are handed to the serializer as they
// are, never parsed or copied on the way.
//
// A checkpoint's record holds every value it has: those of the channels it changed
// (newVersions) and those it carries over from its parent (saver.ts: when the parent has the
// channel at the same version). So a checkpoint reads from its one record, at any length of
// thread, and a damaged record loses only itself.
import { crc32 } from "node:zlib";
import type { ChannelVersion, StoredWrite } from "./thread-files.js";
import { mergeWrites } from "./thread-files.js";

export const LOG_FILE = "checkpoints.log";

/** What a serializer made: its type and its bytes, exactly. */
export interface Typed {
  readonly type: string;
  readonly bytes: Uint8Array;
}

export interface VersionedValue {
  readonly version: ChannelVersion;
  readonly value: Typed;
}

export interface PutRecord {
  readonly kind: "put";
  readonly thread: string;
  readonly ns: string;
  readonly id: string;
  readonly parent: string | null;
  readonly saved_at: string;
  /** The checkpoint without its channel values. */
  readonly checkpoint: Typed;
  readonly metadata: Typed;
  /** Every channel this checkpoint has a value for, with that value's version. */
  readonly values: Readonly<Record<string, VersionedValue>>;
}

export interface LogWrite {
  readonly idx: number;
  readonly channel: string;
  readonly value: Typed;
}

export interface WritesRecord {
  readonly kind: "writes";
  readonly thread: string;
  readonly ns: string;
  /** The checkpoint the writes belong to. */
  readonly id: string;
  readonly task_id: string;
  readonly task_path: string;
  readonly writes: readonly LogWrite[];
}

export type LogRecord = PutRecord | WritesRecord;

/** What the index keeps of a record: its head. */
export type RecordHead =
  | Pick<PutRecord, "kind" | "thread" | "ns" | "id" | "parent">
  | Pick<WritesRecord, "kind" | "thread" | "ns" | "id" | "task_id" | "task_path">;

/** Where a record's line is in the log: its first byte and its length without the line break. */
export interface Located {
  readonly offset: number;
  readonly length: number;
}

// --- framing --------------------------------------------------------------------------------------

/** A part as written: raw (0) unless its bytes hold a line break or a zero byte, then base64 (1). */
function framed(bytes: Uint8Array): { enc: 0 | 1; bytes: Buffer } {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return buffer.indexOf(0x0a) < 0 && buffer.indexOf(0x00) < 0
    ? { enc: 0, bytes: buffer }
    : { enc: 1, bytes: Buffer.from(buffer.toString("base64"), "latin1") };
}

/** One append of one record: a line break, then the record's line and its line break. */
export function encodeAppend(record: LogRecord): Buffer {
  const parts: Buffer[] = [];
  const part = (value: Typed) => {
    const f = framed(value.bytes);
    parts.push(f.bytes);
    return [value.type, f.enc, f.bytes.length];
  };
  const head =
    record.kind === "put"
      ? [
          "put",
          record.thread,
          record.ns,
          record.id,
          record.parent,
          record.saved_at,
          part(record.checkpoint),
          part(record.metadata),
          Object.entries(record.values).map(([channel, { version, value }]) => [channel, version, ...part(value)]),
        ]
      : [
          "writes",
          record.thread,
          record.ns,
          record.id,
          record.task_id,
          record.task_path,
          record.writes.map((w) => [w.idx, w.channel, ...part(w.value)]),
        ];
  const headBytes = Buffer.from(JSON.stringify(head), "utf8");
  let length = 1 + 9 + headBytes.length + 1;
  for (const p of parts) length += p.length;
  const line = Buffer.allocUnsafe(length + 1);
  line[0] = 0x0a;
  line[9] = 0x20;
  let at = 10 + headBytes.copy(line, 10);
  line[at++] = 0x09;
  for (const p of parts) at += p.copy(line, at);
  line[at] = 0x0a;
  line.write(crc32(line.subarray(10, at)).toString(16).padStart(8, "0"), 1, "latin1");
  return line;
}

const isString = (v: unknown): v is string => typeof v === "string";
const isVersion = (v: unknown): v is ChannelVersion => typeof v === "number" || typeof v === "string";
/** A part's description in a head: [type, enc, length]. */
const isPart = (p: unknown[], at: number) =>
  isString(p[at]) &&
  p[at] !== "" &&
  (p[at + 1] === 0 || p[at + 1] === 1) &&
  Number.isSafeInteger(p[at + 2]) &&
  (p[at + 2] as number) >= 0;

/** The head of a record, or undefined when it is not one. */
function parseHead(raw: unknown): { head: RecordHead; raw: unknown[] } | undefined {
  if (!Array.isArray(raw)) return undefined;
  const [kind, thread, ns, id] = raw as unknown[];
  if (!isString(thread) || !isString(ns) || !isString(id) || id === "") return undefined;
  if (
    kind === "put" &&
    raw.length === 9 &&
    (raw[4] === null || (isString(raw[4]) && raw[4] !== "")) &&
    isString(raw[5])
  ) {
    const [, , , , , , checkpoint, metadata, values] = raw as unknown[];
    if (
      !Array.isArray(checkpoint) ||
      !isPart(checkpoint, 0) ||
      !Array.isArray(metadata) ||
      !isPart(metadata, 0) ||
      !Array.isArray(values)
    )
      return undefined;
    if (!values.every((v) => Array.isArray(v) && isString(v[0]) && isVersion(v[1]) && isPart(v, 2))) return undefined;
    return { head: { kind, thread, ns, id, parent: raw[4] as string | null }, raw };
  }
  if (kind === "writes" && raw.length === 7 && isString(raw[4]) && isString(raw[5]) && Array.isArray(raw[6])) {
    if (
      !(raw[6] as unknown[]).every(
        (w) => Array.isArray(w) && Number.isSafeInteger(w[0]) && isString(w[1]) && isPart(w, 2),
      )
    )
      return undefined;
    return { head: { kind, thread, ns, id, task_id: raw[4], task_path: raw[5] }, raw };
  }
  return undefined;
}

/** A line checked: its head and where its parts start, or undefined when it fails its checksum or shape. */
function checkLine(line: Buffer): { head: RecordHead; raw: unknown[]; body: number } | undefined {
  if (line.length < 12 || line[8] !== 0x20) return undefined;
  const crc = line.toString("latin1", 0, 8);
  if (!/^[0-9a-f]{8}$/.test(crc) || Number.parseInt(crc, 16) !== crc32(line.subarray(9))) return undefined;
  const tab = line.indexOf(0x09, 9);
  if (tab < 0) return undefined;
  try {
    const parsed = parseHead(JSON.parse(line.toString("utf8", 9, tab)));
    return parsed === undefined ? undefined : { ...parsed, body: tab + 1 };
  } catch {
    return undefined;
  }
}

export interface Scan {
  readonly records: Array<{ readonly head: RecordHead; readonly at: Located }>;
  /** Lines that failed their checksum or shape (a write cut by a kill), by offset. */
  readonly damaged: number[];
  /** The offset after the last whole line: where the next scan starts (a line still being written is left for it). */
  readonly consumed: number;
  /** Where the written bytes end: the first zero byte (the room the writer filled ahead), or the end of what was read. */
  readonly end: number;
}

/** The records of `bytes`, read from offset `base` of the log, up to the first zero byte (no record holds one). */
export function scanLog(bytes: Buffer, base: number): Scan {
  const records: Scan["records"] = [];
  const damaged: number[] = [];
  const zero = bytes.indexOf(0x00);
  const limit = zero < 0 ? bytes.length : zero;
  let start = 0;
  for (;;) {
    const end = bytes.indexOf(0x0a, start);
    if (end < 0 || end >= limit) break;
    if (end > start) {
      const checked = checkLine(bytes.subarray(start, end));
      if (checked === undefined) damaged.push(base + start);
      else records.push({ head: checked.head, at: { offset: base + start, length: end - start } });
    }
    start = end + 1;
  }
  return { records, damaged, consumed: base + start, end: base + limit };
}

/** A record's line read back whole: the record (its parts are views of the line's bytes), or what is wrong with it. */
export function parseRecordLine(line: Buffer): LogRecord | string {
  const checked = checkLine(line);
  if (checked === undefined) return "fails its checksum (the log changed where it was read before)";
  let at = checked.body;
  let short = false;
  const take = (p: readonly unknown[], from: number): Typed => {
    const [type, enc, length] = [p[from] as string, p[from + 1] as 0 | 1, p[from + 2] as number];
    const bytes = line.subarray(at, at + length);
    if (bytes.length < length) short = true;
    at += length;
    return { type, bytes: enc === 0 ? bytes : Buffer.from(bytes.toString("latin1"), "base64") };
  };
  const { head, raw } = checked;
  let record: LogRecord;
  if (head.kind === "put") {
    const checkpoint = take(raw[6] as unknown[], 0);
    const metadata = take(raw[7] as unknown[], 0);
    const values: Record<string, VersionedValue> = {};
    for (const v of raw[8] as unknown[][])
      Object.defineProperty(values, v[0] as string, {
        value: { version: v[1] as ChannelVersion, value: take(v, 2) },
        enumerable: true,
        writable: true,
        configurable: true,
      });
    record = { ...head, saved_at: raw[5] as string, checkpoint, metadata, values };
  } else {
    record = {
      ...head,
      writes: (raw[6] as unknown[][]).map((w) => ({ idx: w[0] as number, channel: w[1] as string, value: take(w, 2) })),
    };
  }
  if (short || at !== line.length) return "its parts are not the lengths its head says";
  return record;
}

// --- the index ----------------------------------------------------------------------------------

/** One namespace of one thread: its checkpoints and the records of their pending writes, in log order. `L` says where a record is. */
export interface NamespaceIndex<L> {
  readonly puts: Map<string, { readonly parent: string | null; readonly at: L }>;
  readonly writes: Map<string, L[]>;
  /** The highest checkpoint id (ids sort by time: uuid6), kept as records arrive. */
  newest: string | undefined;
}

/** The threads, namespaces and records of a log (or of a format-1 folder), as records arrive. */
export class ThreadIndex<L> {
  readonly threads = new Map<string, Map<string, NamespaceIndex<L>>>();

  add(head: RecordHead, at: L): void {
    let spaces = this.threads.get(head.thread);
    if (spaces === undefined) this.threads.set(head.thread, (spaces = new Map()));
    let space = spaces.get(head.ns);
    if (space === undefined) spaces.set(head.ns, (space = { puts: new Map(), writes: new Map(), newest: undefined }));
    if (head.kind === "put") {
      // A put of an id again replaces it (as SqliteSaver's INSERT OR REPLACE).
      space.puts.set(head.id, { parent: head.parent, at });
      if (space.newest === undefined || head.id > space.newest) space.newest = head.id;
    } else {
      const list = space.writes.get(head.id);
      if (list === undefined) space.writes.set(head.id, [at]);
      else list.push(at);
    }
  }

  namespace(thread: string, ns: string): NamespaceIndex<L> | undefined {
    return this.threads.get(thread)?.get(ns);
  }
}

/** The pending writes of a checkpoint from its writes records in log order: what each putWrites, in turn, would have left. */
export function foldWrites(records: readonly WritesRecord[]): Array<StoredWrite<Typed>> {
  let merged: Array<StoredWrite<Typed>> = [];
  for (const record of records) {
    merged = mergeWrites(
      merged,
      record.writes.map((w) => ({
        task_id: record.task_id,
        task_path: record.task_path,
        idx: w.idx,
        channel: w.channel,
        value: w.value,
      })),
    );
  }
  return merged;
}
