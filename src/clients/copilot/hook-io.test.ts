import { describe, expect, it } from "vitest";
import {
  claudeToolInput,
  copilotSessionStartAnswer,
  isSubAgentEvent,
  toClaudeInput,
  toCopilotOutput,
} from "./hook-io.js";
import { developRequest, startContext } from "./develop-prompt.js";

// The payloads as Copilot CLI 1.0.102 sends them (test/copilot/NOTES.md).
const session = { sessionId: "s-1", timestamp: 1795707446672, cwd: "/p" };

describe("toClaudeInput", () => {
  it.each([
    ["bash", { command: "ls", description: "list" }, "Bash", { command: "ls", description: "list" }],
    ["create", { path: "/p/a.json", file_text: "{}" }, "Write", { file_path: "/p/a.json", content: "{}" }],
    [
      "edit",
      { path: "/p/a", old_str: "x", new_str: "y" },
      "Edit",
      { file_path: "/p/a", old_string: "x", new_string: "y" },
    ],
    ["view", { path: "/p/a" }, "Read", { file_path: "/p/a" }],
    [
      "task",
      { name: "pm", description: "d", agent_type: "pm", prompt: "P", mode: "sync" },
      "Agent",
      { subagent_type: "pm", description: "d", prompt: "P", run_in_background: false },
    ],
    [
      "task",
      { name: "qa", description: "d", agent_type: "qa", prompt: "P", mode: "background" },
      "Agent",
      { subagent_type: "qa", description: "d", prompt: "P", run_in_background: true },
    ],
    ["skill", { skill: "develop" }, "skill", { skill: "develop" }],
  ])("%s %j → %s %j", (toolName, toolArgs, name, input) => {
    expect(toClaudeInput("pre-tool-use", { ...session, toolName, toolArgs })).toEqual({
      hook_event_name: "PreToolUse",
      session_id: "s-1",
      cwd: "/p",
      tool_name: name,
      tool_input: input,
    });
  });

  it("a task call's model override stays, so the spawn check refuses it as in Claude Code", () => {
    expect(
      claudeToolInput("task", { name: "pm", agent_type: "pm", prompt: "P", description: "d", model: "gpt-x" }),
    ).toEqual({ subagent_type: "pm", prompt: "P", description: "d", model: "gpt-x" });
  });

  it("a sub-agent's call carries its id and type (the write guard's writer)", () => {
    const input = toClaudeInput("pre-tool-use", {
      ...session,
      toolName: "create",
      toolArgs: { path: "/p/x", file_text: "" },
      agentId: "a-1",
      agentType: "executor",
      parentAgentId: "s-1",
    });
    expect(input).toMatchObject({ agent_id: "a-1", agent_type: "executor", tool_name: "Write" });
  });

  it("sessionStart: Copilot's `new` is Claude Code's `startup`; `resume` stays", () => {
    expect(toClaudeInput("session-start", { ...session, source: "new", initialPrompt: "/develop x" })).toEqual({
      hook_event_name: "SessionStart",
      session_id: "s-1",
      cwd: "/p",
      source: "startup",
    });
    expect(toClaudeInput("session-start", { ...session, source: "resume" }).source).toBe("resume");
  });

  it("postToolUse and its failure: the result and the error", () => {
    expect(
      toClaudeInput("post-tool-use", {
        ...session,
        toolName: "task",
        toolArgs: { agent_type: "pm", prompt: "P" },
        toolResult: { resultType: "success", textResultForLlm: "done" },
      }),
    ).toMatchObject({ hook_event_name: "PostToolUse", tool_name: "Agent", tool_response: { resultType: "success" } });
    expect(
      toClaudeInput("post-tool-use-failure", { ...session, toolName: "task", toolArgs: {}, error: "boom" }),
    ).toMatchObject({ hook_event_name: "PostToolUseFailure", error: "boom" });
  });

  it("a prompt with agentId is a sub-agent's, never the person's", () => {
    expect(isSubAgentEvent({ ...session, prompt: "approve", agentId: "a-1", agentType: "pm" })).toBe(true);
    expect(isSubAgentEvent({ ...session, prompt: "approve" })).toBe(false);
  });
});

describe("copilotSessionStartAnswer", () => {
  // Copilot 1.0.102 shows a sessionStart hook's stderr only with exit status 2, and reads its stdout then too.
  it.each([
    [
      { briefing: "B", line: "L" },
      { stdout: { additionalContext: "B" }, stderr: "L\n", exitCode: 2 },
    ],
    [
      { briefing: "B", line: null },
      { stdout: { additionalContext: "B" }, stderr: null, exitCode: 0 },
    ],
    [
      { briefing: null, line: "L" },
      { stdout: null, stderr: "L\n", exitCode: 2 },
    ],
    [
      { briefing: null, line: null },
      { stdout: null, stderr: null, exitCode: 0 },
    ],
    [
      { briefing: "B", line: "one\n  two" },
      { stdout: { additionalContext: "B" }, stderr: "one two\n", exitCode: 2 },
    ],
  ])("%j → %j", (told, answer) => {
    expect(copilotSessionStartAnswer(told)).toEqual(answer);
  });
});

describe("toCopilotOutput", () => {
  it("a permission decision goes top-level", () => {
    expect(
      toCopilotOutput({
        hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no" },
      }),
    ).toEqual({ permissionDecision: "deny", permissionDecisionReason: "no" });
  });
  it("a changed prompt goes back as modifiedArgs, under Copilot's names, the rest of the call untouched", () => {
    const args = {
      name: "executor",
      description: "task-001",
      agent_type: "executor",
      prompt: "Task: task-001",
      mode: "sync",
    };
    const out = toCopilotOutput(
      {
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "allow",
          permissionDecisionReason: "ok",
          updatedInput: { subagent_type: "executor", prompt: "Task: task-001\nWorktree: /w" },
        },
      },
      args,
    );
    expect(out).toEqual({
      permissionDecision: "allow",
      permissionDecisionReason: "ok",
      modifiedArgs: { ...args, prompt: "Task: task-001\nWorktree: /w" },
    });
  });
  it("additionalContext goes top-level (Claude's hookSpecificOutput is ignored by Copilot)", () => {
    expect(
      toCopilotOutput({ hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "dotagent next: {}" } }),
    ).toEqual({ additionalContext: "dotagent next: {}" });
  });
  it("a block stays a block; nothing stays nothing", () => {
    expect(toCopilotOutput({ decision: "block", reason: "write your report" })).toEqual({
      decision: "block",
      reason: "write your report",
    });
    expect(toCopilotOutput(null)).toBeNull();
    expect(toCopilotOutput({})).toBeNull();
  });
});

/** What the interactive Copilot CLI 1.0.102 hands the userPromptSubmitted hook for `/<skill> …` typed at its prompt. */
const expanded = (skill: string, args: string) =>
  `The user explicitly invoked the "/${skill}" skill. Follow its instructions now.\n\n<skill-context name="${skill}">\nBase directory for this skill: /p/.github/skills/${skill}\n\n# /${skill}\n${args}\n</skill-context>`;

describe("the person's /develop", () => {
  it.each([
    ["/develop add login", "add login"],
    ["  /develop   add login\nwith email  ", "add login\nwith email"],
    ["/develop", ""],
    ["/dotagent:develop fix it", "fix it"],
    ["/developer x", undefined],
    ["approve", undefined],
    ["please /develop x", undefined],
    // The interactive terminal expands the skill itself; the request is its ARGUMENTS line.
    [expanded("develop", "\n\nARGUMENTS: add login"), "add login"],
    [expanded("develop", "\n\nARGUMENTS: add login\nwith email"), "add login\nwith email"],
    [expanded("develop", ""), ""],
    [expanded("review", "\n\nARGUMENTS: add login"), undefined],
    [`approve ${expanded("develop", "\n\nARGUMENTS: x")}`, undefined],
  ])("%j → %j", (prompt, request) => {
    expect(developRequest(prompt)).toBe(request);
  });

  it("the helper's answer is one `dotagent next:` line the model acts on", () => {
    const text = startContext(
      '{\n  "next": { "action": "spawn_agent" }\n}\n',
      "/p/.github/skills/checkpoint/scripts/dotagent.mjs",
    );
    expect(text.split("\n")).toContain('dotagent next: {"next":{"action":"spawn_agent"}}');
    expect(text).toContain('node "/p/.github/skills/checkpoint/scripts/dotagent.mjs" <command>');
    expect(startContext("", "/h")).toContain("dotagent next: (no answer)");
  });
});
