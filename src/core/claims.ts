// What a worker does with a task's claim on the git remote (SPEC §23), decided from what it saw
// there and the time: pure, so the lease arithmetic and every case of the protocol are a table
// (claims.test.ts). The promise: at most one worker holds a claim it pushed (the remote's
// compare-and-swap sees to that; this module only ever asks to push against the sha it saw), a
// task marked done is never claimed again, and a held claim is taken over only after its lease
// and the allowed clock skew have both passed. A claim decides who runs a task, nothing else.
import type { ClaimRecord, ClaimWorker } from "../schema/claim.js";
import { ID_PATTERN } from "../schema/json.js";

export type { ClaimRecord, ClaimWorker } from "../schema/claim.js";

/** A held claim lapses this long after its last renewal: a dead worker's task waits at most this plus the skew. */
export const CLAIM_LEASE_MS = 5 * 60 * 1000;
/** The holder renews this often: a third of the lease, so two renewals may fail before it lapses. */
export const CLAIM_RENEW_MS = CLAIM_LEASE_MS / 3;
/** How far two machines' clocks may differ and the lease still hold (see SPEC §23 "Lease and clocks"). */
export const CLAIM_SKEW_MS = 60 * 1000;
/** claim.json's size cap, checked before it is read. */
export const MAX_CLAIM_BYTES = 4096;
/** How many times an operation fetches and decides again after losing a race for the ref. */
export const CLAIM_ROUNDS = 3;
/** A task's report carried by its `done` claim (SPEC §23 "Landing through the remote"): its size cap, checked before it is read. */
export const MAX_CARRIED_REPORT_BYTES = 256 * 1024;
/** How many times a landing through the remote takes in a branch that moved and pushes again. */
export const LANDING_ROUNDS = 3;

/** A claim as read from the remote: the commit its ref points at, and its claim.json. */
export interface SeenClaim {
  readonly sha: string;
  readonly claim: ClaimRecord;
}

export interface ClaimFacts {
  readonly workflowId: string;
  readonly taskId: string;
  readonly worker: ClaimWorker;
  readonly now: Date;
  readonly leaseMs?: number;
  readonly skewMs?: number;
  /**
   * Ids of this clone's earlier workers whose process is verifiably gone on this machine (SPEC §23
   * "A run restarted on the same machine"): their held claims are taken over at once, lease or not.
   */
  readonly restarted?: ReadonlySet<string>;
}

/** The ref of a task's claim, or why the ids cannot name one (git's ref rules on top of the id's, SPEC §23). */
export function claimRef(workflowId: string, taskId: string): { ok: true; ref: string } | { ok: false; why: string } {
  for (const [what, id] of [
    ["workflow id", workflowId],
    ["task id", taskId],
  ] as const) {
    if (!ID_PATTERN.test(id) || id.includes("..") || id.endsWith(".lock") || id.endsWith("."))
      return {
        ok: false,
        why: `${JSON.stringify(id.slice(0, 40))} cannot name a claim's ref: a ${what} of letters, digits, '.', '_' or '-', without '..', not ending in '.' or '.lock'`,
      };
  }
  return { ok: true, ref: `${claimPrefix(workflowId)}${taskId}` };
}

/** The remote's refs of one workflow's claims (a prefix ending in `/`). */
export const claimPrefix = (workflowId: string) => `refs/dotagent/claims/${workflowId}/`;

/** A held claim written now: renewed now, expiring a lease from now. */
function heldClaim(facts: ClaimFacts, claimedAt: string, attempt: number): ClaimRecord {
  const now = facts.now.toISOString();
  return {
    format: 1,
    workflow_id: facts.workflowId,
    task_id: facts.taskId,
    state: "held",
    worker: facts.worker,
    claimed_at: claimedAt,
    renewed_at: now,
    expires_at: new Date(facts.now.getTime() + (facts.leaseMs ?? CLAIM_LEASE_MS)).toISOString(),
    attempt,
  };
}

export type ClaimPlan =
  /** No ref yet: push, expecting none. */
  | { readonly action: "create"; readonly claim: ClaimRecord }
  /** Released, or held past its lease and the skew: push against the sha seen. */
  | {
      readonly action: "take";
      readonly expect: string;
      readonly claim: ClaimRecord;
      readonly from: ClaimWorker;
      readonly why: "released" | "lapsed" | "restarted";
    }
  /** Already this worker's (a push whose answer was lost): nothing to push. */
  | { readonly action: "mine"; readonly sha: string; readonly claim: ClaimRecord }
  /** Another worker holds it within its lease: nothing to push. */
  | { readonly action: "wait"; readonly holder: ClaimWorker; readonly until: string }
  /** Landed: never claimed again. */
  | { readonly action: "done"; readonly by: ClaimWorker };

/** What worker `facts.worker` does to claim a task, given the claim seen on the remote (or none). */
export function planClaim(seen: SeenClaim | undefined, facts: ClaimFacts): ClaimPlan {
  if (seen === undefined) return { action: "create", claim: heldClaim(facts, facts.now.toISOString(), 1) };
  const { claim } = seen;
  if (claim.state === "done") return { action: "done", by: claim.worker };
  const next = heldClaim(facts, facts.now.toISOString(), claim.attempt + 1);
  if (claim.state === "released")
    return { action: "take", expect: seen.sha, claim: next, from: claim.worker, why: "released" };
  if (claim.worker.id === facts.worker.id) return { action: "mine", sha: seen.sha, claim };
  if (facts.restarted?.has(claim.worker.id) === true)
    return { action: "take", expect: seen.sha, claim: next, from: claim.worker, why: "restarted" };
  if (!isLapsed(claim, facts.now, facts.skewMs))
    return { action: "wait", holder: claim.worker, until: claim.expires_at! };
  return { action: "take", expect: seen.sha, claim: next, from: claim.worker, why: "lapsed" };
}

/** Whether others may take a held claim over: past `expires_at` plus the skew by this clock (a held claim without expiry never lapses). */
export function isLapsed(claim: ClaimRecord, now: Date, skewMs = CLAIM_SKEW_MS): boolean {
  if (claim.state !== "held" || claim.expires_at === null) return false;
  return now.getTime() > Date.parse(claim.expires_at) + skewMs;
}

/** Whether the holder should renew now: its lease lapses (by the most hurried clock allowed) within a renewal period. */
export function isRenewDue(claim: ClaimRecord, now: Date, skewMs = CLAIM_SKEW_MS, renewMs = CLAIM_RENEW_MS): boolean {
  if (claim.state !== "held" || claim.expires_at === null) return false;
  return now.getTime() >= Date.parse(claim.expires_at) - skewMs - renewMs;
}

/** A remote that does not answer before landing: the first wait before trying again, doubling up to the longest. */
export const CLAIM_RETRY_FIRST_MS = 1_000;
export const CLAIM_RETRY_LONGEST_MS = 15_000;
/** Retries stop this long before the lease could lapse by the most hurried clock allowed (room for one more call). */
export const CLAIM_RETRY_MARGIN_MS = 30_000;

/**
 * After `failures` failed calls in a row to a remote that did not answer (never a rejected push),
 * the wait before trying again: 1 s, doubling up to 15 s, while the holder's last pushed claim
 * still has ample lease left (until `expires_at` − skew − margin). Undefined: stop trying.
 */
export function outageRetryWait(
  failures: number,
  now: Date,
  claim: ClaimRecord | undefined,
  skewMs = CLAIM_SKEW_MS,
): number | undefined {
  if (claim?.state !== "held" || claim.expires_at === null || failures < 1) return undefined;
  const wait = Math.min(CLAIM_RETRY_LONGEST_MS, CLAIM_RETRY_FIRST_MS * 2 ** Math.min(failures - 1, 30));
  const until = Date.parse(claim.expires_at) - skewMs - CLAIM_RETRY_MARGIN_MS;
  return now.getTime() + wait <= until ? wait : undefined;
}

/** What the holder pushes: a renewal, its release, or done. */
export type HolderChange = "renew" | "release" | "done";

export type HolderPlan =
  | { readonly action: "push"; readonly expect: string; readonly claim: ClaimRecord }
  /** The ref no longer holds this worker's claim: the task is not its own any more. */
  | { readonly action: "lost"; readonly why: string; readonly seen: SeenClaim | undefined };

/**
 * What the holder of a claim pushes to renew, release or finish it: against the sha it sees holding
 * its own claim, so a claim taken over meanwhile is `lost`, never overwritten. Before landing a
 * worker renews: this is how it notices a lease that lapsed under it (SPEC §23).
 */
export function planHolderChange(
  change: HolderChange,
  seen: SeenClaim | undefined,
  facts: ClaimFacts,
  landed?: ClaimRecord["landed"],
): HolderPlan {
  if (seen === undefined) return { action: "lost", why: "its claim is gone from the remote", seen };
  // The worker id is random per worker process: a claim held under it was pushed by this worker,
  // at the sha it last pushed or at a later one whose answer it never got (a push that timed out).
  if (seen.claim.state !== "held" || seen.claim.worker.id !== facts.worker.id)
    return { action: "lost", why: describeMove(seen.claim), seen };
  const held = seen.claim;
  const now = facts.now.toISOString();
  const claim: ClaimRecord =
    change === "renew"
      ? heldClaim(facts, held.claimed_at, held.attempt)
      : {
          ...held,
          state: change === "release" ? "released" : "done",
          renewed_at: now,
          expires_at: null,
          ...(change === "done" && landed ? { landed } : {}),
        };
  return { action: "push", expect: seen.sha, claim };
}

/** Why a holder's claim is no longer its own, in words (the one line a worker gives when it gives a task back). */
export function describeMove(claim: ClaimRecord): string {
  const who = `worker ${claim.worker.id} (host ${claim.worker.host}, pid ${claim.worker.pid})`;
  switch (claim.state) {
    case "held":
      return `its claim was taken over by ${who} at ${claim.claimed_at}`;
    case "released":
      return `its claim was released by ${who} at ${claim.renewed_at}`;
    case "done":
      return `the task was marked done by ${who} at ${claim.renewed_at}`;
  }
}

/** The commit message of a claim's commit. */
export const claimMessage = (claim: ClaimRecord) =>
  `dotagent claim ${claim.workflow_id}/${claim.task_id}: ${claim.state} by ${claim.worker.id}\n`;

/** A task another worker landed through the remote, to be recorded complete in this clone. */
export interface LandingSeen {
  readonly taskId: string;
  /** The claim commit (its second parent carries the task's report). */
  readonly sha: string;
  readonly claim: ClaimRecord & { readonly landed: { readonly branch: string; readonly commit: string } };
}

/**
 * Which of this clone's tasks other workers landed on `branch` (SPEC §23 "Taking in others'
 * landings"): a `done` claim that names its landing on this workflow's branch, by another worker,
 * of a task this clone has pending or failed. What arrives is history: it can only ever complete
 * such a task here, never start, approve or answer anything; whether the landing commit is in this
 * clone's history is git's to tell (the caller).
 */
export function landingsToTakeIn(
  tasks: ReadonlyArray<{ readonly id: string; readonly status: string }>,
  claims: ReadonlyMap<string, SeenClaim | { readonly sha: string; readonly invalid: string }>,
  branch: string,
  self: ClaimWorker,
): LandingSeen[] {
  const seen: LandingSeen[] = [];
  for (const task of tasks) {
    if (task.status !== "pending" && task.status !== "failed") continue;
    const read = claims.get(task.id);
    if (read === undefined || "invalid" in read) continue;
    const { claim } = read;
    if (claim.state !== "done" || claim.worker.id === self.id || claim.landed == null) continue;
    if (claim.landed.branch !== branch) continue;
    seen.push({ taskId: task.id, sha: read.sha, claim: { ...claim, landed: claim.landed } });
  }
  return seen;
}

/**
 * Every landing the remote's claims name on `branch` (done claims with `landed` on it), whichever
 * worker landed them and whatever the task's state here: what a rewrite of the branch by a person
 * may have dropped (SPEC §23 "A person rewrites the workflow's branch").
 */
export function landingsOn(
  claims: ReadonlyMap<string, SeenClaim | { readonly sha: string; readonly invalid: string }>,
  branch: string,
): LandingSeen[] {
  const seen: LandingSeen[] = [];
  for (const [taskId, read] of claims) {
    if ("invalid" in read) continue;
    const { claim } = read;
    if (claim.state !== "done" || claim.landed == null || claim.landed.branch !== branch) continue;
    seen.push({ taskId, sha: read.sha, claim: { ...claim, landed: claim.landed } });
  }
  return seen;
}
