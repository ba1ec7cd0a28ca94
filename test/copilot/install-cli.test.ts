// `dotagent install --client …` and `dotagent doctor --client copilot` as a person runs them (the
// built CLI): the options, the exit codes, the JSON, the round trip install → uninstall, and the
// lines every client's install ends with (the git line pasted into a shell as printed).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { dotagent, removeTemps, tempProject } from "../support/cli.js";

afterEach(removeTemps);

describe("install --client", () => {
  it("an unknown client, or copilot with --scope user: usage errors (exit 2), nothing written", () => {
    const p = tempProject();
    expect(dotagent(p, ["install", "--client", "codexx"]).code).toBe(2);
    expect(dotagent(p, ["install", "--client", "copilot", "--scope", "user"]).code).toBe(2);
    expect(existsSync(join(p, ".github"))).toBe(false);
    expect(existsSync(join(p, ".claude"))).toBe(false);
  });

  it("copilot: --json result, a second run changes nothing, --uninstall takes it all out again", () => {
    const p = tempProject();
    const first = dotagent(p, ["install", "--client", "copilot", "--json"]);
    expect(first.code).toBe(0);
    expect(first.json).toMatchObject({
      client: "copilot",
      scope: "project",
      target: join(p, ".github"),
      dry_run: false,
      hooks: "added",
    });
    expect(existsSync(join(p, "memory/reports/tasks"))).toBe(true);
    expect(existsSync(join(p, ".claude"))).toBe(false);
    const again = dotagent(p, ["install", "--client", "copilot", "--json"]).json as {
      changes: Array<{ action: string }>;
      hooks: string;
    };
    expect(again.changes.every((c) => c.action === "unchanged")).toBe(true);
    expect(again.hooks).toBe("already there");
    const removed = dotagent(p, ["install", "--client", "copilot", "--uninstall", "--json"]);
    expect(removed.code).toBe(0);
    expect(removed.json).toMatchObject({ hooks: "removed", gitignore: "lines removed" });
    expect(existsSync(join(p, ".github"))).toBe(false);
    expect(dotagent(p, ["install", "--client", "copilot", "--uninstall"]).code).toBe(1);
  });
});

describe("doctor --client copilot", () => {
  it("not installed: fails (exit 1) with the install command", () => {
    const p = tempProject();
    const r = dotagent(p, ["doctor", "--client", "copilot", "--json"], { env: { HOME: join(p, "home") } });
    expect(r.code).toBe(1);
    expect(
      (r.json as { checks: Array<{ name: string; status: string; fix: string }> }).checks.find(
        (c) => c.name === "install",
      ),
    ).toMatchObject({ status: "fail", fix: "run `dotagent install --client copilot` in the project" });
  });

  it("installed, folder untrusted: a failure (exit 1) saying no hook would run and how to trust it; trusted: all good", () => {
    const p = tempProject();
    const home = join(p, "home");
    expect(dotagent(p, ["install", "--client", "copilot"], { env: { HOME: home } }).code).toBe(0);
    const untrusted = dotagent(p, ["doctor", "--client", "copilot", "--json"], { env: { HOME: home } });
    expect(untrusted.code).toBe(1);
    const trust = (r: typeof untrusted) =>
      (r.json as { checks: Array<{ name: string; status: string }> }).checks.find((c) => c.name === "trust")?.status;
    expect(trust(untrusted)).toBe("fail");
    expect(dotagent(p, ["doctor", "--client", "copilot"], { env: { HOME: home } }).stdout).toContain(
      `✗ trust    Copilot CLI does not trust ${p} (not among the trusted folders in ${join(home, ".copilot", "config.json")}): it runs none of the repository's hooks there, so dotagent records nothing — fix: run \`copilot\` in ${p} and answer yes when it asks whether you trust the folder`,
    );
    mkdirSync(join(home, ".copilot"), { recursive: true });
    writeFileSync(
      join(home, ".copilot", "config.json"),
      `// User settings belong in settings.json.\n// This file is managed automatically.\n${JSON.stringify({ trustedFolders: [p] })}\n`,
    );
    const trusted = dotagent(p, ["doctor", "--client", "copilot", "--json"], { env: { HOME: home } });
    expect(trust(trusted)).toBe("ok");
    expect((trusted.json as { checks: Array<{ status: string }> }).checks.every((c) => c.status === "ok")).toBe(true);
    expect(trusted.code).toBe(0);
  });
});

describe("install's last lines: what was done, what to commit, the first command (issue 42)", () => {
  const git = (cwd: string, ...args: string[]) =>
    spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, encoding: "utf8" });
  const CASES = [
    {
      client: "claude",
      args: [],
      paths: [
        ".claude/skills",
        ".claude/agents",
        ".claude/settings.json",
        ".claude/.dotagent-install.json",
        ".gitignore",
      ],
      done: "Installed for Claude Code: the /develop command, 7 agents and the hooks; .gitignore keeps memory/'s machine-local files out of git.",
      open: "run `claude` here, answer yes when it asks whether you trust the folder, and type /develop <what to build>.",
    },
    {
      client: "copilot",
      args: ["--client", "copilot"],
      paths: [
        ".github/skills",
        ".github/agents",
        ".github/hooks/dotagent.json",
        ".github/.dotagent-copilot-install.json",
        ".gitignore",
      ],
      done: "Installed for Copilot CLI: the /develop command, 7 agents and the hooks; .gitignore keeps memory/'s machine-local files out of git.",
      open: "run `copilot` here, answer yes when it asks whether you trust the folder, and type /develop <what to build>.",
    },
    {
      client: "codex",
      args: ["--client", "codex"],
      paths: [".agents/skills", ".codex/agents", ".codex/hooks.json", ".codex/.dotagent-install.json", ".gitignore"],
      done: "Installed for Codex CLI: the $develop command, 7 agents and the hooks; .gitignore keeps memory/'s machine-local files out of git.",
      open: 'run `codex` here, answer yes when it asks whether you trust the folder and choose "Trust all and continue" for its hooks, and type $develop <what to build>.',
    },
  ];

  it.each(CASES)(
    "$client: plain words, the exact paths it wrote, a git line that commits them as printed (and only them), then the client",
    ({ client, args, paths, done, open }) => {
      const p = tempProject();
      const home = join(p, "home");
      expect(git(p, "init", "-q").status).toBe(0);
      writeFileSync(join(p, ".git", "info", "exclude"), "home/\n");
      writeFileSync(join(p, "notes.txt"), "the person's own work, staged\n");
      expect(git(p, "add", "notes.txt").status).toBe(0);
      const run = dotagent(p, ["install", ...args], { env: { HOME: home } });
      expect(run.code).toBe(0);
      const lines = run.stdout.trim().split("\n");
      const command = `git add ${paths.join(" ")} && git commit -m 'Add dotagent for ${done.slice("Installed for ".length, done.indexOf(":"))}' -- ${paths.join(" ")}`;
      expect(lines.slice(-4)).toEqual([
        done,
        "Next: commit what install wrote, so the repository carries it:",
        `  ${command}`,
        `Then ${open}`,
      ]);
      expect(run.stdout).not.toMatch(/helper permission|Hooks?: (hook )?added/);
      // Pasted into a shell as printed: everything install wrote is committed, the person's staged file is not.
      const pasted = spawnSync("sh", ["-c", lines.at(-2)!.trim()], {
        cwd: p,
        encoding: "utf8",
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: "t",
          GIT_AUTHOR_EMAIL: "t@t",
          GIT_COMMITTER_NAME: "t",
          GIT_COMMITTER_EMAIL: "t@t",
        },
      });
      expect(pasted.status, pasted.stderr).toBe(0);
      expect(git(p, "status", "--porcelain").stdout).toBe("A  notes.txt\n");
      // Installed again: nothing left to commit, so no git line.
      const again = dotagent(p, ["install", ...args], { env: { HOME: home } })
        .stdout.trim()
        .split("\n");
      expect(again.slice(-2)).toEqual([done, `Next: ${open}`]);
      // --json: the fields as before, with client and commit_paths added.
      const json = dotagent(p, ["install", ...args, "--json"], { env: { HOME: home } }).json as Record<string, unknown>;
      expect(json).toMatchObject({ client, dry_run: false, gitignore: "lines already there", commit_paths: paths });
      expect(Object.keys(json)).toEqual(
        expect.arrayContaining(["target", "changes", client === "claude" ? "settings" : "hooks"]),
      );
    },
  );

  it("not a git repository: no commit line; a dry run and --uninstall print their plan only, with commit_paths [] in --json", () => {
    const p = tempProject();
    const home = join(p, "home");
    expect(dotagent(p, ["install", "--dry-run"], { env: { HOME: home } }).stdout).not.toContain("Installed for");
    expect(dotagent(p, ["install", "--dry-run", "--json"], { env: { HOME: home } }).json.commit_paths).toEqual([]);
    const lines = dotagent(p, ["install"], { env: { HOME: home, GIT_CEILING_DIRECTORIES: join(p, "..") } })
      .stdout.trim()
      .split("\n");
    expect(lines.at(-1)).toBe(`Next: ${CASES[0]!.open}`);
    const removed = dotagent(p, ["install", "--uninstall", "--json"], { env: { HOME: home } });
    expect([removed.code, removed.json.commit_paths]).toEqual([0, []]);
  });

  it("--dir from another folder: the git line and the first step name the project", () => {
    const p = tempProject();
    expect(git(p, "init", "-q").status).toBe(0);
    const lines = dotagent(tempProject(), ["install", "--client", "codex", "--dir", p], {
      env: { HOME: tempProject() },
    })
      .stdout.trim()
      .split("\n");
    expect(lines.at(-2)).toMatch(
      new RegExp(`^  git -C ${p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} add \\.agents/skills `),
    );
    expect(lines.at(-1)).toContain(`run \`codex\` in ${p},`);
  });

  it("--scope user: where it went, no commit line, the client in any project", () => {
    const p = tempProject();
    const config = join(p, "config");
    const lines = dotagent(p, ["install", "--scope", "user"], { env: { CLAUDE_CONFIG_DIR: config } })
      .stdout.trim()
      .split("\n");
    expect(lines.slice(-2)).toEqual([
      `Installed for Claude Code in ${config} (every project): the /develop command, 7 agents and the hooks.`,
      "Next: run `claude` in a project, answer yes when it asks whether you trust the folder, and type /develop <what to build>.",
    ]);
  });
});
