// Merging a task's branch into the workflow's branch (SPEC §19), in steps a kill can cut anywhere:
//
//   1. check   `git merge-tree --write-tree` of the branch's tip and the workflow branch's tip:
//              a conflict is an answer (its files), and nothing has changed anywhere;
//   2. commit  the merge commit made from that tree (`git commit-tree`, parents: the workflow
//              branch's tip, then the task's): an object nobody points to yet;
//   3. (the caller records the intent: onto, head, commit)
//   4. apply   the workflow branch moves to that commit: where it is checked out, by `git merge
//              --ff-only` there (index and files follow, the person's other changes stay); where it
//              is not, by `git update-ref` with the old value (compare and swap).
//
// A kill during 4 leaves at worst a stale index.lock and some files already written; `finishMerge`
// takes it from there (the lock removed when no process holds it, each file the merge changes
// checked to be the old or the new content, or a cut-off write of the new, then set to the new,
// then the branch moved), so the branch is merged exactly once or not at all.
import { existsSync, lstatSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import { git, gitBytes, gitLine, isAncestor, resolveRef, splitZ } from "./git.js";
import { checkoutHolding, clearStaleIndexLock, type Repo } from "./worktrees.js";

export type MergeCheck =
  { readonly kind: "clean"; readonly tree: string } | { readonly kind: "conflict"; readonly files: string[] };

/** Step 1: would the branch merge cleanly? (No index, no files, no refs are touched.) */
export function checkMerge(top: string, onto: string, head: string): MergeCheck {
  const run = git(top, ["merge-tree", "--write-tree", "--name-only", "-z", "--no-messages", onto, head], { ok: [1] });
  const [tree = "", ...files] = splitZ(run.stdout);
  if (run.status === 0) return { kind: "clean", tree };
  return { kind: "conflict", files: [...new Set(files)] };
}

/**
 * The landing guard on a clean merge's tree (src/core/landing-guard.ts): what the task's branch
 * changed since it left `onto` under `guarded` (commits with no worktree left to undo them in, or
 * made after the worktree's leftovers were dealt with) takes `onto`'s version in the tree, built
 * in a scratch index (no checkout is touched). The task's tip still holds those files.
 */
export function guardMergeTree(
  top: string,
  onto: string,
  head: string,
  tree: string,
  guarded: readonly string[],
  /** `since-base`: what `head` changed since it left `onto` (a merge); `between`: every difference of the two (an adoption). */
  range: "since-base" | "between" = "since-base",
): { tree: string; files: string[] } {
  const files = splitZ(
    git(
      top,
      [
        "diff",
        "--name-only",
        "-z",
        "--no-renames",
        ...(range === "since-base" ? [`${onto}...${head}`] : [onto, head]),
        "--",
        ...guarded.map((g) => `:(top,icase)${g}`),
      ],
      { readOnly: true },
    ).stdout,
  );
  if (files.length === 0) return { tree, files };
  const indexFile = join(tmpdir(), `dotagent-guard-${process.pid}-${Date.now()}.index`);
  try {
    git(top, ["read-tree", tree], { indexFile });
    const inOnto = new Map(
      splitZ(
        git(top, ["ls-tree", "-r", "-z", "--full-tree", onto, "--", ...files.map((f) => `:(top,literal)${f}`)], {
          readOnly: true,
        }).stdout,
      ).map((line) => [line.slice(line.indexOf("\t") + 1), line] as const),
    );
    // ls-tree's lines as they are; mode 0 removes a file onto does not have.
    const info = files.map((f) => inOnto.get(f) ?? `0 ${"0".repeat(head.length)}\t${f}`);
    git(top, ["update-index", "-z", "--index-info"], { indexFile, input: `${info.join("\0")}\0` });
    return { tree: gitLine(top, ["write-tree"], { indexFile }), files };
  } finally {
    rmSync(indexFile, { force: true });
  }
}

/** Step 2: the merge commit, not yet on any branch. */
export function makeMergeCommit(top: string, tree: string, onto: string, head: string, message: string): string {
  return gitLine(top, ["commit-tree", tree, "-p", onto, "-p", head, "-m", message]);
}

/** Files that differ between two commits (paths relative to the top). */
export function changedBetween(top: string, a: string, b: string): string[] {
  return splitZ(git(top, ["diff", "--name-only", "-z", "--no-renames", a, b], { readOnly: true }).stdout);
}

/** Step 4. The caller holds the state lock and has recorded the intent; `checkout`: checkoutHolding(branch). */
export function applyMerge(
  repo: Repo,
  branch: string,
  onto: string,
  commit: string,
  reflog: string,
  checkout: string | undefined,
): void {
  if (checkout === undefined) {
    git(repo.top, ["update-ref", "-m", reflog, `refs/heads/${branch}`, commit, onto]);
    return;
  }
  git(checkout, ["merge", "--ff-only", "-q", commit]);
}

export type MergeOutcome = "merged" | "not_merged" | "moved";

/** Where an intent stands: the branch at the commit (or holding the task's tip), still at `onto`, or moved on by someone else. */
export function mergeState(
  top: string,
  branch: string,
  intent: { onto: string; head: string; commit: string },
): MergeOutcome {
  const tip = resolveRef(top, `refs/heads/${branch}`);
  if (tip === undefined) return "moved";
  if (tip === intent.commit || isAncestor(top, intent.head, tip)) return "merged";
  return tip === intent.onto ? "not_merged" : "moved";
}

/** A file's state in a checkout, to tell a cut-off write of ours from a person's change. */
function fileMatches(
  dir: string,
  path: string,
  commits: { old: string; new: string },
): "old" | "new" | "partial" | "other" {
  const abs = join(dir, path);
  const blob = (commit: string) => gitBytes(dir, ["cat-file", "blob", `${commit}:${path}`]);
  const before = blob(commits.old);
  const after = blob(commits.new);
  let now: Buffer | undefined;
  try {
    now = lstatSync(abs).isFile() ? readFileSync(abs) : undefined;
    if (now === undefined && existsSync(abs)) return "other";
  } catch {
    now = undefined;
  }
  if (now === undefined) return after === undefined ? "new" : before === undefined ? "old" : "partial";
  if (after !== undefined && now.equals(after)) return "new";
  if (before !== undefined && now.equals(before)) return "old";
  // git writes a file whole from the start: a kill mid-write leaves a beginning of the new content.
  if (after !== undefined && now.length < after.length && after.subarray(0, now.length).equals(now)) return "partial";
  return "other";
}

/**
 * Finishes a merge cut off at step 4, where the branch is still at `onto` (see mergeState): the
 * checkout is brought to `commit` for exactly the files the merge changes, then the branch moves.
 * A file that holds neither side (a person edited it meanwhile) stops it: nothing is overwritten.
 */
export function finishMerge(repo: Repo, branch: string, onto: string, commit: string, reflog: string): void {
  const checkout = checkoutHolding(repo, branch);
  if (checkout === undefined) {
    git(repo.top, ["update-ref", "-m", reflog, `refs/heads/${branch}`, commit, onto]);
    return;
  }
  clearStaleIndexLock(checkout);
  const paths = changedBetween(repo.top, onto, commit);
  // Not started at all (the usual case: a kill just before or after it): git does it.
  if (isClean(checkout, paths)) {
    git(checkout, ["merge", "--ff-only", "-q", commit]);
    return;
  }
  const states = paths.map((p) => ({ path: p, state: fileMatches(checkout, p, { old: onto, new: commit }) }));
  const foreign = states.filter((s) => s.state === "other").map((s) => s.path);
  if (foreign.length > 0)
    throw new DotagentError(
      "merge_blocked",
      `the merge into ${branch} was cut off, and ${foreign.slice(0, 5).join(", ")} in ${checkout} now hold(s) changes that are neither side's; look at them (git status), keep what you need, then run dotagent resume`,
      EXIT.refused,
      { files: foreign },
    );
  const inNew = new Set(
    splitZ(git(repo.top, ["ls-tree", "-r", "-z", "--name-only", commit, "--", ...paths], { readOnly: true }).stdout),
  );
  const write = paths.filter((p) => inNew.has(p));
  const remove = paths.filter((p) => !inNew.has(p));
  if (write.length > 0) git(checkout, ["checkout", commit, "--", ...write]);
  for (const p of remove) {
    git(checkout, ["rm", "-q", "--cached", "--ignore-unmatch", "--", p]);
    rmSync(join(checkout, p), { force: true });
  }
  git(repo.top, ["update-ref", "-m", reflog, `refs/heads/${branch}`, commit, onto]);
}

/** Whether none of `paths` has a change in the checkout (index or files), so a plain fast-forward can run. */
function isClean(dir: string, paths: readonly string[]): boolean {
  if (paths.length === 0) return true;
  const run = git(
    dir,
    [
      "status",
      "--porcelain",
      "-z",
      "--untracked-files=all",
      "--no-renames",
      "--",
      ...paths.map((p) => `:(literal)${p}`),
    ],
    { readOnly: true },
  );
  return run.stdout === "";
}

/** Files among `paths` with uncommitted changes in `checkout` (the one that has the branch: the ff would refuse them). */
export function localChanges(checkout: string | undefined, paths: readonly string[]): string[] {
  if (checkout === undefined || paths.length === 0) return [];
  const run = git(
    checkout,
    [
      "status",
      "--porcelain",
      "-z",
      "--untracked-files=all",
      "--no-renames",
      "--",
      ...paths.map((p) => `:(literal)${p}`),
    ],
    { readOnly: true },
  );
  return splitZ(run.stdout).map((t) => t.slice(3));
}
