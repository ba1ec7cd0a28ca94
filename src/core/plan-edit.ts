// A person's changes to the task plan once it is recorded (SPEC §4 "Plan edits"): a task's title
// or dependencies edited, a task removed, a task skipped. Pure: (state, edit, now) → the new state
// and its event, or a refusal. The rules keep the graph valid (known dependencies, no cycle, no task
// left depending on a removed one) and the history honest: a task that ran or is running is never
// rewritten, and every change is an event in the log.
import type { ExecutionState, Task } from "../schema/execution.js";
import { findCycle, findTask, type TaskEvent } from "./tasks.js";
import type { ErrorCode } from "./error-codes.js";

export type PlanEdit =
  | {
      readonly kind: "edit";
      readonly id: string;
      readonly title?: string | undefined;
      readonly dependsOn?: readonly string[] | undefined;
    }
  | { readonly kind: "remove"; readonly id: string }
  | { readonly kind: "skip"; readonly id: string; readonly reason: string };

export type PlanEditOutcome =
  | {
      ok: true;
      state: ExecutionState;
      events: TaskEvent[];
      /** false: the plan already says so (nothing written, no event). */
      changed: boolean;
      /** The task before the edit. */
      before: Task;
      /** The task after it; null once removed. */
      after: Task | null;
      /** The tasks that depend on it. */
      dependants: string[];
    }
  | { ok: false; code: ErrorCode; message: string };

const refuse = (code: ErrorCode, message: string): PlanEditOutcome => ({ ok: false, code, message });

/** The tasks whose depends_on names `id`, in file order. */
export function dependantsOf(tasks: readonly Task[], id: string): string[] {
  return tasks.filter((t) => (t.depends_on ?? []).includes(id)).map((t) => t.id);
}

/** Why a task cannot be changed any more, or undefined. A running task's executor works from the plan as it is; a finished one is history. */
function frozen(task: Task, verb: string): string | undefined {
  if (task.status === "running")
    return `task ${task.id} is running: its executor works from the plan as it is; ${verb} it after this attempt ends`;
  if (task.status === "complete")
    return `task ${task.id} is complete: its work is done${task.worktree?.merge?.state === "merged" ? ` and merged into ${task.worktree.merge.into}` : ""}, and the plan keeps it as it ran`;
  return undefined;
}

const listOf = (ids: readonly string[]) => (ids.length === 0 ? "nothing" : ids.join(", "));
const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

export function applyPlanEdit(state: ExecutionState, edit: PlanEdit, now: Date): PlanEditOutcome {
  const index = state.tasks.findIndex((t) => t.id === edit.id);
  const task = state.tasks[index];
  if (task === undefined)
    return refuse("unknown_task", `task ${edit.id} does not exist; \`dotagent tasks\` lists the plan`);
  const dependants = dependantsOf(state.tasks, task.id);
  const at = now.toISOString();
  const done = (tasks: Task[], after: Task | null, event: TaskEvent): PlanEditOutcome => ({
    ok: true,
    state: { ...state, tasks, updated_at: at },
    events: [event],
    changed: true,
    before: task,
    after,
    dependants,
  });
  const unchanged: PlanEditOutcome = {
    ok: true,
    state,
    events: [],
    changed: false,
    before: task,
    after: task,
    dependants,
  };
  switch (edit.kind) {
    case "edit": {
      if (task.status === "skipped")
        return refuse(
          "task_not_editable",
          `task ${task.id} was skipped (${task.skipped?.reason ?? "no reason given"}); the plan keeps it as the record of that`,
        );
      const why = frozen(task, "change");
      if (why !== undefined) return refuse("task_not_editable", why);
      const title = edit.title === undefined ? task.title : edit.title === "" ? undefined : edit.title;
      const deps = edit.dependsOn === undefined ? [...(task.depends_on ?? [])] : [...new Set(edit.dependsOn)];
      for (const dep of deps) {
        if (findTask(state, dep) === undefined)
          return refuse(
            "unknown_dependency",
            `task ${task.id} cannot depend on ${dep}, which does not exist; \`dotagent tasks\` lists the plan`,
          );
      }
      const titleChanged = (task.title ?? undefined) !== title;
      const depsChanged = !sameList(task.depends_on ?? [], deps);
      if (!titleChanged && !depsChanged) return unchanged;
      const { title: _old, ...rest } = task;
      const after: Task = { ...rest, ...(title === undefined ? {} : { title }), depends_on: deps };
      const tasks = state.tasks.slice();
      tasks[index] = after;
      const cycle = depsChanged ? findCycle(tasks) : undefined;
      if (cycle !== undefined)
        return refuse(
          "dependency_cycle",
          `task ${task.id} cannot depend on ${listOf(deps)}: the dependencies would form a cycle: ${cycle.join(" → ")}`,
        );
      return done(tasks, after, {
        type: "task_edited",
        task_id: task.id,
        ...(titleChanged ? { title: { from: task.title ?? null, to: title ?? null } } : {}),
        ...(depsChanged ? { depends_on: { from: [...(task.depends_on ?? [])], to: deps } } : {}),
      });
    }
    case "remove": {
      if (task.status === "skipped")
        return refuse(
          "task_not_editable",
          `task ${task.id} was skipped (${task.skipped?.reason ?? "no reason given"}); the plan keeps it as the record of that`,
        );
      const why = frozen(task, "remove");
      if (why !== undefined) return refuse("task_not_editable", why);
      if (dependants.length > 0) {
        const first = dependants[0]!;
        const rest = (state.tasks.find((t) => t.id === first)?.depends_on ?? []).filter((d) => d !== task.id);
        return refuse(
          "task_has_dependants",
          `task ${task.id} cannot be removed: ${listOf(dependants)} ${dependants.length === 1 ? "depends" : "depend"} on it; first change that (\`dotagent task edit ${first} --depends-on ${rest.length > 0 ? rest.join(",") : "''"}\`), or skip ${task.id} instead (\`dotagent task skip ${task.id} --reason …\`: it then counts as done for them)`,
        );
      }
      if (task.worktree != null) {
        return refuse(
          "task_has_worktree",
          `task ${task.id} has a worktree (${task.worktree.path}, branch ${task.worktree.branch}) from its earlier attempts; skip it instead (\`dotagent task skip ${task.id} --reason …\`), which keeps that work where it is`,
        );
      }
      if (state.tasks.length === 1)
        return refuse(
          "empty_plan",
          `task ${task.id} is the plan's only task; skip it instead (\`dotagent task skip ${task.id} --reason …\`)`,
        );
      const tasks = state.tasks.filter((_, i) => i !== index);
      return done(tasks, null, {
        type: "task_removed",
        task_id: task.id,
        status: task.status,
        attempts: task.attempts,
        ...(task.title === undefined ? {} : { title: task.title }),
      });
    }
    case "skip": {
      if (task.status === "skipped") return unchanged;
      const why = frozen(task, "skip");
      if (why !== undefined) return refuse("task_not_editable", why);
      const after: Task = { ...task, status: "skipped", skipped: { reason: edit.reason, at } };
      const tasks = state.tasks.slice();
      tasks[index] = after;
      return done(tasks, after, {
        type: "task_skipped",
        task_id: task.id,
        reason: edit.reason,
        from: task.status,
        ...(dependants.length > 0 ? { dependants } : {}),
      });
    }
  }
}

/** The question a plan edit puts to the person when the model asks for it (SPEC §10 "A decision is the person's"). */
export function planEditQuestion(state: ExecutionState, edit: PlanEdit): string {
  const task = state.tasks.find((t) => t.id === edit.id);
  // "task b", "task b (\"form\", pending)": its title and what else the question needs.
  const named = (...facts: string[]) => {
    const said = [...(task?.title ? [JSON.stringify(task.title)] : []), ...facts];
    return `task ${edit.id}${said.length > 0 ? ` (${said.join(", ")})` : ""}`;
  };
  switch (edit.kind) {
    case "edit": {
      const changes = [
        ...(edit.title === undefined ? [] : [edit.title === "" ? "no title" : `title ${JSON.stringify(edit.title)}`]),
        ...(edit.dependsOn === undefined
          ? []
          : [`depends on ${listOf([...new Set(edit.dependsOn)])} (was ${listOf(task?.depends_on ?? [])})`]),
      ];
      return `Change ${named()} of the plan: ${changes.join(", ")}?`;
    }
    case "remove":
      return `Remove ${named(task?.status ?? "?", `${task?.attempts ?? 0} failed attempts`)} from the plan?`;
    case "skip": {
      const dependants = dependantsOf(state.tasks, edit.id);
      const then =
        dependants.length === 0 ? "" : ` It then counts as done for ${listOf(dependants)}, which may start without it.`;
      return `Skip ${named(task?.status ?? "?")} because ${JSON.stringify(edit.reason)}?${then}`;
    }
  }
}
