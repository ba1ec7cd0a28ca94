// `dotagent hook <event>`: Claude Code's hooks (SPEC §11). Every one exits 0 and never breaks the
// session: what it has to say is JSON on stdout, a problem one line on stderr.
// - session-start: runs at every session start, so it is fast, takes no lock (it only reads) and
//   prints nothing when there is no open workflow;
// - pre-tool-use, post-tool-use, subagent-stop, user-prompt-submit: the loop's bookkeeping
//   (src/claude/hooks.ts); they take the state lock, waiting longer for it than a command;
// - subagent-start: Codex's only (`--client codex`: a multi-agent v2 executor's worktree lines).
import { tasksStepOf } from "../../core/plans.js";
import { planWithRecovery } from "../../ops/recovery.js";
import { loadSnapshot } from "../../store/session.js";
import { judgeRunningTasks } from "../../store/process-facts.js";
import { mark } from "../../store/trace.js";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { readHookStdin } from "../../store/read-file.js";
import { checkoutKey } from "../../store/checkout-key.js";
import { findProjectRoot, projectPaths } from "../../store/project.js";
import { briefingFor } from "../../claude/briefing.js";
import { sessionLine, tellsPerson } from "../../core/session-line.js";
import { flowOf } from "../../core/flow-of.js";
import { readEventsTail } from "../../store/events.js";
import { worktreeViews } from "../../core/worktrees.js";
import { checkoutQuestionFor } from "../../store/worktrees.js";
import { checkoutAsModelSees } from "../../ops/settle.js";
import type { ResumePlan } from "../../core/plan-resume.js";
import { modelSandboxKeepsGit as codexSandboxKeepsGit } from "../../clients/codex/rollout.js";
import { opContext, stringOption, warn, type Command, type CommandContext } from "../context.js";
import { writeStd } from "../std-write.js";

interface SessionStartInput {
  source?: string;
  cwd?: string;
  hook_event_name?: string;
  /** Codex: the session's rollout (its sandbox policy). */
  transcript_path?: unknown;
}

/** The hook's JSON from stdin ({} for a terminal, no input, bad JSON or over 10 MiB): readHookStdin. */
function readHookInput(): SessionStartInput {
  return readHookStdin() as SessionStartInput;
}

const EVENTS = [
  "session-start",
  "pre-tool-use",
  "post-tool-use",
  "subagent-start",
  "subagent-stop",
  "user-prompt-submit",
] as const;

/** The project a hook works on: --dir, else Claude Code's project folder, else the hook's cwd. */
function hookPaths(context: CommandContext, input: SessionStartInput) {
  if (context.options.dir !== undefined) return context.paths;
  const from = process.env.CLAUDE_PROJECT_DIR || (typeof input.cwd === "string" ? input.cwd : undefined);
  return from === undefined ? context.paths : projectPaths(findProjectRoot(undefined, from));
}

async function runLoopHook(context: CommandContext, event: string): Promise<void> {
  const input = readHookInput() as Record<string, unknown>;
  mark(`hook ${event} ${typeof input.tool_name === "string" ? input.tool_name : ""}`);
  // Parallel agents start and end together: a hook waits its turn for the lock (its timeout is 30 s).
  process.env.DOTAGENT_LOCK_WAIT_MS ??= "20000";
  const paths = hookPaths(context, input);
  // A hook is dotagent's own bookkeeping, not the model's shell (Claude Code runs it with CLAUDECODE=1 too).
  // What it warns of reaches the model with its answer too (a refusal's reason, a context), not stderr alone.
  const told: string[] = [];
  const stderr = warn(context);
  // Codex runs the model's commands in a sandbox the hook is outside of: its session's rollout says which.
  const rollout =
    stringOption(context, "client") === "codex" &&
    typeof input.transcript_path === "string" &&
    input.agent_id === undefined
      ? input.transcript_path
      : undefined;
  const modelGitReadOnly = rollout === undefined ? undefined : () => codexSandboxKeepsGit(rollout);
  const op = opContext(context, {
    paths,
    byModel: false,
    warn: (message: string) => (told.push(message), stderr(message)),
    modelGitReadOnly,
  });
  const hooks = await import("../../claude/hooks.js");
  const answer = (event: string, input: Record<string, unknown>) =>
    event === "pre-tool-use"
      ? hooks.onPreToolUse(op, input, process.argv[1] ?? "")
      : event === "post-tool-use"
        ? hooks.onPostToolUse(op, input)
        : event === "subagent-stop"
          ? hooks.onSubagentStop(op, input)
          : hooks.onUserPromptSubmit(op, input);
  // Another client's hook: its adapter gives Claude-shaped inputs and reads the answers back.
  if (stringOption(context, "client") === "codex") {
    const codex = await import("../../clients/codex/hook-io.js");
    const output = withWarnings(
      await codex.answerCodexHook(op, event as Parameters<typeof codex.answerCodexHook>[1], input, answer),
      told,
    );
    if (output !== null) writeStd("stdout", `${JSON.stringify(output)}\n`);
    return;
  }
  // Claude Code's own agents get their lines in their prompt (updatedInput): nothing to say at their start.
  if (event === "subagent-start") return;
  const output = withWarnings(await answer(event, input), told);
  if (output !== null) writeStd("stdout", `${JSON.stringify(output)}\n`);
}

/** A hook's answer with what it warned of added to the words the model reads (a denial's reason, a context); other answers as they are. */
export function withWarnings(
  output: Record<string, unknown> | null,
  warnings: readonly string[],
): Record<string, unknown> | null {
  const specific = output?.hookSpecificOutput as Record<string, unknown> | undefined;
  if (warnings.length === 0 || specific === undefined) return output;
  const note = warnings.map((w) => `dotagent: ${w}`).join("\n");
  if (specific.permissionDecision === "deny" && typeof specific.permissionDecisionReason === "string")
    return {
      ...output,
      hookSpecificOutput: { ...specific, permissionDecisionReason: `${specific.permissionDecisionReason}\n${note}` },
    };
  if (typeof specific.additionalContext === "string")
    return {
      ...output,
      hookSpecificOutput: { ...specific, additionalContext: `${specific.additionalContext}\n${note}` },
    };
  return output;
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
): Promise<{ briefing: string | null; line: string | null }> {
  try {
    const paths =
      context.options.dir === undefined && typeof input.cwd === "string"
        ? projectPaths(findProjectRoot(undefined, input.cwd))
        : context.paths;
    const snapshot = await loadSnapshot(paths);
    const now = context.now();
    // The checkout's key made here, outside any sandbox (Codex runs the model's commands where they
    // cannot write the user's state folder): a question the model's helper call puts is sealed then.
    if (snapshot.phase.kind !== "missing") checkoutKey(paths.root, { create: true });
    // The checkout is looked at only when a round's tasks are about to start (git runs then alone),
    // so the briefing names the isolation question instead of a run_tasks the spawn hook refuses.
    // Worded for the model's shell: Codex's sandbox keeps .git read-only there (its rollout says).
    const rollout =
      stringOption(context, "client") === "codex" && typeof input.transcript_path === "string"
        ? input.transcript_path
        : undefined;
    const modelGitReadOnly = rollout === undefined ? undefined : () => codexSandboxKeepsGit(rollout);
    const plan = await planWithRecovery(paths, snapshot, now, {
      owners: judgeRunningTasks(snapshot, now),
      checkout: checkoutAsModelSees({ modelGitReadOnly }, checkoutQuestionFor(paths.root, snapshot)),
    });
    const asked = await recordPendingQuestion(context, paths, plan);
    const execution = snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined;
    const phase = snapshot.phase.kind === "ok" ? snapshot.phase.value : undefined;
    return {
      briefing: briefingFor(
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
      ),
      line: sessionLine({
        plan,
        source: input.source,
        command,
        recorded: tellsPerson(input.source) ? readEventsTail(paths.eventsFile) : [],
        ...(phase ? { flow: flowOf(phase) } : {}),
      }),
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

/** Copilot CLI ran Claude Code's hooks in a project without dotagent's Copilot install: what to say. */
function copilotInstallMissing(context: CommandContext, input: SessionStartInput): string | null {
  const from = process.env.COPILOT_PROJECT_DIR || (typeof input.cwd === "string" ? input.cwd : undefined);
  const paths =
    context.options.dir !== undefined || from === undefined
      ? context.paths
      : projectPaths(findProjectRoot(undefined, from));
  if (existsSync(join(paths.root, ".github", ".dotagent-copilot-install.json"))) return null;
  return `dotagent: these are dotagent's hooks for Claude Code; in Copilot CLI they record nothing, so /develop cannot keep its workflow here. To use it in Copilot CLI, the person runs \`node "${process.argv[1] ?? "dotagent.mjs"}" install --client copilot\` in ${paths.root} (or \`dotagent install --client copilot\`), then starts a new session.`;
}

export const command: Command = {
  summary:
    "hook <event>: Claude Code's hooks (session-start, pre-tool-use, post-tool-use, subagent-stop, user-prompt-submit; subagent-start with --client codex; JSON on stdin)",
  usage:
    "dotagent hook session-start|pre-tool-use|post-tool-use|subagent-start|subagent-stop|user-prompt-submit [--client copilot|codex]",
  options: { client: { type: "string" } },
  lenientOptions: true,
  examples: [
    'echo \'{"source":"resume","cwd":"."}\' | dotagent hook session-start',
    `echo '{"tool_name":"Bash","tool_input":{"command":"node x/dotagent.mjs status"}}' | dotagent hook pre-tool-use`,
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
    const client = stringOption(context, "client");
    if (client === "copilot") {
      // GitHub Copilot CLI's hooks (.github/hooks/dotagent.json): src/clients/copilot/.
      const copilot = await import("./copilot-hook.js");
      if (event === undefined || !copilot.isCopilotEvent(event)) {
        writeStd(
          "stderr",
          `dotagent: hook --client copilot takes one event: ${Object.keys(copilot.COPILOT_HOOK_EVENTS).join(", ")}\n`,
        );
        return 0;
      }
      try {
        // 2 only from session-start with a line for the person (Copilot shows that hook's stderr then).
        return await copilot.runCopilotHook(context, event, (c, input) =>
          sessionStartTold(c, input as SessionStartInput),
        );
      } catch (error) {
        writeStd("stderr", `dotagent hook ${event}: ${(error as Error).message}\n`);
      }
      return 0;
    }
    // Copilot CLI also runs the hooks of .claude/settings.json (with its own tool names and a
    // sub-agent's prompt as a "user prompt"): there the `--client copilot` hooks keep the books.
    // COPILOT_HOOK_DIR is set only for Copilot's hooks: a Claude Code started from Copilot's shell
    // (which passes COPILOT_CLI=1 on) keeps its own hooks.
    // Without dotagent's Copilot install (Claude Code's plugin installed into Copilot, or only
    // .claude/), the session is told once, at its start, how to get one.
    if (process.env.COPILOT_CLI === "1" && process.env.COPILOT_HOOK_DIR !== undefined) {
      if (event === "session-start") {
        const text = copilotInstallMissing(context, readHookInput());
        if (text !== null) writeStd("stdout", `${JSON.stringify({ additionalContext: text })}\n`);
      }
      return 0;
    }
    if (event === undefined || !(EVENTS as readonly string[]).includes(event)) {
      writeStd("stderr", `dotagent: hook takes one event: ${EVENTS.join(", ")}\n`);
      return 0;
    }
    if (event !== "session-start") {
      try {
        await runLoopHook(context, event);
      } catch (error) {
        writeStd("stderr", `dotagent hook ${event}: ${(error as Error).message}\n`);
      }
      return 0;
    }
    const codex = stringOption(context, "client") === "codex";
    const told = await sessionStartTold(context, readHookInput(), codex ? "$develop" : "/develop");
    // In Codex the person invokes the skill as `$develop` (the word only: a path may hold "/develop").
    const briefing =
      told.briefing !== null && codex ? told.briefing.replace(/(^|\s)\/develop\b/g, "$1$$develop") : told.briefing;
    // The person's line as `systemMessage`: Claude Code shows it under the session ("SessionStart:resume
    // says: …"), Codex under the person's first prompt ("↳ Hook · …"; test/*/NOTES.md).
    const line = told.line;
    if (briefing !== null || line !== null) {
      writeStd(
        "stdout",
        `${JSON.stringify({ ...(line === null ? {} : { systemMessage: line }), ...(briefing === null ? {} : { hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: briefing } }) })}\n`,
      );
    }
    return 0;
  },
};
