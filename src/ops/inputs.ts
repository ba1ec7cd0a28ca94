// Checks of the typed inputs every caller gives an operation (the CLI after parsing argv, the
// library directly): one implementation, so a bad value gets the same usage error (exit 2)
// whichever way it came in (numbers are checked to be numbers: a JavaScript caller may pass "3").
import { usageError } from "../core/errors.js";
import { checkProjectPath } from "../core/reports.js";
import { MAX_REVISION, parseRevision, revisionProblem } from "../core/rollback.js";
import { ID_PATTERN, idProblem, MAX_PARALLEL_LIMIT } from "../schema/json.js";

/** An output path as a project-relative path, or a usage error for one that leaves the project. */
export function checkOutputPath(output: string | undefined): string | undefined {
  if (output === undefined) return undefined;
  const checked = checkProjectPath(output);
  if (!checked.ok) throw usageError(`--output ${output} ${checked.reason}`);
  return checked.path;
}

/** Design names (ids: they become designs/<name>.json), in order, once each; only with `start`. */
export function checkDesigns(names: readonly string[] | undefined, action: string): string[] | undefined {
  if (names === undefined) return undefined;
  if (action !== "start") throw usageError("--designs goes with `phase start ARCHITECTURE`");
  const unique = [...new Set(names.map((s) => s.trim()).filter((s) => s !== ""))];
  if (unique.length === 0) throw usageError("--designs needs at least one design name, like --designs minimal,robust");
  const bad = unique.find((n) => !ID_PATTERN.test(n));
  if (bad !== undefined)
    throw usageError(
      `"${bad}" is not a valid design name: letters, digits, '.', '_' or '-', not starting with '.' or '-'`,
    );
  return unique;
}

export function checkTaskId(id: string | undefined, action: string): string {
  if (id === undefined) throw usageError(`task ${action} needs a task id; see \`dotagent task --help\``);
  const problem = idProblem(id, "task id");
  if (problem !== null) throw usageError(problem);
  return id;
}

export function checkExtraAttempts(extra: number, text: string | undefined = String(extra)): number {
  if (typeof extra !== "number" || !Number.isInteger(extra) || extra < 0 || extra > 1000)
    throw usageError(`--extra-attempts takes a whole number from 0 to 1000, not "${text}"`);
  return extra;
}

/** A task's owner: the pid of the process that runs it. */
export function checkOwner(owner: number, text: string = String(owner)): number {
  if (typeof owner !== "number" || !/^\d+$/.test(text) || owner < 2 || !Number.isSafeInteger(owner))
    throw usageError(`--owner takes the pid of the process that runs the task, not "${text}"`);
  return owner;
}

/** How many tasks run at once: a whole number from 1 to MAX_PARALLEL_LIMIT. */
export function checkMaxParallel(value: number, text: string = String(value)): number {
  if (typeof value !== "number" || !/^\d+$/.test(text) || value < 1 || value > MAX_PARALLEL_LIMIT)
    throw usageError(`--max-parallel takes a whole number from 1 to ${MAX_PARALLEL_LIMIT}, not "${text}"`);
  return value;
}

/** A checkpoint revision (`history show REV`, the library's checkpoint(rev)): text as typed or a number. */
export function checkRevision(value: unknown): number {
  if (typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= MAX_REVISION) return value;
  const rev = typeof value === "string" ? parseRevision(value) : null;
  if (rev === null) throw usageError(revisionProblem(shownValue(value)));
  return rev;
}

/** A value in a message: a string quoted, anything else as JSON, at most 40 characters. */
function shownValue(value: unknown): string {
  const text =
    typeof value === "string"
      ? JSON.stringify(value)
      : typeof value === "bigint"
        ? `${value}n`
        : (JSON.stringify(value) ?? String(value));
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
