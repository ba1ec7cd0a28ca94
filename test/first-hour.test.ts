// A new user's first hour (issue 42), the help and the errors they meet before any workflow: the
// first screen names what starts one (install, /develop, `dotagent run`), not `dotagent init`, which
// starts no agent; `dotagent help CMD` is CMD's help; a mistyped sub-command is answered with the
// nearest one; a question says its sentence once. Through the built CLI.
import { afterAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { dotagent, removeTemps, tempProject } from "./support/cli.js";

afterAll(removeTemps);

describe("the first screen", () => {
  it("`dotagent --help` starts with how to begin: install, /develop, run; init is said to start no agent", () => {
    const out = dotagent(tempProject(), ["--help"]).stdout;
    const examples = out.slice(out.indexOf("Examples:"));
    expect(examples.split("\n")[1]).toMatch(
      /^ {2}dotagent install +once per project; then in Claude Code: \/develop add login$/,
    );
    expect(examples).toContain('dotagent run "add login"');
    expect(examples).not.toContain("dotagent init");
    expect(out).toMatch(/^ {2}init +start a workflow's state without its agents \(`run` and \/develop start both\)/m);
    expect(out).toMatch(/^ {2}install +set up a project for Claude Code \(\.claude\/\), or Copilot CLI or Codex CLI/m);
  });

  it("`dotagent help run` is `dotagent run --help`; `help` alone the list", () => {
    const p = tempProject();
    const help = dotagent(p, ["help", "run"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toBe(dotagent(p, ["run", "--help"]).stdout);
    expect(help.stdout).toMatch(/^dotagent run — /);
    expect(dotagent(p, ["help"]).stdout).toBe(dotagent(p, ["--help"]).stdout);
    const typo = dotagent(p, ["help", "stauts"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("(did you mean `dotagent status`?)");
  });

  it("`init --help` says it starts no agent and what does", () => {
    expect(dotagent(tempProject(), ["init", "--help"]).stdout.split("\n")[0]).toBe(
      "dotagent init — start a workflow's state at its first step, without its agents: `dotagent run` or /develop in your client carries it on (an existing one is archived first, after asking)",
    );
  });
});

describe("a mistyped sub-command gets the nearest one", () => {
  it.each([
    [
      ["phase", "aprove"],
      'phase needs one of start, complete, fail, approve, rework, not "aprove" (did you mean `dotagent phase approve`?); see `dotagent phase --help`',
    ],
    [["phase"], "phase needs one of start, complete, fail, approve, rework; see `dotagent phase --help`"],
    [["task", "compelte", "task-001"], 'not "compelte" (did you mean `dotagent task complete`?)'],
    [["task", "frob"], 'not "frob"; see `dotagent task --help`'],
    [
      ["workflows", "shwo", "fix"],
      'workflows needs list, show or validate, not "shwo" (did you mean `dotagent workflows show`?); see `dotagent workflows --help`',
    ],
    [["workflows", "fix"], 'not "fix" (did you mean `dotagent workflows show fix`?)'],
    [
      ["archive", "lst"],
      'unknown archive sub-command "lst" (did you mean `dotagent archive list`?); use list or restore',
    ],
    [
      ["history", "shw", "3"],
      'history takes no argument or `show REV`, not "shw" (did you mean `dotagent history show`?)',
    ],
  ])("%j", (args, message) => {
    const out = dotagent(tempProject(), args);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(message);
    expect(out.stderr.split("\n").filter(Boolean)).toHaveLength(1);
  });
});

describe("a question says its sentence once", () => {
  it("init over a workflow: one question, not 'A workflow already exists. A workflow (…) already exists here.'", () => {
    const p = tempProject();
    dotagent(p, ["init", "--request", "add login"]);
    const out = dotagent(p, ["init", "--request", "add signup"]);
    expect(out.code).toBe(5);
    expect(out.stdout).toBe(
      [
        "A workflow (wf-add-login, at REQUIREMENTS) already exists here. Archive it and start a new one?",
        "  yes: dotagent init --request 'add signup' --yes",
        "  no:  dotagent resume",
        "",
      ].join("\n"),
    );
  });
});

// A project's own definition is listed by `workflows`; `workflows NAME` points at `show NAME`.
describe("workflows NAME", () => {
  it("names a project's own definition too", () => {
    const p = tempProject();
    mkdirSync(join(p, ".dotagent", "workflows"), { recursive: true });
    writeFileSync(
      join(p, ".dotagent", "workflows", "review.json"),
      JSON.stringify({ description: "develop, reviewed", extends: "develop" }),
    );
    const out = dotagent(p, ["workflows", "review"]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("(did you mean `dotagent workflows show review`?)");
  });
});

describe("show in a person's words", () => {
  it("the chosen design: From, Approved by, Decided at; no heading over empty notes; the design's tasks by id", () => {
    const p = tempProject();
    dotagent(p, ["init", "--request", "add login"]);
    const tasks = [
      { id: "task-001", title: "Add password_hash to users", depends_on: [] },
      { id: "task-002", title: "Login route", depends_on: ["task-001"] },
    ];
    mkdirSync(join(p, "memory", "reports"), { recursive: true });
    writeFileSync(
      join(p, "memory", "reports", "final_design.json"),
      JSON.stringify({
        chosen: "minimal",
        source: "memory/reports/designs/minimal.json",
        approved_by: "dotagent run --approve auto",
        decided_at: "2026-11-30T03:58:22.221Z",
        user_notes: "",
        design: { name: "minimal", summary: "minimal login", tasks },
        tasks,
      }),
    );
    const out = dotagent(p, ["show", "final_design"]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain("### From\n\nmemory/reports/designs/minimal.json\n");
    expect(out.stdout).toContain("### Approved by\n\ndotagent run --approve auto\n");
    expect(out.stdout).toContain("- tasks: task-001, task-002\n");
    expect(out.stdout).not.toMatch(/### (source|approved_by|decided_at|user_notes|Your notes)/);
  });
});

describe("words after a command that takes none", () => {
  it("`dotagent init add login` is refused with the line that works, and starts nothing", () => {
    const p = tempProject();
    const out = dotagent(p, ["init", "add", "login"]);
    expect([out.code, out.stderr]).toEqual([
      2,
      "dotagent: init takes the request as --request, not as words: dotagent init --request 'add login'\n",
    ]);
    expect(existsSync(join(p, "memory", "state", "phase.json"))).toBe(false);
    expect(dotagent(p, ["resume", "add", "login"]).stderr).toBe(
      "dotagent: resume takes the request as --request, not as words: dotagent resume --request 'add login'\n",
    );
  });

  it.each(["status", "validate", "log", "doctor", "install"])("`dotagent %s bogus` is refused (exit 2)", (name) => {
    const p = tempProject();
    const out = dotagent(p, [name, "bogus"]);
    expect([out.code, out.stderr]).toEqual([
      2,
      `dotagent: ${name} takes no argument, not "bogus"; see \`dotagent ${name} --help\`\n`,
    ]);
    expect(existsSync(join(p, ".claude"))).toBe(false);
  });
});

describe("status after a kill of dotagent run", () => {
  /** A workflow at REQUIREMENTS, started, and `dotagent run`'s lock (memory/runs/.lock) held by `pid`. */
  const runLockedBy = (pid: number): string => {
    const p = tempProject();
    dotagent(p, ["init", "--request", "add login"]);
    dotagent(p, ["phase", "start", "REQUIREMENTS"]);
    mkdirSync(join(p, "memory", "runs"), { recursive: true });
    writeFileSync(
      join(p, "memory", "runs", ".lock"),
      JSON.stringify({ pid, hostname: hostname(), acquired_at: new Date().toISOString(), command: "run", token: "t" }),
    );
    return p;
  };

  it("says the run ended (its lock left, its process gone), not 'in progress'", () => {
    const gone = spawnSync(process.execPath, ["-e", ""]).pid!;
    const out = dotagent(runLockedBy(gone), ["status"]).stdout;
    expect(out.split("\n")[0]).toBe(
      "Workflow wf-add-login at REQUIREMENTS phase (interrupted: the dotagent run working on it ended)",
    );
  });

  it("another session going on (resume, as /develop's first step) releases the dead run's lock: status stops saying the run ended", () => {
    const gone = spawnSync(process.execPath, ["-e", ""]).pid!;
    const p = runLockedBy(gone);
    const resumed = dotagent(p, ["resume", "--json"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const repairs = (resumed.json.repairs as Array<{ code: string; message: string }>).filter(
      (r) => r.code === "run_lock_released",
    );
    expect(repairs).toHaveLength(1);
    expect(repairs[0]!.message).toContain(`the dotagent run (pid ${gone})`);
    expect(existsSync(join(p, "memory", "runs", ".lock"))).toBe(false);
    expect(dotagent(p, ["status"]).stdout.split("\n")[0]).not.toContain("dotagent run");
    // Said once: the next resume has nothing to release.
    expect(JSON.stringify(dotagent(p, ["resume", "--json"]).json.repairs)).not.toContain("run_lock_released");
  });

  it("a live run's lock is never released by another session's resume, nor by a dry run", () => {
    const p = runLockedBy(process.pid);
    const before = readFileSync(join(p, "memory", "runs", ".lock"), "utf8");
    expect(JSON.stringify(dotagent(p, ["resume", "--json"]).json.repairs)).not.toContain("run_lock_released");
    expect(readFileSync(join(p, "memory", "runs", ".lock"), "utf8")).toBe(before);
    const gone = spawnSync(process.execPath, ["-e", ""]).pid!;
    const q = runLockedBy(gone);
    dotagent(q, ["resume", "--json", "--dry-run"]);
    expect(existsSync(join(q, "memory", "runs", ".lock"))).toBe(true);
  });

  it("a run at work reads in progress, and what it has at work (test/first-hour-again.test.ts)", () => {
    expect(dotagent(runLockedBy(process.pid), ["status"]).stdout.split("\n")[0]).toBe(
      "Workflow wf-add-login at REQUIREMENTS phase (in progress: dotagent run is between two agents)",
    );
  });
});

describe("a mistyped workflow name", () => {
  it.each([[["init", "--workflow", "fxi", "--request", "login fails"]], [["run", "--workflow", "fxi", "login fails"]]])(
    "%j: the nearest one, nothing started",
    (args) => {
      const p = tempProject();
      const out = dotagent(p, args, { env: { ANTHROPIC_API_KEY: "unused" } });
      expect([out.code, out.stderr]).toEqual([
        3,
        'dotagent: no workflow named "fxi" (did you mean fix?); `dotagent workflows` lists them\n',
      ]);
      expect(existsSync(join(p, "memory", "state", "phase.json"))).toBe(false);
    },
  );

  it("workflows show fxi", () => {
    const out = dotagent(tempProject(), ["workflows", "show", "fxi"]);
    expect([out.code, out.stderr]).toEqual([
      3,
      'dotagent: no workflow named "fxi" (did you mean `dotagent workflows show fix`?); `dotagent workflows` lists them\n',
    ]);
  });
});

describe("no workflow yet: every refusal points where a person learns how to start one", () => {
  it.each([[["phase", "approve"]], [["task", "add", "t1"]], [["step", "run", "TESTS"]]])("%j", (args) => {
    const out = dotagent(tempProject(), args);
    expect(out.code).toBe(1);
    expect(out.stderr).toBe(
      "dotagent: no workflow here (memory/state/phase.json does not exist); `dotagent status` says how to start one\n",
    );
  });
});
