// The shape of a workflow definition file (.dotagent/workflows/<name>.json, SPEC §20) and of the
// definition a workflow pins in phase.json (`workflow`). The rules between fields (rework goes
// back, ids are unique, reports stay in memory/reports/, …) are core/resolve-workflow.ts's.
import * as z from "zod/mini";
import { STEP_KINDS } from "../core/flow.js";
import { parseWith, type ParseResult } from "./common.js";
import type { WorkflowDef } from "../core/workflow-defs.js";

const text = (max: number) => z.string().check(z.maxLength(max));
const scalar = z.union([text(500), z.number(), z.boolean()]);

export const conditionSchema = z.strictObject({
  report: text(200),
  field: z.optional(text(200)),
  equals: z.optional(scalar),
  not_equals: z.optional(scalar),
  matches: z.optional(text(500)),
});

export const stepDefSchema = z.strictObject({
  id: text(100),
  kind: z.enum(STEP_KINDS),
  title: z.optional(text(200)),
  agent: z.optional(text(100)),
  reducer: z.optional(text(100)),
  designs: z.optional(z.array(z.strictObject({ name: text(100), angle: text(500) })).check(z.maxLength(10))),
  report: z.optional(z.union([text(200), z.array(text(200)).check(z.minLength(1), z.maxLength(5))])),
  gate: z.optional(z.enum(["approve", "choose"])),
  run: z.optional(text(10_000)),
  rework: z.optional(text(100)),
  max_rounds: z.optional(z.int().check(z.minimum(1), z.maximum(20))),
  retries: z.optional(z.int().check(z.minimum(0), z.maximum(10))),
  timeout: z.optional(z.int().check(z.minimum(1), z.maximum(86_400))),
  when: z.optional(conditionSchema),
});

const steps = z.array(stepDefSchema).check(z.maxLength(50));

export const workflowDefSchema = z.strictObject({
  $schema: z.optional(z.string()),
  description: z.optional(text(500)),
  extends: z.optional(text(100)),
  steps: z.optional(steps),
  insert: z.optional(
    z
      .array(z.strictObject({ after: z.optional(text(100)), before: z.optional(text(100)), steps }))
      .check(z.maxLength(50)),
  ),
  replace: z.optional(steps),
  remove: z.optional(z.array(text(100)).check(z.maxLength(50))),
});

/** The definition a workflow started with, pinned in phase.json: its name, hash and resolved steps. */
export const pinnedWorkflowSchema = z.looseObject({
  name: text(100),
  hash: z.string().check(z.regex(/^[0-9a-f]{16}$/, "16 lowercase hex characters")),
  description: z.optional(text(500)),
  steps: steps.check(z.minLength(1)),
});

export type PinnedWorkflow = z.infer<typeof pinnedWorkflowSchema>;

export function parseWorkflowDef(data: unknown): ParseResult<WorkflowDef> {
  return parseWith(workflowDefSchema, data) as ParseResult<WorkflowDef>;
}
