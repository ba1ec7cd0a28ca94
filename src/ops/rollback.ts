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
import { mergesTakenBack, undoCommand, type KeptMerge } from "../core/rollback-merges.js";
import type { ExecutionState } from "../schema/execution.js";
import { branchTips, git, isAncestor } from "../store/git.js";
import { isRepo, repoAt } from "../store/worktrees.js";

/** What a rollback leaves in git: the task merges it takes back, still on their branches, and the command that would undo them (SPEC §15). */
export interface MergesKept {
  merges_kept: KeptMerge[];
  /** `git revert -m 1 --no-edit <newest> … <oldest>` (a `git switch` around it for another branch), or null: nothing to undo. */
  git_undo: string | null;
}

/** `rollback --json`: done (decision null), or the question (rolled_back false, nothing changed). */
export type RollbackResult =
  | ({
      rolled_back: false;
      from: RollbackPlan["from"];
      to: RollbackPlan["to"];
      moves: string[];
      archive: null;
      decision: Decision;
    } & MergesKept)
  | ({
      rolled_back: true;
      workflow_id: string;
      from: RollbackPlan["from"];
      to: RollbackPlan["to"];
      revision: number | null;
      moves: string[];
      archive: string | null;
      decision: null;
    } & MergesKept);

/**
 * The merges of the tasks a rollback takes back that are still on their branches (a branch reset
 * by hand since holds none), and the command that undoes them. No git, or git failing: none said.
 */
function mergesKept(root: string, live: ExecutionState | undefined, target: ExecutionState | null): MergesKept {
  const recorded = mergesTakenBack(live, target);
  if (recorded.length === 0) return { merges_kept: [], git_undo: null };
  try {
    const repo = repoAt(root);
    if (!isRepo(repo)) return { merges_kept: [], git_undo: null };
    const tips = branchTips(repo.top, [...new Set(recorded.map((m) => `refs/heads/${m.into}`))]);
    const kept = recorded.filter((m) => {
      const tip = tips.get(`refs/heads/${m.into}`);
      return tip !== undefined && isAncestor(repo.top, m.commit, tip);
    });
    const head = git(repo.top, ["symbolic-ref", "--quiet", "--short", "HEAD"], { ok: [1, 128], readOnly: true });
    return { merges_kept: kept, git_undo: undoCommand(kept, head.status === 0 ? head.stdout.trim() : null) };
  } catch {
    return { merges_kept: [], git_undo: null };
  }
}

/** " 8 task merges on main stay: …" for the question, or "". */
function mergesNote(kept: MergesKept): string {
  const branches = [...new Set(kept.merges_kept.map((m) => m.into))].join(", ");
  const n = kept.merges_kept.length;
  return n === 0
    ? ""
    : ` ${count(n, "task merge")} on ${branches} ${n === 1 ? "stays" : "stay"}: a rollback does not touch git.`;
}

export interface RollbackOutcome {
  readonly result: RollbackResult;
  /** "the start of ARCHITECTURE" or "checkpoint 12 (…)", for the plain-text line. */
  readonly describe: string;
}

export async function rollBackWorkflow(
  context: OpContext,
  to: string,
  decide: Decide | undefined,
): Promise<RollbackOutcome> {
  const now = context.now();
  const before = await loadSnapshot(context.paths);
  const preview = prepareRollback(context.paths, before, to, now);
  const { plan } = preview;
  const liveExecution = (snapshot: Awaited<ReturnType<typeof loadSnapshot>>) =>
    snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined;
  const asked = mergesKept(context.paths.root, liveExecution(before), plan.execution);
  const decision: Decision = decisionWithDir(
    {
      question: `Roll workflow ${preview.journal.workflow_id} back from ${plan.from.phase_status === "corrupt" ? "its corrupt state" : `${plan.from.phase} (${plan.from.phase_status})`} to ${plan.describe}? ${count(plan.moves.length, "report file")} move into an archive (nothing is deleted).${mergesNote(asked)}`,
      default: false,
      yes: `dotagent rollback --to ${shellQuote(to)} --yes`,
      no: "dotagent resume",
    },
    context.dirArg,
  );
  const answer = decide ? await decide(decision) : "no-terminal";
  if (answer === "no-terminal")
    return {
      result: {
        rolled_back: false,
        from: plan.from,
        to: plan.to,
        moves: plan.moves,
        archive: null,
        decision,
        ...asked,
      },
      describe: plan.describe,
    };
  if (!answer)
    throw new DotagentError("rollback_declined", "nothing changed; continue with `dotagent resume`", EXIT.refused);
  const archiver = await loadArchive();
  const done = await locked(context, "rollback", async () => {
    // Planned again under the lock: the state may have moved since the question.
    const current = await loadSnapshot(context.paths);
    const prepared = prepareRollback(context.paths, current, to, now);
    // Looked at before the rollback: once it is done the live execution.json no longer names them.
    const kept = mergesKept(context.paths.root, liveExecution(current), prepared.plan.execution);
    const archive = await rollBack(context.paths, prepared, archiver, now);
    // Tasks the rollback took back: their worktrees go (SPEC §19).
    const { sweepAfterClear } = await import("./worktree-tasks.js");
    await sweepAfterClear(context.paths.root, now, context.note);
    return { prepared, archive, kept };
  });
  const { plan: p, journal } = done.prepared;
  return {
    result: {
      rolled_back: true,
      workflow_id: journal.workflow_id,
      from: p.from,
      to: p.to,
      revision: journal.phase.revision ?? null,
      moves: p.moves,
      archive: done.archive,
      decision: null,
      ...done.kept,
    },
    describe: p.describe,
  };
}
