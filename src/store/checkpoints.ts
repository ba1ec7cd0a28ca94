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
// - judged before use: a checkpoint is listed and restored only when its files match their
//   checksums, parse, and pass the live state's validation (held-state.ts); anything else is
//   damaged and ignored. A folder the disk refuses to read is `state_unreadable` (exit 3), never
//   "no checkpoint" (§2);
// - best effort: it runs after the state change is durable, and a failure to record one (a full
//   disk) never fails the command that changed the state.
import { lstatSync, readdirSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import { instanceKey, judgeHeldState } from "../core/held-state.js";
import type { Phase } from "../core/phases.js";
import type { PhaseState } from "../schema/phase.js";
import type { FileRead } from "../core/snapshot.js";
import type { ExecutionState } from "../schema/execution.js";
import type { EventRecord } from "./events.js";
import { copyFileInside, fsyncDir, linkInside, mkdirInside, renameInside, writeFileInside } from "./write-file.js";
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

const sha256 = (bytes: Buffer) =>
  process.getBuiltinModule("node:crypto").createHash("sha256").update(bytes).digest("hex");

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

/** Errnos that mean "not that kind of file" (damaged), as opposed to the disk refusing (unreadable). */
const NOT_A_FILE = new Set(["ELOOP", "ENXIO", "EISDIR", "ENOTDIR"]);

function unreadable(paths: ProjectPaths, path: string, errno: string): DotagentError {
  const rel = relative(paths.root, path).split("\\").join("/");
  return new DotagentError(
    "state_unreadable",
    `${rel} cannot be read (${errno}); the checkpoints are there but unreadable; for the person: check its permissions (or remove it to forget them)`,
    EXIT.invalid,
    { path: rel, errno },
  );
}

/** A held file: its bytes, null when missing or not a regular file; throws when the disk refuses. */
function readHeld(paths: ProjectPaths, file: string): Buffer | null {
  const read = readProjectFile(file, { maxBytes: MAX_STATE_BYTES, links: "refuse" });
  if (read.kind === "ok") return read.bytes;
  if (read.kind === "refused" && read.errno !== undefined && !NOT_A_FILE.has(read.errno))
    throw unreadable(paths, file, read.errno);
  return null;
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
function writeCopy(paths: ProjectPaths, to: string, bytes: Buffer): void {
  writeFileInside(paths.root, to, bytes, { durable: false });
}

function writeCheckpoint(paths: ProjectPaths, event: EventRecord): void {
  const phaseBytes = readBytes(paths.phaseFile);
  if (phaseBytes === null) return;
  const phase = JSON.parse(phaseBytes.toString("utf8")) as Pick<
    PhaseState,
    "workflow_id" | "current_phase" | "phase_status" | "completed_phases" | "instance_id" | "started_at"
  >;
  const executionBytes = readBytes(paths.executionFile);
  const dir = historyDir(paths);
  mkdirInside(paths.root, dir);
  if (!lstatSync(dir).isDirectory()) return; // a link or a file where .history should be: never written through
  const temp = join(dir, `${TEMP_PREFIX}${folderName(event.seq)}-${process.pid}`);
  rmSync(temp, { recursive: true, force: true });
  mkdirInside(paths.root, temp);
  writeCopy(paths, join(temp, "phase.json"), phaseBytes);
  if (executionBytes !== null) writeCopy(paths, join(temp, "execution.json"), executionBytes);
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
      "phase.json": sha256(phaseBytes),
      "execution.json": executionBytes === null ? null : sha256(executionBytes),
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

function decodeMeta(bytes: Buffer): CheckpointMeta | null {
  let meta: CheckpointMeta;
  try {
    meta = JSON.parse(bytes.toString("utf8")) as CheckpointMeta;
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

export interface Checkpoint {
  meta: CheckpointMeta;
  /** The instance it belongs to (recorded, or for older checkpoints that of the phase.json held). */
  instance: string;
  /** The state files as held: checked against their sha256, parsed and validated. */
  phase: PhaseState;
  execution: ExecutionState | null;
  /** The same files as JSON, exactly as held (what `history show` prints). */
  held: { phase: unknown; execution: unknown | null };
}

/** One checkpoint folder, read whole and judged. A disk refusal throws `state_unreadable`. */
export type CheckpointRead =
  { kind: "ok"; checkpoint: Checkpoint } | { kind: "missing" } | { kind: "damaged"; reason: string };

/**
 * `.history` as a folder to read: null when it does not exist. A link or a file there is refused
 * like every state path (§2; state-paths.ts checks it first), an unreadable one is `state_unreadable`.
 */
function historyNames(paths: ProjectPaths): string[] | null {
  const dir = historyDir(paths);
  let names: string[];
  try {
    const stat = lstatSync(dir);
    if (!stat.isDirectory()) {
      throw new DotagentError(
        "state_path_invalid",
        `memory/state/${HISTORY_DIR} is ${stat.isSymbolicLink() ? "a symbolic link" : "not a folder"}; dotagent's checkpoints must be a real folder inside the project; for the person: remove it (the next checkpoint makes it again)`,
        EXIT.invalid,
        { path: `memory/state/${HISTORY_DIR}` },
      );
    }
    names = readdirSync(dir);
  } catch (error) {
    if (error instanceof DotagentError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    if (code === "ENOENT") return null;
    throw unreadable(paths, dir, code);
  }
  return names;
}

function readFolder(paths: ProjectPaths, rev: number, now: Date): CheckpointRead {
  const folder = join(historyDir(paths), folderName(rev));
  let stat;
  try {
    stat = lstatSync(folder);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    if (code === "ENOENT") return { kind: "missing" };
    throw unreadable(paths, folder, code);
  }
  const damaged = (why: string): CheckpointRead => ({
    kind: "damaged",
    reason: `checkpoint ${rev} is damaged (${why})`,
  });
  if (!stat.isDirectory()) return damaged(stat.isSymbolicLink() ? "its folder is a link" : "it is not a folder");
  const metaBytes = readHeld(paths, join(folder, META));
  if (metaBytes === null) return damaged(`it has no ${META}`);
  const meta = decodeMeta(metaBytes);
  if (meta === null || meta.rev !== rev) return damaged(`its ${META} is not a checkpoint record`);
  const held = (name: "phase.json" | "execution.json"): unknown => {
    const bytes = readHeld(paths, join(folder, name));
    if (bytes === null || sha256(bytes) !== meta.files[name])
      throw new HeldFileProblem(`its ${name} does not match its checksum`);
    try {
      return JSON.parse(bytes.toString("utf8")) as unknown;
    } catch {
      throw new HeldFileProblem(`its ${name} is not JSON`);
    }
  };
  let phase: unknown;
  let execution: unknown | null = null;
  try {
    phase = held("phase.json");
    if (meta.files["execution.json"] !== null) execution = held("execution.json");
  } catch (error) {
    if (error instanceof HeldFileProblem) return damaged(error.message);
    throw error;
  }
  const judged = judgeHeldState(phase, execution, now);
  if (!judged.ok) return damaged(`its state files are not valid: ${judged.problem}`);
  if (judged.phase.workflow_id !== meta.workflow_id)
    return damaged(`its phase.json is of workflow ${judged.phase.workflow_id}, not ${meta.workflow_id}`);
  const instance = meta.instance ?? instanceKey(judged.phase);
  if (instance !== instanceKey(judged.phase)) return damaged("its phase.json is of another workflow instance");
  return {
    kind: "ok",
    checkpoint: { meta, instance, phase: judged.phase, execution: judged.execution, held: { phase, execution } },
  };
}

class HeldFileProblem extends Error {}

/**
 * The restorable checkpoints of workflow instance `instance` (instanceKey of the live phase.json),
 * oldest first; none without a live workflow. Damaged ones and other instances' are left out.
 */
export function listCheckpoints(paths: ProjectPaths, instance: string | undefined, now: Date): Checkpoint[] {
  if (instance === undefined) return [];
  const names = historyNames(paths) ?? [];
  const found: Checkpoint[] = [];
  for (const name of names.filter((n) => /^\d{8}$/.test(n)).sort()) {
    const read = readFolder(paths, Number(name), now);
    if (read.kind === "ok" && read.checkpoint.instance === instance) found.push(read.checkpoint);
  }
  return found;
}

/**
 * The newest restorable checkpoint (of `instance`, or of any instance when undefined): the state
 * dotagent last kept. With phase.json unreadable the live instance is unknown; the newest valid
 * checkpoint names it then (SPEC §15 Recovery).
 */
export function newestCheckpoint(paths: ProjectPaths, instance: string | undefined, now: Date): Checkpoint | null {
  const names = (historyNames(paths) ?? [])
    .filter((n) => /^\d{8}$/.test(n))
    .sort()
    .reverse();
  for (const name of names) {
    const read = readFolder(paths, Number(name), now);
    if (read.kind === "ok" && (instance === undefined || read.checkpoint.instance === instance)) return read.checkpoint;
  }
  return null;
}

/**
 * Whose checkpoints apply: the live phase.json's instance; when phase.json is there but corrupt,
 * that of the newest valid checkpoint (the live instance is unknown, and that is the state
 * dotagent last kept); none without a phase.json (no workflow, or one archived).
 */
export function checkpointOwner(
  paths: ProjectPaths,
  phase: FileRead<PhaseState>,
  now: Date,
): { instance: string; from: "live" | "newest_checkpoint"; workflow_id: string } | null {
  if (phase.kind === "ok")
    return { instance: instanceKey(phase.value), from: "live", workflow_id: phase.value.workflow_id };
  if (phase.kind === "missing") return null;
  const newest = newestCheckpoint(paths, undefined, now);
  return newest === null
    ? null
    : { instance: newest.instance, from: "newest_checkpoint", workflow_id: newest.meta.workflow_id };
}

/** Checkpoint `rev`, verified and judged; a reason when it is missing, damaged or another instance's. */
export function readCheckpoint(
  paths: ProjectPaths,
  rev: number,
  instance: string | undefined,
  now: Date,
): Checkpoint | { missing: string; why: "missing" | "damaged" | "other_instance" } {
  if (historyNames(paths) === null) return { missing: `there is no checkpoint ${rev}`, why: "missing" };
  const read = readFolder(paths, rev, now);
  if (read.kind === "missing") return { missing: `there is no checkpoint ${rev}`, why: "missing" };
  if (read.kind === "damaged") return { missing: read.reason, why: "damaged" };
  if (instance === undefined || read.checkpoint.instance !== instance) {
    const { meta } = read.checkpoint;
    return {
      missing: `checkpoint ${rev} belongs to another run of a workflow (${meta.workflow_id}, started ${read.checkpoint.phase.started_at}), not the live one`,
      why: "other_instance",
    };
  }
  return read.checkpoint;
}
