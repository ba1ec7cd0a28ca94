import { EXIT, usageError } from "../../core/errors.js";
import { isWorkflowComplete } from "../../core/transitions.js";
import type { PhaseState } from "../../schema/phase.js";
import { checkDesigns } from "../../ops/inputs.js";
import { changePhase, PHASE_ACTIONS } from "../../ops/phase-change.js";
import { opContext, outputOption, stringOption, subcommand, type Command, type CommandContext } from "../context.js";
import { readStatus } from "../../ops/status.js";
import { personNextOf, personReading } from "../person-next.js";
import { nextLine } from "../render-plan.js";
import { resumeOptions } from "../resume-options.js";

/** `--designs minimal,robust`: design names, in order, once each. */
function designsOption(text: string | undefined, action: string): string[] | undefined {
  return text === undefined ? undefined : checkDesigns(text.split(","), action);
}

export const command: Command = {
  summary: "start|complete|fail|approve|rework a phase",
  usage:
    "dotagent phase start|complete|fail|approve|rework [PHASE] [--output PATH] [--error TEXT] [--designs A,B] [--pick NAME [--notes TEXT]] [--json]",
  options: {
    output: { type: "string" },
    error: { type: "string" },
    designs: { type: "string" },
    pick: { type: "string" },
    notes: { type: "string" },
  },
  examples: [
    "dotagent phase start REQUIREMENTS",
    "dotagent phase start ARCHITECTURE --designs minimal,robust   records the designs asked for",
    "dotagent phase approve REQUIREMENTS           the user said yes to demand.json",
    "dotagent phase approve ARCHITECTURE --pick minimal --notes 'keep the old API'   the user's pick: final_design.json written from it",
    "dotagent phase complete REQUIREMENTS          refused unless demand.json is valid and approved",
    "dotagent phase fail VERIFICATION --error 'qa agent crashed'",
    "dotagent phase rework                         failed verification: back to IMPLEMENTATION",
  ],
  async run(context) {
    const [action, phaseArg] = subcommand(context, "phase", PHASE_ACTIONS);
    // The step is checked against the workflow's own steps (develop's five, or its definition's) by changePhase.
    const phase =
      phaseArg !== undefined && !/^[A-Za-z][A-Za-z0-9_-]{0,39}$/.test(phaseArg)
        ? (() => {
            throw usageError(`"${phaseArg.slice(0, 50)}" is not a step name; the steps are in \`dotagent status\``);
          })()
        : phaseArg;
    const output = outputOption(context);
    const designs = designsOption(stringOption(context, "designs"), action);
    const pickName = stringOption(context, "pick");
    if ((pickName !== undefined || stringOption(context, "notes") !== undefined) && action !== "approve")
      throw usageError("--pick and --notes go with `phase approve` of the step where the person picks a design");
    if (pickName !== undefined && !/^[a-z][a-z0-9-]{0,39}$/i.test(pickName))
      throw usageError(`"${pickName.slice(0, 50)}" is not a design name`);
    const pick = pickName === undefined ? undefined : { design: pickName, words: stringOption(context, "notes") };
    const { state: s, result } = await changePhase(opContext(context), {
      action,
      phase,
      output,
      error: stringOption(context, "error"),
      designs,
      pick,
    });
    // An approval is the person's: at a terminal they are told what they type next, as status tells them.
    const next = action === "approve" && !context.out.json ? await personNextLine(context) : [];
    context.out.result(result, () => [changeLine(action, s, result.changed), ...next]);
    return EXIT.ok;
  },
};

/** The change's line; a finished workflow's place is its end, in status's words, not its last step. */
function changeLine(action: string, s: PhaseState, changed: boolean): string {
  if (isWorkflowComplete(s))
    return changed
      ? `${action}: workflow ${s.workflow_id} is complete`
      : `${action}: nothing to change (workflow ${s.workflow_id} is complete)`;
  return changed
    ? `${action}: ${s.workflow_id} is now at ${s.current_phase} (${s.phase_status})`
    : `${action}: nothing to change (${s.current_phase} ${s.phase_status})`;
}

/** status's Next line for a person at a terminal (person-next.ts; the model's line where theirs has none); none for the model or a program. */
async function personNextLine(context: CommandContext): Promise<string[]> {
  const driver = personReading(context);
  if (driver === null) return [];
  const { plan, approvedNeeds, flow } = await readStatus(opContext(context), resumeOptions(context).staleAfterMs);
  return [personNextOf(plan.next, approvedNeeds, driver, flow) ?? nextLine(plan, context.out.color, flow)];
}
