// Claude Code's own Workflow tool in the REAL binary, print mode, against the scripted model
// (opt-in: DOTAGENT_E2E_CLAUDE=1 and the journey tier DOTAGENT_JOURNEY_MORE=1; issue 43). A script
// of three agents (two in parallel(), then one) runs with dotagent installed: the client's layout
// in the session folder is what test/claude/NOTES.md says (a client version that changes it fails
// here), dotagent recorded the run and copied its journal; then a kill -9 while the third agent
// works leaves the finished agents in the journal and in the project's memory; a new session
// refuses to resume the run until dotagent's copy of the journal is put in its folder, and then
// runs only the interrupted agent. Then issue 43's bar (slice 2): killed inside an agent, the run is
// resumed by the call dotagent's SessionStart briefing hands, in a new session and after `claude -r`,
// with no finished agent run again (the scripted model's workflow-agent requests counted), and a
// hand-edited journal or a changed script gets its line and no relaunch; a fresh git clone of the
// project resumes the run only after the person's yes (dotagent's decision), again with no finished
// agent run twice. One client at a time: the binary is CPU-heavy.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ENABLED, ROOT, fetchClaude } from "./harness.js";
import { JOURNEY_MORE } from "../support/journey-tier.js";
import { killClaude, runClaude } from "./scripted-model/client.js";
import { startScriptedModel, type ScriptedModel } from "./scripted-model/server.js";
import { ARGS, SCRIPT, installedProject, lines } from "./workflow-script.js";

describe.skipIf(!ENABLED || !JOURNEY_MORE)("Claude Code's Workflow tool in the real binary (print mode)", () => {
  let claude = "";
  let work = "";
  let model: ScriptedModel | undefined;
  beforeAll(() => {
    claude = fetchClaude();
    // The layout below is 2.1.332's (test/claude/NOTES.md); a version that changes it fails here.
  }, 600_000);
  afterEach(async () => {
    await model?.close();
    rmSync(work, { recursive: true, force: true });
  });

  /** A git project with dotagent installed and trusted; the session's folder once claude ran. */
  async function session(
    onAgent?: (n: number) => "answer" | "hang",
    play: { script: string; args?: unknown; allowed: string; prompt?: string } = {
      script: SCRIPT,
      args: ARGS,
      allowed: "Workflow",
    },
  ) {
    work = mkdtempSync(join(tmpdir(), "dotagent-wftool-"));
    const { home, project } = installedProject(work);
    writeFileSync(
      join(home, ".claude.json"),
      JSON.stringify({ projects: { [project]: { hasTrustDialogAccepted: true } } }),
    );
    let agents = 0;
    model = await startScriptedModel({
      logFile: join(work, "model.jsonl"),
      agentsDir: join(ROOT, "agents"),
      policyOptions: { workflow: { script: play.script, ...(play.args === undefined ? {} : { args: play.args }) } },
      onRequest: (_k, info) => (info.who === "workflow-agent" ? (onAgent?.(++agents) ?? "answer") : "answer"),
    });
    const client = { binary: claude, home, url: model.url };
    const run = await runClaude(client, project, [
      "-p",
      play.prompt ?? "use a workflow: three agents",
      "--allowedTools",
      play.allowed,
    ]);
    const projects = join(home, ".claude/projects", project.replace(/[^a-zA-Z0-9]/g, "-"));
    const sessionId = readdirSync(projects)
      .find((f) => f.endsWith(".jsonl"))!
      .replace(/\.jsonl$/, "");
    const folder = join(projects, sessionId);
    const runs = existsSync(join(folder, "subagents/workflows"))
      ? readdirSync(join(folder, "subagents/workflows"))
      : [];
    expect(runs, `one run in ${folder}`).toHaveLength(1);
    const runId = runs[0]!;
    const kept = join(project, "memory/state/workflow-runs", runId);
    return { run, project, folder, sessionId, runId, kept, client, projects };
  }

  it("a 3-agent run: the client's layout, and dotagent keeps the run", async () => {
    const { run, folder, sessionId, runId, kept } = await session();
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.result?.result).toBe("workflow done");
    expect(runId).toMatch(/^wf_[a-z0-9-]{6,}$/);
    // The client's layout (test/claude/NOTES.md, "Claude Code's Workflow tool").
    const runDir = join(folder, "subagents/workflows", runId);
    const agentFiles = readdirSync(runDir).filter((f) => f !== "journal.jsonl");
    expect(agentFiles.filter((f) => /^agent-[a-z0-9]+\.jsonl$/.test(f))).toHaveLength(3);
    expect(agentFiles.filter((f) => /^agent-[a-z0-9]+\.meta\.json$/.test(f))).toHaveLength(3);
    expect(readFileSync(join(folder, `workflows/scripts/three-agents-${runId}.js`), "utf8")).toBe(SCRIPT);
    const record = JSON.parse(readFileSync(join(folder, "workflows", `${runId}.json`), "utf8")) as Record<
      string,
      unknown
    >;
    expect(record).toMatchObject({ runId, status: "completed", args: ARGS, agentCount: 3, script: SCRIPT });
    const journal = lines(join(runDir, "journal.jsonl"));
    expect(journal.map((l) => `${l.type}${l.label ? ` ${l.label}` : ""}`)).toEqual([
      "launched",
      "started alpha",
      "started beta",
      "result",
      "result",
      "started gamma",
      "result",
    ]);
    expect(journal.filter((l) => l.type === "result").map((l) => l.result)).toEqual(
      expect.arrayContaining(["result alpha", "result beta", "result gamma"]),
    );
    // dotagent's record and copies.
    expect(JSON.parse(readFileSync(join(kept, "run.json"), "utf8"))).toMatchObject({
      run_id: runId,
      client: "claude",
      session_id: sessionId,
      workflow_name: "three-agents",
      args: ARGS,
      script_path: join(folder, `workflows/scripts/three-agents-${runId}.js`),
      journal_path: join(runDir, "journal.jsonl"),
    });
    expect(readFileSync(join(kept, "script.js"), "utf8")).toBe(SCRIPT);
    // Copied at each workflow agent's start and end, and whole at the run's <task-notification>.
    expect(lines(join(kept, "journal.jsonl"))).toEqual(journal);
  }, 300_000);

  it("kill -9 while the third agent works: the journal keeps the finished two, in the project's memory too", async () => {
    const { run, folder, runId, kept } = await session((n) => {
      if (n < 3) return "answer";
      setTimeout(killClaude, 500);
      return "hang";
    });
    expect(run.signal).toBe("SIGKILL");
    expect(existsSync(join(folder, "workflows", `${runId}.json`)), "no run record after kill -9").toBe(false);
    const journal = lines(join(folder, "subagents/workflows", runId, "journal.jsonl"));
    expect(journal.map((l) => `${l.type}${l.label ? ` ${l.label}` : ""}`)).toEqual([
      "launched",
      "started alpha",
      "started beta",
      "result",
      "result",
      "started gamma",
    ]);
    expect(JSON.parse(readFileSync(join(kept, "run.json"), "utf8"))).toMatchObject({ run_id: runId, args: ARGS });
    // Copied last at the third agent's start (SubagentStart): both finished agents' results are in.
    const copy = lines(join(kept, "journal.jsonl"));
    expect(copy).toEqual(journal.slice(0, copy.length));
    expect(copy.filter((l) => l.type === "result")).toHaveLength(2);
  }, 300_000);

  it("a new session refuses the killed run (dotagent forgot it); with dotagent's copy of the journal put in its folder, only the third agent runs again", async () => {
    const asked: string[] = [];
    let phase = "first";
    const { run, project, runId, kept, client, projects } = await session((n) => {
      asked.push(phase);
      if (phase !== "first" || n < 3) return "answer";
      setTimeout(killClaude, 500);
      return "hang";
    });
    expect(run.signal).toBe("SIGKILL");
    const resume = ["-p", `resume workflow run ${runId}`, "--allowedTools", "Workflow"];
    // The client alone: dotagent told to forget the run, so its session start puts nothing back.
    const forgot = spawnSync(process.execPath, [join(ROOT, "dist/dotagent.mjs"), "workflow-run", "forget", runId], {
      cwd: project,
      encoding: "utf8",
    });
    expect(forgot.status, forgot.stderr).toBe(0);
    // A new session: the client has no journal of the run there.
    phase = "bare";
    const bare = await runClaude(client, project, resume);
    expect(bare.code, bare.stdout + bare.stderr).toBe(0);
    const log = readFileSync(join(work, "model.jsonl"), "utf8");
    expect(log).toContain(`The journal for workflow run ${runId} is not on disk`);
    // Another new session, dotagent's copy put where the client looks for the journal (what the next part of issue 43 automates).
    phase = "copied";
    const sessionId = "11111111-2222-4333-8444-555555555555";
    const runDir = join(projects, sessionId, "subagents/workflows", runId);
    mkdirSync(runDir, { recursive: true });
    writeFileSync(join(runDir, "journal.jsonl"), readFileSync(join(kept, "journal.jsonl")));
    const copied = await runClaude(client, project, ["--session-id", sessionId, ...resume]);
    expect(copied.code, copied.stdout + copied.stderr).toBe(0);
    expect(copied.result?.result).toBe("workflow done");
    expect(asked).toEqual(["first", "first", "first", "copied"]);
    // The same run id goes on: its journal gets the third agent again, and dotagent's record follows the new session.
    const journal = lines(join(runDir, "journal.jsonl"));
    expect(journal.map((l) => `${l.type}${l.label ? ` ${l.label}` : ""}`).slice(-2)).toEqual([
      "started gamma",
      "result",
    ]);
    expect(JSON.parse(readFileSync(join(kept, "run.json"), "utf8"))).toMatchObject({
      run_id: runId,
      session_id: sessionId,
      args: ARGS,
    });
    expect(lines(join(kept, "journal.jsonl"))).toEqual(journal);
  }, 300_000);

  it("a fan-out cap of 2 (DOTAGENT_WORKFLOW_MAX_AGENTS): agents 3 and 4 still start, are told they are refused, and their writes are denied", async () => {
    const script = `export const meta = { name: 'four-in-a-row', description: 'Four agents, one after another', phases: [{ title: 'Row' }] }
const out = []
for (const w of ['alpha', 'beta', 'gamma', 'delta']) out.push(await agent(w + ' [write]: note ' + w, { label: w, phase: 'Row' }))
return out
`;
    process.env.DOTAGENT_WORKFLOW_MAX_AGENTS = "2";
    process.env.DOTAGENT_SCRIPTED_TAIL = "1";
    try {
      const { run, folder, runId, kept } = await session(undefined, { script, allowed: "Workflow,Write" });
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(run.result?.result).toBe("workflow done");
      const refusal = (n: number) =>
        `dotagent: refused: workflow run ${runId} reached its cap of 2 agents (DOTAGENT_WORKFLOW_MAX_AGENTS); agent ${n} does not run`;
      // No hook keeps an agent from starting: all four started and answered.
      const journal = lines(join(folder, "subagents/workflows", runId, "journal.jsonl"));
      expect(journal.filter((l) => l.type === "started").map((l) => l.label)).toEqual([
        "alpha",
        "beta",
        "gamma",
        "delta",
      ]);
      expect(journal.filter((l) => l.type === "result").map((l) => l.result)).toEqual([
        "result alpha",
        "result beta",
        // The client words a PreToolUse deny to the agent as `PreToolUse:<tool> hook error: <reason>`.
        `refused: PreToolUse:Write hook error: ${refusal(3)}`,
        `refused: PreToolUse:Write hook error: ${refusal(4)}`,
      ]);
      const log = readFileSync(join(work, "model.jsonl"), "utf8")
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as { kind: string; who: string; is_error?: boolean; text?: string; tail?: unknown });
      // The two within the cap wrote their notes; the two past it were denied by the PreToolUse hook.
      expect(
        log.filter((l) => l.kind === "tool_result" && l.who === "workflow-agent").map((l) => [l.is_error, l.text]),
      ).toEqual([
        [false, expect.stringContaining("notes/alpha.txt")],
        [false, expect.stringContaining("notes/beta.txt")],
        [true, expect.stringContaining(refusal(3))],
        [true, expect.stringContaining(refusal(4))],
      ]);
      // SubagentStart's additionalContext reached the two past the cap, as a system message of their first request.
      const told = log.filter(
        (l) =>
          l.kind === "request" &&
          JSON.stringify(l.tail ?? "").includes("SubagentStart hook additional context: dotagent: refused"),
      );
      expect(told.length).toBeGreaterThanOrEqual(2);
      expect(JSON.stringify(told)).toContain(`${refusal(3)}. Do no work and call no tool`);
      expect(JSON.stringify(log)).not.toContain("agent 2 does not run");
      // dotagent's view of the run: the refusals are the agents' headlines (cut at 120 characters).
      const cut = (line: string) => `${line.slice(0, 119)}…`;
      const view = spawnSync(
        process.execPath,
        [join(ROOT, "dist/dotagent.mjs"), "tasks", "--workflow-runs", "--json"],
        {
          cwd: join(kept, "../../../.."),
          encoding: "utf8",
        },
      );
      const runs = (JSON.parse(view.stdout) as { workflow_runs: { agents: { headline: string }[] }[] }).workflow_runs;
      expect(runs[0]!.agents.map((a) => a.headline)).toEqual([
        "result alpha",
        "result beta",
        cut(`refused: PreToolUse:Write hook error: ${refusal(3)}`),
        cut(`refused: PreToolUse:Write hook error: ${refusal(4)}`),
      ]);
    } finally {
      delete process.env.DOTAGENT_WORKFLOW_MAX_AGENTS;
      delete process.env.DOTAGENT_SCRIPTED_TAIL;
    }
  }, 300_000);

  it("a token budget of 1 (DOTAGENT_WORKFLOW_MAX_TOKENS): the first agent's write is denied once its first request is in its transcript, and every later agent is told at its start", async () => {
    const script = `export const meta = { name: 'three-in-a-row', description: 'Three agents, one after another', phases: [{ title: 'Row' }] }
const out = []
for (const w of ['alpha', 'beta', 'gamma']) out.push(await agent(w + ' [write]: note ' + w, { label: w, phase: 'Row' }))
return out
`;
    process.env.DOTAGENT_WORKFLOW_MAX_TOKENS = "1";
    process.env.DOTAGENT_SCRIPTED_TAIL = "1";
    try {
      const { run, folder, runId, project } = await session(undefined, { script, allowed: "Workflow,Write" });
      expect(run.code, run.stdout + run.stderr).toBe(0);
      const spent = new RegExp(
        `^refused: PreToolUse:Write hook error: dotagent: refused: workflow run ${runId} used (\\d+) tokens? of its budget of 1 \\(DOTAGENT_WORKFLOW_MAX_TOKENS\\); its agents do not go on$`,
      );
      const journal = lines(join(folder, "subagents/workflows", runId, "journal.jsonl"));
      const results = journal.filter((l) => l.type === "result").map((l) => String(l.result));
      expect(results).toHaveLength(3);
      for (const result of results) expect(result).toMatch(spent);
      // What the runs used grows: each later agent's refusal counts the earlier agents' requests too.
      const used = results.map((r) => Number(spent.exec(r)![1]));
      expect(used[0]).toBeGreaterThan(0);
      expect(used[1]).toBeGreaterThan(used[0]!);
      expect(existsSync(join(project, "notes"))).toBe(false);
      const log = readFileSync(join(work, "model.jsonl"), "utf8");
      // SubagentStart's additionalContext reached beta and gamma; alpha started within the budget.
      expect(log.split("SubagentStart hook additional context: dotagent: refused").length - 1).toBeGreaterThanOrEqual(
        2,
      );
    } finally {
      delete process.env.DOTAGENT_WORKFLOW_MAX_TOKENS;
      delete process.env.DOTAGENT_SCRIPTED_TAIL;
    }
  }, 300_000);

  it("TaskStop while the third agent works: 2.1.332 keeps the journal, dotagent keeps the run open, and the resume runs only the third agent", async () => {
    let phase = "first";
    const { run, folder, runId, kept, project, sessionId, client } = await session(
      (n) => (phase === "first" && n >= 3 ? "hang" : "answer"),
      { script: SCRIPT, args: ARGS, allowed: "Workflow,Bash,TaskStop", prompt: "use a workflow, then stop it" },
    );
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.result?.result).toBe("workflow stopped");
    const log = () =>
      readFileSync(join(work, "model.jsonl"), "utf8")
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as { kind: string; who: string; text?: string });
    expect(log().find((e) => e.kind === "tool_result" && e.text?.includes("Successfully stopped task"))).toBeDefined();
    // The client records the run killed and keeps its journal (issue #72295's clearing is not 2.1.332's).
    expect(JSON.parse(readFileSync(join(folder, "workflows", `${runId}.json`), "utf8"))).toMatchObject({
      status: "killed",
    });
    const journal = lines(join(folder, "subagents/workflows", runId, "journal.jsonl"));
    expect(journal.filter((l) => l.type === "result")).toHaveLength(2);
    // No end reached dotagent (no notification of the stop): the run is open, cut off before gamma.
    expect(JSON.parse(readFileSync(join(kept, "run.json"), "utf8")).ended ?? null).toBeNull();
    expect(lines(join(kept, "journal.jsonl"))).toEqual(journal);
    const view = spawnSync(process.execPath, [join(ROOT, "dist/dotagent.mjs"), "tasks", "--workflow-runs"], {
      cwd: project,
      encoding: "utf8",
    });
    expect(view.stdout).toContain("2 of 3 agents done · open (cut off: resuming re-runs gamma)");
    // Resumed in the same session: only gamma asks the model again.
    phase = "again";
    const before = log().length;
    const again = await runClaude(client, project, [
      "-p",
      "--resume",
      sessionId,
      `resume workflow run ${runId}`,
      "--allowedTools",
      "Workflow",
    ]);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.result?.result).toBe("workflow done");
    expect(
      log()
        .slice(before)
        .filter((e) => e.kind === "request" && e.who === "workflow-agent"),
    ).toHaveLength(1);
    expect(
      lines(join(folder, "subagents/workflows", runId, "journal.jsonl"))
        .slice(-2)
        .map((l) => `${l.type}${l.label ? ` ${l.label}` : ""}`),
    ).toEqual(["started gamma", "result"]);
  }, 300_000);

  /**
   * Issue 43's bar, print mode: kill -9 inside agent `killAt` (2: beta, while alpha's result is
   * only in the client's journal; 3: gamma), then the resume the briefing hands. Returns the
   * workflow agents the resume ran (by the scripted model's requests) and where the run went on.
   */
  async function killedThenBriefed(killAt: number, resume: (s: Awaited<ReturnType<typeof session>>) => string[]) {
    const asked: string[] = [];
    let phase = "first";
    const s = await session((n) => {
      asked.push(phase);
      if (phase !== "first" || n < killAt) return "answer";
      setTimeout(killClaude, 500);
      return "hang";
    });
    expect(s.run.signal).toBe("SIGKILL");
    const before = lines(join(s.folder, "subagents/workflows", s.runId, "journal.jsonl"));
    const done = new Set(before.filter((l) => l.type === "result").map((l) => l.key));
    phase = "resumed";
    const resumed = await runClaude(s.client, s.project, [...resume(s), "--allowedTools", "Workflow"]);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    return { ...s, resumed, done, rerun: asked.filter((p) => p === "resumed").length };
  }

  for (const killAt of [2, 3])
    it(`kill -9 inside agent ${killAt}, then a new session: the briefing's call resumes the run, no finished agent runs again`, async () => {
      const s = await killedThenBriefed(killAt, () => ["-p", "resume the cut-off workflow"]);
      expect(s.resumed.result?.result).toBe("workflow done");
      // The journal before the kill had `done` results; the resume ran the other agents only.
      expect(s.rerun).toBe(3 - s.done.size);
      // The model called what the briefing handed: the project's kept script (2.1.332 takes any scriptPath).
      expect(readFileSync(join(work, "model.jsonl"), "utf8")).toContain(
        JSON.stringify({ scriptPath: join(s.kept, "script.js"), resumeFromRunId: s.runId, args: ARGS }).slice(1, -1),
      );
      // dotagent's record follows the new session: the original args, the kept script run.
      const record = JSON.parse(readFileSync(join(s.kept, "run.json"), "utf8")) as Record<string, unknown>;
      expect(record.args).toEqual(ARGS);
      expect(record.session_id).not.toBe(s.sessionId);
      expect(record.ended).toMatchObject({ status: "completed" });
      const journal = lines(
        join(s.projects, String(record.session_id), "subagents/workflows", s.runId, "journal.jsonl"),
      );
      expect(journal.filter((l) => l.type === "result")).toHaveLength(3);
    }, 300_000);

  it("kill -9 inside agent 3, then claude -r (the same session): the briefing's call resumes it, only the third agent runs again", async () => {
    const s = await killedThenBriefed(3, (s) => ["-p", "--resume", s.sessionId, "resume the cut-off workflow"]);
    expect(s.resumed.result?.result).toBe("workflow done");
    expect(s.rerun).toBe(1);
    const record = JSON.parse(readFileSync(join(s.kept, "run.json"), "utf8")) as Record<string, unknown>;
    expect(record).toMatchObject({ args: ARGS, ended: { status: "completed" } });
  }, 300_000);

  for (const [what, file, edit, why] of [
    [
      "a hand-edited journal",
      "journal.jsonl",
      (t: string) => t.replace("result alpha", "forged alpha"),
      "its journal was edited since dotagent copied it",
    ],
    [
      "a changed script",
      "script.js",
      (t: string) => t.replace("answer alpha", "answer evil"),
      "its kept script changed since dotagent kept it",
    ],
  ] as const)
    it(`${what}: the briefing says so, nothing is put back and no run starts`, async () => {
      const asked: string[] = [];
      let phase = "first";
      const s = await session((n) => {
        asked.push(phase);
        if (phase !== "first" || n < 3) return "answer";
        setTimeout(killClaude, 500);
        return "hang";
      });
      writeFileSync(join(s.kept, file), edit(readFileSync(join(s.kept, file), "utf8")));
      phase = "resumed";
      const resumed = await runClaude(s.client, s.project, [
        "-p",
        "resume the cut-off workflow",
        "--allowedTools",
        "Workflow",
      ]);
      expect(resumed.result?.result).toBe(`Resume workflow run ${s.runId} from dotagent's copy? (yes or no)`);
      expect(asked.filter((p) => p === "resumed")).toEqual([]);
      // The briefing reached the model (the scripted model logs its digest only) and said why, as the hook says it.
      expect(readFileSync(join(work, "model.jsonl"), "utf8")).toContain('"kind":"briefing"');
      const sessionId = "22222222-2222-4333-8444-555555555555";
      const hook = spawnSync(process.execPath, [join(ROOT, "dist/dotagent.mjs"), "hook", "session-start"], {
        cwd: s.project,
        encoding: "utf8",
        input: JSON.stringify({
          session_id: sessionId,
          transcript_path: join(s.projects, `${sessionId}.jsonl`),
          cwd: s.project,
          hook_event_name: "SessionStart",
          source: "startup",
        }),
        env: { ...process.env, HOME: join(work, "home") },
      });
      expect(hook.stdout).toContain(`workflow run \\"${s.runId}\\" was cut off, but is not put back: ${why}.`);
      expect(existsSync(join(s.projects, sessionId, "subagents/workflows", s.runId))).toBe(false);
    }, 300_000);
  it("a fresh git clone with memory committed: nothing put back until the person's yes through the decision, then only the cut-off agent runs again", async () => {
    const asked: string[] = [];
    let phase = "first";
    const s = await session((n) => {
      asked.push(phase);
      if (phase !== "first" || n < 3) return "answer";
      setTimeout(killClaude, 500);
      return "hang";
    });
    expect(s.run.signal).toBe("SIGKILL");
    const git = (cwd: string, ...args: string[]) => {
      const r = spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
        cwd,
        encoding: "utf8",
      });
      expect(r.status, r.stderr).toBe(0);
    };
    git(s.project, "add", "-A");
    git(s.project, "commit", "-qm", "the project with its memory");
    const clone = join(work, "clone");
    git(work, "clone", "-q", s.project, clone);
    expect(existsSync(join(clone, "memory/state/workflow-runs", s.runId, "seal.json"))).toBe(true);
    const home = s.client.home;
    writeFileSync(
      join(home, ".claude.json"),
      JSON.stringify({
        projects: { [s.project]: { hasTrustDialogAccepted: true }, [clone]: { hasTrustDialogAccepted: true } },
      }),
    );
    phase = "clone";
    const first = await runClaude(s.client, clone, ["-p", "resume the cut-off workflow", "--allowedTools", "Workflow"]);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    // The clone's copy came from another checkout: the model asks the person (the question recorded), nothing runs.
    expect(first.result?.result).toBe(`Resume workflow run ${s.runId} from dotagent's copy? (yes or no)`);
    expect(asked.filter((p) => p === "clone")).toEqual([]);
    const sessionId = first.result?.session_id;
    expect(sessionId).toBeDefined();
    const yes = await runClaude(s.client, clone, ["-p", "--resume", sessionId!, "yes", "--allowedTools", "Workflow"]);
    expect(yes.code, yes.stdout + yes.stderr).toBe(0);
    expect(yes.result?.result).toBe("workflow done");
    // Two finished agents taken from the committed journal: only gamma ran again.
    expect(asked.filter((p) => p === "clone")).toHaveLength(1);
    const record = JSON.parse(
      readFileSync(join(clone, "memory/state/workflow-runs", s.runId, "run.json"), "utf8"),
    ) as Record<string, unknown>;
    expect(record).toMatchObject({ args: ARGS, session_id: sessionId, ended: { status: "completed" } });
  }, 300_000);
});
