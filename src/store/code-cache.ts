// V8's code cache of the CLI's hot half (SPEC §13 "Start-up"; the loader is src/cli/boot.ts, the
// build scripts/build.mjs). Compiling the hot half's ~470 kB is most of what a `status` or a hook
// costs above a bare `node`: parsing it at every start, then each function it calls. V8 can save
// what it compiled as a blob and start from it next time, so the loader keeps one blob per command
// (`status`, `hook session-start`, …: each compiles different functions) in the user's state folder:
// `<state folder>/code-cache/<build key>-<node version>-<arch>-<command>.bin`.
//
// Guarantees:
// - never in a project, never carried by git: beside the checkout keys (src/store/checkout-key.ts),
//   so whoever can write a blob here could already replace a key: no new party gets in;
// - read only from a regular file owned by this user, never through a link (O_NOFOLLOW), at most
//   32 MiB; written into a temp created O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600, in a 0700 folder, then
//   renamed into place (two processes at once: the last rename wins, both blobs are whole);
// - V8 itself refuses a blob made from other source, another V8 or other flags (`cachedDataRejected`:
//   the loader compiles as if there were none and saves a new one);
// - never a failure of the command: any error means "no blob", and nothing is said;
// - bounded: blobs of other builds are removed when one is saved, and at most 32 stay;
// - off with DOTAGENT_CODE_CACHE=0; DOTAGENT_CODE_CACHE=/abs/folder keeps the blobs there instead
//   (the tests share one folder across their state folders).
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  readdirSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { isAbsolute, join } from "node:path";
import { stateHome } from "./checkout-key.js";

export const CODE_CACHE_DIR = "code-cache";
const MAX_BYTES = 32 * 1024 * 1024;
const KEEP = 32;
/** A build key: the package's version and a digest of the hot half (scripts/build.mjs). */
const BUILD_KEY = /^[0-9A-Za-z.+_-]{1,64}$/;

/** Which commands share a blob: the command's name (a hook's with its event), else `other`. */
export function cacheGroup(argv: readonly string[]): string {
  const [command, event] = argv;
  const plain = (word: string | undefined) => word !== undefined && /^[a-z][a-z-]{0,31}$/.test(word);
  if (!plain(command)) return "other";
  return command === "hook" && plain(event) ? `hook-${event}` : command!;
}

/** The blob's file for this build and command (DOTAGENT_CODE_CACHE: `0` off, an absolute path the folder), or null when off or the key is no plain key. */
export function codeCacheFile(
  buildKey: string,
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): string | null {
  const setting = env.DOTAGENT_CODE_CACHE;
  if (setting === "0" || !BUILD_KEY.test(buildKey)) return null;
  const runtime = `${process.version}-${process.arch}`.replace(/[^0-9A-Za-z._-]/g, "_");
  const dir = setting !== undefined && isAbsolute(setting) ? setting : join(stateHome(env), CODE_CACHE_DIR);
  return join(dir, `${buildKey}-${runtime}-${cacheGroup(argv)}.bin`);
}

const ownedByMe = (uid: number) => typeof process.getuid !== "function" || uid === process.getuid();

/**
 * The blob, when it is a regular file of this user's, not a link, not over 32 MiB; else undefined.
 * Read into `scratch` when it fits (memory the caller has no more use for), else into a buffer of its own.
 */
export function readCodeCache(file: string, scratch?: Buffer): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const s = fstatSync(fd);
    if (!s.isFile() || !ownedByMe(s.uid) || s.size === 0 || s.size > MAX_BYTES) return undefined;
    const data =
      scratch !== undefined && s.size <= scratch.length ? scratch.subarray(0, s.size) : Buffer.allocUnsafe(s.size);
    let got = 0;
    while (got < s.size) {
      const n = readSync(fd, data, got, s.size - got, got);
      if (n === 0) return undefined;
      got += n;
    }
    return data;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Saves a blob atomically (see the header); false when it could not, which is never an error. */
export function writeCodeCache(file: string, data: Buffer, buildKey: string): boolean {
  if (data.length === 0 || data.length > MAX_BYTES) return false;
  const dir = join(file, "..");
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const d = lstatSync(dir);
    if (!d.isDirectory() || !ownedByMe(d.uid)) return false;
    const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      let put = 0;
      while (put < data.length) put += writeSync(fd, data, put, data.length - put);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
  } catch {
    try {
      unlinkSync(temp);
    } catch {
      // never made
    }
    return false;
  }
  prune(dir, file, buildKey);
  return true;
}

/** Removes blobs of other builds and temps a kill left, then the oldest blobs beyond 32. */
function prune(dir: string, kept: string, buildKey: string): void {
  try {
    const blobs: Array<{ path: string; mtime: number }> = [];
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (path === kept) continue;
      if (name.endsWith(".tmp")) {
        // another process's temp, left by a kill: removed once it is a minute old
        if (Date.now() - lstatSync(path).mtimeMs > 60_000) unlinkSync(path);
      } else if (name.endsWith(".bin")) {
        if (!name.startsWith(`${buildKey}-`)) unlinkSync(path);
        else blobs.push({ path, mtime: lstatSync(path).mtimeMs });
      }
    }
    blobs.sort((a, b) => b.mtime - a.mtime);
    for (const blob of blobs.slice(KEEP - 1)) unlinkSync(blob.path);
  } catch {
    // a blob another process removed first, or a folder that cannot be listed: nothing to keep tidy
  }
}
