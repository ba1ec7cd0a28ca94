// A workflow as data (SPEC §20): the ordered steps a workflow walks, each of one *kind* the core
// knows (agent, choose, tasks, check, shell). The core reads a Flow and never a step's name: the
// built-in `develop` is a Flow like any other. A Flow is resolved (extends applied) and checked
// (resolve-workflow.ts) before anything reads it, so readers may trust its shape.
import { REPORT, REPORTS_DIR, STATE_DIR } from "./paths.js";
import { resolveWorkflow } from "./resolve-workflow.js";
import { BUILTIN_WORKFLOWS } from "./workflow-defs.js";
import type { Gate } from "./plan-resume.js";

export const STEP_KINDS = ["agent", "choose", "tasks", "check", "shell"] as const;
export type StepKind = (typeof STEP_KINDS)[number];

/** Run the step only when a field of an earlier report (or the request) matches; else it is skipped. */
export interface StepCondition {
  /** A report under memory/reports/ (project-relative), or "request" for the workflow's request text. */
  readonly report: string;
  /** Dot path inside the report's JSON (ignored for "request"). */
  readonly field?: string | undefined;
  readonly equals?: string | number | boolean | undefined;
  readonly not_equals?: string | number | boolean | undefined;
  readonly matches?: string | undefined;
}

interface StepBase {
  readonly id: string;
  readonly title?: string | undefined;
  /** How dotagent's own messages name the step where not by its id (develop's VERIFICATION: "verification"): only a built-in sets it. */
  readonly said?: string | undefined;
  readonly when?: StepCondition | undefined;
  /** shell and check-run steps: how many more times a failing command runs before the step fails. */
  readonly retries?: number | undefined;
  /** shell and check-run steps: seconds before the command is stopped (counts as a failure). */
  readonly timeout?: number | undefined;
}

export interface AgentStep extends StepBase {
  readonly kind: "agent";
  readonly agent: string;
  /** Project-relative reports, any one of which (valid) proves the step done. */
  readonly reports: readonly string[];
  /** "approve": the person approves the report (or sends feedback that re-runs the agent). */
  readonly gate?: "approve" | undefined;
  /** The approval's name and words where they are not `approve_report`'s (gates.ts): only a built-in definition sets it. */
  readonly named_gate?: NamedGate | undefined;
}

/** How a terminal shows what the person answers at a gate (gate-view.ts): a demand's substance, a design's summary, a report's text, the designs side by side. */
export type GateShows = "requirements" | "design" | "report" | "designs";

/** How a built-in definition names its step's approval (develop's demand: `approve_requirements`, "the requirements"). */
export interface NamedGate {
  readonly gate: Gate;
  readonly words: string;
  readonly shows: GateShows;
}

export interface ChooseStep extends StepBase {
  readonly kind: "choose";
  /** Writes one design each (memory/reports/designs/<name>.json), in parallel. */
  readonly agent: string;
  /** Compares the designs (memory/reports/roundtable.json). */
  readonly reducer: string;
  /** The designs asked for when nobody chose others. */
  readonly designs: readonly { readonly name: string; readonly angle: string }[];
  /** The person picks: the pick is written as memory/reports/final_design.json and approved. */
  readonly gate: "choose";
  readonly reports: readonly string[];
}

export interface TasksStep extends StepBase {
  readonly kind: "tasks";
  readonly agent: string;
  readonly reports: readonly string[];
}

export interface CheckStep extends StepBase {
  readonly kind: "check";
  /** The checking agent, which writes `reports[0]` with a boolean `passed`; or … */
  readonly agent?: string | undefined;
  /** … the shell command whose exit code decides (0 passes); dotagent writes `reports[0]`. */
  readonly run?: string | undefined;
  readonly reports: readonly string[];
  /** On fail, go back to this earlier step, at most max_rounds times; then the workflow fails. */
  readonly rework?: string | undefined;
  readonly max_rounds?: number | undefined;
}

export interface ShellStep extends StepBase {
  readonly kind: "shell";
  readonly run: string;
  /** dotagent writes the command's exit code and output's tail here. */
  readonly reports: readonly string[];
}

export type Step = AgentStep | ChooseStep | TasksStep | CheckStep | ShellStep;

export interface Flow {
  /** The definition's name: `develop`, `fix`, or a project file's name. */
  readonly name: string;
  readonly description: string;
  readonly steps: readonly Step[];
}

export { REPORT } from "./paths.js";
export { DEFAULT_DESIGNS } from "./resolve-workflow.js";

/** The reports a choose step and a tasks step write: fixed, as the tasks and the landing read them. */
export const CHOOSE_REPORTS = [REPORT.finalDesign] as const;
export const TASKS_REPORTS = [REPORT.execution] as const;

/**
 * The built-in /develop: its definition (workflow-defs.ts) resolved by the same code as a
 * project's, once, as this module loads (resolve-workflow.ts reads nothing of this module at load).
 */
export const DEVELOP: Flow = builtinFlow("develop");

function builtinFlow(name: string): Flow {
  const result = resolveWorkflow(name, (n) => {
    const def = BUILTIN_WORKFLOWS[n];
    return def === undefined ? undefined : { name: n, source: "built-in", def };
  });
  // The built-ins are tested to resolve (test/workflows.test.ts): reaching this is a bug in them.
  if (!result.ok) throw new Error(`the built-in ${name} does not resolve: ${result.problems[0]!.message}`);
  return result.flow;
}

export function stepOf(flow: Flow, id: string): Step | undefined {
  return flow.steps.find((s) => s.id === id);
}

export function stepIndex(flow: Flow, id: string): number {
  return flow.steps.findIndex((s) => s.id === id);
}

export function nextStepId(flow: Flow, id: string): string | undefined {
  const i = stepIndex(flow, id);
  return i < 0 ? undefined : flow.steps[i + 1]?.id;
}

export function stepIds(flow: Flow): string[] {
  return flow.steps.map((s) => s.id);
}

/** Whether the person must approve (or pick in) the step before it completes. */
export function hasGate(step: Step): boolean {
  return step.kind === "choose" || (step.kind === "agent" && step.gate === "approve");
}

/** The agent that does the step's first piece of work (null: a command dotagent runs). */
export function stepAgent(step: Step): string | null {
  return step.kind === "shell" || (step.kind === "check" && step.agent === undefined) ? null : (step.agent ?? null);
}

/** Every agent a step spawns (a choose step: the design writer and the reducer). */
export function stepAgents(step: Step): string[] {
  if (step.kind === "choose") return [step.agent, step.reducer];
  const agent = stepAgent(step);
  return agent === null ? [] : [agent];
}

/** What the step produces, in one line for people and agents. */
export function stepProduces(step: Step): string {
  const name = (p: string) => p.replace(`${REPORTS_DIR}/`, "").replace(`${STATE_DIR}/`, "");
  switch (step.kind) {
    case "choose":
      return "designs/*.json, roundtable.json and final_design.json";
    case "tasks":
      return "execution.json with every task complete and tasks/<id>.json per task";
    default:
      return step.reports.map(name).join(" or ");
  }
}

/**
 * Where a tasks step's first plan comes from: the choose step's final_design.json, else the first
 * report of the nearest agent step before it (fix: reproduction.json), whose `tasks` are the plan.
 * Steps passed over (`skipped`: their `when` did not hold) wrote nothing: the one before them counts.
 */
export function planSourceOf(flow: Flow, tasksStep: string, skipped: ReadonlySet<string> = new Set()): string {
  const at = flow.steps.findIndex((s) => s.id === tasksStep);
  for (let i = at - 1; i >= 0; i--) {
    const step = flow.steps[i]!;
    if (skipped.has(step.id)) continue;
    if (step.kind === "choose") return REPORT.finalDesign;
    if (step.kind === "agent" && step.reports[0]!.endsWith(".json")) return step.reports[0]!;
  }
  return REPORT.finalDesign;
}
