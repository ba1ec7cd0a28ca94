// `dotagent hook <event> --client copilot`: Copilot CLI's hooks (installed in
// .github/hooks/dotagent.json) answered by the same code as Claude Code's (src/claude/hooks.ts),
// through the in and out of hook-io.ts. Like every hook it never breaks the session: it exits 0, but
// for sessionStart's line for the person (exit 2, the status whose stderr Copilot shows).
//
//   sessionStart          the briefing on an open workflow (as Claude Code's SessionStart), and the
//                         person's line on stderr with exit status 2 (the one thing Copilot shows)
//   userPromptSubmitted   the person's `/develop …` (as typed in print mode, or the skill the
//                         interactive terminal expanded): dotagent runs `resume --json --start` itself
//                         and gives the model its answer (Copilot runs no `!` shell line of a
//                         skill); any other prompt of the person: their reply at an open gate.
//                         A sub-agent's prompt (it carries `agentId`) is never the person's.
//   preToolUse            allow the helper's own lines, guard memory/state/ and the reports, record
//                         an agent's start (the `task` tool), give an executor its worktree lines
//   subagentStop          an agent of dotagent's stopped: sent back without its report (bounded), else recorded
//   postToolUse(Failure)  a `task` call returned (or failed): the agent's result and the next step
import { spawnSync } from "node:child_process";
import { readHookStdin } from "../../store/read-file.js";
import { mark } from "../../store/trace.js";
import { textDigest, type ReplyEvidence } from "../../store/authority.js";
import { dotagentAgentName } from "../../core/agent-job.js";
import type { ClientHooks, HookHost, HookReply } from "../adapter.js";
import {
  COPILOT_EVENTS,
  copilotSessionStartAnswer,
  isSubAgentEvent,
  toClaudeInput,
  toCopilotOutput,
  type CopilotHookEvent,
} from "./hook-io.js";
import { developRequest, startContext } from "./develop-prompt.js";
import { copilotRecord, readAgentPrompt } from "./session-events.js";

/** Where Copilot records the person's prompt (its session's events.jsonl), to check that they typed it: the hook's time names it. */
function promptEvidence(raw: Record<string, unknown>): { dotagent_evidence?: ReplyEvidence } {
  const session = typeof raw.sessionId === "string" ? raw.sessionId : undefined;
  const at = typeof raw.timestamp === "number" ? String(raw.timestamp) : undefined;
  const record = session === undefined ? undefined : copilotRecord(session);
  if (record === undefined || at === undefined || typeof raw.prompt !== "string") return {};
  return { dotagent_evidence: { client: "copilot", record, id: at, sha: textDigest(raw.prompt) } };
}

/**
 * Copilot appends its session record a little after the fact (up to ~0.4 s was seen): a
 * sub-agent's first calls can come before its prompt is on disk. Looked for again for up to 3 s.
 */
function waitForAgentPrompt(sessionId: string, agentId: string): string | undefined {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let waited = 0; ; waited += 100) {
    const prompt = readAgentPrompt(sessionId, agentId);
    if (prompt !== undefined || waited >= 3000) return prompt;
    Atomics.wait(pause, 0, 0, 100);
  }
}

export const isCopilotEvent = (event: string): event is CopilotHookEvent => Object.hasOwn(COPILOT_EVENTS, event);

const reply = (stdout: Record<string, unknown> | null): HookReply => ({ stdout, stderr: null, exitCode: 0 });

/** Answers one hook; its exit status 2 only from sessionStart with a line for the person (on stderr). */
async function runCopilotHook(event: CopilotHookEvent, host: HookHost): Promise<HookReply> {
  const raw = readHookStdin();
  const input: Record<string, unknown> = {
    ...toClaudeInput(event, raw),
    ...(event === "user-prompt-submit" ? promptEvidence(raw) : {}),
  };
  mark(`hook ${event} copilot ${typeof input.tool_name === "string" ? input.tool_name : ""}`);
  const helper = host.helper;
  if (event === "session-start") {
    // Copilot starts this hook at the person's first prompt, after `--resume` too (NOTES.md): the line shows under it.
    const answer = copilotSessionStartAnswer(await host.told(input, "/develop", undefined, true));
    return { stdout: answer.stdout, stderr: answer.stderr, exitCode: answer.exitCode };
  }
  // A sub-agent's first prompt is the model's words, never the person's reply at a gate.
  if (event === "user-prompt-submit" && isSubAgentEvent(raw)) return reply(null);
  process.env.DOTAGENT_LOCK_WAIT_MS ??= "20000";
  const paths = host.paths("COPILOT_PROJECT_DIR", input);
  if (event === "user-prompt-submit") {
    const request = developRequest(String(input.prompt ?? ""));
    if (request !== undefined) {
      // The person's /develop goes on: a failed phase starts again first (as in Claude Code, SPEC §5).
      await (
        await import("../../ops/person-replies.js")
      ).recordPrompt(host.op(paths), {
        text: String(input.prompt ?? ""),
        evidence: input.dotagent_evidence as ReplyEvidence | undefined,
        command: true,
      });
      // What the skill's `!` line does in Claude Code, done here: the plan is in the model's context
      // before it acts. Run under the client, as that line is: a decision it meets is put to the
      // person through the model (recorded, so their reply can answer it), never taken as answered.
      const run = spawnSync(process.execPath, [helper, "resume", "--json", "--start", `--request=${request}`], {
        cwd: paths.root,
        encoding: "utf8",
        timeout: 25_000,
      });
      return reply({ additionalContext: startContext(run.stdout ?? "", helper) });
    }
  }
  const op = host.op(paths);
  const hooks = await import("../../claude/hooks.js");
  // A sub-agent's call: its prompt (the job and worktree the write guard holds it to) from Copilot's
  // session record, for the agents of the workflow here (a definition's own agents too).
  if (
    event === "pre-tool-use" &&
    typeof raw.agentId === "string" &&
    typeof raw.parentAgentId === "string" &&
    typeof raw.agentType === "string" &&
    dotagentAgentName(raw.agentType, await hooks.flowFor(op)) !== undefined
  ) {
    const prompt = waitForAgentPrompt(raw.parentAgentId, raw.agentId);
    if (prompt !== undefined) input.agent_prompt = prompt;
  }
  if (event === "subagent-stop")
    return reply(await (await import("./subagent-stop.js")).onCopilotSubagentStop(op, raw));
  const output =
    event === "pre-tool-use"
      ? await hooks.onPreToolUse(op, input, helper)
      : event === "user-prompt-submit"
        ? await hooks.onUserPromptSubmit(op, input)
        : await hooks.onPostToolUse(op, input);
  const args =
    raw.toolArgs !== null && typeof raw.toolArgs === "object" ? (raw.toolArgs as Record<string, unknown>) : {};
  return reply(toCopilotOutput(output, args));
}

export const copilotHooks: ClientHooks = {
  events: Object.keys(COPILOT_EVENTS),
  run: (event, host) =>
    event === undefined || !isCopilotEvent(event)
      ? Promise.resolve({
          stdout: null,
          stderr: `dotagent: hook --client copilot takes one event: ${Object.keys(COPILOT_EVENTS).join(", ")}\n`,
          exitCode: 0,
        })
      : runCopilotHook(event, host),
};
