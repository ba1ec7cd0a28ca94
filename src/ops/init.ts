// `init`: start a workflow. An existing one is archived first, after a decision (default yes
// only when it is complete); without an answer nothing is written.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import type { Phase, PhaseStatus } from "../core/phases.js";
import type { Flow } from "../core/flow.js";
import { shellQuote, workflowFlag, type Decision } from "../core/plan-resume.js";
import { createWorkflow, isWorkflowComplete, suggestWorkflowId } from "../core/transitions.js";
import type { PhaseState } from "../schema/phase.js";
import { hasState, type ProjectPaths } from "../store/project.js";
import { CLEARING_MARKER, loadSnapshot } from "../store/session.js";
import { StateWriter } from "../store/state-writer.js";
import { mkdirInside } from "../store/write-file.js";
import { archiveLiveState } from "./fresh-start.js";
import { decisionWithDir } from "./decision-dir.js";
import { locked, type OpContext } from "./op-context.js";
import type { Decide } from "./resume.js";
import { nextFields, settle, type NextFields } from "./settle.js";

/** `init --json`: created, or the decision to replace the workflow that is there. */
export type InitResult =
  | ({
      created: true;
      workflow_id: string;
      workflow: string;
      phase: Phase;
      phase_status: PhaseStatus;
      archived: string | null;
    } & NextFields)
  | { created: false; decision: Decision };

export interface InitInput {
  readonly request?: string | undefined;
  /** Already checked as an id. */
  readonly workflowId?: string | undefined;
  readonly decide?: Decide | undefined;
  /** The resolved definition to walk (`--workflow NAME`); none: the built-in develop. */
  readonly workflow?: Flow | undefined;
}

/** Writes a new phase.json; the caller holds the lock and has archived any old state. */
export async function initWorkflow(
  paths: ProjectPaths,
  request: string | undefined,
  workflowId: string | undefined,
  now: Date,
  onWarning?: (message: string) => void,
  flow?: Flow,
): Promise<PhaseState> {
  const id = workflowId ?? suggestWorkflowId(request, now);
  mkdirInside(paths.root, paths.reportsDir);
  const snapshot = await loadSnapshot(paths);
  const writer = new StateWriter(paths, snapshot, now, onWarning);
  // A fresh instance id, so checkpoints of an earlier workflow with the same id are never this one's (§15).
  const instanceId = process.getBuiltinModule("node:crypto").randomBytes(8).toString("hex");
  const created = createWorkflow(id, request, now, flow);
  const state = writer.writePhase({ ...created, instance_id: instanceId, revision: 0 });
  writer.appendEvents([
    {
      type: "workflow_started",
      workflow_id: id,
      ...(request === undefined ? {} : { request }),
      ...(created.workflow ? { workflow: created.workflow.name, hash: created.workflow.hash } : {}),
    },
  ]);
  return state;
}

export async function startWorkflow(context: OpContext, input: InitInput): Promise<InitResult> {
  const { request, workflowId } = input;
  const named = workflowFlag(input.workflow?.name);
  const now = context.now();
  if (hasState(context.paths)) {
    const snapshot = await loadSnapshot(context.paths);
    const phase = snapshot.phase.kind === "ok" ? snapshot.phase.value : undefined;
    const complete = phase !== undefined && isWorkflowComplete(phase);
    const decision: Decision = decisionWithDir(
      {
        question: `A workflow${phase ? ` (${phase.workflow_id}, at ${phase.current_phase})` : ""} already exists here. Archive it and start a new one?`,
        default: complete,
        yes: `dotagent init${request === undefined ? "" : ` --request ${shellQuote(request)}`}${workflowId === undefined ? "" : ` --workflow-id ${workflowId}`}${named} --yes`,
        no: "dotagent resume",
      },
      context.dirArg,
    );
    const answer = complete ? true : input.decide ? await input.decide(decision) : "no-terminal";
    if (answer === "no-terminal") return { created: false, decision };
    if (!answer)
      throw new DotagentError(
        "init_declined",
        "kept the existing workflow; continue it with `dotagent resume`",
        EXIT.refused,
      );
  }
  const { state, archived, plan } = await locked(context, "init", async () => {
    // A fresh start cut off while clearing: what is left is archived (again) and cleared, so no
    // leftover report leaks into the new workflow and nothing unarchived is removed.
    const cutOff = existsSync(join(context.paths.stateDir, CLEARING_MARKER));
    const archivedName =
      hasState(context.paths) || cutOff
        ? await archiveLiveState(context.paths, "replaced by a new workflow", now, context.note)
        : null;
    const written = await initWorkflow(context.paths, request, workflowId, now, context.warn, input.workflow);
    return { state: written, archived: archivedName, plan: (await settle(context, now)).plan };
  });
  return {
    created: true,
    workflow_id: state.workflow_id,
    workflow: state.workflow?.name ?? "develop",
    phase: state.current_phase,
    phase_status: state.phase_status,
    archived,
    ...nextFields(plan),
  };
}
