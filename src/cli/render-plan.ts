// The resume plan for both readers: the stable JSON object of CONTRACT §5, and the short plain
// text a person reads after `claude -r`.
import type { ResumePlan } from "../core/plan-resume.js";
import type { Flow } from "../core/flow.js";
import { approvalAt } from "../core/gates.js";
import type { Colors } from "./output.js";
import { formatProblem } from "../core/validate.js";
export { planJson } from "../ops/plan-json.js";
import { formatTime } from "./time.js";

function listIds(ids: readonly string[]): string {
  return `${ids.slice(0, 10).join(", ")}${ids.length > 10 ? ` and ${ids.length - 10} more` : ""}`;
}

/**
 * The next action for people: a short label (coloured) and what it means, without saying the
 * same thing twice ("spawn agent — spawn the pm agent" read as a stammer). `flow`: where the
 * plan's gates are (a definition's approval also says its report, `next.output`).
 */
export function describeNext(plan: ResumePlan, flow: Flow): { label: string; detail: string } {
  const next = plan.next;
  switch (next.action) {
    case "start_workflow":
      return { label: "start a workflow", detail: "`dotagent init --request …`, then the pm agent writes the demand" };
    case "spawn_agent":
      return {
        label: `spawn the ${next.agent} agent${next.designs ? ` for ${next.designs.join(", ")}` : ""}`,
        detail: next.reason,
      };
    case "run_tasks":
      return next.tasks.length > 0
        ? {
            label: `run ${next.tasks.length === 1 ? "task" : "tasks"} ${listIds(next.tasks)}${next.tasks.length > 1 ? " at once" : ""}`,
            detail: "",
          }
        : { label: "wait", detail: next.reason };
    case "resolve_failed_agent":
      return { label: `decide whether the ${next.agent} agent runs again`, detail: next.reason };
    case "resolve_dead_tasks":
      return {
        label: `decide about ${next.tasks.length === 1 ? "dead task" : "dead tasks"} ${listIds(next.tasks)}`,
        detail: "a person decides: `dotagent task retry ID --extra-attempts N`",
      };
    case "await_approval": {
      const gate = approvalAt(flow, next);
      if (gate?.does === "pick")
        return { label: "ask the person", detail: "pick one of the designs (do not run the architects again)" };
      return {
        label: "ask the person",
        detail: `approve ${next.output ?? gate?.report ?? "the report"}, or say what to change`,
      };
    }
    case "await_agents":
      return { label: "wait for the agents at work", detail: next.reason };
    case "plan_tasks":
      return { label: "record the task plan", detail: next.reason };
    case "workflow_complete":
      return { label: "nothing to do", detail: next.reason };
    case "confirm_fresh_start":
      return { label: "a person decides about a fresh start", detail: next.reason };
    case "confirm_rollback":
      return { label: `a person decides about going back to checkpoint ${next.rev ?? "?"}`, detail: next.reason };
    case "confirm_request_change":
      return { label: "a person decides about the new request", detail: next.reason };
    default:
      return { label: String(next.action).replaceAll("_", " "), detail: (next as { reason: string }).reason };
  }
}

/** The model's Next line: `Next: <label> — <detail>`. */
export function nextLine(plan: ResumePlan, c: Colors, flow: Flow): string {
  const { label, detail } = describeNext(plan, flow);
  return `Next: ${c.cyan(label)}${detail ? ` — ${detail}` : ""}`;
}

/** What a caller adds to the plan's lines: `status`'s task counts and, for people, the bar and table that replace the Completed line; a Next line for a person. */
export interface PlanExtras {
  readonly taskCounts?: Record<string, number>;
  /** Lines in place of `Completed: …` (status: the phase bar and the request). */
  readonly progress?: readonly string[];
  /** Lines under `Tasks: …` (status: the task table of a short plan). */
  readonly taskTable?: readonly string[];
  /** The Next line addressed to a person (person-next.ts), in place of the model's. */
  readonly next?: string | null;
  /** status for people: the step as stored (the bar's) and where it stands, in place of the plan's phase and phase_status. */
  readonly at?: { readonly phase: string; readonly words: string };
  /** status beside a live `dotagent run`: the plan's repairs are what that run records next, not a repair (in place of `Would repair:`). */
  readonly repairsHeading?: string;
}

export function planLines(
  plan: ResumePlan,
  c: Colors,
  mode: "resume" | "status",
  flow: Flow,
  extras: PlanExtras = {},
): string[] {
  const { taskCounts } = extras;
  const lines: string[] = [];
  if (plan.situation === "none") {
    lines.push("No workflow in this project yet.");
  } else if (plan.situation === "corrupt") {
    lines.push(c.red(`The workflow state is corrupt${plan.workflow_id ? ` (${plan.workflow_id})` : ""}:`));
    for (const e of plan.errors.slice(0, 8)) lines.push(`  ${c.red("✗")} ${formatProblem(e)}`);
    if (plan.errors.length > 8) lines.push(`  … and ${plan.errors.length - 8} more (\`dotagent validate\`)`);
  } else if (plan.situation === "hand_edit") {
    lines.push(
      c.yellow(
        `The workflow state was changed outside dotagent${plan.workflow_id ? ` (${plan.workflow_id}, at ${plan.phase ?? "?"})` : ""}.`,
      ),
    );
  } else if (plan.situation === "complete") {
    lines.push(`Workflow ${c.bold(plan.workflow_id ?? "")} is complete.`);
  } else {
    const verb =
      plan.situation === "started"
        ? "Started workflow"
        : mode === "resume" && plan.situation === "interrupted"
          ? "Resuming workflow"
          : "Workflow";
    const at = mode === "status" ? (extras.at ?? { phase: plan.phase ?? "", words: plan.phase_status ?? "" }) : null;
    lines.push(
      at === null
        ? `${verb} ${c.bold(plan.workflow_id ?? "")} from ${c.bold(plan.phase ?? "")} phase`
        : `${verb} ${c.bold(plan.workflow_id ?? "")} at ${c.bold(at.phase)} phase (${at.words})`,
    );
  }
  if (extras.progress) lines.push(...extras.progress);
  if (plan.last_activity) lines.push(`Last activity: ${formatTime(plan.last_activity)} (${plan.last_activity_ago})`);
  if (!extras.progress && plan.situation !== "none" && plan.situation !== "corrupt")
    lines.push(`Completed: ${plan.completed_phases.length > 0 ? plan.completed_phases.join(", ") : "none yet"}`);
  if (taskCounts && Object.values(taskCounts).some((n) => n > 0)) {
    lines.push(
      `Tasks: ${Object.entries(taskCounts)
        .filter(([, n]) => n > 0)
        .map(([s, n]) => `${n} ${s}`)
        .join(", ")}`,
    );
    if (extras.taskTable) lines.push(...extras.taskTable);
  }
  if (plan.in_flight.length > 0)
    lines.push(`In flight (a live session runs them; not repaired): ${listIds(plan.in_flight)}`);
  if (plan.agents_in_flight.length > 0)
    lines.push(
      `Agents at work: ${listIds(plan.agents_in_flight.map((a) => (a.design ? `${a.agent} (${a.design})` : a.agent)))}`,
    );
  if (plan.repairs.length > 0) {
    lines.push(extras.repairsHeading ?? (mode === "resume" ? "Repaired:" : "Would repair:"));
    for (const r of plan.repairs) lines.push(`  ${c.yellow("•")} ${r.message}`);
  }
  for (const w of plan.warnings) lines.push(`${c.yellow("warning:")} ${formatProblem(w)}`);
  lines.push(extras.next ?? nextLine(plan, c, flow));
  if (plan.decision)
    lines.push(`Decide: ${plan.decision.question}`, `  yes: ${plan.decision.yes}`, `  no:  ${plan.decision.no}`);
  return lines;
}
