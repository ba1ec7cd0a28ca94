// The agent sessions a live `dotagent run` has at work, for `status` (SPEC §10 "status for
// people"). The runner records no agent in phase.json; each of its sessions is a checkpoint
// record in memory/runs/<workflow-id>/<key>.checkpoint.json (src/run/agent-session.ts) whose
// `status` is `running` from the session's start to its end. Read-only and tolerant: a record
// that does not parse, or one older than the run's lock (a session a killed run left), names
// nothing. Names come from file names in the project: kept to a safe alphabet.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { readProjectText } from "./read-file.js";

const RECORD = /^([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*)\.s\d+\.checkpoint\.json$/;

/**
 * The sessions at work in the run that took its lock at `since`, named as the run names them:
 * `pm`, `architect minimal`, `executor task-002` (a phase id in the key, `pm.REQUIREMENTS`, is left out).
 */
export function runSessionsAtWork(root: string, workflowId: string, since: string): string[] {
  const folder = join(root, "memory", "runs", workflowId);
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  const sinceMs = Date.parse(since);
  const atWork: string[] = [];
  for (const name of names.sort()) {
    const key = RECORD.exec(name)?.[1];
    if (key === undefined) continue;
    // A session's record is a few hundred bytes; a link or anything large names nothing.
    const read = readProjectText(join(folder, name), { maxBytes: 1024 * 1024, links: "refuse" });
    if (read.kind !== "ok") continue;
    let record: { saved_at?: unknown; data?: { status?: unknown } } | null;
    try {
      record = JSON.parse(read.text) as typeof record;
    } catch {
      continue;
    }
    if (record?.data?.status !== "running" || typeof record.saved_at !== "string") continue;
    if (!(Date.parse(record.saved_at) >= sinceMs)) continue;
    atWork.push(
      key
        .split(".")
        .filter((part, i) => i === 0 || !/^[A-Z][A-Z0-9_]*$/.test(part))
        .join(" "),
    );
  }
  return atWork;
}

/**
 * Whether the workflow's `dotagent run` approves its gates itself (`--approve auto`, remembered in
 * its record `run`, src/run/run-memory.ts, for the workflow that started at `startedAt`): then
 * nobody is asked at a gate, and `status` says the run goes on by itself.
 */
export function runApprovesItself(root: string, workflowId: string, startedAt: string): boolean {
  const read = readProjectText(join(root, "memory", "runs", workflowId, "run.checkpoint.json"), {
    maxBytes: 1024 * 1024,
    links: "refuse",
  });
  if (read.kind !== "ok") return false;
  try {
    const data = (JSON.parse(read.text) as { data?: { approve?: unknown; workflow_started_at?: unknown } } | null)
      ?.data;
    return data?.approve === "auto" && data.workflow_started_at === startedAt;
  } catch {
    return false;
  }
}
