// What a spawned agent works on, read from the lines of its prompt. The /develop skill, the
// headless runner and the hooks all use one prompt form:
//
//   Feature request: add login
//   Phase: IMPLEMENTATION
//   Task: task-002                      (executor)      Design name: minimal   (architect)
//   …
//   Output file: memory/reports/tasks/task-002.json
//
// so a hook that sees only the prompt (PreToolUse on the Agent tool) or only the agent's
// transcript (SubagentStop) knows the job, and records its start and its result without the
// model. Pure: no file system.
import { ID_PATTERN } from "../schema/json.js";
import { REPORT, taskOutputPath, type Phase } from "./phases.js";
import { stepAgents, type Flow, type Step } from "./flow.js";

/** An agent of the workflow's definition: develop's six, or those a definition names (SPEC §20). */
export type AgentName = string;

export interface AgentJob {
  readonly agent: AgentName;
  readonly phase: Phase;
  /** The report it writes (project-relative). */
  readonly output: string;
  /** executor (a tasks step's agent): the task. */
  readonly task?: string;
  /** architect (a choose step's agent): the design's name. */
  readonly design?: string;
  /** A check step's agent: its report holds a boolean `passed`. */
  readonly check?: boolean;
}

/** Every agent the flow's steps spawn. */
export function flowAgents(flow: Flow): Set<string> {
  return new Set(flow.steps.flatMap(stepAgents));
}

/**
 * The agent's own name from Claude Code's `subagent_type` / `agent_type`: `executor` in a project
 * or user install, `dotagent:executor` from the plugin, when the workflow's flow spawns it
 * (develop's six unless a definition is pinned). Anything else is not dotagent's.
 */
export function dotagentAgentName(type: unknown, flow: Flow): AgentName | undefined {
  if (typeof type !== "string") return undefined;
  const name = /^(?:dotagent:)?([a-z][a-z0-9-]{0,63})$/.exec(type)?.[1];
  return name !== undefined && flowAgents(flow).has(name) ? name : undefined;
}

/** The value of the last `Name: value` line of a prompt (the skill puts the output file last). */
function field(prompt: string, name: string): string | undefined {
  const lines = prompt.split(/\r?\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (line.startsWith(`${name}: `)) return line.slice(name.length + 2).trim();
  }
  return undefined;
}

/** The outputs a job of `agent` in `step` may name (a tasks step: its task's; a choose step's agent: its design's). */
export function expectedOutput(
  step: Step,
  agent: AgentName,
  key: { task?: string | undefined; design?: string | undefined },
): readonly string[] {
  switch (step.kind) {
    case "choose":
      if (agent === step.reducer) return [REPORT.roundtable];
      return key.design ? [`${REPORT.designsDir}/${key.design}.json`] : [];
    case "tasks":
      return key.task ? [taskOutputPath(key.task)] : [];
    default:
      return step.reports;
  }
}

export type JobReading = { ok: true; job: AgentJob } | { ok: false; reason: string };

/**
 * The job in a dotagent agent's prompt, or why the prompt does not name one the way the skill
 * says (so the spawn can be refused with that reason and the model can write it right). The
 * `Phase:` line names the step (develop: the phase) among those of `flow` that spawn `agent`.
 */
export function readAgentJob(agent: AgentName, prompt: string, flow: Flow): JobReading {
  const steps = flow.steps.filter((s) => stepAgents(s).includes(agent));
  const phaseLine = field(prompt, "Phase");
  if (steps.length === 0) return { ok: false, reason: `no step of workflow ${flow.name} runs the ${agent} agent` };
  if (phaseLine === undefined) return { ok: false, reason: `the prompt has no "Phase: ${steps[0]!.id}" line` };
  const step = steps.find((s) => s.id === phaseLine);
  if (step === undefined)
    return {
      ok: false,
      reason: `the ${agent} agent works in ${steps.map((s) => s.id).join(" or ")}, but the prompt says "Phase: ${phaseLine}"`,
    };
  const phase = step.id;
  const needsTask = step.kind === "tasks";
  const needsDesign = step.kind === "choose" && agent === step.agent;
  const task = needsTask ? field(prompt, "Task") : undefined;
  const design = needsDesign ? field(prompt, "Design name") : undefined;
  if (needsTask && (task === undefined || !ID_PATTERN.test(task)))
    return { ok: false, reason: 'the prompt has no "Task: <task id>" line' };
  if (needsDesign && (design === undefined || !ID_PATTERN.test(design)))
    return { ok: false, reason: 'the prompt has no "Design name: <name>" line (letters, digits, . _ -)' };
  const output = field(prompt, "Output file");
  const allowed = expectedOutput(step, agent, { task, design });
  if (output === undefined) return { ok: false, reason: `the prompt has no "Output file: ${allowed[0]}" line` };
  const normal = output.replace(/^\.\//, "");
  if (!allowed.includes(normal))
    return { ok: false, reason: `the ${agent} agent's output file must be ${allowed.join(" or ")}, not ${output}` };
  return {
    ok: true,
    job: {
      agent,
      phase,
      output: normal,
      ...(task ? { task } : {}),
      ...(design ? { design } : {}),
      ...(step.kind === "check" ? { check: true } : {}),
    },
  };
}

/** "executor for task-002", "architect for design robust", "qa": for messages (no parentheses: they are nested in others). */
export function describeJob(job: AgentJob): string {
  if (job.task) return `${job.agent} for ${job.task}`;
  if (job.design) return `${job.agent} for design ${job.design}`;
  return job.agent;
}

/**
 * The prompt with its `Feature request:` line filled in from the workflow's request, when the
 * model left it empty or out (a new session's /develop carries no request): every agent works on
 * the request the person gave. A line the model filled in stays as it is.
 */
export function withRequestLine(prompt: string, request: string | null | undefined): string {
  const oneLine = (request ?? "").replace(/\s+/g, " ").trim();
  if (oneLine === "") return prompt;
  const lines = prompt.split(/\r?\n/);
  const at = lines.findIndex((l) => l === "Feature request:" || l.startsWith("Feature request: "));
  if (at === -1) return [`Feature request: ${oneLine}`, ...lines].join("\n");
  const given = lines[at]!.slice("Feature request:".length).trim();
  // `/develop --workflow fix …`: the model may copy the whole argument; the request is what follows the name.
  if (given !== "" && !/^--workflow[= ]/.test(given)) return prompt;
  lines[at] = `Feature request: ${oneLine}`;
  return lines.join("\n");
}
