// An agent step (SPEC §20): one agent writes one of the step's reports; with `gate: "approve"` the
// person approves what it wrote (or sends feedback that runs the agent again).
import { isValidReport, reportAt } from "../reports.js";
import type { AgentStep } from "../flow.js";
import type { StepKind } from "./types.js";
import type { Approval } from "../gates.js";
import {
  approval,
  busyAs,
  awaitAgents,
  describeReport,
  isValidAt,
  oneAgentMove,
  proveByReports,
  outputField,
  reportNames,
  spawn,
  unownedReason,
} from "./shared.js";

export const agentKind: StepKind<AgentStep> = {
  kind: "agent",
  next(step, at) {
    // An agent at work (revising the report, say) comes first: its report is not final yet.
    if (busyAs(at, step.agent).length > 0) return awaitAgents([], at.agents);
    const valid = (path: string) => isValidAt(at, path);
    const [gate] = approvalsOf(step);
    if (gate !== undefined && step.reports.some(valid)) {
      // A gate its definition names (develop's demand) says its report as its skill does; else with its folder, the path to read.
      const awaiting = step.reports.filter(valid);
      return {
        ...approval(
          gate,
          `${gate.saysStep ? awaiting.join(" or ") : reportNames(awaiting)} awaits the user's approval`,
        ),
        ...outputField(at, awaiting[0]!),
      };
    }
    return {
      ...spawn(
        step.agent,
        step.reports.map((p) => unownedReason(at, p)).find((u) => u !== undefined) ??
          (step.reports.length === 1
            ? `no valid ${reportNames(step.reports)} yet`
            : `no ${reportNames(step.reports)} yet`),
      ),
      ...outputField(at, step.reports[0]!),
    };
  },
  prove: (step, at) => proveByReports(step.reports, at.reports),
  recordBeforeProof: () => undefined,
  recordAtStop: () => undefined,
  refuseApproval(step, reports) {
    // The person approves the report they were shown (develop: the demand): there must be one to show.
    if (step.reports.some((p) => isValidReport(reportAt(reports, p)))) return undefined;
    const path = step.reports[0]!;
    const name = path.replace(/^memory\/reports\//, "");
    return `${step.id} cannot be approved yet: ${describeReport(path, reportAt(reports, path)).replace(name, path)}; the ${step.agent} agent writes it first, then the person approves what it says`;
  },
  takesDesigns: false,
  outputIsReport: true,
  reworkMovesReports: true,
  command: () => undefined,
  approvals: approvalsOf,
  gatedReport: (step) => ({ agent: step.agent, output: step.reports[0] }),
  spawn: (step, at) => oneAgentMove(step, at, step.gate === "approve" ? "resume" : "complete"),
};

/** With `gate: "approve"`: `approve_report` of its first report, or as its built-in definition names it (named_gate). */
function approvalsOf(step: AgentStep): readonly Approval[] {
  if (step.gate !== "approve") return [];
  const named = step.named_gate;
  return [
    {
      gate: named?.gate ?? "approve_report",
      does: "approve",
      step: step.id,
      report: step.reports[0]!,
      words: named?.words ?? `${step.id}'s report`,
      shows: named?.shows ?? "report",
      takesChanges: true,
      saysStep: named === undefined,
    },
  ];
}
