import { describe, expect, test } from "vitest";
import { revisionJobs } from "./revision.js";
import { DEVELOP, type Step } from "./flow.js";

describe("revisionJobs: feedback at a gate, as agent jobs", () => {
  test("develop's as they were: the pm revises demand.json, every architect its design", () => {
    expect(revisionJobs("REQUIREMENTS", 2, "no  emails\n please")).toEqual([{ key: "pm.revise-2", agent: "pm", output: "memory/reports/demand.json", lines: ["Revise: memory/reports/demand.json", "Feedback from the person: no emails please"] }]);
    expect(revisionJobs("ARCHITECTURE", 1, "x", ["robust"]).map((j) => [j.key, ...j.lines])).toEqual([["architect.robust.revise-1", "Design name: robust", "Angle: a design that holds up as the feature grows", "Revise: memory/reports/designs/robust.json", "Feedback from the person: x"]]);
  });

  test("a definition's gate: its step's own agent revises the report shown, or each design with the step's angles", () => {
    const notes: Step = { id: "NOTES", kind: "agent", agent: "reviewer", reports: ["memory/reports/notes.json", "memory/reports/notes.md"], gate: "approve" };
    expect(revisionJobs("NOTES", 1, "shorter", [], notes, "memory/reports/notes.md")).toEqual([{ key: "reviewer.NOTES.revise-1", agent: "reviewer", output: "memory/reports/notes.md", lines: ["Revise: memory/reports/notes.md", "Feedback from the person: shorter"] }]);
    const sketch: Step = { ...DEVELOP.steps[1]!, id: "SKETCH", agent: "designer", reducer: "judge", designs: [{ name: "small", angle: "fewest lines" }] } as Step;
    expect(revisionJobs("SKETCH", 3, "y", ["small"], sketch)).toEqual([{ key: "designer.small.revise-3", agent: "designer", output: "memory/reports/designs/small.json", lines: ["Design name: small", "Angle: fewest lines", "Revise: memory/reports/designs/small.json", "Feedback from the person: y"] }]);
  });
});
