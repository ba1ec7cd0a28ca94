// `dotagent hook <event>`: Claude Code's hooks (SPEC §11). Every one exits 0 and never breaks the
// session: what it has to say is JSON on stdout, a problem one line on stderr.
// - session-start: runs at every session start, so it is fast, takes no lock (it only reads) and
//   prints nothing when there is no open workflow;
// - pre-tool-use, post-tool-use, subagent-stop, user-prompt-submit: the loop's bookkeeping
//   (src/claude/hooks.ts); they take the state lock, waiting longer for it than a command.
import { planWithRecovery } from "../../ops/recovery.js";
import { loadSnapshot } from "../../store/session.js";
import { judgeRunningTasks } from "../../store/process-facts.js";
import { mark } from "../../store/trace.js";
import { readJsonObject } from "../../store/read-file.js";
import { findProjectRoot, projectPaths } from "../../store/project.js";
import { briefingFor } from "../../claude/briefing.js";
import { worktreeViews } from "../../core/worktrees.js";
import { checkoutFactsFor } from "../../store/worktrees.js";
import { opContext, type Command, type CommandContext } from "../context.js";

interface SessionStartInput {
  source?: string;
  cwd?: string;
  hook_event_name?: string;
}

/** Hook inputs over this are not read (a Write's input carries the whole file it writes). */
export const MAX_HOOK_INPUT_BYTES = 10 * 1024 * 1024;

/**
 * Reads the hook's JSON from stdin; a terminal, no input, bad JSON or an input over 10 MiB yields
 * {}. Waits for the whole object however it arrives (in parts, on a non-blocking stdin) and stops
 * as soon as one whole JSON object is there, so a caller that keeps stdin open cannot make it wait.
 */
function readHookInput(): SessionStartInput {
  if (process.stdin.isTTY) return {};
  return (readJsonObject(0, MAX_HOOK_INPUT_BYTES) ?? {}) as SessionStartInput;
}

const EVENTS = ["session-start", "pre-tool-use", "post-tool-use", "subagent-stop", "user-prompt-submit"] as const;

/** The project a hook works on: --dir, else Claude Code's project folder, else the hook's cwd. */
function hookPaths(context: CommandContext, input: SessionStartInput) {
  if (context.options.dir !== undefined) return context.paths;
  const from = process.env.CLAUDE_PROJECT_DIR || (typeof input.cwd === "string" ? input.cwd : undefined);
  return from === undefined ? context.paths : projectPaths(findProjectRoot(undefined, from));
}

async function runLoopHook(context: CommandContext, event: string): Promise<void> {
  const input = readHookInput() as Record<string, unknown>;
  mark(`hook ${event} ${typeof input.tool_name === "string" ? input.tool_name : ""}`);
  // Parallel agents start and end together: a hook waits its turn for the lock (its timeout is 30 s).
  process.env.DOTAGENT_LOCK_WAIT_MS ??= "20000";
  const paths = hookPaths(context, input);
  // A hook is dotagent's own bookkeeping, not the model's shell (Claude Code runs it with CLAUDECODE=1 too).
  const op = { ...opContext(context), paths, byModel: false };
  const hooks = await import("../../claude/hooks.js");
  const output =
    event === "pre-tool-use"
      ? await hooks.onPreToolUse(op, input, process.argv[1] ?? "")
      : event === "post-tool-use"
        ? await hooks.onPostToolUse(op, input)
        : event === "subagent-stop"
          ? await hooks.onSubagentStop(op, input)
          : await hooks.onUserPromptSubmit(op, input);
  if (output !== null) process.stdout.write(`${JSON.stringify(output)}\n`);
}

export const command: Command = {
  summary: "hook <event>: Claude Code's hooks (session-start, pre-tool-use, post-tool-use, subagent-stop, user-prompt-submit; JSON on stdin)",
  usage: "dotagent hook session-start|pre-tool-use|post-tool-use|subagent-stop|user-prompt-submit",
  options: {},
  lenientOptions: true,
  examples: ['echo \'{"source":"resume","cwd":"."}\' | dotagent hook session-start', `echo '{"tool_name":"Bash","tool_input":{"command":"node x/dotagent.mjs status"}}' | dotagent hook pre-tool-use`],
  async run(context) {
    const event = context.args[0];
    if (event === undefined || !(EVENTS as readonly string[]).includes(event)) {
      process.stderr.write(`dotagent: hook takes one event: ${EVENTS.join(", ")}\n`);
      return 0;
    }
    if (event !== "session-start") {
      try {
        await runLoopHook(context, event);
      } catch (error) {
        process.stderr.write(`dotagent hook ${event}: ${(error as Error).message}\n`);
      }
      return 0;
    }
    try {
      const input = readHookInput();
      const paths = context.options.dir === undefined && typeof input.cwd === "string" ? projectPaths(findProjectRoot(undefined, input.cwd)) : context.paths;
      const snapshot = await loadSnapshot(paths);
      const now = context.now();
      // The checkout is looked at only when a round's tasks are about to start (git runs then alone),
      // so the briefing names the isolation question instead of a run_tasks the spawn hook refuses.
      const plan = await planWithRecovery(paths, snapshot, now, { owners: judgeRunningTasks(snapshot, now), checkout: checkoutFactsFor(paths.root, snapshot) });
      const execution = snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined;
      const request = snapshot.phase.kind === "ok" ? snapshot.phase.value.request : null;
      const briefing = briefingFor(plan, input.source, process.argv[1], { isolation: execution?.isolation ?? null, worktrees: worktreeViews(execution) }, request);
      if (briefing !== null) {
        process.stdout.write(`${JSON.stringify({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: briefing } })}\n`);
      }
    } catch (error) {
      // A hook must never break the session; say so on stderr (Claude Code shows it in verbose mode).
      process.stderr.write(`dotagent hook: ${(error as Error).message}\n`);
      // State that is there but cannot be read is news for the session, not silence.
      if ((error as Error).name === "DotagentError" && /^(state_|rollback_journal_invalid$)/.test((error as { code?: string }).code ?? "")) {
        const text = `dotagent: the workflow state in memory/ cannot be read, so where the workflow stands is unknown: ${(error as Error).message}`;
        process.stdout.write(`${JSON.stringify({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: text } })}\n`);
      }
    }
    return 0;
  },
};
