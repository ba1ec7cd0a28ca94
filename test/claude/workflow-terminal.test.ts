// Claude Code's own Workflow tool in the INTERACTIVE client, in a terminal (tmux), against the
// scripted model (opt-in: DOTAGENT_E2E_CLAUDE=1; skipped without tmux; issue 43, slice 4). The
// person types "use a workflow"; the model launches a 3-agent script (two in parallel(), then one)
// in the background; the client's whole process group is killed with -9 while one agent works.
// The person comes back — `claude -r` (the same session) or `claude` (a new one) — and types
// "resume the cut-off workflow"; the model makes the call dotagent's SessionStart briefing hands,
// verbatim. Then: no finished agent asked the model again (its workflow-agent requests counted),
// the run completed, with the original args, and the person read dotagent's plain line about the
// cut-off run and typed what it says. Compaction (`/compact`, and auto-compaction reached offline)
// while an agent works, and before the person resumes a cut-off run: test/claude/NOTES.md has what
// it does. `npm run test:clients` (DOTAGENT_JOURNEY_MORE=1; not CI, issue 41: CI's time) kills
// inside the third agent then `claude -r`, and inside each agent in turn, for both ways back, a
// fresh clone, a hand-edited journal and the compactions. Every wait is on the screen, the model's
// log or the client's files, never on a time.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ENABLED, ROOT, fetchClaude } from "./harness.js";
import { JOURNEY_MORE } from "../support/journey-tier.js";
import { startScriptedModel, type LogEntry, type ScriptedModel } from "./scripted-model/server.js";
import { startTerminal, tmuxAvailable, type Terminal } from "./scripted-model/terminal.js";
import { NO_GIT_STATUS, TERMINAL_KEY } from "./scripted-model/terminal-journey.js";
import { ARGS, SCRIPT, installedProject, lines } from "./workflow-script.js";

const TMUX = tmuxAvailable();
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

  /** A git project with dotagent installed, a person who has used Claude Code before; the paths a test reads. */
  function aProject() {
    work = mkdtempSync(join(tmpdir(), "dotagent-wfterm-"));
    const { home, project } = installedProject(work);
    // Onboarding done, this folder trusted, the key approved.
    writeFileSync(
      join(home, ".claude.json"),
      JSON.stringify({
        hasCompletedOnboarding: true,
        customApiKeyResponses: { approved: [TERMINAL_KEY.slice(-20)], rejected: [] },
        projects: { [project]: { hasTrustDialogAccepted: true } },
      }),
    );
    return {
      home,
      project,
      logFile: join(work, "model.jsonl"),
      runs: join(project, "memory/state/workflow-runs"),
      projects: join(home, ".claude/projects", project.replace(/[^a-zA-Z0-9]/g, "-")),
    };
  }
  const ENV = { ANTHROPIC_API_KEY: TERMINAL_KEY, CLAUDE_CODE_AUTO_MODE_SERVER: "0", ...NO_GIT_STATUS };
  const ALLOW = ["--allowedTools", "Workflow"];
  const sessions = (projects: string) =>
    readdirSync(projects)
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => f.replace(/\.jsonl$/, ""));

  /**
   * The person's terminal: launch, kill -9 inside agent `killAt`, come back (`-r`: `claude -r`
   * and the newest session picked; `new`: `claude`; `clone`: `claude` in a git clone of the
   * project with its memory committed), optionally compact first or edit dotagent's copy of the
   * journal, type what dotagent's line says (and "yes" to the question, when the run is the
   * person's to resume), until the model says the run is done. Returns what a test checks.
   */
  async function crashAndComeBack(
    killAt: number,
    back: "-r" | "new" | "clone",
    also: { compact?: boolean; editJournal?: boolean } = {},
  ) {
    const { home, project, logFile, runs, projects: firstProjects } = aProject();
    let projects = firstProjects;
    // What dotagent's copy of the journal holds (a clone gets only that copy).
    const keptResults = () =>
      readdirSync(runs).some(
        (id) =>
          existsSync(join(runs, id, "journal.jsonl")) &&
          lines(join(runs, id, "journal.jsonl")).filter((l) => l.type === "result").length >= killAt - 1,
      );
    const asked: string[] = [];
    let phase = "first";
    let agents = 0;
    let killed = false;
    model = await startScriptedModel({
      logFile,
      agentsDir: join(ROOT, "agents"),
      policyOptions: { workflow: { script: SCRIPT, args: ARGS } },
      onRequest: (_k, info) => {
        if (info.who !== "workflow-agent") return "answer";
        asked.push(phase);
        if (phase !== "first" || ++agents < killAt) return "answer";
        // The kill waits until dotagent has recorded the run (its PostToolUse hook), for a clone
        // until its copy holds the finished agents (the next agent's start copies them), at most 30 s.
        void (async () => {
          const deadline = Date.now() + 30_000;
          const ready = () => existsSync(runs) && readdirSync(runs).length > 0 && (back !== "clone" || keptResults());
          while (!ready() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
          killed = true;
          terminal?.kill9();
        })();
        return "hang";
      },
    });
    terminal = startTerminal({ binary: claude, home, url: model.url, env: ENV }, project, ALLOW);
    let t = terminal;
    await t.waitFor(/auto mode on/, 60_000);
    t.type("use a workflow: three agents");
    await until(() => killed && t.pid() === undefined, `the kill inside agent ${killAt}`, t);
    const sessionId = sessions(projects)[0]!;
    const runId = readdirSync(runs)[0]!;
    let kept = join(runs, runId);
    const before = lines(join(projects, sessionId, "subagents/workflows", runId, "journal.jsonl"));
    const done = new Set(before.filter((l) => l.type === "result").map((l) => l.key));
    const atKill = t.history();
    // The person's own edit of dotagent's copy, between the crash and the resume: no longer sealed.
    if (also.editJournal === true) {
      const file = join(kept, "journal.jsonl");
      writeFileSync(file, readFileSync(file, "utf8").replace('{"type":"launched"}', '{"type":"launched","by":"hand"}'));
    }
    // The person comes back.
    phase = "resumed";
    if (back === "clone") {
      // The project with its memory committed, cloned (another machine: another checkout's key).
      const git = (cwd: string, ...args: string[]) =>
        expect(spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd }).status).toBe(0);
      git(project, "add", "-A");
      git(project, "commit", "-qm", "the project with its memory");
      const clone = join(work, "clone");
      git(work, "clone", "-q", project, clone);
      const config = JSON.parse(readFileSync(join(home, ".claude.json"), "utf8")) as { projects: object };
      config.projects = { ...config.projects, [clone]: { hasTrustDialogAccepted: true } };
      writeFileSync(join(home, ".claude.json"), JSON.stringify(config));
      t.close();
      terminal = startTerminal({ binary: claude, home, url: model.url, env: ENV }, clone, ALLOW);
      t = terminal;
      projects = join(home, ".claude/projects", clone.replace(/[^a-zA-Z0-9]/g, "-"));
      kept = join(clone, "memory/state/workflow-runs", runId);
    } else if (back === "-r") {
      t.restart(["-r", ...ALLOW]);
      await t.waitFor(/Resume session/, 60_000);
      t.press("Enter");
    } else t.restart(ALLOW);
    await t.waitFor(/auto mode on/, 60_000);
    // dotagent's line for the person (the SessionStart hook's systemMessage), shown once the hook has answered.
    const source = back === "-r" ? "resume" : "startup";
    const came = (await t.waitFor(new RegExp(`SessionStart:${source} says`), 60_000)).replace(/\s+/g, " ");
    // A compaction before the person resumes: its SessionStart (source compact) hands the call again.
    let compacted = "";
    if (also.compact === true) {
      const now = back === "-r" ? sessionId : sessions(projects).find((id) => id !== sessionId)!;
      t.type("/compact");
      await until(() => hookSaid(projects, now, "compact").length > 0, "SessionStart with source compact", t);
      compacted = hookSaid(projects, now, "compact")[0]!;
    }
    const typedAt = readLog(logFile).length;
    // The person types what the line says.
    t.type(/Type "([^"]+)" to /.exec(came)?.[1] ?? "(the line named nothing to type)");
    if (also.editJournal === true || back === "clone") {
      // The model puts dotagent's question (workflow-run resume, exit 5); the person says yes.
      await until(
        () =>
          readLog(logFile)
            .slice(typedAt)
            .some((e) => e.kind === "response" && e.who === "main" && said(e).includes("(yes or no)")),
        "the question",
        t,
      );
      t.type("yes");
    }
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
      compacted,
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

  // `npm run test:clients` (issue 41: CI's time).
  it.runIf(JOURNEY_MORE)(
    "kill -9 inside agent 3 (gamma), then `claude -r`: the briefing's call resumes the run, only gamma runs again",
    async () => {
      const s = await crashAndComeBack(3, "-r");
      if (process.env.DOTAGENT_WFTERM_SHOW) console.log(`${s.came}\n-----\n${s.end}`);
      expectResumed(s, "-r");
      expect(s.done.size).toBe(2);
    },
    240_000,
  );

  /** What dotagent's SessionStart hooks of `source` answered in this session (their stdout), from the client's transcript. */
  const hookSaid = (projects: string, sessionId: string, source: string): string[] =>
    readFileSync(join(projects, `${sessionId}.jsonl`), "utf8")
      .split("\n")
      .filter((l) => l.includes(`"hookName":"SessionStart:${source}"`))
      .map((l) => JSON.parse(l) as { attachment?: { type?: string; stdout?: string } })
      .filter((l) => l.attachment?.type === "hook_success")
      .map((l) => l.attachment?.stdout ?? "");

  for (const how of ["/compact", "auto"] as const)
    it.runIf(JOURNEY_MORE)(
      `compaction (${how}) while gamma works: the same session, the run goes on by itself and ends, no agent runs again`,
      async () => {
        const { home, project, logFile, runs, projects } = aProject();
        let agents = 0;
        let release: () => void = () => undefined;
        const held = new Promise<void>((r) => (release = r));
        model = await startScriptedModel({
          logFile,
          agentsDir: join(ROOT, "agents"),
          policyOptions: { workflow: { script: SCRIPT, args: ARGS } },
          onRequest: (_k, info) => (info.who === "workflow-agent" && ++agents === 3 ? held : "answer"),
          // Auto-compaction, offline: the main agent's answers report a context past the threshold the window sets.
          ...(how === "auto" ? { inputTokens: (who: string) => (who === "main" ? 190_000 : 1) } : {}),
        });
        const env: Record<string, string> =
          how === "auto"
            ? { ...ENV, CLAUDE_CODE_AUTO_COMPACT_WINDOW: "100000", CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: "50" }
            : ENV;
        terminal = startTerminal({ binary: claude, home, url: model.url, env }, project, ALLOW);
        const t = terminal;
        await t.waitFor(/auto mode on/, 60_000);
        t.type("use a workflow: three agents");
        await until(() => agents === 3 && existsSync(runs) && readdirSync(runs).length > 0, "gamma's request", t);
        await until(
          () => readLog(logFile).some((e) => e.kind === "response" && said(e).includes("workflow launched")),
          "the launching turn's end",
          t,
        );
        const [sessionId, ...others] = sessions(projects);
        expect(others).toEqual([]);
        const runId = readdirSync(runs)[0]!;
        // The person compacts, or asks something and the client compacts by itself first.
        t.type(how === "auto" ? "what is the workflow doing?" : "/compact");
        await until(() => hookSaid(projects, sessionId!, "compact").length > 0, "SessionStart with source compact", t);
        expect(readLog(logFile).some((e) => e.kind === "response" && e.who === "compact")).toBe(true);
        // The same session: no new transcript, the journal where it was; dotagent says the run goes on.
        expect(sessions(projects)).toEqual([sessionId]);
        expect(hookSaid(projects, sessionId!, "compact")[0]).toContain(
          `workflow run \\"${runId}\\" is still running in this Claude Code process: it goes on by itself`,
        );
        release();
        const record = () => JSON.parse(readFileSync(join(runs, runId, "run.json"), "utf8")) as Record<string, unknown>;
        await until(() => record().ended != null, "the run's end recorded", t);
        expect(record()).toMatchObject({ session_id: sessionId, args: ARGS, ended: { status: "completed" } });
        expect(agents, "workflow agents asked").toBe(3);
        const journal = lines(join(projects, sessionId!, "subagents/workflows", runId, "journal.jsonl"));
        expect(journal.filter((l) => l.type === "result")).toHaveLength(3);
        expect(journal.filter((l) => l.type === "launched")).toHaveLength(1);
      },
      240_000,
    );

  const more: Array<[number, "-r" | "new"]> = [
    [1, "-r"],
    [2, "-r"],
    [1, "new"],
    [2, "new"],
    [3, "new"],
  ];
  it.runIf(JOURNEY_MORE)(
    "kill -9 inside agent 2, `claude -r`, then /compact before resuming: the compaction's briefing hands the call again, no finished agent runs again",
    async () => {
      const s = await crashAndComeBack(2, "-r", { compact: true });
      expect(s.compacted).toContain(
        `call exactly: Workflow({scriptPath: ${JSON.stringify(join(s.kept, "script.js"))}`.replace(/"/g, '\\"'),
      );
      expectResumed(s, "-r");
    },
    240_000,
  );

  it.runIf(JOURNEY_MORE)(
    "kill -9 inside agent 3, dotagent's copy of the journal edited by hand, `claude -r`: the person reads why, is asked, says yes; only gamma runs again",
    async () => {
      const s = await crashAndComeBack(3, "-r", { editJournal: true });
      expect(s.came).toContain(
        `SessionStart:resume says: dotagent: Claude Code workflow "three-agents" (run ${s.runId}) was cut off; dotagent does not resume it by itself: its journal was edited since dotagent copied it. Type "resume the cut-off workflow" to be asked whether to.`,
      );
      expect(s.log).toContain(`workflow-run resume ${s.runId} --yes`);
      expect(s.log).toContain(
        JSON.stringify({ scriptPath: join(s.kept, "script.js"), resumeFromRunId: s.runId, args: ARGS }).slice(1, -1),
      );
      expect(s.rerun).toBe(3 - s.done.size);
      expect(s.record).toMatchObject({ run_id: s.runId, args: ARGS, ended: { status: "completed" } });
    },
    240_000,
  );

  it.runIf(JOURNEY_MORE)(
    "kill -9 inside agent 3, the project with its memory committed and cloned, `claude` in the clone: the person reads why, is asked, says yes; only gamma runs again",
    async () => {
      const s = await crashAndComeBack(3, "clone");
      expect(s.came).toContain(
        `SessionStart:startup says: dotagent: Claude Code workflow "three-agents" (run ${s.runId}) was cut off; dotagent does not resume it by itself: it came from another checkout (a clone: its seal is not this checkout's). Type "resume the cut-off workflow" to be asked whether to.`,
      );
      expect(s.log).toContain(
        JSON.stringify({ scriptPath: join(s.kept, "script.js"), resumeFromRunId: s.runId, args: ARGS }).slice(1, -1),
      );
      expect(s.done.size).toBe(2);
      expect(s.rerun).toBe(1);
      expect(s.record).toMatchObject({ run_id: s.runId, args: ARGS, ended: { status: "completed" } });
      expect(s.record.session_id).not.toBe(s.sessionId);
    },
    240_000,
  );

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
