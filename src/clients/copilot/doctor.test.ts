import { describe, expect, it } from "vitest";
import { copilotChecks, isTrusted, trustedFoldersIn, type CopilotFacts } from "./doctor.js";

const fine: CopilotFacts = {
  target: "/p/.github",
  installed: true,
  missing: [],
  edited: [],
  wrongHooks: [],
  olderHooks: [],
  helperVersion: "1.0.0",
  helperDamage: null,
  trustedFolders: ["/p"],
  configFile: "/h/.copilot/config.json",
  allowAll: false,
  root: "/p",
  node: "v22.0.0",
};
const statuses = (facts: Partial<CopilotFacts>) =>
  Object.fromEntries(copilotChecks({ ...fine, ...facts }, "1.0.0").map((c) => [c.name, c.status]));

describe("copilotChecks", () => {
  it.each<[string, Partial<CopilotFacts>, Record<string, string>]>([
    ["all fine", {}, { install: "ok", hook: "ok", helper: "ok", trust: "ok", path: "ok" }],
    ["a file missing", { missing: ["hooks/dotagent.json"] }, { install: "fail" }],
    ["a file edited", { edited: ["skills/develop/SKILL.md"] }, { install: "warn" }],
    ["the project moved: hooks run another helper", { wrongHooks: ["preToolUse"] }, { hook: "fail" }],
    ["an earlier install's postToolUse without its matcher", { olderHooks: ["postToolUse"] }, { hook: "ok" }],
    ["an older helper", { helperVersion: "0.9.0" }, { helper: "fail" }],
    ["a helper that cannot run", { helperDamage: "a half of it is missing" }, { install: "ok", helper: "fail" }],
    ["not trusted", { trustedFolders: ["/q"] }, { trust: "fail" }],
    ["no config file", { trustedFolders: null }, { trust: "fail" }],
    ["COPILOT_ALLOW_ALL=true", { trustedFolders: null, allowAll: true }, { trust: "ok" }],
    ["no node on PATH", { node: null }, { path: "fail" }],
  ])("%s", (_, facts, expected) => {
    expect(statuses(facts)).toMatchObject(expected);
  });

  it("an earlier install's postToolUse without its matcher: ok, with `dotagent install` as its fix", () => {
    const hook = copilotChecks({ ...fine, olderHooks: ["postToolUse"] }, "1.0.0").find((c) => c.name === "hook");
    expect(hook).toMatchObject({ status: "ok", fix: "run `dotagent install --client copilot` in the project" });
    expect(hook?.message).toContain("postToolUse as an earlier install wrote it");
    expect(copilotChecks(fine, "1.0.0").find((c) => c.name === "hook")?.fix).toBeNull();
  });

  it("not installed: one failing line with the install command", () => {
    const checks = copilotChecks({ ...fine, installed: false }, "1.0.0");
    expect(checks).toEqual([
      expect.objectContaining({
        name: "install",
        status: "fail",
        fix: "run `dotagent install --client copilot` in the project",
      }),
    ]);
  });
});

describe("isTrusted", () => {
  it.each([
    ["/p", ["/p"], true],
    ["/p/sub", ["/p"], true],
    ["/p", ["/p/"], true],
    ["/pp", ["/p"], false],
    ["/p", [], false],
  ])("%s in %j: %s", (root, folders, trusted) => {
    expect(isTrusted(root, folders)).toBe(trusted);
  });
});

describe("trustedFoldersIn", () => {
  it.each([
    [
      '// User settings belong in settings.json.\n// This file is managed automatically.\n{\n  "trustedFolders": ["/p"],\n  "firstLaunchAt": "2026-03-11T00:00:00.000Z"\n}\n',
      ["/p"],
    ],
    ['{"trusted_folders":["/a"]}', ["/a"]],
    ["{}", []],
    ["not json", null],
  ])("%j → %j", (text, folders) => {
    expect(trustedFoldersIn(text)).toEqual(folders);
  });
});
