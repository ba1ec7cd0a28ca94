// Fresh starts never delete: the live state is archived (tar.gz) before it is cleared, and the
// clear removes only what that archive verifiably holds (clear-live-state.ts). The archive code
// (and tar) is in the cold half of the bundle, loaded only when a fresh start happens.
import type { ProjectPaths } from "../store/project.js";
import { loadArchive } from "./archive-module.js";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import type { StateSnapshot } from "../core/snapshot.js";
import { fsyncDir, writeFileInside } from "../store/write-file.js";
import { clearingPath } from "../store/clearing-marker.js";

interface ArchivedFile {
  readonly path: string;
  readonly sha256: string;
}

/** Archives the live state, then clears it; refuses (changing nothing) what it cannot archive. */
export async function archiveLiveState(
  paths: ProjectPaths,
  reason: string,
  now: Date,
  note?: (line: string) => void,
): Promise<string | null> {
  const archive = await loadArchive();
  const created = await archive.createArchive(paths.root, { reason, now, complete: true });
  if (created === null) {
    removeMarker(paths); // nothing live is left to clear (a marker naming anything else is moot)
    return null;
  }
  // Clearing takes several steps; the marker lets the next command finish a cut-off clear
  // instead of finding a workflow whose reports are half gone.
  writeFileInside(paths.root, clearingPath(paths), `${JSON.stringify({ archive: created.name })}\n`);
  await clearAndUnmark(paths, created.name, created.manifest.files, true);
  await archive.pruneArchives(paths.root);
  // The workflow is gone: so are its task worktrees (SPEC §19).
  const { sweepAfterClear } = await import("./worktree-tasks.js");
  await sweepAfterClear(paths.root, now, note);
  return created.name;
}

/**
 * A cut-off clear: proves the archive the marker names holds what its manifest lists (checksums).
 * When it does not, the snapshot's clearing gets the problem, so the planner calls the state
 * corrupt and asks (never clears); when it does, the manifest's files are returned for the clear.
 */
export async function proveClearing(
  paths: ProjectPaths,
  snapshot: StateSnapshot,
): Promise<{ snapshot: StateSnapshot; files?: readonly ArchivedFile[] }> {
  const clearing = snapshot.clearing;
  if (!clearing || clearing.problem !== null || clearing.archive === null) return { snapshot };
  const archive = await loadArchive();
  const verified = await archive.verifyArchive(join(paths.archiveDir, clearing.archive));
  if (verified.ok) return { snapshot, files: verified.manifest.files };
  return {
    snapshot: {
      ...snapshot,
      clearing: {
        archive: clearing.archive,
        problem: `names the archive ${clearing.archive}, which does not verify (${verified.reason})`,
      },
    },
  };
}

/** Finishes a cut-off clear with the files proveClearing verified. */
export async function finishClear(
  paths: ProjectPaths,
  archiveName: string,
  files: readonly ArchivedFile[] | undefined,
): Promise<void> {
  if (files === undefined)
    throw new DotagentError(
      "clearing_invalid",
      `memory/state/.clearing: the archive ${archiveName} was not verified; run \`dotagent validate\``,
      EXIT.invalid,
    );
  // A refusal here keeps the marker: part of the state is gone already, and the next try (once
  // the file it names is moved away) must still know which archive holds the rest.
  await clearAndUnmark(paths, archiveName, files, false);
}

async function clearAndUnmark(
  paths: ProjectPaths,
  archiveName: string,
  files: readonly ArchivedFile[],
  unmarkOnRefusal: boolean,
): Promise<void> {
  const archive = await loadArchive();
  try {
    await archive.clearLiveState(paths.root, files, archiveName);
  } catch (error) {
    // Refused before anything stayed removed: the live state is whole, the marker would lie.
    if (unmarkOnRefusal && (error as { code?: unknown }).code === "clear_refused") removeMarker(paths);
    throw error;
  }
  removeMarker(paths);
}

function removeMarker(paths: ProjectPaths): void {
  rmSync(clearingPath(paths), { force: true });
  fsyncDir(paths.stateDir);
}
