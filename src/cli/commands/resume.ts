import { existsSync } from "node:fs";
import { EXIT } from "../../core/errors.js";
import { planResume, type ResumeOptions, type ResumePlan } from "../../core/plan-resume.js";
import type { StateSnapshot } from "../../core/snapshot.js";
import { loadSnapshot } from "../../store/session.js";
import { judgeRunningTasks } from "../../store/process-facts.js";
import { StateWriter } from "../../store/state-writer.js";
import { loadCold } from "../load-cold.js";
import { archiveLiveState, finishClear, proveClearing } from "../fresh-start.js";
import { resumeOptions } from "../resume-options.js";
import { planJson, planLines } from "../render-plan.js";
import { locked, maxParallelOption, warn, type Command, type CommandContext } from "../context.js";
import { initWorkflow } from "./init.js";

/** Carries out a plan's writes: journal, moves, execution.json, phase.json, events. */
async function applyPlan(context: CommandContext, snapshot: StateSnapshot, plan: ResumePlan, now: Date, archivedFiles: Parameters<typeof finishClear>[2]): Promise<void> {
  if (plan.writes.finishClear) {
    await finishClear(context.paths, plan.writes.finishClear, archivedFiles);
    return;
  }
  const writer = new StateWriter(context.paths, snapshot, now, warn(context));
  const { writes } = plan;
  if (writes.phase || writes.execution || writes.moves.length > 0) {
    const before = snapshot.phase.kind === "ok" ? snapshot.phase.value : undefined;
    if (before === undefined) return;
    writer.applyChange({ phaseBefore: before, journal: writes.journal, moves: writes.moves, execution: writes.execution, phase: writes.phase, events: writes.events });
  }
  writer.appendEvents([{ type: "resumed", situation: plan.situation, next: plan.next.action, repairs: plan.repairs.length }]);
}

export const command: Command = {
  summary: "decide where to continue after an interruption (the main job)",
  usage: "dotagent resume [--request TEXT] [--dry-run] [--yes] [--stale-after 7d|never] [--max-parallel N] [--json]",
  options: {
    "max-parallel": { type: "string" },
    request: { type: "string" },
    "dry-run": { type: "boolean" },
    yes: { type: "boolean", short: "y" },
    "stale-after": { type: "string" },
  },
  examples: [
    "dotagent resume                         after `claude -r`: repair, then say what comes next",
    "dotagent resume --json --dry-run        the plan for an agent, nothing written",
    "dotagent resume --request 'add login'   also check the request is the one the workflow is for",
    "dotagent resume --max-parallel 1        run one task at a time from now on (default 3; stored)",
    "dotagent resume --dir examples/orphaned-tasks --dry-run",
  ],
  async run(context) {
    const now = context.now();
    let options: ResumeOptions = { ...resumeOptions(context), maxParallel: maxParallelOption(context) };
    // Nothing on disk: nothing to lock, repair or log (resume never creates memory/ by itself).
    if (context.options["dry-run"] || !existsSync(context.paths.stateDir)) {
      const snapshot = await loadSnapshot(context.paths);
      const plan = planResume(snapshot, now, { ...options, owners: judgeRunningTasks(snapshot, now) });
      context.out.result(planJson(plan, false), () => planLines(plan, context.out.color, "status"));
      return plan.decision ? EXIT.decide : EXIT.ok;
    }
    // Decisions may need a person, so the lock is taken per round, not across a prompt.
    for (let round = 0; round < 3; round++) {
      const outcome = await locked(context, "resume", async () => {
        const { snapshot, files } = await proveClearing(context.paths, await loadSnapshot(context.paths));
        const plan = planResume(snapshot, now, { ...options, owners: judgeRunningTasks(snapshot, now) });
        if (plan.decision === null) {
          await applyPlan(context, snapshot, plan, now, files);
          return { plan, done: true as const };
        }
        return { plan, done: false as const };
      });
      const plan = outcome.plan;
      if (outcome.done) {
        context.out.result(planJson(plan, true), () => planLines(plan, context.out.color, "resume"));
        return EXIT.ok;
      }
      const answer = await (await loadCold()).askDecision(plan.decision!, context.options.yes === true);
      if (answer === "no-terminal") {
        context.out.result(planJson(plan, false), () => planLines(plan, context.out.color, "resume"));
        return EXIT.decide;
      }
      if (answer) {
        const reason = plan.decisionKind === "stale" ? "stale state" : plan.decisionKind === "corrupt" ? "corrupt state" : "request changed";
        const name = await locked(context, "resume", () => archiveLiveState(context.paths, reason, now));
        if (name) context.out.note(`Archived the old state as ${name}`);
        if (plan.decisionKind === "request_changed" && options.request !== undefined) {
          await locked(context, "resume", () => initWorkflow(context.paths, options.request, undefined, now, warn(context)));
        }
        options = { ...options, request: undefined };
        continue;
      }
      if (plan.decisionKind === "corrupt") {
        context.out.result(planJson(plan, false), () => planLines(plan, context.out.color, "resume"));
        return EXIT.invalid;
      }
      options = plan.decisionKind === "stale" ? { ...options, staleAfterMs: Number.POSITIVE_INFINITY } : { ...options, request: undefined };
    }
    return EXIT.refused;
  },
};
