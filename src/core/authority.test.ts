import { describe, expect, it } from "vitest";
import {
  canonicalJson,
  claudePromptOrigin,
  clientIn,
  codexPromptOrigin,
  codexRolloutIsMain,
  copilotPromptOrigin,
  judgeCaller,
  markersIn,
  namedDesign,
  replyAnswer,
  sealInstance,
  sealText,
} from "./authority.js";

describe("judgeCaller: a model's shell is known by its client's marker in it or any ancestor, or the client among its ancestors", () => {
  it.each([
    ["a person's terminal", [], [], "person"],
    ["Claude Code's Bash tool", ["claude"], [], "agent_shell"],
    ["the line cleared the marker (env -u CLAUDECODE): the shell above still has it", [], ["claude"], "agent_shell"],
    ["Codex's exec_command", ["codex"], ["codex"], "agent_shell"],
    ["Copilot's bash", [], ["copilot"], "agent_shell"],
  ] as const)("%s", (_name, own, ancestors, kind) => {
    expect(judgeCaller({ own, ancestors }).kind).toBe(kind);
  });

  it.each([
    [{ CLAUDECODE: "1" }, ["claude"]],
    [{ CLAUDECODE: "" }, []],
    [{ CLAUDECODE: "0" }, []],
    [{ COPILOT_CLI: "1" }, ["copilot"]],
    [{ CODEX_TOOL_CALL_ID: "call_1" }, ["codex"]],
    [{ CODEX_THREAD_ID: "t" }, ["codex"]],
    [{ CODEX_HOME: "/x" }, []],
    [{ CLAUDE_PROJECT_DIR: "/p" }, []],
  ])("markersIn(%j) = %j", (env, clients) => {
    expect(markersIn(env)).toEqual(clients);
  });

  it.each([
    [
      [
        "/tmp/dotagent-claude/2.1.332/node_modules/@anthropic-ai/claude-code-linux-x64/claude",
        "--permission-mode",
        "default",
      ],
      "claude",
    ],
    [["claude", "-p", "hi"], "claude"],
    [["node", "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js"], "claude"],
    [["node", "/x/node_modules/@github/copilot/index.js", "-p", "x"], "copilot"],
    [["codex", "app-server"], "codex"],
    [["codex-linux-sandbox", "--sandbox-policy-cwd", "/p"], "codex"],
    [["bash", "-c", "claude is a word here"], undefined],
    [["node", "/work/dist/dotagent.mjs", "status"], undefined],
    // A process title npm rewrites into one string: its last path segment is no program's name.
    [["npm exec vitest run --project shared test/codex"], undefined],
    [["npm test -- test/claude"], undefined],
    [["/usr/local/bin/codex"], "codex"],
    [[], undefined],
  ] as const)("clientIn(%j) = %s", (argv, client) => {
    expect(clientIn(argv)).toBe(client);
  });
});

describe("replyAnswer: only a yes says yes, only a no says no", () => {
  it.each([
    ["yes", "yes"],
    ["Yes, go back", "yes"],
    ["ok", "yes"],
    ["go ahead.", "yes"],
    ["no", "no"],
    ["No, keep going", "no"],
    ["nope", "no"],
    ["don't", "no"],
    ["continue", null],
    ["what does it archive?", null],
    ["", null],
    ["no problem, approve it", null],
    ["noted", null],
  ] as const)("%j → %s", (text, answer) => {
    expect(replyAnswer(text)).toBe(answer);
  });
});

describe("namedDesign: the one design a pick names", () => {
  const names = ["minimal", "robust", "event-sourced"];
  it.each([
    ["minimal", "minimal"],
    ["Robust.", "robust"],
    ["minimal, but keep the old API", "minimal"],
    ["no, robust", "robust"],
    ["event-sourced please", "event-sourced"],
    ["not minimal, robust", null],
    ["the first one", null],
    ["minimalist", null],
  ] as const)("%j → %s", (text, name) => {
    expect(namedDesign(text, names)).toBe(name);
  });
});

describe("seals: the text is canonical and binds the instance", () => {
  it("key order and seq/seal do not change the text; any field does", () => {
    const a = sealText("i1", { seq: 3, at: "t", type: "person_replied", phase: "REQUIREMENTS", seal: "x" });
    expect(sealText("i1", { type: "person_replied", phase: "REQUIREMENTS", at: "t" })).toBe(a);
    expect(sealText("i2", { type: "person_replied", phase: "REQUIREMENTS", at: "t" })).not.toBe(a);
    expect(sealText("i1", { type: "person_replied", phase: "ARCHITECTURE", at: "t" })).not.toBe(a);
    expect(canonicalJson({ b: [1, { d: 2, c: 3 }], a: null, u: undefined })).toBe('{"a":null,"b":[1,{"c":3,"d":2}]}');
  });
  it("an older phase.json without instance_id binds to its workflow id and start", () => {
    expect(sealInstance({ workflow_id: "wf", started_at: "t", instance_id: "0123456789abcdef" })).toBe(
      "0123456789abcdef",
    );
    expect(sealInstance({ workflow_id: "wf", started_at: "t" })).toBe("wf@t");
    expect(sealInstance(undefined)).toBe("no-workflow");
  });
});

describe("who sent a prompt, as each client records it", () => {
  const at = "2026-11-29T00:26:33.058Z";
  const claude = (extra: Record<string, unknown>) => ({
    type: "user",
    promptId: "p1",
    message: { role: "user", content: "approve" },
    timestamp: at,
    ...extra,
  });
  it.each([
    [
      "typed at the composer",
      claude({ origin: { kind: "human" }, promptSource: "typed", turnOrigin: "human" }),
      "person",
    ],
    ["claude -p", claude({ promptSource: "sdk", turnOrigin: "sdk" }), "person"],
    ["queued while the model worked", claude({ origin: { kind: "human" }, promptSource: "queued" }), "person"],
    [
      "a scheduled task's fire (CronCreate)",
      claude({
        isMeta: true,
        promptSource: "system",
        wakeupSource: "schedule_wakeup",
        scheduledTaskId: "77fd72ab",
        turnOrigin: "scheduled",
      }),
      "not_person",
    ],
    ["a /loop wakeup", claude({ promptSource: "system", wakeupSource: "loop_wakeup" }), "not_person"],
    ["a peer's message", claude({ promptSource: "system", origin: { kind: "peer" } }), "not_person"],
    ["no promptSource (an unknown source is not the person)", claude({}), "not_person"],
    ["origin other than human", claude({ promptSource: "typed", origin: { kind: "task-notification" } }), "not_person"],
    [
      "not text",
      { ...claude({ promptSource: "typed" }), message: { content: [{ type: "tool_result" }] } },
      "not_person",
    ],
    [
      "a /command the person typed (no promptSource, its parts recorded)",
      {
        ...claude({ turnOrigin: "sdk" }),
        message: {
          content:
            "<command-message>develop</command-message>\n<command-name>/develop</command-name>\n<command-args>add login</command-args>",
        },
      },
      "person",
    ],
    [
      "a /command on a scheduled turn",
      {
        ...claude({ turnOrigin: "scheduled" }),
        message: { content: "<command-message>develop</command-message>\n<command-name>/develop</command-name>" },
      },
      "not_person",
    ],
  ] as const)("Claude Code: %s → %s", (_name, entry, kind) => {
    expect(claudePromptOrigin(entry).kind).toBe(kind);
  });

  const codex = (provenance: string, turn = "t1") => ({
    timestamp: at,
    type: "response_item",
    payload: {
      type: "message",
      role: "user",
      content: [{ type: "input_text", text: "approve" }],
      internal_chat_message_metadata_passthrough: {
        turn_id: turn,
        content_item_kinds: ["user.text"],
        content_item_metadata: [{ provenance: { type: provenance } }],
      },
    },
  });
  it("a /command is read back as typed: its name and its arguments", () => {
    const entry = {
      ...claude({ turnOrigin: "human" }),
      message: {
        content:
          "<command-message>develop</command-message>\n<command-name>/develop</command-name>\n<command-args>add login</command-args>",
      },
    };
    expect(claudePromptOrigin(entry)).toMatchObject({ kind: "person", text: "/develop add login" });
    expect(
      claudePromptOrigin({
        ...entry,
        message: { content: "<command-message>develop</command-message>\n<command-name>/develop</command-name>" },
      }),
    ).toMatchObject({ kind: "person", text: "/develop" });
  });

  it("Codex: the person's message of that turn, not a harness or tool input, not another turn's", () => {
    expect(codexPromptOrigin(codex("user"), "t1")).toMatchObject({ kind: "person", text: "approve", at });
    expect(codexPromptOrigin(codex("harness"), "t1")?.kind).toBe("not_person");
    expect(codexPromptOrigin(codex("tool"), "t1")?.kind).toBe("not_person");
    expect(codexPromptOrigin(codex("user", "t2"), "t1")).toBeUndefined();
    expect(codexRolloutIsMain({ type: "session_meta", payload: { source: "exec", thread_source: "user" } })).toBe(true);
    expect(
      codexRolloutIsMain({
        type: "session_meta",
        payload: { source: { subagent: { thread_spawn: {} } }, thread_source: "subagent" },
      }),
    ).toBe(false);
  });

  it.each([
    [
      "the person's message",
      { type: "user.message", data: { content: "approve", delivery: "idle" }, timestamp: at },
      "person",
    ],
    [
      "a scheduled prompt (/after, /every)",
      { type: "user.message", data: { content: "approve", source: "schedule-1" }, timestamp: at },
      "not_person",
    ],
    [
      "an autopilot continuation",
      { type: "user.message", data: { content: "", source: "autopilot" }, timestamp: at },
      "not_person",
    ],
    [
      "a sub-agent's prompt",
      { type: "user.message", agentId: "a1", data: { content: "x", source: "agent-s" }, timestamp: at },
      "not_person",
    ],
    [
      "a background agent's notification",
      { type: "system.notification", data: { content: "<system_notification>…" }, timestamp: at },
      "not_person",
    ],
  ] as const)("Copilot: %s → %s", (_name, entry, kind) => {
    expect(copilotPromptOrigin(entry).kind).toBe(kind);
  });
});
