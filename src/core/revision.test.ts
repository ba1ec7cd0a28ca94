import { describe, expect, test } from "vitest";
import { revisionJobs } from "./revision.js";
import { DEVELOP, stepOf, type Step } from "./flow.js";

const develop = (id: string) => stepOf(DEVELOP, id)!;

describe("revisionJobs: feedback at a gate, as agent jobs, by the gate step's kind", () => {
  test("develop's: the pm revises demand.json (a session cut off under its former key continues), every architect its design", () => {
    expect(revisionJobs(develop("REQUIREMENTS"), 2, "no  emails\n please", [], undefined, true)).toEqual([
      {
        key: "pm.REQUIREMENTS.revise-2",
        formerKey: "pm.revise-2",
        agent: "pm",
        output: "memory/reports/demand.json",
        lines: ["Revise: memory/reports/demand.json", "Feedback from the person: no emails please"],
      },
    ]);
    expect(revisionJobs(develop("ARCHITECTURE"), 1, "x", ["robust"]).map((j) => [j.key, ...j.lines])).toEqual([
      [
        "architect.robust.revise-1",
        "Design name: robust",
        "Angle: a design that holds up as the feature grows",
        "Revise: memory/reports/designs/robust.json",
        "Feedback from the person: x",
      ],
    ]);
  });

  test("a definition's gate: its step's own agent revises the report shown, or each design with the step's angles; no former key", () => {
    const notes: Step = {
      id: "NOTES",
      kind: "agent",
      agent: "reviewer",
      reports: ["memory/reports/notes.json", "memory/reports/notes.md"],
      gate: "approve",
    };
    expect(revisionJobs(notes, 1, "shorter", [], "memory/reports/notes.md")).toEqual([
      {
        key: "reviewer.NOTES.revise-1",
        agent: "reviewer",
        output: "memory/reports/notes.md",
        lines: ["Revise: memory/reports/notes.md", "Feedback from the person: shorter"],
      },
    ]);
    const sketch: Step = {
      ...DEVELOP.steps[1]!,
      id: "SKETCH",
      agent: "designer",
      reducer: "judge",
      designs: [{ name: "small", angle: "fewest lines" }],
    } as Step;
    expect(revisionJobs(sketch, 3, "y", ["small"])).toEqual([
      {
        key: "designer.small.revise-3",
        agent: "designer",
        output: "memory/reports/designs/small.json",
        lines: [
          "Design name: small",
          "Angle: fewest lines",
          "Revise: memory/reports/designs/small.json",
          "Feedback from the person: y",
        ],
      },
    ]);
  });

  test("a step without a gate's report to revise (tasks, check, shell) gives no job", () => {
    expect(revisionJobs(develop("IMPLEMENTATION"), 1, "x")).toEqual([]);
  });
});
