import { afterEach, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  mkdtempSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
  existsSync,
  lstatSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { hookCommand, install, uninstall, HOOK_MATCHER, PERMISSION_RULE } from "./install.js";
import {
  COPILOT_GUARD,
  HELPER_BASH_RULE,
  MJS_HELPER_BASH_RULE,
  hookEntries,
  hooksObject,
  missingHooks,
  olderHooks,
} from "./settings.js";
import { readInstallManifest } from "./install-manifest.js";
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

/** The Copilot guard of dotagent's hook lines as settings.json's text holds it. */
const GUARD_IN_JSON = JSON.stringify(COPILOT_GUARD).slice(1, -1);

/** An install's settings.json and manifest as an earlier version wrote them: no Copilot guard; `mjs`: through dotagent.mjs too. */
function asEarlierInstall(target: string, form: "mjs-lines" | "unguarded" | "mjs"): void {
  for (const file of ["settings.json", ".dotagent-install.json"]) {
    // Every earlier install let only dotagent.mjs lines through (the skills' lines ran it).
    let text = readFileSync(join(target, file), "utf8").replaceAll(HELPER_BASH_RULE, MJS_HELPER_BASH_RULE);
    if (form !== "mjs-lines") text = text.replaceAll(GUARD_IN_JSON, "");
    writeFileSync(
      join(target, file),
      form === "mjs" ? text.replaceAll('/dotagent.cjs\\" hook', '/dotagent.mjs\\" hook') : text,
    );
  }
}

const helper = Buffer.from("#!/usr/bin/env node\n// cli\n");
const entry = Buffer.from("#!/usr/bin/env node\n// entry\n");
const run = (target: string, src: string, dryRun = false) =>
  install({
    target,
    scope: "project",
    sourceRoot: src,
    helperScript: helper,
    entryScript: entry,
    dryRun,
    version: "1.0.0",
  });

describe("install", () => {
  it("turns Claude Code's Bash diff view off in the project once, leaves a person's own value, and uninstall takes its false out", () => {
    const settingsOf = (target: string) =>
      JSON.parse(readFileSync(join(target, "settings.json"), "utf8")) as Record<string, unknown>;
    const src = source();
    // A fresh project: off, said; a second install changes nothing; uninstall removes it with the file.
    const target = join(temp(), ".claude");
    expect(run(target, src).bash_diffs).toBe("turned off");
    expect(settingsOf(target).bashEditDiffEnabled).toBe(false);
    const again = run(target, src);
    expect([again.bash_diffs, again.changes.every((c) => c.action === "unchanged")]).toEqual(["off", true]);
    expect(uninstall({ target, scope: "project", dryRun: false }).bash_diffs).toBe("removed");
    expect(existsSync(join(target, "settings.json"))).toBe(false);
    // The person's own value (either way) is theirs: never set, never removed.
    for (const own of [true, false]) {
      const mine = join(temp(), ".claude");
      mkdirSync(mine, { recursive: true });
      writeFileSync(join(mine, "settings.json"), `${JSON.stringify({ bashEditDiffEnabled: own })}\n`);
      expect(run(mine, src).bash_diffs).toBe("untouched");
      expect(settingsOf(mine).bashEditDiffEnabled).toBe(own);
      uninstall({ target: mine, scope: "project", dryRun: false });
      expect(settingsOf(mine)).toEqual({ bashEditDiffEnabled: own });
    }
    // Taken out by the person after install: the next install does not put it back.
    const removed = join(temp(), ".claude");
    run(removed, src);
    const edited = settingsOf(removed);
    delete edited.bashEditDiffEnabled;
    writeFileSync(join(removed, "settings.json"), `${JSON.stringify(edited, null, 2)}\n`);
    expect(run(removed, src).bash_diffs).toBe("untouched");
    expect(settingsOf(removed).bashEditDiffEnabled).toBeUndefined();
    // A user-scope install never changes every project's view.
    const user = join(temp(), ".claude");
    expect(
      install({
        target: user,
        scope: "user",
        sourceRoot: src,
        helperScript: helper,
        entryScript: entry,
        dryRun: false,
        version: "1.0.0",
      }).bash_diffs,
    ).toBe("untouched");
    expect(settingsOf(user).bashEditDiffEnabled).toBeUndefined();
  });

  it("installs skills, helper, agents and the hook; twice changes nothing; uninstall removes it all", () => {
    const project = temp();
    const target = join(project, ".claude");
    const src = source();
    const first = run(target, src);
    expect(first.changes.filter((c) => c.action === "create").map((c) => c.path)).toEqual([
      "skills/checkpoint/SKILL.md",
      "skills/develop/SKILL.md",
      "skills/checkpoint/scripts/dotagent.mjs",
      "skills/checkpoint/scripts/dotagent.cjs",
      "agents/pm.md",
      "settings.json",
    ]);
    expect(statSync(join(target, "skills/checkpoint/scripts/dotagent.mjs")).mode & 0o111).not.toBe(0);
    // The hooks run the CommonJS entry beside the helper (SPEC §13 "Start-up"); the model's lines, the helper.
    expect(readFileSync(join(target, "skills/checkpoint/scripts/dotagent.cjs"))).toEqual(entry);
    expect(statSync(join(target, "skills/checkpoint/scripts/dotagent.cjs")).mode & 0o111).not.toBe(0);
    expect(hookCommand("project")).toBe(
      'node "$CLAUDE_PROJECT_DIR/.claude/skills/checkpoint/scripts/dotagent.cjs" hook session-start',
    );
    const settings = JSON.parse(readFileSync(join(target, "settings.json"), "utf8"));
    expect(settings.hooks.SessionStart).toEqual([
      { matcher: HOOK_MATCHER, hooks: [{ type: "command", command: hookCommand("project"), timeout: 10 }] },
    ]);
    // Every hook of SPEC §11, and no permission rule: the PreToolUse hook allows the helper's lines.
    expect(settings.hooks).toEqual(hooksObject(hookEntries("project")));
    expect(Object.keys(settings.hooks)).toEqual([
      "SessionStart",
      "PreToolUse",
      "PostToolUse",
      "PostToolUseFailure",
      "SubagentStart",
      "SubagentStop",
      "UserPromptSubmit",
    ]);
    expect(settings.permissions).toBeUndefined();
    expect(first.permission).toBe("untouched");
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
    const original =
      '{\n    "permissions": {"allow": ["Bash(npm test)"]},\n    "hooks": {"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}],\n              "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard"}]}]}\n}\n';
    writeFileSync(join(target, "settings.json"), original);
    writeFileSync(join(target, "notes.md"), "mine");
    run(target, source());
    const merged = JSON.parse(readFileSync(join(target, "settings.json"), "utf8"));
    expect(merged.permissions).toEqual({ allow: ["Bash(npm test)"] });
    expect(merged.hooks.PreToolUse[0]).toEqual({ matcher: "Bash", hooks: [{ type: "command", command: "guard" }] });
    expect(merged.hooks.PreToolUse).toHaveLength(6);
    expect(merged.hooks.SessionStart).toHaveLength(2);
    expect(merged.hooks.SessionStart[0]).toEqual({
      matcher: "startup",
      hooks: [{ type: "command", command: "echo hi" }],
    });
    uninstall({ target, scope: "project", dryRun: false });
    expect(readFileSync(join(target, "settings.json"), "utf8")).toBe(original);
    expect(tree(project)).toEqual({ ".claude/settings.json": original, ".claude/notes.md": "mine" });
  });

  it("a user's own rule for the helper stays (install adds none), and uninstall leaves it too", () => {
    const project = temp();
    const target = join(project, ".claude");
    mkdirSync(target);
    const settingsFile = join(target, "settings.json");
    writeFileSync(settingsFile, JSON.stringify({ permissions: { allow: [PERMISSION_RULE], deny: ["Bash(rm *)"] } }));
    const first = run(target, source());
    expect(first.permission).toBe("untouched");
    expect(JSON.parse(readFileSync(settingsFile, "utf8")).permissions).toEqual({
      allow: [PERMISSION_RULE],
      deny: ["Bash(rm *)"],
    });
    uninstall({ target, scope: "project", dryRun: false });
    // The rule was the user's before dotagent came: it stays.
    expect(JSON.parse(readFileSync(settingsFile, "utf8")).permissions).toEqual({
      allow: [PERMISSION_RULE],
      deny: ["Bash(rm *)"],
    });
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

  it("an upgrade from an install that added the permission rule takes the rule out and adds the hooks", () => {
    const project = temp();
    const target = join(project, ".claude");
    run(target, source());
    const settingsFile = join(target, "settings.json");
    const manifestFile = join(target, ".dotagent-install.json");
    // As 0.1 left it: the SessionStart hook alone and the rule, both recorded in the manifest.
    const old = {
      hooks: {
        SessionStart: [
          { matcher: HOOK_MATCHER, hooks: [{ type: "command", command: hookCommand("project"), timeout: 10 }] },
        ],
      },
      permissions: { allow: ["Bash(npm test)", PERMISSION_RULE] },
    };
    writeFileSync(settingsFile, JSON.stringify(old));
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8"));
    delete manifest.hook_commands;
    writeFileSync(manifestFile, JSON.stringify({ ...manifest, permission_rule: PERMISSION_RULE }));
    const upgraded = run(target, source());
    expect(upgraded).toMatchObject({ settings: "hook updated", permission: "rule removed" });
    const now = JSON.parse(readFileSync(settingsFile, "utf8"));
    expect(now.permissions).toEqual({ allow: ["Bash(npm test)"] });
    expect(now.hooks).toEqual(hooksObject(hookEntries("project")));
    expect(JSON.parse(readFileSync(manifestFile, "utf8"))).not.toHaveProperty("permission_rule");
    expect(run(target, source()).settings).toBe("hook already there");
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
    const upgrade = install({
      target,
      scope: "project",
      sourceRoot: src,
      helperScript: v2helper,
      entryScript: entry,
      dryRun: false,
      version: "2.0.0",
    });
    const by = (action: string) =>
      upgrade.changes
        .filter((c) => c.action === action)
        .map((c) => c.path)
        .sort();
    expect(by("update")).toEqual(["skills/checkpoint/SKILL.md", "skills/checkpoint/scripts/dotagent.mjs"]);
    expect(by("keep")).toEqual(["agents/pm.md", "skills/develop/gone.md"]);
    expect(upgrade.changes.find((c) => c.path === "agents/pm.md")?.reason).toContain(
      "edited since dotagent installed it",
    );
    expect(by("remove")).toEqual(["skills/checkpoint/old-notes.md"]);
    expect(readFileSync(join(target, "skills/checkpoint/SKILL.md"), "utf8")).toContain("v2");
    expect(readFileSync(join(target, "skills/checkpoint/scripts/dotagent.mjs"))).toEqual(v2helper);
    expect(readFileSync(join(target, "agents/pm.md"), "utf8")).toBe("my own pm");
    expect(existsSync(join(target, "skills/checkpoint/old-notes.md"))).toBe(false);
    const manifest = JSON.parse(readFileSync(join(target, ".dotagent-install.json"), "utf8"));
    expect(manifest.dotagent_version).toBe("2.0.0");
    // Uninstall still removes what dotagent owns and keeps what the user changed.
    uninstall({ target, scope: "project", dryRun: false });
    expect(tree(project)).toEqual({
      ".claude/agents/pm.md": "my own pm",
      ".claude/skills/develop/gone.md": "mine now",
    });
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
    writeFileSync(
      manifestFile,
      JSON.stringify({ ...JSON.parse(readFileSync(manifestFile, "utf8")), hook_command: oldCommand }),
    );
    const result = run(target, source());
    expect(result.settings).toBe("hook updated");
    const settings = JSON.parse(readFileSync(settingsFile, "utf8"));
    expect(settings.hooks.SessionStart).toEqual([
      { matcher: HOOK_MATCHER, hooks: [{ type: "command", command: hookCommand("project"), timeout: 10 }] },
    ]);
    expect(run(target, source()).changes.every((c) => c.action === "unchanged")).toBe(true);
  });

  it("an install whose hook lines run dotagent.mjs (before dotagent.cjs): counted as there, and updated to dotagent.cjs", () => {
    const project = temp();
    const target = join(project, ".claude");
    run(target, source());
    asEarlierInstall(target, "mjs");
    const old = JSON.parse(readFileSync(join(target, "settings.json"), "utf8"));
    expect(JSON.stringify(old)).not.toContain("dotagent.cjs");
    // Both entries work, so doctor finds every hook (it suggests the update: olderHooks).
    expect(missingHooks(old, hookEntries("project"))).toEqual([]);
    expect(olderHooks(old, hookEntries("project"))).toBe("mjs");
    expect(readInstallManifest(target)!.manifest.hook_commands).toHaveLength(6);
    const result = run(target, source());
    expect(result.settings).toBe("hook updated");
    const settings = JSON.parse(readFileSync(join(target, "settings.json"), "utf8"));
    expect(settings.hooks).toEqual(hooksObject(hookEntries("project")));
    expect(olderHooks(settings, hookEntries("project"))).toBeNull();
    expect(run(target, source()).changes.every((c) => c.action === "unchanged")).toBe(true);
  });

  it("an install whose helper-line entry lets only dotagent.mjs lines through (before the skills ran dotagent.cjs): counted as there, its `if` updated", () => {
    const project = temp();
    const target = join(project, ".claude");
    run(target, source());
    asEarlierInstall(target, "mjs-lines");
    const old = JSON.parse(readFileSync(join(target, "settings.json"), "utf8"));
    expect(JSON.stringify(old)).not.toContain(HELPER_BASH_RULE);
    expect(missingHooks(old, hookEntries("project"))).toEqual([]);
    expect(olderHooks(old, hookEntries("project"))).toBe("mjs");
    expect(run(target, source()).settings).toBe("hook updated");
    const settings = JSON.parse(readFileSync(join(target, "settings.json"), "utf8"));
    expect(settings.hooks).toEqual(hooksObject(hookEntries("project")));
    expect(JSON.stringify(settings)).not.toContain(MJS_HELPER_BASH_RULE);
    expect(olderHooks(settings, hookEntries("project"))).toBeNull();
    expect(run(target, source()).changes.every((c) => c.action === "unchanged")).toBe(true);
  });

  it("an install whose hook lines have no Copilot guard: counted as there, updated once, uninstall leaves nothing", () => {
    const project = temp();
    const target = join(project, ".claude");
    run(target, source());
    const guarded = readInstallManifest(target)!;
    expect(guarded.ignored).toEqual([]);
    expect(guarded.manifest.hook_commands!.filter((c) => c.startsWith(COPILOT_GUARD))).toHaveLength(5);
    asEarlierInstall(target, "unguarded");
    const old = JSON.parse(readFileSync(join(target, "settings.json"), "utf8"));
    expect(JSON.stringify(old)).not.toContain("COPILOT_HOOK_DIR");
    expect(missingHooks(old, hookEntries("project"))).toEqual([]);
    expect(olderHooks(old, hookEntries("project"))).toBe("unguarded");
    expect(run(target, source()).settings).toBe("hook updated");
    const settings = JSON.parse(readFileSync(join(target, "settings.json"), "utf8"));
    // Each entry once, as this version writes it: the old lines replaced, not doubled.
    expect(settings.hooks).toEqual(hooksObject(hookEntries("project")));
    expect(olderHooks(settings, hookEntries("project"))).toBeNull();
    expect(readInstallManifest(target)!.manifest.hook_commands).toEqual([
      ...new Set(hookEntries("project").map((e) => e.command)),
    ]);
    expect(run(target, source()).changes.every((c) => c.action === "unchanged")).toBe(true);
    uninstall({ target, scope: "project", dryRun: false });
    expect(tree(project)).toEqual({});
  });

  it("uninstall by this version of an earlier install's lines (no guard; dotagent.mjs) gives back what was there", () => {
    for (const form of ["mjs-lines", "unguarded", "mjs"] as const) {
      // settings.json install created: removed.
      const fresh = temp();
      run(join(fresh, ".claude"), source());
      asEarlierInstall(join(fresh, ".claude"), form);
      expect(uninstall({ target: join(fresh, ".claude"), scope: "project", dryRun: false }).settings).toBe(
        "hook removed",
      );
      expect(tree(fresh)).toEqual({});
      // settings.json the person had: its bytes back.
      const project = temp();
      const target = join(project, ".claude");
      mkdirSync(target);
      const original = '{"model": "opus",\n "hooks": {}}\n';
      writeFileSync(join(target, "settings.json"), original);
      run(target, source());
      asEarlierInstall(target, form);
      expect(uninstall({ target, scope: "project", dryRun: false }).settings).toBe("restored");
      expect(readFileSync(join(target, "settings.json"), "utf8")).toBe(original);
    }
  });

  it("uninstall takes out dotagent's lines in both forms: the guarded ones and an earlier install's beside them", () => {
    const project = temp();
    const target = join(project, ".claude");
    run(target, source());
    const settingsFile = join(target, "settings.json");
    const settings = JSON.parse(readFileSync(settingsFile, "utf8"));
    const unguarded = JSON.parse(JSON.stringify(settings.hooks.PostToolUse[0]).replaceAll(GUARD_IN_JSON, ""));
    settings.hooks.PostToolUse.push(unguarded, { hooks: [{ type: "command", command: "echo mine" }] });
    writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
    expect(uninstall({ target, scope: "project", dryRun: false }).settings).toBe("hook removed");
    const left = readFileSync(settingsFile, "utf8");
    expect(left).not.toContain("dotagent");
    expect(JSON.parse(left).hooks).toEqual({ PostToolUse: [{ hooks: [{ type: "command", command: "echo mine" }] }] });
  });
});

describe("upgrade: entries that share one command (pre-tool-use on Bash, the file tools, Agent)", () => {
  const preToolUse = (settings: {
    hooks: Record<string, Array<{ matcher?: string; hooks: Array<{ if?: string }> }>>;
  }) => settings.hooks.PreToolUse!.map((g) => `${g.matcher} ${g.hooks[0]!.if ?? ""}`.trim());

  it("an install from before the write guard (PreToolUse on Bash and Agent only) gets the new entries, each once", () => {
    const project = temp();
    const target = join(project, ".claude");
    run(target, source());
    const settingsFile = join(target, "settings.json");
    const before = JSON.parse(readFileSync(settingsFile, "utf8"));
    // As the version before left it: the helper-line Bash entry and the Agent entry, same command.
    before.hooks.PreToolUse = before.hooks.PreToolUse.filter(
      (g: { matcher: string; hooks: Array<{ if?: string }> }) =>
        g.matcher === "Agent|Task|SubagentHandback" || g.hooks[0]!.if === HELPER_BASH_RULE,
    );
    before.hooks.PreToolUse[0].hooks[0].if = MJS_HELPER_BASH_RULE;
    writeFileSync(settingsFile, JSON.stringify(before));
    expect(preToolUse(before)).toEqual(["Bash Bash(node *dotagent.mjs*)", "Agent|Task|SubagentHandback"]);
    expect(run(target, source()).settings).toBe("hook updated");
    const now = JSON.parse(readFileSync(settingsFile, "utf8"));
    expect(now.hooks).toEqual(hooksObject(hookEntries("project")));
    expect(preToolUse(now)).toEqual([
      `Bash ${HELPER_BASH_RULE}`,
      "Bash Bash(*memory/state*)",
      "Bash Bash(*memory/reports*)",
      "Write|Edit|MultiEdit|NotebookEdit",
      "Agent|Task|SubagentHandback",
    ]);
    expect(run(target, source()).settings).toBe("hook already there");
  });

  it("an entry of dotagent's whose `if` changed is replaced, not left beside the new one; the person's own groups stay", () => {
    const project = temp();
    const target = join(project, ".claude");
    run(target, source());
    const settingsFile = join(target, "settings.json");
    const before = JSON.parse(readFileSync(settingsFile, "utf8"));
    before.hooks.PreToolUse[1].hooks[0].if = "Bash(*memory*)";
    before.hooks.PreToolUse.push({ matcher: "Bash", hooks: [{ type: "command", command: "my-guard" }] });
    writeFileSync(settingsFile, JSON.stringify(before));
    expect(run(target, source()).settings).toBe("hook updated");
    const now = JSON.parse(readFileSync(settingsFile, "utf8"));
    expect(preToolUse(now)).toEqual([
      "Bash",
      `Bash ${HELPER_BASH_RULE}`,
      "Bash Bash(*memory/state*)",
      "Bash Bash(*memory/reports*)",
      "Write|Edit|MultiEdit|NotebookEdit",
      "Agent|Task|SubagentHandback",
    ]);
    expect(now.hooks.PreToolUse[0]).toEqual({ matcher: "Bash", hooks: [{ type: "command", command: "my-guard" }] });
  });
});

describe("issue 21, case 1: a crafted manifest never reaches outside the install folder", () => {
  const sha = (bytes: string | Buffer) => createHash("sha256").update(bytes).digest("hex");
  const manifestFile = (target: string) => join(target, ".dotagent-install.json");
  const craft = (target: string, edit: (m: any) => void) => {
    const m = JSON.parse(readFileSync(manifestFile(target), "utf8"));
    edit(m);
    writeFileSync(manifestFile(target), JSON.stringify(m));
  };
  /** A project with dotagent installed, and a victim file and an empty folder beside it, outside .claude/. */
  function installed() {
    const outside = temp();
    const project = join(outside, "project");
    mkdirSync(project);
    const target = join(project, ".claude");
    run(target, source());
    writeFileSync(join(outside, "victim.txt"), "the user's file");
    mkdirSync(join(outside, "x"));
    return { outside, project, target };
  }

  it.each([
    ["../../victim.txt"],
    ["sub/../../../victim.txt"],
    ["skills/../../../victim.txt"],
    [".claude/../../../victim.txt"],
    ["ABSOLUTE"],
    ["skills\\..\\..\\..\\victim.txt"],
    ["./../../victim.txt"],
  ])("a files entry %s with the victim's hash: install and uninstall leave it, each saying so", (entry) => {
    const { outside, target } = installed();
    const path = entry === "ABSOLUTE" ? join(outside, "victim.txt") : entry;
    craft(target, (m) => m.files.push({ path, sha256: sha("the user's file") }));
    for (const result of [run(target, source()), uninstall({ target, scope: "project", dryRun: false })]) {
      expect(result.changes).toContainEqual({
        action: "skip",
        path,
        reason: expect.stringMatching(/^manifest entry (climbs out|is not a).*: ignored, nothing done to it$/),
      });
      expect(readFileSync(join(outside, "victim.txt"), "utf8")).toBe("the user's file");
    }
  });

  it.each([["../../x"], ["/ABS"], ["skills/../../../x"], [".."], [""]])(
    "a dirs entry %s: uninstall leaves the folder outside, and says so",
    (entry) => {
      const { outside, target } = installed();
      const dir = entry === "/ABS" ? join(outside, "x") : entry;
      craft(target, (m) => m.dirs.push(dir));
      const result = uninstall({ target, scope: "project", dryRun: false });
      expect(result.changes).toContainEqual({ action: "skip", path: dir, reason: expect.stringContaining("ignored") });
      expect(statSync(join(outside, "x")).isDirectory()).toBe(true);
    },
  );

  it("a folder of .claude that is a link out: entries through it are neither removed, overwritten nor read", () => {
    const { outside, target } = installed();
    mkdirSync(join(outside, "elsewhere/checkpoint"), { recursive: true });
    writeFileSync(join(outside, "elsewhere/victim.md"), "the user's file");
    writeFileSync(join(outside, "elsewhere/checkpoint/SKILL.md"), "the user's other file");
    symlinkSync(join(outside, "elsewhere"), join(target, "evil"));
    craft(target, (m) => {
      m.files.push({ path: "evil/victim.md", sha256: sha("the user's file") });
      m.dirs.push("evil/checkpoint", "evil");
    });
    // skills/ itself swapped for a link out, with the manifest claiming the outside file as dotagent's:
    // an upgrade would overwrite it ("update") if the link were followed.
    rmSync(join(target, "skills"), { recursive: true });
    symlinkSync(join(outside, "elsewhere"), join(target, "skills"));
    craft(target, (m) =>
      m.files.forEach(
        (f: { path: string; sha256: string }) =>
          f.path === "skills/checkpoint/SKILL.md" && (f.sha256 = sha("the user's other file")),
      ),
    );
    const upgrade = run(target, source());
    expect(upgrade.changes).toContainEqual({
      action: "skip",
      path: "skills/checkpoint/SKILL.md",
      reason: "is inside skills, a link that leads out of the install folder: left alone",
    });
    expect(upgrade.changes).toContainEqual({
      action: "skip",
      path: "evil/victim.md",
      reason: "is inside evil, a link that leads out of the install folder: left alone",
    });
    const removed = uninstall({ target, scope: "project", dryRun: false });
    expect(removed.changes).toContainEqual({
      action: "skip",
      path: "evil/checkpoint",
      reason: "is inside evil, a link that leads out of the install folder: left alone",
    });
    expect(removed.changes).toContainEqual({
      action: "skip",
      path: "evil",
      reason: "is a link that leads out of the install folder: left alone",
    });
    expect(tree(join(outside, "elsewhere"))).toEqual({
      "victim.md": "the user's file",
      "checkpoint/SKILL.md": "the user's other file",
    });
  });

  it("an entry that is itself a link out (or to nothing) is left alone; a link that stays inside is followed", () => {
    const { outside, target } = installed();
    symlinkSync(join(outside, "victim.txt"), join(target, "link.md"));
    symlinkSync(join(outside, "gone.txt"), join(target, "dangling.md"));
    writeFileSync(join(target, "real.md"), "inside");
    symlinkSync(join(target, "real.md"), join(target, "inner.md"));
    craft(target, (m) =>
      m.files.push(
        { path: "link.md", sha256: sha("the user's file") },
        { path: "dangling.md", sha256: sha("") },
        { path: "inner.md", sha256: sha("inside") },
      ),
    );
    const result = uninstall({ target, scope: "project", dryRun: false });
    expect(result.changes).toContainEqual({
      action: "skip",
      path: "link.md",
      reason: "is a link that leads out of the install folder: left alone",
    });
    expect(result.changes).toContainEqual({
      action: "skip",
      path: "dangling.md",
      reason: "is a link to nothing: left alone",
    });
    expect(result.changes).toContainEqual({ action: "remove", path: "inner.md" });
    expect(readFileSync(join(outside, "victim.txt"), "utf8")).toBe("the user's file");
    expect(lstatSync(join(target, "link.md")).isSymbolicLink()).toBe(true);
  });

  it("a FIFO named by the manifest is skipped, never opened for a blocking read", () => {
    const { target } = installed();
    execFileSync("mkfifo", [join(target, "pipe.md")]);
    craft(target, (m) => m.files.push({ path: "pipe.md", sha256: sha("") }));
    expect(uninstall({ target, scope: "project", dryRun: false }).changes).toContainEqual({
      action: "skip",
      path: "pipe.md",
      reason: "is a FIFO, not a regular file: left alone",
    });
  });

  it("entries without a path or a hash, the manifest itself or settings.json as an entry: ignored, named", () => {
    const { target } = installed();
    const settingsBefore = readFileSync(join(target, "settings.json"), "utf8");
    craft(target, (m) => {
      m.files.push(
        null,
        { path: 5 },
        { path: "agents/x.md" },
        { path: "settings.json", sha256: sha(settingsBefore) },
        { path: ".dotagent-install.json", sha256: sha("x") },
        { path: "a".repeat(5000), sha256: sha("") },
      );
      m.dirs.push(7);
    });
    const result = uninstall({ target, scope: "project", dryRun: true });
    // The installed manifest holds 5 files and 6 folders before these.
    expect(result.changes.filter((c) => c.action === "skip")).toEqual([
      { action: "skip", path: "files[5]", reason: "manifest entry has no path: ignored, nothing done to it" },
      { action: "skip", path: "files[6]", reason: "manifest entry has no path: ignored, nothing done to it" },
      { action: "skip", path: "agents/x.md", reason: "manifest entry has no sha256: ignored, nothing done to it" },
      {
        action: "skip",
        path: "settings.json",
        reason: "manifest entry names a file install manages by its own rules: ignored, nothing done to it",
      },
      {
        action: "skip",
        path: ".dotagent-install.json",
        reason: "manifest entry names a file install manages by its own rules: ignored, nothing done to it",
      },
      {
        action: "skip",
        path: `${"a".repeat(40)}… (5000 characters)`,
        reason: "manifest entry is longer than any path install writes: ignored, nothing done to it",
      },
      { action: "skip", path: "dirs[6]", reason: "manifest entry is not a path: ignored, nothing done to it" },
    ]);
    expect(readFileSync(join(target, "settings.json"), "utf8")).toBe(settingsBefore);
  });

  it("hook_command and permission_rule naming the user's own hook and rule: install and uninstall keep both", () => {
    const project = temp();
    const target = join(project, ".claude");
    mkdirSync(target);
    const settingsFile = join(target, "settings.json");
    writeFileSync(
      settingsFile,
      JSON.stringify({
        permissions: { allow: ["Bash(npm test)"] },
        hooks: { SessionStart: [{ matcher: "startup", hooks: [{ type: "command", command: "echo mine" }] }] },
      }),
    );
    run(target, source());
    craft(target, (m) => {
      m.hook_command = "echo mine";
      m.permission_rule = "Bash(npm test)";
    });
    const again = run(target, source());
    expect(again.settings).toBe("hook already there");
    expect(again.changes).toContainEqual({
      action: "skip",
      path: "hook_command",
      reason: "manifest hook_command is not a dotagent hook command, so that hook is left alone: ignored",
    });
    const removed = uninstall({ target, scope: "project", dryRun: false });
    expect(removed.changes).toContainEqual({
      action: "skip",
      path: "permission_rule",
      reason: "manifest permission_rule is not a rule dotagent adds, so that rule is left alone: ignored",
    });
    const after = JSON.parse(readFileSync(settingsFile, "utf8"));
    expect(after.permissions.allow).toContain("Bash(npm test)");
    expect(after.hooks.SessionStart[0].hooks[0].command).toBe("echo mine");
  });

  it.each([
    ["attacker bytes", '{"permissions": {"allow": ["Bash(*)"]}}\n'],
    ["the same JSON in other bytes", '{"model":"a",\n\n"model":"a"}'],
    ["not JSON", "{"],
    ["not text", 42],
  ])("settings_original of %s never replaces settings.json the person changed", (_, original) => {
    const project = temp();
    const target = join(project, ".claude");
    mkdirSync(target);
    const settingsFile = join(target, "settings.json");
    writeFileSync(settingsFile, '{"model": "a"}');
    run(target, source());
    // The person changes settings.json after the install; the manifest is swapped.
    const changed = JSON.parse(readFileSync(settingsFile, "utf8"));
    writeFileSync(settingsFile, `${JSON.stringify({ ...changed, theme: "dark" }, null, 2)}\n`);
    craft(target, (m) => (m.settings_original = original));
    const result = uninstall({ target, scope: "project", dryRun: false });
    expect(result.settings).toBe("hook removed");
    expect(JSON.parse(readFileSync(settingsFile, "utf8"))).toEqual({ model: "a", theme: "dark" });
  });

  it("settings_original that parses like the settings but holds other bytes is not written over settings install did not produce", () => {
    const project = temp();
    const target = join(project, ".claude");
    mkdirSync(target);
    const settingsFile = join(target, "settings.json");
    writeFileSync(settingsFile, '{"model": "a"}');
    run(target, source());
    // Reformatted by the person (same content, other bytes); the manifest's original swapped for
    // bytes a first-key-wins reader would read as another model.
    writeFileSync(settingsFile, JSON.stringify(JSON.parse(readFileSync(settingsFile, "utf8"))));
    craft(target, (m) => (m.settings_original = '{"model": "evil", "model": "a"}'));
    const result = uninstall({ target, scope: "project", dryRun: false });
    expect(result.settings).toBe("hook removed");
    expect(readFileSync(settingsFile, "utf8")).not.toContain("evil");
    expect(JSON.parse(readFileSync(settingsFile, "utf8"))).toEqual({ model: "a" });
  });

  it("a project's .claude that is a link out of the project: install and uninstall refuse, nothing there is touched", () => {
    const elsewhere = temp();
    const project = temp();
    run(join(elsewhere, ".claude"), source()); // someone's real install, e.g. their ~/.claude
    const before = tree(elsewhere);
    symlinkSync(join(elsewhere, ".claude"), join(project, ".claude"));
    for (const act of [
      () => run(join(project, ".claude"), source()),
      () => uninstall({ target: join(project, ".claude"), scope: "project", dryRun: false }),
    ]) {
      expect(act).toThrowError(
        expect.objectContaining({
          code: "install_target_invalid",
          message: expect.stringContaining("is a symbolic link that leads out of the project"),
        }),
      );
    }
    expect(tree(elsewhere)).toEqual(before);
    // The user's own folder may be a link (dotfiles): user scope follows it.
    const linked = join(temp(), "claude-link");
    symlinkSync(join(elsewhere, ".claude"), linked);
    expect(() =>
      install({
        target: linked,
        scope: "user",
        sourceRoot: source(),
        helperScript: helper,
        entryScript: entry,
        dryRun: true,
        version: "1.0.0",
      }),
    ).not.toThrow();
  });

  it("a project's settings.json that is a link out of the project is refused; one inside is followed", () => {
    const elsewhere = temp();
    const project = temp();
    const target = join(project, ".claude");
    mkdirSync(target);
    writeFileSync(join(elsewhere, "settings.json"), '{"model": "theirs"}');
    symlinkSync(join(elsewhere, "settings.json"), join(target, "settings.json"));
    expect(() => run(target, source())).toThrowError(
      expect.objectContaining({
        code: "settings_invalid",
        message: expect.stringContaining("is a symbolic link that leads out of the project"),
      }),
    );
    expect(readFileSync(join(elsewhere, "settings.json"), "utf8")).toBe('{"model": "theirs"}');
    expect(existsSync(join(target, "skills"))).toBe(false);
    rmSync(join(target, "settings.json"));
    writeFileSync(join(project, "shared-settings.json"), "{}");
    symlinkSync(join(project, "shared-settings.json"), join(target, "settings.json"));
    expect(run(target, source()).settings).toBe("hook added");
    expect(JSON.parse(readFileSync(join(project, "shared-settings.json"), "utf8")).hooks.SessionStart).toHaveLength(1);
  });

  it("settings_created on a settings.json the person wrote into: dotagent's lines go, the file stays", () => {
    const project = temp();
    const target = join(project, ".claude");
    run(target, source());
    const settingsFile = join(target, "settings.json");
    writeFileSync(settingsFile, JSON.stringify({ ...JSON.parse(readFileSync(settingsFile, "utf8")), theme: "dark" }));
    uninstall({ target, scope: "project", dryRun: false });
    expect(JSON.parse(readFileSync(settingsFile, "utf8"))).toEqual({ theme: "dark" });
  });
});

describe("the project's .gitignore (memory/'s machine-local files)", () => {
  const withGitignore = (project: string, src: string, dryRun = false) =>
    install({
      target: join(project, ".claude"),
      scope: "project",
      sourceRoot: src,
      helperScript: helper,
      entryScript: entry,
      dryRun,
      version: "1.0.0",
      gitignore: join(project, ".gitignore"),
    });

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
    for (const line of [
      "/memory/runs/",
      "/memory/state/.history/",
      "/memory/state/.archive/",
      "/memory/state/once/",
      "/memory/state/.lock*",
    ])
      expect(text.split("\n")).toContain(line);
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
    expect(() => withGitignore(project, source())).toThrowError(
      expect.objectContaining({ code: "gitignore_invalid", exitCode: 1 }),
    );
    expect(existsSync(join(project, ".claude"))).toBe(false);
  });
});

describe("the plugin's hooks", () => {
  it("hooks/hooks.json holds exactly the hooks a project install writes, through ${CLAUDE_PLUGIN_ROOT}", () => {
    const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
    const file = JSON.parse(readFileSync(join(root, "hooks/hooks.json"), "utf8"));
    expect(file.hooks).toEqual(hooksObject(hookEntries("plugin")));
    expect(JSON.stringify(file.hooks)).not.toContain("CLAUDE_PROJECT_DIR");
  });
});
