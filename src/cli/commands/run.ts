// `dotagent run` (SPEC §17): its options, usage and help; the work is in the cold half
// (src/cli/run-command.ts), loaded when the command runs.
import { loadCold } from "../load-cold.js";
import { loadAgentSdk } from "../agent-sdk.js";
import type { Command } from "../context.js";

export const command: Command = {
  summary: "run the whole workflow headless through the Claude Agent SDK; rerun to continue",
  usage:
    'dotagent run ["<request>"] [--workflow NAME] [--approve ask|auto] [--change TEXT] [--design NAME] [--max-parallel N] [--max-cost USD] [--agents DIR] [--claims [--remote NAME]] [--until-tasks] [-q] [--json] | run --worker [--remote NAME] [--max-parallel N] [--max-cost USD] [--agents DIR] [--idle MINUTES] [-q] [--json]',
  options: {
    workflow: { type: "string" },
    approve: { type: "string" },
    change: { type: "string" },
    design: { type: "string" },
    "max-parallel": { type: "string" },
    "max-cost": { type: "string" },
    agents: { type: "string" },
    claims: { type: "boolean" },
    remote: { type: "string" },
    "until-tasks": { type: "boolean" },
    worker: { type: "boolean" },
    idle: { type: "string" },
    quiet: { type: "boolean", short: "q" },
  },
  examples: [], // with the options, in the cold half: run-words.ts RUN_HELP
  moreHelp: async () => (await loadCold()).RUN_HELP,
  async run(context) {
    return (await loadCold()).runCommand(context, import.meta.url, () =>
      loadAgentSdk(context.paths.root, import.meta.url),
    );
  },
};
