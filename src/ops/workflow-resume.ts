// Claude Code's Workflow runs cut off before they ended, resumed (issue 43; SPEC §11 "Claude Code's
// Workflow runs"): at a session's start each open run's journal is copied again from the client,
// a run sealed here is put back into the starting session's folder and its exact call handed to the
// model; any other run gets one line and the person's choice (`dotagent workflow-run resume`), whose
// helper line's PreToolUse seals and puts back a run the person let resume mid-session.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { RUN_ID, quoteId, sessionFolder } from "../core/claude-workflow-run.js";
import { handFor, resumeYes, runLines, runPersonLine, type RunHand } from "../core/workflow-resume.js";
import { readProjectFile } from "../store/read-file.js";
import { withLock } from "../store/session.js";
import type { ProjectPaths } from "../store/project.js";
import {
  WORKFLOW_RUNS_DIR,
  copyRecordedJournal,
  openRunIds,
  putJournalBack,
  readRunFolder,
  runFolder,
  runLive,
  writeSeal,
  type RunFolder,
} from "../store/workflow-runs.js";

interface Ctx {
  paths: ProjectPaths;
  warn: (message: string) => void;
  /** The hook's own script (the briefing's command lines name it). */
  helper?: string;
}

/** The saved workflow or client script a run came from, when its bytes now differ from the kept script: its name for the line. */
function changedSource(paths: ProjectPaths, run: RunFolder): string | null {
  if (run.script === null) return null;
  const name = run.record.workflow_name;
  const candidates =
    typeof name === "string" && /^[A-Za-z0-9][\w.-]{0,127}$/.test(name)
      ? [join(paths.root, ".claude", "workflows", `${name}.js`)]
      : [];
  for (const file of candidates) {
    const read = readProjectFile(file, { maxBytes: 1024 * 1024, links: "refuse" });
    if (read.kind === "ok" && !read.bytes.equals(run.script)) return `.claude/workflows/${name}.js`;
  }
  return null;
}

/**
 * The SessionStart part: the briefing's lines for the open runs (none: nothing said). Under the
 * state lock (waiting at most a second: a session start never waits long); each run's journal is
 * copied again from the client first when its seal holds, then put back when the session is
 * another. Never throws.
 */
export async function sessionStartRuns(ctx: Ctx, input: Record<string, unknown>): Promise<string[]> {
  return (await sessionStartRunsTold(ctx, input)).briefing;
}

/** As sessionStartRuns, with the person's line for the same runs (src/core/workflow-resume.ts runPersonLine). */
export async function sessionStartRunsTold(
  ctx: Ctx,
  input: Record<string, unknown>,
): Promise<{ briefing: string[]; person: string | null }> {
  const nothing = { briefing: [], person: null };
  if (!existsSync(join(ctx.paths.stateDir, WORKFLOW_RUNS_DIR))) return nothing;
  // Claude Code's runs are for a Claude Code session (another client's start names no such folder).
  const session = sessionFolder(input);
  if (!session.ok) return nothing;
  const ids = openRunIds(ctx.paths);
  if (ids.length === 0) return nothing;
  const wait = process.env.DOTAGENT_LOCK_WAIT_MS;
  process.env.DOTAGENT_LOCK_WAIT_MS = String(Math.min(Number(wait ?? 1000) || 1000, 1000));
  try {
    return await withLock(ctx.paths, "hook session-start workflow runs", () => {
      const hands: RunHand[] = [];
      const changed = new Map<string, string>();
      const names = new Map<string, string>();
      for (const runId of ids.slice(0, 8)) {
        let run = readRunFolder(ctx.paths, runId);
        if (run === null) continue;
        if (run.verdict.kind === "sealed") {
          const copy = copyRecordedJournal(ctx.paths, run.record);
          if (copy?.kind === "copied") run = readRunFolder(ctx.paths, runId) ?? run;
        }
        let hand = handFor({
          record: run.record,
          verdict: run.verdict,
          journal: run.journal.toString("utf8"),
          scriptFile: run.script === null ? null : join(runFolder(ctx.paths, runId), "script.js"),
          sessionId: session.value.sessionId,
          live: runLive(run.record, new Date()),
        });
        // Another session's run goes into this one's folder; this session's own, only when the client lost it (TaskStop).
        if (hand.kind === "hand") {
          const put = putJournalBack(session.value.folder, runId, run.journal);
          if (put.kind === "refused") hand = { kind: "none", runId, why: `its journal was not put back: ${put.why}` };
          else hand = { ...hand, putBack: put.kind === "put" };
        }
        const source = changedSource(ctx.paths, run);
        if (source !== null) changed.set(runId, source);
        if (typeof run.record.workflow_name === "string") names.set(runId, run.record.workflow_name);
        hands.push(hand);
      }
      return { briefing: runLines(hands, changed, ctx.helper), person: runPersonLine(hands, names) };
    });
  } catch (error) {
    ctx.warn(`the open Claude Code workflow runs were not looked at: ${(error as Error).message.split("\n")[0]}`);
    return nothing;
  } finally {
    if (wait === undefined) delete process.env.DOTAGENT_LOCK_WAIT_MS;
    else process.env.DOTAGENT_LOCK_WAIT_MS = wait;
  }
}

/**
 * The PreToolUse part of the helper line `workflow-run resume RUN_ID [--yes]` (allowed by the
 * grammar), the one moment that knows both the person's answer and the session: Claude Code checks
 * a `Workflow` call's `resumeFromRunId` against the session's folder before any hook of the call
 * runs (test/claude/NOTES.md), so the journal must be there before the model makes the call. A run
 * whose seal holds, or that the person let resume (their reply said yes to the line's `--yes`
 * form), is sealed here and its journal put back into the calling session's folder; the command
 * then prints the call. Anything else: nothing done (the command asks or refuses).
 */
export async function beforeResumeLine(
  ctx: Ctx,
  argv: readonly string[],
  input: Record<string, unknown>,
): Promise<void> {
  const words = argv.slice(2);
  // Another project's run (`--dir`) is that project's to put back at its own session's start.
  if (words.some((w) => w === "--dir" || w.startsWith("--dir="))) return;
  const [action, runId] = words.filter((w) => !w.startsWith("-"));
  if (action !== "resume" || runId === undefined || !RUN_ID.test(runId)) return;
  if (!existsSync(join(ctx.paths.stateDir, WORKFLOW_RUNS_DIR, runId))) return;
  const session = sessionFolder(input);
  if (!session.ok) return;
  try {
    const first = readRunFolder(ctx.paths, runId);
    if (first === null || first.record.ended != null || first.script === null) return;
    if (runLive(first.record, new Date()) !== null) return;
    if (first.verdict.kind !== "sealed") {
      const { commandApprovedByReply } = await import("./person-gate.js");
      if (!(await commandApprovedByReply(ctx.paths, resumeYes(runId))).ok) return;
    }
    await withLock(ctx.paths, "hook pre-tool-use workflow-run resume", () => {
      const run = readRunFolder(ctx.paths, runId);
      if (run === null) return;
      if (run.verdict.kind !== "sealed") {
        const failed = writeSeal(ctx.paths, runId, run.journal, run.script, run.record.args);
        if (failed !== null) return ctx.warn(`workflow run ${quoteId(runId)}: not sealed (${failed})`);
      }
      const put = putJournalBack(session.value.folder, runId, run.journal);
      if (put.kind === "refused") ctx.warn(`workflow run ${quoteId(runId)}: its journal was not put back: ${put.why}`);
    });
  } catch (error) {
    ctx.warn(`workflow run ${quoteId(runId)}: not put back: ${(error as Error).message.split("\n")[0]}`);
  }
}

/** One open run as `dotagent resume` tells it (SPEC §5 `claude_workflow_runs`). */
export interface OpenRunView {
  run_id: string;
  workflow_name: string | null;
  /** resumable: its seal holds here (the call below); ask: the person's choice (`workflow-run resume`); running: its Claude Code still runs; cannot: no script kept, or another reason. */
  state: "resumable" | "ask" | "running" | "cannot";
  done: string[];
  rerun: string[];
  /** The exact Workflow call that resumes it (resumable only). */
  call: string | null;
  /** Why it is not resumable as it is (ask, cannot), else null. */
  why: string | null;
}

/**
 * `dotagent resume`'s look at the open runs: read only (no copy, no put-back, no lock: a session's
 * start does those), so the model that runs `resume` after `claude -r` and a person at a terminal
 * both learn what is open and how it goes on. Empty, after one stat, when no run is kept here.
 */
export function openRunsForResume(paths: ProjectPaths, helper?: string): { runs: OpenRunView[]; lines: string[] } {
  if (!existsSync(join(paths.stateDir, WORKFLOW_RUNS_DIR))) return { runs: [], lines: [] };
  const hands: RunHand[] = [];
  const runs: OpenRunView[] = [];
  const changed = new Map<string, string>();
  for (const runId of openRunIds(paths).slice(0, 8)) {
    const run = readRunFolder(paths, runId);
    if (run === null) continue;
    const hand = handFor({
      record: run.record,
      verdict: run.verdict,
      journal: run.journal.toString("utf8"),
      scriptFile: run.script === null ? null : join(runFolder(paths, runId), "script.js"),
      sessionId: run.record.session_id,
      live: runLive(run.record, new Date()),
    });
    const source = changedSource(paths, run);
    if (source !== null) changed.set(runId, source);
    hands.push(hand);
    runs.push({
      run_id: runId,
      workflow_name: run.record.workflow_name,
      state:
        hand.kind === "hand" ? "resumable" : hand.kind === "live" ? "running" : hand.kind === "ask" ? "ask" : "cannot",
      done: hand.kind === "hand" ? hand.done : [],
      rerun: hand.kind === "hand" ? hand.rerun : [],
      call: hand.kind === "hand" ? hand.call : null,
      why: hand.kind === "ask" || hand.kind === "none" ? hand.why : null,
    });
  }
  return { runs, lines: runLines(hands, changed, helper) };
}
