// Fresh starts never delete: the live state is archived (tar.gz) before it is cleared. The archive
// code (and tar) is in the cold half of the bundle, loaded only when a fresh start happens.
import type { ProjectPaths } from "../store/project.js";
import { loadCold } from "./load-cold.js";

export async function archiveLiveState(paths: ProjectPaths, reason: string, now: Date): Promise<string | null> {
  const { archive } = await loadCold();
  const created = await archive.createArchive(paths.root, { reason, now });
  if (created === null) return null;
  await archive.clearLiveState(paths.root);
  await archive.pruneArchives(paths.root);
  return created.name;
}
