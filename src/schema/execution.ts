import * as z from "zod/mini";
import { idString, isoDateTime, nonEmptyString, nonNegativeInt, parseWith, type ParseResult } from "./common.js";

import { DEFAULT_MAX_ATTEMPTS, MAX_PARALLEL_LIMIT, TASK_STATUSES } from "./json.js";

export { DEFAULT_MAX_ATTEMPTS, DEFAULT_MAX_PARALLEL, MAX_PARALLEL_LIMIT, TASK_STATUSES, type TaskStatus } from "./json.js";

/** Who runs a running task (see core/ownership.ts), recorded by `task start`. */
export const ownerSchema = z.looseObject({
  session: z.optional(z.nullable(z.string())),
  pid: z.int().check(z.minimum(1)),
  pid_start: z.optional(z.nullable(z.string())),
  host: nonEmptyString,
  at: isoDateTime,
});

export const taskSchema = z.looseObject({
  id: idString,
  title: z.optional(z.string()),
  status: z.enum(TASK_STATUSES),
  depends_on: z._default(z.array(idString), []),
  attempts: z._default(nonNegativeInt, 0),
  /** Per-task override of the file's max_attempts, raised by `task retry --extra-attempts`. */
  max_attempts: z.optional(z.int().check(z.minimum(1))),
  started_at: z.optional(z.nullable(isoDateTime)),
  completed_at: z.optional(z.nullable(isoDateTime)),
  output: z.optional(z.nullable(z.string())),
  error: z.optional(z.nullable(z.string())),
  owner: z.optional(z.nullable(ownerSchema)),
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
});

export type Task = z.infer<typeof taskSchema>;
export type ExecutionState = z.infer<typeof executionStateSchema>;
export type PlanRecord = z.infer<typeof planRecordSchema>;

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
