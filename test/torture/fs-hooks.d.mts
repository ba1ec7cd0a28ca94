// Types for fs-hooks.mjs (plain JavaScript so that the preload can load it without a build step).
export interface FsOp {
  /** 1 for the first disk-changing call after installFsHooks, then 2, 3, … */
  readonly n: number;
  /** The call: "renameSync", "promises.rename", "handle.sync", "write", … */
  readonly name: string;
  readonly args: readonly unknown[];
  /** "<call> <path> [<second path>]", the paths resolved from fds where known. */
  readonly detail: string;
}
export function installFsHooks(onOp: (op: FsOp) => void): Promise<() => void>;
export function errnoError(code: string, syscall: string, path?: string): NodeJS.ErrnoException;
export const rawWriteSync: typeof import("node:fs").writeSync;
