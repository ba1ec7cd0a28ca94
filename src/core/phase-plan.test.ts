// The `phase` operation's decisions as tables (issue 41): every refusal with its code, exit code
// and exact line, the person's gate from an agent's shell, the pick, and the moves planned, in-process.
// What only the built CLI can show (exit codes and --json from a process, the lock, files moved on
// disk, the person's reply recorded by the hooks) stays in test/cli.test.ts and test/person-gate.test.ts.
import { describe, expect, it } from "vitest";
import type { PhaseState } from "../schema/phase.js";
import { gateToAsk, pickRefusal, planPhaseChange, planPick, type PhaseFacts, type PhaseRequest } from "./phase-plan.js";
import type { ShownAnswer } from "./person-answer.js";
import { REPORT } from "./paths.js";
import type { ReportSnapshot } from "./reports.js";
import { NOW, atPhase, execution, reports, reportsBefore, task } from "./fixtures.test-support.js";

const DEMAND = REPORT.demand;
const ROUNDTABLE = REPORT.roundtable;
/** A pinned workflow with a step of every kind the `not_yours` rule tells apart. */
const SHIP = {
  name: "ship",
  hash: "0123456789abcdef",
  steps: [
    { id: "BUILD", kind: "agent", agent: "executor", report: "build.json", gate: "approve" },
    { id: "TEST", kind: "check", run: "npm test", rework: "BUILD", max_rounds: 2 },
    { id: "DEPLOY", kind: "shell", run: "./deploy.sh" },
  ],
} as unknown as NonNullable<PhaseState["workflow"]>;
const ship = (phase: string, more: Partial<PhaseState> = {}): PhaseState =>
  atPhase("REQUIREMENTS", {
    workflow: SHIP,
    current_phase: phase,
    completed_phases: [],
    user_checkpoints: [],
    ...more,
  });

const NOT_ASKED: ShownAnswer = { answered: false, since: null, shown: DEMAND };
const DECLINED: ShownAnswer = { answered: false, since: "2026-11-20T11:00:00.000Z", declined: true, shown: DEMAND };
const UNCLEAR: ShownAnswer = { answered: false, since: "2026-11-20T11:00:00.000Z", unclear: true, shown: DEMAND };
const YES: ShownAnswer = { answered: true, at: "2026-11-20T11:30:00Z", said: "approve", shown: DEMAND };
const PICKED = (design?: string): ShownAnswer => ({
  answered: true,
  at: "2026-11-20T11:30:00Z",
  ...(design ? { design } : {}),
  shown: ROUNDTABLE,
});

function facts(more: Partial<PhaseFacts> & { reports?: ReportSnapshot } = {}): PhaseFacts {
  return { reports: reports(), execution: undefined, now: NOW, byModel: false, ...more };
}
const MODEL = { byModel: true };
const REQ = atPhase("REQUIREMENTS");
const FAILED = atPhase("REQUIREMENTS", { phase_status: "failed", error: "the pm crashed\nwith a trace" });

const NOT_YOURS = (verb: string) =>
  `dotagent ${verb} phases itself from their agents' reports (the hooks record each agent's end): spawn the phase's agent and act on the next step dotagent gives`;

describe("phase changes refused: code, exit code, line, details; nothing written", () => {
  it.each<[string, PhaseState, PhaseFacts, PhaseRequest, string, number, string, object?]>([
    [
      "a step the workflow does not have",
      REQ,
      facts(),
      { action: "complete", phase: "DESIGN" },
      "usage",
      2,
      '"DESIGN" is not a step of this workflow; its steps are REQUIREMENTS, ARCHITECTURE, IMPLEMENTATION, VERIFICATION, REFLECTION',
    ],
    [
      "a step of another workflow, in a pinned one",
      ship("BUILD"),
      facts(),
      { action: "start", phase: "REQUIREMENTS" },
      "usage",
      2,
      '"REQUIREMENTS" is not a step of this workflow; its steps are BUILD, TEST, DEPLOY',
    ],
    [
      "the model completes a check step (qa's verdict is the hooks' to record)",
      atPhase("VERIFICATION"),
      facts({ ...MODEL, reports: reportsBefore("VERIFICATION", { [REPORT.verification]: { passed: true } }) }),
      { action: "complete", phase: "VERIFICATION" },
      "not_yours",
      1,
      NOT_YOURS("completes"),
      { action: "complete" },
    ],
    [
      "the model completes the check step ahead, its report written by the main agent (issue 29, case 4)",
      atPhase("IMPLEMENTATION"),
      facts({ ...MODEL, reports: reportsBefore("IMPLEMENTATION", { [REPORT.verification]: { passed: true } }) }),
      { action: "complete", phase: "VERIFICATION" },
      "not_yours",
      1,
      NOT_YOURS("completes"),
      { action: "complete" },
    ],
    [
      "the model completes an agent step without a gate (REFLECTION, the current one)",
      atPhase("REFLECTION"),
      facts(MODEL),
      { action: "complete" },
      "not_yours",
      1,
      NOT_YOURS("completes"),
      { action: "complete" },
    ],
    [
      "the model completes a shell step",
      ship("DEPLOY"),
      facts(MODEL),
      { action: "complete", phase: "deploy" },
      "not_yours",
      1,
      NOT_YOURS("completes"),
      { action: "complete" },
    ],
    [
      "the model completes a check step with a command",
      ship("TEST"),
      facts(MODEL),
      { action: "complete" },
      "not_yours",
      1,
      NOT_YOURS("completes"),
      { action: "complete" },
    ],
    [
      "the model fails a phase",
      atPhase("IMPLEMENTATION"),
      facts(MODEL),
      { action: "fail", phase: "IMPLEMENTATION", error: "x" },
      "not_yours",
      1,
      NOT_YOURS("fails"),
      { action: "fail" },
    ],
    [
      "the model reworks",
      atPhase("VERIFICATION"),
      facts(MODEL),
      { action: "rework" },
      "not_yours",
      1,
      NOT_YOURS("reworks"),
      { action: "rework" },
    ],
    [
      "the model starts the failed phase again: the person's reply does",
      FAILED,
      facts(MODEL),
      { action: "start", phase: "REQUIREMENTS" },
      "person_not_answered",
      1,
      "REQUIREMENTS failed: the pm crashed with a trace; it starts again when the person replies: tell them and end your turn",
      { phase: "REQUIREMENTS" },
    ],
    [
      "the same, no reason recorded",
      atPhase("REQUIREMENTS", { phase_status: "failed" }),
      facts(MODEL),
      { action: "start" },
      "person_not_answered",
      1,
      "REQUIREMENTS failed: no reason recorded; it starts again when the person replies: tell them and end your turn",
      { phase: "REQUIREMENTS" },
    ],
    [
      "the model approves before the person answered",
      REQ,
      facts({ ...MODEL, answer: NOT_ASKED, reports: reportsBefore("ARCHITECTURE") }),
      { action: "approve", phase: "REQUIREMENTS" },
      "person_not_answered",
      1,
      'the person has not answered the REQUIREMENTS gate yet: show memory/reports/demand.json, ask "approve, or what should change?" and end your turn; dotagent records their answer when they reply, then approve',
      { phase: "REQUIREMENTS" },
    ],
    [
      "the model approves after the person said no",
      REQ,
      facts({ ...MODEL, answer: DECLINED }),
      { action: "approve" },
      "person_not_answered",
      1,
      "the person said no at the REQUIREMENTS gate: do what they asked (spawn pm again with their feedback, then show memory/reports/demand.json again) and ask again; dotagent records their next answer",
      { phase: "REQUIREMENTS", declined: true },
    ],
    [
      "the model approves after a reply that neither approved nor said no",
      REQ,
      facts({ ...MODEL, answer: UNCLEAR }),
      { action: "approve" },
      "person_not_answered",
      1,
      'the person\'s reply at the REQUIREMENTS gate did not approve: do what it asks, or show memory/reports/demand.json again and ask "approve, or what should change?"; dotagent takes a reply that says approve (or yes, lgtm, looks good)',
      { phase: "REQUIREMENTS" },
    ],
    [
      "the model approves the pick the person has not answered",
      atPhase("ARCHITECTURE"),
      facts({ ...MODEL, answer: { answered: false, since: null, shown: ROUNDTABLE } }),
      { action: "approve", phase: "ARCHITECTURE" },
      "person_not_answered",
      1,
      "the person has not answered the ARCHITECTURE gate yet: show memory/reports/roundtable.json, ask which design (or what should change) and end your turn; dotagent records their answer when they reply, then approve",
      { phase: "ARCHITECTURE" },
    ],
    [
      "the model approves the pick, the person's reply names no design",
      atPhase("ARCHITECTURE"),
      facts({ ...MODEL, answer: PICKED() }),
      { action: "approve", phase: "ARCHITECTURE", pick: { design: "minimal" } },
      "person_not_answered",
      1,
      "the person's pick names no one design: run `dotagent phase approve ARCHITECTURE --pick <the design they named>` (dotagent writes final_design.json from their pick), or ask them again",
      { phase: "ARCHITECTURE" },
    ],
    [
      "the model approves another design than the person's",
      atPhase("ARCHITECTURE"),
      facts({ ...MODEL, answer: PICKED("robust") }),
      { action: "approve", pick: { design: "minimal" } },
      "person_not_answered",
      1,
      "the person's pick names robust: run `dotagent phase approve ARCHITECTURE --pick robust` (dotagent writes final_design.json from their pick), or ask them again",
      { phase: "ARCHITECTURE", design: "robust" },
    ],
    [
      "the model approves the person's design without --pick",
      atPhase("ARCHITECTURE"),
      facts({ ...MODEL, answer: PICKED("robust") }),
      { action: "approve" },
      "person_not_answered",
      1,
      "the person's pick names robust: run `dotagent phase approve ARCHITECTURE --pick robust` (dotagent writes final_design.json from their pick), or ask them again",
      { phase: "ARCHITECTURE", design: "robust" },
    ],
    [
      "complete without the phase's report (the machine's refusal)",
      REQ,
      facts(),
      { action: "complete", phase: "REQUIREMENTS" },
      "phase_incomplete",
      1,
      "REQUIREMENTS cannot complete: demand.json does not exist",
    ],
    [
      "complete a gated phase before its approval",
      REQ,
      facts({ reports: reportsBefore("ARCHITECTURE") }),
      { action: "complete" },
      "not_approved",
      1,
      "REQUIREMENTS cannot complete: the user has not approved it yet; show them demand.json and run `dotagent phase approve REQUIREMENTS`",
    ],
    [
      "the model completes a gated agent step: no not_yours, its approval decides",
      REQ,
      facts({ ...MODEL, reports: reportsBefore("ARCHITECTURE") }),
      { action: "complete", phase: "REQUIREMENTS" },
      "not_approved",
      1,
      "REQUIREMENTS cannot complete: the user has not approved it yet; show them demand.json and run `dotagent phase approve REQUIREMENTS`",
    ],
    [
      "approve before the gate's report exists",
      REQ,
      facts(),
      { action: "approve", phase: "REQUIREMENTS" },
      "phase_incomplete",
      1,
      "REQUIREMENTS cannot be approved yet: memory/reports/demand.json does not exist; the pm agent writes it first, then the person approves what it says",
    ],
    [
      "start --designs at a step that asks for no designs",
      REQ,
      facts(),
      { action: "start", phase: "REQUIREMENTS", designs: ["a"] },
      "no_designs",
      1,
      "only a choose step (ARCHITECTURE) asks for designs; REQUIREMENTS takes no --designs",
    ],
    [
      "complete the pick without final_design.json",
      atPhase("ARCHITECTURE"),
      facts({ reports: reportsBefore("ARCHITECTURE") }),
      { action: "complete", phase: "ARCHITECTURE" },
      "phase_incomplete",
      1,
      "ARCHITECTURE cannot complete: final_design.json does not exist",
    ],
    [
      "start a step that is not the current one",
      REQ,
      facts(),
      { action: "start", phase: "IMPLEMENTATION" },
      "wrong_phase",
      1,
      "IMPLEMENTATION cannot start: the current phase is REQUIREMENTS (in_progress)",
    ],
    [
      "rework without a failed verification",
      atPhase("VERIFICATION"),
      facts({ reports: reportsBefore("VERIFICATION") }),
      { action: "rework" },
      "no_rework",
      1,
      "VERIFICATION cannot go back to IMPLEMENTATION: verification.json does not say passed: false",
    ],
  ])("%s", (_name, before, given, request, code, exit, message, details) => {
    const plan = planPhaseChange(before, given, request);
    expect(plan).toEqual({ kind: "refuse", code, message, exit, ...(details ? { details } : {}) });
  });
});

describe("phase changes carried out: the state after, its events and moves", () => {
  it("the person approves REQUIREMENTS with its report there: approved and completed, no journal", () => {
    const plan = planPhaseChange(REQ, facts({ reports: reportsBefore("ARCHITECTURE") }), {
      action: "approve",
      phase: "requirements",
    });
    expect(plan).toMatchObject({
      kind: "write",
      event: { type: "approve", phase: "REQUIREMENTS" },
      state: { user_checkpoints: [{ phase: "REQUIREMENTS", approved_at: NOW.toISOString() }] },
      moves: [],
      journal: undefined,
    });
    if (plan.kind === "write") expect(plan.events.map((e) => e.type)).toContain("phase_approved");
  });

  it.each<[string, PhaseState, PhaseFacts, PhaseRequest]>([
    [
      "the model's approval after the person's yes",
      REQ,
      facts({ ...MODEL, answer: YES, reports: reportsBefore("ARCHITECTURE") }),
      { action: "approve" },
    ],
    [
      "the model's approval of the person's design, named in another case",
      atPhase("ARCHITECTURE"),
      facts({ ...MODEL, answer: PICKED("Robust") }),
      { action: "approve", pick: { design: "robust" } },
    ],
    [
      "the model's approval of a gate approved already (no answer read)",
      atPhase("ARCHITECTURE", { user_checkpoints: [{ phase: "REQUIREMENTS", approved_at: "x" }] }),
      facts(MODEL),
      { action: "approve", phase: "REQUIREMENTS" },
    ],
    ["the person starts the failed phase again", FAILED, facts(), { action: "start" }],
    ["the person completes a check step", ship("TEST"), facts(), { action: "fail", error: "red" }],
  ])("not refused: %s", (_name, before, given, request) => {
    const withAnswer = gateToAsk(before, request, given.byModel) === undefined ? given : { answer: YES, ...given };
    expect(planPhaseChange(before, withAnswer, request).kind).toBe("write");
  });

  it("a repeat (REQUIREMENTS completed already): the state as it was, nothing to write", () => {
    const before = atPhase("ARCHITECTURE");
    const plan = planPhaseChange(before, facts(), { action: "complete", phase: "REQUIREMENTS" });
    expect(plan).toMatchObject({ kind: "write", moves: [], journal: undefined, events: [] });
    if (plan.kind === "write") expect(plan.state).toBe(before);
  });

  it("start ARCHITECTURE --designs: the designs asked for recorded", () => {
    const plan = planPhaseChange(atPhase("ARCHITECTURE", { phase_status: "pending" }), facts(), {
      action: "start",
      designs: ["minimal", "robust"],
    });
    expect(plan).toMatchObject({
      kind: "write",
      state: { phase_status: "in_progress", designs_requested: ["minimal", "robust"] },
    });
  });

  it("fail: the phase failed with its error", () => {
    const plan = planPhaseChange(atPhase("IMPLEMENTATION"), facts(), { action: "fail", error: "executor crashed" });
    expect(plan).toMatchObject({ kind: "write", state: { phase_status: "failed", error: "executor crashed" } });
  });

  it("rework after a failed verification: back to IMPLEMENTATION, the report moved aside in a journal of round 1", () => {
    const failed = { [REPORT.verification]: { passed: false, failures: ["401 expected"] } };
    const plan = planPhaseChange(
      atPhase("VERIFICATION"),
      facts({
        reports: reportsBefore("VERIFICATION", failed),
        execution: execution([task("t1", { status: "complete" })]),
      }),
      { action: "rework" },
    );
    const moves = [{ type: "move", from: REPORT.verification, to: "memory/reports/verification.rework-1.json" }];
    expect(plan).toMatchObject({
      kind: "write",
      event: { type: "rework" },
      state: { current_phase: "IMPLEMENTATION", phase_status: "in_progress", rework: { round: 1 } },
      moves,
      journal: {
        type: "rework",
        started_at: NOW.toISOString(),
        round: 1,
        moves: [{ from: REPORT.verification, to: "memory/reports/verification.rework-1.json" }],
      },
    });
  });
});

describe("whose answer the plan needs: the gate an approval from an agent's shell asks about", () => {
  it.each<[string, PhaseState, PhaseRequest, boolean, string | undefined]>([
    ["the model approves the current gate", REQ, { action: "approve" }, true, "REQUIREMENTS"],
    [
      "the model approves a gate named in any case",
      REQ,
      { action: "approve", phase: "architecture" },
      true,
      "ARCHITECTURE",
    ],
    ["approved already", atPhase("ARCHITECTURE"), { action: "approve", phase: "REQUIREMENTS" }, true, undefined],
    ["a step the workflow does not have (refused first)", REQ, { action: "approve", phase: "NOPE" }, true, undefined],
    ["the person at a terminal", REQ, { action: "approve" }, false, undefined],
    ["not an approval", REQ, { action: "complete" }, true, undefined],
  ])("%s", (_name, before, request, byModel, gate) => {
    expect(gateToAsk(before, request, byModel)).toBe(gate);
  });

  it("a gate to ask whose answer was not read is the op's bug, not a refusal", () => {
    expect(() => planPhaseChange(REQ, facts(MODEL), { action: "approve" })).toThrow(/was not read/);
  });
});

describe("approve STEP --pick NAME: the pick's plan before the approval", () => {
  it.each<[string, PhaseState, PhaseRequest, object]>([
    [
      "--pick at a step that is no pick",
      REQ,
      { action: "approve", phase: "REQUIREMENTS", pick: { design: "minimal" } },
      {
        kind: "refuse",
        code: "usage",
        exit: 2,
        message: "--pick goes with the step where the person picks a design (ARCHITECTURE)",
      },
    ],
    [
      "--pick in a workflow without a pick",
      ship("BUILD"),
      { action: "approve", pick: { design: "minimal" } },
      {
        kind: "refuse",
        code: "usage",
        exit: 2,
        message: "--pick goes with the step where the person picks a design (none in this workflow)",
      },
    ],
    [
      "--pick with a step the workflow does not have",
      REQ,
      { action: "approve", phase: "NOPE", pick: { design: "minimal" } },
      {
        kind: "refuse",
        code: "usage",
        exit: 2,
        message: "--pick goes with the step where the person picks a design (ARCHITECTURE)",
      },
    ],
    [
      "the pick before its step",
      REQ,
      { action: "approve", phase: "architecture", pick: { design: "minimal" } },
      {
        kind: "refuse",
        code: "wrong_phase",
        exit: 1,
        message: "ARCHITECTURE is not the current step (REQUIREMENTS); `dotagent resume` says what is next",
      },
    ],
    [
      "the pick approved already: nothing to write",
      atPhase("IMPLEMENTATION"),
      { action: "approve", phase: "ARCHITECTURE", pick: { design: "minimal" } },
      { kind: "approved" },
    ],
    [
      "the pick at its step: written",
      atPhase("ARCHITECTURE"),
      { action: "approve", pick: { design: "minimal" } },
      { kind: "pick", phase: "ARCHITECTURE" },
    ],
  ])("%s", (_name, before, request, plan) => {
    expect(planPick(before, request)).toEqual(plan);
  });

  it.each<[string, ShownAnswer, string, string | undefined]>([
    ["the person named that design", PICKED("minimal"), "minimal", undefined],
    ["the person named it in another case", PICKED("MINIMAL"), "minimal", undefined],
    ["the person named another", PICKED("robust"), "minimal", "the person's pick names robust"],
    ["the person has not answered", { answered: false, since: null, shown: ROUNDTABLE }, "minimal", "not answered"],
  ])("from an agent's shell: %s", (_name, answer, design, says) => {
    const refusal = pickRefusal(atPhase("ARCHITECTURE"), "ARCHITECTURE", answer, design);
    if (says === undefined) expect(refusal).toBeUndefined();
    else
      expect(refusal).toMatchObject({ code: "person_not_answered", exit: 1, message: expect.stringContaining(says) });
  });
});
