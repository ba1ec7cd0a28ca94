// Claude Code's Workflow runs in the project's memory (SPEC §11 "Claude Code's Workflow runs"):
// `memory/state/workflow-runs/<runId>/` holds run.json (the record), script.js (the script as
// launched) and journal.jsonl (the newest copy of the client's journal). Written by the hooks under
// the state lock, each file replaced atomically through the write primitive (never through a link,
// never outside the project).
import { lstatSync, readdirSync } from "node:fs";
import { dirname, isAbsolute, join, relative } from "node:path";
import {
  MAX_JOURNAL_BYTES,
  MAX_SCRIPT_BYTES,
  RUN_ID,
  journalPath,
  quoteId,
  type LaunchedRun,
  type WorkflowRunRecord,
} from "../core/claude-workflow-run.js";
import type { WorkflowRunFacts } from "../core/workflow-run-view.js";
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

/** The largest run.json read (a record is far smaller; a bigger one is no record of dotagent's). */
const MAX_RECORD_BYTES = 1024 * 1024;

/**
 * Every run recorded here, for the views (SPEC §10 `tasks --workflow-runs`): each run.json and
 * journal copy read the guarded way (never through a link, only regular files, size caps); a file
 * that cannot be read or parsed is the run's one-line `problem`, never a throw. No runs folder:
 * one failed readdir, nothing more (`status` calls this on every run).
 */
export function readWorkflowRuns(paths: ProjectPaths): WorkflowRunFacts[] {
  let names: string[];
  try {
    names = readdirSync(join(paths.stateDir, WORKFLOW_RUNS_DIR));
  } catch {
    return [];
  }
  return names.filter((name) => RUN_ID.test(name)).map((runId) => readRunFacts(paths, runId));
}

function readRunFacts(paths: ProjectPaths, runId: string): WorkflowRunFacts {
  const folder = runFolder(paths, runId);
  const problems: string[] = [];
  let record: unknown = null;
  const read = readProjectFile(join(folder, "run.json"), { maxBytes: MAX_RECORD_BYTES, links: "refuse" });
  if (read.kind !== "ok") problems.push(`run.json ${read.kind === "missing" ? "is missing" : read.reason}`);
  else
    try {
      record = JSON.parse(read.bytes.toString("utf8"));
      if (record === null || typeof record !== "object" || Array.isArray(record)) {
        problems.push("run.json is no JSON object");
        record = null;
      }
    } catch {
      problems.push("run.json is not valid JSON");
    }
  let journal: string | null = null;
  const copy = readProjectFile(join(folder, "journal.jsonl"), { maxBytes: MAX_JOURNAL_BYTES, links: "refuse" });
  if (copy.kind === "ok") journal = copy.bytes.toString("utf8");
  else if (copy.kind !== "missing") problems.push(`journal.jsonl ${copy.reason}`);
  return {
    runId,
    record,
    journal,
    sessionHoldsRun: sessionHoldsRun(record, runId),
    problem: problems.length === 0 ? null : problems.join("; "),
  };
}

/**
 * Whether the client's session folder on this machine still holds the run at work: its journal
 * where run.json says (a path of the shape the hooks record, nothing else is looked at) and no run
 * record of its end beside it (the client writes `workflows/<runId>.json` when the run ends).
 * Only looked at (lstat), never read.
 */
function sessionHoldsRun(record: unknown, runId: string): boolean {
  const journal = (record as { journal_path?: unknown } | null)?.journal_path;
  if (typeof journal !== "string" || !isAbsolute(journal) || journal.split("/").includes("..")) return false;
  const runDir = dirname(journal);
  if (!journal.endsWith(`/subagents/workflows/${runId}/journal.jsonl`)) return false;
  const session = dirname(dirname(dirname(runDir)));
  try {
    if (!lstatSync(journal).isFile()) return false;
  } catch {
    return false;
  }
  try {
    lstatSync(join(session, "workflows", `${runId}.json`));
    return false;
  } catch {
    return true;
  }
}
