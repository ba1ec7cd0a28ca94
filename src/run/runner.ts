// The headless runner behind `dotagent run`: the /develop loop without an interactive session.
// Each round reads the resume plan from disk (openWorkflow().resume), turns its `next` into one
// step (core/run-step.ts), carries the step out (agents through the Claude Agent SDK, gates asked
// or answered by --approve auto, plans recorded whole, task batches in parallel) and records it
// with the same operations the CLI uses. Everything it knows is on disk after every step, so a
// runner killed anywhere is continued by running it again: finished steps are never redone, and
// an agent cut off mid-session continues its own SDK session (agent-session.ts).
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import type { Decision } from "../core/plan-resume.js";
import { reworkCopyPath, REPORT, type Phase } from "../core/phases.js";
import { nextRunStep, tasksToPlan, type AgentJob, type RunStep } from "../core/run-step.js";
import { isReworkOpen } from "../core/transitions.js";
import { writeJsonDurable } from "../store/atomic-write.js";
import { readProjectText } from "../store/read-file.js";
import { loadSnapshot } from "../store/session.js";
import { projectPaths } from "../store/project.js";
import { assertStatePaths } from "../store/state-paths.js";
import { workflowAt, type Workflow } from "../api/workflow.js";
import { decisionWithDir } from "../ops/decision-dir.js";
import { acquireLock, readLock } from "../store/lock.js";
import type { QueryMessage, QuerySdk } from "../api/recoverable-query.js";
import { runAgentJob, runsDir, type AgentOutcome, type AgentRunContext } from "./agent-session.js";
import { findLiveAgents, type LiveAgent } from "./live-agents.js";
import { checkLogin } from "./login-check.js";
import type { AgentFile } from "./agent-files.js";
import type { Progress } from "./progress.js";

/** Questions for a person; `undefined` when nobody can be asked (no terminal). */
export interface Asker {
  /** Whether a person can be asked at all (a terminal); without one every question is a decision. */
  readonly interactive: boolean;
  confirm(question: string, initial: boolean): Promise<boolean | undefined>;
  choose(question: string, choices: readonly { name: string; hint: string }[], initial: string): Promise<string | undefined>;
}

export interface RunOptions {
  readonly root: string;
  readonly request?: string | undefined;
  readonly approve: "ask" | "auto";
  readonly design?: string | undefined;
  readonly maxParallel?: number | undefined;
  readonly agents: ReadonlyMap<string, AgentFile>;
  /** The helper command line executors use for `dotagent once`. */
  readonly helper: string;
  readonly ask: Asker;
  readonly progress: Progress;
  /** The Agent SDK's query(), loaded by the caller (an optional peer dependency). */
  readonly sdk?: QuerySdk<QueryMessage>;
  readonly sdkOptions?: Record<string, unknown>;
  readonly now?: () => Date;
  /** The --dir the run was given, repeated in every decision's commands. */
  readonly dirArg?: string | undefined;
}

export type RunOutcome =
  | { outcome: "complete"; workflow_id: string; steps: number; agents: number }
  | { outcome: "decision"; workflow_id: string | null; steps: number; agents: number; decision: Decision }
  | { outcome: "waiting"; workflow_id: string; steps: number; agents: number; in_flight: readonly string[] };

/** Rounds without a finished workflow before the runner gives up: far more than any real workflow takes. */
const MAX_ROUNDS = 1000;
/** An agent whose report is still missing after this many sessions in one run fails its phase. */
const MAX_AGENT_SESSIONS = 2;

interface Run {
  readonly options: RunOptions;
  readonly wf: Workflow;
  steps: number;
  agents: number;
  readonly sessions: Map<string, number>;
  /** Each job's last reply, for the message when it fails. */
  readonly said: Map<string, string>;
}

/**
 * One runner per project at a time (memory/runs/.lock, the state lock's mechanism): two would
 * spawn the same agent twice. The state lock itself is taken per operation, as by the CLI, so
 * `dotagent status` and an interactive session keep working while a run goes on.
 */
export async function runWorkflow(options: RunOptions): Promise<RunOutcome> {
  const paths = projectPaths(options.root);
  assertStatePaths(paths); // nothing is created under a --dir that is not the project's folder
  if (!existsSync(paths.stateDir) && !options.request) throw new DotagentError("usage", 'no workflow here to continue; give the feature request: dotagent run "add login"', EXIT.usage);
  // Before anything is created: a Claude Code that cannot log in would fail every agent.
  if (options.sdk) {
    const why = await checkLogin(options.sdk, { cwd: options.root, settingSources: [], permissionMode: "dontAsk", ...options.sdkOptions });
    if (why !== null) throw new DotagentError("auth_failed", `Claude Code is not logged in: ${why}; log in, then run dotagent run again (nothing was started)`, EXIT.refused);
  }
  const dir = runsDir(options.root);
  mkdirSync(dir, { recursive: true });
  let lock;
  try {
    lock = acquireLock(dir, { command: "run", waitMs: 0 });
  } catch (error) {
    if (!(error instanceof DotagentError) || error.code !== "locked") throw error;
    const holder = readLock(dir);
    const who = holder && holder !== "unreadable" ? `pid ${holder.pid} on ${holder.hostname}` : "another process";
    throw new DotagentError("run_locked", `another dotagent run (${who}) drives this workflow (memory/runs/.lock); wait for it, or stop it and run again`, EXIT.locked);
  }
  for (const warning of lock.warnings) options.progress.step(`warning: ${warning}`);
  try {
    // Before anything starts: an agent a killed run left running still works on its job.
    const live = findLiveAgents(dir);
    if (live.length > 0) throw agentsRunning(live);
    return await drive(options);
  } finally {
    lock.release();
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

/** A session ended on an account or API problem: the run stops, and nothing is marked failed for it. */
function blockedFailure(outcome: AgentOutcome): DotagentError {
  const said = outcome.said.replace(/\s+/g, " ").trim().slice(0, 200);
  const quoted = said ? ` ("${said}")` : "";
  const error = outcome.blocked?.error ?? "unknown";
  if (outcome.blocked?.kind === "service") {
    return new DotagentError("api_unavailable", `the Claude API cannot be used right now (${error})${quoted}; run dotagent run again later; nothing was marked failed`, EXIT.refused, { error });
  }
  const what = error === "authentication_failed" ? "Claude Code could not authenticate" : `Claude Code cannot use its account (${error})`;
  return new DotagentError("auth_failed", `${what}${quoted}; fix that (\`claude\` then /login, or ANTHROPIC_API_KEY), then run dotagent run again; nothing was marked failed`, EXIT.refused, { error });
}

async function drive(options: RunOptions): Promise<RunOutcome> {
  const now = options.now ?? (() => new Date());
  const run: Run = { options, wf: workflowAt(options.root, { now, onWarning: (m) => options.progress.step(`warning: ${m}`) }, options.dirArg), steps: 0, agents: 0, sessions: new Map(), said: new Map() };
  let request = options.request;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const plan = await run.wf.resume({ ...(request !== undefined ? { request } : {}), ...(options.maxParallel !== undefined ? { maxParallel: options.maxParallel } : {}), ...(options.ask.interactive ? { decide: (d: Decision) => askDecision(options, d) } : {}) });
    request = undefined; // checked once; the workflow holds it from here on
    if (plan.decision) return { outcome: "decision", workflow_id: plan.workflow_id, steps: run.steps, agents: run.agents, decision: plan.decision };
    for (const repair of plan.repairs ?? []) options.progress.step(`repaired: ${repair.message}`);
    const facts = await readFacts(options.root);
    const step = nextRunStep(plan, { reworkRound: facts.reworkRound });
    const workflowId = plan.workflow_id ?? "";
    const outcome = await carryOut(run, step, { workflowId, phase: plan.phase, request: facts.request ?? options.request ?? "", approved: facts.approved });
    if (outcome !== undefined) return outcome;
    run.steps++;
  }
  throw new DotagentError("run_stuck", `the workflow did not finish in ${MAX_ROUNDS} steps; run \`dotagent resume\` to see where it stands`, EXIT.refused);
}

interface StepContext {
  workflowId: string;
  phase: Phase | null;
  request: string;
  approved: readonly string[];
}

async function carryOut(run: Run, step: RunStep, at: StepContext): Promise<RunOutcome | undefined> {
  const { wf, options } = run;
  const say = options.progress.step;
  switch (step.kind) {
    case "init": {
      if (!options.request) throw new DotagentError("usage", 'no workflow here to continue; give the feature request: dotagent run "add login"', EXIT.usage);
      const started = await wf.init(options.request);
      if (!started.created) return decisionOutcome(run, at, started.decision);
      say(`started workflow ${started.workflow_id}`);
      await wf.phase.start("REQUIREMENTS");
      return undefined;
    }
    case "complete":
      say(`workflow ${at.workflowId} is complete; reflection in ${REPORT.reflectionJson}`);
      return { outcome: "complete", workflow_id: at.workflowId, steps: run.steps, agents: run.agents };
    case "agents":
      await runAgents(run, step, at);
      return undefined;
    case "gate": {
      if (!at.approved.includes(step.phase)) {
        const yes = await gate(options, `Approve ${step.phase === "REQUIREMENTS" ? "the requirements" : "the design"} in ${step.output}?${summaryOf(options.root, step.output)}`);
        if (yes === undefined) return decisionOutcome(run, at, { question: `Approve ${step.output}?`, default: false, yes: `dotagent phase approve ${step.phase}`, no: `edit ${step.output}, then dotagent run` });
        if (!yes) throw new DotagentError("not_approved", `${step.phase} was not approved; edit ${step.output} (or delete it to have it written again), then run dotagent run`, EXIT.refused);
        await wf.phase.approve(step.phase);
      }
      await wf.phase.complete(step.phase, { output: step.output });
      say(`${step.phase} approved and complete`);
      return undefined;
    }
    case "choose_design":
      return chooseDesign(run, at);
    case "plan_tasks": {
      const source = step.round > 0 ? reworkCopyPath(step.round) : REPORT.finalDesign;
      const tasks = tasksToPlan(step.round, readReport(options.root, source) ?? {}, at.request);
      writeJsonDurable(join(options.root, step.file), { tasks });
      const imported = await wf.tasks.import({ tasks });
      say(`planned ${tasks.length} task(s)${step.round > 0 ? ` for rework round ${step.round}` : ""} in ${step.file}${imported.added.length < tasks.length ? ` (${tasks.length - imported.added.length} already there)` : ""}`);
      return undefined;
    }
    case "run_tasks":
      await runTasks(run, step.tasks, at);
      return undefined;
    case "wait":
      say(`tasks ${step.inFlight.join(", ")} are running in another session; run dotagent run again when it ends`);
      return { outcome: "waiting", workflow_id: at.workflowId, steps: run.steps, agents: run.agents, in_flight: step.inFlight };
    case "dead_tasks": {
      const retry = step.tasks.map((id) => `dotagent task retry ${id} --extra-attempts 2`).join(" && ");
      const yes = options.approve === "ask" ? await options.ask.confirm(`Tasks ${step.tasks.join(", ")} failed too often. Give each 2 more attempts?`, false) : undefined;
      if (yes === undefined) return decisionOutcome(run, at, { question: `Tasks ${step.tasks.join(", ")} failed too often: retry them?`, default: false, yes: retry, no: "stop here; the state stays for later" });
      if (!yes) throw new DotagentError("tasks_dead", `tasks ${step.tasks.join(", ")} failed too often and were not retried; \`${retry}\` when you want them again`, EXIT.refused);
      for (const id of step.tasks) await wf.tasks.retry(id, { extraAttempts: 2 });
      return undefined;
    }
    case "stuck":
      throw new DotagentError("run_stuck", `dotagent run cannot continue: ${step.reason}; run \`dotagent resume\` to see where the workflow stands`, EXIT.refused);
  }
}

function decisionOutcome(run: Run, at: StepContext, decision: Decision): RunOutcome {
  run.options.progress.step(`a person must decide: ${decision.question}`);
  return { outcome: "decision", workflow_id: at.workflowId, steps: run.steps, agents: run.agents, decision: decisionWithDir(decision, run.options.dirArg) };
}

/** A gate: yes with --approve auto, asked on a terminal, `undefined` (a decision) without one. */
async function gate(options: RunOptions, question: string): Promise<boolean | undefined> {
  if (options.approve === "auto") return true;
  return options.ask.confirm(question, true);
}

/** Decisions from resume (stale, corrupt, request changed) archive state: asked, never auto. */
async function askDecision(options: RunOptions, decision: Decision): Promise<boolean> {
  return (await options.ask.confirm(decision.question, decision.default)) === true;
}

async function runAgents(run: Run, step: Extract<RunStep, { kind: "agents" }>, at: StepContext): Promise<void> {
  const { wf, options } = run;
  await wf.phase.start(step.phase, step.designs ? { designs: [...step.designs] } : {});
  for (const job of step.jobs) {
    const count = (run.sessions.get(job.key) ?? 0) + 1;
    run.sessions.set(job.key, count);
    if (count > MAX_AGENT_SESSIONS) {
      const said = run.said.get(job.key)?.replace(/\s+/g, " ").slice(0, 200);
      const error = `${job.agent} did not write a valid ${job.output} in ${MAX_AGENT_SESSIONS} sessions${said ? ` (it said: "${said}")` : ""}`;
      await wf.phase.fail(step.phase, { error });
      throw new DotagentError("agent_failed", `${error}; the phase is marked failed: look at the agent's output, then run dotagent run again`, EXIT.refused);
    }
  }
  options.progress.step(`${step.phase}: ${step.jobs.map((j) => `${j.agent} → ${j.output}`).join(", ")}`);
  const context = agentContext(run, at, step.phase);
  const limit = Math.max(1, options.maxParallel ?? 3);
  let blocked: AgentOutcome | undefined;
  await inBatches(step.jobs, limit, async (job) => {
    if (blocked) return; // the account or the API is out: no more sessions
    const outcome = await runAgentJob(job, context);
    run.agents++;
    if (outcome.blocked) {
      blocked ??= outcome;
      return;
    }
    run.said.set(job.key, outcome.said);
    if (outcome.error) options.progress.step(`${outcome.error}`);
  });
  if (blocked) throw blockedFailure(blocked);
  if (step.then === "verdict") {
    const report = readReport(options.root, REPORT.verification);
    if (report?.passed === true) await wf.phase.complete("VERIFICATION", { output: REPORT.verification });
    else if (report?.passed === false) {
      const failures = Array.isArray(report.failures) ? report.failures.length : 0;
      options.progress.step(`verification failed (${failures} failure(s)): back to IMPLEMENTATION for rework`);
      await wf.phase.rework();
    }
  } else if (step.then === "complete") {
    const output = readReport(options.root, REPORT.reflectionJson) ? REPORT.reflectionJson : REPORT.reflectionMd;
    if (readProjectText(join(options.root, output), { maxBytes: 64 * 1024 * 1024, links: "inside", root: options.root }).kind === "ok") await wf.phase.complete(step.phase, { output });
  }
}

async function chooseDesign(run: Run, at: StepContext): Promise<RunOutcome | undefined> {
  const { wf, options } = run;
  const roundtable = readReport(options.root, REPORT.roundtable) ?? {};
  // Only a design whose file is there can be chosen: final_design.json holds it, never a made-up one.
  const written = new Set(listDesignFiles(options.root));
  const offered = listDesigns(roundtable);
  const designs = offered.filter((d) => written.has(d.name));
  let chosen = options.design;
  if (chosen !== undefined && !designs.some((d) => d.name === chosen)) {
    const there = designs.length > 0 ? designs.map((d) => d.name) : [...written];
    const why = !written.has(chosen) ? `there is no valid ${REPORT.designsDir}/${chosen}.json` : `${REPORT.roundtable} does not offer it`;
    throw new DotagentError("usage", `--design ${chosen}: ${why}; the designs to choose from: ${there.length > 0 ? there.join(", ") : "none yet"}`, EXIT.usage, { designs: there });
  }
  const recommended = typeof roundtable.recommendation === "string" && designs.some((d) => d.name === roundtable.recommendation) ? roundtable.recommendation : designs[0]?.name;
  if (recommended === undefined) {
    const missing = offered.map((d) => `${REPORT.designsDir}/${d.name}.json`);
    throw new DotagentError("run_stuck", offered.length === 0 ? `${REPORT.roundtable} names no design to choose; delete it to have the roundtable run again` : `${REPORT.roundtable} offers designs whose files are missing or invalid (${missing.join(", ")}); delete it to have the roundtable run again`, EXIT.refused);
  }
  if (chosen === undefined && options.approve === "auto") chosen = recommended;
  if (chosen === undefined) chosen = await options.ask.choose(`Which design? The roundtable recommends ${recommended}.`, designs, recommended);
  if (chosen === undefined) {
    const others = designs.filter((d) => d.name !== recommended).map((d) => d.name);
    return decisionOutcome(run, at, { question: `Which design? Options: ${designs.map((d) => d.name).join(", ")}; the roundtable recommends ${recommended}.`, default: true, yes: `dotagent run --design ${recommended}`, no: others.length > 0 ? `dotagent run --design ${others[0]}` : "stop here" });
  }
  const source = `${REPORT.designsDir}/${chosen}.json`;
  const design = readReport(options.root, source);
  if (design === undefined) throw new DotagentError("usage", `--design ${chosen}: there is no valid ${source}; the designs to choose from: ${designs.map((d) => d.name).join(", ")}`, EXIT.usage);
  const decided = (options.now ?? (() => new Date()))().toISOString();
  const tasks = tasksToPlan(0, design, at.request);
  writeJsonDurable(join(options.root, REPORT.finalDesign), { chosen, source, approved_by: options.design !== undefined || options.approve === "ask" ? "user" : "dotagent run --approve auto", decided_at: decided, user_notes: "", design, tasks });
  // The pick is the approval: the person (or --approve auto) chose this design.
  await wf.phase.approve("ARCHITECTURE");
  await wf.phase.complete("ARCHITECTURE", { output: REPORT.finalDesign });
  options.progress.step(`design ${chosen} chosen; ARCHITECTURE complete`);
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
  return names.filter((n) => n.endsWith(".json")).map((n) => n.slice(0, -".json".length)).filter((name) => readReport(root, `${REPORT.designsDir}/${name}.json`) !== undefined).sort();
}

function listDesigns(roundtable: Record<string, unknown>): Array<{ name: string; hint: string }> {
  const options = Array.isArray(roundtable.options_for_user) ? roundtable.options_for_user : Array.isArray(roundtable.designs) ? roundtable.designs : [];
  return options.flatMap((o) => {
    if (!o || typeof o !== "object") return [];
    const r = o as Record<string, unknown>;
    return typeof r.name === "string" ? [{ name: r.name, hint: typeof r.one_line === "string" ? r.one_line : typeof r.summary === "string" ? r.summary : "" }] : [];
  });
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
    } catch (error) {
      // Refused: another session started it meanwhile; it is theirs.
      if (!(error instanceof DotagentError) || error.exitCode !== EXIT.refused) throw error;
      options.progress.step(`${id}: ${error.message}`);
    }
  }
  const status = await wf.tasks.next().catch(() => undefined);
  const titles = new Map((status?.tasks ?? []).map((t) => [t.id, t.title ?? t.id]));
  const context = agentContext(run, at, "IMPLEMENTATION");
  const facts = await readFacts(options.root);
  const running = new Set(started);
  let done = 0;
  options.progress.tasks(done, started.length, [...running]);
  let blocked: AgentOutcome | undefined;
  await Promise.all(
    started.map(async (id) => {
      const output = `${REPORT.tasksDir}/${id}.json`;
      const lines = [`Task: ${id}`, `Title: ${titles.get(id) ?? facts.titles.get(id) ?? id}`, `Design: ${REPORT.finalDesign}`, ...(facts.reworkRound ? [`Fixes: ${reworkCopyPath(facts.reworkRound)}`] : []), `Workflow: ${at.workflowId}`, `Helper: ${options.helper}`, ...(worktreeLines.get(id) ?? [])];
      const job: AgentJob = { key: `executor.${id}`, agent: "executor", output, lines };
      let error: string | undefined;
      try {
        const outcome = await runAgentJob(job, context);
        error = outcome.error;
        if (outcome.blocked) {
          // Not the task's failure: it stays as it is (running, this run's); the run stops below.
          blocked ??= outcome;
          running.delete(id);
          return;
        }
      } catch (e) {
        // Another start of the same agent still runs (query_running): never a failure of the task.
        if (!(e instanceof DotagentError) || e.exitCode === EXIT.locked) throw e;
        error = e.message;
      }
      run.agents++;
      const report = readReport(options.root, output);
      if (report?.status === "complete") {
        // A task with a worktree is merged as it completes (SPEC §19); a conflict sends it round again.
        const landed = (await wf.tasks.complete(id, { output })).task;
        if (landed?.worktree?.merge?.state === "conflict") options.progress.step(`${id}: not merged into ${landed.worktree.into}: ${landed.error ?? "conflict"}`);
      } else await wf.tasks.fail(id, { error: typeof report?.error === "string" && report.error !== "" ? report.error : (error ?? `no valid ${output}`) });
      running.delete(id);
      options.progress.tasks(++done, started.length, [...running]);
    }),
  );
  options.progress.end();
  if (blocked) throw blockedFailure(blocked);
}

function agentContext(run: Run, at: StepContext, phase: string): AgentRunContext {
  const { options } = run;
  return { root: options.root, workflowId: at.workflowId, request: at.request, phase, agents: options.agents, ...(options.sdk ? { sdk: options.sdk } : {}), ...(options.sdkOptions ? { sdkOptions: options.sdkOptions } : {}) };
}

async function inBatches<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(Array.from({ length: Math.min(limit, queue.length) }, async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await fn(item);
  }));
}

/** A report as a JSON object, or undefined (missing, unreadable, not an object). */
function readReport(root: string, path: string): Record<string, unknown> | undefined {
  const read = readProjectText(join(root, path), { maxBytes: 64 * 1024 * 1024, links: "inside", root });
  if (read.kind !== "ok") return undefined;
  try {
    const value: unknown = JSON.parse(read.text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A line or two of a report for the person asked to approve it. */
function summaryOf(root: string, path: string): string {
  const report = readReport(root, path);
  const summary = report?.summary ?? (report?.design as Record<string, unknown> | undefined)?.summary;
  return typeof summary === "string" && summary !== "" ? `\n  ${summary.slice(0, 300)}` : "";
}

/** What the state files say beyond the plan: the request, approvals, the rework round, task titles. */
async function readFacts(root: string): Promise<{ request?: string; approved: string[]; reworkRound?: number; titles: Map<string, string> }> {
  const snapshot = await loadSnapshot(projectPaths(root));
  const phase = snapshot.phase.kind === "ok" ? snapshot.phase.value : undefined;
  const execution = snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined;
  const rework = phase && isReworkOpen(phase) ? phase.rework : undefined;
  return {
    ...(phase?.request ? { request: phase.request } : {}),
    approved: (phase?.user_checkpoints ?? []).map((c) => c.phase),
    ...(typeof rework?.round === "number" ? { reworkRound: rework.round } : {}),
    titles: new Map((execution?.tasks ?? []).map((t) => [t.id, t.title ?? t.id])),
  };
}
