// kill -9 of `dotagent run` inside each kind of step of a workflow definition (SPEC §17, §20):
// an agent step (the pm at work), a choose step (one design written, the other at work), a tasks
// step (task-001 done, task-002 at work), a check step's command and a shell step's command
// (running). After each kill `dotagent run` again: no step that was complete runs again (the
// stand-in SDK logs every session it is asked for; the commands log every run), a cut-off agent
// continues its own session, a cut-off command runs once more, and the workflow completes.
// Run as a user would: the built CLI with a stand-in Agent SDK package in the project.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO, readJson, removeTemps, standInSdkProject } from "./support/cli.js";
import { startApiStandIn, type ApiStandIn } from "./support/api-stand-in.js";

afterEach(removeTemps);
let api: ApiStandIn;
beforeAll(async () => {
  api = await startApiStandIn();
});
afterAll(() => api.stop());

/** Each session is logged ({output, resume}); the one whose output the project's `hang-on` names works until killed. */
const FAKE_SDK = `
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
const DESIGN_TASKS = [{ id: "task-001", title: "model", depends_on: [] }, { id: "task-002", title: "route", depends_on: ["task-001"] }];
function reportFor(output, prompt) {
  if (output.endsWith("/demand.json")) return { summary: "sign in", acceptance_criteria: [{ id: "AC-1", text: "works" }] };
  if (output.includes("/designs/")) return { name: /^Design name: (.*)$/m.exec(prompt)[1], tasks: DESIGN_TASKS };
  if (output.endsWith("/roundtable.json")) return { recommendation: "minimal", options_for_user: [{ name: "minimal", one_line: "small" }, { name: "robust", one_line: "big" }] };
  if (output.includes("/tasks/")) return { task_id: /^Task: (.*)$/m.exec(prompt)[1], status: "complete" };
  if (output.endsWith("/verification.json")) return { passed: true, failures: [] };
  return { summary: "shipped" };
}
export function query({ prompt, options }) {
  return (async function* () {
    const output = /^Output file: (\\S+)$/m.exec(prompt)[1];
    appendFileSync(join(options.cwd, "sdk-calls.log"), JSON.stringify({ output, resume: options.resume ?? null }) + "\\n");
    const session_id = options.resume ?? "fake-" + process.pid + "-" + Math.random().toString(36).slice(2);
    yield { type: "system", subtype: "init", session_id };
    const hang = join(options.cwd, "hang-on");
    // Works until killed (a timer keeps the process alive, as Claude Code's child does for the real SDK).
    if (existsSync(hang) && readFileSync(hang, "utf8").trim() === output) await new Promise(() => setInterval(() => {}, 1000));
    mkdirSync(dirname(join(options.cwd, output)), { recursive: true });
    writeFileSync(join(options.cwd, output), JSON.stringify(reportFor(output, prompt)));
    yield { type: "result", subtype: "success", session_id, result: "wrote " + output };
  })();
}
`;

/** develop, then the project's tests as a check command and a shell step at the end; each command waits while its hold file is there. */
const GUARDED = {
  description: "develop with a check command and a shell step",
  extends: "develop",
  insert: [
    {
      after: "VERIFICATION",
      steps: [
        {
          id: "TESTS",
          kind: "check",
          run: "echo run >> tests.log; while [ -f hold-tests ]; do sleep 0.05; done",
          rework: "IMPLEMENTATION",
          max_rounds: 1,
        },
      ],
    },
    {
      after: "REFLECTION",
      steps: [{ id: "SHIP", kind: "shell", run: "echo run >> ship.log; while [ -f hold-ship ]; do sleep 0.05; done" }],
    },
  ],
};

function project(): { root: string; cli: string } {
  const { root, cli } = standInSdkProject(FAKE_SDK);
  mkdirSync(join(root, ".dotagent/workflows"), { recursive: true });
  writeFileSync(join(root, ".dotagent/workflows/guarded.json"), JSON.stringify(GUARDED));
  return { root, cli };
}

const logLines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : []);
const calls = (root: string) =>
  logLines(join(root, "sdk-calls.log")).map((l) => JSON.parse(l) as { output: string; resume: string | null });

/** The session of a job at work: recorded with its SDK session id, not finished. */
function atWork(root: string, key: string): boolean {
  const file = join(root, "memory/runs/wf-add-login", `${key}.checkpoint.json`);
  if (!existsSync(file)) return false;
  try {
    const data = (JSON.parse(readFileSync(file, "utf8")) as { data: { session_id?: string | null; status?: string } })
      .data;
    return typeof data.session_id === "string" && data.status !== "complete";
  } catch {
    return false; // being written
  }
}

async function until(what: string, ok: () => boolean, runner: ChildProcess, output: () => string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (ok()) return;
    if (runner.exitCode !== null)
      throw new Error(`the run ended (exit ${runner.exitCode}) before ${what}: ${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}: ${output()}`);
}

describe("kill -9 of dotagent run inside each step kind of a definition, then dotagent run again", () => {
  it("agent, choose, tasks, a check command, a shell command: nothing complete runs again; the workflow completes", async () => {
    const { root, cli } = project();
    const env = { ...process.env, NO_COLOR: "1", ANTHROPIC_BASE_URL: api.url };
    const args = [cli, "run", "--agents", join(REPO, "agents"), "--approve", "auto", "--json"];
    let runs = 0;
    /** Starts a run, waits until `ready`, then kill -9. */
    const killInside = async (what: string, ready: () => boolean, first = false) => {
      runs++;
      const runner = spawn(process.execPath, first ? [...args, "--workflow", "guarded", "add login"] : args, {
        cwd: root,
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let said = "";
      runner.stdout!.on("data", (d: Buffer) => (said += d.toString()));
      runner.stderr!.on("data", (d: Buffer) => (said += d.toString()));
      const exited = new Promise((resolve) => runner.once("exit", resolve));
      await until(what, ready, runner, () => said);
      runner.kill("SIGKILL");
      await exited;
      expect(runner.signalCode, `${what}: ${said}`).toBe("SIGKILL");
    };

    // 1. An agent step: the pm at work.
    writeFileSync(join(root, "hang-on"), "memory/reports/demand.json");
    await killInside("the pm at work", () => atWork(root, "pm.REQUIREMENTS.s1"), true);
    // 2. A choose step: minimal written, robust at work.
    writeFileSync(join(root, "hang-on"), "memory/reports/designs/robust.json");
    await killInside(
      "robust at work after minimal",
      () => existsSync(join(root, "memory/reports/designs/minimal.json")) && atWork(root, "architect.robust.s1"),
    );
    // 3. A tasks step: task-001 complete, task-002 at work.
    writeFileSync(join(root, "hang-on"), "memory/reports/tasks/task-002.json");
    await killInside("task-002 at work", () => atWork(root, "executor.task-002.s1"));
    expect(readJson(root, "memory/state/execution.json").tasks.map((t: { status: string }) => t.status)).toEqual([
      "complete",
      "running",
    ]);
    // 4. A check step's command, running.
    rmSync(join(root, "hang-on"));
    writeFileSync(join(root, "hold-tests"), "");
    await killInside("TESTS's command running", () => logLines(join(root, "tests.log")).length === 1);
    rmSync(join(root, "hold-tests")); // the orphaned command ends; it recorded nothing
    expect(existsSync(join(root, "memory/reports/steps/TESTS.json"))).toBe(false);
    // 5. A shell step's command, running.
    writeFileSync(join(root, "hold-ship"), "");
    await killInside("SHIP's command running", () => logLines(join(root, "ship.log")).length === 1);
    rmSync(join(root, "hold-ship"));

    const last = spawnSync(process.execPath, args, { cwd: root, env, encoding: "utf8", timeout: 60_000 });
    runs++;
    expect(last.status, last.stdout + last.stderr).toBe(0);
    expect(JSON.parse(last.stdout)).toMatchObject({ ok: true, outcome: "complete", workflow_id: "wf-add-login" });

    // Each job had one session, the killed ones a second that continued the first (resume).
    const byOutput = new Map<string, Array<string | null>>();
    for (const c of calls(root)) byOutput.set(c.output, [...(byOutput.get(c.output) ?? []), c.resume]);
    const sessions = Object.fromEntries(
      [...byOutput].map(([output, resumes]) => [
        output.replace("memory/reports/", ""),
        resumes.map((r) => (r === null ? "new" : "resumed")),
      ]),
    );
    expect(sessions).toEqual({
      "demand.json": ["new", "resumed"],
      "designs/minimal.json": ["new"],
      "designs/robust.json": ["new", "resumed"],
      "roundtable.json": ["new"],
      "tasks/task-001.json": ["new"],
      "tasks/task-002.json": ["new", "resumed"],
      "verification.json": ["new"],
      "reflection.json": ["new"],
    });
    // A command cut off ran once more; nothing else ran twice.
    expect(logLines(join(root, "tests.log"))).toHaveLength(2);
    expect(logLines(join(root, "ship.log"))).toHaveLength(2);
    expect(runs).toBe(6);
    const phase = readJson(root, "memory/state/phase.json");
    expect(phase).toMatchObject({ current_phase: "SHIP", phase_status: "complete" });
    expect(phase.completed_phases.map((c: { phase: string }) => c.phase)).toEqual([
      "REQUIREMENTS",
      "ARCHITECTURE",
      "IMPLEMENTATION",
      "VERIFICATION",
      "TESTS",
      "REFLECTION",
      "SHIP",
    ]);
    expect(phase.rework ?? null).toBeNull();
    expect(
      readJson(root, "memory/state/execution.json").tasks.map((t: { id: string; status: string }) => [t.id, t.status]),
    ).toEqual([
      ["task-001", "complete"],
      ["task-002", "complete"],
    ]);
    expect(readdirSync(join(root, "memory/reports/steps")).sort()).toEqual(["SHIP.json", "TESTS.json"]);
    expect(spawnSync(process.execPath, [cli, "validate"], { cwd: root, env, encoding: "utf8" }).status).toBe(0);
    // The report counts what the five kills cut off, and only that: the runs' resumes that repaired nothing are bookkeeping (SPEC §10 report).
    const report = spawnSync(process.execPath, [cli, "report", "--json"], { cwd: root, env, encoding: "utf8" });
    expect(report.status, report.stderr).toBe(0);
    const told = JSON.parse(report.stdout);
    const log = logLines(join(root, "memory/state/events.jsonl")).map(
      (l) => JSON.parse(l) as { type: string; [k: string]: unknown },
    );
    expect(log.filter((e) => e.type === "agent_continued").map((e) => e.output)).toEqual([
      "memory/reports/demand.json",
      "memory/reports/designs/robust.json",
      "memory/reports/tasks/task-002.json",
    ]);
    // The three agents continued, task-002 reset, the two commands started again; one resume repaired (task-002).
    expect(told).toMatchObject({
      complete: true,
      interruption_events: 6,
      repair_events: 1,
      verification: { passed: true },
    });
    expect(told.bookkeeping_resumes).toBe(log.filter((e) => e.type === "resumed").length - 1);
  }, 600_000);
});
