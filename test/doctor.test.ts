// `dotagent doctor` and upgrades through the built CLI: each check finds what it names, gives the
// fix, and the exit code is 1 exactly when something must be fixed. HOME is a temp folder, so
// the machine's own ~/.claude never counts.
import { afterEach, describe, expect, it } from "vitest";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createHash } from "node:crypto";
import { hostname } from "node:os";
import { dirname, join } from "node:path";
import { CLI, dotagent, expectNoStack, readJson, removeTemps, tempProject, writeJson } from "./support/cli.js";
import { copyOfTemplate } from "./support/template.js";
import { COPILOT_GUARD, HELPER_BASH_RULE, MJS_HELPER_BASH_RULE } from "../src/claude/settings.js";
import { unprivileged } from "./support/unprivileged.js";

afterEach(removeTemps);

interface Check {
  name: string;
  client?: string;
  status: "ok" | "warn" | "fail";
  message: string;
  fix: string | null;
}

/** No credentials from the machine running the tests: a key unless a test says otherwise. */
const NO_LOGIN = {
  ANTHROPIC_API_KEY: "",
  ANTHROPIC_AUTH_TOKEN: "",
  CLAUDE_CODE_OAUTH_TOKEN: "",
  CLAUDE_CODE_USE_BEDROCK: "",
  CLAUDE_CODE_USE_VERTEX: "",
  CLAUDE_CODE_USE_FOUNDRY: "",
};
const WITH_KEY = { ...NO_LOGIN, ANTHROPIC_API_KEY: "sk-test" };

function doctor(
  project: string,
  home: string,
  args: string[] = [],
  options: { env?: Record<string, string>; script?: string } = {},
) {
  const run = dotagent(project, ["doctor", "--json", ...args], {
    env: { HOME: home, CLAUDE_CONFIG_DIR: "", ...WITH_KEY, ...options.env },
    ...(options.script ? { script: options.script } : {}),
  });
  const checks = (run.json?.checks ?? []) as Check[];
  return { ...run, checks, byName: (name: string) => checks.filter((c) => c.name === name) };
}

/** What Claude Code writes to `file` (its .claude.json) when the person trusts `folder`. */
function trustFolder(file: string, folder: string): void {
  writeFileSync(
    file,
    JSON.stringify({ numStartups: 3, projects: { [folder]: { allowedTools: [], hasTrustDialogAccepted: true } } }),
  );
}

/** The Copilot guard of dotagent's hook lines as settings.json's text holds it. */
const GUARD_IN_JSON = JSON.stringify(COPILOT_GUARD).slice(1, -1);

/** A project with dotagent installed (project scope), opened and trusted in Claude Code once, and a workflow started. */

function installedProject(): { project: string; home: string } {
  // The project is made once per file and copied (install writes nothing under HOME and no file
  // names the project's folder); the trust names each copy's own folder.
  const project = copyOfTemplate("installed", (dir) => {
    expect(dotagent(dir, ["install"], { env: { HOME: tempProject() } }).code).toBe(0);
    expect(dotagent(dir, ["init", "--request", "add login"]).code).toBe(0);
  });
  const home = tempProject();
  trustFolder(join(home, ".claude.json"), project);
  return { project, home };
}

const sha = (bytes: Buffer | string) => createHash("sha256").update(bytes).digest("hex");

describe("dotagent doctor: what `dotagent run` needs (issue 24)", () => {
  it("no Agent SDK beside this dotagent or in the project, no key and no login: two warnings with their fixes, exit 0", () => {
    const { project, home } = installedProject();
    const elsewhere = tempProject();
    const cli = join(elsewhere, "dotagent.mjs");
    copyFileSync(CLI, cli);
    const run = doctor(project, home, [], { env: NO_LOGIN, script: cli });
    expect(run.code).toBe(0);
    expect(run.byName("sdk")[0]).toMatchObject({
      status: "warn",
      message: expect.stringContaining("`dotagent run` needs it (the skills in Claude Code do not)"),
      fix: expect.stringContaining("npm install @anthropic-ai/claude-agent-sdk"),
    });
    expect(run.byName("login")[0]).toMatchObject({
      status: "warn",
      message: `no ANTHROPIC_API_KEY and no Claude Code login (looked in ${join(home, ".claude/.credentials.json")}, ${join(home, ".claude.json")})`,
      fix: expect.stringContaining("/login"),
    });
  });

  it("Claude Code's own login (.credentials.json under CLAUDE_CONFIG_DIR, or a /login key in .claude.json) counts; a file that is not JSON does not", () => {
    const { project, home } = installedProject();
    const config = join(home, "config");
    mkdirSync(config);
    writeFileSync(
      join(config, ".credentials.json"),
      JSON.stringify({ claudeAiOauth: { accessToken: "sk-ant-oat01-x", expiresAt: 1 } }),
    );
    expect(
      doctor(project, home, [], { env: { ...NO_LOGIN, CLAUDE_CONFIG_DIR: config } }).byName("login")[0],
    ).toMatchObject({
      status: "ok",
      message: expect.stringContaining(`Claude Code is logged in (${join(config, ".credentials.json")})`),
    });
    writeFileSync(join(config, ".credentials.json"), "{not json");
    writeFileSync(join(config, ".claude.json"), JSON.stringify({ primaryApiKey: "sk-ant-x" }));
    expect(
      doctor(project, home, [], { env: { ...NO_LOGIN, CLAUDE_CONFIG_DIR: config } }).byName("login")[0],
    ).toMatchObject({
      status: "ok",
      message: expect.stringContaining(`a key from /login (${join(config, ".claude.json")})`),
    });
    rmSync(join(config, ".claude.json"));
    expect(
      doctor(project, home, [], { env: { ...NO_LOGIN, CLAUDE_CONFIG_DIR: config } }).byName("login")[0],
    ).toMatchObject({ status: "warn" });
  });
});

describe("dotagent doctor", () => {
  it("all good after install and init: exit 0, one ok line per check", () => {
    const { project, home } = installedProject();
    const run = doctor(project, home);
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({ ok: true, version: expect.any(String) });
    expect(run.checks.map((c) => c.name)).toEqual([
      "node",
      "install",
      "helper",
      "hook",
      "trust",
      "workflows",
      "settings",
      "state",
      "lock",
      "writable",
      "sdk",
      "login",
    ]);
    expect(run.json.clients).toEqual(["claude"]);
    expect(run.checks.filter((c) => c.client === "claude").map((c) => c.name)).toEqual([
      "install",
      "helper",
      "hook",
      "trust",
      "workflows",
      "settings",
    ]);
    expect(run.checks.every((c) => c.status === "ok" && c.fix === null)).toBe(true);
    expect(run.byName("sdk")[0]!.message).toMatch(
      /^the Claude Agent SDK 0\.3\.\d+ beside dotagent \(for `dotagent run`\)$/,
    );
    expect(run.byName("login")[0]!.message).toBe(
      "ANTHROPIC_API_KEY is set; not tried: doctor calls no API; `dotagent run` asks Claude Code before it starts",
    );
    const plain = dotagent(project, ["doctor"], { env: { HOME: home, CLAUDE_CONFIG_DIR: "", ...WITH_KEY } });
    expect(plain.stdout.trim().split("\n")).toHaveLength(run.checks.length + 2);
    expect(plain.stdout).toContain("All good.");
  });

  it("not installed: exit 1 with the command that installs", () => {
    const project = tempProject();
    const run = doctor(project, tempProject());
    expect(run.code).toBe(1);
    expect(run.byName("install")[0]).toMatchObject({
      status: "fail",
      fix: expect.stringContaining("dotagent install"),
    });
    expect(run.byName("state")[0]).toMatchObject({
      status: "ok",
      message: expect.stringContaining("no workflow here yet"),
    });
  });

  it("finds a settings.json that does not parse, and a missing hook entry", () => {
    const { project, home } = installedProject();
    const settings = join(project, ".claude", "settings.json");
    const good = readFileSync(settings, "utf8");
    writeFileSync(settings, "{ not json");
    let run = doctor(project, home);
    expect(run.code).toBe(1);
    expect(run.byName("settings")[0]).toMatchObject({
      status: "fail",
      message: expect.stringContaining(`${settings} does not parse`),
    });
    writeFileSync(settings, JSON.stringify({ ...JSON.parse(good), hooks: {} }));
    run = doctor(project, home);
    expect(run.code).toBe(1);
    expect(run.byName("hook")[0]).toMatchObject({ status: "fail", fix: "run `dotagent install`" });
  });

  it("an install from before the write guard: the hook check names what its missing entries leave open", () => {
    const { project, home } = installedProject();
    const settings = join(project, ".claude", "settings.json");
    const value = JSON.parse(readFileSync(settings, "utf8"));
    value.hooks.PreToolUse = value.hooks.PreToolUse.filter(
      (g: { matcher: string; hooks: Array<{ if?: string }> }) =>
        g.matcher !== "Write|Edit|MultiEdit|NotebookEdit" && g.hooks[0]!.if !== "Bash(*memory/state*)",
    );
    writeFileSync(settings, JSON.stringify(value));
    const run = doctor(project, home);
    expect(run.code).toBe(1);
    const hook = run.byName("hook")[0];
    expect(hook).toMatchObject({ status: "fail", fix: "run `dotagent install`" });
    expect(hook?.message).toContain(
      "lacks dotagent's PreToolUse hooks, so the model's writes into memory/state/ and agents' reports are not stopped",
    );
    expect(hook?.message).not.toContain("starts and results");
  });

  it("hook lines of an earlier install, running dotagent.mjs: counted, ok, with the update as the fix", () => {
    const { project, home } = installedProject();
    const settings = join(project, ".claude", "settings.json");
    expect(readFileSync(settings, "utf8")).toContain('/dotagent.cjs\\" hook session-start');
    expect(doctor(project, home).byName("hook")[0]).toMatchObject({ status: "ok", fix: null });
    // As that install wrote them: no Copilot guard yet either.
    writeFileSync(
      settings,
      readFileSync(settings, "utf8")
        .replaceAll(GUARD_IN_JSON, "")
        .replaceAll('/dotagent.cjs\\" hook', '/dotagent.mjs\\" hook')
        .replaceAll(HELPER_BASH_RULE, MJS_HELPER_BASH_RULE),
    );
    const hook = doctor(project, home).byName("hook")[0];
    expect(hook).toMatchObject({ status: "ok", fix: "run `dotagent install`" });
    expect(hook?.message).toContain("as an earlier install wrote them, for lines running dotagent.mjs");
  });

  it("hook lines of an earlier install, without the Copilot guard: counted, ok, with the update as the fix", () => {
    const { project, home } = installedProject();
    const settings = join(project, ".claude", "settings.json");
    expect(readFileSync(settings, "utf8")).toContain(`${GUARD_IN_JSON}node`);
    writeFileSync(settings, readFileSync(settings, "utf8").replaceAll(GUARD_IN_JSON, ""));
    const hook = doctor(project, home).byName("hook")[0];
    expect(hook).toMatchObject({ status: "ok", fix: "run `dotagent install`" });
    expect(hook?.message).toContain(
      "as an earlier install wrote them (under Copilot CLI, which runs them too, each starts Node for nothing",
    );
  });

  it("a helper-line entry of an earlier install, letting only dotagent.mjs lines through: counted, ok, with the update as the fix", () => {
    const { project, home } = installedProject();
    const settings = join(project, ".claude", "settings.json");
    expect(readFileSync(settings, "utf8")).toContain(HELPER_BASH_RULE);
    writeFileSync(settings, readFileSync(settings, "utf8").replaceAll(HELPER_BASH_RULE, MJS_HELPER_BASH_RULE));
    const hook = doctor(project, home).byName("hook")[0];
    expect(hook).toMatchObject({ status: "ok", fix: "run `dotagent install`" });
    expect(hook?.message).toContain("as an earlier install wrote them, for lines running dotagent.mjs");
  });

  it("finds missing skill files", () => {
    const { project, home } = installedProject();
    rmSync(join(project, ".claude", "skills", "develop", "SKILL.md"));
    const run = doctor(project, home);
    expect(run.code).toBe(1);
    expect(run.byName("install")[0]).toMatchObject({
      status: "fail",
      message: expect.stringContaining("skills/develop/SKILL.md"),
    });
  });

  it("corrupt state fails with the commands that help", () => {
    const { project, home } = installedProject();
    writeFileSync(join(project, "memory/state/phase.json"), '{"workflow_id": "wf", "current_phase": "NOPE"');
    const run = doctor(project, home);
    expect(run.code).toBe(1);
    expect(run.byName("state")[0]).toMatchObject({
      status: "fail",
      message: expect.stringContaining("memory/state/phase.json"),
      fix: expect.stringContaining("dotagent validate"),
    });
  });

  it("a stale lock is a warning (exit 0); a live one is reported as held", async () => {
    const { project, home } = installedProject();
    const lock = join(project, "memory/state/.lock");
    writeJson(project, "memory/state/.lock", {
      pid: 999_999_999,
      hostname: hostname(),
      acquired_at: new Date().toISOString(),
      command: "task start",
    });
    let run = doctor(project, home);
    expect(run.code).toBe(0);
    expect(run.byName("lock")[0]).toMatchObject({ status: "warn", message: expect.stringContaining("stale") });
    const holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 20000)"]);
    try {
      writeJson(project, "memory/state/.lock", {
        pid: holder.pid,
        hostname: hostname(),
        acquired_at: new Date().toISOString(),
        command: "resume",
      });
      run = doctor(project, home);
      expect(run.byName("lock")[0]).toMatchObject({
        status: "ok",
        message: expect.stringContaining(`held by pid ${holder.pid}`),
      });
    } finally {
      holder.kill();
      rmSync(lock, { force: true });
    }
  });

  it("a project folder that does not exist stops doctor like every command: state_path_invalid, exit 3 (issue 21, case 14)", () => {
    const project = tempProject();
    const run = dotagent(project, ["doctor", "--dir", "no/such/folder", "--json"]);
    expect(run.code).toBe(3);
    expect(run.json.error).toMatchObject({
      code: "state_path_invalid",
      message: expect.stringContaining("no/such/folder does not exist"),
    });
  });

  it.skipIf(process.getuid?.() === 0)("a read-only memory/state fails the writable check", () => {
    const { project, home } = installedProject();
    chmodSync(join(project, "memory/state"), 0o555);
    try {
      expect(doctor(project, home).byName("writable")[0]).toMatchObject({
        status: "fail",
        message: expect.stringContaining("not writable"),
      });
    } finally {
      chmodSync(join(project, "memory/state"), 0o755);
    }
  });

  it("checks a user-scope install under CLAUDE_CONFIG_DIR", () => {
    const project = tempProject();
    const config = tempProject();
    expect(dotagent(project, ["install", "--scope", "user"], { env: { CLAUDE_CONFIG_DIR: config } }).code).toBe(0);
    const run = dotagent(project, ["doctor", "--json"], { env: { CLAUDE_CONFIG_DIR: config, HOME: tempProject() } });
    expect(run.code).toBe(0);
    expect((run.json.checks as Check[]).find((c) => c.name === "hook")?.message).toContain(`user (${config})`);
  });
});

describe("upgrade from a copy installed by an older build", () => {
  /** Rewrites an install as an older dotagent would have left it: older helper and skill text, its manifest. */
  function makeOlder(project: string): void {
    const target = join(project, ".claude");
    const helper = join(target, "skills/checkpoint/scripts/dotagent.mjs");
    const oldHelper = readFileSync(helper, "utf8").replace(/^\/\/ dotagent \S+$/m, "// dotagent 0.0.9");
    writeFileSync(helper, oldHelper);
    const skill = join(target, "skills/checkpoint/SKILL.md");
    writeFileSync(skill, `${readFileSync(skill, "utf8")}\nOld wording of the protocol.\n`);
    writeFileSync(join(target, "skills/checkpoint/retired.md"), "a file the new version no longer ships");
    const manifestFile = join(target, ".dotagent-install.json");
    const manifest = readJson(target, ".dotagent-install.json");
    manifest.dotagent_version = "0.0.9";
    manifest.files = manifest.files.map((f: { path: string }) => ({
      path: f.path,
      sha256: sha(readFileSync(join(target, f.path))),
    }));
    manifest.files.push({
      path: "skills/checkpoint/retired.md",
      sha256: sha("a file the new version no longer ships"),
    });
    writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
  }

  it("doctor says an upgrade is due; install updates what the user did not change and keeps what they did", () => {
    const { project, home } = installedProject();
    makeOlder(project);
    const target = join(project, ".claude");
    writeFileSync(join(target, "agents/qa.md"), "my own qa agent, edited after install\n");

    const before = doctor(project, home);
    expect(before.code).toBe(1);
    expect(before.byName("helper")[0]).toMatchObject({
      status: "fail",
      message: expect.stringContaining("helper 0.0.9 is older than this CLI"),
      fix: expect.stringContaining("dotagent install"),
    });
    expect(before.byName("install")[0]?.message).toContain(
      "by dotagent 0.0.9; 1 edited by you (kept on upgrade): agents/qa.md",
    );

    const upgrade = dotagent(project, ["install", "--json"], { env: { HOME: home } });
    expect(upgrade.code).toBe(0);
    const actions = Object.fromEntries(
      (upgrade.json.changes as Array<{ action: string; path: string }>)
        .filter((c) => c.action !== "unchanged")
        .map((c) => [c.path, c.action]),
    );
    expect(actions).toEqual({
      "skills/checkpoint/scripts/dotagent.mjs": "update",
      "skills/checkpoint/SKILL.md": "update",
      "skills/checkpoint/retired.md": "remove",
      "agents/qa.md": "keep",
    });
    // Again: nothing to write; the kept file is named again so the note is not lost.
    const again = dotagent(project, ["install", "--json"], { env: { HOME: home } });
    expect(
      (again.json.changes as Array<{ action: string; path: string }>).filter((c) => c.action !== "unchanged"),
    ).toEqual([expect.objectContaining({ action: "keep", path: "agents/qa.md" })]);

    expect(readFileSync(join(target, "agents/qa.md"), "utf8")).toBe("my own qa agent, edited after install\n");
    expect(existsSync(join(target, "skills/checkpoint/retired.md"))).toBe(false);
    expect(readFileSync(join(target, "skills/checkpoint/SKILL.md"), "utf8")).not.toContain("Old wording");
    const after = doctor(project, home);
    expect(after.code).toBe(0);
    expect(after.byName("helper")[0]?.status).toBe("ok");
    expect(readJson(target, ".dotagent-install.json").dotagent_version).toBe(after.json.version);
  });

  it("the install output names the kept file and why", () => {
    const { project, home } = installedProject();
    makeOlder(project);
    writeFileSync(join(project, ".claude", "agents/pm.md"), "mine\n");
    const run = dotagent(project, ["install"], { env: { HOME: home } });
    expect(run.stdout).toMatch(
      /keep +agents\/pm\.md +\(edited since dotagent installed it: kept; to take this version's copy, move yours away and run `dotagent install` again\)/,
    );
  });
});

describe("issue 21: doctor never hangs, never crashes, and names what it finds", () => {
  /**
   * doctor --json where a FIFO could hang it: a process of its own, killed if it has not returned
   * in 20 s (a hang fails the test instead of stalling it). With no FIFO about (`fifo: false`), in
   * the CLI host as every other call (a process fewer; issue 41).
   */
  function boundedDoctor(project: string, home: string, fifo = true) {
    const env = { HOME: home, CLAUDE_CONFIG_DIR: "", NO_COLOR: "1" };
    const result = fifo
      ? spawnSync(process.execPath, [CLI, "doctor", "--json"], {
          cwd: project,
          encoding: "utf8",
          timeout: 20_000,
          env: { ...process.env, ...env },
        })
      : (({ code, stdout, stderr }) => ({ status: code, signal: null, stdout, stderr }))(
          dotagent(project, ["doctor", "--json"], { env }),
        );
    expect(result.signal, "doctor did not return").toBeNull();
    expectNoStack(result.stderr);
    const checks = (JSON.parse(result.stdout).checks ?? []) as Check[];
    return { code: result.status, checks, byName: (name: string) => checks.filter((c) => c.name === name) };
  }
  const fifo = (path: string) => {
    rmSync(path, { force: true, recursive: true });
    execFileSync("mkfifo", [path]);
  };
  const HELPER = ".claude/skills/checkpoint/scripts/dotagent.mjs";

  it("case 11: a FIFO .claude/settings.json is a fail line, not a hang", () => {
    const { project, home } = installedProject();
    fifo(join(project, ".claude/settings.json"));
    const run = boundedDoctor(project, home);
    expect(run.code).toBe(1);
    expect(run.byName("settings")[0]).toMatchObject({
      status: "fail",
      message: `${join(project, ".claude/settings.json")} is a FIFO, not a regular file`,
    });
  });

  it("case 11: a FIFO helper is a fail line, not a hang", () => {
    const { project, home } = installedProject();
    fifo(join(project, HELPER));
    const run = boundedDoctor(project, home);
    expect(run.code).toBe(1);
    expect(run.byName("install")[0]).toMatchObject({
      status: "fail",
      message: expect.stringContaining("skills/checkpoint/scripts/dotagent.mjs (is a FIFO, not a regular file)"),
    });
    expect(run.byName("helper")[0]).toMatchObject({
      status: "fail",
      message: expect.stringContaining(
        "the helper skills/checkpoint/scripts/dotagent.mjs is a FIFO, not a regular file",
      ),
    });
  });

  it("case 11: a FIFO plugins/installed_plugins.json in the user folder is a fail line, not a hang", () => {
    const { project, home } = installedProject();
    mkdirSync(join(home, ".claude/plugins"), { recursive: true });
    fifo(join(home, ".claude/plugins/installed_plugins.json"));
    const run = boundedDoctor(project, home);
    expect(run.byName("install")).toContainEqual(
      expect.objectContaining({ status: "fail", message: expect.stringContaining("installed_plugins.json is a FIFO") }),
    );
  });

  it.each([
    [
      "a folder",
      (path: string) => {
        rmSync(path);
        mkdirSync(path);
      },
      "is a folder, not a regular file",
    ],
    [
      "a link to nothing",
      (path: string) => {
        rmSync(path);
        symlinkSync(join(path, "..", "gone.mjs"), path);
      },
      "is a link to nothing",
    ],
  ])("case 12: a helper that is %s is a fail line, not an internal error", (_, make, reason) => {
    const { project, home } = installedProject();
    make(join(project, HELPER));
    const run = boundedDoctor(project, home, false);
    expect(run.code).toBe(1);
    expect(run.byName("helper")[0]).toMatchObject({
      status: "fail",
      message: expect.stringContaining(`the helper skills/checkpoint/scripts/dotagent.mjs ${reason}`),
      fix: expect.stringContaining("dotagent install"),
    });
  });

  it("case 12: an unreadable helper (chmod 000) is a fail line (run as nobody when the tests run as root)", (context) => {
    const { project } = installedProject();
    const run = unprivileged(project);
    if (run === null) return context.skip("root without setpriv: nobody to run as who cannot read past chmod 000");
    chmodSync(join(project, HELPER), 0o000);
    const r = run(["doctor", "--json"]);
    expectNoStack(r.stderr);
    expect(r.code).toBe(1);
    expect((r.json.checks as Check[]).find((c) => c.name === "helper")).toMatchObject({
      status: "fail",
      message: expect.stringContaining("the helper skills/checkpoint/scripts/dotagent.mjs cannot be read (EACCES)"),
      fix: expect.stringContaining("chmod"),
    });
  });

  it("case 13: an unreadable memory/reports stops doctor with state_unreadable (exit 3), not 'N errors … start fresh' (run as nobody when the tests run as root)", (context) => {
    const { project } = installedProject();
    writeJson(project, "memory/reports/demand.json", { stories: ["a"] });
    const run = unprivileged(project);
    if (run === null) return context.skip("root without setpriv");
    chmodSync(join(project, "memory/reports"), 0o000);
    try {
      const r = run(["doctor", "--json"]);
      expect(r.code).toBe(3);
      expect(r.json.error).toMatchObject({
        code: "state_unreadable",
        path: "memory/reports/demand.json",
        errno: "EACCES",
      });
    } finally {
      chmodSync(join(project, "memory/reports"), 0o755);
    }
  });

  it("case 13: memory a file is not 'writable' nor 'no workflow here yet'", () => {
    const project = tempProject();
    const home = tempProject();
    expect(dotagent(project, ["install"], { env: { HOME: home } }).code).toBe(0);
    rmSync(join(project, "memory"), { recursive: true });
    writeFileSync(join(project, "memory"), "");
    const run = boundedDoctor(project, home, false);
    expect(run.code).toBe(1);
    expect(run.byName("writable")[0]).toMatchObject({
      status: "fail",
      message: `${join(project, "memory")} is a file, where dotagent needs a folder: nothing can be written there`,
    });
    expect(run.byName("state")[0]).toMatchObject({
      status: "fail",
      message: expect.stringContaining("memory is a file, where dotagent keeps a folder"),
    });
  });

  it("case 13: a .lock folder is a failure to fix (no command can take the lock), not a stale lock", () => {
    const { project, home } = installedProject();
    mkdirSync(join(project, "memory/state/.lock"));
    const run = boundedDoctor(project, home, false);
    expect(run.code).toBe(1);
    expect(run.byName("lock")[0]).toMatchObject({
      status: "fail",
      message: expect.stringContaining("memory/state/.lock is a folder"),
      fix: expect.stringContaining("rmdir memory/state/.lock"),
    });
    // What it predicts: a command that locks fails on it (exit 1, one line naming the lock).
    const resumed = dotagent(project, ["resume"]);
    expect(resumed.code).toBe(1);
    expect(resumed.stderr).toContain("memory/state/.lock");
    expectNoStack(resumed.stderr);
  });

  it("case 13: settings.json a dangling link is a fail line, not 'All good.'", () => {
    const { project, home } = installedProject();
    const settings = join(project, ".claude/settings.json");
    rmSync(settings);
    symlinkSync(join(project, "nowhere.json"), settings);
    const run = boundedDoctor(project, home, false);
    expect(run.code).toBe(1);
    expect(run.byName("settings")[0]).toMatchObject({
      status: "fail",
      message: `${settings} is a symbolic link to a file that does not exist`,
    });
  });

  it("case 1: doctor never reads outside .claude/ for a crafted manifest (an entry naming a FIFO outside)", () => {
    const { project, home } = installedProject();
    const outside = tempProject();
    execFileSync("mkfifo", [join(outside, "pipe")]);
    const manifest = readJson(project, ".claude/.dotagent-install.json");
    manifest.files.push(
      { path: join(outside, "pipe"), sha256: sha("") },
      { path: `../../../../../../../../..${join(outside, "pipe")}`, sha256: sha("") },
    );
    writeJson(project, ".claude/.dotagent-install.json", manifest);
    const run = boundedDoctor(project, home);
    expect(run.byName("install")).toContainEqual(
      expect.objectContaining({
        status: "warn",
        message: expect.stringContaining("2 entries of .dotagent-install.json ignored"),
      }),
    );
  });
});

describe("doctor's verdict and --headless", () => {
  it("the last line counts the warnings beside the verdict; --headless skips the Claude Code install and requires the SDK and a login", () => {
    const p = tempProject();
    const plain = dotagent(p, ["doctor"], { env: { ANTHROPIC_API_KEY: "" } });
    // No install here (a failure) and no login (a warning): both counted.
    expect(plain.stdout.trim().split("\n").at(-1)).toBe("1 problem to fix (1 warning).");
    const headless = dotagent(p, ["doctor", "--headless", "--json"], { env: { ANTHROPIC_API_KEY: "" } });
    expect(headless.code).toBe(1);
    expect(headless.json.checks.map((c: { name: string }) => c.name)).not.toContain("install");
    expect(headless.json.checks.find((c: { name: string }) => c.name === "login").status).toBe("fail");
    const ready = dotagent(p, ["doctor", "--headless"], { env: { ANTHROPIC_API_KEY: "sk-ant-test" } });
    expect([ready.code, ready.stdout.trim().split("\n").at(-1)]).toEqual([0, "All good for `dotagent run`."]);
  });
});

describe("doctor checks the clients installed here, and whether each trusts the folder (issue 42)", () => {
  const TRUST_LINE = "dotagent's hooks do not run and nothing is recorded";

  it("Claude Code, folder not trusted: a trust failure that says how to trust it (exit 1, not All good); trusted: All good", () => {
    const project = tempProject();
    const home = tempProject();
    expect(dotagent(project, ["install"], { env: { HOME: home } }).code).toBe(0);
    const untrusted = doctor(project, home);
    expect(untrusted.code).toBe(1);
    expect(untrusted.byName("trust")).toEqual([
      {
        name: "trust",
        client: "claude",
        status: "fail",
        message: `Claude Code does not trust ${project} yet (no hasTrustDialogAccepted for it in ${join(home, ".claude.json")}): until it does, it ignores .claude/settings.json, so ${TRUST_LINE}`,
        fix: `run \`claude\` in ${project} and answer yes when it asks whether you trust the folder`,
      },
    ]);
    const plain = dotagent(project, ["doctor"], { env: { HOME: home, CLAUDE_CONFIG_DIR: "", ...WITH_KEY } });
    expect(plain.stdout).toMatch(/^✗ trust +Claude Code does not trust /m);
    expect(plain.stdout.trim().split("\n").at(-1)).toBe("1 problem to fix.");
    // Another folder trusted, or the trust recorded as false: still not trusted.
    writeFileSync(
      join(home, ".claude.json"),
      JSON.stringify({
        projects: { [tempProject()]: { hasTrustDialogAccepted: true }, [project]: { hasTrustDialogAccepted: false } },
      }),
    );
    expect(doctor(project, home).code).toBe(1);
    writeFileSync(join(home, ".claude.json"), "{not json");
    expect(doctor(project, home).byName("trust")[0]?.status).toBe("fail");
    trustFolder(join(home, ".claude.json"), project);
    const trusted = doctor(project, home);
    expect([trusted.code, trusted.byName("trust")[0]]).toEqual([
      0,
      {
        name: "trust",
        client: "claude",
        status: "ok",
        message: `Claude Code trusts ${project} (${join(home, ".claude.json")})`,
        fix: null,
      },
    ]);
    // doctor only reads Claude Code's file.
    expect(readJson(home, ".claude.json").projects[project]).toEqual({
      allowedTools: [],
      hasTrustDialogAccepted: true,
    });
  });

  it("reads the trust where Claude Code does: $CLAUDE_CONFIG_DIR/.claude.json when that is set (~/.claude.json then counts for nothing)", () => {
    const project = tempProject();
    const home = tempProject();
    const config = tempProject();
    expect(dotagent(project, ["install"], { env: { HOME: home } }).code).toBe(0);
    trustFolder(join(home, ".claude.json"), project);
    const elsewhere = doctor(project, home, [], { env: { CLAUDE_CONFIG_DIR: config } });
    expect(elsewhere.byName("trust")[0]).toMatchObject({
      status: "fail",
      message: expect.stringContaining(join(config, ".claude.json")),
    });
    trustFolder(join(config, ".claude.json"), project);
    expect(doctor(project, home, [], { env: { CLAUDE_CONFIG_DIR: config } }).byName("trust")[0]).toMatchObject({
      status: "ok",
    });
  });

  it("a project inside a trusted git root or a trusted parent folder counts as trusted, and says through which", () => {
    const repo = tempProject();
    const home = tempProject();
    mkdirSync(join(repo, ".git"));
    const project = join(repo, "app");
    mkdirSync(project);
    expect(dotagent(project, ["install"], { env: { HOME: home } }).code).toBe(0);
    trustFolder(join(home, ".claude.json"), repo);
    expect(doctor(project, home).byName("trust")[0]).toMatchObject({
      status: "ok",
      message: `Claude Code trusts ${project} (through ${repo}) (${join(home, ".claude.json")})`,
    });
  });

  it("a user-scope install has no trust line (Claude Code applies the user's own settings everywhere)", () => {
    const project = tempProject();
    const config = tempProject();
    expect(dotagent(project, ["install", "--scope", "user"], { env: { CLAUDE_CONFIG_DIR: config } }).code).toBe(0);
    const run = doctor(project, tempProject(), [], { env: { CLAUDE_CONFIG_DIR: config } });
    expect(run.byName("trust")).toEqual([]);
    expect(run.code).toBe(0);
  });

  it.each([
    ["copilot", ["install", "trust"]],
    ["codex", ["install", "trust", "hooks"]],
  ])(
    "after install --client %s, doctor checks that client alone: no Claude Code line, no 'not installed for Claude Code', and the untrusted folder fails",
    (client, names) => {
      const project = tempProject();
      const home = tempProject();
      const env = { HOME: home, CODEX_HOME: join(home, ".codex"), COPILOT_HOME: "" };
      expect(dotagent(project, ["install", "--client", client], { env }).code).toBe(0);
      const run = doctor(project, home, [], { env });
      expect(run.code).toBe(1);
      expect(run.json.clients).toEqual([client]);
      expect(run.stdout).not.toContain("Claude Code");
      expect(run.checks.filter((c) => c.client !== undefined).every((c) => c.client === client)).toBe(true);
      expect(run.checks.map((c) => c.name)).not.toContain("sdk");
      for (const name of names) expect(run.byName(name), name).toHaveLength(1);
      expect(run.byName("install")[0]?.status).toBe("ok");
      expect(run.checks.filter((c) => c.status === "fail").map((c) => c.name)).toEqual(names.slice(1));
      const plain = dotagent(project, ["doctor"], { env: { ...env, CLAUDE_CONFIG_DIR: "" } });
      expect(plain.stdout).not.toContain("Claude Code");
      expect(plain.stdout).toMatch(/^✗ trust /m);
      // Every message starts in one column (Codex's `hook-node` is longer than the others' names).
      const columns = plain.stdout
        .split("\n")
        .filter((l) => /^[✓✗!] /.test(l))
        .map((l) => /^[✓✗!] \S+ +/.exec(l)![0].length);
      expect(new Set(columns).size, plain.stdout).toBe(1);
    },
  );

  it("codex: trusted (the project, then its hooks reviewed, as Codex records them in config.toml): All good", () => {
    const project = tempProject();
    const home = tempProject();
    const codexHome = join(home, ".codex");
    const env = { HOME: home, CODEX_HOME: codexHome };
    expect(dotagent(project, ["install", "--client", "codex"], { env }).code).toBe(0);
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(
      join(codexHome, "config.toml"),
      `model = "gpt-5"\n\n[projects.${JSON.stringify(project)}]\ntrust_level = "trusted"\n`,
    );
    const projectOnly = doctor(project, home, [], { env });
    expect(projectOnly.checks.filter((c) => c.status === "fail").map((c) => c.name)).toEqual(["hooks"]);
    writeFileSync(
      join(codexHome, "config.toml"),
      `${readFileSync(join(codexHome, "config.toml"), "utf8")}\n[hooks.state.${JSON.stringify(`${project}/.codex/hooks.json:session_start:0:0`)}]\ntrusted_hash = "sha256:00"\n`,
    );
    const trusted = doctor(project, home, [], { env });
    expect(trusted.checks.filter((c) => c.status !== "ok")).toEqual([]);
    expect(trusted.code).toBe(0);
  });

  it("Claude Code and Copilot CLI both installed: each client's checks, under its name in the plain output", () => {
    const project = tempProject();
    const home = tempProject();
    const env = { HOME: home, COPILOT_HOME: "" };
    expect(dotagent(project, ["install"], { env }).code).toBe(0);
    expect(dotagent(project, ["install", "--client", "copilot"], { env }).code).toBe(0);
    trustFolder(join(home, ".claude.json"), project);
    const run = doctor(project, home, [], { env });
    expect(run.json.clients).toEqual(["claude", "copilot"]);
    expect(run.byName("trust").map((c) => [c.client, c.status])).toEqual([
      ["claude", "ok"],
      ["copilot", "fail"],
    ]);
    const plain = dotagent(project, ["doctor"], { env: { ...env, CLAUDE_CONFIG_DIR: "", ...WITH_KEY } }).stdout;
    expect(plain).toMatch(/^Claude Code:\n  ✓ install /m);
    expect(plain).toMatch(/^Copilot CLI:\n  ✓ install /m);
    // --client names one: only that one is checked.
    expect(doctor(project, home, ["--client", "claude"], { env }).json.clients).toEqual(["claude"]);
  });

  it("nothing installed: one install failure naming every client's install command", () => {
    const run = doctor(tempProject(), tempProject());
    expect(run.code).toBe(1);
    expect(run.byName("install")).toEqual([
      expect.objectContaining({
        client: "claude",
        status: "fail",
        message: expect.stringContaining("dotagent is not installed here for any client"),
        fix: "run `dotagent install` in the project for Claude Code (`dotagent install --client copilot` for Copilot CLI, `--client codex` for Codex CLI)",
      }),
    ]);
    expect(run.byName("trust")).toEqual([]);
  });
});

describe("dotagent doctor: Claude Code's Workflow runs (issue 43)", () => {
  const entries = (settings: Record<string, any>) => settings.hooks as Record<string, { matcher?: string }[]>;

  it("an install from before issue 43 (PostToolUse on Agent|Task, no SubagentStart): the hook check names only the Workflow runs as unrecorded", () => {
    const { project, home } = installedProject();
    const file = join(project, ".claude", "settings.json");
    const value = JSON.parse(readFileSync(file, "utf8"));
    for (const group of entries(value).PostToolUse!)
      if (group.matcher === "Agent|Task|Workflow") group.matcher = "Agent|Task";
    delete entries(value).SubagentStart;
    writeFileSync(file, JSON.stringify(value));
    const run = doctor(project, home);
    expect(run.code).toBe(1);
    expect(run.byName("hook")[0]).toMatchObject({
      status: "fail",
      message: `project (${join(project, ".claude")}): settings.json lacks dotagent's PostToolUse, SubagentStart hooks, so Claude Code's Workflow runs are not recorded`,
      fix: "run `dotagent install`",
    });
    expect(run.byName("workflows")[0]).toMatchObject({ status: "warn", fix: "run `dotagent install`" });
  });

  it("SubagentStart alone missing: its own consequence; SubagentStop missing: agents' results", () => {
    const { project, home } = installedProject();
    const file = join(project, ".claude", "settings.json");
    const value = JSON.parse(readFileSync(file, "utf8"));
    delete entries(value).SubagentStart;
    delete entries(value).SubagentStop;
    writeFileSync(file, JSON.stringify(value));
    expect(doctor(project, home).byName("hook")[0]!.message).toContain(
      "so Claude Code's Workflow runs' journals are not copied as each workflow agent starts and agents' results and Workflow runs' journals are not recorded",
    );
  });

  it("recorded and allowed: the project's allow rule counts in a trusted folder; none: Claude Code asks and -p refuses", () => {
    const { project, home } = installedProject();
    expect(doctor(project, home).byName("workflows")).toEqual([
      expect.objectContaining({
        status: "ok",
        client: "claude",
        message: expect.stringContaining(
          "its runs are recorded in memory/state/workflow-runs/; Workflow not allowed in any settings: Claude Code asks before each run, and `claude -p` refuses it",
        ),
      }),
    ]);
    const file = join(project, ".claude", "settings.local.json");
    writeFileSync(file, JSON.stringify({ permissions: { allow: ["Workflow"] } }));
    expect(doctor(project, home).byName("workflows")[0]!.message).toMatch(
      /; Workflow allowed in the project's settings$/,
    );
    // Untrusted: the project's rule is ignored.
    writeFileSync(join(home, ".claude.json"), "{}");
    expect(doctor(project, home).byName("workflows")[0]!.message).toContain(
      "which Claude Code ignores until it trusts the folder",
    );
    expect(
      doctor(project, home, [], { env: { CLAUDE_CODE_DISABLE_WORKFLOWS: "1" } }).byName("workflows")[0],
    ).toMatchObject({
      status: "ok",
      message: expect.stringContaining("turned off here (CLAUDE_CODE_DISABLE_WORKFLOWS)"),
    });
  });

  it("warns when the newest recorded run was made by another Claude Code version than the tested one", () => {
    const { project, home } = installedProject();
    const session = join(home, ".claude/projects/-p/s-1");
    mkdirSync(dirname(session), { recursive: true });
    const record = (runId: string, version: string, at: string) => {
      const folder = `${session}-${version}`;
      mkdirSync(join(project, "memory/state/workflow-runs", runId), { recursive: true });
      writeFileSync(`${folder}.jsonl`, `${JSON.stringify({ type: "user", version })}\n`);
      writeJson(project, `memory/state/workflow-runs/${runId}/run.json`, {
        run_id: runId,
        session_id: "s-1",
        recorded_at: at,
        journal_path: join(folder, "subagents/workflows", runId, "journal.jsonl"),
      });
    };
    record("wf_aaaaaaaa-001", "2.1.332", "2026-11-30T01:00:00.000Z");
    expect(
      doctor(project, home)
        .byName("workflows")
        .map((c) => c.status),
    ).toEqual(["ok"]);
    record("wf_bbbbbbbb-002", "2.1.400", "2026-11-30T02:00:00.000Z");
    const run = doctor(project, home);
    expect(run.code).toBe(0);
    expect(run.byName("workflows")[1]).toMatchObject({
      status: "warn",
      message:
        "Claude Code 2.1.400 made the newest recorded run (wf_bbbbbbbb-002); dotagent reads the Workflow layout as Claude Code 2.1.332 writes it",
    });
  });
});
