// The fan-out cap of Claude Code's Workflow runs in the hooks (SPEC §11 *Fan-out cap*), from the
// real client's SubagentStart input and killed run's journal (alpha, beta, gamma started): with a
// cap of 2, gamma's start is told it is refused and its writes are denied; alpha and beta run.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
const saved = { cap: process.env.DOTAGENT_WORKFLOW_MAX_AGENTS, config: process.env.CLAUDE_CONFIG_DIR };

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
  const runDir = join(work, "home/.claude/projects/-tmp-WORK-project", SESSION, "subagents/workflows", RUN);
  mkdirSync(runDir, { recursive: true });
  writeFileSync(join(runDir, "journal.jsonl"), readFileSync(join(FIXTURES, "journal-killed.jsonl")));
  mkdirSync(join(work, "project"));
  mkdirSync(join(work, "config"));
  process.env.CLAUDE_CONFIG_DIR = join(work, "config");
  delete process.env.DOTAGENT_WORKFLOW_MAX_AGENTS;
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
