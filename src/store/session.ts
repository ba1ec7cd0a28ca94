// A command's view of one project: read a consistent snapshot, and take the lock. Writing is in
// state-writer.ts, which read-only commands never load.
import { join } from "node:path";
import { reportRequests, reportsCover, type StateSnapshot, type ReportRequest } from "../core/snapshot.js";
import { acquireLockAsync, type LockHandle } from "./lock.js";
import { findTempFiles, sweepTempFiles } from "./sweep.js";
import { readExecutionFile, readPhaseFile } from "./state-files.js";
import { readReports } from "./reports.js";
import type { ProjectPaths } from "./project.js";
import { assertStatePaths } from "./state-paths.js";
import { mkdirInside } from "./write-file.js";
import { readClearing } from "./clearing-marker.js";
import { readPendingRollback, rollbackPending, type PendingRollback } from "./pending-rollback.js";
import { MISSING, type ReportSnapshot } from "../core/reports.js";
import { findHandEdits } from "./last-write.js";
import { NOT_PICKED, sealInstance } from "../core/authority.js";
import { flowOf } from "../core/flow-of.js";
import { REPORT } from "../core/phases.js";
import type { PhaseState } from "../schema/phase.js";
import { authorityView, fileDigest } from "./authority.js";
import { readEvents } from "./events.js";
import { MAX_STATE_BYTES, readProjectFile } from "./read-file.js";

export async function loadSnapshot(
  paths: ProjectPaths,
  extra: readonly ReportRequest[] = [],
  written: WrittenStates = {},
): Promise<StateSnapshot> {
  assertStatePaths(paths);
  // A rollback cut off after its commit point is not corrupt state: it is the state that rollback
  // leaves, which the next locked command finishes writing first. Readers see it that way.
  if (rollbackPending(paths)) {
    const pending = await readPendingRollback(paths);
    if (pending !== null) return rolledBackSnapshot(paths, pending, extra);
  }
  const phase = written.phase ?? (await readPhaseFile(paths));
  const execution = written.execution ?? (await readExecutionFile(paths));
  const held = written.held !== undefined ? heldReports(phase, execution, extra, written.held) : undefined;
  const snapshot = completeSnapshot(paths, phase, execution, extra, held);
  const checked = written.held?.checked;
  return withHandEdits(paths, checked !== undefined && snapshot.reports === held ? { ...snapshot, checked } : snapshot);
}

/**
 * State files a writer of this process has just written under the lock it still holds
 * (StateWriter.writtenStates): their values, stamps and digests as written, which a reread would
 * only parse back (a 10,000-task execution.json is 3.6 MB). The reports are read as ever.
 */
export interface WrittenStates {
  phase?: StateSnapshot["phase"];
  execution?: StateSnapshot["execution"];
  /** What the command read under the same lock, and moved no file since: see HeldRead. */
  held?: HeldRead;
}

/**
 * A command's first read under the lock it still holds, when it moved no file since: the reports
 * stand for a second reading (the 9,000 names of a 10,000-task plan listed again) when phase.json
 * is the very bytes it was then and they hold every report the new state asks for (heldReports);
 * `checked`, the execution.json they were validated with, then goes into the snapshot
 * (StateSnapshot.checked) so validation checks only what the command changed.
 */
export interface HeldRead {
  readonly phase: StateSnapshot["phase"];
  readonly reports: ReportSnapshot;
  readonly checked?: NonNullable<StateSnapshot["checked"]>;
}

/** `held`'s reports, when they answer every request a fresh read of this state would make; else undefined. */
function heldReports(
  phase: StateSnapshot["phase"],
  execution: StateSnapshot["execution"],
  extra: readonly ReportRequest[],
  held: HeldRead,
): ReportSnapshot | undefined {
  if (
    phase.kind !== "ok" ||
    held.phase.kind !== "ok" ||
    typeof phase.sha256 !== "string" ||
    phase.sha256 !== held.phase.sha256
  )
    return undefined;
  const requests = reportRequests(phase.value, execution.kind === "ok" ? execution.value : undefined, extra);
  return reportsCover(held.reports, requests) ? held.reports : undefined;
}

/** The snapshot with the state files dotagent did not write as they are (last-write.ts). */
export function withHandEdits(paths: ProjectPaths, snapshot: StateSnapshot): StateSnapshot {
  const handEdits = findHandEdits(paths, snapshot.phase, snapshot.execution);
  return handEdits.length === 0 ? snapshot : { ...snapshot, handEdits };
}

/** The snapshot as finishing `pending` leaves it: its state files, its reports moved out. */
function rolledBackSnapshot(
  paths: ProjectPaths,
  pending: PendingRollback,
  extra: readonly ReportRequest[],
): StateSnapshot {
  // Stamps no file on disk has: a writer holding such a snapshot starts over from a fresh read.
  const stamp = `rollback:${pending.journal.started_at}`;
  const phase: StateSnapshot["phase"] = { kind: "ok", file: "memory/state/phase.json", value: pending.phase, stamp };
  const execution: StateSnapshot["execution"] =
    pending.execution === null
      ? { kind: "missing", file: "memory/state/execution.json" }
      : { kind: "ok", file: "memory/state/execution.json", value: pending.execution, stamp };
  const snapshot = completeSnapshot(paths, phase, execution, extra);
  const moved = new Set(pending.journal.moves);
  const files = new Map(snapshot.reports.files);
  for (const path of files.keys()) if (moved.has(path)) files.set(path, MISSING);
  const designs = snapshot.reports.designs.filter((path) => !moved.has(path));
  const to =
    typeof pending.journal.event.to === "string"
      ? pending.journal.event.to
      : `the start of ${pending.phase.current_phase}`;
  return { ...snapshot, reports: { files, designs }, rollback: { to, started_at: pending.journal.started_at } };
}

export { CLEARING_MARKER } from "./clearing-marker.js";

/** Adds the reports and temp files a snapshot needs to the two state files as read (`held`: reports already read, heldReports). */
export function completeSnapshot(
  paths: ProjectPaths,
  phase: StateSnapshot["phase"],
  execution: StateSnapshot["execution"],
  extra: readonly ReportRequest[],
  held?: ReportSnapshot,
): StateSnapshot {
  const reports =
    held ??
    readReports(
      paths.root,
      reportRequests(
        phase.kind === "ok" ? phase.value : undefined,
        execution.kind === "ok" ? execution.value : undefined,
        extra,
      ),
    );
  return {
    phase,
    execution,
    reports: phase.kind === "ok" ? withPickChecked(paths, phase.value, reports) : reports,
    tempFiles: findTempFiles(paths.stateDir),
    clearing: readClearing(paths),
  };
}

/**
 * final_design.json is dotagent's, written from the person's pick (SPEC §11): until the choose step
 * is approved, it counts only while its bytes are those a sealed `design_picked` names. A file the
 * model wrote (a Write, a shell line, a script) reads as not written, so the pick is asked again
 * with its options; after the approval the file is history and is read as it is.
 */
function withPickChecked(paths: ProjectPaths, state: PhaseState, reports: ReportSnapshot): ReportSnapshot {
  const choose = flowOf(state).steps.find((s) => s.kind === "choose");
  const current = reports.files.get(REPORT.finalDesign);
  if (
    choose === undefined ||
    current === undefined ||
    current.status === "missing" ||
    state.user_checkpoints.some((c) => c.phase === choose.id)
  )
    return reports;
  const read = readProjectFile(join(paths.root, REPORT.finalDesign), {
    maxBytes: MAX_STATE_BYTES,
    links: "inside",
    root: paths.root,
  });
  const digest = read.kind === "ok" ? fileDigest(read.bytes) : undefined;
  const picked = authorityView(paths, sealInstance(state), readEvents(paths.eventsFile)).findLast(
    (e) => e.type === "design_picked",
  );
  if (digest !== undefined && picked?.digest === digest) return reports;
  const files = new Map(reports.files);
  files.set(REPORT.finalDesign, { status: "invalid", reason: NOT_PICKED });
  return { ...reports, files };
}

export interface Locked {
  readonly lock: LockHandle;
  /** Temp files of killed processes removed when the lock was taken. */
  readonly swept: string[];
}

/**
 * Runs `fn` holding the state lock, released when its promise settles. A live holder is waited
 * for without blocking the event loop (a library caller's timers and requests go on meanwhile).
 */
export async function withLock<T>(
  paths: ProjectPaths,
  command: string,
  fn: (locked: Locked) => T | Promise<T>,
  onWarning?: (message: string) => void,
): Promise<T> {
  assertStatePaths(paths);
  mkdirInside(paths.root, paths.stateDir);
  const lock = await acquireLockAsync(paths.stateDir, { command, ...(onWarning ? { onWarning } : {}) });
  try {
    return await fn({ lock, swept: sweepTempFiles(paths.stateDir) });
  } finally {
    lock.release();
  }
}
