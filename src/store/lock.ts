// The state lock (CONTRACT §6): memory/state/.lock exists only while one command reads, decides
// and writes. Guarantees:
// - the lock file is never seen empty or half-written: it is written to a temp file, fsynced,
//   then hard-linked into place; link() fails with EEXIST when another holder exists;
// - a stale lock (holder pid dead on this host, unreadable, or past the lease from another host)
//   is taken over by exactly one taker: takers race to create `.lock.takeover-<token of the stale
//   lock>` with the same exclusive link; only the winner renames the stale lock away, and only
//   after re-reading that it still is the stale one. No check-then-delete.
// - a live lock makes acquire wait up to `waitMs`, then throw exit 4 naming pid, host, command, age.
import { hostname } from "node:os";
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync, openSync, fsyncSync, closeSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { DotagentError, EXIT } from "../core/errors.js";

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
const DEFAULT_WAIT_MS = Number(process.env.DOTAGENT_LOCK_WAIT_MS ?? 2000);
const DEFAULT_LEASE_MS = 10 * 60 * 1000;
const POLL_MS = 20;

export function lockPath(stateDir: string): string {
  return join(stateDir, LOCK_FILE);
}

export function readLock(stateDir: string): LockInfo | "unreadable" | null {
  let text: string;
  try {
    text = readFileSync(lockPath(stateDir), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    return "unreadable";
  }
  try {
    const value = JSON.parse(text) as Partial<LockInfo>;
    if (typeof value.pid !== "number" || typeof value.hostname !== "string" || typeof value.acquired_at !== "string") return "unreadable";
    return { command: "", token: "", ...value } as LockInfo;
  } catch {
    return "unreadable";
  }
}

export function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

type Staleness = { stale: false } | { stale: true; why: string };

export function judgeLock(lock: LockInfo | "unreadable", now: Date, leaseMs: number): Staleness {
  if (lock === "unreadable") return { stale: true, why: "the lock file is unreadable" };
  if (lock.hostname === hostname()) {
    return isPidAlive(lock.pid) ? { stale: false } : { stale: true, why: `its process ${lock.pid} is gone` };
  }
  const age = now.getTime() - Date.parse(lock.acquired_at);
  if (!(age <= leaseMs)) return { stale: true, why: `it is older than the ${Math.round(leaseMs / 60000)}-minute lease from host ${lock.hostname}` };
  return { stale: false };
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Writes `content` to a fresh temp file and links it to `target`; false when target exists. */
function linkExclusive(stateDir: string, target: string, content: string): boolean {
  const tmp = join(stateDir, `${LOCK_FILE}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  const fd = openSync(tmp, "wx");
  try {
    writeFileSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, target);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
  }
}

function tryUnlink(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // nothing to remove
  }
}

/** Takes over a stale lock; true when this process now holds the lock. */
function takeOver(stateDir: string, stale: LockInfo | "unreadable", mine: string): boolean {
  const staleToken = stale === "unreadable" ? "unreadable" : stale.token || `${stale.pid}-${stale.acquired_at}`;
  const guard = join(stateDir, `${LOCK_FILE}.takeover-${staleToken.replace(/[^A-Za-z0-9_-]/g, "_")}`);
  if (!linkExclusive(stateDir, guard, JSON.stringify({ pid: process.pid, hostname: hostname() }))) {
    // Another taker is at work, or one died while taking over: a dead taker's guard is cleared so
    // the lock cannot stay stuck forever.
    const holder = readGuard(guard);
    if (holder === null || (holder.hostname === hostname() && !isPidAlive(holder.pid))) {
      try {
        renameSync(guard, `${guard}.${randomBytes(4).toString("hex")}.tmp`);
      } catch {
        // someone else cleared it
      }
    }
    return false;
  }
  try {
    const current = readLock(stateDir);
    const same = current !== null && (current === "unreadable" ? stale === "unreadable" : stale !== "unreadable" && current.token === stale.token && current.pid === stale.pid && current.acquired_at === stale.acquired_at);
    if (!same) return false;
    const trash = join(stateDir, `${LOCK_FILE}.${randomBytes(4).toString("hex")}.tmp`);
    renameSync(lockPath(stateDir), trash);
    tryUnlink(trash);
    return linkExclusive(stateDir, lockPath(stateDir), mine);
  } finally {
    tryUnlink(guard);
  }
}

function readGuard(file: string): { pid: number; hostname: string } | null {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as { pid: number; hostname: string };
  } catch {
    return null;
  }
}

export function describeAge(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} h`;
}

export function acquireLock(stateDir: string, options: LockOptions): LockHandle {
  const now = options.now ?? (() => new Date());
  const waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const info: LockInfo = {
    pid: process.pid,
    hostname: hostname(),
    acquired_at: now().toISOString(),
    command: options.command,
    token: randomBytes(8).toString("hex"),
  };
  const content = `${JSON.stringify(info)}\n`;
  const warnings: string[] = [];
  const deadline = Date.now() + waitMs;
  for (;;) {
    if (linkExclusive(stateDir, lockPath(stateDir), content)) break;
    const holder = readLock(stateDir);
    if (holder === null) continue; // released between our link and our read: try again at once
    const verdict = judgeLock(holder, now(), leaseMs);
    if (verdict.stale) {
      if (takeOver(stateDir, holder, content)) {
        const who = holder === "unreadable" ? "an unreadable lock" : `the lock of pid ${holder.pid} on ${holder.hostname} (${holder.command})`;
        const message = `took over ${who}: ${verdict.why}`;
        warnings.push(message);
        options.onWarning?.(message);
        break;
      }
      continue;
    }
    if (Date.now() >= deadline) {
      const lock = holder as LockInfo;
      const age = describeAge(now().getTime() - Date.parse(lock.acquired_at));
      throw new DotagentError(
        "locked",
        `memory/state/.lock is held by pid ${lock.pid} on ${lock.hostname} (${lock.command || "unknown command"}, for ${age}); wait for it to finish, or if that process is gone remove the lock file`,
        EXIT.locked,
        { holder: lock },
      );
    }
    sleepSync(POLL_MS);
  }
  let released = false;
  return {
    info,
    warnings,
    release() {
      if (released) return;
      released = true;
      // Only remove the lock if it is still ours (a takeover after a long pause replaces it).
      const current = readLock(stateDir);
      if (current !== null && current !== "unreadable" && current.token === info.token) tryUnlink(lockPath(stateDir));
    },
  };
}
