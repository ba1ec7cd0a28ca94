// The resume plan for both readers: the stable JSON object of CONTRACT §5, and the short plain
// text a person reads after `claude -r`.
import type { ResumePlan } from "../core/plan-resume.js";
import type { Colors } from "./output.js";
import { formatProblem } from "../core/validate.js";
export { planJson } from "../ops/plan-json.js";

function listIds(ids: readonly string[]): string {
  return `${ids.slice(0, 10).join(", ")}${ids.length > 10 ? ` and ${ids.length - 10} more` : ""}`;
}

function describeNext(plan: ResumePlan): string {
  const next = plan.next;
  switch (next.action) {
    case "start_workflow":
      return `start a workflow: \`dotagent init --request …\`, then spawn the pm agent`;
    case "spawn_agent":
      return `spawn the ${next.agent} agent${next.designs ? ` for ${next.designs.join(", ")}` : ""} (${next.reason})`;
    case "run_tasks":
      return next.tasks.length > 0 ? `run task${next.tasks.length === 1 ? "" : "s"} ${listIds(next.tasks)}${next.tasks.length > 1 ? " at once" : ""}` : next.reason;
    case "resolve_dead_tasks":
      return `dead task${next.tasks.length === 1 ? "" : "s"} ${next.tasks.join(", ")} need a person: \`dotagent task retry ID --extra-attempts N\``;
    default:
      return next.reason;
  }
}

/** 2026-11-20 10:30 UTC: short, unambiguous, for people. */
export function formatTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

const ACTION_LABEL: Record<string, string> = {
  start_workflow: "start workflow",
  spawn_agent: "spawn agent",
  await_approval: "await approval",
  plan_tasks: "plan tasks",
  run_tasks: "run tasks",
  resolve_dead_tasks: "resolve dead tasks",
  await_agents: "wait for agents",
  workflow_complete: "nothing to do",
  confirm_fresh_start: "confirm fresh start",
  confirm_request_change: "confirm request change",
};

export function planLines(plan: ResumePlan, c: Colors, mode: "resume" | "status", taskCounts?: Record<string, number>): string[] {
  const lines: string[] = [];
  if (plan.situation === "none") {
    lines.push("No workflow in this project yet.");
  } else if (plan.situation === "corrupt") {
    lines.push(c.red(`The workflow state is corrupt${plan.workflow_id ? ` (${plan.workflow_id})` : ""}:`));
    for (const e of plan.errors.slice(0, 8)) lines.push(`  ${c.red("✗")} ${formatProblem(e)}`);
    if (plan.errors.length > 8) lines.push(`  … and ${plan.errors.length - 8} more (\`dotagent validate\`)`);
  } else if (plan.situation === "complete") {
    lines.push(`Workflow ${c.bold(plan.workflow_id ?? "")} is complete.`);
  } else {
    const verb = plan.situation === "started" ? "Started workflow" : mode === "resume" && plan.situation === "interrupted" ? "Resuming workflow" : "Workflow";
    lines.push(`${verb} ${c.bold(plan.workflow_id ?? "")} ${mode === "resume" ? "from" : "at"} ${c.bold(plan.phase ?? "")} phase${mode === "status" ? ` (${plan.phase_status})` : ""}`);
  }
  if (plan.last_activity) lines.push(`Last activity: ${formatTime(plan.last_activity)} (${plan.last_activity_ago})`);
  if (plan.situation !== "none" && plan.situation !== "corrupt") lines.push(`Completed: ${plan.completed_phases.length > 0 ? plan.completed_phases.join(", ") : "none yet"}`);
  if (taskCounts && Object.values(taskCounts).some((n) => n > 0)) {
    lines.push(`Tasks: ${Object.entries(taskCounts).filter(([, n]) => n > 0).map(([s, n]) => `${n} ${s}`).join(", ")}`);
  }
  if (plan.in_flight.length > 0) lines.push(`In flight (a live session runs them; not repaired): ${listIds(plan.in_flight)}`);
  if (plan.agents_in_flight.length > 0) lines.push(`Agents at work: ${listIds(plan.agents_in_flight.map((a) => (a.design ? `${a.agent} (${a.design})` : a.agent)))}`);
  if (plan.repairs.length > 0) {
    lines.push(mode === "resume" ? "Repaired:" : "Would repair:");
    for (const r of plan.repairs) lines.push(`  ${c.yellow("•")} ${r.message}`);
  }
  for (const w of plan.warnings) lines.push(`${c.yellow("warning:")} ${formatProblem(w)}`);
  lines.push(`Next: ${c.cyan(ACTION_LABEL[plan.next.action] ?? plan.next.action)} — ${describeNext(plan)}`);
  if (plan.decision) lines.push(`Decide: ${plan.decision.question}`, `  yes: ${plan.decision.yes}`, `  no:  ${plan.decision.no}`);
  return lines;
}
