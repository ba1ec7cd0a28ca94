import { leftOutNote } from "../../core/worktrees.js";
import { readStatus, type StatusResult, type StatusView } from "../../ops/status.js";
import { escapeControls } from "../../core/words.js";
import { phaseBar } from "../phase-bar.js";
import { standingWords } from "../../core/step-standing.js";
import { personNextOf, personReading } from "../person-next.js";
import { outputWidth } from "../table.js";
import { listLines } from "../task-table.js";
import type { OpSummary } from "../../store/op-records.js";
import { planLines, type PlanExtras } from "../render-plan.js";
import { resumeOptions } from "../resume-options.js";
import { opContext, type Command } from "../context.js";
import { claimsFor } from "./claims.js";
import { listWorkflowRuns } from "../../ops/workflow-runs.js";
import { statusRunLines } from "../../core/workflow-run-view.js";

export const command: Command = {
  summary: "show where the workflow is; takes no lock and never writes",
  positionals: "none",
  usage: "dotagent status [--stale-after 7d|never] [--claims [--remote NAME]] [--json]",
  options: { "stale-after": { type: "string" }, claims: { type: "boolean" }, remote: { type: "string" } },
  examples: [
    "dotagent status",
    "dotagent status --json          the resume plan (as resume --dry-run) plus task counts",
    "dotagent status --dir ../other-project",
    "dotagent status --claims        and which machine holds which task, from the git remote",
  ],
  async run(context) {
    const outcome = await readStatus(opContext(context), resumeOptions(context).staleAfterMs);
    const { result, plan, approvedNeeds, flow } = outcome;
    // --claims: the remote's claims too (SPEC §23); without it status stays offline.
    const claims = await claimsFor(context, result.workflow_id);
    context.out.result(claims ? { ...result, claims: claims.list } : result, () => {
      const view = outcome.view;
      const driver = personReading(context);
      const person =
        driver === null
          ? null
          : personNextOf(plan.next, approvedNeeds, driver, flow, outcome.liveRun, outcome.runApproves);
      const live = outcome.liveRun;
      const lines = planLines(plan, context.out.color, "status", flow, {
        taskCounts: result.tasks,
        ...(view ? viewExtras(view) : {}),
        next: person,
        // Beside a live run its next records read as news, not as something broken to repair.
        ...(live === null ? {} : { repairsHeading: `dotagent run (pid ${live.pid}) records next:` }),
      });
      // An approval given before the gate's output was written: say what is still missing instead.
      const next = lines.findIndex((l) => l.startsWith("Next: "));
      if (person === null && approvedNeeds !== null && next >= 0)
        lines[next] =
          `Next: ${context.out.color.cyan(approvedNeeds.split(" — ")[0]!)} — ${approvedNeeds.split(" — ").slice(1).join(" — ")}`;
      // Claude Code's own Workflow runs (SPEC §11): a block only when some are recorded.
      return [
        ...lines,
        ...worktreeLines(result),
        ...opLines(result.ops),
        ...statusRunLines(listWorkflowRuns(context)),
        ...(claims ? ["", ...claims.lines()] : []),
      ];
    });
    return 0;
  },
};

/** The most tasks `status` lists; a longer plan is counted, and `dotagent tasks` lists it. */
export const STATUS_TABLE_MAX = 8;

/** For people: the phase bar and the request in place of the Completed line, and a short plan's task table. */
function viewExtras(view: StatusView): PlanExtras {
  const { phase, tasks } = view;
  const done = (tasks.counts.complete ?? 0) + (tasks.counts.skipped ?? 0);
  const bar = phaseBar({
    steps: view.steps,
    current: phase.current_phase,
    status: phase.phase_status,
    completed: phase.completed_phases,
    tasks: view.tasksStep === null ? undefined : { step: view.tasksStep, done, total: tasks.total },
  });
  const progress = [bar, ...(view.request === null ? [] : [`Request: ${oneLine(view.request)}`])];
  // The first line tells the bar's story: the step as stored and what its work is doing (what resume would repair is listed below it).
  const at = { phase: phase.current_phase, words: standingWords(view.standing) };
  if (tasks.total === 0) return { progress, at };
  // listLines' first line repeats the counts the Tasks line already gives.
  const taskTable =
    tasks.total <= STATUS_TABLE_MAX
      ? listLines(tasks, outputWidth() - 2)
          .slice(1)
          .map((l) => `  ${l}`)
      : ["  (`dotagent tasks` lists them)"];
  return { progress, taskTable, at };
}

/** The request on one line, cut at 100 characters (the whole text is phase.json's `request`). */
function oneLine(text: string): string {
  const flat = escapeControls(text.replace(/\s+/g, " ").trim());
  return flat.length > 100 ? `${flat.slice(0, 99)}…` : flat;
}

/** How the round's tasks run, and each task's worktree (SPEC §19). */
function worktreeLines(result: StatusResult): string[] {
  const lines: string[] = [];
  const iso = result.isolation;
  if (iso)
    lines.push(
      iso.mode === "worktree"
        ? `Isolation: each task in its own git worktree, merged into ${iso.branch} (round ${iso.round})`
        : `Isolation: none, tasks share the checkout (${iso.reason ?? "shared"})`,
    );
  const shown = result.worktrees.filter((w) => w.status !== "complete" || w.merge !== "merged");
  const merged = result.worktrees.length - shown.length;
  if (shown.length === 0 && merged === 0) return lines;
  lines.push(`Worktrees:${merged > 0 ? ` ${merged} merged and removed` : ""}`);
  const rows = shown.map((w) => [
    w.task,
    w.status,
    w.path,
    w.branch,
    w.merge === "conflict" ? `conflict: ${(w.files ?? []).join(", ")}` : w.merge === "merging" ? "merging" : "",
  ]);
  const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows)
    lines.push(
      `  ${r
        .map((c, i) => (i < 4 ? c.padEnd(widths[i]!) : c))
        .join("  ")
        .trimEnd()}`,
    );
  for (const w of result.worktrees)
    if (w.left_out) lines.push(`  ${w.task} merged; its landing ${leftOutNote(w.left_out.files, w.left_out.commit)}`);
  return lines;
}

/** Side effects (`dotagent once`) that are not done: a person must settle the unknown ones. */
function opLines(ops: readonly OpSummary[]): string[] {
  return ops.map(
    (op) =>
      `Op ${op.op_id}: ${op.status === "unknown" ? "cut off mid-run, did it happen? run `dotagent once " + op.op_id + "` to decide" : op.status}`,
  );
}
