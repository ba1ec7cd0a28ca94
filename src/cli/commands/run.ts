import { fileURLToPath } from "node:url";
import { EXIT, usageError } from "../../core/errors.js";
import { count, formatDuration } from "../../core/words.js";
import { loadCold } from "../load-cold.js";
import { loadAgentSdk } from "../agent-sdk.js";
import { colorsFor } from "../output.js";
import { assertStatePaths } from "../../store/state-paths.js";
import { maxParallelOption, stringOption, type Command } from "../context.js";
import type { RunOutcome } from "../../run/runner.js";

/**
 * Ctrl-C while the run works: the first one stops it in order (the agents' sessions kept, its
 * tasks given back, the runner lock released: runner.ts); a second one stops the process at once
 * (the default action, restored by the first).
 */
function onInterrupt(stop: () => void): () => void {
  const handler = () => {
    process.off("SIGINT", handler);
    stop();
  };
  process.on("SIGINT", handler);
  return () => process.off("SIGINT", handler);
}

/** The lines of the result for people (stdout): what happened, how long it took, what it wrote. */
function resultLines(outcome: RunOutcome): string[] {
  const took = `${formatDuration(outcome.elapsed_ms)}, ${count(outcome.agents, "agent session")}, ${count(outcome.reports.length, "report")} written`;
  const reports = outcome.reports.map((r) => `  ${r}`);
  if (outcome.outcome === "complete") return [`Workflow ${outcome.workflow_id} complete in ${took}${reports.length > 0 ? ":" : "."}`, ...reports];
  const sofar = [`This run: ${took}${reports.length > 0 ? ":" : "."}`, ...reports];
  if (outcome.outcome === "waiting") return [`Waiting for tasks in another session: ${outcome.in_flight.join(", ")}.`, ...sofar];
  const { decision } = outcome;
  // The design pick: every design with the command that picks it.
  const choices = outcome.choices ?? [];
  const width = Math.max(0, ...choices.map((c) => c.command.length));
  const answers =
    choices.length > 0
      ? [decision.question, ...choices.map((c) => `  ${c.command.padEnd(width)}  ${c.one_line}${c.recommended ? " (recommended)" : ""}`)]
      : [decision.question, `  yes: ${decision.yes}`, `  no:  ${decision.no}`];
  return [...answers, "Then run dotagent run again.", ...sofar];
}

export const command: Command = {
  summary: "run the whole workflow headless through the Claude Agent SDK; rerun to continue",
  usage: 'dotagent run ["<request>"] [--workflow NAME] [--approve ask|auto] [--design NAME] [--max-parallel N] [--max-cost USD] [--agents DIR] [-q] [--json]',
  options: { workflow: { type: "string" }, approve: { type: "string" }, design: { type: "string" }, "max-parallel": { type: "string" }, "max-cost": { type: "string" }, agents: { type: "string" }, quiet: { type: "boolean", short: "q" } },
  examples: [
    'dotagent run "add login"                 asks at the two gates on a terminal (approve, or say what to change)',
    'dotagent run "add login" --approve auto  unattended (CI): approves the gates, takes the recommended design; remembered for the workflow',
    "dotagent run                            continue the open workflow after Ctrl-C, a kill or a decision",
    "dotagent run --approve ask              continue, asking at the gates again",
    "dotagent run --design robust            the design choice, answered up front",
    'dotagent run --workflow fix "login fails with +"   another workflow (dotagent workflows lists them): its steps, its gates, its commands',
    "dotagent run --max-cost 5               stop cleanly once the sessions cost about $5 (the SDK's estimate); rerun to go on",
  ],
  async run(context) {
    if (context.args.length > 1) throw usageError(`dotagent run takes one request; quote it: dotagent run "${context.args.join(" ")}"`);
    const request = context.args[0]?.trim() || undefined;
    const approve = stringOption(context, "approve");
    if (approve !== undefined && approve !== "ask" && approve !== "auto") throw usageError(`--approve takes ask or auto, not "${approve}"`);
    const maxParallel = maxParallelOption(context);
    const costText = stringOption(context, "max-cost");
    const maxCostUsd = costText === undefined ? undefined : Number(costText.replace(/^\$/, ""));
    if (maxCostUsd !== undefined && !(Number.isFinite(maxCostUsd) && maxCostUsd > 0)) throw usageError(`--max-cost takes a positive amount in US dollars (e.g. 5 or 2.50), not "${costText}"`);
    assertStatePaths(context.paths); // before the SDK is looked for: a wrong --dir is the first thing to say
    const sdk = await loadAgentSdk(context.paths.root, import.meta.url);
    const cold = await loadCold();
    const agents = cold.loadAgentFiles(cold.findAgentsDir(stringOption(context, "agents"), fileURLToPath(import.meta.url)));
    const helper = `node "${process.argv[1] ?? "dotagent"}"`;
    const progress = cold.createProgress(process.stderr, { quiet: context.options.quiet === true, colors: colorsFor(process.stderr) });
    const interrupt = new AbortController();
    const forget = onInterrupt(() => interrupt.abort());
    let outcome: RunOutcome;
    try {
      outcome = await cold.runWorkflow({
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
        ask: cold.terminalAsker(),
        progress,
        sdk,
        dirArg: typeof context.options.dir === "string" ? context.options.dir : undefined,
        signal: interrupt.signal,
        apiUrl: cold.apiEndpoint(process.env),
      });
    } finally {
      forget();
    }
    context.out.result({ ok: outcome.outcome === "complete", ...outcome }, () => resultLines(outcome));
    return outcome.outcome === "complete" ? EXIT.ok : outcome.outcome === "decision" ? EXIT.decide : EXIT.locked;
  },
};
