// JSON Schema export, generated from the same zod schemas that parse the files: no hand copy.
import * as z from "zod/mini";
import { phaseStateSchema } from "./phase.js";
import { executionStateSchema } from "./execution.js";
import { taskOutputSchema } from "./task-output.js";
import { workflowDefSchema } from "./workflow.js";

export const SCHEMA_NAMES = ["phase", "execution", "task-output", "workflow"] as const;
export type SchemaName = (typeof SCHEMA_NAMES)[number];

const SCHEMAS = {
  phase: phaseStateSchema,
  execution: executionStateSchema,
  "task-output": taskOutputSchema,
  workflow: workflowDefSchema,
} as const;
const TITLES: Record<SchemaName, string> = {
  phase: "memory/state/phase.json",
  execution: "memory/state/execution.json",
  "task-output": "memory/reports/tasks/<task-id>.json",
  workflow: ".dotagent/workflows/<name>.json",
};

export function exportJsonSchema(name: SchemaName): Record<string, unknown> {
  // io "input": what a file may hold as written by hand (fields with defaults are optional).
  const schema = z.toJSONSchema(SCHEMAS[name], { io: "input", target: "draft-2020-12" }) as Record<string, unknown>;
  return { ...schema, title: TITLES[name] };
}
