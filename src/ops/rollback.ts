// `rollback --to PHASE|REV`: back to the start of an earlier phase, or to a checkpoint. Always a
// decision; without an answer nothing changes. What goes is archived, never deleted.
import { DotagentError, EXIT } from "../core/errors.js";
import { shellQuote, type Decision } from "../core/plan-resume.js";
import { decisionWithDir } from "./decision-dir.js";
import type { RollbackPlan } from "../core/rollback.js";
import { loadSnapshot } from "../store/session.js";
import { prepareRollback, rollBack } from "../store/roll-back.js";
import { loadArchive } from "./archive-module.js";
import { locked, type OpContext } from "./op-context.js";
import type { Decide } from "./resume.js";
import { count } from "../core/words.js";

/** `rollback --json`: done (decision null), or the question (rolled_back false, nothing changed). */
export type RollbackResult =
  | { rolled_back: false; from: RollbackPlan["from"]; to: RollbackPlan["to"]; moves: string[]; archive: null; decision: Decision }
  | { rolled_back: true; workflow_id: string; from: RollbackPlan["from"]; to: RollbackPlan["to"]; revision: number | null; moves: string[]; archive: string | null; decision: null };

export interface RollbackOutcome {
  readonly result: RollbackResult;
  /** "the start of ARCHITECTURE" or "checkpoint 12 (…)", for the plain-text line. */
  readonly describe: string;
}

export async function rollBackWorkflow(context: OpContext, to: string, decide: Decide | undefined): Promise<RollbackOutcome> {
  const now = context.now();
  const preview = prepareRollback(context.paths, await loadSnapshot(context.paths), to, now);
  const { plan } = preview;
  const decision: Decision = decisionWithDir({
    question: `Roll workflow ${preview.journal.workflow_id} back from ${plan.from.phase_status === "corrupt" ? "its corrupt state" : `${plan.from.phase} (${plan.from.phase_status})`} to ${plan.describe}? ${count(plan.moves.length, "report file")} move into an archive (nothing is deleted).`,
    default: false,
    yes: `dotagent rollback --to ${shellQuote(to)} --yes`,
    no: "dotagent resume",
  }, context.dirArg);
  const answer = decide ? await decide(decision) : "no-terminal";
  if (answer === "no-terminal") return { result: { rolled_back: false, from: plan.from, to: plan.to, moves: plan.moves, archive: null, decision }, describe: plan.describe };
  if (!answer) throw new DotagentError("rollback_declined", "nothing changed; continue with `dotagent resume`", EXIT.refused);
  const archiver = await loadArchive();
  const done = await locked(context, "rollback", async () => {
    // Planned again under the lock: the state may have moved since the question.
    const prepared = prepareRollback(context.paths, await loadSnapshot(context.paths), to, now);
    const archive = await rollBack(context.paths, prepared, archiver, now);
    // Tasks the rollback took back: their worktrees go (SPEC §19).
    const { sweepAfterClear } = await import("./worktree-tasks.js");
    await sweepAfterClear(context.paths.root, now, context.note);
    return { prepared, archive };
  });
  const { plan: p, journal } = done.prepared;
  return {
    result: { rolled_back: true, workflow_id: journal.workflow_id, from: p.from, to: p.to, revision: journal.phase.revision ?? null, moves: p.moves, archive: done.archive, decision: null },
    describe: p.describe,
  };
}
