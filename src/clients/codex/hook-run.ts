// Codex's hooks (.codex/hooks.json, `dotagent hook <event> --client codex`): Claude Code's runner
// (src/clients/claude/hook-run.ts) with Codex's in and out (hook-io.ts). The person types
// `$develop`; the model's commands run in a sandbox the hook is outside of, and the session's
// rollout says whether it keeps .git read-only.
import { claudeShapedHooks } from "../claude/hook-run.js";
import type { ClientHooks } from "../adapter.js";
import { answerCodexHook } from "./hook-io.js";
import { modelSandboxKeepsGit } from "./rollout.js";

export const codexHooks: ClientHooks = claudeShapedHooks({
  startWord: "$develop",
  // SessionStart fires at the person's first prompt, after `codex resume` too (NOTES.md).
  afterPrompt: true,
  // In Codex the person invokes the skill as `$develop` (the word only: a path may hold "/develop").
  briefing: (text) => text.replace(/(^|\s)\/develop\b/g, "$1$$develop"),
  // The session's rollout; a sub-agent's call (agent_id) carries its own, not the session's.
  modelGitReadOnly: (input, atStart) => {
    const rollout =
      typeof input.transcript_path === "string" && (atStart || input.agent_id === undefined)
        ? input.transcript_path
        : undefined;
    return rollout === undefined ? undefined : () => modelSandboxKeepsGit(rollout);
  },
  answer: (op, event, input, answer) => answerCodexHook(op, event, input, answer),
});
