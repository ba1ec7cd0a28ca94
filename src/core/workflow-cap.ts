// A per-run cap on the agents of a Claude Code Workflow run (issue 43; SPEC §11 "Claude Code's
// Workflow runs", *Fan-out cap*): the person sets the most agents one run may start, and every
// agent past it is refused. Pure: the hook (src/claude/workflow-cap-hook.ts) reads the journal and
// the settings.
//
// What a hook can do in Claude Code 2.1.332 (measured, test/claude/NOTES.md): nothing stops a
// workflow agent from starting. SubagentStart ignores exit 2, `continue: false` and `decision:
// "block"`; its only output is `additionalContext`, which reaches the agent's model as a system
// message. So the cap is what is real: the agent past it is told, as it starts, that it is refused
// and must answer with one line; and each of its tool calls that dotagent's PreToolUse entries see
// (Bash, Write, Edit, MultiEdit, NotebookEdit, Agent) is denied with the same line. Its one
// request to the model still happens.
//
// THREAT: the cap's value may come from a file a clone brings: a project's settings `env`, which
// Claude Code hands the hooks over the shell's value (measured). A cap only refuses agents, so the
// lowest value found wins (the hook's environment and the person's user settings file, read
// apart): a repository can lower the cap set in the user settings, never raise it.
import { count } from "./words.js";

/** The setting: the most agents one Workflow run may start (a whole number, 1 or more). */
export const CAP_SETTING = "DOTAGENT_WORKFLOW_MAX_AGENTS";

export type CapReading = { cap: number | null; warnings: string[] };

/** The cap in force: the lowest valid value of the sources (null: none set); a value that is no whole number ≥ 1 is a warning. */
export const capInForce = (sources: readonly { value: unknown; from: string }[]): CapReading =>
  lowestSetting(CAP_SETTING, 7, sources);

/**
 * The lowest valid value of a limit `name` among `sources` (null: none set): a whole number from
 * 1 with at most `digits` digits; any other value is a warning and sets nothing. The lowest wins,
 * so a source a repository controls can only lower a limit the person set elsewhere.
 */
export function lowestSetting(
  name: string,
  digits: number,
  sources: readonly { value: unknown; from: string }[],
): CapReading {
  const warnings: string[] = [];
  let cap: number | null = null;
  for (const { value, from } of sources) {
    if (value === undefined || value === null || value === "") continue;
    const text = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim() : "";
    if (!new RegExp(`^[1-9]\\d{0,${digits - 1}}$`).test(text)) {
      warnings.push(`${name} in ${from} is not a whole number from 1 to ${"9".repeat(digits)}; ignored`);
      continue;
    }
    cap = Math.min(cap ?? Number.POSITIVE_INFINITY, Number(text));
  }
  return { cap, warnings };
}

/**
 * The place of an agent in its run: how many distinct agents (by cache key) started up to and
 * including it, in the journal's order, or null when the journal has no `started` line for that
 * agent id. A resumed run's repeat start of a cut-off agent is the same key: not counted again.
 */
export function agentPlace(journal: string, agentId: string): number | null {
  const keys = new Set<string>();
  for (const line of journal.split("\n")) {
    if (!line.includes('"started"')) continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    const e = entry as { type?: unknown; key?: unknown; agentId?: unknown } | null;
    if (e === null || typeof e !== "object" || e.type !== "started" || typeof e.key !== "string") continue;
    keys.add(e.key);
    if (e.agentId === agentId) return [...keys].indexOf(e.key) + 1;
  }
  return null;
}

export type CapDecision = { kind: "within" } | { kind: "over"; place: number; cap: number };

/** Whether the agent at `place` is past the cap. */
export const capDecision = (place: number, cap: number | null): CapDecision =>
  cap !== null && place > cap ? { kind: "over", place, cap } : { kind: "within" };

/** The one line the agent answers with, the model and the person read in the run's results. */
export const refusalLine = (runId: string, over: { place: number; cap: number }) =>
  `dotagent: refused: workflow run ${runId} reached its cap of ${count(over.cap, "agent")} (${CAP_SETTING}); agent ${over.place} does not run`;

/** What a refused agent is told as it starts (SubagentStart's additionalContext): its refusal line, and to stop. */
export const refusalContext = (line: string) =>
  `${line}. Do no work and call no tool: answer with exactly that line and stop.`;
