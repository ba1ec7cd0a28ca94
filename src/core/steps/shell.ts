// A shell step (SPEC §20): dotagent runs its command (`dotagent step run`) and writes the exit code
// and the output's tail as its report; a failure stops the workflow until the cause is fixed.
import type { ShellStep } from "../flow.js";
import type { StepKind } from "./types.js";
import { commandFailed, proveByVerdict, runStep } from "./shared.js";

export const shellKind: StepKind<ShellStep> = {
  kind: "shell",
  next(step, at) {
    // A valid report that did not prove the step done says the command failed.
    return commandFailed(step, at) ?? runStep(step);
  },
  prove: (step, at) => proveByVerdict(step.reports[0]!, at.reports),
  recordBeforeProof: () => undefined,
  recordAtStop: () => undefined,
  refuseApproval: () => undefined,
  takesDesigns: false,
  outputIsReport: true,
  reworkMovesReports: true,
  command: (step) => step.run,
  approvals: () => [],
  gatedReport: () => undefined,
  spawn: () => undefined,
};
