// `status`: the resume plan without writing, plus task counts and the side effects not done.
// Takes no lock; start-up path of the CLI and the hook, so nothing heavy is imported here.
import { planResume, type ResumePlan } from "../core/plan-resume.js";
import { countByStatus } from "../core/tasks.js";
import { loadSnapshot } from "../store/session.js";
import { listOpenOps, type OpSummary } from "../store/op-records.js";
import { judgeRunningTasks } from "../store/process-facts.js";
import type { OpContext } from "./op-context.js";
import { planJson, type PlanJson } from "./plan-json.js";
import { planWithDir } from "./decision-dir.js";

/** `status --json`: the resume plan (as `resume --dry-run`), task counts by status, open ops. */
export type StatusResult = PlanJson & { tasks: Record<string, number>; ops: OpSummary[] };

export interface StatusOutcome {
  readonly result: StatusResult;
  readonly plan: ResumePlan;
}

export async function readStatus(context: Pick<OpContext, "paths" | "now" | "dirArg">, staleAfterMs: number | undefined): Promise<StatusOutcome> {
  const snapshot = await loadSnapshot(context.paths);
  const now = context.now();
  const plan = planWithDir(planResume(snapshot, now, { staleAfterMs, owners: judgeRunningTasks(snapshot, now) }), context.dirArg);
  const tasks = countByStatus(snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined);
  const ops = listOpenOps(context.paths, now);
  return { result: { ...planJson(plan, false), tasks, ops }, plan };
}
