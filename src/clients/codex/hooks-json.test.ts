import { describe, expect, it } from "vitest";
import {
  codexHookCommand,
  CODEX_HOOK_SHAPE,
  dotagentCommandsIn,
  hasNoHooks,
  withDotagentHooks,
  withoutDotagentHooks,
} from "./hooks-json.js";

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
