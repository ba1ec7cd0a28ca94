// The library API (openWorkflow) against the built CLI: the same script of steps run through both
// on two projects gives the same result objects (the CLI's --json) and the same events; refusals
// are DotagentErrors with the CLI's code, message and exit code; a program and the CLI take turns
// on one project; a lock held by a live process is exit 4 after the CLI's wait; decisions come
// back as data, never as a prompt; nothing is printed.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { DotagentError, EXIT, openWorkflow, type Workflow } from "../src/index.js";

/** The CLI's JSON as the library returns it: a decision's `answers` (how the person replies, for a model to relay; SPEC §10) is the CLI's only. */
function libraryShape(json: unknown): Record<string, unknown> {
  const { decision, ...rest } = json as { decision?: Record<string, unknown> | null };
  if (decision === undefined || decision === null) return json as Record<string, unknown>;
  const { answers: _answers, ...plain } = decision;
  return { ...rest, decision: plain };
}
import { dotagent, exampleProject, readJson, removeTemps, tempProject, treeBytes, writeJson } from "./support/cli.js";

afterEach(() => {
  removeTemps();
  vi.restoreAllMocks();
});

// The CLI helper waits 300 ms for a held lock; the library reads the same variable.
const savedWait = process.env.DOTAGENT_LOCK_WAIT_MS;
beforeAll(() => {
  process.env.DOTAGENT_LOCK_WAIT_MS = "300";
});
afterAll(() => {
  if (savedWait === undefined) delete process.env.DOTAGENT_LOCK_WAIT_MS;
  else process.env.DOTAGENT_LOCK_WAIT_MS = savedWait;
});

/** One step of a workflow: the CLI arguments and the same call through the library. */
type Step = { cli: string[]; api: (w: Workflow) => Promise<unknown> } | { write: (dir: string) => void };

const report = (rel: string, value: unknown) => ({ write: (dir: string) => writeJson(dir, rel, value) });

const WHOLE_WORKFLOW: Step[] = [
  { cli: ["init", "--request", "add login"], api: (w) => w.init("add login") },
  report("memory/reports/demand.json", { stories: ["sign in"] }),
  { cli: ["phase", "approve", "REQUIREMENTS"], api: (w) => w.phase.approve("REQUIREMENTS") },
  { cli: ["phase", "complete", "REQUIREMENTS"], api: (w) => w.phase.complete("REQUIREMENTS") },
  {
    cli: ["phase", "start", "ARCHITECTURE", "--designs", "a,b"],
    api: (w) => w.phase.start("ARCHITECTURE", { designs: ["a", "b"] }),
  },
  report("memory/reports/designs/a.json", { name: "a" }),
  report("memory/reports/designs/b.json", { name: "b" }),
  report("memory/reports/roundtable.json", { recommend: "a" }),
  report("memory/reports/final_design.json", {
    chosen: "a",
    tasks: [
      { id: "t1", title: "form" },
      { id: "t2", title: "api", depends_on: ["t1"] },
    ],
  }),
  { cli: ["phase", "approve", "ARCHITECTURE"], api: (w) => w.phase.approve("ARCHITECTURE") },
  { cli: ["phase", "complete", "ARCHITECTURE"], api: (w) => w.phase.complete("ARCHITECTURE") },
  {
    cli: ["task", "import", "memory/reports/final_design.json"],
    api: (w) => w.tasks.import(JSON.parse(readFileSync(join(w.root, "memory/reports/final_design.json"), "utf8"))),
  },
  {
    cli: ["task", "add", "t3", "--title", "docs", "--depends-on", "t1"],
    api: (w) => w.tasks.add("t3", { title: "docs", dependsOn: ["t1"] }),
  },
  { cli: ["task", "next"], api: (w) => w.tasks.next() },
  { cli: ["task", "start", "t1", "--owner", String(process.pid)], api: (w) => w.tasks.start("t1") },
  { cli: ["task", "fail", "t1", "--error", "tests fail"], api: (w) => w.tasks.fail("t1", { error: "tests fail" }) },
  { cli: ["task", "retry", "t1", "--extra-attempts", "1"], api: (w) => w.tasks.retry("t1", { extraAttempts: 1 }) },
  { cli: ["task", "start", "t1", "--owner", String(process.pid)], api: (w) => w.tasks.start("t1") },
  report("memory/reports/tasks/t1.json", { task_id: "t1", status: "complete" }),
  { cli: ["task", "complete", "t1"], api: (w) => w.tasks.complete("t1") },
  {
    cli: ["task", "start", "t2", "--owner", String(process.pid)],
    api: (w) => w.tasks.start("t2", { owner: process.pid }),
  },
  { cli: ["task", "start", "t3", "--owner", String(process.pid)], api: (w) => w.tasks.start("t3") },
  report("memory/reports/tasks/t2.json", { task_id: "t2", status: "complete" }),
  report("memory/reports/tasks/t3-done.json", { task_id: "t3", status: "complete" }),
  { cli: ["task", "complete", "t2"], api: (w) => w.tasks.complete("t2") },
  {
    cli: ["task", "complete", "t3", "--output", "memory/reports/tasks/t3-done.json"],
    api: (w) => w.tasks.complete("t3", { output: "memory/reports/tasks/t3-done.json" }),
  },
  { cli: ["phase", "complete", "IMPLEMENTATION"], api: (w) => w.phase.complete("IMPLEMENTATION") },
  report("memory/reports/verification.json", { passed: true }),
  { cli: ["phase", "complete", "VERIFICATION"], api: (w) => w.phase.complete("VERIFICATION") },
  { write: (dir) => writeFileSync(join(dir, "memory/reports/reflection.md"), "# went well\n") },
  { cli: ["phase", "complete", "REFLECTION"], api: (w) => w.phase.complete("REFLECTION") },
  { cli: ["validate"], api: (w) => w.validate() },
];

/** A value without what differs between two runs a moment apart: every time becomes "<time>". */
function timeless(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value ?? null, (_key, v: unknown) =>
      typeof v === "string" && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(v) ? "<time>" : v,
    ),
  );
}

function events(dir: string): unknown[] {
  return readFileSync(join(dir, "memory/state/events.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => timeless(JSON.parse(line)));
}

describe("openWorkflow does what the CLI does", () => {
  it("walks a whole workflow with the same results and the same events as the CLI", async () => {
    const viaCli = tempProject();
    const viaApi = tempProject();
    const warnings: string[] = [];
    const workflow = openWorkflow(viaApi, { onWarning: (m) => warnings.push(m) });
    expect(workflow.root).toBe(viaApi);
    const stderr = vi.spyOn(process.stderr, "write");
    const stdout = vi.spyOn(process.stdout, "write");
    for (const step of WHOLE_WORKFLOW) {
      if ("write" in step) {
        step.write(viaCli);
        step.write(viaApi);
        continue;
      }
      const cli = dotagent(viaCli, [...step.cli, "--json"]);
      expect(cli.code, `${step.cli.join(" ")}: ${cli.stdout}${cli.stderr}`).toBe(0);
      const api = await step.api(workflow);
      expect(timeless(api), step.cli.join(" ")).toEqual(timeless(cli.json));
    }
    // A library never prints.
    expect(stderr).not.toHaveBeenCalled();
    expect(stdout).not.toHaveBeenCalled();
    // The one warning of a round whose tasks share the checkout (a temp folder is no git repository: SPEC §19).
    expect(warnings).toEqual([
      expect.stringMatching(/share one checkout \(no worktrees\): the project is not in a git repository/),
    ]);
    expect(events(viaApi)).toEqual(events(viaCli));
    expect(events(viaApi).map((e) => (e as { type: string }).type)).toEqual(
      expect.arrayContaining([
        "workflow_started",
        "phase_approved",
        "phase_completed",
        "designs_requested",
        "plan_recorded",
        "task_started",
        "task_failed",
        "task_retried",
        "task_completed",
      ]),
    );
    const status = await workflow.status();
    expect(status).toMatchObject({
      situation: "complete",
      next: { action: "workflow_complete" },
      tasks: { complete: 3 },
      ops: [],
    });
    expect((await workflow.resume()).applied).toBe(true);
    const history = await workflow.history();
    expect(history.workflow_id).toBe("wf-add-login");
    expect(history.checkpoints.map((c) => c.what)).toContain("REFLECTION completed");
    expect(history).toEqual(dotagent(viaApi, ["history", "--json"]).json);
    const rev = history.checkpoints[0]!.rev;
    expect(await workflow.checkpoint(rev)).toEqual(dotagent(viaApi, ["history", "show", String(rev), "--json"]).json);
  });

  it("records this process as the owner of the tasks a program starts", async () => {
    const dir = tempProject();
    const w = openWorkflow(dir);
    await w.init("owned", { workflowId: "wf-owned" });
    writeJson(dir, "memory/reports/demand.json", { stories: ["x"] });
    await w.phase.approve("REQUIREMENTS");
    await w.phase.complete("REQUIREMENTS");
    writeJson(dir, "memory/reports/final_design.json", { chosen: "a" });
    await w.phase.approve("ARCHITECTURE");
    await w.phase.complete("ARCHITECTURE");
    await w.tasks.import({ tasks: [{ id: "a" }, { id: "b" }] });
    await w.tasks.start("a");
    await w.tasks.start("b", { owner: 4242 });
    const tasks = readJson(dir, "memory/state/execution.json").tasks as Array<{ id: string; owner: { pid: number } }>;
    expect(tasks.map((t) => [t.id, t.owner.pid])).toEqual([
      ["a", process.pid],
      ["b", 4242],
    ]);
  });
});

describe("refusals are the CLI's errors", () => {
  async function refusal(call: Promise<unknown>): Promise<{ code: string; message: string; exit_code: number }> {
    const error = await call.then(
      () => {
        throw new Error("expected a refusal");
      },
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DotagentError);
    const { code, message, exitCode } = error as DotagentError;
    return { code, message, exit_code: exitCode };
  }

  it("gives the same code, message and exit code as the CLI for each refusal", async () => {
    const dir = tempProject();
    const w = openWorkflow(dir);
    const cases: Array<[string[], (w: Workflow) => Promise<unknown>]> = [
      [["phase", "approve", "REQUIREMENTS"], (x) => x.phase.approve("REQUIREMENTS")], // no workflow
      [["task", "start", "t1"], (x) => x.tasks.start("t1")],
    ];
    for (const [args, call] of cases)
      expect(await refusal(call(w)), args.join(" ")).toEqual(dotagent(dir, [...args, "--json"]).json.error);
    await w.init("add login");
    const more: Array<[string[], (w: Workflow) => Promise<unknown>]> = [
      [["phase", "complete", "REQUIREMENTS"], (x) => x.phase.complete("REQUIREMENTS")], // demand.json missing
      [["phase", "start", "DEPLOYMENT"], (x) => x.phase.start("DEPLOYMENT" as never)], // usage, exit 2
      [
        ["phase", "complete", "REQUIREMENTS", "--output", "../outside.json"],
        (x) => x.phase.complete("REQUIREMENTS", { output: "../outside.json" }),
      ],
      [["phase", "start", "REQUIREMENTS", "--designs", ","], (x) => x.phase.start("REQUIREMENTS", { designs: [] })],
      [["task", "start", "nope"], (x) => x.tasks.start("nope")],
      [["task", "add", "../bad"], (x) => x.tasks.add("../bad")],
      [["task", "retry", "t1", "--extra-attempts=-1"], (x) => x.tasks.retry("t1", { extraAttempts: -1 })],
      [["resume", "--max-parallel", "0"], (x) => x.resume({ maxParallel: 0 })],
      [["status", "--stale-after", "soon"], (x) => x.status({ staleAfter: "soon" })],
      [["rollback", "--to", "NOWHERE", "--yes"], (x) => x.rollback("NOWHERE", { yes: true })],
      [["once", "wf.x", "--mark-done", "--redo"], (x) => x.once("wf.x", [], { markDone: true, redo: true })],
    ];
    for (const [args, call] of more) {
      expect(await refusal(call(w)), args.join(" ")).toEqual(dotagent(dir, [...args, "--json"]).json.error);
    }
    // The same schema as `task import`: the message names "plan" where the CLI names its input.
    const bad = [{ id: "ok" }, { id: "../no" }];
    const plan = await refusal(w.tasks.import(bad));
    const cli = dotagent(dir, ["task", "import", "-", "--json"], { input: JSON.stringify(bad) }).json.error;
    expect(plan).toEqual({ ...cli, message: cli.message.replace(/^stdin: /, "plan: ") });
    expect(plan).toMatchObject({ code: "import_invalid", exit_code: EXIT.usage });
  });
});

describe("hostile input to the library", () => {
  it("corrupt phase.json: status and validate report it, a change rejects exit 3 like the CLI, nothing is written", async () => {
    const dir = tempProject();
    const w = openWorkflow(dir);
    await w.init("corrupt");
    writeFileSync(join(dir, "memory/state/phase.json"), '{"workflow_id": "wf-corrupt", "current_ph');
    const before = treeBytes(dir);
    // The first choice: back to the checkpoint `init` took (§5), before a fresh start.
    expect(await w.status()).toMatchObject({
      situation: "corrupt",
      next: { action: "confirm_rollback", rev: 1 },
      decision: { yes: `dotagent rollback --dir ${dir} --to 1 --yes` },
    });
    expect(await w.validate()).toMatchObject({
      valid: false,
      errors: [expect.objectContaining({ file: "memory/state/phase.json" })],
    });
    const error = (await w.phase.approve("REQUIREMENTS").catch((e: unknown) => e)) as DotagentError;
    const cli = dotagent(dir, ["phase", "approve", "REQUIREMENTS", "--json"]).json.error;
    expect({ code: error.code, message: error.message, exit_code: error.exitCode, ...error.details }).toEqual(cli);
    expect(error.exitCode).toBe(EXIT.invalid);
    expect(await w.resume()).toMatchObject({ applied: false, decision: { default: false } });
    expect(treeBytes(dir)).toEqual(before);
  });

  it("values a typed caller cannot pass (plain JavaScript) are usage errors, not crashes", async () => {
    const dir = tempProject();
    const w = openWorkflow(dir);
    await w.init("untyped");
    const untyped = w as unknown as Record<string, any>;
    for (const call of [
      () => untyped.phase.approve(42),
      () => untyped.tasks.import(null),
      () => untyped.tasks.import({ tasks: "t1" }),
      () => untyped.tasks.add(""),
      () => untyped.tasks.start("t1", { owner: 1 }),
      () => untyped.tasks.retry("t1", { extraAttempts: 1.5 }),
      () => untyped.resume({ maxParallel: "3" }),
      () => untyped.checkpoint(0),
      () => untyped.tasks.add("t1", { title: 5 }),
      () => untyped.tasks.add("t1", { dependsOn: "t0" }),
      () => untyped.phase.start("ARCHITECTURE", { designs: "a,b" }),
      () => untyped.init({ request: "x" }),
      () => untyped.status({ staleAfter: 7 }),
      () => untyped.rollback(undefined),
      () => untyped.once("wf.x", "git push"),
    ]) {
      const error = await Promise.resolve()
        .then(call)
        .catch((e: unknown) => e);
      expect(error, String(call)).toBeInstanceOf(DotagentError);
      expect(["usage", "import_invalid"]).toContain((error as DotagentError).code);
      expect((error as DotagentError).exitCode).toBe(EXIT.usage);
    }
  });
});

describe("resume({ start: true })", () => {
  it("with a request and no workflow, starts one and answers with its plan, as `resume --start`", async () => {
    const dir = tempProject();
    const w = openWorkflow(dir);
    expect(await w.resume({ start: true, request: "" })).toMatchObject({ situation: "none" });
    expect(await w.resume({ start: true, request: "add login" })).toMatchObject({
      situation: "started",
      workflow_id: "wf-add-login",
      next: { action: "spawn_agent", agent: "pm" },
    });
    expect(await w.resume({ start: true, request: "add login" })).toMatchObject({
      situation: "interrupted",
      next: { action: "spawn_agent", agent: "pm" },
    });
  });
});

describe("workflow: NAME (SPEC §20)", () => {
  it("init and resume({ start }) pin a definition as `--workflow NAME` does; an invalid one rejects like the CLI, nothing written", async () => {
    const viaApi = tempProject();
    const viaCli = tempProject();
    const started = await openWorkflow(viaApi).init("login fails with +", { workflow: "fix" });
    expect(started).toEqual(
      dotagent(viaCli, ["init", "--request", "login fails with +", "--workflow", "fix", "--json"]).json,
    );
    expect(started).toMatchObject({
      workflow: "fix",
      phase: "REPRODUCE",
      next: { action: "spawn_agent", agent: "reproducer", output: "memory/reports/reproduction.json" },
    });
    expect(readJson(viaApi, "memory/state/phase.json").workflow).toEqual(
      readJson(viaCli, "memory/state/phase.json").workflow,
    );
    const fresh = tempProject();
    expect(await openWorkflow(fresh).resume({ start: true, request: "login fails", workflow: "fix" })).toMatchObject({
      situation: "started",
      phase: "REPRODUCE",
    });
    const broken = tempProject();
    writeJson(broken, ".dotagent/workflows/broken.json", { extends: "develop", remove: ["NOPE"] });
    const error = await openWorkflow(broken)
      .init("x", { workflow: "broken" })
      .catch((e: unknown) => e);
    const cli = dotagent(broken, ["init", "--request", "x", "--workflow", "broken", "--json"]);
    expect(error).toBeInstanceOf(DotagentError);
    expect(cli.code).toBe(EXIT.invalid);
    expect(error).toMatchObject({ code: "workflow_invalid", exitCode: EXIT.invalid, message: cli.json.error.message });
    await expect(openWorkflow(broken).init("x", { workflow: 7 as unknown as string })).rejects.toMatchObject({
      code: "usage",
      exitCode: 2,
    });
    expect(readJson(broken, ".dotagent/workflows/broken.json")).toEqual({ extends: "develop", remove: ["NOPE"] });
    expect(() => readJson(broken, "memory/state/phase.json")).toThrow();
  });
});

describe("a program and the CLI on one project", () => {
  it("take turns: each sees what the other wrote", async () => {
    const dir = tempProject();
    const w = openWorkflow(dir);
    expect(dotagent(dir, ["init", "--request", "mixed"]).code).toBe(0);
    writeJson(dir, "memory/reports/demand.json", { stories: ["x"] });
    await w.phase.approve("REQUIREMENTS");
    // The program's approval completed REQUIREMENTS (its report is there): the CLI's complete is a no-op.
    expect(dotagent(dir, ["phase", "complete", "REQUIREMENTS", "--json"]).json).toMatchObject({
      changed: false,
      phase: "ARCHITECTURE",
    });
    expect(await w.phase.start("ARCHITECTURE")).toMatchObject({
      ok: true,
      changed: true,
      phase: "ARCHITECTURE",
      phase_status: "in_progress",
      next: { action: "spawn_agent", agent: "architect" },
    });
    writeJson(dir, "memory/reports/final_design.json", { chosen: "a" });
    expect(dotagent(dir, ["phase", "approve", "ARCHITECTURE"]).code).toBe(0);
    await w.phase.complete("ARCHITECTURE");
    await w.tasks.import([{ id: "t1" }, { id: "t2", depends_on: ["t1"] }]);
    expect(dotagent(dir, ["task", "start", "t1", "--owner", String(process.pid)]).code).toBe(0);
    writeJson(dir, "memory/reports/tasks/t1.json", { task_id: "t1", status: "complete" });
    await w.tasks.complete("t1");
    expect(dotagent(dir, ["task", "next", "--json"]).json.tasks.map((t: { id: string }) => t.id)).toEqual(["t2"]);
    expect((await w.status()).tasks).toMatchObject({ complete: 1, pending: 1 });
    const status = dotagent(dir, ["status", "--json"]).json;
    const fromApi = await w.status();
    expect({ ...fromApi, last_activity_ago: null }).toEqual({ ...status, last_activity_ago: null });
    expect((await w.validate()).valid).toBe(true);
  });

  it("a lock held by a live process: exit 4 after the same wait, nothing written", async () => {
    const dir = tempProject();
    const w = openWorkflow(dir);
    await w.init("locked");
    const holder: ChildProcess = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"], { stdio: "ignore" });
    await new Promise((resolve) => holder.once("spawn", resolve));
    try {
      writeFileSync(
        join(dir, "memory/state/.lock"),
        JSON.stringify({
          pid: holder.pid,
          hostname: hostname(),
          acquired_at: new Date().toISOString(),
          command: "task add",
          token: "feedface00000003",
        }),
      );
      const before = treeBytes(join(dir, "memory/state"));
      const started = Date.now();
      const error = await w.tasks.add("t1").catch((e: unknown) => e);
      const waited = Date.now() - started;
      expect(error).toBeInstanceOf(DotagentError);
      const cli = dotagent(dir, ["task", "add", "t1", "--json"]).json.error;
      expect(cli.exit_code).toBe(EXIT.locked);
      expect({ code: (error as DotagentError).code, exit_code: (error as DotagentError).exitCode }).toEqual({
        code: cli.code,
        exit_code: EXIT.locked,
      });
      expect((error as DotagentError).message).toContain(`pid ${holder.pid}`);
      expect(waited).toBeGreaterThanOrEqual(250);
      expect(treeBytes(join(dir, "memory/state"))).toEqual(before);
    } finally {
      holder.kill("SIGKILL");
    }
  });

  it("a stale lock is taken over with the warning going to onWarning", async () => {
    const dir = tempProject();
    await openWorkflow(dir).init("stale lock");
    writeFileSync(join(dir, "memory/state/.lock"), "\u0000 not a lock");
    const warnings: string[] = [];
    const stderr = vi.spyOn(process.stderr, "write");
    await openWorkflow(dir, { onWarning: (m) => warnings.push(m) }).tasks.add("t1");
    expect(warnings.join("\n")).toMatch(/stale|took over|taken over/i);
    expect(stderr).not.toHaveBeenCalled();
  });
});

describe("decisions are data, never a prompt", () => {
  it("stale state: resume returns the plan with its decision and writes nothing; decide answers it", async () => {
    const dir = exampleProject("interrupted-requirements"); // last activity 2026-11-20
    const before = treeBytes(dir);
    const w = openWorkflow(dir);
    const asked = await w.resume({ staleAfter: "1h" });
    expect(asked).toMatchObject({ applied: false, decision: { default: false } });
    expect(treeBytes(dir)).toEqual(before);
    // The CLI without a terminal says the same (exit 5); openWorkflow(dir) is `--dir dir`, which its decisions repeat.
    const cli = dotagent(dir, ["resume", "--stale-after", "1h", "--json", "--dir", dir]);
    expect(cli.code).toBe(EXIT.decide);
    expect({ ...asked, last_activity_ago: null }).toEqual({ ...libraryShape(cli.json), last_activity_ago: null });
    // Answered "no, continue it": the stale question is not asked again and the plan is carried out.
    const seen: string[] = [];
    const continued = await w.resume({ staleAfter: "1h", decide: (d) => (seen.push(d.question), false) });
    expect(seen).toEqual([asked.decision?.question]);
    expect(continued).toMatchObject({ applied: true, decision: null, workflow_id: "wf-login" });
  });

  it("init over a workflow and rollback ask; without an answer nothing changes", async () => {
    const dir = tempProject();
    const w = openWorkflow(dir);
    await w.init("first");
    writeJson(dir, "memory/reports/demand.json", { stories: ["x"] });
    await w.phase.approve("REQUIREMENTS");
    await w.phase.complete("REQUIREMENTS");
    const before = treeBytes(dir);
    expect(await w.init("second")).toMatchObject({ created: false, decision: { no: `dotagent resume --dir ${dir}` } });
    const rollback = await w.rollback("REQUIREMENTS");
    expect(rollback).toMatchObject({ rolled_back: false, archive: null, decision: { default: false } });
    expect(rollback).toEqual(
      libraryShape(dotagent(dir, ["rollback", "--to", "REQUIREMENTS", "--json", "--dir", dir]).json),
    );
    expect(treeBytes(dir)).toEqual(before);
    await expect(w.init("second", { decide: () => false })).rejects.toMatchObject({
      code: "init_declined",
      exitCode: EXIT.refused,
    });
    const done = await w.rollback("REQUIREMENTS", { decide: () => true });
    expect(done).toMatchObject({ rolled_back: true, to: { phase: "REQUIREMENTS" }, decision: null });
    expect((await w.status()).phase).toBe("REQUIREMENTS");
    expect(await w.init("second", { decide: () => true })).toMatchObject({ created: true, workflow_id: "wf-second" });
  });

  it("once runs a side effect once and replays it, like the CLI", async () => {
    const dir = tempProject();
    const w = openWorkflow(dir);
    await w.init("side effects", { workflowId: "wf-se" });
    const command = [process.execPath, "-e", "process.stdout.write('hello')"];
    const ran = await w.once("wf-se.hello", command);
    expect(ran).toMatchObject({ outcome: "ran", ran: true, exit_code: 0, stdout: "hello", runs: 1 });
    const replay = dotagent(dir, ["once", "wf-se.hello", "--json", "--", ...command]).json;
    expect(replay).toMatchObject({ outcome: "replayed", ran: false, stdout: "hello", runs: 1 });
    expect(await w.once("wf-se.hello", command)).toEqual(replay);
  });
});
