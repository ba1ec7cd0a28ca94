// The step kinds' registry: each kind of SPEC §20 mapped to the module that owns what is specific
// to it (types.ts). The planner (plan-resume.ts), the phase machine (transitions.ts) and the
// runner's moves (run-step.ts) ask the step's module instead of switching on its kind. The map is
// exhaustive over Step["kind"]: a kind added to flow.ts without a module fails the type check.
import type { Step } from "../flow.js";
import type { StepKind } from "./types.js";
import { agentKind } from "./agent.js";
import { chooseKind } from "./choose.js";
import { tasksKind } from "./tasks.js";
import { checkKind } from "./check.js";
import { shellKind } from "./shell.js";

export type { StepKind, ResumeContext, PlanningContext, PlannerRecord, ProofContext, SpawnContext } from "./types.js";

export type StepModules = { readonly [K in Step["kind"]]: StepKind<Extract<Step, { kind: K }>> };

export const STEP_MODULES: StepModules = {
  agent: agentKind,
  choose: chooseKind,
  tasks: tasksKind,
  check: checkKind,
  shell: shellKind,
};

/** The module of the step's kind, typed for that step. */
export function kindOf<S extends Step>(step: S): StepKind<S> {
  // The map pairs each kind with its own module, so the step's kind picks a module for that step.
  return STEP_MODULES[step.kind] as unknown as StepKind<S>;
}
