// Landing through the git remote, and taking in what other workers landed (SPEC §23 "Landing
// through the remote"). With `dotagent run --claims`, a task's landing reaches the remote in one
// `git push --atomic` of the workflow's branch and the claim's `done` commit (each with its lease:
// both or neither), the `done` commit carrying the task's report. Another clone takes it in: it
// fetches the branch, merges it into its own (the landing guard's rule: what a landing never merges,
// memory/ and the clients' session folders, keeps this clone's version), and records each task a
// `done` claim says landed there, whose landing commit is now in its history, as complete, its
// report written from the claim (event `task_landed_elsewhere`).
//
// THREAT: the branch's commits and the claims are written by other machines. What arrives is
// history, never authority: it can complete a pending or failed task of this clone's plan and write
// that task's own report file (its path made here from the task id, through the write primitive),
// nothing else: no gate, approval, answer or other file of memory/ is ever taken from git.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import {
  landingsOn,
  landingsToTakeIn,
  LANDING_ROUNDS,
  MAX_CARRIED_REPORT_BYTES,
  planHolderChange,
  type ClaimRecord,
  type ClaimWorker,
  type LandingSeen,
  type SeenClaim,
} from "../core/claims.js";
import { DotagentError, EXIT } from "../core/errors.js";
import { taskOutputPath } from "../core/phases.js";
import { completeTask } from "../core/tasks.js";
import { isolationOf } from "../core/worktrees.js";
import type { ExecutionState } from "../schema/execution.js";
import { decodeJson } from "../schema/json.js";
import {
  changedBetween,
  checkMerge,
  guardMergeTree,
  localChanges,
  makeMergeCommit,
  applyMerge,
} from "../store/git-merge.js";
import { git, gitLine, isAncestor, prepareIdentity, resolveRef } from "../store/git.js";
import {
  claimInvalidError,
  fetchBranchTip,
  fetchClaims,
  pushLanding,
  readCarriedReport,
  recordSeenTip,
  branchAndSeenTip,
  type ClaimsRemote,
  type ReadClaim,
} from "../store/remote-claims.js";
import { loadSnapshot } from "../store/session.js";
import { StateWriter } from "../store/state-writer.js";
import { checkoutHolding, guardedFor, isRepo, repoAt, type Repo } from "../store/worktrees.js";
import { mkdirInside, writeJsonInside } from "../store/write-file.js";
import type { ClaimContext } from "./claims.js";
import { locked, type OpContext } from "./op-context.js";
import { settle } from "./settle.js";

/** The branch a round's tasks land into (its worktree isolation's), the checkout's own before the round decided; undefined in a shared round. */
export function workflowBranch(root: string, execution: ExecutionState | undefined): string | undefined {
  const round = Math.max(0, ...(execution?.plans ?? []).map((p) => p.round));
  const isolation = isolationOf(execution, round);
  if (isolation !== undefined) return isolation.mode === "worktree" ? (isolation.branch ?? undefined) : undefined;
  const run = git(root, ["symbolic-ref", "--short", "-q", "HEAD"], { ok: [1, 128], readOnly: true });
  return run.status === 0 && run.stdout.trim() !== "" ? run.stdout.trim() : undefined;
}

export type TakeIn =
  | { readonly kind: "up_to_date" }
  | { readonly kind: "merged"; readonly commit: string; readonly leftOut: string[] }
  /** The remote's branch was rewritten (a person's force-push): the branch here moved to it, this clone's own paths kept. */
  | { readonly kind: "adopted"; readonly commit: string; readonly dropped: string }
  | { readonly kind: "refused"; readonly why: string; readonly remedy?: string };

/**
 * Merges `remoteTip` (fetched already) into the local `branch`, under the state lock: up to date,
 * a fast-forward (when the remote changed nothing a landing never merges) or a merge commit whose
 * tree keeps this clone's version of those paths, then the branch moved as a landing moves it (the
 * main checkout by `merge --ff-only`: its other changes stay). A conflict, or uncommitted changes
 * here in the files it brings, is refused: nothing changed.
 *
 * A remote branch that no longer holds the tip this clone last took in or pushed was rewritten by
 * a person (a force-push): the person's history wins. A branch here holding nothing beyond that
 * old tip moves to the new one (what a landing never merges keeps this clone's version), so no
 * landing pushes the old history back; one with commits of its own beyond it is refused, with the
 * one command that settles it.
 */
function mergeRemote(repo: Repo, branch: string, remote: string, remoteTip: string): TakeIn {
  const top = repo.top;
  const { local, seen: seenAt } = branchAndSeenTip(top, remote, branch);
  if (local === undefined) return { kind: "refused", why: `this clone has no branch ${branch}` };
  const seen = seenAt?.sha;
  const rewritten = seen !== undefined && seen !== remoteTip && !isAncestor(top, seen, remoteTip) ? seen : undefined;
  if (rewritten !== undefined && (local === rewritten || isAncestor(top, local, rewritten)))
    return adopt(repo, branch, remote, local, remoteTip, rewritten);
  if (rewritten !== undefined && isAncestor(top, rewritten, local))
    return {
      kind: "refused",
      why: `${remote}/${branch} was force-pushed (it no longer holds ${rewritten.slice(0, 7)}, which ${branch} here took in) and ${branch} here has commits of its own beyond it`,
      remedy: `git rebase --onto ${remoteTip.slice(0, 12)} ${rewritten.slice(0, 12)} ${branch} (your commits onto the person's history), then run again`,
    };
  if (local === remoteTip || isAncestor(top, remoteTip, local)) {
    // Nothing moved since the last take-in or push: the record already says so.
    if (!(seenAt?.recorded === true && seen === remoteTip)) recordSeenTip(top, remote, branch, remoteTip);
    return { kind: "up_to_date" };
  }
  const check = checkMerge(top, local, remoteTip);
  if (check.kind === "conflict")
    return {
      kind: "refused",
      why: `${remote}/${branch} and ${branch} here conflict in ${check.files.slice(0, 5).join(", ")}`,
    };
  const guarded = guardMergeTree(top, local, remoteTip, check.tree, guardedFor(repo));
  prepareIdentity(top);
  const target =
    guarded.files.length === 0 && isAncestor(top, local, remoteTip)
      ? remoteTip
      : makeMergeCommit(
          top,
          guarded.tree,
          local,
          remoteTip,
          `Merge ${remote}/${branch}: tasks other workers landed\n\ndotagent run --claims`,
        );
  const checkout = checkoutHolding(repo, branch);
  const dirty = localChanges(checkout, changedBetween(top, local, target));
  if (dirty.length > 0)
    return {
      kind: "refused",
      why: `${checkout} has uncommitted changes to ${dirty.slice(0, 5).join(", ")}, which ${remote}/${branch} changes`,
    };
  applyMerge(repo, branch, local, target, `dotagent: merge ${remote}/${branch}`, checkout);
  recordSeenTip(top, remote, branch, remoteTip);
  return { kind: "merged", commit: target, leftOut: guarded.files };
}

/**
 * The branch here moves to the remote's rewritten tip: its tree, with this clone's version of what
 * a landing never merges (memory/, the clients' folders: a commit on top of the tip when they
 * differ). The main checkout moves by `git reset --keep` (its other changes stay; changes to the
 * files the move touches refuse it, nothing changed); what the branch held stays in its reflog.
 */
function adopt(repo: Repo, branch: string, remote: string, local: string, remoteTip: string, dropped: string): TakeIn {
  const top = repo.top;
  const tipTree = gitLine(top, ["rev-parse", `${remoteTip}^{tree}`], { readOnly: true });
  const kept = guardMergeTree(top, local, remoteTip, tipTree, guardedFor(repo), "between");
  prepareIdentity(top);
  const target =
    kept.files.length === 0
      ? remoteTip
      : gitLine(top, [
          "commit-tree",
          kept.tree,
          "-p",
          remoteTip,
          "-m",
          `Take ${remote}/${branch} as a person rewrote it: this clone's own files kept\n\ndotagent run --claims`,
        ]);
  const checkout = checkoutHolding(repo, branch);
  const dirty = localChanges(checkout, changedBetween(top, local, target));
  if (dirty.length > 0)
    return {
      kind: "refused",
      why: `${remote}/${branch} was force-pushed and ${checkout} has uncommitted changes to ${dirty.slice(0, 5).join(", ")}, which the rewrite changes`,
      remedy: `commit or stash those changes, then run again`,
    };
  if (checkout === undefined)
    git(top, [
      "update-ref",
      "-m",
      `dotagent: take ${remote}/${branch} as rewritten`,
      `refs/heads/${branch}`,
      target,
      local,
    ]);
  else git(checkout, ["reset", "--keep", "-q", target]);
  recordSeenTip(top, remote, branch, remoteTip);
  return { kind: "adopted", commit: target, dropped };
}

/** The repository the project root is in (a run asks once: RunClaims passes it to each call). */
export function repoOf(root: string): Repo {
  const repo = repoAt(root);
  if (!isRepo(repo))
    throw new DotagentError(
      "remote_failed",
      `${root} is not in a git repository: claims live on the git remote of a clone of the project`,
      EXIT.refused,
    );
  return repo;
}

function diverged(remote: string, branch: string, why: string, remedy?: string): DotagentError {
  return new DotagentError(
    "branch_diverged",
    `the workflow's branch ${branch} cannot take in ${remote}/${branch}: ${why}; nothing was changed; for the person: ${remedy ?? `git pull ${remote} ${branch}, settle it, then run again`}`,
    EXIT.refused,
    { remote, branch },
  );
}

/**
 * Merges the remote's `branch`, its tip `tip` fetched already (fetchBranchAndClaims, before the
 * lock; undefined: no such branch on the remote), into this clone's (SPEC §23 "Taking in others'
 * landings"), under the lock. A merge it cannot make is `branch_diverged`.
 */
export async function takeInBranch(
  context: OpContext,
  r: ClaimsRemote,
  branch: string,
  tip: string | undefined,
  repo: Repo = repoOf(context.paths.root),
): Promise<{ tip: string | undefined; merged: TakeIn }> {
  if (tip === undefined) return { tip, merged: { kind: "up_to_date" } };
  const merged = await locked(context, "run", () => mergeRemote(repo, branch, r.remote, tip));
  if (merged.kind === "refused") throw diverged(r.remote, branch, merged.why, merged.remedy);
  if (merged.kind === "adopted")
    context.warn(
      `${r.remote}/${branch} was force-pushed: it no longer holds ${merged.dropped.slice(0, 7)}, which ${branch} here held; ${branch} here moved to it (the person's history kept, the old one never pushed again; git reflog ${branch} lists what it held)`,
    );
  if (merged.kind === "merged" && merged.leftOut.length > 0)
    context.warn(
      `${r.remote}/${branch} changed ${merged.leftOut.slice(0, 5).join(", ")}, which a landing never merges; this clone's version kept (git show ${tip} -- <file> shows theirs)`,
    );
  return { tip, merged };
}

/** A task of this clone recorded complete from another worker's landing. */
export interface TakenLanding {
  readonly task_id: string;
  readonly worker: ClaimWorker;
  readonly commit: string;
}

/**
 * Records as complete here the tasks other workers landed on `branch` (their `done` claims name a
 * landing commit now in this clone's history and carry the task's report): one event
 * `task_landed_elsewhere` each, the report written from the claim. A claim whose landing is not here
 * yet is left for later; one whose report cannot be taken is said in one line and left pending.
 */
export async function takeInLandings(
  context: OpContext,
  ctx: ClaimContext,
  branch: string,
  /** The workflow's claims, read already (else read here). */
  read?: Map<string, ReadClaim>,
  repo: Repo = repoOf(context.paths.root),
): Promise<TakenLanding[]> {
  const root = context.paths.root;
  const claims = read ?? fetchClaims(ctx.remote, ctx.workflowId);
  const loaded = await loadSnapshot(context.paths);
  const execution = loaded.execution.kind === "ok" ? loaded.execution.value : undefined;
  if (execution === undefined || execution.workflow_id !== ctx.workflowId) return [];
  const tip = resolveRef(repo.top, `refs/heads/${branch}`);
  if (tip === undefined) return [];
  // One call a pair, asked once per take-in (a landing's commit is checked by lostLandings and
  // again as a candidate): merge-base says 128 for a commit this clone lacks.
  const answers = new Map<string, boolean>();
  const inHistory = (commit: string, of: string) => {
    const key = `${commit} ${of}`;
    let answer = answers.get(key);
    if (answer === undefined) answers.set(key, (answer = holds(repo.top, commit, of)));
    return answer;
  };
  const lost = lostLandings(ctx, claims, branch, tip, inHistory);
  for (const landing of lost) {
    const task = execution.tasks.find((t) => t.id === landing.taskId);
    const commit = landing.claim.landed.commit;
    const w = landing.claim.worker;
    const taken =
      task !== undefined && (task.status === "pending" || task.status === "failed") && w.id !== ctx.worker.id;
    context.warn(
      `task ${landing.taskId}: its landing ${commit.slice(0, 7)} by worker ${w.id} (host ${w.host}, pid ${w.pid}) is no longer in ${ctx.remote.remote}/${branch}: a person force-pushed the branch; their history kept, the task not run or landed again${taken ? ", taken in here from its claim's report" : ""}; to land it again: git cherry-pick -m 1 ${commit.slice(0, 12)} && git push ${ctx.remote.remote} ${branch}${resolveRef(repo.top, commit) === undefined ? ` (in a clone holding ${commit.slice(0, 12)}: worker ${w.id}'s, or one that took it in)` : ""}`,
    );
  }
  const lostIds = new Set(lost.map((l) => l.taskId));
  const reports = new Map<string, { value: Record<string, unknown>; seen: LandingSeen }>();
  const candidates = landingsToTakeIn(execution.tasks, claims, branch, ctx.worker);
  for (const seen of candidates) {
    const commit = seen.claim.landed.commit;
    // Its landing must be in this clone's history (fetched with the branch): else later; one a
    // person's force-push dropped is taken in from its report (never left pending, never run again).
    if (!inHistory(commit, tip) && !lostIds.has(seen.taskId)) continue;
    const carried = readCarriedReport(root, seen.sha);
    const problem =
      "invalid" in carried
        ? carried.invalid
        : (() => {
            const json = decodeJson(carried.text);
            if (!json.ok) return `the report it carries is ${json.message}`;
            const value = json.value;
            if (typeof value !== "object" || value === null || Array.isArray(value))
              return "the report it carries is not a JSON object";
            const data = value as Record<string, unknown>;
            if (data.task_id !== seen.taskId || data.status !== "complete")
              return `the report it carries is not task ${seen.taskId}'s, complete`;
            reports.set(seen.taskId, { value: data, seen });
            return undefined;
          })();
    if (problem !== undefined)
      context.warn(
        `task ${seen.taskId}: its done claim on ${ctx.remote.remote} (${seen.sha.slice(0, 12)}) cannot be taken here (${problem}); left ${execution.tasks.find((t) => t.id === seen.taskId)?.status ?? "pending"} here`,
      );
  }
  if (reports.size === 0) return [];
  const now = context.now();
  const taken = await locked(context, "run", async () => {
    const done: TakenLanding[] = [];
    for (const [id, { value, seen }] of reports) {
      const path = taskOutputPath(id);
      const before = await loadSnapshot(context.paths);
      const state = before.execution.kind === "ok" ? before.execution.value : undefined;
      const task = state?.tasks.find((t) => t.id === id);
      if (state === undefined || task === undefined || (task.status !== "pending" && task.status !== "failed"))
        continue;
      // The report first (its path made here from the task id, never taken from git), then the state.
      // Its folder first: a clone that has run no task yet has none.
      mkdirInside(root, dirname(join(root, path)));
      writeJsonInside(root, join(root, path), value);
      const snapshot = await loadSnapshot(context.paths, [{ path, mode: "parse" }]);
      const completed = completeTask(state, id, snapshot.reports, now, path);
      if (!completed.ok) {
        context.warn(
          `task ${id}: its done claim on ${ctx.remote.remote} carries a report this clone does not take (${completed.message}); left ${task.status} here`,
        );
        continue;
      }
      const writer = new StateWriter(context.paths, snapshot, now, context.warn);
      writer.writeExecution(completed.state);
      writer.appendEvents([
        {
          type: "task_landed_elsewhere",
          task_id: id,
          remote: ctx.remote.remote,
          worker: seen.claim.worker,
          commit: seen.claim.landed.commit,
        },
      ]);
      done.push({ task_id: id, worker: seen.claim.worker, commit: seen.claim.landed.commit });
    }
    if (done.length > 0) await settle(context, now);
    return done;
  });
  return taken;
}

/**
 * The landings the remote's claims name on `branch` that its history no longer holds: a person
 * rewrote the branch (a force-push). Those not in this clone's branch are checked against the
 * remote's tip listed again, so a landing pushed since the branch was fetched is not taken for one.
 */
function lostLandings(
  ctx: ClaimContext,
  claims: Map<string, ReadClaim>,
  branch: string,
  local: string,
  inHistory: (commit: string, of: string) => boolean,
): LandingSeen[] {
  const notHere = landingsOn(claims, branch).filter((l) => !inHistory(l.claim.landed.commit, local));
  if (notHere.length === 0) return [];
  const tip = fetchBranchTip(ctx.remote, branch);
  return notHere.filter((l) => tip === undefined || !inHistory(l.claim.landed.commit, tip));
}

/** Whether commit `commit` is in `of`'s history; false when this clone lacks it. */
function holds(top: string, commit: string, of: string): boolean {
  return git(top, ["merge-base", "--is-ancestor", commit, of], { ok: [1, 128], readOnly: true }).status === 0;
}

export type RemoteLanding =
  | { readonly outcome: "pushed"; readonly sha: string; readonly retries: number }
  /** The claim is no longer this worker's (taken over, gone): nothing pushed. */
  | { readonly outcome: "lost"; readonly why: string }
  /** The remote's branch moved with work that cannot be merged here: nothing pushed. */
  | { readonly outcome: "diverged"; readonly why: string; readonly remedy?: string };

/**
 * Lands a task, landed here already, through the remote: the remote's branch is fetched and merged
 * into this clone's when it moved, then one atomic push of the branch (leased on the tip fetched)
 * and the claim's `done` commit (leased on this worker's `held`, carrying the task's report). A push
 * rejected because either moved is fetched and tried again, at most LANDING_ROUNDS times.
 */
export async function landThroughRemote(
  context: OpContext,
  ctx: ClaimContext,
  id: string,
  branch: string,
  landingCommit: string | null,
  /** The claim this worker last pushed (its renewal before landing): the first push goes against it, unlisted. */
  held?: SeenClaim,
  repo: Repo = repoOf(context.paths.root),
): Promise<RemoteLanding> {
  const root = context.paths.root;
  const report = carriedReport(root, id);
  if (typeof report !== "string")
    context.warn(
      `task ${id}: its report ${report.why}; its done claim carries no report, so other clones keep it pending`,
    );
  let why = "";
  for (let round = 0; round < LANDING_ROUNDS; round++) {
    const tip = fetchBranchTip(ctx.remote, branch);
    if (tip !== undefined) {
      const merged = await locked(context, "run", () => mergeRemote(repo, branch, ctx.remote.remote, tip));
      if (merged.kind === "refused")
        return { outcome: "diverged", why: merged.why, ...(merged.remedy ? { remedy: merged.remedy } : {}) };
    }
    const local = resolveRef(repo.top, `refs/heads/${branch}`);
    if (local === undefined) return { outcome: "diverged", why: `this clone has no branch ${branch}` };
    const read = round === 0 && held !== undefined ? held : fetchClaims(ctx.remote, ctx.workflowId, id).get(id);
    if (read !== undefined && "invalid" in read)
      throw claimInvalidError(ctx.remote.remote, ctx.workflowId, id, read.invalid);
    const landed: ClaimRecord["landed"] =
      typeof report !== "string" ? undefined : { branch, commit: landingCommit ?? local };
    const plan = planHolderChange(
      "done",
      read,
      {
        workflowId: ctx.workflowId,
        taskId: id,
        worker: ctx.worker,
        now: (ctx.now ?? (() => new Date()))(),
      },
      landed,
    );
    if (plan.action === "lost") return { outcome: "lost", why: plan.why };
    const pushed = pushLanding(ctx.remote, {
      branch,
      commit: local,
      expect: tip ?? "",
      claim: plan.claim,
      claimExpect: plan.expect,
      ...(typeof report !== "string" ? {} : { report }),
    });
    if (pushed.pushed) {
      recordSeenTip(repo.top, ctx.remote.remote, branch, local);
      return { outcome: "pushed", sha: pushed.sha, retries: round };
    }
    why = pushed.why;
  }
  throw new DotagentError(
    "remote_failed",
    `the landing of task ${id} on the git remote ${ctx.remote.remote} was rejected ${LANDING_ROUNDS} times (last: ${why}); it is landed here, its claim still held; run again`,
    EXIT.refused,
    { remote: ctx.remote.remote },
  );
}

/** The task's report as this clone holds it, to carry with its `done` claim, or why it is not carried. */
function carriedReport(root: string, id: string): string | { why: string } {
  let text: string;
  try {
    text = readFileSync(join(root, taskOutputPath(id)), "utf8");
  } catch (error) {
    return { why: `could not be read (${(error as NodeJS.ErrnoException).code ?? "unreadable"})` };
  }
  return Buffer.byteLength(text) <= MAX_CARRIED_REPORT_BYTES
    ? text
    : { why: `is over ${MAX_CARRIED_REPORT_BYTES} bytes` };
}
