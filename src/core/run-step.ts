// What `dotagent run` does next, as a value: the resume plan's `next` turned into one step the
// headless runner carries out (agents to run, a gate to ask, a plan to record, a batch of tasks).
// It is the /develop skill's loop (skills/develop/SKILL.md) written as code, so the headless
// runner and an interactive session make the same moves from the same state. Every workflow,
// develop included, is walked by its steps' kinds, never by their agents' names: the runner is
// told the current step (RunFacts.step) and reads the agent, reports and rework from it.
import { tellingLine } from "./telling-line.js";
import { REPORT, reworkCopyPath, type Phase } from "./phases.js";
export { DEFAULT_DESIGNS } from "./phases.js";
import { planFileOf } from "./plans.js";
import type { Step } from "./flow.js";
import { kindOf } from "./steps/index.js";
import { approvalsOf } from "./gates.js";

/**
 * One agent session: its checkpoint key, agent file name, exact output file, and prompt lines.
 * `formerKey`: the key an earlier dotagent gave the same job (agent and check steps were keyed by
 * the agent's name alone): a session it left cut off under that key is continued, not restarted.
 */
export interface AgentJob {
  readonly key: string;
  readonly agent: string;
  readonly output: string;
  readonly lines: readonly string[];
  readonly formerKey?: string;
}

/**
 * What the runner carries out next. `outputs` are the step's reports (any one of which does),
 * `rework` a check's target; a gate's `agent` revises its report on feedback, `view` says how the
 * report is shown; a plan's `source` is the report it is planned from.
 */
export type RunStep =
  | { kind: "init" }
  | {
      kind: "agents";
      phase: Phase;
      agent: string;
      designs?: readonly string[];
      jobs: readonly AgentJob[];
      then: "resume" | "verdict" | "complete";
      outputs: readonly string[];
      rework?: string;
    }
  | { kind: "gate"; phase: Phase; output: string; agent?: string; view: "requirements" | "design" | "report" }
  | { kind: "choose_design"; phase: Phase }
  | { kind: "plan_tasks"; round: number; file: string; source: string }
  | { kind: "run_tasks"; tasks: readonly string[] }
  /** A shell or check step's command, run by `step run` (SPEC §20). */
  | { kind: "command"; step: Phase }
  /** The workflow failed (a check past max_rounds, a failed shell step): the reason. */
  | { kind: "failed"; reason: string }
  | { kind: "wait"; inFlight: readonly string[] }
  | { kind: "dead_tasks"; tasks: readonly string[] }
  | { kind: "complete" }
  | { kind: "stuck"; reason: string };

/** The parts of the resume JSON (SPEC §5) a step depends on: fields, never the reason's text. */
export interface PlanView {
  phase: Phase | null;
  next: {
    action: string;
    agent?: string | null;
    tasks?: readonly string[];
    reason?: string;
    designs?: readonly string[];
    gate?: string;
    round?: number;
    plan_file?: string;
    output?: string;
    step?: string;
  };
  in_flight?: readonly string[];
}

/** What the runner knows beyond the plan, read from the workflow's state and its flow. */
export interface RunFacts {
  /** The current step of the flow the workflow walks (develop's or a definition's). */
  step?: Step | undefined;
  /** The open rework round, if any (older plans carry no round). */
  reworkRound?: number | undefined;
  /** Where round 0's plan comes from (planSourceOf: final_design.json, or fix's reproduction.json). */
  planSource?: string | undefined;
  /** The open rework round's failed report (phase.json `rework.verification`). */
  reworkReport?: string | undefined;
  /** The newest rework round (0: none yet), so each round's check agent is a job of its own. */
  latestRound?: number | undefined;
  /**
   * The workflow pins no definition (develop's phase.json, as every dotagent wrote it): an earlier
   * dotagent keyed its agent and check steps' sessions by the agent alone (`formerKey`).
   */
  keyedByAgent?: boolean | undefined;
}

/**
 * The step's move for the plan's `next`, by the step's kind, never its agents' names: develop is
 * walked by the same code as any definition (SPEC §20).
 */
export function nextRunStep(plan: PlanView, facts: RunFacts = {}): RunStep {
  const next = plan.next;
  const phase = plan.phase;
  const round = next.round ?? facts.reworkRound ?? 0;
  const step = facts.step;
  const source = round > 0 ? (facts.reworkReport ?? reworkCopyPath(round)) : (facts.planSource ?? REPORT.finalDesign);
  const planTasks = (): RunStep => ({ kind: "plan_tasks", round, file: next.plan_file ?? planFileOf(round), source });
  switch (next.action) {
    case "start_workflow":
      return { kind: "init" };
    case "workflow_complete":
      return { kind: "complete" };
    case "plan_tasks":
      return planTasks();
    case "run_tasks":
      return next.tasks && next.tasks.length > 0
        ? { kind: "run_tasks", tasks: next.tasks }
        : { kind: "wait", inFlight: plan.in_flight ?? [] };
    case "await_agents":
      return { kind: "wait", inFlight: plan.in_flight ?? [] };
    case "resolve_dead_tasks":
      return { kind: "dead_tasks", tasks: next.tasks ?? [] };
    case "run_step": {
      const at = next.step ?? phase;
      return at === null ? { kind: "stuck", reason: "a command to run, but no step" } : { kind: "command", step: at };
    }
    case "workflow_failed":
      return { kind: "failed", reason: next.reason ?? "the workflow failed" };
    case "await_approval":
      if (phase === null || step === undefined)
        return { kind: "stuck", reason: `an approval, but no current step: ${next.reason ?? ""}` };
      return gate(next, phase, step);
    // The person who runs `dotagent run` again has decided: the failed phase's agent runs again.
    case "resolve_failed_agent":
    case "spawn_agent":
      if (phase === null || step === undefined) return { kind: "stuck", reason: "no current phase" };
      return agents(next, phase, step, facts, planTasks);
    default:
      return { kind: "stuck", reason: `${next.action}: ${next.reason ?? ""}` };
  }
}

/** An approval: the step's report shown (its agent revises it on feedback), or the pick (gates.ts). */
function gate(next: PlanView["next"], phase: Phase, step: Step): RunStep {
  const approval = approvalsOf(step).find((a) => a.gate === next.gate);
  if (approval === undefined)
    return {
      kind: "stuck",
      reason: `an approval this dotagent does not know (${String(next.gate)}): ${next.reason ?? ""}`,
    };
  // A pick shows the designs side by side (the runner asks which one); an approval shows its report.
  if (approval.shows === "designs") return { kind: "choose_design", phase };
  const agent = kindOf(step).gatedReport(step)?.agent;
  return {
    kind: "gate",
    phase: next.step ?? phase,
    output: next.output ?? approval.report,
    ...(agent ? { agent } : {}),
    view: approval.shows,
  };
}

/**
 * The agents a step spawns, by the step's kind (its module's `spawn`, src/core/steps/): a choose
 * step's design writers (one job a design) or its reducer; an agent or check step's one agent
 * writing `next.output`.
 */
function agents(next: PlanView["next"], phase: Phase, step: Step, facts: RunFacts, planTasks: () => RunStep): RunStep {
  return (
    kindOf(step).spawn(step, { next, phase, facts, planTasks }) ?? {
      kind: "stuck",
      reason: `${phase} (a ${step.kind} step) does not spawn "${next.agent ?? ""}"`,
    }
  );
}

export interface PlannedTask {
  id: string;
  title: string;
  depends_on: string[];
}

/**
 * The tasks of a round, from the report that holds them: round 0 from final_design.json's
 * `tasks` (the design's own list when the top level has none), round N one task per failure of
 * the failed check's report (develop: verification.rework-N.json; a check's command: one task, to
 * make it pass). A design without tasks becomes one task: the whole request.
 */
export function tasksToPlan(round: number, source: Record<string, unknown>, request: string): PlannedTask[] {
  if (round > 0) {
    const failures = Array.isArray(source.failures) ? source.failures : [];
    const titles = failures.map((f) => describeFailure(f)).filter((t) => t !== "");
    // A command's report: one task to make it pass, named by its output's telling line.
    const command = typeof source.command === "string" ? describeCommand(source) : undefined;
    const list = command !== undefined ? [command] : titles.length > 0 ? titles : ["Fix what verification found"];
    return list.map((title, i) => ({ id: `rework-${round}-${i + 1}`, title, depends_on: [] }));
  }
  const design = source.design && typeof source.design === "object" ? (source.design as Record<string, unknown>) : {};
  const raw =
    Array.isArray(source.tasks) && source.tasks.length > 0
      ? source.tasks
      : Array.isArray(design.tasks)
        ? design.tasks
        : [];
  const tasks = raw.flatMap((t): PlannedTask[] => {
    if (!t || typeof t !== "object") return [];
    const o = t as Record<string, unknown>;
    if (typeof o.id !== "string" || o.id === "") return [];
    const deps = Array.isArray(o.depends_on) ? o.depends_on.filter((d): d is string => typeof d === "string") : [];
    return [{ id: o.id, title: typeof o.title === "string" ? o.title : o.id, depends_on: deps }];
  });
  return tasks.length > 0
    ? tasks
    : [{ id: "task-001", title: request || "Implement the chosen design", depends_on: [] }];
}

/** A check's command that failed (`step run`'s report): what the task must make pass. */
function describeCommand(report: Record<string, unknown>): string {
  const command = String(report.command).replace(/\s+/g, " ").trim();
  const exit =
    typeof report.exit_code === "number"
      ? `exit ${report.exit_code}`
      : report.timed_out === true
        ? "timed out"
        : "failed";
  const last = typeof report.output_tail === "string" ? tellingLine(report.output_tail) : "";
  return `Make \`${command.length > 100 ? `${command.slice(0, 99)}…` : command}\` pass (${exit}${last ? `: ${last.slice(0, 80)}` : ""})`.slice(
    0,
    200,
  );
}

function describeFailure(failure: unknown): string {
  if (typeof failure === "string") return failure.slice(0, 200);
  if (!failure || typeof failure !== "object") return "";
  const f = failure as Record<string, unknown>;
  const what = [f.criterion, f.problem].filter((p) => typeof p === "string" && p !== "").join(": ");
  return `${what}${typeof f.where === "string" && f.where !== "" ? ` (in ${f.where})` : ""}`.slice(0, 200);
}
