import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { EXIT, DotagentError, usageError } from "../../core/errors.js";
import { createWorkflow, isWorkflowComplete, suggestWorkflowId } from "../../core/transitions.js";
import { shellQuote } from "../../core/plan-resume.js";
import { idProblem } from "../../schema/json.js";
import { hasState, type ProjectPaths } from "../../store/project.js";
import { loadSnapshot } from "../../store/session.js";
import { StateWriter } from "../../store/state-writer.js";
import { loadCold } from "../load-cold.js";
import { archiveLiveState } from "../fresh-start.js";
import { CLEARING_MARKER } from "../../store/session.js";
import { locked, requestOption, stringOption, type Command } from "../context.js";
import type { PhaseState } from "../../schema/phase.js";

/** Writes a new phase.json; the caller holds the lock and has archived any old state. */
export async function initWorkflow(paths: ProjectPaths, request: string | undefined, workflowId: string | undefined, now: Date): Promise<PhaseState> {
  const id = workflowId ?? suggestWorkflowId(request, now);
  mkdirSync(paths.reportsDir, { recursive: true });
  const snapshot = await loadSnapshot(paths);
  const writer = new StateWriter(paths, snapshot, now);
  const state = writer.writePhase({ ...createWorkflow(id, request, now), revision: 0 });
  writer.appendEvents([{ type: "workflow_started", workflow_id: id, ...(request === undefined ? {} : { request }) }]);
  return state;
}

export const command: Command = {
  summary: "start a workflow (an existing one is archived first, after asking)",
  usage: "dotagent init [--request TEXT] [--workflow-id ID] [--yes] [--json]",
  options: { request: { type: "string" }, "workflow-id": { type: "string" }, yes: { type: "boolean", short: "y" } },
  examples: ["dotagent init --request 'add login'            workflow wf-add-login at REQUIREMENTS", "dotagent init --request 'add login' --workflow-id wf-login", "dotagent init --request 'add signup' --yes       archive the current workflow and start anew"],
  async run(context) {
    const request = requestOption(context);
    const workflowId = stringOption(context, "workflow-id");
    const idError = workflowId === undefined ? null : idProblem(workflowId, "workflow id");
    if (idError !== null) throw usageError(`--workflow-id: ${idError}`);
    const now = context.now();
    if (hasState(context.paths)) {
      const snapshot = await loadSnapshot(context.paths);
      const phase = snapshot.phase.kind === "ok" ? snapshot.phase.value : undefined;
      const complete = phase !== undefined && isWorkflowComplete(phase);
      const decision = {
        question: `A workflow${phase ? ` (${phase.workflow_id}, at ${phase.current_phase})` : ""} already exists here. Archive it and start a new one?`,
        default: complete,
        yes: `dotagent init${request === undefined ? "" : ` --request ${shellQuote(request)}`}${workflowId === undefined ? "" : ` --workflow-id ${workflowId}`} --yes`,
        no: "dotagent resume",
      };
      const answer = complete ? true : await (await loadCold()).askDecision(decision, context.options.yes === true);
      if (answer === "no-terminal") {
        context.out.result({ created: false, decision }, () => [`A workflow already exists. ${decision.question}`, `  yes: ${decision.yes}`, `  no:  ${decision.no}`]);
        return EXIT.decide;
      }
      if (!answer) throw new DotagentError("init_declined", "kept the existing workflow; continue it with `dotagent resume`", EXIT.refused);
    }
    const { state, archived } = await locked(context, "init", async () => {
      // A fresh start cut off while clearing: what is left is archived (again) and cleared, so no
      // leftover report leaks into the new workflow and nothing unarchived is removed.
      const cutOff = existsSync(join(context.paths.stateDir, CLEARING_MARKER));
      const archivedName = hasState(context.paths) || cutOff ? await archiveLiveState(context.paths, "replaced by dotagent init", now) : null;
      return { state: await initWorkflow(context.paths, request, workflowId, now), archived: archivedName };
    });
    context.out.result({ created: true, workflow_id: state.workflow_id, phase: state.current_phase, phase_status: state.phase_status, archived }, () => [
      ...(archived ? [`Archived the previous state as ${archived}`] : []),
      `Started workflow ${context.out.color.bold(state.workflow_id)} at REQUIREMENTS.`,
      "Next: spawn the pm agent to write memory/reports/demand.json",
    ]);
    return EXIT.ok;
  },
};
