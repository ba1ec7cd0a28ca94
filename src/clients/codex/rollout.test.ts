import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readAgentPrompt } from "../../store/agent-transcript.js";
import { LINES_OPENING } from "./executor-lines.js";
import { findRollout, modelSandboxKeepsGit, readRolloutAgent, readV2SpawnMessage } from "./rollout.js";
import { checkoutAsModelSees } from "../../ops/settle.js";
import { editAgentMeta, layCapturedRollouts } from "../../../test/codex/rollouts/captured.js";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

const PROMPT =
  "Feature request: add login\nPhase: IMPLEMENTATION\nTask: task-001\nOutput file: memory/reports/tasks/task-001.json";
const message = (role: string, text: string) => ({
  timestamp: "2026-11-26T15:37:19.697Z",
  type: "response_item",
  payload: { type: "message", role, content: [{ type: "input_text", text }] },
});

/** A sub-agent's rollout as Codex 0.169.0 writes it (test/codex/NOTES.md), `after` the entries following its prompt. */
function rollout(after: object[] = []): string {
  const day = join(mkdtempSync(join(tmpdir(), "dotagent-rollout-")), "sessions", "2026", "11", "26");
  dirs.push(day.split("/sessions/")[0]!);
  mkdirSync(day, { recursive: true });
  const file = join(day, "rollout-2026-11-26T15-37-19-agent-1.jsonl");
  const entries = [
    {
      timestamp: "2026-11-26T15:37:19.697Z",
      type: "session_meta",
      payload: {
        id: "agent-1",
        source: { subagent: { thread_spawn: { parent_thread_id: "main", depth: 1, agent_role: "executor" } } },
      },
    },
    { type: "event_msg", payload: { type: "task_started" } },
    message("developer", "You implement exactly one task of an approved design"),
    message("user", "<environment_context>\n  <cwd>/p</cwd>\n</environment_context>"),
    { type: "turn_context", payload: {} },
    message("user", PROMPT),
    { type: "event_msg", payload: { type: "item_completed" } },
    ...after,
  ];
  writeFileSync(file, `${entries.map((e) => JSON.stringify(e)).join("\n")}\n`);
  return file;
}

describe("a Codex sub-agent's rollout", () => {
  it("gives its prompt and agent type, and is found by the agent's id beside the session's rollout", () => {
    const file = rollout();
    expect(readRolloutAgent(file)).toEqual({ transcript: file, prompt: PROMPT, type: "executor" });
    expect(findRollout(join(file, "..", "rollout-2026-11-26T15-37-00-main.jsonl"), "agent-1")).toBe(file);
    expect(findRollout(file, "../etc")).toBeUndefined();
  });

  it("the hooks read its prompt with the worktree lines dotagent's hook added right after it (the write guard knows the worktree)", () => {
    const lines =
      "Worktree: /p/.dotagent/worktrees/task-001\nBranch: dotagent/wf/task-001 (dotagent merges it into main when you finish)\nReport file: /p/memory/reports/tasks/task-001.json";
    const file = rollout([
      message("developer", `${LINES_OPENING}\n${lines}`),
      { type: "response_item", payload: { type: "function_call", name: "exec_command" } },
    ]);
    expect(readAgentPrompt(file)).toBe(`${PROMPT}\n${lines}`);
  });

  it("takes no other developer message for lines, nor one that does not follow the prompt at once", () => {
    expect(readAgentPrompt(rollout([message("developer", "Worktree: /elsewhere")]))).toBe(PROMPT);
    expect(
      readAgentPrompt(rollout([message("assistant", "hi"), message("developer", `${LINES_OPENING}\nWorktree: /late`)])),
    ).toBe(PROMPT);
    expect(readAgentPrompt(rollout())).toBe(PROMPT);
  });

  it("reads a multi-agent v2 agent's prompt from its NEW_TASK agent_message (the words in an encrypted_content part, plain offline)", () => {
    const file = rollout();
    const v2 = [
      {
        type: "session_meta",
        payload: { source: { subagent: { thread_spawn: { agent_path: "/root/task_001", agent_role: "executor" } } } },
      },
      message("user", "<environment_context>\n</environment_context>"),
      {
        type: "response_item",
        payload: {
          type: "agent_message",
          content: [
            {
              type: "input_text",
              text: "Message Type: NEW_TASK\nTask name: /root/task_001\nSender: /root\nPayload:\n",
            },
            { type: "encrypted_content", encrypted_content: PROMPT },
          ],
        },
      },
    ];
    writeFileSync(file, `${v2.map((e) => JSON.stringify(e)).join("\n")}\n`);
    expect(readRolloutAgent(file)).toMatchObject({ prompt: PROMPT, type: "executor" });
    expect(readAgentPrompt(file)).toBe(PROMPT);
  });
});

describe("a multi-agent v2 agent at its SubagentStart (rollouts the real binary wrote)", () => {
  const home = () => {
    const dir = mkdtempSync(join(tmpdir(), "dotagent-v2-"));
    dirs.push(dir);
    return dir;
  };
  const LINES =
    "Worktree: /p/.dotagent/worktrees/task-001\nBranch: dotagent/wf/task-001 (dotagent merges it into main when you finish)\nReport file: /p/memory/reports/tasks/task-001.json";

  it("its spawn's message is read from the parent's rollout: agent_path's task_name, the parent thread from session_meta", () => {
    const laid = layCapturedRollouts(home(), { message: PROMPT, agentType: "executor" });
    expect(readV2SpawnMessage(laid.agent)).toBe(PROMPT);
  });

  it("a v1 agent (agent_path null), another task_name, a missing parent: no message", () => {
    const v1 = layCapturedRollouts(home(), { message: PROMPT, agentType: "executor" });
    editAgentMeta(v1.agent, (m) => {
      m.source.subagent.thread_spawn.agent_path = null;
      delete m.agent_path;
    });
    expect(readV2SpawnMessage(v1.agent)).toBeUndefined();
    expect(
      readV2SpawnMessage(
        layCapturedRollouts(home(), { message: PROMPT, agentType: "executor", taskName: "someone_else" }).agent,
      ),
    ).toBeUndefined();
    const orphan = layCapturedRollouts(home(), { message: PROMPT, agentType: "executor" });
    rmSync(orphan.parent);
    expect(readV2SpawnMessage(orphan.agent)).toBeUndefined();
  });

  it("the write guard reads the lines SubagentStart added, right before its NEW_TASK, as part of its prompt", () => {
    const laid = layCapturedRollouts(
      home(),
      { message: PROMPT, agentType: "executor" },
      { startContext: `${LINES_OPENING}\n${LINES}` },
    );
    expect(readAgentPrompt(laid.agent)).toBe(`${PROMPT}\n${LINES}`);
    expect(readRolloutAgent(laid.agent)).toMatchObject({ prompt: PROMPT, type: "executor" });
  });

  it("takes no other developer message before the task for lines (another hook's, or none)", () => {
    expect(
      readAgentPrompt(
        layCapturedRollouts(
          home(),
          { message: PROMPT, agentType: "executor" },
          { startContext: "Worktree: /elsewhere" },
        ).agent,
      ),
    ).toBe(PROMPT);
    expect(
      readAgentPrompt(
        layCapturedRollouts(home(), { message: PROMPT, agentType: "executor" }, { startContext: undefined }).agent,
      ),
    ).toBe(PROMPT);
  });
});

describe("the model's sandbox, from the session's newest turn (a question's yes cannot commit from a read-only .git)", () => {
  const context = (policy: unknown) => ({
    type: "turn_context",
    payload: { cwd: "/p", approval_policy: "on-request", sandbox_policy: policy },
  });
  it.each([
    [
      "workspace-write (Codex's default: .git mounted read-only)",
      [context({ type: "workspace-write", network_access: false })],
      true,
    ],
    ["read-only", [context({ type: "read-only" })], true],
    ["no sandbox (the bypass flag)", [context({ type: "danger-full-access" })], false],
    ["the newest turn decides", [context({ type: "workspace-write" }), context({ type: "danger-full-access" })], false],
    ["no turn_context at all", [], false],
    [
      "a torn last line",
      [context({ type: "workspace-write" }), '{"type":"turn_context","payload":{"sandbox_policy":{"ty'],
      true,
    ],
  ])("%s", (_name, after, keeps) => {
    const file = rollout();
    writeFileSync(
      file,
      `${readFileSync(file, "utf8")}${(after as unknown[]).map((e) => (typeof e === "string" ? e : JSON.stringify(e))).join("\n")}\n`,
    );
    expect(modelSandboxKeepsGit(file)).toBe(keeps);
  });

  it("a missing rollout says nothing", () => {
    expect(modelSandboxKeepsGit(join(tmpdir(), "no-such-rollout.jsonl"))).toBe(false);
  });

  it("the checkout as the model sees it: read-only .git only with changes to decide about, and the rollout read only then", () => {
    let asked = 0;
    const sandboxed = { modelGitReadOnly: () => (asked++, true) };
    const dirty = { git: true, branch: "main", head: "abc", dirty: ["README.md"], writable: true } as const;
    expect(checkoutAsModelSees(sandboxed, dirty)).toEqual({ ...dirty, writable: false });
    expect(checkoutAsModelSees({}, dirty)).toEqual(dirty);
    expect(checkoutAsModelSees({ modelGitReadOnly: () => false }, dirty)).toEqual(dirty);
    expect(asked).toBe(1);
    expect(checkoutAsModelSees(sandboxed, { ...dirty, dirty: [] })).toEqual({ ...dirty, dirty: [] });
    expect(checkoutAsModelSees(sandboxed, { git: false, reason: "no git" })).toEqual({ git: false, reason: "no git" });
    expect(checkoutAsModelSees(sandboxed, undefined)).toBeUndefined();
    expect(asked).toBe(1);
  });
});
