import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { agentPromptIn, agentRecordIn, readAgentPrompt } from "./session-events.js";

// Lines as Copilot CLI 1.0.102 writes them to ~/.copilot/session-state/<session>/events.jsonl.
const RECORD = [
  JSON.stringify({ type: "user.message", data: { content: "/develop add login" }, id: "1" }),
  JSON.stringify({
    type: "subagent.started",
    data: { toolCallId: "t1", agentName: "executor" },
    agentId: "a-1",
    id: "2",
    timestamp: "2026-11-26T15:51:42.326Z",
  }),
  JSON.stringify({
    type: "hook.start",
    data: { hookType: "userPromptSubmitted", input: { prompt: "Task: task-009" } },
    agentId: "a-1",
    id: "3",
  }),
  JSON.stringify({
    type: "user.message",
    data: { content: "Task: task-001\nWorktree: /w/task-001" },
    agentId: "a-1",
    id: "4",
  }),
  JSON.stringify({ type: "user.message", data: { content: "dotagent reminder 1 of 2" }, agentId: "a-1", id: "5" }),
  // A subagentStop block's reason as 1.0.102 records it: content "", the text in transformedContent.
  JSON.stringify({
    type: "user.message",
    data: {
      content: "",
      transformedContent:
        "<current_datetime>2026-11-26T19:41:09.764+00:00</current_datetime>\n\ndotagent reminder 2 of 2: your report is not done",
      source: "system",
    },
    agentId: "a-1",
    id: "6",
  }),
  JSON.stringify({
    type: "user.message",
    data: { content: "", transformedContent: "dotagent reminder 1 of 2: your report is not done", source: "system" },
    agentId: "a-3",
    id: "7",
  }),
  '{"type":"user.message","data":{"content":"half a li',
].join("\n");

let home: string | undefined;
afterEach(() => home && rmSync(home, { recursive: true, force: true }));

describe("a sub-agent's prompt from Copilot's session record", () => {
  it("is its first user.message, not a hook's copy or a later message", () => {
    expect(agentPromptIn(RECORD, "a-1")).toBe("Task: task-001\nWorktree: /w/task-001");
  });
  it("the record of one agent: its prompt, the highest reminder it got, when it started", () => {
    expect(agentRecordIn(RECORD, "a-1")).toEqual({
      prompt: "Task: task-001\nWorktree: /w/task-001",
      reminders: 2,
      startedAt: Date.parse("2026-11-26T15:51:42.326Z"),
    });
    // A reminder with an empty content is no prompt.
    expect(agentRecordIn(RECORD, "a-3")).toEqual({ prompt: undefined, reminders: 1, startedAt: undefined });
    expect(agentRecordIn(RECORD, "a-2")).toEqual({ prompt: undefined, reminders: 0, startedAt: undefined });
  });
  it("another agent's, or none: undefined", () => {
    expect(agentPromptIn(RECORD, "a-2")).toBeUndefined();
    expect(agentPromptIn("", "a-1")).toBeUndefined();
  });
  it("read from $COPILOT_HOME/session-state/<session>/events.jsonl; ids that are not ids are never a path", () => {
    home = mkdtempSync(join(tmpdir(), "dotagent-copilot-home-"));
    mkdirSync(join(home, "session-state", "s-1"), { recursive: true });
    writeFileSync(join(home, "session-state", "s-1", "events.jsonl"), RECORD);
    expect(readAgentPrompt("s-1", "a-1", { COPILOT_HOME: home })).toBe("Task: task-001\nWorktree: /w/task-001");
    expect(readAgentPrompt("../s-1", "a-1", { COPILOT_HOME: home })).toBeUndefined();
    expect(readAgentPrompt("s-1", "a-1/..", { COPILOT_HOME: home })).toBeUndefined();
    expect(readAgentPrompt("s-2", "a-1", { COPILOT_HOME: home })).toBeUndefined();
  });
});
