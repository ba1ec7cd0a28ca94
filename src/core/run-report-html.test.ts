import { describe, expect, it } from "vitest";
import {
  escapeHtml,
  formatDuration,
  renderRunReportHtml,
  stepSpans,
  taskColumns,
  type RunReportInput,
} from "./run-report-html.js";
import type { TaskRow } from "./task-list.js";

const STEPS = ["REQUIREMENTS", "ARCHITECTURE", "IMPLEMENTATION", "VERIFICATION", "REFLECTION"];
const at = (minute: number) => new Date(Date.UTC(2026, 10, 20, 9, minute)).toISOString();

function task(id: string, status: TaskRow["status"], extra: Partial<TaskRow> = {}): TaskRow {
  return {
    id,
    title: `title of ${id}`,
    status,
    attempts: 0,
    cut_off: 0,
    max_attempts: 3,
    depends_on: [],
    waiting_on: [],
    owner: null,
    started_at: null,
    completed_at: null,
    error: null,
    worktree: null,
    merge: null,
    skipped: null,
    ...extra,
  };
}

const merged = (commit: string): TaskRow["merge"] => ({
  state: "merged",
  into: "main",
  commit,
  at: at(40),
  files: [],
  reason: null,
});

function finished(): RunReportInput {
  const events = [
    { seq: 1, at: at(0), type: "workflow_started" },
    { seq: 2, at: at(9), type: "phase_approved", phase: "REQUIREMENTS" },
    { seq: 3, at: at(10), type: "phase_completed", phase: "REQUIREMENTS" },
    { seq: 4, at: at(10), type: "phase_started", phase: "ARCHITECTURE" },
    { seq: 5, at: at(30), type: "phase_completed", phase: "ARCHITECTURE" },
    { seq: 6, at: at(30), type: "phase_started", phase: "IMPLEMENTATION" },
    { seq: 7, at: at(50), type: "phase_completed", phase: "IMPLEMENTATION" },
    { seq: 8, at: at(50), type: "phase_started", phase: "VERIFICATION" },
    { seq: 9, at: at(55), type: "phase_completed", phase: "VERIFICATION" },
    { seq: 10, at: at(55), type: "phase_started", phase: "REFLECTION" },
    { seq: 11, at: at(58), type: "phase_completed", phase: "REFLECTION" },
  ];
  return {
    workflowId: "wf-login",
    request: "add login",
    currentPhase: "REFLECTION",
    phaseStatus: "complete",
    steps: STEPS,
    completed: STEPS.map((phase, i) => ({ phase, completed_at: at([10, 30, 50, 55, 58][i]!) })),
    approvals: [
      { phase: "REQUIREMENTS", approved_at: at(9) },
      { phase: "ARCHITECTURE", approved_at: at(29) },
    ],
    tasks: [
      task("t1", "complete", { merge: merged("34e1dc7aaaa") }),
      task("t2", "complete", { depends_on: ["t1"], merge: merged("89c9222bbbb") }),
    ],
    events,
    checks: [
      {
        step: "VERIFICATION",
        kind: "agent",
        report: "memory/reports/verification.json",
        outcome: "passed",
        rework_rounds: 0,
        detail: "every criterion met",
      },
    ],
    cost: { recorded: false, why: "no dotagent run sessions" },
    generatedAt: at(59),
  };
}

function interrupted(): RunReportInput {
  const base = finished();
  return {
    ...base,
    currentPhase: "IMPLEMENTATION",
    phaseStatus: "in_progress",
    completed: base.completed.slice(0, 2),
    events: [
      ...base.events.slice(0, 6),
      { seq: 7, at: at(35), type: "task_started", task_id: "t2" },
      { seq: 8, at: at(41), type: "task_reset", task_id: "t2", attempts: 1 },
      {
        seq: 9,
        at: at(41),
        type: "resumed",
        situation: "interrupted",
        next: "run_tasks",
        repairs: 1,
        repair_codes: ["task_reset"],
      },
      { seq: 10, at: at(42), type: "agent_gone", agent: "qa", output: "memory/reports/verification.json" },
    ],
    tasks: [
      task("t1", "complete", { merge: merged("34e1dc7aaaa") }),
      task("t2", "running", { depends_on: ["t1"], attempts: 1 }),
      task("t3", "dead", { depends_on: ["t2"], attempts: 3, error: "tests fail" }),
    ],
    checks: [
      {
        step: "VERIFICATION",
        kind: "agent",
        report: "memory/reports/verification.json",
        outcome: "none",
        rework_rounds: 0,
        detail: null,
      },
    ],
    generatedAt: at(59 + 24 * 60),
  };
}

describe("the run report page", () => {
  it("of a finished workflow: every step on the timeline, the gates, the tasks with their merge commits", () => {
    const html = renderRunReportHtml(finished());
    expect(html.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(html.match(/<rect [^>]*fill="#2e7d32"/g)).toHaveLength(5 + 2); // 5 step bars, 2 task boxes, all complete
    expect(html.match(/class="gate"/g)).toHaveLength(2);
    expect(html).toContain("merged into main as 34e1dc7");
    expect(html).toContain("2 merge commits");
    expect(html).toContain('<path d="M210 39'); // the edge t1 → t2
    expect(html).toContain("None: no work was cut off and nothing was repaired.");
    expect(html).toContain("Not recorded: no dotagent run sessions");
    expect(html).toContain(
      "complete · 2 tasks, 2 complete · 0 interruption or repair events · verification passed · 58 min in all",
    );
    expect(html).toContain("2026-11-20 09:58:00 UTC (complete)"); // the axis ends at the completion, not at the page's making (09:59)
    expect(html).toMatch(
      /<td>VERIFICATION<\/td><td>its agent<\/td><td><span class="badge" style="background:#2e7d32">passed<\/span><\/td><td>0<\/td>/,
    );
  });

  it("of a run that was never interrupted, planned step by step: its bookkeeping resumes are neither counted nor drawn", () => {
    const base = finished();
    const resumed = (seq: number, minute: number) => ({
      seq,
      at: at(minute),
      type: "resumed",
      situation: "interrupted",
      next: "spawn_agent",
      repairs: 0,
      repair_codes: [],
    });
    const html = renderRunReportHtml({
      ...base,
      events: [
        ...base.events,
        resumed(12, 11),
        resumed(13, 31),
        { seq: 14, at: at(58), type: "resumed", situation: "complete", next: "workflow_complete", repairs: 0 },
      ],
    });
    expect(html).toContain("0 interruption or repair events");
    expect(html).not.toContain('class="break"');
    expect(html).toContain(
      "3 resumed events that repaired nothing and followed no interruption are dotagent planning the next step, not listed.",
    );
  });

  it("of an interrupted one: the open step so far, the running and dead tasks, what resume repaired", () => {
    const html = renderRunReportHtml(interrupted());
    expect(html).toContain('class="open"');
    expect(html).toMatch(/IMPLEMENTATION<\/td><td><span class="badge" style="background:#1565c0">in progress/);
    expect(html).toMatch(/>12 min so far</); // 09:30 to the last event (09:42), not to the page's making a day later
    expect(html).toContain("2026-11-20 09:42:00 UTC (last event)");
    expect(html).toMatch(/fill="#c62828"\/>\n<text[^>]*>t3 title of t3/);
    expect(html.match(/class="break"/g)).toHaveLength(3);
    expect(html).toContain("<td>interruption</td><td>task_reset</td><td>task_id=t2 attempts=1</td>");
    expect(html).toContain("<td>repair</td><td>resumed</td>");
    expect(html).toContain(
      "at IMPLEMENTATION (in progress) · 3 tasks, 1 complete, 1 running, 1 dead · 3 interruption or repair events · verification not done yet (VERIFICATION no report yet) · 42 min so far",
    );
    expect(renderRunReportHtml({ ...interrupted(), phaseStatus: "pending" })).toContain(
      "at IMPLEMENTATION (in progress)",
    ); // as the step table says it, not phase.json's word
  });

  it("is self-contained: no script, no link or image from the network, a policy that forbids them", () => {
    const html = renderRunReportHtml(interrupted());
    expect(html).not.toMatch(/<script|<link|<img|@import|url\(|https?:\/\//i);
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`);
  });

  it("escapes every string from the state: a hostile request, title, error and event", () => {
    const evil = `</title><script>alert(1)</script><img src=x onerror=alert(2)>"'`;
    const input = interrupted();
    const html = renderRunReportHtml({
      ...input,
      workflowId: `wf-${evil}`,
      request: evil,
      tasks: [task("t1", "failed", { title: evil, error: evil, depends_on: [evil] })],
      events: [...input.events, { seq: 11, at: at(43), type: "task_failed", task_id: "t1", error: evil, [evil]: evil }],
    });
    expect(html).not.toMatch(/<script|<img|onerror=alert\(2\)>/);
    expect(html).toContain(
      "&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&quot;&#39;",
    );
    expect(html.match(/<title>/g)!.length).toBe(html.match(/<\/title>/g)!.length);
  });

  it("tolerates a state with no workflow, no events and no tasks", () => {
    const html = renderRunReportHtml({
      workflowId: null,
      request: null,
      currentPhase: null,
      phaseStatus: null,
      steps: STEPS,
      completed: [],
      approvals: [],
      tasks: [],
      events: [],
      checks: [],
      cost: { recorded: false, why: "nothing" },
      generatedAt: at(0),
    });
    expect(html).toContain("No workflow");
    expect(html).toContain("No task planned yet.");
  });
});

describe("pieces", () => {
  it.each([
    [0, "0 s"],
    [45_000, "45 s"],
    [12 * 60_000, "12 min"],
    [125 * 60_000, "2 h 05 min"],
    [(3 * 24 + 4) * 3_600_000, "3 d 4 h"],
  ])("formatDuration(%d) = %s", (ms, text) => expect(formatDuration(ms)).toBe(text));

  it("escapeHtml turns the five significant characters into entities and shows control characters", () => {
    expect(escapeHtml(`<a href="x" title='y'>&\u001b`)).toBe(
      "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;\\u001b",
    );
  });

  it("taskColumns puts a task right of what it waits for, and cuts a cycle and an unknown id", () => {
    const cols = taskColumns([
      task("a", "pending"),
      task("b", "pending", { depends_on: ["a", "ghost"] }),
      task("c", "pending", { depends_on: ["b"] }),
      task("x", "pending", { depends_on: ["y"] }),
      task("y", "pending", { depends_on: ["x"] }),
    ]);
    expect(Object.fromEntries(cols)).toEqual({ a: 0, b: 1, c: 2, x: 1, y: 0 });
  });

  it("stepSpans falls back to phase.json when the event log is gone", () => {
    const spans = stepSpans({ ...finished(), events: [] });
    expect(spans.map((s) => s.status)).toEqual(["complete", "complete", "complete", "complete", "complete"]);
    expect(spans[1]).toMatchObject({ start: Date.parse(at(10)), end: Date.parse(at(30)) });
  });
});
