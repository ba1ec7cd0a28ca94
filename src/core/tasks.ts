// Task-level operations on execution.json, all pure: (state, arguments, now) → new state or a
// refusal. Linear in the number of tasks: lookups by id go through one id → position index per
// tasks array (indexTasks), built the first time it is asked for and kept with the array, so a
// command that asks about every task builds it once, not once per task (issue 41: 10,000 tasks
// took 40 s that way). test/scale.test.ts counts the work and fails when it grows faster than the plan.
import { DEFAULT_MAX_ATTEMPTS } from "../schema/json.js";
import type { ExecutionState, Task } from "../schema/execution.js";
import { isValidReport, reportAt, type ReportSnapshot } from "./reports.js";
import { taskOutputPath } from "./phases.js";
import { describeOwner, isInFlight, type Owner, type OwnerVerdict, type OwnerVerdicts } from "./ownership.js";
import { oneLine } from "./words.js";
import type { ErrorCode } from "./error-codes.js";

export type TaskResult =
  { ok: true; state: ExecutionState; events: TaskEvent[] } | { ok: false; code: ErrorCode; message: string };
export interface TaskEvent {
  type: string;
  task_id: string;
  [key: string]: unknown;
}

export interface NewTask {
  id: string;
  title?: string | undefined;
  depends_on?: readonly string[] | undefined;
}

/** The CLI's recording actions, and `release`: the headless runner gives back the tasks it stopped (Ctrl-C). */
export type TaskAction = "add" | "import" | "start" | "complete" | "fail" | "retry" | "release";

export interface TaskChange {
  readonly action: TaskAction;
  /** The task (every action but import), already checked with checkTaskId. */
  readonly id?: string | undefined;
  readonly title?: string | undefined;
  readonly dependsOn?: readonly string[] | undefined;
  readonly output?: string | undefined;
  readonly error?: string | undefined;
  readonly extraAttempts?: number | undefined;
  /** `start`: the pid that runs the task (default: this Claude Code session or this process); `release`: the pid that owns it. */
  readonly owner?: number | undefined;
  /** `import`: the plan, validated by parseTaskPlan. */
  readonly tasks?: readonly NewTask[] | undefined;
}

/** A stale output file moved aside before a start (its name keeps the attempt and the time). */
export interface SetAside {
  readonly from: string;
  readonly to: string;
}

/** `task next --json`: ready tasks in dependency order. */
export interface NextResult {
  tasks: Array<{ id: string; title: string | null; depends_on: string[]; attempts: number; output: string }>;
}

export function emptyExecution(workflowId: string, now: Date): ExecutionState {
  return {
    workflow_id: workflowId,
    updated_at: now.toISOString(),
    interruption_safe: true,
    max_attempts: DEFAULT_MAX_ATTEMPTS,
    tasks: [],
    plans: [],
  };
}

export function maxAttemptsOf(task: Task, state: ExecutionState): number {
  return task.max_attempts ?? state.max_attempts;
}

export function outputOf(task: Task): string {
  return task.output ?? taskOutputPath(task.id);
}

const indexes = new WeakMap<readonly Pick<Task, "id">[], ReadonlyMap<string, number>>();

/**
 * Each task id → its position (a duplicated id: its first, as validation names the others). Kept
 * per tasks array: the arrays of a state are values, never changed once handed out (a change makes
 * a new array: withTask, addTasks, recoverTasks), so the index of an array stays true while it lives.
 */
export function indexTasks(tasks: readonly Pick<Task, "id">[]): ReadonlyMap<string, number> {
  let index = indexes.get(tasks);
  if (index === undefined) {
    const built = new Map<string, number>();
    for (let i = 0; i < tasks.length; i++) if (!built.has(tasks[i]!.id)) built.set(tasks[i]!.id, i);
    indexes.set(tasks, built);
    index = built;
  }
  return index;
}

/** The task with this id (the first, if the id is duplicated), found through the plan's index. */
export function findTask(state: Pick<ExecutionState, "tasks">, id: string): Task | undefined {
  const i = indexTasks(state.tasks).get(id);
  return i === undefined ? undefined : state.tasks[i];
}

function refuse(code: ErrorCode, message: string): TaskResult {
  return { ok: false, code, message };
}

function touched(state: ExecutionState, tasks: Task[], now: Date): ExecutionState {
  return { ...state, tasks, updated_at: now.toISOString() };
}

/**
 * Finds a dependency cycle, or undefined. Iterative three-colour DFS: linear, and no recursion
 * limit at 10,000 tasks.
 */
export function findCycle(tasks: readonly Pick<Task, "id" | "depends_on">[]): string[] | undefined {
  const index = indexTasks(tasks);
  const colour = new Uint8Array(tasks.length); // 0 new, 1 on stack, 2 done
  // The depth-first stack as two arrays (a task and its next dependency to look at): no object
  // per step (10,000 tasks).
  const nodes = new Int32Array(tasks.length);
  const nexts = new Int32Array(tasks.length);
  for (let start = 0; start < tasks.length; start++) {
    if (colour[start] !== 0) continue;
    let depth = 0;
    nodes[0] = start;
    nexts[0] = 0;
    colour[start] = 1;
    while (depth >= 0) {
      const node = nodes[depth]!;
      const deps = tasks[node]!.depends_on ?? [];
      if (nexts[depth]! < deps.length) {
        const dep = index.get(deps[nexts[depth]!++]!);
        if (dep === undefined) continue;
        if (colour[dep] === 1) {
          const path = Array.from(nodes.subarray(0, depth + 1), (n) => tasks[n]!.id);
          const from = path.indexOf(tasks[dep]!.id);
          return [...path.slice(from), tasks[dep]!.id];
        }
        if (colour[dep] === 0) {
          colour[dep] = 1;
          depth++;
          nodes[depth] = dep;
          nexts[depth] = 0;
        }
      } else {
        colour[node] = 2;
        depth--;
      }
    }
  }
  return undefined;
}

/** Adds tasks (one, or an imported batch that may depend on each other). */
export function addTasks(state: ExecutionState, additions: readonly NewTask[], now: Date): TaskResult {
  const index = indexTasks(state.tasks);
  const batch = new Set<string>();
  for (const add of additions) {
    if (index.has(add.id) || batch.has(add.id))
      return refuse("duplicate_task", `task ${add.id} already exists; pick another id`);
    batch.add(add.id);
  }
  for (const add of additions) {
    for (const dep of add.depends_on ?? []) {
      if (!index.has(dep) && !batch.has(dep))
        return refuse(
          "unknown_dependency",
          `task ${add.id} depends on ${dep}, which does not exist; add ${dep} first or fix --depends-on`,
        );
    }
  }
  const created: Task[] = additions.map((add) => ({
    id: add.id,
    ...(add.title === undefined ? {} : { title: add.title }),
    status: "pending",
    depends_on: [...(add.depends_on ?? [])],
    attempts: 0,
    started_at: null,
    completed_at: null,
    output: taskOutputPath(add.id),
    error: null,
  }));
  const tasks = [...state.tasks, ...created];
  const cycle = findCycle(tasks);
  if (cycle !== undefined) return refuse("dependency_cycle", `dependencies would form a cycle: ${cycle.join(" → ")}`);
  return {
    ok: true,
    state: touched(state, tasks, now),
    events: created.map((t) => ({ type: "task_added", task_id: t.id })),
  };
}

function withTask(
  state: ExecutionState,
  id: string,
  change: (task: Task) => Task | string,
  now: Date,
  event: (task: Task) => TaskEvent,
): TaskResult {
  const i = state.tasks.findIndex((t) => t.id === id);
  if (i < 0)
    return refuse("unknown_task", `task ${id} does not exist; see \`dotagent task next\` or \`dotagent status\``);
  const result = change(state.tasks[i]!);
  if (typeof result === "string") return refuse("task_refused", result);
  const tasks = state.tasks.slice();
  tasks[i] = result;
  return { ok: true, state: touched(state, tasks, now), events: [event(result)] };
}

/**
 * Complete, or skipped by a person (`task skip`): either way its dependants may start and the
 * round may finish without it (SPEC §4 Plan edits).
 */
export function isSettled(task: Pick<Task, "status">): boolean {
  return task.status === "complete" || task.status === "skipped";
}

/** The dependencies of `task` that are not settled yet (unknown ones included). */
export function unmetDependencies(state: Pick<ExecutionState, "tasks">, task: Pick<Task, "depends_on">): string[] {
  return (task.depends_on ?? []).filter((dep) => {
    const found = findTask(state, dep);
    return found === undefined || !isSettled(found);
  });
}

const skippedRefusal = (task: Task) =>
  `task ${task.id} was skipped (${task.skipped?.reason ?? "no reason given"}); it is not run`;

/**
 * Starts a task for `owner`. A running task is never started again: with a live owner the refusal
 * names it (two sessions never run the same task); with a gone one, `resume` recovers it first.
 */
export function startTask(
  state: ExecutionState,
  id: string,
  now: Date,
  owner?: Owner,
  runningVerdict?: OwnerVerdict,
): TaskResult {
  return withTask(
    state,
    id,
    (task) => {
      if (task.status === "complete") return `task ${id} is already complete`;
      if (task.status === "skipped") return skippedRefusal(task);
      if (task.status === "running") {
        if (task.owner != null && runningVerdict !== undefined && runningVerdict !== "gone")
          return `task ${id} is already running, owned by ${describeOwner(task.owner)}; it is in flight, so it is not started twice`;
        return `task ${id} is already running (since ${task.started_at ?? "an unknown time"})${runningVerdict === "gone" ? " and its owner is gone" : ""}; if its executor died, run \`dotagent resume\` to recover it`;
      }
      if (task.status === "dead")
        return `task ${id} is dead after ${task.attempts} failed attempts; a person can run \`dotagent task retry ${id} --extra-attempts 1\``;
      const unmet = unmetDependencies(state, task);
      if (unmet.length > 0) return `task ${id} cannot start: it depends on ${unmet.join(", ")}, not complete yet`;
      return {
        ...task,
        status: "running",
        started_at: now.toISOString(),
        completed_at: null,
        error: null,
        ...(owner === undefined ? {} : { owner }),
      };
    },
    now,
    (task) => ({
      type: "task_started",
      task_id: task.id,
      attempt: task.attempts + 1,
      ...(owner === undefined ? {} : { session: owner.session ?? null, pid: owner.pid }),
    }),
  );
}

export function completeTask(
  state: ExecutionState,
  id: string,
  reports: ReportSnapshot,
  now: Date,
  output?: string,
): TaskResult {
  // Done already (recorded by a hook, or by resume from its report): a repeat changes nothing.
  if (state.tasks.some((t) => t.id === id && t.status === "complete")) return { ok: true, state, events: [] };
  return withTask(
    state,
    id,
    (task) => {
      if (task.status === "dead")
        return `task ${id} is dead; a person must retry it first (\`dotagent task retry ${id} --extra-attempts 1\`)`;
      if (task.status === "skipped") return skippedRefusal(task);
      const path = output ?? outputOf(task);
      const report = reportAt(reports, path);
      if (!isValidReport(report)) {
        const why =
          report.status === "missing"
            ? "does not exist"
            : report.status === "invalid" || report.status === "outside"
              ? report.reason
              : "is not valid";
        return `task ${id} cannot complete: ${path} ${why}; the executor writes {"task_id": "${id}", "status": "complete", …} there first`;
      }
      const data = (report as { data: Record<string, unknown> }).data;
      if (data.task_id !== id) return `task ${id} cannot complete: ${path} is for task ${String(data.task_id)}`;
      if (data.status !== "complete")
        return `task ${id} cannot complete: ${path} says status "${String(data.status)}"; use \`dotagent task fail ${id}\``;
      return { ...task, status: "complete", completed_at: now.toISOString(), output: path, error: null };
    },
    now,
    (task) => ({ type: "task_completed", task_id: task.id }),
  );
}

/**
 * Gives a running task back: pending again, no attempt counted, no error. For the process that
 * started it and stopped it on purpose (`dotagent run` on Ctrl-C): the task was not tried and
 * failed, its executor was stopped, and its SDK session continues on the next start. A task
 * owned by another process is refused (its runner decides about it).
 */
export function releaseTask(state: ExecutionState, id: string, now: Date, ownerPid?: number): TaskResult {
  return withTask(
    state,
    id,
    (task) => {
      if (task.status !== "running") return `task ${id} is ${task.status}, not running; there is nothing to give back`;
      if (ownerPid !== undefined && task.owner != null && task.owner.pid !== ownerPid)
        return `task ${id} is owned by ${describeOwner(task.owner)}, not by pid ${ownerPid}; only its owner gives it back`;
      const { owner: _owner, ...rest } = task;
      return { ...rest, status: "pending", started_at: null, error: null };
    },
    now,
    (task) => ({ type: "task_released", task_id: task.id, attempts: task.attempts }),
  );
}

/**
 * Where a started task's output, left from an earlier attempt, is set aside, so recovery never
 * mistakes the old output for this attempt's; undefined when there is none to move.
 */
export function staleOutputMove(reports: ReportSnapshot, started: Task | undefined, now: Date): SetAside | undefined {
  if (started === undefined) return undefined;
  const stale = outputOf(started);
  const found = reportAt(reports, stale).status;
  if (found === "missing" || found === "outside") return undefined;
  return { from: stale, to: `${stale.replace(/\.json$/, "")}.attempt-${started.attempts}-${now.getTime()}.json` };
}

/** Counts a failed attempt: back to failed, or dead once attempts reach the limit. */
export function countFailure(task: Task, state: ExecutionState, error: string | null): Task {
  const attempts = task.attempts + 1;
  const status = attempts >= maxAttemptsOf(task, state) ? "dead" : "failed";
  return { ...task, status, attempts, error };
}

export function failTask(state: ExecutionState, id: string, error: string | undefined, now: Date): TaskResult {
  return withTask(
    state,
    id,
    (task) => {
      if (task.status === "complete") return `task ${id} is complete; it cannot fail now`;
      if (task.status === "dead") return `task ${id} is already dead`;
      if (task.status === "skipped") return skippedRefusal(task);
      // Only an attempt fails: a task with none at work (pending, or requeued after a failure) would
      // lose an attempt it never had, and three such calls would leave it dead without ever running.
      if (task.status !== "running")
        return `task ${id} is ${task.status}: no attempt of it is running, so there is nothing to fail (\`dotagent task skip ${id} --reason …\` leaves it out of the plan)`;
      return countFailure(task, state, error ?? task.error ?? "failed");
    },
    now,
    (task) => ({
      type: task.status === "dead" ? "task_dead" : "task_failed",
      task_id: task.id,
      attempts: task.attempts,
      error: task.error,
    }),
  );
}

/** A person's retry: failed or dead back to pending, with `extra` more attempts allowed. */
export function retryTask(state: ExecutionState, id: string, extra: number, now: Date): TaskResult {
  return withTask(
    state,
    id,
    (task) => {
      // A failed task with attempts left is requeued (pending) at once: more attempts may still be given.
      const requeued = task.status === "pending" && task.attempts > 0;
      if (task.status !== "failed" && task.status !== "dead" && !requeued)
        return `task ${id} is ${task.status}; only failed or dead tasks can be retried`;
      const max = maxAttemptsOf(task, state) + extra;
      if (task.attempts >= max)
        return `task ${id} has used ${task.attempts} of ${maxAttemptsOf(task, state)} attempts; give it more with --extra-attempts N`;
      return { ...task, status: "pending", max_attempts: max, error: null };
    },
    now,
    (task) => ({ type: "task_retried", task_id: task.id, max_attempts: task.max_attempts }),
  );
}

/** Longest last error a retry's question quotes: the question stays one readable line. */
const ERROR_IN_QUESTION = 120;

/**
 * The question a retry that raises `max_attempts` puts to the person from an agent's shell
 * (SPEC §10): the task, how its attempts went, its last error, and what a yes spends.
 */
export function retryQuestion(state: ExecutionState, id: string, extra: number): string {
  const task = state.tasks.find((t) => t.id === id);
  const max = task === undefined ? state.max_attempts : maxAttemptsOf(task, state);
  // The error is the executor's words: one line, control characters shown, not obeyed.
  const cut = oneLine(task?.error ?? "", ERROR_IN_QUESTION);
  const facts = [
    ...(task?.title ? [JSON.stringify(task.title)] : []),
    `${task?.status === "dead" ? "dead" : "failed"} after ${task?.attempts ?? 0} of ${max} attempts${cut ? `: ${cut}` : ""}`,
  ];
  return `Give ${id} (${facts.join(", ")}) ${extra} more ${extra === 1 ? "attempt" : "attempts"}? It runs again.`;
}

/**
 * Ready tasks (pending, every dependency complete or skipped), in file order. No ready task depends on
 * another (its dependencies are all settled), so file order is a dependency order, and it costs
 * one pass instead of a sort of the whole graph.
 */
export function readyTasks(state: ExecutionState): Task[] {
  const settled = new Set<string>();
  for (const task of state.tasks) if (isSettled(task)) settled.add(task.id);
  return state.tasks.filter(
    (task) => task.status === "pending" && (task.depends_on ?? []).every((dep) => settled.has(dep)),
  );
}

export function countByStatus(state: ExecutionState | undefined): Record<string, number> {
  const counts: Record<string, number> = { pending: 0, running: 0, complete: 0, failed: 0, dead: 0, skipped: 0 };
  for (const task of state?.tasks ?? []) counts[task.status] = (counts[task.status] ?? 0) + 1;
  return counts;
}

export interface Repair {
  code: string;
  message: string;
}

/**
 * Task recovery after an interruption (CONTRACT §5): running with an output → the output's
 * status; running without one → orphaned, attempts + 1; failed with attempts left → pending;
 * anything not complete past max_attempts → dead. A running task whose owner is not gone
 * (`verdicts`, judged by the caller) is in flight and left exactly as it is; without verdicts
 * every running task counts as orphaned.
 */
export function recoverTasks(
  state: ExecutionState,
  reports: ReportSnapshot,
  verdicts?: OwnerVerdicts,
): { state: ExecutionState; repairs: Repair[]; events: TaskEvent[] } {
  const repairs: Repair[] = [];
  const events: TaskEvent[] = [];
  let changed = false;
  const tasks = state.tasks.map((task) => {
    let next = task;
    if (next.status === "running" && isInFlight(verdicts, next.id)) return next;
    if (next.status === "running") {
      const report = reportAt(reports, outputOf(next));
      const data = report.status === "valid" ? (report.data as Record<string, unknown>) : undefined;
      if (data !== undefined && data.task_id === next.id && data.status === "complete") {
        next = { ...next, status: "complete", completed_at: next.completed_at ?? null, error: null };
        repairs.push({
          code: "task_completed_from_output",
          message: `${next.id} was running and its output says complete: marked complete`,
        });
        events.push({ type: "task_completed", task_id: next.id, recovered: true });
      } else if (data !== undefined && data.task_id === next.id && data.status === "failed") {
        next = countFailure(next, state, typeof data.error === "string" ? data.error : "failed (from its output)");
        repairs.push({
          code: "task_failed_from_output",
          message: `${next.id} was running and its output says failed: attempt ${next.attempts} of ${maxAttemptsOf(next, state)} failed`,
        });
        events.push({ type: "task_failed", task_id: next.id, recovered: true, attempts: next.attempts });
      } else {
        const attempts = next.attempts + 1;
        const max = maxAttemptsOf(next, state);
        next = {
          ...next,
          attempts,
          cut_off: (next.cut_off ?? 0) + 1,
          status: attempts >= max ? "dead" : "pending",
          error: "orphaned: the session ended while it ran",
        };
        repairs.push({
          code: next.status === "dead" ? "task_dead" : "task_reset",
          message:
            next.status === "dead"
              ? `${next.id} was running with no output: attempt ${attempts} of ${max} used, now dead`
              : `${next.id} was running with no output: attempt ${attempts + 1} of ${max}`,
        });
        // `orphaned`: this death is an interruption's (the session ended), not a failure the agent reported (SPEC §7).
        events.push(
          next.status === "dead"
            ? { type: "task_dead", task_id: next.id, attempts, orphaned: true }
            : { type: "task_reset", task_id: next.id, attempts },
        );
      }
    }
    if (next.status === "failed" || next.status === "pending") {
      const max = maxAttemptsOf(next, state);
      if (next.attempts >= max) {
        next = { ...next, status: "dead" };
        repairs.push({
          code: "task_dead",
          message: `${next.id} has failed ${next.attempts} of ${max} attempts: dead until a person retries it`,
        });
        events.push({ type: "task_dead", task_id: next.id, attempts: next.attempts });
      } else if (next.status === "failed") {
        next = { ...next, status: "pending" };
        repairs.push({
          code: "task_requeued",
          message: `${next.id} failed before: attempt ${next.attempts + 1} of ${max} queued`,
        });
        events.push({ type: "task_requeued", task_id: next.id, attempts: next.attempts });
      }
    }
    if (next !== task) changed = true;
    return next;
  });
  return { state: changed ? { ...state, tasks } : state, repairs, events };
}
