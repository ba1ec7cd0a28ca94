// `task add|import|start|complete|fail|retry|next`: task progress in IMPLEMENTATION under the lock,
// and the plan import's validation (the same schema whether the plan came from a file or a program).
// What a change does is decided by src/core/task-plan.ts (planTaskChange, pure); this op reads the
// facts it needs, carries the plan out under the lock, and does what the plan cannot: git (a
// task's worktree at its start, its landing at its completion) and the step after (settle).
import { DotagentError, EXIT } from "../core/errors.js";
import { formatProblem } from "../core/validate.js";
import {
  emptyExecution,
  maxAttemptsOf,
  outputOf,
  type NewTask,
  type NextResult,
  type SetAside,
  type TaskChange,
  type TaskEvent,
} from "../core/tasks.js";
import type { ImportResult as CoreImportResult } from "../core/plans.js";
import { needsVerdicts, nextTasksOf, planTaskChange, refusalError, type TaskPlan } from "../core/task-plan.js";
import type { ExecutionState, MergeRecord, PlanRecord, Task } from "../schema/execution.js";
import type { PhaseState } from "../schema/phase.js";
import type { MachineEvent } from "../core/transitions.js";
import { loadSnapshot, type HeldRead } from "../store/session.js";
import type { StateSnapshot } from "../core/snapshot.js";
import { currentOwner, judgeRunningTasks } from "../store/process-facts.js";
import { markStart } from "../store/start-markers.js";
import { StateWriter } from "../store/state-writer.js";
import { locked, type OpContext } from "./op-context.js";
import { requireValid, requireWorkflow } from "./state-guard.js";
import { nextFields, planAhead, settle, type NextFields, type Settled } from "./settle.js";
import {
  isolateStart,
  landTask,
  makeStartedWorktree,
  prepareLanding,
  startedWorktreeOf,
  unfinishedStart,
  type IsolatedStart,
} from "./worktree-tasks.js";
import { oneOperation } from "../store/worktrees.js";

export const TASK_ACTIONS = ["add", "import", "start", "complete", "fail", "retry", "next"] as const;
export type { NextResult, TaskAction, TaskChange } from "../core/tasks.js";

/** A task as the next step needs it: execution.json's field names, without empty and bookkeeping ones. */
export interface TaskView {
  id: string;
  title?: string;
  status: Task["status"];
  attempts: number;
  output: string;
  error?: string;
  /** Its git worktree (SPEC §19): where its executor works, and the merge of its branch. */
  worktree?: TaskWorktreeView;
}

/** A task's worktree as `task … --json` shows it. */
export interface TaskWorktreeView {
  /** Project-relative folder of the worktree. */
  path: string;
  /** Absolute: where the executor works (the project folder inside the worktree). */
  dir: string;
  branch: string;
  into: string;
  base: string;
  merge: MergeRecord | null;
  /** The lines its executor's prompt gets (Worktree:, Branch:, Report file:, Merge conflict:). */
  prompt_lines: string[];
}

/** `task start|complete|fail|retry --json` (and the runner's release). */
export interface TaskResult extends NextFields {
  ok: true;
  task: TaskView | null;
  max_attempts: number | null;
}

/** `task add|import --json`. */
export interface TasksAddedResult extends NextFields {
  ok: true;
  added: string[];
  skipped?: string[];
  plan?: PlanRecord | null;
  total: number;
}

export interface TaskOutcome {
  readonly result: TaskResult | TasksAddedResult;
  readonly state: ExecutionState;
  readonly task: Task | undefined;
  readonly maxAttempts: number | undefined;
  readonly imported: Extract<CoreImportResult, { ok: true }> | undefined;
  /** `complete` of a task with a worktree: what its landing did, in words ("complete, merged into main (1a2b3c4)", "not merged: …"). */
  readonly landed?: string | undefined;
}

const PLAN_SHAPE =
  'expected a JSON array like [{"id":"task-001","title":"…","depends_on":[]}] or an object with such a "tasks" array';

/** A parsed task plan (an array of tasks or an object with a `tasks` array), or exit 2 naming `where`. */
export async function parseTaskPlan(value: unknown, where: string): Promise<NewTask[]> {
  // The schema (and zod) load only for an import.
  const [{ parseWith }, { taskImportSchema }] = await Promise.all([
    import("../schema/common.js"),
    import("../schema/execution.js"),
  ]);
  const parsed = parseWith(taskImportSchema, value);
  if (!parsed.ok)
    throw new DotagentError(
      "import_invalid",
      `${formatProblem({ file: where, ...parsed.problems[0]! })}; ${PLAN_SHAPE}`,
      EXIT.usage,
    );
  const tasks = Array.isArray(parsed.value) ? parsed.value : parsed.value.tasks;
  return tasks.map((t) => ({ id: t.id, title: t.title, depends_on: t.depends_on }));
}

/** The message of a plan that is not JSON at all (the CLI's file or stdin). */
export function notJsonPlan(where: string, message: string): DotagentError {
  return new DotagentError("import_invalid", `${where}: ${message}; ${PLAN_SHAPE}`, EXIT.usage);
}

function taskView(task: Task, root: string): TaskView {
  // The place and prompt lines matter while the task is to run (a merged task's worktree is gone).
  const started = task.worktree != null && task.status !== "complete" ? startedWorktreeOf(root, task) : undefined;
  const worktree: TaskWorktreeView | undefined =
    task.worktree == null
      ? undefined
      : {
          path: task.worktree.path,
          dir: started?.at.dir ?? `${root}/${task.worktree.path}`,
          branch: task.worktree.branch,
          into: task.worktree.into,
          base: task.worktree.base,
          merge: task.worktree.merge ?? null,
          prompt_lines: started?.lines ?? [],
        };
  return {
    id: task.id,
    ...(task.title ? { title: task.title } : {}),
    status: task.status,
    attempts: task.attempts,
    output: outputOf(task),
    ...(task.error ? { error: task.error } : {}),
    ...(worktree ? { worktree } : {}),
  };
}

/**
 * Writes a task change. Starting a task whose output file is left from an earlier attempt sets
 * that file aside first (`setAside`: staleOutputMove), so recovery never mistakes the old output
 * for this attempt's. That touches two files, so it goes through the journaled change.
 */
export function writeTaskChange(
  writer: StateWriter,
  phase: PhaseState,
  outcome: { state: ExecutionState; events: ReadonlyArray<{ type: string; [key: string]: unknown }> },
  started: Task | undefined,
  setAside: SetAside | undefined,
  now: Date,
): ExecutionState | undefined {
  if (setAside !== undefined && started !== undefined) {
    return writer.applyChange({
      phaseBefore: phase,
      journal: { type: "task_start", task_id: started.id, started_at: now.toISOString(), moves: [{ ...setAside }] },
      moves: [{ type: "move" as const, ...setAside }],
      execution: outcome.state,
      phase,
      events: outcome.events as MachineEvent[],
    }).execution;
  }
  const written = writer.writeExecution(outcome.state);
  writer.appendEvents(outcome.events);
  return written;
}

/**
 * A command's read under the lock it still holds, validated (requireWorkflow), as settle takes it
 * after the command's write when the command moved no file (loadSnapshot's `held`): its reports,
 * and its execution.json as checked against them.
 */
export function heldRead(snapshot: StateSnapshot, now: Date): HeldRead {
  const loaded = snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined;
  return {
    phase: snapshot.phase,
    reports: snapshot.reports,
    ...(loaded ? { checked: { execution: loaded, reports: snapshot.reports, at: now.getTime() } } : {}),
  };
}

export function changeTask(context: OpContext, change: TaskChange): Promise<TaskOutcome> {
  // One operation: its repository lookups are asked once (oneOperation).
  return oneOperation(() => changeTaskIn(context, change));
}

async function changeTaskIn(context: OpContext, change: TaskChange): Promise<TaskOutcome> {
  const { action } = change;
  const id = action === "import" ? "" : (change.id ?? "");
  const outputPath = change.output;
  const now = context.now();
  // A completing task's work in its worktree is committed before the lock (SPEC §19).
  const prepared = action === "complete" && id !== "" ? await prepareLanding(context, id, outputPath) : undefined;
  const done = await locked(context, `task ${action}`, async () => {
    const extraRequests = [
      ...(outputPath ? [{ path: outputPath, mode: "parse" as const }] : []),
      ...(id ? [{ path: `memory/reports/tasks/${id}.json`, mode: "parse" as const }] : []),
    ];
    const snapshot = await loadSnapshot(context.paths, extraRequests);
    const phase = requireWorkflow(snapshot, now);
    const loaded = snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined;
    const byModel = context.byModel === true;
    const owner = action === "start" ? currentOwner(now, change.owner) : undefined;
    const plan = planTaskChange(
      {
        phase,
        execution: loaded,
        reports: snapshot.reports,
        now,
        byModel,
        verdicts: needsVerdicts(action, byModel) ? judgeRunningTasks(snapshot, now) : undefined,
        owner,
      },
      change,
    );
    if (plan.kind === "land") {
      // From this read (it holds the report; git's work in the landing changes no state file and no
      // report), and settle from what it wrote and this read, as below: execution.json read once.
      const landing = await landTask(context, id, now, outputPath, { prepared, read: snapshot });
      const settled = await settle(
        context,
        now,
        [],
        landing.read === snapshot
          ? { phase: snapshot.phase, ...landing.written, held: heldRead(snapshot, now) }
          : landing.written,
      );
      const after = settled.execution ?? loaded ?? emptyExecution(phase.workflow_id, now);
      return {
        state: after,
        task: after.tasks.find((t) => t.id === id),
        imported: undefined,
        plan: settled.plan,
        landed: landing.what.replace(/^executor for \S+: /, ""),
      };
    }
    let isolated: IsolatedStart | undefined;
    let carried: Extract<TaskPlan, { kind: "write" }>;
    if (plan.kind === "refuse") {
      const unfinished =
        action === "start" && loaded !== undefined
          ? unfinishedStart(context.paths.root, phase, loaded, id, owner)
          : undefined;
      if (loaded === undefined || unfinished === undefined) throw refusalError(plan);
      // Its own start, cut off while it made the worktree: finished now.
      isolated = { state: loaded, events: [], worktree: unfinished, warning: undefined };
      carried = { kind: "write", before: loaded, state: loaded, events: [] };
    } else if (action === "start") {
      isolated = isolateStart(context, phase, plan.before, plan.state, id, owner, now);
      carried = { ...plan, state: isolated.state, events: [...isolated.events, ...plan.events] as TaskEvent[] };
    } else carried = plan;
    const task = carried.state.tasks.find((t) => t.id === id);
    const writer = new StateWriter(context.paths, snapshot, now, context.warn);
    const started = action === "start" ? [id] : [];
    // Validated on read (requireWorkflow) against these reports: the change is checked where it differs.
    const read = heldRead(snapshot, now);
    const checked = read.checked;
    let settled: Settled | undefined;
    if (carried.state !== carried.before) {
      // The step after this one, planned on the state about to be written: its own writes (orphaned
      // tasks recovered) go into the same write, and its answer is the command's (settle.ts planAhead).
      const ahead =
        carried.setAside === undefined
          ? planAhead(context, { ...snapshot, ...(checked ? { checked } : {}) }, carried.state, started, now)
          : undefined;
      const change =
        ahead?.execution === undefined
          ? carried
          : { state: ahead.execution, events: [...carried.events, ...ahead.events] };
      const written = writeTaskChange(writer, phase, change, task, carried.setAside, now);
      if (ahead !== undefined) settled = { plan: ahead.plan, phase, execution: written };
    }
    if (isolated?.warning) context.warn(isolated.warning);
    if (isolated?.mended) context.warn(`task ${id}: ${isolated.mended}`);
    // Its worktree is made after the lock: a second start meanwhile sees it in flight.
    if (isolated?.worktree?.make !== undefined) markStart(context.paths.root, context.paths.stateDir, id);
    // The step after this one: the last task's completion also completes IMPLEMENTATION. Its first
    // read stands for settle's when the change moved no file (a stale output set aside).
    const held = carried.setAside === undefined ? read : undefined;
    settled ??= await settle(context, now, started, { ...writer.writtenStates(), ...(held ? { held } : {}) });
    const after = settled.execution ?? carried.state;
    return {
      state: after,
      task: after.tasks.find((t) => t.id === id) ?? task,
      imported: carried.imported,
      plan: settled.plan,
      worktree: isolated?.worktree,
    };
  });
  // A started task's worktree is made after the lock, beside the other starts of its batch.
  if (done.worktree !== undefined) await makeStartedWorktree(context, id, done.worktree, now);
  const { state, task, imported, plan, landed } = done;
  const maxAttempts = task ? maxAttemptsOf(task, state) : undefined;
  const result: TaskResult | TasksAddedResult =
    action === "import" || action === "add"
      ? {
          ok: true,
          added: action === "add" ? [id] : (imported?.added ?? []),
          ...(imported ? { skipped: imported.skipped, plan: imported.plan } : {}),
          total: state.tasks.length,
          ...nextFields(plan),
        }
      : {
          ok: true,
          task: task ? taskView(task, context.paths.root) : null,
          max_attempts: maxAttempts ?? null,
          ...nextFields(plan),
        };
  return { result, state, task, maxAttempts, imported, landed };
}

/** Ready tasks in dependency order; reads without the lock, refuses untrusted state (exit 3). */
export async function nextTasks(context: OpContext): Promise<NextResult> {
  const snapshot = await loadSnapshot(context.paths);
  requireValid(snapshot, context.now());
  return nextTasksOf(snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined);
}
