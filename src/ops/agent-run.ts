// An agent's start and end, recorded by code instead of by the model (the hooks of SPEC §11; a
// program may call them too). Starting: an executor's task is started (owner: this Claude Code
// session), a phase agent is recorded as at work in phase.json `agents` (its phase started, an
// architect's design added to designs_requested); a start that must not happen (the task is done
// or in flight, the phase is over, the same agent is already at work) is refused with the reason.
// Ending: the agent's report decides: an executor's task is completed or failed from it; a phase
// agent's record goes, and the planner advances when the report proves the phase (qa's verdict,
// the reflection). An agent that ends without a valid report is sent back while it has reminders
// left (`final: false`); when it cannot be (it has stopped for good), its task fails with the
// reason, or its phase is asked for again. Every step is idempotent: a repeat records nothing.
import { oneLine } from "../core/words.js";
import { describeJob, type AgentJob } from "../core/agent-job.js";
import { DotagentError, EXIT } from "../core/errors.js";
import { isWorkflowComplete, transition } from "../core/transitions.js";
import { leftOutNote, leftOutOf } from "../core/worktrees.js";
import { reportAt } from "../core/reports.js";
import { emptyExecution, failTask, staleOutputMove } from "../core/tasks.js";
import { startPlannedTask } from "../core/plans.js";
import { describeOwner, isInFlight, agentOwnerKey } from "../core/ownership.js";
import { phaseIndexIn } from "../core/phases.js";
import { flowOf } from "../core/flow-of.js";
import type { ResumePlan } from "../core/plan-resume.js";
import type { AgentRun, PhaseState } from "../schema/phase.js";
import type { MachineEvent } from "../core/transitions.js";
import { loadSnapshot, type WrittenStates } from "../store/session.js";
import { reportTimes } from "../store/reports.js";
import { markStart } from "../store/start-markers.js";
import { setAsideUnowned } from "../store/unowned-reports.js";
import { isOwned, presentAgentReports, unownedReason } from "../core/report-owners.js";
import { FILE_CLOCK_SLACK_MS } from "../core/person-answer.js";
import { currentOwner, judgeRunningTasks } from "../store/process-facts.js";
import { StateWriter } from "../store/state-writer.js";
import { locked, type OpContext } from "./op-context.js";
import { settle } from "./settle.js";
import { requireWorkflow } from "./state-guard.js";
import { heldRead, writeTaskChange } from "./task-change.js";
import {
  awaitLanding,
  isolateStart,
  landingProblem,
  landTask,
  makeStartedWorktree,
  prepareLanding,
  unfinishedStart,
  type StartedWorktree,
} from "./worktree-tasks.js";
import { oneOperation } from "../store/worktrees.js";

/** `lines`: what the executor's prompt gets besides the model's (its worktree: SPEC §19). */
export type AgentStart = { ok: true; what: string; lines?: string[] } | { ok: false; reason: string };

export type AgentEnd =
  | { kind: "recorded"; what: string; plan: ResumePlan }
  /** The agent has no valid report yet and can still write one: the reason it is sent back with. */
  | { kind: "send_back"; why: string }
  /** Not this attempt's end (an earlier attempt's executor): nothing recorded. */
  | { kind: "ignored"; why: string };

/** Why this job cannot start at the workflow's current phase, or undefined when it can. */
function phaseRefusal(phase: PhaseState, job: AgentJob): string | undefined {
  if (isWorkflowComplete(phase)) return `workflow ${phase.workflow_id} is complete: no agent runs for it any more`;
  const current = phase.current_phase;
  if (current === job.phase) return undefined;
  return phaseIndexIn(phase, job.phase) < phaseIndexIn(phase, current)
    ? `${job.phase} is complete (the workflow is at ${current}); do not run the ${job.agent} agent again`
    : `the workflow is at ${current}; ${job.phase} has not started, so the ${job.agent} agent cannot run yet`;
}

export function startAgentJob(context: OpContext, job: AgentJob): Promise<AgentStart> {
  // One operation: its repository lookups are asked once (oneOperation).
  return oneOperation(() => startAgentJobIn(context, job));
}

async function startAgentJobIn(context: OpContext, job: AgentJob): Promise<AgentStart> {
  const now = context.now();
  const { start, worktree } = await locked(context, `hook: start ${describeJob(job)}`, () =>
    startUnderLock(context, job, now),
  );
  // Its worktree is made after the lock, beside the other starts of its batch.
  if (start.ok && worktree !== undefined && job.task !== undefined) {
    try {
      await makeStartedWorktree(context, job.task, worktree, now);
    } catch (error) {
      return { ok: false, reason: worktreeNotMade(job.task, error) };
    }
  }
  return start;
}

/**
 * Why a spawn is refused when its task's worktree could not be made (the start is taken back).
 * Only a lock another git holds passes with time; anything else stays until someone acts, and
 * what the message names to do is the person's (for the person:), so it is handed to them.
 */
function worktreeNotMade(task: string, error: unknown): string {
  const why = (error as Error).message;
  if (error instanceof DotagentError && error.code === "git_locked")
    return `the worktree of task ${task} could not be made yet (${why}); the task is released: spawn it again in a moment`;
  return `the worktree of task ${task} could not be made (${why}); the task is released and waits: tell the person this and end your turn`;
}

/** The start recorded (the caller holds the lock); `worktree`: to be made once the lock is let go. */
async function startUnderLock(
  context: OpContext,
  job: AgentJob,
  now: Date,
): Promise<{ start: AgentStart; worktree?: StartedWorktree }> {
  // A step done but not recorded yet (a report written, an approval given) counts first.
  const { checkout } = await settle(context, now);
  const snapshot = await loadSnapshot(context.paths);
  const phase = requireWorkflow(snapshot, now);
  const refusal = phaseRefusal(phase, job);
  if (refusal !== undefined) return { start: { ok: false, reason: refusal } };
  const writer = new StateWriter(context.paths, snapshot, now, context.warn);
  const owner = currentOwner(now);
  if (job.task !== undefined) {
    const execution =
      snapshot.execution.kind === "ok" ? snapshot.execution.value : emptyExecution(phase.workflow_id, now);
    const started = startPlannedTask(
      execution,
      phase,
      job.task,
      now,
      owner,
      judgeRunningTasks(snapshot, now).get(job.task),
    );
    if (!started.ok) {
      const unfinished = unfinishedStart(context.paths.root, phase, execution, job.task, owner);
      if (unfinished === undefined) return { start: { ok: false, reason: started.message } };
      markStart(context.paths.root, context.paths.stateDir, job.task);
      return {
        start: {
          ok: true,
          what: `${describeJob(job)} started (its start, cut off, finished: worktree ${unfinished.record.path})`,
          lines: unfinished.lines,
        },
        worktree: unfinished,
      };
    }
    let isolated;
    try {
      isolated = isolateStart(context, phase, execution, started.state, job.task, owner, now, checkout);
    } catch (error) {
      if (
        error instanceof DotagentError &&
        (error.code === "isolation_undecided" ||
          error.code === "git_failed" ||
          error.code === "git_sandboxed" ||
          error.code === "worktree_busy" ||
          error.code === "worktree_off_branch")
      )
        return { start: { ok: false, reason: error.message } };
      throw error;
    }
    const outcome = { state: isolated.state, events: [...isolated.events, ...started.events] };
    const begun = isolated.state.tasks.find((t) => t.id === job.task);
    writeTaskChange(writer, phase, outcome, begun, staleOutputMove(snapshot.reports, begun, now), now);
    if (isolated.worktree) markStart(context.paths.root, context.paths.stateDir, job.task);
    const where = isolated.worktree
      ? ` in its worktree ${isolated.worktree.record.path} (branch ${isolated.worktree.record.branch}${isolated.mended ? `; ${isolated.mended}` : ""})`
      : "";
    const shared = isolated.warning ? ` (${isolated.warning})` : "";
    return {
      start: {
        ok: true,
        what: `${describeJob(job)} started${where}${shared}`,
        ...(isolated.worktree ? { lines: isolated.worktree.lines } : {}),
      },
      ...(isolated.worktree ? { worktree: isolated.worktree } : {}),
    };
  }
  // A failed phase's agent runs again only once the person replied (their prompt starts the phase again, SPEC §5).
  if (phase.phase_status === "failed" && job.phase === phase.current_phase) {
    return {
      start: {
        ok: false,
        reason: `${phase.current_phase} failed: ${oneLine(phase.error ?? "no reason recorded", 200)}; the person decides whether the ${job.agent} agent runs again: tell them and end your turn, and spawn it after they reply`,
      },
    };
  }
  const verdicts = judgeRunningTasks(snapshot, now);
  const runs = phase.agents ?? [];
  const same = runs.find((r) => r.output === job.output);
  if (same !== undefined && isInFlight(verdicts, agentOwnerKey(same.output))) {
    return {
      start: {
        ok: false,
        reason: `a ${describeJob(job)} agent is already at work on ${job.output} (${describeOwner(same.owner)}); wait for its result instead of starting another`,
      },
    };
  }
  const events: MachineEvent[] = [];
  let next = phase;
  if (phase.phase_status !== "in_progress") {
    const started = transition(
      phase,
      { type: "start", phase: job.phase },
      { reports: snapshot.reports, execution: undefined, now },
    );
    if (!started.ok) return { start: { ok: false, reason: started.message } };
    next = started.state;
    events.push(...started.events);
  }
  if (job.design !== undefined && !(next.designs_requested ?? []).includes(job.design)) {
    const designs = [...(next.designs_requested ?? []), job.design];
    next = { ...next, designs_requested: designs };
    events.push({ type: "designs_requested", phase: job.phase, designs });
  }
  const run: AgentRun = { agent: job.agent, output: job.output, ...(job.design ? { design: job.design } : {}), owner };
  // Its report counts once it is on agent_reports; one there that no recorded agent wrote goes aside first (core/report-owners.ts).
  const flow = flowOf(phase);
  const owned = phase.agent_reports ?? presentAgentReports(snapshot.reports, flow);
  let aside: string | undefined;
  try {
    aside = isOwned(owned, job.output, flow) ? undefined : setAsideUnowned(context.paths.root, job.output);
  } catch (error) {
    if (error instanceof DotagentError) return { start: { ok: false, reason: error.message } };
    throw error;
  }
  next = {
    ...next,
    agents: [...runs.filter((r) => r.output !== job.output), run],
    agent_reports: owned.includes(job.output) ? owned : [...owned, job.output],
  };
  if (aside !== undefined)
    events.push({
      type: "report_set_aside",
      agent: job.agent,
      output: job.output,
      to: aside,
      reason: unownedReason(job.output, flow),
    });
  events.push({
    type: "agent_started",
    agent: job.agent,
    output: job.output,
    ...(job.design ? { design: job.design } : {}),
    session: owner.session ?? null,
    pid: owner.pid,
  });
  writer.applyChange({ phaseBefore: phase, moves: [], phase: next, events });
  const note =
    aside === undefined
      ? ""
      : ` (the ${job.output.replace("memory/reports/", "")} there ${unownedReason(job.output, flow)}: moved to ${aside})`;
  return { start: { ok: true, what: `${describeJob(job)} started${note}` } };
}

/**
 * Why a task's report is not this attempt's work: its file is older than the attempt's start (an
 * earlier attempt's, or a copy), or undefined. The hand-back check and the end of an executor ask it.
 */
export function staleReport(
  root: string,
  output: string,
  task: { started_at?: string | null | undefined } | undefined,
): string | undefined {
  const attemptAt = task?.started_at ? Date.parse(task.started_at) : Number.NaN;
  if (!Number.isFinite(attemptAt)) return undefined;
  return (reportTimes(root, [output])[0] ?? attemptAt) + FILE_CLOCK_SLACK_MS < attemptAt
    ? `${output} was written before this attempt started (${task!.started_at}); write this attempt's report`
    : undefined;
}

/** Why a report does not count for its job, or undefined when it does. */
function reportProblem(job: AgentJob, state: ReturnType<typeof reportAt>): string | undefined {
  if (state.status === "missing") return `${job.output} does not exist`;
  if (state.status === "outside") return `${job.output} ${state.reason}`;
  if (state.status === "invalid") return `${job.output} ${state.reason}`;
  if (state.status !== "valid") return `${job.output} could not be read`;
  if (job.task !== undefined) {
    const data = state.data as Record<string, unknown>;
    if (data.task_id !== job.task)
      return `${job.output} has task_id ${JSON.stringify(data.task_id)}, not "${job.task}"`;
  }
  return undefined;
}

/**
 * `ended`: the agent itself has just ended (SubagentStop, a foreground Agent call's result), not a
 * notification about it. `agentStartedAt` (ms, from its transcript): an executor that started
 * before its task's current attempt belongs to an earlier one, and its end is not this attempt's.
 */
export function endAgentJob(
  context: OpContext,
  job: AgentJob,
  options: { final: boolean; ended?: boolean; agentStartedAt?: number | undefined },
): Promise<AgentEnd> {
  // One operation: its repository lookups are asked once (oneOperation).
  return oneOperation(() => endAgentJobIn(context, job, options));
}

async function endAgentJobIn(
  context: OpContext,
  job: AgentJob,
  options: { final: boolean; ended?: boolean; agentStartedAt?: number | undefined },
): Promise<AgentEnd> {
  const now = context.now();
  // An executor's work in its worktree is committed before the lock, by the one call its end
  // makes (a notification about it, which may come meanwhile, leaves that alone): the lock is then
  // held for the merge alone.
  if (job.task !== undefined && options.agentStartedAt !== undefined) {
    // An earlier attempt's executor touches nothing of the attempt at work, not even its worktree.
    const task = (await loadSnapshot(context.paths)).execution;
    const current = task.kind === "ok" ? task.value.tasks.find((t) => t.id === job.task) : undefined;
    if (current?.status === "running" && current.started_at && options.agentStartedAt < Date.parse(current.started_at))
      return {
        kind: "ignored",
        why: `an executor of an earlier attempt of ${current.id} ended; attempt ${current.attempts + 1} is at work`,
      };
  }
  // What the executor can still fix in its worktree (on another branch, its files written elsewhere): sent back.
  if (job.task !== undefined && options.ended === true && !options.final) {
    const problem = await landingProblem(context, job.task, job.output);
    if (problem !== undefined) return { kind: "send_back", why: problem };
  }
  const prepared =
    job.task !== undefined && options.ended === true ? await prepareLanding(context, job.task, job.output) : undefined;
  // A notification about it meanwhile lets that call land it rather than race it in its worktree.
  if (job.task !== undefined && options.ended !== true) await awaitLanding(context, job.task, job.output);
  return locked(context, `hook: end of ${describeJob(job)}`, async () => {
    const snapshot = await loadSnapshot(context.paths, [{ path: job.output, mode: "parse" }]);
    const phase = requireWorkflow(snapshot, now);
    const report = reportAt(snapshot.reports, job.output);
    const problem = reportProblem(job, report);
    const writer = new StateWriter(context.paths, snapshot, now, context.warn);
    let what: string;
    // What settle plans from (below): the state files written here as written, the others as this
    // read found them (nothing of dotagent's writes them while the lock is held, and a write over a
    // change made without it is refused by its stamp and runs again from a fresh read).
    let after: WrittenStates = { phase: snapshot.phase, execution: snapshot.execution };
    let ownRead = true;
    if (job.task !== undefined) {
      const execution = snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined;
      const task = execution?.tasks.find((t) => t.id === job.task);
      const attemptAt = task?.started_at ? Date.parse(task.started_at) : Number.NaN;
      // A report older than this attempt is an earlier attempt's (or a copy): not this one's work.
      const stale = problem === undefined ? staleReport(context.paths.root, job.output, task) : undefined;
      if (execution === undefined || task === undefined || task.status !== "running") {
        // A landing the agent's own end made (SubagentStop says nothing back): what it left out is told here.
        const left = leftOutOf(task?.worktree?.merge);
        what = `${describeJob(job)}: already recorded (${task?.status ?? "no such task"}${left ? `; its landing ${leftOutNote(left.files, left.commit)}` : ""})`;
      } else if (
        options.agentStartedAt !== undefined &&
        Number.isFinite(attemptAt) &&
        options.agentStartedAt < attemptAt
      ) {
        return {
          kind: "ignored",
          why: `an executor of an earlier attempt of ${task.id} ended; attempt ${task.attempts + 1} is at work`,
        };
      } else if (stale !== undefined && !options.final) {
        return { kind: "send_back", why: stale };
      } else if (problem !== undefined && !options.final) {
        return { kind: "send_back", why: problem };
      } else {
        const data =
          problem === undefined && stale === undefined ? (report as { data: Record<string, unknown> }).data : undefined;
        if (data?.status === "complete") {
          // Merged into the workflow's branch first (a task with a worktree), then recorded complete.
          // From this read (it holds the report): the landing's git work between its read and its
          // write changes no state file and no report (memory/ is never merged, SPEC §19).
          const landing = await landTask(context, task.id, now, job.output, { prepared, read: snapshot });
          what = landing.what;
          // A landing that read for itself: settle reads all it did not write.
          ownRead = landing.read === snapshot;
          after = ownRead ? { phase: snapshot.phase, ...landing.written } : landing.written;
        } else {
          const outcome = failTask(
            execution,
            task.id,
            data !== undefined
              ? typeof data.error === "string" && data.error !== ""
                ? data.error
                : "the executor reported failed"
              : `the executor stopped without a valid report: ${problem ?? stale}`,
            now,
          );
          if (!outcome.ok) throw new DotagentError(outcome.code, outcome.message, EXIT.refused);
          writeTaskChange(writer, phase, outcome, undefined, undefined, now);
          what = `${describeJob(job)}: failed`;
          after = { phase: snapshot.phase, ...writer.writtenStates() };
        }
      }
    } else {
      if (problem !== undefined && !options.final) return { kind: "send_back", why: problem };
      const runs = phase.agents ?? [];
      if (runs.some((r) => r.output === job.output)) {
        let next: PhaseState = { ...phase, agents: runs.filter((r) => r.output !== job.output) };
        const events: MachineEvent[] = [
          {
            type: "agent_ended",
            agent: job.agent,
            output: job.output,
            report: problem === undefined ? "valid" : problem,
          },
        ];
        // Reminded and still without its report: the phase fails, saying why (a person decides
        // whether to run it again); a report there, however old, stands.
        if (problem !== undefined && phase.current_phase === job.phase && phase.phase_status !== "complete") {
          const error = `the ${describeJob(job)} agent stopped without a valid report: ${problem}`;
          next = { ...next, phase_status: "failed", error };
          events.push({ type: "phase_failed", phase: job.phase, error });
        }
        writer.applyChange({ phaseBefore: phase, moves: [], phase: next, events });
        after = { execution: snapshot.execution, ...writer.writtenStates() };
      }
      what = `${describeJob(job)}: ${problem === undefined ? `${job.output} written` : `ended without a valid report (${problem}); ${job.phase} failed`}`;
    }
    // The step after this one (qa's verdict and the reflection complete their phase here), planned
    // from that: this read's reports stand for settle's while phase.json is as read (loadSnapshot's
    // `held`), and the tasks validated on this read (requireWorkflow) are not checked again.
    const settled = await settle(context, now, [], ownRead ? { ...after, held: heldRead(snapshot, now) } : after);
    return { kind: "recorded", what, plan: settled.plan };
  });
}
