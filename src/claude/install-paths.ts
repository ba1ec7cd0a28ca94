// Where `dotagent install` may touch: every path it reads, writes or removes under the install
// target (`.claude/`, or `~/.claude/` for the user) stays inside that target, lexically and
// through links. The manifest (`.claude/.dotagent-install.json`) is data from the repository (a
// project that commits `.claude/` carries it), so its entries are checked the way an archive's
// are: an entry that is not a plain relative path, climbs out with `..`, or passes through a link
// (a folder or the file itself) that leads out of the target is never read, written or removed.
// Guarantee: a crafted manifest can make install and `--uninstall` skip files, never touch a path
// outside the target.
import { escapeControls } from "../core/words.js";
import { createHash } from "node:crypto";
import { lstatSync, realpathSync } from "node:fs";
import { join, sep } from "node:path";
import { readProjectFile, type FileBytes } from "../store/read-file.js";

export const sha256 = (bytes: Buffer | string) => createHash("sha256").update(bytes).digest("hex");

/** Files of the target that install manages by their own rules, never as manifest entries. */
const RESERVED = new Set([".dotagent-install.json", "settings.json", "settings.local.json"]);

/** The longest entry path shown whole in a message; longer ones are named by length and start. */
const SHOWN = 120;

/**
 * Why `rel` (a `files` or `dirs` entry) is not a plain relative path inside the target, or null.
 * Pure. `.` (the target itself) is a valid folder entry: install records it when it created the
 * target. Entries are written by install with `/` separators, no `.` or empty segments.
 */
export function entryPathProblem(rel: string, kind: "file" | "dir"): string | null {
  if (rel === "") return "is empty";
  if (rel.length > 1024) return "is longer than any path install writes";
  if (rel.includes("\0")) return "holds a NUL byte";
  if (rel.startsWith("/") || rel.includes("\\") || /^[A-Za-z]:/.test(rel))
    return "is not a relative path inside the install folder";
  if (kind === "dir" && rel === ".") return null;
  const parts = rel.split("/");
  if (parts.includes("..")) return "climbs out of the install folder with ..";
  if (parts.some((p) => p === "" || p === ".")) return "is not a plain relative path (empty or . segments)";
  if (kind === "file" && RESERVED.has(rel)) return "names a file install manages by its own rules";
  return null;
}

/** An entry as a message may show it: one line (control characters escaped), at most SHOWN characters plus its length. */
export function showEntry(rel: string): string {
  const escaped = escapeControls(rel);
  return escaped.length <= SHOWN ? escaped : `${escaped.slice(0, 40)}… (${rel.length} characters)`;
}

/** `reason` completes "<entry> …", like "is inside skills, a link that leads out of the install folder". */
export type Placed = { readonly ok: true; readonly path: string } | { readonly ok: false; readonly reason: string };

/**
 * The absolute path of `rel` (already lexically checked) under `target`, or why it is not inside
 * it on disk: a folder on the way, or the entry itself, is a link whose real path lies outside
 * the target's real path (or leads nowhere), or cannot be looked at. Parts that do not exist yet
 * are fine: install creates them as real folders inside the target.
 */
export function placeInTarget(target: string, rel: string): Placed {
  const realTarget = realPath(target);
  let current = target;
  const parts = rel === "." ? [] : rel.split("/");
  for (let i = 0; i < parts.length; i++) {
    current = join(current, parts[i]!);
    const last = i === parts.length - 1;
    const folder = parts.slice(0, i + 1).join("/");
    let isLink: boolean;
    try {
      isLink = lstatSync(current).isSymbolicLink();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") break;
      return {
        ok: false,
        reason: last
          ? `cannot be looked at (${code ?? "error"})`
          : `is inside ${folder}, which cannot be looked at (${code ?? "error"})`,
      };
    }
    if (!isLink) continue;
    const real = realPath(current);
    const inside =
      real !== null &&
      realTarget !== null &&
      (real === realTarget || real.startsWith(realTarget.endsWith(sep) ? realTarget : realTarget + sep));
    if (inside) continue;
    const link = real === null ? "a link to nothing" : "a link that leads out of the install folder";
    return { ok: false, reason: last ? `is ${link}` : `is inside ${folder}, ${link}` };
  }
  return { ok: true, path: rel === "." ? target : join(target, rel) };
}

/** An installed file's bytes: never blocks (a FIFO is refused), bounded, links followed (placeInTarget checked them). */
export function readInstalledFile(path: string): FileBytes {
  return readProjectFile(path, { maxBytes: 64 * 1024 * 1024, links: "follow" });
}

/** What is at an entry of the target: a file (its bytes and their sha256), nothing, or why it is not looked at. */
export type Found =
  | { readonly kind: "file"; readonly path: string; readonly hash: string; readonly bytes: Buffer }
  | { readonly kind: "missing"; readonly path: string }
  /** `reason` completes "<entry> …": "is a FIFO, not a regular file", "is inside skills, a link that leads out …". */
  | { readonly kind: "refused"; readonly reason: string };

/** Places `rel` inside the target, then reads it the bounded, non-blocking way. */
export function lookAt(target: string, rel: string): Found {
  const placed = placeInTarget(target, rel);
  if (!placed.ok) return { kind: "refused", reason: placed.reason };
  const read = readInstalledFile(placed.path);
  if (read.kind === "missing") return { kind: "missing", path: placed.path };
  if (read.kind === "refused") return { kind: "refused", reason: read.reason };
  return { kind: "file", path: placed.path, hash: sha256(read.bytes), bytes: read.bytes };
}

function realPath(path: string): string | null {
  try {
    return realpathSync.native(path);
  } catch {
    return null;
  }
}
