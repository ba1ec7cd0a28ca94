import type { ParseArgsConfig } from "node:util";
import { usageError } from "../core/errors.js";
import { checkMaxParallel, checkOutputPath } from "../ops/inputs.js";
import type { Output } from "./output.js";
import type { ProjectPaths } from "../store/project.js";
import type { OpContext } from "../ops/op-context.js";
import { judgeCaller } from "../core/authority.js";
import { callerFacts } from "../store/caller-facts.js";
import { subcommandGuess } from "../core/suggest.js";

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
  /** More of `--help` after the usage line (options, what the command needs, examples), loaded when asked (the cold half). */
  readonly moreHelp?: () => Promise<readonly string[]>;
  /**
   * A command that takes no words after its name: "none" refuses them, "request" too and says to
   * pass them as --request (init, resume: `dotagent init add login` started a workflow with no request).
   */
  readonly positionals?: "none" | "request";
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

/** A warning for the person on stderr (never in --json stdout), the way every command says it. */
export function warn(context: CommandContext): (message: string) => void {
  return (message) => context.out.note(`dotagent: warning: ${message}`);
}

/**
 * What an operation (src/ops/) needs from a command's context: warnings and notes go to stderr.
 * `overrides` are taken as given (a hook passes its own project and `byModel: false`).
 */
export function opContext(context: CommandContext, overrides: Partial<OpContext> = {}): OpContext {
  const dir = context.options.dir;
  const op: OpContext = {
    paths: context.paths,
    now: context.now,
    warn: warn(context),
    note: (line) => context.out.note(line),
    ...(typeof dir === "string" ? { dirArg: dir } : {}),
    ...overrides,
  };
  if ("byModel" in overrides) return op;
  // Who runs this command is judged in one place (src/core/authority.ts), and only when asked
  // (reading the ancestors costs a few /proc reads): a client's marker in this process's
  // environment or an ancestor's, or the client among its ancestors, is a model's shell.
  let judged: boolean | undefined;
  Object.defineProperty(op, "byModel", {
    enumerable: true,
    configurable: true,
    get: () => (judged ??= judgeCaller(callerFacts()).kind === "agent_shell"),
  });
  return op;
}

/** The sub-command (first argument) and at most one more argument, or a usage error. */
export function subcommand<A extends string>(
  context: CommandContext,
  command: string,
  actions: readonly A[],
): [A, string | undefined] {
  const [action, arg, ...rest] = context.args;
  if (action === undefined || !(actions as readonly string[]).includes(action))
    throw usageError(
      `${command} needs one of ${actions.join(", ")}${action === undefined ? "" : `, not "${action}"${subcommandGuess(command, action, actions)}`}; see \`dotagent ${command} --help\``,
    );
  if (rest.length > 0) throw usageError(`unexpected argument "${rest[0]}"`);
  return [action as A, arg];
}

/** --max-parallel N: a whole number from 1 to MAX_PARALLEL_LIMIT. */
export function maxParallelOption(context: CommandContext): number | undefined {
  const text = stringOption(context, "max-parallel");
  return text === undefined ? undefined : checkMaxParallel(Number(text), text);
}

/** --output as a project-relative path, or a usage error for one that leaves the project. */
export function outputOption(context: CommandContext): string | undefined {
  return checkOutputPath(stringOption(context, "output"));
}

/** Options every command takes (the allow grammar, src/core/helper-command.ts, reads the same table). */
export const GLOBAL_OPTIONS: OptionSpec = {
  dir: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
  debug: { type: "boolean" },
};
