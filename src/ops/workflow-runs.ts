// Claude Code's Workflow runs recorded here, as views (SPEC §10 `tasks --workflow-runs`, §11):
// read without the lock (each file is replaced atomically), never written.
import { newestFirst, workflowRunView, type WorkflowRunView } from "../core/workflow-run-view.js";
import { readWorkflowRuns } from "../store/workflow-runs.js";
import type { OpContext } from "./op-context.js";

export function listWorkflowRuns(context: Pick<OpContext, "paths">): WorkflowRunView[] {
  return newestFirst(readWorkflowRuns(context.paths).map(workflowRunView));
}
