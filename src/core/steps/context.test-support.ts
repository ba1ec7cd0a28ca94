// Builders for the step kinds' tests: a resume context and a runner's spawn context.
import { NOW, phaseState, reports } from "../fixtures.test-support.js";
import type { PlanView, RunStep } from "../run-step.js";
import type { ResumeContext, SpawnContext } from "./types.js";

export { NOW };

export function resumeAt(overrides: Partial<ResumeContext> = {}): ResumeContext {
  return {
    phase: phaseState(),
    execution: undefined,
    reports: reports(),
    inFlight: [],
    agents: [],
    maxParallel: 2,
    reworkOpen: false,
    ...overrides,
  };
}

export const PLAN_TASKS: RunStep = { kind: "plan_tasks", round: 0, file: "plan.json", source: "design.json" };

export function spawnAt(next: PlanView["next"], facts: SpawnContext["facts"] = {}, phase = "STEP"): SpawnContext {
  return { next, phase, facts, planTasks: () => PLAN_TASKS };
}
