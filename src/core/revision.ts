// A person's free-text feedback at a gate of `dotagent run`, turned into agent jobs by the gate's
// step: an agent step's agent revises its report (develop: the pm, demand.json); at a choose
// step's pick every design's writer revises its design (then the reducer compares them again,
// with the same feedback). The prompt is the /develop form (agent-job.ts) with the feedback after
// `Phase:`'s lines, as the skill adds it, and a `Revise:` line naming the file: the agents'
// idempotence ("already done") gives way to it.
import { DEFAULT_DESIGNS, REPORT } from "./phases.js";
import type { Step } from "./flow.js";
import type { AgentJob } from "./run-step.js";

/** The step whose gate the feedback is for (its id). */
export type FeedbackGate = string;

/** Feedback on one line: a prompt line must stay one line. */
export function feedbackLine(text: string): string {
  return `Feedback from the person: ${text.replace(/\s+/g, " ").trim()}`;
}

const angleOf = (name: string) => DEFAULT_DESIGNS.find((d) => d.name === name)?.angle ?? `the ${name} approach`;

/**
 * The sessions that act on feedback round `round` (1, 2, …) at the gate of `step`: an agent step's
 * agent revises its report (`output`: the one the person was shown), a choose step's agent each of
 * `designs`. `keyedByAgent`: a workflow whose earlier dotagent keyed an agent step's revision by
 * the agent alone (`formerKey`, as run-step.ts says).
 */
export function revisionJobs(
  step: Step,
  round: number,
  text: string,
  designs: readonly string[] = [],
  output?: string,
  keyedByAgent = false,
): AgentJob[] {
  if (step.kind === "choose") {
    const angle = (name: string) => step.designs.find((d) => d.name === name)?.angle ?? angleOf(name);
    return designs.map((name) => {
      const file = `${REPORT.designsDir}/${name}.json`;
      return {
        key: `${step.agent}.${name}.revise-${round}`,
        agent: step.agent,
        output: file,
        lines: [`Design name: ${name}`, `Angle: ${angle(name)}`, `Revise: ${file}`, feedbackLine(text)],
      };
    });
  }
  if (step.kind === "agent") {
    const file = output ?? step.reports[0]!;
    return [
      {
        key: `${step.agent}.${step.id}.revise-${round}`,
        agent: step.agent,
        output: file,
        lines: [`Revise: ${file}`, feedbackLine(text)],
        ...(keyedByAgent ? { formerKey: `${step.agent}.revise-${round}` } : {}),
      },
    ];
  }
  return [];
}

/** The roundtable after revised designs: its usual job, told why the designs changed. */
export function withFeedback(job: AgentJob, text: string): AgentJob {
  return { ...job, lines: [...job.lines, feedbackLine(text)] };
}
