// What `dotagent run` says on stdout and in `run --help`, in the cold half with the runner (the
// hot helper every hook starts stays small). The result: what happened, how long it took, what
// it wrote; at a gate without a terminal, the gate once: which gate, what it approves (the lines
// the terminal gate shows) and the commands that answer it, each runnable as printed.
import { count, formatDuration } from "../core/words.js";
import { CHANGE_PLACEHOLDER, type RunOutcome, type WorkerOutcome } from "./runner.js";

/** The lines of the result for people (stdout). */
export function runResultLines(outcome: RunOutcome): string[] {
  const took = `${formatDuration(outcome.elapsed_ms)}, ${count(outcome.agents, "agent session")}, ${count(outcome.reports.length, "report")} written`;
  const reports = outcome.reports.map((r) => `  ${r}`);
  if ("ended" in outcome) return [workerLine(outcome as WorkerOutcome, took)];
  // Nothing carried out: the workflow was complete before this run (`dotagent run` again after the end).
  if (outcome.outcome === "complete" && outcome.steps === 0 && outcome.agents === 0 && reports.length === 0)
    return [
      `Workflow ${outcome.workflow_id} is complete: nothing to run.`,
      `A new request starts the next one: dotagent run "<what to build>"; \`dotagent show\` reads this one's reports.`,
    ];
  if (outcome.outcome === "complete")
    return [`Workflow ${outcome.workflow_id} complete in ${took}${reports.length > 0 ? ":" : "."}`, ...reports];
  // --until-tasks: one line, the plan's readiness (or why there is none to run).
  if (outcome.outcome === "tasks_ready")
    return [
      `Workflow ${outcome.workflow_id}: the plan is ready for workers, ${count(outcome.tasks.length, "task")} at ${outcome.step} (this run: ${took}); dotagent run --worker runs them.`,
    ];
  if (outcome.outcome === "past_tasks")
    return [
      `Workflow ${outcome.workflow_id} is past its tasks step (at ${outcome.phase ?? "its end"}): nothing for workers; dotagent run walks the rest.`,
    ];
  const sofar = [`This run: ${took}${reports.length > 0 ? ":" : "."}`, ...reports];
  if (outcome.outcome === "waiting" && outcome.held_elsewhere !== undefined)
    return [`Left to other workers: ${outcome.in_flight.join(", ")} (dotagent claims lists who holds what).`, ...sofar];
  if (outcome.outcome === "waiting")
    return [`Waiting for tasks in another session: ${outcome.in_flight.join(", ")}.`, ...sofar];
  const { decision, gate } = outcome;
  const yours = `(your words in place of ${CHANGE_PLACEHOLDER})`;
  // The design pick: every design with the command that picks it, and the one that sends them back.
  const choices = outcome.choices ?? [];
  if (choices.length > 0) {
    const rows: Array<readonly [string, string]> = choices.map((c) => [
      c.command,
      `${c.one_line}${c.recommended ? " (recommended)" : ""}`,
    ]);
    if (gate?.change) rows.push([gate.change, `the designs revised with your words, then the pick again ${yours}`]);
    const width = Math.max(0, ...rows.map(([command]) => command.length));
    return [decision.question, ...rows.map(([command, what]) => `  ${command.padEnd(width)}  ${what}`), ...sofar];
  }
  // An approval gate: what it approves, as the terminal shows it, and the commands that answer it.
  if (gate !== undefined) {
    return [
      `The ${gate.step} gate waits for you: approve ${gate.report}?`,
      ...gate.shown,
      "",
      `  Approve:          ${gate.approve}`,
      ...(gate.change ? [`  Ask for changes:  ${gate.change}   ${yours}`] : []),
      "Nothing is approved until you answer.",
      ...sofar,
    ];
  }
  return [
    decision.question,
    `  yes: ${decision.yes}`,
    `  no:  ${decision.no}`,
    "Then run dotagent run again.",
    ...sofar,
  ];
}

/** A worker's result in one line: why it ended, what it did, and who goes on from there. */
function workerLine(outcome: WorkerOutcome, took: string): string {
  const list = (ids: readonly string[]) => (ids.length === 0 ? "none" : ids.join(", "));
  const did = `ran ${list(outcome.ran)}; took in ${list(outcome.taken_in)}; this run: ${took}`;
  const elsewhere = outcome.outcome === "waiting" ? outcome.in_flight : [];
  switch (outcome.ended) {
    case "tasks_done":
      return `Worker ${outcome.worker.id}: every task of the plan is complete here (${did}); dotagent run --claims walks the rest.`;
    case "past_tasks":
      return `Workflow ${outcome.workflow_id} is past its tasks step (at ${outcome.phase ?? "its end"}): nothing for a worker; dotagent run --claims walks the rest.`;
    case "not_at_tasks":
      return `Workflow ${outcome.workflow_id} is at ${outcome.phase ?? "its start"}, before its tasks step: nothing for a worker yet; dotagent run walks the steps and gates (--until-tasks stops when the plan is ready).`;
    case "needs_person":
      return `${list(elsewhere)} failed too often: a person decides (dotagent run asks; dotagent task retry ID --extra-attempts 2); ${did}.`;
    case "idle":
      return `Nothing claimable within --idle: ${list(elsewhere)} are other workers' (dotagent claims lists who holds what); ${did}.`;
    case "in_session":
      return `Waiting for tasks in another session here: ${list(elsewhere)}; ${did}.`;
  }
}

/** `run --help` after the usage line: each option in a line, what the command needs, examples. */
export const RUN_HELP: readonly string[] = [
  "Options:",
  "  --workflow NAME     a new workflow of that definition (dotagent workflows); default develop",
  "  --approve ask|auto  ask at each gate (default), or approve them all; kept for the workflow",
  "  --change TEXT       at the gate waiting now: the report's agent revises it with TEXT",
  "  --design NAME       answer the design pick up front",
  "  --max-parallel N    at most N agents or tasks at once (default 3)",
  "  --max-cost USD      stop cleanly once the sessions cost about USD (an estimate)",
  "  --agents DIR        the agent files in DIR, not .claude/agents/ and dotagent's own",
  "  --claims            take each task through the git remote first (several clones, one workflow)",
  "  --remote NAME       the remote of --claims (default origin)",
  "  --until-tasks       stop once the plan is written, before any task runs (for workers)",
  "  -q, --quiet         no progress on stderr (a gate and the result still show)",
  "",
  "Needs the Claude Agent SDK (npm install @anthropic-ai/claude-agent-sdk, in the project or",
  "beside a global dotagent) and ANTHROPIC_API_KEY or a Claude Code login (claude, then",
  "/login); both checked first. No terminal: a gate stops the run (exit 5) with the",
  "commands that answer it.",
  "",
  "Examples:",
  '  dotagent run "add login"                 asks at each gate: approve, or say what to change',
  '  dotagent run "add login" --approve auto  unattended (CI): approves every gate',
  "  dotagent run                             goes on after a gate, Ctrl-C or a kill",
];
