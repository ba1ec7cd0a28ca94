// `dotagent show [REPORT|STEP]`: reports as Markdown for people (src/core/report-markdown.ts).
// Read-only: no lock, no writes; rendered on demand from the JSON the agents wrote, so it is never
// a stale second copy (SPEC §10 "show"). A report that does not parse is named with its reason,
// never rendered from a guess.
import { DotagentError, EXIT } from "../core/errors.js";
import { flowOf } from "../core/flow-of.js";
import { REPORT } from "../core/phases.js";
import { escapeMarkdown, renderReportsMarkdown, reportOrder } from "../core/report-markdown.js";
import { listReportFiles, readReports } from "../store/reports.js";
import { loadSnapshot } from "../store/session.js";
import type { OpContext } from "./op-context.js";

export interface ShowResult {
  /** What was asked for: a report, a step id, or null for every report. */
  target: string | null;
  /** The reports shown, project-relative, in workflow order. */
  reports: string[];
  /** Reports there but not valid (not JSON, empty, …): `{path, reason}`; they are not rendered. */
  invalid: { path: string; reason: string }[];
  markdown: string;
}

const NAMED: Readonly<Record<string, (path: string) => boolean>> = {
  demand: (p) => p === REPORT.demand,
  requirements: (p) => p === REPORT.demand,
  designs: (p) => p.startsWith(`${REPORT.designsDir}/`),
  roundtable: (p) => p === REPORT.roundtable,
  final_design: (p) => p === REPORT.finalDesign,
  design: (p) => p === REPORT.finalDesign,
  plan: (p) => /^memory\/reports\/plan(\.rework-\d+)?\.json$/.test(p),
  tasks: (p) => p.startsWith(`${REPORT.tasksDir}/`),
  verification: (p) => /^memory\/reports\/verification(\.rework-\d+)?\.json$/.test(p),
  reflection: (p) => p === REPORT.reflectionJson || p === REPORT.reflectionMd,
};

/** Which report files `target` means, among those there: a name, a step id of the workflow, or a path. */
function selectorFor(target: string, steps: ReturnType<typeof flowOf>["steps"]): ((path: string) => boolean) | undefined {
  const named = NAMED[target.toLowerCase().replace(/\.json$/, "")];
  if (named !== undefined) return named;
  const step = steps.find((s) => s.id.toLowerCase() === target.toLowerCase());
  if (step !== undefined) {
    if (step.kind === "choose") return (p) => NAMED.designs!(p) || p === REPORT.roundtable || p === REPORT.finalDesign;
    if (step.kind === "tasks") return (p) => NAMED.plan!(p) || NAMED.tasks!(p);
    if (step.id === "VERIFICATION" || step.kind === "check") return (p) => step.reports.includes(p) || (step.reports.includes(REPORT.verification) && NAMED.verification!(p));
    return (p) => step.reports.includes(p);
  }
  const path = target.startsWith("memory/reports/") ? target : `memory/reports/${target}`;
  return (p) => p === path;
}

export async function showReports(context: Pick<OpContext, "paths">, target: string | undefined): Promise<ShowResult> {
  const snapshot = await loadSnapshot(context.paths);
  const phase = snapshot.phase.kind === "ok" ? snapshot.phase.value : undefined;
  const flow = flowOf(phase ?? {});
  const there = listReportFiles(context.paths.root);
  const select = target === undefined ? () => true : selectorFor(target, flow.steps);
  const chosen = there.filter((p) => select === undefined || select(p));
  if (target !== undefined && chosen.length === 0) {
    const steps = flow.steps.map((s) => s.id).join(", ");
    throw new DotagentError("report_missing", `no report for "${target}" in memory/reports/; \`dotagent show\` (no argument) shows every report there; names: ${Object.keys(NAMED).join(", ")}, a step (${steps}) or a path such as designs/minimal.json`, EXIT.refused, { target });
  }
  const read = readReports(context.paths.root, chosen.map((path) => ({ path, mode: "parse" as const })));
  const valid: { path: string; data: unknown }[] = [];
  const invalid: { path: string; reason: string }[] = [];
  for (const path of chosen) {
    const state = read.files.get(path);
    if (state?.status === "valid") valid.push({ path, data: state.data });
    else if (state !== undefined && state.status !== "missing") invalid.push({ path, reason: "reason" in state ? state.reason : state.status });
  }
  valid.sort((a, b) => reportOrder(a.path) - reportOrder(b.path) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const title = phase === undefined ? "Workflow reports" : `Workflow ${phase.workflow_id}${target === undefined ? "" : `: ${target}`}`;
  let markdown = renderReportsMarkdown(title, valid);
  if (invalid.length > 0) markdown += `\n## Not shown\n\n${invalid.map((i) => `- ${escapeMarkdown(i.path)}: ${escapeMarkdown(i.reason)}`).join("\n")}\n`;
  const order = valid.map((v) => v.path);
  return { target: target ?? null, reports: order, invalid, markdown };
}
