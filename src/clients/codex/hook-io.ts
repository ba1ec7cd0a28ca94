// Codex's hooks as dotagent's Claude Code hooks read them (src/claude/hooks.ts), and their answers
// back: the bookkeeping and the guards stay in one place, this module only translates. What the
// Codex 0.169.0 binary sends (measured, test/codex/NOTES.md):
//   PreToolUse  Bash         its shell tool (exec_command) as Claude's Bash: {command}          → as it is
//   PreToolUse  spawn_agent  {agent_type, message, …} (v2, `collaborationspawn_agent`: + task_name) → Agent {subagent_type, prompt, …}
//   PreToolUse  apply_patch  {command: the patch} (also when called from code mode's exec)    → a Write of each file it names
//   PostToolUse spawn_agent  {"agent_id", "nickname"}: the agent runs on (a background launch)  → nothing
//   PostToolUse wait_agent   {"status": {id: {"completed": final message}}}: each agent that ended
//                            is Claude's PostToolUse of a foreground Agent call (its prompt and type
//                            from its rollout), so the model gets `dotagent next:` with the result
//   SubagentStop             agent_type, agent_transcript_path (its rollout)                   → as it is
//   SubagentStart            a multi-agent v2 agent (no UserPromptSubmit of its own): its spawn's
//                            message read from its parent's rollout; an executor's worktree lines
//                            as additionalContext, which reaches it before its task (executor-lines.ts)
//   UserPromptSubmit         the person's prompt; `$develop …` is the skill, like `/develop …`;
//                            a sub-agent's first prompt (it has agent_id) is not the person's:
//                            an executor's gets its worktree lines instead (executor-lines.ts)
//   a sub-agent's PreToolUse carries its own rollout as transcript_path                       → agent_transcript_path
// Every other field passes unchanged; fields a handler does not know are ignored by it.
import type { OpContext } from "../../ops/op-context.js";
import { executorLinesFor } from "./executor-lines.js";
import { findRollout, readRolloutAgent, readV2SpawnMessage, type RolloutAgent } from "./rollout.js";
import { textDigest } from "../../store/authority.js";

export type HookInput = Record<string, unknown>;
export type HookOutput = Record<string, unknown> | null;
export type LoopEvent = "pre-tool-use" | "post-tool-use" | "subagent-start" | "subagent-stop" | "user-prompt-submit";

/** What to run for one Codex hook: nothing, or Claude-shaped inputs of dotagent's handlers (several: one per ended agent). */
export type CodexHookPlan =
  | { kind: "skip" }
  | { kind: "run"; event: LoopEvent; inputs: HookInput[] }
  | { kind: "executor_lines"; agentType: unknown; prompt: string; hookEventName: "UserPromptSubmit" | "SubagentStart" };

/** How a rollout is found and read (a seam for tests). */
export interface RolloutReader {
  find(sessionTranscript: string, agentId: string): string | undefined;
  read(file: string): RolloutAgent;
  /** A multi-agent v2 agent's spawn message, from its rollout at SubagentStart (undefined for a v1 agent). */
  spawnMessage(agentRollout: string): string | undefined;
}
export const diskRollouts: RolloutReader = {
  find: findRollout,
  read: readRolloutAgent,
  spawnMessage: readV2SpawnMessage,
};

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const obj = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
/**
 * Codex names a namespaced tool with its namespace glued in front (`multi_agent_v1wait_agent`,
 * `collaborationspawn_agent`) in some events. Only Codex's own namespaces count: an MCP tool that
 * happens to end in `spawn_agent` is no spawn dotagent records.
 */
const isTool = (name: unknown, tool: string) =>
  typeof name === "string" &&
  ["", "multi_agent_v1", "collaboration", "functions"].some((ns) => name === `${ns}${tool}`);

/** A sub-agent's call: its own rollout is the transcript the handlers read. */
function withAgentTranscript(input: HookInput): HookInput {
  return input.agent_id !== undefined &&
    input.agent_transcript_path === undefined &&
    typeof input.transcript_path === "string"
    ? { ...input, agent_transcript_path: input.transcript_path }
    : input;
}

/**
 * `spawn_agent`'s input as the Agent call's: agent_type → subagent_type, message → prompt, and the
 * multi-agent v2 tool's task_name → description, its fork_turns "none" (a fresh context, what an
 * Agent call gives) dropped. Every other field stays, so the spawn check refuses it (a forked
 * context, another model, `items` in place of the message).
 */
export function agentInput(spawn: Record<string, unknown>): Record<string, unknown> {
  const { agent_type, message, task_name, fork_turns, ...rest } = spawn;
  return {
    ...rest,
    ...(fork_turns !== undefined && fork_turns !== "none" ? { fork_turns } : {}),
    ...(agent_type !== undefined ? { subagent_type: agent_type } : {}),
    ...(task_name !== undefined ? { description: task_name } : {}),
    ...(message !== undefined ? { prompt: message } : {}),
  };
}

/** The files an apply_patch patch adds, updates, deletes or moves to (its `*** … File:` and `*** Move to:` lines). */
export function patchTargets(patch: string): string[] {
  return [...patch.matchAll(/^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/gm)]
    .map((m) => m[1]!.trim())
    .filter((p) => p !== "");
}

/** The agents a wait_agent answer says have ended, by id (any final status: completed, errored, shutdown…). */
export function endedAgents(toolResponse: unknown): string[] {
  let value: unknown = toolResponse;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      return [];
    }
  }
  const status = obj(obj(value).status);
  return Object.entries(status)
    .filter(
      ([id, s]) =>
        /^[\w-]{1,128}$/.test(id) && Object.keys(obj(s)).some((k) => k !== "running" && k !== "pending_init"),
    )
    .map(([id]) => id);
}

export function planCodexHook(
  event: LoopEvent,
  input: HookInput,
  rollouts: RolloutReader = diskRollouts,
): CodexHookPlan {
  const run = (inputs: HookInput[]): CodexHookPlan => ({ kind: "run", event, inputs });
  const tool = input.tool_name;
  switch (event) {
    case "user-prompt-submit": {
      if (input.agent_id !== undefined)
        return {
          kind: "executor_lines",
          agentType: input.agent_type,
          prompt: str(input.prompt) ?? "",
          hookEventName: "UserPromptSubmit",
        };
      const prompt = str(input.prompt) ?? "";
      // Where Codex records the prompt, to check the person typed it: the thread's rollout, by turn.
      const record = str(input.transcript_path);
      const turn = str(input.turn_id);
      const evidence =
        record !== undefined && turn !== undefined
          ? { dotagent_evidence: { client: "codex", record, id: turn, sha: textDigest(prompt) } }
          : {};
      // `$develop add login` is the skill's invocation, as `/develop add login` is in Claude Code.
      return run([{ ...input, ...evidence, prompt: prompt.replace(/^(\s*)\$(develop|status|checkpoint)\b/, "$1/$2") }]);
    }
    case "pre-tool-use":
      if (tool === "Bash") return run([withAgentTranscript(input)]);
      if (isTool(tool, "spawn_agent"))
        return run([
          { ...withAgentTranscript(input), tool_name: "Agent", tool_input: agentInput(obj(input.tool_input)) },
        ]);
      // A patch is judged as a Write of each file it touches (the write guard's rules: memory/state is dotagent's).
      if (isTool(tool, "apply_patch")) {
        const patch =
          str(obj(input.tool_input).command) ?? str(obj(input.tool_input).input) ?? str(input.tool_input) ?? "";
        const targets = patchTargets(patch);
        // A patch whose files cannot be read is judged as one that writes memory/state (refused, with the reason).
        const files = targets.length > 0 ? targets : /memory\/state/.test(patch) ? ["memory/state/"] : [];
        return files.length > 0
          ? run(
              files.map((file_path) => ({
                ...withAgentTranscript(input),
                tool_name: "Write",
                tool_input: { file_path },
              })),
            )
          : { kind: "skip" };
      }
      return { kind: "skip" };
    case "post-tool-use": {
      if (!isTool(tool, "wait_agent")) return { kind: "skip" };
      const session = str(input.transcript_path);
      if (session === undefined) return { kind: "skip" };
      const inputs: HookInput[] = [];
      for (const id of endedAgents(input.tool_response)) {
        const file = rollouts.find(session, id);
        const agent = file === undefined ? undefined : rollouts.read(file);
        if (agent?.prompt === undefined || agent.type === undefined) continue;
        inputs.push({
          ...input,
          hook_event_name: "PostToolUse",
          tool_name: "Agent",
          tool_input: { subagent_type: agent.type, prompt: agent.prompt },
          tool_response: { status: "completed" },
        });
      }
      return inputs.length > 0 ? run(inputs) : { kind: "skip" };
    }
    case "subagent-start": {
      // A v1 agent gets its lines with its own first prompt (UserPromptSubmit), not twice.
      const rollout = str(input.transcript_path);
      const prompt = input.agent_id === undefined || rollout === undefined ? undefined : rollouts.spawnMessage(rollout);
      return prompt === undefined
        ? { kind: "skip" }
        : { kind: "executor_lines", agentType: input.agent_type, prompt, hookEventName: "SubagentStart" };
    }
    case "subagent-stop":
      return run([withAgentTranscript(input)]);
  }
}

/**
 * The handlers' answers as Codex reads them: a PreToolUse "deny" as it is (Codex 0.169.0 reads
 * permissionDecision "deny" and its reason; it ignores `updatedInput`, so none is sent), no "allow"
 * (Codex rejects it: "PreToolUse hook returned unsupported permissionDecision:allow", a "Hook
 * failed" line in its terminal; its own approval policy decides), the additionalContext of several
 * answers joined (the newest `dotagent next:` line last).
 */
export function codexOutput(event: LoopEvent, outputs: readonly HookOutput[]): HookOutput {
  const given = outputs.filter((o): o is Record<string, unknown> => o !== null);
  if (given.length === 0) return null;
  const deny = given.find((o) => obj(o.hookSpecificOutput).permissionDecision === "deny");
  if (deny !== undefined) return deny;
  const block = given.find((o) => o.decision === "block");
  if (block !== undefined) return block;
  const contexts = given
    .map((o) => str(obj(o.hookSpecificOutput).additionalContext))
    .filter((t): t is string => t !== undefined);
  if (contexts.length > 0) {
    const eventName =
      event === "post-tool-use"
        ? "PostToolUse"
        : event === "user-prompt-submit"
          ? "UserPromptSubmit"
          : event === "subagent-stop"
            ? "SubagentStop"
            : "PreToolUse";
    return { hookSpecificOutput: { hookEventName: eventName, additionalContext: contexts.join("\n") } };
  }
  const first = given[0]!;
  const specific = obj(first.hookSpecificOutput);
  if (specific.permissionDecision === "allow") {
    const { hookSpecificOutput: _allow, ...rest } = first;
    return Object.keys(rest).length > 0 ? rest : null;
  }
  if (specific.updatedInput !== undefined) {
    const { updatedInput: _dropped, ...rest } = specific;
    return { ...first, hookSpecificOutput: rest };
  }
  return first;
}

/** Answers one Codex hook: `answer` runs dotagent's handler (src/claude/hooks.ts) for a Claude-shaped input. */
export async function answerCodexHook(
  op: OpContext,
  event: LoopEvent,
  input: HookInput,
  answer: (event: LoopEvent, input: HookInput) => Promise<HookOutput>,
): Promise<HookOutput> {
  const plan = planCodexHook(event, input);
  if (plan.kind === "skip") return null;
  if (plan.kind === "executor_lines") {
    const lines = await executorLinesFor(op, plan.agentType, plan.prompt);
    return lines === undefined
      ? null
      : { hookSpecificOutput: { hookEventName: plan.hookEventName, additionalContext: lines } };
  }
  const outputs: HookOutput[] = [];
  for (const one of plan.inputs) outputs.push(await answer(plan.event, one));
  return codexOutput(event, outputs);
}
