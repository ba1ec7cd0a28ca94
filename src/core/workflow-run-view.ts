// What people and agents see of Claude Code's Workflow runs (issue 43; SPEC §10 "tasks
// --workflow-runs", §11 "Claude Code's Workflow runs"): one view per run recorded in
// `memory/state/workflow-runs/<runId>/`, made from its run.json and its journal's reading. Pure:
// the store (src/store/workflow-runs.ts) reads the files and looks whether the client's session
// folder still holds the run.
//
// The rule for an agent with no result (SPEC): `running` while the run is open (run.json has no
// `ended`) and the client's session folder on this machine still holds the run's journal and no
// run record of its end; `lost` otherwise (the run ended, or the session's folder is gone: another
// machine, a fresh clone, a cleaned folder). dotagent cannot see the client's process, so after a
// kill -9 on this machine the agent shows `running` until the run is ended (its notification, or
// the next session's start).
//
// THREAT: run.json and the journal are files a clone brings by git: every field is checked for its
// type, and every text cut short and rid of control characters before anyone prints it.
import { readJournal, rerunOnResume, type JournalReading } from "./workflow-journal.js";

/** What the store found for one run (its folder name is the run id, already a plain one). */
export interface WorkflowRunFacts {
  runId: string;
  /** run.json parsed (null: unreadable, `problem` says why). */
  record: unknown;
  /** The journal copy's text (null: none kept yet, or unreadable: `problem` says why). */
  journal: string | null;
  /** Whether the client's session folder on this machine still holds the run, running (its journal, no run record). */
  sessionHoldsRun: boolean;
  /** What could not be read, one line (null: all was). */
  problem: string | null;
}

export type AgentState = "done" | "running" | "lost";

export interface WorkflowRunAgentView {
  label: string | null;
  phase: string | null;
  state: AgentState;
  headline: string | null;
}

/** One run, as `tasks --workflow-runs --json` gives it (stable fields). */
export interface WorkflowRunView {
  run_id: string;
  workflow_name: string | null;
  session_id: string | null;
  /** `open`, or `ended:<status>` (the client's status, e.g. `ended:completed`). */
  state: string;
  agents: WorkflowRunAgentView[];
  /** The labels of the agents a relaunch with `resumeFromRunId` runs again (no result in the journal). */
  rerun_on_resume: string[];
  recorded_at: string | null;
  /** What could not be read (run.json, the journal, lines of it), one line; null when all was. */
  problem: string | null;
}

const TEXT_MAX = 80;

/** A field of a file from git, fit to print: a string, control characters dropped, at most 80 characters. */
export function cleanText(value: unknown, max = TEXT_MAX): string | null {
  if (typeof value !== "string") return null;
  // eslint-disable-next-line no-control-regex
  const flat = value.replace(/[\u0000-\u001f\u007f-\u009f]/g, " ").trim();
  if (flat === "") return null;
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

const obj = (v: unknown): Record<string, unknown> | null =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

/** `ended` of run.json (another part of issue 43 writes it at the run's notification): its status, or null while open. */
export function endedStatus(record: unknown): string | null {
  const ended = obj(obj(record)?.ended);
  if (ended === null) return null;
  const status = cleanText(ended.status, 40);
  return status === null ? "unknown" : status.replace(/\s+/g, "-");
}

/** The agent's name in a line: its label, else its place in the run. */
const nameOf = (agent: { label: string | null }, index: number) => agent.label ?? `agent ${index + 1}`;

/** The view of one run, from what the store read. */
export function workflowRunView(facts: WorkflowRunFacts): WorkflowRunView {
  const record = obj(facts.record);
  const ended = endedStatus(facts.record);
  const reading: JournalReading =
    facts.journal === null ? { launched: false, agents: [], unreadLines: 0 } : readJournal(facts.journal);
  const live = ended === null && facts.sessionHoldsRun;
  const agents = reading.agents.map((agent): WorkflowRunAgentView => ({
    label: cleanText(agent.label),
    phase: cleanText(agent.phase),
    state: agent.state === "done" ? "done" : live ? "running" : "lost",
    headline: agent.headline === null ? null : cleanText(agent.headline, 120),
  }));
  const labels = new Map(reading.agents.map((a, i) => [a, nameOf(agents[i]!, i)]));
  const problems = [
    facts.problem,
    reading.unreadLines > 0
      ? `${reading.unreadLines} journal line${reading.unreadLines === 1 ? "" : "s"} not read`
      : null,
  ].filter((p): p is string => p !== null);
  return {
    run_id: facts.runId,
    workflow_name: cleanText(record?.workflow_name),
    session_id: cleanText(record?.session_id, 128),
    state: ended === null ? "open" : `ended:${ended}`,
    agents,
    rerun_on_resume: rerunOnResume(reading).map((a) => labels.get(a)!),
    recorded_at: cleanText(record?.recorded_at, 40),
    problem: problems.length === 0 ? null : problems.join("; "),
  };
}

/** Newest first (by recorded_at, then run id), so the lines a person reads first are the run at work. */
export function newestFirst(views: readonly WorkflowRunView[]): WorkflowRunView[] {
  return [...views].sort(
    (a, b) => (b.recorded_at ?? "").localeCompare(a.recorded_at ?? "") || a.run_id.localeCompare(b.run_id),
  );
}

/** A list of names on one line: at most three, then how many more. */
export function namesLine(names: readonly string[]): string {
  return names.length <= 3 ? names.join(", ") : `${names.slice(0, 3).join(", ")} and ${names.length - 3} more`;
}

/** Where a run stands, in words: `open`, `open, running: x`, `open (cut off: resuming re-runs x)`, `ended: completed`. */
export function standingWords(view: WorkflowRunView): string {
  const running = view.agents.flatMap((a, i) => (a.state === "running" ? [nameOf(a, i)] : []));
  const rerun = view.rerun_on_resume.length > 0 ? `resuming re-runs ${namesLine(view.rerun_on_resume)}` : "";
  if (view.state === "open") {
    if (running.length > 0) return `open, running: ${namesLine(running)}`;
    return rerun === "" ? "open" : `open (cut off: ${rerun})`;
  }
  const ended = `ended: ${view.state.slice("ended:".length)}`;
  return rerun === "" ? ended : `${ended} (${rerun})`;
}

/** One line per run: `wf_… name · 2 of 3 agents done · open (cut off: resuming re-runs gamma)`. */
export function runLine(view: WorkflowRunView): string {
  const done = view.agents.filter((a) => a.state === "done").length;
  const parts = [
    `${view.run_id}${view.workflow_name === null ? "" : ` ${view.workflow_name}`}`,
    `${done} of ${view.agents.length} agent${view.agents.length === 1 ? "" : "s"} done`,
    standingWords(view),
  ];
  if (view.problem !== null) parts.push(`(${view.problem})`);
  return parts.join(" · ");
}

/** The most runs `status` lists; more are counted, and `dotagent tasks --workflow-runs` lists them. */
export const STATUS_RUNS_MAX = 3;

/** `status`'s block: nothing without runs; else a heading and the newest runs, one line each. */
export function statusRunLines(views: readonly WorkflowRunView[]): string[] {
  if (views.length === 0) return [];
  const shown = newestFirst(views).slice(0, STATUS_RUNS_MAX);
  const more = views.length - shown.length;
  return [
    "Claude Code workflow runs:",
    ...shown.map((v) => `  ${runLine(v)}`),
    ...(more > 0 ? [`  and ${more} more: \`dotagent tasks --workflow-runs\``] : []),
  ];
}

/** How a printer paints an agent's state (the CLI's colours on a terminal; the identity elsewhere). */
export type PaintState = (state: AgentState, text: string) => string;

/** `tasks --workflow-runs`: each run's line, then its agents (state, phase, label, headline). */
export function runListLines(views: readonly WorkflowRunView[], paint: PaintState = (_s, t) => t): string[] {
  if (views.length === 0) return ["No Claude Code workflow runs recorded here (memory/state/workflow-runs/)."];
  const lines: string[] = [];
  for (const view of newestFirst(views)) {
    lines.push(runLine(view));
    view.agents.forEach((agent, i) => {
      const phase = agent.phase === null ? "" : ` [${agent.phase}]`;
      const headline = agent.headline === null ? "" : `: ${agent.headline}`;
      lines.push(`  ${paint(agent.state, agent.state.padEnd(7))} ${nameOf(agent, i)}${phase}${headline}`);
    });
  }
  return lines;
}
