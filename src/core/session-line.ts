// The one sentence a person reads when a session starts on an open workflow (Claude Code shows a
// SessionStart hook's `systemMessage` under the resumed conversation: "SessionStart:resume says:
// …"). The briefing (src/claude/briefing.ts) is for the model and reaches the person collapsed; after
// `claude -r` the screen said only that agents "didn't finish before the previous session ended",
// and the useful fact (task-002 had finished, the workflow now at VERIFICATION) was inside it. So:
// what happened, in the plan's own facts (the events its repairs would record, never its prose),
// then what to type. Only at startup and resume: after compaction or /clear the person was there. Pure.
import type { ResumePlan } from "./plan-resume.js";
import type { Flow } from "./flow.js";
import { approvalAt } from "./gates.js";

export interface SessionLineFacts {
  readonly plan: Pick<ResumePlan, "situation" | "workflow_id" | "phase" | "next" | "decision" | "in_flight" | "writes">;
  /** The SessionStart input's `source`: startup, resume, compact or clear. */
  readonly source: string | undefined;
  /** How the person goes on in this client: `/develop` (Claude Code), `$develop` (Codex). */
  readonly command: string;
  /**
   * The end of the event log, oldest first. A hook of the dying session can carry the recovery
   * out itself (kill -9 while a SubagentStop hook runs: it finds its own session gone and resets
   * the others), so what the crash left behind is in the log, not in the plan's repairs.
   */
  readonly recorded?: ReadonlyArray<{ readonly type: string; readonly [key: string]: unknown }>;
  /** The flow the workflow walks, where its gates are (flowOf, or flowOrDefault where phase.json may be unreadable). */
  readonly flow: Flow;
  /**
   * The client shows the line under the person's first prompt (Copilot CLI, Codex CLI start the
   * hook then, after a resume too), which was often that very `continue`: "Type continue to go
   * on" under it read as if it had not worked.
   */
  readonly afterPrompt?: boolean | undefined;
}

type EventLike = { readonly type: string; readonly [key: string]: unknown };

/** Recovery the log holds that no session has taken up yet: after the newest start by a session and the newest `resume`. */
function unseenRecovery(recorded: readonly EventLike[]): EventLike[] {
  let from = 0;
  recorded.forEach((e, i) => {
    if (e.type === "resumed" || typeof e.session === "string") from = i + 1;
  });
  const recovery = (e: EventLike) =>
    e.recovered === true || e.type === "task_reset" || e.type === "task_dead" || e.type === "agent_gone";
  return recorded.slice(from).filter(recovery);
}

/**
 * Tasks whose end the last session recorded after it started its batch (the newest `task_started`
 * in the tail) and never told the person: Claude Code says "3 background agents didn't finish"
 * for every agent whose notification the kill cut off, so a line naming only the task cut off and
 * the one recovered left the third unaccounted for.
 */
function finishedInBatch(recorded: readonly EventLike[]): string[] {
  const start = recorded.map((e) => e.type).lastIndexOf("task_started");
  if (start < 0) return [];
  const seen = recorded.slice(start).findIndex((e) => e.type === "resumed");
  const batch = seen < 0 ? recorded.slice(start) : [];
  return batch.filter((e) => e.type === "task_completed").map((e) => String(e.task_id ?? "?"));
}

const list = (ids: readonly string[]): string => {
  const shown = ids.length > 5 ? [...ids.slice(0, 5), `${ids.length - 5} more`] : [...ids];
  return shown.length <= 1 ? shown.join("") : `${shown.slice(0, -1).join(", ")} and ${shown.at(-1)}`;
};

/** What the session's end left behind, from the events carrying out the plan would record. */
function whatHappened(plan: SessionLineFacts["plan"], recorded: readonly EventLike[]): string[] {
  const events: EventLike[] = [...unseenRecovery(recorded), ...(plan.writes.events as readonly EventLike[])];
  const ids = (type: string, field = "task_id") => [
    ...new Set(events.filter((e) => e.type === type).map((e) => String(e[field] ?? "?"))),
  ];
  const recovered = events
    .filter((e) => e.type === "task_completed" && e.recovered === true)
    .map((e) => String(e.task_id));
  const finished = [...new Set([...finishedInBatch(recorded), ...recovered])];
  const again = ids("task_reset");
  const dead = ids("task_dead");
  const agents = ids("agent_gone", "agent");
  const advanced = ids("phase_completed", "phase");
  const parts: string[] = [];
  if (finished.length > 0) parts.push(`${list(finished)} had finished`);
  if (advanced.length > 0 && plan.phase !== null)
    parts.push(`${list(advanced)} ${advanced.length === 1 ? "is" : "are"} done, now ${plan.phase}`);
  if (again.length > 0)
    parts.push(
      `${list(again)} ${again.length === 1 ? "was" : "were"} cut off and ${again.length === 1 ? "runs" : "run"} again`,
    );
  if (dead.length > 0) parts.push(`${list(dead)} ${dead.length === 1 ? "was" : "were"} cut off with no attempts left`);
  if (agents.length > 0)
    parts.push(
      `the ${list(agents)} ${agents.length === 1 ? "agent was" : "agents were"} cut off and ${agents.length === 1 ? "runs" : "run"} again`,
    );
  if (plan.in_flight.length > 0)
    parts.push(`${list(plan.in_flight)} still ${plan.in_flight.length === 1 ? "runs" : "run"} in another session`);
  return parts;
}

/** What the person types now. */
function whatToType(plan: SessionLineFacts["plan"], command: string, flow: Flow, afterPrompt?: boolean): string {
  if (plan.decision !== null)
    return `It waits for your answer: ${plan.decision.question.replace(/\s*$/, "")} Type yes or no.`;
  const next = plan.next;
  if (next.action === "await_approval") {
    const gate = approvalAt(flow, next);
    if (gate?.does === "pick")
      return `It waits for you to pick a design (${gate.report} compares them): type its name.`;
    const file = next.output ?? gate?.report ?? "the report";
    return `It waits for your approval of ${file}: type approve, or what should change.`;
  }
  if (
    next.action === "workflow_failed" ||
    next.action === "resolve_dead_tasks" ||
    next.action === "resolve_failed_agent"
  )
    return `It stopped and needs you: type ${command} to see why and choose.`;
  return afterPrompt === true
    ? `Typing continue (or ${command}) goes on from there.`
    : `Type continue (or ${command}) to go on.`;
}

/** The sentence, or null: no open workflow, or a start the person needs no news of. */
/** Whether a session start of this source gets the person's line (the shell reads the log's tail only then). */
export const tellsPerson = (source: string | undefined): boolean => source === "startup" || source === "resume";

export function sessionLine(facts: SessionLineFacts): string | null {
  const { plan, source, command } = facts;
  if (!tellsPerson(source)) return null;
  if (plan.situation === "none" || plan.situation === "complete") return null;
  const id = plan.workflow_id ?? "the workflow";
  if (plan.situation === "corrupt")
    return `dotagent: the state of ${id} in memory/state is damaged. Type ${command} to choose: go back to the last good copy, or archive it and start again.`;
  if (plan.situation === "hand_edit")
    return `dotagent: the state of ${id} in memory/state was edited outside dotagent. Type ${command} to choose whether to keep the edit.`;
  if (plan.situation === "request_changed" || plan.situation === "definition_changed")
    return `dotagent: workflow ${id} is open, but its request or definition changed since it started. Type ${command} to choose what to do.`;
  const happened = whatHappened(plan, facts.recorded ?? []);
  const where = plan.phase === null ? "" : ` at ${plan.phase}`;
  const head =
    happened.length > 0
      ? `dotagent: the last session ended during workflow ${id}: ${happened.join("; ")}.`
      : `dotagent: workflow ${id} is open${where}.`;
  return `${head} ${whatToType(plan, command, facts.flow, facts.afterPrompt)}`;
}
