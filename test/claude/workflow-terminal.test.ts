// Claude Code's own Workflow tool in the INTERACTIVE client, in a terminal (tmux), against the
// scripted model (opt-in: DOTAGENT_E2E_CLAUDE=1; skipped without tmux; issue 43, slice 4). The
// person types "use a workflow"; the model launches a 3-agent script (two in parallel(), then one)
// in the background; the client's whole process group is killed with -9 while one agent works.
// The person comes back — `claude -r` (the same session) or `claude` (a new one) — and types
// "resume the cut-off workflow"; the model makes the call dotagent's SessionStart briefing hands,
// verbatim. Then: no finished agent asked the model again (its workflow-agent requests counted),
// the run completed, with the original args. `npm test` runs one case (inside the third agent,
// `claude -r`); DOTAGENT_JOURNEY_MORE=1 kills inside each agent in turn, for both ways back.
// Every wait is on the screen or the model's log, never on a time.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ENABLED, ROOT, fetchClaude } from "./harness.js";
import { JOURNEY_MORE } from "../support/journey-tier.js";
import { startScriptedModel, type LogEntry, type ScriptedModel } from "./scripted-model/server.js";
import { startTerminal, tmuxAvailable, type Terminal } from "./scripted-model/terminal.js";
import { TERMINAL_KEY } from "./scripted-model/terminal-journey.js";

const TMUX = tmuxAvailable();
const SCRIPT = `export const meta = { name: 'three-agents', description: 'Three agents, two in parallel', phases: [{ title: 'Fan' }, { title: 'Join' }] }
const [a, b] = await parallel([() => agent('alpha: answer alpha', { label: 'alpha', phase: 'Fan' }), () => agent('beta: answer beta', { label: 'beta', phase: 'Fan' })])
const c = await agent('gamma: join ' + a + ' and ' + b + ' for ' + JSON.stringify(args), { label: 'gamma', phase: 'Join' })
return { a, b, c }
`;
const ARGS = { topic: "probe", n: 3 };

interface JournalLine {
  type: string;
  key?: string;
  label?: string;
}
const lines = (file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as JournalLine);
const readLog = (file: string): LogEntry[] =>
  existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as LogEntry)
    : [];
const said = (e: LogEntry) => JSON.stringify(e.blocks ?? []);

/** Polls `check` every 250 ms until it holds; on timeout throws `what` with the screen. */
async function until(check: () => boolean, what: string, terminal: Terminal, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} never happened; the terminal shows:\n${terminal.screen()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe.skipIf(!ENABLED || !TMUX)("Claude Code's Workflow tool in the interactive terminal (tmux)", () => {
  let claude = "";
  let work = "";
  let model: ScriptedModel | undefined;
  let terminal: Terminal | undefined;
  beforeAll(() => {
    claude = fetchClaude();
  }, 600_000);
  afterEach(async () => {
    terminal?.close();
    await model?.close();
    rmSync(work, { recursive: true, force: true });
  });

  /**
   * The person's terminal: launch, kill -9 inside agent `killAt`, come back (`-r`: `claude -r`
   * and the newest session picked; `new`: `claude`), "resume the cut-off workflow", until the
   * model says the run is done. Returns what a test checks.
   */
  async function crashAndComeBack(killAt: number, back: "-r" | "new") {
    work = mkdtempSync(join(tmpdir(), "dotagent-wfterm-"));
    const home = join(work, "home");
    const project = join(work, "project");
    mkdirSync(home);
    mkdirSync(project);
    spawnSync("git", ["init", "-q"], { cwd: project });
    const installed = spawnSync(process.execPath, [join(ROOT, "dist/dotagent.mjs"), "install", "--json"], {
      cwd: project,
      encoding: "utf8",
      env: { ...process.env, HOME: home, CLAUDE_CONFIG_DIR: "" },
    });
    expect(installed.status, installed.stderr).toBe(0);
    // A person who has used Claude Code before: onboarding done, this folder trusted, the key approved.
    writeFileSync(
      join(home, ".claude.json"),
      JSON.stringify({
        hasCompletedOnboarding: true,
        customApiKeyResponses: { approved: [TERMINAL_KEY.slice(-20)], rejected: [] },
        projects: { [project]: { hasTrustDialogAccepted: true } },
      }),
    );
    const logFile = join(work, "model.jsonl");
    const asked: string[] = [];
    let phase = "first";
    let agents = 0;
    let killed = false;
    const runs = join(project, "memory/state/workflow-runs");
    model = await startScriptedModel({
      logFile,
      agentsDir: join(ROOT, "agents"),
      policyOptions: { workflow: { script: SCRIPT, args: ARGS } },
      onRequest: (_k, info) => {
        if (info.who !== "workflow-agent") return "answer";
        asked.push(phase);
        if (phase !== "first" || ++agents < killAt) return "answer";
        // The kill waits until dotagent has recorded the run (its PostToolUse hook), at most 30 s.
        void (async () => {
          const deadline = Date.now() + 30_000;
          while (!(existsSync(runs) && readdirSync(runs).length > 0) && Date.now() < deadline)
            await new Promise((r) => setTimeout(r, 100));
          killed = true;
          terminal?.kill9();
        })();
        return "hang";
      },
    });
    const env = { ANTHROPIC_API_KEY: TERMINAL_KEY, CLAUDE_CODE_AUTO_MODE_SERVER: "0" };
    const allow = ["--allowedTools", "Workflow"];
    terminal = startTerminal({ binary: claude, home, url: model.url, env }, project, allow);
    const t = terminal;
    await t.waitFor(/auto mode on/, 60_000);
    t.type("use a workflow: three agents");
    await until(() => killed && t.pid() === undefined, `the kill inside agent ${killAt}`, t);
    const projects = join(home, ".claude/projects", project.replace(/[^a-zA-Z0-9]/g, "-"));
    const sessionId = readdirSync(projects)
      .find((f) => f.endsWith(".jsonl"))!
      .replace(/\.jsonl$/, "");
    const runId = readdirSync(runs)[0]!;
    const kept = join(runs, runId);
    const before = lines(join(projects, sessionId, "subagents/workflows", runId, "journal.jsonl"));
    const done = new Set(before.filter((l) => l.type === "result").map((l) => l.key));
    const atKill = t.history();
    // The person comes back.
    phase = "resumed";
    if (back === "-r") {
      t.restart(["-r", ...allow]);
      await t.waitFor(/Resume session/, 60_000);
      t.press("Enter");
    } else t.restart(allow);
    await t.waitFor(/auto mode on/, 60_000);
    // dotagent's line for the person (the SessionStart hook's systemMessage), shown once the hook has answered.
    const source = back === "-r" ? "resume" : "startup";
    const came = (await t.waitFor(new RegExp(`SessionStart:${source} says`), 60_000)).replace(/\s+/g, " ");
    const typedAt = readLog(logFile).length;
    // The person types what the line says.
    t.type(/Type "([^"]+)" to finish it/.exec(came)?.[1] ?? "(the line named nothing to type)");
    await until(
      () =>
        readLog(logFile)
          .slice(typedAt)
          .some((e) => e.kind === "response" && e.who === "main" && said(e).includes("workflow done")),
      "the resumed run's end",
      t,
    );
    const record = JSON.parse(readFileSync(join(kept, "run.json"), "utf8")) as Record<string, unknown>;
    return {
      project,
      projects,
      sessionId,
      runId,
      kept,
      done,
      asked,
      rerun: asked.filter((p) => p === "resumed").length,
      record,
      came,
      atKill,
      end: t.history(),
      log: readFileSync(logFile, "utf8"),
    };
  }

  function expectResumed(s: Awaited<ReturnType<typeof crashAndComeBack>>, back: "-r" | "new") {
    // The model made the call the briefing handed, with the original args.
    expect(s.log).toContain(
      JSON.stringify({ scriptPath: join(s.kept, "script.js"), resumeFromRunId: s.runId, args: ARGS }).slice(1, -1),
    );
    // No finished agent asked the model again: only those without a result before the kill ran.
    expect(s.rerun, `finished before the kill: ${s.done.size}`).toBe(3 - s.done.size);
    expect(s.record).toMatchObject({ run_id: s.runId, args: ARGS, ended: { status: "completed" } });
    // What the person read after coming back: the run in plain words, what to type, what runs again.
    expect(s.came).toContain(
      `SessionStart:${back === "-r" ? "resume" : "startup"} says: dotagent: Claude Code workflow "three-agents" (run ${s.runId}) was cut off with ${s.done.size} of `,
    );
    expect(s.came).toMatch(/Type "resume the cut-off workflow" to finish it: [a-z, ]+ runs? again/);
    if (back === "-r") expect(s.record.session_id).toBe(s.sessionId);
    else expect(s.record.session_id).not.toBe(s.sessionId);
    const journal = lines(
      join(s.projects, String(s.record.session_id), "subagents/workflows", s.runId, "journal.jsonl"),
    );
    expect(journal.filter((l) => l.type === "result")).toHaveLength(3);
  }

  it("kill -9 inside agent 3 (gamma), then `claude -r`: the briefing's call resumes the run, only gamma runs again", async () => {
    const s = await crashAndComeBack(3, "-r");
    if (process.env.DOTAGENT_WFTERM_SHOW) console.log(`${s.came}\n-----\n${s.end}`);
    expectResumed(s, "-r");
    expect(s.done.size).toBe(2);
  }, 240_000);

  const more: Array<[number, "-r" | "new"]> = [
    [1, "-r"],
    [2, "-r"],
    [1, "new"],
    [2, "new"],
    [3, "new"],
  ];
  for (const [killAt, back] of more)
    it.runIf(JOURNEY_MORE)(
      `kill -9 inside agent ${killAt}, then ${back === "-r" ? "`claude -r`" : "a new session (`claude`)"}: the briefing's call resumes the run, no finished agent runs again`,
      async () => {
        const s = await crashAndComeBack(killAt, back);
        expectResumed(s, back);
      },
      240_000,
    );
});
