// A multi-agent v2 executor in a git project (the built CLI, as Codex 0.169.0 runs its hooks; the
// rollouts are the ones the real binary wrote, test/codex/rollouts/): Codex gives a v2 agent no
// UserPromptSubmit, so dotagent's SubagentStart hook finds its task through the agent's rollout
// (agent_path, parent thread) and the parent's spawn call, and answers with its worktree lines;
// the write guard reads them back from the rollout. An executor whose lines never came (the hook
// did not run) is held to the worktree execution.json records all the same.
import { afterEach, describe, expect, it } from "vitest";
import { join } from "node:path";
import { dotagent, removeTemps, tempProject } from "../support/cli.js";
import { git, ok, projectAtImplementation, readExecution, stopOwner, taskOf } from "../support/worktree-project.js";
import { editAgentMeta, layCapturedRollouts, SUBAGENT_START_INPUT } from "./rollouts/captured.js";

afterEach(async () => {
  await stopOwner();
  removeTemps();
});

type Out = {
  hookSpecificOutput: {
    hookEventName?: string;
    permissionDecision?: string;
    permissionDecisionReason?: string;
    additionalContext?: string;
  };
} | null;

/** A Codex hook through the installed helper: its stdin as the binary writes it (the captured SubagentStart input's fields). */
function hook(p: string, event: string, input: Record<string, unknown>): Out {
  const r = dotagent(p, ["hook", event, "--client", "codex"], {
    input: JSON.stringify({ ...SUBAGENT_START_INPUT, cwd: p, ...input }),
    script: join(p, ".agents/skills/checkpoint/scripts/dotagent.mjs"),
  });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim() === "" ? null : (JSON.parse(r.stdout) as Out);
}

/** A git project at IMPLEMENTATION, installed for Codex, task-001's executor spawned with the v2 tool (its start recorded, its worktree made). */
function spawnedV2Executor(): { p: string; prompt: string; worktree: string } {
  const p = projectAtImplementation([{ id: "task-001" }]);
  ok(dotagent(p, ["install", "--client", "codex", "--json"]));
  git(p, "add", "-A");
  git(p, "commit", "-qm", "dotagent for codex");
  const workflow = readExecution(p).workflow_id as string;
  const prompt = [
    "Feature request: add parts",
    "Phase: IMPLEMENTATION",
    "Task: task-001",
    "Title: task-001",
    "Design: memory/reports/final_design.json",
    `Workflow: ${workflow}`,
    "Output file: memory/reports/tasks/task-001.json",
  ].join("\n");
  const spawn = hook(p, "pre-tool-use", {
    hook_event_name: "PreToolUse",
    agent_id: undefined,
    agent_type: undefined,
    tool_name: "collaborationspawn_agent",
    tool_input: { agent_type: "executor", message: prompt, task_name: "task_001", fork_turns: "none" },
    tool_use_id: "call_2",
  });
  // Accepted: no deny (Codex rejects an "allow", so none is sent) and the start recorded.
  expect(spawn?.hookSpecificOutput?.permissionDecision).toBeUndefined();
  const task = taskOf(p, "task-001");
  expect(task).toMatchObject({ status: "running", worktree: { path: ".dotagent/worktrees/task-001" } });
  return { p, prompt, worktree: join(p, ".dotagent/worktrees/task-001") };
}

const patch = (file: string) => ({
  hook_event_name: "PreToolUse",
  tool_name: "apply_patch",
  tool_input: { command: `*** Begin Patch\n*** Add File: ${file}\n+x\n*** End Patch\n` },
  tool_use_id: "exec-1",
});

describe("a multi-agent v2 executor gets its worktree in a git project", () => {
  it("SubagentStart answers with its worktree lines, found from its rollout and its parent's spawn call", () => {
    const { p, prompt, worktree } = spawnedV2Executor();
    const codexHome = tempProject();
    const laid = layCapturedRollouts(codexHome, { message: prompt, agentType: "executor", taskName: "task_001" });
    editAgentMeta(laid.agent, (m) => {
      m.agent_path = "/root/task_001";
      m.source.subagent.thread_spawn.agent_path = "/root/task_001";
    });
    const start = hook(p, "subagent-start", { transcript_path: laid.agent, agent_type: "executor" });
    expect(start?.hookSpecificOutput.hookEventName).toBe("SubagentStart");
    const lines = start?.hookSpecificOutput.additionalContext ?? "";
    expect(lines).toMatch(/^dotagent: Codex could not add dotagent's lines to your prompt; they belong to it:\n/);
    expect(lines).toContain(
      `Worktree: ${worktree}\nBranch: ${taskOf(p, "task-001").worktree.branch} (dotagent merges it into main when you finish)\nReport file: ${join(p, "memory/reports/tasks/task-001.json")}`,
    );

    // The agent's rollout as it goes on: those lines, then its NEW_TASK; its patch of the main checkout is denied.
    const done = layCapturedRollouts(
      codexHome,
      { message: prompt, agentType: "executor", taskName: "task_001" },
      { startContext: lines },
    );
    const asAgent = { agent_id: SUBAGENT_START_INPUT.agent_id, agent_type: "executor", transcript_path: done.agent };
    expect(hook(p, "pre-tool-use", { ...patch("src/parts.ts"), ...asAgent })?.hookSpecificOutput).toMatchObject({
      permissionDecision: "deny",
      permissionDecisionReason: expect.stringContaining(
        `your task works in its own worktree, ${worktree}: write your changes there (this file there: ${worktree}/src/parts.ts)`,
      ),
    });
    expect(hook(p, "pre-tool-use", { ...patch(join(worktree, "src/parts.ts")), ...asAgent })).toBeNull();
    expect(hook(p, "pre-tool-use", { ...patch(join(p, "memory/reports/tasks/task-001.json")), ...asAgent })).toBeNull();
  });

  it("without the lines (no SubagentStart hook ran), its write into the main checkout is still denied, naming the worktree", () => {
    const { p, prompt, worktree } = spawnedV2Executor();
    const laid = layCapturedRollouts(
      tempProject(),
      { message: prompt, agentType: "executor" },
      { startContext: undefined },
    );
    const asAgent = { agent_id: SUBAGENT_START_INPUT.agent_id, agent_type: "executor", transcript_path: laid.agent };
    expect(
      hook(p, "pre-tool-use", { ...patch("src/parts.ts"), ...asAgent })?.hookSpecificOutput.permissionDecisionReason,
    ).toContain(`your task works in its own worktree, ${worktree}`);
    expect(hook(p, "pre-tool-use", { ...patch(join(worktree, "src/parts.ts")), ...asAgent })).toBeNull();
  });

  it("a v1 agent's start, a non-executor's and one whose parent rollout is gone say nothing", () => {
    const { p, prompt } = spawnedV2Executor();
    const v1 = layCapturedRollouts(tempProject(), { message: prompt, agentType: "executor" });
    editAgentMeta(v1.agent, (m) => {
      m.source.subagent.thread_spawn.agent_path = null;
      delete m.agent_path;
    });
    expect(hook(p, "subagent-start", { transcript_path: v1.agent, agent_type: "executor" })).toBeNull();
    const pm = layCapturedRollouts(tempProject(), {
      message: "Feature request: add parts\nPhase: REQUIREMENTS\nOutput file: memory/reports/demand.json",
      agentType: "pm",
    });
    expect(hook(p, "subagent-start", { transcript_path: pm.agent, agent_type: "pm" })).toBeNull();
    expect(
      hook(p, "subagent-start", { transcript_path: join(p, "no-such-rollout.jsonl"), agent_type: "executor" }),
    ).toBeNull();
  });
});
