import { closeSync, fsyncSync, openSync } from "node:fs";

/** Makes a rename or unlink in `dir` durable. */
export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // Some file systems refuse fsync on a directory (EINVAL/EISDIR); the rename is still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
