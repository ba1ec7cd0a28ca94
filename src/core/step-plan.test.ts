// `step run`'s decisions as tables (issue 41): every refusal with its code, exit code and exact
// line, the result answered from its report, the question put to the person, the approval that
// counts, another run at the step, retries, and the report a run leaves, in-process.
// What only the built CLI can show (a real shell command, its timeout and process group, a kill,
// four runs at once, the lock, files on disk, exit codes and --json) stays in test/workflows.test.ts.
import { describe, expect, it } from "vitest";
import type { PhaseState } from "../schema/phase.js";
import type { StateSnapshot } from "./snapshot.js";
import {
  commandApproved,
  confirmCommand,
  planStepRun,
  runsAgain,
  stepDeclined,
  stepRecord,
  stepRunningRefusal,
  type CommandRun,
  type StepRunning,
} from "./step-plan.js";
import { atPhase, reports, snapshot } from "./fixtures.test-support.js";

const ROOT = "/home/ann/shop";
/** A pinned workflow: an agent step, a check with a command, a check without one, a shell step. */
const SHIP = {
  name: "ship",
  hash: "0123456789abcdef",
  steps: [
    { id: "BUILD", kind: "agent", agent: "executor", report: "build.json" },
    { id: "TEST", kind: "check", run: "npm test", rework: "BUILD", max_rounds: 2 },
    { id: "REVIEW", kind: "check", agent: "qa", report: "review.json", rework: "BUILD", max_rounds: 2 },
    { id: "DEPLOY", kind: "shell", run: "./deploy.sh", report: "deployed.json" },
  ],
} as unknown as NonNullable<PhaseState["workflow"]>;
const at = (phase: string, more: Partial<PhaseState> = {}): PhaseState =>
  atPhase("REQUIREMENTS", {
    workflow: SHIP,
    current_phase: phase,
    completed_phases: [],
    user_checkpoints: [],
    instance_id: "i-1",
    ...more,
  });
const TEST_REPORT = "memory/reports/steps/TEST.json";
const DEPLOY_REPORT = "memory/reports/deployed.json";
const corrupt = (problems: { path: string; message: string }[]): Pick<StateSnapshot, "phase" | "reports"> => ({
  phase: {
    kind: "corrupt",
    file: "memory/state/phase.json",
    problems: problems.map((p) => ({ ...p, file: "memory/state/phase.json" })),
    stamp: "s",
  },
  reports: reports(),
});

describe("step run refused: code, exit code, line; nothing asked, run or recorded", () => {
  it.each<[string, Pick<StateSnapshot, "phase" | "reports">, string, string, number, string]>([
    [
      "no workflow",
      snapshot(undefined),
      "TEST",
      "no_workflow",
      1,
      "no workflow here (memory/state/phase.json does not exist); `dotagent status` says how to start one",
    ],
    [
      "phase.json not valid: the first problem, with its path (a NUL in a pinned command)",
      corrupt([
        { path: "workflow.steps[0].run", message: "holds a control character (U+0000 at character 21)" },
        { path: "phase_status", message: "x" },
      ]),
      "S",
      "no_workflow",
      3,
      "memory/state/phase.json is not valid (workflow.steps[0].run: holds a control character (U+0000 at character 21)); run `dotagent resume`",
    ],
    [
      "phase.json not valid, a problem of the whole file",
      corrupt([{ path: "", message: "not JSON" }]),
      "S",
      "no_workflow",
      3,
      "memory/state/phase.json is not valid (not JSON); run `dotagent resume`",
    ],
    [
      "phase.json not valid, no problem named",
      corrupt([]),
      "S",
      "no_workflow",
      3,
      "memory/state/phase.json is not valid; run `dotagent resume`",
    ],
    [
      "a step the pinned workflow does not have",
      snapshot(at("TEST")),
      "LINT",
      "unknown_step",
      2,
      "LINT is no step of this workflow (steps: BUILD, TEST, REVIEW, DEPLOY)",
    ],
    [
      "a step develop does not have",
      snapshot(atPhase("VERIFICATION")),
      "TESTS",
      "unknown_step",
      2,
      "TESTS is no step of this workflow (steps: REQUIREMENTS … REFLECTION)",
    ],
    [
      "an agent step",
      snapshot(at("BUILD")),
      "BUILD",
      "not_a_command",
      1,
      "BUILD is a agent step; only shell and check steps with `run` have a command",
    ],
    [
      "a check step without `run` (its agent checks)",
      snapshot(at("REVIEW")),
      "REVIEW",
      "not_a_command",
      1,
      "REVIEW is a check step; only shell and check steps with `run` have a command",
    ],
    [
      "develop's VERIFICATION (qa's check)",
      snapshot(atPhase("VERIFICATION")),
      "VERIFICATION",
      "not_a_command",
      1,
      "VERIFICATION is a check step; only shell and check steps with `run` have a command",
    ],
    [
      "a command step that is not the current one",
      snapshot(at("BUILD")),
      "DEPLOY",
      "wrong_phase",
      1,
      "DEPLOY cannot run: the current step is BUILD (in_progress); `dotagent resume` says what is next",
    ],
    [
      "a command step that is done (the workflow moved on)",
      snapshot(at("DEPLOY", { phase_status: "pending" })),
      "TEST",
      "wrong_phase",
      1,
      "TEST cannot run: the current step is DEPLOY (pending); `dotagent resume` says what is next",
    ],
  ])("%s", (_name, snap, id, code, exit, message) => {
    expect(planStepRun(snap, ROOT, { id })).toEqual({ kind: "refuse", code, message, exit });
  });

  it("the person said no to the command", () => {
    expect(stepDeclined("TEST")).toEqual({
      kind: "refuse",
      code: "step_declined",
      exit: 1,
      message: "TEST's command was not run; `dotagent resume` offers it again",
    });
  });
});

describe("step run planned: answered from the round's result, or the command to run and the question", () => {
  const PASSED = { [TEST_REPORT]: { passed: true, exit_code: 0, timed_out: false } };
  const FAILED = { [TEST_REPORT]: { passed: false, exit_code: 1 } };
  it.each<[string, PhaseState, Record<string, object>, boolean, string]>([
    ["a passed result recorded: answered from it", at("TEST"), PASSED, false, "answered"],
    ["a failed result recorded: answered from it too (at most once per round)", at("TEST"), FAILED, false, "answered"],
    ["a failed result, --again: run again", at("TEST"), FAILED, true, "run"],
    ["no result yet: run", at("TEST"), {}, false, "run"],
    [
      "an invalid result (no JSON object): run",
      at("TEST"),
      { [TEST_REPORT]: { status: "invalid", errors: [] } },
      false,
      "run",
    ],
    ["a shell step with a report of its own", at("DEPLOY"), {}, false, "run"],
  ])("%s", (_name, state, files, again, kind) => {
    expect(planStepRun(snapshot(state, undefined, reports(files)), ROOT, { id: state.current_phase, again }).kind).toBe(
      kind,
    );
  });

  it("answered: the report and its data, for the result's fields", () => {
    const data = { passed: false, exit_code: 2, timed_out: true };
    expect(
      planStepRun(snapshot(at("TEST"), undefined, reports({ [TEST_REPORT]: data })), ROOT, { id: "TEST" }),
    ).toEqual({
      kind: "answered",
      report: TEST_REPORT,
      data,
    });
  });

  it("run: the step, its report, and the question the person answers (its yes and no as commands)", () => {
    const state = at("DEPLOY");
    expect(planStepRun(snapshot(state), ROOT, { id: "DEPLOY" })).toMatchObject({
      kind: "run",
      state,
      step: { id: "DEPLOY", kind: "shell", run: "./deploy.sh" },
      report: DEPLOY_REPORT,
      decision: {
        question: "Step DEPLOY of workflow ship runs `./deploy.sh` in /home/ann/shop. Run it?",
        default: true,
        yes: "dotagent step run DEPLOY --yes",
        no: "dotagent status",
      },
    });
  });

  it("the model's next step while the person has not answered (exit 5)", () => {
    expect(confirmCommand("TEST")).toEqual({
      action: "confirm_command",
      agent: null,
      tasks: [],
      reason:
        "the person approves TEST's command first: show them the decision's question, end your turn, and run its yes only after they say yes",
      step: "TEST",
    });
  });
});

describe("the person's approval of a command: this step, this exact command, this workflow instance", () => {
  const approval = (more: object = {}) => ({
    type: "command_approved",
    step: "TEST",
    command: "npm test",
    instance: "i-1",
    ...more,
  });
  it.each<[string, object[], PhaseState, boolean]>([
    ["approved", [approval()], at("TEST"), true],
    ["among other events", [{ type: "person_replied" }, approval()], at("TEST"), true],
    ["none", [], at("TEST"), false],
    ["another step's", [approval({ step: "DEPLOY" })], at("TEST"), false],
    ["another command (the definition changed)", [approval({ command: "npm test -- --all" })], at("TEST"), false],
    ["another run of the workflow", [approval({ instance: "i-0" })], at("TEST"), false],
    [
      "no instance on either side (an older workflow)",
      [approval({ instance: null })],
      at("TEST", { instance_id: undefined }),
      true,
    ],
    ["an instance on the state only", [approval({ instance: undefined })], at("TEST"), false],
  ])("%s", (_name, events, state, yes) => {
    expect(commandApproved(events as { type: string }[], state, "TEST", "npm test")).toBe(yes);
  });
});

describe("another `step run` at the step: step_running (exit 4), or none", () => {
  it.each<[string, StepRunning, object | undefined]>([
    [
      "another `step run` at work",
      { kind: "owner", record: { owner: 4242, started_at: "2026-11-20T11:59:00Z" } },
      {
        kind: "refuse",
        code: "step_running",
        exit: 4,
        message:
          "TEST's command is being run by another `step run` (pid 4242, since 2026-11-20T11:59:00Z): wait for it to end; then `dotagent step run TEST` gives its result",
        details: { step: "TEST", pid: 4242 },
      },
    ],
    [
      "the command an earlier `step run` started outlived it",
      { kind: "command", record: { pid: 5151, started_at: "2026-11-20T11:00:00Z" } },
      {
        kind: "refuse",
        code: "step_running",
        exit: 4,
        message:
          "TEST's command from an earlier `step run` is still running (pid 5151, since 2026-11-20T11:00:00Z): wait for it to end, or stop it (`kill -- -5151`), then `dotagent step run TEST`",
        details: { step: "TEST", pid: 5151 },
      },
    ],
    ["nothing running (no record, or a stale one)", { kind: "none" }, undefined],
  ])("%s", (_name, running, refusal) => {
    expect(stepRunningRefusal("TEST", running)).toEqual(refusal);
  });
});

const ran = (exit_code: number | null, more: Partial<CommandRun> = {}): CommandRun => ({
  exit_code,
  signal: null,
  timed_out: false,
  tail: "",
  ...more,
});

describe("whether an attempt runs again (retries)", () => {
  it.each<[string, CommandRun, number, number | undefined, boolean, boolean]>([
    ["passed", ran(0), 1, 2, false, false],
    ["failed, no retries", ran(1), 1, undefined, false, false],
    ["failed, retries left", ran(1), 1, 2, false, true],
    ["failed on its last retry", ran(1), 3, 2, false, false],
    ["timed out, a retry left", ran(null, { timed_out: true }), 2, 2, false, true],
    ["failed, but stopped (Ctrl-C)", ran(1), 1, 2, true, false],
  ])("%s", (_name, run, attempts, retries, stopped, again) => {
    expect(runsAgain(run, attempts, retries, stopped)).toBe(again);
  });
});

describe("the report a run leaves: its result, and a failed command's one failure as a check's report lists it", () => {
  const START = new Date("2026-11-20T12:00:00Z");
  const END = new Date("2026-11-20T12:00:07Z");
  it("passed: no failures, the output kept", () => {
    expect(stepRecord("TEST", "npm test", ran(0, { tail: "ok\n" }), 1, START, END)).toEqual({
      step: "TEST",
      command: "npm test",
      passed: true,
      exit_code: 0,
      signal: null,
      timed_out: false,
      attempts: 1,
      started_at: "2026-11-20T12:00:00.000Z",
      ended_at: "2026-11-20T12:00:07.000Z",
      output_tail: "ok\n",
      failures: [],
    });
  });

  const LONG = `npm run test -- ${"--flag ".repeat(20)}`.trim();
  it.each<[string, string, CommandRun, object]>([
    [
      "failed: named by the output's telling line",
      "npm test",
      ran(1, { tail: "FAIL: ok.txt is missing\nnpm notice New minor version of npm available!\n" }),
      { problem: "`npm test` failed (exit 1): FAIL: ok.txt is missing", suggested_fix: "make `npm test` pass" },
    ],
    [
      "failed without output",
      "npm test",
      ran(2),
      { problem: "`npm test` failed (exit 2)", suggested_fix: "make `npm test` pass" },
    ],
    [
      "timed out",
      "sleep 5",
      ran(null, { signal: "SIGKILL", timed_out: true }),
      { problem: "`sleep 5` timed out", suggested_fix: "make `sleep 5` pass" },
    ],
    [
      "stopped by a signal",
      "sleep 5",
      ran(null, { signal: "SIGTERM" }),
      { problem: "`sleep 5` was stopped", suggested_fix: "make `sleep 5` pass" },
    ],
    [
      "a command of several lines: on one",
      "test -f ok.txt ||\n  exit 1",
      ran(1),
      { problem: "`test -f ok.txt || exit 1` failed (exit 1)", suggested_fix: "make `test -f ok.txt || exit 1` pass" },
    ],
    [
      "a long command: cut at 100 characters",
      LONG,
      ran(1),
      { problem: `\`${LONG.slice(0, 99)}…\` failed (exit 1)`, suggested_fix: `make \`${LONG.slice(0, 99)}…\` pass` },
    ],
  ])("%s", (_name, command, run, failure) => {
    const record = stepRecord("TEST", command, run, 3, START, END);
    expect(record).toMatchObject({
      passed: false,
      exit_code: run.exit_code,
      signal: run.signal,
      timed_out: run.timed_out,
      attempts: 3,
      output_tail: run.tail,
    });
    expect(record.failures).toEqual([failure]);
  });
});
