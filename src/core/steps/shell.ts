// A shell step (SPEC §20): dotagent runs its command (`dotagent step run`) and writes the exit code
// and the output's tail as its report; a failure stops the workflow until the cause is fixed.
import { isValidReport, reportAt } from "../reports.js";
import type { ShellStep } from "../flow.js";
import type { StepKind } from "./types.js";
import { proveByVerdict, reportNames, runStep } from "./shared.js";

export const shellKind: StepKind<ShellStep> = {
  kind: "shell",
  next(step, at) {
    const report = step.reports[0]!;
    // A valid report that did not prove the step done says the command failed.
    if (isValidReport(reportAt(at.reports, report)))
      return {
        action: "workflow_failed",
        agent: null,
        tasks: [],
        reason: `${step.id}: \`${step.run}\` failed (${reportNames([report])} says passed: false); fix the cause, then \`dotagent step run ${step.id} --again\``,
      };
    return runStep(step);
  },
  prove: (step, at) => proveByVerdict(step.reports[0]!, at.reports),
  recordBeforeProof: () => undefined,
  recordAtStop: () => undefined,
  refuseApproval: () => undefined,
  takesDesigns: false,
  outputIsReport: true,
  reworkMovesReports: true,
  command: (step) => step.run,
  gatedReport: () => undefined,
  spawn: () => undefined,
};
