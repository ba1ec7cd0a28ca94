// `dotagent rollback --to PHASE|REV`: back to the start of an earlier phase, or to a checkpoint.
// A decision (exit 5 without a terminal, `--yes` confirms); the reports that go are archived.
import { EXIT, usageError } from "../../core/errors.js";
import { rollBackWorkflow } from "../../ops/rollback.js";
import { opContext, stringOption, type Command } from "../context.js";
import { count } from "../../core/words.js";
import { decider } from "../decider.js";
import { putDecision } from "../output.js";

export const command: Command = {
  summary: "go back to the start of an earlier phase or to a checkpoint; what goes is archived",
  usage: "dotagent rollback --to PHASE|REV [--yes] [--json]",
  options: { to: { type: "string" }, yes: { type: "boolean", short: "y" } },
  examples: [
    "dotagent rollback --to ARCHITECTURE        back to the design: designs, tasks and later reports move into an archive",
    "dotagent rollback --to 12 --yes            back to checkpoint 12 of `dotagent history`",
  ],
  async run(context) {
    const to = stringOption(context, "to");
    if (to === undefined || context.args.length > 0)
      throw usageError("rollback needs --to PHASE or --to REV (from `dotagent history`), and nothing else");
    const { result, describe } = await rollBackWorkflow(
      opContext(context),
      to,
      decider(context, context.options.yes === true),
    );
    if (!result.rolled_back) {
      const { decision } = result;
      return putDecision(context.out, result, decision);
    }
    context.out.result(result, () => [
      `Rolled ${result.workflow_id} back to ${describe}.`,
      result.moves.length > 0
        ? `${count(result.moves.length, "report file")} moved into ${result.archive} (\`dotagent archive list\`).`
        : "No report had to move.",
      // Git is not rolled back: the merges of the tasks taken back stay, and the line says how to undo them.
      ...(result.git_undo === null
        ? []
        : [
            `${count(result.merges_kept.length, "task merge")} ${result.merges_kept.length === 1 ? "stays" : "stay"} on ${[...new Set(result.merges_kept.map((m) => m.into))].join(", ")}; to undo ${result.merges_kept.length === 1 ? "it" : "them"}: ${result.git_undo}`,
          ]),
      "Next: dotagent resume",
    ]);
    return EXIT.ok;
  },
};
