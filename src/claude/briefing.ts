// The SessionStart briefing: a short, factual summary of an open workflow that Claude Code puts
// into the new session's context, so after `claude -r` the agent knows at once what was cut off.
import type { ResumePlan } from "../core/plan-resume.js";
import { formatProblem } from "../core/validate.js";
import type { WorktreeView } from "../core/worktrees.js";
import type { IsolationRecord } from "../schema/execution.js";

export const BRIEFING_LIMIT = 2000;

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
): string | null {
  if (plan.situation === "none" || plan.situation === "complete") return null;
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
    if (plan.decision) lines.push(`A person must decide: ${plan.decision.question}`);
    const resume = helper ? `\`node "${helper}" resume --json\`` : "`dotagent resume --json`";
    lines.push(
      `Continue: the person types /develop, or you run ${resume} and follow its next; never redo completed phases or tasks.`,
    );
  }
  const text = lines.join("\n");
  return text.length > BRIEFING_LIMIT ? `${text.slice(0, BRIEFING_LIMIT - 1)}…` : text;
}
