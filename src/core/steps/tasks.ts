// A tasks step (SPEC §20): a recorded plan of tasks (execution.json), each run by the step's agent
// in its own worktree, at most max_parallel at once; a rework round plans its own tasks.
import { REPORT, planSourceOf, type TasksStep } from "../flow.js";
import { flowOf } from "../flow-of.js";
import {
  currentRound,
  importPlan,
  isLegacyExecution,
  missingPlan,
  planFileOf,
  planFrom,
  planStatus,
  planTasksReason,
} from "../plans.js";
import { presentReport, reportAt, type ReportSnapshot } from "../reports.js";
import { countByStatus, emptyExecution, isSettled, outputOf, readyTasks } from "../tasks.js";
import { ID_PATTERN } from "../../schema/json.js";
import { count } from "../words.js";
import type { PhaseState } from "../../schema/phase.js";
import type { ExecutionState } from "../../schema/execution.js";
import type { MachineEvent } from "../transitions.js";
import type { StepKind } from "./types.js";
import { awaitAgents, spawn } from "./shared.js";

/** The steps passed over because their `when` did not hold. */
export function skippedSteps(phase: PhaseState): Set<string> {
  return new Set(phase.completed_phases.filter((c) => c.skipped === true).map((c) => c.phase));
}

/**
 * Round 0's plan from final_design.json's `tasks`, when the design lists them and nothing else
 * was planned yet (no execution.json tasks, no plan record): the same import `task import` does.
 * A list that does not import (a bad id, an unknown dependency, a cycle) is left to plan_tasks.
 */
function importDesignTasks(
  phase: PhaseState,
  execution: ExecutionState | undefined,
  reports: ReportSnapshot,
  now: Date,
  source: string,
) {
  if (currentRound(phase) !== 0 || isLegacyExecution(execution) || (execution?.tasks.length ?? 0) > 0) return undefined;
  if (planStatus(phase, execution).kind !== "unrecorded") return undefined;
  const design = reportAt(reports, source);
  const tasks = design.status === "valid" ? (design.data as Record<string, unknown>).tasks : undefined;
  if (!Array.isArray(tasks) || tasks.length === 0) return undefined;
  const plan = [];
  for (const t of tasks) {
    if (t === null || typeof t !== "object") return undefined;
    const { id, title, depends_on } = t as Record<string, unknown>;
    if (typeof id !== "string" || !ID_PATTERN.test(id)) return undefined;
    if (title !== undefined && typeof title !== "string") return undefined;
    if (
      depends_on !== undefined &&
      !(Array.isArray(depends_on) && depends_on.every((d) => typeof d === "string" && ID_PATTERN.test(d)))
    )
      return undefined;
    plan.push({
      id,
      ...(title === undefined ? {} : { title }),
      depends_on: (depends_on as string[] | undefined) ?? [],
    });
  }
  const imported = importPlan(execution ?? emptyExecution(phase.workflow_id, now), phase, plan, now);
  return imported.ok ? imported : undefined;
}

export const tasksKind: StepKind<TasksStep> = {
  kind: "tasks",
  next(step, at) {
    const { phase, execution, inFlight, maxParallel } = at;
    const rework = at.reworkOpen ? phase.rework : undefined;
    const plan = planStatus(phase, execution);
    const round = currentRound(phase);
    const reworkExecutor = () =>
      spawn(
        step.agent,
        `verification failed: fix what ${rework?.verification} lists, then \`dotagent phase complete ${step.id}\``,
      );
    if (plan.kind === "unrecorded") {
      const source = planSourceOf(flowOf(phase), step.id, skippedSteps(phase));
      return {
        action: "plan_tasks",
        agent: null,
        tasks: [],
        reason: planTasksReason(plan, phase.rework?.verification, source),
        round,
        plan_file: planFileOf(round),
        plan_from: planFrom(plan.round, phase.rework?.verification, source),
      };
    }
    if (execution === undefined || execution.tasks.length === 0) {
      // Legacy only: new-format files reach here with a recorded plan, which has tasks.
      return rework
        ? reworkExecutor()
        : {
            action: "plan_tasks",
            agent: null,
            tasks: [],
            reason: planTasksReason({ kind: "unrecorded", round: 0, loose: [] }),
            round: 0,
            plan_file: planFileOf(0),
            plan_from: planFrom(0),
          };
    }
    // At most max_parallel tasks run at once, those in flight included.
    const ready = readyTasks(execution);
    const slots = Math.max(0, maxParallel - inFlight.length);
    const flying =
      inFlight.length > 0
        ? `; ${inFlight.length} in flight (${inFlight.slice(0, 5).join(", ")}${inFlight.length > 5 ? ", …" : ""})`
        : "";
    if (ready.length > 0 && slots > 0) {
      const batch = ready.slice(0, slots).map((t) => t.id);
      return {
        action: "run_tasks",
        agent: null,
        tasks: batch,
        reason: `${count(ready.length, "task")} ready, ${batch.length} to run now (at most ${maxParallel} at once)${flying}`,
        round,
      };
    }
    const counts = countByStatus(execution);
    if (inFlight.length > 0) return { ...awaitAgents(inFlight, []), round };
    if ((counts.dead ?? 0) > 0) {
      const dead = execution.tasks.filter((t) => t.status === "dead").map((t) => t.id);
      return {
        action: "resolve_dead_tasks",
        agent: null,
        tasks: dead,
        reason: `${count(dead.length, "dead task")} block${dead.length === 1 ? "s" : ""} progress: \`dotagent task retry ID --extra-attempts N\` (no --yes) gives the person's decision: show it, end your turn, run its yes only after they say yes`,
        round,
      };
    }
    if (rework && plan.kind === "legacy") return reworkExecutor();
    return { action: "await_agents", agent: null, tasks: [], reason: "tasks are running", round };
  },
  // The first plan is the approved design's own task list: recorded as written, in one write.
  recordBeforeProof(step, { phase, execution, reports, now }) {
    const source = planSourceOf(flowOf(phase), step.id, skippedSteps(phase));
    const imported = importDesignTasks(phase, execution, reports, now, source);
    if (imported === undefined) return undefined;
    return {
      execution: imported.state,
      repair: {
        code: "plan_recorded",
        message: `recorded the task plan of ${source.replace("memory/reports/", "")} (${imported.state.tasks.length} tasks)`,
      },
      events: imported.events as MachineEvent[],
    };
  },
  recordAtStop: () => undefined,
  prove(_step, { reports, execution, state }) {
    if (execution === undefined) return { done: false, missing: "execution.json does not exist" };
    const noPlan = missingPlan(state, execution);
    if (noPlan !== undefined) return { done: false, missing: noPlan };
    if (execution.tasks.length === 0) return { done: false, missing: "execution.json has no tasks" };
    const open = execution.tasks.filter((t) => !isSettled(t));
    if (open.length > 0)
      return {
        done: false,
        missing: `${count(open.length, "task")} not complete (${open
          .slice(0, 5)
          .map((t) => `${t.id}: ${t.status}`)
          .join(", ")}${open.length > 5 ? ", …" : ""})`,
      };
    const noOutput = execution.tasks.find(
      (t) => t.status === "complete" && !presentReport(reportAt(reports, outputOf(t))),
    );
    if (noOutput !== undefined)
      return { done: false, missing: `${outputOf(noOutput)} of task ${noOutput.id} does not exist` };
    return { done: true, output: REPORT.execution };
  },
  refuseApproval: () => undefined,
  takesDesigns: false,
  // Its output is execution.json, which the tasks prove.
  outputIsReport: false,
  reworkMovesReports: false,
  command: () => undefined,
  approvals: () => [],
  gatedReport: () => undefined,
  // Only a workflow from an older dotagent asks for a bare rework executor: plan the round.
  spawn: (_step, at) => at.planTasks(),
};
