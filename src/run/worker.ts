// `dotagent run --until-tasks` and `dotagent run --worker` (SPEC §17, §23 "The worker"), the parts
// the runner (runner.ts) asks: where a run stands against the workflow's tasks step (a planning run
// stops there with the plan written; a worker runs only that step's tasks and ends anywhere else,
// never walking on), what a worker did, and its poll and idle clock. A worker with nothing to claim
// waits (2 s, doubling to WORKER_POLL_MS; short again after a claim or a landing taken in), then
// the runner looks again (take in, claim); --idle with nothing claimed
// or taken in ends it. What a step acts on is read from its kind and the definition's order of
// steps, never from a step's name.
import type { Flow } from "../core/flow.js";
import type { RunStep } from "../core/run-step.js";
import { CLAIM_LEASE_MS } from "../core/claims.js";

/**
 * `at`: the workflow is at its tasks step with the plan written (tasks to run, at work elsewhere,
 * or failed too often); `before`: a tasks step is still ahead (its plan not written yet counts);
 * `past`: no tasks step is ahead (the workflow complete too). Undefined for a step that ends the
 * run on its own (`failed`, `stuck`).
 */
export type TasksPosition = "at" | "before" | "past";

export function tasksPosition(flow: Flow, step: RunStep): TasksPosition | undefined {
  switch (step.kind) {
    case "run_tasks":
    case "wait":
    case "dead_tasks":
      return "at";
    case "complete":
      return "past";
    case "init":
    case "plan_tasks":
      return "before";
    case "agents":
    case "gate":
    case "choose_design":
      return aheadOrPast(flow, step.phase);
    case "command":
      return aheadOrPast(flow, step.step);
    case "failed":
    case "stuck":
      return undefined;
  }
}

/** A step other than the tasks step's own: `before` when a tasks step comes at or after it in the definition. */
function aheadOrPast(flow: Flow, id: string): TasksPosition {
  const at = flow.steps.findIndex((s) => s.id === id);
  return flow.steps.some((s, i) => s.kind === "tasks" && i >= at) ? "before" : "past";
}

/** The longest a worker with nothing claimable waits before it looks again (fetch, take in, claim): well inside a lease. */
export const WORKER_POLL_MS = Math.min(30_000, CLAIM_LEASE_MS / 4);
/** A worker's first wait after progress (a claim, a landing taken in): short tasks land often. */
export const WORKER_FIRST_POLL_MS = Math.min(2_000, WORKER_POLL_MS);

/** The wait before the poll after `quiet` polls without progress: `first`, doubling, at most `cap`. */
export function pollWait(quiet: number, first = WORKER_FIRST_POLL_MS, cap = WORKER_POLL_MS): number {
  return Math.min(cap, first * 2 ** Math.min(quiet, 30));
}
/** `--idle` by default: how long a worker waits with nothing claimable and nothing landed. */
export const WORKER_IDLE_MS = 30 * 60_000;

export interface WorkerOptions {
  /** `--idle MINUTES` in ms: nothing claimable and nothing landed for this long ends the worker (`idle`). */
  readonly idleMs?: number;
  /** The first wait between polls after progress (default WORKER_FIRST_POLL_MS); it doubles up to `pollMs`. */
  readonly firstPollMs?: number;
  /** The longest wait between polls (default WORKER_POLL_MS). */
  readonly pollMs?: number;
  /** Waits `ms`, or less once `signal` aborts (SIGTERM, Ctrl-C); tests move it by what the other workers do. */
  readonly sleep?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
  /** The idle clock in ms (default Date.now). */
  readonly clock?: () => number;
}

/**
 * Why a worker ended: `tasks_done` every task of the step complete here (run here or taken in),
 * `past_tasks` the workflow was past its tasks step when it started (both exit 0);
 * `not_at_tasks` before it, `needs_person` tasks failed too often, `idle` --idle passed with
 * nothing claimable, `in_session` tasks at work in another session of this clone (exit 4).
 */
export type WorkerEnd = "tasks_done" | "past_tasks" | "not_at_tasks" | "needs_person" | "idle" | "in_session";

const defaultSleep = (ms: number, signal: AbortSignal | undefined): Promise<void> =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });

/** What one worker did, and its idle clock: idle from the first round that found nothing to claim or take in. */
export class WorkerLog {
  rounds = 0;
  polls = 0;
  readonly ran: string[] = [];
  readonly takenIn: string[] = [];
  ended: WorkerEnd | undefined;
  /** Where the workflow was at the worker's last round. */
  phase: string | null = null;
  private idleSince: number | undefined;
  /** Polls since the last progress: the next wait's place in the schedule (pollWait). */
  private quiet = 0;

  constructor(private readonly options: WorkerOptions = {}) {}

  get idleMs(): number {
    return this.options.idleMs ?? WORKER_IDLE_MS;
  }

  /** A claim round found these claimed and taken in: anything at all ends the idle time and makes the next wait short. */
  round(claimed: readonly string[], takenIn: readonly string[]): void {
    this.rounds++;
    this.takenIn.push(...takenIn);
    if (claimed.length > 0 || takenIn.length > 0) {
      this.idleSince = undefined;
      this.quiet = 0;
    }
  }

  /** Nothing claimable: waits for the next poll (pollWait). False once --idle has passed (the worker ends). */
  async poll(signal: AbortSignal | undefined): Promise<boolean> {
    const clock = this.options.clock ?? Date.now;
    const now = clock();
    this.idleSince ??= now;
    const left = this.idleSince + this.idleMs - now;
    if (left <= 0) return false;
    this.polls++;
    const cap = this.options.pollMs ?? WORKER_POLL_MS;
    const wait = pollWait(this.quiet++, Math.min(this.options.firstPollMs ?? WORKER_FIRST_POLL_MS, cap), cap);
    await (this.options.sleep ?? defaultSleep)(Math.min(wait, left), signal);
    return true;
  }
}

/** What a worker is given that only a planning run takes: the one line that refuses it (usage), or undefined. */
export function workerRefusal(given: {
  request?: string | undefined;
  workflow?: string | undefined;
  change?: string | undefined;
  design?: string | undefined;
  approve?: string | undefined;
  untilTasks?: boolean | undefined;
}): string | undefined {
  const what =
    given.request !== undefined
      ? "request"
      : given.workflow !== undefined
        ? "--workflow"
        : given.change !== undefined
          ? "--change"
          : given.design !== undefined
            ? "--design"
            : given.approve !== undefined
              ? "--approve"
              : given.untilTasks === true
                ? "--until-tasks"
                : undefined;
  return what === undefined
    ? undefined
    : `--worker takes no ${what}: a worker runs the tasks of the plan the workflow is at and never walks a step or answers a gate; the plan comes from dotagent run --until-tasks`;
}
