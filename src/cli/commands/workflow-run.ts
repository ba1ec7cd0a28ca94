// `dotagent workflow-run resume|forget RUN_ID [--yes]` (SPEC §10, §11 "Claude Code's Workflow runs"):
// its options, usage and help; the work is in the cold half (src/ops/workflow-run.ts), loaded when
// the command runs.
import { EXIT, usageError } from "../../core/errors.js";
import { loadCold } from "../load-cold.js";
import { opContext, type Command } from "../context.js";
import { putDecision } from "../output.js";

export const command: Command = {
  summary: "resume|forget RUN_ID: a Claude Code Workflow run cut off whose kept copy is not trusted here",
  usage: "dotagent workflow-run resume RUN_ID [--yes] | workflow-run forget RUN_ID [--json]",
  options: { yes: { type: "boolean", short: "y" } },
  examples: [
    "dotagent workflow-run resume wf_3216a11b-d0a        seal the run here and print its exact Workflow call (from an agent's shell: the person's question, exit 5)",
    "dotagent workflow-run resume wf_3216a11b-d0a --yes  after the person said yes",
    "dotagent workflow-run forget wf_3216a11b-d0a        record it as ended: never put back or handed again",
  ],
  async run(context) {
    const [action, runId, ...rest] = context.args;
    if ((action !== "resume" && action !== "forget") || runId === undefined || rest.length > 0)
      throw usageError("workflow-run takes resume RUN_ID or forget RUN_ID");
    if (action === "forget" && context.options.yes === true) throw usageError("workflow-run forget takes no --yes");
    const cold = await loadCold();
    const op = opContext(context);
    if (action === "forget") {
      const result = await cold.forgetRun(op, runId);
      context.out.result(result, () => [
        `Workflow run ${result.run_id} recorded as ended (forgotten): it is no longer put back or handed.`,
      ]);
      return EXIT.ok;
    }
    const decision = cold.resumeDecision(op, runId);
    if (decision !== null && op.byModel) {
      // Taking a copy this checkout did not seal is the person's (SPEC §10 "Who decides").
      const { decideAsModel } = await import("../../ops/person-gate.js");
      if ((await decideAsModel(op, decision, context.options.yes === true)) === "no-terminal") {
        return putDecision(context.out, { ok: false, decision }, decision);
      }
    }
    const result = await cold.resumeRun(op, runId);
    context.out.result(result, () => [
      `Workflow run ${result.run_id}${result.sealed_now ? " sealed here" : ""}: ${result.done.length} agents finished, a relaunch runs again: ${result.rerun.length > 0 ? result.rerun.join(", ") : "none"}.`,
      `Resume it with exactly: ${result.call}`,
    ]);
    return EXIT.ok;
  },
};
