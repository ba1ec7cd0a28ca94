// A task's worktree found on another branch than the task's own, put back on it with its work
// (SPEC §19 "Mending"). An executor that ran `git checkout -b feature/x` (or `git switch`, or
// checked out a commit) left its work where no landing looks: dotagent merges only the task's
// branch. The landing catches it and fails the attempt, and the task's next start mends it, so
// the next executor goes on from that work instead of the workflow stalling.
//
// "With its work": the commits made on the other branch (or the detached HEAD) end up in the
// task's branch, and what is uncommitted in the worktree stays in it. Nothing is deleted: the
// other branch is not dotagent's and stays as it is, and every commit stays reachable from a
// branch. The caller holds the state lock, the task is not running and its worktree's `.git` is
// the one git made for it (the landing guard), so no executor works there meanwhile.
//
// Steps (a kill may cut each; the next start looks at the worktree afresh and goes on, so a mend
// cut off is finished by the next attempt, and the work is in a commit or in the worktree at
// every point):
//   0. nothing half done there (a merge, rebase, cherry-pick or revert in progress), HEAD has a
//      commit, and the task's branch is checked out nowhere else; otherwise the person decides
//      (`person`: what to type), and nothing is touched;
//   1. the task's branch is gone, or its tip is in HEAD's history (the usual case: a branch made
//      from it): the task's branch moves to HEAD's commit (update-ref, the old value checked);
//   2. HEAD is pointed at the task's branch (symbolic-ref): files, index and uncommitted work are
//      not touched, as they already stand on that commit. Done (`fast_forward`).
//   Otherwise (HEAD and the task's branch diverged, or HEAD is behind it):
//   3. what is uncommitted (memory/ and .dotagent/ aside) is committed on HEAD, so the files
//      about to change are all in a commit; the uncommitted state of a mend cut off in step 6
//      is committed the same way and merges back to the same files;
//   4. HEAD's commits already in the task's branch (HEAD behind it): on to 6 (`switched`);
//   5. `git merge-tree` of the task's branch and HEAD: clean, a merge commit of the two, and the
//      task's branch moves to it (update-ref, old value checked; `merged`); a conflict, the work
//      gets a branch of dotagent's, `<task branch>-carried` (the other branch keeps it too), and
//      the next executor merges that branch into the task's (`carried_conflict`: its prompt's
//      `Merge conflict:` line, the executor's own conflict flow);
//   6. the worktree switches to the task's branch (`git switch`: files, index, then HEAD). git
//      refusing (the worktree's memory/ changed where the branches differ): the person decides.
// A start that finds the worktree on its branch still looks for a `-carried` branch whose work
// is not in the task's branch yet (a kill after step 6, before the start was recorded): the
// executor is told to merge it again, so the carry is kept in git, not only in the state.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { branchTips, git, gitLine, isAncestor, resolveRef, type GitDirs } from "./git.js";
import { checkMerge, makeMergeCommit } from "./git-merge.js";
import { checkoutHolding, commitLeftovers, samePath, type Repo } from "./worktrees.js";
import { CARRIED_SUFFIX } from "../core/worktrees.js";

export type Mend =
  /** On the task's branch: nothing to mend (`carried`: a branch of an earlier mend, still to merge). */
  | { readonly kind: "on_branch"; readonly carried?: { readonly branch: string; readonly files: string[] } }
  | {
      readonly kind: "mended";
      readonly how: "fast_forward" | "switched" | "merged";
      /** Where it was: "branch feature/x" or "a detached HEAD (1a2b3c4)". */
      readonly from: string;
      /** The task branch's tip now. */
      readonly commit: string;
      /** Files left uncommitted there that dotagent committed first (steps 3). */
      readonly committed: string[];
    }
  /** The work conflicts with the task's branch: it stays on `carried`, which the next executor merges. */
  | {
      readonly kind: "carried_conflict";
      readonly from: string;
      readonly carried: string;
      readonly files: string[];
      readonly commit: string;
      readonly committed: string[];
    }
  /** dotagent cannot do it alone: why, and the line the person types. */
  | { readonly kind: "person"; readonly from: string; readonly why: string; readonly command: string };

export interface MendWant {
  readonly task: string;
  /** The task's branch (no refs/heads/). */
  readonly branch: string;
  /** The worktree folder (absolute). */
  readonly abs: string;
  /** Its git folder and work tree, as the landing guard checked them. */
  readonly dirs: GitDirs;
}

/** Quoted for a POSIX shell, for the line a person types. */
const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);

/** Where a worktree's HEAD is, read from its git folder: on `branch`, another branch, or a detached commit. */
export function headOf(gitDir: string): { branch: string } | { detached: string } {
  const head = readFileSync(join(gitDir, "HEAD"), "utf8").trim();
  return head.startsWith("ref: refs/heads/")
    ? { branch: head.slice("ref: refs/heads/".length) }
    : { detached: head.replace(/^ref: /, "") };
}

/** What a worktree's git folder shows half done (git leaves these files while it does it). */
const UNFINISHED: ReadonlyArray<readonly [string, string, string]> = [
  ["MERGE_HEAD", "a merge", "merge"],
  ["CHERRY_PICK_HEAD", "a cherry-pick", "cherry-pick"],
  ["REVERT_HEAD", "a revert", "revert"],
  ["rebase-merge", "a rebase", "rebase"],
  ["rebase-apply", "a rebase", "rebase"],
];

/** Puts a task's worktree back on the task's branch with its work (the steps in the header). */
export function mendWorktree(repo: Repo, want: MendWant): Mend {
  const { abs, dirs, branch } = want;
  const head = headOf(dirs.gitDir);
  if ("branch" in head && head.branch === branch) return onBranch(repo, branch);
  const inWorktree = (args: string[]) => git(abs, args, { dirs });
  const c = (sub: string) => `git -C ${quote(abs)} ${sub}`;
  // 0. Nothing half done, a commit to carry, the branch free.
  const unfinished = UNFINISHED.find(([file]) => existsSync(join(dirs.gitDir, file)));
  const probe = git(abs, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], { dirs, readOnly: true, ok: [1, 128] });
  const at = probe.status === 0 ? probe.stdout.trim() : undefined;
  const from = "branch" in head ? `branch ${head.branch}` : `a detached HEAD (${(at ?? head.detached).slice(0, 7)})`;
  if (unfinished !== undefined) {
    const [, what, command] = unfinished;
    return {
      kind: "person",
      from,
      why: `${what} is half done there`,
      command: `${c(`${command} --continue`)} to finish it, or ${c(`${command} --abort`)} to drop it`,
    };
  }
  if (at === undefined)
    return {
      kind: "person",
      from,
      why: "its HEAD has no commit",
      command: `${c(`switch ${quote(branch)}`)} (the files there stay uncommitted)`,
    };
  const elsewhere = checkoutHolding(repo, branch);
  if (elsewhere !== undefined && !samePath(elsewhere, abs))
    return {
      kind: "person",
      from,
      why: `${branch} is checked out in ${elsewhere}`,
      command: `git -C ${quote(elsewhere)} switch --detach`,
    };
  const ref = `refs/heads/${branch}`;
  const reflog = `dotagent: task ${want.task}'s worktree back on its branch (its work was on ${from})`;
  const tip = resolveRef(repo.top, ref);
  // 1–2. A branch made from the task's: the task's branch takes its commits, HEAD points at it.
  if (tip === undefined || isAncestor(repo.top, tip, at)) {
    git(repo.top, ["update-ref", "-m", reflog, ref, at, tip ?? ""]);
    inWorktree(["symbolic-ref", "-m", reflog, "HEAD", ref]);
    return { kind: "mended", how: "fast_forward", from, commit: at, committed: [] };
  }
  // 3. Everything about to move is put in a commit first.
  const left = commitLeftovers(
    abs,
    dirs,
    repo.prefix,
    `dotagent: task ${want.task}'s work left uncommitted on ${from}\n\nCommitted before its worktree went back to ${branch}.`,
  );
  if (left.unmerged.length > 0)
    return {
      kind: "person",
      from,
      why: `a merge is half done there (${left.unmerged.join(", ")})`,
      command: `${c("merge --abort")} or finish it (${c("commit")})`,
    };
  const work = gitLine(abs, ["rev-parse", "HEAD"], { readOnly: true, dirs });
  let commit = tip;
  let how: "switched" | "merged" = "switched";
  if (!isAncestor(repo.top, work, tip)) {
    // 5. Merged into the task's branch, or left for the next executor to merge.
    const check = checkMerge(repo.top, tip, work);
    if (check.kind === "conflict") {
      const carried = keepCarried(repo, branch, work);
      const switched = switchTo(abs, dirs, branch);
      if (switched !== undefined) return { kind: "person", from, why: switched, command: c(`switch ${quote(branch)}`) };
      return { kind: "carried_conflict", from, carried, files: check.files, commit: tip, committed: left.committed };
    }
    commit = makeMergeCommit(
      repo.top,
      check.tree,
      tip,
      work,
      `dotagent: task ${want.task}'s work on ${from} brought back onto ${branch}`,
    );
    git(repo.top, ["update-ref", "-m", reflog, ref, commit, tip]);
    how = "merged";
  }
  // 6. The worktree onto the task's branch.
  const switched = switchTo(abs, dirs, branch);
  if (switched !== undefined) return { kind: "person", from, why: switched, command: c(`switch ${quote(branch)}`) };
  return { kind: "mended", how, from, commit, committed: left.committed };
}

/** `git switch` in the worktree; why git refused, or undefined when it switched. */
function switchTo(abs: string, dirs: GitDirs, branch: string): string | undefined {
  const run = git(abs, ["switch", "-q", "--no-guess", branch], { dirs, ok: [1, 128] });
  if (run.status === 0) return undefined;
  const why =
    (run.stderr || run.stdout)
      .trim()
      .split("\n")
      .find((l) => l.trim() !== "") ?? `git switch exited ${run.status}`;
  return `git would not switch it to ${branch} (${why.replace(/^error: /, "")})`;
}

/** Work a mend leaves for the executor to merge, kept on a branch of dotagent's: `<branch>-carried` (`-2`, … when one holds other work). */
function keepCarried(repo: Repo, branch: string, work: string): string {
  const taken = branchTips(repo.top, [`refs/heads/${branch}${CARRIED_SUFFIX}*`]);
  for (let n = 1; ; n++) {
    const name = `${branch}${CARRIED_SUFFIX}${n === 1 ? "" : `-${n}`}`;
    const there = taken.get(`refs/heads/${name}`);
    if (there === work) return name;
    if (there !== undefined) continue;
    git(repo.top, [
      "update-ref",
      "-m",
      `dotagent: work of task branch ${branch}'s worktree, for its executor to merge`,
      `refs/heads/${name}`,
      work,
      "",
    ]);
    return name;
  }
}

/** On its branch: a `-carried` branch whose work the task's branch does not hold yet is still to merge (the first found). */
function onBranch(repo: Repo, branch: string): Mend {
  const carried = [...branchTips(repo.top, [`refs/heads/${branch}${CARRIED_SUFFIX}*`])].sort(([a], [b]) =>
    a.localeCompare(b),
  );
  if (carried.length === 0) return { kind: "on_branch" };
  const tip = resolveRef(repo.top, `refs/heads/${branch}`);
  for (const [ref, commit] of carried) {
    if (tip !== undefined && isAncestor(repo.top, commit, tip)) continue;
    const check = tip === undefined ? undefined : checkMerge(repo.top, tip, commit);
    return {
      kind: "on_branch",
      carried: { branch: ref.slice("refs/heads/".length), files: check?.kind === "conflict" ? check.files : [] },
    };
  }
  return { kind: "on_branch" };
}
