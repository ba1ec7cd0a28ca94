// A command's view of one project: read a consistent snapshot, and take the lock. Writing is in
// state-writer.ts, which read-only commands never load.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { reportRequests, type StateSnapshot, type ReportRequest } from "../core/snapshot.js";
import { acquireLock, type LockHandle } from "./lock.js";
import { findTempFiles, sweepTempFiles } from "./sweep.js";
import { readExecutionFile, readPhaseFile } from "./state-files.js";
import { readReports } from "./reports.js";
import type { ProjectPaths } from "./project.js";
import { assertStatePaths } from "./state-paths.js";
import { readClearing } from "./clearing-marker.js";

export async function loadSnapshot(paths: ProjectPaths, extra: readonly ReportRequest[] = []): Promise<StateSnapshot> {
  assertStatePaths(paths);
  return completeSnapshot(paths, await readPhaseFile(paths), await readExecutionFile(paths), extra);
}

export { CLEARING_MARKER } from "./clearing-marker.js";

/** Adds the reports and temp files a snapshot needs to the two state files as read. */
export function completeSnapshot(paths: ProjectPaths, phase: StateSnapshot["phase"], execution: StateSnapshot["execution"], extra: readonly ReportRequest[]): StateSnapshot {
  const requests = reportRequests(phase.kind === "ok" ? phase.value : undefined, execution.kind === "ok" ? execution.value : undefined);
  return { phase, execution, reports: readReports(paths.root, [...requests, ...extra]), tempFiles: findTempFiles(paths.stateDir), clearing: readClearing(paths) };
}

export interface Locked {
  readonly lock: LockHandle;
  /** Temp files of killed processes removed when the lock was taken. */
  readonly swept: string[];
}

/** Runs `fn` holding the state lock (until its promise settles, if it returns one). */
export function withLock<T>(paths: ProjectPaths, command: string, fn: (locked: Locked) => T, onWarning?: (message: string) => void): T {
  assertStatePaths(paths);
  mkdirSync(paths.stateDir, { recursive: true });
  const lock = acquireLock(paths.stateDir, { command, ...(onWarning ? { onWarning } : {}) });
  let result: T;
  try {
    result = fn({ lock, swept: sweepTempFiles(paths.stateDir) });
  } catch (error) {
    lock.release();
    throw error;
  }
  if (result instanceof Promise) return result.finally(() => lock.release()) as T;
  lock.release();
  return result;
}
