// A person's free-text feedback at a gate of `dotagent run`, turned into agent jobs: at the
// requirements the pm revises demand.json; at the design pick every architect revises its design
// (then the roundtable compares them again, with the same feedback). The prompt is the /develop
// form (agent-job.ts) with the feedback after `Phase:`'s lines, as the skill adds it, and a
// `Revise:` line naming the file: the agents' idempotence ("already done") gives way to it.
// A workflow definition's gates (SPEC §20) work the same way with the step's own agent: an agent
// step's agent revises its report, a choose step's agent each design.
import { DEFAULT_DESIGNS, REPORT } from "./phases.js";
import type { Step } from "./flow.js";
import type { AgentJob } from "./run-step.js";

/** The step whose gate the feedback is for: develop's REQUIREMENTS or ARCHITECTURE, or a definition's step id. */
export type FeedbackGate = string;

/** Feedback on one line: a prompt line must stay one line. */
export function feedbackLine(text: string): string {
  return `Feedback from the person: ${text.replace(/\s+/g, " ").trim()}`;
}

const angleOf = (name: string) => DEFAULT_DESIGNS.find((d) => d.name === name)?.angle ?? `the ${name} approach`;

/**
 * The sessions that act on feedback round `round` (1, 2, …) at `gate`, the step `step` (develop's
 * when absent: REQUIREMENTS the pm, ARCHITECTURE the architects); `designs` for a choose step.
 * `output`: the report the person was shown (an agent step with several reports).
 */
export function revisionJobs(gate: FeedbackGate, round: number, text: string, designs: readonly string[] = [], step?: Step, output?: string): AgentJob[] {
  if (step !== undefined && step.kind === "choose") {
    const angle = (name: string) => step.designs.find((d) => d.name === name)?.angle ?? angleOf(name);
    return designs.map((name) => {
      const file = `${REPORT.designsDir}/${name}.json`;
      return { key: `${step.agent}.${name}.revise-${round}`, agent: step.agent, output: file, lines: [`Design name: ${name}`, `Angle: ${angle(name)}`, `Revise: ${file}`, feedbackLine(text)] };
    });
  }
  if (step !== undefined && step.kind === "agent") {
    const file = output ?? step.reports[0]!;
    return [{ key: `${step.agent}.${step.id}.revise-${round}`, agent: step.agent, output: file, lines: [`Revise: ${file}`, feedbackLine(text)] }];
  }
  if (gate === "REQUIREMENTS") {
    return [{ key: `pm.revise-${round}`, agent: "pm", output: REPORT.demand, lines: [`Revise: ${REPORT.demand}`, feedbackLine(text)] }];
  }
  return designs.map((name) => {
    const file = `${REPORT.designsDir}/${name}.json`;
    return { key: `architect.${name}.revise-${round}`, agent: "architect", output: file, lines: [`Design name: ${name}`, `Angle: ${angleOf(name)}`, `Revise: ${file}`, feedbackLine(text)] };
  });
}

/** The roundtable after revised designs: its usual job, told why the designs changed. */
export function withFeedback(job: AgentJob, text: string): AgentJob {
  return { ...job, lines: [...job.lines, feedbackLine(text)] };
}
