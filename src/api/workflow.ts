// The library's workflow API: what the CLI does, for a program. Every method runs the same
// operation as its command (src/ops/): the same state lock and wait, the same atomic writes and
// events, the same refusals (a DotagentError with the CLI's code, message and exit code), and
// resolves to the object that command prints with --json. Nothing is printed: warnings go to
// onWarning; questions for a person go to a `decide` callback, and without one the result comes
// back with `decision` set and nothing written, as the CLI does without a terminal.
import { DotagentError, EXIT, usageError } from "../core/errors.js";
import { PHASES, type Phase } from "../core/phases.js";
import type { Decision } from "../core/plan-resume.js";
import type { NewTask } from "../core/tasks.js";
import { idProblem } from "../schema/json.js";
import { findProjectRoot, projectPaths } from "../store/project.js";
import { checkOpId } from "../store/op-records.js";
import { listHistory, showCheckpoint, type CheckpointResult, type HistoryResult } from "../ops/history.js";
import { startWorkflow, type InitResult } from "../ops/init.js";
import {
  checkRevision,
  checkDesigns,
  checkExtraAttempts,
  checkMaxParallel,
  checkOutputPath,
  checkOwner,
  checkTaskId,
} from "../ops/inputs.js";
import { runOnceOp, type OnceResult } from "../ops/once.js";
import type { OpContext } from "../ops/op-context.js";
import { changePhase, type PhaseAction, type PhaseChange, type PhaseResult } from "../ops/phase-change.js";
import { judgeCaller } from "../core/authority.js";
import { callerFacts } from "../store/caller-facts.js";
import { resumeWorkflow, type Decide, type ResumeResult } from "../ops/resume.js";
import { rollBackWorkflow, type RollbackResult } from "../ops/rollback.js";
import { staleAfterMs } from "../ops/stale-after.js";
import { readStatus, type StatusResult } from "../ops/status.js";
import {
  changeTask,
  nextTasks,
  parseTaskPlan,
  type NextResult,
  type TaskChange,
  type TaskResult,
  type TasksAddedResult,
} from "../ops/task-change.js";
import { validateWorkflow, type ValidateResult } from "../ops/validate.js";
import { listTasks, showTask, type TaskListResult, type TaskShowResult } from "../ops/task-list.js";
import { editPlan, type PlanEditResult } from "../ops/plan-edit.js";
import { parseStatusFilter } from "../core/task-list.js";
import type { TaskStatus } from "../schema/json.js";
import { resolveWorkflowName } from "../ops/workflow-name.js";

export type { CheckpointResult, CheckpointSummary, HistoryResult } from "../ops/history.js";
export type { InitResult } from "../ops/init.js";
export type { OnceResult } from "../ops/once.js";
export type { PhaseResult } from "../ops/phase-change.js";
export type { ResumeResult } from "../ops/resume.js";
export type { RollbackResult } from "../ops/rollback.js";
export type { StatusResult } from "../ops/status.js";
export type { NextResult, TaskResult, TasksAddedResult, TaskView } from "../ops/task-change.js";
export type { ValidateResult } from "../ops/validate.js";
export type { TaskListResult, TaskShowResult, TaskDetail } from "../ops/task-list.js";
export type { PlanEditResult } from "../ops/plan-edit.js";
export type { TaskRow, TaskHolder, TaskMerge } from "../core/task-list.js";
export type { TaskStatus } from "../schema/json.js";
export type { MergesKept } from "../ops/rollback.js";
export type { KeptMerge } from "../core/rollback-merges.js";
export type { Decision } from "../core/plan-resume.js";

export interface WorkflowOptions {
  /** The clock (default: the real one). */
  now?: () => Date;
  /** Warnings (a stale lock taken over, a leftover file set aside, a cut-off rollback finished). Default: dropped; a library never writes to stderr. */
  onWarning?: (message: string) => void;
}

/** A person's answer to a decision; return false to keep things as they are. */
export type DecideFn = (decision: Decision) => boolean | Promise<boolean>;

/** A stale limit: "7d", "12h", "30m", "2w" or "never"; default DOTAGENT_STALE_AFTER, else 7 days. */
export interface StaleOption {
  staleAfter?: string;
}

export interface ResumeCall extends StaleOption {
  /** The feature request: checked against the workflow's (a different one is a decision). */
  request?: string;
  /** Plan only; write nothing (`resume --dry-run`). */
  dryRun?: boolean;
  /** With `request` and no workflow: start one (`resume --start`). */
  start?: boolean;
  /** How many tasks run at once from now on (1–32; stored in execution.json). */
  maxParallel?: number;
  /** Answers a decision (stale state, a changed request, corrupt state). Without it the plan comes back with `decision` set and nothing is written. */
  decide?: DecideFn;
  /** `--isolation`: the main checkout had uncommitted changes as a round's tasks were about to start: commit them (worktrees), or run the round without worktrees. */
  isolation?: "commit" | "shared";
  /** `--keep-edit`: a state file changed outside dotagent (`hand_edit`) is kept: dotagent adopts it (SPEC §5, §15). */
  keepEdit?: boolean;
  /** `--workflow NAME`: the definition a workflow this call starts walks (`start`, or a changed request's new workflow); default develop. */
  workflow?: string;
}

export interface InitCall {
  /** `--workflow-id ID` (default: from the request). */
  workflowId?: string;
  /** Answers "archive the workflow that is there and start anew?". Without it the result carries the decision. */
  decide?: DecideFn;
  /** `--workflow NAME`: a built-in (`develop`, `fix`) or `.dotagent/workflows/NAME.json`, pinned in phase.json (SPEC §20); default develop. An invalid definition rejects with `workflow_invalid` (exit 3), nothing written. */
  workflow?: string;
}

/** A task of a plan, as `task import` reads it. */
export interface PlannedTask {
  id: string;
  title?: string;
  depends_on?: string[];
}

export interface WorkflowPhases {
  /** `phase start P`; `designs` with ARCHITECTURE records the designs asked for. */
  start(phase: Phase, options?: { designs?: string[] }): Promise<PhaseResult>;
  /**
   * `phase approve P`; at the step where a design is picked, `pick` names it: final_design.json is
   * written from designs/<pick>.json (with `notes`, and `tasks` as the plan when given), then the
   * step is approved. `auto`: approved by a program's own rule (`dotagent run --approve auto`), not a person.
   */
  approve(
    phase: Phase,
    options?: { pick?: string; notes?: string; tasks?: readonly PlannedTask[]; auto?: boolean },
  ): Promise<PhaseResult>;
  /** Refused unless the phase's report is there, valid and (where needed) approved. */
  complete(phase: Phase, options?: { output?: string }): Promise<PhaseResult>;
  fail(phase: Phase, options?: { error?: string }): Promise<PhaseResult>;
  /** Failed verification: back to IMPLEMENTATION. */
  rework(): Promise<PhaseResult>;
}

export interface WorkflowTasks {
  /** The whole plan in one write (`task import`): an array of tasks or `{ tasks: [...] }`, validated by the same schema. */
  import(plan: readonly PlannedTask[] | { tasks: readonly PlannedTask[] }): Promise<TasksAddedResult>;
  add(id: string, options?: { title?: string; dependsOn?: string[] }): Promise<TasksAddedResult>;
  /** The task's owner is this process (process.pid) unless `owner` names another pid. */
  start(id: string, options?: { owner?: number }): Promise<TaskResult>;
  complete(id: string, options?: { output?: string }): Promise<TaskResult>;
  fail(id: string, options?: { error?: string }): Promise<TaskResult>;
  retry(id: string, options?: { extraAttempts?: number }): Promise<TaskResult>;
  /** Ready tasks in dependency order. */
  next(): Promise<NextResult>;
  /** `tasks --json`: every task (or those of the given statuses) with its attempts, owner, worktree and merge. Takes no lock. */
  list(options?: { status?: readonly TaskStatus[] }): Promise<TaskListResult>;
  /** `tasks show ID --json`: one task and its events. */
  show(id: string): Promise<TaskShowResult>;
  /** `task edit ID`: a pending, failed or dead task's title (`""`: none) or dependencies (`[]`: none). */
  edit(id: string, changes: { title?: string; dependsOn?: string[] }): Promise<PlanEditResult>;
  /** `task remove ID`: a task nothing depends on, that never ran in a worktree, out of the plan. */
  remove(id: string): Promise<PlanEditResult>;
  /** `task skip ID --reason TEXT`: not done, on purpose; it counts as done for its dependants. */
  skip(id: string, options: { reason: string }): Promise<PlanEditResult>;
}

export interface OnceCall {
  /** A probe for a run that was cut off: exit 0 means the effect happened (run by the shell). */
  check?: string;
  /** Record a cut-off run as done without running it. */
  markDone?: boolean;
  /** Run again although a cut-off run may have taken effect. */
  redo?: boolean;
  /** The command's stdout as it comes (the result keeps the first 16 KiB). */
  onStdout?: (chunk: Uint8Array) => void;
  /** Answers "did the cut-off run take effect?" (true: mark done; false: run again). Without it the result carries the decision. */
  decide?: DecideFn;
}

export interface Workflow {
  /** The project root (the folder holding memory/). */
  readonly root: string;
  /** `status --json`: the resume plan without writing, task counts, open ops. Takes no lock. */
  status(options?: StaleOption): Promise<StatusResult>;
  /** `validate --json`; problems are in the result (`valid: false`), not thrown. */
  validate(options?: StaleOption): Promise<ValidateResult>;
  /** `resume --json`: repair, advance, and the next action. */
  resume(options?: ResumeCall): Promise<ResumeResult>;
  /** `init`: an existing workflow is a decision (replaced only when `decide` says yes, or when it is complete). */
  init(request?: string, options?: InitCall): Promise<InitResult>;
  readonly phase: WorkflowPhases;
  readonly tasks: WorkflowTasks;
  /** `history --json`: the checkpoints of the live workflow. */
  history(): Promise<HistoryResult>;
  /** `history show REV --json`. */
  checkpoint(rev: number): Promise<CheckpointResult>;
  /** `rollback --to PHASE|REV`: a decision; `yes: true` (or `decide`) confirms, else the result carries the question. */
  rollback(to: string, options?: { yes?: boolean; decide?: DecideFn }): Promise<RollbackResult>;
  /** `once OP-ID -- COMMAND…`: run a side effect at most once per op id. */
  once(opId: string, command: readonly string[], options?: OnceCall): Promise<OnceResult>;
}

/** A callback option: a function or absent; anything else is a usage error. */
function callback<F extends (...args: never[]) => unknown>(value: F | undefined, name: string): F | undefined {
  if (value === undefined || typeof value === "function") return value;
  throw usageError(`${name} takes a function, not ${describe(value)}`);
}

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (value === null || typeof value !== "object") return String(value);
  return Array.isArray(value) ? "an array" : `a ${value.constructor?.name ?? "object"}`;
}

/** The caller's clock, checked at every reading: a time that is not a valid Date is a usage error (exit 2), never written. */
function checkedTime(value: unknown): Date {
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value;
  throw usageError(
    `options.now() must return a valid Date, not ${value instanceof Date ? "an Invalid Date" : describe(value)}`,
  );
}

/** A warning for the caller; its onWarning failing never fails the operation. */
function tell(onWarning: ((message: string) => void) | undefined, message: string): void {
  try {
    onWarning?.(message);
  } catch {
    // a warning that cannot be delivered is dropped, like one without a listener
  }
}

/** A decide callback as the operations take it (no callback: nobody can be asked). */
function asDecide(decide: DecideFn | undefined, yes = false): Decide | undefined {
  if (yes) return () => true;
  return decide ? async (d) => (await decide(d)) === true : undefined;
}

/** A text option from a caller the types may not bind (plain JavaScript): a string or absent. */
function text(value: unknown, name: string): string | undefined {
  if (value === undefined || typeof value === "string") return value;
  throw usageError(`${name} takes a string, not ${JSON.stringify(value) ?? typeof value}`);
}

/** A list option: an array of strings or absent. */
function texts(value: unknown, name: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value as string[];
  throw usageError(`${name} takes an array of strings, not ${JSON.stringify(value) ?? typeof value}`);
}

/** The phase as given, upper-cased like the CLI does; a usage error for anything else. */
function phaseArg(phase: string): Phase {
  const name = text(phase, "phase") ?? "";
  // Checked against the workflow's own steps (develop's five, or its definition's) when it is used.
  if (!/^[A-Za-z][A-Za-z0-9_-]{0,39}$/.test(name))
    throw usageError(`"${name.slice(0, 50)}" is not a step name; develop's are ${PHASES.join(", ")}`);
  return name;
}

/** `workflow: NAME`: the definition, resolved and checked (`workflow_invalid`, exit 3), before anything is written. */
async function workflowArg(root: string, name: unknown) {
  const given = text(name, "workflow");
  return given === undefined ? undefined : resolveWorkflowName(root, given);
}

/** The feature request: trimmed; blank means none (as `--request ""`). */
function requestArg(request: string | undefined): string | undefined {
  const trimmed = text(request, "request")?.trim();
  return trimmed ? trimmed : undefined;
}

/**
 * The workflow of the project at `dir`: the folder itself, like `--dir` (default: the nearest
 * folder upwards from the current one holding memory/state, else the current one). Opening
 * touches nothing; each call reads the files afresh, so a program and the CLI (or two programs)
 * can work on one project, serialised by the state lock.
 */
export function openWorkflow(dir?: string, options: WorkflowOptions = {}): Workflow {
  if (dir !== undefined && typeof dir !== "string")
    throw usageError(`openWorkflow takes the project folder as a string, not ${typeof dir}`);
  return workflowAt(findProjectRoot(dir), options, dir);
}

/**
 * The workflow at `root`; `dirArg` is the folder as the caller named it (the CLI's --dir), which
 * every decision's yes/no command repeats. For dotagent's own callers (the headless runner).
 */
export function workflowAt(root: string, options: WorkflowOptions, dirArg: string | undefined): Workflow {
  if (options === null || typeof options !== "object")
    throw usageError(`openWorkflow's options must be an object ({ now?, onWarning? }), not ${describe(options)}`);
  const paths = projectPaths(root);
  const onWarning = callback(options.onWarning, "onWarning");
  const clock = callback(options.now, "now");
  const context: OpContext = {
    paths,
    now: clock === undefined ? () => new Date() : () => checkedTime(clock()),
    warn: (message) => tell(onWarning, message),
    // The CLI's notes start with "dotagent: " for a person's terminal; a program gets the message.
    note: (line) => tell(onWarning, line.replace(/^dotagent: /, "")),
    ...(dirArg === undefined ? {} : { dirArg }),
    // A program run from a model's shell is the model's, as the CLI is (src/core/authority.ts).
    ...(judgeCaller(callerFacts()).kind === "agent_shell" ? { byModel: true } : {}),
  };
  const phase = async (
    action: PhaseAction,
    p: Phase | undefined,
    extra: { output?: string; error?: string; designs?: string[]; pick?: PhaseChange["pick"] } = {},
  ): Promise<PhaseResult> => {
    const checked = p === undefined ? undefined : phaseArg(p);
    const output = checkOutputPath(text(extra.output, "output"));
    const designs = checkDesigns(texts(extra.designs, "designs"), action);
    return (
      await changePhase(context, {
        action,
        phase: checked,
        output,
        error: text(extra.error, "error"),
        designs,
        pick: extra.pick,
      })
    ).result;
  };
  // Async throughout, so a bad argument is a rejected promise like every other refusal.
  const task = async <R>(change: TaskChange): Promise<R> => {
    if (change.action !== "import") checkTaskId(text(change.id, "id"), change.action);
    for (const dep of texts(change.dependsOn, "dependsOn") ?? []) checkTaskId(dep, change.action);
    const checked: TaskChange = {
      ...change,
      title: text(change.title, "title"),
      error: text(change.error, "error"),
      output: checkOutputPath(text(change.output, "output")),
      ...(change.extraAttempts === undefined ? {} : { extraAttempts: checkExtraAttempts(change.extraAttempts) }),
      // A program is the owner of the tasks it starts (the CLI's default is Claude Code's process).
      ...(change.action === "start" ? { owner: checkOwner(change.owner ?? process.pid) } : {}),
    };
    return (await changeTask(context, checked)).result as R;
  };
  return {
    root: paths.root,
    async status(o = {}) {
      return (await readStatus(context, staleAfterMs(text(o.staleAfter, "staleAfter")))).result;
    },
    async validate(o = {}) {
      return (await validateWorkflow(context, staleAfterMs(text(o.staleAfter, "staleAfter")))).result;
    },
    async resume(o = {}) {
      const maxParallel = o.maxParallel === undefined ? undefined : checkMaxParallel(o.maxParallel);
      if (o.isolation !== undefined && o.isolation !== "commit" && o.isolation !== "shared")
        throw usageError(`isolation must be "commit" or "shared", not ${JSON.stringify(o.isolation)}`);
      const workflow = await workflowArg(paths.root, o.workflow);
      const outcome = await resumeWorkflow(context, {
        request: requestArg(o.request),
        staleAfterMs: staleAfterMs(text(o.staleAfter, "staleAfter")),
        maxParallel,
        dryRun: o.dryRun === true,
        start: o.start === true,
        decide: asDecide(o.decide),
        isolation: o.isolation,
        keepEdits: o.keepEdit === true,
        workflow,
      });
      if (outcome === undefined)
        throw new DotagentError(
          "resume_unsettled",
          "the answers did not settle the plan after three rounds; call resume again",
          EXIT.refused,
        );
      return outcome.result;
    },
    async init(request, o = {}) {
      const workflowId = text(o.workflowId, "workflowId");
      const idError = workflowId === undefined ? null : idProblem(workflowId, "workflow id");
      if (idError !== null) throw usageError(`--workflow-id: ${idError}`);
      const workflow = await workflowArg(paths.root, o.workflow);
      return startWorkflow(context, {
        request: requestArg(request),
        workflowId: o.workflowId,
        decide: asDecide(o.decide),
        workflow,
      });
    },
    phase: {
      start: (p, o = {}) => phase("start", p, o.designs === undefined ? {} : { designs: o.designs }),
      approve: (p, o = {}) => {
        const pick = text(o.pick, "pick");
        return phase(
          "approve",
          p,
          pick === undefined
            ? {}
            : {
                pick: {
                  design: pick,
                  words: text(o.notes, "notes") ?? "",
                  via: o.auto === true ? "auto" : "program",
                  ...(o.tasks === undefined ? {} : { tasks: o.tasks }),
                },
              },
        );
      },
      complete: (p, o = {}) => phase("complete", p, o.output === undefined ? {} : { output: o.output }),
      fail: (p, o = {}) => phase("fail", p, o.error === undefined ? {} : { error: o.error }),
      rework: () => phase("rework", undefined),
    },
    tasks: {
      async import(plan) {
        const tasks: NewTask[] = await parseTaskPlan(plan, "plan");
        return task<TasksAddedResult>({ action: "import", tasks });
      },
      add: (id, o = {}) => task<TasksAddedResult>({ action: "add", id, title: o.title, dependsOn: o.dependsOn }),
      start: (id, o = {}) => task<TaskResult>({ action: "start", id, owner: o.owner }),
      complete: (id, o = {}) => task<TaskResult>({ action: "complete", id, output: o.output }),
      fail: (id, o = {}) => task<TaskResult>({ action: "fail", id, error: o.error }),
      retry: (id, o = {}) => task<TaskResult>({ action: "retry", id, extraAttempts: o.extraAttempts ?? 0 }),
      next: () => nextTasks(context),
      async list(o = {}) {
        if (o === null || typeof o !== "object") throw usageError(`tasks.list takes { status? }, not ${describe(o)}`);
        const statuses = texts(o.status as string[] | undefined, "status");
        if (statuses === undefined) return listTasks(context);
        const parsed = parseStatusFilter(statuses.join(","));
        if (!parsed.ok) throw usageError(parsed.message);
        return listTasks(context, parsed.statuses);
      },
      async show(id) {
        return showTask(context, checkTaskId(text(id, "id"), "show"));
      },
      async edit(id, changes) {
        checkTaskId(text(id, "id"), "edit");
        if (changes === null || typeof changes !== "object")
          throw usageError(`tasks.edit takes { title?, dependsOn? }, not ${describe(changes)}`);
        const title = text(changes.title, "title");
        const dependsOn = texts(changes.dependsOn, "dependsOn");
        for (const dep of dependsOn ?? []) checkTaskId(dep, "edit");
        if (title === undefined && dependsOn === undefined)
          throw usageError(`tasks.edit(${JSON.stringify(id)}) needs title or dependsOn`);
        return editPlan(context, { kind: "edit", id, title, dependsOn });
      },
      async remove(id) {
        return editPlan(context, { kind: "remove", id: checkTaskId(text(id, "id"), "remove") });
      },
      async skip(id, o) {
        checkTaskId(text(id, "id"), "skip");
        const reason = text((o as { reason?: unknown } | undefined)?.reason, "reason")?.trim();
        if (!reason) throw usageError(`tasks.skip(${JSON.stringify(id)}) needs { reason }: why the task is not done`);
        return editPlan(context, { kind: "skip", id, reason });
      },
    },
    history: () => listHistory(context),
    async checkpoint(rev) {
      return showCheckpoint(context, checkRevision(rev));
    },
    async rollback(to, o = {}) {
      if (typeof to !== "string")
        throw usageError("rollback needs --to PHASE or --to REV (from `dotagent history`), and nothing else");
      return (await rollBackWorkflow(context, to, asDecide(o.decide, o.yes === true))).result;
    },
    async once(opId, command, o = {}) {
      if (o.markDone && o.redo) throw usageError("--mark-done and --redo answer the same question two ways; give one");
      if (typeof opId !== "string")
        throw usageError("once needs an op id, then `--` and the command; see `dotagent once --help`");
      checkOpId(opId); // before any message echoes it
      texts(command, "command");
      text(o.check, "check");
      if (!o.markDone && command.length === 0)
        throw usageError(
          `once ${opId} needs the command to run after \`--\`, e.g. \`dotagent once ${opId} -- git push\``,
        );
      // The caller's onStdout runs inside the child's output events: one that throws would take
      // the host process down. It stops being called instead; the run and its record go on.
      const forward = callback(o.onStdout, "onStdout");
      let forwardError: unknown;
      const onStdout =
        forward === undefined
          ? undefined
          : (chunk: Uint8Array) => {
              if (forwardError !== undefined) return;
              try {
                forward(chunk);
              } catch (error) {
                forwardError = error ?? new Error(String(error));
              }
            };
      const done = await runOnceOp(context, opId, command, {
        check: o.check,
        markDone: o.markDone,
        redo: o.redo,
        onStdout,
        decide: asDecide(o.decide),
      });
      if (forwardError !== undefined) {
        throw new DotagentError(
          "usage",
          `once ${opId}: onStdout threw (${String((forwardError as Error)?.message ?? forwardError).split("\n")[0]}), so the output stopped being passed on; the command ran to its end and its result is recorded: call once() again to get it`,
          EXIT.usage,
          { op_id: opId, outcome: done.result.outcome, exit_code: done.result.exit_code },
        );
      }
      return done.result;
    },
  };
}
