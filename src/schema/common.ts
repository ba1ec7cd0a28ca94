import * as z from "zod/mini";

/** ISO 8601 date-time with Z or an offset, as agents write them by hand. */
export const isoDateTime = z.iso.datetime({ offset: true });
export const nonEmptyString = z.string().check(z.minLength(1));
export const nonNegativeInt = z.int().check(z.minimum(0));

/**
 * Ids become file names (memory/reports/tasks/<id>.json) and command arguments, so they are
 * limited to a safe alphabet: no slashes, no dots at the start, nothing a shell would expand.
 */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const idString = z.string().check(z.regex(ID_PATTERN, "an id: letters, digits, '.', '_' or '-', at most 128, not starting with '.' or '-'"));

export type JsonPath = readonly PropertyKey[];

export interface SchemaProblem {
  /** JSON path inside the file, like `completed_phases[1].phase`; "" for the whole document. */
  readonly path: string;
  readonly message: string;
}

/** `completed_phases[1].phase` from ["completed_phases", 1, "phase"]. */
export function formatJsonPath(path: JsonPath): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
}

type Issue = z.core.$ZodIssue;

function describeIssue(issue: Issue): string {
  switch (issue.code) {
    case "invalid_type":
      return issue.input === undefined ? `required ${issue.expected} is missing` : `expected ${issue.expected}, got ${typeOfJson(issue.input)}`;
    case "invalid_value":
      return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "invalid_format":
      return issue.format === "datetime" ? "expected an ISO 8601 date-time like 2026-11-20T09:00:00Z" : (issue.message ?? `expected ${issue.format}`);
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

export type ParseResult<T> = { ok: true; value: T } | { ok: false; problems: SchemaProblem[] };

/** Parses already-decoded JSON against a schema; never throws. */
export function parseWith<T>(schema: z.ZodMiniType<T>, data: unknown): ParseResult<T> {
  const result = z.safeParse(schema, data, { reportInput: true });
  if (result.success) return { ok: true, value: result.data };
  return {
    ok: false,
    problems: result.error.issues.map((issue) => ({ path: formatJsonPath(issue.path), message: describeIssue(issue) })),
  };
}

/** JSON.parse without throwing; the message names the position, like V8's, without the stack. */
export function decodeJson(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  if (text.trim() === "") return { ok: false, message: "file is empty" };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, message: `not valid JSON (${(error as Error).message})` };
  }
}
