import { describe, expect, it } from "vitest";
import { dotagentSkillLines, matcherApplies, ruleApplies, skillShellHooks } from "./skill-shell-hooks.js";

const LINES = dotagentSkillLines("/p/.claude/skills/checkpoint/scripts/dotagent.mjs");
const settings = (groups: unknown[]) => ({ hooks: { PreSkillShellCommand: groups } });

describe("PreSkillShellCommand hooks that apply to dotagent's skill lines", () => {
  it("matchers: all, names, regular expressions", () => {
    expect([undefined, "", "*", "Bash", "Read|Bash", "^Ba"].map((m) => matcherApplies(m, "Bash"))).toEqual([
      true,
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(["Read", "Bashful|Edit", "^Read$", 7].map((m) => matcherApplies(m, "Bash"))).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });

  it("if rules: globs, the prefix form, another tool", () => {
    const line = LINES[0]!;
    expect(ruleApplies("Bash(node *)", "Bash", line)).toBe(true);
    expect(ruleApplies("Bash(node:*)", "Bash", line)).toBe(true);
    expect(ruleApplies("Bash(*dotagent.mjs*)", "Bash", line)).toBe(true);
    expect(ruleApplies("Bash", "Bash", line)).toBe(true);
    expect(ruleApplies("Bash(git *)", "Bash", line)).toBe(false);
    expect(ruleApplies("Bash(rm *)", "Bash", LINES[1]!)).toBe(false);
    expect(ruleApplies("Read(*)", "Bash", line)).toBe(false);
    // Regular-expression characters in a rule are literal.
    expect(ruleApplies("Bash(node (x))", "Bash", line)).toBe(false);
  });

  it("finds each applying hook with where it is; prompt and agent hooks refuse", () => {
    const found = skillShellHooks(
      settings([
        {
          matcher: "Bash",
          hooks: [
            { type: "command", command: "/org/check.sh" },
            { type: "prompt", prompt: "is it safe?" },
          ],
        },
        { matcher: "Read", hooks: [{ type: "command", command: "/never" }] },
        {
          hooks: [
            { type: "command", command: "/git-only", if: "Bash(git *)" },
            { type: "agent", if: "Bash(node *)" },
          ],
        },
      ]),
      LINES,
    );
    expect(found).toEqual([
      { at: "hooks.PreSkillShellCommand[0].hooks[0]", type: "command", verdict: "may refuse", shown: "/org/check.sh" },
      { at: "hooks.PreSkillShellCommand[0].hooks[1]", type: "prompt", verdict: "refuses", shown: "prompt" },
      { at: "hooks.PreSkillShellCommand[2].hooks[1]", type: "agent", verdict: "refuses", shown: "agent" },
    ]);
  });

  it("nothing for no hooks, other events, disableAllHooks, or nonsense", () => {
    for (const s of [
      null,
      3,
      "x",
      {},
      { hooks: { PreToolUse: [{ hooks: [{ type: "command", command: "x" }] }] } },
      { ...settings([{ hooks: [{ type: "command", command: "x" }] }]), disableAllHooks: true },
      settings(["x", null, { hooks: "x" }, { hooks: [null, 4] }]),
    ]) {
      expect(skillShellHooks(s, LINES)).toEqual([]);
    }
  });
});
