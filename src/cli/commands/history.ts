// `dotagent history [show REV]`: the checkpoints of the live workflow (src/ops/history.ts).
import { EXIT, usageError } from "../../core/errors.js";
import { listHistory, showCheckpoint } from "../../ops/history.js";
import { checkRevision } from "../../ops/inputs.js";
import type { Command } from "../context.js";

export const command: Command = {
  summary: "list the checkpoints rollback can return to | history show REV",
  usage: "dotagent history [--json]  |  dotagent history show REV [--json]",
  options: {},
  examples: ["dotagent history                 revision, time, phase and what happened", "dotagent history show 12 --json   the state files held by checkpoint 12"],
  async run(context) {
    const [action, revText, ...rest] = context.args;
    if (rest.length > 0) throw usageError(`unexpected argument "${rest[0]}"`);
    if (action === undefined) {
      const result = await listHistory(context);
      const { checkpoints } = result;
      context.out.result(result, () =>
        checkpoints.length === 0
          ? ["No checkpoints yet."]
          : [`  REV  TIME                  ${"PHASE".padEnd(24)} WHAT`, ...checkpoints.map((c) => `${String(c.rev).padStart(5)}  ${c.at.replace(/\.\d{3}Z$/, "Z")}  ${`${c.phase} ${c.phase_status}`.padEnd(24)} ${c.what}`), "Return to one: dotagent rollback --to REV (or --to PHASE)"],
      );
      return EXIT.ok;
    }
    if (action !== "show") throw usageError(`history takes no argument or \`show REV\`, not "${action}"`);
    if (revText === undefined) throw usageError("history show needs a revision number from `dotagent history`");
    const rev = checkRevision(revText);
    const found = await showCheckpoint(context, rev);
    const phase = found.phase_state as { completed_phases?: Array<{ phase: string }>; user_checkpoints?: Array<{ phase: string }> };
    const tasks = (found.execution as { tasks?: Array<{ id: string; status: string }> } | null)?.tasks ?? [];
    context.out.result(found, () => [
      `Checkpoint ${rev} of ${found.workflow_id}, ${found.at}: ${found.what}`,
      `Phase: ${found.phase} (${found.phase_status})`,
      `Completed: ${(phase.completed_phases ?? []).map((c) => c.phase).join(", ") || "none"}`,
      `Approved: ${(phase.user_checkpoints ?? []).map((c) => c.phase).join(", ") || "none"}`,
      `Tasks: ${tasks.length === 0 ? "none" : tasks.map((t) => `${t.id} ${t.status}`).join(", ")}`,
      `Return to it: dotagent rollback --to ${rev}`,
    ]);
    return EXIT.ok;
  },
};
