// `dotagent report [--out PATH]`: the picture of the run as one self-contained HTML page
// (src/core/run-report-html.ts). Reads phase.json, execution.json, events.jsonl, the check steps'
// reports (whether verification passed: src/core/run-story.ts) and what `dotagent run` keeps under
// memory/runs/; takes no lock and writes only the page (atomically,
// never through a link: write-file.ts; a page outside the project is written in the folder --out names).
// State that does not parse is drawn from what does (a corrupt execution.json: no tasks), since
// a picture of a broken run is what a person asks for most.
import { readProjectText } from "../store/read-file.js";
import { existsSync, lstatSync, readdirSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import { phasesOf } from "../core/phases.js";
import { formatDuration, renderRunReportHtml, runReportFacts, type RunReportInput } from "../core/run-report-html.js";
import { checkOutcomes, verificationOf, verificationWords, type CheckOutcome } from "../core/run-story.js";
import { count } from "../core/words.js";
import { flowOf } from "../core/flow-of.js";
import { taskRows } from "../core/task-list.js";
import { writeFileInside } from "../store/write-file.js";
import { readEvents } from "../store/events.js";
import { judgeRunningTasks } from "../store/process-facts.js";
import { loadSnapshot } from "../store/session.js";
import type { OpContext } from "./op-context.js";
import { listWorkflowRuns } from "./workflow-runs.js";
import type { StatusOutcome } from "./status.js";
import { cutOffOf, type CutOff } from "../core/step-standing.js";

export const DEFAULT_REPORT_PATH = "memory/report.html";

export interface RunReportResult {
  /** The page written, relative to the project root when inside it. */
  path: string;
  bytes: number;
  workflow_id: string | null;
  phase: string | null;
  tasks: number;
  /** Events that tell of an interruption or a repair (the page's table; run-story.ts decides, from their fields). */
  interruptions: number;
  /** The interruptions among them: work a session left cut off (an agent gone, a task orphaned or given back, …). */
  interruption_events: number;
  /** The repairs among them: a rollback, a hand edit kept, a resume that set right what was cut off, …. */
  repair_events: number;
  /** `resumed` events not counted: they repaired nothing and followed no interruption (dotagent planning the next step). */
  bookkeeping_resumes: number;
  /** Failures and reworks (a task failed or dead, a check sent back, a step failed, a merge conflict): the run's course, not interruptions. */
  failure_events: number;
  /** Whether the workflow is complete. */
  complete: boolean;
  /** The run's first and last moment (ISO): the last is its completion, or its last event while it is open; null: nothing recorded. */
  started_at: string | null;
  ended_at: string | null;
  /** Whether verification passed: true every check that ran passed, false one failed, null none yet (or no check step); each check's outcome. */
  verification: { passed: boolean | null; checks: CheckOutcome[] };
  /** Whether any cost was recorded (false: the page says why not). */
  cost_recorded: boolean;
  /**
   * What a kill left cut off that nothing has recorded yet (a `dotagent run` or a client killed,
   * not yet resumed), in `status`'s words; null when nothing is (step-standing.ts cutOffOf).
   */
  cut_off: CutOff | null;
}

/** What `dotagent run` recorded of cost: its session records hold none, so only their count is said. */
function costOf(root: string, workflowId: string | null): RunReportInput["cost"] {
  const dir = workflowId === null ? undefined : join(root, "memory", "runs", workflowId);
  let sessions = 0;
  try {
    if (dir !== undefined && existsSync(dir)) sessions = readdirSync(dir).filter((n) => n.endsWith(".json")).length;
  } catch {
    sessions = 0;
  }
  const hooks = "the Claude Code hooks record no token usage";
  // `dotagent run` keeps the SDK's estimate per workflow in its run memory (memory/runs/<id>/run.checkpoint.json).
  const memory = dir === undefined ? undefined : readRunCost(join(dir, "run.checkpoint.json"));
  if (memory !== undefined) {
    return {
      recorded: true,
      lines: [
        `about $${memory.cost.toFixed(2)} over ${memory.sessions} dotagent run session${memory.sessions === 1 ? "" : "s"} (the Claude Agent SDK's total_cost_usd: an estimate, not a bill)`,
        `sessions in Claude Code itself are not counted: ${hooks}`,
      ],
    };
  }
  return sessions > 0
    ? {
        recorded: false,
        why: `dotagent run kept ${sessions} session records under memory/runs/${workflowId}/, but they hold no cost or token counts; ${hooks}`,
      }
    : { recorded: false, why: `no dotagent run sessions under memory/runs/, and ${hooks}` };
}

function readRunCost(file: string): { cost: number; sessions: number } | undefined {
  const read = readProjectText(file, { maxBytes: 1024 * 1024, links: "refuse" });
  if (read.kind !== "ok") return undefined;
  try {
    const data = (JSON.parse(read.text) as { data?: { cost_usd?: unknown; costed_sessions?: unknown } }).data;
    const cost = data?.cost_usd;
    const sessions = data?.costed_sessions;
    return typeof cost === "number" &&
      Number.isFinite(cost) &&
      cost >= 0 &&
      typeof sessions === "number" &&
      Number.isSafeInteger(sessions) &&
      sessions > 0
      ? { cost, sessions }
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `start`: what starts a workflow, said when there is none (the CLI's words for a person); absent:
 * `dotagent init --request …`. `status`: status's reading of the same state, whose standing says
 * what a kill left cut off (absent: nothing is said of it).
 */
export async function writeRunReport(
  context: Pick<OpContext, "paths" | "now">,
  out: string | undefined,
  cwd: string,
  start?: string,
  status?: Pick<StatusOutcome, "view">,
): Promise<RunReportResult> {
  const snapshot = await loadSnapshot(context.paths);
  const now = context.now();
  const phase = snapshot.phase.kind === "ok" ? snapshot.phase.value : undefined;
  const execution = snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined;
  // Nothing to draw: said, and no empty page written (a corrupt phase.json still has a log and tasks to draw).
  const workflowRuns = listWorkflowRuns(context);
  if (
    snapshot.phase.kind === "missing" &&
    snapshot.execution.kind === "missing" &&
    !existsSync(context.paths.eventsFile) &&
    workflowRuns.length === 0
  ) {
    const remedy =
      start === undefined
        ? "start one with `dotagent init --request …` or pass --dir"
        : `start one: ${start} (or pass --dir)`;
    throw new DotagentError(
      "no_workflow",
      `no workflow here (memory/state holds no phase.json, execution.json or events.jsonl); ${remedy}`,
      EXIT.refused,
    );
  }
  const events = existsSync(context.paths.eventsFile) ? readEvents(context.paths.eventsFile) : [];
  const workflowId = phase?.workflow_id ?? execution?.workflow_id ?? null;
  const steps = flowOf(phase ?? {}).steps;
  const skipped = new Set((phase?.completed_phases ?? []).filter((c) => c.skipped === true).map((c) => c.phase));
  const tasks = taskRows(execution, execution === undefined ? undefined : judgeRunningTasks(snapshot, now));
  const view = status?.view;
  const cutOff = view == null ? null : cutOffOf(view.standing, view.phase, tasks);
  const input: RunReportInput = {
    workflowId,
    request: typeof phase?.request === "string" ? phase.request : null,
    currentPhase: phase?.current_phase ?? null,
    phaseStatus: phase?.phase_status ?? null,
    steps: phasesOf(phase ?? {}),
    completed: phase?.completed_phases ?? [],
    approvals: phase?.user_checkpoints ?? [],
    tasks,
    events,
    checks: checkOutcomes(steps, snapshot.reports, events, skipped),
    cost: costOf(context.paths.root, workflowId),
    generatedAt: now.toISOString(),
    workflowRuns,
    cutOff,
  };
  const html = renderRunReportHtml(input);
  const file = out === undefined ? join(context.paths.root, DEFAULT_REPORT_PATH) : resolve(cwd, out);
  let isDir = false;
  try {
    isDir = lstatSync(file).isDirectory();
  } catch {
    isDir = false;
  }
  if (isDir)
    throw new DotagentError(
      "usage",
      `${out ?? DEFAULT_REPORT_PATH} is a folder; give --out a file path such as report.html`,
      EXIT.usage,
      { path: file },
    );
  // Inside the project, its folders are checked from the root; elsewhere the person named the folder.
  const inProject = isInsideLexically(context.paths.root, file);
  try {
    writeFileInside(
      inProject ? context.paths.root : dirname(file),
      file,
      html,
      inProject ? {} : { within: "the folder --out names" },
    );
  } catch (error) {
    if (error instanceof DotagentError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    throw new DotagentError(
      "write_failed",
      `could not write ${file} (${code}); give --out a path in a folder that exists and you may write to`,
      EXIT.refused,
      { path: file, errno: code },
    );
  }
  const rel = relative(context.paths.root, file);
  const facts = runReportFacts(input);
  const iso = (t: number | undefined) => (t === undefined ? null : new Date(t).toISOString());
  return {
    path: rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : file,
    bytes: Buffer.byteLength(html),
    workflow_id: workflowId,
    phase: phase?.current_phase ?? null,
    tasks: input.tasks.length,
    interruptions: facts.interruptions.length,
    interruption_events: facts.interruptions.filter((s) => s.kind === "interruption").length,
    repair_events: facts.interruptions.filter((s) => s.kind === "repair").length,
    bookkeeping_resumes: facts.bookkeeping,
    failure_events: facts.story.filter((s) => s.kind === "failure").length,
    cost_recorded: input.cost.recorded,
    complete: facts.run.complete,
    started_at: iso(facts.run.start),
    ended_at: iso(facts.run.end),
    verification: { passed: facts.verification.passed, checks: [...facts.verification.checks] },
    cut_off: cutOff,
  };
}

/**
 * What `dotagent report` prints: after a kill not yet resumed, status's first line and what was
 * done before it; then `Wrote memory/report.html (N bytes): 3 tasks, 0 interruption or repair
 * events, verification passed, 3 min in all; cost not recorded.`; then `next` (status's Next line), if given.
 */
export function runReportLines(result: RunReportResult, next?: string | null): string[] {
  const cut = result.cut_off;
  if (cut === null) return [runReportLine(result)];
  const done = cut.finished.length === 0 ? "" : `; done before it: ${cut.finished.join(", ")}`;
  return [
    `Workflow ${result.workflow_id ?? "?"} at ${cut.step} phase (${cut.words})${done}.`,
    runReportLine(result).replace(
      / interruption or repair events?/,
      (m) => `${m} recorded (this one is recorded when the workflow goes on)`,
    ),
    ...(next == null ? [] : [next]),
  ];
}

function runReportLine(result: RunReportResult): string {
  const verdict = verificationWords(verificationOf(result.verification.checks));
  const took =
    result.started_at === null || result.ended_at === null
      ? null
      : `${formatDuration(Date.parse(result.ended_at) - Date.parse(result.started_at))} ${result.complete ? "in all" : "so far"}`;
  const told = [count(result.tasks, "task"), count(result.interruptions, "interruption or repair event"), verdict, took]
    .filter((p) => p !== null)
    .join(", ");
  return `Wrote ${result.path} (${result.bytes} bytes): ${told}; cost ${result.cost_recorded ? "included" : "not recorded"}.`;
}

/** Whether `file` lies below `root` by its path alone (links are write-file.ts's to judge). */
function isInsideLexically(root: string, file: string): boolean {
  const rel = relative(resolve(root), file);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}
