// The one rule for what an archive may hold. Restore checks every entry against it before
// anything is extracted, and again while extracting; create applies it too, so dotagent never
// writes an archive it would refuse to restore. Pure: no file system, no tar.
//
// Allowed: regular files and folders under memory/reports/, the three state files under
// memory/state/, the folders memory/, memory/state/, memory/reports/, and the manifest at the top.
// Everything else is refused with a reason a person can act on.
import { REPORTS_DIR, STATE_DIR } from "../core/phases.js";
import { MANIFEST_NAME, STATE_FILES } from "./archive-layout.js";

export interface ArchiveLimits {
  /** Largest single file, in bytes. */
  readonly maxEntrySize: number;
  /** Most path segments (`memory/reports/a.json` has 3). */
  readonly maxDepth: number;
  /** Most entries in one archive. */
  readonly maxEntries: number;
  /** Most bytes of file content in one archive. */
  readonly maxTotalSize: number;
}

export const DEFAULT_LIMITS: ArchiveLimits = {
  maxEntrySize: 64 * 1024 * 1024,
  maxDepth: 32,
  maxEntries: 100_000,
  maxTotalSize: 1024 * 1024 * 1024,
};

export function resolveLimits(overrides: Partial<ArchiveLimits> | undefined): ArchiveLimits {
  return { ...DEFAULT_LIMITS, ...overrides };
}

/** What the policy needs to know about an entry: node-tar's ReadEntry fits, so does an lstat. */
export interface EntryFacts {
  readonly path: string;
  /** node-tar's type name: File, Directory, SymbolicLink, Link, FIFO, … */
  readonly type: string;
  readonly size: number;
  readonly linkpath?: string | undefined;
}

export type EntryVerdict =
  | { readonly ok: true; readonly path: string; readonly kind: "file" | "directory" }
  | { readonly ok: false; readonly reason: string };

const FILE_TYPES: ReadonlySet<string> = new Set(["File", "OldFile", "ContiguousFile"]);
const ALLOWED_FOLDERS: ReadonlySet<string> = new Set(["memory", STATE_DIR, REPORTS_DIR]);
const ALLOWED_STATE_FILES: ReadonlySet<string> = new Set(STATE_FILES.map((name) => `${STATE_DIR}/${name}`));

export function checkEntry(facts: EntryFacts, limits: ArchiveLimits): EntryVerdict {
  const raw = facts.path;
  if (raw === "") return refuse("has an empty path");
  if (raw.includes("\0")) return refuse("has a NUL byte in its path");
  // node-tar would strip these and extract under the target; we refuse instead of rewriting.
  if (raw.startsWith("/") || raw.startsWith("\\") || /^[A-Za-z]:/.test(raw)) return refuse("is an absolute path");
  // On Windows a backslash is a separator, so `a\..\..\x` would climb out there.
  if (raw.includes("\\")) return refuse("has a backslash in its path");

  const path = raw.endsWith("/") ? raw.slice(0, -1) : raw;
  const segments = path.split("/");
  if (segments.includes("..")) return refuse("contains '..'");
  if (segments.some((segment) => segment === "" || segment === "."))
    return refuse("is not a plain relative path (empty or '.' segment)");
  if (segments.length > limits.maxDepth) return refuse(`is ${segments.length} folders deep (limit ${limits.maxDepth})`);

  const kind = classifyEntryType(facts);
  if (typeof kind === "object") return kind;

  if (kind === "file" && raw.endsWith("/")) return refuse("is a file whose path ends in '/'");
  const allowed =
    path.startsWith(`${REPORTS_DIR}/`) ||
    (kind === "file" ? path === MANIFEST_NAME || ALLOWED_STATE_FILES.has(path) : ALLOWED_FOLDERS.has(path));
  if (!allowed) {
    return refuse(`is outside what an archive may hold (${STATE_DIR}/{${STATE_FILES.join(",")}} and ${REPORTS_DIR}/)`);
  }
  if (kind === "file" && facts.size > limits.maxEntrySize) {
    return refuse(`is ${facts.size} bytes (limit ${limits.maxEntrySize})`);
  }
  return { ok: true, path, kind };
}

function classifyEntryType(facts: EntryFacts): "file" | "directory" | { ok: false; reason: string } {
  if (FILE_TYPES.has(facts.type)) return "file";
  if (facts.type === "Directory") return "directory";
  const target = facts.linkpath === undefined ? "" : ` to ${JSON.stringify(facts.linkpath)}`;
  switch (facts.type) {
    case "SymbolicLink":
      return refuse(`is a symbolic link${target}`);
    case "Link":
      return refuse(`is a hard link${target}`);
    case "CharacterDevice":
    case "BlockDevice":
      return refuse(`is a device (${facts.type})`);
    case "FIFO":
      return refuse("is a FIFO");
    default:
      return refuse(`has an entry type dotagent does not restore (${facts.type})`);
  }
}

function refuse(reason: string): { ok: false; reason: string } {
  return { ok: false, reason };
}
