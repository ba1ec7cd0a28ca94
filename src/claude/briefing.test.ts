import { describe, expect, test } from "vitest";
import { briefingFor } from "./briefing.js";
import type { ResumePlan } from "../core/plan-resume.js";

const plan = (phase: string): ResumePlan =>
  ({
    situation: "interrupted",
    workflow_id: "wf-x",
    phase,
    phase_status: "in_progress",
    completed_phases: [],
    next: { action: "run_tasks", agent: "executor", tasks: ["t1"], reason: "t1 is ready" },
    in_flight: [],
    repairs: [],
    decision: null,
    errors: [],
  }) as unknown as ResumePlan;
const shared = {
  isolation: {
    round: 0,
    mode: "shared" as const,
    reason: "not a git repository",
    decided_at: "2026-11-29T10:00:00.000Z",
  },
  worktrees: [],
};

describe("briefingFor: a round's shared checkout is told at the workflow's tasks step, whatever its id", () => {
  test.each([
    ["develop's IMPLEMENTATION", "IMPLEMENTATION", "IMPLEMENTATION", true],
    ["fix's FIX", "FIX", "FIX", true],
    ["another step", "VERIFICATION", "IMPLEMENTATION", false],
    ["a workflow without a tasks step", "REVIEW", undefined, false],
  ])("%s", (_name, phase, tasksStep, told) => {
    const text = briefingFor(plan(phase), "resume", undefined, { ...shared, tasksStep }) ?? "";
    expect(text.includes("Tasks share one checkout this round (no worktrees): not a git repository.")).toBe(told);
  });
});
