// Copilot CLI's subagentStop for dotagent's agents: as Claude Code's SubagentStop (SPEC §11), an
// agent that stops without its report (or an executor whose work cannot land yet) is sent back
// with a numbered reminder, at most MAX_REMINDERS times; otherwise its end is recorded. Copilot
// gives the hook the agent's id and type, not its prompt: the prompt, the reminders it already
// got and when it started come from Copilot's session record (session-events.ts). A block's
// reason reaches the agent as a new prompt (test/copilot/NOTES.md).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { dotagentAgentName, readAgentJob } from "../../core/agent-job.js";
import { flowFor, MAX_REMINDERS, reminder } from "../../claude/hooks.js";
import type { OpContext } from "../../ops/op-context.js";
import { loadSnapshot } from "../../store/session.js";
import { agentRecordIn, readSessionRecord } from "./session-events.js";

export async function onCopilotSubagentStop(
  op: OpContext,
  raw: Record<string, unknown>,
): Promise<Record<string, unknown> | null> {
  const agentId = typeof raw.agentId === "string" ? raw.agentId : undefined;
  const sessionId = typeof raw.sessionId === "string" ? raw.sessionId : undefined;
  if (agentId === undefined || sessionId === undefined) return null;
  const flow = await flowFor(op);
  const name = dotagentAgentName(raw.agentType, flow);
  if (name === undefined) return null;
  const text = readSessionRecord(sessionId);
  const record = text === undefined ? undefined : agentRecordIn(text, agentId);
  if (record?.prompt === undefined) return null;
  const reading = readAgentJob(name, record.prompt, flow);
  if (!reading.ok) return null;
  const job = reading.job;
  const sent = Math.min(record.reminders, MAX_REMINDERS);
  const { endAgentJob } = await import("../../ops/agent-run.js");
  const end = await endAgentJob(op, job, {
    final: sent >= MAX_REMINDERS,
    ended: true,
    agentStartedAt: record.startedAt,
  });
  if (end.kind !== "send_back") return null;
  // An executor with a worktree is told the report's absolute path (its worktree holds a copy of memory/).
  const snapshot = await loadSnapshot(op.paths);
  const task =
    job.task === undefined || snapshot.execution.kind !== "ok"
      ? undefined
      : snapshot.execution.value.tasks.find((t) => t.id === job.task);
  const report = join(op.paths.root, job.output);
  return {
    decision: "block",
    reason: inCopilotWords(
      reminder(job, end.why, sent + 1, task?.worktree != null ? report : undefined),
      existsSync(report),
    ),
  };
}

/** The reminder with Copilot's file tools: its `create` makes a new file only (it refuses one that exists, which must be edited). */
export function inCopilotWords(reason: string, reportExists: boolean): string {
  return reason.replace(
    "now, with one Write call:",
    reportExists
      ? "now: it exists, and `create` does not replace a file, so `edit` it into"
      : "now, with one `create` call:",
  );
}
