import * as z from "zod/mini";
import { formatJsonPath, ID_PATTERN, type ParseResult } from "./json.js";

export { decodeJson, formatJsonPath, ID_PATTERN, type JsonPath, type ParseResult, type SchemaProblem } from "./json.js";

/** ISO 8601 date-time with Z or an offset, as agents write them by hand. */
export const isoDateTime = z.iso.datetime({ offset: true });
export const nonEmptyString = z.string().check(z.minLength(1));
export const nonNegativeInt = z.int().check(z.minimum(0));

export const idString = z
  .string()
  .check(z.regex(ID_PATTERN, "an id: letters, digits, '.', '_' or '-', at most 128, not starting with '.' or '-'"));

type Issue = z.core.$ZodIssue;

function describeIssue(issue: Issue): string {
  switch (issue.code) {
    case "invalid_type":
      return issue.input === undefined
        ? `required ${issue.expected} is missing`
        : `expected ${issue.expected}, got ${typeOfJson(issue.input)}`;
    case "invalid_value":
      return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "invalid_format":
      return issue.format === "datetime"
        ? "expected an ISO 8601 date-time like 2026-11-20T09:00:00Z"
        : (issue.message ?? `expected ${issue.format}`);
    case "too_small":
      return issue.origin === "string" ? "must not be empty" : `must be at least ${String(issue.minimum)}`;
    case "too_big":
      return `must be at most ${String(issue.maximum)}`;
    case "unrecognized_keys":
      return `unknown keys ${issue.keys.join(", ")}`;
    default:
      return issue.message ?? issue.code;
  }
}

function typeOfJson(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** Parses already-decoded JSON against a schema; never throws. */
export function parseWith<T>(schema: z.ZodMiniType<T>, data: unknown): ParseResult<T> {
  const result = z.safeParse(schema, data, { reportInput: true });
  if (result.success) return { ok: true, value: result.data };
  return {
    ok: false,
    problems: result.error.issues.map((issue) => ({ path: formatJsonPath(issue.path), message: describeIssue(issue) })),
  };
}
