import { EXIT, usageError } from "../../core/errors.js";
import { isPhase, PHASES } from "../../core/phases.js";
import { checkDesigns } from "../../ops/inputs.js";
import { changePhase, PHASE_ACTIONS } from "../../ops/phase-change.js";
import { opContext, outputOption, stringOption, subcommand, type Command } from "../context.js";

/** `--designs minimal,robust`: design names, in order, once each. */
function designsOption(text: string | undefined, action: string): string[] | undefined {
  return text === undefined ? undefined : checkDesigns(text.split(","), action);
}

export const command: Command = {
  summary: "start|complete|fail|approve|rework a phase",
  usage: "dotagent phase start|complete|fail|approve|rework [PHASE] [--output PATH] [--error TEXT] [--designs A,B] [--json]",
  options: { output: { type: "string" }, error: { type: "string" }, designs: { type: "string" } },
  examples: [
    "dotagent phase start REQUIREMENTS",
    "dotagent phase start ARCHITECTURE --designs minimal,robust   records the designs asked for",
    "dotagent phase approve REQUIREMENTS           the user said yes to demand.json",
    "dotagent phase complete REQUIREMENTS          refused unless demand.json is valid and approved",
    "dotagent phase fail VERIFICATION --error 'qa agent crashed'",
    "dotagent phase rework                         failed verification: back to IMPLEMENTATION",
  ],
  async run(context) {
    const [action, phaseArg] = subcommand(context, "phase", PHASE_ACTIONS);
    const phase = phaseArg?.toUpperCase();
    if (phase !== undefined && !isPhase(phase)) throw usageError(`"${phaseArg}" is not a phase; phases are ${PHASES.join(", ")}`);
    const output = outputOption(context);
    const designs = designsOption(stringOption(context, "designs"), action);
    const { state: s, result } = await changePhase(opContext(context), { action, phase, output, error: stringOption(context, "error"), designs });
    context.out.result(result, () => [result.changed ? `${action}: ${s.workflow_id} is now at ${s.current_phase} (${s.phase_status})` : `${action}: nothing to change (${s.current_phase} ${s.phase_status})`]);
    return EXIT.ok;
  },
};
