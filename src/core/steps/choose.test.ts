import { describe, expect, it } from "vitest";
import { DEVELOP, REPORT, type ChooseStep } from "../flow.js";
import { NOT_PICKED } from "../authority.js";
import { phaseState, reports } from "../fixtures.test-support.js";
import type { NextAction } from "../plan-resume.js";
import { chooseKind, missingDesigns } from "./choose.js";
import { resumeAt, spawnAt } from "./context.test-support.js";
import type { ResumeContext } from "./types.js";

const ARCH = DEVELOP.steps[1] as ChooseStep;
const A = `${REPORT.designsDir}/a.json`;
const B = `${REPORT.designsDir}/b.json`;
const asked = phaseState({ current_phase: "ARCHITECTURE", designs_requested: ["a", "b"] });
const both = reports({ [A]: {}, [B]: {} }, ["a", "b"]);
const spawnArchitect = (reason: string, designs: string[]): NextAction => ({
  action: "spawn_agent",
  agent: "architect",
  tasks: [],
  reason,
  designs,
});
const pick = (reason: string): NextAction => ({
  action: "await_approval",
  agent: null,
  tasks: [],
  reason,
  gate: "pick_design",
});

const rows: [string, Partial<ResumeContext>, NextAction][] = [
  [
    "nothing asked, nothing written → the default pair",
    {},
    spawnArchitect(
      "no designs yet: ask for minimal and robust (or record others first with `dotagent phase start ARCHITECTURE --designs a,b`)",
      ["minimal", "robust"],
    ),
  ],
  ["two asked, none written → both", { phase: asked }, spawnArchitect("write the designs asked for: a, b", ["a", "b"])],
  [
    "two asked, one written → only the missing one",
    { phase: asked, reports: reports({ [A]: {} }, ["a"]) },
    spawnArchitect("designs b of a, b are missing (do not re-run the others)", ["b"]),
  ],
  [
    "the missing one's architect at work → wait, not again",
    { phase: asked, reports: reports({ [A]: {} }, ["a"]), agents: [{ agent: "architect", output: B, design: "b" }] },
    {
      action: "await_agents",
      agent: null,
      tasks: [],
      reason: "the architect agent on design b is at work; wait for its result",
    },
  ],
  [
    "designs there, no roundtable → the reducer",
    { phase: asked, reports: both },
    { action: "spawn_agent", agent: "roundtable", tasks: [], reason: "designs exist but roundtable.json does not" },
  ],
  [
    "designs and roundtable → the person picks",
    { phase: asked, reports: reports({ [A]: {}, [B]: {}, [REPORT.roundtable]: {} }, ["a", "b"]) },
    pick("the user picks a design (do not re-run the architects)"),
  ],
  [
    "a final design the person did not pick → ask them",
    {
      phase: asked,
      reports: reports(
        { [A]: {}, [B]: {}, [REPORT.roundtable]: {}, [REPORT.finalDesign]: { status: "invalid", reason: NOT_PICKED } },
        ["a", "b"],
      ),
    },
    pick(
      `final_design.json ${NOT_PICKED}: show the options in roundtable.json and ask the user which one (do not write final_design.json)`,
    ),
  ],
  [
    "final design written → approve it",
    { reports: reports({ [REPORT.finalDesign]: {} }) },
    {
      action: "await_approval",
      agent: null,
      tasks: [],
      reason: "final_design.json awaits the user's approval",
      gate: "approve_design",
    },
  ],
];

describe("choose step: the resume rule", () => {
  it.each(rows)("%s", (_name, at, next) => expect(chooseKind.next(ARCH, resumeAt(at))).toEqual(next));
  it("missing designs: the asked ones without a valid file", () =>
    expect(missingDesigns(asked, reports({ [A]: {}, [B]: { status: "invalid", reason: "x" } }))).toEqual(["b"]));
});

describe("choose step: what the planner records where the workflow stops", () => {
  const stop = (phase = phaseState({ current_phase: "ARCHITECTURE" }), files = reports()) =>
    chooseKind.recordAtStop(ARCH, { phase, execution: undefined, reports: files, now: new Date(0) });
  it("nothing asked, nothing written: the default designs, proposed", () =>
    expect(stop()).toEqual({
      phase: { ...phaseState({ current_phase: "ARCHITECTURE" }), designs_requested: ["minimal", "robust"] },
      events: [{ type: "designs_requested", phase: "ARCHITECTURE", designs: ["minimal", "robust"], proposed: true }],
    }));
  it.each([
    ["designs asked for already", asked, reports()],
    ["a design written", undefined, reports({ [A]: {} }, ["a"])],
    ["a final design written", undefined, reports({ [REPORT.finalDesign]: {} })],
  ] as const)("%s: nothing", (_name, phase, files) => expect(stop(phase, files)).toBeUndefined());
});

describe("choose step: transitions", () => {
  it("final_design.json proves it", () => {
    const at = (files: Record<string, object>) => ({ reports: reports(files), execution: undefined, state: undefined });
    expect(chooseKind.prove(ARCH, at({ [REPORT.finalDesign]: {} }))).toEqual({
      done: true,
      output: REPORT.finalDesign,
    });
    expect(chooseKind.prove(ARCH, at({}))).toEqual({ done: false, missing: "final_design.json does not exist" });
  });
  it("takes designs; its reports stay through a rework round; no report gate of its own", () => {
    expect([chooseKind.takesDesigns, chooseKind.reworkMovesReports, chooseKind.outputIsReport]).toEqual([
      true,
      false,
      true,
    ]);
    expect(chooseKind.gatedReport(ARCH)).toBeUndefined();
    expect(chooseKind.refuseApproval(ARCH, reports())).toBeUndefined();
  });
});

describe("choose step: the runner's move", () => {
  const design = (n: string, angle: string) => ({
    key: `architect.${n}`,
    agent: "architect",
    output: `${REPORT.designsDir}/${n}.json`,
    lines: [`Design name: ${n}`, `Angle: ${angle}`],
  });
  it("the designs asked for: one job each, the angle from the step or a default", () =>
    expect(
      chooseKind.spawn(ARCH, spawnAt({ action: "spawn_agent", agent: "architect", designs: ["minimal", "x"] })),
    ).toEqual({
      kind: "agents",
      phase: "STEP",
      agent: "architect",
      jobs: [design("minimal", ARCH.designs[0]!.angle), design("x", "the x approach")],
      then: "resume",
      outputs: [`${REPORT.designsDir}/minimal.json`, `${REPORT.designsDir}/x.json`],
    }));
  it("none asked: the step's designs, said", () =>
    expect(chooseKind.spawn(ARCH, spawnAt({ action: "spawn_agent", agent: "architect" }))).toMatchObject({
      designs: ["minimal", "robust"],
    }));
  it("the reducer: one job on the roundtable", () =>
    expect(chooseKind.spawn(ARCH, spawnAt({ action: "spawn_agent", agent: "roundtable" }))).toEqual({
      kind: "agents",
      phase: "STEP",
      agent: "roundtable",
      jobs: [
        {
          key: "roundtable",
          agent: "roundtable",
          output: REPORT.roundtable,
          lines: [`Designs: ${REPORT.designsDir}/*.json`],
        },
      ],
      then: "resume",
      outputs: [REPORT.roundtable],
    }));
  it("another agent: not this step's", () =>
    expect(chooseKind.spawn(ARCH, spawnAt({ action: "spawn_agent", agent: "qa" }))).toBeUndefined());
});
