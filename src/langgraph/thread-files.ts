// The files of a DotagentSaver (saver.ts) as values: their names, their JSON shapes, and the checks
// that turn a cut, hand-edited or misplaced file into one line naming what is wrong. Nothing here
// touches the disk; saver.ts reads and writes.
//
// <dir>/<thread_id>/                    one folder per thread (thread ids follow the id rule)
//   thread.json                         { format: 1, thread_id, created_at }
//   .lock                               while a call writes
//   root/ | ns-<key>/                   one folder per checkpoint namespace ("" is root/)
//     <checkpoint_id>.checkpoint.json   CheckpointFile
//     <checkpoint_id>.writes.json       WritesFile (the pending writes against that checkpoint)
//
// A checkpoint file holds the values of the channels this checkpoint changed (newVersions) and,
// for every channel it has a value for, where that value is stored: in itself, or in the
// ancestor that wrote it at the same version. Values are stored once, every file is written
// whole, and a file only ever names files written before it, so a kill at any moment leaves each
// checkpoint complete or absent.
import { createHash } from "node:crypto";
import { ID_PATTERN } from "../schema/json.js";

export const FORMAT = 1;
export const THREAD_FILE = "thread.json";
export const CHECKPOINT_SUFFIX = ".checkpoint.json";
export const WRITES_SUFFIX = ".writes.json";
export const ROOT_NAMESPACE_FOLDER = "root";
const NAMESPACE_PREFIX = "ns-";
const MAX_KEY = 100;

/** What a serializer made of a value, kept byte for byte: as text when it is UTF-8, else base64. */
export type StoredValue =
  { readonly type: string; readonly text: string } | { readonly type: string; readonly base64: string };

export type ChannelVersion = number | string;

export interface ValueSource {
  readonly version: ChannelVersion;
  /** The checkpoint (this one or an ancestor in the same namespace) whose `values` hold it. */
  readonly checkpoint_id: string;
}

export interface CheckpointFile {
  readonly format: typeof FORMAT;
  readonly thread_id: string;
  readonly checkpoint_ns: string;
  readonly checkpoint_id: string;
  readonly parent_checkpoint_id: string | null;
  readonly saved_at: string;
  /** The checkpoint without its channel values. */
  readonly checkpoint: StoredValue;
  readonly metadata: StoredValue;
  /** The values of the channels this checkpoint changed. */
  readonly values: Readonly<Record<string, StoredValue>>;
  /** Every channel this checkpoint has a value for, and where that value is. */
  readonly sources: Readonly<Record<string, ValueSource>>;
}

export interface StoredWrite {
  readonly task_id: string;
  readonly task_path: string;
  readonly idx: number;
  readonly channel: string;
  readonly value: StoredValue;
}

export interface WritesFile {
  readonly format: typeof FORMAT;
  readonly thread_id: string;
  readonly checkpoint_ns: string;
  readonly checkpoint_id: string;
  readonly writes: readonly StoredWrite[];
}

export interface ThreadFile {
  readonly format: typeof FORMAT;
  readonly thread_id: string;
  readonly created_at: string;
}

/** Where a file belongs: what its name and folder say it holds. */
export interface FilePlace {
  readonly thread_id: string;
  readonly checkpoint_ns: string;
  readonly checkpoint_id: string;
}

// --- names ---------------------------------------------------------------------------------

/** Why `id` cannot be a thread id (it names a folder) or a checkpoint id (it names files), or null. */
export function nameProblem(id: unknown, what: string): string | null {
  if (typeof id !== "string") return `${what} must be a string, not ${describe(id)}`;
  if (ID_PATTERN.test(id)) return null;
  const shown = JSON.stringify(id.length > 40 ? `${id.slice(0, 40)}…` : id);
  return `${what} ${shown} cannot name a file: use 1–128 letters, digits, '.', '_' or '-', not starting with '.' or '-' (a uuid will do)`;
}

/**
 * The folder of a checkpoint namespace: `root` for "", else `ns-` and the namespace with every
 * byte outside [a-z0-9_-] written %XX (so names differ on case-insensitive and Windows file
 * systems alike), cut and completed by a hash when long. Never read back: the files inside say
 * which namespace they hold.
 */
export function namespaceFolder(ns: string): string {
  if (ns === "") return ROOT_NAMESPACE_FOLDER;
  let key = "";
  for (const byte of Buffer.from(ns, "utf8")) {
    key +=
      (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x30 && byte <= 0x39) || byte === 0x5f || byte === 0x2d
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  if (key.length > MAX_KEY) key = `${key.slice(0, 40)}~${createHash("sha256").update(ns).digest("hex").slice(0, 32)}`;
  return `${NAMESPACE_PREFIX}${key}`;
}

export function isNamespaceFolder(name: string): boolean {
  return name === ROOT_NAMESPACE_FOLDER || name.startsWith(NAMESPACE_PREFIX);
}

export const checkpointFileName = (id: string) => `${id}${CHECKPOINT_SUFFIX}`;
export const writesFileName = (id: string) => `${id}${WRITES_SUFFIX}`;

/** The checkpoint ids a namespace folder's listing holds, newest first (ids sort as uuid6 ids do: by time). */
export function checkpointIdsIn(names: readonly string[]): string[] {
  return names
    .filter((name) => name.endsWith(CHECKPOINT_SUFFIX))
    .map((name) => name.slice(0, -CHECKPOINT_SUFFIX.length))
    .filter((id) => ID_PATTERN.test(id))
    .sort(newestFirst);
}

/** Checkpoint ids newest first, as every LangGraph saver orders them (string order, uuid6: time). */
export function newestFirst(a: string, b: string): number {
  return a < b ? 1 : a > b ? -1 : 0;
}

// --- values ---------------------------------------------------------------------------------

const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** A serializer's output as stored: its exact bytes, readable when they are text. */
export function storeValue(type: string, data: Uint8Array | string): StoredValue {
  if (typeof data === "string") return { type, text: data };
  let text: string | undefined;
  try {
    text = UTF8.decode(data);
  } catch {
    text = undefined;
  }
  if (text !== undefined && Buffer.from(text, "utf8").equals(data)) return { type, text };
  return { type, base64: Buffer.from(data).toString("base64") };
}

/** The bytes a serializer made, as it made them (a Uint8Array, as `loadsTyped` takes it). */
export function storedBytes(value: StoredValue): Uint8Array {
  const bytes = "text" in value ? Buffer.from(value.text, "utf8") : Buffer.from(value.base64, "base64");
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * `record[key] = value` as an own property whatever the key: a channel named `__proto__` is a
 * channel, not the object's prototype.
 */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}

// --- what a put stores -----------------------------------------------------------------------

/**
 * Where each channel of a new checkpoint finds its value: the channels in `newVersions` that have
 * a value are stored in the checkpoint itself (`own`); every other channel keeps its parent's
 * value when the parent has one at the same version; a channel without either has no value (as
 * a database saver's missing blob). Following the parent, not a thread-wide table keyed by
 * version, keeps a fork's values apart from the branch it forked from.
 */
export function valueSources(
  checkpointId: string,
  channelVersions: Readonly<Record<string, ChannelVersion>>,
  newVersions: Readonly<Record<string, ChannelVersion>>,
  own: ReadonlySet<string>,
  parent: Pick<CheckpointFile, "sources"> | undefined,
): Record<string, ValueSource> {
  const sources: Record<string, ValueSource> = {};
  for (const [channel, version] of Object.entries(channelVersions)) {
    if (Object.hasOwn(newVersions, channel)) {
      if (own.has(channel)) setOwn(sources, channel, { version, checkpoint_id: checkpointId });
      continue;
    }
    const inherited =
      parent !== undefined && Object.hasOwn(parent.sources, channel) ? parent.sources[channel] : undefined;
    if (inherited !== undefined && inherited.version === version) setOwn(sources, channel, inherited);
  }
  return sources;
}

// --- pending writes -----------------------------------------------------------------------------

/**
 * The pending writes after a putWrites: insert-or-ignore per (task_id, idx) for ordinary writes;
 * the special ones (errors, interrupts, … at negative idx) replace what the task wrote there
 * before, as LangGraph's own savers do. In writesSortKey order.
 */
export function mergeWrites(existing: readonly StoredWrite[], incoming: readonly StoredWrite[]): StoredWrite[] {
  const byKey = new Map<string, StoredWrite>();
  for (const write of existing) byKey.set(JSON.stringify([write.task_id, write.idx]), write);
  for (const write of incoming) {
    const key = JSON.stringify([write.task_id, write.idx]);
    if (write.idx >= 0 && byKey.has(key)) continue;
    byKey.set(key, write);
  }
  return sortWrites([...byKey.values()]);
}

/** `(task_path, task_id, idx)` order: strings by code point (as LangGraph's compareWritesSortKeys), idx numerically. */
export function sortWrites<W extends Pick<StoredWrite, "task_path" | "task_id" | "idx">>(writes: readonly W[]): W[] {
  return [...writes].sort(
    (a, b) =>
      compareCodePoints(a.task_path, b.task_path) ||
      compareCodePoints(a.task_id, b.task_id) ||
      Math.sign(a.idx - b.idx),
  );
}

/** Strings by Unicode code point (an astral character after every BMP one), not by UTF-16 unit. */
export function compareCodePoints(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(j)!;
    if (x !== y) return x < y ? -1 : 1;
    i += x > 0xffff ? 2 : 1;
    j += y > 0xffff ? 2 : 1;
  }
  return i < a.length ? 1 : j < b.length ? -1 : 0;
}

// --- parsing --------------------------------------------------------------------------------

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const isTime = (value: unknown): value is string =>
  typeof value === "string" && ISO.test(value) && !Number.isNaN(Date.parse(value));

function describe(value: unknown): string {
  if (value === null || value === undefined || typeof value === "number" || typeof value === "boolean")
    return String(value);
  return Array.isArray(value) ? "an array" : `a ${typeof value}`;
}

/** The problem with a stored value, or null. */
function storedProblem(value: unknown, path: string): string | null {
  if (!isRecord(value) || typeof value.type !== "string" || value.type === "")
    return `${path}: expected { type, text } or { type, base64 }`;
  if ("text" in value) return typeof value.text === "string" ? null : `${path}.text: expected a string`;
  if ("base64" in value)
    return typeof value.base64 === "string" && value.base64.length % 4 === 0 && BASE64.test(value.base64)
      ? null
      : `${path}.base64: expected base64 text`;
  return `${path}: expected { type, text } or { type, base64 }`;
}

/** The problem with where a file says it belongs, or null. Case only: two ids sharing a folder. */
function placeProblem(raw: Record<string, unknown>, place: FilePlace): string | null {
  if (raw.format !== FORMAT) return `format: expected ${FORMAT}`;
  if (raw.thread_id !== place.thread_id) {
    if (typeof raw.thread_id === "string" && raw.thread_id.toLowerCase() === place.thread_id.toLowerCase())
      return caseClash("thread", raw.thread_id, place.thread_id);
    return `thread_id: expected ${JSON.stringify(place.thread_id)} (the folder's name)`;
  }
  if (raw.checkpoint_ns !== place.checkpoint_ns)
    return `checkpoint_ns: expected ${JSON.stringify(place.checkpoint_ns)} (the namespace its folder is for)`;
  if (raw.checkpoint_id !== place.checkpoint_id) {
    if (typeof raw.checkpoint_id === "string" && raw.checkpoint_id.toLowerCase() === place.checkpoint_id.toLowerCase())
      return caseClash("checkpoint", raw.checkpoint_id, place.checkpoint_id);
    return `checkpoint_id: expected ${JSON.stringify(place.checkpoint_id)} (the file's name)`;
  }
  return null;
}

function caseClash(what: string, found: string, wanted: string): string {
  return `holds ${what} ${JSON.stringify(found)}, not ${JSON.stringify(wanted)}: ${what} ids that differ only in case share one file on this file system; use ids that differ in more than case`;
}

export function parseCheckpointFile(raw: unknown, place: FilePlace): CheckpointFile | string {
  if (!isRecord(raw)) return "expected a JSON object";
  const misplaced = placeProblem(raw, place);
  if (misplaced !== null) return misplaced;
  if (
    raw.parent_checkpoint_id !== null &&
    (typeof raw.parent_checkpoint_id !== "string" || !ID_PATTERN.test(raw.parent_checkpoint_id))
  )
    return "parent_checkpoint_id: expected a checkpoint id or null";
  if (!isTime(raw.saved_at)) return "saved_at: expected an ISO 8601 date-time";
  const problem = storedProblem(raw.checkpoint, "checkpoint") ?? storedProblem(raw.metadata, "metadata");
  if (problem !== null) return problem;
  if (!isRecord(raw.values)) return "values: expected an object";
  for (const [channel, value] of Object.entries(raw.values)) {
    const p = storedProblem(value, `values[${JSON.stringify(channel)}]`);
    if (p !== null) return p;
  }
  if (!isRecord(raw.sources)) return "sources: expected an object";
  for (const [channel, source] of Object.entries(raw.sources)) {
    const at = `sources[${JSON.stringify(channel)}]`;
    if (!isRecord(source) || (typeof source.version !== "number" && typeof source.version !== "string"))
      return `${at}.version: expected a number or a string`;
    if (typeof source.checkpoint_id !== "string" || !ID_PATTERN.test(source.checkpoint_id))
      return `${at}.checkpoint_id: expected a checkpoint id`;
    if (source.checkpoint_id === place.checkpoint_id && !Object.hasOwn(raw.values, channel))
      return `${at}: names this checkpoint, whose values have no ${JSON.stringify(channel)}`;
  }
  return raw as unknown as CheckpointFile;
}

export function parseWritesFile(raw: unknown, place: FilePlace): WritesFile | string {
  if (!isRecord(raw)) return "expected a JSON object";
  const misplaced = placeProblem(raw, place);
  if (misplaced !== null) return misplaced;
  if (!Array.isArray(raw.writes)) return "writes: expected an array";
  for (const [i, write] of raw.writes.entries()) {
    const at = `writes[${i}]`;
    if (!isRecord(write)) return `${at}: expected an object`;
    if (typeof write.task_id !== "string") return `${at}.task_id: expected a string`;
    if (typeof write.task_path !== "string") return `${at}.task_path: expected a string`;
    if (!Number.isSafeInteger(write.idx)) return `${at}.idx: expected a whole number`;
    if (typeof write.channel !== "string") return `${at}.channel: expected a string`;
    const p = storedProblem(write.value, `${at}.value`);
    if (p !== null) return p;
  }
  return raw as unknown as WritesFile;
}

export function parseThreadFile(raw: unknown, threadId: string): ThreadFile | string {
  if (!isRecord(raw)) return "expected a JSON object";
  if (raw.format !== FORMAT) return `format: expected ${FORMAT}`;
  if (raw.thread_id !== threadId) {
    if (typeof raw.thread_id === "string" && raw.thread_id.toLowerCase() === threadId.toLowerCase())
      return caseClash("thread", raw.thread_id, threadId);
    return `thread_id: expected ${JSON.stringify(threadId)} (the folder's name)`;
  }
  if (!isTime(raw.created_at)) return "created_at: expected an ISO 8601 date-time";
  return raw as unknown as ThreadFile;
}
