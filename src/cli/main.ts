// The CLI entry: parse, dispatch to one command module, turn outcomes into exit codes. The only
// place that calls process.exit. Command modules load lazily so `status` never pays for tar or
// prompts.
import { DotagentError, EXIT } from "../core/errors.js";
import type { ErrorCode } from "../core/error-codes.js";
import { createOutput, withAnswers } from "./output.js";
import { findProjectRoot, projectPaths } from "../store/project.js";
import { GLOBAL_OPTIONS, type Command, type OptionSpec } from "./context.js";
import { parseArgv } from "./parse-args.js";
import { VERSION } from "./version.js";
import { loadCold } from "./load-cold.js";
import { useArchiveLoader } from "../ops/archive-module.js";
import { usedStreams, watchStdStreams, writeStd } from "./std-write.js";
import { nearest } from "../core/suggest.js";
import { writeTrace } from "../store/trace.js";
import { shellQuote } from "../core/plan-resume.js";

const COMMANDS: Record<string, { summary: string; load: () => Promise<{ command: Command }> }> = {
  init: {
    summary:
      "start a workflow's state without its agents (`run` and /develop start both); archives an old one after asking",
    load: () => import("./commands/init.js"),
  },
  resume: {
    summary: "decide where to continue after an interruption (the main job)",
    load: () => import("./commands/resume.js"),
  },
  status: { summary: "show where the workflow is; never writes", load: () => import("./commands/status.js") },
  validate: { summary: "check the state files; exit 3 on errors", load: () => import("./commands/validate.js") },
  phase: { summary: "start|complete|fail|approve|rework a phase", load: () => import("./commands/phase.js") },
  task: {
    summary: "add|import|start|complete|fail|retry|next tasks; edit|remove|skip the plan",
    load: () => import("./commands/task.js"),
  },
  tasks: {
    summary: "the task plan: status, attempts, owner, worktree or merge commit (--watch)",
    load: () => import("./commands/tasks.js"),
  },
  claims: {
    summary: "which machine holds which task, and since when, from the git remote's claims",
    load: () => import("./commands/claims.js"),
  },
  show: {
    summary: "the reports for people: plain text on a terminal, Markdown for a file or a pull request; never writes",
    load: () => import("./commands/show.js"),
  },
  report: {
    summary: "write one self-contained HTML page of the run: timeline, task graph, interruptions",
    load: () => import("./commands/report.js"),
  },
  archive: {
    summary: "archive the state | archive list | archive restore NAME",
    load: () => import("./commands/archive.js"),
  },
  once: {
    summary: "run a side effect at most once per op id (commits, pushes, PRs)",
    load: () => import("./commands/once.js"),
  },
  history: {
    summary: "list the checkpoints rollback can return to | history show REV",
    load: () => import("./commands/history.js"),
  },
  rollback: {
    summary: "go back to the start of an earlier phase or to a checkpoint",
    load: () => import("./commands/rollback.js"),
  },
  run: {
    summary: "run the whole workflow headless through the Claude Agent SDK; rerun to continue",
    load: () => import("./commands/run.js"),
  },
  log: { summary: "show the event log", load: () => import("./commands/log.js") },
  install: {
    summary:
      "set up a project for Claude Code (.claude/), or Copilot CLI or Codex CLI (--client): /develop, the agents, the hooks",
    load: () => import("./commands/install.js"),
  },
  hook: {
    summary:
      "hook <event>: Claude Code's hooks (session-start, pre-tool-use, post-tool-use, subagent-start, subagent-stop, user-prompt-submit; JSON on stdin)",
    load: () => import("./commands/hook.js"),
  },
  doctor: {
    summary: "check the set-up (Node.js, install, settings, state, lock, Agent SDK, login), each with its fix",
    load: () => import("./commands/doctor.js"),
  },
  step: {
    summary: "step run STEP: run the current shell or check step's command and record it",
    load: () => import("./commands/step.js"),
  },
  workflows: {
    summary: "list the workflows (built-in and .dotagent/workflows/), show or validate one",
    load: () => import("./commands/workflows.js"),
  },
  "workflow-run": {
    summary: "resume|forget RUN_ID: a Claude Code Workflow run cut off whose kept copy is not trusted here",
    load: () => import("./commands/workflow-run.js"),
  },
  schema: {
    summary: "print the JSON Schema of phase|execution|task-output|workflow",
    load: () => import("./commands/schema.js"),
  },
};

function mainHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  return [
    `dotagent ${VERSION} — keeps a phased AI development workflow alive across interruptions`,
    "",
    "Usage: dotagent <command> [options]",
    "",
    "Commands:",
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    "",
    "Every command: --dir DIR (project root), --json, --help, --version",
    "",
    "Examples:",
    "  dotagent install                     once per project; then in Claude Code: /develop add login",
    '  dotagent run "add login"             or the whole workflow here, headless (the Agent SDK and a key; run --help)',
    "  dotagent status                      where the workflow stands and what to type next",
    "  dotagent resume                      after `claude -r`: what to continue",
    "  dotagent status --dir ../other-project  where the workflow there stands",
    "",
    "Exit codes: 0 ok · 1 refused · 2 usage · 3 state invalid · 4 locked · 5 a person must decide · 130 interrupted",
  ].join("\n");
}

async function commandHelp(name: string, command: Command): Promise<string> {
  const more = command.moreHelp ? [...(await command.moreHelp()), ""] : [];
  return [
    `dotagent ${name} — ${command.summary}`,
    "",
    `Usage: ${command.usage}`,
    "",
    ...more,
    ...(command.examples.length > 0 ? ["Examples:", ...command.examples.map((e) => `  ${e}`), ""] : []),
    "Options for every command: --dir DIR, --json, --help",
  ].join("\n");
}

async function main(argv: string[]): Promise<number> {
  const name = argv[0];
  const wantsJson = argv.includes("--json");
  // `dotagent help run` is `dotagent run --help`, as in git and npm.
  if (name === "help" && argv[1] !== undefined && !argv[1].startsWith("-")) return main([argv[1], "--help"]);
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    writeStd("stdout", `${mainHelp()}\n`);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === "--version" || name === "-v") {
    writeStd("stdout", `${VERSION}\n`);
    return EXIT.ok;
  }
  const entry = COMMANDS[name];
  if (entry === undefined) {
    const guess = nearest(name, Object.keys(COMMANDS));
    throw new DotagentError(
      "usage",
      `unknown command "${name}"${guess ? ` (did you mean \`dotagent ${guess}\`?)` : ""}; run \`dotagent --help\` for the list`,
      EXIT.usage,
    );
  }
  const { command } = await entry.load();
  let parsed;
  try {
    // node:util's parseArgs, without loading it at every start (parse-args.ts).
    parsed = parseArgv(argv.slice(1), { ...GLOBAL_OPTIONS, ...command.options }, command.lenientOptions !== true);
  } catch (error) {
    throw new DotagentError(
      "usage",
      `${parseError(error, { ...GLOBAL_OPTIONS, ...command.options })}; see \`dotagent ${name} --help\``,
      EXIT.usage,
    );
  }
  const options = parsed.values as Record<string, string | boolean | string[] | undefined>;
  const words = parsed.positionals;
  if (command.positionals !== undefined && words.length > 0 && !options.help)
    throw new DotagentError(
      "usage",
      command.positionals === "request"
        ? `${name} takes the request as --request, not as words: dotagent ${name} --request ${shellQuote(words.join(" "))}`
        : `${name} takes no argument, not "${words[0]}"; see \`dotagent ${name} --help\``,
      EXIT.usage,
    );
  if (options.help) {
    writeStd("stdout", `${await commandHelp(name, command)}\n`);
    return EXIT.ok;
  }
  if (options.version) {
    writeStd("stdout", `${VERSION}\n`);
    return EXIT.ok;
  }
  // Operations that archive get tar from the cold half of this file, not a module of their own.
  useArchiveLoader(async () => (await loadCold()).archive);
  const out = createOutput(wantsJson);
  const paths = projectPaths(findProjectRoot(typeof options.dir === "string" ? options.dir : undefined));
  return command.run({ args: parsed.positionals, options, out, paths, now: () => new Date() });
}

/**
 * parseArgs's refusal in one short line: "unknown option --jsn (did you mean --json?)" (the nearest
 * known option when the typed one is a likely typo of it), else its first sentence.
 */
function parseError(error: unknown, options: OptionSpec): string {
  const message = (error as Error).message.split("\n")[0] ?? "";
  if ((error as NodeJS.ErrnoException).code !== "ERR_PARSE_ARGS_UNKNOWN_OPTION") return message.replace(/\. .*$/, "");
  const typed = /'(-{1,2})([^'=]*)/.exec(message);
  if (typed === null) return message.replace(/\. .*$/, "");
  const guess = nearest(typed[2]!, Object.keys(options));
  return `unknown option ${typed[1]}${typed[2]}${guess === null ? "" : ` (did you mean --${guess}?)`}`;
}

/** The cold half of the bundle has its own copy of the class, so match by shape, not identity. */
function isDotagentError(error: unknown): error is DotagentError {
  return (
    error instanceof DotagentError ||
    (error instanceof Error && error.name === "DotagentError" && typeof (error as DotagentError).exitCode === "number")
  );
}

function report(error: unknown, json: boolean, debug: boolean): number {
  if (isDotagentError(error)) {
    // Once: with --json the object carries the message, so stderr stays quiet.
    if (json)
      writeStd(
        "stdout",
        `${JSON.stringify({ error: { code: error.code, message: error.message, exit_code: error.exitCode, ...error.details } }, withAnswers)}\n`,
      );
    else writeStd("stderr", `dotagent: ${error.message}\n`);
    if (debug) writeStd("stderr", `${error.stack ?? ""}\n`);
    return error.exitCode;
  }
  const err = error as NodeJS.ErrnoException;
  const message = err?.code && err.path ? `${err.code} on ${err.path}: ${err.message}` : String(err?.message ?? error);
  if (json)
    writeStd(
      "stdout",
      `${JSON.stringify({ error: { code: "internal" satisfies ErrorCode, message, exit_code: 1 } })}\n`,
    );
  else writeStd("stderr", `dotagent: unexpected error: ${message}\n`);
  if (debug) writeStd("stderr", `${err?.stack ?? ""}\n`);
  else writeStd("stderr", "Run again with --debug for the stack, and please report it.\n");
  return EXIT.refused;
}

/**
 * Exits once everything written to stdout and stderr has left the process: a pipe takes 64 KiB
 * at once, and process.exit would drop the rest (an agent reading `task next --json` through a
 * pipe would get half a JSON object). A write's callback runs after every earlier write is out.
 */
function exitAfterOutput(code: number): void {
  process.exitCode = code;
  writeTrace(argv, code);
  // Direct writes (std-write.ts) are complete already; only streams someone made can hold some.
  const streams = usedStreams();
  let pending = streams.length + 1;
  const done = (): void => {
    if (--pending === 0) process.exit(code);
  };
  done();
  for (const stream of streams) {
    if (stream.writableLength === 0 || stream.destroyed) done();
    else stream.write("", done);
  }
}

watchStdStreams();
const argv = process.argv.slice(2);
main(argv).then(exitAfterOutput, (error: unknown) =>
  exitAfterOutput(
    report(error, argv.includes("--json"), argv.includes("--debug") || process.env.DOTAGENT_DEBUG === "1"),
  ),
);
