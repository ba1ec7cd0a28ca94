import { DotagentError, EXIT, usageError } from "../../core/errors.js";
import { isPhase, PHASES } from "../../core/phases.js";
import { transition, type PhaseEvent } from "../../core/transitions.js";
import { ID_PATTERN } from "../../schema/json.js";
import { loadSnapshot } from "../../store/session.js";
import { StateWriter } from "../../store/state-writer.js";
import { requireWorkflow } from "../state-guard.js";
import { locked, outputOption, stringOption, subcommand, type Command } from "../context.js";

const ACTIONS = ["start", "complete", "fail", "approve", "rework"] as const;

/** `--designs minimal,robust`: design names (ids: they become designs/<name>.json), in order, once each. */
function designsOption(text: string | undefined, action: string): string[] | undefined {
  if (text === undefined) return undefined;
  if (action !== "start") throw usageError("--designs goes with `phase start ARCHITECTURE`");
  const names = [...new Set(text.split(",").map((s) => s.trim()).filter((s) => s !== ""))];
  if (names.length === 0) throw usageError("--designs needs at least one design name, like --designs minimal,robust");
  const bad = names.find((n) => !ID_PATTERN.test(n));
  if (bad !== undefined) throw usageError(`"${bad}" is not a valid design name: letters, digits, '.', '_' or '-', not starting with '.' or '-'`);
  return names;
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
    const [action, phaseArg] = subcommand(context, "phase", ACTIONS);
    const phase = phaseArg?.toUpperCase();
    if (phase !== undefined && !isPhase(phase)) throw usageError(`"${phaseArg}" is not a phase; phases are ${PHASES.join(", ")}`);
    const output = outputOption(context);
    const designs = designsOption(stringOption(context, "designs"), action);
    const event = { type: action, phase, output, error: stringOption(context, "error"), designs } as PhaseEvent;
    const now = context.now();
    const result = await locked(context, `phase ${action}`, async () => {
      const snapshot = await loadSnapshot(context.paths, output === undefined ? [] : [{ path: output, mode: "parse" }]);
      const state = requireWorkflow(snapshot, now);
      const execution = snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined;
      const outcome = transition(state, event, { reports: snapshot.reports, execution, now });
      if (!outcome.ok) throw new DotagentError(outcome.code, outcome.message, EXIT.refused);
      if (outcome.state === state) return { state, changed: false };
      const writer = new StateWriter(context.paths, snapshot, now);
      const journal = outcome.effects.length > 0 ? { type: event.type, started_at: now.toISOString(), round: outcome.state.rework?.round, moves: outcome.effects.map(({ from, to }) => ({ from, to })) } : undefined;
      const written = writer.applyChange({ phaseBefore: state, journal, moves: outcome.effects, phase: outcome.state, events: outcome.events });
      return { state: written.phase ?? outcome.state, changed: true };
    });
    const s = result.state;
    context.out.result(
      // What the next step needs: where the workflow is now (the resume JSON has the rest).
      { ok: true, changed: result.changed, phase: s.current_phase, phase_status: s.phase_status, ...(designs ? { designs_requested: s.designs_requested ?? [] } : {}) },
      () => [result.changed ? `${action}: ${s.workflow_id} is now at ${s.current_phase} (${s.phase_status})` : `${action}: nothing to change (${s.current_phase} ${s.phase_status})`],
    );
    return EXIT.ok;
  },
};
