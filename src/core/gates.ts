// Gates as data (SPEC §20): where a workflow waits for the person, as a value the step's kind
// module produces (steps/*.ts `approvals`) and every reader reads: what the person does (approve
// a report, or pick a design), at which step, which report they read, the words they are told it
// in, whether it takes changes. The plan's JSON says only its name (`next.gate`, SPEC §5); a reader
// finds the rest with approvalAt, in the flow the workflow walks. No reader compares a gate's name.
//
// The names: a choose step's gates are `pick_design` and `approve_design`; an agent step's
// approval is `approve_report`, unless its definition names it (`named_gate`, which only a
// built-in definition sets: develop's REQUIREMENTS is `approve_requirements`, as its skill says).
import type { Flow, GateShows, Step } from "./flow.js";
import type { Gate } from "./plan-resume.js";
import { kindOf } from "./steps/index.js";

export interface Approval {
  /** The name the plan's `next.gate` carries. */
  readonly gate: Gate;
  /** What the person does: approve what a report says, or pick one of the designs. */
  readonly does: "approve" | "pick";
  readonly step: string;
  /** approve: the report the person reads and approves; pick: the report that compares the designs. */
  readonly report: string;
  /** How the person is told what they answer: "the requirements", "the design", "NOTES's report". */
  readonly words: string;
  readonly shows: GateShows;
  /** Whether the person's changes are carried out (an agent revises the report, the architects their designs). */
  readonly takesChanges: boolean;
  /** Where it takes no changes: why, and what the person does instead. */
  readonly instead?: string | undefined;
  /** Whether the plan says `next.step`: the gate's name does not say which step it is. */
  readonly saysStep: boolean;
}

/** What of the plan's `next` names a gate (the JSON's fields, SPEC §5). */
export interface GateRef {
  readonly gate?: string | undefined;
  readonly step?: string | undefined;
  readonly output?: string | undefined;
}

/** The gates a step can wait at (none for most). */
export const approvalsOf = (step: Step): readonly Approval[] => kindOf(step).approvals(step);

/**
 * The approval the plan's `next` names, in `flow` (the step it says, else the one step of the flow
 * with that gate), the report it says (`next.output`) in place of the step's first. undefined: no
 * gate of this flow has that name (a plan of another flow, or no gate).
 */
export function approvalAt(flow: Flow, next: GateRef): Approval | undefined {
  if (next.gate === undefined) return undefined;
  const named = (a: Approval) => a.gate === next.gate && (next.step === undefined || a.step === next.step);
  for (const step of flow.steps) {
    const found = approvalsOf(step).find(named);
    if (found !== undefined) return next.output === undefined ? found : { ...found, report: next.output };
  }
  return undefined;
}
