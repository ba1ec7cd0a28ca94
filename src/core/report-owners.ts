// A phase report counts for the agent that was at work on it (SPEC §11 "A report counts for its
// agent"). The threat is the main agent writing a phase agent's report itself (a Bash heredoc into
// verification.json: "I reviewed the changes myself"), which the write guard sees only for the
// Write tools and the Bash lines it can read. So the evidence is dotagent's own record: phase.json
// `agent_reports` lists the reports whose agent a hook recorded at work. Once the list exists (the
// first phase agent the hooks saw start created it), a pm, architect, roundtable, qa or reflector
// report that is not on it does not count: the planner treats it as not written and names why, and
// the agent's start moves it aside so the agent writes its own. Workflows whose agents no hook ever
// saw start (`dotagent run`, the library, a client without hooks) have no list and read reports as
// before. Pure.
import { REPORT } from "./phases.js";
import type { Flow } from "./flow.js";
import { flowOf } from "./flow-of.js";
import type { ReportSnapshot, ReportState } from "./reports.js";
import type { PhaseState } from "../schema/phase.js";

/** Where a report nobody recorded goes when its agent starts: kept for the person to read, never read by the planner. */
export const UNOWNED_DIR = "memory/reports/unowned";

/**
 * The phase agent whose report this is (project-relative path) in `flow`: an agent or check
 * step's report, a design (the choose step's agent) or the roundtable (its reducer); undefined
 * for a task report, the skill's files, a command's result, anything else.
 */
export function phaseAgentOf(path: string, flow: Flow): string | undefined {
  for (const step of flow.steps) {
    if (step.kind === "choose") {
      if (path === REPORT.roundtable) return step.reducer;
      if (path.startsWith(`${REPORT.designsDir}/`) && /^[^/]+\.json$/.test(path.slice(REPORT.designsDir.length + 1)))
        return step.agent;
    } else if (
      (step.kind === "agent" || (step.kind === "check" && step.agent !== undefined)) &&
      step.reports.includes(path)
    )
      return step.agent;
  }
  return undefined;
}

/** A step with several reports (the reflection: JSON or Markdown): an agent recorded at work on one owns them all. */
const twins = (path: string, flow: Flow): readonly string[] =>
  flow.steps.find((s) => s.kind === "agent" && s.reports.includes(path))?.reports ?? [path];

/** Whether `owned` (phase.json `agent_reports`) covers `path`. */
export function isOwned(owned: readonly string[], path: string, flow: Flow): boolean {
  return twins(path, flow).some((p) => owned.includes(p));
}

export function unownedReason(path: string, flow: Flow): string {
  const agent = phaseAgentOf(path, flow) ?? "dotagent";
  return `${UNOWNED_PREFIX}${/^[aeiou]/.test(agent) ? "an" : "a"} ${agent} agent (dotagent recorded none at work on it)`;
}

const UNOWNED_PREFIX = "was not written by ";

/** Why `state` does not count because nobody was recorded at work on it, or undefined. */
export function unownedNote(state: ReportState): string | undefined {
  return state.status === "invalid" && state.reason.startsWith(UNOWNED_PREFIX) ? state.reason : undefined;
}

/**
 * The reports as the planner may count them: with `agent_reports` in phase.json, each phase
 * agent's report that is there but not on the list reads as invalid ("was not written by a qa
 * agent …") and drops out of the designs. Without the list: unchanged.
 */
export function ownedReports(reports: ReportSnapshot, phase: PhaseState): ReportSnapshot {
  const owned = phase.agent_reports;
  if (owned === undefined) return reports;
  const flow = flowOf(phase);
  let files: Map<string, ReportState> | undefined;
  for (const [path, state] of reports.files) {
    if (state.status === "missing" || phaseAgentOf(path, flow) === undefined || isOwned(owned, path, flow)) continue;
    files ??= new Map(reports.files);
    files.set(path, { status: "invalid", reason: unownedReason(path, flow) });
  }
  if (files === undefined) return reports;
  return { files, designs: reports.designs.filter((d) => isOwned(owned, d, flow)) };
}

/** The phase agents' reports there now: the list a workflow starts from when its first recorded agent starts (an upgraded workflow keeps what its agents wrote). */
export function presentAgentReports(reports: ReportSnapshot, flow: Flow): string[] {
  return [...reports.files]
    .filter(([path, state]) => state.status !== "missing" && phaseAgentOf(path, flow) !== undefined)
    .map(([path]) => path);
}

/** Where an unrecorded report goes when its agent starts: `memory/reports/unowned/<path under reports>`, numbered when taken. */
export function unownedCopyPath(path: string, taken: (candidate: string) => boolean): string {
  const rel = path.slice("memory/reports/".length);
  const dot = rel.lastIndexOf(".");
  const [stem, ext] = dot > rel.lastIndexOf("/") ? [rel.slice(0, dot), rel.slice(dot)] : [rel, ""];
  for (let n = 1; ; n++) {
    const candidate = `${UNOWNED_DIR}/${n === 1 ? rel : `${stem}.${n}${ext}`}`;
    if (!taken(candidate)) return candidate;
  }
}
