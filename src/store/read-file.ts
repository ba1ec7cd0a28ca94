// The one way dotagent reads a file of the project (state, reports, the lock, the clearing marker,
// settings.json, `task import` input). Guarantees, whatever sits at the path:
// - it never blocks: the file is opened with O_NONBLOCK and checked with fstat on that same
//   descriptor, so a FIFO, socket or device is refused without a byte read (no race between the
//   check and the read);
// - only a regular file is read; a link is refused (`links: "refuse"`) or resolved and must stay
//   inside the project's real root (`links: "inside"`);
// - at most `maxBytes` are read: a larger (or endless) file is refused, never loaded.
// Outcomes are data: ok, missing, or refused with a reason a person can act on.
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  realpathSync,
  type BigIntStats,
} from "node:fs";
import { sep } from "node:path";

export type FileBytes =
  /** `after`: the descriptor's fstat taken once the bytes were read (`statAfter`), which is what they were read from. */
  | { readonly kind: "ok"; readonly bytes: Buffer; readonly after?: BigIntStats }
  | { readonly kind: "missing" }
  /** `reason` completes "<file> …", e.g. "is a FIFO, not a regular file". `errno` when the disk said no. */
  | { readonly kind: "refused"; readonly reason: string; readonly errno?: string };

export interface ReadOptions {
  readonly maxBytes: number;
  /**
   * "refuse": a link is never followed; "inside": followed when it stays in `root`'s real path;
   * "follow": followed (a file the user names, like `task import FILE`).
   */
  readonly links: "refuse" | "inside" | "follow";
  /** The project root, for `links: "inside"`. */
  readonly root?: string;
}

export const MiB = 1024 * 1024;
/** State files and reports: 10,000 tasks take a few MB; this is far above any real one. */
export const MAX_STATE_BYTES = 64 * MiB;

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOCTTY ?? 0);

export function readProjectFile(
  file: string,
  options: ReadOptions & {
    readonly head?: boolean;
    readonly statAfter?: boolean;
    /** Bytes of room past the end of the buffer read into, by the file's size, for a write that reuses it (spare-buffer.ts). */
    readonly room?: (size: number) => number;
  },
): FileBytes {
  const opened = openRegular(file, options);
  if (typeof opened !== "number") return opened;
  const fd = opened;
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { kind: "refused", reason: `is ${describeType(stat)}, not a regular file` };
    if (options.head) return readHead(fd, options.maxBytes);
    if (stat.size > options.maxBytes) return { kind: "refused", reason: tooBig(stat.size, options.maxBytes) };
    const read = readAll(fd, options.maxBytes, stat.size, options.room?.(stat.size));
    return options.statAfter && read.kind === "ok" ? { ...read, after: fstatSync(fd, { bigint: true }) } : read;
  } catch (error) {
    return failed(error);
  } finally {
    closeSync(fd);
  }
}

/**
 * A file opened read-only by the rules of the header (a link refused or checked), or why not.
 * `noFollowOnly`: a link is refused by O_NOFOLLOW alone (ELOOP), where the system has it, saving an
 * lstat per read (the log's readers read it on every call).
 */
function openRegular(
  file: string,
  options: Omit<ReadOptions, "maxBytes">,
  noFollowOnly = false,
): number | Exclude<FileBytes, { kind: "ok" }> {
  if (
    options.links !== "follow" &&
    !(noFollowOnly && options.links === "refuse" && constants.O_NOFOLLOW !== undefined)
  ) {
    let link = false;
    try {
      link = lstatSync(file).isSymbolicLink();
    } catch (error) {
      return failed(error);
    }
    if (link) {
      if (options.links === "refuse")
        return { kind: "refused", reason: "is a symbolic link; replace it with the file itself" };
      if (!isInside(file, options.root!)) return { kind: "refused", reason: "is a link that leads out of the project" };
    }
  }
  try {
    return openSync(file, OPEN_FLAGS | (options.links === "refuse" ? (constants.O_NOFOLLOW ?? 0) : 0));
  } catch (error) {
    return failed(error);
  }
}

/** A regular file that only grows (an append-only log), as one reader sees it: which file it is, how long. */
export interface GrowingFile {
  readonly ino: number;
  readonly dev: number;
  readonly size: number;
}

/**
 * Parts of a regular file, each `{ offset, length }` (a part past the end comes back shorter),
 * read through one descriptor, with the file's identity and size; `from` alone reads from there
 * to the end, at most `maxBytes`; `into`, a buffer the parts are read into while they fit. The same guarantees as readProjectFile: never blocks, never
 * follows a link, only a regular file.
 */
export function readProjectParts(
  file: string,
  parts: ReadonlyArray<{ readonly offset: number; readonly length: number }>,
  options: { readonly from?: number; readonly maxBytes?: number; readonly into?: Buffer } = {},
):
  | { readonly kind: "ok"; readonly parts: Buffer[]; readonly tail: Buffer; readonly file: GrowingFile }
  | Exclude<FileBytes, { kind: "ok" }> {
  const opened = openRegular(file, { links: "refuse" }, true);
  if (typeof opened !== "number") return opened;
  const fd = opened;
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { kind: "refused", reason: `is ${describeType(stat)}, not a regular file` };
    // The parts go into `into` one after another while they fit (a caller reading batch after batch reuses one buffer).
    let used = 0;
    const read = (offset: number, length: number) => {
      const fits = options.into !== undefined && used + length <= options.into.length;
      const buffer = fits ? options.into!.subarray(used, used + length) : Buffer.allocUnsafe(Math.max(0, length));
      if (fits) used += length;
      let total = 0;
      while (total < length) {
        const n = readSync(fd, buffer, total, length - total, offset + total);
        if (n === 0) break;
        total += n;
      }
      return buffer.subarray(0, total);
    };
    const from = options.from;
    const tail =
      from === undefined
        ? Buffer.alloc(0)
        : read(from, Math.min(Math.max(0, stat.size - from), options.maxBytes ?? MAX_STATE_BYTES));
    return {
      kind: "ok",
      parts: parts.map((p) => read(p.offset, p.length)),
      tail,
      file: { ino: stat.ino, dev: stat.dev, size: stat.size },
    };
  } catch (error) {
    return failed(error);
  } finally {
    closeSync(fd);
  }
}

/**
 * The first `bytes` of a regular file (a version marker in a script's first lines), with the same
 * guarantees: never blocks, a FIFO, socket, device or folder refused without a byte read.
 */
export function readProjectHead(file: string, bytes: number, options: Omit<ReadOptions, "maxBytes">): FileBytes {
  return readProjectFile(file, { ...options, maxBytes: bytes, head: true });
}

/** The same, as text; `refused` and `missing` as they are. */
export function readProjectText(
  file: string,
  options: ReadOptions,
): { kind: "ok"; text: string } | Exclude<FileBytes, { kind: "ok" }> {
  const read = readProjectFile(file, options);
  return read.kind === "ok" ? { kind: "ok", text: read.bytes.toString("utf8") } : read;
}

/**
 * Reads at most `maxBytes` from a descriptor that may never end (stdin, a pipe): refused past the
 * limit. A non-blocking descriptor with nothing to read yet is waited on briefly, never forever.
 */
export function readAll(fd: number, maxBytes: number, sizeHint = 64 * 1024, room = 0): FileBytes {
  const chunks: Buffer[] = [];
  let total = 0;
  // A regular file fits its first chunk (its size and one byte, to see the end): the read that
  // finds the end goes into that chunk's free room, so no second buffer is made. Only the bytes
  // read are ever handed out, so the chunks need no zero-filling.
  let chunk = Buffer.allocUnsafe(Math.min(Math.max(sizeHint + 1, 4096), maxBytes + 1) + room);
  let used = 0;
  for (;;) {
    if (used === chunk.length) {
      chunks.push(chunk);
      chunk = Buffer.allocUnsafe(Math.min(MiB, maxBytes + 1 - total));
      used = 0;
    }
    let n: number;
    try {
      n = readSync(fd, chunk, used, chunk.length - used, null);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EAGAIN") {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
        continue;
      }
      throw error;
    }
    if (n === 0) break;
    used += n;
    total += n;
    if (total > maxBytes) return { kind: "refused", reason: tooBig(total, maxBytes, true) };
  }
  if (used > 0) chunks.push(chunk.subarray(0, used));
  return { kind: "ok", bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total) };
}

/**
 * One JSON object from a descriptor a hook's caller writes to (stdin): read until EOF or until
 * what arrived is one whole JSON object, whichever comes first, so a caller that keeps the pipe
 * open after its object cannot make the reader wait. A non-blocking descriptor (EAGAIN: the
 * caller has not written the rest yet, as a Node parent writing over one pipe buffer does) is
 * waited on and read again, never taken as the end; a caller that stops writing mid-object for
 * `idleMs` ends the read. Past `maxBytes`, or not one JSON object: undefined.
 */
export function readJsonObject(fd: number, maxBytes: number, idleMs = 3000): Record<string, unknown> | undefined {
  const chunks: Buffer[] = [];
  let total = 0;
  let idleSince = 0;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const buffer = Buffer.alloc(256 * 1024);
  const parse = (): Record<string, unknown> | undefined => {
    try {
      const value = JSON.parse(Buffer.concat(chunks, total).toString("utf8")) as unknown;
      return value !== null && typeof value === "object" && !Array.isArray(value)
        ? (value as Record<string, unknown>)
        : undefined;
    } catch {
      return undefined;
    }
  };
  for (;;) {
    let n: number;
    try {
      n = readSync(fd, buffer, 0, buffer.length, null);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") return parse();
      idleSince ||= Date.now();
      if (Date.now() - idleSince >= idleMs) return parse();
      Atomics.wait(pause, 0, 0, 2);
      continue;
    }
    if (n === 0) return parse();
    idleSince = 0;
    total += n;
    if (total > maxBytes) return undefined;
    chunks.push(Buffer.from(buffer.subarray(0, n)));
    // Parse only when the text so far can end an object (a "}" last, blanks aside): cheap for big inputs.
    if (endsWithBrace(buffer, n)) {
      const whole = parse();
      if (whole !== undefined) return whole;
    }
  }
}

function endsWithBrace(buffer: Buffer, n: number): boolean {
  for (let i = n - 1; i >= 0; i--) {
    const c = buffer[i]!;
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    return c === 0x7d;
  }
  return false;
}

/** Up to `bytes` from the start of a regular file (a short file gives what it has). */
function readHead(fd: number, bytes: number): FileBytes {
  const buffer = Buffer.alloc(bytes);
  let total = 0;
  for (;;) {
    const n = readSync(fd, buffer, total, bytes - total, total);
    if (n === 0 || (total += n) === bytes) break;
  }
  return { kind: "ok", bytes: buffer.subarray(0, total) };
}

function tooBig(size: number, max: number, endless = false): string {
  return endless ? `is over the ${formatBytes(max)} limit` : `is ${formatBytes(size)} (limit ${formatBytes(max)})`;
}

export function formatBytes(n: number): string {
  return n >= MiB && n % MiB === 0 ? `${n / MiB} MiB` : n >= 1024 && n % 1024 === 0 ? `${n / 1024} KiB` : `${n} bytes`;
}

function describeType(stat: {
  isDirectory(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
}): string {
  if (stat.isDirectory()) return "a folder";
  if (stat.isFIFO()) return "a FIFO";
  if (stat.isSocket()) return "a socket";
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return "a device";
  return "not a regular file";
}

function failed(error: unknown): Exclude<FileBytes, { kind: "ok" }> {
  const code = (error as NodeJS.ErrnoException).code ?? "error";
  if (code === "ENOENT") return { kind: "missing" };
  if (code === "ELOOP")
    return { kind: "refused", reason: "is a symbolic link; replace it with the file itself", errno: code };
  if (code === "ENXIO") return { kind: "refused", reason: "is a socket, not a regular file", errno: code };
  if (code === "EISDIR") return { kind: "refused", reason: "is a folder, not a regular file", errno: code };
  return { kind: "refused", reason: `cannot be read (${code})`, errno: code };
}

/** True when `path` (links resolved) lies inside `root` (links resolved). A dangling link is not. */
export function isInside(path: string, root: string): boolean {
  try {
    const real = realpathSync.native(path);
    const realRoot = realpathSync.native(root);
    return real === realRoot || real.startsWith(realRoot.endsWith(sep) ? realRoot : realRoot + sep);
  } catch {
    return false;
  }
}

/** Hook inputs over this are not read (a Write's input carries the whole file it writes). */
export const MAX_HOOK_INPUT_BYTES = 10 * 1024 * 1024;

/**
 * A hook's JSON input from stdin, for every client's hooks; a terminal, no input, bad JSON or an
 * input over 10 MiB yields {}. Waits for the whole object however it arrives (readJsonObject).
 */
export function readHookStdin(): Record<string, unknown> {
  if (stdinIsDevice()) return {};
  return readJsonObject(0, MAX_HOOK_INPUT_BYTES) ?? {};
}

/**
 * A terminal, or another device (/dev/null: no input; /dev/zero: no JSON object): nothing to read
 * as a hook's input. Asked of the descriptor, not of `process.stdin`, whose first use builds a
 * stream (a net.Socket on a pipe: ~30 internal modules) that a hook would make only to ask this.
 */
function stdinIsDevice(): boolean {
  try {
    return fstatSync(0).isCharacterDevice();
  } catch {
    return false;
  }
}
