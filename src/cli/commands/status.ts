import { planResume } from "../../core/plan-resume.js";
import { countByStatus } from "../../core/tasks.js";
import { loadSnapshot } from "../../store/session.js";
import { listOpenOps } from "../../store/op-records.js";
import { judgeRunningTasks } from "../../store/process-facts.js";
import { planJson, planLines } from "../render-plan.js";
import { resumeOptions } from "../resume-options.js";
import type { Command } from "../context.js";

export const command: Command = {
  summary: "show where the workflow is; takes no lock and never writes",
  usage: "dotagent status [--stale-after 7d|never] [--json]",
  options: { "stale-after": { type: "string" } },
  examples: ["dotagent status", "dotagent status --json          the resume plan (as resume --dry-run) plus task counts", "dotagent status --dir examples/orphaned-tasks"],
  async run(context) {
    const snapshot = await loadSnapshot(context.paths);
    const now = context.now();
    const plan = planResume(snapshot, now, { staleAfterMs: resumeOptions(context).staleAfterMs, owners: judgeRunningTasks(snapshot, now) });
    const tasks = countByStatus(snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined);
    const ops = listOpenOps(context.paths, now);
    context.out.result({ ...planJson(plan, false), tasks, ops }, () => [...planLines(plan, context.out.color, "status", tasks), ...opLines(ops)]);
    return 0;
  },
};

/** Side effects (`dotagent once`) that are not done: a person must settle the unknown ones. */
function opLines(ops: ReturnType<typeof listOpenOps>): string[] {
  return ops.map((op) => `Op ${op.op_id}: ${op.status === "unknown" ? "cut off mid-run, did it happen? run `dotagent once " + op.op_id + "` to decide" : op.status}`);
}
