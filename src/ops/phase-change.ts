// `phase start|complete|fail|approve|rework`: one move of the phase machine under the lock.
import { oneLine } from "../core/words.js";
import { DotagentError, EXIT, usageError } from "../core/errors.js";
import { phasesOf, type Phase, type PhaseStatus } from "../core/phases.js";
import { stepIn, transition, type PhaseEvent } from "../core/transitions.js";
import { loadSnapshot } from "../store/session.js";
import { StateWriter } from "../store/state-writer.js";
import type { PhaseState } from "../schema/phase.js";
import { locked, type OpContext } from "./op-context.js";
import { requireWorkflow } from "./state-guard.js";
import { nextFields, settle, type NextFields } from "./settle.js";
import { requirePersonAnswer } from "./person-gate.js";
import { flowOf } from "../core/flow-of.js";

export const PHASE_ACTIONS = ["start", "complete", "fail", "approve", "rework"] as const;
export type PhaseAction = (typeof PHASE_ACTIONS)[number];

export interface PhaseChange {
  readonly action: PhaseAction;
  readonly phase?: Phase | undefined;
  /** Project-relative output path (already checked to stay inside the project). */
  readonly output?: string | undefined;
  readonly error?: string | undefined;
  /** `start ARCHITECTURE`: the design names asked for. */
  readonly designs?: readonly string[] | undefined;
  /** `approve ARCHITECTURE --pick NAME`: the person's pick, written as final_design.json first (their words: from their reply, or `--notes`). */
  readonly pick?:
    | {
        readonly design: string;
        readonly words?: string | undefined;
        readonly via?: "reply" | "terminal" | "program" | "auto";
        readonly tasks?: readonly unknown[] | undefined;
      }
    | undefined;
}

/** What `phase … --json` prints: where the workflow is now, and its next step (SPEC §10). */
export interface PhaseResult extends NextFields {
  ok: true;
  changed: boolean;
  phase: Phase;
  phase_status: PhaseStatus;
  designs_requested?: string[];
}

export interface PhaseOutcome {
  readonly result: PhaseResult;
  readonly state: PhaseState;
}

export async function changePhase(context: OpContext, change: PhaseChange): Promise<PhaseOutcome> {
  return locked(context, `phase ${change.action}`, () => changePhaseLocked(context, change));
}

/** changePhase for a caller that holds the state lock already (the person's reply carried out, src/ops/person-replies.ts). */
export async function changePhaseLocked(context: OpContext, change: PhaseChange): Promise<PhaseOutcome> {
  const { action, output, designs } = change;
  const now = context.now();
  const { state, changed, plan } = await (async () => {
    if (action === "approve" && change.pick !== undefined) await pickFirst(context, change, change.pick);
    const snapshot = await loadSnapshot(context.paths, output === undefined ? [] : [{ path: output, mode: "parse" }]);
    const before = requireWorkflow(snapshot, now);
    // A step is named as the workflow's definition spells it, in any case (develop: `approve requirements`).
    const steps = phasesOf(before);
    const named =
      change.phase === undefined ? undefined : steps.find((s) => s.toUpperCase() === change.phase!.toUpperCase());
    if (change.phase !== undefined && named === undefined)
      throw usageError(`"${change.phase}" is not a step of this workflow; its steps are ${steps.join(", ")}`);
    const event = {
      type: action,
      phase: named,
      output,
      error: change.error,
      designs: designs ? [...designs] : undefined,
    } as PhaseEvent;
    // A phase is done when its agent's report is there, which dotagent sees itself (the hooks
    // record each agent's end): from an agent's shell, completing, failing or reworking a phase by
    // hand would take the model's word for the agent's work (a verification.json qa never wrote).
    // (IMPLEMENTATION completes only with every task complete, and a gated phase only once approved.)
    const target = named ?? before.current_phase;
    const proved = stepIn(before, target);
    if (
      context.byModel &&
      ((action === "complete" &&
        (proved.kind === "check" ||
          proved.kind === "shell" ||
          (proved.kind === "agent" && proved.gate === undefined))) ||
        action === "fail" ||
        action === "rework")
    ) {
      throw new DotagentError(
        "not_yours",
        `dotagent ${action === "complete" ? "completes" : action === "fail" ? "fails" : "reworks"} phases itself from their agents' reports (the hooks record each agent's end): spawn the phase's agent and act on the next step dotagent gives`,
        EXIT.refused,
        { action },
      );
    }
    // A failed phase starts again when the person replies (SPEC §5, §11), not on the model's word.
    if (action === "start" && context.byModel && before.phase_status === "failed" && target === before.current_phase) {
      throw new DotagentError(
        "person_not_answered",
        `${target} failed (${oneLine(before.error ?? "no reason recorded", 200)}); it starts again when the person replies: tell them and end your turn`,
        EXIT.refused,
        { phase: target },
      );
    }
    // A gate is the person's: from an agent's shell, an approval needs their reply (SPEC §11).
    const gate = named ?? before.current_phase;
    if (action === "approve" && context.byModel && !before.user_checkpoints.some((c) => c.phase === gate))
      requirePersonAnswer(context.paths, gate, before, change.pick?.design);
    const execution = snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined;
    const outcome = transition(before, event, { reports: snapshot.reports, execution, now });
    if (!outcome.ok) throw new DotagentError(outcome.code, outcome.message, EXIT.refused);
    if (outcome.state !== before) {
      const writer = new StateWriter(context.paths, snapshot, now, context.warn);
      const journal =
        outcome.effects.length > 0
          ? {
              type: event.type,
              started_at: now.toISOString(),
              round: outcome.state.rework?.round,
              moves: outcome.effects.map(({ from, to }) => ({ from, to })),
            }
          : undefined;
      writer.applyChange({
        phaseBefore: before,
        journal,
        moves: outcome.effects,
        phase: outcome.state,
        events: outcome.events,
      });
    }
    // The step after this one (an approval also completes its phase once its report is there).
    const settled = await settle(context, now);
    return { state: settled.phase ?? outcome.state, changed: outcome.state !== before, plan: settled.plan };
  })();
  return {
    state,
    result: {
      ok: true,
      changed,
      phase: state.current_phase,
      phase_status: state.phase_status,
      ...(designs ? { designs_requested: state.designs_requested ?? [] } : {}),
      ...nextFields(plan),
    },
  };
}

/**
 * `approve STEP --pick NAME` of a choose step: final_design.json written by dotagent from the
 * design (src/ops/person-replies.ts writePick). From an agent's shell the person's reply must name
 * that design, and their words become its user_notes; a person or a program passes `--notes`.
 */
async function pickFirst(
  context: OpContext,
  change: PhaseChange,
  pick: NonNullable<PhaseChange["pick"]>,
): Promise<void> {
  const snapshot = await loadSnapshot(context.paths);
  const before = requireWorkflow(snapshot, context.now());
  const named =
    change.phase === undefined
      ? before.current_phase
      : phasesOf(before).find((s) => s.toUpperCase() === change.phase!.toUpperCase());
  if (named === undefined || stepIn(before, named).kind !== "choose")
    throw usageError(
      `--pick goes with the step where the person picks a design (${flowOf(before).steps.find((s) => s.kind === "choose")?.id ?? "none in this workflow"})`,
    );
  if (before.user_checkpoints.some((c) => c.phase === named)) return;
  if (named !== before.current_phase)
    throw new DotagentError(
      "wrong_phase",
      `${named} is not the current step (${before.current_phase}); \`dotagent resume\` says what is next`,
      EXIT.refused,
    );
  const words = context.byModel
    ? (requirePersonAnswer(context.paths, named, before, pick.design).said ?? "")
    : (pick.words ?? "");
  const { writePick } = await import("./person-replies.js");
  writePick(context, before, {
    design: pick.design,
    words,
    via: pick.via ?? (context.byModel ? "reply" : "terminal"),
    ...(pick.tasks !== undefined ? { tasks: pick.tasks } : {}),
  });
}
