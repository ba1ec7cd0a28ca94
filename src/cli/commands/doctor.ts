// `dotagent doctor` (SPEC §12): its options, usage and help; the work is in the cold half
// (src/cli/doctor-command.ts), loaded when the command runs.
import { loadCold } from "../load-cold.js";
import type { Command } from "../context.js";

export const command: Command = {
  summary:
    "check the set-up: Node.js, the install, settings.json, the state, the lock, the Agent SDK and a login; each with its fix",
  positionals: "none",
  usage: "dotagent doctor [--client claude|copilot|codex] [--headless] [--stale-after 7d|never] [--json]",
  options: { "stale-after": { type: "string" }, headless: { type: "boolean" }, client: { type: "string" } },
  examples: [
    "dotagent doctor                 the clients installed here (--client names one): install, hooks, trust, the state",
    "dotagent doctor --headless      a project that only uses `dotagent run`: no Claude Code install needed; the SDK and a login are",
    "dotagent doctor --json          {ok, version, clients, checks:[{name, status: ok|warn|fail, message, fix, client?}]}",
  ],
  async run(context) {
    return (await loadCold()).runDoctor(context, import.meta.url);
  },
};
