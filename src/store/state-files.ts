// Reading and writing the two state files. Reads never throw for bad content: a file is missing,
// ok, or corrupt with problems that name the file and the JSON path. Writes go through the durable
// atomic write and refuse to overwrite a file that changed on disk since it was read (someone
// wrote without the lock): the command then starts over instead of losing that update.
import { readFileSync, statSync } from "node:fs";
import { relative } from "node:path";
import { decodeJson, type SchemaProblem } from "../schema/common.js";
import type { FileRead } from "../core/snapshot.js";
import { parsePhaseState, type PhaseState } from "../schema/phase.js";
import { parseExecutionState, type ExecutionState } from "../schema/execution.js";
import { writeJsonDurable } from "./atomic-write.js";
import { DotagentError, EXIT } from "../core/errors.js";
import type { ProjectPaths } from "./project.js";

export type { FileProblem, FileRead } from "../core/snapshot.js";

/** Identity of what was read, to notice a write by someone else before overwriting. */
function stampOf(file: string): string {
  try {
    const s = statSync(file, { bigint: true });
    return `${s.ino}:${s.size}:${s.mtimeNs}`;
  } catch {
    return "missing";
  }
}

function readStateFile<T>(root: string, file: string, parse: (data: unknown) => { ok: true; value: T } | { ok: false; problems: SchemaProblem[] }): FileRead<T> {
  const rel = relative(root, file);
  let text: string;
  const stamp = stampOf(file);
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { kind: "missing", file: rel };
    return { kind: "corrupt", file: rel, stamp, problems: [{ file: rel, path: "", message: `cannot be read (${code ?? "error"})` }] };
  }
  const decoded = decodeJson(text);
  if (!decoded.ok) return { kind: "corrupt", file: rel, stamp, problems: [{ file: rel, path: "", message: decoded.message }] };
  const parsed = parse(decoded.value);
  if (!parsed.ok) return { kind: "corrupt", file: rel, stamp, problems: parsed.problems.map((p) => ({ ...p, file: rel })) };
  return { kind: "ok", file: rel, value: parsed.value, stamp };
}

export function readPhaseFile(paths: ProjectPaths): FileRead<PhaseState> {
  return readStateFile(paths.root, paths.phaseFile, parsePhaseState);
}

export function readExecutionFile(paths: ProjectPaths): FileRead<ExecutionState> {
  return readStateFile(paths.root, paths.executionFile, parseExecutionState);
}

export class ConcurrentWriteError extends DotagentError {
  constructor(file: string) {
    super("concurrent_write", `${file} changed on disk while this command ran (written without the lock?); run the command again`, EXIT.refused);
  }
}

/**
 * Replaces a state file, provided it is still what was read (`expectedStamp`, or "missing").
 * Returns the new stamp so one command can write the same file twice.
 */
export function writeStateFile(root: string, file: string, value: unknown, expectedStamp: string | undefined): string {
  if (expectedStamp !== undefined && stampOf(file) !== expectedStamp) throw new ConcurrentWriteError(relative(root, file));
  try {
    writeJsonDurable(file, value);
  } catch (error) {
    throw writeFailure(relative(root, file), error);
  }
  return stampOf(file);
}

const REMEDY: Record<string, string> = {
  ENOSPC: "free some disk space",
  EDQUOT: "free some disk space",
  EACCES: "check the permissions of memory/state",
  EPERM: "check the permissions of memory/state",
  EROFS: "the disk is read-only",
  EIO: "check the disk",
};

/** An I/O failure while writing state: one line, and the promise that the old file is intact. */
export function writeFailure(file: string, error: unknown): DotagentError {
  const code = (error as NodeJS.ErrnoException).code ?? "error";
  return new DotagentError("write_failed", `could not write ${file} (${code}); the previous state is intact; ${REMEDY[code] ?? "fix the cause"} and run the command again`, EXIT.refused, { errno: code });
}

export function currentStamp(file: string): string {
  return stampOf(file);
}
