// A LangGraph checkpointer (BaseCheckpointSaver) on dotagent's store: one folder per thread under
// the folder the caller names (thread-names.ts), holding the thread's log (thread-log.ts; SPEC §21).
// Guarantees:
// - each put and each putWrites is one record written where the log's written part ends and made
//   durable with fdatasync before the call returns (a new log's entry in its folder is fsynced
//   too); so a call that returned is on disk whole, and one cut off by kill -9 or a power loss is
//   whole or a damaged line that every reader skips (its checksum fails), never a record read
//   wrong. The log is grown ahead with zero bytes, so most records change no file length and cost
//   one data flush;
// - writes to one thread from any number of processes are serialised by the thread's `.lock` (the
//   state lock's mechanism: a dead holder's lock is taken over), waited for without blocking the
//   event loop. A process keeps the lock while its writes follow one another (a lease: given up
//   10 ms after its last write, after a second at most, and at exit), so a run of writes pays for
//   it once. Inside one process calls on a thread take turns. What a call decides from earlier ones
//   (a parent's values, insert-or-ignore of pending writes) is decided from the log's order;
//   writes of tasks finishing at once all keep;
// - no write leaves the saver's folder: folder names come from thread-names.ts (any thread id, no
//   `..`, no clash), the log is opened through write-file.ts (never through a link), and a thread
//   folder that is a link or a file is refused;
// - reads take no lock: a record is read only once its line is whole and its checksum right. A
//   checkpoint's record holds all its values, so a read is one record and its writes whatever the
//   thread's length (the index of a log is kept in memory and read on from where it stopped), and
//   a damaged record loses only itself;
// - deleteThread takes the lock, renames the thread's folder away in one step (the commit point),
//   then removes it; reads see the thread whole or not at all;
// - threads written by format 1 (legacy-thread.ts) keep reading; their new checkpoints go to the log;
// - values go through the saver's `serde` and are stored as the exact bytes it made;
// - anything unreadable is a DotagentError naming the file and a way out that works
//   (`checkpoint_invalid`, exit 3); listing every thread passes a damaged one by with a warning
//   naming it; never a stack trace.
import { closeSync, fdatasyncSync, lstatSync, readdirSync, rmSync, writeSync } from "node:fs";
import { join, resolve } from "node:path";
import { isDeepStrictEqual } from "node:util";
import type { RunnableConfig } from "@langchain/core/runnables";
import {
  BaseCheckpointSaver,
  TASKS,
  WRITES_IDX_MAP,
  maxChannelVersion,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  type PendingWrite,
  type SerializerProtocol,
} from "@langchain/langgraph-checkpoint";
import { DotagentError, EXIT } from "../core/errors.js";
import { ID_PATTERN } from "../schema/json.js";
import { inTurn, sweepTemps } from "../api/checkpoint-store.js";
import { acquireLockAsync, type LockHandle } from "../store/lock.js";
import { fsyncDir, mkdirInside, openFileInside, renameInside } from "../store/write-file.js";
import { writeFailure } from "../store/io-error.js";
import { isPidAlive } from "../store/process-facts.js";
import { MAX_STATE_BYTES, formatBytes, readProjectParts } from "../store/read-file.js";
import { describe, invalid, usage } from "./saver-errors.js";
import { readLegacyPut, readLegacyThread, readLegacyWrites, type LegacyThread } from "./legacy-thread.js";
import { setOwn, sortWrites } from "./thread-files.js";
import {
  LOG_FILE,
  ThreadIndex,
  encodeAppend,
  foldWrites,
  parseRecordLine,
  scanLog,
  type Located,
  type LogRecord,
  type PutRecord,
  type Typed,
  type VersionedValue,
  type WritesRecord,
} from "./thread-log.js";
import { isThreadFolderName, threadFolderName, threadIdOfFolderName } from "./thread-names.js";

export interface DotagentSaverOptions {
  /** The serializer for checkpoints, metadata and values (LangGraph's JsonPlusSerializer by default). */
  serde?: SerializerProtocol;
  /** How long a write waits for another process's turn on the thread (default 10 s, or DOTAGENT_LOCK_WAIT_MS). */
  lockWaitMs?: number;
}

/** A thread deleted while it was being read: the read finds nothing, as it would a moment later. */
class ThreadGone extends Error {}

/** A log as this process has read it: which file, how far, and the index of what it read. */
interface LogState {
  readonly file: string;
  readonly ino: number;
  readonly dev: number;
  consumed: number;
  /** Where the written part ends (the first zero byte, or the file's end). */
  end: number;
  readonly index: ThreadIndex<Located>;
}

/** A thread's lock this process holds while its writes follow one another, and its log open. */
interface Lease {
  readonly key: string;
  readonly file: string;
  readonly fd: number;
  readonly lock: LockHandle;
  readonly ino: number;
  readonly dev: number;
  /** Where the next record goes: the end of the written part. */
  end: number;
  /** The log's length: written part and zeros ahead. */
  room: number;
  readonly since: number;
  timer: NodeJS.Timeout | undefined;
}

/** Leases by thread folder (resolved): one per process, whichever saver took it. */
const leases = new Map<string, Lease>();
let releaseAtExit = false;

function holdLease(lease: Lease): void {
  leases.set(lease.key, lease);
  if (releaseAtExit) return;
  releaseAtExit = true;
  process.once("exit", () => {
    for (const key of [...leases.keys()]) endLease(key);
  });
}

function endLease(key: string): void {
  const lease = leases.get(key);
  if (lease === undefined) return;
  leases.delete(key);
  clearTimeout(lease.timer);
  try {
    closeSync(lease.fd);
  } finally {
    lease.lock.release();
  }
}

/**
 * Writes a record at the end of the log's written part, then fdatasync. Room is made ahead with
 * zero bytes (a quarter of the log, 64 KiB to 8 MiB at a time), so most records change no file
 * length and their fdatasync flushes their data alone.
 */
function writeAt(lease: Lease, bytes: Buffer): void {
  const end = lease.end + bytes.length;
  if (end > lease.room) {
    const room = end + Math.min(ROOM_MAX, Math.max(ROOM_MIN, end >> 2));
    writeFully(lease.fd, Buffer.alloc(room - lease.room), lease.room);
    lease.room = room;
  }
  writeFully(lease.fd, bytes, lease.end);
  fdatasyncSync(lease.fd);
  lease.end = end;
}

function writeFully(fd: number, bytes: Buffer, at: number): void {
  for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done, at + done);
}

/** Everything that holds one thread: its log and, for a thread from before the log, its format-1 files. */
interface ThreadView {
  readonly thread: string;
  readonly folder: string;
  readonly log: LogState | undefined;
  readonly legacy: LegacyThread | undefined;
}

/** Where a checkpoint's record is: in the log, or in a format-1 file. */
type Entry = { readonly view: ThreadView; readonly ns: string; readonly id: string } & (
  { readonly log: Located } | { readonly file: string }
);

const DELETING = /^\.deleting\.(\d+)\.[0-9a-f]+\./;
/** A record over this is refused (`data_invalid`): the state a graph keeps should be far smaller. */
const MAX_RECORD = MAX_STATE_BYTES;
/** Parsed records kept for the next read (a put's parent is mostly the record it just wrote). */
const RECENT = 32;
/** How long a lease outlives its last write, and how long it is held at most while writes keep coming. */
const LEASE_IDLE_MS = 10;
const LEASE_HOLD_MS = 1000;
/** The zero bytes made ahead at a time. */
const ROOM_MIN = 64 * 1024;
const ROOM_MAX = 8 * 1024 * 1024;
/** A read of a log reads this much at first (mostly it finds the zero byte where the written part ends at once), four times more each time on. */
const READ_AHEAD = 4096;
/** Checkpoints whose lines list reads through one open of their log. */
const PREFETCH = 64;

/**
 * A LangGraph checkpointer whose every call is one durable append to its thread's log:
 * `new DotagentSaver(".checkpoints/langgraph")`, then `graph.compile({ checkpointer })`.
 */
export class DotagentSaver extends BaseCheckpointSaver {
  /** The folder holding one folder per thread, as given. */
  readonly dir: string;
  readonly #waitMs: number;
  /** The serializer is LangGraph's JsonPlusSerializer, made by the base class (none was passed). */
  readonly #ownSerde: boolean;
  readonly #logs = new Map<string, LogState>();
  readonly #legacy = new Map<string, LegacyThread | undefined>();
  /** Thread folders this process has checked (a real folder) and made durable, with the log file it made durable in them. */
  readonly #ready = new Map<string, string>();
  readonly #recent = new Map<string, PutRecord>();
  readonly #swept = new Set<string>();

  constructor(dir: string, options: DotagentSaverOptions = {}) {
    if (typeof dir !== "string" || dir === "")
      throw usage(`new DotagentSaver(dir) takes the folder as a non-empty string, not ${describe(dir)}`);
    if (options === null || typeof options !== "object")
      throw usage(
        `new DotagentSaver(dir, options): options must be an object ({ serde?, lockWaitMs? }), not ${describe(options)}`,
      );
    const wait: unknown = options.lockWaitMs;
    if (wait !== undefined && (typeof wait !== "number" || !Number.isFinite(wait) || wait < 0))
      throw usage(`lockWaitMs takes a number of milliseconds ≥ 0, not ${describe(wait)}`);
    super(options.serde);
    this.#ownSerde = options.serde === undefined;
    this.dir = dir;
    const env = Number(process.env.DOTAGENT_LOCK_WAIT_MS);
    this.#waitMs =
      (wait as number | undefined) ??
      (process.env.DOTAGENT_LOCK_WAIT_MS !== undefined && Number.isFinite(env) && env >= 0 ? env : 10_000);
  }

  // --- reading --------------------------------------------------------------------------------

  override async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const thread: unknown = config?.configurable?.thread_id;
    if (thread === undefined || thread === null) return undefined;
    const view = this.#view(threadIdOf(thread, "getTuple"));
    const ns = namespaceOf(config.configurable?.checkpoint_ns, "getTuple");
    const id = checkpointIdOf(config, "getTuple") ?? newestOf(view, ns);
    if (id === undefined) return undefined;
    const entry = entryOf(view, ns, id);
    if (entry === undefined) return undefined;
    try {
      const record = this.#readPut(entry);
      return record === undefined ? undefined : await this.#tuple(entry, record);
    } catch (error) {
      if (error instanceof ThreadGone) return undefined;
      throw error;
    }
  }

  override async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    const { limit, before, filter } = options ?? {};
    // No thread (undefined or null, as LangGraph's savers take it): every thread.
    const thread: unknown = config?.configurable?.thread_id ?? undefined;
    const rawNs: unknown = config?.configurable?.checkpoint_ns;
    const ns = rawNs === undefined || rawNs === null ? undefined : namespaceOf(rawNs, "list");
    const only = checkpointIdOf(config ?? {}, "list");
    const beforeId = before === undefined ? undefined : checkpointIdOf(before, "list (before)");
    if (limit !== undefined && (typeof limit !== "number" || Number.isNaN(limit)))
      throw usage(`list(config, { limit }): limit must be a number, not ${describe(limit)}`);
    if (filter !== undefined && (filter === null || typeof filter !== "object"))
      throw usage(`list(config, { filter }): filter must be an object of metadata fields, not ${describe(filter)}`);
    if (limit !== undefined && limit <= 0) return;

    const views = thread === undefined ? this.#everyThread() : [this.#view(threadIdOf(thread, "list"))];
    const found: Entry[] = [];
    for (const view of views) {
      const seen = new Set<string>();
      // The log first: a checkpoint in both (none is) would read as the log has it.
      for (const [source, index] of [
        ["log", view.log?.index],
        ["file", view.legacy?.index],
      ] as const) {
        for (const [space, entries] of index?.threads.get(view.thread) ?? []) {
          if (ns !== undefined && space !== ns) continue;
          for (const [id, { at }] of entries.puts) {
            if ((only !== undefined && id !== only) || (beforeId !== undefined && !(id < beforeId))) continue;
            const key = `${space}\0${id}`;
            if (seen.has(key)) continue;
            seen.add(key);
            found.push(
              source === "log"
                ? { view, ns: space, id, log: at as Located }
                : { view, ns: space, id, file: at as string },
            );
          }
        }
      }
    }
    // Every saver lists newest first, across threads and namespaces (checkpoint ids sort by time).
    found.sort((a, b) =>
      a.id < b.id
        ? 1
        : a.id > b.id
          ? -1
          : a.view.thread < b.view.thread
            ? -1
            : a.view.thread > b.view.thread
              ? 1
              : a.ns < b.ns
                ? -1
                : a.ns > b.ns
                  ? 1
                  : 0,
    );

    let left = limit ?? Infinity;
    const lines = new Map<Entry, Buffer | undefined>();
    let scratch: { buffer: Buffer } | undefined;
    for (const [i, entry] of found.entries()) {
      if (left <= 0) return;
      // The lines of the next log entries are read together, through one open of their log.
      if ("log" in entry && !lines.has(entry)) {
        const batch = found
          .slice(i, i + PREFETCH)
          .filter((e): e is Entry & { log: Located } => "log" in e && e.view === entry.view);
        // One buffer for every batch: each tuple is built whole (its values decoded) before the next batch is read into it.
        for (const [k, line] of this.#lines(
          entry.view.log!,
          batch.map((e) => e.log),
          (scratch ??= { buffer: Buffer.alloc(0) }),
        ).entries())
          lines.set(batch[k]!, line);
      }
      let tuple: CheckpointTuple | undefined;
      try {
        const record = this.#readPut(entry, lines.get(entry), false);
        lines.delete(entry);
        if (record === undefined) continue;
        const metadata = (await this.#load(record.metadata, entry, "metadata")) as CheckpointMetadata;
        if (filter !== undefined && !matches(metadata, filter)) continue;
        tuple = await this.#tuple(entry, record, metadata);
      } catch (error) {
        if (error instanceof ThreadGone) continue;
        // One damaged checkpoint, or thread, does not hide the others: it is passed by, named.
        if (error instanceof DotagentError && error.code === "checkpoint_invalid") {
          process.emitWarning(`list passed by a checkpoint it cannot read: ${error.message}`, {
            code: "DOTAGENT_CHECKPOINT_INVALID",
          });
          continue;
        }
        throw error;
      }
      if (tuple === undefined) continue;
      left -= 1;
      yield tuple;
    }
  }

  /** The tuple of a checkpoint record: its values loaded, its pending writes, its parent. */
  async #tuple(entry: Entry, record: PutRecord, metadata?: CheckpointMetadata): Promise<CheckpointTuple> {
    const { view, ns } = entry;
    const writes = this.#writesOf(view, ns, record.id);
    const saved = (await this.#load(record.checkpoint, entry, "checkpoint")) as Omit<Checkpoint, "channel_values">;
    if (saved === null || typeof saved !== "object")
      throw invalid(where(entry), "checkpoint: expected an object once loaded", view.thread, true);
    const channelValues: Record<string, unknown> = {};
    for (const [channel, { value }] of Object.entries(record.values))
      setOwn(channelValues, channel, await this.#load(value, entry, `values[${JSON.stringify(channel)}]`));
    const checkpoint = { ...saved, channel_values: channelValues } as Checkpoint;
    if (checkpoint.v < 4 && record.parent !== null) await this.#migratePendingSends(checkpoint, entry, record.parent);
    const config = { configurable: { thread_id: view.thread, checkpoint_ns: ns, checkpoint_id: record.id } };
    const pendingWrites: CheckpointPendingWrite[] = [];
    for (const [i, write] of sortWrites(foldWrites(writes)).entries())
      pendingWrites.push([write.task_id, write.channel, await this.#load(write.value, entry, `writes[${i}].value`)]);
    return {
      config,
      checkpoint,
      metadata: metadata ?? ((await this.#load(record.metadata, entry, "metadata")) as CheckpointMetadata),
      ...(record.parent === null
        ? {}
        : {
            parentConfig: { configurable: { thread_id: view.thread, checkpoint_ns: ns, checkpoint_id: record.parent } },
          }),
      pendingWrites,
    };
  }

  /** A checkpoint saved before format 4 gets the sends its parent's tasks wrote, as a TASKS channel (LangGraph's migration). */
  async #migratePendingSends(checkpoint: Checkpoint, entry: Entry, parent: string): Promise<void> {
    const sends: unknown[] = [];
    for (const write of sortWrites(foldWrites(this.#writesOf(entry.view, entry.ns, parent))))
      if (write.channel === TASKS) sends.push(await this.#load(write.value, entry, "writes"));
    const versions = Object.values(checkpoint.channel_versions ?? {});
    checkpoint.channel_values[TASKS] = sends;
    checkpoint.channel_versions = {
      ...checkpoint.channel_versions,
      [TASKS]: versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined),
    };
  }

  // --- writing --------------------------------------------------------------------------------

  override async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    if (config?.configurable === undefined)
      throw usage("put(config, …): config.configurable is missing; pass { configurable: { thread_id } }");
    const rawThread: unknown = config.configurable.thread_id;
    if (rawThread === undefined || rawThread === null)
      throw usage("put(config, …): config.configurable.thread_id is missing; every checkpoint belongs to a thread");
    const thread = threadIdOf(rawThread, "put");
    const ns = namespaceOf(config.configurable.checkpoint_ns, "put");
    if (checkpoint === null || typeof checkpoint !== "object")
      throw usage(`put(config, checkpoint, …): checkpoint must be an object, not ${describe(checkpoint)}`);
    if (typeof checkpoint.id !== "string" || checkpoint.id === "")
      throw usage(`put: checkpoint.id must be a non-empty string, not ${describe(checkpoint.id)}`);
    const parent = checkpointIdOf(config, "put");
    const versions = (checkpoint.channel_versions ?? {}) as ChannelVersions;
    for (const [channel, version] of Object.entries(versions)) {
      if (typeof version !== "number" && typeof version !== "string")
        throw usage(
          `put: checkpoint.channel_versions[${JSON.stringify(channel)}] must be a number or a string, not ${describe(version)}`,
        );
    }
    const changed = (newVersions ?? {}) as ChannelVersions;

    // The parent's record says which channels it has a value for, at which version: a channel this
    // checkpoint did not change has a value when its parent has it at the same version. The value
    // stored is the one LangGraph passes (the same, by LangGraph's versions), so a damaged parent
    // passes no damage on.
    const view = this.#view(thread);
    const parentEntry = parent === undefined ? undefined : entryOf(view, ns, parent);
    let parentRecord: PutRecord | undefined;
    try {
      parentRecord = parentEntry === undefined ? undefined : this.#readPut(parentEntry);
    } catch (error) {
      if (!(error instanceof DotagentError) || error.code !== "checkpoint_invalid") throw error;
    }
    const { channel_values: channelValues = {}, ...rest } = checkpoint;
    const values: Record<string, VersionedValue> = {};
    for (const [channel, version] of Object.entries(versions)) {
      if (!Object.hasOwn(channelValues, channel) || channelValues[channel] === undefined) continue;
      const carried =
        parentEntry !== undefined &&
        (parentRecord === undefined ||
          (Object.hasOwn(parentRecord.values, channel) && parentRecord.values[channel]!.version === version));
      if (!Object.hasOwn(changed, channel) && !carried) continue;
      setOwn(values, channel, { version, value: typed(await this.serde.dumpsTyped(channelValues[channel])) });
    }
    const storedCheckpoint = typed(await this.serde.dumpsTyped(rest));
    const storedMetadata = typed(await this.serde.dumpsTyped(metadata));
    const record: PutRecord = {
      kind: "put",
      thread,
      ns,
      id: checkpoint.id,
      parent: parent ?? null,
      saved_at: new Date().toISOString(),
      checkpoint: storedCheckpoint,
      metadata: storedMetadata,
      values,
    };
    await this.#write(view, record, `put ${checkpoint.id}`);
    return { configurable: { thread_id: thread, checkpoint_ns: ns, checkpoint_id: checkpoint.id } };
  }

  override async putWrites(
    config: RunnableConfig,
    writes: PendingWrite[],
    taskId: string,
    taskPath = "",
  ): Promise<void> {
    const rawThread: unknown = config?.configurable?.thread_id;
    if (rawThread === undefined || rawThread === null)
      throw usage(
        "putWrites(config, …): config.configurable.thread_id is missing; writes belong to a thread's checkpoint",
      );
    const thread = threadIdOf(rawThread, "putWrites");
    const ns = namespaceOf(config.configurable?.checkpoint_ns, "putWrites");
    const id = checkpointIdOf(config, "putWrites");
    if (id === undefined)
      throw usage("putWrites(config, …): config.configurable.checkpoint_id is missing; writes belong to a checkpoint");
    if (typeof taskId !== "string")
      throw usage(`putWrites(config, writes, taskId): taskId must be a string, not ${describe(taskId)}`);
    if (typeof taskPath !== "string")
      throw usage(`putWrites(…, taskPath): taskPath must be a string, not ${describe(taskPath)}`);
    if (!Array.isArray(writes))
      throw usage(`putWrites(config, writes, …): writes must be an array of [channel, value], not ${describe(writes)}`);
    if (writes.length === 0) return;

    const stored: Array<WritesRecord["writes"][number]> = [];
    for (const [i, write] of writes.entries()) {
      if (!Array.isArray(write) || typeof write[0] !== "string")
        throw usage(`putWrites: writes[${i}] must be [channel, value] with a string channel`);
      const [channel, value] = write;
      const idx = Object.hasOwn(WRITES_IDX_MAP, channel) ? WRITES_IDX_MAP[channel]! : i;
      stored.push({ idx, channel, value: typed(await this.serde.dumpsTyped(value)) });
    }
    // Insert-or-ignore (and the special writes' replace) is decided by readers from the log's order.
    await this.#write(
      undefined,
      { kind: "writes", thread, ns, id, task_id: taskId, task_path: taskPath, writes: stored },
      `putWrites ${id}`,
    );
  }

  override async deleteThread(threadId: string): Promise<void> {
    const thread = threadIdOf(threadId, "deleteThread");
    for (const folder of foldersOf(this.dir, thread)) {
      const key = resolve(folder.path);
      await inTurn(key, async () => {
        endLease(key);
        let stat;
        try {
          stat = lstatSync(folder.path);
        } catch {
          return;
        }
        // A format-1 folder named by the id holds another thread's when its thread.json says so (case).
        if (folder.legacyOnly && stat.isDirectory() && this.#legacyThread(folder.path, thread) === undefined) return;
        // A link or a file where the folder belongs has no lock to take: it goes as it is (the link itself, never what it points to).
        const lock = stat.isDirectory()
          ? await this.#lock(folder.path, thread, `deleteThread ${JSON.stringify(thread).slice(0, 60)}`, false)
          : undefined;
        if (stat.isDirectory() && lock === undefined) return;
        // One rename takes the whole thread away (the commit point); a kill after it leaves a
        // .deleting.* folder that no read looks at and the next deleteThread removes.
        const away = join(
          this.dir,
          `.deleting.${process.pid}.${Math.random().toString(16).slice(2, 10)}.${folder.name.slice(0, 100)}`,
        );
        try {
          try {
            renameInside(this.dir, folder.path, away, WITHIN);
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
            throw writeFailure(folder.path, error);
          }
          fsyncDir(this.dir);
        } finally {
          lock?.release(); // the lock went with the folder; release() leaves a newcomer's lock alone
        }
        this.#forget(folder.path);
        removeTree(away);
      });
    }
    let names: string[] = [];
    try {
      names = readdirSync(this.dir);
    } catch {
      // no folder: nothing left over
    }
    for (const name of names) {
      const pid = DELETING.exec(name)?.[1];
      if (pid !== undefined && !isPidAlive(Number(pid))) removeTree(join(this.dir, name));
    }
  }

  // --- the log --------------------------------------------------------------------------------

  /**
   * Writes one record where the thread's log's written part ends, durably, under the thread's
   * lock: taken by this process's first write (a lease), kept while its writes follow one another,
   * given up when they pause or after a while (so other processes get their turn), and at exit.
   */
  async #write(view: ThreadView | undefined, record: LogRecord, command: string): Promise<void> {
    const bytes = encodeAppend(record);
    const folder = view?.folder ?? join(this.dir, threadFolderName(record.thread));
    const file = join(folder, LOG_FILE);
    if (bytes.length > MAX_RECORD)
      throw new DotagentError(
        "data_invalid",
        `${file}: a record of ${formatBytes(bytes.length)} would be over ${formatBytes(MAX_RECORD)}; keep less in the graph's state`,
        EXIT.refused,
        { file },
      );
    const key = resolve(folder);
    await inTurn(key, async () => {
      const lease = leases.get(key) ?? (await this.#takeLease(key, folder, record.thread, command));
      const at = lease.end;
      try {
        writeAt(lease, bytes);
      } catch (error) {
        endLease(key);
        if (error instanceof DotagentError) throw error;
        throw writeFailure(file, error);
      }
      this.#indexOwn(file, record, lease, at, bytes.length);
      if (Date.now() - lease.since >= LEASE_HOLD_MS) endLease(key);
      else if (lease.timer === undefined) lease.timer = setTimeout(() => endLease(key), LEASE_IDLE_MS).unref();
      else lease.timer.refresh();
    });
  }

  /** The thread's lock, its log opened, and where the log's written part ends (read on to its first zero byte). */
  async #takeLease(key: string, folder: string, thread: string, command: string): Promise<Lease> {
    const file = join(folder, LOG_FILE);
    this.#makeFolder(folder, thread);
    const lock = (await this.#lock(folder, thread, command, true))!;
    try {
      // What killed writers left (a half-made lock file), removed under the lock, once per process.
      if (!this.#swept.has(folder)) {
        sweepTemps(folder);
        this.#swept.add(folder);
      }
      let opened;
      try {
        opened = openFileInside(this.dir, file, WITHIN);
      } catch (error) {
        if (error instanceof DotagentError) throw error;
        throw writeFailure(file, error);
      }
      const identity = `${opened.dev}:${opened.ino}`;
      if (this.#ready.get(folder) !== identity) {
        fsyncDir(folder); // the log's entry in its folder, once per log and process
        this.#ready.set(folder, identity);
      }
      const state = this.#readLog(file, thread);
      const end = state !== undefined && state.ino === opened.ino && state.dev === opened.dev ? state.end : 0;
      const lease: Lease = {
        key,
        file,
        fd: opened.fd,
        lock,
        ino: opened.ino,
        dev: opened.dev,
        end,
        room: opened.size,
        since: Date.now(),
        timer: undefined,
      };
      holdLease(lease);
      return lease;
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  /**
   * The record just written, indexed without reading it back when this process had read the log
   * up to where it was written (else the next read reads on).
   */
  #indexOwn(file: string, record: LogRecord, lease: Lease, at: number, length: number): void {
    const state = this.#logs.get(file);
    if (state === undefined || state.ino !== lease.ino || state.dev !== lease.dev || state.end !== at) return;
    const located = { offset: at + 1, length: length - 2 };
    state.index.add(record, located);
    state.consumed = state.end = at + length;
    if (record.kind === "put") this.#remember(`${file}@${state.dev}:${state.ino}@${located.offset}`, record);
  }

  /** The thread's folder, made (with the saver's folder) and its entry made durable, once per process; a link or a file there is refused. */
  #makeFolder(folder: string, thread: string): void {
    if (this.#ready.has(folder)) return;
    let exists = false;
    try {
      const stat = lstatSync(folder);
      if (!stat.isDirectory())
        throw invalid(folder, `is not a real folder (${stat.isSymbolicLink() ? "a link" : "a file"})`, thread);
      exists = true;
    } catch (error) {
      if (error instanceof DotagentError) throw error;
    }
    if (!exists) {
      try {
        mkdirInside(this.dir, folder, WITHIN);
      } catch (error) {
        if (error instanceof DotagentError) throw error;
        throw writeFailure(folder, error);
      }
    }
    // Whoever made them, their entries are made durable before this process's first record.
    fsyncDir(folder);
    fsyncDir(this.dir);
    this.#ready.set(folder, "");
  }

  /**
   * The lock of a thread's folder (the state lock's mechanism: a dead holder's lock is taken over),
   * waited for without blocking the event loop; undefined when the folder is gone and not to be
   * made. A deleteThread in another process may rename the folder away while this one waits: the
   * wait then starts again on the new folder.
   */
  async #lock(folder: string, thread: string, command: string, create: boolean): Promise<LockHandle | undefined> {
    for (let attempt = 0; ; attempt++) {
      if (!create && !isFolder(folder)) return undefined;
      if (create && !isFolder(folder)) {
        this.#forget(folder);
        this.#makeFolder(folder, thread);
      }
      try {
        return await acquireLockAsync(folder, { command: `langgraph ${command}`, waitMs: this.#waitMs });
      } catch (error) {
        if (!(error instanceof DotagentError)) throw error;
        const lockFile = join(folder, ".lock");
        if (error.code === "write_failed" && error.details.errno === "ENOENT" && attempt < 20) continue;
        if (error.code === "write_failed") throw writeFailure(lockFile, { code: error.details.errno });
        if (error.code !== "locked") throw error;
        const holder = error.details.holder as { pid: number; hostname: string } | undefined;
        throw new DotagentError(
          "locked",
          `${lockFile} is held by ${holder ? `pid ${holder.pid} on ${holder.hostname}` : "another process"}; wait for it to finish, or if that process is gone remove the lock file`,
          EXIT.locked,
          { path: lockFile, ...(holder ? { holder } : {}) },
        );
      }
    }
  }

  /** A log read on from where this process stopped (from the start when it is another file now), to its first zero byte; undefined when there is none. */
  #readLog(file: string, thread?: string): LogState | undefined {
    let state = this.#logs.get(file);
    let want = READ_AHEAD;
    for (;;) {
      const from = state?.consumed ?? 0;
      const read = readProjectParts(file, [], { from, maxBytes: want });
      if (read.kind === "missing") {
        this.#logs.delete(file);
        return undefined;
      }
      if (read.kind === "refused") throw invalid(file, read.reason, thread);
      const { ino, dev, size } = read.file;
      if (state !== undefined && (state.ino !== ino || state.dev !== dev || size < state.consumed)) {
        state = undefined; // deleted and begun again: read anew
        continue;
      }
      state ??= { file, ino, dev, consumed: 0, end: 0, index: new ThreadIndex<Located>() };
      const scan = scanLog(read.tail, from);
      for (const { head, at } of scan.records) state.index.add(head, at);
      state.consumed = scan.consumed;
      state.end = scan.end;
      this.#logs.set(file, state);
      // Done at the first zero byte or the file's end; else on, reading more at a time.
      if (scan.end < from + read.tail.length || read.tail.length < want) return state;
      if (scan.consumed === from && want > MAX_RECORD) return state; // a line longer than any record: left unread
      want = Math.min(want * 4, MAX_RECORD + 1);
    }
  }

  /** The format-1 thread in a folder, read once per process (such folders are never written again) until the folder is forgotten. */
  #legacyThread(folder: string, thread: string): LegacyThread | undefined {
    const key = `${folder}\0${thread}`;
    if (this.#legacy.has(key)) return this.#legacy.get(key);
    let legacy: LegacyThread | undefined;
    try {
      legacy = lstatSync(folder).isDirectory() ? readLegacyThread(folder, thread) : undefined;
    } catch (error) {
      if (error instanceof DotagentError) throw error;
      legacy = undefined;
    }
    this.#legacy.set(key, legacy);
    return legacy;
  }

  /** Everything this process knows of a folder, dropped (the folder was deleted or replaced). */
  #forget(folder: string): void {
    this.#ready.delete(folder);
    this.#swept.delete(folder);
    this.#logs.delete(join(folder, LOG_FILE));
    for (const key of this.#legacy.keys()) if (key.startsWith(`${folder}\0`)) this.#legacy.delete(key);
  }

  #remember(key: string, record: PutRecord): void {
    this.#recent.delete(key);
    this.#recent.set(key, record);
    if (this.#recent.size > RECENT) this.#recent.delete(this.#recent.keys().next().value!);
  }

  // --- threads ----------------------------------------------------------------------------------

  /** A thread as this process can read it now: its log read on, its format-1 files listed. */
  #view(thread: string): ThreadView {
    const folders = foldersOf(this.dir, thread);
    const folder = folders[0]!.path;
    const file = join(folder, LOG_FILE);
    let log: LogState | undefined;
    try {
      // While this process holds the thread's lease no one else writes it: what it indexed is all there is.
      const lease = leases.get(resolve(folder));
      const known = this.#logs.get(file);
      log =
        lease !== undefined &&
        known !== undefined &&
        known.ino === lease.ino &&
        known.dev === lease.dev &&
        known.end === lease.end
          ? known
          : this.#readLog(file, thread);
    } catch (error) {
      // A log that cannot be read because its folder is not one: named as the folder.
      this.#checkFolder(folder, thread);
      throw error;
    }
    if (log === undefined) {
      this.#checkFolder(folder, thread);
      this.#forget(folder); // not there (deleted): nothing to read
    }
    let legacy: LegacyThread | undefined;
    for (const f of folders) legacy ??= this.#legacyThread(f.path, thread);
    return { thread, folder, log, legacy };
  }

  /** A thread's folder is a real folder, or nothing: a link or a file there is refused, named. */
  #checkFolder(folder: string, thread: string): void {
    let stat;
    try {
      stat = lstatSync(folder);
    } catch {
      return;
    }
    if (!stat.isDirectory())
      throw invalid(folder, `is not a real folder (${stat.isSymbolicLink() ? "a link" : "a file"})`, thread);
  }

  /** Every thread in the saver's folder; one that cannot be read is passed by with a warning naming it. */
  #everyThread(): ThreadView[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw invalid(this.dir, `cannot be read (${(error as NodeJS.ErrnoException).code})`);
    }
    const threads = new Set<string>();
    for (const name of names.sort()) {
      if (!isThreadFolderName(name)) continue;
      const folder = join(this.dir, name);
      // The thread a folder's name says (a cut name says none): the way out a warning names.
      const named = threadIdOfFolderName(name) ?? (ID_PATTERN.test(name) ? name : undefined);
      try {
        const stat = lstatSync(folder);
        if (!stat.isDirectory())
          throw invalid(folder, `is not a real folder (${stat.isSymbolicLink() ? "a link" : "a file"})`, named);
        for (const t of this.#readLog(join(folder, LOG_FILE), named)?.index.threads.keys() ?? []) threads.add(t);
        // A format-1 folder is named by its thread id.
        if (ID_PATTERN.test(name) && this.#legacyThread(folder, name) !== undefined) threads.add(name);
      } catch (error) {
        if (!(error instanceof DotagentError)) throw error;
        process.emitWarning(`list passed by a thread it cannot read: ${error.message}`, {
          code: "DOTAGENT_CHECKPOINT_INVALID",
        });
      }
    }
    const views: ThreadView[] = [];
    for (const thread of threads) {
      try {
        views.push(this.#view(thread));
      } catch (error) {
        if (!(error instanceof DotagentError)) throw error;
        process.emitWarning(`list passed by a thread it cannot read: ${error.message}`, {
          code: "DOTAGENT_CHECKPOINT_INVALID",
        });
      }
    }
    return views;
  }

  // --- records ----------------------------------------------------------------------------------

  /** A checkpoint's record; undefined when it is gone (its thread deleted meanwhile). */
  #readPut(entry: Entry, read?: Buffer, keep = true): PutRecord | undefined {
    if ("file" in entry) return readLegacyPut(entry.file, entry.view.thread, entry.ns, entry.id);
    const log = entry.view.log!;
    const key = `${log.file}@${log.dev}:${log.ino}@${entry.log.offset}`;
    const recent = this.#recent.get(key);
    if (recent !== undefined) return recent;
    const line = read ?? this.#lines(log, [entry.log])[0];
    if (line === undefined) return undefined;
    const record = parseRecordLine(line);
    if (typeof record === "string" || record.kind !== "put")
      throw invalid(
        log.file,
        `the record of checkpoint ${JSON.stringify(entry.id)} at byte ${entry.log.offset} ${typeof record === "string" ? record : "is not a checkpoint"}`,
        entry.view.thread,
        true,
      );
    if (keep) this.#remember(key, record);
    return record;
  }

  /** The writes records of a checkpoint, format-1 ones first, then the log's in its order. */
  #writesOf(view: ThreadView, ns: string, id: string): WritesRecord[] {
    const out: WritesRecord[] = [];
    for (const file of view.legacy?.index.namespace(view.thread, ns)?.writes.get(id) ?? [])
      out.push(...readLegacyWrites(file, view.thread, ns, id));
    const at = view.log?.index.namespace(view.thread, ns)?.writes.get(id) ?? [];
    if (at.length === 0) return out;
    const lines = this.#lines(view.log!, at);
    for (const [i, line] of lines.entries()) {
      if (line === undefined) throw new ThreadGone();
      const record = parseRecordLine(line);
      if (typeof record === "string" || record.kind !== "writes")
        throw invalid(
          view.log!.file,
          `the record of writes of ${JSON.stringify(id)} at byte ${at[i]!.offset} ${typeof record === "string" ? record : "is not writes"}`,
          view.thread,
          true,
        );
      out.push(record);
    }
    return out;
  }

  /** The lines at `at` of a log, as this process indexed it; undefined entries when the log is gone or another file now. */
  #lines(log: LogState, at: readonly Located[], scratch?: { buffer: Buffer }): Array<Buffer | undefined> {
    if (at.length === 0) return [];
    // Lines close together (a listing reads a log's checkpoints in a row) are read as one span, into one buffer.
    let [first, end, total] = [Infinity, 0, 0];
    for (const a of at) {
      first = Math.min(first, a.offset);
      end = Math.max(end, a.offset + a.length);
      total += a.length;
    }
    const span = at.length > 1 && end - first <= 2 * total;
    if (span && scratch !== undefined && scratch.buffer.length < end - first)
      scratch.buffer = Buffer.allocUnsafe(end - first);
    const read = readProjectParts(
      log.file,
      span ? [{ offset: first, length: end - first }] : at,
      span && scratch !== undefined ? { into: scratch.buffer } : {},
    );
    if (read.kind === "missing") return at.map(() => undefined);
    if (read.kind === "refused") throw invalid(log.file, read.reason, undefined);
    if (read.file.ino !== log.ino || read.file.dev !== log.dev) return at.map(() => undefined);
    if (!span) return read.parts;
    const whole = read.parts[0]!;
    return at.map((a) =>
      a.offset + a.length - first <= whole.length
        ? whole.subarray(a.offset - first, a.offset - first + a.length)
        : undefined,
    );
  }

  /** The serializer's value back; a stored value it cannot load is its record's fault, named. */
  async #load(value: Typed, entry: Entry, path: string): Promise<unknown> {
    try {
      // LangGraph's own serializer decodes JSON from the record's bytes where they are (it keeps no
      // reference to them); any other bytes, or any other serializer, get a copy of their own.
      return await this.serde.loadsTyped(
        value.type,
        value.type === "json" && this.#ownSerde ? value.bytes : new Uint8Array(value.bytes),
      );
    } catch (error) {
      throw invalid(
        where(entry),
        `${path}: the serializer cannot load it (${String((error as Error)?.message ?? error).split("\n")[0]})`,
        entry.view.thread,
        true,
      );
    }
  }
}

/** A serializer's output as a record keeps it: its bytes as made (a string, from a serializer that makes one, as UTF-8). */
function typed([type, data]: [string, Uint8Array | string]): Typed {
  return { type, bytes: typeof data === "string" ? Buffer.from(data, "utf8") : data };
}

/** What the saver's folder is called in a refusal (write-file.ts). */
const WITHIN = { within: "the checkpointer's folder" };

/** The folders that may hold a thread: its own, and for an id format 1 took, the folder named by the id (when another). */
function foldersOf(dir: string, thread: string): Array<{ name: string; path: string; legacyOnly: boolean }> {
  const name = threadFolderName(thread);
  const folders = [{ name, path: join(dir, name), legacyOnly: false }];
  if (ID_PATTERN.test(thread) && thread !== name)
    folders.push({ name: thread, path: join(dir, thread), legacyOnly: true });
  return folders;
}

/** Where a checkpoint is, for a message: its log and record, or its format-1 file. */
function where(entry: Entry): string {
  return "file" in entry
    ? entry.file
    : `${entry.view.log!.file} (checkpoint ${JSON.stringify(entry.id)} at byte ${entry.log.offset})`;
}

function entryOf(view: ThreadView, ns: string, id: string): Entry | undefined {
  const inLog = view.log?.index.namespace(view.thread, ns)?.puts.get(id);
  if (inLog !== undefined) return { view, ns, id, log: inLog.at };
  const inFile = view.legacy?.index.namespace(view.thread, ns)?.puts.get(id);
  return inFile === undefined ? undefined : { view, ns, id, file: inFile.at };
}

function newestOf(view: ThreadView, ns: string): string | undefined {
  const a = view.log?.index.namespace(view.thread, ns)?.newest;
  const b = view.legacy?.index.namespace(view.thread, ns)?.newest;
  return a === undefined ? b : b === undefined || a > b ? a : b;
}

function isFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

function removeTree(folder: string): void {
  try {
    rmSync(folder, { recursive: true, force: true });
  } catch {
    // A leftover .deleting.* folder holds no thread; the next deleteThread tries again.
  }
}

/** A thread id: any string (LangGraph takes any); thread-names.ts makes it a folder name. */
function threadIdOf(thread: unknown, call: string): string {
  if (typeof thread !== "string") throw usage(`${call}: thread_id must be a string, not ${describe(thread)}`);
  return thread;
}

function namespaceOf(ns: unknown, call: string): string {
  if (ns === undefined) return "";
  if (typeof ns !== "string") throw usage(`${call}: checkpoint_ns must be a string, not ${describe(ns)}`);
  return ns;
}

/** The checkpoint id a config names (LangGraph's getCheckpointId: checkpoint_id, or the old thread_ts), undefined for none. */
function checkpointIdOf(config: RunnableConfig, call: string): string | undefined {
  const id: unknown = config?.configurable?.checkpoint_id || config?.configurable?.thread_ts;
  if (id === undefined || id === null || id === "") return undefined;
  if (typeof id !== "string") throw usage(`${call}: checkpoint_id must be a string, not ${describe(id)}`);
  return id;
}

/** Metadata matches a filter when every field the filter names is deeply equal. */
function matches(metadata: CheckpointMetadata, filter: Record<string, unknown>): boolean {
  const fields = (metadata ?? {}) as Record<string, unknown>;
  return Object.entries(filter).every(([key, value]) =>
    isDeepStrictEqual(Object.hasOwn(fields, key) ? fields[key] : undefined, value),
  );
}
