// `dotagent run`, the headless runner, end to end: the built CLI drives the whole workflow
// through the Claude Agent SDK, which runs the real Claude Code binary against the scripted model
// (opt-in: DOTAGENT_E2E_CLAUDE=1, like every real-binary test). Then the runner is killed with
// kill -9 (its whole process group: the runner and its Claude Code children) at several points,
// inside agent sessions and between them, and run again until the workflow is complete: no
// report is written twice, and no agent starts over (each agent job keeps one SDK session).
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, claudeEnv } from "./harness.js";
import { startScriptedModel, type LogEntry, type ScriptedModel } from "./scripted-model/server.js";
import { toolCalls, writes } from "./scripted-model/journey.js";
import { JOURNEY_MORE } from "../support/journey-tier.js";

const ENABLED = process.env.DOTAGENT_E2E_CLAUDE === "1";
const ALL = process.env.DOTAGENT_JOURNEY_ALL === "1";
const CLI = join(ROOT, "dist/dotagent.mjs");

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

interface Scenario {
  project: string;
  home: string;
  model: ScriptedModel;
  logFile: string;
  /** Set to kill the runner when the model gets request k: "hang" mid-session, "after" once answered. */
  kill?: { at: number; how: "hang" | "after" } | undefined;
  child?: ReturnType<typeof spawn> | undefined;
}

const temps: string[] = [];
function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

async function scenario(): Promise<Scenario> {
  const project = temp("dotagent-run-");
  const home = temp("dotagent-run-home-");
  const logFile = join(temp("dotagent-run-log-"), "log.jsonl");
  const s = { project, home, logFile } as Scenario;
  s.model = await startScriptedModel({
    logFile,
    agentsDir: join(ROOT, "agents"),
    onRequest: (k) => {
      if (!s.kill || s.kill.at !== k || !s.child?.pid) return "answer";
      const pid = s.child.pid;
      // A moment for the runner to record what it has (as a real crash would find it), then the whole group.
      setTimeout(() => killGroup(pid), s.kill.how === "hang" ? 300 : 60);
      return s.kill.how;
    },
  } as Parameters<typeof startScriptedModel>[0]);
  return s;
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}

function runDotagent(s: Scenario, args: string[]): Promise<Run> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [CLI, "run", ...args, "--json", "--dir", s.project], {
      cwd: s.project,
      env: claudeEnv(s.home, { ANTHROPIC_BASE_URL: s.model.url }),
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    s.child = child;
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => killGroup(child.pid!), 120_000);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, stdout, stderr });
    });
  });
}

const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
const log = (s: Scenario): LogEntry[] =>
  readFileSync(s.logFile, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as LogEntry);

/** Distinct SDK sessions per agent output file: one each means no agent ever started over. */
function sessionsPerOutput(s: Scenario): Record<string, number> {
  const entries = log(s);
  const sessions = new Map<string, Set<string>>();
  for (const c of toolCalls(entries)) {
    if (c.name !== "Write" && c.name !== "Read") continue;
    const file = String(c.input.file_path).replace(`${s.project}/`, "");
    const session = String(entries.find((e) => e.kind === "response" && e.k === c.k)?.session ?? "");
    if (!sessions.has(file)) sessions.set(file, new Set());
    sessions.get(file)!.add(session);
  }
  return Object.fromEntries([...sessions].map(([file, set]) => [file, set.size]));
}

const REPORTS = [
  "memory/reports/demand.json",
  "memory/reports/designs/minimal.json",
  "memory/reports/designs/robust.json",
  "memory/reports/roundtable.json",
  "memory/reports/tasks/task-001.json",
  "memory/reports/tasks/task-002.json",
  "memory/reports/tasks/task-003.json",
  "memory/reports/verification.json",
  "memory/reports/reflection.json",
];

/**
 * `afterKill`: the reports on disk when the killed run ended, and the first model request of the
 * run after it. A report on disk then is never written again; one that was not is written exactly
 * once after the kill (a Write the model sent just before the kill may never have run: under load
 * 60 ms is not enough for Claude Code to carry it out). An agent killed before its SDK session
 * reached the disk starts a new one.
 */
function expectComplete(
  s: Scenario,
  last: Run,
  options: { afterKill?: { onDisk: string[]; from: number } } = {},
): void {
  expect(last.code, last.stderr).toBe(0);
  expect(JSON.parse(last.stdout.trim().split("\n").at(-1)!)).toMatchObject({ ok: true, outcome: "complete" });
  const phase = readJson(join(s.project, "memory/state/phase.json"));
  expect((phase.completed_phases as Array<{ phase: string }>).map((p) => p.phase)).toEqual([
    "REQUIREMENTS",
    "ARCHITECTURE",
    "IMPLEMENTATION",
    "VERIFICATION",
    "REFLECTION",
  ]);
  for (const report of REPORTS) expect(existsSync(join(s.project, report)), report).toBe(true);
  // Every report written exactly once, each by one session.
  const calls = toolCalls(log(s));
  if (options.afterKill) {
    const { onDisk, from } = options.afterKill;
    const before = writes(
      calls.filter((c) => c.k < from),
      s.project,
    );
    const after = writes(
      calls.filter((c) => c.k >= from),
      s.project,
    );
    for (const report of REPORTS) {
      expect(before[report] ?? 0, `${report}: asked for once at most before the kill`).toBeLessThanOrEqual(1);
      expect(
        after[report] ?? 0,
        `${report}: ${onDisk.includes(report) ? "on disk at the kill, never written again" : "not on disk at the kill, written once after it"}`,
      ).toBe(onDisk.includes(report) ? 0 : 1);
    }
  } else {
    const written = writes(calls, s.project);
    for (const report of REPORTS) expect(written[report], report).toBe(1);
  }
  const sessions = sessionsPerOutput(s);
  for (const report of REPORTS)
    expect(sessions[report], `${report}: one SDK session`).toBeLessThanOrEqual(options.afterKill ? 2 : 1);
  // After a kill, only the jobs at work at that moment may have a second session.
  if (options.afterKill) expect(REPORTS.filter((r) => sessions[r] === 2).length).toBeLessThanOrEqual(3);
}

describe.skipIf(!ENABLED || !JOURNEY_MORE)(
  "dotagent run: the headless runner on the Agent SDK (DOTAGENT_E2E_CLAUDE=1)",
  () => {
    const scenarios: Scenario[] = [];
    beforeAll(() => {
      expect(existsSync(CLI)).toBe(true);
    });
    afterAll(async () => {
      for (const s of scenarios) await s.model.close();
      for (const dir of temps) rmSync(dir, { recursive: true, force: true });
    });

    // npm test's unattended run is the kill test's second run below, which goes to the end.
    it.runIf(ALL)(
      "runs a whole workflow unattended with --approve auto",
      async () => {
        const s = await scenario();
        scenarios.push(s);
        const run = await runDotagent(s, ["add login", "--approve", "auto"]);
        expectComplete(s, run);
        expect(run.stderr).toMatch(/✓ pm wrote memory\/reports\/demand\.json +\d+(\.\d)?s/);
        expect(run.stderr).toMatch(/\[############\] 3\/3 tasks/);
        expect(run.stderr).not.toMatch(/repaired/i);
        expect(JSON.parse(run.stdout.trim().split("\n").at(-1)!)).toMatchObject({
          agents: 9,
          reports: expect.arrayContaining(REPORTS),
        });
        const finalDesign = readJson(join(s.project, "memory/reports/final_design.json"));
        expect(finalDesign).toMatchObject({ chosen: "minimal", approved_by: "dotagent run --approve auto" });
        expect(existsSync(join(s.project, "memory/runs/.lock"))).toBe(false);
      },
      600_000,
    );

    // The gates without a terminal are in `npm test` with the stand-in SDK (src/run/runner.test.ts).
    it.runIf(ALL)(
      "without a terminal, stops at each gate with exit 5 and the decision; answered, it goes on",
      async () => {
        const s = await scenario();
        scenarios.push(s);
        const first = await runDotagent(s, ["add login"]);
        expect(first.code, first.stderr).toBe(5);
        // The decision's commands keep the --dir the run was given, so they act on this project.
        expect(JSON.parse(first.stdout)).toMatchObject({
          ok: false,
          outcome: "decision",
          decision: { yes: `dotagent phase --dir ${s.project} approve REQUIREMENTS` },
        });
        const approve = spawn(process.execPath, [CLI, "phase", "approve", "REQUIREMENTS", "--dir", s.project]);
        await new Promise((done) => approve.on("close", done));
        const second = await runDotagent(s, []);
        expect(second.code, second.stderr).toBe(5);
        expect(JSON.parse(second.stdout).decision).toMatchObject({
          yes: `dotagent run --dir ${s.project} --design minimal`,
          no: `dotagent run --dir ${s.project} --design robust`,
        });
        const third = await runDotagent(s, ["--design", "robust"]);
        expectComplete(s, third);
        expect(readJson(join(s.project, "memory/reports/final_design.json"))).toMatchObject({
          chosen: "robust",
          approved_by: "user",
        });
      },
      600_000,
    );

    // `script` (util-linux) gives the runner a terminal: the questions are asked there and answered
    // as a person would, when they appear; the requirements get typed feedback first.
    // With the stand-in SDK through a real pty in `npm test` (test/run-terminal.test.ts); with the
    // real SDK and client in `npm run journey`.
    it.runIf(ALL && spawnSync("script", ["--version"]).status === 0)(
      "on a terminal, shows the requirements, takes feedback for the pm, asks again, then the design",
      async () => {
        const s = await scenario();
        scenarios.push(s);
        const command = [process.execPath, CLI, "run", "add login", "--dir", s.project]
          .map((a) => `'${a.replace(/'/g, "'\\''")}'`)
          .join(" ");
        const child = spawn("script", ["-qefc", command, "/dev/null"], {
          cwd: s.project,
          env: { ...claudeEnv(s.home, { ANTHROPIC_BASE_URL: s.model.url }), TERM: "xterm" },
          stdio: ["pipe", "pipe", "pipe"],
        });
        let screen = "";
        const steps: Array<[RegExp, number, string]> = [
          [/Approve the requirements\?/, 1, "\u001b[B\r"], // Change something
          [/What should the pm change\?/, 1, "sessions last 7 days\r"],
          [/Approve the requirements\?/, 2, "\r"], // Approve
          [/Which design\?/, 1, "\u001b[B\r"], // one down from the recommended minimal: robust
        ];
        let answered = 0;
        child.stdout.on("data", (d: Buffer) => {
          screen += d.toString();
          const step = steps[answered];
          if (step && screen.split(step[0]).length - 1 >= step[1]) {
            answered++;
            child.stdin.write(step[2]);
          }
        });
        const code = await new Promise<number | null>((done) => child.on("close", done));
        expect(code, screen).toBe(0);
        expect(answered).toBe(4);
        expect(screen).toMatch(/Acceptance criteria\r?\n +AC-1 +A right password signs in; a wrong one does not\./);
        expect(screen).toMatch(/✓ pm revised memory\/reports\/demand\.json/);
        expect(readJson(join(s.project, "memory/reports/demand.json"))).toMatchObject({
          summary: "Users sign in with email and password; sessions last 7 days.",
        });
        expect(readJson(join(s.project, "memory/reports/final_design.json"))).toMatchObject({
          chosen: "robust",
          approved_by: "user",
        });
        expect(screen).toMatch(/Workflow wf-add-login complete in .+, 10 agent sessions, 10 reports written:/);
      },
      600_000,
    );

    // Ctrl-C through a real pty is in `npm test` with the stand-in SDK (test/run-terminal.test.ts).
    it.runIf(ALL && spawnSync("script", ["--version"]).status === 0)(
      "Ctrl-C on a terminal while an executor works: exit 130, the lock released, nothing failed; the next run continues the same SDK session",
      async () => {
        const s = await scenario();
        scenarios.push(s);
        const command = [process.execPath, CLI, "run", "add login", "--approve", "auto", "--dir", s.project]
          .map((a) => `'${a.replace(/'/g, "'\\''")}'`)
          .join(" ");
        // The executor of task-001 takes its time: the model holds its answers back.
        await s.model.close();
        s.model = await startScriptedModel({
          logFile: s.logFile,
          agentsDir: join(ROOT, "agents"),
          delayMs: (who) => (who === "executor" ? 1500 : 0),
        } as Parameters<typeof startScriptedModel>[0]);
        const child = spawn("script", ["-qefc", command, "/dev/null"], {
          cwd: s.project,
          env: { ...claudeEnv(s.home, { ANTHROPIC_BASE_URL: s.model.url }), TERM: "xterm" },
          stdio: ["pipe", "pipe", "pipe"],
        });
        let screen = "";
        let sent = false;
        child.stdout.on("data", (d: Buffer) => {
          screen += d.toString();
          if (!sent && /executor task-001|task-001 .* · \d/.test(screen)) {
            sent = true;
            setTimeout(() => child.stdin.write("\u0003"), 800);
          }
        });
        const code = await new Promise<number | null>((done) => child.on("close", done));
        expect(code, screen).toBe(130);
        expect(screen).toContain(
          "interrupted; `dotagent run` continues (the session of executor.task-001.s1 is kept; nothing was marked failed)",
        );
        expect(existsSync(join(s.project, "memory/runs/.lock"))).toBe(false);
        const tasks = readJson(join(s.project, "memory/state/execution.json")).tasks as Array<{
          id: string;
          status: string;
          attempts: number;
        }>;
        expect(tasks.find((t) => t.id === "task-001")).toMatchObject({ status: "pending", attempts: 0 });
        const again = await runDotagent(s, []);
        expectComplete(s, again);
        expect(
          (readJson(join(s.project, "memory/state/execution.json")).tasks as Array<{ attempts: number }>).every(
            (t) => t.attempts === 0,
          ),
        ).toBe(true);
      },
      600_000,
    );

    // Request numbers of a clean run: pm 1–3, architects 4–9, roundtable 10–12, executors 13–21,
    // qa 22–24, reflector 25–27. "hang" kills inside a session, "after" as a session ends.
    const LAST = 27;
    const points: Array<{ at: number; how: "hang" | "after" }> = ALL
      ? Array.from({ length: LAST }, (_, i) => [
          { at: i + 1, how: "hang" as const },
          { at: i + 1, how: "after" as const },
        ]).flat()
      : [{ at: 17, how: "hang" }];
    it.each(points)(
      "kill -9 at model request $at ($how), then run again: completes, nothing redone",
      async (point) => {
        const s = await scenario();
        scenarios.push(s);
        s.kill = point;
        const killed = await runDotagent(s, ["add login", "--approve", "auto"]);
        // After the last answer the run has little left to do: it may end (complete) before the kill,
        // 60 ms later, lands. Then the run after it has nothing to do and writes nothing.
        if (point.at === LAST && point.how === "after" && killed.signal === null)
          expect(killed.code, killed.stderr).toBe(0);
        else expect(killed.signal, killed.stderr).toBe("SIGKILL");
        s.kill = undefined;
        const onDisk = REPORTS.filter((r) => existsSync(join(s.project, r)));
        const from = s.model.requests() + 1;
        const again = await runDotagent(s, ["--approve", "auto"]);
        expectComplete(s, again, { afterKill: { onDisk, from } });
      },
      600_000,
    );
  },
);
