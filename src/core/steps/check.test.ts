import { describe, expect, it } from "vitest";
import { DEVELOP, REPORT, type CheckStep, type Step } from "../flow.js";
import { reports } from "../fixtures.test-support.js";
import type { NextAction } from "../plan-resume.js";
import { asReworkingCheck, checkKind, sendsWorkBack } from "./check.js";
import { resumeAt, spawnAt } from "./context.test-support.js";
import type { ResumeContext } from "./types.js";

const QA = DEVELOP.steps[3] as CheckStep;
const TEST = "memory/reports/test.json";
const COMMAND: CheckStep = { id: "TEST", kind: "check", run: "npm test", reports: [TEST] };
const LONG: CheckStep = { ...COMMAND, run: `npm test -- ${"x".repeat(100)}\n&& echo done` };

const rows: [string, CheckStep, Partial<ResumeContext>, NextAction][] = [
  [
    "its agent: spawn it for the verdict",
    QA,
    {},
    { action: "spawn_agent", agent: "qa", tasks: [], reason: "no valid verification.json yet" },
  ],
  [
    "its agent at work → wait",
    QA,
    { agents: [{ agent: "qa", output: REPORT.verification }] },
    { action: "await_agents", agent: null, tasks: [], reason: "the qa agent is at work; wait for its result" },
  ],
  [
    "its command → run it",
    COMMAND,
    {},
    {
      action: "run_step",
      agent: null,
      tasks: [],
      reason: "run TEST's command (`npm test`): `dotagent step run TEST`",
      step: "TEST",
    },
  ],
  [
    "its command failed, no rework → the workflow failed, the way on `step run --again` (not run_step: its result would only be read back)",
    COMMAND,
    { reports: reports({ [TEST]: { passed: false } }) },
    {
      action: "workflow_failed",
      agent: null,
      tasks: [],
      reason:
        "TEST: `npm test` failed (test.json says passed: false); fix the cause, then `dotagent step run TEST --again`",
    },
  ],
  [
    "a long command on one line, cut",
    LONG,
    {},
    {
      action: "run_step",
      agent: null,
      tasks: [],
      reason: `run TEST's command (\`npm test -- ${"x".repeat(65)}…\`): \`dotagent step run TEST\``,
      step: "TEST",
    },
  ],
];

describe("check step: the resume rule", () => {
  it.each(rows)("%s", (_name, step, at, next) => expect(checkKind.next(step, resumeAt(at))).toEqual(next));
});

describe("check step: transitions", () => {
  const proof = (step: CheckStep, files: Record<string, object>) =>
    checkKind.prove(step, { reports: reports(files), execution: undefined, state: undefined });
  it.each([
    [
      "passed: true proves it",
      QA,
      { [REPORT.verification]: { passed: true } },
      { done: true, output: REPORT.verification },
    ],
    [
      "passed: false with rework: the way back said",
      QA,
      { [REPORT.verification]: { passed: false } },
      { done: false, missing: "verification.json says passed: false (run `dotagent phase rework`)" },
    ],
    [
      "passed: false without rework",
      COMMAND,
      { [TEST]: { passed: false } },
      { done: false, missing: "test.json says passed: false" },
    ],
    ["no report", COMMAND, {}, { done: false, missing: "test.json does not exist" }],
  ] as const)("%s", (_name, step, files, expected) => expect(proof(step, files)).toEqual(expected));
  it("which checks send work back", () => {
    const cases: [Step, boolean, boolean][] = [
      [QA, true, true],
      [{ ...COMMAND, rework: "BUILD" }, true, false],
      [COMMAND, false, false],
      [DEVELOP.steps[2]!, false, false],
    ];
    for (const [step, back, rounds] of cases) {
      expect(sendsWorkBack(step)).toBe(back);
      expect(asReworkingCheck(step) !== undefined).toBe(rounds);
    }
  });
  it("its report is moved aside by a rework round that goes back past it", () =>
    expect([checkKind.reworkMovesReports, checkKind.outputIsReport, checkKind.takesDesigns]).toEqual([
      true,
      true,
      false,
    ]));
});

describe("check step: the runner's move", () => {
  it("its agent: a verdict, the rework target said", () =>
    expect(checkKind.spawn(QA, spawnAt({ action: "spawn_agent", agent: "qa" }))).toEqual({
      kind: "agents",
      phase: "STEP",
      agent: "qa",
      jobs: [{ key: "qa.VERIFICATION", agent: "qa", output: REPORT.verification, lines: [] }],
      then: "verdict",
      outputs: [REPORT.verification],
      rework: "IMPLEMENTATION",
    }));
  it("a command check spawns no agent", () =>
    expect(checkKind.spawn(COMMAND, spawnAt({ action: "spawn_agent", agent: "qa" }))).toBeUndefined());
  it("its command, when it runs one", () => {
    expect(checkKind.command(COMMAND)).toBe("npm test");
    expect(checkKind.command(QA)).toBeUndefined();
  });
});
