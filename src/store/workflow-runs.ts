// Claude Code's Workflow runs in the project's memory (SPEC §11 "Claude Code's Workflow runs"):
// `memory/state/workflow-runs/<runId>/` holds run.json (the record), script.js (the script as
// launched) and journal.jsonl (the newest copy of the client's journal). Written by the hooks under
// the state lock, each file replaced atomically through the write primitive (never through a link,
// never outside the project).
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import {
  MAX_JOURNAL_BYTES,
  MAX_SCRIPT_BYTES,
  RUN_ID,
  journalPath,
  quoteId,
  type LaunchedRun,
  type WorkflowRunRecord,
} from "../core/claude-workflow-run.js";
import { readProjectFile } from "./read-file.js";
import { mkdirInside, writeFileInside, writeJsonInside } from "./write-file.js";
import type { ProjectPaths } from "./project.js";

export const WORKFLOW_RUNS_DIR = "workflow-runs";

export const runFolder = (paths: ProjectPaths, runId: string) => join(paths.stateDir, WORKFLOW_RUNS_DIR, runId);

/** The client's file, read where it lies: a link there is never followed, nor more than `maxBytes` read. */
function readClientFile(file: string, maxBytes: number, what: string): { bytes: Buffer } | { why: string } {
  const read = readProjectFile(file, { maxBytes, links: "refuse" });
  if (read.kind === "ok") return { bytes: read.bytes };
  return { why: read.kind === "missing" ? `its ${what} is not on disk` : `its ${what} ${read.reason}` };
}

/** Records a launched run: run.json, script.js (from the call's input, or the client's copy) and the journal as it is. */
export function recordRun(paths: ProjectPaths, run: LaunchedRun, now: Date): { recorded: string; warnings: string[] } {
  const folder = runFolder(paths, run.runId);
  const rel = (file: string) => relative(paths.root, file);
  const warnings: string[] = [];
  mkdirInside(paths.root, folder);
  let script: Buffer | string | null = run.script;
  if (script === null && run.scriptPath !== null) {
    const read = readClientFile(run.scriptPath, MAX_SCRIPT_BYTES, "script");
    if ("why" in read) warnings.push(`workflow run ${quoteId(run.runId)}: ${read.why}; its script is not kept`);
    else script = read.bytes;
  }
  if (script !== null && Buffer.byteLength(script) > MAX_SCRIPT_BYTES) {
    warnings.push(`workflow run ${quoteId(run.runId)}: its script is over ${MAX_SCRIPT_BYTES} bytes; not kept`);
    script = null;
  }
  if (script !== null) writeFileInside(paths.root, join(folder, "script.js"), script);
  const record: WorkflowRunRecord = {
    run_id: run.runId,
    client: "claude",
    session_id: run.sessionId,
    task_id: run.taskId,
    workflow_name: run.workflowName,
    args: run.args ?? null,
    script_path: run.scriptPath,
    journal_path: run.journalPath,
    script_file: script === null ? null : rel(join(folder, "script.js")),
    journal_file: rel(join(folder, "journal.jsonl")),
    recorded_at: now.toISOString(),
  };
  writeJsonInside(paths.root, join(folder, "run.json"), record);
  const copied = copyJournal(paths, run.runId, run.journalPath);
  if (copied.kind === "refused" && !copied.missing) warnings.push(copied.why);
  return { recorded: rel(folder), warnings };
}

export type JournalCopy = { kind: "copied"; bytes: number } | { kind: "refused"; why: string; missing: boolean };

/** Replaces the run's journal copy with the client's journal (a link, a non-file or one over the limit is refused). */
export function copyJournal(paths: ProjectPaths, runId: string, journal: string): JournalCopy {
  const read = readProjectFile(journal, { maxBytes: MAX_JOURNAL_BYTES, links: "refuse" });
  if (read.kind !== "ok")
    return {
      kind: "refused",
      missing: read.kind === "missing",
      why: `workflow run ${quoteId(runId)}: its journal ${read.kind === "missing" ? "is not on disk" : read.reason}; not copied`,
    };
  mkdirInside(paths.root, runFolder(paths, runId));
  writeFileInside(paths.root, join(runFolder(paths, runId), "journal.jsonl"), read.bytes);
  return { kind: "copied", bytes: read.bytes.length };
}

/**
 * The runs recorded for a session (and task, when given), by their run.json; a record that is not
 * a regular file, over 1 MiB or no JSON object is passed over. Their journals are copied from the
 * session's folder (never from a path a record names).
 */
export function recordedRuns(paths: ProjectPaths, sessionId: string, taskId: string | null): string[] {
  let names: string[];
  try {
    names = readdirSync(join(paths.stateDir, WORKFLOW_RUNS_DIR));
  } catch {
    return [];
  }
  return names.filter((runId) => {
    if (!RUN_ID.test(runId)) return false;
    const read = readProjectFile(join(runFolder(paths, runId), "run.json"), { maxBytes: 1024 * 1024, links: "refuse" });
    if (read.kind !== "ok") return false;
    try {
      const record = JSON.parse(read.bytes.toString("utf8")) as Partial<WorkflowRunRecord> | null;
      return record?.session_id === sessionId && (taskId === null || record.task_id === taskId);
    } catch {
      return false;
    }
  });
}

/** Copies the journals of the session's recorded runs (of one task, when given) from the session's folder. */
export function copyJournals(
  paths: ProjectPaths,
  session: { sessionId: string; folder: string; taskId: string | null },
): JournalCopy[] {
  return recordedRuns(paths, session.sessionId, session.taskId).map((runId) =>
    copyJournal(paths, runId, journalPath(session.folder, runId)),
  );
}
