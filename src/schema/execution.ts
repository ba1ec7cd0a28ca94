import * as z from "zod/mini";
import { idString, isoDateTime, nonEmptyString, nonNegativeInt, parseWith, type ParseResult } from "./common.js";

import {
  DEFAULT_MAX_ATTEMPTS,
  MAX_PARALLEL_LIMIT,
  TASK_BRANCH_PATTERN,
  TASK_STATUSES,
  WORKTREE_PATH_PATTERN,
} from "./json.js";

export {
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_MAX_PARALLEL,
  MAX_PARALLEL_LIMIT,
  TASK_STATUSES,
  type TaskStatus,
} from "./json.js";

/** Who runs a running task (see core/ownership.ts), recorded by `task start`. */
export const ownerSchema = z.looseObject({
  session: z.optional(z.nullable(z.string())),
  pid: z.int().check(z.minimum(1)),
  pid_start: z.optional(z.nullable(z.string())),
  host: nonEmptyString,
  at: isoDateTime,
});

/** A commit id as git prints it (full SHA-1 or SHA-256 hex). */
const commitId = z.string().check(z.regex(/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/, "a full commit id (40 or 64 hex digits)"));

/**
 * The merge of a task's branch into the workflow's branch (SPEC §19): `merging` is the intent,
 * written before git changes anything; `merged` the result (`commit` null: nothing to merge);
 * `conflict` an attempt that did not merge, naming the files (its branch is kept).
 */
export const mergeRecordSchema = z.looseObject({
  state: z.enum(["merging", "merged", "conflict"]),
  into: nonEmptyString,
  onto: z.optional(z.nullable(commitId)),
  head: z.optional(z.nullable(commitId)),
  commit: z.optional(z.nullable(commitId)),
  files: z.optional(z.array(z.string())),
  reason: z.optional(z.nullable(z.string())),
  /** conflict `untrusted_worktree` or `wrong_branch`: why (the landing guard's words, the branch it was on). */
  detail: z.optional(z.nullable(z.string())),
  /** merged: what the landing did not merge (the landing guard) and the commit that still holds it. */
  left_out: z.optional(z.looseObject({ files: z.array(z.string()), commit: z.nullable(commitId) })),
  at: isoDateTime,
});

/** The git worktree a task runs in (SPEC §19), made by dotagent when the task starts. */
export const worktreeRecordSchema = z.looseObject({
  /** Project-relative folder of the worktree, e.g. `.dotagent/worktrees/task-001`. */
  path: z
    .string()
    .check(
      z.regex(WORKTREE_PATH_PATTERN, "a folder .dotagent/worktrees/<task> (dotagent removes it when the task lands)"),
    ),
  branch: z
    .string()
    .check(
      z.regex(TASK_BRANCH_PATTERN, "a branch dotagent/<workflow>/<task> (dotagent deletes it when the task lands)"),
    ),
  /** The workflow's branch it merges into (the main checkout's branch when the round started). */
  into: nonEmptyString,
  /** The commit the worktree was made from: the workflow branch's tip when the task first started. */
  base: commitId,
  merge: z.optional(z.nullable(mergeRecordSchema)),
});

/** How a round's tasks run (SPEC §19): each in its own worktree merged into `branch`, or in the shared checkout, and why. */
export const isolationRecordSchema = z.looseObject({
  round: nonNegativeInt,
  mode: z.enum(["worktree", "shared"]),
  branch: z.optional(z.nullable(nonEmptyString)),
  reason: z.optional(z.nullable(z.string())),
  decided_at: isoDateTime,
});

export const taskSchema = z.looseObject({
  id: idString,
  title: z.optional(z.string()),
  status: z.enum(TASK_STATUSES),
  depends_on: z._default(z.array(idString), []),
  attempts: z._default(nonNegativeInt, 0),
  /** Of `attempts`, those cut off: the session ended while the task ran (recovered as orphaned), no failure it reported. */
  cut_off: z.optional(nonNegativeInt),
  /** Per-task override of the file's max_attempts, raised by `task retry --extra-attempts`. */
  max_attempts: z.optional(z.int().check(z.minimum(1))),
  started_at: z.optional(z.nullable(isoDateTime)),
  completed_at: z.optional(z.nullable(isoDateTime)),
  output: z.optional(z.nullable(z.string())),
  error: z.optional(z.nullable(z.string())),
  owner: z.optional(z.nullable(ownerSchema)),
  worktree: z.optional(z.nullable(worktreeRecordSchema)),
  /** `task skip`: why a person took it out of the work (status skipped; it counts as done for its dependants). */
  skipped: z.optional(z.nullable(z.looseObject({ reason: nonEmptyString, at: isoDateTime }))),
});

/**
 * A task plan recorded whole (`task import`): one per round, 0 for the first plan and N for
 * rework round N. A file without `plans` predates plan records (legacy: tasks present = planned).
 */
export const planRecordSchema = z.looseObject({
  round: nonNegativeInt,
  recorded_at: isoDateTime,
  tasks: nonNegativeInt,
});

export const executionStateSchema = z.looseObject({
  workflow_id: nonEmptyString,
  updated_at: isoDateTime,
  interruption_safe: z.boolean(),
  max_attempts: z._default(z.int().check(z.minimum(1)), DEFAULT_MAX_ATTEMPTS),
  revision: z.optional(nonNegativeInt),
  /** How many ready tasks `run_tasks` lists at once; set by `resume --max-parallel N`. */
  max_parallel: z.optional(z.int().check(z.minimum(1), z.maximum(MAX_PARALLEL_LIMIT))),
  tasks: z.array(taskSchema),
  plans: z.optional(z.array(planRecordSchema)),
  isolation: z.optional(z.nullable(isolationRecordSchema)),
});

export type Task = z.infer<typeof taskSchema>;
export type ExecutionState = z.infer<typeof executionStateSchema>;
export type PlanRecord = z.infer<typeof planRecordSchema>;
export type WorktreeRecord = z.infer<typeof worktreeRecordSchema>;
export type MergeRecord = z.infer<typeof mergeRecordSchema>;
export type IsolationRecord = z.infer<typeof isolationRecordSchema>;

export function parseExecutionState(data: unknown): ParseResult<ExecutionState> {
  return parseWith(executionStateSchema, data);
}

const importedTasks = z.array(
  z.looseObject({
    id: idString,
    title: z.optional(z.string()),
    depends_on: z.optional(z.array(idString)),
  }),
);

/** Input of `dotagent task import`: a JSON array of tasks, or an object with a `tasks` array (final_design.json, a plan file). */
export const taskImportSchema = z.union([importedTasks, z.looseObject({ tasks: importedTasks })]);
export type TaskImport = z.infer<typeof taskImportSchema>;
export { nonEmptyString };
