// A choose step (SPEC §20): design writers in parallel (one design each, memory/reports/designs/),
// a reducer that compares them (roundtable.json), and the person's pick, written as
// final_design.json and approved.
import { DEFAULT_DESIGNS, REPORT } from "../flow.js";
import { NOT_PICKED } from "../authority.js";
import { isValidReport, reportAt, type ReportSnapshot } from "../reports.js";
import type { ChooseStep } from "../flow.js";
import type { PhaseState } from "../../schema/phase.js";
import type { StepKind } from "./types.js";
import type { Approval } from "../gates.js";
import { approval, awaitAgents, busyAs, isValidAt, job, proveByReports, spawn, unownedReason } from "./shared.js";

export function designPath(name: string): string {
  return `${REPORT.designsDir}/${name}.json`;
}

/** The requested designs (phase start ARCHITECTURE --designs) without a valid designs/<name>.json. */
export function missingDesigns(state: PhaseState, reports: ReportSnapshot): string[] {
  return (state.designs_requested ?? []).filter((name) => !isValidReport(reportAt(reports, designPath(name))));
}

const angleOf = (name: string) => DEFAULT_DESIGNS.find((d) => d.name === name)?.angle ?? `the ${name} approach`;

export const chooseKind: StepKind<ChooseStep> = {
  kind: "choose",
  next(step, at) {
    const { phase, reports, agents } = at;
    const [pick, approve] = approvalsOf(step);
    if (isValidAt(at, REPORT.finalDesign)) return approval(approve!, "final_design.json awaits the user's approval");
    const working = new Set(busyAs(at, step.agent).map((a) => a.design));
    const asked = phase.designs_requested ?? [];
    const missing = missingDesigns(phase, reports).filter((d) => !working.has(d));
    if (missing.length > 0) {
      const reason =
        missing.length === asked.length
          ? `write the designs asked for: ${missing.join(", ")}`
          : `designs ${missing.join(", ")} of ${asked.join(", ")} are missing (do not re-run the others)`;
      return { ...spawn(step.agent, reason), designs: missing };
    }
    if (agents.length > 0) return awaitAgents([], agents);
    if (reports.designs.length > 0 && isValidAt(at, REPORT.roundtable)) {
      const final = reportAt(reports, REPORT.finalDesign);
      const notPicked = final.status === "invalid" && final.reason === NOT_PICKED;
      return approval(
        pick!,
        notPicked
          ? `final_design.json ${NOT_PICKED}: show the options in roundtable.json and ask the user which one (do not write final_design.json)`
          : "the user picks a design (do not re-run the architects)",
      );
    }
    if (reports.designs.length > 0)
      return spawn(step.reducer, unownedReason(at, REPORT.roundtable) ?? "designs exist but roundtable.json does not");
    const defaults = step.designs.map((d) => d.name);
    return {
      ...spawn(
        step.agent,
        `no designs yet: ask for ${defaults.join(" and ")} (or record others first with \`dotagent phase start ${step.id} --designs a,b\`)`,
      ),
      designs: defaults,
    };
  },
  recordBeforeProof: () => undefined,
  // Nothing asked for and nothing written yet: the default designs are recorded, so every reader
  // (the skill, the runner, a hook) spawns the same architects.
  recordAtStop(step, { phase, reports }) {
    if (
      (phase.designs_requested ?? []).length > 0 ||
      reports.designs.length > 0 ||
      isValidReport(reportAt(reports, REPORT.finalDesign))
    )
      return undefined;
    const designs = step.designs.map((d) => d.name);
    return {
      phase: { ...phase, designs_requested: designs },
      events: [{ type: "designs_requested", phase: step.id, designs, proposed: true }],
    };
  },
  prove: (step, at) => proveByReports(step.reports, at.reports),
  refuseApproval: () => undefined,
  takesDesigns: true,
  outputIsReport: true,
  reworkMovesReports: false,
  command: () => undefined,
  approvals: approvalsOf,
  gatedReport: () => undefined,
  /** The design writers (one job a design) or the reducer. */
  spawn(step, at) {
    const { next, phase } = at;
    const agent = next.agent ?? "";
    if (agent === step.agent) {
      const names = next.designs && next.designs.length > 0 ? next.designs : step.designs.map((d) => d.name);
      const angle = (name: string) => step.designs.find((d) => d.name === name)?.angle ?? angleOf(name);
      const jobs = names.map((n) =>
        job(`${agent}.${n}`, agent, `${REPORT.designsDir}/${n}.json`, [`Design name: ${n}`, `Angle: ${angle(n)}`]),
      );
      return {
        kind: "agents",
        phase,
        agent,
        ...(next.designs && next.designs.length > 0 ? {} : { designs: names }),
        jobs,
        then: "resume",
        outputs: jobs.map((j) => j.output),
      };
    }
    if (agent === step.reducer)
      return {
        kind: "agents",
        phase,
        agent,
        jobs: [job(agent, agent, REPORT.roundtable, [`Designs: ${REPORT.designsDir}/*.json`])],
        then: "resume",
        outputs: [REPORT.roundtable],
      };
    return undefined;
  },
};

/**
 * The person picks one of the designs (roundtable.json compares them; a change sends every design
 * writer back), then approves the final design their pick wrote (no change: it is chosen).
 */
function approvalsOf(step: ChooseStep): readonly [Approval, Approval] {
  return [
    {
      gate: "pick_design",
      does: "pick",
      step: step.id,
      report: REPORT.roundtable,
      words: "a design",
      shows: "designs",
      takesChanges: true,
      saysStep: false,
    },
    {
      gate: "approve_design",
      does: "approve",
      step: step.id,
      report: REPORT.finalDesign,
      words: "the design",
      shows: "design",
      takesChanges: false,
      instead: "its design is chosen: approve it, or go back with dotagent rollback",
      saysStep: false,
    },
  ];
}
