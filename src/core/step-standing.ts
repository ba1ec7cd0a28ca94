// Where the current step stands, told from the work itself, for the first line of `status` for
// people (SPEC §10 "status for people"). phase.json's `phase_status` is what the machine recorded
// — `pending` until something runs `phase start` — and the planner's phase is where `resume`
// *would* be after its repairs; neither is what a person sees under it (the bar and the task
// table show the files as they are). Right after a kill, IMPLEMENTATION read `VERIFICATION phase
// (pending)` above `IMPL 2/3` and a task `running … (gone)`. So the words come from the same
// facts as the bar and the table: the running tasks and agents at work, the verdicts on their
// owners, and whether the planner moves past the step. `--json` keeps `phase_status` as stored. Pure.
import type { PhaseState } from "../schema/phase.js";
import type { ExecutionState } from "../schema/execution.js";
import { agentOwnerKey, isInFlight, type OwnerVerdicts } from "./ownership.js";
import { flowOf } from "./flow-of.js";
import { phaseOfRun } from "./plan-resume.js";

export type StepStanding =
  | { readonly kind: "failed" }
  /** Running work whose session ended (tasks by id, agents by name): nobody carries it on until the workflow is resumed. */
  | { readonly kind: "interrupted"; readonly tasks: readonly string[]; readonly agents: readonly string[] }
  /** Tasks running or agents at work, their sessions alive. */
  | { readonly kind: "at_work" }
  /** A live `dotagent run` drives the workflow: its agent sessions at work now (none between two). */
  | { readonly kind: "run_at_work"; readonly agents: readonly string[] }
  /** A `dotagent run` drove the workflow and ended without its end (killed: its lock left, its process gone), with the agent sessions it left at work. */
  | { readonly kind: "run_ended"; readonly agents: readonly string[] }
  /** The step's output is there: the planner moves past it, which `resume` records. */
  | { readonly kind: "done_unrecorded" }
  | { readonly kind: "complete" }
  | { readonly kind: "awaiting_approval" }
  /** Started (`phase start`, or tasks of the tasks step done or failed), nothing running now. */
  | { readonly kind: "started" }
  | { readonly kind: "not_started" };

export interface StandingFacts {
  /** phase.json as stored. */
  readonly phase: PhaseState;
  readonly execution: ExecutionState | undefined;
  readonly owners: OwnerVerdicts;
  /** The resume plan's phase and next action (after the repairs it would make). */
  readonly plan: { readonly phase: string | null; readonly next: { readonly action: string } };
  /** `dotagent run`'s lock (memory/runs/.lock): its holder alive, gone (a killed run), or no lock. */
  readonly run?: "alive" | "gone" | null;
  /** The run's agent sessions at work (`pm`, `architect minimal`, `executor task-002`): a live run's now, a killed run's when it was killed. */
  readonly runAgents?: readonly string[];
  /** The workflow's run approves its gates itself (`--approve auto` remembered): nobody waits at a gate. */
  readonly runApproves?: boolean;
}

/** The current step's standing; the first of the table's rows that holds, in this order. */
export function standingOf(facts: StandingFacts): StepStanding {
  const { phase, execution, owners, plan } = facts;
  const current = phase.current_phase;
  const running = (execution?.tasks ?? []).filter((t) => t.status === "running");
  const agents = (phase.agents ?? []).filter((a) => phaseOfRun(phase, a) === current);
  const goneTasks = running.filter((t) => !isInFlight(owners, t.id)).map((t) => t.id);
  const goneAgents = agents
    .filter((a) => a.owner === undefined || !isInFlight(owners, agentOwnerKey(a.output)))
    .map((a) => (a.design ? `${a.agent} (${a.design})` : a.agent));
  if (phase.phase_status === "failed") return { kind: "failed" };
  if (goneTasks.length > 0 || goneAgents.length > 0)
    return { kind: "interrupted", tasks: goneTasks, agents: goneAgents };
  // A live `dotagent run` drives it: what it has at work, not "in progress" over nothing (its
  // question at a gate is the one exception, unless it approves itself: the person answers it in the run's terminal).
  if (facts.run === "alive" && (plan.next.action !== "await_approval" || facts.runApproves === true))
    return { kind: "run_at_work", agents: facts.runAgents ?? [] };
  if (running.length > 0 || agents.length > 0) return { kind: "at_work" };
  if (plan.phase !== null && plan.phase !== current) return { kind: "done_unrecorded" };
  if (phase.phase_status === "complete") return { kind: "complete" };
  // A killed run that approves its gates itself left nobody waiting: it ended, and the next run goes on.
  if (facts.run === "gone" && facts.runApproves === true && plan.next.action === "await_approval")
    return { kind: "run_ended", agents: facts.runAgents ?? [] };
  if (plan.next.action === "await_approval") return { kind: "awaiting_approval" };
  // The runner records no agent of its own in phase.json: its lock says whether it still works.
  if (facts.run === "gone") return { kind: "run_ended", agents: facts.runAgents ?? [] };
  if (phase.phase_status === "in_progress") return { kind: "started" };
  const tasksStep = flowOf(phase).steps.find((s) => s.id === current)?.kind === "tasks";
  if (tasksStep && (execution?.tasks ?? []).some((t) => t.status !== "pending")) return { kind: "started" };
  return { kind: "not_started" };
}

/** The standing in a person's words: `in progress`, `interrupted: the session running task-003 ended`. */
export function standingWords(standing: StepStanding): string {
  switch (standing.kind) {
    case "failed":
      return "failed";
    case "interrupted": {
      const work = [...standing.tasks, ...standing.agents.map((a) => `the ${a} agent`)];
      const shown = work.length > 5 ? `${work.slice(0, 5).join(", ")} and ${work.length - 5} more` : work.join(", ");
      return `interrupted: the ${work.length === 1 ? "session" : "sessions"} running ${shown} ended`;
    }
    case "run_ended":
      return `interrupted: the dotagent run working on it ended${standing.agents.length === 0 ? "" : ` with ${agentsAtWork(standing.agents)}`}`;
    case "run_at_work":
      return standing.agents.length === 0
        ? "in progress: dotagent run is between two agents"
        : `in progress: dotagent run has ${agentsAtWork(standing.agents)}`;
    case "at_work":
    case "started":
      return "in progress";
    case "done_unrecorded":
      return "done, not yet recorded";
    case "complete":
      return "complete";
    case "awaiting_approval":
      return "waiting for approval";
    case "not_started":
      return "not started";
  }
}

/** "the pm agent at work", "the architect minimal, architect robust agents at work" (at most five named). */
function agentsAtWork(agents: readonly string[]): string {
  const n = agents.length;
  const shown = n > 5 ? `${agents.slice(0, 5).join(", ")} and ${n - 5} more` : agents.join(", ");
  return `the ${shown} ${n === 1 ? "agent" : "agents"} at work`;
}

/**
 * What a kill left cut off that nothing has recorded yet (`dotagent report`'s `cut_off`, SPEC §10
 * "report"): the current step, the tasks and agents whose session ended, or the `dotagent run`
 * that ended, in `status`'s words; and what was done before it (the steps completed, the round's
 * tasks complete). Null when the standing is not an interruption.
 */
export interface CutOff {
  readonly step: string;
  /** `session`: running tasks or agents whose session is gone (Claude Code, a client, a run); `dotagent_run`: a killed run's lock. */
  readonly by: "session" | "dotagent_run";
  readonly tasks: readonly string[];
  readonly agents: readonly string[];
  readonly finished: readonly string[];
  /** The standing in status's words: `interrupted: the session running task-002 ended`. */
  readonly words: string;
}

export function cutOffOf(
  standing: StepStanding,
  phase: PhaseState,
  tasks: readonly { readonly id: string; readonly status: string }[],
): CutOff | null {
  if (standing.kind !== "interrupted" && standing.kind !== "run_ended") return null;
  const steps = phase.completed_phases.filter((c) => c.skipped !== true).map((c) => c.phase);
  return {
    step: phase.current_phase,
    by: standing.kind === "interrupted" ? "session" : "dotagent_run",
    tasks: standing.kind === "interrupted" ? standing.tasks : [],
    agents: standing.agents,
    finished: [...steps, ...tasks.filter((t) => t.status === "complete").map((t) => t.id)],
    words: standingWords(standing),
  };
}
