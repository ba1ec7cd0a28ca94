// What an agent does now, in a few words, from the Agent SDK's messages: its last tool call
// ("Read src/server.ts", "Bash npm test"), or why it waits ("the API asked to wait, retry 2 of
// 10"). For the live line of `dotagent run`; never read by a program.
import { isAbsolute, relative } from "node:path";
import type { QueryMessage } from "../api/recoverable-query.js";

const MAX = 60;

function short(text: string): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > MAX ? `${one.slice(0, MAX - 1)}…` : one;
}

/** A path as the person knows it: relative to the project when inside it. */
function shown(path: string, root: string): string {
  if (!isAbsolute(path)) return path;
  const rel = relative(root, path);
  return rel === "" || rel.startsWith("..") ? path : rel;
}

function describeCall(name: string, input: Record<string, unknown>, root: string): string {
  const text = (key: string) => (typeof input[key] === "string" ? (input[key] as string) : "");
  switch (name) {
    case "Read":
    case "Write":
    case "Edit":
    case "MultiEdit":
    case "NotebookEdit":
      return `${name} ${short(shown(text("file_path") || text("notebook_path"), root))}`;
    case "Bash":
      return `Bash ${short(text("command"))}`;
    case "Grep":
    case "Glob":
      return `${name} ${short(text("pattern"))}`;
    default:
      return name;
  }
}

/** The agent's current move in a few words, or undefined when the message says nothing new. */
export function describeActivity(message: QueryMessage, root: string): string | undefined {
  if (message.type === "assistant" && (message.parent_tool_use_id ?? null) === null) {
    const content = (message.message as { content?: unknown } | undefined)?.content;
    const blocks = Array.isArray(content)
      ? (content as Array<{ type?: unknown; name?: unknown; input?: unknown }>)
      : [];
    const calls = blocks.filter((b) => b.type === "tool_use" && typeof b.name === "string");
    if (calls.length > 0) {
      const last = calls.at(-1)!;
      const input = last.input && typeof last.input === "object" ? (last.input as Record<string, unknown>) : {};
      const what = describeCall(last.name as string, input, root);
      return calls.length > 1 ? `${what} (+${calls.length - 1})` : what;
    }
    if (blocks.some((b) => b.type === "thinking")) return "thinking";
    if (blocks.some((b) => b.type === "text")) return "writing its answer";
    return undefined;
  }
  if (message.type === "system" && message.subtype === "api_retry") {
    const attempt = typeof message.attempt === "number" ? message.attempt : undefined;
    const max = typeof message.max_retries === "number" ? message.max_retries : undefined;
    const why =
      typeof message.error === "string"
        ? message.error
        : typeof message.error_status === "number"
          ? `HTTP ${message.error_status}`
          : "an API error";
    return `the API answered ${why}; retry${attempt !== undefined ? ` ${attempt}${max !== undefined ? ` of ${max}` : ""}` : ""}`;
  }
  if (message.type === "system" && message.subtype === "init") return "started";
  return undefined;
}
