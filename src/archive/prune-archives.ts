// pruneArchives keeps the newest `keep` archives (by the timestamp in the name, then the `-N`
// suffix) and deletes the rest, plus whatever killed archivers, restorers and clears left in
// .archive/ (all such names start with "."). Files in .archive/ that do not follow the archive
// name pattern are not ours to judge and are left alone. Each deletion is one unlink, so a kill
// part-way leaves some extra archives, never a damaged one; the folder is fsynced at the end.
//
// Run it only while holding the state lock: a leftover it sweeps could otherwise belong to a
// live archiver.
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { usageError } from "../core/errors.js";
import { fsyncDir } from "../store/fsync-dir.js";
import { assertRealFolders, resolveArchivePaths } from "./archive-layout.js";
import { compareArchiveNamesNewestFirst, isLeftoverTempName, parseArchiveName } from "./archive-names.js";
import { isMissing } from "./file-tree.js";

export const DEFAULT_KEEP = 5;

export interface PruneResult {
  /** Archive names deleted, oldest last. */
  readonly removed: readonly string[];
  /** Temp files and folders swept. */
  readonly leftovers: readonly string[];
}

export async function pruneArchives(root: string, keep: number = DEFAULT_KEEP): Promise<PruneResult> {
  if (!Number.isInteger(keep) || keep < 0)
    throw usageError(`keep must be a whole number of archives, 0 or more (got ${keep})`);
  const paths = resolveArchivePaths(root);
  assertRealFolders(paths);
  let names: string[];
  try {
    names = await readdir(paths.archiveDir);
  } catch (error) {
    if (isMissing(error)) return { removed: [], leftovers: [] };
    throw error;
  }
  const archives = names.filter((name) => parseArchiveName(name) !== null).sort(compareArchiveNamesNewestFirst);
  const removed = archives.slice(keep);
  const leftovers = names.filter(isLeftoverTempName);
  for (const name of [...removed, ...leftovers])
    await rm(join(paths.archiveDir, name), { recursive: true, force: true });
  if (removed.length + leftovers.length > 0) fsyncDir(paths.archiveDir);
  return { removed, leftovers };
}
