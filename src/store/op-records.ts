// Op records of the idempotency guard (memory/state/once/<op-id>/op.json): where they live, how
// they are read and written, and which ops are still open (for `status`, which must stay cheap:
// one folder listing when there are none, no child_process, and no writer: run-once.ts writes).
// The §2 principle holds here too: a once/ folder or record the disk refuses to show is
// `state_unreadable` (exit 3), never "no ops" or a damaged record; a link or the wrong type is
// `state_path_invalid`, and nothing is read through it.
import { lstatSync, readdirSync } from "node:fs";
import { hostname } from "node:os";
import { join, relative } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import { parseOpRecord, type OpRecord } from "../core/once.js";
import { idProblem } from "../schema/json.js";
import { judgeLock, readLock } from "./lock.js";
import { isProcessRunning } from "./process-facts.js";
import type { ProjectPaths } from "./project.js";
import { MiB, readProjectText } from "./read-file.js";

export const ONCE_DIR = "once";
export const RECORD = "op.json";
export function opDir(paths: ProjectPaths, opId: string): string {
  return join(paths.stateDir, ONCE_DIR, opId);
}

export function opRel(opId: string): string {
  return `memory/state/${ONCE_DIR}/${opId}/${RECORD}`;
}

/** An op id is an id (§2); one over 128 characters is named by its length and start, never echoed whole. */
export function checkOpId(opId: string): void {
  const problem = idProblem(opId, "op id");
  if (problem !== null) throw new DotagentError("usage", problem, EXIT.usage);
}

/**
 * What is at a folder of the guard (memory/state/once, or an op's folder): a real folder, or
 * nothing yet. A link, a file or a FIFO is `state_path_invalid`; a folder the disk will not show
 * (EACCES, EIO, …) is `state_unreadable`: both exit 3, naming the path.
 */
export function guardFolder(paths: ProjectPaths, folder: string): "folder" | "missing" {
  const rel = relative(paths.root, folder);
  let stat;
  try {
    stat = lstatSync(folder);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    if (code === "ENOENT") return "missing";
    throw new DotagentError(
      "state_unreadable",
      `${rel} cannot be read (${code}); the op records are there but unreadable: check the permissions of memory/state/${ONCE_DIR}`,
      EXIT.invalid,
      { path: rel, errno: code },
    );
  }
  if (stat.isDirectory()) return "folder";
  const what = stat.isSymbolicLink()
    ? "a symbolic link"
    : stat.isFile()
      ? "a file"
      : stat.isFIFO()
        ? "a FIFO"
        : "not a folder";
  throw new DotagentError(
    "state_path_invalid",
    `${rel} is ${what}, where dotagent keeps a folder of op records (never followed): replace it with a real folder`,
    EXIT.invalid,
    { path: rel },
  );
}

/**
 * The record of one op, or null when none. A record that is not one (§14's shape, this op's id)
 * is `op_record_invalid`, and one the disk will not give is `state_unreadable`: exit 3 naming the file.
 */
export function readOpRecord(paths: ProjectPaths, opId: string): OpRecord | null {
  const read = readProjectText(join(opDir(paths, opId), RECORD), { maxBytes: MiB, links: "refuse" });
  if (read.kind === "missing") return null;
  if (read.kind === "refused" && read.errno !== undefined && read.errno !== "ELOOP") {
    throw new DotagentError(
      "state_unreadable",
      `${opRel(opId)} ${read.reason}; check the permissions of memory/state/${ONCE_DIR}/${opId}/`,
      EXIT.invalid,
      { op_id: opId, path: opRel(opId), errno: read.errno },
    );
  }
  const parsed = read.kind === "ok" ? parseOpRecord(read.text, opId) : { invalid: read.reason };
  if ("invalid" in parsed) {
    throw new DotagentError(
      "op_record_invalid",
      `${opRel(opId)}: ${parsed.invalid}; for the person: fix it by hand, or remove memory/state/${ONCE_DIR}/${opId}/ to forget the op (it may then run again)`,
      EXIT.invalid,
      { op_id: opId, path: opRel(opId) },
    );
  }
  return parsed;
}

/**
 * True while the command of a `running` record still runs here, though its runner may be dead
 * (killed with -9: its child lives on). Another host's process cannot be looked at: false.
 */
export function commandStillRunning(record: OpRecord): boolean {
  const child = record.child;
  // pid 1 (init) and the runner itself are never the command: a hand-made record cannot hold the op with them.
  if (record.status !== "running" || child == null || child.pid <= 1 || child.pid === record.runner.pid) return false;
  return record.runner.hostname === hostname() && isProcessRunning(child.pid, child.start);
}

/** Ops that are not done: running now (a live runner holds their lock, or their command still runs), unknown (the runner died), or failed. */
export interface OpSummary {
  op_id: string;
  status: "running" | "unknown" | "failed";
  started_at: string;
}

/** Open ops for `status`; one folder listing when there are none. Unreadable records count as unknown. */
export function listOpenOps(paths: ProjectPaths, now: Date): OpSummary[] {
  const dir = join(paths.stateDir, ONCE_DIR);
  if (guardFolder(paths, dir) === "missing") return [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    throw new DotagentError(
      "state_unreadable",
      `memory/state/${ONCE_DIR} cannot be listed (${code}); the op records are there but unreadable: check its permissions`,
      EXIT.invalid,
      { path: `memory/state/${ONCE_DIR}`, errno: code },
    );
  }
  const open: OpSummary[] = [];
  for (const opId of names.sort()) {
    let record: OpRecord | null;
    try {
      record = readOpRecord(paths, opId);
    } catch {
      open.push({ op_id: opId, status: "unknown", started_at: "" });
      continue;
    }
    if (record === null || record.status === "done") continue;
    if (record.status === "failed") open.push({ op_id: opId, status: "failed", started_at: record.started_at });
    else {
      const lock = readLock(opDir(paths, opId));
      const live =
        (lock !== null && lock !== "unreadable" && !judgeLock(lock, now, 10 * 60 * 1000).stale) ||
        commandStillRunning(record);
      open.push({ op_id: opId, status: live ? "running" : "unknown", started_at: record.started_at });
    }
  }
  return open;
}
