// clearLiveState removes the live workflow: phase.json, execution.json, events.jsonl and
// everything inside memory/reports/ (the folder itself, memory/state/ and .archive/ stay).
// Call it only after createArchive has returned: the archive is then durable.
//
// Each item is first renamed into a `.clear-*` folder in .archive/ (one quick, atomic step per
// item) and deleted from there, so a kill leaves each item either live or in the trash, never
// half deleted; pruneArchives sweeps the trash. A failed step (disk error) moves everything back,
// so the live state is whole again. Reports go first and phase.json last: a kill part-way leaves
// a workflow whose outputs are partly gone, which validation calls corrupt and resume offers to
// archive (the archive made just before already holds everything), but never a fresh start
// sitting beside old reports that resume would take as done.
import { mkdir, mkdtemp, readdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { fsyncDir } from "../store/atomic-write.js";
import { assertRealFolders, resolveArchivePaths, STATE_FILES } from "./archive-layout.js";
import { TEMP_PREFIX } from "./archive-names.js";
import { isMissing, removeQuietly } from "./file-tree.js";

export async function clearLiveState(root: string): Promise<void> {
  const paths = resolveArchivePaths(root);
  assertRealFolders(paths);
  await mkdir(paths.reportsDir, { recursive: true });
  await mkdir(paths.archiveDir, { recursive: true });
  const trash = await mkdtemp(join(paths.archiveDir, TEMP_PREFIX.clear));
  const moved: Array<[from: string, to: string]> = [];
  try {
    await mkdir(join(trash, "reports"));
    await mkdir(join(trash, "state"));
    for (const name of (await readdir(paths.reportsDir)).sort()) {
      if (await moveAside(join(paths.reportsDir, name), join(trash, "reports", name))) moved.push([join(paths.reportsDir, name), join(trash, "reports", name)]);
    }
    fsyncDir(paths.reportsDir);
    for (const name of STATE_FILES) {
      if (await moveAside(join(paths.stateDir, name), join(trash, "state", name))) moved.push([join(paths.stateDir, name), join(trash, "state", name)]);
    }
    fsyncDir(paths.stateDir);
  } catch (error) {
    // Put back what was moved, newest first, so the live state is whole again.
    for (const [from, to] of moved.reverse()) await rename(to, from).catch(() => undefined);
    fsyncDir(paths.reportsDir);
    fsyncDir(paths.stateDir);
    throw error;
  } finally {
    await removeQuietly(trash);
    fsyncDir(paths.archiveDir);
  }
}

/** Moves `from` into the trash; true when it was moved (and can be moved back). */
async function moveAside(from: string, to: string): Promise<boolean> {
  try {
    await rename(from, to);
    return true;
  } catch (error) {
    if (isMissing(error)) return false;
    // .archive/ on another file system than memory/reports/: delete in place instead.
    if ((error as NodeJS.ErrnoException).code === "EXDEV") {
      await rm(from, { recursive: true, force: true });
      return false;
    }
    throw error;
  }
}
