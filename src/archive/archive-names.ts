// Archive file names: `<workflow_id>_<yyyyMMddTHHmmssZ>.tar.gz`, and `…Z-2.tar.gz`, `…Z-3.tar.gz`
// for further archives made within the same second. Order is by timestamp, then by that number,
// never by plain string order (`-10` sorts after `-9`). Names of temp files and folders that a
// killed archiver or restorer may leave behind all start with "." so they never look like archives.
import { ARCHIVE_EXTENSION } from "./archive-layout.js";

const NAME_PATTERN = /^([A-Za-z0-9._-]+)_(\d{8}T\d{6}Z)(?:-([1-9]\d{0,5}))?\.tar\.gz$/;
const MAX_ID_LENGTH = 128;

export interface ArchiveName {
  readonly name: string;
  readonly workflowId: string;
  /** `yyyyMMddTHHmmssZ`, fixed width, so string order is time order. */
  readonly timestamp: string;
  /** 1 for the first archive of a second, then 2, 3, … */
  readonly seq: number;
}

/** `20261120T093000Z` for 2026-11-20T09:30:00.xxxZ, always in UTC. */
export function formatArchiveTimestamp(now: Date): string {
  if (Number.isNaN(now.getTime())) throw new TypeError("formatArchiveTimestamp: invalid date");
  return now
    .toISOString()
    .replace(/\.\d{3}Z$/, "Z")
    .replace(/[-:]/g, "");
}

/** Makes any workflow id safe as the first part of a file name: `[A-Za-z0-9._-]`, no leading dot. */
export function sanitizeWorkflowId(id: unknown): string {
  if (typeof id !== "string") return "unknown";
  const safe = id
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    // A leading dot would make the archive a hidden temp-looking file; a leading dash reads as an option.
    .replace(/^[.-]+/, "")
    .slice(0, MAX_ID_LENGTH);
  return safe === "" ? "unknown" : safe;
}

export function formatArchiveName(workflowId: string, timestamp: string, seq: number): string {
  return `${workflowId}_${timestamp}${seq > 1 ? `-${seq}` : ""}${ARCHIVE_EXTENSION}`;
}

export function parseArchiveName(name: string): ArchiveName | null {
  const match = NAME_PATTERN.exec(name);
  if (match === null) return null;
  const [, workflowId, timestamp, seq] = match;
  if (workflowId === undefined || timestamp === undefined) return null;
  return { name, workflowId, timestamp, seq: seq === undefined ? 1 : Number(seq) };
}

/**
 * Newest first: by timestamp, then sequence number. Names that do not follow the pattern (an
 * archive renamed by hand) come last, by name, so prune never counts them as newer than real ones.
 */
export function compareArchiveNamesNewestFirst(a: string, b: string): number {
  const pa = parseArchiveName(a);
  const pb = parseArchiveName(b);
  if (pa !== null && pb !== null) {
    if (pa.timestamp !== pb.timestamp) return pa.timestamp < pb.timestamp ? 1 : -1;
    if (pa.seq !== pb.seq) return pb.seq - pa.seq;
    return a < b ? 1 : a > b ? -1 : 0;
  }
  if (pa !== null) return -1;
  if (pb !== null) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** What `archive restore NAME` accepts: a bare `*.tar.gz` file name, nothing that could walk elsewhere. */
export function isPlainArchiveFileName(name: string): boolean {
  return (
    name.endsWith(ARCHIVE_EXTENSION) &&
    name.length > ARCHIVE_EXTENSION.length &&
    !name.startsWith(".") &&
    !/[/\\\0]/.test(name) &&
    !name.includes("..")
  );
}

/** Temp names this module creates in .archive/ (see createArchive, restoreArchive, clearLiveState). */
export const TEMP_PREFIX = {
  partial: ".partial-",
  staging: ".staging-",
  restore: ".restore-",
  clear: ".clear-",
} as const;

export function partialFileName(name: string, random: string): string {
  return `${TEMP_PREFIX.partial}${random}-${name}.partial`;
}

/** True for anything a killed createArchive, restoreArchive or clearLiveState may leave behind. */
export function isLeftoverTempName(name: string): boolean {
  if (name.startsWith(TEMP_PREFIX.partial) && name.endsWith(".partial")) return true;
  return (
    name.startsWith(TEMP_PREFIX.staging) || name.startsWith(TEMP_PREFIX.restore) || name.startsWith(TEMP_PREFIX.clear)
  );
}
