import { describe, expect, it } from "vitest";
import { DEVELOP, type Step } from "./flow.js";
import type { ReportSnapshot, ReportState } from "./reports.js";
import {
  checkOutcomes,
  checkWords,
  classifyEvents,
  kindOfEvent,
  runSpan,
  verificationOf,
  verificationWords,
  type CheckOutcome,
  type RunEvent,
  type RunSpanInput,
} from "./run-story.js";

const at = (minute: number) => new Date(Date.UTC(2026, 10, 20, 9, minute)).toISOString();
const STEPS = DEVELOP.steps.map((s) => s.id);
let seq = 0;
const ev = (minute: number, type: string, fields: Record<string, unknown> = {}): RunEvent => ({
  seq: ++seq,
  at: at(minute),
  type,
  ...fields,
});
/** What `resume` logs each time it plans (the runner: once per step). */
const planned = (minute: number, next: string, codes: string[] = []) =>
  ev(minute, "resumed", { situation: "interrupted", next, repairs: codes.length, repair_codes: codes });

/** `dotagent run` to the end, never interrupted: a resume before every step, nothing repaired. */
function uninterrupted(): RunEvent[] {
  seq = 0;
  return [
    ev(0, "workflow_started"),
    planned(0, "spawn_agent"),
    ev(0, "agent_started", { agent: "pm" }),
    ev(1, "agent_ended", { agent: "pm", report: "valid" }),
    ev(1, "phase_approved", { phase: "REQUIREMENTS" }),
    ev(1, "phase_completed", { phase: "REQUIREMENTS" }),
    planned(1, "spawn_agent"),
    ev(2, "phase_completed", { phase: "ARCHITECTURE" }),
    ev(2, "plan_recorded", { round: 0, tasks: 2 }),
    planned(2, "run_tasks", ["plan_recorded"]),
    ev(2, "task_started", { task_id: "task-001" }),
    ev(3, "task_completed", { task_id: "task-001" }),
    planned(3, "run_tasks"),
    ev(3, "phase_completed", { phase: "IMPLEMENTATION" }),
    planned(3, "spawn_agent"),
    ev(4, "phase_completed", { phase: "VERIFICATION" }),
    planned(4, "spawn_agent"),
    ev(5, "phase_completed", { phase: "REFLECTION" }),
    ev(5, "resumed", { situation: "complete", next: "workflow_complete", repairs: 0, repair_codes: [] }),
  ];
}

/** Killed while task-002 ran; the next `dotagent run`'s resume set it back. */
function killedAndResumed(): RunEvent[] {
  seq = 0;
  return [
    ev(0, "workflow_started"),
    planned(0, "spawn_agent"),
    ev(2, "phase_completed", { phase: "ARCHITECTURE" }),
    ev(2, "task_started", { task_id: "task-002", pid: 4242 }),
    ev(30, "task_reset", { task_id: "task-002", attempts: 1 }),
    planned(30, "run_tasks", ["task_reset"]),
    ev(31, "task_started", { task_id: "task-002" }),
    ev(32, "task_completed", { task_id: "task-002" }),
    planned(32, "spawn_agent"),
  ];
}

/** Verification failed once: rework round 1 planned, done, verified again. */
function reworked(): RunEvent[] {
  seq = 0;
  return [
    ev(0, "workflow_started"),
    ev(4, "agent_ended", { agent: "qa", report: "valid" }),
    ev(4, "phase_rework", {
      phase: "IMPLEMENTATION",
      round: 1,
      verification: "memory/reports/verification.rework-1.json",
    }),
    planned(4, "plan_tasks", ["rework"]),
    ev(5, "task_failed", { task_id: "rework-1-1", attempts: 1 }),
    ev(5, "task_requeued", { task_id: "rework-1-1", attempts: 1 }),
    planned(5, "run_tasks", ["task_requeued"]),
    ev(6, "task_completed", { task_id: "rework-1-1" }),
    ev(7, "phase_completed", { phase: "VERIFICATION" }),
    planned(7, "spawn_agent"),
  ];
}

const kinds = (events: RunEvent[]) => classifyEvents(events).map(({ event, kind }) => `${event.type}:${kind}`);

describe("which events are interruptions, repairs or failures", () => {
  it.each([
    ["an uninterrupted run", uninterrupted, []],
    ["a killed-and-resumed run", killedAndResumed, ["task_reset:interruption", "resumed:repair"]],
    [
      "a failed-then-reworked check",
      reworked,
      ["phase_rework:failure", "task_failed:failure", "task_requeued:failure"],
    ],
    [
      "a check's command cut off and run again, then run again after a rework",
      () => [
        ev(0, "step_run_started", { step: "TESTS" }),
        ev(1, "resumed", { repairs: 0, repair_codes: [] }),
        ev(1, "step_run_started", { step: "TESTS" }),
        ev(2, "step_run_ended", { step: "TESTS", passed: false }),
        ev(3, "step_run_started", { step: "TESTS" }),
        ev(4, "step_run_ended", { step: "TESTS", passed: true }),
      ],
      ["step_run_started:interruption"],
    ],
    [
      "an agent's session continued by the next dotagent run",
      () => [
        ev(0, "phase_started", { phase: "REQUIREMENTS" }),
        ev(1, "resumed", { repairs: 0, repair_codes: [] }),
        ev(2, "agent_continued", { agent: "pm", output: "memory/reports/demand.json", session: "s-1" }),
      ],
      ["agent_continued:interruption"],
    ],
  ] as const)("%s", (_name, events, expected) => expect(kinds(events())).toEqual(expected));

  const e = (type: string, fields: Record<string, unknown> = {}): RunEvent => ({ seq: 1, at: at(0), type, ...fields });
  it.each([
    ["a resume that planned the next step", e("resumed", { repairs: 0, repair_codes: [] }), undefined, null],
    [
      "a resume that recorded the design's plan",
      e("resumed", { repairs: 1, repair_codes: ["plan_recorded"] }),
      undefined,
      null,
    ],
    ["a resume that sent a failed check back", e("resumed", { repairs: 1, repair_codes: ["rework"] }), undefined, null],
    [
      "a resume that found an agent gone",
      e("resumed", { repairs: 2, repair_codes: ["phase_advanced", "agent_gone"] }),
      undefined,
      "repair",
    ],
    [
      "a resume that kept a hand edit",
      e("resumed", { repairs: 1, repair_codes: ["hand_edit_kept"] }),
      undefined,
      "repair",
    ],
    ["an old log's resume after a task reset", e("resumed", { repairs: 1 }), e("task_reset"), "repair"],
    ["an old log's resume after a rework", e("resumed", { repairs: 1 }), e("phase_rework"), null],
    ["an old log's resume that repaired nothing", e("resumed", { repairs: 0 }), e("task_reset"), null],
    ["a task orphaned to death", e("task_dead", { orphaned: true }), undefined, "interruption"],
    ["a task dead of its failures", e("task_dead"), undefined, "failure"],
    [
      "a task completed from the report of a session that was cut off",
      e("task_completed", { recovered: true }),
      undefined,
      "interruption",
    ],
    ["a task completed", e("task_completed"), undefined, null],
    [
      "a task failed from the report of a session that was cut off",
      e("task_failed", { recovered: true }),
      undefined,
      "interruption",
    ],
    ["a merge finished for a gone session", e("task_merged", { recovered: true }), undefined, "interruption"],
    ["a task given back on Ctrl-C", e("task_released"), undefined, "interruption"],
    ["a change cut off between its files", e("transition_recovered"), undefined, "interruption"],
    ["an agent gone", e("agent_gone"), undefined, "interruption"],
    ["a rollback", e("rolled_back"), undefined, "repair"],
    ["a report set aside", e("report_set_aside"), undefined, "repair"],
    ["a step failed", e("phase_failed"), undefined, "failure"],
    ["a merge conflict", e("task_conflict"), undefined, "failure"],
    ["a step started", e("phase_started"), undefined, null],
  ] as const)("%s", (_name, event, before, kind) => expect(kindOfEvent(event, before)).toBe(kind));
});

describe("when the run started and ended", () => {
  const spanOf = (events: RunEvent[], over: Partial<RunSpanInput> = {}) =>
    runSpan({
      steps: STEPS,
      currentPhase: "REFLECTION",
      phaseStatus: "complete",
      completed: [],
      approvals: [],
      events,
      ...over,
    });
  const minutes = (span: ReturnType<typeof runSpan>) =>
    [span.start, span.end].map((t) => (t === undefined ? undefined : (t - Date.parse(at(0))) / 60_000));

  it.each([
    [
      "complete: at the last step's completion, not at the resume logged after it",
      () => spanOf([...uninterrupted(), ev(50, "resumed", { repairs: 0, repair_codes: [] })]),
      [0, 5],
      true,
    ],
    [
      "open: at its last event",
      () => spanOf(killedAndResumed(), { currentPhase: "IMPLEMENTATION", phaseStatus: "in_progress" }),
      [0, 32],
      false,
    ],
    [
      "no event log: from phase.json",
      () =>
        spanOf([], {
          completed: STEPS.map((phase, i) => ({ phase, completed_at: at(10 * (i + 1)) })),
          approvals: [{ approved_at: at(5) }],
        }),
      [5, 50],
      true,
    ],
    [
      "nothing recorded",
      () => spanOf([], { currentPhase: "REQUIREMENTS", phaseStatus: "pending" }),
      [undefined, undefined],
      false,
    ],
  ] as const)("%s", (_name, span, expected, complete) => {
    expect(minutes(span())).toEqual(expected);
    expect(span().complete).toBe(complete);
  });
});

describe("whether verification passed", () => {
  const files = (entries: Record<string, ReportState>): ReportSnapshot => ({
    files: new Map(Object.entries(entries)),
    designs: [],
  });
  const valid = (data: unknown): ReportState => ({ status: "valid", data });
  const TESTS: Step = {
    id: "TESTS",
    kind: "check",
    run: "npm test",
    reports: ["memory/reports/steps/TESTS.json"],
    rework: "IMPLEMENTATION",
    max_rounds: 2,
  };
  const WITH_TESTS = [...DEVELOP.steps.slice(0, 4), TESTS, DEVELOP.steps[4]!];
  const outcome = (check: Partial<CheckOutcome>): CheckOutcome => ({
    step: "VERIFICATION",
    kind: "agent",
    report: "memory/reports/verification.json",
    outcome: "passed",
    rework_rounds: 0,
    detail: null,
    ...check,
  });

  it.each([
    [
      "develop, passed after one rework",
      DEVELOP.steps,
      { "memory/reports/verification.json": valid({ passed: true, summary: "all met" }) },
      reworked(),
      [],
      [outcome({ rework_rounds: 1, detail: "all met" })],
    ],
    [
      "develop, uninterrupted and passed",
      DEVELOP.steps,
      { "memory/reports/verification.json": valid({ passed: true }) },
      uninterrupted(),
      [],
      [outcome({})],
    ],
    [
      "develop, in rework: the failed report moved aside",
      DEVELOP.steps,
      {},
      reworked().slice(0, 4),
      [],
      [outcome({ outcome: "none", rework_rounds: 1 })],
    ],
    [
      "develop, a report that does not parse",
      DEVELOP.steps,
      { "memory/reports/verification.json": { status: "invalid", reason: "not JSON" } },
      [],
      [],
      [outcome({ outcome: "invalid" })],
    ],
    [
      "a command check failed, its rework counted apart from develop's",
      WITH_TESTS,
      {
        "memory/reports/verification.json": valid({ passed: true }),
        "memory/reports/steps/TESTS.json": valid({ passed: false, exit_code: 1 }),
      },
      [ev(1, "phase_rework", { round: 1, verification: "memory/reports/steps/TESTS.rework-1.json" })],
      [],
      [
        outcome({}),
        outcome({
          step: "TESTS",
          kind: "command",
          report: "memory/reports/steps/TESTS.json",
          outcome: "failed",
          rework_rounds: 1,
          detail: "exit 1",
        }),
      ],
    ],
    [
      "a check whose condition did not hold",
      WITH_TESTS,
      { "memory/reports/verification.json": valid({ passed: true }) },
      [],
      ["TESTS"],
      [
        outcome({}),
        outcome({ step: "TESTS", kind: "command", report: "memory/reports/steps/TESTS.json", outcome: "skipped" }),
      ],
    ],
  ] as const)("%s", (_name, steps, reports, events, skipped, expected) => {
    expect(checkOutcomes(steps, files(reports), events, new Set(skipped))).toEqual(expected);
  });

  it.each([
    [[], null, null],
    [[outcome({})], true, "verification passed"],
    [[outcome({ rework_rounds: 1 })], true, "verification passed after 1 rework round"],
    [
      [outcome({}), outcome({ step: "TESTS", kind: "command", outcome: "failed", rework_rounds: 2 })],
      false,
      "verification failed (TESTS)",
    ],
    [
      [outcome({ outcome: "none", rework_rounds: 1 })],
      null,
      "verification not done yet (VERIFICATION no report yet, 1 rework round so far)",
    ],
    [[outcome({}), outcome({ step: "TESTS", outcome: "skipped" })], true, "verification passed"],
    [[outcome({ outcome: "skipped" })], null, "verification skipped"],
  ] as const)("%j → passed %s, %s", (checks, passed, words) => {
    const verification = verificationOf(checks);
    expect(verification.passed).toBe(passed);
    expect(verificationWords(verification)).toBe(words);
  });

  it("says one check as show says its verdict", () => {
    expect(checkWords(outcome({ step: "TESTS", outcome: "failed", rework_rounds: 2 }))).toBe(
      "TESTS failed, 2 rework rounds so far",
    );
  });
});
