// Claude Code's own Workflow tool (issue 43; SPEC §11 "Claude Code's Workflow runs"): what its hooks
// say about a run, read and checked. Pure: the store (src/store/workflow-runs.ts) reads and writes.
//
// Observed in Claude Code 2.1.332 (test/claude/NOTES.md): the PostToolUse hook of a `Workflow` call
// carries the call's input (`script`, `args`) and, in `tool_response`, `runId`, `taskId`,
// `workflowName`, `scriptPath` and `transcriptDir`; each workflow agent's SubagentStop carries
// `agent_type: "workflow-subagent"` and `agent_transcript_path`
// `<session folder>/subagents/workflows/<runId>/agent-<agentId>.jsonl`, beside the run's
// `journal.jsonl`. The session folder is `<dirname(transcript_path)>/<session_id>`.
//
// THREAT: a hook's input is whatever the client (or a process posing as it) sends. A run id names a
// folder of the project's memory, so it must be a plain id; the journal and the script are read only
// where the client keeps them (inside the session's folder, by the path built from the session's
// transcript and id, never a path taken whole from the input).
import { basename, dirname, join } from "node:path";
import type { Owner } from "./ownership.js";

/**
 * The Claude Code version whose Workflow layout (session folder, journal, hook payloads) dotagent
 * reads as measured (test/claude/NOTES.md). scripts/fetch-claude.mjs reads its default test client
 * from this line, so the tests run the version this names; doctor warns on another.
 */
export const CLAUDE_TESTED_VERSION = "2.1.332";

/** The run id the Workflow tool's schema allows (`^wf_[a-z0-9-]{6,}$`), at most 128 characters. */
export const RUN_ID = /^wf_[a-z0-9-]{6,125}$/;
/** A session id as Claude Code writes it (a UUID), or any plain id. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
/** The largest journal kept: a run's results, far above a real one (a run of 325 agents with long results). */
export const MAX_JOURNAL_BYTES = 16 * 1024 * 1024;
/** The largest script: the tool's own limit (its input schema's `maxLength`). */
export const MAX_SCRIPT_BYTES = 524288;

/** A Workflow run as dotagent records it (`memory/state/workflow-runs/<run_id>/run.json`). */
export interface WorkflowRunRecord {
  run_id: string;
  client: "claude";
  session_id: string;
  task_id: string | null;
  workflow_name: string | null;
  /** The call's `args`, verbatim (null when it had none). */
  args: unknown;
  /** Where the client keeps the script and the journal (absolute, in its session folder). */
  script_path: string | null;
  journal_path: string;
  /** The copies in the project's memory, relative to the project. */
  script_file: string | null;
  journal_file: string;
  recorded_at: string;
  /** The Claude Code process that launched it (src/core/ownership.ts), so a start can tell a run still running. */
  owner?: Owner;
}

export type Reading<T> = { ok: true; value: T } | { ok: false; why: string };

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const obj = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** The run id as a line can quote it: at most 40 characters, no control characters. */
export const quoteId = (id: string) => JSON.stringify(id.length > 40 ? `${id.slice(0, 40)}…` : id);

/** The session's folder of the client (`<dirname(transcript_path)>/<session_id>`), or why the input names none. */
export function sessionFolder(input: Record<string, unknown>): Reading<{ sessionId: string; folder: string }> {
  const sessionId = str(input.session_id);
  const transcript = str(input.transcript_path);
  if (sessionId === undefined || !SESSION_ID.test(sessionId)) return { ok: false, why: "no plain session id" };
  if (transcript === undefined || !transcript.startsWith("/") || basename(transcript) !== `${sessionId}.jsonl`)
    return { ok: false, why: "no transcript path of the session" };
  if (transcript.split("/").includes("..")) return { ok: false, why: "a transcript path with `..`" };
  return { ok: true, value: { sessionId, folder: join(dirname(transcript), sessionId) } };
}

/** Where the client keeps a run's journal: `<session folder>/subagents/workflows/<runId>/journal.jsonl`. */
export const journalPath = (folder: string, runId: string) =>
  join(folder, "subagents", "workflows", runId, "journal.jsonl");

/** What a PostToolUse of a `Workflow` call says about the run it launched. */
export interface LaunchedRun {
  runId: string;
  sessionId: string;
  folder: string;
  taskId: string | null;
  workflowName: string | null;
  args: unknown;
  /** The script as the call gave it (`script`), when it did. */
  script: string | null;
  /** The client's copy of the script, when it lies in the session's `workflows/scripts/`. */
  scriptPath: string | null;
  journalPath: string;
}

/** Reads a PostToolUse input of a `Workflow` call: the run, or why it is not recorded (null: not a launch at all). */
export function readLaunch(input: Record<string, unknown>): Reading<LaunchedRun> | null {
  if (str(input.tool_name) !== "Workflow") return null;
  const response = obj(input.tool_response);
  const runId = str(response.runId);
  if (runId === undefined) return null;
  if (!RUN_ID.test(runId)) return { ok: false, why: `run id ${quoteId(runId)} is not a plain run id (wf_…)` };
  const session = sessionFolder(input);
  if (!session.ok) return session;
  const { folder, sessionId } = session.value;
  const journal = journalPath(folder, runId);
  const transcriptDir = str(response.transcriptDir);
  if (transcriptDir !== undefined && transcriptDir !== dirname(journal))
    return { ok: false, why: `its transcript folder is not the session's subagents/workflows/${runId}` };
  const toolInput = obj(input.tool_input);
  const script = str(toolInput.script) ?? null;
  const givenPath = str(response.scriptPath);
  const scriptPath =
    givenPath !== undefined &&
    dirname(givenPath) === join(folder, "workflows", "scripts") &&
    givenPath.endsWith(`-${runId}.js`)
      ? givenPath
      : null;
  return {
    ok: true,
    value: {
      runId,
      sessionId,
      folder,
      taskId: str(response.taskId) ?? null,
      workflowName: str(response.workflowName) ?? null,
      args: "args" in toolInput ? toolInput.args : null,
      script,
      scriptPath,
      journalPath: journal,
    },
  };
}

/**
 * A workflow agent's SubagentStart (no transcript path, so no run id: every run recorded for the
 * session is looked at), or the <task-notification> prompt of a run that ended (its task id): the
 * moments when the journal holds the results a SubagentStop came too early for (NOTES.md).
 */
export function readJournalMoment(
  input: Record<string, unknown>,
): Reading<{ sessionId: string; folder: string; taskId: string | null; status: string | null }> | null {
  const event = str(input.hook_event_name);
  let taskId: string | null = null;
  let status: string | null = null;
  if (event === "SubagentStart") {
    if (str(input.agent_type) !== "workflow-subagent") return null;
  } else if (event === "UserPromptSubmit") {
    const head = /^<task-notification>\s*<task-id>([\w-]{1,128})<\/task-id>/.exec(
      (str(input.prompt) ?? "").trimStart(),
    );
    if (head === null) return null;
    taskId = head[1]!;
    status = endStatus((str(input.prompt) ?? "").trimStart());
  } else return null;
  const session = sessionFolder(input);
  if (!session.ok) return event === "SubagentStart" ? session : null;
  return { ok: true, value: { ...session.value, taskId, status } };
}

/**
 * The status a `<task-notification>` gives its task (completed, failed, stopped, …), only where the
 * client puts it: after the task id and the fields the client writes before it, never from the
 * result's text further down. Null when there is none there, and for the note `claude -r` gives a
 * run its killed session left ("didn't finish before the previous session ended": cut off, not ended).
 */
export function endStatus(prompt: string): string | null {
  const head =
    /^<task-notification>\s*<task-id>[\w-]{1,128}<\/task-id>(?:\s*<(tool-use-id|output-file)>[^<\n]{0,4096}<\/\1>)*\s*<status>([a-z_]{1,32})<\/status>/.exec(
      prompt,
    );
  if (head === null) return null;
  // The client's note on a run a killed session left behind (`claude -r`): no end, the run is still to resume.
  if (/didn't finish before the previous session ended/.test(prompt.slice(0, 8192))) return null;
  return head[2]!;
}

/** Reads a SubagentStop input of a workflow agent: its run and the journal to copy (null: no workflow agent). */
export function readWorkflowAgentStop(
  input: Record<string, unknown>,
): Reading<{ runId: string; sessionId: string; journalPath: string }> | null {
  if (str(input.agent_type) !== "workflow-subagent" || str(input.hook_event_name) === "SubagentStart") return null;
  const transcript = str(input.agent_transcript_path);
  if (transcript === undefined) return { ok: false, why: "no agent transcript path" };
  const runId = basename(dirname(transcript));
  if (!RUN_ID.test(runId)) return { ok: false, why: `run id ${quoteId(runId)} is not a plain run id (wf_…)` };
  const session = sessionFolder(input);
  if (!session.ok) return session;
  const journal = journalPath(session.value.folder, runId);
  if (dirname(transcript) !== dirname(journal) || !/^agent-[A-Za-z0-9_-]{1,128}\.jsonl$/.test(basename(transcript)))
    return { ok: false, why: `its transcript is not in the session's subagents/workflows/${runId}` };
  return { ok: true, value: { runId, sessionId: session.value.sessionId, journalPath: journal } };
}
