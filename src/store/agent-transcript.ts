// What the hooks read of a sub-agent's Claude Code transcript (never the project's state): the
// prompt it was started with (the first line of `…/subagents/agent-<id>.jsonl`), its agent type
// (the `.meta.json` beside it), and how many times dotagent already sent it back for its report
// (the reminders are in its transcript, so the count survives a crash and needs no state file).
// Every read is bounded and never blocks (read-file.ts).
import { dirname, join } from "node:path";
import { MAX_STATE_BYTES, readProjectHead, readProjectText } from "./read-file.js";

/** The transcript of agent `agentId` of the session whose transcript is `sessionTranscript`. */
export function agentTranscriptPath(sessionTranscript: string, sessionId: string, agentId: string): string | undefined {
  if (!/^[\w-]{1,128}$/.test(agentId) || !/^[\w-]{1,128}$/.test(sessionId)) return undefined;
  return join(dirname(sessionTranscript), sessionId, "subagents", `agent-${agentId}.jsonl`);
}

function textOf(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    const texts = content.filter(
      (c): c is { type: string; text: string } =>
        c !== null &&
        typeof c === "object" &&
        (c as { type?: unknown }).type === "text" &&
        typeof (c as { text?: unknown }).text === "string",
    );
    return texts.length > 0 ? texts.map((t) => t.text).join("\n") : undefined;
  }
  return undefined;
}

/** The prompt the agent was given: the first user message of its transcript (read: at most 4 MiB). */
export function readAgentPrompt(transcript: string): string | undefined {
  const head = readProjectHead(transcript, 4 * 1024 * 1024, { links: "follow" });
  if (head.kind !== "ok") return undefined;
  let codexPrompt: string | undefined;
  // Multi-agent v2: dotagent's lines come from SubagentStart, before the task (no item between).
  let linesBefore: string | undefined;
  for (const line of head.bytes.toString("utf8").split("\n").slice(0, 40)) {
    try {
      const entry = JSON.parse(line) as {
        type?: unknown;
        message?: { role?: unknown; content?: unknown };
        payload?: { type?: unknown; role?: unknown; content?: unknown };
      };
      if (entry.type === "user" && entry.message?.role === "user") {
        const text = textOf(entry.message.content);
        if (text !== undefined) return text;
      }
      // A Codex rollout (test/codex/NOTES.md): the first user message after its environment context,
      // and the lines dotagent's hook added right after it (src/clients/codex/executor-lines.ts:
      // Codex cannot put them into the prompt itself); a multi-agent v2 agent's, right before its task.
      if (entry.type !== "response_item" || !Array.isArray(entry.payload?.content)) continue;
      // Multi-agent v2 gives the prompt as an agent_message, its words after "Payload:".
      const v2 = entry.payload.type === "agent_message" ? codexTaskPayload(entry.payload.content) : undefined;
      if (entry.payload.type !== "message" && v2 === undefined) continue;
      const text =
        v2 ??
        (entry.payload.content as Array<{ text?: unknown }>)
          .map((c) => (typeof c?.text === "string" ? c.text : ""))
          .join("\n");
      if (codexPrompt === undefined) {
        if (v2 !== undefined && linesBefore !== undefined) return `${v2}\n${linesBefore}`;
        if (v2 !== undefined || (entry.payload.role === "user" && !text.startsWith("<environment_context>")))
          codexPrompt = text;
        linesBefore =
          entry.payload.role === "developer" && text.startsWith(CODEX_LINES_OPENING)
            ? text.slice(CODEX_LINES_OPENING.length).trim()
            : undefined;
        continue;
      }
      return entry.payload.role === "developer" && text.startsWith(CODEX_LINES_OPENING)
        ? `${codexPrompt}\n${text.slice(CODEX_LINES_OPENING.length).trim()}`
        : codexPrompt;
    } catch {
      // a torn or foreign line: look at the next one
    }
  }
  return codexPrompt;
}

/**
 * The task a Codex multi-agent v2 `agent_message` gives (`Message Type: NEW_TASK … Payload:` then the
 * words, in the same text or in an `encrypted_content` part, which Codex 0.169 writes as plain text
 * offline), or undefined for any other message.
 */
export function codexTaskPayload(content: unknown[]): string | undefined {
  const parts = content
    .map((c) => (c !== null && typeof c === "object" ? (c as { text?: unknown; encrypted_content?: unknown }) : {}))
    .map((c) =>
      typeof c.text === "string" ? c.text : typeof c.encrypted_content === "string" ? c.encrypted_content : "",
    );
  const all = parts.join("");
  if (!all.startsWith("Message Type: NEW_TASK\n")) return undefined;
  const at = all.indexOf("\nPayload:\n");
  return at === -1 ? undefined : all.slice(at + "\nPayload:\n".length);
}

/** How dotagent's Codex hook opens an executor's worktree lines (src/clients/codex/executor-lines.ts). */
export const CODEX_LINES_OPENING = "dotagent: Codex could not add dotagent's lines to your prompt; they belong to it:";

/** When the agent started: the timestamp of its transcript's first entry (ms), or undefined. */
export function readAgentStartedAt(transcript: string): number | undefined {
  const head = readProjectHead(transcript, 4 * 1024 * 1024, { links: "follow" });
  if (head.kind !== "ok") return undefined;
  for (const line of head.bytes.toString("utf8").split("\n").slice(0, 20)) {
    try {
      const at = Date.parse(String((JSON.parse(line) as { timestamp?: unknown }).timestamp));
      if (Number.isFinite(at)) return at;
    } catch {
      // a torn or foreign line: look at the next one
    }
  }
  return undefined;
}

/** The agent type Claude Code recorded beside the transcript (`agent-<id>.meta.json`). */
export function readAgentType(transcript: string): string | undefined {
  const read = readProjectText(transcript.replace(/\.jsonl$/, ".meta.json"), {
    maxBytes: 1024 * 1024,
    links: "follow",
  });
  if (read.kind !== "ok") return undefined;
  try {
    const meta = JSON.parse(read.text) as { agentType?: unknown };
    return typeof meta.agentType === "string" ? meta.agentType : undefined;
  } catch {
    return undefined;
  }
}

/** The words every send-back carries, numbered: "dotagent reminder 1 of 2". */
export const REMINDER = "dotagent reminder";

/** How many reminders the agent got already (the highest number in its transcript; a huge transcript counts as all used). */
export function remindersSent(transcript: string, max: number): number {
  const read = readProjectText(transcript, { maxBytes: MAX_STATE_BYTES, links: "follow" });
  if (read.kind === "missing") return 0;
  if (read.kind !== "ok") return max;
  let highest = 0;
  for (const match of read.text.matchAll(/dotagent reminder (\d+) of \d+/g))
    highest = Math.max(highest, Number(match[1]));
  return highest;
}
