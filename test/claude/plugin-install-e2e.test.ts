// The plugin as a new user installs it, with the REAL Claude Code binary (opt-in:
// DOTAGENT_E2E_CLAUDE=1; see harness.ts): `claude plugin marketplace add <git repository>`, then
// `claude plugin install dotagent@dotagent`. The repository is this checkout's files committed to
// a temp repository and served over HTTP (git-http-server.mjs), as GitHub would serve it. The
// installed copy under ~/.claude/plugins/cache must be small, hold no node_modules (no npm step
// ran), and work on its own: the repository and server are gone before /dotagent:develop runs,
// so every path must resolve inside the cache copy. (A directory marketplace is no test of that:
// Claude Code runs its plugins from the source folder, not from the cache.)
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  briefings,
  claudeEnv,
  developPlan,
  ENABLED,
  fetchClaude,
  ROOT,
  runClaude,
  textOf,
  transcript,
} from "./harness.js";
import { JOURNEY_MORE } from "../support/journey-tier.js";

function sizeOf(path: string): number {
  const stat = statSync(path);
  return stat.isDirectory() ? readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 0) : stat.size;
}

describe.skipIf(!ENABLED || !JOURNEY_MORE)(
  "plugin install from a marketplace, with the real binary (DOTAGENT_E2E_CLAUDE=1)",
  () => {
    let claude = "";
    let work = "";
    let home = "";
    let npmLog = "";
    let bin = "";
    let server: ChildProcess | undefined;
    let marketplaceUrl = "";
    let repoDir = "";

    /** `claude plugin …` with the isolated HOME and an `npm` on PATH that only records being run. */
    function plugin(cwd: string, ...args: string[]) {
      const env = claudeEnv(home, { PATH: `${bin}:${process.env.PATH ?? ""}` });
      return spawnSync(claude, ["plugin", ...args], { cwd, env, encoding: "utf8", timeout: 120_000, input: "" });
    }

    beforeAll(async () => {
      claude = fetchClaude();
      work = mkdtempSync(join(tmpdir(), "dotagent-plugin-e2e-"));
      home = join(work, "home");
      mkdirSync(home);
      bin = join(work, "bin");
      mkdirSync(bin);
      npmLog = join(work, "npm-was-run");
      writeFileSync(join(bin, "npm"), `#!/bin/sh\necho "$@" >> "${npmLog}"\nexit 1\n`);
      chmodSync(join(bin, "npm"), 0o755);

      // The repository as a user finds it: the package's files at the root (package.json and its
      // lock included, which must not trigger an npm step), the marketplace pointing at plugin/.
      const source = join(work, "source");
      for (const part of [".claude-plugin", "plugin", "package.json", "package-lock.json", "README.md"])
        cpSync(join(ROOT, part), join(source, part), { recursive: true });
      const git = (cwd: string, ...args: string[]) => {
        const run = spawnSync("git", ["-c", "user.name=test", "-c", "user.email=test@example.com", ...args], {
          cwd,
          encoding: "utf8",
        });
        expect(run.status, run.stderr).toBe(0);
      };
      git(source, "init", "-q");
      git(source, "add", "-A");
      git(source, "commit", "-q", "-m", "dotagent");
      repoDir = join(work, "served");
      git(work, "clone", "-q", "--bare", source, join(repoDir, "dotagent.git"));
      rmSync(source, { recursive: true, force: true });
      server = spawn(process.execPath, [join(ROOT, "test/claude/git-http-server.mjs"), repoDir], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      const [port] = (await once(server.stdout!, "data")) as [Buffer];
      marketplaceUrl = `http://127.0.0.1:${port.toString().trim()}/dotagent.git`;
    }, 600_000);

    afterAll(() => {
      server?.kill();
      if (work) rmSync(work, { recursive: true, force: true });
    });

    it("claude plugin validate accepts the lean folder", () => {
      const run = plugin(ROOT, "validate", "plugin", "--json");
      expect(run.status, `${run.stdout}${run.stderr}`).toBe(0);
      const report = JSON.parse(run.stdout) as {
        success?: boolean;
        provides?: { skills?: string[]; agents?: string[]; hooks?: Array<{ event?: string }> };
      };
      expect(report.success).toBe(true);
      expect(report.provides?.skills).toEqual(["dotagent:checkpoint", "dotagent:develop", "dotagent:status"]);
      expect(report.provides?.agents).toHaveLength(7);
      // validate lists the two Bash entries (same command, each its own `if`) as one; both run (write-guard-client.test.ts).
      expect(report.provides?.hooks?.map((h) => h.event)).toEqual([
        "SessionStart",
        "PreToolUse",
        "PreToolUse",
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "SubagentStart",
        "SubagentStop",
        "UserPromptSubmit",
      ]);
    });

    it("marketplace add + plugin install copy a few hundred KB, run no npm, and work from the cache once the repository is gone", () => {
      const added = plugin(work, "marketplace", "add", marketplaceUrl);
      expect(added.status, `${added.stdout}${added.stderr}`).toBe(0);
      const started = Date.now();
      const installed = plugin(work, "install", "dotagent@dotagent");
      const installMs = Date.now() - started;
      expect(installed.status, `${installed.stdout}${installed.stderr}`).toBe(0);

      const registry = JSON.parse(readFileSync(join(home, ".claude/plugins/installed_plugins.json"), "utf8")) as {
        plugins: Record<string, Array<{ installPath: string; version: string }>>;
      };
      const entry = registry.plugins["dotagent@dotagent"]![0]!;
      expect(entry.installPath.startsWith(join(home, ".claude/plugins/cache"))).toBe(true);
      expect(entry.version).toBe(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version);
      const bytes = sizeOf(entry.installPath);
      console.log(`plugin install: ${(bytes / 1024).toFixed(0)} KiB in ${installMs} ms`);
      expect(bytes).toBeLessThan(1024 * 1024);
      expect(existsSync(join(entry.installPath, "node_modules"))).toBe(false);
      expect(existsSync(join(entry.installPath, "package.json"))).toBe(false);
      expect(existsSync(npmLog), existsSync(npmLog) ? readFileSync(npmLog, "utf8") : "").toBe(false);
      // Claude Code adds a hidden `.in_use` marker of its own.
      expect(
        readdirSync(entry.installPath)
          .filter((n) => n !== ".in_use")
          .sort(),
      ).toEqual([".claude-plugin", "README.md", "agents", "hooks", "skills"]);

      // The repository goes away: what runs now can only be the cache copy.
      server?.kill();
      rmSync(repoDir, { recursive: true, force: true });
      const project = join(work, "project");
      mkdirSync(project);
      const init = spawnSync(
        process.execPath,
        [join(entry.installPath, "skills/checkpoint/scripts/dotagent.mjs"), "init", "--request", "add login", "--json"],
        { cwd: project, encoding: "utf8" },
      );
      expect(init.status, init.stderr).toBe(0);
      const workflow = (JSON.parse(init.stdout) as { workflow_id: string }).workflow_id;

      const first = runClaude(claude, home, project, ["-p", "/dotagent:develop add login"]);
      const lines = transcript(home, project, first.result.session_id!);
      const plan = developPlan(lines);
      expect(plan).toMatchObject({ workflow_id: workflow, next: { action: "spawn_agent", agent: "pm" } });
      expect(
        lines.some((l) =>
          textOf(l).startsWith(`Base directory for this skill: ${join(entry.installPath, "skills", "develop")}`),
        ),
      ).toBe(true);
      expect(briefings(lines)).toHaveLength(1); // the startup hook, from the cache copy

      runClaude(claude, home, project, ["-p", "--resume", first.result.session_id!, "continue"]);
      const resumed = transcript(home, project, first.result.session_id!);
      const hook = resumed.find(
        (l) => l.attachment?.type === "hook_success" && l.attachment.hookName === "SessionStart:resume",
      );
      expect(hook?.attachment?.exitCode).toBe(0);
      const briefing = briefings(resumed);
      expect(briefing.at(-1)).toContain(`workflow ${workflow} is open (this session was resumed)`);

      // doctor, run from the cache copy, finds the plugin install.
      const doctor = spawnSync(
        process.execPath,
        [join(entry.installPath, "skills/checkpoint/scripts/dotagent.mjs"), "doctor", "--json"],
        { cwd: project, encoding: "utf8", env: { ...process.env, HOME: home, CLAUDE_CONFIG_DIR: "" } },
      );
      const checks = (JSON.parse(doctor.stdout) as { checks: Array<{ name: string; status: string; message: string }> })
        .checks;
      expect(checks.find((c) => c.name === "install")).toMatchObject({
        status: "ok",
        message: expect.stringContaining("plugin dotagent@dotagent"),
      });
      expect(checks.find((c) => c.name === "helper")?.status).toBe("ok");
    });
  },
);
