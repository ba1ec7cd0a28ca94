// `dotagent workflow-run resume|forget RUN_ID` through the built CLI (SPEC §10, §11 "Claude Code's
// Workflow runs"): a run kept by the hooks, then the project copied as a fresh clone would be (its
// memory committed, another checkout's key): not put back at a session's start; from an agent's
// shell the resume is the person's question (exit 5), refused with --yes until their reply says
// yes, then sealed here, its call printed and its journal put back at the next session's start.
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO, dotagent, removeTemps, tempProject } from "./support/cli.js";
import { typedPrompt } from "./support/typed-prompt.js";

const FIXTURES = join(REPO, "test/claude/fixtures/workflow-tool");
const RUN = "wf_3216a11b-d0a";
const SESSION = "85d13282-20ae-49c3-87f2-86f6adfc3d8f";
const AS_MODEL = { CLAUDECODE: "1" };

let work = "";
let project = "";
const projects = () => join(work, "home/.claude/projects/-tmp-WORK-project");
const fixture = (event: string) =>
  JSON.parse(readFileSync(join(FIXTURES, "hooks", `${event}.json`), "utf8").replaceAll("/tmp/WORK", work)) as Record<
    string,
    unknown
  >;

/** The person's line of the newest sessionStart below (its systemMessage; "" when none). */
let personLine = "";

/** A session's start in `root`: the briefing's text ("" when nothing is said). */
function sessionStart(root: string, sessionId: string, source = "startup"): string {
  const r = dotagent(root, ["hook", "session-start"], {
    input: JSON.stringify({
      session_id: sessionId,
      transcript_path: join(projects(), `${sessionId}.jsonl`),
      cwd: root,
      hook_event_name: "SessionStart",
      source,
    }),
    env: { CLAUDE_PROJECT_DIR: root },
  });
  expect(r.code, r.stderr).toBe(0);
  personLine = r.stdout.trim() === "" ? "" : String(JSON.parse(r.stdout).systemMessage ?? "");
  return r.stdout.trim() === "" ? "" : String(JSON.parse(r.stdout).hookSpecificOutput?.additionalContext ?? "");
}

beforeAll(() => {
  work = tempProject();
  project = join(work, "project");
  mkdirSync(join(project, "memory/state"), { recursive: true });
  const journal = join(projects(), SESSION, "subagents/workflows", RUN, "journal.jsonl");
  mkdirSync(join(journal, ".."), { recursive: true });
  writeFileSync(journal, readFileSync(join(FIXTURES, "journal-killed.jsonl")));
  const r = dotagent(project, ["hook", "post-tool-use"], {
    input: JSON.stringify({ ...fixture("PostToolUse"), cwd: project }),
    // The launching Claude Code process, gone since (a pid no process has): the run was cut off.
    env: { CLAUDE_PROJECT_DIR: project, CLAUDE_PID: "4194000" },
  });
  expect(r.code, r.stderr).toBe(0);
  expect(existsSync(join(project, "memory/state/workflow-runs", RUN, "seal.json"))).toBe(true);
});
afterAll(removeTemps);

describe("workflow-run resume: a fresh clone's run is the person's to resume", () => {
  it("the clone's session start puts nothing back and names why", () => {
    const clone = join(work, "clone-1");
    cpSync(project, clone, { recursive: true });
    const NEW = "33333333-2222-4333-8444-555555555555";
    expect(sessionStart(clone, NEW)).toContain(
      `workflow run "${RUN}" was cut off, but is not put back: it came from another checkout`,
    );
    // The person reads it in plain words (the client shows the systemMessage, not the briefing).
    expect(personLine).toBe(
      `dotagent: Claude Code workflow "probe-three" (run ${RUN}) was cut off; dotagent does not resume it by itself: it came from another checkout (a clone: its seal is not this checkout's). Type "resume the cut-off workflow" to be asked whether to.`,
    );
    expect(existsSync(join(projects(), NEW))).toBe(false);
  });

  it("from an agent's shell: asked (exit 5), refused with --yes before the reply, sealed and handed after the person's yes", () => {
    const clone = join(work, "clone-2");
    cpSync(project, clone, { recursive: true });
    const asked = dotagent(clone, ["workflow-run", "resume", RUN, "--json"], { env: AS_MODEL });
    expect(asked.code, asked.stderr).toBe(5);
    expect(asked.json.decision).toMatchObject({
      yes: `dotagent workflow-run resume ${RUN} --yes`,
      no: `dotagent workflow-run forget ${RUN}`,
    });
    expect(asked.json.decision.question).toContain("it came from another checkout");
    const early = dotagent(clone, ["workflow-run", "resume", RUN, "--yes", "--json"], { env: AS_MODEL });
    expect(early.code).toBe(1);
    expect(early.json.error.code).toBe("person_not_answered");
    // The person's yes, as the client records their prompt.
    const prompt = typedPrompt("yes");
    const replied = dotagent(clone, ["hook", "user-prompt-submit"], {
      input: JSON.stringify({ cwd: clone, ...prompt.input }),
      env: { CLAUDE_PROJECT_DIR: clone },
    });
    expect(replied.code).toBe(0);
    const yes = dotagent(clone, ["workflow-run", "resume", RUN, "--yes", "--json"], { env: AS_MODEL });
    expect(yes.code, yes.stdout + yes.stderr).toBe(0);
    expect(yes.json).toEqual({
      run_id: RUN,
      sealed_now: true,
      call: `Workflow({scriptPath: ${JSON.stringify(join(clone, "memory/state/workflow-runs", RUN, "script.js"))}, resumeFromRunId: "${RUN}", args: {"topic":"probe","n":3}})`,
      done: ["alpha", "beta"],
      rerun: ["gamma"],
    });
    // Sealed here now: the next session's start puts it back and hands the call.
    const NEW = "44444444-2222-4333-8444-555555555555";
    const briefing = sessionStart(clone, NEW);
    expect(briefing).toContain(`call exactly: ${yes.json.call}`);
    expect(personLine).toBe(
      `dotagent: Claude Code workflow "probe-three" (run ${RUN}) was cut off with 2 of 3 agents finished. Type "resume the cut-off workflow" to finish it: gamma runs again, no finished agent does.`,
    );
    // A compaction hands the model the call again; the person, still at the same session, is told nothing new.
    const compacted = sessionStart(clone, NEW, "compact");
    expect(compacted).toContain(`call exactly: ${yes.json.call}`);
    expect(personLine).toBe("");
    expect(readFileSync(join(projects(), NEW, "subagents/workflows", RUN, "journal.jsonl"), "utf8")).toBe(
      readFileSync(join(FIXTURES, "journal-killed.jsonl"), "utf8"),
    );
  });

  it("with a dotagent workflow open too: the person reads the workflow's line, then the run's", () => {
    const clone = join(work, "clone-4");
    cpSync(project, clone, { recursive: true });
    expect(dotagent(clone, ["resume", "--json", "--start", "--request", "add login"]).code).toBe(0);
    sessionStart(clone, "66666666-2222-4333-8444-555555555555", "resume");
    const [workflow, run, ...more] = personLine.split("\n");
    expect(workflow).toMatch(/^dotagent: workflow wf-\S+ is open/);
    expect(run).toMatch(/^dotagent: Claude Code workflow "probe-three" \(run wf_\S+\) was cut off; /);
    expect(more).toEqual([]);
  });

  it("the person at their terminal: resumed at once; forget ends it (nothing said after; resume refused)", () => {
    const clone = join(work, "clone-3");
    cpSync(project, clone, { recursive: true });
    const r = dotagent(clone, ["workflow-run", "resume", RUN]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Resume it with exactly: Workflow({scriptPath:`);
    const forgot = dotagent(clone, ["workflow-run", "forget", RUN, "--json"]);
    expect(forgot.code).toBe(0);
    expect(forgot.json.ended.status).toBe("forgotten");
    expect(sessionStart(clone, "55555555-2222-4333-8444-555555555555")).toBe("");
    const again = dotagent(clone, ["workflow-run", "resume", RUN, "--json"]);
    expect(again.json.error.code).toBe("workflow_run_ended");
  });

  it("a run that ended stopped (TaskStop, a failure): the person's to take up again; a model's shell is asked; completed stays refused", () => {
    const clone = join(work, "clone-stopped");
    cpSync(project, clone, { recursive: true });
    const file = join(clone, "memory/state/workflow-runs", RUN, "run.json");
    const record = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    const stop = (status: string) =>
      writeFileSync(file, JSON.stringify({ ...record, ended: { status, at: "2026-11-30T08:00:00.000Z" } }));
    stop("killed");
    expect(sessionStart(clone, "77777777-2222-4333-8444-555555555555")).toBe("");
    const asked = dotagent(clone, ["workflow-run", "resume", RUN, "--json"], { env: AS_MODEL });
    expect(asked.code, asked.stderr).toBe(5);
    expect(asked.json.decision.question).toBe(
      `Claude Code workflow run "${RUN}" ended killed at 2026-11-30T08:00:00.000Z, and dotagent does not trust its kept copy: it came from another checkout (a clone: its seal is not this checkout's). Resume it from dotagent's copy (its finished agents' results are kept, only the rest runs)?`,
    );
    // The person at their terminal: taken up at once, open again, its call handed.
    const taken = dotagent(clone, ["workflow-run", "resume", RUN, "--json"]);
    expect(taken.code, taken.stderr).toBe(0);
    expect(taken.json).toMatchObject({ run_id: RUN, done: ["alpha", "beta"], rerun: ["gamma"] });
    expect(JSON.parse(readFileSync(file, "utf8")).ended).toBeNull();
    // Forgetting a stopped run ends it for good; a completed run has nothing to resume.
    stop("failed");
    expect(dotagent(clone, ["workflow-run", "forget", RUN, "--json"]).json.ended.status).toBe("forgotten");
    stop("completed");
    expect(dotagent(clone, ["workflow-run", "resume", RUN, "--json"]).json.error.code).toBe("workflow_run_ended");
  });

  it("an unknown run id, a run id with ../, a bad form", () => {
    expect(dotagent(project, ["workflow-run", "resume", "wf_nothing-here", "--json"]).json.error.code).toBe(
      "workflow_run_unknown",
    );
    expect(dotagent(project, ["workflow-run", "resume", "wf_../../x", "--json"]).json.error.code).toBe(
      "workflow_run_unknown",
    );
    expect(dotagent(project, ["workflow-run", "start", RUN]).code).toBe(2);
  });
});

describe("dotagent resume names the open Workflow runs (read only)", () => {
  it("a run sealed here: resumable, with its exact call, what finished and what runs again; nothing copied or put back", () => {
    const resumed = dotagent(project, ["resume", "--json", "--dry-run"]);
    expect(resumed.json.claude_workflow_runs).toEqual([
      {
        run_id: RUN,
        workflow_name: expect.any(String),
        state: "resumable",
        done: ["alpha", "beta"],
        rerun: ["gamma"],
        call: expect.stringContaining(`resumeFromRunId: "${RUN}"`),
        why: null,
      },
    ]);
    const text = dotagent(project, ["resume", "--dry-run"]).stdout;
    expect(text).toContain(`workflow run "${RUN}" was cut off before it ended: 2 of 3 agents finished (alpha, beta)`);
    expect(text).toContain("call exactly: Workflow({scriptPath:");
  });

  it("a clone's run: the person's choice, with why; no field at all where no run is kept", () => {
    const clone = join(work, "clone-resume");
    cpSync(project, clone, { recursive: true });
    const resumed = dotagent(clone, ["resume", "--json", "--dry-run"]);
    expect(resumed.json.claude_workflow_runs).toEqual([
      expect.objectContaining({
        run_id: RUN,
        state: "ask",
        call: null,
        why: expect.stringContaining("another checkout"),
      }),
    ]);
    const bare = tempProject();
    mkdirSync(join(bare, "memory/state"), { recursive: true });
    expect(dotagent(bare, ["resume", "--json", "--dry-run"]).json).not.toHaveProperty("claude_workflow_runs");
  });
});

describe("workflow-run resume of a run whose Claude Code still runs", () => {
  it("is refused (workflow_run_live, exit 1): the run goes on by itself, a relaunch would run its agents twice", () => {
    const live = join(work, "live");
    mkdirSync(join(live, "memory/state"), { recursive: true });
    const r = dotagent(live, ["hook", "post-tool-use"], {
      input: JSON.stringify({ ...fixture("PostToolUse"), cwd: live }),
      // The launching process: this test's own, alive.
      env: { CLAUDE_PROJECT_DIR: live, CLAUDE_PID: String(process.pid) },
    });
    expect(r.code, r.stderr).toBe(0);
    const refused = dotagent(live, ["workflow-run", "resume", RUN, "--json"]);
    expect(refused.code).toBe(1);
    expect(refused.json.error).toMatchObject({ code: "workflow_run_live" });
    expect(refused.json.error.message).toContain("a relaunch would run its agents twice");
  });
});
