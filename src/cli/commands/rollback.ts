// `dotagent rollback --to PHASE|REV`: back to the start of an earlier phase, or to a checkpoint.
// A decision (exit 5 without a terminal, `--yes` confirms); the reports that go are archived.
import { DotagentError, EXIT, usageError } from "../../core/errors.js";
import { loadSnapshot } from "../../store/session.js";
import { prepareRollback, rollBack } from "../../store/roll-back.js";
import { loadCold } from "../load-cold.js";
import { locked, stringOption, type Command } from "../context.js";

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
    if (to === undefined || context.args.length > 0) throw usageError("rollback needs --to PHASE or --to REV (from `dotagent history`), and nothing else");
    const now = context.now();
    const preview = prepareRollback(context.paths, await loadSnapshot(context.paths), to, now);
    const { plan } = preview;
    const decision = {
      question: `Roll workflow ${preview.journal.workflow_id} back from ${plan.from.phase} (${plan.from.phase_status}) to ${plan.describe}? ${plan.moves.length} report file(s) move into an archive (nothing is deleted).`,
      default: false,
      yes: `dotagent rollback --to ${to} --yes`,
      no: "dotagent resume",
    };
    const cold = await loadCold();
    const answer = await cold.askDecision(decision, context.options.yes === true);
    if (answer === "no-terminal") {
      context.out.result({ rolled_back: false, from: plan.from, to: plan.to, moves: plan.moves, archive: null, decision }, () => [decision.question, `  yes: ${decision.yes}`, `  no:  ${decision.no}`]);
      return EXIT.decide;
    }
    if (!answer) throw new DotagentError("rollback_declined", "nothing changed; continue with `dotagent resume`", EXIT.refused);
    const done = await locked(context, "rollback", async () => {
      // Planned again under the lock: the state may have moved since the question.
      const prepared = prepareRollback(context.paths, await loadSnapshot(context.paths), to, now);
      return { prepared, archive: await rollBack(context.paths, prepared, cold.archive, now) };
    });
    const { plan: p, journal } = done.prepared;
    context.out.result(
      { rolled_back: true, workflow_id: journal.workflow_id, from: p.from, to: p.to, revision: journal.phase.revision ?? null, moves: p.moves, archive: done.archive, decision: null },
      () => [
        `Rolled ${journal.workflow_id} back to ${p.describe}.`,
        p.moves.length > 0 ? `${p.moves.length} report file(s) moved into ${done.archive} (\`dotagent archive list\`).` : "No report had to move.",
        "Next: dotagent resume",
      ],
    );
    return EXIT.ok;
  },
};
