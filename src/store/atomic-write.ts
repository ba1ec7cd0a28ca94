// Atomic, durable file replacement. Guarantee: after writeFileDurable returns, the target holds
// the new bytes even across power loss; if the process dies at any point before, the target holds
// the old bytes (or does not exist, if it did not). The temp file (`<name>.<digits>`, made by
// write-file-atomic beside the target) may survive a kill; sweepTempFiles removes it later.
import { closeSync, fsyncSync, openSync } from "node:fs";
import { dirname } from "node:path";
import writeFileAtomic from "write-file-atomic";

export function writeFileDurable(file: string, data: string | Buffer, mode?: number): void {
  // write-file-atomic: temp file beside the target, write, fsync, rename over the target.
  writeFileAtomic.sync(file, data, { fsync: true, ...(mode === undefined ? {} : { mode }) });
  fsyncDir(dirname(file));
}

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

export function writeJsonDurable(file: string, value: unknown): void {
  writeFileDurable(file, `${JSON.stringify(value, null, 2)}\n`);
}
