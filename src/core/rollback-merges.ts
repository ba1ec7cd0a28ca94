// What a rollback leaves in git (SPEC §15 "Merged commits"): a rollback puts the state files back,
// never a branch, so the merges of the tasks it takes back stay on the workflow's branch. They are
// named, with the command that would undo them. That command is `git revert -m 1`, newest first:
// it adds commits that take the tasks' changes out and loses nothing — not a commit made after
// them, not the checkout's uncommitted work, not a history someone already pulled — where
// `git reset --hard <onto>` would throw all three away. Pure: git's facts come in.
import type { ExecutionState } from "../schema/execution.js";
import { shellQuote } from "./plan-resume.js";

export interface KeptMerge {
  task_id: string;
  /** The branch the task landed on. */
  into: string;
  /** The merge commit (full). */
  commit: string;
  at: string;
}

/**
 * The task merges recorded in the live execution.json that the target state does not hold as
 * merged (the same commit), oldest first. `target` null: execution.json goes with the rollback.
 */
export function mergesTakenBack(live: ExecutionState | undefined, target: ExecutionState | null): KeptMerge[] {
  const kept = new Set(
    (target?.tasks ?? []).flatMap((t) =>
      t.worktree?.merge?.state === "merged" && t.worktree.merge.commit ? [t.worktree.merge.commit] : [],
    ),
  );
  const merges: KeptMerge[] = [];
  for (const task of live?.tasks ?? []) {
    const merge = task.worktree?.merge;
    if (merge?.state !== "merged" || !merge.commit || kept.has(merge.commit)) continue;
    merges.push({ task_id: task.id, into: merge.into, commit: merge.commit, at: merge.at });
  }
  return merges.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

/** The abbreviation the undo command and the plain lines use: long enough never to be ambiguous in practice. */
export const abbrev = (sha: string) => sha.slice(0, 12);

/**
 * The command that undoes `merges` (on their branches, newest first), or null when there are none.
 * `checkedOut`: the main checkout's branch; another branch is switched to first.
 */
export function undoCommand(merges: readonly KeptMerge[], checkedOut: string | null): string | null {
  if (merges.length === 0) return null;
  const branches = [...new Set(merges.map((m) => m.into))];
  // The checked-out branch last, so the command leaves the person where they were.
  branches.sort((a, b) => (a === checkedOut ? 1 : b === checkedOut ? -1 : 0));
  const parts: string[] = [];
  let on = checkedOut;
  for (const branch of branches) {
    if (branch !== on) parts.push(`git switch ${shellQuote(branch)}`);
    on = branch;
    const shas = merges
      .filter((m) => m.into === branch)
      .map((m) => abbrev(m.commit))
      .reverse();
    parts.push(`git revert -m 1 --no-edit ${shas.join(" ")}`);
  }
  if (checkedOut !== null && on !== checkedOut) parts.push(`git switch ${shellQuote(checkedOut)}`);
  return parts.join(" && ");
}
