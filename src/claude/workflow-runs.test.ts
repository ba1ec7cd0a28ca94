// Claude Code's Workflow runs kept in the project's memory (SPEC §11), from the hook inputs the real
// 2.1.332 binary sent (test/claude/fixtures/workflow-tool/, captured as test/claude/NOTES.md says):
// a launch is recorded, a workflow agent's end copies the journal, and hostile inputs are refused
// with one line and nothing written outside memory/state/workflow-runs/<runId>/.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { onPostToolUse, onSubagentStart, onSubagentStop, onUserPromptSubmit, type HookInput } from "./hooks.js";
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
afterEach(() => rmSync(work, { recursive: true, force: true }));

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
