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
const run = (target: string, src: string, dryRun = false) => install({ target, scope: "project", sourceRoot: src, helperScript: helper, dryRun });

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
