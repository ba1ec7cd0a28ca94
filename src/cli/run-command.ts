// What `dotagent run` does once its options are parsed (SPEC §17), in the cold half with the
// runner it drives: the options checked, the Claude Agent SDK and the agent files found, the run
// carried out with Ctrl-C as a clean stop, the result printed. commands/run.ts only names the
// command (its options, usage and help), so the hot helper every hook starts does not carry it.
import { fileURLToPath } from "node:url";
import { EXIT, usageError } from "../core/errors.js";
import type { QueryMessage, QuerySdk } from "../api/recoverable-query.js";
import { colorsFor } from "./output.js";
import { assertStatePaths } from "../store/state-paths.js";
import { maxParallelOption, stringOption, type CommandContext } from "./context.js";
import { runWorkflow, type RunOutcome } from "../run/runner.js";
import { runResultLines } from "../run/run-words.js";
import { findAgentsDir, loadAgentFiles } from "../run/agent-files.js";
import { createProgress } from "../run/progress.js";
import { apiEndpoint } from "../run/login-check.js";
import { terminalAsker } from "./ask.js";
import { ID_PATTERN } from "../schema/json.js";
import type { RunClaimsOptions } from "../run/run-claims.js";
import { workerRefusal, type WorkerOptions } from "../run/worker.js";

/**
 * Ctrl-C while the run works: the first one stops it in order (the agents' sessions kept, its
 * tasks given back, the runner lock released: runner.ts); a second one stops the process at once
 * (the default action, restored by the first).
 */
function onInterrupt(stop: () => void, signals: readonly NodeJS.Signals[]): () => void {
  const handler = () => {
    for (const signal of signals) process.off(signal, handler);
    stop();
  };
  for (const signal of signals) process.on(signal, handler);
  return () => {
    for (const signal of signals) process.off(signal, handler);
  };
}

/** `--claims [--remote NAME]`: the tasks claimed through that git remote (SPEC §23); `--remote` alone is refused. */
function claimsOption(context: CommandContext, worker: boolean): RunClaimsOptions | undefined {
  const remote = stringOption(context, "remote");
  if (context.options.claims !== true && !worker) {
    if (remote !== undefined) throw usageError("--remote names the git remote of --claims: give both, or neither");
    return undefined;
  }
  const name = remote ?? "origin";
  if (!ID_PATTERN.test(name) || name.includes(".."))
    throw usageError(`--remote takes a git remote's name (letters, digits, '.', '_' or '-'), not "${name}"`);
  return { remote: name };
}

/**
 * `--worker [--idle MINUTES]`: the run as a worker (SPEC §23 "The worker"), refused what only a
 * planning run takes; `--idle` alone is refused too (a flag is never silently ignored).
 */
function workerOption(context: CommandContext, request: string | undefined): WorkerOptions | undefined {
  const idle = stringOption(context, "idle");
  if (context.options.worker !== true) {
    if (idle !== undefined)
      throw usageError("--idle is how long a worker waits with nothing to claim: give it with --worker");
    return undefined;
  }
  const refused = workerRefusal({
    request,
    workflow: stringOption(context, "workflow"),
    change: stringOption(context, "change"),
    design: stringOption(context, "design"),
    approve: stringOption(context, "approve"),
    untilTasks: context.options["until-tasks"] === true,
  });
  if (refused !== undefined) throw usageError(refused);
  const minutes = idle === undefined ? undefined : Number(idle);
  if (minutes !== undefined && !(idle!.trim() !== "" && Number.isFinite(minutes) && minutes >= 0))
    throw usageError(`--idle takes minutes (0 or more, e.g. 30), not "${idle}"`);
  return minutes === undefined ? {} : { idleMs: Math.round(minutes * 60_000) };
}

/** `--change TEXT`: the person's words for the gate waiting now (the runner checks that one waits). */
function changeOption(context: CommandContext, request: string | undefined): string | undefined {
  const text = stringOption(context, "change")?.trim();
  if (text === undefined) return undefined;
  const example = 'e.g. dotagent run --change "sessions last 7 days"';
  if (text === "") throw usageError(`--change needs what should change, ${example}`);
  if (/^<[^<>]*>$/.test(text)) throw usageError(`--change: put what should change in place of ${text}, ${example}`);
  if (request !== undefined)
    throw usageError("--change answers the gate the workflow waits at: give it without a request");
  if (stringOption(context, "design") !== undefined)
    throw usageError("--change and --design answer the same pick: give one of them");
  return text;
}

/**
 * `dotagent run`. `selfUrl` is the running dotagent's own file (commands/run.ts's import.meta.url),
 * beside which agents/ is looked for; `loadSdk` finds the SDK from there (agent-sdk.ts, in the hot half for doctor too).
 */
export async function runCommand(
  context: CommandContext,
  selfUrl: string,
  loadSdk: () => Promise<QuerySdk<QueryMessage>>,
): Promise<number> {
  if (context.args.length > 1)
    throw usageError(`dotagent run takes one request; quote it: dotagent run "${context.args.join(" ")}"`);
  const request = context.args[0]?.trim() || undefined;
  const approve = stringOption(context, "approve");
  if (approve !== undefined && approve !== "ask" && approve !== "auto")
    throw usageError(`--approve takes ask or auto, not "${approve}"`);
  const maxParallel = maxParallelOption(context);
  const costText = stringOption(context, "max-cost");
  const maxCostUsd = costText === undefined ? undefined : Number(costText.replace(/^\$/, ""));
  if (maxCostUsd !== undefined && !(Number.isFinite(maxCostUsd) && maxCostUsd > 0))
    throw usageError(`--max-cost takes a positive amount in US dollars (e.g. 5 or 2.50), not "${costText}"`);
  const worker = workerOption(context, request);
  const change = changeOption(context, request);
  // A worker takes its tasks through the remote: --worker implies --claims.
  const claims = claimsOption(context, worker !== undefined);
  assertStatePaths(context.paths); // before the SDK is looked for: a wrong --dir is the first thing to say
  const sdk = await loadSdk();
  const agents = loadAgentFiles(findAgentsDir(stringOption(context, "agents"), fileURLToPath(selfUrl)));
  const helper = `node "${process.argv[1] ?? "dotagent"}"`;
  const progress = createProgress(process.stderr, {
    quiet: context.options.quiet === true,
    colors: colorsFor(process.stderr),
  });
  const interrupt = new AbortController();
  // With claims, SIGTERM (a CI job's time-out) stops the run as Ctrl-C does: its claims released.
  const forget = onInterrupt(() => interrupt.abort(), claims ? ["SIGINT", "SIGTERM"] : ["SIGINT"]);
  let outcome: RunOutcome;
  try {
    outcome = await runWorkflow({
      root: context.paths.root,
      request,
      workflow: stringOption(context, "workflow"),
      approve,
      design: stringOption(context, "design"),
      maxParallel,
      maxCostUsd,
      agents,
      // The project's agents, CLAUDE.md and .gitignore lines, as a session in it has them; --agents names other agent files.
      projectContext: stringOption(context, "agents") === undefined,
      helper,
      ask: terminalAsker(),
      progress,
      sdk,
      dirArg: typeof context.options.dir === "string" ? context.options.dir : undefined,
      agentsArg: stringOption(context, "agents"),
      change,
      signal: interrupt.signal,
      apiUrl: apiEndpoint(process.env),
      claims,
      untilTasks: context.options["until-tasks"] === true,
      worker,
    });
  } finally {
    forget();
  }
  const ok = outcome.outcome !== "decision" && outcome.outcome !== "waiting";
  context.out.result({ ok, ...outcome }, () => runResultLines(outcome));
  return ok ? EXIT.ok : outcome.outcome === "decision" ? EXIT.decide : EXIT.locked;
}
