// A person's free-text feedback at a gate of `dotagent run`, turned into agent jobs: at the
// requirements the pm revises demand.json; at the design pick every architect revises its design
// (then the roundtable compares them again, with the same feedback). The prompt is the /develop
// form (agent-job.ts) with the feedback after `Phase:`'s lines, as the skill adds it, and a
// `Revise:` line naming the file: the agents' idempotence ("already done") gives way to it.
import { DEFAULT_DESIGNS, REPORT } from "./phases.js";
import type { AgentJob } from "./run-step.js";

export type FeedbackGate = "REQUIREMENTS" | "ARCHITECTURE";

/** Feedback on one line: a prompt line must stay one line. */
export function feedbackLine(text: string): string {
  return `Feedback from the person: ${text.replace(/\s+/g, " ").trim()}`;
}

const angleOf = (name: string) => DEFAULT_DESIGNS.find((d) => d.name === name)?.angle ?? `the ${name} approach`;

/** The sessions that act on feedback round `round` (1, 2, …) at `gate`; `designs` for ARCHITECTURE. */
export function revisionJobs(gate: FeedbackGate, round: number, text: string, designs: readonly string[] = []): AgentJob[] {
  if (gate === "REQUIREMENTS") {
    return [{ key: `pm.revise-${round}`, agent: "pm", output: REPORT.demand, lines: [`Revise: ${REPORT.demand}`, feedbackLine(text)] }];
  }
  return designs.map((name) => {
    const output = `${REPORT.designsDir}/${name}.json`;
    return { key: `architect.${name}.revise-${round}`, agent: "architect", output, lines: [`Design name: ${name}`, `Angle: ${angleOf(name)}`, `Revise: ${output}`, feedbackLine(text)] };
  });
}

/** The roundtable after revised designs: its usual job, told why the designs changed. */
export function withFeedback(job: AgentJob, text: string): AgentJob {
  return { ...job, lines: [...job.lines, feedbackLine(text)] };
}
