// `dotagent hook session-start`: runs at every Claude Code session start, so it must be fast,
// never wait on the lock (it takes none: it only reads), never fail the session (always exit 0),
// and print nothing when there is no open workflow.
import { readSync } from "node:fs";
import { planResume } from "../../core/plan-resume.js";
import { loadSnapshot } from "../../store/session.js";
import { judgeRunningTasks } from "../../store/process-facts.js";
import { findProjectRoot, projectPaths } from "../../store/project.js";
import { briefingFor } from "../../claude/briefing.js";
import type { Command } from "../context.js";

interface SessionStartInput {
  source?: string;
  cwd?: string;
  hook_event_name?: string;
}

/**
 * Reads the hook's JSON from stdin; a terminal, no input or bad JSON yields {}. Stops as soon as
 * one whole JSON object has arrived, so a caller that keeps stdin open cannot make it wait.
 */
function readHookInput(): SessionStartInput {
  if (process.stdin.isTTY) return {};
  let text = "";
  const buffer = Buffer.alloc(65536);
  try {
    while (text.length < 1_000_000) {
      const n = readSync(0, buffer, 0, buffer.length, null);
      if (n <= 0) break;
      text += buffer.toString("utf8", 0, n);
      const parsed = parseObject(text);
      if (parsed !== undefined) return parsed;
    }
  } catch {
    // EAGAIN on a non-blocking stdin, or no stdin at all: treat as empty
  }
  return parseObject(text) ?? {};
}

function parseObject(text: string): SessionStartInput | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === "object" ? (value as SessionStartInput) : {};
  } catch {
    return undefined;
  }
}

export const command: Command = {
  summary: "hook session-start: Claude Code's SessionStart hook (reads its JSON on stdin)",
  usage: "dotagent hook session-start",
  options: {},
  lenientOptions: true,
  examples: ['echo \'{"source":"resume","cwd":"."}\' | dotagent hook session-start'],
  async run(context) {
    if (context.args[0] !== "session-start") {
      process.stderr.write("dotagent: hook takes one event: session-start\n");
      return 0;
    }
    try {
      const input = readHookInput();
      const paths = context.options.dir === undefined && typeof input.cwd === "string" ? projectPaths(findProjectRoot(undefined, input.cwd)) : context.paths;
      const snapshot = await loadSnapshot(paths);
      const now = context.now();
      const plan = planResume(snapshot, now, { owners: judgeRunningTasks(snapshot, now) });
      const briefing = briefingFor(plan, input.source, process.argv[1]);
      if (briefing !== null) {
        process.stdout.write(`${JSON.stringify({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: briefing } })}\n`);
      }
    } catch (error) {
      // A hook must never break the session; say so on stderr (Claude Code shows it in verbose mode).
      process.stderr.write(`dotagent hook: ${(error as Error).message}\n`);
      // State that is there but cannot be read is news for the session, not silence.
      if ((error as Error).name === "DotagentError" && /^state_/.test((error as { code?: string }).code ?? "")) {
        const text = `dotagent: the workflow state in memory/ cannot be read, so where the workflow stands is unknown: ${(error as Error).message}`;
        process.stdout.write(`${JSON.stringify({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: text } })}\n`);
      }
    }
    return 0;
  },
};
