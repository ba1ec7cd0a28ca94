// One rule for the state's own paths: memory/, memory/state/, memory/reports/, .archive/,
// .history/ (checkpoints), .rollback/ (a committed rollback) are real folders and phase.json, execution.json, events.jsonl, .clearing, .lock real files, inside the
// project. A link (even one that stays inside) or the wrong type is refused before anything is
// read or written, so no write can go through a link to somewhere else and no odd file can pass
// for "no state". An unreadable path (EACCES, ENOTDIR, …) is an error naming it, never "missing".
import { lstatSync, type Stats } from "node:fs";
import { join, relative } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import type { ProjectPaths } from "./project.js";

type Want = "folder" | "file";

function stateEntries(paths: ProjectPaths): Array<[string, Want]> {
  return [
    [join(paths.root, "memory"), "folder"],
    [paths.stateDir, "folder"],
    [paths.reportsDir, "folder"],
    [paths.archiveDir, "folder"],
    [paths.phaseFile, "file"],
    [paths.executionFile, "file"],
    [paths.eventsFile, "file"],
    [join(paths.stateDir, ".clearing"), "file"],
    [join(paths.stateDir, ".last-write.json"), "file"],
    [join(paths.stateDir, ".history"), "folder"],
    [join(paths.stateDir, ".rollback"), "folder"],
  ];
}

/** The project root (`--dir`) as a problem: not there, not a folder, unreadable; null when it is a folder. */
export function findRootProblem(paths: ProjectPaths): DotagentError | null {
  const root = statOrError(paths.root);
  if (root instanceof DotagentError) return root;
  // A project root that is not there is not "no workflow yet": the path is wrong (§2).
  if (root === null)
    return unsafe(
      paths.root,
      `${paths.root} does not exist; --dir must name the project's folder (create it first, or run from it)`,
    );
  if (!root.isDirectory())
    return unsafe(paths.root, `${paths.root} is not a folder; --dir must name the project's folder`);
  return null;
}

/** Throws findRootProblem's error: for the commands that read no state but act on the project. */
export function assertProjectRoot(paths: ProjectPaths): void {
  const problem = findRootProblem(paths);
  if (problem !== null) throw problem;
}

/** The first state path that breaks the rule, as a one-line error (exit 3), or null. */
export function findStatePathProblem(paths: ProjectPaths): DotagentError | null {
  const rootProblem = findRootProblem(paths);
  if (rootProblem !== null) return rootProblem;
  for (const [abs, want] of stateEntries(paths)) {
    const rel = relative(paths.root, abs);
    const stat = statOrError(abs, rel);
    if (stat instanceof DotagentError) return stat;
    if (stat === null) continue;
    if (stat.isSymbolicLink()) {
      return unsafe(
        rel,
        `${rel} is a symbolic link; dotagent's state must be a real ${want} inside the project; for the person: replace the link with the ${want} itself, then run \`dotagent validate\``,
      );
    }
    if (want === "folder" ? !stat.isDirectory() : !stat.isFile()) {
      return unsafe(
        rel,
        `${rel} is ${stat.isDirectory() ? "a folder" : want === "folder" ? "a file" : "not a regular file"}, where dotagent keeps a ${want}; for the person: move it out of the way, then run \`dotagent validate\``,
      );
    }
  }
  return null;
}

/** Throws the first problem of findStatePathProblem. */
export function assertStatePaths(paths: ProjectPaths): void {
  const problem = findStatePathProblem(paths);
  if (problem !== null) throw problem;
}

function statOrError(abs: string, rel: string = abs): Stats | null | DotagentError {
  try {
    return lstatSync(abs);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    if (code === "ENOENT") return null;
    return new DotagentError(
      "state_unreadable",
      `${rel} cannot be read (${code}); the workflow state is there but unreadable: check the permissions and types of memory/ and its folders`,
      EXIT.invalid,
      { path: rel, errno: code },
    );
  }
}

function unsafe(path: string, message: string): DotagentError {
  return new DotagentError("state_path_invalid", message, EXIT.invalid, { path });
}
