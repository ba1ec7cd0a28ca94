// Small file-system helpers for the archive module: walk a folder without following links,
// hash a file, and make a freshly written tree durable before it is renamed into place.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { lstat, open, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { fsyncDir } from "../store/fsync-dir.js";

export interface TreeItem {
  /** Relative to the walked folder, `/`-separated. */
  readonly rel: string;
  readonly abs: string;
  readonly kind: "file" | "directory" | "symlink" | "other";
  readonly size: number;
  readonly mode: number;
}

/**
 * Every item under `dir` (not `dir` itself), parents before children, names sorted, links
 * reported as links and never followed. A missing `dir` gives [].
 */
export async function walkTree(dir: string): Promise<TreeItem[]> {
  const items: TreeItem[] = [];
  await walkInto(dir, "", items);
  return items;
}

async function walkInto(dir: string, prefix: string, items: TreeItem[]): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if (isMissing(error)) return;
    throw error;
  }
  names.sort();
  for (const name of names) {
    const abs = join(dir, name);
    const rel = prefix === "" ? name : `${prefix}/${name}`;
    let stat;
    try {
      stat = await lstat(abs);
    } catch (error) {
      if (isMissing(error)) continue; // removed while we walked
      throw error;
    }
    const kind = stat.isFile()
      ? "file"
      : stat.isDirectory()
        ? "directory"
        : stat.isSymbolicLink()
          ? "symlink"
          : "other";
    items.push({ rel, abs, kind, size: stat.size, mode: stat.mode });
    if (kind === "directory") await walkInto(abs, rel, items);
  }
}

export async function sha256File(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

export async function fsyncFile(file: string): Promise<void> {
  const handle = await open(file, "r+");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** fsyncs every file and folder under `dir` and `dir` itself, deepest first. */
export async function fsyncTree(dir: string): Promise<void> {
  const items = await walkTree(dir);
  for (const item of items) if (item.kind === "file") await fsyncFile(item.abs);
  for (const item of items.reverse()) if (item.kind === "directory") fsyncDir(item.abs);
  fsyncDir(dir);
}

/** rm -rf that never throws: used on our own temp folders, where a leftover is swept later. */
export async function removeQuietly(path: string): Promise<void> {
  try {
    await rm(path, { recursive: true, force: true });
  } catch {
    // pruneArchives sweeps leftovers
  }
}

export function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
}
