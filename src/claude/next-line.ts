// The `dotagent next:` line: the next step as JSON, the shape every hook hands the model (an
// agent's end, the person's reply, the SessionStart briefing with a question pending). A next
// step that is the person's question carries it (`decision`, with the words that count as an
// answer), so the model relays it at once instead of running a command that exits 5 to learn it.
import { YES_OR_NO } from "../core/authority.js";
import type { Decision, ResumePlan } from "../core/plan-resume.js";

export type NextPlan = Pick<ResumePlan, "phase" | "phase_status" | "next" | "in_flight" | "agents_in_flight"> & {
  decision?: Decision | null | undefined;
};

/** What was recorded (a line, when anything was), then `dotagent next: {…}`. */
export function nextContext(recorded: readonly string[], plan: NextPlan): string {
  const decision = plan.decision ? { decision: { ...plan.decision, answers: YES_OR_NO } } : {};
  const next = {
    phase: plan.phase,
    phase_status: plan.phase_status,
    next: plan.next,
    in_flight: plan.in_flight,
    agents_in_flight: plan.agents_in_flight,
    ...decision,
  };
  return `${recorded.length > 0 ? `dotagent recorded: ${recorded.join("; ")}.\n` : ""}dotagent next: ${JSON.stringify(next)}`;
}
