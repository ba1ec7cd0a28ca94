import type { ParseArgsConfig } from "node:util";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { usageError } from "../core/errors.js";
import { checkProjectPath } from "../core/reports.js";
import type { Output } from "./output.js";
import type { ProjectPaths } from "../store/project.js";
import { withLock, type Locked } from "../store/session.js";
import { ioFailure } from "../store/io-error.js";
import { MAX_PARALLEL_LIMIT } from "../schema/json.js";

export type OptionSpec = NonNullable<ParseArgsConfig["options"]>;

export interface CommandContext {
  /** Positional arguments after the command name (and sub-command, where there is one). */
  readonly args: string[];
  readonly options: Record<string, string | boolean | string[] | undefined>;
  readonly out: Output;
  readonly paths: ProjectPaths;
  readonly now: () => Date;
}

export interface Command {
  readonly summary: string;
  readonly usage: string;
  readonly options: OptionSpec;
  readonly examples: readonly string[];
  /** Unknown options are ignored instead of a usage error (the hook: it must never fail a session). */
  readonly lenientOptions?: boolean;
  /** Returns the exit code (0 unless the command's outcome says otherwise). */
  run(context: CommandContext): Promise<number> | number;
}

export function stringOption(context: CommandContext, name: string): string | undefined {
  const value = context.options[name];
  return typeof value === "string" ? value : undefined;
}

/** The feature request: trimmed; empty or blank means "no request" (what `/develop` with no text sends). */
export function requestOption(context: CommandContext): string | undefined {
  const text = stringOption(context, "request")?.trim();
  return text ? text : undefined;
}

/**
 * Runs `fn` under the state lock; a stale lock taken over is reported to the person on stderr.
 * If a state file changed on disk while `fn` ran (someone wrote without the lock), its write is
 * refused and `fn` runs again from a fresh read, up to three times, so no update is lost.
 */
export async function locked<T>(context: CommandContext, command: string, fn: (locked: Locked) => T | Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await withLock(context.paths, command, (l) => (rollbackCutOff(context.paths) ? finishRollbackFirst(context).then(() => fn(l)) : fn(l)), warn(context));
    } catch (error) {
      if (attempt >= 3 || (error as { code?: unknown }).code !== "concurrent_write") throw ioFailure(error, context.paths.root) ?? error;
    }
  }
}

/** A warning for the person on stderr (never in --json stdout), the way every command says it. */
export function warn(context: CommandContext): (message: string) => void {
  return (message) => context.out.note(`dotagent: warning: ${message}`);
}

function rollbackCutOff(paths: ProjectPaths): boolean {
  return existsSync(join(paths.stateDir, ".rollback", "journal.json"));
}

async function finishRollbackFirst(context: CommandContext): Promise<void> {
  const { finishCutOffRollback } = await import("./finish-rollback.js");
  await finishCutOffRollback(context.paths, context.now(), (line) => context.out.note(line));
}

/** The sub-command (first argument) and at most one more argument, or a usage error. */
export function subcommand<A extends string>(context: CommandContext, command: string, actions: readonly A[]): [A, string | undefined] {
  const [action, arg, ...rest] = context.args;
  if (action === undefined || !(actions as readonly string[]).includes(action)) throw usageError(`${command} needs one of ${actions.join(", ")}; see \`dotagent ${command} --help\``);
  if (rest.length > 0) throw usageError(`unexpected argument "${rest[0]}"`);
  return [action as A, arg];
}

/** --max-parallel N: a whole number from 1 to MAX_PARALLEL_LIMIT. */
export function maxParallelOption(context: CommandContext): number | undefined {
  const text = stringOption(context, "max-parallel");
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > MAX_PARALLEL_LIMIT) throw usageError(`--max-parallel takes a whole number from 1 to ${MAX_PARALLEL_LIMIT}, not "${text}"`);
  return value;
}

/** --output as a project-relative path, or a usage error for one that leaves the project. */
export function outputOption(context: CommandContext): string | undefined {
  const output = stringOption(context, "output");
  if (output === undefined) return undefined;
  const checked = checkProjectPath(output);
  if (!checked.ok) throw usageError(`--output ${output} ${checked.reason}`);
  return checked.path;
}
