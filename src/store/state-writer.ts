// Writing the state files: revision +1 on every write, a refusal to overwrite a file that
// changed on disk since it was read, and the crash-safe order of CONTRACT §3 for a change that
// spans several files. Only commands that change state load this module. Every write goes
// through write-file.ts: never through a link out of the project.
import { existsSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import type { StateSnapshot } from "../core/snapshot.js";
import type { MachineEvent, MoveEffect } from "../core/transitions.js";
import type { PhaseState } from "../schema/phase.js";
import type { ExecutionState } from "../schema/execution.js";
import { mkdirInside, renameInside, writeFileInside } from "./write-file.js";
import { recordingWrite } from "./last-write.js";
import { fsyncDir } from "./fsync-dir.js";
import { writeFailure } from "./io-error.js";

export { writeFailure };
import { appendEvents } from "./events.js";
import { recordCheckpoint, type WrittenBytes } from "./checkpoints.js";
import { stampOf as fileStamp } from "./state-files.js";
import type { ProjectPaths } from "./project.js";
import type { WrittenStates } from "./session.js";
import { encodeStateJson } from "./state-json.js";
import { quickExecutionState, quickPhaseState } from "../schema/quick-parse.js";

export class ConcurrentWriteError extends DotagentError {
  constructor(file: string) {
    super(
      "concurrent_write",
      `${file} changed on disk while this command ran (written without the lock?); run the command again`,
      EXIT.refused,
    );
  }
}

/** Replaces phase.json or execution.json durably, as dotagent's last write of it (last-write.ts). */
export function writeStateJson(root: string, file: string, value: unknown): WrittenBytes {
  // Encoded once, for the write, its digest and a checkpoint (a 10,000-task execution.json is some
  // 3.6 MB), into the memory of the state file read before when it fits (spare-buffer.ts).
  const bytes = encodeStateJson(value);
  return { bytes, sha256: recordingWrite(root, file, bytes, () => writeFileInside(root, file, bytes)) };
}

/**
 * Replaces a state file, provided it is still what was read (`expectedStamp`, or "missing").
 * Returns the new stamp so one command can write the same file twice.
 */
export function writeStateFile(
  root: string,
  file: string,
  value: unknown,
  expectedStamp: string | undefined,
): { stamp: string; written: WrittenBytes } {
  if (expectedStamp !== undefined && fileStamp(file) !== expectedStamp)
    throw new ConcurrentWriteError(relative(root, file));
  let written: WrittenBytes;
  try {
    written = writeStateJson(root, file, value);
  } catch (error) {
    throw writeFailure(relative(root, file), error);
  }
  return { stamp: fileStamp(file), written };
}

function stampOf(read: StateSnapshot["phase"] | StateSnapshot["execution"]): string {
  return read.kind === "missing" ? "missing" : read.stamp;
}

/** Writes the state files a command changed, revision +1, in the given snapshot's stead. */
export class StateWriter {
  private phaseStamp: string;
  private executionStamp: string;
  /**
   * What this writer last wrote to each state file: the value, stamp and digest (writtenStates),
   * and the bytes until the checkpoint its next events take has them.
   */
  private readonly last = new Map<
    string,
    { value: unknown; stamp: string; sha256: string; bytes: Uint8Array | null }
  >();
  constructor(
    private readonly paths: ProjectPaths,
    snapshot: StateSnapshot,
    private readonly now: Date,
    /** Told when the event log could not be appended after the change was saved. */
    private readonly onWarning: (message: string) => void = () => {},
  ) {
    this.phaseStamp = stampOf(snapshot.phase);
    this.executionStamp = stampOf(snapshot.execution);
  }

  writePhase(state: PhaseState): PhaseState {
    const next: PhaseState = {
      ...state,
      schema_version: 1,
      revision: (state.revision ?? 0) + 1,
      last_updated: this.now.toISOString(),
    };
    const done = writeStateFile(this.paths.root, this.paths.phaseFile, next, this.phaseStamp);
    this.phaseStamp = done.stamp;
    this.last.set(this.paths.phaseFile, { value: next, stamp: done.stamp, ...done.written });
    return next;
  }

  writeExecution(state: ExecutionState): ExecutionState {
    const next: ExecutionState = {
      ...state,
      revision: (state.revision ?? 0) + 1,
      updated_at: this.now.toISOString(),
      interruption_safe: true,
    };
    const done = writeStateFile(this.paths.root, this.paths.executionFile, next, this.executionStamp);
    this.executionStamp = done.stamp;
    this.last.set(this.paths.executionFile, { value: next, stamp: done.stamp, ...done.written });
    return next;
  }

  /**
   * The state files this writer wrote, as a reader would read them back (loadSnapshot's
   * `written`): only a file whose value passes the quick check of a read (quick-parse.ts), so
   * what a reread would judge is judged the same way; any other is read from disk.
   */
  writtenStates(): WrittenStates {
    const read = <T>(file: string, quick: (data: unknown) => T | undefined) => {
      const last = this.last.get(file);
      const value = last === undefined ? undefined : quick(last.value);
      return value === undefined
        ? undefined
        : {
            kind: "ok" as const,
            file: relative(this.paths.root, file),
            value,
            stamp: last!.stamp,
            sha256: last!.sha256,
          };
    };
    const phase = read(this.paths.phaseFile, quickPhaseState);
    const execution = read(this.paths.executionFile, quickExecutionState);
    return { ...(phase ? { phase } : {}), ...(execution ? { execution } : {}) };
  }

  /**
   * Appends to the event log, always after the state files are written. If the disk refuses the
   * append, the change has already landed: the command succeeds and says, naming the log, that
   * the log misses it (failing would make a caller retry a change that was made, e.g. a second
   * `task start` that is refused). The log is a record, not the state. A change worth returning
   * to gets a checkpoint.
   */
  appendEvents(events: ReadonlyArray<{ type: string; [key: string]: unknown }>): void {
    try {
      const records = appendEvents(this.paths.root, this.paths.eventsFile, events, this.now);
      // The bytes just written, not read back: the checkpoint holds exactly them (and they are let go).
      const written = new Map<string, WrittenBytes>();
      for (const [file, last] of this.last)
        if (last.bytes !== null) {
          written.set(file, { bytes: last.bytes, sha256: last.sha256 });
          last.bytes = null;
        }
      recordCheckpoint(this.paths, records, written);
    } catch (error) {
      if (!(error instanceof DotagentError) || error.code !== "write_failed") throw error;
      const errno = String(error.details.errno ?? "error");
      this.onWarning(
        `the change is saved, but memory/state/events.jsonl could not be appended (${errno}): the event log may miss ${events.map((e) => e.type).join(", ")}`,
      );
    }
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
      const journal = change.journal ?? {
        type: "move",
        started_at: this.now.toISOString(),
        moves: change.moves.map(({ from, to }) => ({ from, to })),
      };
      const journaled = this.writePhase({
        ...change.phaseBefore,
        interruption_safe: false,
        pending_transition: journal,
      });
      for (const move of change.moves) this.moveFile(move);
      phaseAfter ??= journaled;
    }
    const execution = change.execution === undefined ? undefined : this.writeExecution(change.execution);
    const phase =
      phaseAfter === undefined
        ? undefined
        : this.writePhase({
            ...phaseAfter,
            interruption_safe: true,
            pending_transition: null,
            revision: change.moves.length > 0 ? (phaseAfter.revision ?? 0) + 1 : phaseAfter.revision,
          });
    this.appendEvents(change.events);
    return { ...(phase ? { phase } : {}), ...(execution ? { execution } : {}) };
  }

  private moveFile(move: MoveEffect): void {
    const from = join(this.paths.root, move.from);
    const to = join(this.paths.root, move.to);
    if (!existsSync(from)) return; // already moved by an earlier, cut-off run
    mkdirInside(this.paths.root, dirname(to));
    renameInside(this.paths.root, from, to);
    fsyncDir(dirname(to));
    if (dirname(to) !== dirname(from)) fsyncDir(dirname(from));
  }
}
