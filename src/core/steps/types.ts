// What a step kind's module owns (SPEC §20's five kinds, one module each): the resume rule (what
// the planner names next while the workflow stands on such a step), the rules the phase machine
// applies differently per kind (what proves the step done, what approval needs, what a rework
// round moves aside), and the headless runner's move when the plan spawns one of its agents.
// Everything here is pure; the registry (index.ts) maps each kind to its module.
import type { Phase } from "../phases.js";
import type { Step } from "../flow.js";
import type { ReportSnapshot } from "../reports.js";
import type { AgentInFlight, NextAction } from "../plan-resume.js";
import type { MachineEvent, Proof } from "../transitions.js";
import type { Approval } from "../gates.js";
import type { Repair } from "../tasks.js";
import type { PlanView, RunFacts, RunStep } from "../run-step.js";
import type { PhaseState } from "../../schema/phase.js";
import type { ExecutionState } from "../../schema/execution.js";

/** What the resume rule reads: the state after the planner's repairs, and the work at it. */
export interface ResumeContext {
  readonly phase: PhaseState;
  readonly execution: ExecutionState | undefined;
  readonly reports: ReportSnapshot;
  /** Tasks running under a live owner. */
  readonly inFlight: readonly string[];
  /** Phase agents at work (phase.json `agents`). */
  readonly agents: readonly AgentInFlight[];
  readonly maxParallel: number;
  /** A rework round is open and the workflow stands at the step it went back to (transitions.ts isReworkOpen). */
  readonly reworkOpen: boolean;
}

/** What the planner holds as it walks the steps (plan-resume.ts step 3 and 4). */
export interface PlanningContext {
  readonly phase: PhaseState;
  readonly execution: ExecutionState | undefined;
  readonly reports: ReportSnapshot;
  readonly now: Date;
}

/** What a step records through the planner: the new state, the repair it says, the events it logs. */
export interface PlannerRecord {
  readonly phase?: PhaseState;
  readonly execution?: ExecutionState;
  readonly repair?: Repair;
  readonly events: readonly MachineEvent[];
}

/** What proves a step done: the reports on disk, the tasks, and the state (for the plan's record). */
export interface ProofContext {
  readonly reports: ReportSnapshot;
  readonly execution: ExecutionState | undefined;
  readonly state: PhaseState | undefined;
}

/** The runner's view when the plan spawns an agent for the current step. */
export interface SpawnContext {
  readonly next: PlanView["next"];
  readonly phase: Phase;
  readonly facts: RunFacts;
  /** The round's plan_tasks move (the runner's reading of the plan's round and source). */
  readonly planTasks: () => RunStep;
}

export interface StepKind<S extends Step> {
  readonly kind: S["kind"];
  /**
   * The resume rule: the one next action while the workflow stands on this step (not complete,
   * not failed past its rework rounds: the planner handles those before asking).
   */
  next(step: S, at: ResumeContext): NextAction;
  /** What the planner records as it reaches the step, before it proves it (a tasks step: the first plan, from the design). */
  recordBeforeProof(step: S, at: PlanningContext): PlannerRecord | undefined;
  /** What the planner records when the workflow stops at the step (a choose step: the default designs asked for). */
  recordAtStop(step: S, at: PlanningContext): PlannerRecord | undefined;
  /** Whether the files that prove the step done are on disk and valid (CONTRACT §1 table). */
  prove(step: S, at: ProofContext): Proof;
  /** `phase approve`: why the step cannot be approved yet (nothing to show the person), else undefined. */
  refuseApproval(step: S, reports: ReportSnapshot): string | undefined;
  /** `phase start --designs`: the step asks for designs. */
  readonly takesDesigns: boolean;
  /** `phase complete --output`: the output named must be a valid report (a tasks step's is execution.json). */
  readonly outputIsReport: boolean;
  /** A rework round that goes back past this step moves its reports aside, so it runs again. */
  readonly reworkMovesReports: boolean;
  /** The shell command dotagent runs for the step (`dotagent step run`), if it runs one. */
  command(step: S): string | undefined;
  /** The gates the step waits at for the person (gates.ts): what they do, read and are told. */
  approvals(step: S): readonly Approval[];
  /** An approval gate's report and the agent that revises it on feedback (an agent step's). */
  gatedReport(step: S): { agent: string; output: string | undefined } | undefined;
  /** The runner's move when the plan spawns `next.agent` at this step; undefined: this step does not spawn it. */
  spawn(step: S, at: SpawnContext): RunStep | undefined;
}
