import { planResume } from "../../core/plan-resume.js";
import { countByStatus } from "../../core/tasks.js";
import { loadSnapshot } from "../../store/session.js";
import { judgeRunningTasks } from "../../store/process-facts.js";
import { planJson, planLines } from "../render-plan.js";
import { resumeOptions } from "../duration.js";
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
    context.out.result({ ...planJson(plan, false), tasks }, () => planLines(plan, context.out.color, "status", tasks));
    return 0;
  },
};
