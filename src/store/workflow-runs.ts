// Claude Code's Workflow runs in the project's memory (SPEC §11 "Claude Code's Workflow runs"):
// `memory/state/workflow-runs/<runId>/` holds run.json (the record), script.js (the script as
// launched) and journal.jsonl (the newest copy of the client's journal). Written by the hooks under
// the state lock, each file replaced atomically through the write primitive (never through a link,
// never outside the project).
import { lstatSync, readdirSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative } from "node:path";
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
import {
  argsJson,
  judgeSeal,
  readSeal,
  sealText,
  type SealVerdict,
  type WorkflowRunEnd,
  type WorkflowRunSeal,
} from "../core/workflow-resume.js";
import { checkoutKey, sameSeal, sealWith } from "./checkout-key.js";
import { currentHost, currentOwner, isProcessRunning } from "./process-facts.js";
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
    owner: currentOwner(now),
  };
  writeJsonInside(paths.root, join(folder, "run.json"), record);
  const copied = copyJournal(paths, run.runId, run.journalPath, { reseal: false });
  if (copied.kind === "refused" && !copied.missing) warnings.push(copied.why);
  // Everything kept now came from the client: sealed as it is (the journal, or none yet).
  const journal = copied.kind === "copied" ? copied.journal : Buffer.alloc(0);
  const sealed = writeSeal(paths, run.runId, journal, script === null ? null : Buffer.from(script), record.args);
  if (sealed !== null) warnings.push(`workflow run ${quoteId(run.runId)}: not sealed (${sealed})`);
  return { recorded: rel(folder), warnings };
}

export type JournalCopy =
  { kind: "copied"; bytes: number; journal: Buffer } | { kind: "refused"; why: string; missing: boolean };

/**
 * Replaces the run's journal copy with the client's journal (a link, a non-file or one over the
 * limit is refused). The seal follows the copy (`reseal`, the default) only while the run's seal
 * holds for its script and args: a run dotagent did not seal here stays unsealed.
 */
export function copyJournal(
  paths: ProjectPaths,
  runId: string,
  journal: string,
  options: { reseal: boolean } = { reseal: true },
): JournalCopy {
  const read = readProjectFile(journal, { maxBytes: MAX_JOURNAL_BYTES, links: "refuse" });
  if (read.kind !== "ok")
    return {
      kind: "refused",
      missing: read.kind === "missing",
      why: `workflow run ${quoteId(runId)}: its journal ${read.kind === "missing" ? "is not on disk" : read.reason}; not copied`,
    };
  const before = options.reseal ? readRunFolder(paths, runId) : null;
  mkdirInside(paths.root, runFolder(paths, runId));
  writeFileInside(paths.root, join(runFolder(paths, runId), "journal.jsonl"), read.bytes);
  if (
    before !== null &&
    (before.verdict.kind === "sealed" ||
      (before.verdict.kind === "unsealed" && before.verdict.why === "journal_edited"))
  )
    writeSeal(paths, runId, read.bytes, before.script, before.record.args);
  return { kind: "copied", bytes: read.bytes.length, journal: read.bytes };
}

const sha256 = (bytes: Buffer | string) =>
  process.getBuiltinModule("node:crypto").createHash("sha256").update(bytes).digest("hex");

/** The digests a run's seal covers, of its files as given. */
const digests = (runId: string, journal: Buffer, script: Buffer | null, args: unknown) => ({
  run_id: runId,
  journal_sha256: sha256(journal),
  script_sha256: script === null ? null : sha256(script),
  args_sha256: sha256(argsJson(args)),
});

/** Seals a run's kept files with this checkout's key (`seal.json`); null, or why it could not. */
export function writeSeal(
  paths: ProjectPaths,
  runId: string,
  journal: Buffer,
  script: Buffer | null,
  args: unknown,
): string | null {
  const key = checkoutKey(paths.root, { create: true });
  if (!key.ok) return key.reason;
  const covered = digests(runId, journal, script, args);
  const seal: WorkflowRunSeal = { format: 1, ...covered, seal: sealWith(key.key, sealText(covered)) };
  writeJsonInside(paths.root, join(runFolder(paths, runId), "seal.json"), seal);
  return null;
}

/** A run's folder as dotagent kept it: its record, files and whether its seal holds here. */
export interface RunFolder {
  record: WorkflowRunRecord & { ended?: WorkflowRunEnd | null };
  journal: Buffer;
  script: Buffer | null;
  verdict: SealVerdict;
}

const readJsonObject = (file: string, maxBytes: number): Record<string, unknown> | null => {
  const read = readProjectFile(file, { maxBytes, links: "refuse" });
  if (read.kind !== "ok") return null;
  try {
    const value = JSON.parse(read.bytes.toString("utf8")) as unknown;
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
};

/**
 * Reads a run's folder: null when it is no run dotagent can read (not a plain run id, the folder a
 * link or no folder, run.json a link, over 1 MiB, not this run's). Its journal and script are read
 * never through a link and within their limits (missing: none); its seal is judged with this
 * checkout's key, never made here.
 */
export function readRunFolder(paths: ProjectPaths, runId: string): RunFolder | null {
  if (!RUN_ID.test(runId)) return null;
  const folder = runFolder(paths, runId);
  try {
    if (!lstatSync(folder).isDirectory()) return null;
  } catch {
    return null;
  }
  const record = readJsonObject(join(folder, "run.json"), 1024 * 1024);
  if (record === null || record.run_id !== runId || typeof record.session_id !== "string") return null;
  const journalRead = readProjectFile(join(folder, "journal.jsonl"), { maxBytes: MAX_JOURNAL_BYTES, links: "refuse" });
  const journal = journalRead.kind === "ok" ? journalRead.bytes : Buffer.alloc(0);
  const scriptRead = readProjectFile(join(folder, "script.js"), { maxBytes: MAX_SCRIPT_BYTES, links: "refuse" });
  const script = scriptRead.kind === "ok" ? scriptRead.bytes : null;
  const key = checkoutKey(paths.root, { create: false });
  const verdict = judgeSeal(
    readSeal(readJsonObject(join(folder, "seal.json"), 64 * 1024)),
    digests(runId, journal, script, record.args),
    (text, seal) => key.ok && sameSeal(seal, sealWith(key.key, text)),
  );
  return { record: record as unknown as RunFolder["record"], journal, script, verdict };
}

/** Each run recorded here with its run.json; a record that is a link, not a regular file, over 1 MiB or no JSON object is passed over. */
function runRecords(paths: ProjectPaths): Array<{ runId: string; record: Record<string, unknown> }> {
  let names: string[];
  try {
    names = readdirSync(join(paths.stateDir, WORKFLOW_RUNS_DIR));
  } catch {
    return [];
  }
  return names.flatMap((runId) => {
    const record = RUN_ID.test(runId) ? readJsonObject(join(runFolder(paths, runId), "run.json"), 1024 * 1024) : null;
    return record === null ? [] : [{ runId, record }];
  });
}

/** The runs recorded here that have no end recorded (open), by run id. */
export function openRunIds(paths: ProjectPaths): string[] {
  return runRecords(paths)
    .filter(({ record }) => (record.ended ?? null) === null)
    .map(({ runId }) => runId);
}

/** Records the end of the session's runs of `taskId` (its `<task-notification>`'s status) in their run.json. */
export function markEnded(
  paths: ProjectPaths,
  session: { sessionId: string; taskId: string },
  status: string,
  now: Date,
): void {
  for (const runId of recordedRuns(paths, session.sessionId, session.taskId)) {
    const file = join(runFolder(paths, runId), "run.json");
    const record = readJsonObject(file, 1024 * 1024);
    if (record === null) continue;
    const ended: WorkflowRunEnd = { status, at: now.toISOString() };
    writeJsonInside(paths.root, file, { ...record, ended });
  }
}

/**
 * The client's journal at the path a run's record names, when that path is where the client keeps
 * it (`<…>/<session_id>/subagents/workflows/<runId>/journal.jsonl`, absolute, no `..`): copied
 * again (the result of the last agent before a kill, which no later start copied).
 */
export function copyRecordedJournal(paths: ProjectPaths, record: WorkflowRunRecord): JournalCopy | null {
  const path = record.journal_path;
  if (typeof path !== "string" || !isAbsolute(path) || path.split("/").includes("..")) return null;
  const folder = dirname(dirname(dirname(dirname(path))));
  if (basename(folder) !== record.session_id || journalPath(folder, record.run_id) !== path) return null;
  return copyJournal(paths, record.run_id, path);
}

/**
 * Puts dotagent's copy of a run's journal where the client looks for it in the session `folder`
 * (`<folder>/subagents/workflows/<runId>/journal.jsonl`): through the write primitive with the
 * session's folder as the root it may not leave; the folder itself must not be a link. A journal
 * already there is the client's own: left as it is.
 */
export function putJournalBack(
  folder: string,
  runId: string,
  journal: Buffer,
): { kind: "put" | "there" } | { kind: "refused"; why: string } {
  const within = "the client's session folder";
  try {
    const stat = lstatSync(folder);
    if (!stat.isDirectory())
      return {
        kind: "refused",
        why: `the session folder ${folder} is ${stat.isSymbolicLink() ? "a link" : "no folder"}`,
      };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT")
      return { kind: "refused", why: `the session folder cannot be read (${(error as Error).message})` };
  }
  const target = journalPath(folder, runId);
  try {
    lstatSync(target);
    return { kind: "there" };
  } catch {
    // not there: put back below
  }
  try {
    mkdirInside(folder, dirname(target), { within });
    writeFileInside(folder, target, journal, { within });
    return { kind: "put" };
  } catch (error) {
    return { kind: "refused", why: (error as Error).message.split("\n")[0]! };
  }
}

/**
 * The runs recorded for a session (and task, when given), by their run.json; a record that is not
 * a regular file, over 1 MiB or no JSON object is passed over. Their journals are copied from the
 * session's folder (never from a path a record names).
 */
export function recordedRuns(paths: ProjectPaths, sessionId: string, taskId: string | null): string[] {
  return runRecords(paths)
    .filter(({ record }) => record.session_id === sessionId && (taskId === null || record.task_id === taskId))
    .map(({ runId }) => runId);
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

/**
 * Whether the Claude Code process that launched a run still runs (on this host, the same pid and
 * start time): `here` when it is the one running this hook (a compaction, a /clear), `elsewhere`
 * for another; null when it is gone or unknown (no owner recorded, another host).
 */
export function runLive(record: WorkflowRunRecord, now: Date): "here" | "elsewhere" | null {
  const owner = record.owner;
  if (owner === undefined || owner === null || typeof owner.pid !== "number" || owner.host !== currentHost())
    return null;
  if (!isProcessRunning(owner.pid, owner.pid_start ?? null)) return null;
  return owner.pid === currentOwner(now).pid ? "here" : "elsewhere";
}
