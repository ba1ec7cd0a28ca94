// examples/agent-sdk/run.mjs with the REAL Claude Agent SDK (and the Claude Code binary it ships)
// against the scripted model server (opt-in like the other real-binary tests: DOTAGENT_E2E_CLAUDE=1).
// A clean run, then runs killed with kill -9 (the whole process group: the program and its
// Claude Code children) when the server receives chosen requests, each followed by a restart,
// until the program finishes. The server log shows which session asked what: no job whose
// completion was recorded is asked again, and an interrupted job's session is continued (same
// session id), not started over. Without the opt-in, only the SDK-free checks run.
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ENABLED, ROOT, claudeEnv } from "./claude/harness.js";
import { startScriptedModel, type LogEntry, type ScriptedModel } from "./claude/scripted-model/server.js";
import { JOURNEY_MORE } from "./support/journey-tier.js";

const EXAMPLE = join(ROOT, "examples", "agent-sdk", "run.mjs");
const JOBS = ["login", "search", "export"];
const temps: string[] = [];
const temp = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  temps.push(d);
  return d;
};
afterAll(() => temps.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

interface Run {
  code: number | null;
  signal: string | null;
  stderr: string;
  /** Server requests made during this run: [first, last]. */
  requests: [number, number];
}

interface Scenario {
  project: string;
  home: string;
  logFile: string;
  server: ScriptedModel;
  /** Whether the running program is killed when the server receives request k. */
  killWhen: ((k: number) => boolean) | null;
  kill: () => void;
}

async function scenario(): Promise<Scenario> {
  const project = temp("dotagent-sdk-example-");
  const home = temp("dotagent-sdk-home-");
  const logFile = join(project, "..", `${project.split("/").pop()}.server.jsonl`);
  temps.push(logFile);
  const s: Scenario = {
    project,
    home,
    logFile,
    server: undefined as unknown as ScriptedModel,
    killWhen: null,
    kill: () => {},
  };
  s.server = await startScriptedModel({
    logFile,
    agentsDir: join(ROOT, "agents"),
    onRequest: (k) => {
      if (s.killWhen?.(k)) {
        s.kill();
        return "hang";
      }
      return "answer";
    },
  });
  return s;
}

/** Runs the example once; kills its process group when `killWhen` says so at a request. */
function runExample(s: Scenario, killWhen: ((k: number) => boolean) | null = null): Promise<Run> {
  const first = s.server.requests() + 1;
  s.killWhen = killWhen;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [EXAMPLE, s.project], {
      cwd: s.project,
      env: claudeEnv(s.home, { ANTHROPIC_BASE_URL: s.server.url, ANTHROPIC_API_KEY: "x" }),
      stdio: ["ignore", "ignore", "pipe"],
      detached: true, // its own process group, so kill -9 reaches the Claude Code children too
    });
    s.kill = () => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // gone already
      }
    };
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("close", (code, signal) => {
      s.kill(); // no orphaned Claude Code child survives a run
      s.killWhen = null;
      resolve({ code, signal, stderr, requests: [first, s.server.requests()] });
    });
  });
}

function serverLog(s: Scenario): LogEntry[] {
  return readFileSync(s.logFile, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as LogEntry);
}

const checkpoints = (s: Scenario) => join(s.project, ".checkpoints", "agent-sdk-example");
function record(s: Scenario, file: string): Record<string, unknown> | undefined {
  const path = join(checkpoints(s), `${file}.checkpoint.json`);
  return existsSync(path)
    ? (JSON.parse(readFileSync(path, "utf8")) as { data: Record<string, unknown> }).data
    : undefined;
}
const completedJobs = (s: Scenario) => Object.keys((record(s, "coordinator")?.completed ?? {}) as object);
const sessionOf = (s: Scenario, job: string) => record(s, `job-${job}`)?.session_id as string | null | undefined;

function expectReports(s: Scenario): void {
  for (const job of JOBS) {
    const report = JSON.parse(readFileSync(join(s.project, "reports", `${job}.json`), "utf8")) as { request: string };
    expect(report.request).toMatch(/^add /);
  }
}

describe.skipIf(!ENABLED || !JOURNEY_MORE)(
  "examples/agent-sdk with the real Claude Agent SDK (DOTAGENT_E2E_CLAUDE=1)",
  () => {
    it("a clean run does the 3 jobs, 2 at a time; a second start asks the model nothing", async () => {
      const s = await scenario();
      try {
        const run = await runExample(s);
        expect(run.code, run.stderr).toBe(0);
        expectReports(s);
        expect(run.stderr).toContain("0 of 3 jobs done before; running 3, 2 at a time");
        expect(run.stderr).toContain("all 3 jobs done");
        const sessions = new Set(
          serverLog(s)
            .filter((e) => e.kind === "request" && e.who === "pm")
            .map((e) => e.session),
        );
        expect(sessions.size).toBe(3);
        expect(new Set(JOBS.map((j) => sessionOf(s, j)))).toEqual(sessions);
        const again = await runExample(s);
        expect(again.code).toBe(0);
        expect(again.stderr.trim()).toBe("all 3 jobs were done before: nothing to do");
        expect(again.requests[1]).toBe(again.requests[0] - 1); // no request at all
      } finally {
        await s.server.close();
      }
    }, 600_000);

    it("killed with kill -9 at three points, it resumes to completion without redoing a finished job", async () => {
      const s = await scenario();
      try {
        const runs: Array<Run & { doneBefore: string[]; sessionsBefore: Record<string, string | null | undefined> }> =
          [];
        // Killed at its 2nd request (two jobs started, none done), then at its first request once a
        // job is recorded done (another one under way), then at its 2nd; a run that finishes ends the series.
        const plans: Array<((first: number) => (k: number) => boolean) | null> = [
          (first) => (k) => k >= first + 1,
          () => () => completedJobs(s).length > 0,
          (first) => (k) => k >= first + 1,
          null,
        ];
        for (const plan of plans) {
          const doneBefore = completedJobs(s);
          const sessionsBefore = Object.fromEntries(JOBS.map((j) => [j, sessionOf(s, j)]));
          const run = await runExample(s, plan?.(s.server.requests() + 1) ?? null);
          runs.push({ ...run, doneBefore, sessionsBefore });
          if (run.code === 0) break;
          expect(run.signal, run.stderr).toBe("SIGKILL");
        }
        expect(runs.filter((r) => r.signal === "SIGKILL").length).toBeGreaterThanOrEqual(2);
        const last = runs.at(-1)!;
        expect(last.code, last.stderr).toBe(0);
        expectReports(s);
        const log = serverLog(s).filter((e) => e.kind === "request" && e.who === "pm");
        let resumedSessions = 0;
        for (const run of runs) {
          const asked = new Set(
            log.filter((e) => e.k >= run.requests[0] && e.k <= run.requests[1]).map((e) => e.session),
          );
          // A job completed before this run: its session is never asked again.
          for (const job of run.doneBefore) expect(asked.has(sessionOf(s, job)!), `${job} re-run`).toBe(false);
          // A job interrupted with a session: that same session continues.
          for (const job of JOBS) {
            const before = run.sessionsBefore[job];
            if (before && !run.doneBefore.includes(job) && asked.has(before)) resumedSessions++;
          }
        }
        expect(resumedSessions).toBeGreaterThan(0);
        expect(
          runs.some((r) => r.doneBefore.length > 0),
          "no run started with a job done: the kills came too early to test skipping",
        ).toBe(true);
        const manifest = record(s, "coordinator") as {
          completed: Record<string, { resumed: boolean; session_id: string }>;
        };
        expect(Object.keys(manifest.completed).sort()).toEqual([...JOBS].sort());
        expect(Object.values(manifest.completed).some((r) => r.resumed)).toBe(true);
        // Every job's report was written by one session: its own, continued across kills.
        for (const job of JOBS) expect(manifest.completed[job]!.session_id).toBe(sessionOf(s, job));
        console.log(
          `kill runs: ${runs.map((r) => `[${r.requests.join("-")}] ${r.signal ?? r.code}`).join(", ")}; resumed sessions seen ${resumedSessions}`,
        );
      } finally {
        await s.server.close();
      }
    }, 600_000);
  },
);

describe("examples/agent-sdk without the SDK", () => {
  it("the built library loads without the SDK and recoverableQuery says what to install (exit 1, one line)", async () => {
    const dir = temp("dotagent-no-sdk-");
    copyFileSync(join(ROOT, "dist", "index.mjs"), join(dir, "index.mjs"));
    const script = `import { checkpointStore, recoverableQuery } from "./index.mjs";
const store = checkpointStore(${JSON.stringify(dir)}, "s");
try { for await (const m of recoverableQuery({ prompt: "p", store })) {} } catch (e) { console.log(JSON.stringify({ code: e.code, exit: e.exitCode, message: e.message })); }`;
    const { spawnSync } = await import("node:child_process");
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: dir, encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual({
      code: "sdk_missing",
      exit: 1,
      message: "recoverableQuery needs the Claude Agent SDK: npm install @anthropic-ai/claude-agent-sdk",
    });
  });
});
