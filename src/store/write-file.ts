// The one way dotagent changes a file on disk: every file it writes, replaces or appends, every
// folder it makes for one and every file it moves goes through this module (test/write-sites.test.ts
// keeps the list of the few raw writes left equal to the code's, each with its reason).
//
// THREAT: the files of a project come from whoever wrote the repository or works in it. A clone
// can carry a symbolic link where dotagent writes (memory/state/.step-running.json → /etc/passwd,
// memory/reports/steps → /etc, a .gitignore → ~/.bashrc), and an agent at work can plant one.
// dotagent runs as the person, often as root (containers, CI): a write that follows such a link
// replaces or appends to the file it points to, wherever that is.
//
// Guarantees, for a write under `root` (the project, or the one folder a caller names: the
// LangGraph saver's folder, the user's folder for `install --scope user`, the folder of a file
// the person names):
// - the folders from `root` down to the file stay inside root's real path: a folder on the way
//   that is a link is followed only while it resolves to a folder inside; one that leads out, to
//   nothing, or to a file is refused (`path_outside_project`, exit 3, one line naming the
//   root-relative path and what to do) before anything is written. `root` itself may be reached
//   through links (/tmp on macOS, a linked ~/.claude): it is compared by its real path;
// - the file itself is never followed: a replace writes a temp file created beside it with
//   O_CREAT|O_EXCL|O_NOFOLLOW under an unpredictable name, then rename()s it over the file, and a
//   rename replaces a link itself, never what it points to; an append opens with O_NOFOLLOW (a
//   link there is refused, `path_is_link`) and O_NONBLOCK, and writes only to a regular file (a
//   FIFO never blocks it). A caller may ask that a link at the file be written through
//   (`link: "inside"`: the .gitignore and settings.json a person links to a shared copy) only
//   while it leads to a file inside root; then the write goes to that real path, by the same rules;
// - a replace is atomic and durable: after writeFileInside returns, the file holds the new bytes
//   across a power loss; a kill at any point before leaves the old bytes (or no file). The temp
//   file (`<name>.<digits>`, the shape the sweeps know: sweep.ts, run-once.ts, checkpoint-store.ts)
//   may survive a kill, and is removed by the next writer holding the lock. A replaced file keeps
//   its permission bits (never setuid, setgid or sticky ones) and, for root, its owner; a new one
//   gets `mode` exactly, or 0o666 less the umask.
//
// Not covered: a process racing this one, swapping a checked folder for a link between the check
// and the open (the window is a few system calls; O_NOFOLLOW guards only the last component, and
// closing it needs openat() on each folder's descriptor, which Node does not offer). Hard links:
// a replace gives the name a new file, so a hard link is safe there; an append writes the one
// file all its names share (a clone cannot carry a hard link, and whoever can make one to a file
// can already write that file). Removals (unlink, rm) are not writes and are not checked here.
import {
  closeSync,
  constants,
  copyFileSync,
  fchmodSync,
  fchownSync,
  fstatSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import { escapeControls } from "../core/words.js";
import { fsyncDir } from "./fsync-dir.js";

export { fsyncDir };

export interface InsideOptions {
  /** What `root` is, for a refusal's message: "the project" unless said ("the checkpointer's folder"). */
  readonly within?: string;
}

export interface WriteOptions extends InsideOptions {
  /** The file's mode, exactly (no umask); default: the replaced file's mode, or 0o666 less the umask. */
  readonly mode?: number;
  /**
   * A link at the file itself: "replace" (default) puts the file in the link's place; "inside"
   * writes through it while it leads to a file inside root (refused when it leads out or nowhere).
   */
  readonly link?: "replace" | "inside";
  /** false: no fsync of the file or its folder (a record whose checksum or a later fsync covers it). */
  readonly durable?: boolean;
}

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NOCTTY = constants.O_NOCTTY ?? 0;
const TEMP_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW | NOCTTY;
const APPEND_FLAGS =
  constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NOFOLLOW | constants.O_NONBLOCK | NOCTTY;
/** A name taken by someone else is tried again under another; past this many, the error stands. */
const TEMP_ATTEMPTS = 16;

/** A path placed under root: absolute, its folders checked; `realRoot` for further checks. */
export interface Placed {
  readonly top: string;
  readonly abs: string;
  readonly realRoot: string;
  readonly within: string;
}

/** The refusal of a path that leads out of root: one line, the root-relative path, what to do. */
function refusal(placed: Pick<Placed, "top" | "within">, path: string, what: string): DotagentError {
  const rel = escapeControls(relative(placed.top, path).split(sep).join("/") || ".");
  return new DotagentError(
    "path_outside_project",
    `${rel} ${what}; for the person: remove the link, then run the command again`,
    EXIT.invalid,
    { path: rel },
  );
}

const isWithin = (real: string, realRoot: string) =>
  real === realRoot || real.startsWith(realRoot.endsWith(sep) ? realRoot : realRoot + sep);

/** A link on the way (a folder, or the file under `link: "inside"`): its real path, when it stays inside root and is of the kind wanted. */
function followLink(placed: Placed, path: string, want: "folder" | "file"): string {
  let real: string;
  try {
    real = realpathSync.native(path);
  } catch {
    throw refusal(placed, path, "is a link to nothing");
  }
  if (!isWithin(real, placed.realRoot))
    throw refusal(placed, path, `is a link that leads out of ${placed.within} (to ${escapeControls(real)})`);
  const stat = statSync(real);
  if (want === "folder" && !stat.isDirectory())
    throw refusal(placed, path, "is a link to a file, where a folder belongs");
  if (want === "file" && !stat.isFile())
    throw refusal(placed, path, "is a link to something that is not a regular file");
  return real;
}

/** `root` resolved, with its real path and its name for messages. */
function rootOf(root: string, options: InsideOptions): Omit<Placed, "abs"> {
  const top = resolve(root);
  return { top, realRoot: realpathSync.native(top), within: options.within ?? "the project" };
}

/**
 * `path` as every fs call takes it (absolute, or relative to the current folder: what
 * `join(root, …)` gives for a relative root too) as a path strictly below root, or the refusal.
 */
function below(top: string, path: string, within: string): string {
  const abs = resolve(path);
  const rel = relative(top, abs);
  if (rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new DotagentError(
      "path_outside_project",
      `${escapeControls(abs)} is not inside ${within} (${escapeControls(top)}); dotagent writes only inside it`,
      EXIT.invalid,
      { path: escapeControls(abs) },
    );
  }
  return abs;
}

/**
 * The parent check: `file` (a path as fs takes it, which must lie below root) placed, each folder from
 * root down checked. A folder that is not there yet ends the check (nothing below it exists); a
 * path outside root is refused. Disk errors (EACCES, …) are thrown as they are.
 */
export function placeInside(root: string, file: string, options: InsideOptions = {}): Placed {
  const within = options.within ?? "the project";
  const abs = below(resolve(root), file, within);
  const placed: Placed = { ...rootOf(root, options), abs };
  let current = placed.top;
  for (const part of relative(placed.top, abs).split(sep).slice(0, -1)) {
    current = join(current, part);
    let isLink: boolean;
    try {
      isLink = lstatSync(current).isSymbolicLink();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") break;
      throw error;
    }
    if (isLink) followLink(placed, current, "folder");
  }
  return placed;
}

/** A regular file's stats (its mode and owner to keep), or undefined (none there, a link, anything else). */
function regularFile(path: string): { mode: number; uid: number; gid: number } | undefined {
  try {
    const stat = lstatSync(path);
    return stat.isFile() ? { mode: stat.mode & 0o777, uid: stat.uid, gid: stat.gid } : undefined;
  } catch {
    return undefined;
  }
}

/** An unpredictable decimal suffix (the `<name>.<digits>` temp shape the sweeps remove). */
function tempSuffix(): string {
  return String(process.getBuiltinModule("node:crypto").randomBytes(4).readUInt32BE(0));
}

function writeAll(fd: number, data: string | Uint8Array): void {
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
}

function tryUnlink(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

/**
 * Replaces `file` (under `root`) with `data`: atomic, durable unless `durable: false`, never
 * through a link (see the header). Throws `path_outside_project`, or the disk's error as it is.
 */
export function writeFileInside(
  root: string,
  file: string,
  data: string | Uint8Array,
  options: WriteOptions = {},
): void {
  const placed = placeInside(root, file, options);
  let target = placed.abs;
  if (options.link === "inside") {
    let isLink = false;
    try {
      isLink = lstatSync(target).isSymbolicLink();
    } catch {
      // not there yet: written as a new file
    }
    if (isLink) target = followLink(placed, target, "file");
  }
  const durable = options.durable !== false;
  const before = regularFile(target);
  const mode = options.mode ?? before?.mode;
  let temp = "";
  let fd: number | undefined;
  for (let attempt = 1; fd === undefined; attempt++) {
    temp = `${target}.${tempSuffix()}`;
    try {
      fd = openSync(temp, TEMP_FLAGS, mode ?? 0o666);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= TEMP_ATTEMPTS) throw error;
    }
  }
  let renamed = false;
  try {
    if (mode !== undefined) fchmodSync(fd, mode);
    if (before !== undefined) {
      try {
        fchownSync(fd, before.uid, before.gid); // root rewriting a person's file leaves it theirs
      } catch {
        // not permitted (not root): the file is the writer's, as any new file
      }
    }
    writeAll(fd, data);
    if (durable) fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, target);
    renamed = true;
  } finally {
    if (fd !== undefined) closeSync(fd);
    if (!renamed) tryUnlink(temp);
  }
  if (durable) fsyncDir(dirname(target));
}

/** writeFileInside of `value` as the state files are written: two-space JSON and a line break. */
export function writeJsonInside(root: string, file: string, value: unknown, options: WriteOptions = {}): void {
  writeFileInside(root, file, `${JSON.stringify(value, null, 2)}\n`, options);
}

/**
 * Appends `data` to `file` (created when missing) with one write() on an O_APPEND descriptor;
 * `fsync: true` makes it durable. Never through a link (`path_is_link`), never blocking on a FIFO
 * (ENXIO), only to a regular file (EINVAL otherwise).
 */
export function appendFileInside(
  root: string,
  file: string,
  data: string | Uint8Array,
  options: InsideOptions & { readonly fsync?: boolean; readonly mode?: number } = {},
): void {
  const placed = placeInside(root, file, options);
  let fd: number;
  try {
    fd = openSync(placed.abs, APPEND_FLAGS, options.mode ?? 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ELOOP") throw error;
    const rel = escapeControls(relative(placed.top, placed.abs).split(sep).join("/"));
    throw new DotagentError(
      "path_is_link",
      `${rel} is a link; dotagent appends only to the file itself, never through a link; for the person: replace the link with the file, then run the command again`,
      EXIT.invalid,
      { path: rel },
    );
  }
  try {
    if (!fstatSync(fd).isFile())
      throw Object.assign(new Error(`${placed.abs} is not a regular file`), {
        code: "EINVAL",
        syscall: "open",
        path: placed.abs,
      });
    writeAll(fd, data);
    if (options.fsync === true) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Makes `dir` and the folders above it up to root (root itself too, when missing: it is the
 * caller's own folder), each one checked as it is reached: a link on the way must lead to a
 * folder inside root. Returns the first folder it created, or undefined (as mkdir -p).
 */
export function mkdirInside(root: string, dir: string, options: InsideOptions = {}): string | undefined {
  const top = resolve(root);
  let first = mkdirSync(top, { recursive: true });
  if (resolve(dir) === top) return first;
  const abs = below(top, dir, options.within ?? "the project");
  const placed: Placed = { ...rootOf(top, options), abs };
  let current = top;
  for (const part of relative(top, abs).split(sep)) {
    current = join(current, part);
    let stat;
    try {
      stat = lstatSync(current);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      try {
        mkdirSync(current);
        first ??= current;
        continue;
      } catch (made) {
        if ((made as NodeJS.ErrnoException).code !== "EEXIST") throw made;
        stat = lstatSync(current); // made by another process meanwhile: checked like any other
      }
    }
    if (stat.isSymbolicLink()) followLink(placed, current, "folder");
    else if (!stat.isDirectory()) mkdirSync(current); // a file where a folder belongs: mkdir's own EEXIST
  }
  return first;
}

/** Moves `from` to `to`, both under root with their folders checked (a link at either is moved or replaced itself). */
export function renameInside(root: string, from: string, to: string, options: InsideOptions = {}): void {
  const source = placeInside(root, from, options);
  const target = placeInside(root, to, options);
  renameSync(source.abs, target.abs);
}

/** A hard link `to` of `from` (a new name: EEXIST when taken), both under root with their folders checked. */
export function linkInside(root: string, from: string, to: string, options: InsideOptions = {}): void {
  const source = placeInside(root, from, options);
  const target = placeInside(root, to, options);
  linkSync(source.abs, target.abs);
}

/** A copy of `from` as the new file `to` (EEXIST when taken: never through a link there), both under root with their folders checked. */
export function copyFileInside(root: string, from: string, to: string, options: InsideOptions = {}): void {
  const source = placeInside(root, from, options);
  const target = placeInside(root, to, options);
  copyFileSync(source.abs, target.abs, constants.COPYFILE_EXCL);
}
