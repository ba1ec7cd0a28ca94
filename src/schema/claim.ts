// claim.json, the one file of a task's claim on the git remote (SPEC §23). It arrives from other
// machines through git, so it is untrusted input: every string is bounded and free of control
// characters (it is shown to people: no terminal escapes, no line breaks), unknown keys are
// dropped, and nothing in it is ever used as a path. The size cap is checked before this runs.
import * as z from "zod/mini";
import { ID_PATTERN, isoDateTime, parseWith, type ParseResult } from "./common.js";

/** Printable text a person reads (a host name): no control characters, 1–255 characters. */
const printable = z
  .string()
  .check(z.minLength(1), z.maxLength(255), z.regex(/^[^\p{Cc}\p{Cf}]+$/u, "printable characters only"));

const id = z.string().check(z.regex(ID_PATTERN, "an id"));

export const claimWorkerSchema = z.object({
  id: z.string().check(z.regex(/^[0-9a-f]{16}$/, "16 hex digits")),
  host: printable,
  pid: z.int().check(z.minimum(1), z.maximum(2 ** 31)),
});

export const claimSchema = z.object({
  format: z.literal(1),
  workflow_id: id,
  task_id: id,
  state: z.enum(["held", "released", "done"]),
  worker: claimWorkerSchema,
  claimed_at: isoDateTime,
  renewed_at: isoDateTime,
  expires_at: z.nullable(isoDateTime),
  attempt: z.int().check(z.minimum(1), z.maximum(1_000_000)),
  /**
   * done, landed through the remote (SPEC §23 "Landing through the remote"): the workflow's branch
   * and the commit on it that holds the task's landing. Absent in claims written before it (and on
   * held and released claims); a branch name here is only ever compared, never used as a path.
   */
  landed: z.optional(
    z.nullable(
      z.object({
        branch: z.string().check(z.minLength(1), z.maxLength(255), z.regex(/^[A-Za-z0-9._/-]+$/, "a branch name")),
        commit: z.string().check(z.regex(/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/, "a commit id")),
      }),
    ),
  ),
});

export type ClaimRecord = z.infer<typeof claimSchema>;
export type ClaimWorker = z.infer<typeof claimWorkerSchema>;

export function parseClaim(data: unknown): ParseResult<ClaimRecord> {
  return parseWith(claimSchema, data);
}
