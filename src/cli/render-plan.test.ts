import { describe, expect, it } from "vitest";
import { DEVELOP } from "../core/flow.js";
import { describeNext } from "./render-plan.js";
import type { NextAction, ResumePlan } from "../core/plan-resume.js";

const at = (next: Partial<NextAction>) =>
  describeNext(
    { next: { action: "await_approval", agent: null, tasks: [], reason: "r", ...next } } as ResumePlan,
    DEVELOP,
  );

describe("describeNext at a gate: what the gate's data says the person does", () => {
  it.each<[string, Partial<NextAction>, string]>([
    ["develop's demand", { gate: "approve_requirements" }, "approve memory/reports/demand.json, or say what to change"],
    ["the pick", { gate: "pick_design" }, "pick one of the designs (do not run the architects again)"],
    ["the final design", { gate: "approve_design" }, "approve memory/reports/final_design.json, or say what to change"],
    [
      "a definition's report: approved, not picked",
      { gate: "approve_report", step: "NOTES", output: "memory/reports/notes.md" },
      "approve memory/reports/notes.md, or say what to change",
    ],
  ])("%s", (_name, next, detail) => expect(at(next)).toEqual({ label: "ask the person", detail }));
});
