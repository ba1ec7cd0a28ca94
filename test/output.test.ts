// Plain output for people (SPEC §10): tables with headers that fit a terminal, one time format,
// no stammering "Next:" lines, real plurals, "did you mean" for a mistyped option, prompts without
// colour under NO_COLOR, and the refusals and hints of the gates. Through the built CLI.
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, dotagent, exampleProject, removeTemps, tempProject, writeJson } from "./support/cli.js";

// One busy project for the read-only table tests (a workflow takes ~20 CLI calls to build).
let busy = "";
beforeAll(() => {
  busy = busyProject();
}, 600_000);
afterAll(removeTemps);

const TIME = /\b\d{4}-\d\d-\d\d \d\d:\d\d UTC\b/;
const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d/;
const hasScript = spawnSync("script", ["--version"]).status === 0;

/** The CLI on a terminal of `cols` columns (util-linux `script`), with `input` typed in. */
function onTerminal(
  cwd: string,
  args: string[],
  options: { cols?: number; env?: Record<string, string>; input?: string } = {},
): string {
  const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  const result = spawnSync("script", ["-qefc", `stty cols ${options.cols ?? 80} rows 40; ${quoted}`, "/dev/null"], {
    cwd,
    input: options.input ?? "",
    encoding: "utf8",
    timeout: 30_000,
    env: { ...process.env, TERM: "xterm", ...options.env },
  });
  return result.stdout;
}

/** A workflow at IMPLEMENTATION with tasks done, so history, log and archives have rows. */
let imported = "";
function busyProject(): string {
  const p = tempProject();
  dotagent(p, ["init", "--request", "add login"]);
  writeJson(p, "memory/reports/demand.json", { stories: ["sign in"] });
  dotagent(p, ["phase", "approve"]);
  dotagent(p, ["phase", "complete"]);
  writeJson(p, "memory/reports/final_design.json", { chosen: "a", tasks: [] });
  dotagent(p, ["phase", "approve"]);
  dotagent(p, ["phase", "complete"]);
  const ids = ["task-001-login-form", "t2", "task-003-a-much-longer-name-than-most"];
  // One more task left to do, so the workflow stays at IMPLEMENTATION.
  writeJson(
    p,
    "plan.json",
    [...ids, "t4"].map((id) => ({ id })),
  );
  imported = dotagent(p, ["task", "import", "plan.json"]).stdout;
  for (const id of ids) {
    dotagent(p, ["task", "start", id]);
    writeJson(p, `memory/reports/tasks/${id}.json`, { task_id: id, status: "complete" });
    dotagent(p, ["task", "complete", id]);
  }
  return p;
}

describe("tables: history, log, archive list", () => {
  it("history: a header, the one time format, and every line within 80 columns", () => {
    const out = dotagent(busy, ["history"]).stdout.trimEnd().split("\n");
    expect(out[0]).toMatch(/^REV +TIME +AT PHASE +WHAT$/);
    expect(out[1]).toMatch(TIME);
    expect(out.join("\n")).not.toMatch(ISO);
    // Piped, nothing is cut; task ids of up to 20 characters fit 80 columns as they are.
    for (const line of out.filter((l) => !l.includes("task-003"))) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(out).toContainEqual(expect.stringMatching(/IMPLEMENTATION +task task-001-login-form completed$/));
    expect(out).toContainEqual(expect.stringMatching(/task task-003-a-much-longer-name-than-most completed$/));
  });

  it("log: a header, the one time format, details in their own column", () => {
    const out = dotagent(busy, ["log", "-n", "3"]).stdout.trimEnd().split("\n");
    expect(out[0]).toMatch(/^SEQ +TIME +EVENT +DETAILS$/);
    expect(out).toHaveLength(4);
    expect(out[3]).toMatch(/^\d+ +\d{4}-\d\d-\d\d \d\d:\d\d UTC +task_completed +task_id=task-003/);
  });

  it("archive list: a header, the time it was archived, the phase and the reason", () => {
    const p = busyProject();
    expect(dotagent(p, ["archive", "--reason", "starting over"]).code).toBe(0);
    const out = dotagent(p, ["archive", "list"]).stdout.trimEnd().split("\n");
    expect(out[0]).toMatch(/^NAME +ARCHIVED +AT PHASE +REASON$/);
    expect(out[1]).toMatch(/^wf-add-login_\S+\.tar\.gz +\d{4}-\d\d-\d\d \d\d:\d\d UTC +IMPLEMENTATION +starting over$/);
  });

  it.skipIf(!hasScript)("on a narrow terminal, a long line is cut with … instead of wrapping", () => {
    const screen = onTerminal(busy, ["history"], { cols: 60, env: { NO_COLOR: "1" } });
    const lines = screen.split(/\r?\n/).filter((l) => l.includes("task-003"));
    expect(lines).toHaveLength(1);
    expect(lines[0]!.length).toBeLessThanOrEqual(60);
    expect(lines[0]).toMatch(/…$/);
  });
});

describe("the next step, said once", () => {
  it.each([
    [
      "interrupted-requirements",
      /^Next: ask the person — approve memory\/reports\/demand\.json, or say what to change$/m,
    ],
    ["interrupted-architecture", /^Next: spawn the roundtable agent — designs exist but roundtable\.json does not$/m],
    ["orphaned-tasks", /^Next: run tasks? task-\S+/m],
    ["failed-verification", /^Next: /m],
  ])("%s", (example, next) => {
    const out = dotagent(exampleProject(example), ["status", "--stale-after", "never"]).stdout;
    expect(out).toMatch(next);
    const line = out.split("\n").find((l) => l.startsWith("Next: "))!;
    // No word twice in a row around the dash ("spawn agent — spawn the pm agent").
    const [label, detail = ""] = line.slice(6).split(" — ");
    expect(detail.split(" ")[0], line).not.toBe(label!.split(" ")[0]);
    expect(line).not.toMatch(/\b(\w+) \1\b/);
  });

  it("a new workflow: one line, no 'spawn agent — spawn'", () => {
    const p = tempProject();
    dotagent(p, ["init", "--request", "x"]);
    expect(dotagent(p, ["status"]).stdout).toContain("Next: spawn the pm agent — no valid demand.json yet\n");
  });
});

describe("plurals", () => {
  it("doctor counts one problem as one problem", () => {
    const out = dotagent(tempProject(), ["doctor"], { env: { HOME: tempProject(), CLAUDE_CONFIG_DIR: "" } }).stdout;
    expect(out).toMatch(/^1 problem to fix( \(\d+ warnings?\))?\.$/m);
    expect(out).not.toMatch(/\(s\)/);
  });

  it("task import counts its tasks without (s)", () => {
    expect(imported).toMatch(/^Imported 4 tasks; 4 in all\./);
  });
});

describe("a mistyped option or command", () => {
  it.each([
    [["status", "--jsn"], "unknown option --jsn (did you mean --json?); see `dotagent status --help`"],
    [["resume", "--dryrun"], "unknown option --dryrun (did you mean --dry-run?); see `dotagent resume --help`"],
    [["status", "--verbose"], "unknown option --verbose; see `dotagent status --help`"],
    [["stauts"], 'unknown command "stauts" (did you mean `dotagent status`?); run `dotagent --help` for the list'],
  ])("%j", (args, message) => {
    const out = dotagent(tempProject(), args);
    expect(out.code).toBe(2);
    expect(out.stderr).toBe(`dotagent: ${message}\n`);
  });

  it("with --json the suggestion is in the error object", () => {
    const out = dotagent(tempProject(), ["status", "--json", "--jsn"]);
    expect(out.json.error).toMatchObject({
      code: "usage",
      exit_code: 2,
      message: expect.stringContaining("did you mean --json?"),
    });
  });
});

describe.skipIf(!hasScript)("questions on a terminal", () => {
  const SGR = /\u001b\[[0-9;]*m/;
  const askAgain = (env: Record<string, string>): string => {
    const p = tempProject();
    dotagent(p, ["init", "--request", "first"]);
    // A second init asks whether to archive the open workflow (prompts' confirm); "n" declines.
    return onTerminal(p, ["init", "--request", "second"], { env, input: "n" });
  };

  it("are coloured on a terminal", () => {
    const screen = askAgain({ NO_COLOR: "" });
    expect(screen).toMatch(/archive/i);
    expect(screen).toMatch(SGR);
  });

  it("have no colour under NO_COLOR", () => {
    const screen = askAgain({ NO_COLOR: "1" });
    expect(screen).toMatch(/archive/i);
    expect(screen).not.toMatch(SGR);
  });
});

describe("the gates", () => {
  it("phase approve REQUIREMENTS before demand.json exists: refused, exit 1, naming the file, nothing written", () => {
    const p = tempProject();
    dotagent(p, ["init", "--request", "add login"]);
    const out = dotagent(p, ["phase", "approve", "REQUIREMENTS", "--json"]);
    expect(out.code).toBe(1);
    expect(out.json.error).toMatchObject({
      code: "phase_incomplete",
      exit_code: 1,
      message: expect.stringContaining("memory/reports/demand.json does not exist"),
    });
    expect(dotagent(p, ["status", "--json"]).json.next).toMatchObject({ action: "spawn_agent", agent: "pm" });
    const plain = dotagent(p, ["phase", "approve"]);
    expect(plain.stderr).toMatch(
      /^dotagent: REQUIREMENTS cannot be approved yet: memory\/reports\/demand\.json does not exist; /,
    );
  });

  it("status after ARCHITECTURE is approved without final_design.json says what it still needs", () => {
    const p = exampleProject("interrupted-architecture");
    writeJson(p, "memory/reports/roundtable.json", { recommend: "jwt" });
    expect(dotagent(p, ["phase", "approve", "ARCHITECTURE"]).code).toBe(0);
    const out = dotagent(p, ["status", "--stale-after", "never"]).stdout;
    expect(out).toMatch(
      /^Next: write memory\/reports\/final_design\.json — ARCHITECTURE is approved, but final_design\.json does not exist; it holds the pick: \{chosen, design, tasks: .*\}.*; then `dotagent phase complete ARCHITECTURE`$/m,
    );
    // Before the approval it is the pick, as before.
    const before = exampleProject("interrupted-architecture");
    writeJson(before, "memory/reports/roundtable.json", { recommend: "jwt" });
    expect(dotagent(before, ["status", "--stale-after", "never"]).stdout).toMatch(
      /^Next: ask the person — pick one of the designs/m,
    );
  });
});
