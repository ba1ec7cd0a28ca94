// Atomic, durable file replacement. Guarantee: after writeFileDurable returns, the target holds
// the new bytes even across power loss; if the process dies at any point before, the target holds
// the old bytes (or does not exist, if it did not). The temp file (`<name>.<digits>`, made by
// write-file-atomic beside the target) may survive a kill; sweepTempFiles removes it later.
import { dirname } from "node:path";
import writeFileAtomic from "write-file-atomic";
import { fsyncDir } from "./fsync-dir.js";

export { fsyncDir };

export function writeFileDurable(file: string, data: string | Buffer, mode?: number): void {
  // write-file-atomic: temp file beside the target, write, fsync, rename over the target.
  writeFileAtomic.sync(file, data, { fsync: true, ...(mode === undefined ? {} : { mode }) });
  fsyncDir(dirname(file));
}

export function writeJsonDurable(file: string, value: unknown): void {
  writeFileDurable(file, `${JSON.stringify(value, null, 2)}\n`);
}
