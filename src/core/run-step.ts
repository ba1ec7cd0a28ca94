// What `dotagent run` does next, as a value: the resume plan's `next` turned into one step the
// headless runner carries out (agents to run, a gate to ask, a plan to record, a batch of tasks).
// It is the /develop skill's loop (skills/develop/SKILL.md) written as code, so the headless
// runner and an interactive session make the same moves from the same state.
import { DEFAULT_DESIGNS, REPORT, type Phase } from "./phases.js";
export { DEFAULT_DESIGNS } from "./phases.js";
import { planFileOf } from "./plans.js";

/** One agent session: its checkpoint key, agent file name, exact output file, and prompt lines. */
export interface AgentJob {
  readonly key: string;
  readonly agent: string;
  readonly output: string;
  readonly lines: readonly string[];
}

export type RunStep =
  | { kind: "init" }
  | { kind: "agents"; phase: Phase; agent: string; designs?: readonly string[]; jobs: readonly AgentJob[]; then: "resume" | "verdict" | "complete" }
  | { kind: "gate"; phase: "REQUIREMENTS" | "ARCHITECTURE"; output: string }
  | { kind: "choose_design" }
  | { kind: "plan_tasks"; round: number; file: string }
  | { kind: "run_tasks"; tasks: readonly string[] }
  | { kind: "wait"; inFlight: readonly string[] }
  | { kind: "dead_tasks"; tasks: readonly string[] }
  | { kind: "complete" }
  | { kind: "stuck"; reason: string };

/** The parts of the resume JSON (SPEC §5) a step depends on: fields, never the reason's text. */
export interface PlanView {
  phase: Phase | null;
  next: { action: string; agent?: string | null; tasks?: readonly string[]; reason?: string; designs?: readonly string[]; gate?: string; round?: number; plan_file?: string };
  in_flight?: readonly string[];
}

/** What the runner knows beyond the plan: the open rework round, if any (older plans carry no round). */
export interface RunFacts {
  reworkRound?: number | undefined;
}

const angleOf = (name: string) => DEFAULT_DESIGNS.find((d) => d.name === name)?.angle ?? `the ${name} approach`;
const job = (key: string, agent: string, output: string, lines: string[] = []): AgentJob => ({ key, agent, output, lines });

export function nextRunStep(plan: PlanView, facts: RunFacts = {}): RunStep {
  const next = plan.next;
  const phase = plan.phase;
  const round = next.round ?? facts.reworkRound ?? 0;
  const planTasks = (): RunStep => ({ kind: "plan_tasks", round, file: next.plan_file ?? planFileOf(round) });
  switch (next.action) {
    case "start_workflow":
      return { kind: "init" };
    case "workflow_complete":
      return { kind: "complete" };
    case "plan_tasks":
      return planTasks();
    case "run_tasks":
      return next.tasks && next.tasks.length > 0 ? { kind: "run_tasks", tasks: next.tasks } : { kind: "wait", inFlight: plan.in_flight ?? [] };
    case "await_agents":
      return { kind: "wait", inFlight: plan.in_flight ?? [] };
    case "resolve_dead_tasks":
      return { kind: "dead_tasks", tasks: next.tasks ?? [] };
    case "await_approval":
      switch (next.gate) {
        case "approve_requirements":
          return { kind: "gate", phase: "REQUIREMENTS", output: REPORT.demand };
        case "approve_design":
          return { kind: "gate", phase: "ARCHITECTURE", output: REPORT.finalDesign };
        case "pick_design":
          return { kind: "choose_design" };
        default:
          return { kind: "stuck", reason: `an approval this dotagent does not know (${String(next.gate)}): ${next.reason ?? ""}` };
      }
    case "spawn_agent":
      if (phase === null) return { kind: "stuck", reason: "no current phase" };
      switch (next.agent) {
        case "pm":
          return { kind: "agents", phase, agent: "pm", jobs: [job("pm", "pm", REPORT.demand)], then: "resume" };
        case "architect": {
          // The designs are recorded by the planner; a plan without them (older) asks for the pair.
          const names = next.designs && next.designs.length > 0 ? next.designs : DEFAULT_DESIGNS.map((d) => d.name);
          const jobs = names.map((n) => job(`architect.${n}`, "architect", `${REPORT.designsDir}/${n}.json`, [`Design name: ${n}`, `Angle: ${angleOf(n)}`]));
          return { kind: "agents", phase, agent: "architect", ...(next.designs && next.designs.length > 0 ? {} : { designs: names }), jobs, then: "resume" };
        }
        case "roundtable":
          return { kind: "agents", phase, agent: "roundtable", jobs: [job("roundtable", "roundtable", REPORT.roundtable, [`Designs: ${REPORT.designsDir}/*.json`])], then: "resume" };
        case "qa":
          return { kind: "agents", phase, agent: "qa", jobs: [job("qa", "qa", REPORT.verification)], then: "verdict" };
        case "reflector":
          return { kind: "agents", phase, agent: "reflector", jobs: [job("reflector", "reflector", REPORT.reflectionJson)], then: "complete" };
        case "executor":
          // Only a workflow from an older dotagent asks for a bare rework executor: plan the round.
          return planTasks();
        default:
          return { kind: "stuck", reason: `no agent "${String(next.agent)}" in this dotagent` };
      }
    default:
      return { kind: "stuck", reason: `${next.action}: ${next.reason ?? ""}` };
  }
}

export interface PlannedTask {
  id: string;
  title: string;
  depends_on: string[];
}

/**
 * The tasks of a round, from the report that holds them: round 0 from final_design.json's
 * `tasks` (the design's own list when the top level has none), round N one task per failure of
 * verification.rework-N.json. A design without tasks becomes one task: the whole request.
 */
export function tasksToPlan(round: number, source: Record<string, unknown>, request: string): PlannedTask[] {
  if (round > 0) {
    const failures = Array.isArray(source.failures) ? source.failures : [];
    const titles = failures.map((f) => describeFailure(f)).filter((t) => t !== "");
    const list = titles.length > 0 ? titles : ["Fix what verification found"];
    return list.map((title, i) => ({ id: `rework-${round}-${i + 1}`, title, depends_on: [] }));
  }
  const design = source.design && typeof source.design === "object" ? (source.design as Record<string, unknown>) : {};
  const raw = Array.isArray(source.tasks) && source.tasks.length > 0 ? source.tasks : Array.isArray(design.tasks) ? design.tasks : [];
  const tasks = raw.flatMap((t): PlannedTask[] => {
    if (!t || typeof t !== "object") return [];
    const o = t as Record<string, unknown>;
    if (typeof o.id !== "string" || o.id === "") return [];
    const deps = Array.isArray(o.depends_on) ? o.depends_on.filter((d): d is string => typeof d === "string") : [];
    return [{ id: o.id, title: typeof o.title === "string" ? o.title : o.id, depends_on: deps }];
  });
  return tasks.length > 0 ? tasks : [{ id: "task-001", title: request || "Implement the chosen design", depends_on: [] }];
}

function describeFailure(failure: unknown): string {
  if (typeof failure === "string") return failure.slice(0, 200);
  if (!failure || typeof failure !== "object") return "";
  const f = failure as Record<string, unknown>;
  const what = [f.criterion, f.problem].filter((p) => typeof p === "string" && p !== "").join(": ");
  return `${what}${typeof f.where === "string" && f.where !== "" ? ` (in ${f.where})` : ""}`.slice(0, 200);
}
