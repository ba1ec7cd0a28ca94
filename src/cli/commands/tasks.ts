// `dotagent tasks [show ID] [--status S,T] [--watch]`: the task plan on one screen (src/ops/task-list.ts).
// Takes no lock and never writes. --watch redraws on a terminal until Ctrl-C (exit 0); without a
// terminal it is refused (exit 2): a caller that cannot see a screen would wait forever for nothing.
import { DotagentError, EXIT, usageError } from "../../core/errors.js";
import { parseStatusFilter } from "../../core/task-list.js";
import { escapeControls } from "../../core/words.js";
import { listTasks, showTask, type TaskListResult, type TaskShowResult } from "../../ops/task-list.js";
import { checkTaskId } from "../../ops/inputs.js";
import type { TaskStatus } from "../../schema/json.js";
import { stringOption, type Command, type CommandContext } from "../context.js";
import { formatTime } from "../time.js";
import { outputWidth, table } from "../table.js";
import { listLines } from "../task-table.js";
import { howToStart, personReading } from "../person-next.js";
import { listWorkflowRuns } from "../../ops/workflow-runs.js";
import { runListLines } from "../../core/workflow-run-view.js";
import { claimsFor } from "./claims.js";

export const command: Command = {
  summary: "the task plan: status, attempts, dependencies, owner, worktree or merge commit; never writes",
  usage:
    "dotagent tasks [--status S,T] [--watch] [--claims [--remote NAME]] [--json]  |  dotagent tasks show ID [--json]  |  dotagent tasks --workflow-runs [--json]",
  options: {
    status: { type: "string" },
    watch: { type: "boolean" },
    "workflow-runs": { type: "boolean" },
    claims: { type: "boolean" },
    remote: { type: "string" },
  },
  examples: [
    "dotagent tasks                          every task: what runs, what is done, what merged where",
    "dotagent tasks --status running,dead    only those",
    "dotagent tasks --watch                  redraws as the tasks change, on a terminal; Ctrl-C ends it",
    "dotagent tasks show task-002 --json     one task with its worktree, merge and events",
    "dotagent tasks --workflow-runs          Claude Code's Workflow runs: each agent done, running or lost",
    "dotagent tasks --claims                 and which machine holds which task, from the git remote's claims",
  ],
  async run(context) {
    const [action, id, ...rest] = context.args;
    if (rest.length > 0) throw usageError(`unexpected argument "${rest[0]}"`);
    if (action !== undefined && action !== "show")
      throw usageError(`tasks takes no argument or \`show ID\`, not "${action}"; see \`dotagent tasks --help\``);
    const watch = context.options.watch === true;
    const statusText = stringOption(context, "status");
    const claimsAsked = context.options.claims === true || context.options.remote !== undefined;
    if (context.options["workflow-runs"] === true) {
      if (action !== undefined || watch || statusText !== undefined || claimsAsked)
        throw usageError("tasks --workflow-runs takes no argument, --status, --watch, --claims or --remote");
      const runs = { workflow_runs: listWorkflowRuns(context) };
      const { color } = context.out;
      // Colour only where colorsFor allows it (a terminal, no NO_COLOR): lost red, running cyan.
      const paint = (state: string, text: string) =>
        state === "lost" ? color.red(text) : state === "running" ? color.cyan(text) : color.green(text);
      context.out.result(runs, () => runListLines(runs.workflow_runs, paint));
      return EXIT.ok;
    }
    if (action === "show") {
      if (watch || statusText !== undefined || claimsAsked)
        throw usageError(
          "tasks show takes no --status, --watch, --claims or --remote (`dotagent claims` lists which machine holds each task)",
        );
      if (id === undefined) throw usageError("tasks show needs a task id; `dotagent tasks` lists them");
      const found = await showTask(context, checkTaskId(id, "show"));
      context.out.result(found, () => showLines(found));
      return EXIT.ok;
    }
    let statuses: TaskStatus[] | undefined;
    if (statusText !== undefined) {
      const parsed = parseStatusFilter(statusText);
      if (!parsed.ok) throw usageError(parsed.message);
      statuses = parsed.statuses;
    }
    if (context.options.claims === true && watch) throw usageError("--claims goes with the task list, not --watch");
    if (watch) return watchTasks(context, statuses);
    const result = await listTasks(context, statuses);
    // Asked for: the remote's claims beside the offline list (SPEC §23); without --claims nothing leaves this machine.
    const claims = await claimsFor(context, result.workflow_id);
    context.out.result(claims ? { ...result, claims: claims.list } : result, () => [
      ...listLines(result, outputWidth(), startFor(context)),
      ...(claims ? ["", ...claims.lines()] : []),
    ]);
    return EXIT.ok;
  },
};

/** What starts a workflow, for a person reading (none for the model or a program: they keep init's line). */
function startFor(context: CommandContext): string | undefined {
  const driver = personReading(context);
  return driver === null ? undefined : howToStart(driver);
}

async function watchTasks(context: CommandContext, statuses: TaskStatus[] | undefined): Promise<number> {
  if (context.out.json) throw usageError("--watch redraws a terminal; --json prints the list once: drop one of them");
  if (process.stdout.isTTY !== true)
    throw usageError(
      "--watch redraws a terminal, and stdout is not one: run `dotagent tasks` (or `--json`) when you need the list",
    );
  const { watchScreen } = await import("../watch.js");
  const { writeStd } = await import("../std-write.js");
  let onInterrupt: (() => void) | undefined;
  const until = new Promise<void>((resolve) => {
    onInterrupt = resolve;
    process.once("SIGINT", resolve);
  });
  const draw = async (): Promise<string> => {
    const footer = context.out.color.dim("Watching memory/state; Ctrl-C to stop.");
    try {
      return [...listLines(await listTasks(context, statuses), outputWidth(), startFor(context)), footer].join("\n");
    } catch (error) {
      // Corrupt or half-cleared state while watching: said, and the watch goes on.
      if (error instanceof DotagentError) return [`dotagent: ${error.message}`, footer].join("\n");
      throw error;
    }
  };
  try {
    await watchScreen({ draw, folder: context.paths.stateDir, write: (text) => writeStd("stdout", text), until });
  } finally {
    if (onInterrupt) process.removeListener("SIGINT", onInterrupt);
  }
  return EXIT.ok;
}

const shown = (text: string | null) => escapeControls(text ?? "");

function showLines(found: TaskShowResult): string[] {
  const t = found.task;
  const lines = [`${t.id}${t.title === null ? "" : `  ${shown(t.title)}`}  (workflow ${found.workflow_id})`];
  const holder =
    t.owner === null
      ? ""
      : `, attempt ${t.owner.attempt}, pid ${t.owner.pid} on ${t.owner.host} (${t.owner.verdict})${t.owner.session ? `, session ${t.owner.session}` : ""}`;
  lines.push(`Status: ${t.status}${holder}; ${t.attempts} of ${t.max_attempts} attempts used`);
  if (t.started_at !== null)
    lines.push(
      `Started: ${formatTime(t.started_at)}${t.completed_at !== null ? `; completed: ${formatTime(t.completed_at)}` : ""}`,
    );
  lines.push(
    `Depends on: ${t.depends_on.length > 0 ? t.depends_on.join(", ") : "nothing"}${t.waiting_on.length > 0 ? ` (waits for ${t.waiting_on.join(", ")})` : ""}; needed by: ${t.dependants.length > 0 ? t.dependants.join(", ") : "nothing"}`,
  );
  if (t.worktree !== null)
    lines.push(
      `Worktree: ${t.worktree.path}, branch ${t.worktree.branch}, from ${t.worktree.base.slice(0, 7)}, merges into ${t.worktree.into}`,
    );
  if (t.merge !== null)
    lines.push(
      `Merge: ${t.merge.state === "merged" ? (t.merge.commit === null ? `nothing to merge into ${t.merge.into}` : `merged into ${t.merge.into} as ${t.merge.commit.slice(0, 7)}`) : t.merge.state === "merging" ? `being merged into ${t.merge.into}` : `not merged (${t.merge.reason}${t.merge.files.length > 0 ? `: ${t.merge.files.join(", ")}` : ""})`}, ${formatTime(t.merge.at)}`,
    );
  if (t.skipped !== null) lines.push(`Skipped: ${shown(t.skipped.reason)}, ${formatTime(t.skipped.at)}`);
  if (t.error !== null) lines.push(`Last error: ${shown(t.error)}`);
  lines.push(`Report: ${t.output}`);
  if (found.events.length === 0) return lines;
  const rows = found.events.map(({ seq, at, type, task_id: _id, ...rest }) =>
    [
      String(seq),
      formatTime(at),
      type,
      Object.entries(rest)
        .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
        .join(" "),
    ].map(escapeControls),
  );
  return [...lines, ...table(["SEQ", "TIME", "EVENT", "DETAILS"], rows, outputWidth())];
}
