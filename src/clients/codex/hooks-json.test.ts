import { describe, expect, it } from "vitest";
import {
  codexHookCommand,
  CODEX_HOOK_SHAPE,
  CODEX_WAIT_MATCHER,
  dotagentCommandsIn,
  hasNoHooks,
  olderCodexEntries,
  withDotagentHooks,
  withoutDotagentHooks,
} from "./hooks-json.js";
import { planCodexHook } from "./hook-io.js";

const HELPER = "/p/.agents/skills/checkpoint/scripts/dotagent.mjs";
const USERS = {
  hooks: {
    PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "my-linter" }] }],
    Stop: [{ hooks: [{ type: "command", command: "notify-send done" }] }],
  },
  other: 1,
};

describe(".codex/hooks.json merge", () => {
  it("adds one entry per event after the person's own, each line with --client codex", () => {
    const merged = withDotagentHooks(USERS, HELPER);
    expect(merged.other).toBe(1);
    expect(merged.hooks?.PreToolUse).toHaveLength(2);
    expect(merged.hooks?.PreToolUse?.[0]).toEqual(USERS.hooks.PreToolUse[0]);
    expect(merged.hooks?.Stop).toEqual(USERS.hooks.Stop);
    expect(dotagentCommandsIn(merged).sort()).toEqual(
      ["post-tool-use", "pre-tool-use", "session-start", "subagent-start", "subagent-stop", "user-prompt-submit"].map(
        (e) => codexHookCommand(HELPER, e),
      ),
    );
    for (const c of dotagentCommandsIn(merged)) expect(c).toMatch(CODEX_HOOK_SHAPE);
  });

  it("is idempotent, and replaces an older helper path instead of adding a second entry", () => {
    const once = withDotagentHooks(USERS, HELPER);
    expect(withDotagentHooks(once, HELPER)).toEqual(once);
    const moved = withDotagentHooks(once, "/q/.agents/skills/checkpoint/scripts/dotagent.mjs");
    expect(moved.hooks?.PreToolUse).toHaveLength(2);
    expect(dotagentCommandsIn(moved).every((c) => c.startsWith('node "/q/'))).toBe(true);
  });

  it("replaces an older install's five hooks (no SubagentStart) with the six, none doubled", () => {
    const older = {
      hooks: Object.fromEntries(
        ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "SubagentStop"].map((e, i) => [
          e,
          [
            {
              hooks: [
                {
                  type: "command",
                  command: codexHookCommand(
                    HELPER,
                    ["session-start", "user-prompt-submit", "pre-tool-use", "post-tool-use", "subagent-stop"][i]!,
                  ),
                  timeout: 30,
                },
              ],
            },
          ],
        ]),
      ),
    };
    const upgraded = withDotagentHooks(older, HELPER);
    expect(Object.values(upgraded.hooks ?? {}).map((entries) => entries.length)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(upgraded.hooks?.SubagentStart).toEqual([
      { hooks: [{ type: "command", command: codexHookCommand(HELPER, "subagent-start"), timeout: 30 }] },
    ]);
    expect(hasNoHooks(withoutDotagentHooks(upgraded))).toBe(true);
  });

  it("takes out exactly dotagent's entries: the person's file comes back", () => {
    expect(withoutDotagentHooks(withDotagentHooks(USERS, HELPER))).toEqual(USERS);
    const ours = withDotagentHooks({}, HELPER);
    expect(hasNoHooks(withoutDotagentHooks(ours))).toBe(true);
  });

  it("never takes an entry that mixes a person's command with dotagent's, nor a look-alike line", () => {
    const mixed = {
      hooks: {
        Stop: [
          {
            hooks: [
              { type: "command", command: codexHookCommand(HELPER, "session-start") },
              { type: "command", command: "mine" },
            ],
          },
        ],
      },
    };
    expect(withoutDotagentHooks(mixed)).toEqual(mixed);
    const lookalike = {
      hooks: {
        Stop: [{ hooks: [{ type: "command", command: `${codexHookCommand(HELPER, "session-start")}; rm -rf ~` }] }],
      },
    };
    expect(withoutDotagentHooks(lookalike)).toEqual(lookalike);
  });
});

/**
 * How Codex 0.169–0.171 applies a hook's matcher to a tool's name (measured, test/codex/NOTES.md
 * "Matchers"): none, "" or "*" runs for every tool; letters, digits, `_` and `|` are exact names;
 * anything else is a regex found anywhere in the name.
 */
function codexRuns(matcher: string | undefined, tool: string): boolean {
  if (matcher === undefined || matcher === "" || matcher === "*") return true;
  if (/^[\w|]+$/.test(matcher)) return matcher.split("|").includes(tool);
  return new RegExp(matcher).test(tool);
}

describe("the matchers dotagent gives Codex", () => {
  const entry = (file: ReturnType<typeof withDotagentHooks>, event: string) =>
    (file.hooks?.[event] as Array<{ matcher?: string }>).at(-1)!;

  it("narrows PostToolUse to wait_agent, and never PreToolUse (the write guard) nor any other event", () => {
    const ours = withDotagentHooks({}, HELPER);
    expect(entry(ours, "PostToolUse").matcher).toBe(CODEX_WAIT_MATCHER);
    for (const event of ["SessionStart", "UserPromptSubmit", "PreToolUse", "SubagentStart", "SubagentStop"])
      expect(entry(ours, event)).not.toHaveProperty("matcher");
  });

  // The measured names: v1 glues its namespace on, v2's `collaboration`; Bash is exec_command.
  it.each([
    ["multi_agent_v1wait_agent", true],
    ["collaborationwait_agent", true],
    ["wait_agent", true],
    ["functionswait_agent", true],
    ["Bash", false],
    ["apply_patch", false],
    ["spawn_agent", false],
    ["collaborationspawn_agent", false],
    ["multi_agent_v1close_agent", false],
    ["view_image", false],
  ])("PostToolUse %s: the hook starts %s, and skips no call dotagent acts on", (tool, runs) => {
    expect(codexRuns(CODEX_WAIT_MATCHER, tool)).toBe(runs);
    // A call the matcher keeps away is one dotagent's PostToolUse does nothing with.
    const input = {
      transcript_path: "/h/rollout.jsonl",
      tool_name: tool,
      tool_response: '{"status":{"agent-1":{"completed":"done"}},"timed_out":false}',
    };
    const rollouts = {
      find: () => "/h/agent.jsonl",
      read: () => ({ transcript: "/h/agent.jsonl", prompt: "Task: task-001", type: "executor" }),
      spawnMessage: () => undefined,
    };
    expect(planCodexHook("post-tool-use", input, rollouts).kind).toBe(runs ? "run" : "skip");
  });

  it("an earlier install's PostToolUse without the matcher: named as older, rewritten by install, removed by uninstall", () => {
    const current = withDotagentHooks(USERS, HELPER);
    expect(olderCodexEntries(current)).toEqual([]);
    const older = structuredClone(current);
    delete (older.hooks!.PostToolUse![0] as { matcher?: string }).matcher;
    expect(olderCodexEntries(older)).toEqual(["PostToolUse"]);
    expect(dotagentCommandsIn(older)).toHaveLength(6);
    expect(withDotagentHooks(older, HELPER)).toEqual(current);
    expect(withoutDotagentHooks(older)).toEqual(USERS);
    expect(withoutDotagentHooks(current)).toEqual(USERS);
  });
});
