// Op records of the idempotency guard (memory/state/once/<op-id>/op.json): where they live, how
// they are read and written, and which ops are still open (for `status`, which must stay cheap:
// one folder listing when there are none, no child_process, and no writer: run-once.ts writes).
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import { parseOpRecord, type OpRecord } from "../core/once.js";
import { ID_PATTERN } from "../schema/json.js";
import { judgeLock, readLock } from "./lock.js";
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

export function checkOpId(opId: string): void {
  if (!ID_PATTERN.test(opId)) throw new DotagentError("usage", `op id "${opId}" is not valid: 1–128 letters, digits, '.', '_' or '-', starting with a letter or digit`, EXIT.usage);
}

/** The record of one op, or null when none; an unreadable record is exit 3 naming the file. */
export function readOpRecord(paths: ProjectPaths, opId: string): OpRecord | null {
  const read = readProjectText(join(opDir(paths, opId), RECORD), { maxBytes: MiB, links: "refuse" });
  if (read.kind === "missing") return null;
  const parsed = read.kind === "ok" ? parseOpRecord(read.text) : { invalid: read.reason };
  if ("invalid" in parsed) {
    throw new DotagentError("op_record_invalid", `${opRel(opId)}: ${parsed.invalid}; fix it by hand, or remove memory/state/${ONCE_DIR}/${opId}/ to forget the op (it may then run again)`, EXIT.invalid, { op_id: opId });
  }
  return parsed;
}

/** Ops that are not done: running now (a live runner holds their lock), unknown (the runner died), or failed. */
export interface OpSummary {
  op_id: string;
  status: "running" | "unknown" | "failed";
  started_at: string;
}

/** Open ops for `status`; one folder listing when there are none. Unreadable records count as unknown. */
export function listOpenOps(paths: ProjectPaths, now: Date): OpSummary[] {
  let names: string[];
  try {
    names = readdirSync(join(paths.stateDir, ONCE_DIR));
  } catch {
    return [];
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
      const live = lock !== null && lock !== "unreadable" && !judgeLock(lock, now, 10 * 60 * 1000).stale;
      open.push({ op_id: opId, status: live ? "running" : "unknown", started_at: record.started_at });
    }
  }
  return open;
}

