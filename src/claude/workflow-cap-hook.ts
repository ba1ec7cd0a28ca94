// The fan-out cap of Claude Code's Workflow runs as the hooks apply it (SPEC §11, *Fan-out cap*;
// the rule and what the client lets a hook do: src/core/workflow-cap.ts). A workflow agent's
// SubagentStart past the cap gets the refusal as additionalContext; each of its tool calls that a
// PreToolUse entry of dotagent's sees is denied with the same line. Needs no memory/state/: the
// run is found in the client's session folder, by the agent's `started` line in a journal there
// (2.1.332 appends it before SubagentStart fires: test/claude/NOTES.md).
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { MAX_JOURNAL_BYTES, RUN_ID, journalPath, sessionFolder } from "../core/claude-workflow-run.js";
import { CAP_SETTING, agentPlace, capDecision, capInForce } from "../core/workflow-cap.js";
import { readProjectText } from "../store/read-file.js";
import { installTarget } from "./settings.js";

/** The cap set in the user's Claude Code settings (`env`), which a project's settings cannot raise. */
function userSettingsCap(root: string): { value: unknown; from: string } {
  const file = join(installTarget("user", root), "settings.json");
  const read = readProjectText(file, { maxBytes: 16 * 1024 * 1024, links: "follow" });
  if (read.kind !== "ok") return { value: undefined, from: file };
  try {
    const env = (JSON.parse(read.text) as { env?: Record<string, unknown> } | null)?.env;
    return { value: env !== null && typeof env === "object" ? env[CAP_SETTING] : undefined, from: file };
  } catch {
    return { value: undefined, from: file };
  }
}

/**
 * The run and place of a workflow agent past its run's cap, or null (no cap set, not a workflow
 * agent, the agent within the cap, or its run not found: never a refusal on a guess).
 */
export function workflowAgentOverCap(
  root: string,
  input: Record<string, unknown>,
  warn: (message: string) => void,
): { runId: string; place: number; cap: number } | null {
  if (input.agent_type !== "workflow-subagent") return null;
  const agentId = input.agent_id;
  if (typeof agentId !== "string" || !/^[A-Za-z0-9_-]{1,128}$/.test(agentId)) return null;
  const { cap, warnings } = capInForce([
    { value: process.env[CAP_SETTING], from: "the environment" },
    userSettingsCap(root),
  ]);
  for (const warning of warnings) warn(warning);
  if (cap === null) return null;
  const session = sessionFolder(input);
  if (!session.ok) return null;
  let runs: string[];
  try {
    runs = readdirSync(join(session.value.folder, "subagents", "workflows")).filter((name) => RUN_ID.test(name));
  } catch {
    return null;
  }
  for (const runId of runs) {
    const read = readProjectText(journalPath(session.value.folder, runId), {
      maxBytes: MAX_JOURNAL_BYTES,
      links: "refuse",
    });
    if (read.kind !== "ok" || !read.text.includes(agentId)) continue;
    const place = agentPlace(read.text, agentId);
    if (place === null) continue;
    const decision = capDecision(place, cap);
    return decision.kind === "over" ? { runId, ...decision } : null;
  }
  return null;
}
