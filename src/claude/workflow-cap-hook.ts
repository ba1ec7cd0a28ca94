// The fan-out cap and the token budget of Claude Code's Workflow runs as the hooks apply them
// (SPEC §11, *Fan-out cap* and *Token budget*; the rules and what the client lets a hook do:
// src/core/workflow-cap.ts, src/core/workflow-budget.ts). A workflow agent's SubagentStart past
// either gets the refusal as additionalContext; each of its tool calls that a PreToolUse entry of
// dotagent's sees is denied with the same line. Needs no memory/state/: the run is found in the
// client's session folder, by the agent's `started` line in a journal there (2.1.332 appends it
// before SubagentStart fires: test/claude/NOTES.md), and what the run used in its agents'
// transcripts beside that journal.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { MAX_JOURNAL_BYTES, RUN_ID, journalPath, sessionFolder } from "../core/claude-workflow-run.js";
import { CAP_SETTING, agentPlace, capDecision, lowestSetting, refusalLine } from "../core/workflow-cap.js";
import {
  BUDGET_DIGITS,
  BUDGET_SETTING,
  budgetDecision,
  budgetRefusalLine,
  transcriptTokens,
} from "../core/workflow-budget.js";
import { readProjectText } from "../store/read-file.js";
import { installTarget } from "./settings.js";

/** An agent transcript read for its usage: at most this many bytes each, and this many in all per check. */
const MAX_TRANSCRIPT_BYTES = 64 * 1024 * 1024;
const MAX_RUN_TRANSCRIPT_BYTES = 256 * 1024 * 1024;

/** The `env` of the user's Claude Code settings, where the person's limits are safe from a repository. */
function userSettingsEnv(root: string): { env: Record<string, unknown>; from: string } {
  const file = join(installTarget("user", root), "settings.json");
  const read = readProjectText(file, { maxBytes: 16 * 1024 * 1024, links: "follow" });
  if (read.kind !== "ok") return { env: {}, from: file };
  try {
    const env = (JSON.parse(read.text) as { env?: Record<string, unknown> } | null)?.env;
    return { env: env !== null && typeof env === "object" ? env : {}, from: file };
  } catch {
    return { env: {}, from: file };
  }
}

/** The limit `name` in force: the lowest of the hooks' environment and the user settings. */
function limitInForce(
  name: string,
  digits: number,
  user: { env: Record<string, unknown>; from: string },
  warn: (message: string) => void,
): number | null {
  const { cap, warnings } = lowestSetting(name, digits, [
    { value: process.env[name], from: "the environment" },
    { value: user.env[name], from: user.from },
  ]);
  for (const warning of warnings) warn(warning);
  return cap;
}

/** The tokens a run's agents used so far: the sum over its agents' transcripts in the session's folder. */
function runTokens(runFolder: string): number {
  let names: string[];
  try {
    names = readdirSync(runFolder).filter((name) => /^agent-[A-Za-z0-9_-]{1,128}\.jsonl$/.test(name));
  } catch {
    return 0;
  }
  let tokens = 0;
  let bytes = 0;
  for (const name of names.sort()) {
    if (bytes >= MAX_RUN_TRANSCRIPT_BYTES) break;
    const read = readProjectText(join(runFolder, name), { maxBytes: MAX_TRANSCRIPT_BYTES, links: "refuse" });
    if (read.kind !== "ok") continue;
    bytes += read.text.length;
    tokens += transcriptTokens(read.text);
  }
  return tokens;
}

/**
 * The refusal line for a workflow agent past its run's fan-out cap or budget, or null (neither
 * set, not a workflow agent, within both, or its run not found: never a refusal on a guess).
 */
export function workflowAgentRefusal(
  root: string,
  input: Record<string, unknown>,
  warn: (message: string) => void,
): string | null {
  if (input.agent_type !== "workflow-subagent") return null;
  const agentId = input.agent_id;
  if (typeof agentId !== "string" || !/^[A-Za-z0-9_-]{1,128}$/.test(agentId)) return null;
  const user = userSettingsEnv(root);
  const cap = limitInForce(CAP_SETTING, 7, user, warn);
  const budget = limitInForce(BUDGET_SETTING, BUDGET_DIGITS, user, warn);
  if (cap === null && budget === null) return null;
  const session = sessionFolder(input);
  if (!session.ok) return null;
  const workflows = join(session.value.folder, "subagents", "workflows");
  let runs: string[];
  try {
    runs = readdirSync(workflows).filter((name) => RUN_ID.test(name));
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
    const over = capDecision(place, cap);
    if (over.kind === "over") return refusalLine(runId, over);
    if (budget === null) return null;
    const spent = budgetDecision(runTokens(join(workflows, runId)), budget);
    return spent.kind === "spent" ? budgetRefusalLine(runId, spent) : null;
  }
  return null;
}
