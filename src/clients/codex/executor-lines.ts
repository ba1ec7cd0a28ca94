// An executor's worktree lines, told through a hook because Codex cannot put them into its prompt:
// Codex 0.169.0 ignores a PreToolUse hook's updatedInput (the way Claude Code gets them, SPEC §19),
// but a hook on the sub-agent's own first prompt (UserPromptSubmit with agent_id) adds its
// additionalContext right after that prompt (test/codex/NOTES.md). Multi-agent v2 gives an agent no
// UserPromptSubmit: there the hook is SubagentStart (the prompt read from the parent's spawn call,
// rollout.ts), whose additionalContext comes right before the agent's task. So when an executor of
// a task with a worktree starts, it reads `Worktree:`, `Branch:`, `Report file:` (and after a
// conflict `Merge conflict:`) there, the lines dotagent would have added to its prompt.
import { join } from "node:path";
import { dotagentAgentName, readAgentJob } from "../../core/agent-job.js";
import { flowOrDefault } from "../../core/flow-of.js";
import { executorLines } from "../../core/worktrees.js";
import type { OpContext } from "../../ops/op-context.js";
import { worktreeAt } from "../../ops/worktree-tasks.js";
import { loadSnapshot } from "../../store/session.js";
import { isRepo, repoAt } from "../../store/worktrees.js";
import { CODEX_LINES_OPENING } from "../../store/agent-transcript.js";

/** The words that carry the lines: the write guard reads them back from the agent's rollout (store/agent-transcript.ts). */
export const LINES_OPENING = CODEX_LINES_OPENING;

/** The additionalContext for a sub-agent's first prompt (v1) or its start (v2): its worktree lines, or undefined (none, or not an executor). */
export async function executorLinesFor(op: OpContext, agentType: unknown, prompt: string): Promise<string | undefined> {
  if (/^Worktree: /m.test(prompt)) return undefined;
  const snapshot = await loadSnapshot(op.paths);
  const flow = flowOrDefault(snapshot.phase);
  const name = dotagentAgentName(agentType, flow);
  if (name === undefined) return undefined;
  const reading = readAgentJob(name, prompt, flow);
  if (!reading.ok || reading.job.task === undefined) return undefined;
  const task =
    snapshot.execution.kind === "ok"
      ? snapshot.execution.value.tasks.find((t) => t.id === reading.job.task)
      : undefined;
  if (task?.worktree == null || task.status !== "running") return undefined;
  const repo = repoAt(op.paths.root);
  if (!isRepo(repo)) return undefined;
  const lines = executorLines(worktreeAt(op.paths.root, repo, task.worktree), join(op.paths.root, reading.job.output));
  return `${LINES_OPENING}\n${lines.join("\n")}`;
}
