// A task start whose worktree is still being made (SPEC §19): the start is recorded under the
// state lock, then the worktree is made after it, by the same process. Meanwhile another start of
// that task (two spawns of one task in one message) must take it for in flight, not for a start
// cut off, or it makes the worktree again, fails and releases the task the first executor works
// on. So the starting process leaves a marker, under the lock, beside the lock file
// (`memory/state/.lock.start-<task>`, ignored by git with the lock): {pid, start}. A marker whose
// process is gone is a start cut off. Best effort: a marker that cannot be written or read counts
// as none (the old behaviour).
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeFileInside } from "./write-file.js";
import { isProcessRunning, processStartTime } from "./process-facts.js";

const markerOf = (stateDir: string, taskId: string) => join(stateDir, `.lock.start-${taskId}`);

/** This process is making `taskId`'s worktree (the caller holds the state lock). */
export function markStart(root: string, stateDir: string, taskId: string): void {
  try {
    writeFileInside(
      root,
      markerOf(stateDir, taskId),
      JSON.stringify({ pid: process.pid, start: processStartTime(process.pid) }),
      { durable: false },
    );
  } catch {
    // a start without its marker is judged as before
  }
}

/** The worktree of `taskId` is no longer being made by this process. */
export function clearStart(stateDir: string, taskId: string): void {
  rmSync(markerOf(stateDir, taskId), { force: true });
}

/** Whether another live process is making `taskId`'s worktree right now. */
export function startInFlight(stateDir: string, taskId: string): boolean {
  try {
    const marker = JSON.parse(readFileSync(markerOf(stateDir, taskId), "utf8")) as { pid?: unknown; start?: unknown };
    if (typeof marker.pid !== "number" || marker.pid === process.pid) return false;
    return isProcessRunning(marker.pid, typeof marker.start === "string" ? marker.start : null);
  } catch {
    return false;
  }
}
