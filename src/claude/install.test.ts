import { afterEach, describe, expect, it } from "vitest";
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { hookCommand, install, uninstall, HOOK_MATCHER, PERMISSION_RULE } from "./install.js";
import { DotagentError } from "../core/errors.js";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
function temp(): string {
  const d = mkdtempSync(join(tmpdir(), "dotagent-install-"));
  dirs.push(d);
  return d;
}

/** A small source tree shaped like the package: skills/ and agents/. */
function source(): string {
  const root = temp();
  mkdirSync(join(root, "skills/checkpoint"), { recursive: true });
  mkdirSync(join(root, "skills/develop"), { recursive: true });
  mkdirSync(join(root, "agents"), { recursive: true });
  writeFileSync(join(root, "skills/checkpoint/SKILL.md"), "---\nname: checkpoint\n---\n");
  writeFileSync(join(root, "skills/develop/SKILL.md"), "---\nname: develop\n---\n");
  writeFileSync(join(root, "agents/pm.md"), "---\nname: pm\n---\n");
  return root;
}

function tree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(root, p)] = readFileSync(p, "utf8");
    }
  };
  if (existsSync(root)) walk(root);
  return out;
}

const helper = Buffer.from("#!/usr/bin/env node\n// cli\n");
const run = (target: string, src: string, dryRun = false) => install({ target, scope: "project", sourceRoot: src, helperScript: helper, dryRun, version: "1.0.0" });

describe("install", () => {
  it("installs skills, helper, agents and the hook; twice changes nothing; uninstall removes it all", () => {
    const project = temp();
    const target = join(project, ".claude");
    const src = source();
    const first = run(target, src);
    expect(first.changes.filter((c) => c.action === "create").map((c) => c.path)).toEqual([
      "skills/checkpoint/SKILL.md",
      "skills/develop/SKILL.md",
      "skills/checkpoint/scripts/dotagent.mjs",
      "agents/pm.md",
      "settings.json",
    ]);
    expect(statSync(join(target, "skills/checkpoint/scripts/dotagent.mjs")).mode & 0o111).not.toBe(0);
    const settings = JSON.parse(readFileSync(join(target, "settings.json"), "utf8"));
    expect(settings.hooks.SessionStart).toEqual([{ matcher: HOOK_MATCHER, hooks: [{ type: "command", command: hookCommand("project"), timeout: 10 }] }]);
    expect(settings.permissions).toEqual({ allow: [PERMISSION_RULE] });
    expect(first.permission).toBe("rule added");
    const after = tree(project);
    const second = run(target, src);
    expect(second.changes.every((c) => c.action === "unchanged")).toBe(true);
    expect(tree(project)).toEqual(after);
    uninstall({ target, scope: "project", dryRun: false });
    expect(tree(project)).toEqual({});
    expect(existsSync(target)).toBe(false);
  });

  it("merges into existing settings with user hooks and permissions, and uninstall gives back the original bytes", () => {
    const project = temp();
    const target = join(project, ".claude");
    mkdirSync(target);
    const original = '{\n    "permissions": {"allow": ["Bash(npm test)"]},\n    "hooks": {"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}],\n              "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard"}]}]}\n}\n';
    writeFileSync(join(target, "settings.json"), original);
    writeFileSync(join(target, "notes.md"), "mine");
    run(target, source());
    const merged = JSON.parse(readFileSync(join(target, "settings.json"), "utf8"));
    expect(merged.permissions).toEqual({ allow: ["Bash(npm test)", PERMISSION_RULE] });
    expect(merged.hooks.PreToolUse).toEqual([{ matcher: "Bash", hooks: [{ type: "command", command: "guard" }] }]);
    expect(merged.hooks.SessionStart).toHaveLength(2);
    expect(merged.hooks.SessionStart[0]).toEqual({ matcher: "startup", hooks: [{ type: "command", command: "echo hi" }] });
    uninstall({ target, scope: "project", dryRun: false });
    expect(readFileSync(join(target, "settings.json"), "utf8")).toBe(original);
    expect(tree(project)).toEqual({ ".claude/settings.json": original, ".claude/notes.md": "mine" });
  });

  it("adds the helper's permission rule once, next to the user's rules, and uninstall takes only it away", () => {
    const project = temp();
    const target = join(project, ".claude");
    mkdirSync(target);
    const settingsFile = join(target, "settings.json");
    writeFileSync(settingsFile, JSON.stringify({ permissions: { allow: [PERMISSION_RULE], deny: ["Bash(rm *)"] } }));
    const first = run(target, source());
    expect(first.permission).toBe("rule already there");
    expect(JSON.parse(readFileSync(settingsFile, "utf8")).permissions).toEqual({ allow: [PERMISSION_RULE], deny: ["Bash(rm *)"] });
    uninstall({ target, scope: "project", dryRun: false });
    // The rule was the user's before dotagent came: it stays.
    expect(JSON.parse(readFileSync(settingsFile, "utf8")).permissions).toEqual({ allow: [PERMISSION_RULE], deny: ["Bash(rm *)"] });
  });

  it("leaves a settings.json that does not parse alone and installs nothing", () => {
    const project = temp();
    const target = join(project, ".claude");
    mkdirSync(target);
    writeFileSync(join(target, "settings.json"), "{ broken");
    expect(() => run(target, source())).toThrowError(DotagentError);
    expect(tree(project)).toEqual({ ".claude/settings.json": "{ broken" });
  });

  it("never overwrites a file it did not install", () => {
    const project = temp();
    const target = join(project, ".claude");
    mkdirSync(join(target, "agents"), { recursive: true });
    writeFileSync(join(target, "agents/pm.md"), "the user's own pm agent");
    const result = run(target, source());
    expect(result.changes).toContainEqual(expect.objectContaining({ action: "skip", path: "agents/pm.md" }));
    expect(readFileSync(join(target, "agents/pm.md"), "utf8")).toBe("the user's own pm agent");
    uninstall({ target, scope: "project", dryRun: false });
    expect(readFileSync(join(target, "agents/pm.md"), "utf8")).toBe("the user's own pm agent");
  });

  it("--dry-run writes nothing", () => {
    const project = temp();
    const result = run(join(project, ".claude"), source(), true);
    expect(result.changes.some((c) => c.action === "create")).toBe(true);
    expect(tree(project)).toEqual({});
  });
});

describe("install by a newer version (upgrade)", () => {
  it("updates the files nobody changed, keeps edited ones with a note, removes unchanged files no longer shipped", () => {
    const project = temp();
    const target = join(project, ".claude");
    const src = source();
    writeFileSync(join(src, "skills/checkpoint/old-notes.md"), "v1 notes");
    writeFileSync(join(src, "skills/develop/gone.md"), "v1, edited later");
    run(target, src);
    // The user edits one installed file; the next version changes three and drops two.
    writeFileSync(join(target, "agents/pm.md"), "my own pm");
    writeFileSync(join(target, "skills/develop/gone.md"), "mine now");
    writeFileSync(join(src, "skills/checkpoint/SKILL.md"), "---\nname: checkpoint\n---\nv2\n");
    writeFileSync(join(src, "agents/pm.md"), "---\nname: pm\n---\nv2\n");
    rmSync(join(src, "skills/checkpoint/old-notes.md"));
    rmSync(join(src, "skills/develop/gone.md"));
    const v2helper = Buffer.from("#!/usr/bin/env node\n// dotagent 2.0.0\n");
    const upgrade = install({ target, scope: "project", sourceRoot: src, helperScript: v2helper, dryRun: false, version: "2.0.0" });
    const by = (action: string) => upgrade.changes.filter((c) => c.action === action).map((c) => c.path).sort();
    expect(by("update")).toEqual(["skills/checkpoint/SKILL.md", "skills/checkpoint/scripts/dotagent.mjs"]);
    expect(by("keep")).toEqual(["agents/pm.md", "skills/develop/gone.md"]);
    expect(upgrade.changes.find((c) => c.path === "agents/pm.md")?.reason).toContain("edited since dotagent installed it");
    expect(by("remove")).toEqual(["skills/checkpoint/old-notes.md"]);
    expect(readFileSync(join(target, "skills/checkpoint/SKILL.md"), "utf8")).toContain("v2");
    expect(readFileSync(join(target, "skills/checkpoint/scripts/dotagent.mjs"))).toEqual(v2helper);
    expect(readFileSync(join(target, "agents/pm.md"), "utf8")).toBe("my own pm");
    expect(existsSync(join(target, "skills/checkpoint/old-notes.md"))).toBe(false);
    const manifest = JSON.parse(readFileSync(join(target, ".dotagent-install.json"), "utf8"));
    expect(manifest.dotagent_version).toBe("2.0.0");
    // Uninstall still removes what dotagent owns and keeps what the user changed.
    uninstall({ target, scope: "project", dryRun: false });
    expect(tree(project)).toEqual({ ".claude/agents/pm.md": "my own pm", ".claude/skills/develop/gone.md": "mine now" });
  });

  it("replaces an older version's hook line instead of adding a second one", () => {
    const project = temp();
    const target = join(project, ".claude");
    run(target, source());
    const oldCommand = 'node "$CLAUDE_PROJECT_DIR/.claude/old/dotagent.mjs" hook session-start';
    const settingsFile = join(target, "settings.json");
    const before = JSON.parse(readFileSync(settingsFile, "utf8"));
    before.hooks.SessionStart[0].hooks[0].command = oldCommand;
    writeFileSync(settingsFile, JSON.stringify(before));
    const manifestFile = join(target, ".dotagent-install.json");
    writeFileSync(manifestFile, JSON.stringify({ ...JSON.parse(readFileSync(manifestFile, "utf8")), hook_command: oldCommand }));
    const result = run(target, source());
    expect(result.settings).toBe("hook updated");
    const settings = JSON.parse(readFileSync(settingsFile, "utf8"));
    expect(settings.hooks.SessionStart).toEqual([{ matcher: HOOK_MATCHER, hooks: [{ type: "command", command: hookCommand("project"), timeout: 10 }] }]);
    expect(run(target, source()).changes.every((c) => c.action === "unchanged")).toBe(true);
  });
});

describe("the project's .gitignore (memory/'s machine-local files)", () => {
  const withGitignore = (project: string, src: string, dryRun = false) => install({ target: join(project, ".claude"), scope: "project", sourceRoot: src, helperScript: helper, dryRun, version: "1.0.0", gitignore: join(project, ".gitignore") });

  it("merges its lines into an existing .gitignore; twice changes nothing; uninstall leaves the person's lines byte for byte", () => {
    const project = temp();
    const src = source();
    const mine = "node_modules/\n# build output\ndist/\n";
    writeFileSync(join(project, ".gitignore"), mine);
    const first = withGitignore(project, src);
    expect(first.gitignore).toBe("lines added");
    expect(first.changes).toContainEqual({ action: "update", path: "../.gitignore" });
    const text = readFileSync(join(project, ".gitignore"), "utf8");
    expect(text.startsWith(`${mine}\n# dotagent:`)).toBe(true);
    for (const line of ["/memory/runs/", "/memory/state/.history/", "/memory/state/.archive/", "/memory/state/once/", "/memory/state/.lock*"]) expect(text.split("\n")).toContain(line);
    const second = withGitignore(project, src);
    expect(second.gitignore).toBe("lines already there");
    expect(second.changes.every((c) => c.action === "unchanged")).toBe(true);
    expect(readFileSync(join(project, ".gitignore"), "utf8")).toBe(text);
    const removed = uninstall({ target: join(project, ".claude"), scope: "project", dryRun: false });
    expect(removed.gitignore).toBe("lines removed");
    expect(readFileSync(join(project, ".gitignore"), "utf8")).toBe(mine);
  });

  it("creates .gitignore when there is none, and uninstall removes it when nothing else was added", () => {
    const project = temp();
    const first = withGitignore(project, source());
    expect(first.changes).toContainEqual({ action: "create", path: "../.gitignore" });
    expect(existsSync(join(project, ".gitignore"))).toBe(true);
    uninstall({ target: join(project, ".claude"), scope: "project", dryRun: false });
    expect(tree(project)).toEqual({});
  });

  it("uninstall keeps a created .gitignore that the person added lines to, without dotagent's", () => {
    const project = temp();
    withGitignore(project, source());
    writeFileSync(join(project, ".gitignore"), `${readFileSync(join(project, ".gitignore"), "utf8")}.env\n`);
    uninstall({ target: join(project, ".claude"), scope: "project", dryRun: false });
    expect(readFileSync(join(project, ".gitignore"), "utf8")).toBe(".env\n");
  });

  it("--dry-run says what it would add and writes nothing", () => {
    const project = temp();
    writeFileSync(join(project, ".gitignore"), "dist/\n");
    const result = withGitignore(project, source(), true);
    expect(result.gitignore).toBe("lines added");
    expect(readFileSync(join(project, ".gitignore"), "utf8")).toBe("dist/\n");
  });

  it("a .gitignore that is a folder is refused before anything is written", () => {
    const project = temp();
    mkdirSync(join(project, ".gitignore"));
    expect(() => withGitignore(project, source())).toThrowError(expect.objectContaining({ code: "gitignore_invalid", exitCode: 1 }));
    expect(existsSync(join(project, ".claude"))).toBe(false);
  });
});
