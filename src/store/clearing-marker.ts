// memory/state/.clearing: written by a fresh start after the old state is archived and before the
// live state is cleared; it names that archive. Reading it proves as much as is cheap (it parses,
// names an archive, and that archive is a file in .archive/); the checksums are verified by the
// clear itself (src/archive/clear-live-state.ts) before anything is removed. A marker that proves
// nothing is corrupt state, never a reason to clear.
import { lstatSync } from "node:fs";
import { join } from "node:path";
import type { Clearing } from "../core/snapshot.js";
import { decodeJson } from "../schema/json.js";
import { isPlainArchiveFileName } from "../archive/archive-names.js";
import { readProjectText } from "./read-file.js";
import type { ProjectPaths } from "./project.js";

export const CLEARING_MARKER = ".clearing";
export const CLEARING_FILE = "memory/state/.clearing";

export function clearingPath(paths: ProjectPaths): string {
  return join(paths.stateDir, CLEARING_MARKER);
}

export function readClearing(paths: ProjectPaths): Clearing | null {
  const read = readProjectText(clearingPath(paths), { maxBytes: 64 * 1024, links: "refuse" });
  if (read.kind === "missing") return null;
  if (read.kind === "refused") return { archive: null, problem: read.reason };
  const decoded = decodeJson(read.text);
  const archive =
    decoded.ok && typeof decoded.value === "object" && decoded.value !== null
      ? (decoded.value as { archive?: unknown }).archive
      : undefined;
  if (typeof archive !== "string" || !isPlainArchiveFileName(archive)) {
    return { archive: null, problem: `does not name an archive (expected {"archive": "<name>.tar.gz"})` };
  }
  try {
    if (lstatSync(join(paths.archiveDir, archive)).isFile()) return { archive, problem: null };
  } catch {
    // missing or unreadable: the same for the clear, which needs the archive
  }
  return { archive, problem: `names the archive ${archive}, which is not in memory/state/.archive/` };
}
