// A checkpoint store for any program that calls a model in a loop: save after every step, load on
// start-up, mark the run complete so it is never resumed, refuse a resume with other inputs.
//
// On disk, `<dir>/<name>/`:
//   store.json              { format, name, inputs_hash, created_at, seq, status, completed_at?, result? }
//   <id>.checkpoint.json    { id, seq, saved_at, data }
//   .lock                   held only while one call writes (the state lock's mechanism)
// Guarantees:
// - every write is atomic and durable (temp file, fsync, rename, folder fsync: write-file.ts): a
//   kill -9 at any moment leaves each checkpoint either its previous content or its new one, never
//   torn; no write goes through a link (one at a file is replaced, never followed);
// - writes from any number of processes are serialised by the lock (a dead holder's lock is taken
//   over, as for memory/state/.lock), waited for without blocking the event loop; inside one
//   process the calls on one folder take turns (a queue), and each runs its read, decide and
//   write without yielding, so concurrent calls never lose each other's updates;
// - a call on the same store made from inside update()'s change (which runs under the lock) is
//   refused at once, and so is that update: waiting would deadlock until the lock wait ran out;
// - seq grows with every save: store.json reserves the next seq before the checkpoint is written,
//   so a kill in between leaves a gap, never two checkpoints with one seq;
// - checkpoint files exist only while store.json does (the first save writes store.json first;
//   clear() removes it last), so the inputs hash always guards the data;
// - anything unreadable or hand-edited is a DotagentError naming the file (exit 3), never a crash;
//   data that would not load back as saved (NaN, a Map, undefined in an array, …) is refused
//   with `data_invalid` naming its JSON path; bad arguments are `usage` (exit 2).
import { lstatSync, readdirSync, rmdirSync, unlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import { decodeJson, idProblem } from "../schema/json.js";
import { mkdirInside, writeFileInside } from "../store/write-file.js";
import { writeFailure } from "../store/io-error.js";
import { acquireLockAsync, type LockHandle } from "../store/lock.js";
import { isPidAlive } from "../store/process-facts.js";
import { MAX_STATE_BYTES, formatBytes, readProjectText } from "../store/read-file.js";
import { hashInputs } from "./canonical-json.js";
import { findJsonDataProblem } from "./json-data.js";

export type StoreStatus = "new" | "running" | "complete";

export interface CheckpointInfo {
  readonly id: string;
  readonly seq: number;
  readonly saved_at: string;
}

export interface SavedCheckpoint<T> extends CheckpointInfo {
  readonly data: T;
}

export interface Completion {
  readonly completed_at: string;
  readonly result: unknown;
}

export interface CheckpointStoreOptions {
  /** What this run was started for; a store saved for other inputs refuses every call (`inputs_changed`). */
  inputs?: unknown;
  /** How long a call waits for another process's save (default 10 s, or DOTAGENT_LOCK_WAIT_MS). */
  lockWaitMs?: number;
}

export interface CheckpointStore<T> {
  /** `<dir>/<name>`, as messages name it. */
  readonly path: string;
  /** Saves `data` (JSON) under `id`, replacing that id's previous checkpoint; returns the new seq. */
  save(id: string, data: T): Promise<number>;
  /**
   * Reads `id`'s checkpoint, lets `change` compute the next data, saves it: one step under the
   * lock, so concurrent updates (other processes, other async calls) never lose each other's.
   * `change` must be synchronous; it receives undefined when there is no checkpoint yet.
   */
  update(id: string, change: (current: T | undefined) => T): Promise<T>;
  /** The data saved under `id`, or undefined when there is none. */
  load(id: string): Promise<T | undefined>;
  /** The checkpoint saved last (highest seq), or undefined when there is none. */
  loadLatest(): Promise<SavedCheckpoint<T> | undefined>;
  /** Every checkpoint, oldest first, without data. */
  list(): Promise<CheckpointInfo[]>;
  /** Marks the run complete; afterwards save() throws `run_complete`. A second call changes nothing. */
  complete(result?: unknown): Promise<void>;
  /** When and with what the run completed, or undefined while it has not. */
  completion(): Promise<Completion | undefined>;
  status(): Promise<StoreStatus>;
  /** Removes the store's files (and its folder when nothing else is in it); a new run may start. */
  clear(): Promise<void>;
}

interface StoreMeta {
  format: 1;
  name: string;
  inputs_hash: string;
  created_at: string;
  seq: number;
  status: "running" | "complete";
  completed_at?: string;
  result?: unknown;
}

const META = "store.json";
const SUFFIX = ".checkpoint.json";
const DEFAULT_WAIT_MS = 10_000;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

/** Calls on one store folder in this process take turns; the tail of each folder's queue. */
const queues = new Map<string, Promise<unknown>>();
/** Store folders whose update() change is running right now (synchronously, under the lock). */
const changing = new Map<string, { id: string; reentered?: DotagentError }>();

/** Runs `body` after every earlier call on `folder` in this process has settled. */
export function inTurn<R>(folder: string, body: () => Promise<R>): Promise<R> {
  const before = queues.get(folder) ?? Promise.resolve();
  const mine = before.then(body, body);
  const tail = mine.then(
    () => undefined,
    () => undefined,
  );
  queues.set(folder, tail);
  void tail.then(() => {
    if (queues.get(folder) === tail) queues.delete(folder);
  });
  return mine;
}

export function checkpointStore<T = unknown>(
  dir: string,
  name: string,
  options: CheckpointStoreOptions = {},
): CheckpointStore<T> {
  if (typeof dir !== "string" || dir === "")
    throw new DotagentError(
      "usage",
      `checkpointStore(dir, name) takes the folder as a non-empty string, not ${describeValue(dir)}`,
      EXIT.usage,
    );
  checkId(name, "store name");
  if (options === null || typeof options !== "object")
    throw new DotagentError(
      "usage",
      `checkpointStore's options must be an object ({ inputs?, lockWaitMs? }), not ${describeValue(options)}`,
      EXIT.usage,
    );
  const lockWaitMs: unknown = options.lockWaitMs;
  if (lockWaitMs !== undefined && (typeof lockWaitMs !== "number" || !Number.isFinite(lockWaitMs) || lockWaitMs < 0)) {
    throw new DotagentError(
      "usage",
      `lockWaitMs takes a number of milliseconds ≥ 0, not ${describeValue(lockWaitMs)}`,
      EXIT.usage,
    );
  }
  const folder = join(dir, name);
  /** The folder's identity in this process (two handles on one store share its queue). */
  const key = resolve(folder);
  const hash = hashOf(options.inputs);
  const envWait = Number(process.env.DOTAGENT_LOCK_WAIT_MS);
  const waitMs =
    lockWaitMs ??
    (process.env.DOTAGENT_LOCK_WAIT_MS !== undefined && Number.isFinite(envWait) && envWait >= 0
      ? envWait
      : DEFAULT_WAIT_MS);
  let swept = false;

  const rel = (file: string) => join(folder, file);
  /** Every write stays inside the folder the caller named. */
  const within = { within: "the checkpoint store's folder" };

  /** store.json, or undefined for a new store; refuses other inputs. */
  function readMeta(): StoreMeta | undefined {
    if (!folderExists(folder)) return undefined;
    const raw = readJson(rel(META));
    if (raw === undefined) return undefined;
    const meta = parseMeta(raw);
    if (typeof meta === "string") throw invalid(rel(META), meta);
    if (meta.inputs_hash !== hash) {
      throw new DotagentError(
        "inputs_changed",
        `${folder} was saved for other inputs; clear() it or use another name`,
        EXIT.refused,
        { path: folder },
      );
    }
    return meta;
  }

  function readCheckpoint(id: string): SavedCheckpoint<T> | undefined {
    const file = rel(`${id}${SUFFIX}`);
    const raw = readJson(file);
    if (raw === undefined) return undefined;
    const checkpoint = parseCheckpoint(raw, id);
    if (typeof checkpoint === "string") throw invalid(file, checkpoint);
    return checkpoint as SavedCheckpoint<T>;
  }

  function checkpointIds(): string[] {
    if (!folderExists(folder)) return [];
    return readdirSync(folder)
      .filter((file) => file.endsWith(SUFFIX))
      .map((file) => file.slice(0, -SUFFIX.length))
      .filter((id) => idProblem(id, "id") === null);
  }

  function readAll(): SavedCheckpoint<T>[] {
    return checkpointIds()
      .map((id) => readCheckpoint(id))
      .filter((c): c is SavedCheckpoint<T> => c !== undefined)
      .sort((a, b) => a.seq - b.seq);
  }

  function write(file: string, value: unknown): void {
    try {
      writeFileInside(dir, rel(file), `${JSON.stringify(value, null, 2)}\n`, within);
    } catch (error) {
      throw writeFailure(rel(file), error);
    }
  }

  /**
   * Runs `body` under the store's lock, creating the folder first: in turn with this process's
   * other calls on the folder, the lock waited for without blocking, then `body` without a pause.
   */
  function locked<R>(command: string, body: () => R): Promise<R> {
    return inTurn(key, async () => {
      const lock = await lockStore(command);
      try {
        if (!swept) {
          sweepTemps(folder);
          swept = true;
        }
        return body();
      } finally {
        lock.release();
      }
    });
  }

  async function lockStore(command: string): Promise<LockHandle> {
    if (folderExists(folder) === false) {
      try {
        mkdirInside(dir, folder, within);
      } catch (error) {
        throw writeFailure(folder, error);
      }
    }
    try {
      return await acquireLockAsync(folder, { command: `checkpoint ${command}`, waitMs });
    } catch (error) {
      if (!(error instanceof DotagentError)) throw error;
      if (error.code === "write_failed") throw writeFailure(rel(".lock"), { code: error.details.errno });
      if (error.code !== "locked") throw error;
      const holder = error.details.holder as { pid: number; hostname: string } | undefined;
      throw new DotagentError(
        "locked",
        `${rel(".lock")} is held by ${holder ? `pid ${holder.pid} on ${holder.hostname}` : "another process"}; wait for it to finish, or if that process is gone remove the lock file`,
        EXIT.locked,
        { path: rel(".lock"), ...(holder ? { holder } : {}) },
      );
    }
  }

  /** store.json of a run that may still save; a complete run refuses. */
  function readOpenMeta(): StoreMeta | undefined {
    const meta = readMeta();
    if (meta?.status === "complete") {
      throw new DotagentError(
        "run_complete",
        `${folder} is complete; clear() it to start a new run, or use another name`,
        EXIT.refused,
        { path: folder },
      );
    }
    return meta;
  }

  function saveLocked(id: string, text: string, meta: StoreMeta | undefined, now: Date): number {
    const seq = (meta?.seq ?? 0) + 1;
    const at = now.toISOString();
    write(META, { ...(meta ?? { format: 1, name, inputs_hash: hash, created_at: at, status: "running" }), seq });
    writeRaw(
      `${id}${SUFFIX}`,
      `{"id":${JSON.stringify(id)},"seq":${seq},"saved_at":${JSON.stringify(at)},"data":${text}}\n`,
    );
    return seq;
  }

  function writeRaw(file: string, text: string): void {
    try {
      writeFileInside(dir, rel(file), text, within);
    } catch (error) {
      throw writeFailure(rel(file), error);
    }
  }

  const run = <R>(body: () => R | Promise<R>): Promise<R> => {
    try {
      return Promise.resolve(body());
    } catch (error) {
      return Promise.reject(error);
    }
  };

  /**
   * A writing call made from inside update()'s change on this store: it would wait for the lock
   * its own update holds. Refused at once; the update is refused too (it saves nothing). The
   * returned promise is marked handled, so a change that ignores it cannot crash the process.
   */
  const reentered = (call: string): Promise<never> | undefined => {
    const inside = changing.get(key);
    if (inside === undefined) return undefined;
    const error = new DotagentError(
      "usage",
      `${call} was called inside update(${JSON.stringify(inside.id)}, change) on the same store (${folder}): change must only compute and return the new data; call ${call.replace(/\(.*$/, "")}() after update() has resolved`,
      EXIT.usage,
    );
    inside.reentered ??= error;
    const refused = Promise.reject(error);
    refused.catch(() => {});
    return refused;
  };

  return {
    path: folder,
    save: (id, data) =>
      reentered(`save(${JSON.stringify(id)})`) ??
      run(() => {
        checkId(id, "checkpoint id");
        const text = serialise(data, id);
        return locked(`save ${id}`, () => saveLocked(id, text, readOpenMeta(), new Date()));
      }),
    update: (id, change) =>
      reentered(`update(${JSON.stringify(id)})`) ??
      run(() => {
        checkId(id, "checkpoint id");
        if (typeof change !== "function")
          throw new DotagentError(
            "usage",
            `update(${JSON.stringify(id)}, change): change must be a function (current) => next data, not ${describeValue(change)}`,
            EXIT.usage,
          );
        return locked(`update ${id}`, () => {
          const meta = readOpenMeta();
          const current = readCheckpoint(id)?.data;
          const inside: { id: string; reentered?: DotagentError } = { id };
          changing.set(key, inside);
          let next: T;
          try {
            next = change(current);
          } finally {
            changing.delete(key);
          }
          if (inside.reentered) throw inside.reentered;
          if (typeof (next as { then?: unknown } | null)?.then === "function") {
            // Awaiting here would let another call in between the read and the write.
            throw new DotagentError(
              "usage",
              `update(${JSON.stringify(id)}, change): change must be synchronous and return the data, not a promise`,
              EXIT.usage,
            );
          }
          saveLocked(id, serialise(next, id), meta, new Date());
          return next;
        });
      }),
    load: (id) =>
      run(() => {
        checkId(id, "checkpoint id");
        readMeta();
        return readCheckpoint(id)?.data;
      }),
    loadLatest: () =>
      run(() => {
        readMeta();
        return readAll().at(-1);
      }),
    list: () =>
      run(() => {
        readMeta();
        return readAll().map(({ id, seq, saved_at }) => ({ id, seq, saved_at }));
      }),
    complete: (result) =>
      reentered("complete()") ??
      run(() => {
        const text = result === undefined ? undefined : serialise(result, "the result");
        return locked("complete", () => {
          const meta = readMeta();
          if (meta?.status === "complete") return;
          const at = new Date().toISOString();
          const base = meta ?? { format: 1 as const, name, inputs_hash: hash, created_at: at, seq: 0 };
          write(META, {
            ...base,
            status: "complete",
            completed_at: at,
            ...(text === undefined ? {} : { result: JSON.parse(text) as unknown }),
          });
        });
      }),
    completion: () =>
      run(() => {
        const meta = readMeta();
        return meta?.status === "complete" ? { completed_at: meta.completed_at!, result: meta.result } : undefined;
      }),
    status: () => run(() => readMeta()?.status ?? "new"),
    clear: () =>
      reentered("clear()") ??
      run(async () => {
        if (!folderExists(folder)) return;
        await locked("clear", () => {
          // Checkpoints first, store.json last: a clear cut off by a kill leaves a store that still
          // knows its inputs, and calling clear() again finishes it.
          for (const id of checkpointIds()) removeFile(rel(`${id}${SUFFIX}`));
          sweepTemps(folder);
          removeFile(rel(META));
        });
        swept = false;
        try {
          rmdirSync(folder);
        } catch {
          // Files this store did not make stay, and so does the folder holding them.
        }
      }),
  };
}

function hashOf(inputs: unknown): string {
  const problem = inputs === undefined ? null : jsonProblem(inputs, "inputs");
  if (problem !== null)
    throw new DotagentError(
      "data_invalid",
      `the inputs of a checkpoint store must be JSON: ${problem.message}`,
      EXIT.refused,
      { path: problem.path },
    );
  try {
    return hashInputs(inputs);
  } catch (error) {
    throw new DotagentError(
      "data_invalid",
      `the inputs of a checkpoint store must be JSON (${(error as Error).message.split("\n")[0]})`,
      EXIT.refused,
    );
  }
}

/** A value in a message: short, whatever it is. */
function describeValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === "number" || typeof value === "boolean" || value === null || value === undefined)
    return String(value);
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "function") return "a function";
  return Array.isArray(value) ? "an array" : `a ${typeof value}`;
}

/** The first value JSON would change or drop, as a message naming its path; null when it is plain JSON. */
function jsonProblem(value: unknown, root: string): { path: string; message: string } | null {
  let found;
  try {
    found = findJsonDataProblem(value, root);
  } catch (error) {
    if (error instanceof RangeError) return { path: root, message: `${root} is nested too deeply to save as JSON` };
    throw error;
  }
  return found === null ? null : { path: found.path, message: `${found.path} ${found.problem}` };
}

function checkId(id: string, what: string): void {
  if (typeof id !== "string")
    throw new DotagentError("usage", `a ${what} must be a string, not ${describeValue(id)}`, EXIT.usage);
  const problem = idProblem(id, what);
  if (problem !== null) throw new DotagentError("usage", problem, EXIT.usage);
}

/** True for a real folder, false when nothing is there; anything else (a link, a file) is refused. */
function folderExists(folder: string): boolean {
  let stat;
  try {
    stat = lstatSync(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw invalid(folder, `cannot be read (${(error as NodeJS.ErrnoException).code})`);
  }
  if (!stat.isDirectory())
    throw invalid(
      folder,
      `is not a real folder (${stat.isSymbolicLink() ? "a link" : "a file"}); a checkpoint store is a folder of its own: move it away`,
    );
  return true;
}

function invalid(file: string, why: string): DotagentError {
  return new DotagentError(
    "checkpoint_invalid",
    `${file}: ${why}; fix or remove it, or clear() the store to start over`,
    EXIT.invalid,
    { file },
  );
}

function readJson(file: string): unknown {
  const read = readProjectText(file, { maxBytes: MAX_STATE_BYTES, links: "refuse" });
  if (read.kind === "missing") return undefined;
  if (read.kind === "refused") throw invalid(file, read.reason);
  const decoded = decodeJson(read.text);
  if (!decoded.ok) throw invalid(file, decoded.message);
  return decoded.value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const isSeq = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const isTime = (value: unknown): value is string =>
  typeof value === "string" && ISO.test(value) && !Number.isNaN(Date.parse(value));

function parseMeta(raw: unknown): StoreMeta | string {
  if (!isRecord(raw)) return "expected a JSON object";
  if (raw.format !== 1) return "format: expected 1";
  if (typeof raw.inputs_hash !== "string" || !/^[0-9a-f]{64}$/.test(raw.inputs_hash))
    return "inputs_hash: expected a sha256 in hex";
  if (!isSeq(raw.seq)) return "seq: expected a whole number ≥ 0";
  if (!isTime(raw.created_at)) return "created_at: expected an ISO 8601 date-time";
  if (raw.status !== "running" && raw.status !== "complete") return 'status: expected "running" or "complete"';
  if (raw.status === "complete" && !isTime(raw.completed_at)) return "completed_at: expected an ISO 8601 date-time";
  return raw as unknown as StoreMeta;
}

function parseCheckpoint(raw: unknown, id: string): SavedCheckpoint<unknown> | string {
  if (!isRecord(raw)) return "expected a JSON object";
  if (raw.id !== id) return `id: expected ${JSON.stringify(id)} (the file's name)`;
  if (!isSeq(raw.seq) || raw.seq === 0) return "seq: expected a whole number ≥ 1";
  if (!isTime(raw.saved_at)) return "saved_at: expected an ISO 8601 date-time";
  if (!("data" in raw)) return "data: required, missing";
  return { id, seq: raw.seq, saved_at: raw.saved_at, data: raw.data };
}

/** JSON text of `data`, or a one-line refusal: a checkpoint must load back as it was saved. */
function serialise(data: unknown, what: string): string {
  const problem = jsonProblem(data, "data");
  if (problem !== null)
    throw new DotagentError(
      "data_invalid",
      `the data for ${what} cannot be saved as JSON: ${problem.message}; save plain JSON data (objects, arrays, strings, finite numbers, booleans, null)`,
      EXIT.refused,
      { path: problem.path },
    );
  let text: string | undefined;
  try {
    text = JSON.stringify(data);
  } catch (error) {
    throw new DotagentError(
      "data_invalid",
      `the data for ${what} cannot be saved as JSON (${(error as Error).message.split("\n")[0]})`,
      EXIT.refused,
    );
  }
  if (text === undefined)
    throw new DotagentError(
      "data_invalid",
      `the data for ${what} is ${typeof data}; save JSON data (objects, arrays, strings, numbers, booleans, null)`,
      EXIT.refused,
    );
  if (text.length > MAX_STATE_BYTES)
    throw new DotagentError(
      "data_invalid",
      `the data for ${what} is over ${formatBytes(MAX_STATE_BYTES)} as JSON; save less`,
      EXIT.refused,
    );
  return text;
}

/** Removes `file` unless it is a folder (which this store never makes). */
function removeFile(file: string): void {
  try {
    if (lstatSync(file).isDirectory()) return;
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw writeFailure(file, error);
  }
}

/** Temp files of killed writers (write-file.ts's `<file>.<digits>`, a dead waiter's lock temp); only the lock holder calls this. */
export function sweepTemps(folder: string): void {
  for (const name of readdirSync(folder)) {
    const lockTemp = /^\.lock\.(\d+)\.[0-9a-f]+\.tmp$/.exec(name);
    if (/\.json\.\d+$/.test(name) || (lockTemp && !isPidAlive(Number(lockTemp[1])))) {
      try {
        unlinkSync(join(folder, name));
      } catch {
        // gone already
      }
    }
  }
}
