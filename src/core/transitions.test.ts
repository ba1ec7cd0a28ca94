import { describe, expect, it } from "vitest";
import { transition, type PhaseEvent } from "./transitions.js";
import { REPORT } from "./phases.js";
import { NOW, atPhase, execution, phaseState, reports, reportsBefore, task } from "./fixtures.test-support.js";
import type { PhaseState } from "../schema/phase.js";
import type { ReportSnapshot } from "./reports.js";
import type { ExecutionState } from "../schema/execution.js";

const approvedReq = { user_checkpoints: [{ phase: "REQUIREMENTS" as const, approved_at: "2026-11-20T09:50:00Z" }] };
const demand = reports({ [REPORT.demand]: { goal: "login" } });

// [name, state, event, reports, execution, expected: new phase/status or refusal code and message part]
const table: Array<
  [
    string,
    PhaseState,
    PhaseEvent,
    ReportSnapshot,
    ExecutionState | undefined,
    { phase?: string; status?: string; code?: string; says?: string },
  ]
> = [
  [
    "start a pending phase",
    phaseState({ phase_status: "pending" }),
    { type: "start" },
    reports(),
    undefined,
    { phase: "REQUIREMENTS", status: "in_progress" },
  ],
  [
    "start ARCHITECTURE with designs records them",
    atPhase("ARCHITECTURE", { phase_status: "pending" }),
    { type: "start", designs: ["minimal", "robust"] },
    reports(),
    undefined,
    { phase: "ARCHITECTURE", status: "in_progress" },
  ],
  [
    "designs on another phase are refused",
    phaseState(),
    { type: "start", designs: ["a"] },
    reports(),
    undefined,
    { code: "no_designs" },
  ],
  [
    "start another phase is refused",
    phaseState(),
    { type: "start", phase: "ARCHITECTURE" },
    reports(),
    undefined,
    { code: "wrong_phase", says: "current phase is REQUIREMENTS" },
  ],
  [
    "complete without the output",
    phaseState(approvedReq),
    { type: "complete" },
    reports(),
    undefined,
    { code: "phase_incomplete", says: "demand.json does not exist" },
  ],
  [
    "complete with an invalid output",
    phaseState(approvedReq),
    { type: "complete" },
    reports({ [REPORT.demand]: { status: "invalid", reason: "is an empty JSON object" } }),
    undefined,
    { code: "phase_incomplete", says: "demand.json is an empty JSON object" },
  ],
  [
    "complete without approval",
    phaseState(),
    { type: "complete" },
    demand,
    undefined,
    { code: "not_approved", says: "phase approve REQUIREMENTS" },
  ],
  [
    "complete with output and approval",
    phaseState(approvedReq),
    { type: "complete" },
    demand,
    undefined,
    { phase: "ARCHITECTURE", status: "pending" },
  ],
  [
    "approve twice is a no-op",
    phaseState(approvedReq),
    { type: "approve" },
    demand,
    undefined,
    { phase: "REQUIREMENTS", status: "in_progress" },
  ],
  [
    "approve REQUIREMENTS before demand.json exists is refused, naming the file",
    phaseState(),
    { type: "approve" },
    reports(),
    undefined,
    {
      code: "phase_incomplete",
      says: "REQUIREMENTS cannot be approved yet: memory/reports/demand.json does not exist",
    },
  ],
  [
    "approve REQUIREMENTS with an invalid demand.json is refused",
    phaseState(),
    { type: "approve" },
    reports({ [REPORT.demand]: { status: "invalid", reason: "is not valid JSON" } }),
    undefined,
    { code: "phase_incomplete", says: "memory/reports/demand.json is not valid JSON" },
  ],
  [
    "approve REQUIREMENTS with demand.json",
    phaseState(),
    { type: "approve" },
    demand,
    undefined,
    { phase: "REQUIREMENTS", status: "in_progress" },
  ],
  [
    "approve ARCHITECTURE before final_design.json stays possible (status says what it still needs)",
    atPhase("ARCHITECTURE"),
    { type: "approve" },
    reportsBefore("ARCHITECTURE"),
    undefined,
    { phase: "ARCHITECTURE", status: "in_progress" },
  ],
  [
    "approve a phase with no gate",
    atPhase("VERIFICATION"),
    { type: "approve" },
    reports(),
    undefined,
    { code: "no_gate" },
  ],
  [
    "ARCHITECTURE needs final_design.json",
    atPhase("ARCHITECTURE"),
    { type: "complete" },
    reportsBefore("ARCHITECTURE", { [REPORT.roundtable]: { a: 1 } }),
    undefined,
    { code: "phase_incomplete", says: "ARCHITECTURE cannot complete: final_design.json does not exist" },
  ],
  [
    "IMPLEMENTATION needs every task complete",
    atPhase("IMPLEMENTATION"),
    { type: "complete" },
    reportsBefore("IMPLEMENTATION"),
    execution([task("a", { status: "running" })]),
    { code: "phase_incomplete", says: "a: running" },
  ],
  [
    "IMPLEMENTATION needs task outputs",
    atPhase("IMPLEMENTATION"),
    { type: "complete" },
    reportsBefore("IMPLEMENTATION"),
    execution([task("a", { status: "complete" })]),
    { code: "phase_incomplete", says: "tasks/a.json of task a does not exist" },
  ],
  [
    "IMPLEMENTATION completes",
    atPhase("IMPLEMENTATION"),
    { type: "complete" },
    reportsBefore("IMPLEMENTATION", { "memory/reports/tasks/a.json": { status: "exists" } }),
    execution([task("a", { status: "complete" })]),
    { phase: "VERIFICATION", status: "pending" },
  ],
  [
    "IMPLEMENTATION needs its plan recorded",
    atPhase("IMPLEMENTATION"),
    { type: "complete" },
    reportsBefore("IMPLEMENTATION", { "memory/reports/tasks/a.json": { status: "exists" } }),
    execution([task("a", { status: "complete" })], { plans: [] }),
    { code: "phase_incomplete", says: "no task plan is recorded" },
  ],
  [
    "IMPLEMENTATION with its plan recorded completes",
    atPhase("IMPLEMENTATION"),
    { type: "complete" },
    reportsBefore("IMPLEMENTATION", { "memory/reports/tasks/a.json": { status: "exists" } }),
    execution([task("a", { status: "complete" })], {
      plans: [{ round: 0, recorded_at: "2026-11-20T10:30:00Z", tasks: 1 }],
    }),
    { phase: "VERIFICATION", status: "pending" },
  ],
  [
    "a rework round needs its own plan",
    atPhase("IMPLEMENTATION", {
      rework: {
        round: 1,
        verification: "memory/reports/verification.rework-1.json",
        started_at: "2026-11-20T11:00:00Z",
      },
    }),
    { type: "complete" },
    reportsBefore("IMPLEMENTATION", { "memory/reports/tasks/a.json": { status: "exists" } }),
    execution([task("a", { status: "complete" })], {
      plans: [{ round: 0, recorded_at: "2026-11-20T10:30:00Z", tasks: 1 }],
    }),
    { code: "phase_incomplete", says: "rework round 1 has no task plan" },
  ],
  [
    "VERIFICATION failed cannot complete",
    atPhase("VERIFICATION"),
    { type: "complete" },
    reportsBefore("VERIFICATION", { [REPORT.verification]: { passed: false } }),
    undefined,
    { code: "phase_incomplete", says: "phase rework" },
  ],
  [
    "verification.json without passed is invalid",
    atPhase("VERIFICATION"),
    { type: "complete" },
    reportsBefore("VERIFICATION", { [REPORT.verification]: { status: "invalid", reason: "has no boolean `passed`" } }),
    undefined,
    { code: "phase_incomplete", says: "passed" },
  ],
  [
    "rework after failed verification",
    atPhase("VERIFICATION"),
    { type: "rework" },
    reportsBefore("VERIFICATION", { [REPORT.verification]: { passed: false } }),
    undefined,
    { phase: "IMPLEMENTATION", status: "in_progress" },
  ],
  [
    "rework without a failed verification",
    atPhase("VERIFICATION"),
    { type: "rework" },
    reportsBefore("VERIFICATION", { [REPORT.verification]: { passed: true } }),
    undefined,
    { code: "no_rework" },
  ],
  [
    "REFLECTION completes the workflow",
    atPhase("REFLECTION"),
    { type: "complete" },
    reportsBefore("REFLECTION", { [REPORT.reflectionJson]: { lessons: [] } }),
    undefined,
    { phase: "REFLECTION", status: "complete" },
  ],
  [
    "nothing after a complete workflow",
    atPhase("REFLECTION", { phase_status: "complete" }),
    { type: "start" },
    reports(),
    undefined,
    { code: "workflow_complete" },
  ],
  [
    "fail records the error",
    phaseState(),
    { type: "fail", error: "pm crashed" },
    reports(),
    undefined,
    { phase: "REQUIREMENTS", status: "failed" },
  ],
];

describe("transition", () => {
  it("phase start --designs: recorded while pending or in progress; the same list is a no-op", () => {
    const ctx = { reports: reports(), execution: undefined, now: NOW };
    const first = transition(
      atPhase("ARCHITECTURE", { phase_status: "pending" }),
      { type: "start", designs: ["minimal", "robust"] },
      ctx,
    );
    expect(first.ok && first.state.designs_requested).toEqual(["minimal", "robust"]);
    expect(first.ok && first.events.map((e) => e.type)).toEqual(["phase_started", "designs_requested"]);
    if (!first.ok) return;
    const same = transition(first.state, { type: "start", designs: ["minimal", "robust"] }, ctx);
    expect(same.ok && same.state).toBe(first.state);
    const plain = transition(first.state, { type: "start" }, ctx);
    expect(plain.ok && plain.state).toBe(first.state);
    const other = transition(first.state, { type: "start", designs: ["minimal", "robust", "bold"] }, ctx);
    expect(other.ok && other.state.designs_requested).toEqual(["minimal", "robust", "bold"]);
    expect(other.ok && other.events.map((e) => e.type)).toEqual(["designs_requested"]);
  });

  it.each(table)("%s", (_name, state, event, reportSnapshot, exec, expected) => {
    const result = transition(state, event, { reports: reportSnapshot, execution: exec, now: NOW });
    if (expected.code) {
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.code).toBe(expected.code);
        if (expected.says) expect(result.message).toContain(expected.says);
      }
    } else {
      expect(result.ok).toBe(true);
      if (result.ok) {
        expect(result.state.current_phase).toBe(expected.phase);
        expect(result.state.phase_status).toBe(expected.status);
      }
    }
  });

  it("keeps unknown fields and records completion", () => {
    const state = { ...phaseState(approvedReq), custom_note: "kept" } as PhaseState;
    const result = transition(state, { type: "complete" }, { reports: demand, execution: undefined, now: NOW });
    expect(result.ok && result.state).toMatchObject({
      custom_note: "kept",
      completed_phases: [{ phase: "REQUIREMENTS", output: REPORT.demand, completed_at: NOW.toISOString() }],
    });
  });

  it("rework moves verification.json aside, drops IMPLEMENTATION from completed, and numbers rounds", () => {
    const failed = reportsBefore("VERIFICATION", { [REPORT.verification]: { passed: false } });
    const first = transition(
      atPhase("VERIFICATION"),
      { type: "rework" },
      { reports: failed, execution: undefined, now: NOW },
    );
    expect(first.ok && first.effects).toEqual([
      { type: "move", from: REPORT.verification, to: "memory/reports/verification.rework-1.json" },
    ]);
    expect(first.ok && first.state.completed_phases.map((c) => c.phase)).toEqual(["REQUIREMENTS", "ARCHITECTURE"]);
    const again = atPhase("VERIFICATION", {
      rework: {
        round: 1,
        verification: "memory/reports/verification.rework-1.json",
        started_at: "2026-11-20T10:00:00Z",
        closed_at: "2026-11-20T10:30:00Z",
      },
    });
    const second = transition(again, { type: "rework" }, { reports: failed, execution: undefined, now: NOW });
    expect(second.ok && second.effects[0]?.to).toBe("memory/reports/verification.rework-2.json");
  });
});
