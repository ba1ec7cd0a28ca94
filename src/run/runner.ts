// The headless runner behind `dotagent run`: the /develop loop without an interactive session.
// Each round reads the resume plan from disk (openWorkflow().resume), turns its `next` into one
// step (core/run-step.ts), carries the step out (agents through the Claude Agent SDK, gates asked,
// answered by --approve auto or --change, or without a terminal handed back as a GateDecision,
// plans recorded whole, task batches in parallel) and records it
// with the same operations the CLI uses. Everything it knows is on disk after every step, so a
// runner killed anywhere is continued by running it again: finished steps are never redone, and
// an agent cut off mid-session continues its own SDK session (agent-session.ts). Ctrl-C (the
// `signal`) stops the agents at work, keeps their sessions, gives back the tasks it started and
// ends with `interrupted` (interrupt.ts); nothing is marked failed. A workflow with a pinned
// definition (SPEC §20) is walked the same way, by its steps' kinds: agents from the step (the
// project's .claude/agents/ first), gates on any agent step, the step commands run by `step run`.
import { tellingLine } from "../core/telling-line.js";
import { GITIGNORE_LINES, mergeGitignore } from "../claude/gitignore.js";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import { replacesComplete, shellQuote, workflowFlag, type Decision } from "../core/plan-resume.js";
import { reworkCopyPath, REPORT, type Phase } from "../core/phases.js";
import { nextRunStep, tasksToPlan, type AgentJob, type RunFacts, type RunStep } from "../core/run-step.js";
import { revisionJobs, withFeedback, type FeedbackGate } from "../core/revision.js";
import { designsView, reportView, requirementsView, type DesignOption } from "../core/gate-view.js";
import { DEVELOP, nextStepId, planSourceOf, stepAgents, stepOf, type Flow } from "../core/flow.js";
import { flowOrDefault, pinFlow } from "../core/flow-of.js";
import { approvalAt, approvalsOf } from "../core/gates.js";
import { kindOf } from "../core/steps/index.js";
import { sendsWorkBack } from "../core/steps/check.js";
import { skippedSteps } from "../core/steps/tasks.js";
import { runStep } from "../ops/step-run.js";
import type { Decide } from "../ops/resume.js";
import { commitAtStart, dirtyCheckoutAtStart } from "../ops/checkout-start.js";
import { ISOLATION_CHOICES, startIsolationQuestion } from "../core/worktrees.js";
import { resolveWorkflowName } from "../ops/workflow-name.js";
import { count, formatDuration } from "../core/words.js";
import { isReworkOpen, isWorkflowComplete } from "../core/transitions.js";
import { mkdirInside, writeFileInside, writeJsonInside } from "../store/write-file.js";
import { readProjectText } from "../store/read-file.js";
import { loadSnapshot } from "../store/session.js";
import { projectPaths } from "../store/project.js";
import { assertStatePaths } from "../store/state-paths.js";
import { workflowAt, type Workflow } from "../api/workflow.js";
import { addDirToCommands, decisionWithDir } from "../ops/decision-dir.js";
import { changeTask } from "../ops/task-change.js";
import { locked, type OpContext } from "../ops/op-context.js";
import { appendEvents } from "../store/events.js";
import { acquireLock, readLock } from "../store/lock.js";
import type { QueryMessage, QuerySdk } from "../api/recoverable-query.js";
import { runAgentJob, runsDir, type AgentOutcome, type AgentRunContext } from "./agent-session.js";
import { describeActivity } from "./activity.js";
import { findLiveAgents, type LiveAgent } from "./live-agents.js";
import { checkLogin, checkReachable } from "./login-check.js";
import { interruptedError, isInterrupted } from "./interrupt.js";
import { RunMemoryStore, type PendingFeedback, type RunMemory } from "./run-memory.js";
import { agentsForFlow, readProjectInstructions, type AgentFile } from "./agent-files.js";
import { taskBar, type Progress } from "./progress.js";
import { RunClaims, type HeldElsewhere, type RunClaimsOptions } from "./run-claims.js";
import { readyTasks } from "../core/tasks.js";
import { tasksPosition, workerRefusal, WorkerLog, type WorkerEnd, type WorkerOptions } from "./worker.js";
import { newWorker } from "../ops/claims.js";
import type { ClaimWorker } from "../core/claims.js";

export interface Choice {
  /** The answer's value. */
  readonly name: string;
  /** What the person sees (default: the name). */
  readonly title?: string;
  readonly hint: string;
}

/**
 * Questions for a person. Without a terminal every answer is `undefined` (the run stops with a
 * decision). A person who cancels a question (Ctrl-C, Esc) makes it throw `interrupted`.
 */
export interface Asker {
  /** Whether a person can be asked at all (a terminal); without one every question is a decision. */
  readonly interactive: boolean;
  confirm(question: string, initial: boolean): Promise<boolean | undefined>;
  choose(question: string, choices: readonly Choice[], initial: string): Promise<string | undefined>;
  /** Free text ("" when the person typed nothing). */
  text(question: string): Promise<string | undefined>;
}

export interface RunOptions {
  readonly root: string;
  /**
   * `--max-cost USD`: this run's cost cap, the sessions' estimated cost as the SDK reports it
   * (`total_cost_usd`; each session also gets `maxBudgetUsd` = what is left). Reached: the run
   * stops cleanly (`budget_reached`, exit 1), nothing marked failed; the next run goes on.
   */
  readonly maxCostUsd?: number | undefined;
  /** How long to wait for a usage limit whose reset the API did not say (doubling, up to 15 min). Tests shorten it. */
  readonly limitWaitMs?: number | undefined;
  readonly request?: string | undefined;
  /** `--workflow NAME`: the definition a workflow this run starts walks (SPEC §20); default develop. */
  readonly workflow?: string | undefined;
  /** --approve as given; absent: what this workflow's runs remembered (run-memory.ts), else ask. */
  readonly approve?: "ask" | "auto" | undefined;
  readonly design?: string | undefined;
  readonly maxParallel?: number | undefined;
  readonly agents: ReadonlyMap<string, AgentFile>;
  /**
   * The project's context, as an interactive session has it (the CLI, unless --agents names the
   * agent files): its installed `.claude/agents/` first, its CLAUDE.md in every agent's prompt,
   * and the .gitignore lines `dotagent install` writes (SPEC §17). Off for the library by default.
   */
  readonly projectContext?: boolean | undefined;
  /** The helper command line executors use for `dotagent once`. */
  readonly helper: string;
  readonly ask: Asker;
  readonly progress: Progress;
  /** The Agent SDK's query(), loaded by the caller (an optional peer dependency). */
  readonly sdk?: QuerySdk<QueryMessage>;
  readonly sdkOptions?: Record<string, unknown>;
  readonly now?: () => Date;
  /** Milliseconds from a fixed point, for elapsed times (default performance.now()). */
  readonly clock?: () => number;
  /** The --dir the run was given, repeated in every decision's commands. */
  readonly dirArg?: string | undefined;
  /** The --agents the run was given, repeated in every `dotagent run` a decision prints (the same agents go on). */
  readonly agentsArg?: string | undefined;
  /**
   * `--change TEXT`: the person's answer to the gate the workflow waits at (no terminal needed):
   * the report goes back to its agent with these words, as "Change something" at a terminal
   * sends it, then the gate is asked again. Refused (usage) where the workflow waits at no such gate.
   */
  readonly change?: string | undefined;
  /** Aborted by Ctrl-C: the run stops what it does and throws `interrupted`. */
  readonly signal?: AbortSignal;
  /** The API address Claude Code will call, asked once before anything starts (login-check.ts); absent: not asked. */
  readonly apiUrl?: string | null | undefined;
  /**
   * `--claims [--remote NAME]`: each task is claimed on the git remote before its agent starts (SPEC §23
   * "The runner"); a task another worker holds or landed is left to it.
   */
  readonly claims?: RunClaimsOptions | undefined;
  /**
   * `--until-tasks`: the run walks steps and gates as usual and stops once the workflow is at its
   * tasks step with the plan written, before any task runs (`tasks_ready`); past that step it runs
   * nothing (`past_tasks`). Workers (`--worker`) then run the tasks.
   */
  readonly untilTasks?: boolean | undefined;
  /**
   * `--worker`: the run is a worker (SPEC §23 "The worker"): with claims (default remote origin) it
   * runs only the tasks of the tasks step the workflow is at, polls while others hold what is left,
   * and ends where a planning or finishing run takes over; it never asks anything.
   */
  readonly worker?: WorkerOptions | undefined;
}

/** One of the designs a person can pick, with the command that picks it. */
export interface DesignChoice {
  design: string;
  one_line: string;
  recommended: boolean;
  command: string;
}

/**
 * A gate met without a terminal, as fields (SPEC §17): which step, the report it approves, what the
 * terminal gate would show of it (gate-view.ts, the same lines), and the commands that answer it.
 */
export interface GateDecision {
  step: string;
  report: string;
  /** The report's substance as the terminal gate shows it. */
  shown: string[];
  /** Approves and goes on (at the pick: the recommended design's command; every design's is in `choices`). */
  approve: string;
  /** Sends the report back to its agent with what should change (the placeholder replaced); null where the gate takes none. */
  change: string | null;
}

/** The text a printed `--change` command holds until the person puts their words there. */
export const CHANGE_PLACEHOLDER = "<what should change>";

interface Summary {
  /** Wall time of this run. */
  elapsed_ms: number;
  /** The reports written during this run, in order (agents' and the runner's own). */
  reports: string[];
}

export type RunOutcome =
  | ({ outcome: "complete"; workflow_id: string; steps: number; agents: number } & Summary)
  | ({
      outcome: "decision";
      workflow_id: string | null;
      steps: number;
      agents: number;
      decision: Decision;
      choices?: DesignChoice[];
      gate?: GateDecision;
    } & Summary)
  | ({
      outcome: "waiting";
      workflow_id: string;
      steps: number;
      agents: number;
      in_flight: readonly string[];
      /** --claims: the tasks other workers hold or landed, as their claims said when this run met them. */
      held_elsewhere?: HeldElsewhere[];
    } & Summary)
  /** --until-tasks: at the tasks step `step`, the plan written; `tasks` those not complete yet, in the plan's order. */
  | ({
      outcome: "tasks_ready";
      workflow_id: string;
      steps: number;
      agents: number;
      step: string;
      tasks: string[];
    } & Summary)
  /** --until-tasks: no tasks step is ahead; `phase` is where the workflow is. */
  | ({ outcome: "past_tasks"; workflow_id: string; steps: number; agents: number; phase: string | null } & Summary);

/** --worker: what the worker did, beside the run's usual fields (SPEC §23 "The worker"). */
export interface WorkerFields {
  worker: ClaimWorker;
  ended: WorkerEnd;
  /** Where the workflow was at the worker's last round. */
  phase: string | null;
  /** Tasks whose agent this worker ran, in the order started. */
  ran: string[];
  /** Tasks other workers landed that this worker took in. */
  taken_in: string[];
  /** Claim rounds (take in, then claim) and the polls between them. */
  rounds: number;
  polls: number;
  held_elsewhere: HeldElsewhere[];
}

export type WorkerOutcome = RunOutcome & WorkerFields;

/** Rounds without a finished workflow before the runner gives up: far more than any real workflow takes. */
const MAX_ROUNDS = 1000;
/** An agent whose report is still missing after this many sessions in one run fails its phase. */
const MAX_AGENT_SESSIONS = 2;
/** The pick's answers besides a design (not ids: a design name never has a space). */
const CHANGE = " change";
const STOP = " stop";

interface Run {
  readonly options: RunOptions;
  /** The project's CLAUDE.md for the agents (projectContext), read once. */
  instructions?: string | undefined;
  readonly wf: Workflow;
  readonly clock: () => number;
  readonly started: number;
  steps: number;
  agents: number;
  readonly sessions: Map<string, number>;
  /** Usage-limit waits made so far (MAX_LIMIT_WAITS at most). */
  limitWaits: number;
  /** The sessions' estimated cost in this run (USD, as the SDK reports it). */
  spent: number;
  /** Each job's last reply, for the message when it fails. */
  readonly said: Map<string, string>;
  /** Reports written in this run, in order. */
  readonly written: string[];
  /** Set once the workflow is known: its remembered settings, the gates' mode. */
  memory?: RunMemoryStore;
  approve: "ask" | "auto";
  introduced: boolean;
  /** Agent sessions at work now. */
  working: number;
  /** The flow the workflow walks (read afresh each round): its pinned definition, else develop. */
  flow: Flow;
  /** Whether phase.json pins a definition: else (develop's phase.json, as every dotagent wrote it) the sessions of earlier dotagents were keyed by agent alone, and the library's agent files are used as given. */
  pinned: boolean;
  /** `--change TEXT` not yet given to the gate it answers (once per run). */
  change: string | undefined;
  /** --claims: this run's claims, made when the first tasks are to run. */
  claims?: RunClaims;
  /** --worker: what it did so far, and its idle clock. */
  worker?: WorkerLog;
  /** Lines said once however often they are met (a task another worker holds, polled again). */
  readonly told: Set<string>;
}

/**
 * One runner per project at a time (memory/runs/.lock, the state lock's mechanism): two would
 * spawn the same agent twice. The state lock itself is taken per operation, as by the CLI, so
 * `dotagent status` and an interactive session keep working while a run goes on.
 */
export async function runWorkflow(given: RunOptions): Promise<RunOutcome> {
  const options = given.worker === undefined ? given : asWorker(given);
  const paths = projectPaths(options.root);
  assertStatePaths(paths); // nothing is created under a --dir that is not the project's folder
  if (!existsSync(paths.stateDir) && !options.request)
    throw new DotagentError(
      "usage",
      'no workflow here to continue; give the feature request: dotagent run "add login"',
      EXIT.usage,
    );
  // A definition that does not resolve is one line (exit 3) before anything is asked or written.
  const asked = options.workflow === undefined ? undefined : await resolveWorkflowName(options.root, options.workflow);
  await checkChange(options);
  await checkBeforeStart(options);
  if (options.signal?.aborted) throw interruptedError();
  const dir = runsDir(options.root);
  mkdirInside(options.root, dir); // memory/runs a link out of the project: refused before anything is written there
  let lock;
  try {
    lock = acquireLock(dir, { command: "run", waitMs: 0 });
  } catch (error) {
    if (!(error instanceof DotagentError) || error.code !== "locked") throw error;
    const holder = readLock(dir);
    const who = holder && holder !== "unreadable" ? `pid ${holder.pid} on ${holder.hostname}` : "another process";
    throw new DotagentError(
      "run_locked",
      `another dotagent run (${who}) drives this workflow (memory/runs/.lock); wait for it, or stop it and run again`,
      EXIT.locked,
    );
  }
  for (const warning of lock.warnings) options.progress.line(warning, { mark: "warning" });
  try {
    // Before anything starts: an agent a killed run left running still works on its job.
    const live = findLiveAgents(dir);
    if (live.length > 0) throw agentsRunning(live);
    return await drive(options, asked);
  } finally {
    options.progress.end();
    lock.release();
  }
}

/**
 * A worker: refused what only a planning run takes (usage); claims on (default origin) under one
 * identity from the start, so its result names it even when it claimed nothing; asks nothing.
 */
function asWorker(options: RunOptions): RunOptions {
  const refused = workerRefusal({ ...options, approve: options.approve });
  if (refused !== undefined) throw new DotagentError("usage", refused, EXIT.usage);
  const claims = options.claims ?? { remote: "origin" };
  return {
    ...options,
    claims: { ...claims, worker: claims.worker ?? newWorker() },
    ask: {
      interactive: false,
      confirm: async () => undefined,
      choose: async () => undefined,
      text: async () => undefined,
    },
  };
}

/**
 * `--change TEXT` answers the gate the workflow waits at now; anywhere else it would be carried to
 * a gate the person has not seen yet. Refused (usage, exit 2) before anything is asked or written.
 */
async function checkChange(options: RunOptions): Promise<void> {
  if (options.change === undefined) return;
  // The words themselves (empty, the printed placeholder, with a request or --design) are checked by the CLI (run.ts).
  const plan = await workflowAt(
    options.root,
    { ...(options.now ? { now: options.now } : {}), onWarning: () => {} },
    options.dirArg,
  ).resume({ dryRun: true });
  const gate = plan.next.action === "await_approval" ? plan.next.gate : undefined;
  // A gate takes changes when an agent revises what it shows (a report, or every design: gates.ts).
  const approval = gate === undefined ? undefined : approvalAt((await readFacts(options.root)).flow, plan.next);
  if (approval?.takesChanges === true) return;
  const where =
    plan.workflow_id === null
      ? "there is no workflow here"
      : `workflow ${plan.workflow_id} is at ${plan.phase ?? "?"}, not at a gate that takes changes${approval?.instead ? ` (${approval.instead})` : ""}`;
  throw new DotagentError(
    "usage",
    `--change answers the gate a workflow waits at, and ${where}; run dotagent run without --change`,
    EXIT.usage,
    { action: plan.next.action, ...(gate ? { gate } : {}) },
  );
}

/**
 * Before anything is created: a Claude Code that cannot log in, or an API nobody answers, would
 * fail every agent (after minutes of retries). Both asked at once (the login first in the
 * answer); each is one line, exit 1.
 */
async function checkBeforeStart(options: RunOptions): Promise<void> {
  const probe = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, probe.signal]) : probe.signal;
  const reach =
    typeof options.apiUrl === "string" ? checkReachable(options.apiUrl, 5_000, signal) : Promise.resolve(null);
  const login = options.sdk
    ? await checkLogin(options.sdk, {
        cwd: options.root,
        settingSources: [],
        permissionMode: "dontAsk",
        ...options.sdkOptions,
      })
    : null;
  if (login !== null) {
    probe.abort(); // no need to wait for the API: nothing could use it
    throw new DotagentError(
      "auth_failed",
      `Claude Code is not logged in: ${login}; log in, then run dotagent run again (nothing was started)`,
      EXIT.refused,
    );
  }
  const why = await reach;
  if (options.signal?.aborted) throw interruptedError();
  if (why !== null) {
    const where = process.env.ANTHROPIC_BASE_URL ? "ANTHROPIC_BASE_URL and the network" : "the network";
    throw new DotagentError(
      "api_unreachable",
      `the Claude API at ${options.apiUrl} does not answer (${why}); check ${where}, then run dotagent run again (nothing was started)`,
      EXIT.refused,
      { url: options.apiUrl, why },
    );
  }
}

function agentsRunning(live: readonly LiveAgent[]): DotagentError {
  const first = live[0]!;
  const pids = live.map((a) => a.process.pid).join(" ");
  return new DotagentError(
    "agent_running",
    `an agent started by an earlier dotagent run is still running: ${first.key} (Claude Code pid ${first.process.pid}, since ${first.process.started_at})${live.length > 1 ? ` and ${live.length - 1} more` : ""}; that run was stopped but its agent was not, so no second one is started on the same job: wait for it to end, or stop it (kill ${pids}), then run dotagent run again`,
    EXIT.locked,
    { agents: live.map((a) => ({ key: a.key, pid: a.process.pid, started_at: a.process.started_at })) },
  );
}

/** How many usage-limit waits one run makes before it stops and says so. */
const MAX_LIMIT_WAITS = 6;
const LIMIT_WAIT_CAP_MS = 15 * 60_000;

/**
 * Waits for a usage limit's reset (the time the API said, a few seconds after it; else 60 s,
 * doubling, at most 15 min), the countdown on the live line. Ctrl-C ends the wait as a clean stop.
 */
async function waitForLimit(run: Run, resetsAt: number | undefined): Promise<void> {
  const { options } = run;
  const now = () => (options.now ?? (() => new Date()))().getTime();
  const guess = Math.min(LIMIT_WAIT_CAP_MS, (options.limitWaitMs ?? 60_000) * 2 ** run.limitWaits);
  const margin = Math.min(5_000, options.limitWaitMs ?? 5_000);
  const until =
    resetsAt !== undefined && resetsAt > now() ? Math.min(resetsAt + margin, now() + 6 * 60 * 60_000) : now() + guess;
  run.limitWaits++;
  const at = new Date(until).toISOString().slice(11, 16);
  options.progress.line(
    `usage limit reached: waiting until ${at} UTC${resetsAt === undefined ? " (the API gave no reset time)" : ""}, then going on; Ctrl-C stops cleanly`,
    { mark: "warning" },
  );
  const activity = options.progress.begin("usage limit");
  try {
    while (now() < until) {
      throwIfInterrupted(run);
      activity.update(`resets in ${formatDuration(until - now())}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(1000, Math.max(10, until - now())));
        options.signal?.addEventListener(
          "abort",
          () => {
            clearTimeout(timer);
            resolve();
          },
          { once: true },
        );
      });
    }
    throwIfInterrupted(run);
  } finally {
    activity.end();
  }
}

/** The cost cap reached: a clean stop, nothing marked failed; the next run goes on. */
function budgetReached(run: Run): DotagentError {
  const cap = run.options.maxCostUsd ?? 0;
  return new DotagentError(
    "budget_reached",
    `the cost cap of $${cap.toFixed(2)} is reached: about $${run.spent.toFixed(2)} spent in this run (the SDK's estimate); nothing was marked failed; dotagent run goes on from here (--max-cost for another budget)`,
    EXIT.refused,
    { cap, spent: Math.round(run.spent * 10_000) / 10_000 },
  );
}

/**
 * A session ended on an account, API or budget problem (`outcome.blocked`): thrown by the batch
 * that met it to end the step, and read by the loop as data (a usage limit is waited for; the
 * rest become blockedFailure's one line), never recognised from an error's code.
 */
class Blocked {
  constructor(readonly outcome: AgentOutcome) {}

  /** A usage or rate limit: its reset is waited for, then the cut-off session resumes. */
  get limit(): { resetsAt: number | undefined } | undefined {
    const blocked = this.outcome.blocked;
    return blocked?.kind === "service" && blocked.error === "rate_limit" ? { resetsAt: blocked.resetsAt } : undefined;
  }
}

/** A session ended on an account or API problem: the run stops, and nothing is marked failed for it. */
function blockedFailure(outcome: AgentOutcome, run?: Run): DotagentError {
  const said = outcome.said.replace(/\s+/g, " ").trim().slice(0, 200);
  const quoted = said ? ` ("${said}")` : "";
  const error = outcome.blocked?.error ?? "unknown";
  if (outcome.blocked?.kind === "budget" && run !== undefined) return budgetReached(run);
  if (outcome.blocked?.kind === "service") {
    return new DotagentError(
      "api_unavailable",
      `the Claude API cannot be used right now (${error})${quoted}; run dotagent run again later; nothing was marked failed`,
      EXIT.refused,
      { error, ...(outcome.blocked.resetsAt !== undefined ? { resetsAt: outcome.blocked.resetsAt } : {}) },
    );
  }
  const what =
    error === "authentication_failed"
      ? "Claude Code could not authenticate"
      : `Claude Code cannot use its account (${error})`;
  return new DotagentError(
    "auth_failed",
    `${what}${quoted}; fix that (\`claude\` then /login, or ANTHROPIC_API_KEY), then run dotagent run again; nothing was marked failed`,
    EXIT.refused,
    { error },
  );
}

function throwIfInterrupted(run: Run, kept: readonly string[] = []): void {
  if (run.options.signal?.aborted) throw interruptedError(kept);
}

/** `asked`: the definition --workflow names, resolved (undefined: no --workflow). */
async function drive(options: RunOptions, asked: Flow | undefined): Promise<RunOutcome> {
  const now = options.now ?? (() => new Date());
  const clock = options.clock ?? (() => performance.now());
  const run: Run = {
    options,
    wf: workflowAt(
      options.root,
      { now, onWarning: (m) => options.progress.line(m, { mark: "warning" }) },
      options.dirArg,
    ),
    clock,
    started: clock(),
    steps: 0,
    agents: 0,
    sessions: new Map(),
    limitWaits: 0,
    spent: 0,
    said: new Map(),
    written: [],
    approve: options.approve ?? "ask",
    introduced: false,
    working: 0,
    // Until the state is read (each round, and as a workflow starts): the one the run was asked
    // for, --workflow, else develop (SPEC §20's default for a workflow a run starts).
    flow: asked ?? DEVELOP,
    pinned: asked !== undefined && pinFlow(asked) !== undefined,
    change: options.change,
    told: new Set(),
    ...(options.worker ? { worker: new WorkerLog(options.worker) } : {}),
  };
  // Ctrl-C: said at once; stopping the agents takes the SDK about two seconds.
  const stopping = () => {
    if (run.working > 0)
      options.progress.line(
        `interrupted: stopping ${count(run.working, "agent")}; ${run.working === 1 ? "its session is" : "their sessions are"} kept for the next run (Ctrl-C again stops at once)`,
        { mark: "warning" },
      );
  };
  options.signal?.addEventListener("abort", stopping, { once: true });
  try {
    const outcome = await loop(run);
    return run.worker ? workerOutcome(run, run.worker, outcome) : outcome;
  } finally {
    options.signal?.removeEventListener("abort", stopping);
    run.claims?.stopAll();
  }
}

async function loop(run: Run): Promise<RunOutcome> {
  const { options } = run;
  let request = options.request;
  await checkWorkflowName(options);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    throwIfInterrupted(run);
    if (options.maxCostUsd !== undefined && run.spent >= options.maxCostUsd) throw budgetReached(run);
    // A new request over a complete workflow: started in its place without asking, by the run's own
    // start (init archives a complete workflow, as /develop does), never put to the person.
    if (request !== undefined && replacesComplete(await run.wf.resume({ request, dryRun: true }))) {
      request = undefined;
      const started = await carryOut(
        run,
        { kind: "init" },
        { workflowId: "", phase: null, request: options.request ?? "", approved: [] },
      );
      if (started !== undefined) return started;
      run.steps++;
      continue;
    }
    // --workflow goes with the request: a changed request's new workflow walks it too.
    const plan = await run.wf.resume({
      ...(request !== undefined
        ? { request, ...(options.workflow !== undefined ? { workflow: options.workflow } : {}) }
        : {}),
      ...(options.maxParallel !== undefined ? { maxParallel: options.maxParallel } : {}),
      ...(options.ask.interactive ? { decide: (d: Decision) => askDecision(run, d) } : {}),
    });
    request = undefined; // checked once; the workflow holds it from here on
    if (plan.decision)
      return {
        outcome: "decision",
        workflow_id: plan.workflow_id,
        steps: run.steps,
        agents: run.agents,
        decision: plan.decision,
        ...summary(run),
      };
    const facts = await readFacts(options.root);
    run.flow = facts.flow;
    run.pinned = facts.pinned;
    const step = nextRunStep(plan, runFacts(facts, plan.phase));
    if (plan.workflow_id) await introduce(run, plan.workflow_id, facts, plan.phase, false, step.kind === "complete");
    // What resume did on the way (a cut-off task queued again, a phase found done): said as it happened.
    for (const repair of plan.repairs ?? []) options.progress.line(repair.message);
    if (run.worker) {
      run.worker.phase = plan.phase;
      const stop = workerStop(run, run.worker, step, plan.workflow_id ?? "", plan.phase);
      if (stop !== undefined) return stop;
    }
    if (options.untilTasks === true) {
      const stop = await stopAtTasks(run, step, plan.workflow_id ?? "", plan.phase);
      if (stop !== undefined) return stop;
    }
    if (plan.phase && step.kind !== "complete" && step.kind !== "init") options.progress.phase(plan.phase);
    let outcome: RunOutcome | undefined;
    try {
      outcome = await carryOut(run, step, {
        workflowId: plan.workflow_id ?? "",
        phase: plan.phase,
        request: facts.request ?? options.request ?? "",
        approved: facts.approved,
      });
    } catch (error) {
      if (!(error instanceof Blocked)) throw error;
      // A usage or rate limit is never an agent's failure: wait for its reset, then go on (the cut-off session resumes).
      const limit = error.limit;
      if (limit === undefined || run.limitWaits >= MAX_LIMIT_WAITS) throw blockedFailure(error.outcome, run);
      await waitForLimit(run, limit.resetsAt);
      continue;
    }
    if (outcome !== undefined) return outcome;
    run.steps++;
  }
  throw new DotagentError(
    "run_stuck",
    `the workflow did not finish in ${MAX_ROUNDS} steps; run \`dotagent resume\` to see where it stands`,
    EXIT.refused,
  );
}

/**
 * --until-tasks: the run ends once the workflow is at its tasks step with the plan written (tasks
 * that failed too often are still the person's to decide first), or when no tasks step is ahead.
 */
async function stopAtTasks(
  run: Run,
  step: RunStep,
  workflowId: string,
  phase: Phase | null,
): Promise<RunOutcome | undefined> {
  const say = run.options.progress.line;
  const position = tasksPosition(run.flow, step);
  const done = { workflow_id: workflowId, steps: run.steps, agents: run.agents };
  if (position === "past") {
    say(`workflow ${workflowId} is past its tasks step (at ${phase ?? "its end"}): --until-tasks runs nothing more`);
    return { outcome: "past_tasks", ...done, phase, ...summary(run) };
  }
  if (position !== "at" || step.kind === "dead_tasks") return undefined;
  const snapshot = await loadSnapshot(projectPaths(run.options.root));
  const plan = snapshot.execution.kind === "ok" ? snapshot.execution.value.tasks : [];
  const tasks = plan.filter((t) => t.status !== "complete").map((t) => t.id);
  const at = phase ?? run.flow.steps.find((s) => s.kind === "tasks")?.id ?? "";
  say(`the plan is ready for workers: ${count(tasks.length, "task")} at ${at} (dotagent run --worker runs them)`, {
    mark: "done",
  });
  return { outcome: "tasks_ready", ...done, step: at, tasks, ...summary(run) };
}

/**
 * --worker: the steps a worker does not carry out end it. Past the tasks step (or its tasks all
 * complete here, which completes the step): complete for the worker; before it, or tasks that failed
 * too often (a person's decision): waiting. Tasks to run, or at work in another session: carried out.
 */
function workerStop(
  run: Run,
  worker: WorkerLog,
  step: RunStep,
  workflowId: string,
  phase: Phase | null,
): RunOutcome | undefined {
  const say = run.options.progress.line;
  const at = { workflowId, phase, request: "", approved: [] };
  switch (tasksPosition(run.flow, step)) {
    case "past":
      worker.ended = worker.rounds > 0 ? "tasks_done" : "past_tasks";
      say(
        worker.ended === "tasks_done"
          ? `every task of the plan is complete here; this worker is done`
          : `workflow ${workflowId} is past its tasks step (at ${phase ?? "its end"}): nothing for a worker`,
        { mark: "done" },
      );
      return { outcome: "complete", workflow_id: workflowId, steps: run.steps, agents: run.agents, ...summary(run) };
    case "before":
      worker.ended = "not_at_tasks";
      say(`workflow ${workflowId} is at ${phase ?? "its start"}, before its tasks step: nothing for a worker yet`, {
        mark: "warning",
      });
      return waiting(run, at, []);
    case "at":
      if (step.kind === "dead_tasks") {
        worker.ended = "needs_person";
        say(`${step.tasks.join(", ")} failed too often: a person decides whether they run again`, { mark: "warning" });
        return waiting(run, at, step.tasks);
      }
      if (step.kind === "wait") worker.ended = "in_session";
      return undefined;
    case undefined:
      return undefined;
  }
}

function workerOutcome(run: Run, worker: WorkerLog, outcome: RunOutcome): WorkerOutcome {
  return {
    ...outcome,
    worker: run.options.claims!.worker!,
    // Ended by the run's own ways: resume's decision (a person's, exit 5) or tasks at work in another session.
    ended:
      worker.ended ??
      (outcome.outcome === "complete" ? "tasks_done" : outcome.outcome === "decision" ? "needs_person" : "in_session"),
    phase: worker.phase,
    ran: [...worker.ran],
    taken_in: [...worker.takenIn],
    rounds: worker.rounds,
    polls: worker.polls,
    held_elsewhere: outcome.outcome === "waiting" ? (outcome.held_elsewhere ?? []) : [],
  };
}

function summary(run: Run): Summary {
  return { elapsed_ms: Math.round(run.clock() - run.started), reports: [...run.written] };
}

function wrote(run: Run, path: string): void {
  if (!run.written.includes(path)) run.written.push(path);
}

/**
 * The run's first line, once the workflow is known, and the gates' mode: --approve as given
 * (remembered for the workflow when it changes), else what an earlier run of it was given.
 * `complete`: nothing is left to run (said so, not "continues at" its last step).
 */
async function introduce(
  run: Run,
  workflowId: string,
  facts: Facts,
  phase: Phase | null,
  created: boolean,
  complete = false,
): Promise<void> {
  if (run.introduced) return;
  run.introduced = true;
  const { options } = run;
  run.memory = new RunMemoryStore(options.root, workflowId, facts.startedAt ?? "");
  const remembered = (await run.memory.read()).approve;
  if (options.approve !== undefined && options.approve !== (remembered ?? "ask"))
    await run.memory.change((m) => ({ ...m, approve: options.approve! }));
  run.approve = options.approve ?? remembered ?? "ask";
  const request = facts.request ? ` "${facts.request}"` : "";
  const where = created ? "started" : complete ? "is complete" : `continues at ${phase ?? "?"}`;
  const definition = facts.pinned ? ` (${facts.flow.name})` : "";
  options.progress.heading(`dotagent run: workflow ${workflowId}${definition}${request} ${where}`);
  if (complete) return; // nothing runs: no gates, no agents to introduce
  const worker = options.worker === undefined ? undefined : options.claims?.worker;
  const gates = worker
    ? `worker ${worker.id} (host ${worker.host}, pid ${worker.pid}): the plan's tasks, claimed through ${options.claims?.remote}; the gates stay the person's`
    : run.approve === "auto"
      ? options.approve === "auto"
        ? "gates approved automatically (--approve auto, remembered for this workflow; `dotagent run --approve ask` asks again)"
        : "gates approved automatically: --approve auto is remembered for this workflow (`dotagent run --approve ask` asks again)"
      : options.ask.interactive
        ? "gates asked here: approve, or say what to change"
        : "no terminal: the run stops at each gate with the commands that answer it (exit 5)";
  options.progress.line(gates);
  if (options.projectContext === true) sayProjectContext(run);
}

/** Once per run: which of the project's files the agents use, the .gitignore lines, and what runs unattended. */
function sayProjectContext(run: Run): void {
  const { options } = run;
  const say = (line: string) => options.progress.line(line);
  const names = [...new Set(run.flow.steps.flatMap(stepAgents))];
  const own = names.filter((n) => existsSync(join(options.root, ".claude", "agents", `${n}.md`)));
  if (own.length > 0)
    say(
      `agents: the project's .claude/agents/ (${own.join(", ")})${own.length < names.length ? `, dotagent's for the rest` : ""}`,
    );
  const instructions = readProjectInstructions(options.root);
  run.instructions = instructions.text;
  say(instructions.note);
  const added = addGitignoreLines(options.root);
  if (added > 0)
    say(`.gitignore: added ${count(added, "line")} for dotagent's machine-local files (as \`dotagent install\` does)`);
  if (run.approve === "auto") {
    const shells = names.filter((n) =>
      (!run.pinned || own.length === 0 ? options.agents : agentsForFlow(options.root, [n], options.agents))
        .get(n)
        ?.tools.includes("Bash"),
    );
    if (shells.length > 0)
      say(`unattended: ${shells.join(" and ")} run shell commands (Bash) with your user's rights, nobody asked`);
  }
}

/** The .gitignore lines install writes, merged in (a git repository only; an install manages its own). The number of lines added. */
function addGitignoreLines(root: string): number {
  if (!existsSync(join(root, ".git")) || existsSync(join(root, ".claude", ".dotagent-install.json"))) return 0;
  const file = join(root, ".gitignore");
  const read = readProjectText(file, { maxBytes: 1024 * 1024, links: "refuse" });
  if (read.kind === "refused") return 0;
  const before = read.kind === "ok" ? read.text : null;
  const merged = mergeGitignore(before, GITIGNORE_LINES, []);
  if (!merged.changed) return 0;
  writeFileInside(root, file, merged.text);
  return merged.owned.filter((l) => !l.startsWith("#")).length;
}

interface StepContext {
  workflowId: string;
  phase: Phase | null;
  request: string;
  approved: readonly string[];
}

async function carryOut(run: Run, step: RunStep, at: StepContext): Promise<RunOutcome | undefined> {
  const { wf, options } = run;
  const say = options.progress.line;
  switch (step.kind) {
    case "init": {
      if (!options.request)
        throw new DotagentError(
          "usage",
          'no workflow here to continue; give the feature request: dotagent run "add login"',
          EXIT.usage,
        );
      const checkout = await settleCheckoutAtStart(run);
      if (checkout === "stop")
        throw stoppedForCheckout(
          `\`dotagent run${workflowFlag(options.workflow)} ${shellQuote(options.request)}\` starts the workflow`,
        );
      const started =
        options.workflow === undefined
          ? await wf.init(options.request)
          : await wf.init(options.request, { workflow: options.workflow });
      if (!started.created) return decisionOutcome(run, at, started.decision);
      // A first agent step starts at once; any other first step when its work does (a step whose `when` fails is skipped, never started).
      const facts = await readFacts(options.root);
      run.flow = facts.flow; // the started workflow's: introduce says its agents
      run.pinned = facts.pinned;
      const first = facts.flow.steps[0];
      if (first?.kind === "agent" && first.when === undefined) await wf.phase.start(first.id);
      await introduce(run, started.workflow_id, facts, started.phase, true);
      if (started.archived !== null) say(`the previous workflow is archived as ${started.archived}`);
      if (checkout === "shared") await run.memory?.change((m) => ({ ...m, isolation: "shared" }));
      return undefined;
    }
    case "complete":
      return { outcome: "complete", workflow_id: at.workflowId, steps: run.steps, agents: run.agents, ...summary(run) };
    case "agents": {
      const pending = await pendingFeedback(run);
      // The roundtable after the architects revised for the person's feedback is told why.
      const jobs =
        step.jobs[0]?.output === REPORT.roundtable && pending?.gate === step.phase && pending.stage === "roundtable"
          ? step.jobs.map((j) => withFeedback(j, pending.text))
          : step.jobs;
      await runAgents(run, { ...step, jobs }, at);
      return undefined;
    }
    case "gate":
      return gateStep(run, step, at);
    case "choose_design":
      return chooseDesign(run, at, step.phase);
    case "command":
      return commandStep(run, step.step, at);
    case "failed":
      throw new DotagentError(
        "workflow_failed",
        `the workflow failed: ${step.reason.replace(/\s+/g, " ")}`,
        EXIT.refused,
      );
    case "plan_tasks": {
      // Round 0 from the report planSourceOf names (develop: final_design.json); round N from the failed check's report.
      const tasks = tasksToPlan(step.round, readReport(options.root, step.source) ?? {}, at.request);
      writeJsonInside(options.root, join(options.root, step.file), { tasks });
      wrote(run, step.file);
      const imported = await wf.tasks.import({ tasks });
      const already = tasks.length - imported.added.length;
      say(
        `planned ${count(tasks.length, "task")}${step.round > 0 ? ` for rework round ${step.round}` : ""} in ${step.file}${already > 0 ? ` (${already} already there)` : ""}`,
        { mark: "done" },
      );
      return undefined;
    }
    case "run_tasks": {
      if (options.claims === undefined) {
        await runTasks(run, step.tasks, at);
        return undefined;
      }
      for (;;) {
        // A worker asks again about every task others hold: a lease may have lapsed, a landing arrived.
        if (run.worker) run.claims?.elsewhere.clear();
        const claimed = await claimTasks(run, options.claims, step.tasks.length, at);
        if (claimed.ids.length > 0) {
          await runTasks(run, claimed.ids, at);
          if (claimed.failure) throw claimed.failure;
          return undefined;
        }
        if (claimed.failure) throw claimed.failure;
        // Tasks other workers landed, recorded here: the plan is made again from them.
        if (claimed.takenIn) return undefined;
        if (run.worker === undefined) return heldElsewhere(run, at);
        // A worker waits for a landing or a lapsed lease, then looks again; --idle ends it.
        if (!(await run.worker.poll(options.signal))) {
          run.worker.ended = "idle";
          return heldElsewhere(run, at, `nothing claimable for ${formatDuration(run.worker.idleMs)} (--idle): `);
        }
        throwIfInterrupted(run);
      }
    }
    case "wait":
      say(
        `${step.inFlight.length === 1 ? "task" : "tasks"} ${step.inFlight.join(", ")} ${step.inFlight.length === 1 ? "is" : "are"} running in another session; run dotagent run again when ${step.inFlight.length === 1 ? "it ends" : "they end"}`,
        { mark: "warning" },
      );
      return waiting(run, at, step.inFlight);
    case "dead_tasks": {
      const retry = step.tasks.map((id) => `dotagent task retry ${id} --extra-attempts 2`).join(" && ");
      const which = `${step.tasks.length === 1 ? "Task" : "Tasks"} ${step.tasks.join(", ")}`;
      options.progress.end();
      const yes =
        run.approve === "ask"
          ? await options.ask.confirm(
              `${which} failed too often. Give ${step.tasks.length === 1 ? "it" : "each"} 2 more attempts?`,
              false,
            )
          : undefined;
      if (yes === undefined)
        return decisionOutcome(run, at, {
          question: `${which} failed too often: retry ${step.tasks.length === 1 ? "it" : "them"}?`,
          default: false,
          yes: retry,
          no: "stop here; the state stays for later",
        });
      if (!yes)
        throw new DotagentError(
          "tasks_dead",
          `${which.toLowerCase()} failed too often and ${step.tasks.length === 1 ? "was" : "were"} not retried; \`${retry}\` when you want ${step.tasks.length === 1 ? "it" : "them"} again`,
          EXIT.refused,
        );
      for (const id of step.tasks) await wf.tasks.retry(id, { extraAttempts: 2 });
      return undefined;
    }
    case "stuck":
      throw new DotagentError(
        "run_stuck",
        `dotagent run cannot continue: ${step.reason}; run \`dotagent resume\` to see where the workflow stands`,
        EXIT.refused,
      );
  }
}

function decisionOutcome(run: Run, at: StepContext, decision: Decision): RunOutcome {
  run.options.progress.line(`a person must decide: ${decision.question}`, { mark: "warning" });
  return decisionResult(run, at, decision);
}

/** The run's stop for a person's answer (exit 5); a gate's is said once, in the result (gateDecision). */
function decisionResult(
  run: Run,
  at: StepContext,
  decision: Decision,
  extra: { choices?: DesignChoice[]; gate?: GateDecision } = {},
): RunOutcome {
  return {
    outcome: "decision",
    workflow_id: at.workflowId,
    steps: run.steps,
    agents: run.agents,
    decision: decisionWithDir(decision, run.options.dirArg),
    ...extra,
    ...summary(run),
  };
}

/**
 * Decisions from resume (stale, corrupt, request changed) archive state: asked, never auto. The
 * uncommitted-changes question (SPEC §19) has three answers in plain words, and is not asked
 * again in a workflow whose person chose "without worktrees" as it started.
 */
async function askDecision(run: Run, decision: Decision): Promise<boolean> {
  const { options } = run;
  if (/--isolation commit\b/.test(decision.yes)) {
    if ((await workflowMemory(run))?.isolation === "shared") {
      options.progress.line("the tasks run without worktrees, as you chose when the workflow started");
      return false;
    }
    options.progress.end();
    const pick = await options.ask.choose(
      decision.question.replace(/ Commit them now \(yes\).*$/, ""),
      ISOLATION_CHOICES,
      "commit",
    );
    if (pick === "stop") throw stoppedForCheckout("`dotagent run` continues");
    return pick === "commit";
  }
  options.progress.end();
  return (await options.ask.confirm(decision.question, decision.default)) === true;
}

/** This workflow's run memory, also before the run introduced itself (a run that continues at the tasks step asks resume first). */
async function workflowMemory(run: Run): Promise<RunMemory | undefined> {
  if (run.memory) return run.memory.read();
  const phase = (await loadSnapshot(projectPaths(run.options.root))).phase;
  return phase.kind === "ok"
    ? new RunMemoryStore(run.options.root, phase.value.workflow_id, phase.value.started_at).read()
    : undefined;
}

/** "Stop and let me handle it": a calm stop (exit 130, as Ctrl-C), nothing started or marked failed. */
function stoppedForCheckout(then: string): DotagentError {
  return new DotagentError(
    "interrupted",
    `stopped, as you chose: commit or stash your changes, then ${then}`,
    EXIT.interrupted,
    { sessions_kept: [] },
  );
}

/**
 * Git settled up front (SPEC §19): the person's uncommitted changes are asked about before the
 * workflow's first agent runs, not when its tasks are about to start. "commit" commits them now;
 * "shared" is remembered for the workflow (run-memory.ts); "stop" starts nothing. Without a
 * terminal nothing is asked here: the tasks step's decision (exit 5) stays as it was.
 */
async function settleCheckoutAtStart(run: Run): Promise<"commit" | "shared" | "stop" | null> {
  const { options } = run;
  if (!options.ask.interactive) return null;
  const facts = dirtyCheckoutAtStart(options.root);
  if (facts === null) return null;
  options.progress.end();
  const pick = await options.ask.choose(startIsolationQuestion(facts), ISOLATION_CHOICES, "commit");
  if (pick === "commit") {
    const files = commitAtStart(options.root, options.request ?? "");
    options.progress.line(
      `committed ${count(files.length, "file")} of yours (${files.slice(0, 3).join(", ")}${files.length > 3 ? ", …" : ""}); each task gets its own worktree`,
    );
    return "commit";
  }
  return pick === "shared" ? "shared" : "stop";
}

// ---- Gates: the substance shown, approved, or feedback sent back ----

async function pendingFeedback(run: Run): Promise<PendingFeedback | null> {
  return run.memory ? (await run.memory.read()).pending : null;
}

type GateAnswer = { kind: "approve"; note?: string } | { kind: "stop" } | { kind: "change"; text: string } | undefined;

/**
 * Asks at a gate: approve, change something (free text, sent back to the agents), or stop.
 * `undefined` without a terminal. An empty answer to "what should change" asks again.
 */
async function askGate(
  run: Run,
  question: string,
  choices: readonly Choice[],
  initial: string,
  changeQuestion: string | null,
): Promise<string | { change: string } | undefined> {
  const { ask } = run.options;
  for (;;) {
    run.options.progress.end();
    const picked = await ask.choose(question, choices, initial);
    if (picked !== CHANGE || changeQuestion === null) return picked;
    const text = (await ask.text(changeQuestion))?.trim();
    if (text === undefined) return undefined;
    if (text !== "") return { change: text };
  }
}

async function gateStep(
  run: Run,
  step: Extract<RunStep, { kind: "gate" }>,
  at: StepContext,
): Promise<RunOutcome | undefined> {
  const { wf, options } = run;
  const { words: what, takesChanges } = shownAt(run, step);
  let how = "";
  if (!at.approved.includes(step.phase)) {
    const pending = await pendingFeedback(run);
    // Feedback given here and not acted on yet (a kill mid-revision): the revision comes first.
    if (pending?.gate === step.phase && takesChanges) {
      await revise(run, pending, at, step.output);
      return undefined;
    }
    // --change: the person's answer given with the command, as "Change something" at a terminal.
    if (run.change !== undefined && takesChanges) {
      const feedback = await recordFeedback(run, step.phase, run.change.trim());
      run.change = undefined;
      await revise(run, feedback, at, step.output);
      return undefined;
    }
    const answer = await gateAnswer(run, step, what).catch((error: unknown) => {
      throw isInterrupted(error) ? interruptedAtGate(`the ${step.phase} gate`, "nothing approved") : error;
    });
    if (answer === undefined) return gateDecision(run, step, at);
    // "Stop here" is the person's calm choice, not an error: as Ctrl-C, nothing approved, nothing lost.
    if (answer.kind === "stop")
      throw new DotagentError(
        "interrupted",
        `stopped at the ${step.phase} gate, as you chose: nothing approved; edit ${step.output} if you like, then \`dotagent run\` asks again`,
        EXIT.interrupted,
        { sessions_kept: [] },
      );
    if (answer.kind === "change") {
      const feedback = await recordFeedback(run, step.phase, answer.text);
      await revise(run, feedback, at, step.output);
      return undefined;
    }
    await wf.phase.approve(step.phase);
    how = answer.note ?? "";
  }
  await wf.phase.complete(step.phase, { output: step.output });
  options.progress.line(`${what} approved${how}`, { mark: "done" });
  return undefined;
}

/** What the gate approves, as its step's kind says it (gates.ts): the words the person reads, whether it takes changes. */
function shownAt(run: Run, step: Extract<RunStep, { kind: "gate" }>): { words: string; takesChanges: boolean } {
  const at = stepOf(run.flow, step.phase);
  const approval = at === undefined ? undefined : approvalsOf(at).find((a) => a.does === "approve");
  return approval ?? { words: `${step.phase}'s report`, takesChanges: true };
}

/**
 * Ctrl-C (or Esc) at a question of a gate: one plain line, exit 130. Nothing was written since the
 * gate was shown, so nothing is lost; the next run shows the gate again.
 */
function interruptedAtGate(where: string, nothing: string): DotagentError {
  return new DotagentError(
    "interrupted",
    `interrupted at ${where}: ${nothing}, the workflow is as it was; \`dotagent run\` asks again`,
    EXIT.interrupted,
    { sessions_kept: [] },
  );
}

/** `dotagent run` with the run's --agents, as a decision prints it (--dir is added with the rest: decisionWithDir). */
function runCommand(run: Run, rest: string): string {
  const agents = run.options.agentsArg === undefined ? "" : ` --agents ${shellQuote(run.options.agentsArg)}`;
  return `dotagent run${agents}${rest}`;
}

const changeCommand = (run: Run): string => runCommand(run, ` --change "${CHANGE_PLACEHOLDER}"`);

/** What a gate shows of its report: the lines a terminal shows before the question (gate-view.ts). */
function gateLines(run: Run, step: Extract<RunStep, { kind: "gate" }>): string[] {
  const { root } = run.options;
  const view = step.view;
  if (view === "report") return reportView(readText(root, step.output) ?? "", step.output);
  const report = readReport(root, step.output) ?? {};
  return view === "requirements" ? requirementsView(report, step.output) : designSummary(report);
}

/**
 * A gate without a terminal (SPEC §17): the run stops (exit 5) with the gate as fields and, for a
 * person, once: which gate, the report's substance, and the commands that answer it.
 */
function gateDecision(run: Run, step: Extract<RunStep, { kind: "gate" }>, at: StepContext): RunOutcome {
  const feedback = shownAt(run, step).takesChanges;
  const yes = `dotagent phase approve ${step.phase}`;
  const change = feedback ? changeCommand(run) : null;
  const gate: GateDecision = {
    step: step.phase,
    report: step.output,
    shown: gateLines(run, step),
    approve: `${yes} && ${runCommand(run, "")}`,
    change,
  };
  run.options.progress.line(`stopped at the ${step.phase} gate for your answer`, { mark: "warning" });
  const decision: Decision = {
    question: `Approve ${step.output}?`,
    default: false,
    yes,
    no: change ?? "leave it unapproved; nothing is written until you approve",
  };
  return decisionResult(run, at, decision, { gate: gateWithDir(gate, run.options.dirArg) });
}

function gateWithDir(gate: GateDecision, dir: string | undefined): GateDecision {
  return {
    ...gate,
    approve: addDirToCommands(gate.approve, dir),
    change: gate.change && addDirToCommands(gate.change, dir),
  };
}

async function gateAnswer(run: Run, step: Extract<RunStep, { kind: "gate" }>, what: string): Promise<GateAnswer> {
  const { options } = run;
  if (run.approve === "auto") {
    const report = readReport(options.root, step.output) ?? {};
    const summaryText =
      typeof report.summary === "string" ? `: ${report.summary.replace(/\s+/g, " ").slice(0, 200)}` : "";
    return { kind: "approve", note: ` (--approve auto)${summaryText}` };
  }
  if (!options.ask.interactive) return undefined;
  options.progress.show([
    "",
    `  ${what[0]!.toUpperCase()}${what.slice(1)} (${step.output}):`,
    ...gateLines(run, step),
    "",
  ]);
  const feedback = shownAt(run, step).takesChanges;
  // The gate names its step's own agent and what follows it (develop: "the designs", then "the tasks").
  const agent = step.agent ?? "agent";
  const after = followingWork(run.flow, step.phase);
  const changeHint = `say what; the ${agent} revises ${step.output.replace("memory/reports/", "")}, then you are asked again`;
  const choices: Choice[] = [
    { name: "approve", title: "Approve", hint: `go on to ${after}` },
    ...(feedback ? [{ name: CHANGE, title: "Change something", hint: changeHint }] : []),
    { name: STOP, title: "Stop here", hint: `edit ${step.output} yourself, then dotagent run` },
  ];
  const picked = await askGate(
    run,
    `Approve ${what}?`,
    choices,
    "approve",
    feedback ? `What should the ${agent} change?` : null,
  );
  if (picked === undefined) return undefined;
  if (typeof picked === "object") return { kind: "change", text: picked.change };
  return picked === "approve" ? { kind: "approve" } : { kind: "stop" };
}

/** What the person goes on to after approving step `id`: the next step's work by its kind, else its id. */
function followingWork(flow: Flow, id: Phase): string {
  const next = stepOf(flow, nextStepId(flow, id) ?? "");
  if (next === undefined) return "the end";
  return next.kind === "choose" ? "the designs" : next.kind === "tasks" ? "the tasks" : next.id;
}

/** final_design.json in a few lines, for the rare approve_design gate (written outside dotagent run). */
function designSummary(report: Record<string, unknown>): string[] {
  const design = report.design && typeof report.design === "object" ? (report.design as Record<string, unknown>) : {};
  const summaryText =
    typeof design.summary === "string" ? design.summary : typeof report.summary === "string" ? report.summary : "";
  const tasks = Array.isArray(report.tasks) ? report.tasks.length : 0;
  return [
    `  ${typeof report.chosen === "string" ? report.chosen : "?"}${summaryText ? `: ${summaryText.replace(/\s+/g, " ").slice(0, 300)}` : ""}`,
    `  ${count(tasks, "task")} planned`,
  ];
}

/** Feedback given at a gate: remembered (a kill loses nothing), the revision pending. */
async function recordFeedback(run: Run, gate: FeedbackGate, text: string): Promise<PendingFeedback> {
  const at = (run.options.now ?? (() => new Date()))().toISOString();
  const memory = run.memory!;
  const next = await memory.change((m) => {
    const round = m.feedback.filter((f) => f.gate === gate).length + 1;
    return {
      ...m,
      feedback: [...m.feedback, { gate, text, at }],
      pending: { gate, round, text, stage: "revise", revised: [] },
    };
  });
  return next.pending!;
}

/**
 * The sessions that act on feedback: the pm revises demand.json, or every architect its design
 * (then roundtable.json goes, so the roundtable compares the revised designs, told of the feedback).
 * Each finished session is remembered; a kill or Ctrl-C continues with the rest.
 */
async function revise(run: Run, pending: PendingFeedback, at: StepContext, output?: string): Promise<void> {
  const { options } = run;
  const memory = run.memory!;
  // A gate is revised by its step's own agent: an agent step's its report, a choose step's writer each design.
  const step = stepOf(run.flow, pending.gate);
  const choose = step?.kind === "choose";
  const designs = choose ? listDesignFiles(options.root) : [];
  const jobs =
    step === undefined
      ? []
      : revisionJobs(step, pending.round, pending.text, designs, output, !run.pinned).filter(
          (j) => !pending.revised.includes(j.key),
        );
  const before = new Map(jobs.map((j) => [j.output, readText(options.root, j.output)]));
  await runSessions(run, jobs, agentContext(run, at, pending.gate), "revises", async (job, outcome, ms) => {
    const after = readText(options.root, job.output);
    if (after !== undefined && after !== before.get(job.output) && reportThere(options.root, job.output)) {
      wrote(run, job.output);
      options.progress.line(`${labelOf(job)} revised ${job.output}`, { mark: "done", elapsedMs: ms });
    } else {
      const said = outcome.said.replace(/\s+/g, " ").trim().slice(0, 160);
      options.progress.line(
        `${labelOf(job)} left ${job.output} ${after === undefined ? "missing" : "as it was"}${said ? ` (it said: "${said}")` : ""}`,
        { mark: "warning", elapsedMs: ms },
      );
    }
    await memory.change((m) =>
      m.pending ? { ...m, pending: { ...m.pending, revised: [...m.pending.revised, job.key] } } : m,
    );
  });
  if (!choose) {
    await memory.change((m) => ({ ...m, pending: null }));
    return;
  }
  // The designs changed: the roundtable's comparison is out of date; the loop asks for a new one.
  rmSync(join(options.root, REPORT.roundtable), { force: true });
  await memory.change((m) => (m.pending ? { ...m, pending: { ...m.pending, stage: "roundtable" } } : m));
}

async function chooseDesign(run: Run, at: StepContext, phase: Phase): Promise<RunOutcome | undefined> {
  const { wf, options } = run;
  // The choose step's design writer and reducer (develop: the architects and the roundtable).
  const chooser = stepOf(run.flow, phase);
  if (chooser?.kind !== "choose")
    throw new DotagentError(
      "run_stuck",
      `dotagent run cannot continue: a pick at ${phase}, which is no choose step of workflow ${run.flow.name}; run \`dotagent resume\` to see where the workflow stands`,
      EXIT.refused,
    );
  const writer = chooser.agent;
  const reducer = chooser.reducer;
  const pending = await pendingFeedback(run);
  if (pending?.gate === phase && pending.stage === "revise") {
    await revise(run, pending, at);
    return undefined;
  }
  // The roundtable compared the revised designs: the feedback is acted on.
  if (pending?.gate === phase) await run.memory!.change((m) => ({ ...m, pending: null }));
  // --change: every design goes back to its writer with the person's words, as "Change something" sends it.
  if (run.change !== undefined) {
    const feedback = await recordFeedback(run, phase, run.change.trim());
    run.change = undefined;
    await revise(run, feedback, at);
    return undefined;
  }
  const roundtable = readReport(options.root, REPORT.roundtable) ?? {};
  // Only a design whose file is there can be chosen: final_design.json holds it, never a made-up one.
  const written = new Set(listDesignFiles(options.root));
  const offered = listDesigns(roundtable);
  const designs: DesignOption[] = offered
    .filter((d) => written.has(d.name))
    .map((d) => ({ name: d.name, oneLine: d.hint || designSummaryOf(options.root, d.name) }));
  let chosen = options.design;
  if (chosen !== undefined && !designs.some((d) => d.name === chosen)) {
    const there = designs.length > 0 ? designs.map((d) => d.name) : [...written];
    const why = !written.has(chosen)
      ? `there is no valid ${REPORT.designsDir}/${chosen}.json`
      : `${REPORT.roundtable} does not offer it`;
    throw new DotagentError(
      "usage",
      `--design ${chosen}: ${why}; the designs to choose from: ${there.length > 0 ? there.join(", ") : "none yet"}`,
      EXIT.usage,
      { designs: there },
    );
  }
  const recommended =
    typeof roundtable.recommendation === "string" && designs.some((d) => d.name === roundtable.recommendation)
      ? roundtable.recommendation
      : designs[0]?.name;
  if (recommended === undefined) {
    const missing = offered.map((d) => `${REPORT.designsDir}/${d.name}.json`);
    throw new DotagentError(
      "run_stuck",
      offered.length === 0
        ? `${REPORT.roundtable} names no design to choose; delete it to have the roundtable run again`
        : `${REPORT.roundtable} offers designs whose files are missing or invalid (${missing.join(", ")}); delete it to have the roundtable run again`,
      EXIT.refused,
    );
  }
  const oneLineOf = (name: string) => designs.find((d) => d.name === name)?.oneLine ?? "";
  let how = options.design !== undefined ? " (--design)" : "";
  if (chosen === undefined && run.approve === "auto") {
    chosen = recommended;
    how = " (--approve auto: the roundtable's recommendation)";
  }
  if (chosen === undefined && options.ask.interactive) {
    options.progress.show(["", ...designsView(designs, recommended, roundtable), ""]);
    const choices: Choice[] = [
      ...designs.map((d) => ({
        name: d.name,
        title: d.name === recommended ? `${d.name} (recommended)` : d.name,
        hint: d.oneLine,
      })),
      {
        name: CHANGE,
        title: "Change something",
        hint: `say what; every ${writer} revises its design, the ${reducer} compares them again`,
      },
      { name: STOP, title: "Stop here", hint: "decide later: dotagent run --design NAME" },
    ];
    const picked = await askGate(
      run,
      "Which design?",
      choices,
      recommended,
      `What should the ${writer}s change?`,
    ).catch((error: unknown) => {
      throw isInterrupted(error) ? interruptedAtGate("the design pick", "nothing picked") : error;
    });
    if (typeof picked === "object") {
      const feedback = await recordFeedback(run, phase, picked.change);
      await revise(run, feedback, at);
      return undefined;
    }
    if (picked === STOP)
      throw new DotagentError(
        "interrupted",
        `stopped at the pick, as you chose: nothing picked; \`dotagent run --design NAME\` picks one, \`dotagent run\` asks again`,
        EXIT.interrupted,
        { sessions_kept: [] },
      );
    chosen = picked;
  }
  if (chosen === undefined) {
    const others = designs.filter((d) => d.name !== recommended).map((d) => d.name);
    const pickCommand = (name: string) => runCommand(run, ` --design ${name}`);
    const choices = designs.map((d) => ({
      design: d.name,
      one_line: d.oneLine,
      recommended: d.name === recommended,
      command: addDirToCommands(pickCommand(d.name), options.dirArg),
    }));
    const gate: GateDecision = {
      step: phase,
      report: REPORT.roundtable,
      shown: designsView(designs, recommended, roundtable),
      approve: pickCommand(recommended),
      change: changeCommand(run),
    };
    options.progress.line(`stopped at the ${phase} pick for your answer`, { mark: "warning" });
    const decision: Decision = {
      question: `Which design? Options: ${designs.map((d) => d.name).join(", ")}; the roundtable recommends ${recommended}.`,
      default: true,
      yes: pickCommand(recommended),
      no: others.length > 0 ? pickCommand(others[0]!) : "stop here",
    };
    return decisionResult(run, at, decision, { choices, gate: gateWithDir(gate, options.dirArg) });
  }
  const source = `${REPORT.designsDir}/${chosen}.json`;
  const design = readReport(options.root, source);
  if (design === undefined)
    throw new DotagentError(
      "usage",
      `--design ${chosen}: there is no valid ${source}; the designs to choose from: ${designs.map((d) => d.name).join(", ")}`,
      EXIT.usage,
    );
  const decided = (options.now ?? (() => new Date()))().toISOString();
  const tasks = tasksToPlan(0, design, at.request);
  // The person's words at this gate travel with the design to the executors.
  const notes = run.memory
    ? (await run.memory.read()).feedback
        .filter((f) => f.gate === phase)
        .map((f) => f.text)
        .join("\n")
    : "";
  // The pick is the approval: the person (or --approve auto) chose this design. dotagent writes
  // final_design.json from it (the only writer of that file, SPEC §11), then approves.
  await wf.phase.approve(phase, {
    pick: chosen,
    notes,
    tasks,
    auto: !(options.design !== undefined || run.approve === "ask"),
  });
  wrote(run, REPORT.finalDesign);
  await wf.phase.complete(phase, { output: REPORT.finalDesign });
  const line = oneLineOf(chosen);
  options.progress.line(`design ${chosen} chosen${how}${line ? `: ${line.slice(0, 120)}` : ""}`, { mark: "done" });
  return undefined;
}

/** The names of the valid design reports (memory/reports/designs/<name>.json holding a JSON object). */
function listDesignFiles(root: string): string[] {
  let names: string[];
  try {
    names = readdirSync(join(root, REPORT.designsDir));
  } catch {
    return [];
  }
  return names
    .filter((n) => n.endsWith(".json"))
    .map((n) => n.slice(0, -".json".length))
    .filter((name) => readReport(root, `${REPORT.designsDir}/${name}.json`) !== undefined)
    .sort();
}

function listDesigns(roundtable: Record<string, unknown>): Array<{ name: string; hint: string }> {
  const options = Array.isArray(roundtable.options_for_user)
    ? roundtable.options_for_user
    : Array.isArray(roundtable.designs)
      ? roundtable.designs
      : [];
  return options.flatMap((o) => {
    if (!o || typeof o !== "object") return [];
    const r = o as Record<string, unknown>;
    return typeof r.name === "string"
      ? [
          {
            name: r.name,
            hint: typeof r.one_line === "string" ? r.one_line : typeof r.summary === "string" ? r.summary : "",
          },
        ]
      : [];
  });
}

function designSummaryOf(root: string, name: string): string {
  const design = readReport(root, `${REPORT.designsDir}/${name}.json`);
  return typeof design?.summary === "string" ? design.summary : "";
}

// ---- Agents and tasks ----

/** "pm", "architect minimal", "executor task-002": who works, for the lines and the live line. */
function labelOf(job: AgentJob): string {
  const design = /^Design name: (.+)$/m.exec(job.lines.join("\n"))?.[1];
  const task = /^Task: (.+)$/m.exec(job.lines.join("\n"))?.[1];
  return [job.agent, design ?? task].filter(Boolean).join(" ");
}

/** One agent session with its live line; how long it took. */
/**
 * Phase agents' sessions, at most max_parallel at once, each handed to `ended` as it returns. One
 * stopped by Ctrl-C keeps its session for the next run; an account or API that is out starts no
 * more; either stops the run once the batch is over.
 */
async function runSessions(
  run: Run,
  jobs: readonly AgentJob[],
  context: AgentRunContext,
  verb: string,
  ended: (job: AgentJob, outcome: AgentOutcome, ms: number) => Promise<void> | void,
): Promise<void> {
  const kept: string[] = [];
  let blocked: AgentOutcome | undefined;
  await inBatches(jobs, Math.max(1, run.options.maxParallel ?? 3), run, async (job) => {
    if (blocked) return;
    const { outcome, ms } = await session(run, job, context, `${labelOf(job)} ${verb} ${job.output}`);
    if (outcome.interrupted) kept.push(outcome.key);
    else if (outcome.blocked) blocked ??= outcome;
    else await ended(job, outcome, ms);
  });
  throwIfInterrupted(run, kept);
  if (blocked) throw new Blocked(blocked);
}

async function session(
  run: Run,
  job: AgentJob,
  context: AgentRunContext,
  label: string,
): Promise<{ outcome: AgentOutcome; ms: number }> {
  const activity = run.options.progress.begin(label);
  run.working++;
  try {
    // What is left of the run's cost cap bounds the session too (the SDK stops it there: error_max_budget_usd).
    const left = run.options.maxCostUsd === undefined ? undefined : Math.max(0.01, run.options.maxCostUsd - run.spent);
    const bounded =
      left === undefined ? context : { ...context, sdkOptions: { ...context.sdkOptions, maxBudgetUsd: left } };
    const outcome = await runAgentJob(job, bounded, {
      ...(run.options.signal ? { signal: run.options.signal } : {}),
      onMessage: (message) => {
        const doing = describeActivity(message, run.options.root);
        if (doing !== undefined) activity.update(doing);
      },
    });
    if (!outcome.interrupted) run.agents++;
    // A session an interruption cut off, continued to its end: logged, so `dotagent report` counts the interruption (SPEC §7 `agent_continued`).
    if (outcome.resumed && outcome.interrupted !== true) await logContinued(run, job, outcome.sessionId);
    run.spent += outcome.costUsd ?? 0;
    // The workflow's cost over its runs, for `dotagent report` (an estimate the SDK gives, not a bill).
    if (outcome.costUsd !== undefined && run.memory !== undefined) {
      const add = outcome.costUsd;
      await run.memory.change((m) => ({
        ...m,
        cost_usd: Math.round(((m.cost_usd ?? 0) + add) * 1e6) / 1e6,
        costed_sessions: (m.costed_sessions ?? 0) + 1,
      }));
    }
    return { outcome, ms: activity.end() };
  } catch (error) {
    activity.end();
    throw error;
  } finally {
    run.working--;
  }
}

async function runAgents(run: Run, step: Extract<RunStep, { kind: "agents" }>, at: StepContext): Promise<void> {
  const { wf, options } = run;
  await wf.phase.start(step.phase, step.designs ? { designs: [...step.designs] } : {});
  for (const job of step.jobs) {
    const sessions = (run.sessions.get(job.key) ?? 0) + 1;
    run.sessions.set(job.key, sessions);
    if (sessions > MAX_AGENT_SESSIONS) {
      const said = run.said.get(job.key)?.replace(/\s+/g, " ").slice(0, 200);
      const error = `${job.agent} did not write a valid ${job.output} in ${MAX_AGENT_SESSIONS} sessions${said ? ` (it said: "${said}")` : ""}`;
      await wf.phase.fail(step.phase, { error });
      throw new DotagentError(
        "agent_failed",
        `${error}; the phase is marked failed: look at the agent's output, then run dotagent run again`,
        EXIT.refused,
      );
    }
  }
  const found = () => step.outputs.find((p) => reportThere(options.root, p));
  const verdict = (report: Record<string, unknown> | undefined) =>
    report?.passed === true
      ? `: ${step.phase} passed`
      : report?.passed === false
        ? `: ${step.phase} failed (${count(Array.isArray(report.failures) ? report.failures.length : 0, "failure")})`
        : "";
  await runSessions(run, step.jobs, agentContext(run, at, step.phase), "writes", (job, outcome, ms) => {
    run.said.set(job.key, outcome.said);
    const output = reportThere(options.root, job.output) ? job.output : found();
    if (output === undefined) {
      const said = outcome.said.replace(/\s+/g, " ").trim().slice(0, 160);
      options.progress.line(
        `${labelOf(job)} ended without a valid ${job.output}${outcome.error ? ` (${outcome.error})` : said ? ` (it said: "${said}")` : ""}`,
        { mark: "failed", elapsedMs: ms },
      );
      return;
    }
    wrote(run, output);
    const report = readReport(options.root, output);
    const checked = step.then === "verdict" ? verdict(report) : "";
    options.progress.line(`${labelOf(job)} wrote ${output}${checked}`, {
      mark: step.then === "verdict" && report?.passed === false ? "failed" : "done",
      elapsedMs: ms,
    });
  });
  const output = found();
  if (output === undefined) return; // the loop asks again (a second session), then fails the step
  if (step.then === "complete") await wf.phase.complete(step.phase, { output });
  else if (step.then === "verdict") {
    const passed = readReport(options.root, output)?.passed;
    if (passed === true) await wf.phase.complete(step.phase, { output });
    else if (passed === false && step.rework !== undefined) {
      // Past max_rounds the step fails instead; the loop's next round says so (workflow_failed).
      if ((await wf.phase.rework()).phase_status !== "failed")
        options.progress.line(`back to ${step.rework} to fix what ${step.phase} found`);
    } else if (passed === false) {
      const error = `${step.phase} failed (${output} says passed: false) and sends no work back`;
      await wf.phase.fail(step.phase, { error });
      throw new DotagentError(
        "workflow_failed",
        `the workflow failed: ${error}; fix the cause, delete ${output}, then run dotagent run again`,
        EXIT.refused,
      );
    }
  }
}

/**
 * A shell or check step's command (SPEC §20), run by `step run` (the same approval, report,
 * events and at-most-once-per-round): approved by --approve auto, asked on a terminal (the
 * command shown), else the decision (exit 5). A failed check goes back to its rework step (the
 * record does that); a failed shell step fails the workflow (the loop's next round says so).
 */
async function commandStep(run: Run, id: string, at: StepContext): Promise<RunOutcome | undefined> {
  const { options } = run;
  const step = stepOf(run.flow, id);
  const command = (step && kindOf(step).command(step)) ?? "";
  const shown = command.replace(/\s+/g, " ").trim();
  const label = `${id} runs \`${shown.length > 60 ? `${shown.slice(0, 59)}…` : shown}\``;
  const decide: Decide = async (decision) => {
    if (run.approve === "auto") return true;
    if (!options.ask.interactive) return "no-terminal";
    options.progress.end();
    return (await options.ask.confirm(decision.question, true)) === true;
  };
  let activity: ReturnType<Progress["begin"]> | undefined;
  let outcome;
  try {
    outcome = await runStep(opContext(run), id, {
      decide,
      onStart: () => (activity = options.progress.begin(label)),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    activity?.end();
    throw error;
  }
  const ms = activity?.end();
  if (outcome.kind === "decision") return decisionOutcome(run, at, outcome.decision);
  if (outcome.kind === "stopped") {
    // Ctrl-C: the command's process group was stopped; nothing recorded, so the next run runs it again.
    options.progress.line(`interrupted: ${id}'s command stopped; it runs again on the next run`, { mark: "warning" });
    throw interruptedError();
  }
  const result = outcome.result;
  if (!result.ran) {
    // Recorded before and the plan still asks for it: a failed check that sends nothing back.
    if (!result.passed)
      throw new DotagentError(
        "workflow_failed",
        `the workflow failed: ${id}: \`${shown}\` failed (${result.report} says passed: false); fix the cause, then \`dotagent step run ${id} --again\` and dotagent run`,
        EXIT.refused,
      );
    return undefined;
  }
  wrote(run, result.report);
  const why = result.timed_out ? "timed out" : `exit ${result.exit_code ?? "none"}`;
  const last = tellingLine(result.output_tail ?? "");
  options.progress.line(
    `${id}: \`${shown.length > 80 ? `${shown.slice(0, 79)}…` : shown}\` ${result.passed ? "passed" : `failed (${why}${result.attempts > 1 ? `, ${result.attempts} attempts` : ""})${last ? `: ${last.slice(0, 120)}` : ""}`}`,
    { mark: result.passed ? "done" : "failed", ...(ms === undefined ? {} : { elapsedMs: ms }) },
  );
  if (!result.passed && step !== undefined && sendsWorkBack(step) && result.next.action !== "workflow_failed")
    options.progress.line(`back to ${step.rework} to fix what ${id} found`);
  return undefined;
}

/** `agent_continued`: the log's only trace of an agent the runner lost (the hooks' `agent_gone` needs a session that recorded its agents). */
async function logContinued(run: Run, job: AgentJob, session: string | null): Promise<void> {
  const context = opContext(run);
  try {
    await locked(context, "run", () =>
      appendEvents(
        context.paths.root,
        context.paths.eventsFile,
        [{ type: "agent_continued", agent: job.agent, output: job.output, session }],
        context.now(),
      ),
    );
  } catch (error) {
    context.warn(
      `the event log could not say that ${labelOf(job)} continued a cut-off session (${(error as Error).message})`,
    );
  }
}

function opContext(run: Run): OpContext {
  return {
    paths: projectPaths(run.options.root),
    now: run.options.now ?? (() => new Date()),
    warn: (m) => run.options.progress.line(m, { mark: "warning" }),
    note: () => {},
    ...(run.options.dirArg === undefined ? {} : { dirArg: run.options.dirArg }),
  };
}

/**
 * --claims: up to `slots` of the ready tasks claimed on the remote, in the plan's order, those that
 * other workers hold or landed passed over (each said once) for the next ready ones. A remote that
 * fails stops the claiming: the tasks claimed so far run, then the run ends with the failure.
 */
async function claimTasks(
  run: Run,
  options: RunClaimsOptions,
  slots: number,
  at: StepContext,
): Promise<{ ids: string[]; failure?: DotagentError; takenIn?: boolean }> {
  const claims = (run.claims ??= new RunClaims(run.options.root, at.workflowId, {
    ...options,
    signal: run.options.signal,
  }));
  // What other workers landed comes in first (SPEC §23): their tasks complete here, their dependants ready.
  try {
    const taken = await claims.takeIn(opContext(run));
    if (taken.length > 0)
      run.worker?.round(
        [],
        taken.map((t) => t.task_id),
      );
    for (const t of taken)
      run.options.progress.line(
        `${t.task_id}: landed by worker ${t.worker.id} (host ${t.worker.host}, pid ${t.worker.pid}) on ${claims.remote}, taken in here (${t.commit.slice(0, 7)})`,
        { mark: "done" },
      );
    if (taken.length > 0) return { ids: [], takenIn: true };
  } catch (error) {
    if (!(error instanceof DotagentError)) throw error;
    const first = await readyNow(run);
    return { ids: [], failure: notStarted(first[0]?.id, error) };
  }
  const ready = await readyNow(run);
  const ids: string[] = [];
  for (const { id } of ready) {
    if (ids.length >= slots) break;
    if (claims.elsewhere.has(id) || claims.givenBack.has(id)) continue;
    try {
      const answer = claims.claim(id);
      if (answer.mine) {
        ids.push(id);
        // A dead run's claim of this clone taken over at once: said with why.
        if (answer.line !== undefined) run.options.progress.line(answer.line, { mark: "warning" });
        if (run.worker) run.options.progress.line(`${id}: claimed on ${claims.remote}`);
      } else {
        // Said once per holder: a worker polling meets the same claim again and again.
        const held = claims.elsewhere.get(id);
        const key = held ? `${id} ${held.state} ${held.worker.id}` : answer.line;
        if (!run.told.has(key)) run.options.progress.line(answer.line, { mark: "warning" });
        run.told.add(key);
      }
    } catch (error) {
      if (!(error instanceof DotagentError)) throw error;
      run.worker?.round(ids, []);
      return { ids, failure: notStarted(id, error) };
    }
  }
  run.worker?.round(ids, []);
  return { ids };
}

async function readyNow(run: Run) {
  const snapshot = await loadSnapshot(projectPaths(run.options.root));
  return snapshot.execution.kind === "ok" ? readyTasks(snapshot.execution.value) : [];
}

/** A claim's failure as the run's: the task it kept from starting named first. */
function notStarted(id: string | undefined, error: DotagentError): DotagentError {
  return id === undefined
    ? error
    : new DotagentError(error.code, `task ${id} was not started: ${error.message}`, error.exitCode, error.details);
}

/** --claims: every ready task is another worker's: the run ends `waiting`, naming them (exit 4). */
function heldElsewhere(run: Run, at: StepContext, why = ""): RunOutcome {
  const claims = run.claims!;
  const held = [...claims.elsewhere.values()];
  const ids = [...held.map((h) => h.task_id), ...claims.givenBack];
  run.options.progress.line(
    `${why}${ids.length === 1 ? "task" : "tasks"} ${ids.join(", ")} ${ids.length === 1 ? "is" : "are"} other workers' (their claims on ${claims.remote}); nothing else here is ready to run`,
    { mark: "warning" },
  );
  return waiting(run, at, ids, held);
}

/** The run ends `waiting` on `inFlight` (exit 4): work another session or worker holds. */
function waiting(run: Run, at: StepContext, inFlight: readonly string[], heldElsewhere?: HeldElsewhere[]): RunOutcome {
  return {
    outcome: "waiting",
    workflow_id: at.workflowId,
    steps: run.steps,
    agents: run.agents,
    in_flight: inFlight,
    ...(heldElsewhere === undefined ? {} : { held_elsewhere: heldElsewhere }),
    ...summary(run),
  };
}

async function runTasks(run: Run, ids: readonly string[], at: StepContext): Promise<void> {
  const { wf, options } = run;
  const started: string[] = [];
  // Each task's worktree lines (SPEC §19): where its executor works; empty in a shared round.
  const worktreeLines = new Map<string, string[]>();
  for (const id of ids) {
    try {
      const start = await wf.tasks.start(id, { owner: process.pid });
      worktreeLines.set(id, start.task?.worktree?.prompt_lines ?? []);
      started.push(id);
      run.worker?.ran.push(id);
      run.claims?.startRenewing(id);
    } catch (error) {
      run.claims?.release(id, warn(run));
      // Refused: another session started it meanwhile; it is theirs.
      if (!(error instanceof DotagentError) || error.exitCode !== EXIT.refused) throw error;
      options.progress.line(`${id}: ${error.message}`, { mark: "warning" });
    }
  }
  const facts = await readFacts(options.root);
  // The tasks step names its agent, and its plan's source is the design the agents read (develop: final_design.json; fix: reproduction.json).
  const tasksStep = run.flow.steps.find((s) => s.kind === "tasks");
  if (tasksStep?.kind !== "tasks")
    throw new DotagentError(
      "run_stuck",
      `dotagent run cannot continue: tasks to run, but workflow ${run.flow.name} has no tasks step; run \`dotagent resume\` to see where the workflow stands`,
      EXIT.refused,
    );
  const agent = tasksStep.agent;
  const design = planSourceOf(run.flow, tasksStep.id, facts.skipped);
  const fixes = facts.reworkRound ? (facts.reworkReport ?? reworkCopyPath(facts.reworkRound)) : undefined;
  const context = agentContext(run, at, tasksStep.id);
  // The bar counts the whole plan: every task of execution.json, done as they complete.
  let done = facts.tasksComplete;
  const total = facts.tasksTotal;
  const kept: string[] = [];
  const released: string[] = [];
  let blocked: AgentOutcome | undefined;
  await Promise.all(
    started.map(async (id) => {
      const output = `${REPORT.tasksDir}/${id}.json`;
      const title = facts.titles.get(id) ?? id;
      const lines = [
        `Task: ${id}`,
        `Title: ${title}`,
        `Design: ${design}`,
        ...(fixes ? [`Fixes: ${fixes}`] : []),
        `Workflow: ${at.workflowId}`,
        `Helper: ${options.helper}`,
        ...(worktreeLines.get(id) ?? []),
      ];
      const job: AgentJob = { key: `${agent}.${id}`, agent, output, lines };
      const label = `${id} ${title}`.slice(0, 60);
      let error: string | undefined;
      let ms = 0;
      try {
        const ran = await session(run, job, context, label);
        ms = ran.ms;
        const outcome = ran.outcome;
        error = outcome.error;
        if (outcome.interrupted) {
          kept.push(outcome.key);
          // Stopped by Ctrl-C: done if its report says so, else given back (no attempt counted).
          if (readReport(options.root, output)?.status === "complete") {
            if (!(await completeTask(run, id, output, label, ++done, total, ms))) done--;
          } else {
            await giveBack(run, id);
            released.push(id);
          }
          return;
        }
        if (outcome.blocked) {
          // Not the task's failure: given back (no attempt counted) as on Ctrl-C, its session kept,
          // so a wait for a usage limit's reset, or the next run, starts it again where it was.
          blocked ??= outcome;
          await giveBack(run, id);
          return;
        }
      } catch (e) {
        // Another start of the same agent still runs (query_running): never a failure of the task.
        if (!(e instanceof DotagentError) || e.exitCode === EXIT.locked) throw e;
        error = e.message;
      }
      const report = readReport(options.root, output);
      if (report?.status === "complete") {
        if (!(await completeTask(run, id, output, label, ++done, total, ms))) done--;
      } else {
        const why =
          typeof report?.error === "string" && report.error !== "" ? report.error : (error ?? `no valid ${output}`);
        const failed = await wf.tasks.fail(id, { error: why });
        run.claims?.release(id, warn(run));
        if (report !== undefined) wrote(run, output);
        const attempts = failed.task
          ? ` (attempt ${failed.task.attempts} of ${failed.max_attempts ?? "?"}${failed.task.status === "dead" ? ", no attempts left" : ""})`
          : "";
        options.progress.line(`${label}: ${why.replace(/\s+/g, " ").slice(0, 160)}${attempts}`, {
          mark: "failed",
          elapsedMs: ms,
        });
      }
    }),
  );
  if (released.length > 0)
    options.progress.line(
      `${released.length === 1 ? "task" : "tasks"} ${released.join(", ")} given back: ${released.length === 1 ? "it starts" : "they start"} again on the next run, no attempt counted`,
    );
  throwIfInterrupted(run, kept);
  if (blocked) throw new Blocked(blocked);
}

async function completeTask(
  run: Run,
  id: string,
  output: string,
  label: string,
  done: number,
  total: number,
  ms: number,
): Promise<boolean> {
  // --claims: renewed before landing; a claim another worker took over meanwhile is theirs (SPEC §23).
  const lost = await run.claims?.beforeLanding(id, warn(run));
  if (lost !== undefined) {
    await releaseTask(run, id);
    run.claims!.givenBack.add(id);
    const branch = (await taskOf(run, id))?.worktree?.branch;
    run.options.progress.line(
      `task ${id}: ${lost}; its work stays ${branch ? `on branch ${branch}` : "in this checkout"}, not landed`,
      { mark: "warning", elapsedMs: ms },
    );
    return false;
  }
  // A task with a worktree is merged as it completes (SPEC §19); a conflict sends it round again.
  const landed = (await run.wf.tasks.complete(id, { output })).task;
  wrote(run, output);
  const merge = landed?.worktree?.merge;
  if (merge?.state === "conflict") {
    run.claims?.release(id, warn(run));
    run.options.progress.line(`${label}: not merged into ${landed?.worktree?.into}: ${landed?.error ?? "conflict"}`, {
      mark: "failed",
      elapsedMs: ms,
    });
  } else {
    const worktree = landed?.worktree;
    await run.claims?.landed(
      opContext(run),
      id,
      worktree ? { branch: worktree.into, commit: worktree.merge?.commit ?? null } : undefined,
      warn(run),
    );
    run.options.progress.line(label, { mark: "done", elapsedMs: ms, after: taskBar(done, Math.max(total, done)) });
  }
  return true;
}

async function taskOf(run: Run, id: string) {
  const snapshot = await loadSnapshot(projectPaths(run.options.root));
  return snapshot.execution.kind === "ok" ? snapshot.execution.value.tasks.find((t) => t.id === id) : undefined;
}

const warn = (run: Run) => (line: string) => run.options.progress.line(line, { mark: "warning" });

/** A task this run started and stopped: given back here, and its claim released (--claims). */
async function giveBack(run: Run, id: string): Promise<void> {
  await releaseTask(run, id);
  run.claims?.release(id, warn(run));
}

/** A task this run started and stopped (Ctrl-C): pending again, no attempt counted. */
async function releaseTask(run: Run, id: string): Promise<void> {
  const context: OpContext = {
    paths: projectPaths(run.options.root),
    now: run.options.now ?? (() => new Date()),
    warn: (m) => run.options.progress.line(m, { mark: "warning" }),
    note: () => {},
  };
  try {
    await changeTask(context, { action: "release", id, owner: process.pid });
  } catch (error) {
    // Refused (finished or taken meanwhile): resume sorts it out on the next run.
    if (!(error instanceof DotagentError) || error.exitCode !== EXIT.refused) throw error;
  }
}

function agentContext(run: Run, at: StepContext, phase: string): AgentRunContext {
  const { options } = run;
  // The project's .claude/agents/<name>.md first: a definition's own agents (SPEC §20), and from the
  // CLI develop's too (installed, maybe edited); else the agent files as given.
  const agents =
    !run.pinned && options.projectContext !== true
      ? options.agents
      : agentsForFlow(options.root, new Set(run.flow.steps.flatMap(stepAgents)), options.agents);
  return {
    root: options.root,
    workflowId: at.workflowId,
    request: at.request,
    phase,
    agents,
    ...(run.instructions ? { instructions: run.instructions } : {}),
    ...(options.sdk ? { sdk: options.sdk } : {}),
    ...(options.sdkOptions ? { sdkOptions: options.sdkOptions } : {}),
  };
}

/** At most `limit` at once; after Ctrl-C nothing more starts. */
async function inBatches<T>(
  items: readonly T[],
  limit: number,
  run: Run,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: Math.min(limit, queue.length) }, async () => {
      for (let item = queue.shift(); item !== undefined && !run.options.signal?.aborted; item = queue.shift())
        await fn(item);
    }),
  );
}

/** Whether a report is there: a JSON object, or (a .md report) text. */
function reportThere(root: string, path: string): boolean {
  return path.endsWith(".json") ? readReport(root, path) !== undefined : (readText(root, path)?.trim() ?? "") !== "";
}

/** A report as a JSON object, or undefined (missing, unreadable, not an object). */
function readReport(root: string, path: string): Record<string, unknown> | undefined {
  const text = readText(root, path);
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function readText(root: string, path: string): string | undefined {
  const read = readProjectText(join(root, path), { maxBytes: 64 * 1024 * 1024, links: "inside", root });
  return read.kind === "ok" ? read.text : undefined;
}

interface Facts {
  request?: string;
  startedAt?: string;
  approved: string[];
  reworkRound?: number;
  titles: Map<string, string>;
  tasksTotal: number;
  tasksComplete: number;
  /** The flow the workflow walks: its pinned definition, else develop. */
  flow: Flow;
  /** Whether phase.json pins a definition (develop's does not). */
  pinned: boolean;
  /** The open rework round's failed report (phase.json `rework.verification`). */
  reworkReport?: string;
  /** The newest rework round, open or closed (0: none). */
  latestRound: number;
  /** Steps passed over (their `when` did not hold): they wrote no plan to take tasks from. */
  skipped: Set<string>;
}

/** What the state files say beyond the plan: the request, approvals, the rework round, the tasks. */
async function readFacts(root: string): Promise<Facts> {
  const snapshot = await loadSnapshot(projectPaths(root));
  const phase = snapshot.phase.kind === "ok" ? snapshot.phase.value : undefined;
  const execution = snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined;
  const rework = phase && isReworkOpen(phase) ? phase.rework : undefined;
  const tasks = execution?.tasks ?? [];
  return {
    ...(phase?.request ? { request: phase.request } : {}),
    ...(phase?.started_at ? { startedAt: phase.started_at } : {}),
    approved: (phase?.user_checkpoints ?? []).map((c) => c.phase),
    ...(typeof rework?.round === "number" ? { reworkRound: rework.round } : {}),
    titles: new Map(tasks.map((t) => [t.id, t.title ?? t.id])),
    tasksTotal: tasks.length,
    tasksComplete: tasks.filter((t) => t.status === "complete").length,
    flow: flowOrDefault(snapshot.phase),
    pinned: phase?.workflow !== undefined,
    ...(typeof rework?.verification === "string" ? { reworkReport: rework.verification } : {}),
    latestRound: phase?.rework?.round ?? 0,
    skipped: phase ? skippedSteps(phase) : new Set(),
  };
}

/** What nextRunStep needs beyond the plan: the current step of the flow, the open round, where plans come from. */
function runFacts(facts: Facts, phase: Phase | null): RunFacts {
  const step = phase === null ? undefined : stepOf(facts.flow, phase);
  const tasks = facts.flow.steps.find((s) => s.kind === "tasks");
  return {
    reworkRound: facts.reworkRound,
    ...(step ? { step } : {}),
    latestRound: facts.latestRound,
    keyedByAgent: !facts.pinned,
    ...(tasks ? { planSource: planSourceOf(facts.flow, tasks.id, facts.skipped) } : {}),
    ...(facts.reworkReport ? { reworkReport: facts.reworkReport } : {}),
  };
}

/**
 * `--workflow NAME` names the definition of a workflow this run starts: a workflow here that walks
 * another one and is not complete is continued by `dotagent run` alone, never silently.
 */
async function checkWorkflowName(options: RunOptions): Promise<void> {
  if (options.workflow === undefined) return;
  const snapshot = await loadSnapshot(projectPaths(options.root));
  if (snapshot.phase.kind !== "ok") return;
  const phase = snapshot.phase.value;
  const name = phase.workflow?.name ?? "develop";
  if (name === options.workflow || isWorkflowComplete(phase)) return;
  throw new DotagentError(
    "usage",
    `--workflow ${options.workflow}: workflow ${phase.workflow_id} here walks ${name} (at ${phase.current_phase}); continue it with dotagent run, or archive it first (dotagent archive) to start a ${options.workflow} workflow`,
    EXIT.usage,
  );
}
