// The translation layer between Codex's Responses API requests and the Claude-shaped requests the
// scripted model's one policy reads (test/claude/scripted-model/policy.ts): no second policy.
//   Codex → policy                                   policy → Codex
//   developer messages before the first prompt        system
//   later developer messages (hook contexts)          user text, where Claude Code puts them
//   <environment_context> cwd                         "Primary working directory: <cwd>" in system
//   `$develop add login` + its <skill> message        the /develop command + "Base directory for this skill:"
//   exec_command {cmd}                                Bash {command}; Read and Write as the shell lines below
//   spawn_agent {agent_type, message} … wait_agent    one foreground Agent call, its result the agent's final message
//   a sub-agent's hook context after its prompt       part of its prompt (an executor's worktree lines)
// While an agent the main agent spawned is still at work, the answer is a wait_agent on it (the
// Codex skill says so), not the policy's: the policy sees foreground Agent calls only. Once a wait
// said an agent completed, the next answer closes it (close_agent, as the skill says: a session
// counts completed agents until closed); closes and their outputs are not shown to the policy.
import { dirname } from "node:path";
import type { ApiMessage, ApiRequest, Block, ContentBlock, Reply } from "../../claude/scripted-model/policy.js";

export interface ResponsesItem {
  type: string;
  role?: string;
  content?: Array<{ type: string; text?: string }>;
  name?: string;
  namespace?: string;
  arguments?: string;
  call_id?: string;
  output?: unknown;
  [key: string]: unknown;
}
export interface ResponsesRequest {
  model?: string;
  input?: ResponsesItem[];
  tools?: Array<{ type?: string; name?: string; tools?: Array<{ name?: string }> }>;
}

const textOf = (item: ResponsesItem) => (item.content ?? []).map((c) => c.text ?? "").join("\n");
const args = (item: ResponsesItem): Record<string, unknown> => {
  try {
    return JSON.parse(item.arguments ?? "{}") as Record<string, unknown>;
  } catch {
    return {};
  }
};
const outputText = (item: ResponsesItem) =>
  typeof item.output === "string" ? item.output : JSON.stringify(item.output ?? "");

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
const MISSING = "dotagent-scripted: the file does not exist";
const EOF_MARK = "DOTAGENT_SCRIPTED_EOF";

/** The shell line a Read or Write of the policy runs as (Codex's model has only its shell). */
export function shellFor(name: string, input: Record<string, unknown>): string | undefined {
  if (name === "Read") return `cat -- ${quote(String(input.file_path))} 2>/dev/null || echo ${quote(MISSING)}`;
  if (name === "Write")
    return `cat > ${quote(String(input.file_path))} <<'${EOF_MARK}'\n${String(input.content).replace(/\n?$/, "\n")}${EOF_MARK}`;
  return undefined;
}

const unquote = (s: string) => s.slice(1, -1).replaceAll(`'\\''`, "'");
/** A shell line shellFor made, as the Read or Write call it was. */
export function callFromShell(cmd: string): { name: string; input: Record<string, unknown> } {
  const read = /^cat -- ('(?:[^']|'\\'')*') 2>\/dev\/null \|\| echo /.exec(cmd);
  if (read && cmd.endsWith(quote(MISSING))) return { name: "Read", input: { file_path: unquote(read[1]!) } };
  const write = new RegExp(`^cat > ('(?:[^']|'\\\\'')*') <<'${EOF_MARK}'\\n([\\s\\S]*)${EOF_MARK}$`).exec(cmd);
  if (write) return { name: "Write", input: { file_path: unquote(write[1]!), content: write[2]! } };
  return { name: "Bash", input: { command: cmd } };
}

/** exec_command's output as a tool result: the command's output, an error when it failed or a hook blocked it. */
export function execResult(output: string): { text: string; isError: boolean } {
  if (/^Command blocked by PreToolUse hook: /.test(output)) return { text: output, isError: true };
  const code = /Process exited with code (-?\d+)/.exec(output)?.[1];
  const at = output.indexOf("\nOutput:\n");
  const text = at === -1 ? output : output.slice(at + "\nOutput:\n".length);
  return { text: text === `${MISSING}\n` ? "File does not exist." : text, isError: code !== undefined && code !== "0" };
}

export interface Translated {
  request: ApiRequest;
  /** Agents the main agent spawned that have not ended: wait for them first. */
  pending: string[];
  /** The main agent's agents a wait saw complete and no close_agent closed yet. */
  unclosed: string[];
  /** Whether the newest item is the model's own (a turn that just ended: nothing to answer). */
  isMain: boolean;
}

export function toClaudeRequest(body: ResponsesRequest): Translated {
  const items = body.input ?? [];
  const toolNames = (body.tools ?? []).flatMap((t) => [t.name ?? "", ...(t.tools ?? []).map((s) => s.name ?? "")]);
  const isMain = toolNames.includes("spawn_agent");
  const system: string[] = [];
  const messages: ApiMessage[] = [];
  const push = (role: "user" | "assistant", block: ContentBlock) => {
    const last = messages.at(-1);
    if (last?.role === role && Array.isArray(last.content)) last.content.push(block);
    else messages.push({ role, content: [block] });
  };
  let prompted = false;
  let promptBlock: ContentBlock | undefined;
  let acted = false;
  const calls = new Map<string, ResponsesItem>();
  const spawnOf = new Map<string, string>(); // agent id → spawn call id
  const done = new Set<string>();
  const completed = new Set<string>(); // ended as a wait_agent said: to be closed
  const closed = new Set<string>();
  let held: ContentBlock[] = []; // hook contexts that arrive while agents are at work
  const pendingIds = () => [...spawnOf.keys()].filter((id) => !done.has(id));
  const flushHeld = () => {
    if (pendingIds().length > 0) return;
    for (const b of held) push("user", b);
    held = [];
  };
  for (const item of items) {
    if (item.type === "message") {
      const text = textOf(item);
      if (item.role === "developer") {
        if (!prompted) system.push(text);
        // A sub-agent's hook context right after its prompt (an executor's worktree lines): part of its prompt.
        else if (!isMain && !acted && promptBlock !== undefined)
          promptBlock.text = `${promptBlock.text ?? ""}\n${text}`;
        else if (pendingIds().length > 0) held.push({ type: "text", text });
        else push("user", { type: "text", text });
        continue;
      }
      if (item.role === "assistant") {
        acted = true;
        push("assistant", { type: "text", text });
        continue;
      }
      if (text.startsWith("<environment_context>")) {
        const cwd = /<cwd>([^<]+)<\/cwd>/.exec(text)?.[1];
        if (cwd) system.push(`Primary working directory: ${cwd}`);
        continue;
      }
      if (text.startsWith("<subagent_notification>")) continue;
      prompted = true;
      // The person wrote again while agents were at work: the session they ran in is gone (a kill).
      for (const id of pendingIds()) {
        push("user", {
          type: "tool_result",
          tool_use_id: spawnOf.get(id)!,
          content: "The agent was interrupted: the session ended before it finished.",
          is_error: true,
        });
        done.add(id);
      }
      flushHeld();
      const skill = /^<skill>\n<name>([^<]+)<\/name>\n<path>([^<]+)<\/path>\n([\s\S]*)<\/skill>$/.exec(text);
      if (skill) {
        push("user", { type: "text", text: `Base directory for this skill: ${dirname(skill[2]!)}\n\n${skill[3]}` });
        continue;
      }
      const command = /^\s*\$([\w-]+)\b\s*([\s\S]*)$/.exec(text);
      if (command) {
        push("user", {
          type: "text",
          text: `<command-name>/${command[1]}</command-name>\n<command-args>${command[2]!.trim()}</command-args>`,
        });
        continue;
      }
      const block: ContentBlock = { type: "text", text };
      promptBlock ??= block;
      push("user", block);
      continue;
    }
    acted = true;
    if (item.type === "function_call") {
      const id = item.call_id ?? "";
      calls.set(id, item);
      const a = args(item);
      if (item.name === "wait_agent") continue;
      if (item.name === "close_agent") {
        closed.add(String(a.target ?? ""));
        continue;
      }
      if (item.name === "exec_command") {
        const call = callFromShell(String(a.cmd ?? ""));
        push("assistant", { type: "tool_use", id, name: call.name, input: call.input });
      } else if (item.name === "spawn_agent") {
        push("assistant", {
          type: "tool_use",
          id,
          name: "Agent",
          input: {
            subagent_type: a.agent_type,
            prompt: a.message,
            description: String(a.agent_type),
            run_in_background: false,
          },
        });
      } else push("assistant", { type: "tool_use", id, name: String(item.name), input: a });
      continue;
    }
    if (item.type === "function_call_output") {
      const call = calls.get(item.call_id ?? "");
      const out = outputText(item);
      if (call?.name === "close_agent") continue;
      if (call?.name === "spawn_agent") {
        const agent = /"agent_id"\s*:\s*"([\w-]+)"/.exec(out)?.[1];
        if (agent) spawnOf.set(agent, item.call_id!);
        else push("user", { type: "tool_result", tool_use_id: item.call_id!, content: out, is_error: true });
        continue;
      }
      if (call?.name === "wait_agent") {
        let status: Record<string, Record<string, unknown>> = {};
        try {
          status = (JSON.parse(out) as { status?: typeof status }).status ?? {};
        } catch {
          // not a status: nothing ended
        }
        for (const [agent, s] of Object.entries(status)) {
          const spawn = spawnOf.get(agent);
          if (spawn === undefined || done.has(agent)) continue;
          const final = Object.keys(s).find((k) => k !== "running" && k !== "pending_init");
          if (final === undefined) continue;
          done.add(agent);
          completed.add(agent);
          push("user", {
            type: "tool_result",
            tool_use_id: spawn,
            content:
              final === "completed"
                ? String(s.completed ?? "")
                : `The agent ended: ${final} ${JSON.stringify(s[final])}`,
            is_error: final !== "completed",
          });
        }
        flushHeld();
        continue;
      }
      const result = call?.name === "exec_command" ? execResult(out) : { text: out, isError: false };
      push("user", {
        type: "tool_result",
        tool_use_id: item.call_id ?? "",
        content: result.text,
        is_error: result.isError,
      });
    }
  }
  const tools = isMain ? ["Agent", "Bash", "Read", "Write"] : ["Bash", "Read", "Write"];
  return {
    request: { model: body.model, system: system.join("\n\n"), tools: tools.map((name) => ({ name })), messages },
    pending: isMain ? pendingIds() : [],
    unclosed: isMain ? [...completed].filter((id) => !closed.has(id)) : [],
    isMain,
  };
}

/** The policy's reply as Responses output items. */
export function toResponsesItems(reply: Pick<Reply, "blocks">): ResponsesItem[] {
  return reply.blocks.map((block: Block): ResponsesItem => {
    if (block.type === "text")
      return { type: "message", role: "assistant", content: [{ type: "output_text", text: block.text }] };
    if (block.name === "Agent")
      return {
        type: "function_call",
        name: "spawn_agent",
        namespace: "multi_agent_v1",
        call_id: block.id,
        arguments: JSON.stringify({ agent_type: block.input.subagent_type, message: block.input.prompt }),
      };
    const cmd = block.name === "Bash" ? String(block.input.command) : shellFor(block.name, block.input);
    if (cmd === undefined)
      return {
        type: "message",
        role: "assistant",
        content: [{ type: "output_text", text: `I cannot call ${block.name} in Codex.` }],
      };
    return {
      type: "function_call",
      name: "exec_command",
      call_id: block.id,
      arguments: JSON.stringify({ cmd, yield_time_ms: 30000 }),
    };
  });
}

/** A wait on the agents still at work (Codex's wait_agent; the longest timeout it allows). */
export function waitItem(ids: readonly string[], n: number): ResponsesItem {
  return {
    type: "function_call",
    name: "wait_agent",
    namespace: "multi_agent_v1",
    call_id: `call_wait_${process.pid}_${n}`,
    arguments: JSON.stringify({ targets: ids, timeout_ms: 3_600_000 }),
  };
}

/** Closes an agent that completed (Codex's close_agent), so the session may spawn more. */
export function closeItem(id: string, n: number, i: number): ResponsesItem {
  return {
    type: "function_call",
    name: "close_agent",
    namespace: "multi_agent_v1",
    call_id: `call_close_${process.pid}_${n}_${i}`,
    arguments: JSON.stringify({ target: id }),
  };
}
