import { describe, expect, it } from "vitest";
import { commitPaths, installClosing, type InstallDone } from "./next-steps.js";

const claude = (changes: InstallDone["changes"], extra: Partial<InstallDone> = {}): InstallDone => ({
  client: "claude",
  scope: "project",
  root: "/p",
  target: "/p/.claude",
  changes,
  gitignore: "lines added",
  ...extra,
});
const created = (...paths: string[]) => paths.map((path) => ({ action: "create" as const, path }));

describe("commitPaths", () => {
  it.each<[string, InstallDone, string[]]>([
    [
      "a fresh Claude Code install",
      claude(
        created(
          "skills/a/SKILL.md",
          "skills/b/SKILL.md",
          "agents/pm.md",
          "agents/qa.md",
          "settings.json",
          "../.gitignore",
        ),
      ),
      [".claude/skills", ".claude/agents", ".claude/settings.json", ".claude/.dotagent-install.json", ".gitignore"],
    ],
    [
      "a folder with one file of the install stays that file",
      {
        ...claude(created("hooks/dotagent.json", "skills/a/SKILL.md", "skills/b/SKILL.md")),
        client: "copilot",
        target: "/p/.github",
      },
      [".github/hooks/dotagent.json", ".github/skills", ".github/.dotagent-copilot-install.json"],
    ],
    [
      "a file left alone is not the install's",
      claude([
        { action: "skip", path: "agents/pm.md", reason: "not dotagent's" },
        ...created("agents/qa.md", "settings.json"),
      ]),
      [".claude/agents/qa.md", ".claude/settings.json", ".claude/.dotagent-install.json"],
    ],
    [
      "a removed file is committed too",
      claude([
        { action: "remove", path: "skills/old/x.md" },
        { action: "unchanged", path: "skills/a/SKILL.md" },
      ]),
      [".claude/skills", ".claude/.dotagent-install.json"],
    ],
    [
      "codex: paths from the project root",
      {
        client: "codex",
        scope: "project",
        root: "/p",
        target: "/p",
        changes: created(
          ".agents/skills/a/SKILL.md",
          ".agents/skills/b/SKILL.md",
          ".codex/agents/pm.toml",
          ".codex/agents/qa.toml",
          ".codex/hooks.json",
          ".gitignore",
        ),
        gitignore: "lines added",
      },
      [".agents/skills", ".codex/agents", ".codex/hooks.json", ".codex/.dotagent-install.json", ".gitignore"],
    ],
    [
      "a user install: nothing to commit",
      claude(created("skills/a/SKILL.md"), { scope: "user", target: "/h/.claude" }),
      [],
    ],
  ])("%s", (_name, done, paths) => {
    expect(commitPaths(done)).toEqual(paths);
  });
});

describe("installClosing", () => {
  const done = claude(created("agents/pm.md", "agents/qa.md", "settings.json", "../.gitignore"));
  it.each<[string, readonly string[] | null, string, string[]]>([
    [
      "not a git repository",
      null,
      "/p",
      [
        "Next: run `claude` here, answer yes when it asks whether you trust the folder, and type /develop <what to build>.",
      ],
    ],
    [
      "all committed",
      [],
      "/p",
      [
        "Next: run `claude` here, answer yes when it asks whether you trust the folder, and type /develop <what to build>.",
      ],
    ],
    [
      "to commit, from the project",
      [".claude/agents", ".gitignore"],
      "/p",
      [
        "Next: commit what install wrote, so the repository carries it:",
        "  git add .claude/agents .gitignore && git commit -m 'Add dotagent for Claude Code' -- .claude/agents .gitignore",
        "Then run `claude` here, answer yes when it asks whether you trust the folder, and type /develop <what to build>.",
      ],
    ],
  ])("%s", (_name, pending, cwd, next) => {
    expect(installClosing(done, pending, cwd)).toEqual([
      "Installed for Claude Code: the /develop command, 2 agents and the hooks; .gitignore keeps memory/'s machine-local files out of git.",
      ...next,
    ]);
  });

  it("a project path with a space or a quote is quoted for the shell", () => {
    const lines = installClosing({ ...done, root: "/my p's", target: "/my p's/.claude" }, [".gitignore"], "/elsewhere");
    expect(lines[2]).toBe(
      `  git -C '/my p'\\''s' add .gitignore && git -C '/my p'\\''s' commit -m 'Add dotagent for Claude Code' -- .gitignore`,
    );
    expect(lines[3]).toContain("run `claude` in /my p's,");
  });
});
