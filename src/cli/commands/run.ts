import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { DotagentError, EXIT, usageError } from "../../core/errors.js";
import { loadCold } from "../load-cold.js";
import { assertStatePaths } from "../../store/state-paths.js";
import type { QueryMessage, QuerySdk } from "../../api/recoverable-query.js";
import { maxParallelOption, stringOption, type Command } from "../context.js";

const SDK = "@anthropic-ai/claude-agent-sdk";

/**
 * The Agent SDK, an optional peer dependency: from beside this dotagent (its own node_modules or
 * the one it is installed in), else from the project's. Loaded only here: no other command pays.
 */
async function loadAgentSdk(root: string): Promise<QuerySdk<QueryMessage>> {
  const bases = [import.meta.url, pathToFileURL(join(root, "package.json")).href, pathToFileURL(join(process.cwd(), "package.json")).href];
  for (const base of bases) {
    let resolved: string;
    try {
      resolved = createRequire(base).resolve(SDK);
    } catch {
      continue;
    }
    const sdk = (await import(pathToFileURL(resolved).href)) as Partial<QuerySdk<QueryMessage>>;
    if (typeof sdk.query === "function") return sdk as QuerySdk<QueryMessage>;
  }
  throw new DotagentError("sdk_missing", `dotagent run needs the Claude Agent SDK: npm install ${SDK} (in the project or beside dotagent)`, EXIT.refused);
}

export const command: Command = {
  summary: "run the whole workflow headless through the Claude Agent SDK; rerun to continue",
  usage: 'dotagent run ["<request>"] [--approve ask|auto] [--design NAME] [--max-parallel N] [--agents DIR] [--json]',
  options: { approve: { type: "string" }, design: { type: "string" }, "max-parallel": { type: "string" }, agents: { type: "string" }, quiet: { type: "boolean", short: "q" } },
  examples: [
    'dotagent run "add login"                 asks at the two approval gates on a terminal',
    'dotagent run "add login" --approve auto  unattended (CI): approves the gates, takes the recommended design',
    "dotagent run                            continue the open workflow after a kill or a decision",
    "dotagent run --design robust            the design choice, answered up front",
  ],
  async run(context) {
    if (context.args.length > 1) throw usageError(`dotagent run takes one request; quote it: dotagent run "${context.args.join(" ")}"`);
    const request = context.args[0]?.trim() || undefined;
    const approve = stringOption(context, "approve") ?? "ask";
    if (approve !== "ask" && approve !== "auto") throw usageError(`--approve takes ask or auto, not "${approve}"`);
    const maxParallel = maxParallelOption(context);
    assertStatePaths(context.paths); // before the SDK is looked for: a wrong --dir is the first thing to say
    const sdk = await loadAgentSdk(context.paths.root);
    const cold = await loadCold();
    const agents = cold.loadAgentFiles(cold.findAgentsDir(stringOption(context, "agents"), fileURLToPath(import.meta.url)));
    const helper = `node "${process.argv[1] ?? "dotagent"}"`;
    const progress = cold.createProgress(process.stderr, context.options.quiet === true);
    const outcome = await cold.runWorkflow({
      root: context.paths.root,
      request,
      approve,
      design: stringOption(context, "design"),
      maxParallel,
      agents,
      helper,
      ask: cold.terminalAsker(),
      progress,
      sdk,
      dirArg: typeof context.options.dir === "string" ? context.options.dir : undefined,
    });
    context.out.result({ ok: outcome.outcome === "complete", ...outcome }, () =>
      outcome.outcome === "decision"
        ? [`${outcome.decision.question}`, `  yes: ${outcome.decision.yes}`, `  no:  ${outcome.decision.no}`, "Then run dotagent run again."]
        : outcome.outcome === "waiting"
          ? [`Waiting for tasks in another session: ${outcome.in_flight.join(", ")}.`]
          : [`Workflow ${outcome.workflow_id} complete: ${outcome.steps} steps, ${outcome.agents} agent sessions.`],
    );
    return outcome.outcome === "complete" ? EXIT.ok : outcome.outcome === "decision" ? EXIT.decide : EXIT.locked;
  },
};
