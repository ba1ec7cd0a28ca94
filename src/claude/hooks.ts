// Claude Code's hooks as dotagent answers them (SPEC §11): the bookkeeping of the /develop loop
// done by code, at the moment Claude Code sees it happen, whether the model reads a report early,
// late or never, and whether agents run in the foreground (`claude -p`) or the background (the
// interactive terminal).
//
//   PreToolUse  Bash              allow exactly the helper's own command lines (helper-command.ts)
//   PreToolUse  Agent             a dotagent agent's spawn: record its start, or refuse it with why;
//                                 an executor whose task has a worktree gets its lines (updatedInput)
//   PreToolUse  SubagentHandback  an agent handing back without its report: sent back (bounded)
//   PreToolUse  Write, Edit, …    who writes what (write-guard.ts): memory/state/ is dotagent's, a
//               and Bash          report its agent's, an executor's code goes into its worktree
//   SubagentStop                  record the agent's result from its report; no report: sent back
//   PostToolUse Agent             the agent returned (foreground): its result and the next step
//   PostToolUseFailure Agent      the call failed: the start is undone (the task fails, the phase
//                                 agent's record goes)
//   UserPromptSubmit              a background agent's notification: its result and the next step
//
// Each returns the JSON Claude Code reads from the hook's stdout, or null (say nothing: Claude
// Code's own flow decides). Nothing here throws past the hook command, which always exits 0.
import { existsSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { dotagentAgentName, readAgentJob, describeJob, withRequestLine, type AgentJob } from "../core/agent-job.js";
import type { Flow } from "../core/flow.js";
import { readExecutionFile, readFlow, readPhaseFile } from "../store/state-files.js";
import { judgeHelperCommand, judgeSpawnInput } from "../core/helper-command.js";
import { judgeBashWrite, judgeFileWrite, type GuardContext, type Writer } from "../core/write-guard.js";
import { promptWithLines } from "../core/worktrees.js";
import { isValidReport, reportAt } from "../core/reports.js";
import type { ResumePlan } from "../core/plan-resume.js";
import { nextContext, type NextPlan } from "./next-line.js";
import type { OpContext } from "../ops/op-context.js";
import {
  agentTranscriptPath,
  readAgentPrompt,
  readAgentStartedAt,
  readAgentType,
  remindersSent,
} from "../store/agent-transcript.js";
import { loadSnapshot, withLock } from "../store/session.js";
import { readJournalMoment, readLaunch, readWorkflowAgentStop } from "../core/claude-workflow-run.js";
import { WORKFLOW_RUNS_DIR, copyJournal, copyJournals, markEnded, recordRun } from "../store/workflow-runs.js";
import { textDigest, type ReplyEvidence } from "../store/authority.js";
import { refusalContext } from "../core/workflow-cap.js";
import { workflowAgentRefusal } from "./workflow-cap-hook.js";
import { startReplyCarrier } from "../store/reply-carrier.js";

// The operations that write load only for the hooks that record (a Bash line is judged without them).
const agentRun = () => import("../ops/agent-run.js");
const personGate = () => import("../ops/person-gate.js");
const personReplies = () => import("../ops/person-replies.js");
const workflowResume = () => import("../ops/workflow-resume.js");

export type HookInput = Record<string, unknown>;
export type HookOutput = Record<string, unknown> | null;

/** How often an agent without its report is sent back before its end is recorded as it is. */
export const MAX_REMINDERS = 2;

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const obj = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

function realpath(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}

const preToolUse = (decision: "allow" | "deny", reason: string, updatedInput?: Record<string, unknown>) => ({
  hookSpecificOutput: {
    hookEventName: "PreToolUse",
    permissionDecision: decision,
    permissionDecisionReason: reason,
    ...(updatedInput ? { updatedInput } : {}),
  },
});
const context = (event: string, text: string) => ({
  hookSpecificOutput: { hookEventName: event, additionalContext: text },
});

/** nextContext as a hook hands it to the model; a question in it is recorded as asked first, so the person's reply answers it. */
async function handNext(
  op: OpContext,
  event: string,
  recorded: readonly string[],
  plan: NextPlan,
): Promise<HookOutput> {
  if (plan.decision) await (await personGate()).recordAsked(op, plan.decision);
  return context(event, nextContext(recorded, plan));
}

/** The words an agent without its report is sent back with (numbered: the count lives in its transcript). */
export function reminder(job: AgentJob, why: string, n: number, inWorktree?: string): string {
  const shape =
    job.task !== undefined
      ? `one JSON object with "task_id": "${job.task}" and "status": "complete" or "failed" (with "error" saying what blocks it)`
      : job.check === true
        ? 'a JSON object with a boolean "passed"'
        : "a non-empty JSON object";
  const where = inWorktree ? ` (the main checkout's: ${inWorktree}, not your worktree's copy)` : "";
  return `dotagent reminder ${n} of ${MAX_REMINDERS}: your report is not done: ${why}. Write ${job.output}${where} now, with one Write call: ${shape}. Then finish.`;
}

/** The job of a dotagent agent from its transcript (a hook that sees only the agent id). */
function jobFromTranscript(transcript: string | undefined, agentType: unknown, flow: Flow): AgentJob | undefined {
  if (transcript === undefined) return undefined;
  const name = dotagentAgentName(agentType ?? readAgentType(transcript), flow);
  if (name === undefined) return undefined;
  const prompt = readAgentPrompt(transcript);
  const reading = prompt === undefined ? undefined : readAgentJob(name, prompt, flow);
  return reading?.ok ? reading.job : undefined;
}

function transcriptOf(input: HookInput): string | undefined {
  const own = str(input.agent_transcript_path);
  if (own !== undefined) return own;
  const session = str(input.transcript_path);
  const sessionId = str(input.session_id);
  const agentId = str(input.agent_id);
  return session && sessionId && agentId ? agentTranscriptPath(session, sessionId, agentId) : undefined;
}

/**
 * The flow of the workflow here (flowOrDefault: its pinned definition, else develop), read for a
 * sub-agent's call (a definition may give develop's agents other steps) and for every write the
 * guard judges (who writes a report is the definition's). A call without an agent type is no
 * dotagent agent's: its callers return before reading any state.
 */
export function flowFor(op: OpContext): Promise<Flow> {
  return readFlow(op.paths);
}

export async function onPreToolUse(op: OpContext, input: HookInput, helper: string): Promise<HookOutput> {
  // A Workflow agent past its run's fan-out cap or budget (SPEC §11): every call of it that reaches here is refused.
  const refused = workflowAgentRefusal(op.paths.root, input, op.warn);
  if (refused !== null) return preToolUse("deny", refused);
  const tool = str(input.tool_name);
  const toolInput = obj(input.tool_input);
  if (tool === "Bash") {
    const command = str(toolInput.command);
    const helperReal = realpath(helper);
    if (command === undefined || helperReal === undefined) return null;
    const cwd = str(input.cwd) ?? op.paths.root;
    const verdict = judgeHelperCommand(command, { helper: helperReal, root: op.paths.root, cwd, realpath });
    if (!verdict.allow) return guardBash(op, input, command, helper, await flowFor(op));
    // A gate is the person's: the model's approval before their reply is refused, not pre-approved.
    const unanswered = await (await personGate()).unansweredApproval(op, verdict.argv, cwd);
    if (unanswered !== undefined) return preToolUse("deny", `dotagent: ${unanswered}`);
    // `workflow-run resume RUN_ID`: a run the person let resume is sealed and put back into this
    // session before the line runs (the command alone knows no session; SPEC §11).
    if (verdict.subcommand === "workflow-run") await (await workflowResume()).beforeResumeLine(op, verdict.argv, input);
    return preToolUse("allow", `dotagent's own helper (${verdict.subcommand}) on this project's workflow state`);
  }
  if (tool !== undefined && tool in WRITE_TOOLS) return guardFileWrite(op, input, helper, await flowFor(op));
  if (tool === "Agent" || tool === "Task") {
    if (typeof toolInput.subagent_type !== "string") return null;
    const flow = await flowFor(op);
    const name = dotagentAgentName(toolInput.subagent_type, flow);
    if (name === undefined || !hasWorkflowFolder(op)) return null;
    const fields = judgeSpawnInput(toolInput);
    if (fields !== undefined) return preToolUse("deny", `dotagent: ${fields}, then spawn it again.`);
    const reading = readAgentJob(name, str(toolInput.prompt) ?? "", flow);
    if (!reading.ok)
      return preToolUse(
        "deny",
        `dotagent: ${reading.reason}. Give the agent the prompt lines /develop shows (Feature request:, Phase:, … , Output file:), then spawn it again.`,
      );
    try {
      const started = await (await agentRun()).startAgentJob(op, reading.job);
      if (!started.ok) return preToolUse("deny", `dotagent: ${started.reason}`);
      // A task with a worktree: the executor's prompt gets where it works (Claude Code runs the
      // call with the input the hook gives back: SPEC §19, test/claude/NOTES.md).
      const lines = started.lines ?? [];
      // Every agent works on the person's request, also when the model left its line empty.
      const given = str(toolInput.prompt) ?? "";
      const filled = withRequestLine(given, await workflowRequest(op));
      const prompt = lines.length > 0 ? promptWithLines(filled, lines) : filled;
      const updated = prompt !== given ? { ...toolInput, prompt } : undefined;
      return preToolUse("allow", `dotagent recorded: ${started.what}`, updated);
    } catch (error) {
      // Unrecorded, an agent could run twice: better not started now than not recorded.
      return preToolUse(
        "deny",
        `dotagent could not record the start of the ${describeJob(reading.job)} agent (${(error as Error).message}); try again in a moment`,
      );
    }
  }
  if (tool === "SubagentHandback") {
    const transcript = transcriptOf(input);
    const job = jobFromTranscript(transcript, input.agent_type, await flowFor(op));
    if (job === undefined || transcript === undefined) return null;
    const snapshot = await loadSnapshot(op.paths, [{ path: job.output, mode: "parse" }]);
    const report = reportAt(snapshot.reports, job.output);
    const fine =
      isValidReport(report) &&
      (job.task === undefined || (report as { data: Record<string, unknown> }).data.task_id === job.task);
    // A task's report older than its attempt is an earlier attempt's (a retried task's): sent back
    // now, while the agent can still write this one (its end would fail the attempt instead).
    const stale =
      fine && job.task !== undefined && snapshot.execution.kind === "ok"
        ? (await agentRun()).staleReport(
            op.paths.root,
            job.output,
            snapshot.execution.value.tasks.find((t) => t.id === job.task && t.status === "running"),
          )
        : undefined;
    if (fine && stale === undefined) return null;
    const sent = remindersSent(transcript, MAX_REMINDERS);
    if (sent >= MAX_REMINDERS) return null;
    // What is wrong, as the SubagentStop path says it ("is not valid JSON", "has no boolean `passed`", another task's id).
    const why =
      stale !== undefined
        ? stale
        : report.status === "missing"
          ? `${job.output} does not exist`
          : report.status === "invalid" || report.status === "outside"
            ? `${job.output} ${report.reason}`
            : report.status === "valid"
              ? `${job.output} has task_id ${JSON.stringify((report.data as Record<string, unknown>).task_id)}, not "${job.task}"`
              : `${job.output} is not a valid report`;
    return preToolUse("deny", reminder(job, why, sent + 1, worktreeReport(op, snapshot, job)));
  }
  return null;
}

/**
 * Claude Code's own Workflow runs (SPEC §11 "Claude Code's Workflow runs"): a launch is recorded
 * (PostToolUse on Workflow); each workflow agent's end (SubagentStop), the next one's start
 * (SubagentStart) and the run's notification (UserPromptSubmit) copy the run's journal, in a
 * project with dotagent's memory/state/. A refusal is one warning line; the client's flow goes on.
 */
async function keepWorkflowRun(op: OpContext, input: HookInput): Promise<boolean> {
  const launch = readLaunch(input);
  const stop = launch === null ? readWorkflowAgentStop(input) : null;
  const moment = launch === null && stop === null ? readJournalMoment(input) : null;
  const reading = launch ?? stop ?? moment;
  if (reading === null) return false;
  if (!existsSync(op.paths.stateDir)) return true;
  // A start or a notification with no run recorded (any agent's notification of the /develop loop): no lock taken.
  if (moment !== null && !existsSync(join(op.paths.stateDir, WORKFLOW_RUNS_DIR))) return true;
  if (!reading.ok) {
    op.warn(`a Claude Code workflow run is not recorded: ${reading.why}`);
    return true;
  }
  try {
    await withLock(
      op.paths,
      launch ? "hook post-tool-use Workflow" : stop ? "hook subagent-stop workflow-subagent" : "hook workflow journal",
      () => {
        if (launch?.ok) {
          for (const warning of recordRun(op.paths, launch.value, op.now()).warnings) op.warn(warning);
        } else if (stop?.ok) {
          const copy = copyJournal(op.paths, stop.value.runId, stop.value.journalPath);
          if (copy.kind === "refused") op.warn(copy.why);
        } else if (moment?.ok) {
          for (const copy of copyJournals(op.paths, moment.value))
            if (copy.kind === "refused" && !copy.missing) op.warn(copy.why);
          // The run's end (its notification's status): no longer open, nothing to resume.
          const { taskId, status } = moment.value;
          if (taskId !== null && status !== null)
            markEnded(op.paths, { sessionId: moment.value.sessionId, taskId }, status, op.now());
        }
      },
      op.warn,
    );
  } catch (error) {
    op.warn(`a Claude Code workflow run is not recorded: ${(error as Error).message.split("\n")[0]}`);
  }
  return true;
}

/** A workflow agent's start (Claude Code's Workflow tool): the journals of the session's runs copied. */
export async function onSubagentStart(op: OpContext, input: HookInput): Promise<HookOutput> {
  await keepWorkflowRun(op, input);
  // Past its run's fan-out cap or budget: the agent is told it is refused (no hook can keep it from starting).
  const refused = workflowAgentRefusal(op.paths.root, input, op.warn);
  if (refused === null) return null;
  op.warn(refused.replace(/^dotagent: /, ""));
  return context("SubagentStart", refusalContext(refused));
}

export async function onSubagentStop(op: OpContext, input: HookInput): Promise<HookOutput> {
  if (await keepWorkflowRun(op, input)) return null;
  const transcript = transcriptOf(input);
  const job = jobFromTranscript(transcript, input.agent_type, await flowFor(op));
  if (job === undefined || transcript === undefined || !hasWorkflowFolder(op)) return null;
  const sent = remindersSent(transcript, MAX_REMINDERS);
  const end = await (
    await agentRun()
  ).endAgentJob(op, job, { final: sent >= MAX_REMINDERS, ended: true, agentStartedAt: readAgentStartedAt(transcript) });
  if (end.kind === "send_back")
    return {
      decision: "block",
      reason: reminder(job, end.why, sent + 1, worktreeReport(op, await loadSnapshot(op.paths), job)),
    };
  return null;
}

export async function onPostToolUse(op: OpContext, input: HookInput): Promise<HookOutput> {
  if (await keepWorkflowRun(op, input)) return null;
  const toolInput = obj(input.tool_input);
  if (typeof toolInput.subagent_type !== "string") return null;
  const flow = await flowFor(op);
  const name = dotagentAgentName(toolInput.subagent_type, flow);
  if (name === undefined || !hasWorkflowFolder(op)) return null;
  const reading = readAgentJob(name, str(toolInput.prompt) ?? "", flow);
  if (!reading.ok) return null;
  const event = str(input.hook_event_name) ?? "PostToolUse";
  // Launched in the background: its end comes later, with its notification.
  if (event === "PostToolUse" && obj(input.tool_response).status === "async_launched") return null;
  const end = await (await agentRun()).endAgentJob(op, reading.job, { final: true, ended: true });
  if (end.kind !== "recorded") return null;
  return handNext(op, event, [end.what], end.plan);
}

/** Claude Code's own messages into the session (an agent's notification or hand-back), never the person's words. */
function isNotification(prompt: string): boolean {
  return /<task-notification>|<agent-message from="|^\s*<system_notification>/.test(prompt);
}

/**
 * The agent a notification is about: the `<task-id>` that opens a `<task-notification>`, or the
 * sender of an `<agent-message from="…">` hand-back, only where Claude Code puts it, at the start.
 * An id anywhere else is text an agent wrote (its hand-back may quote anything) and names no one.
 */
export function notifiedAgents(prompt: string): string[] {
  const head = prompt.trimStart();
  const note = /^<task-notification>\s*<task-id>([\w-]{1,128})<\/task-id>/.exec(head);
  const message = /^[^<\n]{0,200}<agent-message from="([\w-]{1,128})"/.exec(head);
  return [note?.[1], message?.[1]].filter((id): id is string => id !== undefined);
}

export async function onUserPromptSubmit(op: OpContext, input: HookInput): Promise<HookOutput> {
  // A Workflow run's end (its <task-notification>): its journal, complete now, copied; then as any notification.
  await keepWorkflowRun(op, input);
  const prompt = str(input.prompt) ?? "";
  const ids = notifiedAgents(prompt);
  if (!hasWorkflowFolder(op)) return null;
  // A prompt (no agent's notification): at an open gate, after a question or a failed phase, the
  // person's reply, if the client's own record says they typed it (src/ops/person-replies.ts); a
  // /command such as /develop asks to go on, not to approve, but does start a failed phase again.
  if (ids.length === 0 && !isNotification(prompt)) {
    const done = await (
      await personReplies()
    ).recordPrompt(op, {
      text: prompt,
      evidence: promptEvidence(input, prompt),
      command: prompt.trimStart().startsWith("/"),
    });
    if (done.kind === "pending") {
      startReplyCarrier(op.paths.root, process.argv[1]);
      const what =
        done.effect.kind === "restart"
          ? `starts ${done.effect.phase} again`
          : done.effect.kind === "pick"
            ? `picks ${done.effect.design} (dotagent writes final_design.json from it and approves ${done.effect.phase})`
            : `approves ${done.effect.phase}`;
      const told = `the person's reply ${what}; dotagent carries it out at your next step, once the client has recorded the prompt as the person's; do not run phase approve or write final_design.json`;
      return done.plan === undefined
        ? context("UserPromptSubmit", `dotagent recorded: ${told}.`)
        : handNext(op, "UserPromptSubmit", [told], done.plan);
    }
    if (done.kind === "ignored")
      return context(
        "UserPromptSubmit",
        `dotagent: this prompt was not the person's (${done.why}); it answers nothing: ask the person.`,
      );
    if (done.kind !== "approved" && done.kind !== "restarted") return null;
    const { result } = done;
    const what =
      done.kind === "restarted"
        ? `the person replied after ${done.phase} failed: ${done.phase} started again; do what they said (their prompt) and the next step`
        : done.picked
          ? `the person picked ${done.picked}: final_design.json written from it and ${done.phase} approved (their prompt); do not write it or run phase approve`
          : `the person approved ${done.phase} (their prompt); do not run phase approve`;
    return handNext(op, "UserPromptSubmit", [what], {
      phase: result.phase,
      phase_status: result.phase_status,
      next: result.next,
      in_flight: result.in_flight,
      agents_in_flight: result.agents_in_flight,
      decision: result.decision,
    });
  }
  const recorded: string[] = [];
  let plan: ResumePlan | undefined;
  for (const id of ids) {
    const session = str(input.transcript_path);
    const sessionId = str(input.session_id);
    const transcript = session && sessionId ? agentTranscriptPath(session, sessionId, id) : undefined;
    const job = jobFromTranscript(transcript, undefined, await flowFor(op));
    if (job === undefined) continue;
    const end = await (
      await agentRun()
    ).endAgentJob(op, job, {
      final: true,
      agentStartedAt: transcript === undefined ? undefined : readAgentStartedAt(transcript),
    });
    if (end.kind === "recorded") {
      recorded.push(end.what);
      plan = end.plan;
    }
  }
  return plan === undefined ? null : handNext(op, "UserPromptSubmit", recorded, plan);
}

/**
 * Where the client records the prompt this hook is about, so dotagent can check that the person
 * typed it (src/store/authority.ts): Claude Code's transcript and the prompt's id; the other
 * clients' adapters name theirs (`dotagent_client`, and the record and id they give).
 */
function promptEvidence(input: HookInput, prompt: string): ReplyEvidence | undefined {
  // Another client's adapter says where its record is (src/clients/*/hook-io.ts).
  const given = obj(input.dotagent_evidence);
  if (Object.keys(given).length > 0)
    return typeof given.client === "string" &&
      typeof given.record === "string" &&
      typeof given.id === "string" &&
      typeof given.sha === "string"
      ? (given as unknown as ReplyEvidence)
      : undefined;
  const record = str(input.transcript_path);
  const id = str(input.prompt_id);
  return record === undefined || id === undefined
    ? undefined
    : { client: "claude", record, id, sha: textDigest(prompt) };
}

/** An executor whose task has a worktree is told the report's absolute path (its worktree holds a copy of memory/). */
function worktreeReport(
  op: OpContext,
  snapshot: Awaited<ReturnType<typeof loadSnapshot>>,
  job: AgentJob,
): string | undefined {
  if (job.task === undefined || snapshot.execution.kind !== "ok") return undefined;
  const task = snapshot.execution.value.tasks.find((t) => t.id === job.task);
  return task?.worktree != null ? join(op.paths.root, job.output) : undefined;
}

// ---- Who writes what (src/core/write-guard.ts has the rules and the threat) ----

/** The tools that write a file, and the input field naming it. */
const WRITE_TOOLS: Readonly<Record<string, string>> = {
  Write: "file_path",
  Edit: "file_path",
  MultiEdit: "file_path",
  NotebookEdit: "notebook_path",
};

function guardContext(op: OpContext, input: HookInput, helper: string, flow: Flow): GuardContext {
  return { root: op.paths.root, cwd: str(input.cwd) ?? op.paths.root, realpath, helper: `node "${helper}"`, flow };
}

/** Who makes the call: the main agent's calls carry no agent_id; a sub-agent's its id and type. */
async function writerOf(op: OpContext, input: HookInput, flow: Flow): Promise<Writer> {
  if (input.agent_id === undefined) return { kind: "main" };
  const name = dotagentAgentName(input.agent_type, flow);
  if (name === undefined) return { kind: "other" };
  const transcript = transcriptOf(input);
  // A client without Claude Code's per-agent transcript gives the agent's prompt itself (src/clients/).
  const prompt = str(input.agent_prompt) ?? (transcript === undefined ? undefined : readAgentPrompt(transcript));
  if (prompt === undefined) return { kind: "agent", agent: name };
  const reading = readAgentJob(name, prompt, flow);
  // dotagent puts a worktree task's lines last into the executor's prompt (promptWithLines).
  const worktree =
    reading.ok && reading.job.task !== undefined
      ? prompt
          .split(/\r?\n/)
          .findLast((l) => l.startsWith("Worktree: "))
          ?.slice("Worktree: ".length)
          .trim()
      : undefined;
  const recorded =
    !worktree && reading.ok && reading.job.task !== undefined
      ? await recordedWorktree(op, prompt, reading.job.task)
      : undefined;
  return { kind: "agent", agent: name, job: reading.ok ? reading.job : undefined, worktree: worktree || recorded };
}

/**
 * The worktree execution.json records for an executor's task, when its prompt names the task and
 * its workflow (`Task:`, `Workflow:`) but has no `Worktree:` line: the lines did not reach it (a
 * client that cannot add them, a hook that did not run), and it is held to its worktree anyway,
 * instead of writing into the main checkout unseen (an empty merge, its code outside any commit).
 */
async function recordedWorktree(op: OpContext, prompt: string, taskId: string): Promise<string | undefined> {
  const workflow = prompt
    .split(/\r?\n/)
    .findLast((l) => l.startsWith("Workflow: "))
    ?.slice("Workflow: ".length)
    .trim();
  if (!workflow) return undefined;
  const read = await readExecutionFile(op.paths);
  if (read.kind !== "ok" || read.value.workflow_id !== workflow) return undefined;
  const record = read.value.tasks.find((t) => t.id === taskId)?.worktree;
  if (record == null) return undefined;
  const [{ isRepo, repoAt }, { worktreeAt }] = await Promise.all([
    import("../store/worktrees.js"),
    import("../ops/worktree-tasks.js"),
  ]);
  const repo = repoAt(op.paths.root);
  return isRepo(repo) ? worktreeAt(op.paths.root, repo, record).dir : join(op.paths.root, record.path);
}

async function guardFileWrite(op: OpContext, input: HookInput, helper: string, flow: Flow): Promise<HookOutput> {
  const toolInput = obj(input.tool_input);
  const path = str(toolInput[WRITE_TOOLS[str(input.tool_name) ?? ""] ?? ""]);
  if (path === undefined || path === "") return null;
  const verdict = judgeFileWrite(path, await writerOf(op, input, flow), guardContext(op, input, helper, flow));
  return verdict.deny ? preToolUse("deny", verdict.reason) : null;
}

async function guardBash(
  op: OpContext,
  input: HookInput,
  command: string,
  helper: string,
  flow: Flow,
): Promise<HookOutput> {
  const verdict = judgeBashWrite(command, guardContext(op, input, helper, flow), await writerOf(op, input, flow));
  return verdict.deny ? preToolUse("deny", verdict.reason) : null;
}

/** The workflow's request (phase.json), or undefined. */
async function workflowRequest(op: OpContext): Promise<string | undefined> {
  const snapshot = await loadSnapshot(op.paths);
  return snapshot.phase.kind === "ok" ? (snapshot.phase.value.request ?? undefined) : undefined;
}

function hasWorkflowFolder(op: OpContext): boolean {
  try {
    return realpathSync.native(op.paths.stateDir) !== undefined;
  } catch {
    return false;
  }
}
