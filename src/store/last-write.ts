// What dotagent last wrote to phase.json and execution.json: memory/state/.last-write.json. The
// one home for "did dotagent write these bytes?". Threat: the model (a Write or Edit tool call) or
// a person changes a state file by hand — marks a phase or a task complete, truncates it — and
// every later command would take that as dotagent's own state. A live file whose bytes differ from
// dotagent's last write is a hand edit (`hand_edit`, SPEC §9), which `resume` puts to the person
// (keep it, or go back to the newest checkpoint; SPEC §5).
//
// Guarantees:
// - the verdict is the content's: the record names the sha256 of the bytes written (it is
//   committed and verifies on any clone), and a digest dotagent did not record is a hand edit;
// - a reader hashes the bytes it parses (state-files.ts: one read, no second look) unless the very
//   descriptor it read says they are the file dotagent wrote: the record also holds the stamp of
//   the file the writer just put in place (device, inode, size, mtime and ctime in nanoseconds)
//   and a reader whose fstat, taken after its read, equals it in every field takes the recorded
//   digest without hashing. No edit keeps that stamp: a copy or checkout is another inode, and a
//   rewrite in place changes the ctime, which no one can put back (utimes sets it too). Only a
//   rewrite in the same tick of the filesystem's clock could keep it, so, as git guards its racy
//   index entries, a stamp is trusted only when its ctime is strictly before the record's own
//   write time (the record's mtime, or the `bound` a stamp carries from an earlier record): an
//   edit made after the record was written has a later ctime. Anything else is hashed as before;
// - no fsync of its own: before a state file is replaced the record forgets that file (the state
//   file's own directory fsync, which follows, makes that rename durable); after the write it
//   names the sha256 of the bytes written and the new file's stamp;
// - never a false alarm: a record that is missing, torn (a power loss before its bytes reached the
//   disk) or of another shape, or a file it does not name, is "unknown": nothing is claimed. A
//   reader without the lock may read a file as a writer replaces it (old bytes, a record already
//   naming the new ones): so bytes that do not match are looked at once more before they are
//   named (the record, the live file, the record again: named only when both records hold the
//   file and neither its digest), which only an edit, or a rare such race, ever pays for;
// - only dotagent's writers update it (state-writer.ts, the rollback journal), under the lock;
//   keeping a hand edit (`resume --keep-edit`) adopts the live bytes through `adoptLiveFiles`.
import { rmSync, statSync, type BigIntStats } from "node:fs";
import { basename, join } from "node:path";
import type { StateSnapshot } from "../core/snapshot.js";
import type { ProjectPaths } from "./project.js";
import { MAX_STATE_BYTES, MiB, readProjectFile } from "./read-file.js";
import { writeFileInside } from "./write-file.js";

export const LAST_WRITE = ".last-write.json";

type StateName = "phase.json" | "execution.json";
interface FileRecord {
  /** sha256 of the bytes dotagent wrote (a list: any of them is dotagent's). */
  sha256: string[];
  /**
   * The file's stamp after the write (see the header): `n1:<dev>:<ino>:<size>:<mtimeNs>:<ctimeNs>`,
   * and `:<bound>` once a later record carries it; null: not known (hashed). The older versions that
   * compared stamps compared their own `<ino>:<size>:<mtimeNs>`, which this never equals: they hash.
   */
  stamp: string | null;
}
interface LastWrite {
  format: 1;
  files: Partial<Record<StateName, FileRecord>>;
}

/** sha256 of bytes as dotagent records them (hex). */
export const digestOf = (bytes: Buffer | string) =>
  process.getBuiltinModule("node:crypto").createHash("sha256").update(bytes).digest("hex");

function recordPath(stateDir: string): string {
  return join(stateDir, LAST_WRITE);
}

function readRecord(stateDir: string): LastWrite | null {
  return readTimedRecord(stateDir)?.record ?? null;
}

/** The record and its own write time (its mtime, in ns, from the descriptor it was read through). */
function readTimedRecord(stateDir: string): { record: LastWrite; writtenNs: bigint } | null {
  const read = readProjectFile(recordPath(stateDir), { maxBytes: MiB, links: "refuse", statAfter: true });
  if (read.kind !== "ok") return null;
  try {
    const value = JSON.parse(read.bytes.toString("utf8")) as LastWrite;
    return value?.format === 1 && typeof value.files === "object" && value.files !== null && !Array.isArray(value.files)
      ? { record: value, writtenNs: read.after!.mtimeNs }
      : null;
  } catch {
    return null;
  }
}

const STAMP = "n1";

/** The stamp of a file as fstat or stat gives it (bigint), without a bound. */
function stampOfStats(s: BigIntStats): string {
  return `${STAMP}:${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
}

/** A stamp this version wrote, split: the part a file's stats must equal, its ctime, its bound if carried. */
function parseStamp(stamp: string | null): { key: string; ctimeNs: bigint; bound: bigint | null } | null {
  const parts = stamp?.split(":");
  if (parts === undefined || parts[0] !== STAMP || (parts.length !== 6 && parts.length !== 7)) return null;
  if (!parts.slice(1).every((p) => /^\d+$/.test(p))) return null;
  return {
    key: parts.slice(0, 6).join(":"),
    ctimeNs: BigInt(parts[5]!),
    bound: parts.length === 7 ? BigInt(parts[6]!) : null,
  };
}

/** The stamp of the file just put in place; null when it cannot be looked at (then readers hash). */
function stampNow(file: string): string | null {
  try {
    return stampOfStats(statSync(file, { bigint: true }));
  } catch {
    return null;
  }
}

/**
 * A record about to be rewritten keeps the other file's stamp with the old record's write time as
 * its bound: the rewrite must not make a stamp taken earlier look older than the edits after it.
 */
function carryStamps(held: { record: LastWrite; writtenNs: bigint }): LastWrite {
  for (const entry of Object.values(held.record.files)) {
    if (!isFileRecord(entry)) continue;
    const stamp = parseStamp(entry.stamp);
    if (stamp !== null && stamp.bound === null) entry.stamp = `${stamp.key}:${held.writtenNs}`;
  }
  return held.record;
}

/**
 * The recorded sha256 of a state file's bytes, when `after` (the fstat of the descriptor they were
 * read through, taken after the read) is the stamp dotagent recorded for it and that stamp is not
 * racy (the header); null: hash the bytes.
 */
export function stampedDigest(file: string, after: BigIntStats): string | null {
  const held = readTimedRecord(join(file, ".."));
  const entry = held?.record.files[basename(file) as StateName];
  if (held == null || !isFileRecord(entry) || entry.sha256.length !== 1) return null;
  const stamp = parseStamp(entry.stamp);
  if (stamp === null || stamp.key !== stampOfStats(after)) return null;
  return stamp.ctimeNs < (stamp.bound ?? held.writtenNs) ? entry.sha256[0]! : null;
}

function isFileRecord(value: unknown): value is FileRecord {
  const r = value as FileRecord | null | undefined;
  return (
    typeof r === "object" &&
    r !== null &&
    Array.isArray(r.sha256) &&
    r.sha256.every((s) => typeof s === "string") &&
    (r.stamp === null || typeof r.stamp === "string")
  );
}

/** Replaced by rename, not fsynced (see the header): a torn record reads as unknown. */
function writeRecord(root: string, stateDir: string, record: LastWrite): void {
  writeFileInside(root, recordPath(stateDir), `${JSON.stringify(record)}\n`, { durable: false });
}

function currentSha(file: string): string | null {
  const read = readProjectFile(file, { maxBytes: MAX_STATE_BYTES, links: "refuse" });
  return read.kind === "ok" ? digestOf(read.bytes) : null;
}

/**
 * Wraps one state file write: before it the record forgets that file (a write cut off anywhere
 * claims nothing about what it leaves), after it names the new bytes and their stamp. Best
 * effort: a record that cannot be written is removed (unknown), never a reason to fail the write.
 * Returns the sha256 of the bytes written.
 */
export function recordingWrite(root: string, file: string, bytes: Buffer, write: () => void): string {
  const stateDir = join(file, "..");
  const name = basename(file) as StateName;
  let record: LastWrite;
  try {
    const held = readTimedRecord(stateDir);
    record = held === null ? { format: 1, files: {} } : carryStamps(held);
    if (record.files[name] !== undefined) {
      delete record.files[name];
      writeRecord(root, stateDir, record);
    }
  } catch {
    forget(stateDir);
    write();
    return digestOf(bytes);
  }
  write();
  const sha256 = digestOf(bytes);
  try {
    record.files[name] = { sha256: [sha256], stamp: stampNow(file) };
    writeRecord(root, stateDir, record);
  } catch {
    forget(stateDir);
  }
  return sha256;
}

/** A state file dotagent removed (a rollback to a state without execution.json): nothing to compare. */
export function recordRemoved(root: string, file: string): void {
  const stateDir = join(file, "..");
  const held = readTimedRecord(stateDir);
  if (held === null) return;
  const record = carryStamps(held);
  delete record.files[basename(file) as StateName];
  try {
    writeRecord(root, stateDir, record);
  } catch {
    forget(stateDir);
  }
}

/** Adopts the live files as dotagent's own: a hand edit the person keeps, an archive restored. */
export function adoptLiveFiles(root: string, stateDir: string): void {
  const record: LastWrite = { format: 1, files: {} };
  for (const name of ["phase.json", "execution.json"] as const) {
    const file = join(stateDir, name);
    const sha = currentSha(file);
    if (sha !== null) record.files[name] = { sha256: [sha], stamp: null };
  }
  writeRecord(root, stateDir, record);
}

/** No record: nothing is claimed about the live files (an archive restored, a record that failed). Never throws. */
export function forget(stateDir: string): void {
  try {
    rmSync(recordPath(stateDir), { force: true });
  } catch {
    // A record that cannot be removed and cannot be written stays as it was: at worst a hand_edit warning, never a failed write.
  }
}

/**
 * Whether a checkpoint's files (their sha256; null: no execution.json) are what dotagent last
 * wrote; null when the record does not tell (missing, torn, a file it does not name).
 */
export function isLastWrite(
  stateDir: string,
  files: { "phase.json": string; "execution.json": string | null },
): boolean | null {
  const record = readRecord(stateDir);
  const phase = record?.files["phase.json"];
  if (record === null || !isFileRecord(phase)) return null;
  const execution = record.files["execution.json"];
  if (execution !== undefined && !isFileRecord(execution)) return null;
  const written = (r: FileRecord) => r.sha256[0];
  return (
    written(phase) === files["phase.json"] &&
    (execution === undefined ? files["execution.json"] === null : written(execution) === files["execution.json"])
  );
}

/**
 * The live state files whose bytes differ from dotagent's last write (project-relative paths),
 * judged by the digest of the bytes each read holds (`sha256`, state-files.ts). Bytes that do not
 * match are confirmed by a second look before they are named (the header: a reader without the
 * lock may have read a file mid-write).
 */
export function findHandEdits(
  paths: Pick<ProjectPaths, "stateDir" | "phaseFile" | "executionFile">,
  phase: StateSnapshot["phase"],
  execution: StateSnapshot["execution"],
): string[] {
  const record = readRecord(paths.stateDir);
  if (record === null) return [];
  const edited: string[] = [];
  for (const [read, file] of [
    [phase, paths.phaseFile],
    [execution, paths.executionFile],
  ] as const) {
    // Not read from disk (held state): nothing to judge.
    if (read.kind === "missing" || read.sha256 === undefined) continue;
    const name = basename(file) as StateName;
    const held = record.files[name];
    if (!isFileRecord(held) || (read.sha256 !== null && held.sha256.includes(read.sha256))) continue;
    if (confirmEdited(paths.stateDir, file, name)) edited.push(read.file);
  }
  return edited;
}

/** The second look: the record, the live file's bytes, the record again; edited only when both records name the file and neither holds those bytes' digest. */
function confirmEdited(stateDir: string, file: string, name: StateName): boolean {
  const before = readRecord(stateDir)?.files[name];
  const sha = currentSha(file);
  const after = readRecord(stateDir)?.files[name];
  if (!isFileRecord(before) || !isFileRecord(after)) return false;
  return sha === null || !(before.sha256.includes(sha) || after.sha256.includes(sha));
}
