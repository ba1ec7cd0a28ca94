// `resume`: validate, repair what is safe to repair, advance, name the next action. A question for
// a person (stale state, a changed request, corrupt state) goes to the injected `decide`; without
// an answer the plan comes back with `decision` set and nothing is written. The writer, fresh
// starts and init load only when something is written: `resume --dry-run` is a read, as cheap to
// start as `status` (write-file-atomic alone loads node:crypto and worker_threads, ~8 ms).
import { existsSync } from "node:fs";
import { planResume, type Decision, type ResumeOptions, type ResumePlan } from "../core/plan-resume.js";
import type { StateSnapshot } from "../core/snapshot.js";
import { loadSnapshot } from "../store/session.js";
import { judgeRunningTasks } from "../store/process-facts.js";
import type { finishClear } from "./fresh-start.js";
import { locked, type OpContext } from "./op-context.js";
import { planJson, type PlanJson } from "./plan-json.js";

/** The answer to a decision: yes, no, or "no-terminal" when nobody can be asked. */
export type DecisionAnswer = boolean | "no-terminal";
export type Decide = (decision: Decision) => DecisionAnswer | Promise<DecisionAnswer>;

export interface ResumeInput extends ResumeOptions {
  readonly dryRun?: boolean | undefined;
  /** Asked when the plan needs a person; absent: the plan comes back unanswered. */
  readonly decide?: Decide | undefined;
}

/** `resume --json`: the plan of SPEC §5 and whether it was carried out. */
export type ResumeResult = PlanJson;

export interface ResumeOutcome {
  readonly result: ResumeResult;
  readonly plan: ResumePlan;
  /** "status" when nothing was locked (dry run, no state folder): how the CLI words the plan. */
  readonly mode: "status" | "resume";
  /** The CLI's exit code: 0, 5 (a decision nobody answered) or 3 (corrupt state the person would not replace). */
  readonly exitCode: 0 | 3 | 5;
}

/** Carries out a plan's writes: journal, moves, execution.json, phase.json, events. */
async function applyPlan(context: OpContext, snapshot: StateSnapshot, plan: ResumePlan, now: Date, archivedFiles: Parameters<typeof finishClear>[2]): Promise<void> {
  if (plan.writes.finishClear) {
    const { finishClear } = await import("./fresh-start.js");
    await finishClear(context.paths, plan.writes.finishClear, archivedFiles);
    return;
  }
  const { StateWriter } = await import("../store/state-writer.js");
  const writer = new StateWriter(context.paths, snapshot, now, context.warn);
  const { writes } = plan;
  if (writes.phase || writes.execution || writes.moves.length > 0) {
    const before = snapshot.phase.kind === "ok" ? snapshot.phase.value : undefined;
    if (before === undefined) return;
    writer.applyChange({ phaseBefore: before, journal: writes.journal, moves: writes.moves, execution: writes.execution, phase: writes.phase, events: writes.events });
  }
  writer.appendEvents([{ type: "resumed", situation: plan.situation, next: plan.next.action, repairs: plan.repairs.length }]);
}

/** The outcome, or undefined when three rounds of answers did not settle the plan (the CLI exits 1). */
export async function resumeWorkflow(context: OpContext, input: ResumeInput): Promise<ResumeOutcome | undefined> {
  const now = context.now();
  let options: ResumeOptions = { request: input.request, staleAfterMs: input.staleAfterMs, maxParallel: input.maxParallel };
  // Nothing on disk: nothing to lock, repair or log (resume never creates memory/ by itself).
  if (input.dryRun || !existsSync(context.paths.stateDir)) {
    const snapshot = await loadSnapshot(context.paths);
    const plan = planResume(snapshot, now, { ...options, owners: judgeRunningTasks(snapshot, now) });
    return { result: planJson(plan, false), plan, mode: "status", exitCode: plan.decision ? 5 : 0 };
  }
  // Decisions may need a person, so the lock is taken per round, not across a prompt.
  for (let round = 0; round < 3; round++) {
    const { proveClearing } = await import("./fresh-start.js");
    const plan = await locked(context, "resume", async () => {
      const { snapshot, files } = await proveClearing(context.paths, await loadSnapshot(context.paths));
      const planned = planResume(snapshot, now, { ...options, owners: judgeRunningTasks(snapshot, now) });
      if (planned.decision === null) await applyPlan(context, snapshot, planned, now, files);
      return planned;
    });
    if (plan.decision === null) return { result: planJson(plan, true), plan, mode: "resume", exitCode: 0 };
    const answer = input.decide ? await input.decide(plan.decision) : "no-terminal";
    if (answer === "no-terminal") return { result: planJson(plan, false), plan, mode: "resume", exitCode: 5 };
    if (answer) {
      const reason = plan.decisionKind === "stale" ? "stale state" : plan.decisionKind === "corrupt" ? "corrupt state" : "request changed";
      const { archiveLiveState } = await import("./fresh-start.js");
      const name = await locked(context, "resume", () => archiveLiveState(context.paths, reason, now));
      if (name) context.note(`Archived the old state as ${name}`);
      if (plan.decisionKind === "request_changed" && options.request !== undefined) {
        const { initWorkflow } = await import("./init.js");
        await locked(context, "resume", () => initWorkflow(context.paths, options.request, undefined, now, context.warn));
      }
      options = { ...options, request: undefined };
      continue;
    }
    if (plan.decisionKind === "corrupt") return { result: planJson(plan, false), plan, mode: "resume", exitCode: 3 };
    options = plan.decisionKind === "stale" ? { ...options, staleAfterMs: Number.POSITIVE_INFINITY } : { ...options, request: undefined };
  }
  return undefined;
}
