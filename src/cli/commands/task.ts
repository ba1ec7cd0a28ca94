import { existsSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { DotagentError, EXIT, usageError } from "../../core/errors.js";
import { reportAt } from "../../core/reports.js";
import { addTasks, completeTask, emptyExecution, failTask, maxAttemptsOf, outputOf, readyTasks, retryTask, type NewTask, type TaskResult } from "../../core/tasks.js";
import { importPlan, startPlannedTask, type ImportResult } from "../../core/plans.js";
import { decodeJson, idProblem } from "../../schema/json.js";
import { formatBytes, readAll, readProjectFile } from "../../store/read-file.js";
import type { ExecutionState, Task } from "../../schema/execution.js";

/** Largest `task import` input: far more than 100,000 tasks. */
const MAX_IMPORT_BYTES = 64 * 1024 * 1024;
import { loadSnapshot } from "../../store/session.js";
import { currentOwner, judgeRunningTasks } from "../../store/process-facts.js";
import { StateWriter } from "../../store/state-writer.js";
import { requireValid, requireWorkflow } from "../state-guard.js";
import { formatProblem } from "../../core/validate.js";
import { locked, warn, outputOption, stringOption, subcommand, type Command, type CommandContext } from "../context.js";

const ACTIONS = ["add", "import", "start", "complete", "fail", "retry", "next"] as const;

function requireId(id: string | undefined, action: string): string {
  if (id === undefined) throw usageError(`task ${action} needs a task id; see \`dotagent task --help\``);
  const problem = idProblem(id, "task id");
  if (problem !== null) throw usageError(problem);
  return id;
}

/**
 * A relative FILE is read from the current folder, else from the project root: the skill names
 * plan files project-relative (memory/reports/plan.json), like --output, whatever folder the
 * shell is in.
 */
function importSource(source: string, root: string): string {
  if (isAbsolute(source) || existsSync(source)) return source;
  const inProject = join(root, source);
  return existsSync(inProject) ? inProject : source;
}

async function readImport(source: string, root: string): Promise<NewTask[]> {
  const where = source === "-" ? "stdin" : source;
  // Bounded either way: an endless input (/dev/zero, `yes |`) is refused at the limit, a FIFO or
  // device named as FILE at once (pipe it to `task import -` instead).
  let read;
  try {
    read = source === "-" ? readAll(0, MAX_IMPORT_BYTES) : readProjectFile(importSource(source, root), { maxBytes: MAX_IMPORT_BYTES, links: "follow" });
  } catch (error) {
    read = { kind: "refused" as const, reason: `cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})` };
  }
  if (read.kind !== "ok") {
    const reason = read.kind === "missing" ? "does not exist" : read.reason;
    throw new DotagentError("import_unreadable", `${source === "-" ? "standard input" : source} ${reason}; give a JSON file of at most ${formatBytes(MAX_IMPORT_BYTES)}`, EXIT.refused);
  }
  const decoded = decodeJson(read.bytes.toString("utf8"));
  if (!decoded.ok) throw new DotagentError("import_invalid", `${where}: ${decoded.message}; expected a JSON array like [{"id":"task-001","title":"…","depends_on":[]}] or an object with such a "tasks" array`, EXIT.usage);
  // The schema (and zod) load only for an import.
  const [{ parseWith }, { taskImportSchema }] = await Promise.all([import("../../schema/common.js"), import("../../schema/execution.js")]);
  const parsed = parseWith(taskImportSchema, decoded.value);
  if (!parsed.ok) throw new DotagentError("import_invalid", `${formatProblem({ file: where, ...parsed.problems[0]! })}; expected a JSON array like [{"id":"task-001","title":"…","depends_on":[]}] or an object with such a "tasks" array`, EXIT.usage);
  const tasks = Array.isArray(parsed.value) ? parsed.value : parsed.value.tasks;
  return tasks.map((t) => ({ id: t.id, title: t.title, depends_on: t.depends_on }));
}

/**
 * The task as the next step needs it (the executor's id, title and output file; attempts; the last
 * error): the same field names as execution.json, without the empty and the bookkeeping ones.
 */
function taskView(task: Task): Record<string, unknown> {
  return { id: task.id, ...(task.title ? { title: task.title } : {}), status: task.status, attempts: task.attempts, output: outputOf(task), ...(task.error ? { error: task.error } : {}) };
}

async function runNext(context: CommandContext): Promise<number> {
  const snapshot = await loadSnapshot(context.paths);
  requireValid(snapshot, context.now());
  const execution = snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined;
  const ready = execution ? readyTasks(execution) : [];
  context.out.result({ tasks: ready.map((t) => ({ id: t.id, title: t.title ?? null, depends_on: t.depends_on ?? [], attempts: t.attempts, output: outputOf(t) })) }, () =>
    ready.length === 0 ? ["No task is ready."] : ready.map((t) => `${t.id}${t.title ? `  ${t.title}` : ""}`),
  );
  return EXIT.ok;
}

export const command: Command = {
  summary: "add|import|start|complete|fail|retry|next tasks",
  usage: "dotagent task add|start|complete|fail|retry ID [--title T] [--depends-on A,B] [--output PATH] [--error TEXT] [--extra-attempts N] [--owner PID] | task import FILE|- | task next [--json]",
  options: {
    title: { type: "string" },
    "depends-on": { type: "string" },
    output: { type: "string" },
    error: { type: "string" },
    "extra-attempts": { type: "string" },
    owner: { type: "string" },
  },
  examples: [
    "dotagent task add task-001 --title 'Login form'",
    "dotagent task add task-002 --title 'Session API' --depends-on task-001",
    "dotagent task import memory/reports/plan.json  the whole plan: [{id,title,depends_on}] or {\"tasks\": [...]}",
    "dotagent task next --json                     ready tasks in dependency order",
    "dotagent task start task-001                  owned by this Claude Code session (CLAUDE_PID)",
    "dotagent task start task-001 --owner 4242     owned by process 4242 (outside Claude Code)",
    "dotagent task complete task-001               needs memory/reports/tasks/task-001.json",
    "dotagent task fail task-001 --error 'tests fail'",
    "dotagent task retry task-001 --extra-attempts 2",
  ],
  async run(context) {
    const [action, idArg] = subcommand(context, "task", ACTIONS);
    if (action === "next") return runNext(context);
    const now = context.now();
    const additions = action === "import" ? await readImport(idArg ?? "-", context.paths.root) : undefined;
    const id = action === "import" ? "" : requireId(idArg, action);
    const outputPath = outputOption(context);
    const extraText = stringOption(context, "extra-attempts");
    const extra = extraText === undefined ? 0 : Number(extraText);
    if (!Number.isInteger(extra) || extra < 0 || extra > 1000) throw usageError(`--extra-attempts takes a whole number from 0 to 1000, not "${extraText}"`);
    const dependsOn = stringOption(context, "depends-on")?.split(",").map((s) => s.trim()).filter((s) => s !== "");
    for (const dep of dependsOn ?? []) requireId(dep, action);
    const ownerText = stringOption(context, "owner");
    if (ownerText !== undefined && (action !== "start" || !/^\d+$/.test(ownerText) || Number(ownerText) < 2 || !Number.isSafeInteger(Number(ownerText)))) {
      throw usageError(action !== "start" ? "--owner goes with `task start` only" : `--owner takes the pid of the process that runs the task, not "${ownerText}"`);
    }

    const result = await locked(context, `task ${action}`, async () => {
      const extraRequests = [
        ...(outputPath ? [{ path: outputPath, mode: "parse" as const }] : []),
        ...(id ? [{ path: `memory/reports/tasks/${id}.json`, mode: "parse" as const }] : []),
      ];
      const snapshot = await loadSnapshot(context.paths, extraRequests);
      const phase = requireWorkflow(snapshot, now);
      const execution: ExecutionState = snapshot.execution.kind === "ok" ? snapshot.execution.value : emptyExecution(phase.workflow_id, now);
      let outcome: TaskResult | ImportResult;
      switch (action) {
        case "add":
          outcome = addTasks(execution, [{ id, title: stringOption(context, "title"), depends_on: dependsOn }], now);
          break;
        case "import":
          outcome = importPlan(execution, phase, additions ?? [], now);
          break;
        case "start":
          outcome = startPlannedTask(execution, phase, id, now, currentOwner(now, ownerText === undefined ? undefined : Number(ownerText)), judgeRunningTasks(snapshot, now).get(id));
          break;
        case "complete":
          outcome = completeTask(execution, id, snapshot.reports, now, outputPath);
          break;
        case "fail":
          outcome = failTask(execution, id, stringOption(context, "error"), now);
          break;
        default:
          outcome = retryTask(execution, id, extra, now);
      }
      if (!outcome.ok) throw new DotagentError(outcome.code, outcome.message, EXIT.refused);
      const writer = new StateWriter(context.paths, snapshot, now, warn(context));
      const task = outcome.state.tasks.find((t) => t.id === id);
      // Starting a task whose output file is left from an earlier attempt sets that file aside
      // first, so recovery never mistakes the old output for this attempt's. That touches two
      // files, so it goes through the journaled change.
      const stale = action === "start" && task !== undefined ? outputOf(task) : undefined;
      const found = stale === undefined ? "missing" : reportAt(snapshot.reports, stale).status;
      if (stale !== undefined && task !== undefined && found !== "missing" && found !== "outside") {
        const to = `${stale.replace(/\.json$/, "")}.attempt-${task.attempts}-${now.getTime()}.json`;
        const moves = [{ type: "move" as const, from: stale, to }];
        writer.applyChange({ phaseBefore: phase, journal: { type: "task_start", task_id: id, started_at: now.toISOString(), moves: [{ from: stale, to }] }, moves, execution: outcome.state, phase, events: outcome.events });
      } else {
        writer.writeExecution(outcome.state);
        writer.appendEvents(outcome.events);
      }
      return { state: outcome.state, task, imported: "plan" in outcome ? outcome : undefined };
    });
    const { task, imported } = result;
    const max = task ? maxAttemptsOf(task, result.state) : undefined;
    context.out.result(
      action === "import" || action === "add"
        ? { ok: true, added: action === "add" ? [id] : (imported?.added ?? []), ...(imported ? { skipped: imported.skipped, plan: imported.plan } : {}), total: result.state.tasks.length }
        : { ok: true, task: task ? taskView(task) : null, max_attempts: max ?? null },
      () => {
        if (imported) return [`Imported ${imported.added.length} task(s)${imported.skipped.length > 0 ? ` (${imported.skipped.length} already there)` : ""}; ${result.state.tasks.length} in all.${imported.plan ? ` Plan recorded${imported.plan.round > 0 ? ` for rework round ${imported.plan.round}` : ""}.` : ""}`];
        if (action === "add") return [`Added ${id}.`];
        return [`${id}: ${task?.status}${task && task.attempts > 0 ? ` (${task.attempts} of ${max} attempts used)` : ""}`];
      },
    );
    return EXIT.ok;
  },
};
