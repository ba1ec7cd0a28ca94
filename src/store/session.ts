// A command's view of one project: read a consistent snapshot, take the lock, write state files
// with revision +1, carry out a plan's writes in the crash-safe order of CONTRACT §3.
import { mkdirSync, renameSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { reportRequests, type StateSnapshot, type ReportRequest } from "../core/snapshot.js";
import type { PhaseState } from "../schema/phase.js";
import type { ExecutionState } from "../schema/execution.js";
import type { MachineEvent, MoveEffect } from "../core/transitions.js";
import { acquireLock, type LockHandle } from "./lock.js";
import { appendEvents } from "./events.js";
import { findTempFiles, sweepTempFiles } from "./sweep.js";
import { readExecutionFile, readPhaseFile, writeStateFile } from "./state-files.js";
import { readReports } from "./reports.js";
import { fsyncDir } from "./atomic-write.js";
import type { ProjectPaths } from "./project.js";

export function loadSnapshot(paths: ProjectPaths, extra: readonly ReportRequest[] = []): StateSnapshot {
  const phase = readPhaseFile(paths);
  const execution = readExecutionFile(paths);
  const requests = reportRequests(phase.kind === "ok" ? phase.value : undefined, execution.kind === "ok" ? execution.value : undefined);
  return { phase, execution, reports: readReports(paths.root, [...requests, ...extra]), tempFiles: findTempFiles(paths.stateDir) };
}

export interface Locked {
  readonly lock: LockHandle;
  /** Temp files of killed processes removed when the lock was taken. */
  readonly swept: string[];
}

/** Runs `fn` holding the state lock (until its promise settles, if it returns one). */
export function withLock<T>(paths: ProjectPaths, command: string, fn: (locked: Locked) => T, onWarning?: (message: string) => void): T {
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

function stampOf(read: StateSnapshot["phase"] | StateSnapshot["execution"]): string {
  return read.kind === "missing" ? "missing" : read.stamp;
}

/** Writes the state files a command changed, revision +1, in the given snapshot's stead. */
export class StateWriter {
  private phaseStamp: string;
  private executionStamp: string;
  constructor(
    private readonly paths: ProjectPaths,
    snapshot: StateSnapshot,
    private readonly now: Date,
  ) {
    this.phaseStamp = stampOf(snapshot.phase);
    this.executionStamp = stampOf(snapshot.execution);
  }

  writePhase(state: PhaseState): PhaseState {
    const next: PhaseState = { ...state, schema_version: 1, revision: (state.revision ?? 0) + 1, last_updated: this.now.toISOString() };
    this.phaseStamp = writeStateFile(this.paths.root, this.paths.phaseFile, next, this.phaseStamp);
    return next;
  }

  writeExecution(state: ExecutionState): ExecutionState {
    const next: ExecutionState = { ...state, revision: (state.revision ?? 0) + 1, updated_at: this.now.toISOString(), interruption_safe: true };
    this.executionStamp = writeStateFile(this.paths.root, this.paths.executionFile, next, this.executionStamp);
    return next;
  }

  appendEvents(events: ReadonlyArray<{ type: string; [key: string]: unknown }>): void {
    appendEvents(this.paths.eventsFile, events, this.now);
  }

  /**
   * A change over several files (CONTRACT §3): phase.json with interruption_safe false and the
   * journal, then the moves, then execution.json, then phase.json safe again. A kill anywhere
   * leaves either the journal (resume finishes or undoes it) or the finished change.
   */
  applyChange(change: {
    phaseBefore: PhaseState;
    journal?: NonNullable<PhaseState["pending_transition"]> | undefined;
    moves: readonly MoveEffect[];
    execution?: ExecutionState | undefined;
    phase?: PhaseState | undefined;
    events: readonly MachineEvent[];
  }): { phase?: PhaseState; execution?: ExecutionState } {
    let phaseAfter = change.phase;
    if (change.moves.length > 0) {
      const journal = change.journal ?? { type: "move", started_at: this.now.toISOString(), moves: change.moves.map(({ from, to }) => ({ from, to })) };
      const journaled = this.writePhase({ ...change.phaseBefore, interruption_safe: false, pending_transition: journal });
      for (const move of change.moves) this.moveFile(move);
      phaseAfter ??= journaled;
    }
    const execution = change.execution === undefined ? undefined : this.writeExecution(change.execution);
    const phase = phaseAfter === undefined ? undefined : this.writePhase({ ...phaseAfter, interruption_safe: true, pending_transition: null, revision: change.moves.length > 0 ? (phaseAfter.revision ?? 0) + 1 : phaseAfter.revision });
    this.appendEvents(change.events);
    return { ...(phase ? { phase } : {}), ...(execution ? { execution } : {}) };
  }

  private moveFile(move: MoveEffect): void {
    const from = join(this.paths.root, move.from);
    const to = join(this.paths.root, move.to);
    if (!existsSync(from)) return; // already moved by an earlier, cut-off run
    mkdirSync(dirname(to), { recursive: true });
    renameSync(from, to);
    fsyncDir(dirname(to));
    if (dirname(to) !== dirname(from)) fsyncDir(dirname(from));
  }
}
