// Claude Code's hooks (SPEC §11) as a client adapter's hooks: its input is already Claude-shaped, so
// in and out are the identity; Codex's hooks (src/clients/codex/hook-run.ts) are the same runner
// with their own in and out. Every event exits 0 and never breaks the session:
// - session-start: the briefing (hookSpecificOutput.additionalContext) and the person's line
//   (systemMessage: Claude Code shows it under the session, Codex under the first prompt);
// - pre-tool-use, post-tool-use, subagent-stop, user-prompt-submit: the loop's bookkeeping
//   (src/claude/hooks.ts); they take the state lock, waiting longer for it than a command;
// - subagent-start: Codex's (a multi-agent v2 executor's worktree lines); Claude Code's for a
//   workflow agent of its Workflow tool (the run's journal copied, SPEC §11).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { readHookStdin } from "../../store/read-file.js";
import { mark } from "../../store/trace.js";
import type { OpContext } from "../../ops/op-context.js";
import { COPILOT } from "../index.js";
import {
  NO_REPLY,
  type ClientHooks,
  type HookHost,
  type HookInput,
  type HookOutput,
  type HookReply,
  type SessionStartTold,
} from "../adapter.js";

export const EVENTS = [
  "session-start",
  "pre-tool-use",
  "post-tool-use",
  "subagent-start",
  "subagent-stop",
  "user-prompt-submit",
] as const;
export type LoopEvent = Exclude<(typeof EVENTS)[number], "session-start">;

/** dotagent's handler (src/claude/hooks.ts) for one Claude-shaped input. */
export type Answer = (event: LoopEvent, input: HookInput) => Promise<HookOutput>;

/** A client whose hooks speak Claude Code's JSON, but for what `answer` translates. */
export interface ClaudeShapedIO {
  readonly startWord: string;
  /** The client starts session-start at the person's first prompt (Codex), so its line shows under that prompt. */
  readonly afterPrompt?: boolean;
  /** The briefing as this client's model reads it. */
  briefing(text: string): string;
  /** Whether the model's shell keeps .git read-only (a sandbox the hook is outside of), when the input says. */
  modelGitReadOnly(input: HookInput, atStart: boolean): (() => boolean) | undefined;
  /** The client's input in, dotagent's answers (for Claude-shaped inputs) out. */
  answer(op: OpContext, event: LoopEvent, input: HookInput, answer: Answer): Promise<HookOutput>;
}

/** A hook's answer with what it warned of added to the words the model reads (a denial's reason, a context); other answers as they are. */
export function withWarnings(output: HookOutput, warnings: readonly string[]): HookOutput {
  const specific = output?.hookSpecificOutput as Record<string, unknown> | undefined;
  if (warnings.length === 0 || specific === undefined) return output;
  const note = warnings.map((w) => `dotagent: ${w}`).join("\n");
  if (specific.permissionDecision === "deny" && typeof specific.permissionDecisionReason === "string")
    return {
      ...output,
      hookSpecificOutput: { ...specific, permissionDecisionReason: `${specific.permissionDecisionReason}\n${note}` },
    };
  if (typeof specific.additionalContext === "string")
    return {
      ...output,
      hookSpecificOutput: { ...specific, additionalContext: `${specific.additionalContext}\n${note}` },
    };
  return output;
}

const reply = (stdout: Record<string, unknown> | null): HookReply => ({ stdout, stderr: null, exitCode: 0 });

async function runLoopHook(io: ClaudeShapedIO, event: LoopEvent, host: HookHost): Promise<HookReply> {
  const input = readHookStdin() as HookInput;
  mark(`hook ${event} ${typeof input.tool_name === "string" ? input.tool_name : ""}`);
  // Parallel agents start and end together: a hook waits its turn for the lock (its timeout is 30 s).
  process.env.DOTAGENT_LOCK_WAIT_MS ??= "20000";
  const paths = host.paths("CLAUDE_PROJECT_DIR", input);
  // A hook is dotagent's own bookkeeping, not the model's shell (Claude Code runs it with CLAUDECODE=1 too).
  // What it warns of reaches the model with its answer too (a refusal's reason, a context), not stderr alone.
  const told: string[] = [];
  const op = host.op(paths, {
    warn: (message: string) => (told.push(message), host.warn(message)),
    modelGitReadOnly: io.modelGitReadOnly(input, false),
  });
  const hooks = await import("../../claude/hooks.js");
  const answer: Answer = (event, input) =>
    event === "pre-tool-use"
      ? hooks.onPreToolUse(op, input, host.helper)
      : event === "post-tool-use"
        ? hooks.onPostToolUse(op, input)
        : event === "subagent-stop"
          ? hooks.onSubagentStop(op, input)
          : event === "subagent-start"
            ? hooks.onSubagentStart(op, input)
            : hooks.onUserPromptSubmit(op, input);
  return reply(withWarnings(await io.answer(op, event, input, answer), told));
}

/** The session-start hook's JSON: the person's line as `systemMessage`, the briefing as the context. */
function sessionStartReply(io: ClaudeShapedIO, told: SessionStartTold): HookReply {
  const briefing = told.briefing === null ? null : io.briefing(told.briefing);
  const line = told.line;
  if (briefing === null && line === null) return NO_REPLY;
  return reply({
    ...(line === null ? {} : { systemMessage: line }),
    ...(briefing === null
      ? {}
      : { hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: briefing } }),
  });
}

/** Copilot CLI ran Claude Code's hooks in a project without dotagent's Copilot install: what to say. */
function copilotInstallMissing(host: HookHost, input: HookInput): string | null {
  const paths = host.paths("COPILOT_PROJECT_DIR", input);
  if (existsSync(join(paths.root, COPILOT.manifest))) return null;
  return `dotagent: these are dotagent's hooks for Claude Code; in Copilot CLI they record nothing, so /develop cannot keep its workflow here. To use it in Copilot CLI, the person runs \`node "${host.helper || "dotagent.mjs"}" install --client copilot\` in ${paths.root} (or \`dotagent install --client copilot\`), then starts a new session.`;
}

/** The hooks of a client that speaks Claude Code's hook JSON, with `io` its in and out. */
export function claudeShapedHooks(io: ClaudeShapedIO): ClientHooks {
  return {
    events: EVENTS,
    async run(event, host) {
      // Copilot CLI also runs the hooks of .claude/settings.json (with its own tool names and a
      // sub-agent's prompt as a "user prompt"): there the `--client copilot` hooks keep the books.
      // Run by Copilot: COPILOT_CLI=1 and no CLAUDECODE (Claude Code sets CLAUDECODE=1 for its hooks,
      // so a Claude Code started from Copilot's shell, which passes COPILOT_CLI=1 on, keeps its own
      // hooks), or COPILOT_HOOK_DIR, which Copilot sets for its own and a plugin's hooks but not for
      // .claude/settings.json's (test/copilot/NOTES.md). settings.ts COPILOT_GUARD skips Node
      // for a subset of these in the shell.
      // Without dotagent's Copilot install (Claude Code's plugin installed into Copilot, or only
      // .claude/), the session is told once, at its start, how to get one.
      if (
        process.env.COPILOT_CLI === "1" &&
        (process.env.CLAUDECODE === undefined || process.env.COPILOT_HOOK_DIR !== undefined)
      ) {
        if (event !== "session-start") return NO_REPLY;
        const text = copilotInstallMissing(host, readHookStdin() as HookInput);
        return text === null ? NO_REPLY : reply({ additionalContext: text });
      }
      if (event === undefined || !(EVENTS as readonly string[]).includes(event))
        return { stdout: null, stderr: `dotagent: hook takes one event: ${EVENTS.join(", ")}\n`, exitCode: 0 };
      if (event !== "session-start") return runLoopHook(io, event as LoopEvent, host);
      const input = readHookStdin() as HookInput;
      return sessionStartReply(
        io,
        await host.told(input, io.startWord, io.modelGitReadOnly(input, true), io.afterPrompt),
      );
    },
  };
}

/** Claude Code's own: its input as it is; its agents get their lines in their prompt (updatedInput); a start is a Workflow agent's (its matcher). */
export const claudeHooks: ClientHooks = claudeShapedHooks({
  startWord: "/develop",
  briefing: (text) => text,
  modelGitReadOnly: () => undefined,
  answer: async (_op, event, input, answer) => answer(event, input),
});
