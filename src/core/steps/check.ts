// A check step (SPEC §20): its agent writes a verdict (`passed`), or dotagent runs its command and
// writes one from the exit code. On a failure with `rework`, the workflow goes back to that earlier
// step for another round, at most max_rounds times; then it fails.
import type { CheckStep, Step } from "../flow.js";
import type { StepKind } from "./types.js";
import {
  awaitAgents,
  busyAs,
  commandFailed,
  oneAgentMove,
  outputField,
  proveByVerdict,
  reportNames,
  runStep,
  spawn,
  unownedReason,
} from "./shared.js";

export type ReworkingCheck = CheckStep & { rework: string; max_rounds: number };

/** A check step that sends work back on a failure (its `rework`). */
export function sendsWorkBack(step: Step): step is CheckStep & { rework: string } {
  return step.kind === "check" && step.rework !== undefined;
}

/** The step, when it is a check that can send work back: its target and its rounds. */
export function asReworkingCheck(step: Step): ReworkingCheck | undefined {
  return step.kind === "check" && step.rework !== undefined && step.max_rounds !== undefined
    ? (step as ReworkingCheck)
    : undefined;
}

export const checkKind: StepKind<CheckStep> = {
  kind: "check",
  next(step, at) {
    const report = step.reports[0]!;
    // A failed command with no rework to go back to stops the workflow, as a shell step's does.
    if (step.agent === undefined)
      return (step.rework === undefined ? commandFailed(step, at) : undefined) ?? runStep(step);
    if (busyAs(at, step.agent).length > 0) return awaitAgents([], at.agents);
    return {
      ...spawn(step.agent, unownedReason(at, report) ?? `no valid ${reportNames([report])} yet`),
      ...outputField(at, report),
    };
  },
  prove: (step, at) =>
    proveByVerdict(step.reports[0]!, at.reports, step.rework !== undefined ? " (run `dotagent phase rework`)" : ""),
  recordBeforeProof: () => undefined,
  recordAtStop: () => undefined,
  refuseApproval: () => undefined,
  takesDesigns: false,
  outputIsReport: true,
  reworkMovesReports: true,
  command: (step) => step.run,
  approvals: () => [],
  gatedReport: () => undefined,
  spawn: (step, at) => oneAgentMove(step, at, "verdict", step.rework),
};
