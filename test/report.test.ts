// `dotagent show` and `dotagent report` through the built CLI (SPEC §10): a workflow driven to the
// end and one cut off mid-IMPLEMENTATION, their Markdown and their HTML page; hostile reports.
import { afterEach, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { dotagent, removeTemps, tempProject, writeJson } from "./support/cli.js";

afterEach(removeTemps);

function ok(p: string, args: string[]) {
  const run = dotagent(p, args);
  expect(run.code, `${args.join(" ")}: ${run.stdout}${run.stderr}`).toBe(0);
  return run;
}

/** init → both gates → two tasks planned, the first complete. */
function atImplementation(): string {
  const p = tempProject();
  ok(p, ["init", "--request", "add login"]);
  writeJson(p, "memory/reports/demand.json", { request: "add login", user_stories: [{ id: "US-1", as_a: "user", i_want: "to sign in" }], acceptance_criteria: [{ id: "AC-1", text: "wrong password: error" }] });
  ok(p, ["phase", "approve", "REQUIREMENTS"]);
  writeJson(p, "memory/reports/designs/minimal.json", { name: "minimal", summary: "signed cookie" });
  writeJson(p, "memory/reports/designs/robust.json", { name: "robust", summary: "session table" });
  writeJson(p, "memory/reports/roundtable.json", { recommendation: "minimal", rationale: "a third of the work" });
  writeJson(p, "memory/reports/final_design.json", { chosen: "minimal", tasks: [{ id: "t1", title: "form" }, { id: "t2", title: "route", depends_on: ["t1"] }] });
  ok(p, ["phase", "approve", "ARCHITECTURE"]);
  ok(p, ["task", "start", "t1"]);
  writeJson(p, "memory/reports/tasks/t1.json", { task_id: "t1", status: "complete", summary: "the form" });
  ok(p, ["task", "complete", "t1"]);
  return p;
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
    const p = atImplementation();
    finish(p);
    const run = ok(p, ["show"]);
    const order = ["## Requirements", "## Design: minimal", "## Design: robust", "## Design roundtable", "## Chosen design", "## Task: t1", "## Task: t2", "## Verification", "## Reflection"].map((h) => run.stdout.indexOf(h));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(run.stdout).toContain("- **US-1** As user, I want to sign in");
    const json = ok(p, ["show", "ARCHITECTURE", "--json"]).json;
    expect(json.reports).toEqual(["memory/reports/designs/minimal.json", "memory/reports/designs/robust.json", "memory/reports/roundtable.json", "memory/reports/final_design.json"]);
    expect(ok(p, ["show", "verification"]).stdout).toMatch(/^# Workflow wf-add-login: verification\n\n## Verification[\s\S]*\*\*Passed\.\*\*/);
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
    const p = atImplementation();
    finish(p);
    const run = ok(p, ["report", "--json"]);
    expect(run.json).toMatchObject({ path: "memory/report.html", workflow_id: "wf-add-login", phase: "REFLECTION", tasks: 2, cost_recorded: false });
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
    expect(run.stdout).toMatch(/^Wrote .*run\.html \(\d+ bytes\): 2 tasks, 2 interruption or repair events; cost not recorded\.\n$/);
    const html = readFileSync(out, "utf8");
    expect(html).toContain('class="open"');
    expect(html).toMatch(/<td>task_reset<\/td><td>task_id=t2 attempts=\d/);
    expect(html).toMatch(/<td>resumed<\/td><td>situation=\w+ next=\w+ repairs=1<\/td>/);
    expect(html.match(/class="break"/g)).toHaveLength(2);
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
