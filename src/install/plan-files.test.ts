import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sha256 } from "../claude/install-paths.js";
import {
  applyFilePlan,
  applyGitignore,
  planFolderRemoval,
  planGitignoreMerge,
  planGitignoreUnmerge,
  planInstallFiles,
  planUninstallFiles,
  removeEmptyFolders,
  type OwnedFile,
  type SourceFile,
} from "./plan-files.js";

const COMMAND = "dotagent install --client test";
let root: string;
let target: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "dotagent-plan-files-"));
  target = join(root, "target");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const source = (dest: string, text: string, mode?: number): SourceFile => ({
  dest,
  bytes: Buffer.from(text),
  ...(mode === undefined ? {} : { mode }),
});
const SOURCES = [
  source("skills/a/SKILL.md", "a\n"),
  source("skills/a/run.mjs", "run\n", 0o755),
  source("agents/pm.md", "pm\n"),
];
const actions = (changes: Array<{ action: string; path: string }>) =>
  Object.fromEntries(changes.map((c) => [c.path, c.action]));
const put = (rel: string, text: string) => {
  mkdirSync(join(target, rel, ".."), { recursive: true });
  writeFileSync(join(target, rel), text);
};
const tree = (dir: string): Record<string, string> =>
  existsSync(dir)
    ? Object.fromEntries(
        readdirSync(dir, { recursive: true, encoding: "utf8" })
          .filter((p) => statSync(join(dir, p)).isFile())
          .sort()
          .map((p) => [p, readFileSync(join(dir, p), "utf8")]),
      )
    : {};
/** Installs the sources, as a client would: plan, apply, record the owned files. */
function install(sources: readonly SourceFile[], owned: readonly OwnedFile[] = []) {
  const plan = planInstallFiles(target, sources, owned, COMMAND);
  const created = applyFilePlan(target, plan);
  return { plan, created };
}

describe("planInstallFiles", () => {
  it("creates every file, with its mode, and owns them; the folders it made are named", () => {
    const { plan, created } = install(SOURCES);
    expect(actions(plan.changes)).toEqual({
      "skills/a/SKILL.md": "create",
      "skills/a/run.mjs": "create",
      "agents/pm.md": "create",
    });
    expect(plan.owned.map((f) => f.path)).toEqual(["agents/pm.md", "skills/a/run.mjs", "skills/a/SKILL.md"]);
    expect(statSync(join(target, "skills/a/run.mjs")).mode & 0o777).toBe(0o755);
    expect(created.sort()).toEqual(["agents", "skills", "skills/a"]);
  });

  it("twice changes nothing: every file unchanged, nothing to write, the same owned list", () => {
    const first = install(SOURCES).plan;
    const before = tree(target);
    const again = planInstallFiles(target, SOURCES, first.owned, COMMAND);
    expect(new Set(again.changes.map((c) => c.action))).toEqual(new Set(["unchanged"]));
    expect(again.writes).toEqual([]);
    expect(again.removals).toEqual([]);
    expect(again.owned).toEqual(first.owned);
    expect(tree(target)).toEqual(before);
  });

  it("planning writes nothing (a dry run shows the plan only)", () => {
    const plan = planInstallFiles(target, SOURCES, [], COMMAND);
    expect(plan.writes).toHaveLength(3);
    expect(existsSync(target)).toBe(false);
  });

  it("a file already there that dotagent did not write is skipped and not owned; one with dotagent's bytes is unchanged and owned", () => {
    put("agents/pm.md", "the person's pm\n");
    put("skills/a/SKILL.md", "a\n");
    const { plan } = install(SOURCES);
    expect(plan.changes).toContainEqual({
      action: "skip",
      path: "agents/pm.md",
      reason: "exists and was not installed by dotagent: left alone",
    });
    expect(actions(plan.changes)["skills/a/SKILL.md"]).toBe("unchanged");
    expect(plan.owned.map((f) => f.path)).not.toContain("agents/pm.md");
    expect(plan.owned.map((f) => f.path)).toContain("skills/a/SKILL.md");
    expect(readFileSync(join(target, "agents/pm.md"), "utf8")).toBe("the person's pm\n");
  });

  it("an upgrade updates what nobody changed and keeps an edited file, owned with its old hash", () => {
    const first = install(SOURCES).plan;
    put("agents/pm.md", "edited\n");
    const next = [source("skills/a/SKILL.md", "a v2\n"), SOURCES[1]!, source("agents/pm.md", "pm v2\n")];
    const { plan } = install(next, first.owned);
    expect(actions(plan.changes)).toMatchObject({ "skills/a/SKILL.md": "update", "agents/pm.md": "keep" });
    expect(plan.changes.find((c) => c.path === "agents/pm.md")?.reason).toBe(
      `edited since dotagent installed it: kept; to take this version's copy, move yours away and run \`${COMMAND}\` again`,
    );
    expect(plan.owned.find((f) => f.path === "agents/pm.md")?.sha256).toBe(sha256("pm\n"));
    expect(readFileSync(join(target, "skills/a/SKILL.md"), "utf8")).toBe("a v2\n");
    expect(readFileSync(join(target, "agents/pm.md"), "utf8")).toBe("edited\n");
  });

  it("a file no longer shipped is removed when unchanged, kept when edited, forgotten when gone", () => {
    const extra = [
      ...SOURCES,
      source("skills/old.md", "old\n"),
      source("skills/edited.md", "mine\n"),
      source("skills/gone.md", "gone\n"),
    ];
    const first = install(extra).plan;
    put("skills/edited.md", "edited\n");
    rmSync(join(target, "skills/gone.md"));
    const { plan } = install(SOURCES, first.owned);
    expect(plan.changes).toContainEqual({
      action: "remove",
      path: "skills/old.md",
      reason: "no longer part of dotagent",
    });
    expect(plan.changes).toContainEqual({
      action: "keep",
      path: "skills/edited.md",
      reason: "no longer part of dotagent, but edited since it was installed: kept",
    });
    expect(existsSync(join(target, "skills/old.md"))).toBe(false);
    expect(readFileSync(join(target, "skills/edited.md"), "utf8")).toBe("edited\n");
    expect(plan.owned.map((f) => f.path)).toEqual([
      "agents/pm.md",
      "skills/a/run.mjs",
      "skills/a/SKILL.md",
      "skills/edited.md",
    ]);
  });

  it("hostile: a shipped path inside a link that leads out is skipped, nothing written through it", () => {
    const outside = join(root, "outside");
    mkdirSync(outside);
    mkdirSync(target);
    symlinkSync(outside, join(target, "skills"));
    const { plan } = install(SOURCES);
    expect(plan.changes).toContainEqual({
      action: "skip",
      path: "skills/a/SKILL.md",
      reason: "is inside skills, a link that leads out of the install folder: left alone",
    });
    expect(readdirSync(outside)).toEqual([]);
  });

  it("hostile: an owned entry behind a link that leads out is reported and never removed", () => {
    const outside = join(root, "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "victim.md"), "victim\n");
    mkdirSync(target);
    symlinkSync(outside, join(target, "evil"));
    const owned = [{ path: "evil/victim.md", sha256: sha256("victim\n") }];
    const { plan } = install(SOURCES, owned);
    expect(plan.changes).toContainEqual({
      action: "skip",
      path: "evil/victim.md",
      reason: "is inside evil, a link that leads out of the install folder: left alone",
    });
    const removed = planUninstallFiles(target, owned);
    expect(removed.changes).toEqual([
      {
        action: "skip",
        path: "evil/victim.md",
        reason: "is inside evil, a link that leads out of the install folder: left alone",
      },
    ]);
    applyFilePlan(target, removed);
    expect(readFileSync(join(outside, "victim.md"), "utf8")).toBe("victim\n");
  });
});

describe("planUninstallFiles", () => {
  it("removes only the owned files nobody changed; edited ones kept, missing ones passed over", () => {
    const { plan } = install(SOURCES);
    put("agents/pm.md", "edited\n");
    rmSync(join(target, "skills/a/run.mjs"));
    put("mine.md", "the person's\n");
    const removal = planUninstallFiles(target, plan.owned);
    expect(removal.changes).toEqual([
      { action: "keep", path: "agents/pm.md", reason: "edited since dotagent installed it: left alone" },
      { action: "remove", path: "skills/a/SKILL.md" },
    ]);
    expect(existsSync(join(target, "skills/a/SKILL.md"))).toBe(true);
    applyFilePlan(target, removal);
    expect(tree(target)).toEqual({ "agents/pm.md": "edited\n", "mine.md": "the person's\n" });
  });
});

describe("folder clean-up", () => {
  it("removes the folders it created deepest first, only when empty; a folder entry leading out is reported", () => {
    const { created } = install(SOURCES);
    rmSync(join(target, "skills/a/SKILL.md"));
    rmSync(join(target, "skills/a/run.mjs"));
    mkdirSync(join(root, "outside"));
    symlinkSync(join(root, "outside"), join(target, "evil"));
    const plan = planFolderRemoval(target, [...created, "evil/sub"]);
    expect(plan.changes).toEqual([
      {
        action: "skip",
        path: "evil/sub",
        reason: "is inside evil, a link that leads out of the install folder: left alone",
      },
    ]);
    removeEmptyFolders(plan.folders);
    expect(existsSync(join(target, "skills"))).toBe(false);
    expect(existsSync(join(target, "agents/pm.md"))).toBe(true);
  });
});

describe("the .gitignore plan", () => {
  it("merges dotagent's lines after the person's, once; unmerge gives the person's text back", () => {
    const file = join(root, ".gitignore");
    writeFileSync(file, "node_modules/\n");
    const merge = planGitignoreMerge(target, file, null, COMMAND);
    expect(merge).toMatchObject({
      outcome: "lines added",
      change: { action: "update", path: "../.gitignore" },
      owned: { created: false },
    });
    expect(readFileSync(file, "utf8")).toBe("node_modules/\n");
    applyGitignore(file, merge);
    const again = planGitignoreMerge(target, file, merge.owned, COMMAND);
    expect(again).toMatchObject({
      outcome: "lines already there",
      change: { action: "unchanged" },
      text: undefined,
      owned: merge.owned,
    });
    const unmerge = planGitignoreUnmerge(target, file, merge.owned, COMMAND);
    expect(unmerge).toMatchObject({ outcome: "lines removed", change: { action: "update", path: "../.gitignore" } });
    applyGitignore(file, unmerge);
    expect(readFileSync(file, "utf8")).toBe("node_modules/\n");
  });

  it("a .gitignore install created goes again on uninstall; no recorded lines: untouched", () => {
    const file = join(root, ".gitignore");
    const merge = planGitignoreMerge(target, file, null, COMMAND);
    expect(merge).toMatchObject({ change: { action: "create" }, owned: { created: true } });
    applyGitignore(file, merge);
    expect(planGitignoreUnmerge(target, file, null, COMMAND)).toMatchObject({ outcome: "untouched", change: null });
    const unmerge = planGitignoreUnmerge(target, file, merge.owned, COMMAND);
    expect(unmerge).toMatchObject({ change: { action: "remove" }, text: null });
    applyGitignore(file, unmerge);
    expect(existsSync(file)).toBe(false);
  });

  it("a .gitignore that is a folder is refused, naming the command to run again", () => {
    mkdirSync(join(root, ".gitignore"));
    expect(() => planGitignoreMerge(target, join(root, ".gitignore"), null, COMMAND)).toThrow(
      /dotagent install --client test/,
    );
  });
});
