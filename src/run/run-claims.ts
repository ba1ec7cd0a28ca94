// `dotagent run --claims [REMOTE]` (SPEC §23 "The runner"): the runner takes each task through the
// git remote before its agent starts, renews the lease while the agent works, renews once more
// before landing (a lease taken over meanwhile: the task is given back, not landed; a remote that
// does not answer is tried again while the lease has room, as is the landing push), marks it done
// after landing, and releases it when the task fails or the run stops. A claim decides only which
// worker runs a task, never anything for a person. The git calls are synchronous (execFileSync with
// time-outs, src/store/remote-claims.ts); the renewal timer is unref'd so it never keeps the
// process alive, and injectable so tests move it by hand.
import { CLAIM_RENEW_MS, outageRetryWait, type ClaimWorker, type SeenClaim } from "../core/claims.js";
import { DotagentError } from "../core/errors.js";
import type { OpContext } from "../ops/op-context.js";
import {
  landThroughRemote,
  repoOf,
  takeInBranch,
  takeInLandings,
  workflowBranch,
  type RemoteLanding,
  type TakenLanding,
} from "../ops/remote-landing.js";
import type { ExecutionState } from "../schema/execution.js";
import type { Repo } from "../store/worktrees.js";
import { deadOwnWorkers, recordWorker } from "../store/claim-workers.js";
import { fetchBranchAndClaims, landsThroughRemote, type ReadClaim } from "../store/remote-claims.js";
import { loadSnapshot } from "../store/session.js";
import {
  claimTask,
  finishClaim,
  newWorker,
  releaseClaim,
  renewClaim,
  type ClaimContext,
  type HolderOutcome,
} from "../ops/claims.js";

/** How long a release on the way out may take: best effort, the lease lapses anyway. */
const RELEASE_TIMEOUT_MS = 5_000;

export interface RunClaimsOptions {
  /** The git remote's name (`origin`). */
  readonly remote: string;
  /** This runner as a worker; default a new random id, this host and pid. */
  readonly worker?: ClaimWorker;
  /** The clock the leases are written and read by (tests move it). */
  readonly now?: () => Date;
  /** Calls `renew` every `ms` until the returned stop is called; default an unref'd setInterval. */
  readonly every?: (renew: () => void, ms: number) => () => void;
  /** Each fetch and push's time-out (default CLAIM_REMOTE_TIMEOUT_MS). */
  readonly timeoutMs?: number;
  /** Waits `ms` before a call to a remote that did not answer is tried again (default a timer; tests move it). */
  readonly wait?: (ms: number) => Promise<void>;
  /** The run's stop (Ctrl-C, SIGTERM): a remote that does not answer is not tried again once it aborts. */
  readonly signal?: AbortSignal | undefined;
}

/** A task this runner leaves to others: held by a live worker elsewhere, or landed by one. */
export interface HeldElsewhere {
  readonly task_id: string;
  readonly state: "held" | "done";
  readonly worker: ClaimWorker;
  /** held: when its lease lapses (by its holder's clock); done: null. */
  readonly until: string | null;
}

export type ClaimAnswer =
  /** `line`: said when the claim was taken over from this clone's earlier worker whose process is gone. */
  { readonly mine: true; readonly line?: string } | { readonly mine: false; readonly line: string };

/** Waits `ms`, or less once `signal` aborts. */
const defaultWait = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });

const defaultEvery = (renew: () => void, ms: number) => {
  const timer = setInterval(renew, ms);
  timer.unref();
  return () => clearInterval(timer);
};

/** One run's claims on one workflow: what it holds, what others hold, the renewal timers. */
export class RunClaims {
  readonly worker: ClaimWorker;
  /** Tasks left to others in this run, by id, in the order met (each said once). */
  readonly elsewhere = new Map<string, HeldElsewhere>();
  /** Tasks given back because another worker took their claim over (not claimed again in this run). */
  readonly givenBack = new Set<string>();
  private readonly timers = new Map<string, () => void>();
  /** Each held task's claim as this runner last pushed it: renewals and the landing push against it unlisted. */
  private readonly last = new Map<string, SeenClaim>();
  /** The workflow's claims as the last take-in read them, each used once by the claim that follows it. */
  private known = new Map<string, ReadClaim | null>();
  /** Tasks whose landing through the remote is under way (never pushed twice at once). */
  private readonly landing = new Set<string>();
  private readonly said = new Set<string>();
  private readonly ctx: ClaimContext;
  /** The clone's repository, asked of git once per run (its root does not move while it runs). */
  private repoFound: Repo | undefined;

  constructor(
    root: string,
    workflowId: string,
    private readonly options: RunClaimsOptions,
  ) {
    this.worker = options.worker ?? newWorker();
    this.ctx = {
      remote: {
        cwd: root,
        remote: options.remote,
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      },
      workflowId,
      worker: this.worker,
      ...(options.now ? { now: options.now } : {}),
      restarted: () => deadOwnWorkers(root),
    };
    // Recorded before any claim is pushed: a run restarted here after this process dies takes its claims over at once.
    recordWorker(root, this.worker, (options.now ?? (() => new Date()))());
  }

  get remote(): string {
    return this.options.remote;
  }

  private repo(): Repo {
    return (this.repoFound ??= repoOf(this.ctx.remote.cwd));
  }

  /**
   * Claims a task before its agent starts: this runner's (pushed, or already its own), or left to
   * another worker with the one line that says so. A remote that fails throws `remote_failed`.
   */
  claim(id: string): ClaimAnswer {
    const known = this.known.get(id);
    this.known.delete(id);
    const got = claimTask(this.ctx, id, known);
    if (got.outcome === "claimed" || got.outcome === "held") this.last.set(id, { sha: got.sha, claim: got.claim });
    if (got.outcome === "claimed" && got.restarted === true && got.took_over !== undefined) {
      const w = got.took_over;
      return {
        mine: true,
        line: `${id}: held by worker ${w.id} (host ${w.host}, pid ${w.pid}), an earlier run of this clone whose process is gone; taken over at once`,
      };
    }
    if (got.outcome === "claimed" || got.outcome === "held") return { mine: true };
    const held: HeldElsewhere =
      got.outcome === "waiting"
        ? { task_id: id, state: "held", worker: got.holder, until: got.until }
        : { task_id: id, state: "done", worker: got.by, until: null };
    this.elsewhere.set(id, held);
    return { mine: false, line: `${id}: ${describeElsewhere(held)}; not run here` };
  }

  /** Renews the lease every CLAIM_RENEW_MS while the agent works; failures are left to the renewal before landing. */
  startRenewing(id: string): void {
    const renew = () => {
      try {
        this.renew(id);
      } catch {
        // The remote did not answer: two renewals may fail before the lease lapses, and the
        // renewal before landing tells whether the task is still this runner's.
      }
    };
    this.timers.set(id, (this.options.every ?? defaultEvery)(renew, CLAIM_RENEW_MS));
  }

  /** One renewal, against the claim last pushed (listed again only when the push is rejected). */
  private renew(id: string): HolderOutcome {
    const renewed = renewClaim(this.ctx, id, this.last.get(id));
    if (renewed.outcome === "pushed") this.last.set(id, { sha: renewed.sha, claim: renewed.claim });
    else this.last.delete(id);
    return renewed;
  }

  private stopRenewing(id: string): void {
    this.timers.get(id)?.();
    this.timers.delete(id);
  }

  /**
   * Before landing: renews. Undefined when the task is still this runner's; else why not (the
   * words after `task ID: `), and the task is left to whoever holds it now. A remote that does not
   * answer is tried again while the lease has ample time left (outageRetryWait; one line per outage).
   */
  async beforeLanding(id: string, warn: (line: string) => void): Promise<string | undefined> {
    this.stopRenewing(id);
    let renewed: HolderOutcome;
    try {
      renewed = await this.outlast(id, "renewing its claim before landing", warn, async () => this.renew(id));
    } catch (error) {
      // Landing without knowing whether the claim is still ours would break the promise: not landed.
      if (!(error instanceof DotagentError)) throw error;
      return `its claim could not be renewed before landing (${error.message})`;
    }
    if (renewed.outcome === "pushed") return undefined;
    return renewed.why;
  }

  /**
   * Runs `call`; while it fails with `remote_failed` (the remote did not answer; a rejected push is
   * an outcome, not a failure) and the task's last pushed lease has ample time left, waits and runs
   * it again. The first failure of an outage is one line; the last failure is thrown.
   */
  private async outlast<T>(
    id: string,
    doing: string,
    warn: (line: string) => void,
    call: () => Promise<T>,
  ): Promise<T> {
    for (let failures = 1; ; failures++) {
      try {
        return await call();
      } catch (error) {
        if (!(error instanceof DotagentError) || error.code !== "remote_failed") throw error;
        // A run stopping (Ctrl-C, a CI job's time-out) does not wait an outage out.
        if (this.options.signal?.aborted) throw error;
        const now = (this.options.now ?? (() => new Date()))();
        const wait = outageRetryWait(failures, now, this.last.get(id)?.claim);
        if (wait === undefined) throw error;
        if (failures === 1)
          warn(
            `task ${id}: ${this.remote} did not answer ${doing} (${error.message}); trying again while its lease lasts`,
          );
        if (this.options.wait) await this.options.wait(wait);
        else await defaultWait(wait, this.options.signal);
        if (this.options.signal?.aborted) throw error;
      }
    }
  }

  /**
   * Fetches the workflow's branch, merges it into this clone's and records the tasks other workers
   * landed there as complete here (SPEC §23 "Taking in others' landings"). A remote that fails is
   * `remote_failed`; a branch that cannot be merged here `branch_diverged`.
   */
  async takeIn(opContext: OpContext): Promise<TakenLanding[]> {
    // Each line about what could not be taken in is said once per run, however often it is met.
    const context: OpContext = {
      ...opContext,
      warn: (line) => {
        if (this.said.has(line)) return;
        this.said.add(line);
        opContext.warn(line);
      },
    };
    const snapshot = await loadSnapshot(context.paths);
    const execution = snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined;
    const branch = workflowBranch(context.paths.root, execution);
    // A shared round, or a branch name a claim cannot carry: nothing lands through the remote.
    if (branch === undefined || !landsThroughRemote(branch)) return [];
    // The branch and the claims in one listing and one fetch (SPEC §23 "Fewer network calls").
    const { tip, claims } = fetchBranchAndClaims(this.ctx.remote, this.ctx.workflowId, branch);
    await takeInBranch(context, this.ctx.remote, branch, tip, this.repo());
    this.known = new Map(
      (execution?.tasks ?? [])
        .filter((t) => t.status === "pending" || t.status === "failed")
        .map((t) => [t.id, claims.get(t.id) ?? null]),
    );
    await this.landAgain(context, branch, execution, claims);
    return takeInLandings(context, this.ctx, branch, claims, this.repo());
  }

  /**
   * Tasks landed here whose landing push failed (SPEC §23 "A landing push that failed"): complete
   * here, merged into `branch`, their claim still `held` by this runner or by this clone's earlier
   * worker whose process is gone (taken over first). Each is pushed again, before anything else is
   * claimed, so no other worker runs it again once the lease lapses.
   */
  private async landAgain(
    context: OpContext,
    branch: string,
    execution: ExecutionState | undefined,
    claims: Map<string, ReadClaim>,
  ): Promise<void> {
    if (execution === undefined || execution.workflow_id !== this.ctx.workflowId) return;
    let restarted: ReadonlySet<string> | undefined;
    for (const task of execution.tasks) {
      const merge = task.worktree?.merge;
      if (task.status !== "complete" || merge?.state !== "merged" || task.worktree?.into !== branch) continue;
      if (this.landing.has(task.id) || this.timers.has(task.id)) continue;
      const read = claims.get(task.id);
      if (read === undefined || "invalid" in read || read.claim.state !== "held") continue;
      const holder = read.claim.worker;
      if (holder.id !== this.worker.id) {
        restarted ??= deadOwnWorkers(context.paths.root);
        if (!restarted.has(holder.id)) continue;
        let got;
        try {
          got = claimTask({ ...this.ctx, restarted: () => restarted! }, task.id);
        } catch (error) {
          if (!(error instanceof DotagentError)) throw error;
          continue;
        }
        if (got.outcome !== "claimed") continue;
      }
      context.warn(
        `task ${task.id}: landed in ${branch} here but its landing never reached ${this.remote} (its claim still held by this clone); pushing it again before anything else`,
      );
      await this.landed(context, task.id, { branch, commit: merge.commit ?? null }, context.warn);
    }
  }

  /**
   * After the local landing: with a workflow branch (a worktree round), the landing through the
   * remote, one atomic push of the branch and the claim's `done` carrying the report (SPEC §23);
   * without one, the claim marked done. Never claimed again either way. A failure is one line:
   * the task stays landed here; a branch that cannot be merged releases the claim.
   */
  async landed(
    context: OpContext,
    id: string,
    into: { branch: string; commit: string | null } | undefined,
    warn: (line: string) => void,
  ): Promise<void> {
    this.stopRenewing(id);
    if (into === undefined || !landsThroughRemote(into.branch)) {
      this.settle(id, "done", warn);
      return;
    }
    let landing: RemoteLanding;
    this.landing.add(id);
    try {
      landing = await this.outlast(id, "landing it", warn, () =>
        landThroughRemote(context, this.ctx, id, into.branch, into.commit, this.last.get(id), this.repo()),
      );
      this.last.delete(id);
    } catch (error) {
      if (!(error instanceof DotagentError)) throw error;
      warn(
        `task ${id}: landed in ${into.branch} here but not on ${this.remote} (${error.message}); pushed again before this clone claims anything else`,
      );
      return;
    } finally {
      this.landing.delete(id);
    }
    if (landing.outcome === "pushed") return;
    if (landing.outcome === "lost") {
      warn(`task ${id}: landed in ${into.branch} here but not pushed to ${this.remote}: ${landing.why}`);
      return;
    }
    this.settle(id, "release", warn);
    warn(
      `task ${id}: landed in ${into.branch} here, not on ${this.remote}: ${landing.why}; its claim released, nothing lost (for the person: ${landing.remedy ?? `git pull ${this.remote} ${into.branch}, settle it, push`})`,
    );
  }

  /** The task failed, was given back or the run stops: the claim released, best effort. */
  release(id: string, warn: (line: string) => void): void {
    this.stopRenewing(id);
    this.settle(id, "release", warn);
  }

  /** Every renewal timer stopped (the run ends). */
  stopAll(): void {
    for (const id of [...this.timers.keys()]) this.stopRenewing(id);
  }

  private settle(id: string, change: "done" | "release", warn: (line: string) => void): void {
    const ctx =
      change === "release"
        ? {
            ...this.ctx,
            remote: {
              ...this.ctx.remote,
              timeoutMs: Math.min(RELEASE_TIMEOUT_MS, this.options.timeoutMs ?? RELEASE_TIMEOUT_MS),
            },
          }
        : this.ctx;
    try {
      const last = this.last.get(id);
      this.last.delete(id);
      const result = change === "done" ? finishClaim(ctx, id, last) : releaseClaim(ctx, id, last);
      if (result.outcome === "lost")
        warn(
          `task ${id}: its claim on ${this.remote} was not ${change === "done" ? "marked done" : "released"}: ${result.why}`,
        );
    } catch (error) {
      if (!(error instanceof DotagentError)) throw error;
      warn(
        `task ${id}: its claim on ${this.remote} was not ${change === "done" ? "marked done" : "released"} (${error.message})${change === "release" ? "; its lease lapses by itself" : ""}`,
      );
    }
  }
}

/** A task held or landed elsewhere, in words (after `ID: `). */
export function describeElsewhere(held: HeldElsewhere): string {
  const who = `worker ${held.worker.id} (host ${held.worker.host}, pid ${held.worker.pid})`;
  return held.state === "done"
    ? `landed by ${who}, not in this clone yet`
    : `held by ${who} until ${held.until ?? "?"}`;
}
