// The fan-out cap of Claude Code's Workflow runs in the hooks (SPEC §11 *Fan-out cap*), from the
// real client's SubagentStart input and killed run's journal (alpha, beta, gamma started): with a
// cap of 2, gamma's start is told it is refused and its writes are denied; alpha and beta run.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { onPreToolUse, onSubagentStart, type HookInput } from "./hooks.js";
import { projectPaths } from "../store/project.js";
import type { OpContext } from "../ops/op-context.js";

const FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), "../../test/claude/fixtures/workflow-tool");
const RUN = "wf_3216a11b-d0a";
const SESSION = "85d13282-20ae-49c3-87f2-86f6adfc3d8f";
const AGENTS = { alpha: "a22dce20520af9d86", beta: "afcf2323dcffe58d6", gamma: "a7c43afd3b15167df" };

let work = "";
let warnings: string[] = [];
let op: OpContext;
const saved = {
  cap: process.env.DOTAGENT_WORKFLOW_MAX_AGENTS,
  budget: process.env.DOTAGENT_WORKFLOW_MAX_TOKENS,
  config: process.env.CLAUDE_CONFIG_DIR,
};
let runDir = "";

const start = (agent: keyof typeof AGENTS): HookInput =>
  ({
    ...JSON.parse(readFileSync(join(FIXTURES, "hooks/SubagentStart.json"), "utf8").replaceAll("/tmp/WORK", work)),
    agent_id: AGENTS[agent],
  }) as HookInput;
const write = (agent: keyof typeof AGENTS): HookInput => ({
  ...start(agent),
  hook_event_name: "PreToolUse",
  tool_name: "Write",
  tool_input: { file_path: join(work, "project/notes.txt"), content: "x" },
});

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "dotagent-wfcap-"));
  runDir = join(work, "home/.claude/projects/-tmp-WORK-project", SESSION, "subagents/workflows", RUN);
  mkdirSync(runDir, { recursive: true });
  writeFileSync(join(runDir, "journal.jsonl"), readFileSync(join(FIXTURES, "journal-killed.jsonl")));
  mkdirSync(join(work, "project"));
  mkdirSync(join(work, "config"));
  process.env.CLAUDE_CONFIG_DIR = join(work, "config");
  delete process.env.DOTAGENT_WORKFLOW_MAX_AGENTS;
  delete process.env.DOTAGENT_WORKFLOW_MAX_TOKENS;
  warnings = [];
  op = {
    paths: projectPaths(join(work, "project")),
    now: () => new Date(),
    warn: (m) => warnings.push(m),
    note: () => {},
  };
});
afterEach(() => {
  rmSync(work, { recursive: true, force: true });
  for (const [key, value] of [
    ["DOTAGENT_WORKFLOW_MAX_AGENTS", saved.cap],
    ["DOTAGENT_WORKFLOW_MAX_TOKENS", saved.budget],
    ["CLAUDE_CONFIG_DIR", saved.config],
  ] as const)
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
});

const REFUSAL = `dotagent: refused: workflow run ${RUN} reached its cap of 2 agents (DOTAGENT_WORKFLOW_MAX_AGENTS); agent 3 does not run`;

describe("the fan-out cap in the hooks", () => {
  it("no cap set: nothing said, nothing denied", async () => {
    expect(await onSubagentStart(op, start("gamma"))).toBeNull();
    expect(await onPreToolUse(op, write("gamma"), "/nonexistent/helper")).toBeNull();
    expect(warnings).toEqual([]);
  });

  it("a cap of 2 in the environment: the third agent is told at its start and its write is denied; the first two run", async () => {
    process.env.DOTAGENT_WORKFLOW_MAX_AGENTS = "2";
    expect(await onSubagentStart(op, start("beta"))).toBeNull();
    expect(await onSubagentStart(op, start("gamma"))).toEqual({
      hookSpecificOutput: {
        hookEventName: "SubagentStart",
        additionalContext: `${REFUSAL}. Do no work and call no tool: answer with exactly that line and stop.`,
      },
    });
    expect(warnings).toEqual([REFUSAL.replace(/^dotagent: /, "")]);
    expect(await onPreToolUse(op, write("alpha"), "/nonexistent/helper")).toBeNull();
    expect(await onPreToolUse(op, write("gamma"), "/nonexistent/helper")).toEqual({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: REFUSAL,
      },
    });
  });

  it("the user settings' cap cannot be raised by the environment (a project's settings env reaches the hooks over the shell's)", async () => {
    process.env.DOTAGENT_WORKFLOW_MAX_AGENTS = "50";
    writeFileSync(join(work, "config/settings.json"), JSON.stringify({ env: { DOTAGENT_WORKFLOW_MAX_AGENTS: "2" } }));
    expect(await onSubagentStart(op, start("gamma"))).not.toBeNull();
    process.env.DOTAGENT_WORKFLOW_MAX_AGENTS = "1";
    expect(await onSubagentStart(op, start("beta"))).not.toBeNull();
  });

  it("a bad value is a warning and no cap; an agent of no run found, or not a workflow agent, is never refused", async () => {
    process.env.DOTAGENT_WORKFLOW_MAX_AGENTS = "lots";
    expect(await onSubagentStart(op, start("gamma"))).toBeNull();
    expect(warnings).toEqual([
      "DOTAGENT_WORKFLOW_MAX_AGENTS in the environment is not a whole number from 1 to 9999999; ignored",
    ]);
    process.env.DOTAGENT_WORKFLOW_MAX_AGENTS = "1";
    expect(await onSubagentStart(op, { ...start("gamma"), agent_id: "a0000000000000000" })).toBeNull();
    expect(await onSubagentStart(op, { ...start("gamma"), agent_id: "../../etc" })).toBeNull();
    expect(
      await onPreToolUse(op, { ...write("gamma"), agent_type: "general-purpose" }, "/nonexistent/helper"),
    ).toBeNull();
  });
});

/** An agent's transcript as the client writes it: a model message per line of content, each with its usage. */
function transcript(agent: keyof typeof AGENTS, messages: { id: string; input: number; output: number }[]): void {
  const lines = messages.flatMap(({ id, input, output }) =>
    ["thinking", "tool_use"].map((block) =>
      JSON.stringify({
        type: "assistant",
        agentId: AGENTS[agent],
        message: {
          id,
          role: "assistant",
          content: [{ type: block }],
          usage: { input_tokens: input, output_tokens: output },
        },
      }),
    ),
  );
  writeFileSync(join(runDir, `agent-${AGENTS[agent]}.jsonl`), `${lines.join("\n")}\n`);
}

const SPENT = (used: number, budget: number) =>
  `dotagent: refused: workflow run ${RUN} used ${used} tokens of its budget of ${budget} (DOTAGENT_WORKFLOW_MAX_TOKENS); its agents do not go on`;

describe("the token budget in the hooks", () => {
  beforeEach(() => {
    transcript("alpha", [
      { id: "msg_a1", input: 400, output: 100 },
      { id: "msg_a2", input: 50, output: 50 },
    ]);
    transcript("beta", [{ id: "msg_b1", input: 450, output: 50 }]);
  });

  it("within the budget nothing is said; once the run's agents used it, the next agent is told at its start and every agent's tool call is denied", async () => {
    process.env.DOTAGENT_WORKFLOW_MAX_TOKENS = "1101";
    expect(await onSubagentStart(op, start("gamma"))).toBeNull();
    expect(await onPreToolUse(op, write("beta"), "/nonexistent/helper")).toBeNull();
    process.env.DOTAGENT_WORKFLOW_MAX_TOKENS = "1100";
    expect(await onSubagentStart(op, start("gamma"))).toEqual({
      hookSpecificOutput: {
        hookEventName: "SubagentStart",
        additionalContext: `${SPENT(1100, 1100)}. Do no work and call no tool: answer with exactly that line and stop.`,
      },
    });
    expect(warnings).toEqual([SPENT(1100, 1100).replace(/^dotagent: /, "")]);
    for (const agent of ["beta", "gamma"] as const)
      expect(await onPreToolUse(op, write(agent), "/nonexistent/helper")).toEqual({
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "deny",
          permissionDecisionReason: SPENT(1100, 1100),
        },
      });
  });

  it("the fan-out cap speaks first; the user settings' budget cannot be raised; a transcript that is a link is not read", async () => {
    process.env.DOTAGENT_WORKFLOW_MAX_AGENTS = "2";
    process.env.DOTAGENT_WORKFLOW_MAX_TOKENS = "10";
    expect((await onSubagentStart(op, start("gamma")))?.hookSpecificOutput).toMatchObject({
      additionalContext: expect.stringContaining("reached its cap of 2 agents"),
    });
    delete process.env.DOTAGENT_WORKFLOW_MAX_AGENTS;
    process.env.DOTAGENT_WORKFLOW_MAX_TOKENS = "999999";
    writeFileSync(join(work, "config/settings.json"), JSON.stringify({ env: { DOTAGENT_WORKFLOW_MAX_TOKENS: 1000 } }));
    expect(await onPreToolUse(op, write("gamma"), "/nonexistent/helper")).toMatchObject({
      hookSpecificOutput: { permissionDecisionReason: SPENT(1100, 1000) },
    });
    // A transcript planted as a link (to a file of huge counts) is refused unread: only alpha's 600 count.
    rmSync(join(runDir, `agent-${AGENTS.beta}.jsonl`));
    const planted = join(work, "planted.jsonl");
    writeFileSync(
      planted,
      JSON.stringify({ type: "assistant", message: { id: "x", usage: { input_tokens: 10 ** 9 } } }),
    );
    symlinkSync(planted, join(runDir, `agent-${AGENTS.beta}.jsonl`));
    expect(await onPreToolUse(op, write("gamma"), "/nonexistent/helper")).toBeNull();
  });

  it("a bad value is a warning and no budget", async () => {
    process.env.DOTAGENT_WORKFLOW_MAX_TOKENS = "1e6";
    expect(await onSubagentStart(op, start("gamma"))).toBeNull();
    expect(warnings).toEqual([
      "DOTAGENT_WORKFLOW_MAX_TOKENS in the environment is not a whole number from 1 to 999999999999; ignored",
    ]);
  });
});
