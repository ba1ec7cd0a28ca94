// Failures of the disk itself (full, read-only, no permission, I/O error) are expected: they get
// one line that names the file, the errno code and what to do, exit 1, never "unexpected error".
// Every state change is ordered so that such a failure at any step leaves valid state behind
// (the old file, or a journal resume finishes), which the message says.
import { relative } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";

const REMEDY: Record<string, string> = {
  ENOSPC: "free some disk space",
  EDQUOT: "free some disk space",
  EACCES: "check the permissions of memory/",
  EPERM: "check the permissions of memory/",
  EROFS: "the disk is read-only",
  EIO: "check the disk",
  EMFILE: "close some programs",
  ENFILE: "close some programs",
};

/**
 * An I/O failure while writing state: one line, and the promise that the old file is intact. A
 * refusal already one line (write-file.ts: a link that leads out of the project) stays as it is.
 */
export function writeFailure(file: string, error: unknown): DotagentError {
  if (error instanceof DotagentError) return error;
  const code = (error as NodeJS.ErrnoException).code ?? "error";
  return new DotagentError(
    "write_failed",
    `could not write ${file} (${code}); the previous state is intact; ${REMEDY[code] ?? "fix the cause"} and run the command again`,
    EXIT.refused,
    { errno: code },
  );
}

/**
 * The expected form of an errno error from any disk step of a command (a move, a folder, the lock,
 * an archive), or undefined when `error` is not one (a bug stays a bug).
 */
export function ioFailure(error: unknown, root: string): DotagentError | undefined {
  if (error instanceof DotagentError) return undefined;
  const e = error as NodeJS.ErrnoException;
  if (typeof e?.code !== "string" || !/^E[A-Z]+$/.test(e.code) || typeof e.syscall !== "string") return undefined;
  const file = typeof e.path === "string" ? relative(root, e.path) || "." : "memory/";
  return new DotagentError(
    "io_failed",
    `${e.syscall} ${file} failed (${e.code}); ${REMEDY[e.code] ?? "fix the cause"}, then run \`dotagent resume\`: the state on disk is still valid`,
    EXIT.refused,
    { errno: e.code },
  );
}
