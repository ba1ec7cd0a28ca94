// Threads a DotagentSaver wrote before its log (format 1, dotagent ≤ 0.1.0; the shapes are in
// thread-files.ts): `<dir>/<thread_id>/` with thread.json, a folder per namespace, a file per
// checkpoint and per checkpoint's pending writes. They keep reading as they are and are never
// written again: a new checkpoint of such a thread goes to its log (thread-log.ts) beside them,
// and deleteThread removes both. Reading turns each file into the record the log would hold, so
// the saver reads one shape.
import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { MAX_STATE_BYTES, readProjectText } from "../store/read-file.js";
import { decodeJson } from "../schema/json.js";
import { invalid } from "./saver-errors.js";
import {
  CHECKPOINT_SUFFIX,
  THREAD_FILE,
  WRITES_SUFFIX,
  checkpointFileName,
  isNamespaceFolder,
  namespaceFolder,
  parseCheckpointFile,
  parseThreadFile,
  parseWritesFile,
  storedBytes,
  type CheckpointFile,
  type StoredValue,
} from "./thread-files.js";
import { ThreadIndex, type PutRecord, type Typed, type VersionedValue, type WritesRecord } from "./thread-log.js";

const typed = (value: StoredValue): Typed => ({ type: value.type, bytes: storedBytes(value) });

/** A format-1 thread: its checkpoints and writes files, indexed as a log's records are (`at` is the file). */
export interface LegacyThread {
  readonly folder: string;
  readonly index: ThreadIndex<string>;
}

function readJson(file: string, thread: string): unknown {
  const read = readProjectText(file, { maxBytes: MAX_STATE_BYTES, links: "refuse" });
  if (read.kind === "missing") return undefined;
  if (read.kind === "refused") throw invalid(file, read.reason, thread, true);
  const decoded = decodeJson(read.text);
  if (!decoded.ok) throw invalid(file, decoded.message, thread, true);
  return decoded.value;
}

function isFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The format-1 thread `thread` in `folder`, or undefined when the folder holds none (or holds
 * another thread's: ids differing in case share a folder where case does not count). A
 * thread.json that cannot be read throws, naming it. Checkpoint files are only listed here; each
 * is read when its checkpoint is.
 */
export function readLegacyThread(folder: string, thread: string): LegacyThread | undefined {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return undefined;
  }
  const spaces = names.filter((name) => isNamespaceFolder(name) && isFolder(join(folder, name)));
  if (!names.includes(THREAD_FILE) && spaces.length === 0) return undefined;
  const threadFile = join(folder, THREAD_FILE);
  const raw = readJson(threadFile, thread);
  if (raw !== undefined) {
    const parsed = parseThreadFile(raw, thread);
    if (typeof parsed === "string") {
      if (
        typeof (raw as { thread_id?: unknown })?.thread_id === "string" &&
        (raw as { thread_id: string }).thread_id !== thread
      )
        return undefined;
      throw invalid(threadFile, parsed, thread);
    }
  }
  const index = new ThreadIndex<string>();
  for (const space of spaces) {
    const files = readdirSync(join(folder, space));
    // A namespace folder's name is not read back: its files say which namespace it holds.
    let ns: string | undefined = space === namespaceFolder("") ? "" : undefined;
    for (const name of files) {
      if (ns !== undefined || !name.endsWith(CHECKPOINT_SUFFIX)) continue;
      try {
        const said = (readJson(join(folder, space, name), thread) as { checkpoint_ns?: unknown } | undefined)
          ?.checkpoint_ns;
        if (typeof said === "string" && namespaceFolder(said) === space) ns = said;
      } catch {
        // a damaged file: another one says it
      }
    }
    if (ns === undefined) continue;
    for (const name of files) {
      if (name.endsWith(CHECKPOINT_SUFFIX)) {
        const id = name.slice(0, -CHECKPOINT_SUFFIX.length);
        index.add({ kind: "put", thread, ns, id, parent: null }, join(folder, space, name));
      } else if (name.endsWith(WRITES_SUFFIX)) {
        index.add(
          { kind: "writes", thread, ns, id: name.slice(0, -WRITES_SUFFIX.length), task_id: "", task_path: "" },
          join(folder, space, name),
        );
      }
    }
  }
  return { folder, index };
}

/** A format-1 checkpoint as the record the log would hold: every value it has, gathered from the files its sources name. */
export function readLegacyPut(file: string, thread: string, ns: string, id: string): PutRecord | undefined {
  const read = new Map<string, CheckpointFile | undefined>();
  const load = (holderFile: string, holderId: string): CheckpointFile | undefined => {
    if (!read.has(holderFile)) {
      const raw = readJson(holderFile, thread);
      if (raw === undefined) read.set(holderFile, undefined);
      else {
        const parsed = parseCheckpointFile(raw, { thread_id: thread, checkpoint_ns: ns, checkpoint_id: holderId });
        if (typeof parsed === "string") throw invalid(holderFile, parsed, thread, true);
        read.set(holderFile, parsed);
      }
    }
    return read.get(holderFile);
  };
  const own = load(file, id);
  if (own === undefined) return undefined;
  const values: Record<string, VersionedValue> = {};
  for (const [channel, source] of Object.entries(own.sources)) {
    const holderFile = join(file, "..", checkpointFileName(source.checkpoint_id));
    const holder = source.checkpoint_id === id ? own : load(holderFile, source.checkpoint_id);
    if (holder === undefined)
      throw invalid(
        file,
        `sources[${JSON.stringify(channel)}] names checkpoint ${source.checkpoint_id}, which is not in ${join(file, "..")}`,
        thread,
        true,
      );
    const value = Object.hasOwn(holder.values, channel) ? holder.values[channel] : undefined;
    if (
      value === undefined ||
      !Object.hasOwn(holder.sources, channel) ||
      holder.sources[channel]!.version !== source.version
    ) {
      throw invalid(
        holderFile,
        `values has no ${JSON.stringify(channel)} at version ${JSON.stringify(source.version)}, which ${checkpointFileName(id)} takes from it`,
        thread,
        true,
      );
    }
    Object.defineProperty(values, channel, {
      value: { version: source.version, value: typed(value) },
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return {
    kind: "put",
    thread,
    ns,
    id,
    parent: own.parent_checkpoint_id,
    saved_at: own.saved_at,
    checkpoint: typed(own.checkpoint),
    metadata: typed(own.metadata),
    values,
  };
}

/** A format-1 writes file as log records: one per write (they were merged when written). */
export function readLegacyWrites(file: string, thread: string, ns: string, id: string): WritesRecord[] {
  const raw = readJson(file, thread);
  if (raw === undefined) return [];
  const parsed = parseWritesFile(raw, { thread_id: thread, checkpoint_ns: ns, checkpoint_id: id });
  if (typeof parsed === "string") throw invalid(file, parsed, thread, true);
  return parsed.writes.map((w) => ({
    kind: "writes",
    thread,
    ns,
    id,
    task_id: w.task_id,
    task_path: w.task_path,
    writes: [{ idx: w.idx, channel: w.channel, value: typed(w.value) }],
  }));
}
