// What the step kinds' modules share: the plan's next actions as values (spawn an agent, await an
// approval, wait for the agents at work, run a step's command), the words they are said in, and
// the runner's agent job. No kind is named here.
import { REPORTS_DIR } from "../paths.js";
import { flowOf } from "../flow-of.js";
import { phaseAgentOf, unownedNote } from "../report-owners.js";
import { isValidReport, reportAt, type ReportSnapshot, type ReportState } from "../reports.js";
import type { Step } from "../flow.js";
import type { AgentInFlight, NextAction } from "../plan-resume.js";
import type { Approval } from "../gates.js";
import type { AgentJob, RunStep } from "../run-step.js";
import type { Proof } from "../transitions.js";
import type { ResumeContext, SpawnContext } from "./types.js";

export function spawn(agent: string, reason: string): NextAction {
  return { action: "spawn_agent", agent, tasks: [], reason };
}

/** The plan waits at the gate; `step` is said only where the gate's name does not say it (Approval.saysStep). */
export function approval(gate: Approval, reason: string): NextAction {
  return {
    action: "await_approval",
    agent: null,
    tasks: [],
    reason,
    gate: gate.gate,
    ...(gate.saysStep ? { step: gate.step } : {}),
  };
}

/** An agent at work as the plan names it: "the architect agent on design minimal" (no parentheses: the plan's words end up inside others'). */
export const describeRun = (run: { agent: string; design?: string | undefined }) =>
  `the ${run.agent} agent${run.design ? ` on design ${run.design}` : ""}`;

/**
 * Nothing to start while agents work: wait for their results (a notification, or the Agent call's
 * return). One plain sentence, no parentheses: the model repeats it to the person, often inside
 * words of its own ("Agents are at work (1 agent is at work (architect …)): …" was the old one).
 */
export function awaitAgents(tasks: readonly string[], agents: readonly AgentInFlight[]): NextAction {
  const names = [...agents.map(describeRun), ...tasks.map((t) => `the executor of ${t}`)];
  const list =
    names.length <= 5
      ? `${names.slice(0, -1).join(", ")}${names.length > 1 ? " and " : ""}${names.at(-1) ?? ""}`
      : `${names.slice(0, 5).join(", ")} and ${names.length - 5} more`;
  return {
    action: "await_agents",
    agent: null,
    tasks: [],
    reason:
      names.length === 1
        ? `${list} is at work; wait for its result`
        : `${names.length} agents are at work: ${list}; wait for their results`,
  };
}

/** A step's command to run (`dotagent step run STEP`). */
export function runStep(step: Step & { readonly run?: string | undefined }): NextAction {
  return {
    action: "run_step",
    agent: null,
    tasks: [],
    reason: `run ${step.id}'s command (\`${oneLine(step.run ?? "")}\`): \`dotagent step run ${step.id}\``,
    step: step.id,
  };
}

/**
 * A command step (shell, or a check with `run` and no rework) whose valid report did not prove it
 * done: its command failed, which stops the workflow until the person fixes the cause and runs it
 * again; run_step again would only read the recorded result back (once per round).
 */
export function commandFailed(
  step: Step & { readonly run?: string | undefined },
  at: ResumeContext,
): NextAction | undefined {
  const report = step.reports[0]!;
  if (!isValidReport(reportAt(at.reports, report))) return undefined;
  return {
    action: "workflow_failed",
    agent: null,
    tasks: [],
    reason: `${step.id}: \`${step.run}\` failed (${reportNames([report])} says passed: false); fix the cause, then \`dotagent step run ${step.id} --again\``,
  };
}

const oneLine = (text: string) =>
  text.length > 80 || text.includes("\n") ? `${text.replace(/\s+/g, " ").slice(0, 77)}…` : text;

/** Reports as the plan names them: under memory/reports/, without the folder. */
export const reportNames = (paths: readonly string[]) =>
  paths.map((p) => p.replace(`${REPORTS_DIR}/`, "")).join(" or ");

export const isValidAt = (at: ResumeContext, path: string) => isValidReport(reportAt(at.reports, path));

/** The phase agents at work named `agent`. */
export const busyAs = (at: ResumeContext, agent: string) => at.agents.filter((a) => a.agent === agent);

/** "verification.json was not written by a qa agent (…): spawn qa" */
export function unownedReason(at: ResumeContext, path: string): string | undefined {
  const note = unownedNote(reportAt(at.reports, path));
  return note === undefined
    ? undefined
    : `${path.replace(`${REPORTS_DIR}/`, "")} ${note}: spawn ${phaseAgentOf(path, flowOf(at.phase)) ?? "its agent"}`;
}

/** develop's agents know their reports (the skill lists them); a definition's are said. */
export const outputField = (at: ResumeContext, path: string) =>
  at.phase.workflow === undefined ? {} : { output: path };

/** A report that does not prove its step: missing, or why it is not valid. */
export function describeReport(path: string, state: ReportState): string {
  const name = path.replace(/^memory\/reports\//, "");
  switch (state.status) {
    case "missing":
      return `${name} does not exist`;
    case "invalid":
    case "outside":
      return `${name} ${state.reason}`;
    default:
      return `${name} is not valid`;
  }
}

export const job = (key: string, agent: string, output: string, lines: string[] = []): AgentJob => ({
  key,
  agent,
  output,
  lines,
});

/**
 * An agent or check step's one agent writing `next.output`: keyed by the step (two steps may share
 * an agent) and, after a rework, the round (each round's check is a fresh job, not a third session
 * of the first one's). undefined: the plan spawns another agent than the step's.
 */
export function oneAgentMove(
  step: Step & { readonly agent?: string | undefined },
  at: SpawnContext,
  then: "resume" | "verdict" | "complete",
  rework?: string,
): RunStep | undefined {
  const agent = at.next.agent ?? "";
  if (agent !== step.agent) return undefined;
  const latestRound = at.facts.latestRound ?? 0;
  const key = `${agent}.${step.id}${latestRound > 0 ? `.r${latestRound}` : ""}`;
  const output = at.next.output ?? step.reports[0]!;
  return {
    kind: "agents",
    phase: at.phase,
    agent,
    jobs: [{ ...job(key, agent, output), ...(at.facts.keyedByAgent ? { formerKey: agent } : {}) }],
    then,
    outputs: step.reports,
    ...(rework ? { rework } : {}),
  };
}

/** Done when any one of the reports is valid; else what each one lacks. */
export function proveByReports(outputs: readonly string[], reports: ReportSnapshot): Proof {
  const found = outputs.find((path) => isValidReport(reportAt(reports, path)));
  if (found !== undefined) return { done: true, output: found };
  return { done: false, missing: outputs.map((path) => describeReport(path, reportAt(reports, path))).join(" and ") };
}

/** A check or shell step's report decides: valid and `passed: true` proves it done; `hint` follows a failure. */
export function proveByVerdict(path: string, reports: ReportSnapshot, hint = ""): Proof {
  const report = reportAt(reports, path);
  if (!isValidReport(report)) return { done: false, missing: describeReport(path, report) };
  const name = path.replace(/^memory\/reports\//, "");
  if ((report as { data: { passed: boolean } }).data.passed !== true)
    return { done: false, missing: `${name} says passed: false${hint}` };
  return { done: true, output: path };
}
