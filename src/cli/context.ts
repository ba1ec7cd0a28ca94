import type { ParseArgsConfig } from "node:util";
import type { Output } from "./output.js";
import type { ProjectPaths } from "../store/project.js";
import { withLock, type Locked } from "../store/session.js";
import { ioFailure } from "../store/io-error.js";

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
      return await withLock(context.paths, command, fn, (message) => context.out.note(`dotagent: warning: ${message}`));
    } catch (error) {
      if (attempt >= 3 || (error as { code?: unknown }).code !== "concurrent_write") throw ioFailure(error, context.paths.root) ?? error;
    }
  }
}
