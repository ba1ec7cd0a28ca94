// A sub-agent's prompt, from Copilot CLI's own record of the session
// (`$COPILOT_HOME/session-state/<session>/events.jsonl`, default ~/.copilot): Copilot gives a
// sub-agent's hooks its id and its parent's, not its prompt, and dotagent's write guard needs the
// prompt (the task it runs, the worktree it works in). The prompt is the agent's first
// `user.message` (the task call's prompt after the preToolUse hook's modifiedArgs). The ids come
// from the hook's input, so they are checked before they become a path.
import { homedir } from "node:os";
import { join } from "node:path";
import { readProjectText } from "../../store/read-file.js";

const ID = /^[A-Za-z0-9_-]{1,128}$/;

/** The first `user.message` of agent `agentId` in a session's events.jsonl text. Pure. */
export function agentPromptIn(text: string, agentId: string): string | undefined {
  for (const line of text.split("\n")) {
    if (!line.includes(agentId) || !line.includes('"user.message"')) continue;
    try {
      const event = JSON.parse(line) as { type?: unknown; agentId?: unknown; data?: { content?: unknown } };
      if (event.type === "user.message" && event.agentId === agentId && typeof event.data?.content === "string")
        return event.data.content;
    } catch {
      // a line being written: not this one
    }
  }
  return undefined;
}

/** What the record says of one sub-agent: its prompt, the highest dotagent reminder it got, when it started (ms). Pure. */
export function agentRecordIn(
  text: string,
  agentId: string,
): { prompt: string | undefined; reminders: number; startedAt: number | undefined } {
  let prompt: string | undefined;
  let reminders = 0;
  let startedAt: number | undefined;
  for (const line of text.split("\n")) {
    if (!line.includes(agentId)) continue;
    let event: {
      type?: unknown;
      agentId?: unknown;
      timestamp?: unknown;
      data?: { content?: unknown; transformedContent?: unknown };
    };
    try {
      event = JSON.parse(line) as typeof event;
    } catch {
      continue; // a line being written
    }
    if (event.agentId !== agentId) continue;
    if (event.type === "subagent.started" && startedAt === undefined) {
      const at = Date.parse(String(event.timestamp));
      if (Number.isFinite(at)) startedAt = at;
    }
    if (event.type !== "user.message" || typeof event.data?.content !== "string") continue;
    if (event.data.content !== "") prompt ??= event.data.content;
    // A subagentStop block's reason reaches the agent as a user.message of source "system" whose
    // content is "" and whose text is in transformedContent (1.0.102): both are read.
    const said = `${event.data.content}\n${typeof event.data.transformedContent === "string" ? event.data.transformedContent : ""}`;
    for (const m of said.matchAll(/dotagent reminder (\d+) of \d+/g)) reminders = Math.max(reminders, Number(m[1]));
  }
  return { prompt, reminders, startedAt };
}

/** The text of session `sessionId`'s record, or undefined (none, or an id that is not an id). */
export function readSessionRecord(sessionId: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const file = copilotRecord(sessionId, env);
  if (file === undefined) return undefined;
  const read = readProjectText(file, { maxBytes: 256 * 1024 * 1024, links: "refuse" });
  return read.kind === "ok" ? read.text : undefined;
}

/** The path of session `sessionId`'s events.jsonl (undefined: not an id). */
export function copilotRecord(sessionId: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!ID.test(sessionId)) return undefined;
  const home = env.COPILOT_HOME || join(env.HOME || homedir(), ".copilot");
  return join(home, "session-state", sessionId, "events.jsonl");
}

/** The prompt of sub-agent `agentId` of session `sessionId`, or undefined (no such record, or ids that are not ids). */
export function readAgentPrompt(
  sessionId: string,
  agentId: string,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (!ID.test(agentId)) return undefined;
  const text = readSessionRecord(sessionId, env);
  return text === undefined ? undefined : agentPromptIn(text, agentId);
}
