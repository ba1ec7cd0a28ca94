// Fresh starts never delete: the live state is archived (tar.gz) before it is cleared. The archive
// code (and tar) is in the cold half of the bundle, loaded only when a fresh start happens.
import type { ProjectPaths } from "../store/project.js";
import { loadCold } from "./load-cold.js";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { writeFileDurable, fsyncDir } from "../store/atomic-write.js";
import { CLEARING_MARKER } from "../store/session.js";

export async function archiveLiveState(paths: ProjectPaths, reason: string, now: Date): Promise<string | null> {
  const { archive } = await loadCold();
  const created = await archive.createArchive(paths.root, { reason, now });
  if (created === null) return null;
  // Clearing takes several steps; the marker lets the next command finish a cut-off clear
  // instead of finding a workflow whose reports are half gone.
  writeFileDurable(join(paths.stateDir, CLEARING_MARKER), `${JSON.stringify({ archive: created.name })}\n`);
  await finishClear(paths);
  await archive.pruneArchives(paths.root);
  return created.name;
}

/** Clears the live state (already archived) and removes the marker. */
export async function finishClear(paths: ProjectPaths): Promise<void> {
  const { archive } = await loadCold();
  await archive.clearLiveState(paths.root);
  rmSync(join(paths.stateDir, CLEARING_MARKER), { force: true });
  fsyncDir(paths.stateDir);
}
