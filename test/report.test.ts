// `dotagent show` and `dotagent report` through the built CLI (SPEC §10): a workflow driven to the
// end and one cut off mid-IMPLEMENTATION, their Markdown and their HTML page; hostile reports;
// `dotagent run` (a stand-in Agent SDK) to the end, never interrupted: what the report says of it.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { dotagent, readJson, REPO, removeTemps, standInSdkProject, tempProject, writeJson } from "./support/cli.js";
import { startApiStandIn, type ApiStandIn } from "./support/api-stand-in.js";
import { copyOfTemplate } from "./support/template.js";

afterEach(removeTemps);
let api: ApiStandIn;
beforeAll(async () => {
  api = await startApiStandIn();
});
afterAll(() => api.stop());

function ok(p: string, args: string[]) {
  const run = dotagent(p, args);
  expect(run.code, `${args.join(" ")}: ${run.stdout}${run.stderr}`).toBe(0);
  return run;
}

/** init → both gates → two tasks planned, the first complete: made once per file, a copy per test. */
function atImplementation(): string {
  return copyOfTemplate("atImplementation", makeImplementation);
}

/** The whole workflow, complete (atImplementation, then finish): made once per file, a copy per test. */
function finished(): string {
  return copyOfTemplate("finished", (p) => {
    cpSync(atImplementation(), p, { recursive: true });
    finish(p);
  });
}

function makeImplementation(p: string): void {
  ok(p, ["init", "--request", "add login"]);
  writeJson(p, "memory/reports/demand.json", {
    request: "add login",
    user_stories: [{ id: "US-1", as_a: "user", i_want: "to sign in" }],
    acceptance_criteria: [{ id: "AC-1", text: "wrong password: error" }],
  });
  ok(p, ["phase", "approve", "REQUIREMENTS"]);
  writeJson(p, "memory/reports/designs/minimal.json", { name: "minimal", summary: "signed cookie" });
  writeJson(p, "memory/reports/designs/robust.json", { name: "robust", summary: "session table" });
  writeJson(p, "memory/reports/roundtable.json", { recommendation: "minimal", rationale: "a third of the work" });
  writeJson(p, "memory/reports/final_design.json", {
    chosen: "minimal",
    tasks: [
      { id: "t1", title: "form" },
      { id: "t2", title: "route", depends_on: ["t1"] },
    ],
  });
  ok(p, ["phase", "approve", "ARCHITECTURE"]);
  ok(p, ["task", "start", "t1"]);
  writeJson(p, "memory/reports/tasks/t1.json", { task_id: "t1", status: "complete", summary: "the form" });
  ok(p, ["task", "complete", "t1"]);
}

function finish(p: string): void {
  ok(p, ["task", "start", "t2"]);
  writeJson(p, "memory/reports/tasks/t2.json", { task_id: "t2", status: "complete" });
  ok(p, ["task", "complete", "t2"]);
  writeJson(p, "memory/reports/verification.json", { passed: true, summary: "every criterion met" });
  ok(p, ["phase", "complete"]);
  writeJson(p, "memory/reports/reflection.json", { summary: "shipped", lessons: ["state cookie flags early"] });
  ok(p, ["phase", "complete"]);
}

/** t2's owner dies mid-attempt; resume takes it back. */
function interrupt(p: string): void {
  const gone = Number(spawnSync("sh", ["-c", "echo $$"], { encoding: "utf8" }).stdout.trim());
  ok(p, ["task", "start", "t2", "--owner", String(gone)]);
  ok(p, ["resume", "--stale-after", "never"]);
}

describe("dotagent show", () => {
  it("renders every report of a finished workflow as one Markdown document, in workflow order", () => {
    const p = finished();
    const run = ok(p, ["show"]);
    const order = [
      "## Requirements",
      "## Design: minimal",
      "## Design: robust",
      "## Design roundtable",
      "## Chosen design",
      "## Task: t1",
      "## Task: t2",
      "## Verification",
      "## Reflection",
    ].map((h) => run.stdout.indexOf(h));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(run.stdout).toContain("- **US-1** As user, I want to sign in");
    const json = ok(p, ["show", "ARCHITECTURE", "--json"]).json;
    expect(json.reports).toEqual([
      "memory/reports/designs/minimal.json",
      "memory/reports/designs/robust.json",
      "memory/reports/roundtable.json",
      "memory/reports/final_design.json",
    ]);
    expect(ok(p, ["show", "verification"]).stdout).toMatch(
      /^# Workflow wf-add-login: verification\n\n## Verification[\s\S]*\*\*Passed\.\*\*/,
    );
  });

  it("escapes a hostile report and names one that does not parse instead of guessing", () => {
    const p = atImplementation();
    writeJson(p, "memory/reports/demand.json", { summary: "<script>alert(1)</script>\n# Approved\n[x](javascript:y)" });
    writeFileSync(join(p, "memory/reports/roundtable.json"), "{ not json");
    const run = ok(p, ["show"]);
    expect(run.stdout).not.toMatch(/<script>|^# Approved|(?<!\\)\]\(javascript/m);
    expect(run.stdout).toContain("&lt;script&gt;alert(1)&lt;/script&gt; # Approved \\[x\\](javascript:y)");
    expect(run.stdout).toContain("## Not shown\n\n- memory/reports/roundtable.json: is not valid JSON");
  });

  it("refuses a report that is not there, naming what it takes", () => {
    const p = atImplementation();
    const run = dotagent(p, ["show", "reflection", "--json"]);
    expect(run.code).toBe(1);
    expect(run.json.error).toMatchObject({ code: "report_missing", target: "reflection" });
    expect(dotagent(p, ["show", "a", "b"]).code).toBe(2);
  });
});

describe("dotagent report", () => {
  it("writes one page for a finished workflow: five complete steps, the gates, the tasks", () => {
    const p = finished();
    const run = ok(p, ["report", "--json"]);
    expect(run.json).toMatchObject({
      path: "memory/report.html",
      workflow_id: "wf-add-login",
      phase: "REFLECTION",
      tasks: 2,
      cost_recorded: false,
      interruptions: 0,
      complete: true,
    });
    expect(run.json.verification).toEqual({
      passed: true,
      checks: [
        {
          step: "VERIFICATION",
          kind: "agent",
          report: "memory/reports/verification.json",
          outcome: "passed",
          rework_rounds: 0,
          detail: "every criterion met",
        },
      ],
    });
    const html = readFileSync(join(p, "memory/report.html"), "utf8");
    expect(run.json.bytes).toBe(Buffer.byteLength(html));
    expect(html.match(/<rect [^>]*fill="#2e7d32"/g)).toHaveLength(5 + 2);
    expect(html.match(/class="gate"/g)).toHaveLength(2);
    expect(html).not.toMatch(/<script|<link|<img|https?:\/\//i);
    expect(html).toContain("Not recorded: no dotagent run sessions under memory/runs/");
  });

  it("writes one for an interrupted workflow: the open step, the running task, what resume repaired", () => {
    const p = atImplementation();
    interrupt(p);
    const out = join(tempProject(), "run.html");
    const run = ok(p, ["report", "--out", out]);
    expect(run.stdout).toMatch(
      /^Wrote .*run\.html \(\d+ bytes\): 2 tasks, 2 interruption or repair events, verification not done yet \(VERIFICATION no report yet\), \d+ s so far; cost not recorded\.\n$/,
    );
    const html = readFileSync(out, "utf8");
    expect(html).toContain('class="open"');
    expect(html).toMatch(/<td>interruption<\/td><td>task_reset<\/td><td>task_id=t2 attempts=\d/);
    expect(html).toMatch(
      /<td>repair<\/td><td>resumed<\/td><td>situation=\w+ next=\w+ repairs=1 repair_codes=\[&quot;task_reset&quot;\]<\/td>/,
    );
    expect(html.match(/class="break"/g)).toHaveLength(2);
    expect(ok(p, ["report", "--json"]).json).toMatchObject({
      interruptions: 2,
      interruption_events: 1,
      repair_events: 1,
      complete: false,
      verification: { passed: null },
    });
  });

  it("escapes a hostile request (task titles, errors and events: src/core/run-report-html.test.ts)", () => {
    const p = tempProject();
    ok(p, ["init", "--request", "<script>alert(1)</script>", "--workflow-id", "wf-x"]);
    const html = (ok(p, ["report", "--out", "r.html"]), readFileSync(join(p, "r.html"), "utf8"));
    expect(html).not.toContain("<script>");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
  });

  it("refuses a folder as --out, and writes nothing", () => {
    const p = atImplementation();
    const run = dotagent(p, ["report", "--out", "memory"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("is a folder");
    expect(existsSync(join(p, "memory/report.html"))).toBe(false);
  });
});

describe("dotagent report with nothing to draw", () => {
  it("refuses where there is no workflow, and writes no page", () => {
    const p = tempProject();
    const run = dotagent(p, ["report", "--json"]);
    expect(run.code).toBe(1);
    expect(run.json.error.code).toBe("no_workflow");
    expect(existsSync(join(p, "memory/report.html"))).toBe(false);
  });
});

describe("dotagent report, a write the disk refuses", () => {
  it("says which file and what to do: write_failed, exit 1", () => {
    const p = atImplementation();
    const run = dotagent(p, ["report", "--out", "no/such/folder/r.html", "--json"]);
    expect(run.code).toBe(1);
    expect(run.json.error).toMatchObject({ code: "write_failed", errno: "ENOENT" });
    expect(run.json.error.message).toContain("give --out a path in a folder that exists");
  });
});

/** A stand-in Agent SDK: every agent writes its report at once; qa fails its first check; a rework task's executor makes ok.txt. */
const FAKE_SDK = `
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
const TASKS = [{ id: "task-001", title: "model", depends_on: [] }, { id: "task-002", title: "route", depends_on: ["task-001"] }];
function reportFor(cwd, output, prompt) {
  if (output.endsWith("/demand.json")) return { summary: "sign in", acceptance_criteria: [{ id: "AC-1", text: "works" }] };
  if (output.includes("/designs/")) return { name: /^Design name: (.*)$/m.exec(prompt)[1], tasks: TASKS };
  if (output.endsWith("/roundtable.json")) return { recommendation: "minimal", options_for_user: [{ name: "minimal", one_line: "small" }, { name: "robust", one_line: "big" }] };
  if (output.includes("/tasks/")) {
    const task = /^Task: (.*)$/m.exec(prompt)[1];
    if (task.startsWith("rework-")) writeFileSync(join(cwd, "ok.txt"), "");
    return { task_id: task, status: "complete" };
  }
  if (output.endsWith("/verification.json")) {
    if (existsSync(join(cwd, "qa-fails-once"))) return existsSync(join(cwd, "ok.txt")) ? { passed: true, summary: "every criterion met", failures: [] } : { passed: false, failures: [{ problem: "AC-1: wrong password accepted", suggested_fix: "check the hash" }] };
    return { passed: true, summary: "every criterion met", failures: [] };
  }
  return { summary: "shipped", lessons: [] };
}
export function query({ prompt, options }) {
  return (async function* () {
    const output = /^Output file: (\\S+)$/m.exec(prompt)[1];
    const session_id = "fake-" + Math.random().toString(36).slice(2);
    yield { type: "system", subtype: "init", session_id };
    // Works until killed when the project's hang-on names its output (a timer keeps the process alive).
    const hang = join(options.cwd, "hang-on");
    if (existsSync(hang) && readFileSync(hang, "utf8").trim() === output) await new Promise(() => setInterval(() => {}, 1000));
    mkdirSync(dirname(join(options.cwd, output)), { recursive: true });
    writeFileSync(join(options.cwd, output), JSON.stringify(reportFor(options.cwd, output, prompt)));
    yield { type: "result", subtype: "success", session_id, result: "wrote " + output };
  })();
}
`;

/** develop, then the project's tests as a check command that fails until a rework task makes ok.txt. */
const TESTED = {
  description: "develop with the project's tests",
  extends: "develop",
  insert: [
    {
      after: "VERIFICATION",
      steps: [{ id: "TESTS", kind: "check", run: "test -f ok.txt", rework: "IMPLEMENTATION", max_rounds: 2 }],
    },
  ],
};

/** `dotagent run --approve auto` to the end, in one go: never interrupted. */
function runToTheEnd(setup: (root: string) => void, workflow?: string): { root: string; cli: string } {
  const { root, cli } = standInSdkProject(FAKE_SDK);
  setup(root);
  const env = { ...process.env, NO_COLOR: "1", ANTHROPIC_BASE_URL: api.url };
  const run = spawnSync(
    process.execPath,
    [
      cli,
      "run",
      "--agents",
      join(REPO, "agents"),
      "--approve",
      "auto",
      "--json",
      ...(workflow === undefined ? [] : ["--workflow", workflow]),
      "add login",
    ],
    { cwd: root, env, encoding: "utf8", timeout: 300_000 },
  );
  expect(run.status, run.stdout + run.stderr).toBe(0);
  expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, outcome: "complete" });
  return { root, cli };
}

const events = (root: string) =>
  readFileSync(join(root, "memory/state/events.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { seq: number; at: string; type: string; [k: string]: unknown });

describe("dotagent report of a dotagent run never interrupted", () => {
  it("develop, qa failing once: 0 interruptions, the axis ending at the completion, verification passed after 1 rework round", () => {
    const { root } = runToTheEnd((r) => writeFileSync(join(r, "qa-fails-once"), ""));
    const log = events(root);
    // The runner planned every step through resume: bookkeeping that must not read as interruptions.
    const resumes = log.filter((e) => e.type === "resumed");
    expect(resumes.length).toBeGreaterThan(5);
    expect(resumes.every((e) => Array.isArray(e.repair_codes))).toBe(true);
    const run = dotagent(root, ["report", "--json"]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const completedAt = log.filter((e) => e.type === "phase_completed" && e.phase === "REFLECTION").pop()!.at;
    expect(run.json).toMatchObject({
      tasks: 3,
      interruptions: 0,
      interruption_events: 0,
      repair_events: 0,
      bookkeeping_resumes: resumes.length,
      complete: true,
      started_at: log[0]!.at,
      ended_at: completedAt,
    });
    expect(run.json.failure_events).toBeGreaterThanOrEqual(1); // the rework, shown as the run's course
    expect(run.json.verification).toEqual({
      passed: true,
      checks: [
        {
          step: "VERIFICATION",
          kind: "agent",
          report: "memory/reports/verification.json",
          outcome: "passed",
          rework_rounds: 1,
          detail: "every criterion met",
        },
      ],
    });
    const plain = dotagent(root, ["report"]);
    expect(plain.stdout).toMatch(
      /^Wrote memory\/report\.html \(\d+ bytes\): 3 tasks, 0 interruption or repair events, verification passed after 1 rework round, \d+ s in all; cost not recorded\.\n$/,
    );
    const html = readFileSync(join(root, "memory/report.html"), "utf8");
    expect(html).toContain("None: no work was cut off and nothing was repaired.");
    expect(html).not.toContain('class="break"');
    expect(html).toContain(`${completedAt.replace("T", " ").replace(/\.\d+Z$/, " UTC")} (complete)`);
    expect(html).toContain("<td>failure</td><td>phase_rework</td>");
  }, 600_000);

  it("a definition with a command check failing once: each check's outcome, from its own report", () => {
    const { root } = runToTheEnd((r) => {
      mkdirSync(join(r, ".dotagent/workflows"), { recursive: true });
      writeFileSync(join(r, ".dotagent/workflows/tested.json"), JSON.stringify(TESTED));
    }, "tested");
    const run = dotagent(root, ["report", "--json"]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.json).toMatchObject({ interruptions: 0, complete: true, verification: { passed: true } });
    expect(run.json.verification.checks).toEqual([
      {
        step: "VERIFICATION",
        kind: "agent",
        report: "memory/reports/verification.json",
        outcome: "passed",
        rework_rounds: 0,
        detail: "every criterion met",
      },
      {
        step: "TESTS",
        kind: "command",
        report: "memory/reports/steps/TESTS.json",
        outcome: "passed",
        rework_rounds: 1,
        detail: "exit 0",
      },
    ]);
    expect(dotagent(root, ["report"]).stdout).toContain(
      ": 3 tasks, 0 interruption or repair events, verification passed after 1 rework round, ",
    );
  }, 600_000);
});

describe("dotagent report right after a killed dotagent run (issue 42)", () => {
  it("says what was cut off in status's words, what was done, and what comes next; --json cut_off; null once run again", async () => {
    const { root, cli } = standInSdkProject(FAKE_SDK);
    writeFileSync(join(root, "hang-on"), "memory/reports/tasks/task-002.json");
    const env = { ...process.env, NO_COLOR: "1", ANTHROPIC_BASE_URL: api.url };
    const args = [cli, "run", "--agents", join(REPO, "agents"), "--approve", "auto", "--json"];
    const runner = spawn(process.execPath, [...args, "add login"], { cwd: root, env, stdio: "ignore" });
    const exited = new Promise((resolve) => runner.once("exit", resolve));
    // task-002's session at work: its record holds the SDK's session id and is not complete.
    const record = join(root, "memory/runs/wf-add-login/executor.task-002.s1.checkpoint.json");
    const atWork = () => {
      try {
        const data = (JSON.parse(readFileSync(record, "utf8")) as { data: { session_id?: unknown; status?: unknown } })
          .data;
        return typeof data.session_id === "string" && data.status !== "complete";
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 1200 && !atWork() && runner.exitCode === null; i++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    expect(atWork(), "task-002 at work before the kill").toBe(true);
    runner.kill("SIGKILL");
    await exited;

    const said = "interrupted: the session running task-002 ended";
    const status = dotagent(root, ["status"]).stdout.split("\n")[0];
    expect(status).toBe(`Workflow wf-add-login at IMPLEMENTATION phase (${said})`);
    const plain = ok(root, ["report"]).stdout.split("\n");
    expect(plain[0]).toBe(`${status}; done before it: REQUIREMENTS, ARCHITECTURE, task-001.`);
    expect(plain[1]).toMatch(
      /^Wrote memory\/report\.html \(\d+ bytes\): 2 tasks, 0 interruption or repair events recorded \(this one is recorded when the workflow goes on\), /,
    );
    expect(plain[2]).toBe("Next: run task task-002");
    expect(ok(root, ["report", "--json"]).json.cut_off).toEqual({
      step: "IMPLEMENTATION",
      by: "session",
      tasks: ["task-002"],
      agents: [],
      finished: ["REQUIREMENTS", "ARCHITECTURE", "task-001"],
      words: said,
    });
    expect(readFileSync(join(root, "memory/report.html"), "utf8")).toContain(
      `<p class="cut">Cut off, not recorded yet: at IMPLEMENTATION (${said}); done before it: REQUIREMENTS, ARCHITECTURE, task-001.`,
    );

    // Run again to the end: the cut-off is recorded, and counted as an interruption.
    rmSync(join(root, "hang-on"));
    const again = spawnSync(process.execPath, args, { cwd: root, env, encoding: "utf8", timeout: 300_000 });
    expect(again.status, again.stdout + again.stderr).toBe(0);
    const after = ok(root, ["report", "--json"]).json;
    expect(after.cut_off).toBeNull();
    expect(after.interruption_events).toBeGreaterThanOrEqual(1);
  }, 600_000);
});
