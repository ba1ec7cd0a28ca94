// GitHub Copilot CLI's hooks (`.github/hooks/*.json`, `version: 1`) spoken in the shape dotagent's
// Claude Code hooks read (src/claude/hooks.ts), and their answers put back into the shape Copilot
// reads. Pure: no file system, no clock. What Copilot 1.0.102 sends and reads is measured in
// test/copilot/NOTES.md:
//
//   input   camelCase (`sessionId`, `toolName`, `toolArgs`, `agentId`, `agentType`), Copilot's own
//           tool names (`bash`, `task`, `create`, `edit`, `view`) and argument names (`path`,
//           `file_text`, `old_str`, `agent_type`, `mode`)
//   output  TOP-LEVEL fields: `permissionDecision` / `permissionDecisionReason` / `modifiedArgs`
//           (preToolUse), `additionalContext` (sessionStart, userPromptSubmitted, postToolUse),
//           `decision: "block"` / `reason` (subagentStop). Claude's `hookSpecificOutput` is ignored.
//           No field is shown to the person (`systemMessage` neither): the one channel to them is
//           exit status 2, whose stderr Copilot shows in the conversation as `! <text>` and whose
//           stdout it still reads (sessionStart; measured, NOTES.md "What the person sees").
import type { HookInput, HookOutput } from "../../claude/hooks.js";

/** The events dotagent installs for Copilot, by the name `dotagent hook <event>` takes. */
export const COPILOT_EVENTS = {
  "session-start": "sessionStart",
  "user-prompt-submit": "userPromptSubmitted",
  "pre-tool-use": "preToolUse",
  "post-tool-use": "postToolUse",
  "post-tool-use-failure": "postToolUseFailure",
  "subagent-stop": "subagentStop",
} as const;
export type CopilotHookEvent = keyof typeof COPILOT_EVENTS;

const CLAUDE_EVENT: Record<CopilotHookEvent, string> = {
  "session-start": "SessionStart",
  "user-prompt-submit": "UserPromptSubmit",
  "pre-tool-use": "PreToolUse",
  "post-tool-use": "PostToolUse",
  "post-tool-use-failure": "PostToolUseFailure",
  "subagent-stop": "SubagentStop",
};

/** Copilot's tool names as Claude Code's (the names dotagent's hooks judge). */
export const CLAUDE_TOOL: Readonly<Record<string, string>> = {
  bash: "Bash",
  task: "Agent",
  create: "Write",
  edit: "Edit",
  view: "Read",
};

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const obj = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
/** Only the fields that are there: an absent one stays absent (hooks.ts tells undefined from ""). */
const defined = (o: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** A tool's arguments under Claude Code's names (the fields hooks.ts and the write guard read). */
export function claudeToolInput(tool: string, args: Record<string, unknown>): Record<string, unknown> {
  switch (tool) {
    case "create":
      return defined({ file_path: args.path, content: args.file_text });
    case "edit":
      return defined({ file_path: args.path, old_string: args.old_str, new_string: args.new_str });
    case "view":
      return defined({ file_path: args.path });
    case "task": {
      // `name` is the UI label Copilot requires on every call; `mode` is Claude's run_in_background.
      // Anything else (a model or effort override) stays, so the spawn check refuses it as in Claude Code.
      const { agent_type, mode, name: _label, ...rest } = args;
      return defined({
        ...rest,
        subagent_type: agent_type,
        run_in_background: mode === undefined ? undefined : mode === "background",
      });
    }
    default:
      return args;
  }
}

/**
 * A tool's result as Claude Code's hooks read it. A `task` in `mode: "background"` returns at once
 * ("Agent started in background with agent_id: …"): that is Claude Code's `async_launched`, so the
 * agent's end is recorded when it stops (subagentStop), not at its launch.
 */
function claudeToolResponse(
  tool: string | undefined,
  args: Record<string, unknown>,
  result: Record<string, unknown>,
): Record<string, unknown> {
  if (tool !== "task") return result;
  const launched = /^Agent started in background with agent_id: ([\w-]+)/.exec(str(result.textResultForLlm) ?? "");
  if (launched === null && args.mode !== "background") return result;
  return defined({ ...result, status: "async_launched", agentId: launched?.[1] });
}

/** Whether the session is a sub-agent's (Copilot puts `agentId` on every event of a sub-agent's own session). */
export const isSubAgentEvent = (input: Record<string, unknown>): boolean => str(input.agentId) !== undefined;

/** Copilot's hook input as the Claude-shaped input src/claude/hooks.ts reads. */
export function toClaudeInput(event: CopilotHookEvent, input: Record<string, unknown>): HookInput {
  const tool = str(input.toolName);
  const args = obj(input.toolArgs);
  const source = str(input.source);
  return defined({
    hook_event_name: CLAUDE_EVENT[event],
    session_id: str(input.sessionId),
    cwd: str(input.cwd),
    transcript_path: str(input.transcriptPath),
    // Copilot says `new` for a fresh session; Claude Code's word is `startup` (the briefing reads it).
    source: source === "new" ? "startup" : source,
    prompt: str(input.prompt),
    agent_id: str(input.agentId),
    agent_type: str(input.agentType),
    tool_name: tool === undefined ? undefined : (CLAUDE_TOOL[tool] ?? tool),
    tool_input: tool === undefined ? undefined : claudeToolInput(tool, args),
    tool_response: input.toolResult === undefined ? undefined : claudeToolResponse(tool, args, obj(input.toolResult)),
    error: str(input.error),
  });
}

/**
 * The answer of src/claude/hooks.ts (or of the session-start hook) in the shape Copilot reads.
 * `toolArgs` are the call's own arguments: a changed prompt goes back as `modifiedArgs`, under
 * Copilot's names, with everything else the model gave left as it was.
 */
export function toCopilotOutput(
  output: HookOutput,
  toolArgs: Record<string, unknown> = {},
): Record<string, unknown> | null {
  if (output === null) return null;
  const specific = obj(output.hookSpecificOutput);
  const decision = str(specific.permissionDecision);
  if (decision !== undefined) {
    const updated = obj(specific.updatedInput);
    const prompt = str(updated.prompt);
    return defined({
      permissionDecision: decision,
      permissionDecisionReason: str(specific.permissionDecisionReason),
      modifiedArgs: prompt !== undefined && prompt !== toolArgs.prompt ? { ...toolArgs, prompt } : undefined,
    });
  }
  const context = str(specific.additionalContext);
  if (context !== undefined) return { additionalContext: context };
  if (output.decision === "block") return defined({ decision: "block", reason: str(output.reason) });
  return null;
}

/** What the sessionStart hook prints and the status it exits with. */
export interface CopilotSessionStartAnswer {
  readonly stdout: Record<string, unknown> | null;
  readonly stderr: string | null;
  readonly exitCode: 0 | 2;
}

/**
 * The briefing for the model and the person's line (src/core/session-line.ts) as Copilot takes them:
 * the briefing as `additionalContext`; the line on stderr with exit status 2, which Copilot 1.0.102
 * shows in the conversation as `! <line>` (a `session.warning` of type `hook`; the hook still counts
 * as succeeded and its `additionalContext` still reaches the model). Exit 1 shows nothing; neither
 * does `systemMessage` nor stderr with exit 0.
 */
export function copilotSessionStartAnswer(told: {
  readonly briefing: string | null;
  readonly line: string | null;
}): CopilotSessionStartAnswer {
  const stdout = told.briefing === null ? null : { additionalContext: told.briefing };
  return told.line === null
    ? { stdout, stderr: null, exitCode: 0 }
    : { stdout, stderr: `${told.line.replace(/\s*\n\s*/g, " ")}\n`, exitCode: 2 };
}
