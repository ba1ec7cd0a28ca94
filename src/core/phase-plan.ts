// Operations as plans (issue 41): what a `phase start|complete|fail|approve|rework` does, decided as
// a value before anything is written. planPhaseChange takes the loaded state, the facts the
// decision needs (the reports and execution.json as read, the clock, who calls, the person's answer
// at the gate when gateToAsk says one is needed) and the request, and returns a refusal (error code,
// message, exit code) or what to carry out: the state after the move, its events, the files it
// moves and the journal that spans them. planPick decides `approve STEP --pick NAME`'s first part,
// the pick written as final_design.json. Pure: no file system, no event log, no clock. The op
// (src/ops/phase-change.ts) reads the facts, carries the plan out under the lock through
// src/store/, and settles. The decisions are tested as tables in phase-plan.test.ts.
import { EXIT, refuse, type Refusal } from "./errors.js";
import { flowOf } from "./flow-of.js";
import { answerRefusal, type ShownAnswer } from "./person-answer.js";
import { phasesOf, type Phase } from "./phases.js";
import type { ReportSnapshot } from "./reports.js";
import { oneLine } from "./words.js";
import { stepIn, transition, type MoveEffect, type PhaseEvent, type TransitionResult } from "./transitions.js";
import type { ExecutionState } from "../schema/execution.js";
import type { PhaseState } from "../schema/phase.js";

/** The move asked for (src/ops/phase-change.ts PhaseChange: the step as typed, the output already checked). */
export interface PhaseRequest {
  readonly action: "start" | "complete" | "fail" | "approve" | "rework";
  readonly phase?: string | undefined;
  readonly output?: string | undefined;
  readonly error?: string | undefined;
  readonly designs?: readonly string[] | undefined;
  readonly pick?: { readonly design: string } | undefined;
}

/** What a phase move is decided from, read by the op before it plans. */
export interface PhaseFacts {
  readonly reports: ReportSnapshot;
  /** execution.json as loaded; undefined while there is none. */
  readonly execution: ExecutionState | undefined;
  readonly now: Date;
  /** The call comes from an agent's shell (OpContext.byModel). */
  readonly byModel: boolean;
  /** The person's answer at the gate gateToAsk names (src/ops/person-gate.ts personAnswered). */
  readonly answer?: ShownAnswer | undefined;
}

export type PhasePlan =
  | Refusal
  | {
      readonly kind: "write";
      readonly event: PhaseEvent;
      /** The state after the move; `before` itself when nothing changes (nothing is written then). */
      readonly state: PhaseState;
      readonly events: Extract<TransitionResult, { ok: true }>["events"];
      readonly moves: readonly MoveEffect[];
      /** The journal of a move that spans several files (its moves), undefined when there are none. */
      readonly journal?:
        | {
            type: PhaseRequest["action"];
            started_at: string;
            round: number | undefined;
            moves: { from: string; to: string }[];
          }
        | undefined;
    };

/** A step as the workflow's definition spells it, named in any case (develop: `approve requirements`). */
function stepNamed(state: PhaseState, name: string): Phase | undefined {
  return phasesOf(state).find((s) => s.toUpperCase() === name.toUpperCase());
}

/**
 * The gate whose person's answer the plan needs (an approval from an agent's shell of a gate not
 * yet approved), or undefined: the op reads the answer only then.
 */
export function gateToAsk(before: PhaseState, request: PhaseRequest, byModel: boolean): Phase | undefined {
  if (request.action !== "approve" || !byModel) return undefined;
  const gate = request.phase === undefined ? before.current_phase : stepNamed(before, request.phase);
  if (gate === undefined || before.user_checkpoints.some((c) => c.phase === gate)) return undefined;
  return gate;
}

const isPick = (state: PhaseState, phase: Phase) => flowOf(state).steps.find((s) => s.id === phase)?.kind === "choose";

/** The plan of `phase start|complete|fail|approve|rework` on `before`, the state as loaded. */
export function planPhaseChange(before: PhaseState, facts: PhaseFacts, request: PhaseRequest): PhasePlan {
  const { action, output, designs } = request;
  const steps = phasesOf(before);
  const named = request.phase === undefined ? undefined : stepNamed(before, request.phase);
  if (request.phase !== undefined && named === undefined)
    return refuse(
      "usage",
      `"${request.phase}" is not a step of this workflow; its steps are ${steps.join(", ")}`,
      EXIT.usage,
    );
  const event = {
    type: action,
    phase: named,
    output,
    error: request.error,
    designs: designs ? [...designs] : undefined,
  } as PhaseEvent;
  // A phase is done when its agent's report is there, which dotagent sees itself (the hooks
  // record each agent's end): from an agent's shell, completing, failing or reworking a phase by
  // hand would take the model's word for the agent's work (a verification.json qa never wrote).
  // (IMPLEMENTATION completes only with every task complete, and a gated phase only once approved.)
  const target = named ?? before.current_phase;
  const proved = stepIn(before, target);
  if (
    facts.byModel &&
    ((action === "complete" &&
      (proved.kind === "check" || proved.kind === "shell" || (proved.kind === "agent" && proved.gate === undefined))) ||
      action === "fail" ||
      action === "rework")
  )
    return refuse(
      "not_yours",
      `dotagent ${action === "complete" ? "completes" : action === "fail" ? "fails" : "reworks"} phases itself from their agents' reports (the hooks record each agent's end): spawn the phase's agent and act on the next step dotagent gives`,
      EXIT.refused,
      { action },
    );
  // A failed phase starts again when the person replies (SPEC §5, §11), not on the model's word.
  if (action === "start" && facts.byModel && before.phase_status === "failed" && target === before.current_phase)
    return refuse(
      "person_not_answered",
      `${target} failed: ${oneLine(before.error ?? "no reason recorded", 200)}; it starts again when the person replies: tell them and end your turn`,
      EXIT.refused,
      { phase: target },
    );
  // A gate is the person's: from an agent's shell, an approval needs their reply (SPEC §11).
  const gate = gateToAsk(before, request, facts.byModel);
  if (gate !== undefined) {
    if (facts.answer === undefined) throw new Error(`planPhaseChange: the person's answer at ${gate} was not read`);
    const refusal = answerRefusal(gate, facts.answer, flowOf(before), isPick(before, gate), request.pick?.design);
    if (refusal !== undefined) return refusal;
  }
  const outcome = transition(before, event, { reports: facts.reports, execution: facts.execution, now: facts.now });
  if (!outcome.ok) return refuse(outcome.code, outcome.message);
  const journal =
    outcome.state !== before && outcome.effects.length > 0
      ? {
          type: action,
          started_at: facts.now.toISOString(),
          round: outcome.state.rework?.round,
          moves: outcome.effects.map(({ from, to }) => ({ from, to })),
        }
      : undefined;
  return { kind: "write", event, state: outcome.state, events: outcome.events, moves: outcome.effects, journal };
}

/** What `approve STEP --pick NAME` does first: refuse, nothing (the pick is approved already), or write the pick. */
export type PickPlan = Refusal | { readonly kind: "approved" } | { readonly kind: "pick"; readonly phase: Phase };

/**
 * The plan of `approve STEP --pick NAME` before the approval itself: the step must be the current
 * choose step. From an agent's shell the person's reply must name that design (the op reads their
 * answer at `phase` and checks it with answerRefusal, their words becoming the pick's notes).
 */
export function planPick(before: PhaseState, request: PhaseRequest): PickPlan {
  const named = request.phase === undefined ? before.current_phase : stepNamed(before, request.phase);
  if (named === undefined || stepIn(before, named).kind !== "choose")
    return refuse(
      "usage",
      `--pick goes with the step where the person picks a design (${flowOf(before).steps.find((s) => s.kind === "choose")?.id ?? "none in this workflow"})`,
      EXIT.usage,
    );
  if (before.user_checkpoints.some((c) => c.phase === named)) return { kind: "approved" };
  if (named !== before.current_phase)
    return refuse(
      "wrong_phase",
      `${named} is not the current step (${before.current_phase}); \`dotagent resume\` says what is next`,
      EXIT.refused,
    );
  return { kind: "pick", phase: named };
}

/** The pick's refusal from an agent's shell when the person's reply does not name `design` (answerRefusal at a choose step). */
export function pickRefusal(
  before: PhaseState,
  phase: Phase,
  answer: ShownAnswer,
  design: string,
): Refusal | undefined {
  return answerRefusal(phase, answer, flowOf(before), true, design);
}
