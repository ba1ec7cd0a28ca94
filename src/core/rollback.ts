// Rollback, pure: from the live state to the start of an earlier phase (or to a checkpoint), which
// state files to write and which reports leave the live tree (into an archive, never deleted).
// The phase table decides: a report belongs to the phase that produces it, and it stays only if
// the target state accounts for it (its phase completed, or approved and current, its task
// complete, its rework round reached, its agent recorded at work and ended by then).
import { phaseIndexIn, REPORT, REPORTS_DIR, specOf, type Phase } from "./phases.js";
import type { Flow } from "./flow.js";
import { flowOf } from "./flow-of.js";
import { PLAN_FILE } from "./plans.js";
import type { ErrorCode } from "./error-codes.js";
import { isOwned } from "./report-owners.js";
import type { PhaseState } from "../schema/phase.js";
import type { ExecutionState } from "../schema/execution.js";

export type RollbackTarget =
  | { kind: "phase"; phase: Phase }
  | { kind: "checkpoint"; rev: number; phase: PhaseState; execution: ExecutionState | null };

export interface RollbackPlan {
  /** phase.json to write (revision and time set by the writer). */
  phase: PhaseState;
  /** execution.json to write; null: it goes (a copy is in the archive). */
  execution: ExecutionState | null;
  /** Project-relative report files that move into the archive. */
  moves: string[];
  from: { phase: Phase; phase_status: string };
  to: { phase: Phase; phase_status: string };
  /** "the start of ARCHITECTURE" or "checkpoint 12 (ARCHITECTURE approved)". */
  describe: string;
}

export type RollbackResult = { ok: true; plan: RollbackPlan } | { ok: false; code: ErrorCode; message: string };

interface Owner {
  phase: Phase;
  taskId?: string;
  reworkRound?: number;
  /** A task plan file (plan.json = round 0, plan.rework-N.json = round N). */
  planRound?: number;
}

/**
 * The step (and task or rework round) a report file belongs to in `flow`; null: not the
 * workflow's. develop: demand.json REQUIREMENTS, designs and the roundtable ARCHITECTURE, task
 * reports and plans IMPLEMENTATION, verification.json and its rework copies VERIFICATION, the
 * reflection REFLECTION; a definition's steps the same way by kind (SPEC §20).
 */
export function reportOwner(path: string, taskOutputs: ReadonlyMap<string, string>, flow: Flow): Owner | null {
  const tasksStep = flow.steps.find((s) => s.kind === "tasks")?.id;
  const chooseStep = flow.steps.find((s) => s.kind === "choose")?.id;
  const own = flow.steps.find((s) => s.kind !== "tasks" && s.kind !== "choose" && s.reports.includes(path));
  if (own !== undefined) return { phase: own.id };
  if (
    chooseStep !== undefined &&
    (path === REPORT.roundtable || path === REPORT.finalDesign || path.startsWith(`${REPORT.designsDir}/`))
  )
    return { phase: chooseStep };
  const taskId = taskOutputs.get(path);
  if (tasksStep !== undefined && taskId !== undefined) return { phase: tasksStep, taskId };
  if (tasksStep !== undefined && path.startsWith(`${REPORT.tasksDir}/`)) return { phase: tasksStep };
  // A report moved aside by a rework round: the check's (its round), or another step's redone then.
  const copy = /^(.*)\.rework-(\d+)\.(json|md)$/.exec(path);
  if (copy && !/^memory\/reports\/plan$/.test(copy[1]!)) {
    const original = `${copy[1]}.${copy[3]}`;
    const step = flow.steps.find((s) => s.kind !== "tasks" && s.kind !== "choose" && s.reports.includes(original));
    if (step !== undefined) return { phase: step.id, reworkRound: Number(copy[2]) };
  }
  if (tasksStep !== undefined && path === PLAN_FILE) return { phase: tasksStep, planRound: 0 };
  const plan = /^memory\/reports\/plan\.rework-(\d+)\.json$/.exec(path);
  if (tasksStep !== undefined && plan) return { phase: tasksStep, planRound: Number(plan[1]) };
  return null;
}

/** Whether the target state accounts for a report of `owner`. */
function keeps(owner: Owner, target: PhaseState, execution: ExecutionState | null, path?: string): boolean {
  if (owner.reworkRound !== undefined) return owner.reworkRound <= (target.rework?.round ?? 0);
  // A plan of a rework round the target has not reached goes, whatever else the target holds.
  if (owner.planRound !== undefined && owner.planRound > (target.rework?.round ?? 0)) return false;
  if (target.completed_phases.some((c) => c.phase === owner.phase)) return true;
  const at = phaseIndexIn(target, target.current_phase);
  const of = phaseIndexIn(target, owner.phase);
  if (of > at) return false;
  if (of < at) return true; // an earlier phase not recorded complete: not rollback's to judge
  if (owner.planRound !== undefined) return planKept(owner.planRound, execution);
  if (flowOf(target).steps.find((s) => s.id === owner.phase)?.kind === "tasks")
    return (
      owner.taskId !== undefined &&
      execution?.tasks.some((t) => t.id === owner.taskId && t.status === "complete") === true
    );
  // A phase agent that had ended by then (a checkpoint after `agent_ended`): its report is part of that state.
  if (
    path !== undefined &&
    target.agent_reports !== undefined &&
    isOwned(target.agent_reports, path, flowOf(target)) &&
    !(target.agents ?? []).some((a) => a.output === path)
  )
    return true;
  return target.user_checkpoints.some((c) => c.phase === owner.phase);
}

/** In IMPLEMENTATION, a round's plan file stays when the target's execution.json records that plan (legacy: holds tasks). */
function planKept(round: number, execution: ExecutionState | null): boolean {
  if (execution === null) return false;
  if (execution.plans === undefined) return execution.tasks.length > 0;
  return execution.plans.some((p) => p.round === round);
}

function taskOutputsOf(...executions: Array<ExecutionState | null | undefined>): Map<string, string> {
  const map = new Map<string, string>();
  for (const execution of executions) {
    for (const task of execution?.tasks ?? []) map.set(task.output ?? `${REPORT.tasksDir}/${task.id}.json`, task.id);
  }
  return map;
}

/** The state at the start of `phase`: later phases undone, their approvals dropped. */
function startOf(
  before: PhaseState,
  execution: ExecutionState | undefined,
  phase: Phase,
): { phase: PhaseState; execution: ExecutionState | null } {
  const index = (p: Phase) => phaseIndexIn(before, p);
  const earlier = <T extends { phase: Phase }>(items: readonly T[]) =>
    items.filter((c) => index(c.phase) < index(phase));
  const tasksStep = flowOf(before).steps.find((s) => s.kind === "tasks")?.id;
  const keepsTasks = tasksStep !== undefined && index(phase) > index(tasksStep);
  return {
    phase: {
      ...before,
      current_phase: phase,
      phase_status: "pending",
      completed_phases: earlier(before.completed_phases),
      user_checkpoints: earlier(before.user_checkpoints as Array<{ phase: Phase; approved_at: string }>),
      error: null,
      pending_transition: null,
      interruption_safe: true,
      rework: keepsTasks ? (before.rework ?? null) : null,
      // The phases undone take their agents' records with them.
      ...(before.agent_reports === undefined
        ? {}
        : {
            agent_reports: before.agent_reports.filter(
              (p) => index(reportOwner(p, new Map(), flowOf(before))?.phase ?? phase) < index(phase),
            ),
          }),
    },
    execution: keepsTasks ? (execution ?? null) : null,
  };
}

export function planRollback(
  before: PhaseState,
  execution: ExecutionState | undefined,
  reportFiles: readonly string[],
  target: RollbackTarget,
): RollbackResult {
  let next: { phase: PhaseState; execution: ExecutionState | null };
  let describe: string;
  if (target.kind === "phase") {
    if (phaseIndexIn(before, target.phase) > phaseIndexIn(before, before.current_phase)) {
      return {
        ok: false,
        code: "rollback_forward",
        message: `rollback only goes back: ${target.phase} comes after the current phase ${before.current_phase}`,
      };
    }
    next = startOf(before, execution, target.phase);
    describe = `the start of ${target.phase}`;
  } else {
    if (target.phase.workflow_id !== before.workflow_id) {
      return {
        ok: false,
        code: "rollback_other_workflow",
        message: `checkpoint ${target.rev} belongs to workflow ${target.phase.workflow_id}, not the live ${before.workflow_id}`,
      };
    }
    next = {
      phase: { ...target.phase, pending_transition: null, interruption_safe: true },
      execution: target.execution,
    };
    describe = `checkpoint ${target.rev} (${next.phase.current_phase} ${next.phase.phase_status})`;
  }
  const missing = missingOutputs(next.phase, next.execution, reportFiles);
  if (missing.length > 0) {
    return {
      ok: false,
      code: "rollback_outputs_missing",
      message: `${describe} needs ${missing.slice(0, 3).join(", ")}${missing.length > 3 ? ` (and ${missing.length - 3} more)` : ""}, not in the live tree (an earlier rollback archived it?); restore that archive first (\`dotagent archive list\`), or roll back to a phase`,
    };
  }
  const owners = taskOutputsOf(execution, next.execution);
  const moves = reportFiles.filter((path) => {
    if (!path.startsWith(`${REPORTS_DIR}/`)) return false;
    const owner = reportOwner(path, owners, flowOf(next.phase));
    return owner !== null && !keeps(owner, next.phase, next.execution, path);
  });
  // What leaves the live tree leaves the record of whose it was (a copy written later is nobody's).
  if (next.phase.agent_reports !== undefined && moves.length > 0)
    next = {
      ...next,
      phase: { ...next.phase, agent_reports: next.phase.agent_reports.filter((p) => !moves.includes(p)) },
    };
  return {
    ok: true,
    plan: {
      phase: next.phase,
      execution: next.execution,
      moves: [...moves].sort(),
      from: { phase: before.current_phase, phase_status: before.phase_status },
      to: { phase: next.phase.current_phase, phase_status: next.phase.phase_status },
      describe,
    },
  };
}

/** Outputs the target state says exist (its completed phases', its complete tasks') that the live tree lacks. */
function missingOutputs(target: PhaseState, execution: ExecutionState | null, files: readonly string[]): string[] {
  const have = new Set(files);
  const missing: string[] = [];
  for (const { phase } of target.completed_phases) {
    const outputs = specOf(target, phase).outputs.filter((o) => o.startsWith(`${REPORTS_DIR}/`));
    if (outputs.length > 0 && !outputs.some((o) => have.has(o))) missing.push(outputs[0] as string);
  }
  for (const task of execution?.tasks ?? []) {
    const output = task.output ?? `${REPORT.tasksDir}/${task.id}.json`;
    if (task.status === "complete" && !have.has(output)) missing.push(output);
  }
  return missing;
}

/** The largest revision: 8 digits name a checkpoint's folder, 9 are accepted. */
export const MAX_REVISION = 999_999_999;

/**
 * A checkpoint revision as typed (`history show REV`, `rollback --to REV`, the library): digits
 * only, 1 to MAX_REVISION, leading zeros allowed (the folder's name); null for anything else
 * (`1e3`, `0x10`, ` 12`, `12.0`, `-1`).
 */
export function parseRevision(text: string): number | null {
  if (!/^\d{1,18}$/.test(text)) return null;
  const rev = Number(text);
  return rev >= 1 && rev <= MAX_REVISION ? rev : null;
}

/** The one message for a revision that does not parse, whichever command was given it. */
export function revisionProblem(shown: string): string {
  return `${shown} is not a checkpoint revision: a whole number from 1 to ${MAX_REVISION}, as \`dotagent history\` lists them`;
}

/** `--to` as a step of the workflow's flow (any case; develop: a phase) or a checkpoint revision; null when it is neither. */
export function parseRollbackTarget(
  text: string,
  phases: readonly Phase[],
): { kind: "phase"; phase: Phase } | { kind: "rev"; rev: number } | null {
  const step = phases.find((p) => p.toUpperCase() === text.toUpperCase());
  if (step !== undefined) return { kind: "phase", phase: step };
  const rev = parseRevision(text);
  return rev === null ? null : { kind: "rev", rev };
}
