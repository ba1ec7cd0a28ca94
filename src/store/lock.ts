// The state lock (CONTRACT §6): memory/state/.lock exists only while one command reads, decides
// and writes. Guarantees:
// - the lock file is never seen empty or half-written: it is written whole to a temp file,
//   fsynced, then hard-linked into place; link() fails with EEXIST while another holder exists.
// - a stale lock (holder pid dead on this host, unreadable, or past the lease from another host)
//   is taken over by exactly one taker, with no moment without a lock:
//   1. the taker fingerprints the stale lock's bytes (sha256) and races to create the guard
//      `.lock.takeover-<fingerprint>.<generation>` with the same exclusive link: one winner;
//   2. the winner re-reads the lock: only if it still has the stale bytes does it rename its own
//      lock file OVER it (one atomic step; a newcomer never finds the place empty);
//   3. a guard whose taker died is never deleted by another taker (that would be check-then-
//      delete): the next taker moves on to the next generation instead. Guards of locks that are
//      gone are swept by whoever holds the lock next.
// - a live lock makes acquire wait up to `waitMs`, then throw exit 4 naming pid, host, command, age.
import { hostname } from "node:os";
import { closeSync, fsyncSync, linkSync, openSync, readdirSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { readProjectFile } from "./read-file.js";
import { join } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import { fsyncDir } from "./fsync-dir.js";
import { mark } from "./trace.js";
import { writeFailure } from "./io-error.js";
import { isPidAlive } from "./process-facts.js";

export interface LockInfo {
  pid: number;
  hostname: string;
  acquired_at: string;
  command: string;
  token: string;
}

export interface LockOptions {
  command: string;
  /** How long to wait for a live holder before giving up. */
  waitMs?: number;
  /** A lock from another host older than this is stale. */
  leaseMs?: number;
  now?: () => Date;
  onWarning?: (message: string) => void;
}

export interface LockHandle {
  readonly info: LockInfo;
  /** Warnings raised while taking the lock (a stale lock taken over). */
  readonly warnings: string[];
  release(): void;
}

export const LOCK_FILE = ".lock";
const GUARD_PREFIX = `${LOCK_FILE}.takeover-`;
export const DEFAULT_LEASE_MS = 10 * 60 * 1000;
const POLL_MS = 20;
const MAX_GENERATIONS = 64;
const FUTURE_SKEW_MS = 5 * 60 * 1000;

function defaultWaitMs(): number {
  const value = Number(process.env.DOTAGENT_LOCK_WAIT_MS);
  return Number.isFinite(value) && value >= 0 ? value : 2000;
}

export function lockPath(stateDir: string): string {
  return join(stateDir, LOCK_FILE);
}

/** The lock file as found: its parsed holder (or "unreadable") and a fingerprint of its bytes. */
interface LockSeen {
  readonly holder: LockInfo | "unreadable";
  readonly fingerprint: string;
}

function seeLock(stateDir: string): LockSeen | null {
  // Never blocks and never follows a link: a FIFO, a folder or a (dangling) link at .lock is an
  // unreadable lock, hence stale, and the takeover renames a real lock over it.
  const read = readProjectFile(lockPath(stateDir), { maxBytes: MAX_LOCK_BYTES, links: "refuse" });
  if (read.kind === "missing") return null;
  if (read.kind === "refused")
    return { holder: "unreadable", fingerprint: `refused-${fingerprintOf(Buffer.from(read.reason))}` };
  return { holder: parseLock(read.bytes.toString("utf8")), fingerprint: fingerprintOf(read.bytes) };
}

const MAX_LOCK_BYTES = 64 * 1024;

function fingerprintOf(bytes: Buffer): string {
  return crypto().createHash("sha256").update(bytes).digest("hex").slice(0, 24);
}

function parseLock(text: string): LockInfo | "unreadable" {
  try {
    const value = JSON.parse(text) as Partial<LockInfo>;
    if (typeof value.pid !== "number" || typeof value.hostname !== "string" || typeof value.acquired_at !== "string")
      return "unreadable";
    return { command: "", token: "", ...value } as LockInfo;
  } catch {
    return "unreadable";
  }
}

export function readLock(stateDir: string): LockInfo | "unreadable" | null {
  return seeLock(stateDir)?.holder ?? null;
}

type Staleness = { stale: false } | { stale: true; why: string };

export function judgeLock(lock: LockInfo | "unreadable", now: Date, leaseMs: number): Staleness {
  if (lock === "unreadable") return { stale: true, why: "the lock file is unreadable" };
  if (lock.hostname === hostname()) {
    return isPidAlive(lock.pid) ? { stale: false } : { stale: true, why: `its process ${lock.pid} is gone` };
  }
  const age = now.getTime() - Date.parse(lock.acquired_at);
  // A time further ahead than clocks may differ (validation's 5 minutes) would never age into
  // the lease: such a lock is judged stale at once rather than blocking every command forever.
  if (age < -FUTURE_SKEW_MS)
    return { stale: true, why: `its acquired_at ${lock.acquired_at} from host ${lock.hostname} is in the future` };
  if (!(age <= leaseMs))
    return {
      stale: true,
      why: `it is older than the ${Math.round(leaseMs / 60000)}-minute lease from host ${lock.hostname}`,
    };
  return { stale: false };
}

// node:crypto costs a few milliseconds to load; status and the hook never take the lock.
const crypto = () => process.getBuiltinModule("node:crypto");

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Writes `content` whole to a fresh temp file beside the lock; returns its path. */
function writeTemp(stateDir: string, content: string): string {
  const tmp = join(stateDir, `${LOCK_FILE}.${process.pid}.${crypto().randomBytes(4).toString("hex")}.tmp`);
  const fd = openSync(tmp, "wx");
  try {
    writeFileSync(fd, content);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    tryUnlink(tmp); // a full disk must not leave a half-written temp lock behind
    throw error;
  }
  closeSync(fd);
  return tmp;
}

function tryUnlink(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // nothing to remove
  }
}

/** Creates `target` holding `content`, or returns false when it exists. Never leaves it empty. */
function linkExclusive(stateDir: string, target: string, content: string): boolean {
  const tmp = writeTemp(stateDir, content);
  try {
    linkSync(tmp, target);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    tryUnlink(tmp);
  }
}

function guardHolderDead(file: string, now: Date, leaseMs: number): boolean {
  const read = readProjectFile(file, { maxBytes: MAX_LOCK_BYTES, links: "refuse" });
  if (read.kind === "missing") return false; // vanished: its taker finished; the caller retries from the start
  if (read.kind === "refused") return true; // no taker writes anything but a small regular file
  const holder = parseLock(read.bytes.toString("utf8"));
  return holder !== "unreadable" && judgeLock(holder, now, leaseMs).stale;
}

/** Takes over the stale lock `seen`; true when this process now holds the lock. */
function takeOver(stateDir: string, seen: LockSeen, mine: string, now: Date, leaseMs: number): boolean {
  const guardContent = JSON.stringify({
    pid: process.pid,
    hostname: hostname(),
    acquired_at: now.toISOString(),
    command: "takeover",
    token: "",
  });
  for (let generation = 0; generation < MAX_GENERATIONS; generation++) {
    const guard = join(stateDir, `${GUARD_PREFIX}${seen.fingerprint}.${generation}`);
    if (!linkExclusive(stateDir, guard, guardContent)) {
      // A live taker is at work on this stale lock: let it finish. A dead one: next generation.
      if (guardHolderDead(guard, now, leaseMs)) continue;
      return false;
    }
    try {
      const current = seeLock(stateDir);
      if (current === null || current.fingerprint !== seen.fingerprint) return false;
      const tmp = writeTemp(stateDir, mine);
      try {
        renameSync(tmp, lockPath(stateDir));
      } catch (error) {
        tryUnlink(tmp);
        throw error;
      }
      fsyncDir(stateDir);
      return true;
    } finally {
      tryUnlink(guard);
    }
  }
  return false;
}

/** Guards left by takers of locks that no longer exist; only the lock holder removes them. */
function sweepGuards(stateDir: string): void {
  let names: string[];
  try {
    names = readdirSync(stateDir);
  } catch {
    return;
  }
  for (const name of names) if (name.startsWith(GUARD_PREFIX)) tryUnlink(join(stateDir, name));
}

export function describeAge(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} h`;
}

export function acquireLock(stateDir: string, options: LockOptions): LockHandle {
  try {
    const steps = acquire(stateDir, options);
    for (let step = steps.next(); ; step = steps.next()) {
      if (step.done) return step.value;
      sleepSync(step.value);
    }
  } catch (error) {
    if (error instanceof DotagentError) throw error;
    throw writeFailure("memory/state/.lock", error);
  }
}

/**
 * The same lock, waited for without blocking the event loop (the library: timers, other requests
 * and the caller's own work go on while it waits). The first try happens at once.
 */
export async function acquireLockAsync(stateDir: string, options: LockOptions): Promise<LockHandle> {
  try {
    const steps = acquire(stateDir, options);
    for (let step = steps.next(); ; step = steps.next()) {
      if (step.done) return step.value;
      await new Promise((resolve) => setTimeout(resolve, step.value));
    }
  } catch (error) {
    if (error instanceof DotagentError) throw error;
    throw writeFailure("memory/state/.lock", error);
  }
}

/** The lock's attempts; yields how long to wait before the next one, returns the held lock. */
function* acquire(stateDir: string, options: LockOptions): Generator<number, LockHandle, void> {
  const now = options.now ?? (() => new Date());
  // Not a finite number ≥ 0 (NaN would never reach its deadline): the default wait.
  const waitMs =
    options.waitMs !== undefined && Number.isFinite(options.waitMs) && options.waitMs >= 0
      ? options.waitMs
      : defaultWaitMs();
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const info: LockInfo = {
    pid: process.pid,
    hostname: hostname(),
    acquired_at: now().toISOString(),
    command: options.command,
    token: crypto().randomBytes(8).toString("hex"),
  };
  const content = `${JSON.stringify(info)}\n`;
  const warnings: string[] = [];
  const deadline = Date.now() + waitMs;
  for (;;) {
    if (linkExclusive(stateDir, lockPath(stateDir), content)) break;
    const seen = seeLock(stateDir);
    if (seen === null) {
      // Released between our link and our read: try again at once, but within the deadline.
      if (Date.now() >= deadline)
        throw new DotagentError(
          "locked",
          "memory/state/.lock keeps changing (other commands take it in turn); run the command again",
          EXIT.locked,
        );
      continue;
    }
    const verdict = judgeLock(seen.holder, now(), leaseMs);
    if (verdict.stale) {
      if (takeOver(stateDir, seen, content, now(), leaseMs)) {
        const holder = seen.holder;
        const who =
          holder === "unreadable"
            ? "an unreadable lock"
            : `the lock of pid ${holder.pid} on ${holder.hostname} (${holder.command || "unknown command"})`;
        const message = `took over ${who}: ${verdict.why}`;
        warnings.push(message);
        options.onWarning?.(message);
        break;
      }
      // Another taker is replacing it: wait for that to finish, within the same deadline.
      if (Date.now() >= deadline) {
        throw new DotagentError(
          "locked",
          "memory/state/.lock is stale and another process is taking it over; run the command again",
          EXIT.locked,
        );
      }
      yield 2;
      continue;
    }
    if (Date.now() >= deadline) {
      const lock = seen.holder as LockInfo;
      const age = describeAge(now().getTime() - Date.parse(lock.acquired_at));
      throw new DotagentError(
        "locked",
        `memory/state/.lock is held by pid ${lock.pid} on ${lock.hostname} (${lock.command || "unknown command"}, for ${age}); wait for it to finish; if that process is gone, for the person: remove the lock file (rm memory/state/.lock)`,
        EXIT.locked,
        { holder: lock },
      );
    }
    yield Math.max(1, Math.min(POLL_MS, deadline - Date.now()));
  }
  sweepGuards(stateDir);
  mark("locked");
  let released = false;
  return {
    info,
    warnings,
    release() {
      if (released) return;
      released = true;
      // Only remove the lock if it is still ours; nobody takes over a live holder's lock.
      const current = readLock(stateDir);
      if (current !== null && current !== "unreadable" && current.token === info.token) tryUnlink(lockPath(stateDir));
      mark("unlocked");
    },
  };
}
