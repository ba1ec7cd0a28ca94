// Moves a phase agent's report that no recorded agent wrote out of the agent's way, into
// memory/reports/unowned/ (core/report-owners.ts says why and where): kept for the person, never
// read by the planner, and the agent starting now writes its own instead of finding one "already
// done". A rename within the project, so a kill leaves the file either here or there.
import { existsSync, lstatSync, realpathSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import { unownedCopyPath } from "../core/report-owners.js";
import { mkdirInside, renameInside } from "./write-file.js";

/** The project-relative path it went to, or undefined when there is nothing at `output`. */
export function setAsideUnowned(root: string, output: string): string | undefined {
  try {
    lstatSync(join(root, output));
  } catch {
    return undefined;
  }
  const to = unownedCopyPath(output, (candidate) => existsSync(join(root, candidate)));
  const folder = dirname(join(root, to));
  mkdirInside(root, folder);
  // memory/reports/unowned/ made a link out of the project: nothing moves there.
  const reports = realpathSync(join(root, "memory/reports"));
  if (!realpathSync(folder).startsWith(reports + sep))
    throw new DotagentError(
      "unsafe_path",
      `${dirname(to)} leads out of memory/reports/; for the person: remove it, then spawn the agent again`,
      EXIT.invalid,
      { path: dirname(to) },
    );
  renameInside(root, join(root, output), join(root, to));
  return to;
}
