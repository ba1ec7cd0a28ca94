// A LangGraph checkpointer (BaseCheckpointSaver) on dotagent's store: one folder per thread under
// the folder the caller names (file layout: thread-files.ts; SPEC §21). Guarantees:
// - every write is atomic and durable (temp file, fsync, rename, folder fsync: src/store/
//   write-file.ts), so a kill -9 at any moment leaves each file its previous content or its new
//   one; a put is one file, a putWrites one file, so an acknowledged call is on disk whole and an
//   unacknowledged one either whole or not at all;
// - no write leaves the saver's folder: a link at a file is replaced, never followed, and a folder
//   on the way that leads out of it is refused (`path_outside_project`);
// - a checkpoint file only names files written before it (its parent's values), and files are
//   never removed one by one: deleteThread renames the thread's folder away in one step, then
//   removes it; so every checkpoint a reader finds can be read whole;
// - writes to one thread from any number of processes are serialised by the thread's `.lock`
//   (the state lock's mechanism: a dead holder's lock is taken over), waited for without blocking
//   the event loop; inside one process calls on a thread take turns, and each runs its read,
//   decide and write without yielding, so putWrites of tasks finishing at once lose nothing;
// - reads take no lock (each file they read is whole); a thread deleted while it is read reads
//   as absent, never as a checkpoint with channels missing;
// - values go through the saver's `serde` and are stored as the exact bytes it made;
// - anything unreadable or hand-edited is a DotagentError naming the file (`checkpoint_invalid`,
//   exit 3), a thread or checkpoint id that cannot name a file (`../x`) is `usage` (exit 2); never
//   a stack trace.
import { lstatSync, readdirSync, rmSync, statSync } from "node:fs";
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
import { inTurn, sweepTemps } from "../api/checkpoint-store.js";
import { DotagentError, EXIT } from "../core/errors.js";
import { decodeJson } from "../schema/json.js";
import { fsyncDir, mkdirInside, renameInside, writeFileInside } from "../store/write-file.js";
import { writeFailure } from "../store/io-error.js";
import { acquireLockAsync, type LockHandle } from "../store/lock.js";
import { isPidAlive } from "../store/process-facts.js";
import { MAX_STATE_BYTES, formatBytes, readProjectText } from "../store/read-file.js";
import {
  FORMAT,
  THREAD_FILE,
  checkpointFileName,
  checkpointIdsIn,
  isNamespaceFolder,
  mergeWrites,
  nameProblem,
  namespaceFolder,
  newestFirst,
  parseCheckpointFile,
  parseThreadFile,
  parseWritesFile,
  setOwn,
  sortWrites,
  storeValue,
  storedBytes,
  valueSources,
  writesFileName,
  type CheckpointFile,
  type FilePlace,
  type StoredValue,
  type StoredWrite,
  type WritesFile,
} from "./thread-files.js";

export interface DotagentSaverOptions {
  /** The serializer for checkpoints, metadata and values (LangGraph's JsonPlusSerializer by default). */
  serde?: SerializerProtocol;
  /** How long a write waits for another process's (default 10 s, or DOTAGENT_LOCK_WAIT_MS). */
  lockWaitMs?: number;
}

/** A thread deleted while it was being read: the read finds nothing, as it would a moment later. */
class ThreadGone extends Error {}

/** Where one namespace of one thread lives. */
interface Place {
  readonly thread: string;
  readonly ns: string;
  readonly folder: string;
}

const DELETING = /^\.deleting\.(\d+)\.[0-9a-f]+\./;

/**
 * A LangGraph checkpointer whose every write is dotagent's atomic, locked, fsynced write:
 * `new DotagentSaver(".checkpoints/langgraph")`, then `graph.compile({ checkpointer })`.
 */
export class DotagentSaver extends BaseCheckpointSaver {
  /** The folder holding one folder per thread, as given. */
  readonly dir: string;
  readonly #waitMs: number;
  /** Thread folders whose killed writers' temp files this process has swept already. */
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
    this.dir = dir;
    const env = Number(process.env.DOTAGENT_LOCK_WAIT_MS);
    this.#waitMs =
      (wait as number | undefined) ??
      (process.env.DOTAGENT_LOCK_WAIT_MS !== undefined && Number.isFinite(env) && env >= 0 ? env : 10_000);
  }

  // --- reading --------------------------------------------------------------------------------

  override async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const thread: unknown = config?.configurable?.thread_id;
    if (thread === undefined) return undefined;
    const place = this.#place(thread, config.configurable?.checkpoint_ns, "getTuple");
    const wanted = checkpointIdOf(config, "getTuple");
    const id = wanted ?? checkpointIdsIn(this.#listFolder(place.folder, place.thread))[0];
    if (id === undefined) return undefined;
    try {
      const file = this.#readCheckpoint(place, id);
      return file === undefined ? undefined : await this.#tuple(place, file, new Map());
    } catch (error) {
      if (error instanceof ThreadGone) return undefined;
      throw error;
    }
  }

  override async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    const { limit, before, filter } = options ?? {};
    // No thread (undefined or null, as LangGraph's savers take it): every thread.
    const thread: unknown = config?.configurable?.thread_id ?? undefined;
    const ns: unknown = config?.configurable?.checkpoint_ns;
    const only = checkpointIdOf(config ?? {}, "list");
    const beforeId = before === undefined ? undefined : checkpointIdOf(before, "list (before)");
    if (limit !== undefined && (typeof limit !== "number" || Number.isNaN(limit)))
      throw usage(`list(config, { limit }): limit must be a number, not ${describe(limit)}`);
    if (filter !== undefined && (filter === null || typeof filter !== "object"))
      throw usage(`list(config, { filter }): filter must be an object of metadata fields, not ${describe(filter)}`);
    if (limit !== undefined && limit <= 0) return;

    const places: Place[] = [];
    for (const t of thread === undefined ? this.#threads() : [thread]) {
      const place = this.#place(t, ns, "list");
      if (ns !== undefined) places.push(place);
      else
        for (const name of this.#listFolder(this.#threadFolder(place.thread), place.thread).filter(isNamespaceFolder))
          places.push({ ...place, folder: join(this.#threadFolder(place.thread), name) });
    }
    // Every saver lists newest first, across threads and namespaces (checkpoint ids sort by time).
    const found = places
      .flatMap((place) => checkpointIdsIn(this.#listFolder(place.folder, place.thread)).map((id) => ({ place, id })))
      .filter(({ id }) => (only === undefined || id === only) && (beforeId === undefined || id < beforeId))
      .sort((a, b) => newestFirst(a.id, b.id) || (a.place.folder < b.place.folder ? -1 : 1));

    let left = limit ?? Infinity;
    for (const { place, id } of found) {
      if (left <= 0) return;
      let tuple: CheckpointTuple | undefined;
      try {
        // A namespace folder listed without knowing its namespace: its files say which it is.
        const file = this.#readCheckpoint(place, id, ns === undefined);
        if (file === undefined) continue;
        const metadata = (await this.#load(
          file.metadata,
          place,
          checkpointFileName(id),
          "metadata",
        )) as CheckpointMetadata;
        if (filter !== undefined && !matches(metadata, filter)) continue;
        tuple = await this.#tuple({ ...place, ns: file.checkpoint_ns }, file, new Map(), metadata);
      } catch (error) {
        if (error instanceof ThreadGone) continue;
        throw error;
      }
      left -= 1;
      yield tuple;
    }
  }

  /** The tuple a checkpoint file stands for: its values gathered, its writes, its parent. */
  async #tuple(
    place: Place,
    file: CheckpointFile,
    read: Map<string, CheckpointFile | undefined>,
    metadata?: CheckpointMetadata,
  ): Promise<CheckpointTuple> {
    const name = checkpointFileName(file.checkpoint_id);
    const saved = (await this.#load(file.checkpoint, place, name, "checkpoint")) as Omit<Checkpoint, "channel_values">;
    if (saved === null || typeof saved !== "object")
      throw invalid(join(place.folder, name), "checkpoint: expected an object once loaded", place.thread);
    const channelValues: Record<string, unknown> = {};
    for (const [channel, source] of Object.entries(file.sources)) {
      let holder: CheckpointFile | undefined = file;
      if (source.checkpoint_id !== file.checkpoint_id) {
        if (!read.has(source.checkpoint_id))
          read.set(source.checkpoint_id, this.#readCheckpoint(place, source.checkpoint_id));
        holder = read.get(source.checkpoint_id);
        if (holder === undefined) {
          // Gone: the thread was deleted while read (this file is gone too), else the folder was edited by hand.
          if (this.#readCheckpoint(place, file.checkpoint_id) === undefined) throw new ThreadGone();
          throw invalid(
            join(place.folder, name),
            `sources[${JSON.stringify(channel)}] names checkpoint ${source.checkpoint_id}, which is not in ${place.folder}`,
            place.thread,
          );
        }
      }
      const value = Object.hasOwn(holder.values, channel) ? holder.values[channel] : undefined;
      const holderName = checkpointFileName(holder.checkpoint_id);
      if (
        value === undefined ||
        !Object.hasOwn(holder.sources, channel) ||
        holder.sources[channel]!.version !== source.version
      ) {
        throw invalid(
          join(place.folder, holderName),
          `values has no ${JSON.stringify(channel)} at version ${JSON.stringify(source.version)}, which ${name} takes from it`,
          place.thread,
        );
      }
      setOwn(channelValues, channel, await this.#load(value, place, holderName, `values[${JSON.stringify(channel)}]`));
    }
    const checkpoint = { ...saved, channel_values: channelValues } as Checkpoint;
    const parent = file.parent_checkpoint_id;
    if (checkpoint.v < 4 && parent !== null) await this.#migratePendingSends(checkpoint, place, parent);
    const config = {
      configurable: { thread_id: place.thread, checkpoint_ns: place.ns, checkpoint_id: file.checkpoint_id },
    };
    const tuple: CheckpointTuple = {
      config,
      checkpoint,
      metadata: metadata ?? ((await this.#load(file.metadata, place, name, "metadata")) as CheckpointMetadata),
      ...(parent === null
        ? {}
        : {
            parentConfig: { configurable: { thread_id: place.thread, checkpoint_ns: place.ns, checkpoint_id: parent } },
          }),
      pendingWrites: await this.#pendingWrites(place, file.checkpoint_id),
    };
    // Writes missing because the thread was deleted meanwhile: the checkpoint went with them.
    if (!fileExists(join(place.folder, name))) throw new ThreadGone();
    return tuple;
  }

  /** A checkpoint saved before format 4 gets the sends its parent's tasks wrote, as a TASKS channel (LangGraph's migration). */
  async #migratePendingSends(checkpoint: Checkpoint, place: Place, parent: string): Promise<void> {
    const writes = this.#readWrites(place, parent)?.writes ?? [];
    const sends: unknown[] = [];
    for (const write of sortWrites(writes))
      if (write.channel === TASKS) sends.push(await this.#load(write.value, place, writesFileName(parent), "writes"));
    const versions = Object.values(checkpoint.channel_versions ?? {});
    checkpoint.channel_values[TASKS] = sends;
    checkpoint.channel_versions = {
      ...checkpoint.channel_versions,
      [TASKS]: versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined),
    };
  }

  async #pendingWrites(place: Place, id: string): Promise<CheckpointPendingWrite[]> {
    const file = this.#readWrites(place, id);
    if (file === undefined) return [];
    const out: CheckpointPendingWrite[] = [];
    for (const [i, write] of sortWrites(file.writes).entries()) {
      out.push([
        write.task_id,
        write.channel,
        await this.#load(write.value, place, writesFileName(id), `writes[${i}].value`),
      ]);
    }
    return out;
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
    const thread: unknown = config.configurable.thread_id;
    if (thread === undefined)
      throw usage("put(config, …): config.configurable.thread_id is missing; every checkpoint belongs to a thread");
    const place = this.#place(thread, config.configurable.checkpoint_ns, "put");
    if (checkpoint === null || typeof checkpoint !== "object")
      throw usage(`put(config, checkpoint, …): checkpoint must be an object, not ${describe(checkpoint)}`);
    const problem = nameProblem(checkpoint.id, "checkpoint.id");
    if (problem !== null) throw usage(`put: ${problem}`);
    const parent = checkpointIdOf(config, "put");
    const versions = (checkpoint.channel_versions ?? {}) as ChannelVersions;
    for (const [channel, version] of Object.entries(versions)) {
      if (typeof version !== "number" && typeof version !== "string")
        throw usage(
          `put: checkpoint.channel_versions[${JSON.stringify(channel)}] must be a number or a string, not ${describe(version)}`,
        );
    }
    const changed = (newVersions ?? {}) as ChannelVersions;

    // Serialise first (the serializer is async); the locked step below then runs without a pause.
    const { channel_values: channelValues = {}, ...rest } = checkpoint;
    const values: Record<string, StoredValue> = {};
    for (const channel of Object.keys(versions)) {
      if (
        !Object.hasOwn(changed, channel) ||
        !Object.hasOwn(channelValues, channel) ||
        channelValues[channel] === undefined
      )
        continue;
      setOwn(values, channel, storeValue(...(await this.serde.dumpsTyped(channelValues[channel]))));
    }
    const storedCheckpoint = storeValue(...(await this.serde.dumpsTyped(rest)));
    const storedMetadata = storeValue(...(await this.serde.dumpsTyped(metadata)));

    await this.#locked(place, `put ${checkpoint.id}`, () => {
      // The parent is read under the lock: the values this checkpoint shares with it are where it says.
      const parentFile = parent === undefined ? undefined : this.#readCheckpoint(place, parent);
      const file: CheckpointFile = {
        format: FORMAT,
        thread_id: place.thread,
        checkpoint_ns: place.ns,
        checkpoint_id: checkpoint.id,
        parent_checkpoint_id: parent ?? null,
        saved_at: new Date().toISOString(),
        checkpoint: storedCheckpoint,
        metadata: storedMetadata,
        values,
        sources: valueSources(checkpoint.id, versions, changed, new Set(Object.keys(values)), parentFile),
      };
      this.#write(place, checkpointFileName(checkpoint.id), file);
    });
    return { configurable: { thread_id: place.thread, checkpoint_ns: place.ns, checkpoint_id: checkpoint.id } };
  }

  override async putWrites(
    config: RunnableConfig,
    writes: PendingWrite[],
    taskId: string,
    taskPath = "",
  ): Promise<void> {
    const thread: unknown = config?.configurable?.thread_id;
    if (thread === undefined)
      throw usage(
        "putWrites(config, …): config.configurable.thread_id is missing; writes belong to a thread's checkpoint",
      );
    const place = this.#place(thread, config.configurable?.checkpoint_ns, "putWrites");
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

    const incoming: StoredWrite[] = [];
    for (const [i, write] of writes.entries()) {
      if (!Array.isArray(write) || typeof write[0] !== "string")
        throw usage(`putWrites: writes[${i}] must be [channel, value] with a string channel`);
      const [channel, value] = write;
      const idx = Object.hasOwn(WRITES_IDX_MAP, channel) ? WRITES_IDX_MAP[channel]! : i;
      incoming.push({
        task_id: taskId,
        task_path: taskPath,
        idx,
        channel,
        value: storeValue(...(await this.serde.dumpsTyped(value))),
      });
    }
    await this.#locked(place, `putWrites ${id}`, () => {
      const existing = this.#readWrites(place, id);
      const merged = mergeWrites(existing?.writes ?? [], incoming);
      if (existing !== undefined && isDeepStrictEqual(merged, sortWrites(existing.writes))) return;
      const file: WritesFile = {
        format: FORMAT,
        thread_id: place.thread,
        checkpoint_ns: place.ns,
        checkpoint_id: id,
        writes: merged,
      };
      this.#write(place, writesFileName(id), file);
    });
  }

  override async deleteThread(threadId: string): Promise<void> {
    const problem = nameProblem(threadId, "thread_id");
    if (problem !== null) throw usage(`deleteThread: ${problem}`);
    const folder = this.#threadFolder(threadId);
    await inTurn(resolve(folder), async () => {
      if (!this.#folderExists(folder)) return;
      const lock = await this.#lock(folder, threadId, `deleteThread ${threadId}`, false);
      if (lock === undefined) return;
      // One rename takes the whole thread away (the commit point); a kill after it leaves a
      // .deleting.* folder that no read looks at and the next deleteThread removes.
      const away = join(this.dir, `.deleting.${process.pid}.${Math.random().toString(16).slice(2, 10)}.${threadId}`);
      try {
        this.#checkThreadFile(folder, threadId);
        try {
          renameInside(this.dir, folder, away, WITHIN);
        } catch (error) {
          throw writeFailure(folder, error);
        }
        fsyncDir(this.dir);
      } finally {
        lock.release(); // the lock went with the folder; release() leaves a newcomer's lock alone
      }
      this.#swept.delete(folder);
      removeTree(away);
    });
    for (const name of this.#listFolder(this.dir)) {
      const pid = DELETING.exec(name)?.[1];
      if (pid !== undefined && !isPidAlive(Number(pid))) removeTree(join(this.dir, name));
    }
  }

  // --- the folders ------------------------------------------------------------------------------

  #threadFolder(thread: string): string {
    return join(this.dir, thread);
  }

  /** The place a call names; `usage` for a thread id or namespace that cannot name a folder. */
  #place(thread: unknown, ns: unknown, call: string): Place {
    const problem = nameProblem(thread, "thread_id");
    if (problem !== null) throw usage(`${call}: ${problem}`);
    if (ns !== undefined && typeof ns !== "string")
      throw usage(`${call}: checkpoint_ns must be a string, not ${describe(ns)}`);
    const namespace = ns ?? "";
    return {
      thread: thread as string,
      ns: namespace,
      folder: join(this.#threadFolder(thread as string), namespaceFolder(namespace)),
    };
  }

  /**
   * The thread ids under the folder: every real folder named like an id. Anything else (a
   * .deleting.* folder, a file or link put there) is not a thread, and listing every thread
   * passes it by; naming it as a thread is refused.
   */
  #threads(): string[] {
    return this.#listFolder(this.dir).filter((name) => {
      if (nameProblem(name, "") !== null) return false;
      try {
        return lstatSync(join(this.dir, name)).isDirectory();
      } catch {
        return false;
      }
    });
  }

  /** A folder's names, [] when it does not exist; a link or a file where a folder belongs is refused. */
  #listFolder(folder: string, thread?: string): string[] {
    if (!this.#folderExists(folder, thread)) return [];
    try {
      return readdirSync(folder);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return [];
      throw invalid(folder, `cannot be read (${code})`, thread);
    }
  }

  /**
   * True for a real folder, false when nothing is there; anything else (a link, a file) is
   * refused. The folder the caller names may be a link (to another disk, say); the thread and
   * namespace folders inside it may not.
   */
  #folderExists(folder: string, thread?: string): boolean {
    let stat;
    try {
      stat = folder === this.dir ? statSync(folder) : lstatSync(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
      throw invalid(folder, `cannot be read (${(error as NodeJS.ErrnoException).code})`, thread);
    }
    if (stat.isDirectory()) return true;
    throw invalid(
      folder,
      `is not a${folder === this.dir ? "" : " real"} folder (${stat.isSymbolicLink() ? "a link" : "a file"})`,
      thread,
    );
  }

  #readJson(file: string, thread: string): unknown {
    const read = readProjectText(file, { maxBytes: MAX_STATE_BYTES, links: "refuse" });
    if (read.kind === "missing") return undefined;
    if (read.kind === "refused") throw invalid(file, read.reason, thread);
    const decoded = decodeJson(read.text);
    if (!decoded.ok) throw invalid(file, decoded.message, thread);
    return decoded.value;
  }

  #readCheckpoint(place: Place, id: string, anyNamespace = false): CheckpointFile | undefined {
    const file = join(place.folder, checkpointFileName(id));
    const raw = this.#readJson(file, place.thread);
    if (raw === undefined) return undefined;
    // Listing every namespace, the folder's namespace is the one its file names (checked to lead to this folder).
    const ns =
      anyNamespace && typeof (raw as { checkpoint_ns?: unknown }).checkpoint_ns === "string"
        ? (raw as { checkpoint_ns: string }).checkpoint_ns
        : place.ns;
    if (anyNamespace && join(this.#threadFolder(place.thread), namespaceFolder(ns)) !== place.folder)
      throw invalid(
        file,
        `checkpoint_ns: ${JSON.stringify(ns)} belongs in ${namespaceFolder(ns)}/, not here`,
        place.thread,
      );
    const parsed = parseCheckpointFile(raw, { thread_id: place.thread, checkpoint_ns: ns, checkpoint_id: id });
    if (typeof parsed === "string") throw invalid(file, parsed, place.thread);
    return parsed;
  }

  #readWrites(place: Place, id: string): WritesFile | undefined {
    const file = join(place.folder, writesFileName(id));
    const raw = this.#readJson(file, place.thread);
    if (raw === undefined) return undefined;
    const parsed = parseWritesFile(raw, {
      thread_id: place.thread,
      checkpoint_ns: place.ns,
      checkpoint_id: id,
    } satisfies FilePlace);
    if (typeof parsed === "string") throw invalid(file, parsed, place.thread);
    return parsed;
  }

  /** thread.json says this folder is `thread`'s (a folder made for "A" is "a"'s too where case does not count); true when it exists. */
  #checkThreadFile(folder: string, thread: string): boolean {
    const file = join(folder, THREAD_FILE);
    const raw = this.#readJson(file, thread);
    if (raw === undefined) return false;
    const parsed = parseThreadFile(raw, thread);
    if (typeof parsed === "string") throw invalid(file, parsed, thread);
    return true;
  }

  /** The serializer's value back; a stored value it cannot load is the file's fault, named. */
  async #load(value: StoredValue, place: Place, fileName: string, path: string): Promise<unknown> {
    try {
      return await this.serde.loadsTyped(value.type, storedBytes(value));
    } catch (error) {
      throw invalid(
        join(place.folder, fileName),
        `${path}: the serializer cannot load it (${String((error as Error)?.message ?? error).split("\n")[0]})`,
        place.thread,
      );
    }
  }

  #write(place: Place, name: string, value: CheckpointFile | WritesFile): void {
    const text = `${JSON.stringify(value, null, 1)}\n`;
    const file = join(place.folder, name);
    if (text.length > MAX_STATE_BYTES)
      throw new DotagentError(
        "data_invalid",
        `${file} would be over ${formatBytes(MAX_STATE_BYTES)}; keep less in the graph's state`,
        EXIT.refused,
        { file },
      );
    try {
      writeFileInside(this.dir, file, text, WITHIN);
    } catch (error) {
      throw writeFailure(file, error);
    }
  }

  /**
   * Runs `body` under the thread's lock, in turn with this process's other calls on the thread,
   * with the thread's folders made: thread.json (checked to be this thread's), the namespace folder.
   */
  #locked(place: Place, command: string, body: () => void): Promise<void> {
    const folder = this.#threadFolder(place.thread);
    return inTurn(resolve(folder), async () => {
      const lock = (await this.#lock(folder, place.thread, command, true))!;
      try {
        if (!this.#swept.has(folder)) {
          sweepTemps(folder);
          for (const name of readdirSync(folder).filter(isNamespaceFolder))
            if (this.#folderExists(join(folder, name), place.thread)) sweepTemps(join(folder, name));
          this.#swept.add(folder);
        }
        if (!this.#checkThreadFile(folder, place.thread)) {
          const thread = { format: FORMAT, thread_id: place.thread, created_at: new Date().toISOString() };
          try {
            writeFileInside(this.dir, join(folder, THREAD_FILE), `${JSON.stringify(thread, null, 1)}\n`, WITHIN);
          } catch (error) {
            throw writeFailure(join(folder, THREAD_FILE), error);
          }
        }
        makeFolder(this.dir, place.folder, this.#folderExists(place.folder, place.thread));
        body();
      } finally {
        lock.release();
      }
    });
  }

  /**
   * The lock of a thread's folder, made first when `create`; undefined when the folder is gone
   * and not to be made. A deleteThread in another process may rename the folder away while this
   * one waits: the wait then starts again on the new folder.
   */
  async #lock(folder: string, thread: string, command: string, create: boolean): Promise<LockHandle | undefined> {
    for (let attempt = 0; ; attempt++) {
      const exists = this.#folderExists(folder, thread);
      if (!exists && !create) return undefined;
      if (!exists) {
        makeFolder(this.dir, this.dir, this.#folderExists(this.dir));
        makeFolder(this.dir, folder, false);
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
}

/** What the saver's folder is called in a refusal (write-file.ts). */
const WITHIN = { within: "the checkpointer's folder" };

/** Makes `folder` (and its parents, up to and with `dir`) unless it exists, and makes its entry in the parent durable. */
function makeFolder(dir: string, folder: string, exists: boolean): void {
  if (exists) return;
  try {
    mkdirInside(dir, folder, WITHIN);
  } catch (error) {
    throw writeFailure(folder, error);
  }
  fsyncDir(join(folder, ".."));
}

function fileExists(file: string): boolean {
  try {
    lstatSync(file);
    return true;
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

/** The checkpoint id a config names (LangGraph's getCheckpointId: checkpoint_id, or the old thread_ts), undefined for none. */
function checkpointIdOf(config: RunnableConfig, call: string): string | undefined {
  const id: unknown = config?.configurable?.checkpoint_id || config?.configurable?.thread_ts;
  if (id === undefined || id === null || id === "") return undefined;
  const problem = nameProblem(id, "checkpoint_id");
  if (problem !== null) throw usage(`${call}: ${problem}`);
  return id as string;
}

/** Metadata matches a filter when every field the filter names is deeply equal. */
function matches(metadata: CheckpointMetadata, filter: Record<string, unknown>): boolean {
  const fields = (metadata ?? {}) as Record<string, unknown>;
  return Object.entries(filter).every(([key, value]) =>
    isDeepStrictEqual(Object.hasOwn(fields, key) ? fields[key] : undefined, value),
  );
}

function usage(message: string): DotagentError {
  return new DotagentError("usage", message, EXIT.usage);
}

/** A file or folder the saver cannot read as its own; the way out: fix it, or start its thread over. */
function invalid(file: string, why: string, thread?: string): DotagentError {
  const way =
    thread === undefined
      ? "move it away (each thread of a DotagentSaver is a folder of its own)"
      : `fix or remove it, or deleteThread(${JSON.stringify(thread)}) to start that thread over`;
  return new DotagentError("checkpoint_invalid", `${file}: ${why}; ${way}`, EXIT.invalid, { file });
}

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (value === null || value === undefined || typeof value === "number" || typeof value === "boolean")
    return String(value);
  if (typeof value === "function") return "a function";
  return Array.isArray(value) ? "an array" : `a ${typeof value}`;
}
