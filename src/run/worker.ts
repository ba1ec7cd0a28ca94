// Where a run stands against the workflow's tasks step (SPEC §17 `--until-tasks`, §23 "The
// worker"): a planning run stops there with the plan written; a worker runs only that step's
// tasks, and ends (never walks on) anywhere else. What a step acts on is read from its kind and
// the definition's order of steps, never from a step's name.
import type { Flow } from "../core/flow.js";
import type { RunStep } from "../core/run-step.js";

/**
 * `at`: the workflow is at its tasks step with the plan written (tasks to run, at work elsewhere,
 * or failed too often); `before`: a tasks step is still ahead (its plan not written yet counts);
 * `past`: no tasks step is ahead (the workflow complete too). Undefined for a step that ends the
 * run on its own (`failed`, `stuck`).
 */
export type TasksPosition = "at" | "before" | "past";

export function tasksPosition(flow: Flow, step: RunStep): TasksPosition | undefined {
  switch (step.kind) {
    case "run_tasks":
    case "wait":
    case "dead_tasks":
      return "at";
    case "complete":
      return "past";
    case "init":
    case "plan_tasks":
      return "before";
    case "agents":
    case "gate":
    case "choose_design":
      return aheadOrPast(flow, step.phase);
    case "command":
      return aheadOrPast(flow, step.step);
    case "failed":
    case "stuck":
      return undefined;
  }
}

/** A step other than the tasks step's own: `before` when a tasks step comes at or after it in the definition. */
function aheadOrPast(flow: Flow, id: string): TasksPosition {
  const at = flow.steps.findIndex((s) => s.id === id);
  return flow.steps.some((s, i) => s.kind === "tasks" && i >= at) ? "before" : "past";
}
