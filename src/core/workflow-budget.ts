// A per-run token budget of a Claude Code Workflow run (issue 43; SPEC §11 "Claude Code's Workflow
// runs", *Token budget*): the person sets the most tokens one run's agents may use, and once the
// run has used them every agent of it is refused, the way the fan-out cap refuses
// (src/core/workflow-cap.ts: what a hook can do, and why the lowest setting wins). Pure: the hook
// (src/claude/workflow-cap-hook.ts) reads the agents' transcripts and the settings.
//
// What the client exposes of cost (2.1.332): no price, but each agent's transcript
// (`subagents/workflows/<runId>/agent-<agentId>.jsonl` in the session's folder) records, for every
// request to the model, the usage the API answered: input, cache and output tokens. A request is
// written as several lines (one per content block), each with the same message id and usage, so a
// message counts once.
import { count } from "./words.js";

/** The setting: the most tokens one Workflow run's agents may use (a whole number, 1 or more). */
export const BUDGET_SETTING = "DOTAGENT_WORKFLOW_MAX_TOKENS";
/** Digits the setting may have (up to 999,999,999,999 tokens). */
export const BUDGET_DIGITS = 12;

const USAGE_FIELDS = [
  "input_tokens",
  "cache_creation_input_tokens",
  "cache_read_input_tokens",
  "output_tokens",
] as const;

/**
 * The tokens an agent's transcript records: for each model message (by its id) the sum of its
 * usage fields, counted once. Lines that are not JSON or carry no usage are skipped.
 */
export function transcriptTokens(transcript: string): number {
  const byMessage = new Map<string, number>();
  let unnamed = 0;
  for (const line of transcript.split("\n")) {
    if (!line.includes('"usage"')) continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    const message = (entry as { message?: unknown } | null)?.message as
      { id?: unknown; usage?: Record<string, unknown> } | undefined;
    const usage = message?.usage;
    if (usage === null || typeof usage !== "object") continue;
    let tokens = 0;
    for (const field of USAGE_FIELDS) {
      const n = usage[field];
      if (typeof n === "number" && Number.isSafeInteger(n) && n > 0) tokens += n;
    }
    if (typeof message?.id === "string") byMessage.set(message.id, tokens);
    else unnamed += tokens;
  }
  let total = unnamed;
  for (const tokens of byMessage.values()) total += tokens;
  return total;
}

export type BudgetDecision = { kind: "within" } | { kind: "spent"; used: number; budget: number };

/** Whether a run that used `used` tokens has spent its budget (null: none set). */
export const budgetDecision = (used: number, budget: number | null): BudgetDecision =>
  budget !== null && used >= budget ? { kind: "spent", used, budget } : { kind: "within" };

/** The one line the agent answers with, the model and the person read in the run's results. */
export const budgetRefusalLine = (runId: string, spent: { used: number; budget: number }) =>
  `dotagent: refused: workflow run ${runId} used ${count(spent.used, "token")} of its budget of ${spent.budget} (${BUDGET_SETTING}); its agents do not go on`;
