// `dotagent hook <event> [--client claude|copilot|codex]`: every client's hooks (SPEC §11, §22),
// each answered by its adapter (src/clients/index.ts: the client's input to Claude Code's hook JSON,
// src/claude/hooks.ts's answers back to what the client reads). Every one exits 0 (but Copilot's
// session-start with a line for the person: 2) and never breaks the session: what it has to say is
// JSON on stdout, a problem one line on stderr. session-start is fast, takes no lock (it only reads
// but for a pending question or a reply of the person's that waits) and prints nothing when there
// is no open workflow; the loop's hooks
// take the state lock, waiting longer for it than a command.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { tasksStepOf } from "../../core/plans.js";
import { carryWaitingReply } from "../../ops/op-context.js";
import { planWithRecovery } from "../../ops/recovery.js";
import { loadSnapshot } from "../../store/session.js";
import { judgeRunningTasks } from "../../store/process-facts.js";
import { checkoutKey } from "../../store/checkout-key.js";
import { findProjectRoot, projectPaths } from "../../store/project.js";
import { briefingFor } from "../../claude/briefing.js";
import { sessionLine, tellsPerson } from "../../core/session-line.js";
import { flowOrDefault } from "../../core/flow-of.js";
import { readEventsTail } from "../../store/events.js";
import { worktreeViews } from "../../core/worktrees.js";
import { checkoutQuestionFor } from "../../store/worktrees.js";
import { checkoutAsModelSees } from "../../ops/settle.js";
import type { ResumePlan } from "../../core/plan-resume.js";
import { DEFAULT_CLIENT, isClientId } from "../../clients/index.js";
import { CLIENT_HOOKS } from "../../clients/hook-parts.js";
import type { HookHost, SessionStartTold } from "../../clients/adapter.js";
import { opContext, stringOption, warn, type Command, type CommandContext } from "../context.js";
import { writeStd } from "../std-write.js";

interface SessionStartInput {
  source?: string;
  cwd?: string;
  hook_event_name?: string;
}

/** What the command lends a client's hooks (src/clients/adapter.ts HookHost). */
function hookHost(context: CommandContext): HookHost {
  return {
    helper: process.argv[1] ?? "",
    paths(variable, input) {
      if (context.options.dir !== undefined) return context.paths;
      const from = process.env[variable] || (typeof input.cwd === "string" ? input.cwd : undefined);
      return from === undefined ? context.paths : projectPaths(findProjectRoot(undefined, from));
    },
    op: (paths, options = {}) => opContext(context, { paths, byModel: false, ...options }),
    warn: warn(context),
    told: (input, command, modelGitReadOnly, afterPrompt) =>
      sessionStartTold(context, input as SessionStartInput, command, modelGitReadOnly, afterPrompt),
  };
}

/** The SessionStart briefing on the open workflow, or null (none, or nothing to say). Never throws. */
export async function sessionStartContext(context: CommandContext, input: SessionStartInput): Promise<string | null> {
  return (await sessionStartTold(context, input)).briefing;
}

/** The briefing for the model and the one line for the person (src/core/session-line.ts), each null when there is nothing to say. Never throws. */
export async function sessionStartTold(
  context: CommandContext,
  input: SessionStartInput,
  command = "/develop",
  modelGitReadOnly?: () => boolean,
  afterPrompt?: boolean,
): Promise<SessionStartTold> {
  try {
    const paths =
      context.options.dir === undefined && typeof input.cwd === "string"
        ? projectPaths(findProjectRoot(undefined, input.cwd))
        : context.paths;
    await carryReplyFirst(context, paths);
    const snapshot = await loadSnapshot(paths);
    const now = context.now();
    // The checkout's key made here, outside any sandbox (Codex runs the model's commands where they
    // cannot write the user's state folder): a question the model's helper call puts is sealed then.
    if (snapshot.phase.kind !== "missing") checkoutKey(paths.root, { create: true });
    // The checkout is looked at only when a round's tasks are about to start (git runs then alone),
    // so the briefing names the isolation question instead of a run_tasks the spawn hook refuses.
    // Worded for the model's shell: Codex's sandbox keeps .git read-only there (its rollout says).
    const plan = await planWithRecovery(paths, snapshot, now, {
      owners: judgeRunningTasks(snapshot, now),
      checkout: checkoutAsModelSees({ modelGitReadOnly }, checkoutQuestionFor(paths.root, snapshot)),
    });
    const asked = await recordPendingQuestion(context, paths, plan);
    const execution = snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined;
    const phase = snapshot.phase.kind === "ok" ? snapshot.phase.value : undefined;
    const runs = await workflowRunLines(context, paths, input);
    const briefing = briefingFor(
      plan,
      input.source,
      process.argv[1],
      {
        isolation: execution?.isolation ?? null,
        worktrees: worktreeViews(execution),
        tasksStep: phase && tasksStepOf(phase),
      },
      phase?.request ?? null,
      asked,
    );
    const line = sessionLine({
      plan,
      source: input.source,
      command,
      recorded: tellsPerson(input.source) ? readEventsTail(paths.eventsFile) : [],
      flow: flowOrDefault(snapshot.phase),
      afterPrompt,
    });
    // The cut-off runs' line for the person follows the workflow's (not at a compaction: nothing changed for them).
    const runsLine = tellsPerson(input.source) || input.source === "clear" ? runs.person : null;
    return {
      briefing:
        runs.briefing.length === 0 ? briefing : [briefing, ...runs.briefing].filter((t) => t !== null).join("\n"),
      line: runsLine === null ? line : line === null ? runsLine : `${line}\n${runsLine}`,
    };
  } catch (error) {
    // State that is there but cannot be read is news for the session, not silence. (Its line says
    // so: stderr is where Copilot shows that line, so it carries nothing else then.)
    if (
      (error as Error).name === "DotagentError" &&
      /^(state_|rollback_journal_invalid$)/.test((error as { code?: string }).code ?? "")
    ) {
      const briefing = `dotagent: the workflow state in memory/ cannot be read, so where the workflow stands is unknown: ${(error as Error).message}`;
      return {
        briefing,
        line: `dotagent: the workflow state in memory/ cannot be read (${(error as Error).message}). Type ${command} to choose what to do.`,
      };
    }
    // A hook must never break the session; say so on stderr (Claude Code shows it in verbose mode).
    writeStd("stderr", `dotagent hook: ${(error as Error).message}\n`);
    return { briefing: null, line: null };
  }
}

/**
 * A reply of the person's that waits for the client's record (`.pending-reply.json`: typed just
 * before the session ended, its carrier still waiting up to 2 s) is carried out before the session
 * is briefed, as every locked command does (SPEC §11), so a session started in that window is not
 * told to put a question the person already answered. One stat when none waits; never a long wait
 * behind a held lock; a failure leaves the reply to the next locked command.
 */
async function carryReplyFirst(context: CommandContext, paths: ReturnType<typeof projectPaths>): Promise<void> {
  if (!existsSync(join(paths.stateDir, ".pending-reply.json"))) return;
  const wait = Number(process.env.DOTAGENT_LOCK_WAIT_MS);
  process.env.DOTAGENT_LOCK_WAIT_MS = String(Number.isFinite(wait) && wait >= 0 ? Math.min(wait, 1000) : 1000);
  try {
    await carryWaitingReply(opContext(context, { paths, byModel: false, warn: () => undefined }), "hook session-start");
  } catch {
    // the next locked command carries it out
  }
}

/**
 * Claude Code's Workflow runs left open (SPEC §11): their journals copied again, put back into this
 * session and their calls handed, and the person's line on them (src/ops/workflow-resume.ts, loaded
 * only when runs are kept here).
 */
async function workflowRunLines(
  context: CommandContext,
  paths: ReturnType<typeof projectPaths>,
  input: SessionStartInput,
): Promise<{ briefing: string[]; person: string | null }> {
  if (!existsSync(join(paths.stateDir, "workflow-runs"))) return { briefing: [], person: null };
  const { sessionStartRunsTold } = await import("../../ops/workflow-resume.js");
  return sessionStartRunsTold(
    { paths, warn: warn(context), ...(process.argv[1] ? { helper: process.argv[1] } : {}) },
    input as Record<string, unknown>,
  );
}

/**
 * A question pending as the session starts (after a crash: the uncommitted-changes question, a
 * changed request, …) is recorded as asked (`decision_asked`, once while unanswered), as every hook
 * that hands the model a question records it: the briefing then hands it as the model's next step,
 * so the model asks the person before any command, and the person's reply (the line they read says
 * "Type yes or no") answers it. The only write of this hook, under the state lock; a lock it cannot
 * get leaves the briefing as before (the model's `resume --json` asks and records it then).
 */
async function recordPendingQuestion(
  context: CommandContext,
  paths: ReturnType<typeof projectPaths>,
  plan: ResumePlan,
): Promise<boolean> {
  if (plan.decision === null || plan.situation === "corrupt") return false;
  // A session start never waits long behind a held lock (this one-shot process takes no other).
  const wait = Number(process.env.DOTAGENT_LOCK_WAIT_MS);
  process.env.DOTAGENT_LOCK_WAIT_MS = String(Number.isFinite(wait) && wait >= 0 ? Math.min(wait, 1000) : 1000);
  try {
    const gate = await import("../../ops/person-gate.js");
    await gate.recordAsked(opContext(context, { paths, byModel: false, warn: () => undefined }), plan.decision);
    return true;
  } catch {
    return false;
  }
}

export const command: Command = {
  summary:
    "hook <event>: Claude Code's hooks (session-start, pre-tool-use, post-tool-use, subagent-start, subagent-stop, user-prompt-submit; JSON on stdin)",
  usage:
    "dotagent hook session-start|pre-tool-use|post-tool-use|subagent-start|subagent-stop|user-prompt-submit [--client copilot|codex]",
  options: { client: { type: "string" } },
  lenientOptions: true,
  examples: [
    'echo \'{"source":"resume","cwd":"."}\' | dotagent hook session-start',
    `echo '{"tool_name":"Bash","tool_input":{"command":"node x/dotagent.cjs status"}}' | dotagent hook pre-tool-use`,
  ],
  async run(context) {
    const event = context.args[0];
    // dotagent's own: the carrier a UserPromptSubmit hook starts (src/store/reply-carrier.ts), in
    // whichever client's environment it inherited.
    if (event === "carry-reply") {
      try {
        const { carryWhenRecorded } = await import("../../ops/reply-carrier.js");
        await carryWhenRecorded(opContext(context, { byModel: false, warn: () => undefined }), {
          now: Date.now,
          sleep: (ms) => new Promise((done) => setTimeout(done, ms)),
        });
      } catch {
        // The next locked command carries the reply out.
      }
      return 0;
    }
    // The client --client names (any other word: Claude Code's, as a hook never fails on its options).
    const client = stringOption(context, "client");
    const hooks = await CLIENT_HOOKS[isClientId(client) ? client : DEFAULT_CLIENT.id]();
    try {
      const reply = await hooks.run(event, hookHost(context));
      if (reply.stdout !== null) writeStd("stdout", `${JSON.stringify(reply.stdout)}\n`);
      if (reply.stderr !== null) writeStd("stderr", reply.stderr);
      return reply.exitCode;
    } catch (error) {
      writeStd("stderr", `dotagent hook ${event}: ${(error as Error).message}\n`);
    }
    return 0;
  },
};
