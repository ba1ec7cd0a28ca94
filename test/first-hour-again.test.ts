// A new user's first hour again (issue 42, second pass), through the built CLI: what a person
// meets on a terminal. `dotagent show` there is plain text (Markdown's `&amp;`, `\_` and `<sub>`
// are for a file or a pull request, and stay so when piped); `status` beside a live `dotagent run`
// says what the run has at work and that nothing needs typing, not "in progress" over nothing.
import { afterAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { CLI, dotagent, exampleProject, readJson, removeTemps, tempProject, writeJson } from "./support/cli.js";

afterAll(removeTemps);

const hasScript = spawnSync("script", ["--version"]).status === 0;

/** The built CLI on a pseudo-terminal (util-linux `script`), no colour unless `env` asks. */
function onTerminal(cwd: string, args: string[], env: Record<string, string> = {}): string {
  const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  const run = spawnSync("script", ["-qec", `stty cols 200; ${quoted}`, "/dev/null"], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", TERM: "xterm", CLAUDECODE: "", ...env },
  });
  return run.stdout.replace(/\r/g, "");
}

describe.skipIf(!hasScript)("dotagent show on a terminal", () => {
  const project = (): string => {
    const p = tempProject();
    dotagent(p, ["init", "--request", "add login"]);
    writeJson(p, "memory/reports/demand.json", {
      request: "add login",
      summary: `Sign in with email & password; "remember me" isn't <b>kept</b> \u001b[31m_yet_ *really*`,
      user_stories: [{ id: "US_1", as_a: "user", i_want: "to sign in", so_that: "I reach my account" }],
      acceptance_criteria: [{ id: "AC-1", story: "US_1", text: "a wrong password shows an error" }],
      open_questions: [],
    });
    return p;
  };

  it("reads as plain text: no entities, no backslashes, no <sub>; control characters still shown inert", () => {
    const screen = onTerminal(project(), ["show", "demand"]);
    expect(screen).toContain(
      `Sign in with email & password; "remember me" isn't <b>kept</b> \\u001b[31m_yet_ *really*\n`,
    );
    expect(screen).toContain("\n- US_1 As user, I want to sign in, so that I reach my account\n");
    expect(screen).toContain("\nmemory/reports/demand.json\n");
    expect(screen).toMatch(/^## Requirements$/m);
    for (const markup of ["&amp;", "&quot;", "&lt;", "\\_", "\\*", "\\[", "<sub>", "**"])
      expect(screen).not.toContain(markup);
    expect(screen).not.toContain("\u001b[31m");
  });

  it("with colour: headings and ids bold, the file dim, and still no agent text as escapes", () => {
    const screen = onTerminal(project(), ["show", "demand"], { NO_COLOR: "" });
    expect(screen).toContain("\u001b[1m## Requirements\u001b[22m");
    expect(screen).toContain("\u001b[2mmemory/reports/demand.json\u001b[22m");
    expect(screen).toContain("- \u001b[1mUS_1\u001b[22m As user");
    expect(screen).not.toContain("\u001b[31m");
  });

  it("piped or --json it stays Markdown, escaped, for a file or a pull request", () => {
    const p = project();
    const piped = dotagent(p, ["show", "demand"]).stdout;
    expect(piped).toContain("email &amp; password; &quot;remember me&quot; isn't &lt;b&gt;kept&lt;/b&gt;");
    expect(piped).toContain("<sub>memory/reports/demand.json</sub>");
    expect(piped).toContain("- **US_1** As user");
    expect(piped).toContain("_yet\\_ \\*really\\*");
    expect(dotagent(p, ["show", "demand", "--json"]).json.markdown).toBe(piped);
  });
});

describe("show tells a definition's agent step as it tells develop's", () => {
  it("fix's REPRODUCE report is headed by its step, its fields in words, not `## Report` over JSON keys", () => {
    const p = tempProject();
    dotagent(p, ["init", "--workflow", "fix", "--request", "login fails with +"]);
    writeJson(p, "memory/reports/reproduction.json", {
      summary: "A + in the password is sent as a space.",
      failing_test: "test/login.test.ts: signs in with a + in the password",
      root_cause: { file: "src/login.ts", line_hint: 12 },
    });
    const md = dotagent(p, ["show"]).stdout;
    expect(md).toContain("## Step: REPRODUCE\n\n<sub>memory/reports/reproduction.json</sub>\n\n### Summary\n");
    expect(md).toContain("### Failing test\n\ntest/login.test.ts: signs in with a + in the password\n");
    expect(md).toContain("### Root cause\n\n- file: src/login.ts\n- line hint: 12\n");
    expect(md).not.toMatch(/^## Report$/m);
    expect(dotagent(p, ["show", "REPRODUCE"]).stdout).toContain("## Step: REPRODUCE\n");
  });
});

describe("status beside a live dotagent run", () => {
  /** A workflow at REQUIREMENTS, started, `dotagent run`'s lock held by this (live) process, taken a minute ago. */
  const live = (): string => {
    const p = tempProject();
    dotagent(p, ["init", "--request", "add login"]);
    dotagent(p, ["phase", "start", "REQUIREMENTS"]);
    mkdirSync(join(p, "memory", "runs"), { recursive: true });
    const acquired = new Date(Date.now() - 60_000).toISOString();
    writeFileSync(
      join(p, "memory", "runs", ".lock"),
      JSON.stringify({ pid: process.pid, hostname: hostname(), acquired_at: acquired, command: "run", token: "t" }),
    );
    return p;
  };
  /** One of the runner's session records (src/run/agent-session.ts), `status` running or complete. */
  const session = (p: string, key: string, status: string, savedAt = new Date().toISOString()) => {
    mkdirSync(join(p, "memory", "runs", "wf-add-login"), { recursive: true });
    writeFileSync(
      join(p, "memory", "runs", "wf-add-login", `${key}.checkpoint.json`),
      JSON.stringify({ id: key, seq: 1, saved_at: savedAt, data: { session_id: "s", iteration: 1, status } }),
    );
  };

  it("names the agents the run has at work, and says there is nothing to type", () => {
    const p = live();
    session(p, "pm.REQUIREMENTS.s1", "running");
    const first = (out: string) => out.split("\n")[0];
    expect(first(dotagent(p, ["status"]).stdout)).toBe(
      "Workflow wf-add-login at REQUIREMENTS phase (in progress: dotagent run has the pm agent at work)",
    );
    if (!hasScript) return;
    const screen = onTerminal(p, ["status"]);
    expect(screen).toContain(`\nNext: nothing to type — dotagent run (pid ${process.pid}) goes on by itself\n`);
    expect(screen).not.toContain("agent is next");
  });

  it("several agents by the run's own names; a finished session or one from before the run's lock names none", () => {
    const p = live();
    session(p, "architect.minimal.s1", "running");
    session(p, "architect.robust.s1", "running");
    session(p, "pm.REQUIREMENTS.s1", "complete");
    session(p, "roundtable.s1", "running", new Date(Date.now() - 3_600_000).toISOString());
    expect(dotagent(p, ["status"]).stdout.split("\n")[0]).toBe(
      "Workflow wf-add-login at REQUIREMENTS phase (in progress: dotagent run has the architect minimal, architect robust agents at work)",
    );
  });

  it("between two agents it says so; --json is unchanged (phase_status as stored)", () => {
    const p = live();
    expect(dotagent(p, ["status"]).stdout.split("\n")[0]).toBe(
      "Workflow wf-add-login at REQUIREMENTS phase (in progress: dotagent run is between two agents)",
    );
    expect(dotagent(p, ["status", "--json"]).json.phase_status).toBe("in_progress");
  });

  it.skipIf(!hasScript)("at a gate the Next line sends the person to the run's own question", () => {
    const p = live();
    writeJson(p, "memory/reports/demand.json", {
      request: "add login",
      summary: "sign in",
      user_stories: [{ id: "US-1", as_a: "user", i_want: "to sign in", so_that: "I reach my account" }],
      acceptance_criteria: [{ id: "AC-1", story: "US-1", text: "a wrong password shows an error" }],
      open_questions: [],
    });
    const screen = onTerminal(p, ["status"]);
    expect(screen.split("\n")[0]).toBe("Workflow wf-add-login at REQUIREMENTS phase (waiting for approval)");
    expect(screen).toContain(
      `\nNext: answer dotagent run (pid ${process.pid}) in its terminal: approve memory/reports/demand.json, or say what to change\n`,
    );
  });

  it.skipIf(!hasScript)("at a gate of a run given --approve auto, nobody waits: the run approves it itself", () => {
    const p = live();
    writeJson(p, "memory/reports/demand.json", {
      request: "add login",
      summary: "sign in",
      user_stories: [{ id: "US-1", as_a: "user", i_want: "to sign in", so_that: "I reach my account" }],
      acceptance_criteria: [{ id: "AC-1", story: "US-1", text: "a wrong password shows an error" }],
      open_questions: [],
    });
    const startedAt = readJson(p, "memory/state/phase.json").started_at;
    writeJson(p, "memory/runs/wf-add-login/run.checkpoint.json", {
      id: "run",
      seq: 1,
      saved_at: new Date().toISOString(),
      data: { workflow_started_at: startedAt, feedback: [], pending: null, approve: "auto" },
    });
    const screen = onTerminal(p, ["status"]);
    expect(screen.split("\n")[0]).toBe(
      "Workflow wf-add-login at REQUIREMENTS phase (in progress: dotagent run is between two agents)",
    );
    expect(screen).toContain(
      `\nNext: nothing to type — dotagent run (pid ${process.pid}) approves it itself (--approve auto) and goes on\n`,
    );
  });
});

describe("log tells a run's steps as steps, not interruptions", () => {
  it("a `resumed` that repaired nothing reads `planned next=…`; --json keeps the event as logged", () => {
    const p = tempProject();
    dotagent(p, ["init", "--request", "add login"]);
    expect(dotagent(p, ["resume"]).code).toBe(0);
    const plain = dotagent(p, ["log"]).stdout;
    expect(plain).toMatch(/\n2 +\S+ \S+ UTC +planned +next=spawn_agent\n/);
    expect(plain).not.toContain("situation=interrupted");
    expect(plain).not.toMatch(/ resumed /);
    const json = dotagent(p, ["log", "--json"]).json.events;
    expect(json[1]).toMatchObject({ type: "resumed", next: "spawn_agent" });
  });
});

describe("a workflow of one's own is described as itself", () => {
  it("README's `tested` (develop plus a check, no description) reads `develop, plus TESTS`, not develop's story", () => {
    const p = tempProject();
    mkdirSync(join(p, ".dotagent", "workflows"), { recursive: true });
    writeJson(p, ".dotagent/workflows/tested.json", {
      extends: "develop",
      insert: [
        {
          after: "VERIFICATION",
          steps: [{ id: "TESTS", kind: "check", run: "npm test", rework: "IMPLEMENTATION", max_rounds: 2 }],
        },
      ],
    });
    expect(dotagent(p, ["workflows", "show", "tested"]).stdout.split("\n")[0]).toBe("tested: develop, plus TESTS");
    const listed = dotagent(p, ["workflows", "--json"]).json;
    expect(JSON.stringify(listed)).toContain('"description":"develop, plus TESTS"');
  });
});

describe("status beside a live dotagent run: its next records are news, not repairs", () => {
  it("`dotagent run (pid N) records next:` in place of `Would repair:`; without a run, `Would repair:`", () => {
    const p = exampleProject("orphaned-tasks");
    const without = dotagent(p, ["status", "--stale-after", "never"]).stdout;
    expect(without).toContain("\nWould repair:\n");
    mkdirSync(join(p, "memory", "runs"), { recursive: true });
    writeFileSync(
      join(p, "memory", "runs", ".lock"),
      JSON.stringify({
        pid: process.pid,
        hostname: hostname(),
        acquired_at: new Date().toISOString(),
        command: "run",
        token: "t",
      }),
    );
    const beside = dotagent(p, ["status", "--stale-after", "never"]).stdout;
    expect(beside).toContain(`\ndotagent run (pid ${process.pid}) records next:\n  • `);
    expect(beside).not.toContain("Would repair:");
  });
});

describe("the archive a new workflow leaves says what replaced it in a person's words", () => {
  it("`archive list` reads `replaced by a new workflow`, not `replaced by dotagent init` after `dotagent run` or /develop", () => {
    const p = tempProject();
    dotagent(p, ["init", "--request", "add login"]);
    expect(dotagent(p, ["init", "--request", "add signup", "--yes"]).code).toBe(0);
    expect(dotagent(p, ["archive", "list", "--json"]).json.archives.map((a: { reason: string }) => a.reason)).toEqual([
      "replaced by a new workflow",
    ]);
  });
});

describe.skipIf(!hasScript)("status after a kill of dotagent run given --approve auto, at a gate", () => {
  it("says the run ended and that run goes on approving it itself, not 'waiting for approval' or 'asks you'", () => {
    const p = tempProject();
    dotagent(p, ["init", "--request", "add login"]);
    dotagent(p, ["phase", "start", "REQUIREMENTS"]);
    writeJson(p, "memory/reports/demand.json", {
      request: "add login",
      summary: "sign in",
      user_stories: [{ id: "US-1", as_a: "user", i_want: "to sign in", so_that: "I reach my account" }],
      acceptance_criteria: [{ id: "AC-1", story: "US-1", text: "a wrong password shows an error" }],
      open_questions: [],
    });
    const gone = spawnSync(process.execPath, ["-e", ""]).pid!;
    mkdirSync(join(p, "memory", "runs"), { recursive: true });
    writeFileSync(
      join(p, "memory", "runs", ".lock"),
      JSON.stringify({
        pid: gone,
        hostname: hostname(),
        acquired_at: new Date().toISOString(),
        command: "run",
        token: "t",
      }),
    );
    writeJson(p, "memory/runs/wf-add-login/run.checkpoint.json", {
      id: "run",
      seq: 1,
      saved_at: new Date().toISOString(),
      data: {
        workflow_started_at: readJson(p, "memory/state/phase.json").started_at,
        feedback: [],
        pending: null,
        approve: "auto",
      },
    });
    const screen = onTerminal(p, ["status"]);
    expect(screen.split("\n")[0]).toBe(
      "Workflow wf-add-login at REQUIREMENTS phase (interrupted: the dotagent run working on it ended)",
    );
    expect(screen).toContain(
      "\nNext: dotagent run goes on (it approves memory/reports/demand.json itself: --approve auto)\n",
    );
  });
});
