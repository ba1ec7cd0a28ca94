// `phase start|complete|fail|approve|rework`: one move of the phase machine under the lock. What the
// move is, or why it is refused, is decided by the pure planner (src/core/phase-plan.ts); this op
// reads the facts, carries the plan out through src/store/ and settles.
import { refusalError } from "../core/errors.js";
import type { Phase, PhaseStatus } from "../core/phases.js";
import { gateToAsk, pickRefusal, planPhaseChange, planPick } from "../core/phase-plan.js";
import { loadSnapshot } from "../store/session.js";
import { StateWriter } from "../store/state-writer.js";
import type { PhaseState } from "../schema/phase.js";
import { locked, type OpContext } from "./op-context.js";
import { requireWorkflow } from "./state-guard.js";
import { nextFields, settle, type NextFields } from "./settle.js";
import { personAnswered } from "./person-gate.js";

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
    const byModel = context.byModel === true;
    const gate = gateToAsk(before, change, byModel);
    const decided = planPhaseChange(
      before,
      {
        reports: snapshot.reports,
        execution: snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined,
        now,
        byModel,
        answer: gate === undefined ? undefined : personAnswered(context.paths, gate, before),
      },
      change,
    );
    if (decided.kind === "refuse") throw refusalError(decided);
    if (decided.state !== before)
      new StateWriter(context.paths, snapshot, now, context.warn).applyChange({
        phaseBefore: before,
        journal: decided.journal,
        moves: decided.moves,
        phase: decided.state,
        events: decided.events,
      });
    // The step after this one (an approval also completes its phase once its report is there).
    const settled = await settle(context, now);
    return { state: settled.phase ?? decided.state, changed: decided.state !== before, plan: settled.plan };
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
  const decided = planPick(before, change);
  if (decided.kind === "refuse") throw refusalError(decided);
  if (decided.kind === "approved") return;
  const named = decided.phase;
  const words = context.byModel ? (personSaid(context, before, named, pick.design) ?? "") : (pick.words ?? "");
  const { writePick } = await import("./person-replies.js");
  writePick(context, before, {
    design: pick.design,
    words,
    via: pick.via ?? (context.byModel ? "reply" : "terminal"),
    ...(pick.tasks !== undefined ? { tasks: pick.tasks } : {}),
  });
}

/** The person's words at the pick, from an agent's shell: refused unless their reply names `design`. */
function personSaid(context: OpContext, before: PhaseState, phase: Phase, design: string): string | undefined {
  const answer = personAnswered(context.paths, phase, before);
  const refusal = pickRefusal(before, phase, answer, design);
  if (refusal !== undefined) throw refusalError(refusal);
  return answer.answered ? answer.said : undefined;
}
