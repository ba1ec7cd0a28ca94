// Validation rules of CONTRACT §9 over a StateSnapshot. Errors mean the state cannot be trusted;
// warnings are facts a person should know. Each problem names the file and the JSON path.
import { phaseIndexIn, phasesOf, specOf } from "./phases.js";
import { checkProjectPath, reportAt, type ReportSnapshot } from "./reports.js";
import { findCycle, indexTasks, outputOf } from "./tasks.js";
import type { FileProblem, StateSnapshot } from "./snapshot.js";
import type { PhaseState } from "../schema/phase.js";
import type { ExecutionState, Task } from "../schema/execution.js";

export interface Problem extends FileProblem {
  readonly code: string;
}

/** One line for a person: `file: json.path: message`. */
export function formatProblem(problem: Pick<Problem, "file" | "path" | "message">): string {
  return `${problem.file}${problem.path ? `: ${problem.path}` : ""}: ${problem.message}`;
}

export interface ValidationReport {
  readonly errors: Problem[];
  readonly warnings: Problem[];
}

export interface ValidateOptions {
  /** State whose last activity is older than this is stale; Infinity turns the check off. */
  readonly staleAfterMs: number;
}

export const FUTURE_SKEW_MS = 5 * 60 * 1000;
export const DEFAULT_STALE_AFTER_MS = 7 * 24 * 60 * 60 * 1000;
const PHASE_FILE = "memory/state/phase.json";
const EXECUTION_FILE = "memory/state/execution.json";
export const CLEARING_FILE = "memory/state/.clearing";
export const ROLLBACK_JOURNAL_FILE = "memory/state/.rollback/journal.json";

export function lastActivity(phase: PhaseState | undefined, execution: ExecutionState | undefined): string | undefined {
  const times = [phase?.last_updated, execution?.updated_at].filter((t): t is string => typeof t === "string");
  if (times.length === 0) return undefined;
  return times.reduce((a, b) => (Date.parse(a) >= Date.parse(b) ? a : b));
}

export function validateState(snapshot: StateSnapshot, now: Date, options: ValidateOptions): ValidationReport {
  const errors: Problem[] = [];
  const warnings: Problem[] = [];
  if (snapshot.clearing) {
    const { archive, problem } = snapshot.clearing;
    if (problem !== null) {
      errors.push({
        code: "clearing_invalid",
        file: CLEARING_FILE,
        path: "",
        message: `${problem}: nothing proves the state was archived, so it is not cleared; archive it with \`dotagent archive\` (or remove the marker if the state is to be kept)`,
      });
    } else {
      // What is left is being discarded (it is safe in the archive): nothing to check but that.
      return {
        errors,
        warnings: [
          {
            code: "clear_interrupted",
            file: CLEARING_FILE,
            path: "",
            message: `clearing the live state after archiving it as ${archive} was cut off; \`dotagent resume\` finishes it`,
          },
        ],
      };
    }
  }
  const error = (code: string, file: string, path: string, message: string) =>
    errors.push({ code, file, path, message });
  const warn = (code: string, file: string, path: string, message: string) =>
    warnings.push({ code, file, path, message });
  if (snapshot.rollback) {
    // The snapshot is already the state the rollback leaves: validated as such below.
    warn(
      "rollback_interrupted",
      ROLLBACK_JOURNAL_FILE,
      "",
      `a rollback to ${snapshot.rollback.to} (started ${snapshot.rollback.started_at}) was cut off after its commit point; \`dotagent resume\` (or any command that changes state) finishes it first; shown here as it will be`,
    );
  }

  for (const read of [snapshot.phase, snapshot.execution]) {
    if (read.kind === "corrupt") for (const p of read.problems) errors.push({ code: "corrupt", ...p });
  }
  const phase = snapshot.phase.kind === "ok" ? snapshot.phase.value : undefined;
  const execution = snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined;
  const limit = now.getTime() + FUTURE_SKEW_MS;
  const checkTime = (file: string, path: string, value: string | null | undefined): number | undefined => {
    if (typeof value !== "string") return undefined;
    const t = Date.parse(value);
    if (t > limit) error("future_timestamp", file, path, inTheFuture(value));
    return t;
  };
  const checkPath = (
    file: string,
    path: string,
    value: string | null | undefined,
    reports: ReportSnapshot,
    mustExist: boolean,
  ) => {
    const problem = pathProblem(value, reports, mustExist);
    if (problem !== undefined) error(problem.code, file, path, problem.message);
  };

  if (phase !== undefined) validatePhase(phase, snapshot.reports, checkTime, checkPath, error, warn);
  // A plan checked under the same lock against these very reports, no later than now (snapshot.ts `checked`).
  const checked =
    snapshot.checked !== undefined &&
    snapshot.checked.reports === snapshot.reports &&
    snapshot.checked.at <= now.getTime()
      ? snapshot.checked.execution
      : undefined;
  if (execution !== undefined) validateExecution(execution, snapshot.reports, limit, checkTime, error, warn, checked);
  if (snapshot.phase.kind === "missing" && execution !== undefined) {
    error(
      "no_phase_state",
      EXECUTION_FILE,
      "",
      "execution.json exists but phase.json does not; restore phase.json or archive with `dotagent archive`",
    );
  }
  if (phase !== undefined && execution !== undefined && phase.workflow_id !== execution.workflow_id) {
    error(
      "workflow_mismatch",
      EXECUTION_FILE,
      "workflow_id",
      `is ${execution.workflow_id} but phase.json says ${phase.workflow_id}; the files belong to different workflows`,
    );
  }
  const last = lastActivity(phase, execution);
  if (last !== undefined && now.getTime() - Date.parse(last) > options.staleAfterMs) {
    warn("stale", PHASE_FILE, "last_updated", `last activity ${last} is older than the stale limit`);
  }
  for (const file of snapshot.handEdits ?? []) {
    warn(
      "hand_edit",
      file,
      "",
      "changed outside dotagent: its bytes differ from what dotagent last wrote (an edit by hand or by the model); `dotagent resume` asks whether to keep it or go back to the newest checkpoint (`dotagent history`)",
    );
  }
  for (const name of snapshot.tempFiles)
    warn(
      "temp_file",
      `memory/state/${name}`,
      "",
      "leftover temp file of a killed process (removed by the next command that takes the lock)",
    );
  return { errors, warnings };
}

const inTheFuture = (value: string) =>
  `${value} is in the future (more than 5 minutes ahead of this machine's clock); fix the time or the clock`;

/** What is wrong with a path the state names (outside the project; missing when it must exist), if anything. */
function pathProblem(
  value: string | null | undefined,
  reports: ReportSnapshot,
  mustExist: boolean,
): { code: string; message: string } | undefined {
  if (typeof value !== "string") return undefined;
  const lexical = checkProjectPath(value);
  if (!lexical.ok) return { code: "path_outside", message: `${value} ${lexical.reason}` };
  const state = reportAt(reports, lexical.path);
  if (state.status === "outside") return { code: "path_outside", message: `${value} ${state.reason}` };
  if (mustExist && state.status === "missing")
    return {
      code: "output_missing",
      message: `${value} does not exist; restore it, or archive this state with \`dotagent archive\``,
    };
  return undefined;
}

type TimeCheck = (file: string, path: string, value: string | null | undefined) => number | undefined;
type PathCheck = (
  file: string,
  path: string,
  value: string | null | undefined,
  reports: ReportSnapshot,
  mustExist: boolean,
) => void;
type Report = (code: string, file: string, path: string, message: string) => void;

function validatePhase(
  phase: PhaseState,
  reports: ReportSnapshot,
  checkTime: TimeCheck,
  checkPath: PathCheck,
  error: Report,
  warn: Report,
): void {
  const f = PHASE_FILE;
  const started = checkTime(f, "started_at", phase.started_at);
  const updated = checkTime(f, "last_updated", phase.last_updated);
  if (started !== undefined && updated !== undefined && updated < started)
    error("time_order", f, "last_updated", `${phase.last_updated} is before started_at ${phase.started_at}`);
  let previous = started;
  const PHASES = phasesOf(phase);
  const last = PHASES[PHASES.length - 1]!;
  phase.completed_phases.forEach((completed, i) => {
    const path = `completed_phases[${i}]`;
    const expected = PHASES[i];
    if (completed.phase !== expected) {
      const seen = phase.completed_phases.slice(0, i).some((c) => c.phase === completed.phase);
      error(
        "phase_order",
        f,
        `${path}.phase`,
        seen
          ? `${completed.phase} is listed twice`
          : `is ${completed.phase} but phases complete in order: expected ${expected ?? `nothing after ${last}`}`,
      );
    }
    const at = checkTime(f, `${path}.completed_at`, completed.completed_at);
    if (at !== undefined && previous !== undefined && at < previous)
      error(
        "time_order",
        f,
        `${path}.completed_at`,
        `${completed.completed_at} is before the ${i === 0 ? "workflow started" : "previous phase completed"}`,
      );
    if (at !== undefined) previous = at;
    checkPath(f, `${path}.output`, completed.output, reports, true);
    if (
      specOf(phase, completed.phase).gate &&
      !completed.skipped &&
      !phase.user_checkpoints.some((c) => c.phase === completed.phase)
    ) {
      warn("not_approved", f, `${path}.phase`, `${completed.phase} was completed without a user approval`);
    }
  });
  const done = phase.completed_phases.length;
  const current = phaseIndexIn(phase, phase.current_phase);
  const complete = done === PHASES.length && current === PHASES.length - 1 && phase.phase_status === "complete";
  if (!complete && done <= PHASES.length && current !== done && done < PHASES.length) {
    error(
      "phase_order",
      f,
      "current_phase",
      `is ${phase.current_phase} but after ${done === 0 ? "no completed phase" : PHASES[done - 1]} the current phase must be ${PHASES[done]}`,
    );
  } else if (done === PHASES.length && !complete) {
    error(
      "phase_order",
      f,
      "phase_status",
      `every phase is complete, so phase_status must be complete with current_phase ${last}`,
    );
  }
  phase.user_checkpoints.forEach((c, i) => checkTime(f, `user_checkpoints[${i}].approved_at`, c.approved_at));
  if (!phase.interruption_safe)
    warn(
      "interruption_unsafe",
      f,
      "interruption_safe",
      "is false: a change was cut off; `dotagent resume` finishes or undoes it",
    );
  const pending = phase.pending_transition;
  if (pending) {
    checkTime(f, "pending_transition.started_at", pending.started_at);
    pending.moves?.forEach((m, i) => {
      checkPath(f, `pending_transition.moves[${i}].from`, m.from, reports, false);
      checkPath(f, `pending_transition.moves[${i}].to`, m.to, reports, false);
    });
  }
  if (phase.rework) checkPath(f, "rework.verification", phase.rework.verification, reports, false);
  // The current phase's report is work in progress (an agent may be writing it): a warning that
  // names it, so `validate` says why the phase will not complete yet.
  if (phase.phase_status !== "complete") {
    for (const output of specOf(phase, phase.current_phase).outputs) {
      const state = reportAt(reports, output);
      if (state.status === "invalid" || state.status === "outside")
        warn(
          "report_invalid",
          output,
          "",
          `${output} ${state.reason}; the ${phase.current_phase} phase cannot complete until it is fixed`,
        );
    }
  }
}

function validateExecution(
  execution: ExecutionState,
  reports: ReportSnapshot,
  limit: number,
  checkTime: TimeCheck,
  error: Report,
  warn: Report,
  checked?: ExecutionState,
): void {
  const f = EXECUTION_FILE;
  checkTime(f, "updated_at", execution.updated_at);
  const { tasks } = execution;
  const taskLimit = limitOf(limit);
  // The same ids and dependencies as a checked plan: ids unique, dependencies known, no cycle, as
  // then; a task that is the very object it was kept its own checks too (snapshot.ts `checked`).
  if (checked !== undefined && sameGraph(checked.tasks, tasks)) {
    for (let i = 0; i < tasks.length; i++)
      if (tasks[i] !== checked.tasks[i]) validateTask(tasks[i]!, i, reports, taskLimit, error);
  } else {
    // Each id's first position: the plan's own index (tasks.ts), which the planner reuses.
    const seen = indexTasks(tasks);
    for (let i = 0; i < tasks.length; i++) {
      const first = seen.get(tasks[i]!.id)!;
      if (first !== i)
        error(
          "duplicate_task",
          f,
          `tasks[${i}].id`,
          `${tasks[i]!.id} is also tasks[${first}].id; task ids must be unique`,
        );
    }
    for (let i = 0; i < tasks.length; i++) {
      const task = tasks[i]!;
      const deps = task.depends_on ?? [];
      for (let j = 0; j < deps.length; j++) {
        const dep = deps[j]!;
        if (!seen.has(dep))
          error(
            "unknown_dependency",
            f,
            `tasks[${i}].depends_on[${j}]`,
            `${task.id} depends on ${dep}, which is not a task`,
          );
        if (dep === task.id)
          error("dependency_cycle", f, `tasks[${i}].depends_on[${j}]`, `${task.id} depends on itself`);
      }
      validateTask(task, i, reports, taskLimit, error);
    }
    const cycle = findCycle(tasks);
    if (cycle !== undefined && cycle.length > 2) {
      const i = seen.get(cycle[0]!) ?? 0;
      error("dependency_cycle", f, `tasks[${i}].depends_on`, `dependencies form a cycle: ${cycle.join(" → ")}`);
    }
  }
  (execution.plans ?? []).forEach((plan, i) => checkTime(f, `plans[${i}].recorded_at`, plan.recorded_at));
  if (!execution.interruption_safe)
    warn(
      "interruption_unsafe",
      f,
      "interruption_safe",
      "is false: a change was cut off; `dotagent resume` finishes or undoes it",
    );
}

/** Whether two plans have the same tasks, by id and dependencies, in the same order. */
function sameGraph(before: readonly Task[], after: readonly Task[]): boolean {
  if (before.length !== after.length) return false;
  for (let i = 0; i < after.length; i++) {
    const a = before[i]!;
    const b = after[i]!;
    if (a === b) continue;
    if (a.id !== b.id) return false;
    const x = a.depends_on ?? [];
    const y = b.depends_on ?? [];
    if (x !== y && (x.length !== y.length || x.some((dep, j) => dep !== y[j]))) return false;
  }
  return true;
}

/**
 * One task's own checks: its times and its output. Written out, not through checkTime and
 * checkPath: a JSON path is built only for a problem (10,000 tasks, three paths each).
 */
function validateTask(task: Task, i: number, reports: ReportSnapshot, limit: Limit, error: Report): void {
  const f = EXECUTION_FILE;
  const { started_at: startedAt, completed_at: completedAt } = task;
  if (typeof startedAt === "string" && pastLimit(startedAt, limit))
    error("future_timestamp", f, `tasks[${i}].started_at`, inTheFuture(startedAt));
  if (typeof completedAt === "string" && pastLimit(completedAt, limit))
    error("future_timestamp", f, `tasks[${i}].completed_at`, inTheFuture(completedAt));
  if (typeof startedAt === "string" && typeof completedAt === "string" && earlier(completedAt, startedAt))
    error("time_order", f, `tasks[${i}].completed_at`, `${completedAt} is before started_at ${startedAt}`);
  const complete = task.status === "complete";
  const problem = pathProblem(complete ? outputOf(task) : task.output, reports, complete);
  if (problem !== undefined) error(problem.code, f, `tasks[${i}].output`, problem.message);
}

/** The latest time a timestamp may name, in ms and in toISOString's form. */
interface Limit {
  readonly ms: number;
  readonly iso: string | undefined;
}

function limitOf(ms: number): Limit {
  const at = new Date(ms);
  const year = at.getUTCFullYear();
  return { ms, iso: year >= 0 && year <= 9999 ? at.toISOString() : undefined };
}

// A 10,000-task plan holds some 18,000 timestamps, and Date.parse costs some 3,600 instructions a
// call. Two valid timestamps in toISOString's own form (24 characters: a four-digit year, ".sss",
// "Z"; the schema checked that they are valid) are in time order exactly when they are in string
// order, so a string comparison answers the usual "no"; Date.parse decides every other case.

/** Date.parse(time) > limit.ms. */
function pastLimit(time: string, limit: Limit): boolean {
  if (limit.iso !== undefined && isoForm(time) && time <= limit.iso) return false;
  return Date.parse(time) > limit.ms;
}

/** Date.parse(a) < Date.parse(b). */
function earlier(a: string, b: string): boolean {
  if (isoForm(a) && isoForm(b) && a >= b) return false;
  return Date.parse(a) < Date.parse(b);
}

const isoForm = (t: string) => t.length === 24 && t.charCodeAt(23) === 0x5a && t.charCodeAt(19) === 0x2e;
