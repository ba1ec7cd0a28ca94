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
import { PHASE_TABLE, REPORT, isPhase, taskOutputPath, type Phase } from "./phases.js";

/** The agents of the phase table (dotagent's six agent files). */
export const AGENT_NAMES = ["pm", "architect", "roundtable", "executor", "qa", "reflector"] as const;
export type AgentName = (typeof AGENT_NAMES)[number];

/** The phase each agent works in. */
export const AGENT_PHASE: Readonly<Record<AgentName, Phase>> = {
  pm: "REQUIREMENTS",
  architect: "ARCHITECTURE",
  roundtable: "ARCHITECTURE",
  executor: "IMPLEMENTATION",
  qa: "VERIFICATION",
  reflector: "REFLECTION",
};

export interface AgentJob {
  readonly agent: AgentName;
  readonly phase: Phase;
  /** The report it writes (project-relative). */
  readonly output: string;
  /** executor: the task. */
  readonly task?: string;
  /** architect: the design's name. */
  readonly design?: string;
}

/**
 * The agent's own name from Claude Code's `subagent_type` / `agent_type`: `executor` in a project
 * or user install, `dotagent:executor` from the plugin. Anything else is not dotagent's.
 */
export function dotagentAgentName(type: unknown): AgentName | undefined {
  if (typeof type !== "string") return undefined;
  const name = /^(?:dotagent:)?([a-z]+)$/.exec(type)?.[1];
  return (AGENT_NAMES as readonly string[]).includes(name ?? "") ? (name as AgentName) : undefined;
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

/** The output a job of this agent must name (executor: its task's; architect: its design's). */
export function expectedOutput(agent: AgentName, key: { task?: string | undefined; design?: string | undefined }): readonly string[] {
  switch (agent) {
    case "pm":
      return [REPORT.demand];
    case "architect":
      return key.design ? [`${REPORT.designsDir}/${key.design}.json`] : [];
    case "roundtable":
      return [REPORT.roundtable];
    case "executor":
      return key.task ? [taskOutputPath(key.task)] : [];
    case "qa":
      return [REPORT.verification];
    case "reflector":
      return PHASE_TABLE.REFLECTION.outputs;
  }
}

export type JobReading = { ok: true; job: AgentJob } | { ok: false; reason: string };

/**
 * The job in a dotagent agent's prompt, or why the prompt does not name one the way the skill
 * says (so the spawn can be refused with that reason and the model can write it right).
 */
export function readAgentJob(agent: AgentName, prompt: string): JobReading {
  const phaseLine = field(prompt, "Phase");
  const phase = AGENT_PHASE[agent];
  if (phaseLine === undefined) return { ok: false, reason: `the prompt has no "Phase: ${phase}" line` };
  if (!isPhase(phaseLine) || phaseLine !== phase) return { ok: false, reason: `the ${agent} agent works in ${phase}, but the prompt says "Phase: ${phaseLine}"` };
  const task = agent === "executor" ? field(prompt, "Task") : undefined;
  const design = agent === "architect" ? field(prompt, "Design name") : undefined;
  if (agent === "executor" && (task === undefined || !ID_PATTERN.test(task))) return { ok: false, reason: 'the prompt has no "Task: <task id>" line' };
  if (agent === "architect" && (design === undefined || !ID_PATTERN.test(design))) return { ok: false, reason: 'the prompt has no "Design name: <name>" line (letters, digits, . _ -)' };
  const output = field(prompt, "Output file");
  const allowed = expectedOutput(agent, { task, design });
  if (output === undefined) return { ok: false, reason: `the prompt has no "Output file: ${allowed[0]}" line` };
  const normal = output.replace(/^\.\//, "");
  if (!allowed.includes(normal)) return { ok: false, reason: `the ${agent} agent's output file must be ${allowed.join(" or ")}, not ${output}` };
  return { ok: true, job: { agent, phase, output: normal, ...(task ? { task } : {}), ...(design ? { design } : {}) } };
}

/** "executor for task-002", "architect (design robust)", "qa": for messages. */
export function describeJob(job: AgentJob): string {
  if (job.task) return `executor for ${job.task}`;
  if (job.design) return `architect (design ${job.design})`;
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
  if (lines[at]!.slice("Feature request:".length).trim() !== "") return prompt;
  lines[at] = `Feature request: ${oneLine}`;
  return lines.join("\n");
}
