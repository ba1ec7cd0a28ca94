// Everything the pure core knows about a project at one moment: the two state files as read
// (missing, ok or corrupt), the reports, and leftover temp files. The store builds it; the planner
// and validation read it.
import type { SchemaProblem } from "../schema/common.js";
import type { PhaseState } from "../schema/phase.js";
import type { ExecutionState } from "../schema/execution.js";
import { REPORT } from "./phases.js";
import type { ReportSnapshot } from "./reports.js";
import { outputOf } from "./tasks.js";
import { flowOf } from "./flow-of.js";

/** The instance a phase.json belongs to: its `instance_id`, or (written before instance ids) its start time. */
export function instanceKey(phase: Pick<PhaseState, "instance_id" | "started_at">): string {
  return phase.instance_id ?? `started:${phase.started_at}`;
}

export interface FileProblem extends SchemaProblem {
  /** Project-relative file, like memory/state/phase.json. */
  readonly file: string;
}

/**
 * `sha256`: the digest of the very bytes read from disk, which decides whether dotagent wrote them
 * (store/last-write.ts); null when the file was refused unread (a link, over the size bound);
 * absent when the state was not read from disk (held in memory, a pending rollback's).
 */
export type FileRead<T> =
  | { readonly kind: "missing"; readonly file: string }
  | {
      readonly kind: "ok";
      readonly file: string;
      readonly value: T;
      readonly stamp: string;
      readonly sha256?: string | null;
    }
  | {
      readonly kind: "corrupt";
      readonly file: string;
      readonly problems: FileProblem[];
      readonly stamp: string;
      readonly sha256?: string | null;
    };

/**
 * memory/state/.clearing as read: the archive it names and, when the marker proves nothing (it
 * does not parse, names no archive, or the archive is not there), the problem. A clear is only
 * ever finished from a marker without a problem, and only for what that archive verifiably holds.
 */
export interface Clearing {
  readonly archive: string | null;
  readonly problem: string | null;
}

export interface StateSnapshot {
  readonly phase: FileRead<PhaseState>;
  readonly execution: FileRead<ExecutionState>;
  readonly reports: ReportSnapshot;
  readonly tempFiles: readonly string[];
  /**
   * Set when a fresh start was cut off after the old state was archived but before the live
   * state was cleared (memory/state/.clearing names the archive): the rest is being discarded.
   */
  readonly clearing?: Clearing | null;
  /**
   * Set when a rollback was cut off after its commit point (memory/state/.rollback/journal.json):
   * the state files and reports above are then the state that rollback leaves, which the next
   * command that takes the lock finishes writing before anything else.
   */
  readonly rollback?: PendingRollbackView | null;
  /**
   * The state files (project-relative) whose bytes differ from what dotagent last wrote
   * (memory/state/.last-write.json): changed by hand, by the model or a person (SPEC §9 `hand_edit`).
   */
  readonly handEdits?: readonly string[];
  /**
   * The execution.json this one was made from by a command holding the lock, which validation
   * passed without errors, against these very reports, at `at` (ms) or before: a task that is the
   * same object in both, in a plan whose ids and dependencies did not change, kept §9's rules then
   * and keeps them now, so validation checks only the tasks that differ (validate.ts). Set by
   * loadSnapshot for a command's own step after its write (store/session.ts HeldRead).
   */
  readonly checked?: { readonly execution: ExecutionState; readonly reports: ReportSnapshot; readonly at: number };
}

export interface PendingRollbackView {
  /** What the rollback goes back to, e.g. "the start of ARCHITECTURE". */
  readonly to: string;
  readonly started_at: string;
}

export interface ReportRequest {
  readonly path: string;
  readonly mode: "parse" | "exists";
  /** A check step's report (a boolean `passed` required), when its path does not say so (SPEC §20). */
  readonly check?: boolean;
}

const PHASE_OUTPUTS = [
  REPORT.demand,
  REPORT.roundtable,
  REPORT.finalDesign,
  REPORT.verification,
  REPORT.reflectionJson,
  REPORT.reflectionMd,
];

/**
 * The report files the planner and validation look at for this state: the phase outputs, the
 * outputs the state refers to, task outputs (parsed for running tasks, whose output decides
 * recovery; existence only for complete ones), then `extra`, in one array (at 10,000 tasks a copy
 * with `extra` spread in was 9,000 more slots for nothing).
 */
export function reportRequests(
  phase: PhaseState | undefined,
  execution: ExecutionState | undefined,
  extra: readonly ReportRequest[] = [],
): ReportRequest[] {
  const requests: ReportRequest[] = PHASE_OUTPUTS.map((path) => ({ path, mode: "parse" }));
  // A pinned workflow's own reports (its agent, check and shell steps'): read like develop's.
  if (phase?.workflow !== undefined) {
    for (const step of flowOf(phase).steps) {
      for (const path of step.reports)
        if (path.startsWith("memory/reports/") && !PHASE_OUTPUTS.includes(path as never))
          requests.push({
            path,
            mode: "parse",
            ...(step.kind === "check" || step.kind === "shell" ? { check: true } : {}),
          });
    }
  }
  for (const completed of phase?.completed_phases ?? [])
    if (completed.output) requests.push({ path: completed.output, mode: "exists" });
  for (const move of phase?.pending_transition?.moves ?? [])
    requests.push({ path: move.from, mode: "exists" }, { path: move.to, mode: "exists" });
  if (phase?.rework?.verification) requests.push({ path: phase.rework.verification, mode: "exists" });
  for (const task of execution?.tasks ?? []) {
    const request = taskRequest(task);
    if (request !== undefined) requests.push(request);
  }
  for (const request of extra) requests.push(request);
  return requests;
}

/** The report a task's status asks for: a running task's output parsed, a complete one's there. */
function taskRequest(task: ExecutionState["tasks"][number]): ReportRequest | undefined {
  if (task.status === "running") return { path: outputOf(task), mode: "parse" };
  if (task.status === "complete") return { path: outputOf(task), mode: "exists" };
  return undefined;
}

/**
 * Whether `reports`, read for phase.json `phase` and a plan `read`, answer every report of that
 * phase.json and `execution` (made from `read`): the phase's and those of the tasks that are not
 * the very objects they were, when the plan kept its length; else every one.
 */
export function reportsCoverChange(
  reports: ReportSnapshot,
  phase: PhaseState,
  execution: ExecutionState,
  read: ExecutionState | undefined,
): boolean {
  if (read === undefined || read.tasks.length !== execution.tasks.length)
    return reportsCover(reports, reportRequests(phase, execution));
  if (!reportsCover(reports, reportRequests(phase, undefined))) return false;
  for (let i = 0; i < execution.tasks.length; i++) {
    const task = execution.tasks[i]!;
    const request = task === read.tasks[i] ? undefined : taskRequest(task);
    if (request !== undefined && !answers(reports, request)) return false;
  }
  return true;
}

/**
 * Whether `reports` answer every request (a parsed report answers an existence request too), so a
 * reader holding them needs no second reading for this state.
 */
export function reportsCover(reports: ReportSnapshot, requests: Iterable<ReportRequest>): boolean {
  for (const request of requests) if (!answers(reports, request)) return false;
  return true;
}

function answers(reports: ReportSnapshot, request: ReportRequest): boolean {
  const state = reports.files.get(request.path);
  return state !== undefined && (request.mode === "exists" || state.status !== "exists");
}
