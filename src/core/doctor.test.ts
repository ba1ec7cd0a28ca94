import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import {
  checkClaudeMode,
  checkCodexMode,
  checkHelperVersion,
  checkLogin,
  checkNode,
  checkSdk,
  compareVersions,
  doctorExitCode,
  MIN_NODE,
  type Check,
} from "./doctor.js";

describe("compareVersions", () => {
  it.each([
    ["20.19.0", "20.19.0", 0],
    ["v20.19.1", "20.19.0", 1],
    ["20.9.0", "20.19.0", -1],
    ["22.0.0", "20.19.0", 1],
    ["0.1.0", "0.1.0-beta", 0],
    ["garbage", "0.0.1", -1],
  ])("%s vs %s → %i", (a, b, expected) => expect(compareVersions(a, b)).toBe(expected));
});

describe("checkNode", () => {
  it.each([
    ["v20.19.0", "ok"],
    ["v24.1.0", "ok"],
    ["v20.18.3", "fail"],
    ["v18.20.0", "fail"],
  ])("%s → %s", (version, status) => expect(checkNode(version).status).toBe(status));

  it("names the minimum and the fix when too old", () => {
    expect(checkNode("v18.0.0")).toMatchObject({
      message: "Node.js 18.0.0 is older than 20.19, which dotagent needs",
      fix: expect.stringContaining("20.19 or later"),
    });
  });

  it("MIN_NODE is package.json's engines range", () => {
    const engines = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).engines
      .node as string;
    expect(`>=${MIN_NODE.replace(/\.0$/, "")}`).toBe(engines);
  });
});

describe("checkHelperVersion", () => {
  it.each([
    ["0.1.0", "0.1.0", "ok", null],
    ["0.0.9", "0.1.0", "fail", "older than"],
    [null, "0.1.0", "fail", "built before 0.1.0"],
    ["0.2.0", "0.1.0", "fail", "newer than"],
  ] as const)("installed %s, CLI %s → %s", (installed, cli, status, words) => {
    const check = checkHelperVersion("project", installed, cli);
    expect(check.status).toBe(status);
    if (words) expect(check.message).toContain(words);
  });

  it("a helper newer than the CLI: the fix upgrades the CLI by the package's own name (the plain name `dotagent` is someone else's)", () => {
    const name = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).name as string;
    expect(name).toBe("dotagent-workflow");
    expect(checkHelperVersion("project", "0.2.0", "0.1.0").fix).toContain(`npm install -g ${name}\``);
  });
});

describe("doctorExitCode", () => {
  const c = (status: Check["status"]): Check => ({ name: "x", status, message: "", fix: null });
  it.each([
    [[], 0],
    [[c("ok"), c("warn")], 0],
    [[c("ok"), c("fail")], 1],
  ] as const)("%j → %i", (checks, code) => expect(doctorExitCode(checks)).toBe(code));
});

describe("checkSdk: only dotagent run needs it", () => {
  const install = "npm install @anthropic-ai/claude-agent-sdk";
  it.each([
    [
      "found",
      { version: "0.3.329", where: "beside dotagent", fits: true },
      "ok",
      "the Claude Agent SDK 0.3.329 beside dotagent (for `dotagent run`)",
    ],
    [
      "another version",
      { version: "0.4.0", where: "in the project", fits: false },
      "warn",
      "the Claude Agent SDK 0.4.0 in the project is not one this dotagent was built for (>=0.3.0 <0.4.0); `dotagent run` may fail",
    ],
    [
      "missing",
      undefined,
      "warn",
      "the Claude Agent SDK is not installed beside dotagent or in the project: `dotagent run` needs it (the skills in Claude Code do not)",
    ],
  ] as const)("%s → %s", (_name, found, status, message) =>
    expect(checkSdk(found, ">=0.3.0 <0.4.0", install)).toMatchObject({ name: "sdk", status, message }),
  );
});

describe("checkLogin: a key or a login, seen without a network call", () => {
  const none = {
    envKeys: [],
    provider: null,
    credentialsFile: null,
    loginKeyFile: null,
    looked: ["/h/.claude/.credentials.json", "/h/.claude.json"],
    platform: "linux",
  };
  it.each([
    [
      "an API key",
      { ...none, envKeys: ["ANTHROPIC_API_KEY"] },
      "ok",
      /^ANTHROPIC_API_KEY is set; not tried: doctor calls no API/,
    ],
    [
      "a Claude Code login",
      { ...none, credentialsFile: "/h/.claude/.credentials.json" },
      "ok",
      /^Claude Code is logged in \(\/h\/\.claude\/\.credentials\.json\)/,
    ],
    ["a /login key", { ...none, loginKeyFile: "/h/.claude.json" }, "ok", /^Claude Code has a key from \/login/],
    ["Bedrock", { ...none, provider: "Bedrock" }, "ok", /^Claude Code uses Bedrock/],
    [
      "nothing",
      none,
      "warn",
      /^no ANTHROPIC_API_KEY and no Claude Code login \(looked in \/h\/\.claude\/\.credentials\.json, \/h\/\.claude\.json\)$/,
    ],
    ["nothing on macOS", { ...none, platform: "darwin" }, "warn", /in the Keychain, which doctor does not read/],
  ] as const)("%s → %s", (_name, facts, status, message) => {
    const check = checkLogin(facts);
    expect(check).toMatchObject({ name: "login", status });
    expect(check.message).toMatch(message);
  });
});

describe("the client's mode: when the model runs any command without the person (SPEC §11)", () => {
  it.each([
    [{ permissions: { defaultMode: "bypassPermissions" } }, ["bypassPermissions"]],
    [{ permissions: { defaultMode: "auto" } }, ['"auto"']],
    [{ permissions: { allow: ["Bash"] } }, ['"Bash"']],
    [{ permissions: { allow: ["Bash(*)", "Read"] } }, ['"Bash(*)"']],
    [{ permissions: { defaultMode: "acceptEdits", allow: ["Bash(npm test)", "Bash(node *dotagent.mjs*)"] } }, []],
    [{ permissions: { defaultMode: "default" } }, []],
    [{}, []],
    [null, []],
    [{ permissions: ["Bash"] }, []],
  ])("%j", (settings, found) => {
    const checks = checkClaudeMode(settings, "/p/.claude/settings.json");
    expect(checks.map((c) => c.status)).toEqual(found.map(() => "warn"));
    found.forEach((word, i) => expect(checks[i]!.message).toContain(word));
  });
  it.each([
    ['approval_policy = "never"\nsandbox_mode = "danger-full-access"\n', 1],
    ['sandbox_mode = "danger-full-access"\n', 1],
    ['approval_policy = "never"\nsandbox_mode = "workspace-write"\n', 0],
    ['model = "x"\n[projects."/p"]\nsandbox_mode = "danger-full-access"\n', 0],
    [null, 0],
  ] as const)("codex %j", (text, n) => {
    expect(checkCodexMode(text, "/h/.codex/config.toml")).toHaveLength(n);
  });
});
