// Reading the checkpoints of memory/state/.history/ (checkpoints.ts writes them; its header has
// the guarantees): each folder read whole, its files checked against their sha256, parsed and
// judged with the live state's rules (held-state.ts) before it is listed or restored. A module of
// its own so that writing state (every hook that records something) never loads the zod schemas
// the judging needs.
import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import { judgeHeldState } from "../core/held-state.js";
import { instanceKey, type FileRead } from "../core/snapshot.js";
import type { PhaseState } from "../schema/phase.js";
import type { ExecutionState } from "../schema/execution.js";
import type { ProjectPaths } from "./project.js";
import { MAX_STATE_BYTES, readProjectFile } from "./read-file.js";
import {
  HISTORY_DIR,
  META,
  NOT_A_FILE,
  decodeMeta,
  folderName,
  historyDir,
  sha256,
  unreadable,
  type CheckpointMeta,
} from "./checkpoints.js";

/** A held file: its bytes, null when missing or not a regular file; throws when the disk refuses. */
function readHeld(paths: ProjectPaths, file: string): Buffer | null {
  const read = readProjectFile(file, { maxBytes: MAX_STATE_BYTES, links: "refuse" });
  if (read.kind === "ok") return read.bytes;
  if (read.kind === "refused" && read.errno !== undefined && !NOT_A_FILE.has(read.errno))
    throw unreadable(paths, file, read.errno);
  return null;
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
