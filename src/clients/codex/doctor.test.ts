import { describe, expect, it } from "vitest";
import { checkCodex, hooksTrusted, projectTrusted, type CodexFacts } from "./doctor.js";
import { CODEX_HOOK_EVENTS } from "./hooks-json.js";

const TRUSTED =
  '[projects."/p"]\ntrust_level = "trusted"\n\n[hooks.state."/p/.codex/hooks.json:session_start:0:0"]\ntrusted_hash = "sha256:00"\n';
const fine: CodexFacts = {
  root: "/p",
  gitRoot: null,
  manifest: true,
  missing: [],
  changed: [],
  helperDamage: null,
  hooks: [],
  olderHooks: [],
  config: "/h/.codex/config.toml",
  configText: TRUSTED,
  node: "v22.0.0",
};
const status = (facts: Partial<CodexFacts>, name: string) =>
  checkCodex({ ...fine, ...facts }).find((c) => c.name === name)?.status;

describe("Codex's trust", () => {
  it.each<[string, string, string | null, boolean]>([
    ["the project", TRUSTED, null, true],
    ["its git root", '[projects."/repo"]\ntrust_level = "trusted"\n', "/repo", true],
    ["untrusted", '[projects."/p"]\ntrust_level = "untrusted"\n', null, false],
    ["another project", '[projects."/q"]\ntrust_level = "trusted"\n', null, false],
    ["the level in the next table", '[projects."/p"]\n[other]\ntrust_level = "trusted"\n', null, false],
  ])("projectTrusted: %s", (_name, text, gitRoot, expected) => {
    expect(projectTrusted(text, _name === "its git root" ? "/repo/app" : "/p", gitRoot)).toBe(expected);
  });

  it.each<[string, string, boolean]>([
    ["a reviewed hook of this project", TRUSTED, true],
    [
      "another project's hooks",
      '[hooks.state."/q/.codex/hooks.json:session_start:0:0"]\ntrusted_hash = "sha256:00"\n',
      false,
    ],
    [
      "this project's entry without a hash",
      '[hooks.state."/p/.codex/hooks.json:session_start:0:0"]\nenabled = true\n[x]\ntrusted_hash = "sha256:00"\n',
      false,
    ],
    ["nothing", "", false],
  ])("hooksTrusted: %s", (_name, text, expected) => {
    expect(hooksTrusted(text, "/p")).toBe(expected);
  });

  it.each<[string, Partial<CodexFacts>, string, string]>([
    ["all trusted", {}, "trust", "ok"],
    ["no config", { config: null, configText: null }, "trust", "fail"],
    ["no config: hooks", { config: null, configText: null }, "hooks", "fail"],
    [
      "project trusted, hooks not reviewed",
      { configText: '[projects."/p"]\ntrust_level = "trusted"\n' },
      "hooks",
      "fail",
    ],
    ["a helper that cannot run", { helperDamage: "a half of it is missing" }, "helper", "fail"],
  ])("checkCodex: %s → %s %s", (_name, facts, name, expected) => {
    expect(status(facts, name)).toBe(expected);
  });

  it("an earlier install's PostToolUse without its matcher still counts as installed, with the update as its fix", () => {
    const hooks = CODEX_HOOK_EVENTS.map(([, event]) => `node "/p/x/dotagent.cjs" hook ${event} --client codex`);
    const hook = (facts: Partial<CodexFacts>) =>
      checkCodex({ ...fine, hooks, ...facts }).find((c) => c.name === "hook");
    expect(hook({})).toMatchObject({ status: "ok", fix: null });
    expect(hook({ olderHooks: ["PostToolUse"] })).toMatchObject({
      status: "ok",
      message: expect.stringContaining("PostToolUse as an earlier install wrote it"),
      fix: "run `dotagent install --client codex`",
    });
  });
});
