import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  cleanText,
  runLine,
  runListLines,
  statusRunLines,
  workflowRunView,
  type WorkflowRunFacts,
} from "./workflow-run-view.js";

const fixture = (name: string) =>
  readFileSync(join(import.meta.dirname, "../../test/claude/fixtures/workflow-tool", name), "utf8");
const KILLED = fixture("journal-killed.jsonl");
const COMPLETE = fixture("journal-complete.jsonl");

const facts = (over: Partial<WorkflowRunFacts> & { record?: unknown }): WorkflowRunFacts => ({
  runId: "wf_cfe69835-f9e",
  record: { workflow_name: "three-agents", session_id: "s1", recorded_at: "2026-11-30T01:00:00.000Z" },
  journal: KILLED,
  sessionHoldsRun: false,
  problem: null,
  ...over,
});
const ended = (status: unknown) => ({ workflow_name: "three-agents", ended: { status, at: "2026-11-30T02:00:00Z" } });

describe("workflowRunView: an agent with no result is running only while the run is open and its session holds it", () => {
  it.each([
    // [case, facts, state, gamma's state, line's standing]
    ["open, session holds the run", facts({ sessionHoldsRun: true }), "open", "running", "open, running: gamma"],
    ["open, session folder gone", facts({}), "open", "lost", "open (cut off: resuming re-runs gamma)"],
    [
      "ended stopped, session holds it",
      facts({ sessionHoldsRun: true, record: ended("stopped") }),
      "ended:stopped",
      "lost",
      "ended: stopped (resuming re-runs gamma)",
    ],
    [
      "ended completed",
      facts({ journal: COMPLETE, record: ended("completed") }),
      "ended:completed",
      "done",
      "ended: completed",
    ],
    [
      "ended without a status",
      facts({ record: ended(7) }),
      "ended:unknown",
      "lost",
      "ended: unknown (resuming re-runs gamma)",
    ],
    ["no ended field (absent = open)", facts({ journal: COMPLETE }), "open", "done", "open"],
    [
      "ended: null is open",
      facts({ record: { ended: null } }),
      "open",
      "lost",
      "open (cut off: resuming re-runs gamma)",
    ],
  ] as const)("%s", (_case, input, state, gamma, standing) => {
    const view = workflowRunView(input);
    expect(view.state).toBe(state);
    expect(view.agents.map((a) => a.state)).toEqual(["done", "done", gamma]);
    expect(runLine(view)).toContain(` · ${standing}`);
  });

  it("gives the stable fields of `tasks --workflow-runs --json`", () => {
    expect(workflowRunView(facts({}))).toEqual({
      run_id: "wf_cfe69835-f9e",
      workflow_name: "three-agents",
      session_id: "s1",
      state: "open",
      agents: [
        { label: "alpha", phase: "Fan", state: "done", headline: "result alpha" },
        { label: "beta", phase: "Fan", state: "done", headline: "result beta" },
        { label: "gamma", phase: "Join", state: "lost", headline: null },
      ],
      rerun_on_resume: ["gamma"],
      recorded_at: "2026-11-30T01:00:00.000Z",
      problem: null,
    });
  });

  it("a run.json that could not be read and no journal: a run with no agents and its problem, never a throw", () => {
    const view = workflowRunView(facts({ record: null, journal: null, problem: "run.json is not valid JSON" }));
    expect(view).toMatchObject({ workflow_name: null, state: "open", agents: [], rerun_on_resume: [] });
    expect(runLine(view)).toBe("wf_cfe69835-f9e · 0 of 0 agents done · open · (run.json is not valid JSON)");
  });

  it("hostile text from git: control characters dropped, names cut short, lines not read counted", () => {
    const journal = `${JSON.stringify({ type: "started", key: "k", label: `a\u001b[31m${"x".repeat(200)}` })}\n{torn\n`;
    const view = workflowRunView(
      facts({ journal, record: { workflow_name: "evil\u0007\nname", ended: { status: "x y" } } }),
    );
    expect(view.workflow_name).toBe("evil  name");
    expect(view.state).toBe("ended:x-y");
    expect(view.agents[0]!.label).toHaveLength(80);
    expect(view.agents[0]!.label).not.toMatch(/\u001b/);
    expect(view.problem).toBe("1 journal line not read");
  });

  it("an agent with no label is named by its place in the run", () => {
    const journal = `${JSON.stringify({ type: "started", key: "k1" })}\n${JSON.stringify({ type: "started", key: "k2" })}\n`;
    expect(workflowRunView(facts({ journal })).rerun_on_resume).toEqual(["agent 1", "agent 2"]);
  });
});

describe("the lines", () => {
  const run = (id: string, at: string) => workflowRunView(facts({ runId: id, record: { recorded_at: at } }));

  it("status: nothing without runs; else the newest three and a count of the rest", () => {
    expect(statusRunLines([])).toEqual([]);
    const lines = statusRunLines(
      ["01", "02", "03", "04", "05"].map((n) => run(`wf_aaaaaa-${n}`, `2026-11-30T00:00:${n}Z`)),
    );
    expect(lines[0]).toBe("Claude Code workflow runs:");
    expect(lines.slice(1, 4).map((l) => l.slice(2, 16))).toEqual([
      "wf_aaaaaa-05 ·",
      "wf_aaaaaa-04 ·",
      "wf_aaaaaa-03 ·",
    ]);
    expect(lines[4]).toBe("  and 2 more: `dotagent tasks --workflow-runs`");
  });

  it("the list: a line per run, then one per agent", () => {
    expect(runListLines([workflowRunView(facts({}))])).toEqual([
      "wf_cfe69835-f9e three-agents · 2 of 3 agents done · open (cut off: resuming re-runs gamma)",
      "  done    alpha [Fan]: result alpha",
      "  done    beta [Fan]: result beta",
      "  lost    gamma [Join]",
    ]);
    expect(runListLines([])).toEqual(["No Claude Code workflow runs recorded here (memory/state/workflow-runs/)."]);
  });

  it("names more than three as `and N more`", () => {
    const journal = ["a", "b", "c", "d", "e"]
      .map((l) => JSON.stringify({ type: "started", key: l, label: l }))
      .join("\n");
    expect(runLine(workflowRunView(facts({ journal })))).toContain("resuming re-runs a, b, c and 2 more");
  });

  it.each([
    [7, null],
    ["  ", null],
    ["ok", "ok"],
  ] as const)("cleanText(%j) = %j", (input, out) => expect(cleanText(input)).toBe(out));
});

describe("runListLines paints only the state word", () => {
  it("with the printer's paint", () => {
    const lines = runListLines([workflowRunView(facts({}))], (state, text) => `<${state}>${text}</>`);
    expect(lines[3]).toBe("  <lost>lost   </> gamma [Join]");
  });
});
