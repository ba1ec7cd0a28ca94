// `dotagent history [show REV]`: the checkpoints of the live workflow (src/ops/history.ts).
import { EXIT, usageError } from "../../core/errors.js";
import { listHistory, showCheckpoint } from "../../ops/history.js";
import { checkRevision } from "../../ops/inputs.js";
import type { Command } from "../context.js";
import { formatTime } from "../time.js";
import { outputWidth, table } from "../table.js";
import { subcommandGuess } from "../../core/suggest.js";

export const command: Command = {
  summary: "list the checkpoints rollback can return to | history show REV",
  usage: "dotagent history [--json]  |  dotagent history show REV [--json]",
  options: {},
  examples: [
    "dotagent history                 revision, time, phase and what happened",
    "dotagent history show 12 --json   the state files held by checkpoint 12",
  ],
  async run(context) {
    const [action, revText, ...rest] = context.args;
    if (rest.length > 0) throw usageError(`unexpected argument "${rest[0]}"`);
    if (action === undefined) {
      const result = await listHistory(context);
      const { checkpoints } = result;
      const unreadable =
        result.listed_for === "newest_checkpoint"
          ? [
              `memory/state/phase.json is corrupt: the checkpoints of workflow ${result.workflow_id} (that of the newest checkpoint) are listed.`,
            ]
          : [];
      context.out.result(result, () =>
        checkpoints.length === 0
          ? ["No checkpoints yet."]
          : [
              ...unreadable,
              // REV, time, the phase it was at, what happened: 80 columns hold a task id of 30.
              ...table(
                ["REV", "TIME", "AT PHASE", "WHAT"],
                checkpoints.map((c) => [String(c.rev), formatTime(c.at), c.phase, c.what]),
                outputWidth(),
              ),
              "Return to one: dotagent rollback --to REV (or --to PHASE)",
            ],
      );
      return EXIT.ok;
    }
    if (action !== "show")
      throw usageError(
        `history takes no argument or \`show REV\`, not "${action}"${subcommandGuess("history", action, ["show"])}`,
      );
    if (revText === undefined) throw usageError("history show needs a revision number from `dotagent history`");
    const rev = checkRevision(revText);
    const found = await showCheckpoint(context, rev);
    const phase = found.phase_state as {
      completed_phases?: Array<{ phase: string }>;
      user_checkpoints?: Array<{ phase: string }>;
    };
    const tasks = (found.execution as { tasks?: Array<{ id: string; status: string }> } | null)?.tasks ?? [];
    context.out.result(found, () => [
      `Checkpoint ${rev} of ${found.workflow_id}, ${formatTime(found.at)}: ${found.what}`,
      `Phase: ${found.phase} (${found.phase_status})`,
      `Completed: ${(phase.completed_phases ?? []).map((c) => c.phase).join(", ") || "none"}`,
      `Approved: ${(phase.user_checkpoints ?? []).map((c) => c.phase).join(", ") || "none"}`,
      `Tasks: ${tasks.length === 0 ? "none" : tasks.map((t) => `${t.id} ${t.status}`).join(", ")}`,
      `Return to it: dotagent rollback --to ${rev}`,
    ]);
    return EXIT.ok;
  },
};
