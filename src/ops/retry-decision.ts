// `task retry ID --extra-attempts N` from an agent's shell: more attempts are the person's to give
// (SPEC §10 "A decision is the person's"). Raising `max_attempts` is what lets a task that keeps
// failing run again and again, so the model may not do it alone: `retryDecision` is the question
// the CLI hands back, checked against the plan first so nobody is asked about a retry that would
// be refused. A requeue (no extra attempts) spends none the person did not give and stays free.
import { shellQuote, type Decision } from "../core/plan-resume.js";
import { planRetryQuestion, refusalError } from "../core/task-plan.js";
import { loadSnapshot } from "../store/session.js";
import { decisionWithDir } from "./decision-dir.js";
import type { OpContext } from "./op-context.js";
import { requireWorkflow } from "./state-guard.js";

/**
 * The question for a retry that gives `extra` (> 0) more attempts. Checked without the lock
 * (`changeTask` checks again under it when the yes is run): a refusal is thrown now, never asked.
 */
export async function retryDecision(context: OpContext, id: string, extra: number): Promise<Decision> {
  const snapshot = await loadSnapshot(context.paths);
  const now = context.now();
  const phase = requireWorkflow(snapshot, now);
  const planned = planRetryQuestion(
    phase,
    snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined,
    id,
    extra,
    now,
  );
  if (planned.kind === "refuse") throw refusalError(planned);
  return decisionWithDir(
    {
      question: planned.question,
      default: false,
      yes: `dotagent task retry ${shellQuote(id)} --extra-attempts ${extra} --yes`,
      no: "dotagent resume",
    },
    context.dirArg,
  );
}
