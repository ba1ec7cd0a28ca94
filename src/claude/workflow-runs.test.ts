// Claude Code's Workflow runs kept in the project's memory (SPEC §11), from the hook inputs the real
// 2.1.332 binary sent (test/claude/fixtures/workflow-tool/, captured as test/claude/NOTES.md says):
// a launch is recorded, a workflow agent's end copies the journal, and hostile inputs are refused
// with one line and nothing written outside memory/state/workflow-runs/<runId>/.
import { createHash, createHmac } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  onPostToolUse,
  onPreToolUse,
  onSubagentStart,
  onSubagentStop,
  onUserPromptSubmit,
  type HookInput,
} from "./hooks.js";
import { sessionStartRuns } from "../ops/workflow-resume.js";
import { projectPaths } from "../store/project.js";
import type { OpContext } from "../ops/op-context.js";
import { MAX_JOURNAL_BYTES } from "../core/claude-workflow-run.js";

const FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), "../../test/claude/fixtures/workflow-tool");
const RUN = "wf_3216a11b-d0a";
const SESSION = "85d13282-20ae-49c3-87f2-86f6adfc3d8f";

let work = "";
let project = "";
let warnings: string[] = [];
let op: OpContext;
/** The fixture's input, its temp paths (/tmp/WORK) made this test's. */
const fixture = (event: string): HookInput =>
  JSON.parse(readFileSync(join(FIXTURES, "hooks", `${event}.json`), "utf8").replaceAll("/tmp/WORK", work)) as HookInput;
const sessionFolder = () => join(work, "home/.claude/projects/-tmp-WORK-project", SESSION);
const clientJournal = () => join(sessionFolder(), "subagents/workflows", RUN, "journal.jsonl");
const kept = (file: string) => join(project, "memory/state/workflow-runs", RUN, file);

beforeEach(() => {
  // The launching Claude Code process, as the hooks record it: gone (a pid no process has).
  process.env.CLAUDE_PID = "4194000";
  work = mkdtempSync(join(tmpdir(), "dotagent-wfruns-"));
  project = join(work, "project");
  mkdirSync(join(project, "memory/state"), { recursive: true });
  mkdirSync(dirname(clientJournal()), { recursive: true });
  writeFileSync(clientJournal(), readFileSync(join(FIXTURES, "journal-killed.jsonl")));
  warnings = [];
  op = {
    paths: projectPaths(project),
    now: () => new Date("2026-11-30T02:00:00Z"),
    warn: (m) => warnings.push(m),
    note: () => {},
  };
});
afterEach(() => {
  delete process.env.CLAUDE_PID;
  rmSync(work, { recursive: true, force: true });
});

describe("Claude Code's Workflow runs in memory/state/workflow-runs/", () => {
  it("the launch's PostToolUse records the run, its script and args, and the journal as it is", async () => {
    const input = fixture("PostToolUse");
    expect(await onPostToolUse(op, input)).toBeNull();
    expect(warnings).toEqual([]);
    const record = JSON.parse(readFileSync(kept("run.json"), "utf8")) as Record<string, unknown>;
    expect(record).toEqual({
      run_id: RUN,
      client: "claude",
      session_id: SESSION,
      task_id: "w8c167k3m",
      workflow_name: "probe-three",
      args: { topic: "probe", n: 3 },
      script_path: join(sessionFolder(), `workflows/scripts/probe-three-${RUN}.js`),
      journal_path: clientJournal(),
      script_file: `memory/state/workflow-runs/${RUN}/script.js`,
      journal_file: `memory/state/workflow-runs/${RUN}/journal.jsonl`,
      recorded_at: "2026-11-30T02:00:00.000Z",
      owner: expect.objectContaining({ pid: 4194000, pid_start: null, at: "2026-11-30T02:00:00.000Z" }),
    });
    expect(readFileSync(kept("script.js"), "utf8")).toBe((input.tool_input as { script: string }).script);
    expect(readFileSync(kept("journal.jsonl"), "utf8")).toBe(readFileSync(clientJournal(), "utf8"));
  });

  it("a workflow agent's SubagentStop copies the run's journal as it grew", async () => {
    await onPostToolUse(op, fixture("PostToolUse"));
    writeFileSync(clientJournal(), readFileSync(join(FIXTURES, "journal-complete.jsonl")));
    expect(await onSubagentStop(op, fixture("SubagentStop"))).toBeNull();
    expect(warnings).toEqual([]);
    expect(readFileSync(kept("journal.jsonl"), "utf8")).toBe(readFileSync(clientJournal(), "utf8"));
  });

  it("the other hook inputs of a run write nothing (PreToolUse; SubagentStart before a launch was recorded)", async () => {
    expect(await onPostToolUse(op, fixture("PreToolUse"))).toBeNull();
    expect(await onSubagentStart(op, fixture("SubagentStart"))).toBeNull();
    expect(existsSync(join(project, "memory/state/workflow-runs"))).toBe(false);
    expect(warnings).toEqual([]);
  });

  it("the next workflow agent's SubagentStart copies the journal with the results its SubagentStop came too early for", async () => {
    await onPostToolUse(op, fixture("PostToolUse"));
    writeFileSync(clientJournal(), readFileSync(join(FIXTURES, "journal-complete.jsonl")));
    expect(await onSubagentStart(op, fixture("SubagentStart"))).toBeNull();
    expect(warnings).toEqual([]);
    expect(readFileSync(kept("journal.jsonl"), "utf8")).toBe(readFileSync(clientJournal(), "utf8"));
  });

  it("the run's <task-notification> copies the whole journal; another task's notification copies nothing", async () => {
    await onPostToolUse(op, fixture("PostToolUse"));
    const before = readFileSync(kept("journal.jsonl"), "utf8");
    writeFileSync(clientJournal(), readFileSync(join(FIXTURES, "journal-complete.jsonl")));
    // The real notification (another session's), made this run's: its session and task id.
    const real = JSON.parse(
      readFileSync(join(FIXTURES, "hooks/UserPromptSubmit-notification.json"), "utf8"),
    ) as HookInput;
    const input: HookInput = {
      ...fixture("UserPromptSubmit"),
      prompt: String(real.prompt).replace(/<task-id>\w+<\/task-id>/, "<task-id>someother1</task-id>"),
    };
    await onUserPromptSubmit(op, input);
    expect(readFileSync(kept("journal.jsonl"), "utf8")).toBe(before);
    input.prompt = String(real.prompt).replace(/<task-id>\w+<\/task-id>/, "<task-id>w8c167k3m</task-id>");
    await onUserPromptSubmit(op, input);
    expect(warnings).toEqual([]);
    expect(readFileSync(kept("journal.jsonl"), "utf8")).toBe(readFileSync(clientJournal(), "utf8"));
  });

  it("a run.json planted for the session copies nothing from a path it names", async () => {
    const planted = join(project, "memory/state/workflow-runs/wf_planted-1");
    mkdirSync(planted, { recursive: true });
    writeFileSync(
      join(planted, "run.json"),
      JSON.stringify({ run_id: "wf_planted-1", session_id: SESSION, journal_path: join(work, "secret") }),
    );
    writeFileSync(join(work, "secret"), "secret\n");
    await onSubagentStart(op, fixture("SubagentStart"));
    expect(existsSync(join(planted, "journal.jsonl"))).toBe(false);
    expect(warnings).toEqual([]);
  });

  it("a project without memory/state/ gets nothing", async () => {
    rmSync(join(project, "memory"), { recursive: true });
    await onPostToolUse(op, fixture("PostToolUse"));
    await onSubagentStop(op, fixture("SubagentStop"));
    expect(existsSync(join(project, "memory"))).toBe(false);
    expect(warnings).toEqual([]);
  });

  describe("hostile input: one line, nothing written", () => {
    const nothingKept = () => expect(existsSync(join(project, "memory/state/workflow-runs"))).toBe(false);

    it("a run id with ../ (launch)", async () => {
      const input = fixture("PostToolUse");
      (input.tool_response as Record<string, unknown>).runId = "wf_../../../../etc";
      await onPostToolUse(op, input);
      expect(warnings).toEqual([
        'a Claude Code workflow run is not recorded: run id "wf_../../../../etc" is not a plain run id (wf_…)',
      ]);
      nothingKept();
    });

    it("an agent transcript whose folder is no plain run id (../)", async () => {
      const input = fixture("SubagentStop");
      input.agent_transcript_path = join(sessionFolder(), "subagents/workflows/../../../../../x/agent-a.jsonl");
      await onSubagentStop(op, input);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/^a Claude Code workflow run is not recorded: run id "x" is not a plain run id/);
      nothingKept();
    });

    it("an agent transcript outside the client's session folder", async () => {
      const elsewhere = join(work, "elsewhere/subagents/workflows", RUN);
      mkdirSync(elsewhere, { recursive: true });
      writeFileSync(join(elsewhere, "journal.jsonl"), "secret\n");
      const input = fixture("SubagentStop");
      input.agent_transcript_path = join(elsewhere, "agent-a1.jsonl");
      await onSubagentStop(op, input);
      expect(warnings).toEqual([
        `a Claude Code workflow run is not recorded: its transcript is not in the session's subagents/workflows/${RUN}`,
      ]);
      nothingKept();
    });

    it("a transcript folder in the launch's response outside the session folder", async () => {
      const input = fixture("PostToolUse");
      (input.tool_response as Record<string, unknown>).transcriptDir = join(work, "elsewhere");
      await onPostToolUse(op, input);
      expect(warnings).toEqual([
        `a Claude Code workflow run is not recorded: its transcript folder is not the session's subagents/workflows/${RUN}`,
      ]);
      nothingKept();
    });

    it("a session id with ../", async () => {
      const input = fixture("SubagentStop");
      input.session_id = "../x";
      await onSubagentStop(op, input);
      expect(warnings).toEqual(["a Claude Code workflow run is not recorded: no plain session id"]);
      nothingKept();
    });

    it("a journal that is a link is not followed", async () => {
      writeFileSync(join(work, "secret"), "secret\n");
      rmSync(clientJournal());
      symlinkSync(join(work, "secret"), clientJournal());
      await onSubagentStop(op, fixture("SubagentStop"));
      expect(warnings).toEqual([
        `workflow run "${RUN}": its journal is a symbolic link; replace it with the file itself; not copied`,
      ]);
      expect(existsSync(kept("journal.jsonl"))).toBe(false);
    });

    it("a journal over the limit is refused", async () => {
      writeFileSync(clientJournal(), Buffer.alloc(MAX_JOURNAL_BYTES + 1, 0x61));
      await onSubagentStop(op, fixture("SubagentStop"));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(new RegExp(`^workflow run "${RUN}": its journal .*; not copied$`));
      expect(existsSync(kept("journal.jsonl"))).toBe(false);
    });

    it("memory/state/workflow-runs as a link out of the project: refused, nothing written there", async () => {
      const outside = join(work, "outside");
      mkdirSync(outside);
      symlinkSync(outside, join(project, "memory/state/workflow-runs"));
      await onPostToolUse(op, fixture("PostToolUse"));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/^a Claude Code workflow run is not recorded: /);
      expect(existsSync(join(outside, RUN))).toBe(false);
    });
  });
});

describe("an open run resumed at SessionStart (issue 43, slice 2)", () => {
  const NEW = "11111111-2222-4333-8444-555555555555";
  const projects = () => join(work, "home/.claude/projects/-tmp-WORK-project");
  const start = (sessionId = NEW, source = "startup"): Record<string, unknown> => ({
    session_id: sessionId,
    transcript_path: join(projects(), `${sessionId}.jsonl`),
    cwd: project,
    hook_event_name: "SessionStart",
    source,
  });
  const putBack = (sessionId = NEW) => join(projects(), sessionId, "subagents/workflows", RUN, "journal.jsonl");
  const ctx = () => ({ paths: op.paths, warn: (m: string) => warnings.push(m) });
  const notification = (status: string): HookInput => {
    const real = JSON.parse(
      readFileSync(join(FIXTURES, "hooks/UserPromptSubmit-notification.json"), "utf8"),
    ) as HookInput;
    return {
      ...fixture("UserPromptSubmit"),
      prompt: String(real.prompt)
        .replace(/<task-id>\w+<\/task-id>/, "<task-id>w8c167k3m</task-id>")
        .replace("<status>completed</status>", `<status>${status}</status>`),
    };
  };
  const launched = async () => {
    await onPostToolUse(op, fixture("PostToolUse"));
    expect(warnings).toEqual([]);
  };
  const call = () =>
    `Workflow({scriptPath: ${JSON.stringify(kept("script.js"))}, resumeFromRunId: "${RUN}", args: {"topic":"probe","n":3}})`;

  it("the run's notification records its end: an ended run is not open, and nothing is said", async () => {
    await launched();
    await onUserPromptSubmit(op, notification("failed"));
    expect(JSON.parse(readFileSync(kept("run.json"), "utf8")).ended).toEqual({
      status: "failed",
      at: "2026-11-30T02:00:00.000Z",
    });
    expect(await sessionStartRuns(ctx(), start())).toEqual([]);
    expect(existsSync(putBack())).toBe(false);
  });

  it("claude -r's note on a run its killed session left (stopped, didn't finish) records no end", async () => {
    await launched();
    const input = notification("stopped");
    input.prompt = String(input.prompt).replace(
      /<summary>.*<\/summary>/,
      '<summary>Background workflow "probe-three" (run wf_3216a11b-d0a) didn\'t finish before the previous session ended</summary>',
    );
    await onUserPromptSubmit(op, input);
    expect(JSON.parse(readFileSync(kept("run.json"), "utf8")).ended).toBeUndefined();
  });

  it("a new session: the journal is put back into its folder and the exact call handed with the original args", async () => {
    await launched();
    const lines = await sessionStartRuns(ctx(), start());
    expect(warnings).toEqual([]);
    expect(lines).toEqual([
      `dotagent: Claude Code workflow run "${RUN}" was cut off before it ended (dotagent put its journal back into this session): 2 of 3 agents finished (alpha, beta); a relaunch runs again: gamma.`,
      `To resume it with no finished agent run again, call exactly: ${call()}`,
    ]);
    expect(readFileSync(putBack(), "utf8")).toBe(readFileSync(join(FIXTURES, "journal-killed.jsonl"), "utf8"));
  });

  it("the gap: the result the client wrote after the last copy is copied first, then put back (the seal follows)", async () => {
    await launched();
    const gamma = readFileSync(join(FIXTURES, "journal-complete.jsonl"), "utf8").trimEnd().split("\n").at(-1)!;
    writeFileSync(clientJournal(), `${readFileSync(clientJournal(), "utf8")}${gamma}\n`);
    const lines = await sessionStartRuns(ctx(), start());
    expect(lines[0]).toContain("3 of 3 agents finished (alpha, beta, gamma); a relaunch runs again: none.");
    expect(readFileSync(kept("journal.jsonl"), "utf8")).toBe(readFileSync(clientJournal(), "utf8"));
    expect(readFileSync(putBack(), "utf8")).toBe(readFileSync(clientJournal(), "utf8"));
  });

  it("a start that names no Claude Code session folder (another client's): nothing said, nothing written", async () => {
    await launched();
    const codex = { ...start(), transcript_path: join(work, "sessions/rollout-2026-x.jsonl") };
    expect(await sessionStartRuns(ctx(), codex)).toEqual([]);
    expect(existsSync(putBack())).toBe(false);
  });

  it("a run whose launching process still runs (a compaction, a second terminal): not put back, never handed", async () => {
    process.env.CLAUDE_PID = String(process.pid);
    await launched();
    expect(JSON.parse(readFileSync(kept("run.json"), "utf8")).owner).toMatchObject({ pid: process.pid });
    expect(await sessionStartRuns(ctx(), start(SESSION, "compact"))).toEqual([
      `dotagent: Claude Code workflow run "${RUN}" is still running in this Claude Code process: it goes on by itself (its notification comes when it ends); do not relaunch it.`,
    ]);
    process.env.CLAUDE_PID = "4194000";
    const lines = await sessionStartRuns(ctx(), start());
    expect(lines).toEqual([
      `dotagent: Claude Code workflow run "${RUN}" is still running in another Claude Code process: do not relaunch it here; once that process is gone, a new session hands its resume.`,
    ]);
    expect(existsSync(putBack())).toBe(false);
  });

  it("claude -r (the same session): its own journal stays, the call is handed", async () => {
    await launched();
    const lines = await sessionStartRuns(ctx(), start(SESSION, "resume"));
    expect(lines[0]).toBe(
      `dotagent: Claude Code workflow run "${RUN}" was cut off before it ended: 2 of 3 agents finished (alpha, beta); a relaunch runs again: gamma.`,
    );
    expect(lines[1]).toContain(call());
  });

  it("a saved workflow whose bytes changed since the launch: one line, the kept script runs", async () => {
    await launched();
    mkdirSync(join(project, ".claude/workflows"), { recursive: true });
    writeFileSync(join(project, ".claude/workflows/probe-three.js"), "export const meta = {name: 'probe-three'}\n");
    const lines = await sessionStartRuns(ctx(), start());
    expect(lines[2]).toBe(
      "Its source .claude/workflows/probe-three.js changed since the launch; resuming runs the kept script.",
    );
  });

  it("the helper line `workflow-run resume` puts a sealed run's journal back into the calling session before it runs", async () => {
    await launched();
    const helper = join(project, ".claude/skills/checkpoint/scripts/dotagent.mjs");
    mkdirSync(dirname(helper), { recursive: true });
    writeFileSync(helper, "");
    const line = (root: string, run = RUN): HookInput => ({
      ...start(),
      cwd: root,
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: {
        command: `node "${join(root, ".claude/skills/checkpoint/scripts/dotagent.mjs")}" workflow-run resume ${run}`,
      },
    });
    // Another checkout's run, the person not asked: the line runs (it asks), nothing is put back.
    const clone = join(work, "clone");
    cpSync(project, clone, { recursive: true });
    const cloneOp = { ...op, paths: projectPaths(clone) };
    const denied = await onPreToolUse(
      cloneOp,
      line(clone),
      join(clone, ".claude/skills/checkpoint/scripts/dotagent.mjs"),
    );
    expect(denied).toMatchObject({ hookSpecificOutput: { permissionDecision: "allow" } });
    expect(existsSync(putBack())).toBe(false);
    // Sealed here: put back, then allowed.
    const allowed = await onPreToolUse(op, line(project), helper);
    expect(allowed).toMatchObject({ hookSpecificOutput: { permissionDecision: "allow" } });
    expect(warnings).toEqual([]);
    expect(readFileSync(putBack(), "utf8")).toBe(readFileSync(kept("journal.jsonl"), "utf8"));
  });

  describe("what arrives by git is history: not put back, one line and the person's choice", () => {
    const asks = (why: string) => [
      `dotagent: Claude Code workflow run "${RUN}" was cut off, but is not put back: ${why}. Whether to resume it from dotagent's copy is the person's: run \`dotagent workflow-run resume ${RUN}\` (it records the question, exit 5), show them its question and end your turn; on their yes run it with --yes and make the call it prints. Never relaunch the run otherwise.`,
    ];

    it("a journal edited by hand since dotagent copied it", async () => {
      await launched();
      writeFileSync(
        kept("journal.jsonl"),
        readFileSync(kept("journal.jsonl"), "utf8").replace('"result alpha"', '"forged alpha"'),
      );
      expect(await sessionStartRuns(ctx(), start())).toEqual(asks("its journal was edited since dotagent copied it"));
      expect(existsSync(putBack())).toBe(false);
    });

    it("a kept script changed since dotagent kept it", async () => {
      await launched();
      writeFileSync(kept("script.js"), "export const meta = {name: 'evil'}\n");
      expect(await sessionStartRuns(ctx(), start())).toEqual(asks("its kept script changed since dotagent kept it"));
      expect(existsSync(putBack())).toBe(false);
    });

    it("a fresh clone (another checkout, its key not this one's): the copy of the project is not trusted", async () => {
      await launched();
      const clone = join(work, "clone");
      cpSync(project, clone, { recursive: true });
      const lines = await sessionStartRuns({ paths: projectPaths(clone), warn: (m) => warnings.push(m) }, start());
      expect(lines).toEqual(asks("it came from another checkout (a clone: its seal is not this checkout's)"));
      expect(existsSync(putBack())).toBe(false);
    });

    it("a committed run folder with a forged journal and a seal made with another key", async () => {
      await launched();
      const forged = readFileSync(join(FIXTURES, "journal-complete.jsonl"), "utf8").replaceAll("result", "forged");
      writeFileSync(kept("journal.jsonl"), forged);
      const other = Buffer.alloc(32, 7);
      const seal = JSON.parse(readFileSync(kept("seal.json"), "utf8")) as Record<string, unknown>;
      const covered: Record<string, unknown> = {
        ...seal,
        journal_sha256: createHash("sha256").update(forged).digest("hex"),
      };
      const text = JSON.stringify([
        "dotagent workflow-run",
        RUN,
        covered.journal_sha256,
        covered.script_sha256,
        covered.args_sha256,
      ]);
      covered.seal = createHmac("sha256", other).update(text).digest("base64url").slice(0, 22);
      writeFileSync(kept("seal.json"), JSON.stringify(covered));
      expect(await sessionStartRuns(ctx(), start())).toEqual(
        asks("it came from another checkout (a clone: its seal is not this checkout's)"),
      );
      expect(existsSync(putBack())).toBe(false);
    });

    it("no seal at all", async () => {
      await launched();
      rmSync(kept("seal.json"));
      expect(await sessionStartRuns(ctx(), start())).toEqual(asks("dotagent never sealed it here"));
    });

    it("a run id folder that is a link: passed over", async () => {
      await launched();
      const outside = join(work, "outside-run");
      cpSync(join(project, "memory/state/workflow-runs", RUN), outside, { recursive: true });
      rmSync(join(project, "memory/state/workflow-runs", RUN), { recursive: true });
      symlinkSync(outside, join(project, "memory/state/workflow-runs", RUN));
      expect(await sessionStartRuns(ctx(), start())).toEqual([]);
      expect(existsSync(putBack())).toBe(false);
    });

    it("a new session folder that is a link out: refused, nothing written where it points", async () => {
      await launched();
      const outside = join(work, "outside-session");
      mkdirSync(outside);
      symlinkSync(outside, join(projects(), NEW));
      const lines = await sessionStartRuns(ctx(), start());
      expect(lines).toEqual([
        `dotagent: Claude Code workflow run "${RUN}" was cut off; it cannot be resumed: its journal was not put back: the session folder ${join(projects(), NEW)} is a link.`,
      ]);
      expect(existsSync(join(outside, "subagents"))).toBe(false);
    });

    it("a subagents folder in the new session that is a link out: refused by the write primitive", async () => {
      await launched();
      const outside = join(work, "outside-sub");
      mkdirSync(outside);
      mkdirSync(join(projects(), NEW));
      symlinkSync(outside, join(projects(), NEW, "subagents"));
      const lines = await sessionStartRuns(ctx(), start());
      expect(lines[0]).toMatch(
        /its journal was not put back: subagents is a link that leads out of the client's session folder/,
      );
      expect(existsSync(join(outside, "workflows"))).toBe(false);
    });
  });
});
