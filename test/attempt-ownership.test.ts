// Each attempt is owned by its agent (issue 29, cases 5 and 8): from an agent's shell the model
// cannot fail or complete a task whose executor is at work; an earlier attempt's executor that
// ends later is not this attempt's end; a report older than the attempt does not complete it.
// The built CLI and its hooks, fed what Claude Code sends (test/claude/NOTES.md).
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { dotagent, readJson, removeTemps, tempProject, writeJson } from "./support/cli.js";
import { copyOfTemplate } from "./support/template.js";

afterEach(removeTemps);
// The worktree tests below take a live owner (a `sleep 3600`): it ends with the file, not an hour later.
afterAll(async () => (await import("./support/worktree-project.js")).stopOwner());

const AS_MODEL = { CLAUDECODE: "1" };

function hook(p: string, helper: string, event: string, input: Record<string, unknown>) {
  const r = dotagent(p, ["hook", event], {
    input: JSON.stringify({ session_id: "s-1", cwd: p, ...input }),
    env: { CLAUDE_PID: String(process.pid), CLAUDE_CODE_SESSION_ID: "s-1", CLAUDE_PROJECT_DIR: p },
    script: helper,
  });
  expect(r.code).toBe(0);
  return r.stdout.trim() === "" ? null : (JSON.parse(r.stdout) as Record<string, any>);
}

/** An agent transcript as Claude Code writes it: its prompt first, with the time it started. */
function transcript(p: string, agentId: string, prompt: string, startedAt: Date): string {
  const dir = join(p, "home/.claude/projects/x/s-1/subagents");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `agent-${agentId}.jsonl`);
  writeFileSync(
    file,
    `${JSON.stringify({ type: "user", agentId, timestamp: startedAt.toISOString(), message: { role: "user", content: prompt } })}\n`,
  );
  writeFileSync(join(dir, `agent-${agentId}.meta.json`), JSON.stringify({ agentType: "executor" }));
  return file;
}

/** t1 running: its executor spawned through the hook by this (live) session. */
// Made once per file and copied: the executor's owner is this process (alive until the file ends)
// and the attempt's start time is the state's, which each test reads from its copy.
function running() {
  const prompt = [
    "Feature request: add login",
    "Phase: IMPLEMENTATION",
    "Task: t1",
    "Title: one",
    "Output file: memory/reports/tasks/t1.json",
  ].join("\n");
  const p = copyOfTemplate("running", (dir) => {
    expect(dotagent(dir, ["install", "--json"], { env: { HOME: join(dir, "home") } }).code).toBe(0);
    dotagent(dir, ["resume", "--json", "--start", "--request", "add login"]);
    writeJson(dir, "memory/reports/demand.json", { stories: ["x"] });
    dotagent(dir, ["phase", "approve", "REQUIREMENTS"]);
    for (const name of ["minimal", "robust"]) writeJson(dir, `memory/reports/designs/${name}.json`, { name });
    writeJson(dir, "memory/reports/roundtable.json", { recommendation: "minimal" });
    writeJson(dir, "memory/reports/final_design.json", { chosen: "minimal", tasks: [{ id: "t1", title: "one" }] });
    expect(dotagent(dir, ["phase", "approve", "ARCHITECTURE", "--json"]).json).toMatchObject({
      phase: "IMPLEMENTATION",
    });
    const helper = join(dir, ".claude/skills/checkpoint/scripts/dotagent.mjs");
    expect(
      hook(dir, helper, "pre-tool-use", { tool_name: "Agent", tool_input: { subagent_type: "executor", prompt } })
        ?.hookSpecificOutput,
    ).toMatchObject({ permissionDecision: "allow" });
  });
  const helper = join(p, ".claude/skills/checkpoint/scripts/dotagent.mjs");
  const task = () => readJson(p, "memory/state/execution.json").tasks[0];
  expect(task()).toMatchObject({ status: "running", attempts: 0 });
  return { p, helper, prompt, task, startedAt: Date.parse(task().started_at) };
}

describe("the model's task fail or complete while the executor is at work", () => {
  it.each([["fail"], ["complete"]])(
    "`task %s t1` from an agent's shell: refused (agent_at_work), nothing burned",
    (action) => {
      const { p, task } = running();
      writeJson(p, "memory/reports/tasks/t1.json", { task_id: "t1", status: "complete" });
      const r = dotagent(p, ["task", action, "t1", "--json"], { env: AS_MODEL });
      expect(r.code).toBe(1);
      expect(r.json.error).toMatchObject({ code: "agent_at_work", task: "t1" });
      expect(r.json.error.message).toContain("t1's executor is at work; its result is recorded when it stops");
      expect(task()).toMatchObject({ status: "running", attempts: 0 });
    },
  );

  it("a person (no CLAUDECODE) still can", () => {
    const { p, task } = running();
    expect(dotagent(p, ["task", "fail", "t1", "--error", "stuck", "--json"]).code).toBe(0);
    expect(task()).toMatchObject({ attempts: 1 });
  });
});

describe("an end that belongs to another attempt", () => {
  it("an earlier attempt's executor stopping later: not recorded, not sent back, the attempt at work untouched", () => {
    const { p, helper, prompt, task, startedAt } = running();
    const old = transcript(p, "old1", prompt, new Date(startedAt - 60_000));
    expect(
      hook(p, helper, "subagent-stop", {
        hook_event_name: "SubagentStop",
        agent_id: "old1",
        agent_type: "executor",
        agent_transcript_path: old,
      }),
    ).toBeNull();
    expect(task()).toMatchObject({ status: "running", attempts: 0 });
    // Its notification neither.
    expect(
      hook(p, helper, "user-prompt-submit", {
        hook_event_name: "UserPromptSubmit",
        transcript_path: join(p, "home/.claude/projects/x/s-1.jsonl"),
        prompt: "<task-notification><task-id>old1</task-id><status>completed</status></task-notification>",
      }),
    ).toBeNull();
    expect(task()).toMatchObject({ status: "running", attempts: 0 });
  });

  it("this attempt's executor stopping: recorded as before", () => {
    const { p, helper, prompt, task, startedAt } = running();
    const now = transcript(p, "cur1", prompt, new Date(startedAt + 50));
    writeJson(p, "memory/reports/tasks/t1.json", { task_id: "t1", status: "complete" });
    expect(
      hook(p, helper, "subagent-stop", {
        hook_event_name: "SubagentStop",
        agent_id: "cur1",
        agent_type: "executor",
        agent_transcript_path: now,
      }),
    ).toBeNull();
    expect(task()).toMatchObject({ status: "complete" });
  });

  it("a report written before the attempt started: sent back, not taken as the attempt's work", () => {
    const { p, helper, prompt, task, startedAt } = running();
    const now = transcript(p, "cur2", prompt, new Date(startedAt + 50));
    writeJson(p, "memory/reports/tasks/t1.json", { task_id: "t1", status: "complete" });
    const before = new Date(startedAt - 3_600_000);
    utimesSync(join(p, "memory/reports/tasks/t1.json"), before, before);
    const out = hook(p, helper, "subagent-stop", {
      hook_event_name: "SubagentStop",
      agent_id: "cur2",
      agent_type: "executor",
      agent_transcript_path: now,
    });
    expect(out).toMatchObject({
      decision: "block",
      reason: expect.stringContaining("was written before this attempt started"),
    });
    expect(task()).toMatchObject({ status: "running" });
  });
});

describe("two spawns of one task in one message (issue 29, case 6)", () => {
  /** t1 started, its worktree not made yet (the first start is still making it, or was cut off). */
  async function startRecordedWorktreePending() {
    const { projectAtImplementation, startTask, git: gitIn, liveOwner } = await import("./support/worktree-project.js");
    const root = projectAtImplementation([{ id: "t1" }]);
    const owner = liveOwner();
    const first = startTask(root, "t1", owner);
    expect(first.run.code).toBe(0);
    const path = readJson(root, "memory/state/execution.json").tasks[0].worktree.path as string;
    gitIn(root, "worktree", "remove", "--force", "--force", join(root, path));
    return { root, owner, startTask };
  }

  it("while the first start is making the worktree, the second is refused as in flight and releases nothing", async () => {
    const { root, owner, startTask } = await startRecordedWorktreePending();
    const { spawn } = await import("node:child_process");
    const maker = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      const { readFileSync } = await import("node:fs");
      const start = readFileSync(`/proc/${maker.pid}/stat`, "utf8").split(") ")[1]!.split(" ")[19];
      writeFileSync(join(root, "memory/state/.lock.start-t1"), JSON.stringify({ pid: maker.pid, start }));
      const second = startTask(root, "t1", owner);
      expect(second.run.code).toBe(1);
      expect(readJson(root, "memory/state/execution.json").tasks[0]).toMatchObject({ status: "running", attempts: 0 });
    } finally {
      maker.kill("SIGKILL");
    }
  });

  it("a start cut off (its maker gone): the same owner's next start finishes it, as before", async () => {
    const { root, owner, startTask } = await startRecordedWorktreePending();
    writeFileSync(join(root, "memory/state/.lock.start-t1"), JSON.stringify({ pid: 999999, start: "1" }));
    const again = startTask(root, "t1", owner);
    expect(again.run.code, again.run.stderr).toBe(0);
    expect(again.dir).toBeDefined();
  });
});

describe("the landing checks the worktree (issue 29, case 7)", () => {
  async function landingSetup() {
    const { projectAtImplementation, startTask, git: gitIn, liveOwner } = await import("./support/worktree-project.js");
    const root = projectAtImplementation([{ id: "t1" }]);
    expect(dotagent(root, ["install", "--json"], { env: { HOME: join(root, "home") } }).code).toBe(0);
    const helper = join(root, ".claude/skills/checkpoint/scripts/dotagent.mjs");
    const started = startTask(root, "t1", liveOwner());
    expect(started.run.code).toBe(0);
    const prompt = [
      "Feature request: add parts",
      "Phase: IMPLEMENTATION",
      "Task: t1",
      "Title: t1",
      "Output file: memory/reports/tasks/t1.json",
    ].join("\n");
    const agent = transcript(root, "ex1", prompt, new Date(Date.now() + 5));
    const stop = () =>
      hook(root, helper, "subagent-stop", {
        hook_event_name: "SubagentStop",
        agent_id: "ex1",
        agent_type: "executor",
        agent_transcript_path: agent,
      });
    return { root, dir: started.dir!, gitIn, stop, task: () => readJson(root, "memory/state/execution.json").tasks[0] };
  }

  it("an executor that switched its worktree to another branch: sent back to switch; landed anyway, the attempt fails (wrong_branch) and nothing merges", async () => {
    const { root, dir, gitIn, stop, task } = await landingSetup();
    const main = gitIn(root, "rev-parse", "main");
    gitIn(dir, "checkout", "-q", "-b", "feature/t1");
    writeFileSync(join(dir, "t1.txt"), "work\n");
    gitIn(dir, "add", "-A");
    gitIn(dir, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qm", "work");
    writeJson(root, "memory/reports/tasks/t1.json", { task_id: "t1", status: "complete", files_changed: ["t1.txt"] });
    expect(stop()).toMatchObject({
      decision: "block",
      reason: expect.stringContaining("is on branch feature/t1, not on dotagent/"),
    });
    expect(task()).toMatchObject({ status: "running" });
    const landed = dotagent(root, ["task", "complete", "t1", "--json"]);
    expect(landed.code, landed.stderr).toBe(0);
    expect(task()).toMatchObject({
      status: "pending",
      attempts: 1,
      worktree: { merge: { state: "conflict", reason: "wrong_branch" } },
    });
    expect(gitIn(root, "rev-parse", "main")).toBe(main);
    expect(gitIn(root, "rev-parse", "feature/t1")).toMatch(/^[0-9a-f]{40}$/);
  });

  it("a report listing files while the worktree holds no change (written elsewhere): sent back", async () => {
    const { root, stop, task } = await landingSetup();
    writeFileSync(join(root, "t1.txt"), "written in the main checkout\n");
    writeJson(root, "memory/reports/tasks/t1.json", { task_id: "t1", status: "complete", files_changed: ["t1.txt"] });
    expect(stop()).toMatchObject({
      decision: "block",
      reason: expect.stringContaining("holds no change: write them there"),
    });
    expect(task()).toMatchObject({ status: "running" });
  });
});
