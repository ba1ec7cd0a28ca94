// listArchives describes every `*.tar.gz` in .archive/, newest first, from each manifest (the
// first tar entry; the rest of the file is not read). It never throws for a bad archive: one
// that is not gzip, truncated or has no manifest is listed with `error` set.
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { ARCHIVE_EXTENSION, resolveArchivePaths } from "./archive-layout.js";
import { describeArchive, describeArchiveWithoutManifest, type ArchiveInfo } from "./archive-info.js";
import { compareArchiveNamesNewestFirst } from "./archive-names.js";
import { isMissing } from "./file-tree.js";
import { readManifest } from "./read-archive.js";

export async function listArchives(root: string): Promise<ArchiveInfo[]> {
  const { archiveDir } = resolveArchivePaths(root);
  let names: string[];
  try {
    names = await readdir(archiveDir);
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
  const archives = names
    .filter((name) => name.endsWith(ARCHIVE_EXTENSION) && !name.startsWith("."))
    .sort(compareArchiveNamesNewestFirst);
  const infos = await Promise.all(archives.map((name) => inspectArchive(archiveDir, name)));
  return infos.filter((info): info is ArchiveInfo => info !== null);
}

/** One archive's listing row; null if it vanished since the folder was read. */
async function inspectArchive(archiveDir: string, name: string): Promise<ArchiveInfo | null> {
  const file = join(archiveDir, name);
  let size: number;
  try {
    const item = await lstat(file);
    if (!item.isFile())
      return describeArchiveWithoutManifest(
        name,
        0,
        item.isSymbolicLink() ? "is a symbolic link, not an archive file" : "is not a regular file",
      );
    size = item.size;
  } catch (error) {
    if (isMissing(error)) return null;
    return describeArchiveWithoutManifest(name, 0, `cannot be read: ${(error as Error).message}`);
  }
  const read = await readManifest(file);
  return read.ok ? describeArchive(name, size, read.manifest) : describeArchiveWithoutManifest(name, size, read.error);
}
