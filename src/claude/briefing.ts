// The SessionStart briefing: a short, factual summary of an open workflow that Claude Code puts
// into the new session's context, so after `claude -r` the agent knows at once what was cut off.
import type { ResumePlan } from "../core/plan-resume.js";
import { formatProblem } from "../core/validate.js";
import type { WorktreeView } from "../core/worktrees.js";
import type { IsolationRecord } from "../schema/execution.js";
import { nextContext } from "./next-line.js";

export const BRIEFING_LIMIT = 2000;
/** The room the facts above a handed question keep at least. */
const MIN_FACTS = 300;

/**
 * How the briefing hands a pending question: asked (recorded, so the person's reply answers it) with
 * its `dotagent next:` line. The person's reply may stand on either side of the briefing: Codex and
 * `claude -p -r` put it after, the interactive Claude Code puts a resumed session's first prompt
 * BEFORE it (test/claude/NOTES.md), so a "yes" typed right after `claude -r`, as the person's line
 * says, must count; read as "the message that follows", it was asked again.
 */
const ASK_FIRST =
  "A person must decide, and dotagent recorded the question as asked: their next reply answers it. If the person's newest message, just before or after this text, already says yes or no to it (a session that starts or resumes with a prompt brings the reply with it), run decision.yes or decision.no (`dotagent` meaning the helper) and act on its next. Otherwise show them decision.question and decision.answers from the line below, word for word, and end your turn; run nothing first (`resume --json` would only exit 5 with the same question); on their yes or no, run decision.yes or decision.no.";

/**
 * `helper` is the hook's own script path: the briefing shows the exact command line that goes
 * on, so a person who types "continue" instead of /develop (which the model cannot invoke) gets
 * a model that can resume the loop itself (install's permission rule allows that line).
 */
export function briefingFor(
  plan: ResumePlan,
  source: string | undefined,
  helper?: string,
  trees?: { isolation: IsolationRecord | null; worktrees: readonly WorktreeView[]; tasksStep?: string | undefined },
  request?: string | null,
  /** The plan's decision was recorded as asked (person-gate.ts): the briefing hands it as the model's next step. */
  asked = false,
): string | null {
  if (plan.situation === "none" || plan.situation === "complete") return null;
  // A question pending after a crash is the model's next step: handed whole, so it asks first. Kept
  // whole when the briefing is long: the facts above it are cut instead.
  // (Corrupt state keeps its own words: /develop shows the choice.)
  const handed =
    asked && plan.decision !== null && plan.situation !== "corrupt" ? `${ASK_FIRST}\n${nextContext([], plan)}` : "";
  // One too long to hand whole (a question naming very long paths) is named as before: the model's `resume --json` gives it.
  const ask = handed !== "" && handed.length <= BRIEFING_LIMIT - MIN_FACTS ? [handed] : [];
  const lines: string[] = [];
  if (plan.situation === "corrupt") {
    lines.push(
      `dotagent: the workflow state in memory/state is corrupt${plan.workflow_id ? ` (workflow ${plan.workflow_id})` : ""}.`,
    );
    for (const e of plan.errors.slice(0, 3)) lines.push(`- ${formatProblem(e)}`);
    if (plan.errors.length > 3) lines.push(`- … ${plan.errors.length - 3} more (\`dotagent validate\`)`);
    lines.push(
      `Do not edit the state by hand. Run /develop to see the choice (${plan.next.action === "confirm_rollback" ? `go back to checkpoint ${plan.next.rev}, the newest state dotagent kept, or ` : ""}archive and start fresh, or fix it).`,
    );
  } else {
    lines.push(
      `dotagent: workflow ${plan.workflow_id} is open${source === "resume" ? " (this session was resumed)" : ""}.`,
    );
    // The person's request, one line (the agents' prompts carry it: "Feature request: …").
    const asked = (request ?? "").replace(/\s+/g, " ").trim();
    if (asked !== "") lines.push(`Feature request: ${asked.length > 300 ? `${asked.slice(0, 300)}…` : asked}`);
    lines.push(
      `Phase: ${plan.phase} (${plan.phase_status}). Completed: ${plan.completed_phases.length > 0 ? plan.completed_phases.join(", ") : "none"}.`,
    );
    if (plan.last_activity) lines.push(`Last activity: ${plan.last_activity} (${plan.last_activity_ago}).`);
    const tasks =
      plan.next.tasks.length > 0
        ? ` (${plan.next.tasks.slice(0, 10).join(", ")}${plan.next.tasks.length > 10 ? ", …" : ""})`
        : "";
    lines.push(
      `Next action: ${plan.next.action}${plan.next.agent ? ` ${plan.next.agent}` : ""}${tasks}: ${plan.next.reason}.`,
    );
    if (plan.in_flight.length > 0)
      lines.push(
        `In flight (a live session runs them; do not start them again): ${plan.in_flight.slice(0, 10).join(", ")}${plan.in_flight.length > 10 ? ", …" : ""}.`,
      );
    const open = (trees?.worktrees ?? []).filter((w) => w.status !== "complete");
    if (trees?.isolation?.mode === "worktree" && open.length > 0) {
      const shown = open
        .slice(0, 8)
        .map(
          (w) =>
            `${w.task} ${w.path} (${w.status}${w.merge === "conflict" ? `, conflict in ${(w.files ?? []).slice(0, 3).join(", ")}` : ""})`,
        );
      lines.push(
        `Task worktrees (dotagent makes them and merges each into ${trees.isolation.branch} when its task completes; never edit or remove them by hand): ${shown.join("; ")}${open.length > 8 ? "; …" : ""}.`,
      );
    } else if (trees?.isolation?.mode === "shared" && plan.phase !== null && plan.phase === trees.tasksStep)
      lines.push(`Tasks share one checkout this round (no worktrees): ${trees.isolation.reason ?? "shared"}.`);
    if (plan.repairs.length > 0)
      lines.push(
        `On resume dotagent will repair: ${plan.repairs
          .slice(0, 3)
          .map((r) => r.message)
          .join("; ")}${plan.repairs.length > 3 ? "; …" : ""}.`,
      );
    if (plan.decision && ask.length === 0) lines.push(`A person must decide: ${plan.decision.question}`);
    const resume = helper ? `\`node "${helper}" resume --json\`` : "`dotagent resume --json`";
    if (ask.length === 0)
      lines.push(
        `Continue: the person types /develop, or you run ${resume} and follow its next; never redo completed phases or tasks.`,
      );
    else lines.push("Never redo completed phases or tasks.");
  }
  return fitted(lines.join("\n"), ask.join("\n"));
}

/** The briefing within BRIEFING_LIMIT: `kept` (the question handed, at most BRIEFING_LIMIT - MIN_FACTS) whole after `text`, which is cut first. */
function fitted(text: string, kept: string): string {
  const whole = kept === "" ? text : `${text}\n${kept}`;
  if (whole.length <= BRIEFING_LIMIT) return whole;
  const room = BRIEFING_LIMIT - (kept === "" ? 0 : kept.length + 1);
  return kept === "" ? `${text.slice(0, room - 1)}…` : `${text.slice(0, room - 1)}…\n${kept}`;
}
