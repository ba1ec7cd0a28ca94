// clearLiveState removes the live workflow: phase.json, execution.json, events.jsonl and
// everything inside memory/reports/ (the folder itself, memory/state/ and .archive/ stay), but
// only what the archive just made verifiably holds. Guarantees:
// - Nothing that is not in the archive is ever removed. Each live file must be listed in the
//   archive's manifest with the same SHA-256 (checked on the bytes being removed, after they are
//   moved aside); a file that is not, or a link, FIFO or anything else the archive cannot hold,
//   stops the clear: everything moved is put back and `clear_refused` names the entry. All or
//   nothing, so a fresh start never sits beside an old report that resume would take as done.
// - Each item is first renamed into a `.clear-*` folder in .archive/ (one quick, atomic step per
//   item) and deleted from there, so a kill leaves each item either live or in the trash, never
//   half deleted; pruneArchives sweeps the trash. A failed step (disk error) moves everything back.
// - Reports go first and phase.json last: a kill part-way leaves a workflow whose outputs are
//   partly gone, which validation calls corrupt and resume offers to archive (the archive made
//   just before already holds everything).
import { mkdir, mkdtemp, rename, rmdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import { REPORTS_DIR, STATE_DIR } from "../core/phases.js";
import { fsyncDir } from "../store/fsync-dir.js";
import { assertRealFolders, resolveArchivePaths, STATE_FILES } from "./archive-layout.js";
import { TEMP_PREFIX } from "./archive-names.js";
import { isMissing, removeQuietly, sha256File, walkTree } from "./file-tree.js";
import type { ManifestFile } from "./manifest.js";

/**
 * Clears what `archived` (the manifest's files of the archive that holds the live state) proves
 * is safe; throws `clear_refused` (exit 1), having changed nothing, if anything live is not in it.
 */
export async function clearLiveState(
  root: string,
  archived: ReadonlyArray<Pick<ManifestFile, "path" | "sha256">>,
  archiveName: string,
): Promise<void> {
  const paths = resolveArchivePaths(root);
  assertRealFolders(paths);
  const expected = new Map(archived.map((file) => [file.path, file.sha256]));
  await mkdir(paths.archiveDir, { recursive: true });
  const trash = await mkdtemp(join(paths.archiveDir, TEMP_PREFIX.clear));
  const moved: Array<[from: string, to: string]> = [];
  const folders: string[] = [];
  const refuse = (path: string, why: string): DotagentError =>
    new DotagentError(
      "clear_refused",
      `${path} ${why}, so nothing was cleared (only what the archive ${archiveName} holds is ever removed); for the person: move it out of memory/, then run the command again`,
      EXIT.refused,
      { path, archive: archiveName },
    );
  const clearFile = async (rel: string, abs: string): Promise<void> => {
    const aside = join(trash, rel);
    await mkdir(dirname(aside), { recursive: true });
    try {
      await rename(abs, aside);
    } catch (error) {
      if (isMissing(error)) return;
      throw error; // EXDEV included: never delete what cannot first be moved aside and checked
    }
    moved.push([abs, aside]);
    const sha = expected.get(rel);
    if (sha === undefined) throw refuse(rel, "is not in the archive");
    if ((await sha256File(aside)) !== sha) throw refuse(rel, "changed after it was archived");
  };
  try {
    for (const item of await walkTree(paths.reportsDir)) {
      const rel = `${REPORTS_DIR}/${item.rel}`;
      if (item.kind === "directory") folders.push(item.abs);
      else if (item.kind === "file") await clearFile(rel, item.abs);
      else
        throw refuse(
          rel,
          `is a ${item.kind === "symlink" ? "symbolic link" : "special file"}, which an archive does not hold`,
        );
    }
    fsyncDir(paths.reportsDir);
    for (const name of STATE_FILES) await clearFile(`${STATE_DIR}/${name}`, join(paths.stateDir, name));
    fsyncDir(paths.stateDir);
  } catch (error) {
    // Put back what was moved, newest first, so the live state is whole again.
    for (const [from, to] of moved.reverse()) {
      await mkdir(dirname(from), { recursive: true }).catch(() => undefined);
      await rename(to, from).catch(() => undefined);
    }
    fsyncDir(paths.reportsDir);
    fsyncDir(paths.stateDir);
    throw error;
  } finally {
    await removeQuietly(trash);
    fsyncDir(paths.archiveDir);
  }
  // Folders left empty (all in the archive as folders); deepest first, a non-empty one stays.
  for (const folder of folders.reverse()) await rmdir(folder).catch(() => undefined);
  fsyncDir(paths.reportsDir);
}
