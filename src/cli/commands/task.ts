import { existsSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { DotagentError, EXIT, usageError } from "../../core/errors.js";
import type { NewTask } from "../../core/tasks.js";
import { decodeJson } from "../../schema/json.js";
import { formatBytes, readAll, readProjectFile } from "../../store/read-file.js";
import { changeTask, nextTasks, notJsonPlan, parseTaskPlan, TASK_ACTIONS } from "../../ops/task-change.js";
import { checkExtraAttempts, checkOwner, checkTaskId as requireId } from "../../ops/inputs.js";
import { opContext, outputOption, stringOption, subcommand, type Command, type CommandContext } from "../context.js";
import { count } from "../../core/words.js";
import type { PlanEdit } from "../../core/plan-edit.js";
import { retryIsPersons, taskChangeLine } from "../../core/task-plan.js";
import { taskOptionProblem } from "../task-options.js";
import { putDecision } from "../output.js";

/** The plan edits (SPEC §4 "Plan edits"): a person's decision from an agent's shell. */
const PLAN_EDITS = ["edit", "remove", "skip"] as const;
type PlanEditAction = (typeof PLAN_EDITS)[number];
const isPlanEdit = (action: string): action is PlanEditAction => (PLAN_EDITS as readonly string[]).includes(action);

/** Largest `task import` input: far more than 100,000 tasks. */
const MAX_IMPORT_BYTES = 64 * 1024 * 1024;

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
    read =
      source === "-"
        ? readAll(0, MAX_IMPORT_BYTES)
        : readProjectFile(importSource(source, root), { maxBytes: MAX_IMPORT_BYTES, links: "follow" });
  } catch (error) {
    read = { kind: "refused" as const, reason: `cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})` };
  }
  if (read.kind !== "ok") {
    const reason = read.kind === "missing" ? "does not exist" : read.reason;
    throw new DotagentError(
      "import_unreadable",
      `${source === "-" ? "standard input" : source} ${reason}; give a JSON file of at most ${formatBytes(MAX_IMPORT_BYTES)}`,
      EXIT.refused,
    );
  }
  const decoded = decodeJson(read.bytes.toString("utf8"));
  if (!decoded.ok) throw notJsonPlan(where, decoded.message);
  return parseTaskPlan(decoded.value, where);
}

/** `task edit|remove|skip ID`: checked, asked of the person from an agent's shell, then written. */
async function runPlanEdit(
  context: CommandContext,
  action: PlanEditAction,
  id: string,
  dependsOn: string[] | undefined,
): Promise<number> {
  const problem = taskOptionProblem(action, id, context.options);
  if (problem !== undefined) throw usageError(problem);
  const title = stringOption(context, "title");
  const reason = stringOption(context, "reason")?.trim();
  const edit: PlanEdit =
    action === "edit"
      ? { kind: "edit", id, title, dependsOn }
      : action === "skip"
        ? { kind: "skip", id, reason: reason! }
        : { kind: "remove", id };
  const op = opContext(context);
  const { editPlan, planEditDecision } = await import("../../ops/plan-edit.js");
  if (op.byModel) {
    // The plan is the person's: from an agent's shell the edit is handed back as a decision, and
    // its --yes counts only after the person replied (SPEC §10, as archive and rollback).
    const decision = await planEditDecision(op, edit);
    const { decideAsModel } = await import("../../ops/person-gate.js");
    if ((await decideAsModel(op, decision, context.options.yes === true)) === "no-terminal") {
      return putDecision(context.out, { ok: false, decision }, decision);
    }
  }
  const result = await editPlan(op, edit);
  context.out.result(result, () => {
    const t = result.task;
    if (!result.changed) return [`${id}: unchanged (the plan already says so).`];
    if (action === "remove") return [`Removed ${id} from the plan; ${count(result.total, "task")} left.`];
    if (action === "skip") {
      const then = result.dependants.length > 0 ? `; it counts as done for ${result.dependants.join(", ")}` : "";
      const tree =
        t.worktree !== null ? `; its worktree ${t.worktree.path} and branch ${t.worktree.branch} stay, not merged` : "";
      return [`Skipped ${id}${then}${tree}.`];
    }
    return [
      `Edited ${id}: ${t.title === null ? "no title" : JSON.stringify(t.title)}, depends on ${t.depends_on.length > 0 ? t.depends_on.join(", ") : "nothing"}.`,
    ];
  });
  return EXIT.ok;
}

/** Refuses an option `task ACTION` does not read (exit 2), never ignoring it. */
function refuseIgnoredOptions(context: CommandContext, action: (typeof TASK_ACTIONS)[number]): void {
  const problem = taskOptionProblem(action, "", context.options);
  if (problem !== undefined) throw usageError(problem);
}

async function runNext(context: CommandContext): Promise<number> {
  const result = await nextTasks(opContext(context));
  context.out.result(result, () =>
    result.tasks.length === 0
      ? ["No task is ready."]
      : result.tasks.map((t) => `${t.id}${t.title ? `  ${t.title}` : ""}`),
  );
  return EXIT.ok;
}

export const command: Command = {
  summary: "add|import|start|complete|fail|retry|next tasks; edit|remove|skip the plan",
  usage:
    "dotagent task add ID [--title T] [--depends-on A,B] | task start ID [--owner PID] | task complete ID [--output PATH] | task fail ID [--error TEXT] | task retry ID [--extra-attempts N] | task import FILE|- | task next [--json] | task edit ID [--title T] [--depends-on A,B] | task remove ID | task skip ID --reason TEXT  (edits and retry: [--yes] from an agent's shell)",
  options: {
    title: { type: "string" },
    "depends-on": { type: "string" },
    output: { type: "string" },
    error: { type: "string" },
    "extra-attempts": { type: "string" },
    owner: { type: "string" },
    reason: { type: "string" },
    yes: { type: "boolean", short: "y" },
  },
  examples: [
    "dotagent task add task-001 --title 'Login form'",
    "dotagent task add task-002 --title 'Session API' --depends-on task-001",
    'dotagent task import memory/reports/plan.json  the whole plan: [{id,title,depends_on}] or {"tasks": [...]}',
    "dotagent task next --json                     ready tasks in dependency order",
    "dotagent task start task-001                  owned by this Claude Code session (CLAUDE_PID)",
    "dotagent task start task-001 --owner 4242     owned by process 4242 (outside Claude Code)",
    "dotagent task complete task-001               needs memory/reports/tasks/task-001.json",
    "dotagent task fail task-001 --error 'tests fail'",
    "dotagent task retry task-001 --extra-attempts 2  from an agent's shell: the person's decision (exit 5, then --yes)",
    "dotagent task edit task-003 --depends-on task-001  pending, failed or dead tasks only; no cycle, no unknown id",
    "dotagent task skip task-002 --reason 'done by hand'  counts as done for the tasks that depend on it",
    "dotagent task remove task-004                 a task nothing depends on, never started in a worktree",
  ],
  async run(context) {
    if (context.args[0] === "list" || context.args[0] === "show")
      throw usageError(
        `the plan is listed by \`dotagent tasks\`${context.args[0] === "show" ? " (one task: `dotagent tasks show ID`)" : ""}; see \`dotagent tasks --help\``,
      );
    const [action, idArg] = subcommand(context, "task", [...TASK_ACTIONS, ...PLAN_EDITS]);
    if (action === "next") {
      refuseIgnoredOptions(context, action);
      return runNext(context);
    }
    if (isPlanEdit(action)) {
      const id = requireId(idArg, action);
      const dependsOn = stringOption(context, "depends-on")
        ?.split(",")
        .map((s) => s.trim())
        .filter((s) => s !== "");
      for (const dep of dependsOn ?? []) requireId(dep, action);
      return runPlanEdit(context, action, id, dependsOn);
    }
    refuseIgnoredOptions(context, action);
    const additions = action === "import" ? await readImport(idArg ?? "-", context.paths.root) : undefined;
    const id = action === "import" ? "" : requireId(idArg, action);
    const outputPath = outputOption(context);
    const extraText = stringOption(context, "extra-attempts");
    const extra = checkExtraAttempts(extraText === undefined ? 0 : Number(extraText), extraText);
    const dependsOn = stringOption(context, "depends-on")
      ?.split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "");
    for (const dep of dependsOn ?? []) requireId(dep, action);
    const ownerText = stringOption(context, "owner");
    const owner = ownerText === undefined ? undefined : checkOwner(Number(ownerText), ownerText);
    const op = opContext(context);
    if (action === "retry" && retryIsPersons(extra, op.byModel === true)) {
      // More attempts are the person's to give: from an agent's shell the retry is handed back as
      // a decision, its --yes counting only after the person replied (SPEC §10, as the plan edits).
      // A requeue (no extra attempts) spends none they did not give and runs at once.
      const { retryDecision } = await import("../../ops/retry-decision.js");
      const decision = await retryDecision(op, id, extra);
      const { decideAsModel } = await import("../../ops/person-gate.js");
      if ((await decideAsModel(op, decision, context.options.yes === true)) === "no-terminal") {
        return putDecision(context.out, { ok: false, decision }, decision);
      }
    }
    const {
      result,
      state,
      task,
      maxAttempts: max,
      imported,
      landed,
    } = await changeTask(op, {
      action,
      id,
      title: stringOption(context, "title"),
      dependsOn,
      output: outputPath,
      error: stringOption(context, "error"),
      extraAttempts: extra,
      owner,
      tasks: additions,
    });
    context.out.result(result, () => {
      if (imported)
        return [
          `Imported ${count(imported.added.length, "task")}${imported.skipped.length > 0 ? ` (${imported.skipped.length} already there)` : ""}; ${state.tasks.length} in all.${imported.plan ? ` Plan recorded${imported.plan.round > 0 ? ` for rework round ${imported.plan.round}` : ""}.` : ""}`,
        ];
      if (action === "add") return [`Added ${id}.`];
      return [taskChangeLine(action, id, task, max, landed)];
    });
    return EXIT.ok;
  },
};
