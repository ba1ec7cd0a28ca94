// `dotagent run` as a person sees it, through a real terminal (util-linux `script` gives the built
// CLI a pty): the live line while an agent works (redrawn, never left in the scrollback), each
// step's time, the task bar over the whole plan kept in the scrollback, the summary; the gates
// showing the requirements and the designs and taking typed feedback; Ctrl-C; NO_COLOR. The Agent
// SDK is a stand-in package in the project (support/fake-agent-sdk.mjs); the real SDK and Claude
// Code are in test/claude/run-journey.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, REPO, dotagent, removeTemps, tempProject, treeBytes } from "./support/cli.js";
import { startApiStandIn, type ApiStandIn } from "./support/api-stand-in.js";
import { screenLines } from "../scripts/terminal-screen.mjs";

const hasScript = spawnSync("script", ["--version"]).status === 0;

// The API address the run checks before it starts: anything that answers will do.
let api: ApiStandIn;
let apiUrl = "";
beforeAll(async () => {
  api = await startApiStandIn();
  apiUrl = api.url;
});
afterAll(() => {
  removeTemps();
  api.stop();
});

/** A project with the stand-in SDK in its node_modules and the CLI copied into it (so it finds that SDK). */
function project(): { root: string; cli: string; log: string } {
  const root = tempProject();
  const sdk = join(root, "node_modules/@anthropic-ai/claude-agent-sdk");
  mkdirSync(sdk, { recursive: true });
  writeFileSync(
    join(sdk, "package.json"),
    JSON.stringify({
      name: "@anthropic-ai/claude-agent-sdk",
      version: "0.3.0-fake",
      type: "module",
      main: "sdk.mjs",
      exports: { ".": "./sdk.mjs" },
    }),
  );
  copyFileSync(join(REPO, "test/support/fake-agent-sdk.mjs"), join(sdk, "sdk.mjs"));
  mkdirSync(join(root, "bin"));
  const cli = join(root, "bin/dotagent.mjs");
  copyFileSync(CLI, cli);
  return { root, cli, log: join(root, "sdk-calls.log") };
}

interface Screen {
  code: number | null;
  /** Every byte the terminal received. */
  raw: string;
  /** What stays on the screen and in the scrollback: each line as the terminal leaves it. */
  scrollback(): string[];
}

const ESC = "\u001b";
const stripAnsi = (text: string) => text.replace(new RegExp(`${ESC}\\[[0-9;?]*[A-Za-z]`, "g"), "");

/**
 * Runs the CLI on a terminal of 100 columns; `react` sees the screen so far after each chunk and
 * returns keys to type (or undefined).
 */
function onTerminal(
  cwd: string,
  args: string[],
  env: Record<string, string>,
  react: (raw: string) => string | undefined = () => undefined,
): Promise<Screen> {
  const quoted = [process.execPath, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  const child = spawn("script", ["-qefc", `stty cols 100 rows 40; ${quoted}`, "/dev/null"], {
    cwd,
    env: { ...process.env, TERM: "xterm", ANTHROPIC_BASE_URL: apiUrl, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let raw = "";
  child.stdout.on("data", (d: Buffer) => {
    raw += d.toString();
    const keys = react(raw);
    if (keys !== undefined) child.stdin.write(keys);
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
  return new Promise((done) =>
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, raw, scrollback: () => screenLines(raw) });
    }),
  );
}

/**
 * Answers each question once, when it has appeared since the previous answer (a question is
 * redrawn on every key, so counting all its appearances would answer one not asked yet).
 */
function answers(...steps: Array<{ when: RegExp; keys: string }>): (raw: string) => string | undefined {
  let next = 0;
  let from = 0;
  return (raw) => {
    // One chunk may hold more than one question (or the text a step waits for and the question after it).
    let keys: string | undefined;
    for (let seen; steps[next] && (seen = steps[next]!.when.exec(raw.slice(from))); next++) {
      from += seen.index + seen[0].length;
      keys = (keys ?? "") + steps[next]!.keys;
    }
    return keys;
  };
}

/** The CLI without a terminal; asynchronous, so this process's API stand-in keeps answering. */
function runPiped(
  cwd: string,
  args: string[],
  env: Record<string, string>,
  program = process.execPath,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(program, args, {
    cwd,
    env: { ...process.env, NO_COLOR: "1", ANTHROPIC_BASE_URL: apiUrl, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((done) => child.on("close", (status) => done({ status, stdout, stderr })));
}

const calls = (log: string) =>
  existsSync(log)
    ? readFileSync(log, "utf8")
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { output: string; resume: string | null; feedback: string | null })
    : [];

describe.skipIf(!hasScript)("dotagent run on a terminal", () => {
  it("a clean run: a live line while agents work (never in the scrollback), each step's time, the task bar kept (1/3, 2/3, 3/3), no 'repaired', the summary", async () => {
    const { root, cli, log } = project();
    const screen = await onTerminal(
      root,
      [cli, "run", "add login", "--approve", "auto", "--agents", join(REPO, "agents")],
      { FAKE_SDK_LOG: log, FAKE_SDK_DELAY_MS: "700" },
    );
    expect(screen.code, screen.raw).toBe(0);
    const lines = screen.scrollback();
    const text = lines.join("\n");
    // The live line was drawn (redrawn in place, with the elapsed time and the agent's last move)…
    expect(screen.raw).toMatch(
      /\r\u001b\[2K(?:\u001b\[36m)?  . pm writes memory\/reports\/demand\.json · \d+\.\ds · Read memory\/reports\/demand\.json/,
    );
    expect(screen.raw).toMatch(/ · [1-9]\d*\.\ds · /); // the clock ticked while the agent worked (past 1 s: two turns of 700 ms; more on a busy machine)
    // …and erased: the scrollback holds what happened, not what was happening.
    expect(text).not.toMatch(/ writes memory\//);
    expect(lines).toContainEqual(expect.stringMatching(/^dotagent run: workflow wf-add-login "add login" started$/));
    expect(lines).toContainEqual(expect.stringMatching(/^  ✓ pm wrote memory\/reports\/demand\.json +[1-9]\d*\.\ds$/));
    expect(lines).toContainEqual(
      expect.stringMatching(/^  ✓ architect robust wrote memory\/reports\/designs\/robust\.json +[1-9]\d*\.\ds$/),
    );
    for (const [done, bar] of [
      [1, "####--------"],
      [2, "########----"],
      [3, "############"],
    ] as const) {
      expect(lines).toContainEqual(
        expect.stringMatching(new RegExp(`^  ✓ task-00\\d .+ +\\d+\\.\\ds  \\[${bar}\\] ${done}/3 tasks$`)),
      );
    }
    expect(lines.filter((l) => /^[A-Z]+$/.test(l))).toEqual([
      "REQUIREMENTS",
      "ARCHITECTURE",
      "IMPLEMENTATION",
      "VERIFICATION",
      "REFLECTION",
    ]);
    expect(text).not.toMatch(/repaired|\(s\)/i);
    const summary = lines.findIndex((l) =>
      /^Workflow wf-add-login complete in \d+(\.\d)?s, 9 agent sessions, 10 reports written:$/.test(l),
    );
    expect(summary, text).toBeGreaterThan(0);
    // In the order they were written (task-001 and task-003 run side by side: either first).
    expect(lines.slice(summary + 1, summary + 11).sort()).toEqual(
      [
        "demand",
        "designs/minimal",
        "designs/robust",
        "roundtable",
        "final_design",
        "tasks/task-001",
        "tasks/task-002",
        "tasks/task-003",
        "verification",
        "reflection",
      ]
        .map((r) => `  memory/reports/${r}.json`)
        .sort(),
    );
    // Colour on a terminal…
    expect(screen.raw).toContain(`${ESC}[32m✓${ESC}[39m`);
    expect(calls(log)).toHaveLength(9);
  }, 600_000);

  it("NO_COLOR: the same run without a colour code (the live line still redrawn)", async () => {
    const { root, cli } = project();
    const screen = await onTerminal(
      root,
      [cli, "run", "add login", "--approve", "auto", "--agents", join(REPO, "agents")],
      { NO_COLOR: "1", FAKE_SDK_DELAY_MS: "100" },
    );
    expect(screen.code, screen.raw).toBe(0);
    expect(screen.raw).not.toMatch(/\u001b\[(?:\d+;)*(?:1|2|22|3\d|9\d)m/);
    expect(screen.raw).toContain(`\r${ESC}[2K`);
  }, 600_000);

  it("the gates: the requirements and the designs shown; typed feedback goes back to the pm, the gate is asked again; the pick", async () => {
    const { root, cli, log } = project();
    const screen = await onTerminal(
      root,
      [cli, "run", "add login", "--agents", join(REPO, "agents")],
      { FAKE_SDK_LOG: log },
      answers(
        { when: /Approve the requirements\?/, keys: `${ESC}[B\r` }, // "Change something"
        { when: /What should the pm change\?/, keys: "sessions last 7 days\r" },
        { when: /Users sign in with email and password; sessions last 7 days\./, keys: "" },
        { when: /Approve the requirements\?/, keys: "\r" }, // Approve (the first choice)
        { when: /Which design\?/, keys: `${ESC}[B\r` }, // robust
      ),
    );
    expect(screen.code, screen.raw).toBe(0);
    const text = screen.scrollback().join("\n");
    expect(text).toContain(
      [
        "  The requirements (memory/reports/demand.json):",
        "  Users sign in with email and password.",
        "  Stories",
        "    US-1  as a registered user, I want to sign in with my email and password, so that I can reach my account",
        "  Acceptance criteria",
        "    AC-1  A correct email and password open the dashboard.",
        "    AC-2  A wrong password shows an error and creates no session.",
        "  Open questions",
        "    -  Should sessions end when the password changes?",
      ].join("\n"),
    );
    expect(text).toMatch(/✓ pm revised memory\/reports\/demand\.json +\d/);
    expect(text).toContain("  Users sign in with email and password; sessions last 7 days.");
    expect(text).toContain(
      "  Designs\n    minimal  Signed cookie, one route, one middleware.  ← recommended\n    robust   Session table; revocation possible later; three times the work.\n  The roundtable recommends minimal: meets every criterion with a third of the change",
    );
    expect(text).toMatch(/✓ design robust chosen: Session table/);
    expect(calls(log).filter((c) => c.output === "memory/reports/demand.json")).toEqual([
      { output: "memory/reports/demand.json", resume: null, feedback: null },
      { output: "memory/reports/demand.json", resume: null, feedback: "sessions last 7 days" },
    ]);
    expect(JSON.parse(readFileSync(join(root, "memory/reports/final_design.json"), "utf8"))).toMatchObject({
      chosen: "robust",
      approved_by: "user",
    });
  }, 600_000);

  it("Ctrl-C at a gate: one plain line (nothing approved, the workflow as it was, what to type), no prompt left drawn, exit 130, the state byte for byte", async () => {
    const { root, cli, log } = project();
    const agents = ["--agents", join(REPO, "agents")];
    expect((await runPiped(root, [cli, "run", "add login", ...agents], { FAKE_SDK_LOG: log })).status).toBe(5);
    const phaseBefore = readFileSync(join(root, "memory/state/phase.json"));
    // What is on disk while the gate asks (the run's lock aside, released as it ends): Ctrl-C must leave it so.
    const onDisk = () =>
      Object.fromEntries(Object.entries(treeBytes(join(root, "memory"))).filter(([file]) => file !== "runs/.lock"));
    let asking: Record<string, string> | undefined;
    const ask = answers({ when: /Approve the requirements\?/, keys: "\u0003" });
    const screen = await onTerminal(root, [cli, "run", ...agents], { FAKE_SDK_LOG: log }, (raw) => {
      const keys = ask(raw);
      if (keys !== undefined) asking = onDisk();
      return keys;
    });
    expect(screen.code, screen.raw).toBe(130);
    const lines = screen.scrollback().filter((l) => l !== "");
    // The gate was shown, then the question erased: no `✖ Approve the requirements? › Approve`.
    expect(lines).toContain("  The requirements (memory/reports/demand.json):");
    expect(lines.join("\n")).not.toMatch(/✖|›|Approve the requirements\?/);
    expect(lines.filter((l) => l.startsWith("dotagent: "))).toEqual([
      "dotagent: interrupted at the REQUIREMENTS gate: nothing approved, the workflow is as it was; `dotagent run` asks again",
    ]);
    expect(lines.at(-1)).toMatch(/^dotagent: interrupted at the REQUIREMENTS gate/);
    expect(screen.raw.slice(screen.raw.lastIndexOf("\u001b[?25l"))).toContain("\u001b[?25h"); // the cursor shown again
    expect(asking).toBeDefined();
    expect(onDisk()).toEqual(asking);
    expect(readFileSync(join(root, "memory/state/phase.json"))).toEqual(phaseBefore);
    expect(existsSync(join(root, "memory/runs/.lock"))).toBe(false);
    expect(calls(log)).toHaveLength(1);
  }, 600_000);

  it("Ctrl-C while an architect works: 'interrupted; `dotagent run` continues', exit 130, the runner lock released, the session kept; the next run continues it", async () => {
    const { root, cli, log } = project();
    const args = [cli, "run", "add login", "--approve", "auto", "--agents", join(REPO, "agents")];
    let sent = false;
    const screen = await onTerminal(root, args, { FAKE_SDK_LOG: log, FAKE_SDK_HANG: "designs/robust" }, (raw) => {
      // The minimal design written, robust's architect still at work: the person presses Ctrl-C.
      if (sent || !/architect minimal wrote/.test(stripAnsi(raw))) return undefined;
      sent = true;
      return "\u0003";
    });
    expect(screen.code, screen.raw).toBe(130);
    const lines = screen.scrollback();
    expect(lines).toContain(
      "  ! interrupted: stopping 1 agent; its session is kept for the next run (Ctrl-C again stops at once)",
    );
    expect(lines).toContain(
      "dotagent: interrupted; `dotagent run` continues (the session of architect.robust.s1 is kept; nothing was marked failed)",
    );
    expect(existsSync(join(root, "memory/runs/.lock"))).toBe(false);
    const record = JSON.parse(
      readFileSync(join(root, "memory/runs/wf-add-login/architect.robust.s1.checkpoint.json"), "utf8"),
    ).data;
    expect(record).toMatchObject({ status: "running", session_id: expect.any(String) });
    expect(JSON.parse(readFileSync(join(root, "memory/state/phase.json"), "utf8"))).toMatchObject({
      current_phase: "ARCHITECTURE",
      phase_status: "in_progress",
    });
    // The next run (remembered: --approve auto) continues robust's session and finishes.
    const again = await runPiped(root, [cli, "run", "--agents", join(REPO, "agents")], { FAKE_SDK_LOG: log });
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).toContain("gates approved automatically: --approve auto is remembered for this workflow");
    const robust = calls(log).filter((c) => c.output === "memory/reports/designs/robust.json");
    expect(robust.map((c) => c.resume)).toEqual([null, record.session_id]);
  }, 600_000);
});

/** A shell command as a person pastes it, with `dotagent` on PATH the project's copy of the CLI. */
function inShell(
  root: string,
  cli: string,
  command: string,
  env: Record<string, string>,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const bin = join(root, "path-bin");
  if (!existsSync(bin)) {
    mkdirSync(bin);
    writeFileSync(join(bin, "dotagent"), `#!/bin/sh\nexec '${process.execPath}' '${cli}' "$@"\n`, { mode: 0o755 });
  }
  return runPiped(root, ["-c", command], { PATH: `${bin}:${process.env.PATH ?? ""}`, ...env }, "sh");
}

describe("without a terminal (built CLI)", () => {
  it("a gate is said once: which gate, what it approves (as a terminal shows it), the commands that answer it; each one, pasted, does what it says", async () => {
    const { root, cli, log } = project();
    const agents = ["--agents", join(REPO, "agents")];
    const first = await runPiped(root, [cli, "run", "add login", ...agents], { FAKE_SDK_LOG: log });
    expect(first.status, first.stderr).toBe(5);
    const approve = `dotagent phase approve REQUIREMENTS && dotagent run --agents ${REPO}/agents`;
    const change = `dotagent run --agents ${REPO}/agents --change "<what should change>"`;
    expect(first.stdout.split("\n").slice(0, 13)).toEqual([
      "The REQUIREMENTS gate waits for you: approve memory/reports/demand.json?",
      "  Users sign in with email and password.",
      "  Stories",
      "    US-1  as a registered user, I want to sign in with my email and password, so that I can reach my account",
      "  Acceptance criteria",
      "    AC-1  A correct email and password open the dashboard.",
      "    AC-2  A wrong password shows an error and creates no session.",
      "  Open questions",
      "    -  Should sessions end when the password changes?",
      "",
      `  Approve:          ${approve}`,
      `  Ask for changes:  ${change}   (your words in place of <what should change>)`,
      "Nothing is approved until you answer.",
    ]);
    // Once: the question and the report are not said again on stderr.
    const both = first.stdout + first.stderr;
    expect(both.match(/demand\.json\?/g)).toHaveLength(1);
    expect(both.match(/Users sign in with email and password\./g)).toHaveLength(1);
    expect(first.stderr).toContain("! stopped at the REQUIREMENTS gate for your answer");
    // --json: the gate as fields.
    const json = await runPiped(root, [cli, "run", ...agents, "--json"], { FAKE_SDK_LOG: log });
    expect(json.status).toBe(5);
    expect(JSON.parse(json.stdout)).toMatchObject({
      outcome: "decision",
      decision: {
        question: "Approve memory/reports/demand.json?",
        default: false,
        yes: "dotagent phase approve REQUIREMENTS",
        no: change,
      },
      gate: {
        step: "REQUIREMENTS",
        report: "memory/reports/demand.json",
        shown: first.stdout.split("\n").slice(1, 9),
        approve,
        change,
      },
    });
    // "Ask for changes", the person's words in place of the placeholder: the pm revises demand.json with them, the gate again.
    const changed = await inShell(root, cli, change.replace("<what should change>", "sessions last 7 days"), {
      FAKE_SDK_LOG: log,
    });
    expect(changed.status, changed.stderr).toBe(5);
    expect(changed.stdout).toMatch(
      /^The REQUIREMENTS gate waits for you: approve memory\/reports\/demand\.json\?\n  Users sign in with email and password; sessions last 7 days\.\n/,
    );
    expect(changed.stderr).toMatch(/✓ pm revised memory\/reports\/demand\.json/);
    expect(
      calls(log)
        .filter((c) => c.output === "memory/reports/demand.json")
        .map((c) => c.feedback),
    ).toEqual([null, "sessions last 7 days"]);
    expect(JSON.parse(readFileSync(join(root, "memory/state/phase.json"), "utf8")).user_checkpoints).toEqual([]);
    // The placeholder pasted as it is: refused, nothing sent.
    const literal = await inShell(root, cli, change, { FAKE_SDK_LOG: log });
    expect([literal.status, literal.stderr]).toEqual([
      2,
      'dotagent: --change: put what should change in place of <what should change>, e.g. dotagent run --change "sessions last 7 days"\n',
    ]);
    // "Approve": the requirements approved, and the run goes on to the next gate, the design pick.
    const approved = await inShell(root, cli, approve, { FAKE_SDK_LOG: log });
    expect(approved.status, approved.stderr).toBe(5);
    expect(JSON.parse(readFileSync(join(root, "memory/state/phase.json"), "utf8")).user_checkpoints).toEqual([
      expect.objectContaining({ phase: "REQUIREMENTS" }),
    ]);
    const pick = approved.stdout.split("\n");
    expect(
      pick.slice(
        pick.indexOf("Which design? Options: minimal, robust; the roundtable recommends minimal."),
        pick.indexOf("Which design? Options: minimal, robust; the roundtable recommends minimal.") + 4,
      ),
    ).toEqual([
      "Which design? Options: minimal, robust; the roundtable recommends minimal.",
      `  dotagent run --agents ${REPO}/agents --design minimal                 Signed cookie, one route, one middleware. (recommended)`,
      `  dotagent run --agents ${REPO}/agents --design robust                  Session table; revocation possible later; three times the work.`,
      `  ${change}  the designs revised with your words, then the pick again (your words in place of <what should change>)`,
    ]);
    // --change at the pick: every architect revises with the words, the roundtable compares again.
    const redesigned = await inShell(root, cli, change.replace("<what should change>", "use OAuth"), {
      FAKE_SDK_LOG: log,
    });
    expect(redesigned.status, redesigned.stderr).toBe(5);
    expect(
      calls(log)
        .filter((c) => c.feedback === "use OAuth")
        .map((c) => c.output)
        .sort(),
    ).toEqual([
      "memory/reports/designs/minimal.json",
      "memory/reports/designs/robust.json",
      "memory/reports/roundtable.json",
    ]);
  }, 600_000);

  it("--change where no gate waits: one line, exit 2, nothing run", async () => {
    const { root, cli, log } = project();
    expect((await runPiped(root, [cli, "init", "--request", "add login"], {})).status).toBe(0);
    const before = treeBytes(join(root, "memory"));
    const none = await runPiped(root, [cli, "run", "--change", "more", "--agents", join(REPO, "agents")], {
      FAKE_SDK_LOG: log,
    });
    expect([none.status, none.stderr]).toEqual([
      2,
      "dotagent: --change answers the gate a workflow waits at, and workflow wf-add-login is at REQUIREMENTS, not at a gate that takes changes; run dotagent run without --change\n",
    ]);
    expect(treeBytes(join(root, "memory"))).toEqual(before);
    expect(calls(log)).toEqual([]);
  });
});

describe("run --help (built CLI)", () => {
  it("each option in a line, what it needs (the SDK, a key or a login), five examples; short", () => {
    const help = dotagent(REPO, ["run", "--help"]).stdout;
    const lines = help.trimEnd().split("\n");
    const usage = lines.find((l) => l.startsWith("Usage: "))!;
    const flags = [...usage.matchAll(/\[(-{1,2}[a-z-]+)/g)].map((m) => m[1]!);
    expect(flags).toEqual([
      "--workflow",
      "--approve",
      "--change",
      "--design",
      "--max-parallel",
      "--max-cost",
      "--agents",
      "--claims",
      "--remote",
      "--until-tasks",
      "--worker",
      "--idle",
      "-q",
      "--json",
    ]);
    for (const flag of flags.filter((f) => f !== "--json"))
      expect(
        lines.filter((l) => new RegExp(`^  (-q, )?${flag}\\b`).test(l)),
        flag,
      ).toHaveLength(1);
    expect(help).toContain("npm install @anthropic-ai/claude-agent-sdk");
    expect(help).toContain("ANTHROPIC_API_KEY");
    expect(help).toContain("/login");
    expect(lines.filter((l) => /^  dotagent run\b/.test(l))).toHaveLength(5);
    expect(lines.length).toBeLessThanOrEqual(31);
    expect(Math.max(...lines.filter((l) => l !== usage).map((l) => l.length))).toBeLessThanOrEqual(120);
  });
});

describe("checks before anything starts (built CLI)", () => {
  it("an API address nobody answers: one line, exit 1, nothing written, no agent", async () => {
    const { root, cli, log } = project();
    const closed = createServer().listen(0, "127.0.0.1");
    await new Promise((resolve) => closed.once("listening", resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const r = spawnSync(process.execPath, [cli, "run", "add login", "--agents", join(REPO, "agents")], {
      cwd: root,
      env: { ...process.env, NO_COLOR: "1", ANTHROPIC_BASE_URL: url, FAKE_SDK_LOG: log },
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split("\n")).toEqual([
      `dotagent: the Claude API at ${url} does not answer (connection refused); check ANTHROPIC_BASE_URL and the network, then run dotagent run again (nothing was started)`,
    ]);
    expect(existsSync(join(root, "memory"))).toBe(false);
    expect(calls(log)).toEqual([]);
  });
});

describe("a new request after a complete workflow (built CLI, issue 42)", () => {
  it('dotagent run --workflow NAME "<request>" archives it and starts the new one without asking, as /develop does', async () => {
    const { root, cli, log } = project();
    mkdirSync(join(root, ".dotagent/workflows"), { recursive: true });
    writeFileSync(
      join(root, ".dotagent/workflows/one.json"),
      JSON.stringify({ steps: [{ id: "ONLY", kind: "agent", agent: "pm", report: "demand.json" }] }),
    );
    const agents = ["--agents", join(REPO, "agents")];
    expect(
      (
        await runPiped(root, [cli, "run", "--workflow", "one", "first", ...agents], {
          FAKE_SDK_LOG: log,
          FAKE_SDK_DELAY_MS: "0",
        })
      ).status,
    ).toBe(0);
    const second = await runPiped(root, [cli, "run", "--workflow", "one", "login fails with +", ...agents], {
      FAKE_SDK_LOG: log,
      FAKE_SDK_DELAY_MS: "0",
    });
    expect([second.status, second.stdout]).toEqual([
      0,
      expect.stringMatching(/^Workflow wf-login-fails-with complete in /),
    ]);
    expect(second.stderr).toMatch(/the previous workflow is archived as wf-first_\d{8}T\d{6}Z\.tar\.gz/);
    expect(second.stderr).not.toContain("a person must decide");
    const phase = JSON.parse(readFileSync(join(root, "memory/state/phase.json"), "utf8"));
    expect([phase.request, phase.workflow.name]).toEqual(["login fails with +", "one"]);
    expect(calls(log)).toHaveLength(2);
  }, 60_000);
});
