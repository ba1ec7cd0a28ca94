import { EXIT, usageError } from "../../core/errors.js";
import { runStep } from "../../ops/step-run.js";
import { escapeControls } from "../../core/words.js";
import { opContext, type Command } from "../context.js";
import { decider } from "../decider.js";
import { putDecision } from "../output.js";

export const command: Command = {
  summary: "step run STEP: run the command of the current shell or check step and record its result",
  usage: "dotagent step run STEP [--again] [--yes] [--json]",
  options: { again: { type: "boolean" }, yes: { type: "boolean", short: "y" } },
  examples: [
    "dotagent step run TEST            run TEST's command (asks first), record memory/reports/steps/TEST.json",
    "dotagent step run TEST --again    run a failed command again",
  ],
  async run(context) {
    const [action, id, ...rest] = context.args;
    if (action !== "run" || id === undefined || rest.length > 0)
      throw usageError("step needs `run STEP`; see `dotagent step --help`");
    const human = !context.options.json;
    const outcome = await runStep(opContext(context), id, {
      again: context.options.again === true,
      decide: decider(context, context.options.yes === true),
      ...(human ? { onOutput: (chunk: Buffer) => process.stderr.write(chunk) } : {}),
    });
    if (outcome.kind === "decision") {
      const { decision, next } = outcome;
      return putDecision(context.out, { step: id, decision, next }, decision);
    }
    if (outcome.kind === "stopped") throw new Error("step run was stopped without a signal"); // no signal is given here
    const r = outcome.result;
    context.out.result(r, () => [
      r.ran
        ? `${r.step}: ${r.passed ? "passed" : r.timed_out ? "timed out" : `failed (exit ${r.exit_code ?? "none"})`}${r.attempts > 1 ? ` after ${r.attempts} attempts` : ""}; recorded in ${r.report}`
        : `${r.step} already ran (${r.report}): ${r.passed ? "passed" : "failed"}`,
      `Next: ${escapeControls(r.next.reason)}`,
    ]);
    return r.passed ? EXIT.ok : EXIT.refused;
  },
};
