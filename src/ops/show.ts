// `dotagent show [REPORT|STEP|TASK]`: reports as Markdown for people (src/core/report-markdown.ts).
// Read-only: no lock, no writes; rendered on demand from the JSON the agents wrote, so it is never
// a stale second copy (SPEC §10 "show"). A report that does not parse is named with its reason,
// never rendered from a guess.
import { DotagentError, EXIT } from "../core/errors.js";
import { flowOf } from "../core/flow-of.js";
import { REPORT } from "../core/phases.js";
import {
  compareReports,
  MARKDOWN_STYLE,
  renderReportsMarkdown,
  type ReportMarkdownKind,
  type ReportStyle,
  type ReportToRender,
} from "../core/report-markdown.js";
import type { Step } from "../core/flow.js";
import { outputOf } from "../core/tasks.js";
import type { ExecutionState } from "../schema/execution.js";
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
  /** The document: Markdown, or in `style` when one was given (the CLI's terminal text, never in --json). */
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

/** A report's rework copies (`steps/TESTS.rework-1.json`, SPEC §20) are its step's too. */
const isCopyOf = (path: string, report: string) =>
  path.startsWith(report.replace(/\.(json|md)$/, ".rework-")) && /\.rework-\d+\.(json|md)$/.test(path);

/** The reports a step writes: a choose step its designs, roundtable and pick; a tasks step its plans and task reports; any other its reports and their rework copies. */
function ofStep(step: Step): (path: string) => boolean {
  if (step.kind === "choose") return (p) => NAMED.designs!(p) || p === REPORT.roundtable || p === REPORT.finalDesign;
  if (step.kind === "tasks") return (p) => NAMED.plan!(p) || NAMED.tasks!(p);
  return (p) => step.reports.some((r) => p === r || isCopyOf(p, r));
}

/** How a step's report reads: a command's result (check or shell with `run`), a checking agent's verdict, or by its path. */
function kindIn(step: Step | undefined, path: string): ReportMarkdownKind | undefined {
  if (step === undefined || !(step.kind === "check" || step.kind === "shell") || path.endsWith(".md")) return undefined;
  return step.run !== undefined ? "command" : "verification";
}

/** What `target` names: a report name, a step id of the workflow, a task id, or a path under memory/reports/. */
type Selection =
  | { readonly what: "name" | "path"; readonly select: (path: string) => boolean }
  | { readonly what: "step"; readonly step: Step; readonly select: (path: string) => boolean }
  | { readonly what: "task"; readonly output: string; readonly select: (path: string) => boolean };

function selectionFor(target: string, steps: readonly Step[], execution: ExecutionState | undefined): Selection {
  const named = NAMED[target.toLowerCase().replace(/\.json$/, "")];
  if (named !== undefined) return { what: "name", select: named };
  const step = steps.find((s) => s.id.toLowerCase() === target.toLowerCase());
  if (step !== undefined) return { what: "step", step, select: ofStep(step) };
  const task = execution?.tasks.find((t) => t.id === target);
  if (task !== undefined) {
    const output = outputOf(task);
    return { what: "task", output, select: (p) => p === output };
  }
  const path = target.startsWith("memory/reports/") ? target : `memory/reports/${target}`;
  return { what: "path", select: (p) => p === path };
}

/** Nothing there for the target: a step or task that has not written its report yet says so; anything else lists what show takes. */
function missing(target: string, selection: Selection, steps: readonly Step[]): DotagentError {
  if (selection.what === "step") {
    const reports =
      selection.step.kind === "choose"
        ? "its designs"
        : selection.step.kind === "tasks"
          ? "its plan or task reports"
          : selection.step.reports.join(" or ");
    return new DotagentError(
      "report_missing",
      `step ${selection.step.id} has no report yet (${reports}); \`dotagent status\` says where the workflow is`,
      EXIT.refused,
      { target },
    );
  }
  if (selection.what === "task")
    return new DotagentError(
      "report_missing",
      `task ${target} has no report yet (${selection.output}); \`dotagent tasks show ${target}\` shows where it is`,
      EXIT.refused,
      { target },
    );
  const ids = steps.map((s) => s.id).join(", ");
  return new DotagentError(
    "report_missing",
    `no report for "${target}" in memory/reports/; \`dotagent show\` (no argument) shows every report there; names: ${Object.keys(NAMED).join(", ")}, a step (${ids}), a task id or a path such as designs/minimal.json`,
    EXIT.refused,
    { target },
  );
}

export async function showReports(
  context: Pick<OpContext, "paths">,
  target: string | undefined,
  style: ReportStyle = MARKDOWN_STYLE,
): Promise<ShowResult> {
  const snapshot = await loadSnapshot(context.paths);
  const phase = snapshot.phase.kind === "ok" ? snapshot.phase.value : undefined;
  const flow = flowOf(phase ?? {});
  const execution = snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined;
  const there = listReportFiles(
    context.paths.root,
    flow.steps.flatMap((s) => (s.kind === "choose" || s.kind === "tasks" ? [] : s.reports)),
  );
  const selection = target === undefined ? undefined : selectionFor(target, flow.steps, execution);
  const chosen = there.filter((p) => selection === undefined || selection.select(p));
  if (target !== undefined && selection !== undefined && chosen.length === 0)
    throw missing(target, selection, flow.steps);
  // Each report's step (the first whose reports it is): the document follows the workflow's own order.
  const owners = flow.steps.map(ofStep);
  const read = readReports(
    context.paths.root,
    chosen.map((path) => ({ path, mode: "parse" as const })),
  );
  const valid: ReportToRender[] = [];
  const invalid: { path: string; reason: string }[] = [];
  for (const path of chosen) {
    const state = read.files.get(path);
    if (state?.status === "valid") {
      const at = owners.findIndex((owns) => owns(path));
      valid.push({
        path,
        data: state.data,
        kind: kindIn(flow.steps[at], path),
        step: at < 0 ? undefined : at,
        stepId: flow.steps[at]?.id,
      });
    } else if (state !== undefined && state.status !== "missing")
      invalid.push({ path, reason: "reason" in state ? state.reason : state.status });
  }
  valid.sort(compareReports);
  const title =
    phase === undefined
      ? "Workflow reports"
      : `Workflow ${phase.workflow_id}${target === undefined ? "" : `: ${target}`}`;
  const markdown = renderReportsMarkdown(title, valid, style, invalid);
  const order = valid.map((v) => v.path);
  return { target: target ?? null, reports: order, invalid, markdown };
}
