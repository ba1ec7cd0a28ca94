// `task edit|remove|skip ID`: a person changes the recorded plan (the rules: src/core/plan-edit.ts,
// SPEC §4 "Plan edits"). Under the state lock, one execution.json write and one event, then the
// next step as every recording command gives it. From an agent's shell the edit is the person's
// decision (SPEC §10): `planEditDecision` is the question the CLI hands back, checked against the
// plan first so nobody is asked about an edit that would be refused.
import type { PlanEdit } from "../core/plan-edit.js";
import { planTaskEdit, refusalError } from "../core/task-plan.js";
import { shellQuote, type Decision } from "../core/plan-resume.js";
import { taskRow, type TaskRow } from "../core/task-list.js";
import { judgeRunningTasks } from "../store/process-facts.js";
import { loadSnapshot } from "../store/session.js";
import { StateWriter } from "../store/state-writer.js";
import { decisionWithDir } from "./decision-dir.js";
import { locked, type OpContext } from "./op-context.js";
import { nextFields, settle, type NextFields } from "./settle.js";
import { requireWorkflow } from "./state-guard.js";

/** `task edit|remove|skip --json`. `task`: the task after the edit (removed: as it was). */
export interface PlanEditResult extends NextFields {
  ok: true;
  action: PlanEdit["kind"];
  /** false: the plan already said so; nothing was written. */
  changed: boolean;
  task: TaskRow;
  /** The tasks that depend on it (skip: they may now start without it). */
  dependants: string[];
  /** Tasks in the plan after the edit. */
  total: number;
}

/** The command line that carries the edit out, with `--yes`: the decision's yes. */
export function planEditCommand(edit: PlanEdit): string {
  const options =
    edit.kind === "skip"
      ? ` --reason ${shellQuote(edit.reason)}`
      : edit.kind === "edit"
        ? `${edit.title === undefined ? "" : ` --title ${shellQuote(edit.title)}`}${edit.dependsOn === undefined ? "" : ` --depends-on ${shellQuote(edit.dependsOn.join(","))}`}`
        : "";
  return `dotagent task ${edit.kind} ${edit.id}${options} --yes`;
}

/**
 * The question a plan edit from an agent's shell puts to the person. The edit is checked against
 * the plan first (no lock: it is checked again under the lock when carried out): a refusal is
 * thrown now, never asked about.
 */
export async function planEditDecision(context: OpContext, edit: PlanEdit): Promise<Decision> {
  const snapshot = await loadSnapshot(context.paths);
  const now = context.now();
  requireWorkflow(snapshot, now);
  const planned = planTaskEdit(snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined, edit, now);
  if (planned.kind === "refuse") throw refusalError(planned);
  return decisionWithDir(
    { question: planned.question, default: false, yes: planEditCommand(edit), no: "dotagent resume" },
    context.dirArg,
  );
}

export async function editPlan(context: OpContext, edit: PlanEdit): Promise<PlanEditResult> {
  const now = context.now();
  return locked(context, `task ${edit.kind}`, async () => {
    const snapshot = await loadSnapshot(context.paths);
    requireWorkflow(snapshot, now);
    const planned = planTaskEdit(snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined, edit, now);
    if (planned.kind === "refuse") throw refusalError(planned);
    const { outcome } = planned;
    if (outcome.changed) {
      const writer = new StateWriter(context.paths, snapshot, now, context.warn);
      writer.writeExecution(outcome.state);
      writer.appendEvents(outcome.events);
    }
    // A skipped dependency lets its dependants start; the last open task skipped ends the round.
    const settled = await settle(context, now);
    const after = settled.execution ?? outcome.state;
    const task = after.tasks.find((t) => t.id === edit.id);
    const row =
      task !== undefined
        ? taskRow(task, after, judgeRunningTasks(snapshot, now))
        : taskRow(outcome.before, planned.plan, undefined);
    return {
      ok: true,
      action: edit.kind,
      changed: outcome.changed,
      task: row,
      dependants: outcome.dependants,
      total: after.tasks.length,
      ...nextFields(settled.plan),
    };
  });
}
