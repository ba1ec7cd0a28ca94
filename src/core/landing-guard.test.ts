import { describe, expect, it } from "vitest";
import {
  GIT_SAFETY_CONFIG,
  guardedPaths,
  hooksFolderIn,
  isGuarded,
  judgeSweptFolder,
  judgeWorktreeGit,
  type WorktreeGitFacts,
} from "./landing-guard.js";

const base: WorktreeGitFacts = {
  worktree: "/p/.dotagent/worktrees/t1",
  adminRoot: "/p/.git/worktrees",
  kind: "file",
  named: "/p/.git/worktrees/t1",
  pointsBack: "/p/.dotagent/worktrees/t1/.git",
  commonMatches: true,
};

describe("judgeWorktreeGit: a worktree's .git is trusted only when git made it for this repository", () => {
  it.each<[string, Partial<WorktreeGitFacts>, boolean | RegExp]>([
    ["as git made it", {}, true],
    ["no .git", { kind: "missing", named: undefined }, /no \.git file/],
    ["a folder or a link", { kind: "other", named: undefined }, /not the file git writes/],
    ["no gitdir: line", { named: undefined }, /no gitdir: line/],
    [
      "gitdir: .cache/g (a folder the executor wrote)",
      { named: "/p/.dotagent/worktrees/t1/.cache/g" },
      /names .*\.cache\/g, not a folder in this repository's/,
    ],
    [
      "another repository's worktree folder",
      { named: "/other/.git/worktrees/t1" },
      /not a folder in this repository's/,
    ],
    ["the admin folder itself", { named: "/p/.git" }, /not a folder in this repository's/],
    ["a folder two levels down", { named: "/p/.git/worktrees/t1/x" }, /not a folder in this repository's/],
    [
      "the admin folder names another worktree back",
      { pointsBack: "/p/.dotagent/worktrees/t2/.git" },
      /does not name this worktree back/,
    ],
    ["no gitdir file in the admin folder", { pointsBack: undefined }, /does not name this worktree back/],
    ["commondir elsewhere", { commonMatches: false }, /commondir is not this repository's/],
  ])("%s", (_, change, expected) => {
    const verdict = judgeWorktreeGit({ ...base, ...change });
    if (expected === true) expect(verdict).toEqual({ ok: true, gitDir: "/p/.git/worktrees/t1" });
    else expect(verdict.ok ? "" : verdict.reason).toMatch(expected as RegExp);
  });
});

describe("hooksFolderIn: the hooks folder when it lies in the repository", () => {
  it.each<[string | undefined, string | undefined]>([
    [undefined, undefined],
    ["", undefined],
    [".githooks", ".githooks"],
    [".husky/_", ".husky/_"],
    ["./tools/hooks/", "tools/hooks"],
    ["/repo/.githooks", ".githooks"],
    ["/elsewhere/hooks", undefined],
    ["../hooks", undefined],
    [".git/hooks", undefined],
    ["sub/../.githooks", ".githooks"],
  ])("%s → %s", (hooksPath, folder) => expect(hooksFolderIn(hooksPath, "/repo")).toBe(folder));
});

describe("guardedPaths and isGuarded: what a landing never merges", () => {
  it("the session's folders in every client, dotagent's memory/ and .dotagent/, .husky/, .gitmodules; the hooks folder and husky's parent", () => {
    expect(guardedPaths("", undefined)).toEqual([
      "memory",
      ".dotagent",
      ".claude",
      ".github/hooks",
      ".github/skills",
      ".github/agents",
      ".codex",
      ".agents",
      ".husky",
      ".gitmodules",
    ]);
    expect(guardedPaths("app/", ".husky/_")).toEqual([
      "app/memory",
      "app/.dotagent",
      "app/.claude",
      ".claude",
      "app/.github/hooks",
      ".github/hooks",
      "app/.github/skills",
      ".github/skills",
      "app/.github/agents",
      ".github/agents",
      "app/.codex",
      ".codex",
      "app/.agents",
      ".agents",
      ".husky",
      ".gitmodules",
      ".husky/_",
    ]);
    expect(guardedPaths("", "tools/githooks")).toContain("tools/githooks");
    expect(guardedPaths("", "tools/_")).toEqual(expect.arrayContaining(["tools/_", "tools"]));
  });
  it.each<[string, boolean]>([
    [".claude/settings.json", true],
    [".Claude/settings.json", true],
    [".claude", true],
    [".claudex/x", false],
    [".github/hooks/dotagent.json", true],
    [".github/skills/checkpoint/scripts/dotagent.mjs", true],
    [".github/agents/executor.agent.md", true],
    [".github/workflows/ci.yml", false],
    [".github/copilot-instructions.md", false],
    [".codex/config.toml", true],
    [".codex/hooks.json", true],
    [".codex/agents/qa.toml", true],
    [".agents/skills/checkpoint/scripts/dotagent.mjs", true],
    [".agentsx/a", false],
    ["memory/state/phase.json", true],
    [".dotagent/worktrees/x/a", true],
    [".husky/post-merge", true],
    [".gitmodules", true],
    [".gitattributes", false],
    ["src/.claude.ts", false],
  ])("%s → %s", (path, guarded) => expect(isGuarded(path, guardedPaths("", ".githooks"))).toBe(guarded));
});

describe("judgeSweptFolder: the sweep removes only what dotagent made", () => {
  it.each<[string, Parameters<typeof judgeSweptFolder>[0], "remove" | RegExp]>([
    [
      "an empty folder (a start cut off before git worktree add)",
      { empty: true, registered: false, dotagents: false },
      "remove",
    ],
    [
      "a person's folder, or another repository's worktree",
      { empty: false, registered: false, dotagents: false },
      /not a worktree of this repository/,
    ],
    [
      "a worktree of this repository without dotagent's lock or record",
      { empty: false, registered: true, dotagents: false, gitFile: { ok: true, gitDir: "/g" } },
      /dotagent did not make/,
    ],
    [
      "dotagent's worktree whose .git was rewritten",
      { empty: false, registered: true, dotagents: true, gitFile: { ok: false, reason: "its .git file names /x" } },
      /not the one git made for it \(its \.git file names \/x\)/,
    ],
    [
      "dotagent's worktree as git made it",
      { empty: false, registered: true, dotagents: true, gitFile: { ok: true, gitDir: "/g" } },
      "remove",
    ],
  ])("%s", (_, folder, expected) => {
    const verdict = judgeSweptFolder(folder);
    if (expected === "remove") expect(verdict).toEqual({ action: "remove" });
    else expect(verdict.action === "keep" ? verdict.reason : "").toMatch(expected);
  });
});

it("GIT_SAFETY_CONFIG turns hooks, fsmonitor and submodule recursion off", () => {
  expect(Object.fromEntries(GIT_SAFETY_CONFIG)).toMatchObject({
    "core.hooksPath": "/dev/null",
    "core.fsmonitor": "false",
    "submodule.recurse": "false",
  });
});
