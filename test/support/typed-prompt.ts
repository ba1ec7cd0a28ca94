// A prompt as Claude Code records it (SPEC §11 "Who decides"): the transcript line the
// UserPromptSubmit hook's input points at (`transcript_path`, `prompt_id`), written under the test
// worker's CLAUDE_CONFIG_DIR (test/support/isolated-env.ts). Shapes measured on 2.1.332
// (test/claude/NOTES.md "Who typed a prompt").
import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { FILE_CLOCK_SLACK_MS } from "../../src/core/person-answer.js";

/**
 * The person reads what they were shown before they answer: a reply within FILE_CLOCK_SLACK_MS of
 * a report's time counts as older than the report (src/core/person-answer.ts), and a test that
 * writes a report and then types at once would pass or fail by how fast the machine is. Every
 * prompt the helpers below make waits that long first (a blocking wait, as the hooks are run).
 */
function personReads(): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, FILE_CLOCK_SLACK_MS + 10);
}

/** A client's home for one test project (COPILOT_HOME, CODEX_HOME), inside the worker's own temp folder. */
export function clientHome(client: "copilot" | "codex", project: string): string {
  return join(process.env.DOTAGENT_TEST_HOMES!, client, project.replace(/[^A-Za-z0-9]+/g, "-"));
}

export type PromptSource = "typed" | "sdk" | "scheduled";

/** Where this worker's Claude Code transcripts go. */
export function transcriptFile(session = "session-1"): string {
  const dir = join(process.env.CLAUDE_CONFIG_DIR!, "projects", "-tmp-test-project");
  mkdirSync(dir, { recursive: true });
  return join(dir, `${session}.jsonl`);
}

/** The transcript line for a prompt: typed at the composer, sent by `claude -p`, or a scheduled task's fire. */
export function transcriptLine(
  text: string,
  promptId: string,
  source: PromptSource,
  at = new Date(),
): Record<string, unknown> {
  // A /command is recorded as its parts, without promptSource (2.1.332).
  const command = /^\s*(\/\S+)(?:\s+([\s\S]*))?$/.exec(text);
  if (command !== null && source !== "scheduled") {
    const content = `<command-message>${command[1]!.slice(1)}</command-message>\n<command-name>${command[1]}</command-name>${command[2] ? `\n<command-args>${command[2]}</command-args>` : ""}`;
    return {
      parentUuid: null,
      isSidechain: false,
      promptId,
      type: "user",
      message: { role: "user", content },
      uuid: randomUUID(),
      timestamp: at.toISOString(),
      turnOrigin: source === "typed" ? "human" : "sdk",
      userType: "external",
      version: "2.1.332",
    };
  }
  const base = {
    parentUuid: null,
    isSidechain: false,
    promptId,
    type: "user",
    message: { role: "user", content: text },
    uuid: randomUUID(),
    timestamp: at.toISOString(),
    userType: "external",
    version: "2.1.332",
  };
  if (source === "typed")
    return { ...base, origin: { kind: "human" }, promptSource: "typed", turnOrigin: "human", entrypoint: "cli" };
  if (source === "sdk") return { ...base, promptSource: "sdk", turnOrigin: "sdk", entrypoint: "sdk-cli" };
  return {
    ...base,
    isMeta: true,
    promptSource: "system",
    wakeupSource: "schedule_wakeup",
    scheduledTaskId: "77fd72ab",
    turnOrigin: "scheduled",
    entrypoint: "cli",
  };
}

/**
 * The hook input's fields for a prompt, its line written into the transcript first (`when:
 * "before"`, as another client's record would be), or left for `record()` to write later (as
 * Claude Code does: after the hook).
 */
export function typedPrompt(
  text: string,
  options: { source?: PromptSource; when?: "before" | "later"; session?: string } = {},
): { input: Record<string, unknown>; record: () => void } {
  personReads();
  const file = transcriptFile(options.session);
  const promptId = randomUUID();
  // Claude Code stamps the line as it records the prompt, just after the hook: written ahead of the
  // hook here, it is stamped 30 ms on (a report written just before the prompt is older; anything
  // a later process writes, newer: starting the hook alone takes longer than that).
  const when = options.when ?? "before";
  const record = () =>
    appendFileSync(
      file,
      `${JSON.stringify(transcriptLine(text, promptId, options.source ?? "typed", new Date(Date.now() + (when === "before" ? 30 : 0))))}\n`,
    );
  if (when === "before") record();
  return {
    input: {
      hook_event_name: "UserPromptSubmit",
      prompt: text,
      transcript_path: file,
      prompt_id: promptId,
      session_id: options.session ?? "session-1",
    },
    record,
  };
}

/**
 * Copilot CLI's record of a prompt its userPromptSubmitted hook sees (1.0.102: the hook's
 * `hook.start` with its input, `hook.end`, then the message whose parentId is that end), under
 * `home` (COPILOT_HOME); returns the hook's payload. `source`: a scheduled prompt's `schedule-1`, …
 */
export function copilotTyped(
  home: string,
  text: string,
  options: { session?: string; source?: string; cwd?: string } = {},
): Record<string, unknown> {
  personReads();
  const session = options.session ?? "s-1";
  const file = join(home, "session-state", session, "events.jsonl");
  mkdirSync(join(file, ".."), { recursive: true });
  const timestamp = Date.now();
  const invocation = randomUUID();
  const end = randomUUID();
  const input = { sessionId: session, timestamp, ...(options.cwd ? { cwd: options.cwd } : {}), prompt: text };
  const lines = [
    {
      type: "hook.start",
      data: { hookInvocationId: invocation, hookType: "userPromptSubmitted", input },
      id: randomUUID(),
      timestamp: new Date(timestamp).toISOString(),
    },
    {
      type: "hook.end",
      data: { hookInvocationId: invocation, hookType: "userPromptSubmitted", success: true },
      id: end,
      timestamp: new Date(timestamp + 20).toISOString(),
    },
    {
      type: "user.message",
      data: {
        content: text,
        messageId: randomUUID(),
        delivery: "idle",
        ...(options.source ? { source: options.source } : {}),
      },
      id: randomUUID(),
      timestamp: new Date(timestamp + 30).toISOString(),
      parentId: end,
    },
  ];
  appendFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  return input;
}

/**
 * Codex's rollout with the person's prompt of one turn (0.169.0: a user message whose content
 * carries `provenance: {type: "user"}`), under `home` (CODEX_HOME); returns the hook's fields.
 */
export function codexTyped(home: string, text: string, options: { provenance?: string } = {}): Record<string, unknown> {
  personReads();
  const dir = join(home, "sessions", "2026", "11", "29");
  mkdirSync(dir, { recursive: true });
  const thread = randomUUID();
  const turn = randomUUID();
  const file = join(dir, `rollout-2026-11-29T00-00-00-${thread}.jsonl`);
  const at = new Date(Date.now() + 30).toISOString();
  const lines = [
    {
      timestamp: at,
      type: "session_meta",
      payload: { session_id: thread, id: thread, source: "exec", thread_source: "user", originator: "codex_exec" },
    },
    {
      timestamp: at,
      type: "response_item",
      payload: {
        type: "message",
        role: "user",
        content: [{ type: "input_text", text }],
        internal_chat_message_metadata_passthrough: {
          turn_id: turn,
          content_item_kinds: ["user.text"],
          content_item_metadata: [{ provenance: { type: options.provenance ?? "user" } }],
        },
      },
    },
  ];
  appendFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  return { transcript_path: file, turn_id: turn, session_id: thread, prompt: text };
}
