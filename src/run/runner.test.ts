// The headless runner's loop with a stand-in SDK whose agents write their reports at once (the
// real SDK and binary are tested in test/claude/run-journey.test.ts): rework, a silent agent,
// failing tasks, gates without a terminal, one runner at a time.
import { afterEach, describe, expect, test } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { checkpointStore } from "../api/checkpoint-store.js";
import { openWorkflow } from "../api/workflow.js";
import { currentHost, processStartTime } from "../store/process-facts.js";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { DotagentError } from "../core/errors.js";
import type { QueryMessage, QuerySdk } from "../api/recoverable-query.js";
import { acquireLock } from "../store/lock.js";
import { shellQuote } from "../core/plan-resume.js";
import { findAgentsDir, loadAgentFiles } from "./agent-files.js";
import { runWorkflow, type Asker, type RunOptions } from "./runner.js";
import { createProgress, type Progress } from "./progress.js";

import { AGENTS, good, harness, person, type Harness, type Writer } from "./stand-in-sdk.test-support.js";

const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
const agentsRun = (h: Harness) => h.sessions.map((s) => s.agent);

describe("runWorkflow with a stand-in SDK", () => {
  test("a clean run: every agent once, the plan from the chosen design, the workflow complete", async () => {
    const h = harness(good);
    const outcome = await runWorkflow(h.options());
    expect(outcome).toMatchObject({ outcome: "complete", workflow_id: "wf-add-login", agents: 8 });
    expect(agentsRun(h)).toEqual([
      "pm",
      "architect",
      "architect",
      "roundtable",
      "executor",
      "executor",
      "qa",
      "reflector",
    ]);
    // The chosen design's task list is recorded as round 0's plan when ARCHITECTURE completes.
    const execution = readJson(join(h.root, "memory/state/execution.json")) as {
      tasks: Array<{ id: string; title: string; depends_on: string[] }>;
      plans: unknown;
    };
    expect(execution.tasks.map((t) => [t.id, t.title, t.depends_on])).toEqual([
      ["task-001", "model", []],
      ["task-002", "route", ["task-001"]],
    ]);
    expect(execution.plans).toMatchObject([{ round: 0, tasks: 2 }]);
    const executor = h.sessions.find((s) => s.agent === "executor")!.prompt;
    expect(executor.split("\n")).toEqual([
      "Feature request: add login",
      "Phase: IMPLEMENTATION",
      "Task: task-001",
      "Title: model",
      "Design: memory/reports/final_design.json",
      "Workflow: wf-add-login",
      "Helper: node dotagent.mjs",
      "Output file: memory/reports/tasks/task-001.json",
    ]);
    // A second run has nothing to do and asks no agent.
    expect(await runWorkflow(h.options({ request: undefined }))).toMatchObject({ outcome: "complete", agents: 0 });
    expect(h.sessions).toHaveLength(8);
  });

  test("in a git repository each executor works in its own worktree (SPEC §19): its prompt names it, its cwd stays the project root, its commits land", async () => {
    const git = (cwd: string, ...args: string[]) =>
      spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, encoding: "utf8" });
    const h = harness(
      (agent, prompt, output) => {
        const worktree = /^Worktree: (.*)$/m.exec(prompt)?.[1];
        if (agent === "executor" && worktree) {
          const task = /^Task: (.*)$/m.exec(prompt)![1]!;
          writeFileSync(join(worktree, `${task}.txt`), `${task}\n`);
          git(worktree, "add", "-A");
          git(worktree, "commit", "-qm", `${task} done`);
        }
        return good(agent, prompt, output);
      },
      (root) => {
        git(root, "init", "-q", "-b", "main");
        writeFileSync(join(root, "README.md"), "# app\n");
        git(root, "add", "-A");
        git(root, "commit", "-qm", "initial");
      },
    );
    expect(await runWorkflow(h.options())).toMatchObject({ outcome: "complete" });
    const executors = h.sessions.filter((s) => s.agent === "executor");
    expect(executors.map((s) => s.cwd)).toEqual([h.root, h.root]);
    expect(executors[0]!.prompt.split("\n").slice(-4)).toEqual([
      `Worktree: ${join(h.root, ".dotagent/worktrees/task-001")}`,
      "Branch: dotagent/wf-add-login/task-001 (dotagent merges it into main when you finish)",
      `Report file: ${join(h.root, "memory/reports/tasks/task-001.json")}`,
      "Output file: memory/reports/tasks/task-001.json",
    ]);
    // task-002 depends on task-001: its worktree was made from main with task-001 merged.
    expect(git(h.root, "log", "--format=%s", "main").stdout.split("\n")).toEqual(
      expect.arrayContaining([
        "task-001 done",
        "task-002 done",
        "Merge task task-001: model",
        "Merge task task-002: route",
      ]),
    );
    expect(readFileSync(join(h.root, "task-002.txt"), "utf8")).toBe("task-002\n");
    expect(git(h.root, "worktree", "list").stdout.trim().split("\n")).toHaveLength(1);
  });

  test("a failed verification: rework round 1 planned from its failures, fixed, verified again", async () => {
    let verifications = 0;
    const h = harness((agent, prompt, output) => {
      if (agent !== "qa") return good(agent, prompt, output);
      return ++verifications === 1
        ? {
            passed: false,
            failures: [{ criterion: "AC-1", problem: "wrong password accepted", where: "src/login.ts" }],
          }
        : { passed: true, failures: [] };
    });
    expect(await runWorkflow(h.options())).toMatchObject({ outcome: "complete" });
    expect(readJson(join(h.root, "memory/reports/plan.rework-1.json"))).toEqual({
      tasks: [{ id: "rework-1-1", title: "AC-1: wrong password accepted (in src/login.ts)", depends_on: [] }],
    });
    const fix = h.sessions.find((s) => /Task: rework-1-1/.test(s.prompt))!.prompt;
    expect(fix).toMatch(/^Fixes: memory\/reports\/verification\.rework-1\.json$/m);
    expect(agentsRun(h).filter((a) => a === "qa")).toHaveLength(2);
    expect(h.lines).toContainEqual(
      expect.stringMatching(/✗ qa wrote memory\/reports\/verification\.json: VERIFICATION failed \(1 failure\) +\d/),
    );
    expect(h.lines).toContain("  · back to IMPLEMENTATION to fix what VERIFICATION found");
  });

  test("verification failing twice in one run: each round's qa is a session of its own, not a third try of one job (which failed the phase)", async () => {
    let verifications = 0;
    const h = harness((agent, prompt, output) => {
      if (agent !== "qa") return good(agent, prompt, output);
      return ++verifications <= 2
        ? { passed: false, failures: [{ criterion: `AC-${verifications}`, problem: "not yet", where: "src/login.ts" }] }
        : { passed: true, failures: [] };
    });
    expect(await runWorkflow(h.options())).toMatchObject({ outcome: "complete" });
    expect(agentsRun(h).filter((a) => a === "qa")).toHaveLength(3);
    expect(existsSync(join(h.root, "memory/reports/plan.rework-2.json"))).toBe(true);
  });

  test("an agent that writes nothing: asked twice, then its phase fails with its last words; run again, the person's decision, it runs once more", async () => {
    let roundtables = 0;
    const h = harness((agent, prompt, output) =>
      agent === "roundtable" && ++roundtables <= 2 ? null : good(agent, prompt, output),
    );
    const error = await runWorkflow(h.options()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DotagentError);
    expect(error).toMatchObject({ code: "agent_failed", exitCode: 1 });
    expect((error as Error).message).toMatch(
      /roundtable did not write a valid memory\/reports\/roundtable\.json in 2 sessions \(it said: "I could not do it\."\)/,
    );
    expect(agentsRun(h).filter((a) => a === "roundtable")).toHaveLength(2);
    expect(readJson(join(h.root, "memory/state/phase.json"))).toMatchObject({
      current_phase: "ARCHITECTURE",
      phase_status: "failed",
    });
    expect((await openWorkflow(h.root).status()).next).toMatchObject({
      action: "resolve_failed_agent",
      agent: "roundtable",
    });
    expect(await runWorkflow(h.options())).toMatchObject({ outcome: "complete" });
    expect(agentsRun(h).filter((a) => a === "roundtable")).toHaveLength(3);
  });

  test("a task that keeps failing: retried to its limit, then a decision (also with --approve auto)", async () => {
    const h = harness((agent, prompt, output) =>
      agent === "executor" && /task-002/.test(prompt)
        ? { task_id: "task-002", status: "failed", error: "tests fail" }
        : good(agent, prompt, output),
    );
    const outcome = await runWorkflow(h.options());
    expect(outcome).toMatchObject({
      outcome: "decision",
      decision: { yes: "dotagent task retry task-002 --extra-attempts 2" },
    });
    const execution = readJson(join(h.root, "memory/state/execution.json"));
    const task = (execution.tasks as Array<{ id: string; status: string; error?: string }>).find(
      (t) => t.id === "task-002",
    );
    expect(task).toMatchObject({ status: "dead", error: "tests fail" });
  });

  test("no terminal, no --approve auto: stops at the requirements gate, then at the design pick", async () => {
    const h = harness(good);
    const first = await runWorkflow(h.options({ approve: "ask" }));
    expect(first).toMatchObject({ outcome: "decision", decision: { yes: "dotagent phase approve REQUIREMENTS" } });
    expect(agentsRun(h)).toEqual(["pm"]);
    // The gate answered with --design for the pick: the run goes on to the end.
    const approved = await runWorkflow(h.options({ approve: "ask", request: undefined, ask: person() }));
    expect(approved).toMatchObject({
      outcome: "decision",
      decision: { yes: "dotagent run --design minimal", no: "dotagent run --design robust" },
    });
    expect(await runWorkflow(h.options({ approve: "ask", request: undefined, design: "robust" }))).toMatchObject({
      outcome: "complete",
    });
    expect(readJson(join(h.root, "memory/reports/final_design.json"))).toMatchObject({
      chosen: "robust",
      approved_by: "user",
      source: "memory/reports/designs/robust.json",
    });
    await expect(runWorkflow(h.options({ request: undefined, design: "fancy" }))).resolves.toMatchObject({
      outcome: "complete",
    });
  });

  test("issue 21, case 10: every decision of a run keeps the --dir it was given (gates, the design pick, dead tasks, resume's own)", async () => {
    const h = harness(good);
    const dirArg = "../my 'proj'";
    const q = shellQuote(dirArg);
    expect(await runWorkflow(h.options({ approve: "ask", dirArg }))).toMatchObject({
      outcome: "decision",
      decision: {
        yes: `dotagent phase --dir ${q} approve REQUIREMENTS`,
        no: `dotagent run --dir ${q} --change "<what should change>"`,
      },
      gate: {
        approve: `dotagent phase --dir ${q} approve REQUIREMENTS && dotagent run --dir ${q}`,
        change: `dotagent run --dir ${q} --change "<what should change>"`,
      },
    });
    const pick = await runWorkflow(h.options({ approve: "ask", request: undefined, dirArg, ask: person() }));
    expect(pick).toMatchObject({
      decision: { yes: `dotagent run --dir ${q} --design minimal`, no: `dotagent run --dir ${q} --design robust` },
      gate: {
        approve: `dotagent run --dir ${q} --design minimal`,
        change: `dotagent run --dir ${q} --change "<what should change>"`,
      },
    });
    const changed = await runWorkflow(h.options({ request: "add logout", dirArg }));
    expect(changed).toMatchObject({
      outcome: "decision",
      decision: { yes: `dotagent init --dir ${q} --request 'add logout' --yes`, no: `dotagent resume --dir ${q}` },
    });
    const dead = harness((agent, prompt, output) =>
      agent === "executor"
        ? { task_id: /Task: (\S+)/.exec(prompt)?.[1], status: "failed", error: "no" }
        : good(agent, prompt, output),
    );
    const stuck = await runWorkflow(dead.options({ dirArg: "p" }));
    expect(stuck).toMatchObject({ decision: { yes: "dotagent task --dir p retry task-001 --extra-attempts 2" } });
  });

  test("--design that is not one of the designs is a usage error", async () => {
    const h = harness(good);
    await expect(runWorkflow(h.options({ design: "fancy" }))).rejects.toMatchObject({ code: "usage", exitCode: 2 });
  });

  test("one runner per project: a live runner's lock refuses a second with exit 4", async () => {
    const h = harness(good);
    mkdirSync(join(h.root, "memory", "runs"), { recursive: true });
    const lock = acquireLock(join(h.root, "memory", "runs"), { command: "run" });
    try {
      await expect(runWorkflow(h.options())).rejects.toMatchObject({ code: "run_locked", exitCode: 4 });
    } finally {
      lock.release();
    }
    expect(h.sessions).toHaveLength(0);
  });

  test("nothing to continue and no request: a usage error that creates nothing", async () => {
    const h = harness(good);
    await expect(runWorkflow(h.options({ request: undefined }))).rejects.toMatchObject({ code: "usage", exitCode: 2 });
    expect(existsSync(join(h.root, "memory"))).toBe(false);
  });
});

describe("issue 21, case 9: an authentication failure is not an agent failure", () => {
  const NOT_LOGGED_IN = "Not logged in · Please run /login";
  /** A stand-in that answers every session the way Claude Code does without credentials. */
  function loggedOut(h: Harness, accountInfo?: () => Promise<Record<string, unknown>>): QuerySdk<QueryMessage> {
    return {
      query({ options }) {
        const gen = (async function* () {
          h.sessions.push({ agent: "?", prompt: "", resumed: options?.resume !== undefined });
          yield { type: "system", subtype: "init", session_id: "s-x" };
          yield {
            type: "assistant",
            message: { id: "m", content: [{ type: "text", text: NOT_LOGGED_IN }] },
            parent_tool_use_id: null,
            session_id: "s-x",
            error: "authentication_failed",
            is_api_error_message: true,
          };
          yield { type: "result", subtype: "success", is_error: true, result: NOT_LOGGED_IN, session_id: "s-x" };
        })();
        return accountInfo ? Object.assign(gen, { accountInfo, close: () => {} }) : gen;
      },
    };
  }

  test("checked before anything starts: accountInfo says no key and no login → auth_failed (exit 1), no workflow, no session", async () => {
    const h = harness(good);
    const sdk = loggedOut(h, async () => ({ tokenSource: "none", apiProvider: "firstParty" }));
    const error = await runWorkflow(h.options({ sdk })).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "auth_failed", exitCode: 1 });
    expect((error as Error).message).toMatch(
      /^Claude Code is not logged in: no API key \(ANTHROPIC_API_KEY\) and no login/,
    );
    expect(existsSync(join(h.root, "memory"))).toBe(false); // nothing created
    expect(h.sessions).toHaveLength(0); // no agent ran
  });

  // An OAuth token, Bedrock, a login's subscription, no answer: the same decision, login-check.test.ts's table.
  test("with an API key the check lets the run go on", async () => {
    const info = { apiKeySource: "ANTHROPIC_API_KEY", tokenSource: "none", apiProvider: "firstParty" };
    const h = harness(good);
    const base = h.options().sdk!;
    const sdk: QuerySdk<QueryMessage> = {
      query: (p) => Object.assign(base.query(p), { accountInfo: async () => info, close: () => {} }),
    };
    expect(await runWorkflow(h.options({ sdk }))).toMatchObject({ outcome: "complete" });
  });

  test("found in a session (no accountInfo): the run stops at once with one line quoting Claude Code; REQUIREMENTS is not failed, no second session", async () => {
    const h = harness(good);
    const error = await runWorkflow(h.options({ sdk: loggedOut(h) })).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "auth_failed", exitCode: 1 });
    expect((error as Error).message).toContain(`Claude Code could not authenticate ("${NOT_LOGGED_IN}")`);
    expect((error as Error).message).toContain("nothing was marked failed");
    expect(h.sessions).toHaveLength(1);
    expect(readJson(join(h.root, "memory/state/phase.json"))).toMatchObject({
      current_phase: "REQUIREMENTS",
      phase_status: "in_progress",
    });
    // Logged in again: the same run goes on and finishes.
    expect(await runWorkflow(h.options({ request: undefined }))).toMatchObject({ outcome: "complete" });
  });

  test("found in IMPLEMENTATION: no task is failed or dead, the run stops after the batch; logged in again, every task completes", async () => {
    const h = harness(good);
    let out = false;
    const base = h.options().sdk!;
    const flaky: QuerySdk<QueryMessage> = {
      query: (p) => (out && /^Task: /m.test(p.prompt) ? loggedOut(h).query(p) : base.query(p)),
    };
    const stop = await runWorkflow(
      h.options({ sdk: flaky, approve: "ask", ask: person("minimal", () => (out = true)) }),
    ).catch((e: unknown) => e);
    expect(stop).toMatchObject({ code: "auth_failed" });
    const tasks = readJson(join(h.root, "memory/state/execution.json")).tasks as Array<{
      status: string;
      attempts: number;
      error?: string | null;
    }>;
    expect(tasks.map((t) => t.status)).not.toContain("failed");
    expect(tasks.map((t) => t.status)).not.toContain("dead");
    expect(tasks.every((t) => !t.error)).toBe(true);
    // The stopped run's process ends (here: its tasks' owner is made a pid that is gone), and the next run takes them up.
    const file = join(h.root, "memory/state/execution.json");
    const execution = readJson(file) as { tasks: Array<{ owner?: { pid: number } | null }> };
    for (const task of execution.tasks) if (task.owner) task.owner.pid = 999_999_999;
    writeFileSync(file, JSON.stringify(execution));
    // That edit stands for the process ending, not a hand edit: without dotagent's record of its last write nothing is claimed (SPEC §15).
    rmSync(join(h.root, "memory/state/.last-write.json"));
    expect(await runWorkflow(h.options({ request: undefined }))).toMatchObject({ outcome: "complete" });
    const after = readJson(file).tasks as Array<{ status: string; attempts: number }>;
    expect(after.every((t) => t.status === "complete" && t.attempts <= 1)).toBe(true);
  });
});

describe("issue 21, case 9: --design NAME needs designs/NAME.json", () => {
  /** A roundtable that also offers "fancy", a design nobody wrote. */
  const offersFancy: Writer = (agent, prompt, output) =>
    agent === "roundtable"
      ? { recommendation: "minimal", options_for_user: [{ name: "minimal" }, { name: "robust" }, { name: "fancy" }] }
      : good(agent, prompt, output);

  test("a design the roundtable offers but whose file does not exist: usage listing the designs there are; no final_design.json", async () => {
    const h = harness(offersFancy);
    const error = await runWorkflow(h.options({ design: "fancy" })).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "usage", exitCode: 2, details: { designs: ["minimal", "robust"] } });
    expect((error as Error).message).toBe(
      "--design fancy: there is no valid memory/reports/designs/fancy.json; the designs to choose from: minimal, robust",
    );
    expect(existsSync(join(h.root, "memory/reports/final_design.json"))).toBe(false);
    expect(readJson(join(h.root, "memory/state/phase.json"))).toMatchObject({ current_phase: "ARCHITECTURE" });
  });

  test("variants: a design file that is not valid JSON counts as missing; a name nobody offered or wrote is refused the same way", async () => {
    const h = harness(offersFancy);
    await expect(runWorkflow(h.options({ design: "nonesuch" }))).rejects.toMatchObject({
      code: "usage",
      message: expect.stringContaining("--design nonesuch: there is no valid memory/reports/designs/nonesuch.json"),
    });
    writeFileSync(join(h.root, "memory/reports/designs/fancy.json"), "{not json");
    await expect(runWorkflow(h.options({ request: undefined, design: "fancy" }))).rejects.toMatchObject({
      code: "usage",
      message: expect.stringContaining("no valid memory/reports/designs/fancy.json"),
    });
    expect(existsSync(join(h.root, "memory/reports/final_design.json"))).toBe(false);
    // A design that is there is taken, whole.
    expect(await runWorkflow(h.options({ request: undefined, design: "robust" }))).toMatchObject({
      outcome: "complete",
    });
    expect(readJson(join(h.root, "memory/reports/final_design.json"))).toMatchObject({
      chosen: "robust",
      design: { name: "robust" },
    });
  });
});

describe("issue 21, case 4: the Claude Code process a killed run left behind", () => {
  test("while it lives, the next run exits 4 (agent_running) naming it, and starts no agent on that job", async () => {
    const h = harness(good);
    await runWorkflow(h.options({ approve: "ask" })); // a workflow, stopped at a gate
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    try {
      const store = checkpointStore(join(h.root, "memory/runs"), "wf-add-login");
      await store.save("architect.minimal.s1", {
        session_id: "s-1",
        iteration: 0,
        status: "running",
        process: {
          pid: child.pid,
          pid_start: processStartTime(child.pid!),
          host: currentHost(),
          started_at: "2026-11-20T10:00:00.000Z",
        },
      });
      const before = h.sessions.length;
      const error = await runWorkflow(h.options({ request: undefined })).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: "agent_running",
        exitCode: 4,
        details: { agents: [{ key: "architect.minimal.s1", pid: child.pid }] },
      });
      expect((error as Error).message).toContain(`kill ${child.pid}`);
      expect(h.sessions).toHaveLength(before);
    } finally {
      child.kill("SIGKILL");
      await new Promise((resolve) => child.once("exit", resolve));
    }
    // Once it is gone the run continues (that session resumes).
    expect(await runWorkflow(h.options({ request: undefined }))).toMatchObject({ outcome: "complete" });
  });
});

describe("issue 21, case 9: variants — a refused key, an unreachable API", () => {
  test("a key the API refuses (Claude Code retries the 401 for minutes): the session stops at the second retry, auth_failed, nothing failed", async () => {
    const h = harness(good);
    const sdk: QuerySdk<QueryMessage> = {
      query() {
        return (async function* () {
          h.sessions.push({ agent: "pm", prompt: "", resumed: false });
          yield { type: "system", subtype: "init", session_id: "s-k" };
          for (let attempt = 1; attempt <= 10; attempt++)
            yield {
              type: "system",
              subtype: "api_retry",
              attempt,
              max_retries: 10,
              error_status: 401,
              error: "authentication_failed",
              session_id: "s-k",
            };
          await new Promise(() => {}); // the rest of the retries: never reached
        })();
      },
    };
    const error = await runWorkflow(h.options({ sdk })).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "auth_failed", exitCode: 1 });
    expect((error as Error).message).toContain("the API refused the credentials (HTTP 401)");
    expect(h.sessions).toHaveLength(1);
    expect(readJson(join(h.root, "memory/state/phase.json"))).toMatchObject({ phase_status: "in_progress" });
  });

  test("the API unreachable after Claude Code's retries (server_error): api_unavailable, the phase not failed", async () => {
    const h = harness(good);
    const sdk: QuerySdk<QueryMessage> = {
      query() {
        return (async function* () {
          h.sessions.push({ agent: "pm", prompt: "", resumed: false });
          yield { type: "system", subtype: "init", session_id: "s-c" };
          yield {
            type: "assistant",
            message: { id: "m", content: [] },
            parent_tool_use_id: null,
            session_id: "s-c",
            error: "server_error",
            api_error: "connection_failed",
          };
          yield {
            type: "result",
            subtype: "success",
            is_error: true,
            result: "API Error: Connection refused (ECONNREFUSED)",
            session_id: "s-c",
          };
        })();
      },
    };
    const error = await runWorkflow(h.options({ sdk })).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "api_unavailable", exitCode: 1 });
    expect((error as Error).message).toContain("Connection refused");
    expect(h.sessions).toHaveLength(1);
    expect(readJson(join(h.root, "memory/state/phase.json"))).toMatchObject({ phase_status: "in_progress" });
  });
});

describe("issue 21, case 2 (dotagent run): a workflow id reused by a new run of the same request", () => {
  test("after a finished run, a new workflow for the same request (same id) lists and restores none of the old checkpoints", async () => {
    const h = harness(good);
    expect(await runWorkflow(h.options())).toMatchObject({ outcome: "complete", workflow_id: "wf-add-login" });
    const wf = openWorkflow(h.root);
    const old = (await wf.history()).checkpoints;
    const approved = old.find((c) => c.what === "ARCHITECTURE approved")!.rev;
    expect(await wf.init("add login", { decide: () => true })).toMatchObject({
      created: true,
      workflow_id: "wf-add-login",
    });
    expect((await wf.history()).checkpoints.map((c) => c.what)).toEqual(["workflow started"]);
    await expect(wf.rollback(String(approved), { yes: true })).rejects.toMatchObject({ code: "no_checkpoint" });
    expect((await wf.status()).completed_phases).toEqual([]);
    // The new run goes through every phase again, asking each agent afresh.
    const before = h.sessions.length;
    expect(await runWorkflow(h.options({ request: undefined }))).toMatchObject({ outcome: "complete" });
    expect(h.sessions.length - before).toBe(8);
  });
});
