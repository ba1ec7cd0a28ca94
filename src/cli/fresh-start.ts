// Fresh starts never delete: the live state is archived (tar.gz) before it is cleared. The archive
// code (and tar) loads only here, when a fresh start actually happens.
import type { ProjectPaths } from "../store/project.js";

export async function archiveLiveState(paths: ProjectPaths, reason: string, now: Date): Promise<string | null> {
  const archive = await import("../archive/index.js");
  const created = await archive.createArchive(paths.root, { reason, now });
  if (created === null) return null;
  await archive.clearLiveState(paths.root);
  await archive.pruneArchives(paths.root);
  return created.name;
}
