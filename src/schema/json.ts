// What the schemas share that needs no zod: JSON decoding, JSON paths, ids, task statuses. Kept
// apart so the commands that only read state never load zod (see quick-parse.ts).

/**
 * Ids become file names (memory/reports/tasks/<id>.json) and command arguments, so they are
 * limited to a safe alphabet: no slashes, no dots at the start, nothing a shell would expand.
 */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const MAX_ID_LENGTH = 128;

/**
 * A task's worktree folder (`.dotagent/worktrees/<task>`, `-2`, … when taken) and branch
 * (`dotagent/<workflow>/<task>`): a landing removes that folder and deletes that branch, so a
 * record naming anything else (a hand-edited `src`, `../..`, `main`) is invalid state, never acted on.
 */
export const WORKTREE_PATH_PATTERN = /^\.dotagent\/worktrees\/[A-Za-z0-9][A-Za-z0-9._-]{0,159}$/;
export const TASK_BRANCH_PATTERN = /^dotagent\/(?!.*\.\.)(?!.*\/\/)[A-Za-z0-9._-][A-Za-z0-9._/-]{0,299}$/;

/** Why `id` is not a valid id, in words that fit one line (a 10 KB id is not echoed), or null. */
export function idProblem(id: string, what: string): string | null {
  if (ID_PATTERN.test(id)) return null;
  if (id.length > MAX_ID_LENGTH)
    return `${/^[aeiou]/.test(what) ? "an" : "a"} ${what} of ${id.length} characters (${JSON.stringify(id.slice(0, 20))}…) is too long: at most ${MAX_ID_LENGTH} characters`;
  return `${JSON.stringify(id)} is not a valid ${what}: letters, digits, '.', '_' or '-', at most ${MAX_ID_LENGTH}, not starting with '.' or '-'`;
}

export const TASK_STATUSES = ["pending", "running", "complete", "failed", "dead", "skipped"] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export const DEFAULT_MAX_ATTEMPTS = 3;
/** How many ready tasks `run_tasks` lists at once, unless execution.json's max_parallel says otherwise. */
export const DEFAULT_MAX_PARALLEL = 3;
export const MAX_PARALLEL_LIMIT = 32;

export type JsonPath = readonly PropertyKey[];

export interface SchemaProblem {
  /** JSON path inside the file, like `completed_phases[1].phase`; "" for the whole document. */
  readonly path: string;
  readonly message: string;
}

export type ParseResult<T> = { ok: true; value: T } | { ok: false; problems: SchemaProblem[] };

/** `completed_phases[1].phase` from ["completed_phases", 1, "phase"]. */
export function formatJsonPath(path: JsonPath): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
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
