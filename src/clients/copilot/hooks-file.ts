// .github/hooks/dotagent.json: the hooks GitHub Copilot CLI runs for dotagent (`version: 1`, its
// camelCase events, each a `bash` command line with `--client copilot`). Copilot runs a
// repository's hooks only in a folder the person trusts (`trusted_folders` in
// ~/.copilot/config.json; `dotagent doctor --client copilot` checks). One matcher: postToolUse
// runs only after `task` (below); the others run for every tool, and dotagent's answer is nothing
// for the tools it does not judge. Pure.
import { COPILOT_EVENTS, type CopilotHookEvent } from "./hook-io.js";

export const HOOKS_FILE = "hooks/dotagent.json";

/** Seconds each hook may take: the briefing reads; the others may wait for the state lock. */
const TIMEOUT: Record<CopilotHookEvent, number> = {
  "session-start": 10,
  "user-prompt-submit": 30,
  "pre-tool-use": 30,
  "post-tool-use": 30,
  "post-tool-use-failure": 30,
  "subagent-stop": 30,
};

/**
 * The matchers that narrow a hook to the tools dotagent acts on there. Copilot 1.0.102 (measured,
 * test/copilot/NOTES.md "Matchers") reads `matcher` as a regex the whole tool name must match, for
 * preToolUse and postToolUse (it ignores it on postToolUseFailure, which fires only for a failed
 * call). postToolUse acts only on `task` (an agent's result): without it, Node started after every
 * bash, view and edit. preToolUse has none, and never may: it is the write guard, and a tool
 * Copilot renames must not slip past it. A renamed `task` loses only the `dotagent next:` line
 * after an agent: subagentStop still records each agent's end.
 */
export const COPILOT_MATCHERS: Partial<Record<CopilotHookEvent, string>> = { "post-tool-use": "task" };

/** The command line of one hook: the installed helper, by its absolute path. */
export const copilotHookCommand = (helper: string, event: CopilotHookEvent) =>
  `node "${helper}" hook ${event} --client copilot`;

export function copilotHooksFile(helper: string): string {
  const hooks: Record<string, unknown[]> = {};
  for (const [event, name] of Object.entries(COPILOT_EVENTS) as Array<[CopilotHookEvent, string]>) {
    const matcher = COPILOT_MATCHERS[event];
    hooks[name] = [
      {
        type: "command",
        bash: copilotHookCommand(helper, event),
        ...(matcher === undefined ? {} : { matcher }),
        timeoutSec: TIMEOUT[event],
      },
    ];
  }
  return `${JSON.stringify({ version: 1, hooks }, null, 2)}\n`;
}
