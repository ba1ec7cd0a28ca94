// A `dotagent run` killed leaves its lock (memory/runs/.lock, src/run/runner.ts) behind: `status`
// and `report` then say the run working on the workflow ended, which is right until someone goes
// on. When another session goes on instead (`/develop` or `continue` in a client, whose first step
// is `dotagent resume`), the workflow is no longer that run's: resume releases the dead run's lock
// and says so, so the views stop telling the person about a run that is over. A live run's lock
// (its process alive on this host, or inside its lease from another) is never touched, and the
// lock is taken over by the lock's own compare-and-swap, so a `dotagent run` starting at the same
// moment either gets it first or finds it free.
import { join } from "node:path";
import type { Repair } from "../core/tasks.js";
import { acquireLock, DEFAULT_LEASE_MS, judgeLock, readLock } from "../store/lock.js";
import { mkdirInside } from "../store/write-file.js";

/** Releases the lock of a `dotagent run` that ended without releasing it; the repair that says so, or undefined. */
export function releaseGoneRun(root: string, now: Date): Repair | undefined {
  const dir = join(root, "memory", "runs");
  const holder = readLock(dir);
  if (holder === null || holder === "unreadable") return undefined;
  if (!judgeLock(holder, now, DEFAULT_LEASE_MS).stale) return undefined;
  mkdirInside(root, dir); // memory/runs a link out of the project: refused before anything is written there
  let handle;
  try {
    handle = acquireLock(dir, { command: "resume", waitMs: 0, now: () => now });
  } catch {
    return undefined; // a run took it meanwhile: it is that run's now
  }
  handle.release();
  return {
    code: "run_lock_released",
    message: `the dotagent run (pid ${holder.pid}) that drove the workflow since ${holder.acquired_at} ended without its end; its lock is released and this session goes on`,
  };
}
