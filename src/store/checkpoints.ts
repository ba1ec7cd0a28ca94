// Checkpoint history: memory/state/.history/<rev>/ holds the state files exactly as they were
// after a phase was approved or completed, a rework began, a round's task plan was recorded, a task
// completed, the workflow started, was rolled back, or a hand edit was kept. `rev` is the seq of that event in events.jsonl (so `dotagent log` shows what
// surrounds it). Guarantees:
// - independent: phase.json and execution.json are copies of the bytes just written, never hard
//   links: an edit that writes through a live file in place (`head -c 100 … > phase.json`, an
//   editor that saves in place) must not change the checkpoint that is the way back (SPEC §15).
//   The copies are not fsynced one by one: checkpoint.json records their sha256 and a copy that
//   does not match (torn by a power loss) is damaged, ignored, never restored;
// - atomic: a checkpoint is built in a `.tmp-*` folder and renamed into place, so a kill -9
//   leaves either no checkpoint or a whole one; a folder whose files do not match their sha256
//   (a file edited in place through the link, a torn copy) is ignored, never restored;
// - bounded: only the live workflow instance's checkpoints are kept, the newest KEEP.phase
//   phase-level ones and the newest KEEP.task task-level ones;
// - tied to the instance: checkpoint.json records the `instance` of the phase.json it holds
//   (phase.json's instance_id, set at init; before instance ids, its started_at), so a workflow
//   started again under a reused id never lists or restores the earlier run's checkpoints;
// - judged before use (checkpoint-read.ts, which reading and restoring import, so that writing one
//   never loads the schemas): a checkpoint is listed and restored only when its files match their
//   checksums, parse, and pass the live state's validation (held-state.ts); anything else is
//   damaged and ignored. A folder the disk refuses to read is `state_unreadable` (exit 3), never
//   "no checkpoint" (§2);
// - best effort: it runs after the state change is durable, and a failure to record one (a full
//   disk) never fails the command that changed the state.
import { lstatSync, readdirSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import { instanceKey } from "../core/snapshot.js";
import type { Phase } from "../core/phases.js";
import type { PhaseState } from "../schema/phase.js";
import type { EventRecord } from "./events.js";
import { copyFileInside, fsyncDir, linkInside, mkdirInside, renameInside, writeFileInside } from "./write-file.js";
import type { ProjectPaths } from "./project.js";
import { MAX_STATE_BYTES, readProjectFile } from "./read-file.js";

export const HISTORY_DIR = ".history";
export const META = "checkpoint.json";
const TEMP_PREFIX = ".tmp-";
export const KEEP = { phase: 40, task: 10 } as const;

/** Events after which the state is worth returning to, and whether they are phase- or task-level. */
const CHECKPOINT_EVENTS: Readonly<Record<string, "phase" | "task">> = {
  workflow_started: "phase",
  phase_approved: "phase",
  phase_completed: "phase",
  phase_rework: "phase",
  rolled_back: "phase",
  hand_edit_kept: "phase",
  plan_recorded: "phase",
  // A phase agent's end: going back here keeps its report (a hand edit of the state at the gate
  // that follows costs no agent run).
  agent_ended: "phase",
  task_completed: "task",
};

export interface CheckpointMeta {
  format: 1;
  rev: number;
  at: string;
  workflow_id: string;
  phase: Phase;
  phase_status: string;
  completed_phases: Phase[];
  kind: "phase" | "task";
  /** The event that made it (its type, phase or task id). */
  event: { type: string; phase?: string; task_id?: string };
  /** sha256 of each file held; null: the file did not exist then. */
  files: { "phase.json": string; "execution.json": string | null };
  /** The workflow instance (instanceKey of the phase.json held); absent in checkpoints written before it. */
  instance?: string;
}

const utf8 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");

export const sha256 = (bytes: Uint8Array) =>
  process.getBuiltinModule("node:crypto").createHash("sha256").update(bytes).digest("hex");

export function historyDir(paths: ProjectPaths): string {
  return join(paths.stateDir, HISTORY_DIR);
}

export function folderName(rev: number): string {
  return String(rev).padStart(8, "0");
}

/** Bytes a writer just wrote to a state file, and their sha256 (Uint8Array: the library's types name no Node type). */
export interface WrittenBytes {
  bytes: Uint8Array;
  sha256: string;
}

/**
 * Takes a checkpoint if `records` (just appended) hold an event worth one. Never throws.
 * `written`: the bytes the writer just wrote, by file (the rest is read from disk).
 */
export function recordCheckpoint(
  paths: ProjectPaths,
  records: readonly EventRecord[],
  written: ReadonlyMap<string, WrittenBytes> = new Map(),
): void {
  const last = [...records].reverse().find((r) => CHECKPOINT_EVENTS[r.type] !== undefined);
  if (last === undefined) return;
  try {
    writeCheckpoint(paths, last, written);
  } catch {
    // Best effort (see the header): the state change itself is already durable.
  }
}

/**
 * A state file's bytes and sha256: as just written, else read (null when it is missing or not a
 * regular file: a checkpoint never follows a link).
 */
function heldBytes(file: string, written: ReadonlyMap<string, WrittenBytes>): WrittenBytes | null {
  const known = written.get(file);
  if (known !== undefined) return known;
  const read = readProjectFile(file, { maxBytes: MAX_STATE_BYTES, links: "refuse" });
  return read.kind === "ok" ? { bytes: read.bytes, sha256: sha256(read.bytes) } : null;
}

/** Errnos that mean "not that kind of file" (damaged), as opposed to the disk refusing (unreadable). */
export const NOT_A_FILE = new Set(["ELOOP", "ENXIO", "EISDIR", "ENOTDIR"]);

export function unreadable(paths: ProjectPaths, path: string, errno: string): DotagentError {
  const rel = relative(paths.root, path).split("\\").join("/");
  return new DotagentError(
    "state_unreadable",
    `${rel} cannot be read (${errno}); the checkpoints are there but unreadable; for the person: check its permissions (or remove it to forget them)`,
    EXIT.invalid,
    { path: rel, errno },
  );
}

/** A hard link (no bytes copied), or a copy where links are not possible. Never for checkpoints (see the header). */
export function linkOrCopy(root: string, from: string, to: string): void {
  try {
    linkInside(root, from, to);
  } catch (error) {
    if (error instanceof DotagentError) throw error;
    copyFileInside(root, from, to);
  }
}

/** The bytes read, written as a new file: what was checksummed is what is held, whatever happens to the live file next. */
function writeCopy(paths: ProjectPaths, to: string, bytes: Uint8Array): void {
  writeFileInside(paths.root, to, bytes, { durable: false });
}

function writeCheckpoint(paths: ProjectPaths, event: EventRecord, written: ReadonlyMap<string, WrittenBytes>): void {
  const phaseHeld = heldBytes(paths.phaseFile, written);
  if (phaseHeld === null) return;
  const phase = JSON.parse(utf8(phaseHeld.bytes)) as Pick<
    PhaseState,
    "workflow_id" | "current_phase" | "phase_status" | "completed_phases" | "instance_id" | "started_at"
  >;
  const executionHeld = heldBytes(paths.executionFile, written);
  const dir = historyDir(paths);
  mkdirInside(paths.root, dir);
  if (!lstatSync(dir).isDirectory()) return; // a link or a file where .history should be: never written through
  const temp = join(dir, `${TEMP_PREFIX}${folderName(event.seq)}-${process.pid}`);
  rmSync(temp, { recursive: true, force: true });
  mkdirInside(paths.root, temp);
  writeCopy(paths, join(temp, "phase.json"), phaseHeld.bytes);
  if (executionHeld !== null) writeCopy(paths, join(temp, "execution.json"), executionHeld.bytes);
  const meta: CheckpointMeta = {
    format: 1,
    rev: event.seq,
    at: event.at,
    workflow_id: phase.workflow_id,
    phase: phase.current_phase,
    phase_status: phase.phase_status,
    completed_phases: phase.completed_phases.map((c) => c.phase),
    kind: CHECKPOINT_EVENTS[event.type] ?? "phase",
    event: {
      type: event.type,
      ...(typeof event.phase === "string" ? { phase: event.phase } : {}),
      ...(typeof event.task_id === "string" ? { task_id: event.task_id } : {}),
    },
    files: {
      "phase.json": phaseHeld.sha256,
      "execution.json": executionHeld === null ? null : executionHeld.sha256,
    },
    instance: instanceKey(phase),
  };
  writeFileInside(paths.root, join(temp, META), `${JSON.stringify(meta)}\n`);
  const final = join(dir, folderName(event.seq));
  removeFolder(paths.root, dir, final); // a checkpoint of the same rev from an earlier workflow (events.jsonl starts again after a fresh start)
  renameInside(paths.root, temp, final);
  fsyncDir(dir);
  prune(paths, meta.instance!);
}

/** Removes a folder so that it disappears in one step: renamed aside first, then deleted. */
function removeFolder(root: string, dir: string, folder: string): void {
  const aside = join(dir, `${TEMP_PREFIX}del-${process.pid}-${Math.random().toString(36).slice(2)}`);
  try {
    renameInside(root, folder, aside);
  } catch {
    return; // not there
  }
  rmSync(aside, { recursive: true, force: true });
}

function prune(paths: ProjectPaths, instance: string): void {
  const dir = historyDir(paths);
  const kept = { phase: 0, task: 0 };
  const names = readdirSync(dir).sort().reverse();
  for (const name of names) {
    if (name.startsWith(TEMP_PREFIX)) {
      rmSync(join(dir, name), { recursive: true, force: true }); // left by a kill: this process holds the lock
      continue;
    }
    // Another instance's, over the limit, or damaged: removed. What the disk refuses to read is
    // left alone (it may be anyone's; `dotagent history` names it).
    const meta = readMeta(join(dir, name));
    if (meta === "unreadable") continue;
    const keep = meta !== null && meta.instance === instance && ++kept[meta.kind] <= KEEP[meta.kind];
    if (!keep) removeFolder(paths.root, dir, join(dir, name));
  }
  fsyncDir(dir);
}

/** checkpoint.json as written, or null when it is not one; "unreadable" when the disk refuses. */
function readMeta(folder: string): CheckpointMeta | null | "unreadable" {
  const read = readProjectFile(join(folder, META), { maxBytes: MAX_STATE_BYTES, links: "refuse" });
  if (read.kind === "refused" && read.errno !== undefined && !NOT_A_FILE.has(read.errno)) return "unreadable";
  if (read.kind !== "ok") return null;
  return decodeMeta(read.bytes);
}

export function decodeMeta(bytes: Uint8Array): CheckpointMeta | null {
  let meta: CheckpointMeta;
  try {
    meta = JSON.parse(utf8(bytes)) as CheckpointMeta;
  } catch {
    return null;
  }
  const files = (meta as Partial<CheckpointMeta> | null)?.files;
  if (
    meta?.format !== 1 ||
    !Number.isSafeInteger(meta.rev) ||
    typeof meta.workflow_id !== "string" ||
    (meta.kind !== "phase" && meta.kind !== "task")
  )
    return null;
  if (
    typeof files !== "object" ||
    files === null ||
    typeof files["phase.json"] !== "string" ||
    (files["execution.json"] !== null && typeof files["execution.json"] !== "string")
  )
    return null;
  if (typeof meta.event !== "object" || meta.event === null || typeof meta.event.type !== "string") return null;
  if (meta.instance !== undefined && typeof meta.instance !== "string") return null;
  return meta;
}
