// Claiming, renewing, releasing and finishing a task through the git remote (SPEC §23): each
// operation fetches the workflow's claims, lets src/core/claims.ts decide, and pushes one commit
// as a compare-and-swap (src/store/remote-claims.ts). A push that loses a race is followed by a
// fetch and a new decision (at most CLAIM_ROUNDS times); a push rejected while the ref still shows
// what was expected is the remote's refusal, `remote_failed`. The clock is injected (`now`), so
// tests move leases without sleeping.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import {
  CLAIM_ROUNDS,
  isLapsed,
  planClaim,
  planHolderChange,
  type ClaimFacts,
  type ClaimRecord,
  type ClaimWorker,
  type HolderChange,
  type SeenClaim,
} from "../core/claims.js";
import { DotagentError, EXIT } from "../core/errors.js";
import {
  claimInvalidError,
  fetchClaims,
  pushClaim,
  type ClaimsRemote,
  type ReadClaim,
} from "../store/remote-claims.js";

export interface ClaimContext {
  readonly remote: ClaimsRemote;
  readonly workflowId: string;
  readonly worker: ClaimWorker;
  readonly now?: () => Date;
  readonly leaseMs?: number;
  readonly skewMs?: number;
  /** This clone's earlier workers whose process is gone (src/store/claim-workers.ts): their claims are taken over at once. */
  readonly restarted?: () => ReadonlySet<string>;
}

/** This process as a worker: a random id (host names and pids repeat across CI runners), the host and pid for people. */
export function newWorker(): ClaimWorker {
  return { id: randomBytes(8).toString("hex"), host: hostname().slice(0, 255) || "unknown", pid: process.pid };
}

export type ClaimOutcome =
  | {
      readonly outcome: "claimed";
      readonly sha: string;
      readonly claim: ClaimRecord;
      readonly took_over?: ClaimWorker;
      /** Taken over at once from this clone's earlier worker whose process is gone. */
      readonly restarted?: true;
    }
  /** Already this worker's (its earlier push reached the remote). */
  | { readonly outcome: "held"; readonly sha: string; readonly claim: ClaimRecord }
  | { readonly outcome: "waiting"; readonly holder: ClaimWorker; readonly until: string }
  | { readonly outcome: "done"; readonly by: ClaimWorker };

export type HolderOutcome =
  | { readonly outcome: "pushed"; readonly sha: string; readonly claim: ClaimRecord }
  /** The task is no longer this worker's: it gives it back (SPEC §23), saying `why`. */
  | { readonly outcome: "lost"; readonly why: string };

function factsOf(ctx: ClaimContext, taskId: string): ClaimFacts {
  return {
    workflowId: ctx.workflowId,
    taskId,
    worker: ctx.worker,
    now: (ctx.now ?? (() => new Date()))(),
    ...(ctx.leaseMs !== undefined ? { leaseMs: ctx.leaseMs } : {}),
    ...(ctx.skewMs !== undefined ? { skewMs: ctx.skewMs } : {}),
  };
}

function seenOf(ctx: ClaimContext, taskId: string): SeenClaim | undefined {
  const read: ReadClaim | undefined = fetchClaims(ctx.remote, ctx.workflowId, taskId).get(taskId);
  if (read !== undefined && "invalid" in read)
    throw claimInvalidError(ctx.remote.remote, ctx.workflowId, taskId, read.invalid);
  return read;
}

/** After a rejected push: a lost race when the ref moved, the remote's refusal when it did not. */
function checkMoved(ctx: ClaimContext, taskId: string, expect: string | null, why: string): void {
  const now = fetchClaims(ctx.remote, ctx.workflowId, taskId).get(taskId);
  if ((now?.sha ?? null) === expect)
    throw new DotagentError(
      "remote_failed",
      `the git remote ${ctx.remote.remote} refused the claim of task ${taskId} (${why}) while nobody else changed it; no claim was changed and nothing local was lost`,
      EXIT.refused,
      { remote: ctx.remote.remote },
    );
}

function tooContended(ctx: ClaimContext, taskId: string): DotagentError {
  return new DotagentError(
    "remote_failed",
    `the claim of task ${taskId} on the git remote ${ctx.remote.remote} changed under each of ${CLAIM_ROUNDS} tries; try again`,
    EXIT.refused,
    { remote: ctx.remote.remote },
  );
}

/**
 * Claims a task for `ctx.worker`: pushed, already held, held by another (waiting), or done.
 * `known`: the claim as read a moment ago with the workflow's others (null: no ref), so the first
 * round lists nothing; a push it makes stale is rejected by the compare-and-swap and read again.
 */
export function claimTask(ctx: ClaimContext, taskId: string, known?: ReadClaim | null): ClaimOutcome {
  for (let round = 0; round < CLAIM_ROUNDS; round++) {
    let seen: SeenClaim | undefined;
    if (round === 0 && known !== undefined) {
      if (known !== null && "invalid" in known)
        throw claimInvalidError(ctx.remote.remote, ctx.workflowId, taskId, known.invalid);
      seen = known ?? undefined;
    } else seen = seenOf(ctx, taskId);
    const restarted = seen?.claim.state === "held" ? ctx.restarted?.() : undefined;
    const plan = planClaim(seen, { ...factsOf(ctx, taskId), ...(restarted ? { restarted } : {}) });
    switch (plan.action) {
      case "mine":
        return { outcome: "held", sha: plan.sha, claim: plan.claim };
      case "wait":
        return { outcome: "waiting", holder: plan.holder, until: plan.until };
      case "done":
        return { outcome: "done", by: plan.by };
      case "create":
      case "take": {
        const expect = plan.action === "take" ? plan.expect : null;
        const pushed = pushClaim(ctx.remote, plan.claim, expect);
        if (pushed.pushed)
          return {
            outcome: "claimed",
            sha: pushed.sha,
            claim: plan.claim,
            ...(plan.action === "take" && plan.why !== "released" ? { took_over: plan.from } : {}),
            ...(plan.action === "take" && plan.why === "restarted" ? { restarted: true as const } : {}),
          };
        checkMoved(ctx, taskId, expect, pushed.why);
      }
    }
  }
  throw tooContended(ctx, taskId);
}

/**
 * The holder's renewal, release or done: pushed only while the remote still holds its claim, else
 * `lost`. `last`: the claim this worker last pushed: the first push goes against it without
 * listing the ref (SPEC §23: one network call when nothing moved); a rejection reads it again.
 */
export function changeHeldClaim(
  ctx: ClaimContext,
  taskId: string,
  change: HolderChange,
  last?: SeenClaim,
): HolderOutcome {
  for (let round = 0; round < CLAIM_ROUNDS; round++) {
    const seen = round === 0 && last !== undefined ? last : seenOf(ctx, taskId);
    const plan = planHolderChange(change, seen, factsOf(ctx, taskId));
    if (plan.action === "lost") return { outcome: "lost", why: plan.why };
    const pushed = pushClaim(ctx.remote, plan.claim, plan.expect);
    if (pushed.pushed) return { outcome: "pushed", sha: pushed.sha, claim: plan.claim };
    checkMoved(ctx, taskId, plan.expect, pushed.why);
  }
  throw tooContended(ctx, taskId);
}

export const renewClaim = (ctx: ClaimContext, taskId: string, last?: SeenClaim) =>
  changeHeldClaim(ctx, taskId, "renew", last);
export const releaseClaim = (ctx: ClaimContext, taskId: string, last?: SeenClaim) =>
  changeHeldClaim(ctx, taskId, "release", last);
export const finishClaim = (ctx: ClaimContext, taskId: string, last?: SeenClaim) =>
  changeHeldClaim(ctx, taskId, "done", last);

/** One claim as `dotagent claims --json` lists it (SPEC §23). */
export interface ClaimRow {
  readonly task_id: string;
  readonly state: ClaimRecord["state"];
  readonly worker: ClaimWorker;
  readonly claimed_at: string;
  readonly renewed_at: string;
  readonly expires_at: string | null;
  readonly attempt: number;
  /** Held, and past its lease and the skew by this machine's clock: another worker may take it over. */
  readonly lapsed: boolean;
  readonly commit: string;
}

export interface ClaimList {
  readonly remote: string;
  readonly workflow_id: string;
  readonly claims: ClaimRow[];
  /** Refs that are not claims dotagent wrote: listed, never acted on. */
  readonly invalid: { readonly task_id: string; readonly commit: string; readonly problem: string }[];
}

/** Which worker holds which task of a workflow, and since when, as the remote's refs say (no ref or file written). */
export function listClaims(remote: ClaimsRemote, workflowId: string, now: Date): ClaimList {
  const claims: ClaimRow[] = [];
  const invalid: ClaimList["invalid"][number][] = [];
  const read = [...fetchClaims(remote, workflowId)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [taskId, seen] of read) {
    if ("invalid" in seen) {
      invalid.push({ task_id: taskId, commit: seen.sha, problem: seen.invalid });
      continue;
    }
    const c = seen.claim;
    claims.push({
      task_id: taskId,
      state: c.state,
      worker: c.worker,
      claimed_at: c.claimed_at,
      renewed_at: c.renewed_at,
      expires_at: c.expires_at,
      attempt: c.attempt,
      lapsed: isLapsed(c, now),
      commit: seen.sha,
    });
  }
  return { remote: remote.remote, workflow_id: workflowId, claims, invalid };
}
