// The errors of a DotagentSaver: one line each, naming the file and a way out that works.
import { DotagentError, EXIT } from "../core/errors.js";

export function usage(message: string): DotagentError {
  return new DotagentError("usage", message, EXIT.usage);
}

/**
 * A file or folder the saver cannot read as its own. The way out: deleteThread, which renames the
 * thread's folder away whatever is in it (a link, a file, garbage), so it always works; or, for a
 * name in the saver's folder that holds no thread, moving it away.
 */
export function invalid(file: string, why: string, thread?: string, earlier = false): DotagentError {
  const start = earlier ? "read an earlier checkpoint (getTuple with its checkpoint_id), or " : "";
  const way =
    thread === undefined
      ? "for the person: move it out of the saver's folder"
      : `${start}deleteThread(${JSON.stringify(thread)}) to start that thread over`;
  return new DotagentError("checkpoint_invalid", `${file}: ${why}; ${way}`, EXIT.invalid, { file });
}

export function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (value === null || value === undefined || typeof value === "number" || typeof value === "boolean")
    return String(value);
  if (typeof value === "function") return "a function";
  return Array.isArray(value) ? "an array" : `a ${typeof value}`;
}
