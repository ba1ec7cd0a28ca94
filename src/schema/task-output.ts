import * as z from "zod/mini";
import { parseWith, type ParseResult } from "./common.js";

/** What an executor writes to memory/reports/tasks/<id>.json (CONTRACT §4). */
export const taskOutputSchema = z.looseObject({
  task_id: z.string().check(z.minLength(1)),
  status: z.enum(["complete", "failed"]),
});
export type TaskOutput = z.infer<typeof taskOutputSchema>;

export function parseTaskOutput(data: unknown): ParseResult<TaskOutput> {
  return parseWith(taskOutputSchema, data);
}

/** verification.json must say whether it passed. */
export const verificationSchema = z.looseObject({ passed: z.boolean() });

export function parseVerification(data: unknown): ParseResult<z.infer<typeof verificationSchema>> {
  return parseWith(verificationSchema, data);
}
