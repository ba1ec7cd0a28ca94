import { describe, expect, it } from "vitest";
import { DEVELOP, type AgentStep } from "../flow.js";
import { REPORT } from "../phases.js";
import { phaseState, reports } from "../fixtures.test-support.js";
import type { NextAction } from "../plan-resume.js";
import type { RunStep } from "../run-step.js";
import { agentKind } from "./agent.js";
import { resumeAt, spawnAt } from "./context.test-support.js";
import type { ResumeContext } from "./types.js";

const NOTES = "memory/reports/notes.json";
const WRITE: AgentStep = { id: "WRITE", kind: "agent", agent: "writer", reports: [NOTES] };
const GATED: AgentStep = { ...WRITE, gate: "approve" };
const TWO: AgentStep = { ...WRITE, reports: ["memory/reports/a.json", "memory/reports/a.md"] };
const REQUIREMENTS = DEVELOP.steps[0] as AgentStep;
const pinned = phaseState({ workflow: { name: "notes" } as never });
const unowned = { status: "invalid", reason: "was not written by a pm agent (none was recorded at work)" };

const rows: [string, AgentStep, Partial<ResumeContext>, NextAction][] = [
  [
    "no report → spawn its agent",
    WRITE,
    {},
    { action: "spawn_agent", agent: "writer", tasks: [], reason: "no valid notes.json yet" },
  ],
  [
    "two reports, none → either named",
    TWO,
    {},
    { action: "spawn_agent", agent: "writer", tasks: [], reason: "no a.json or a.md yet" },
  ],
  [
    "a definition's step says its output",
    WRITE,
    { phase: pinned },
    { action: "spawn_agent", agent: "writer", tasks: [], reason: "no valid notes.json yet", output: NOTES },
  ],
  [
    "a report nobody recorded → spawn with the note",
    REQUIREMENTS,
    { reports: reports({ [REPORT.demand]: unowned }) },
    { action: "spawn_agent", agent: "pm", tasks: [], reason: `demand.json ${unowned.reason}: spawn pm` },
  ],
  [
    "its agent at work → wait",
    GATED,
    { agents: [{ agent: "writer", output: NOTES }], reports: reports({ [NOTES]: {} }) },
    { action: "await_agents", agent: null, tasks: [], reason: "the writer agent is at work; wait for its result" },
  ],
  [
    "gated, report valid → approve_report with its folder and step",
    GATED,
    { reports: reports({ [NOTES]: {} }) },
    {
      action: "await_approval",
      agent: null,
      tasks: [],
      reason: `${NOTES} awaits the user's approval`,
      gate: "approve_report",
      step: "WRITE",
    },
  ],
  [
    "develop's demand → approve_requirements, named as the skill names it",
    REQUIREMENTS,
    { reports: reports({ [REPORT.demand]: {} }) },
    {
      action: "await_approval",
      agent: null,
      tasks: [],
      reason: "demand.json awaits the user's approval",
      gate: "approve_requirements",
    },
  ],
];

describe("agent step: the resume rule", () => {
  it.each(rows)("%s", (_name, step, at, next) => expect(agentKind.next(step, resumeAt(at))).toEqual(next));
});

describe("agent step: transitions", () => {
  const proof = (step: AgentStep, files: Record<string, object>) =>
    agentKind.prove(step, { reports: reports(files), execution: undefined, state: undefined });
  it("any one valid report proves it", () =>
    expect(proof(TWO, { "memory/reports/a.md": {} })).toEqual({ done: true, output: "memory/reports/a.md" }));
  it("none: what each lacks", () =>
    expect(proof(TWO, { "memory/reports/a.json": { status: "invalid", reason: "is not JSON" } })).toEqual({
      done: false,
      missing: "a.json is not JSON and a.md does not exist",
    }));
  it("approval needs a report to show", () => {
    expect(agentKind.refuseApproval(GATED, reports())).toBe(
      `WRITE cannot be approved yet: ${NOTES} does not exist; the writer agent writes it first, then the person approves what it says`,
    );
    expect(agentKind.refuseApproval(GATED, reports({ [NOTES]: {} }))).toBeUndefined();
  });
  it("its reports are moved aside by a rework round; its output is a report", () => {
    expect(agentKind.reworkMovesReports).toBe(true);
    expect(agentKind.outputIsReport).toBe(true);
    expect(agentKind.takesDesigns).toBe(false);
  });
  it("its gate shows its first report, revised by its agent", () =>
    expect(agentKind.gatedReport(GATED)).toEqual({ agent: "writer", output: NOTES }));
});

describe("agent step: the runner's move", () => {
  const job = (key: string, extra = {}) => ({ key, agent: "writer", output: NOTES, lines: [], ...extra });
  const move = (step: AgentStep, then: string, key: string, extra = {}): RunStep =>
    ({ kind: "agents", phase: "STEP", agent: "writer", jobs: [job(key, extra)], then, outputs: [NOTES] }) as RunStep;
  it.each([
    ["ungated: complete", WRITE, {}, move(WRITE, "complete", "writer.WRITE")],
    ["gated: resume (the person approves)", GATED, {}, move(GATED, "resume", "writer.WRITE")],
    ["after rework round 2: a job of its own", WRITE, { latestRound: 2 }, move(WRITE, "complete", "writer.WRITE.r2")],
    [
      "develop's older key kept",
      WRITE,
      { keyedByAgent: true },
      move(WRITE, "complete", "writer.WRITE", { formerKey: "writer" }),
    ],
  ] as const)("%s", (_name, step, facts, expected) =>
    expect(agentKind.spawn(step, spawnAt({ action: "spawn_agent", agent: "writer" }, facts))).toEqual(expected),
  );
  it("another agent: not this step's", () =>
    expect(agentKind.spawn(WRITE, spawnAt({ action: "spawn_agent", agent: "qa" }))).toBeUndefined());
});
