import { describe, expect, it } from "vitest";
import { agentInput, codexOutput, endedAgents, planCodexHook, type RolloutReader } from "./hook-io.js";

const SESSION = "/h/.codex/sessions/2026/11/26/rollout-2026-11-26T15-37-19-main.jsonl";
const AGENT_ROLLOUT = "/h/.codex/sessions/2026/11/26/rollout-2026-11-26T15-37-19-agent-1.jsonl";
const rollouts: RolloutReader = {
  find: (_session, id) => (id === "agent-1" ? AGENT_ROLLOUT : undefined),
  read: (file) => ({
    transcript: file,
    prompt: "Feature request: add login\nPhase: REQUIREMENTS\nOutput file: memory/reports/demand.json",
    type: "pm",
  }),
  spawnMessage: (file) =>
    file === AGENT_ROLLOUT ? "Task: task-001\nOutput file: memory/reports/tasks/task-001.json" : undefined,
};
const base = { session_id: "s", transcript_path: SESSION, cwd: "/p" };

describe("Codex hook inputs as the Claude-shaped ones dotagent's hooks read", () => {
  it.each([
    ["the person's prompt", "user-prompt-submit", { ...base, prompt: "approve" }, { prompt: "approve" }],
    [
      "$develop as /develop",
      "user-prompt-submit",
      { ...base, prompt: "$develop add login" },
      { prompt: "/develop add login" },
    ],
    [
      "a shell call",
      "pre-tool-use",
      { ...base, tool_name: "Bash", tool_input: { command: "ls" } },
      { tool_name: "Bash", tool_input: { command: "ls" } },
    ],
    [
      "a sub-agent's shell call: its rollout is its transcript",
      "pre-tool-use",
      { ...base, agent_id: "a", agent_type: "pm", tool_name: "Bash", tool_input: { command: "ls" } },
      { agent_transcript_path: SESSION, agent_type: "pm" },
    ],
    [
      "spawn_agent as an Agent call",
      "pre-tool-use",
      { ...base, tool_name: "spawn_agent", tool_input: { agent_type: "pm", message: "Phase: X" } },
      { tool_name: "Agent", tool_input: { subagent_type: "pm", prompt: "Phase: X" } },
    ],
    [
      "SubagentStop as it is",
      "subagent-stop",
      { ...base, agent_id: "a", agent_type: "pm", agent_transcript_path: AGENT_ROLLOUT },
      { agent_type: "pm", agent_transcript_path: AGENT_ROLLOUT },
    ],
  ] as const)("%s", (_what, event, input, expected) => {
    const plan = planCodexHook(event, input as Record<string, unknown>, rollouts);
    expect(plan.kind).toBe("run");
    if (plan.kind === "run") expect(plan.inputs[0]).toMatchObject(expected);
  });

  it.each([
    [
      "spawn_agent's launch result (the agent works on)",
      "post-tool-use",
      { ...base, tool_name: "spawn_agent", tool_response: '{"agent_id":"agent-1"}' },
    ],
    ["a tool dotagent does not judge", "pre-tool-use", { ...base, tool_name: "view_image", tool_input: {} }],
    [
      "an MCP tool whose name ends in spawn_agent",
      "pre-tool-use",
      { ...base, tool_name: "mcp__x__spawn_agent", tool_input: { agent_type: "executor", message: "Task: task-001" } },
    ],
    [
      "a wait that timed out",
      "post-tool-use",
      { ...base, tool_name: "wait_agent", tool_response: '{"status":{},"timed_out":true}' },
    ],
    [
      "a wait on an agent without a rollout",
      "post-tool-use",
      { ...base, tool_name: "wait_agent", tool_response: '{"status":{"nobody":{"completed":"x"}}}' },
    ],
  ] as const)("skips %s", (_what, event, input) => {
    expect(planCodexHook(event, input as Record<string, unknown>, rollouts)).toEqual({ kind: "skip" });
  });

  it("reads a sub-agent's first prompt only for its worktree lines, never as the person's reply", () => {
    expect(
      planCodexHook(
        "user-prompt-submit",
        { ...base, agent_id: "a", agent_type: "executor", prompt: "approve" },
        rollouts,
      ),
    ).toEqual({ kind: "executor_lines", agentType: "executor", prompt: "approve", hookEventName: "UserPromptSubmit" });
  });

  it("reads a multi-agent v2 agent's spawn message at its SubagentStart, for its worktree lines; a v1 agent's start is skipped (its lines come with its first prompt)", () => {
    const start = { ...base, hook_event_name: "SubagentStart", agent_id: "agent-1", agent_type: "executor" };
    expect(planCodexHook("subagent-start", { ...start, transcript_path: AGENT_ROLLOUT }, rollouts)).toEqual({
      kind: "executor_lines",
      agentType: "executor",
      prompt: "Task: task-001\nOutput file: memory/reports/tasks/task-001.json",
      hookEventName: "SubagentStart",
    });
    expect(planCodexHook("subagent-start", { ...start, transcript_path: "/h/v1-agent.jsonl" }, rollouts)).toEqual({
      kind: "skip",
    });
    expect(
      planCodexHook(
        "subagent-start",
        { ...base, hook_event_name: "SubagentStart", transcript_path: AGENT_ROLLOUT },
        rollouts,
      ),
    ).toEqual({ kind: "skip" });
  });

  it("turns each agent a wait saw end into a foreground Agent call's result, with its prompt and type from its rollout", () => {
    const plan = planCodexHook(
      "post-tool-use",
      {
        ...base,
        tool_name: "multi_agent_v1wait_agent",
        tool_input: { targets: ["agent-1"] },
        tool_response: '{"status":{"agent-1":{"completed":"done"}},"timed_out":false}',
      },
      rollouts,
    );
    expect(plan).toEqual({
      kind: "run",
      event: "post-tool-use",
      inputs: [
        expect.objectContaining({
          hook_event_name: "PostToolUse",
          tool_name: "Agent",
          tool_input: {
            subagent_type: "pm",
            prompt: expect.stringContaining("Output file: memory/reports/demand.json"),
          },
          tool_response: { status: "completed" },
        }),
      ],
    });
  });

  it("keeps every other spawn field, so the spawn check refuses a forked context or another model", () => {
    expect(agentInput({ agent_type: "executor", message: "m", fork_context: true, model: "x" })).toEqual({
      subagent_type: "executor",
      prompt: "m",
      fork_context: true,
      model: "x",
    });
    expect(agentInput({ agent_type: "pm", items: [{ type: "text", text: "hi" }] })).toEqual({
      subagent_type: "pm",
      items: [{ type: "text", text: "hi" }],
    });
  });

  it("judges a patch as a Write of each file it names", () => {
    const patch =
      "*** Begin Patch\n*** Add File: memory/state/phase.json\n+{}\n*** Update File: src/a.ts\n*** Move to: src/b.ts\n@@\n-a\n+b\n*** End Patch\n";
    const plan = planCodexHook(
      "pre-tool-use",
      { ...base, tool_name: "apply_patch", tool_input: { command: patch } },
      rollouts,
    );
    expect(
      plan.kind === "run" && plan.inputs.map((i) => [i.tool_name, (i.tool_input as { file_path: string }).file_path]),
    ).toEqual([
      ["Write", "memory/state/phase.json"],
      ["Write", "src/a.ts"],
      ["Write", "src/b.ts"],
    ]);
    const unreadable = planCodexHook(
      "pre-tool-use",
      { ...base, tool_name: "apply_patch", tool_input: { command: "garbage memory/state/x" } },
      rollouts,
    );
    expect(
      unreadable.kind === "run" && unreadable.inputs.map((i) => (i.tool_input as { file_path: string }).file_path),
    ).toEqual(["memory/state/"]);
  });

  it("maps the multi-agent v2 spawn (task_name, fork_turns) and keeps a forked context for the spawn check to refuse", () => {
    expect(agentInput({ agent_type: "pm", message: "m", task_name: "pm_requirements", fork_turns: "none" })).toEqual({
      subagent_type: "pm",
      description: "pm_requirements",
      prompt: "m",
    });
    expect(agentInput({ agent_type: "pm", message: "m", task_name: "t", fork_turns: "all" })).toEqual({
      subagent_type: "pm",
      description: "t",
      prompt: "m",
      fork_turns: "all",
    });
  });

  it("reads which agents a wait saw end", () => {
    expect(endedAgents('{"status":{"a":{"completed":"x"},"b":{"running":null},"c":{"errored":"boom"}}}')).toEqual([
      "a",
      "c",
    ]);
    expect(endedAgents("not json")).toEqual([]);
    expect(endedAgents({ status: { "../x": { completed: "" } } })).toEqual([]);
  });
});

describe("the answers as Codex reads them", () => {
  const deny = {
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: "dotagent: no",
    },
  };
  const context = (t: string) => ({ hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: t } });
  it("passes a deny as it is", () => expect(codexOutput("pre-tool-use", [deny])).toEqual(deny));
  it("says nothing when no handler did", () => expect(codexOutput("post-tool-use", [null, null])).toBeNull());
  it("joins the contexts of several ended agents, the newest next line last", () => {
    expect(codexOutput("post-tool-use", [context("dotagent next: {1}"), null, context("dotagent next: {2}")])).toEqual(
      context("dotagent next: {1}\ndotagent next: {2}"),
    );
  });
  it('sends no allow, which Codex rejects ("unsupported permissionDecision:allow", a failed hook in its terminal)', () => {
    const allow = {
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "allow",
        permissionDecisionReason: "ok",
        updatedInput: { prompt: "x" },
      },
    };
    expect(codexOutput("pre-tool-use", [allow])).toBeNull();
    expect(codexOutput("pre-tool-use", [{ ...allow, systemMessage: "note" }])).toEqual({ systemMessage: "note" });
  });
  it("drops updatedInput, which Codex ignores", () => {
    const ask = {
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", updatedInput: { prompt: "x" } },
    };
    expect(codexOutput("pre-tool-use", [ask])).toEqual({
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask" },
    });
  });
});
