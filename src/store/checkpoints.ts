// Checkpoint history: memory/state/.history/<rev>/ holds the state files exactly as they were
// after a phase was approved or completed, a rework began, a task completed, the workflow started
// or was rolled back. `rev` is the seq of that event in events.jsonl (so `dotagent log` shows what
// surrounds it). Guarantees:
// - cheap: phase.json and execution.json are hard links to the files just written (state files
//   are only ever replaced by rename, never changed in place), plus a small checkpoint.json with
//   their sha256; a copy is made only where links are not possible;
// - atomic: a checkpoint is built in a `.tmp-*` folder and renamed into place, so a kill -9
//   leaves either no checkpoint or a whole one; a folder whose files do not match their sha256
//   (a file edited in place through the link, a torn copy) is ignored, never restored;
// - bounded: only the live workflow's checkpoints are kept, the newest KEEP.phase phase-level
//   ones and the newest KEEP.task task-level ones;
// - best effort: it runs after the state change is durable, and a failure to record one (a full
//   disk) never fails the command that changed the state.
import { copyFileSync, linkSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Phase } from "../core/phases.js";
import type { EventRecord } from "./events.js";
import { writeFileDurable, fsyncDir } from "./atomic-write.js";
import type { ProjectPaths } from "./project.js";
import { MAX_STATE_BYTES, readProjectFile } from "./read-file.js";

export const HISTORY_DIR = ".history";
const META = "checkpoint.json";
const TEMP_PREFIX = ".tmp-";
export const KEEP = { phase: 40, task: 10 } as const;

/** Events after which the state is worth returning to, and whether they are phase- or task-level. */
const CHECKPOINT_EVENTS: Readonly<Record<string, "phase" | "task">> = {
  workflow_started: "phase",
  phase_approved: "phase",
  phase_completed: "phase",
  phase_rework: "phase",
  rolled_back: "phase",
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
}

const sha256 = (bytes: Buffer) => process.getBuiltinModule("node:crypto").createHash("sha256").update(bytes).digest("hex");

function historyDir(paths: ProjectPaths): string {
  return join(paths.stateDir, HISTORY_DIR);
}

function folderName(rev: number): string {
  return String(rev).padStart(8, "0");
}

/** Takes a checkpoint if `records` (just appended) hold an event worth one. Never throws. */
export function recordCheckpoint(paths: ProjectPaths, records: readonly EventRecord[]): void {
  const last = [...records].reverse().find((r) => CHECKPOINT_EVENTS[r.type] !== undefined);
  if (last === undefined) return;
  try {
    writeCheckpoint(paths, last);
  } catch {
    // Best effort (see the header): the state change itself is already durable.
  }
}

/** A file's bytes, or null when it is missing or not a regular file (a checkpoint never follows a link). */
function readBytes(file: string): Buffer | null {
  const read = readProjectFile(file, { maxBytes: MAX_STATE_BYTES, links: "refuse" });
  return read.kind === "ok" ? read.bytes : null;
}

/** A hard link (no bytes copied), or a copy where links are not possible. */
export function linkOrCopy(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
  }
}

function writeCheckpoint(paths: ProjectPaths, event: EventRecord): void {
  const phaseBytes = readBytes(paths.phaseFile);
  if (phaseBytes === null) return;
  const phase = JSON.parse(phaseBytes.toString("utf8")) as { workflow_id: string; current_phase: Phase; phase_status: string; completed_phases: Array<{ phase: Phase }> };
  const executionBytes = readBytes(paths.executionFile);
  const dir = historyDir(paths);
  mkdirSync(dir, { recursive: true });
  if (!lstatSync(dir).isDirectory()) return; // a link or a file where .history should be: never written through
  const temp = join(dir, `${TEMP_PREFIX}${folderName(event.seq)}-${process.pid}`);
  rmSync(temp, { recursive: true, force: true });
  mkdirSync(temp);
  linkOrCopy(paths.phaseFile, join(temp, "phase.json"));
  if (executionBytes !== null) linkOrCopy(paths.executionFile, join(temp, "execution.json"));
  const meta: CheckpointMeta = {
    format: 1,
    rev: event.seq,
    at: event.at,
    workflow_id: phase.workflow_id,
    phase: phase.current_phase,
    phase_status: phase.phase_status,
    completed_phases: phase.completed_phases.map((c) => c.phase),
    kind: CHECKPOINT_EVENTS[event.type] ?? "phase",
    event: { type: event.type, ...(typeof event.phase === "string" ? { phase: event.phase } : {}), ...(typeof event.task_id === "string" ? { task_id: event.task_id } : {}) },
    files: { "phase.json": sha256(phaseBytes), "execution.json": executionBytes === null ? null : sha256(executionBytes) },
  };
  writeFileDurable(join(temp, META), `${JSON.stringify(meta)}\n`);
  const final = join(dir, folderName(event.seq));
  removeFolder(dir, final); // a checkpoint of the same rev from an earlier workflow (events.jsonl starts again after a fresh start)
  renameSync(temp, final);
  fsyncDir(dir);
  prune(paths, meta.workflow_id);
}

/** Removes a folder so that it disappears in one step: renamed aside first, then deleted. */
function removeFolder(dir: string, folder: string): void {
  const aside = join(dir, `${TEMP_PREFIX}del-${process.pid}-${Math.random().toString(36).slice(2)}`);
  try {
    renameSync(folder, aside);
  } catch {
    return; // not there
  }
  rmSync(aside, { recursive: true, force: true });
}

function prune(paths: ProjectPaths, workflowId: string): void {
  const dir = historyDir(paths);
  const kept = { phase: 0, task: 0 };
  const names = readdirSync(dir).sort().reverse();
  for (const name of names) {
    if (name.startsWith(TEMP_PREFIX)) {
      rmSync(join(dir, name), { recursive: true, force: true }); // left by a kill: this process holds the lock
      continue;
    }
    const meta = readMeta(join(dir, name));
    const keep = meta !== null && meta.workflow_id === workflowId && ++kept[meta.kind] <= KEEP[meta.kind];
    if (!keep) removeFolder(dir, join(dir, name));
  }
  fsyncDir(dir);
}

function readMeta(folder: string): CheckpointMeta | null {
  try {
    const bytes = readBytes(join(folder, META));
    if (bytes === null) return null;
    const meta = JSON.parse(bytes.toString("utf8")) as CheckpointMeta;
    if (meta?.format !== 1 || typeof meta.rev !== "number" || typeof meta.workflow_id !== "string" || (meta.kind !== "phase" && meta.kind !== "task")) return null;
    return meta;
  } catch {
    return null;
  }
}

/** The checkpoints (newest last), of `workflowId` when given; torn or foreign folders are left out. */
export function listCheckpoints(paths: ProjectPaths, workflowId?: string): CheckpointMeta[] {
  let names: string[];
  try {
    names = readdirSync(historyDir(paths));
  } catch {
    return [];
  }
  return names
    .filter((name) => /^\d{8}$/.test(name))
    .sort()
    .map((name) => readMeta(join(historyDir(paths), name)))
    .filter((meta): meta is CheckpointMeta => meta !== null && (workflowId === undefined || meta.workflow_id === workflowId));
}

export interface Checkpoint {
  meta: CheckpointMeta;
  /** The state files' content as held (JSON values, checked against their sha256). */
  phase: unknown;
  execution: unknown | null;
}

/** One checkpoint, verified; a reason when it is missing or damaged. */
export function readCheckpoint(paths: ProjectPaths, rev: number): Checkpoint | { missing: string } {
  const folder = join(historyDir(paths), folderName(rev));
  const meta = readMeta(folder);
  if (meta === null || meta.rev !== rev) return { missing: `there is no checkpoint ${rev}` };
  const phaseBytes = readBytes(join(folder, "phase.json"));
  if (phaseBytes === null || sha256(phaseBytes) !== meta.files["phase.json"]) return { missing: `checkpoint ${rev} is damaged (its phase.json does not match its checksum)` };
  let execution: unknown | null = null;
  if (meta.files["execution.json"] !== null) {
    const bytes = readBytes(join(folder, "execution.json"));
    if (bytes === null || sha256(bytes) !== meta.files["execution.json"]) return { missing: `checkpoint ${rev} is damaged (its execution.json does not match its checksum)` };
    execution = JSON.parse(bytes.toString("utf8"));
  }
  return { meta, phase: JSON.parse(phaseBytes.toString("utf8")), execution };
}
