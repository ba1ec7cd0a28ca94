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
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { DotagentError } from "../../core/errors.js";
import {
  CODEX_HELPER,
  CODEX_HOOK_ENTRY,
  CODEX_HOOKS,
  CODEX_MANIFEST,
  installCodex,
  uninstallCodex,
} from "./install.js";
import { codexInstallState } from "./install.js";

const SOURCE = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const HELPER = Buffer.from("#!/usr/bin/env node\n// helper\n");
const ENTRY = Buffer.from("#!/usr/bin/env node\n// entry\n");
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
function project(): string {
  const d = mkdtempSync(join(tmpdir(), "dotagent-codex-install-"));
  dirs.push(d);
  return d;
}
const install = (root: string, dryRun = false) =>
  installCodex({ root, sourceRoot: SOURCE, helperScript: HELPER, entryScript: ENTRY, dryRun, version: "9.9.9" });
function tree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(root, p)] = readFileSync(p, "utf8");
    }
  };
  walk(root);
  return out;
}
const actions = (r: ReturnType<typeof install>) => Object.fromEntries(r.changes.map((c) => [c.path, c.action]));

describe("dotagent install --client codex", () => {
  it("writes the skills, the helper, one TOML per agent and the hooks, with a manifest", () => {
    const root = project();
    const result = install(root);
    expect(result.hooks).toBe("added");
    const files = Object.keys(tree(root)).sort();
    expect(files).toContain(".agents/skills/develop/SKILL.md");
    expect(files).toContain(".agents/skills/develop/references/decisions.md");
    expect(files).toContain(".agents/skills/status/SKILL.md");
    expect(files).toContain(CODEX_HELPER);
    expect(files).toContain(".codex/agents/executor.toml");
    expect(files).toContain(CODEX_HOOKS);
    expect(files).toContain(CODEX_MANIFEST);
    expect(statSync(join(root, CODEX_HELPER)).mode & 0o111).not.toBe(0);
    expect(readFileSync(join(root, ".agents/skills/develop/SKILL.md"), "utf8")).toContain(
      `node "${join(root, CODEX_HOOK_ENTRY)}" <command>`,
    );
    const state = codexInstallState(root);
    expect(state).toMatchObject({ manifest: true, missing: [], changed: [] });
    expect(state.hooks).toHaveLength(6);
    // The hooks run the CommonJS entry beside the helper (SPEC §13 "Start-up").
    expect(readFileSync(join(root, CODEX_HOOK_ENTRY))).toEqual(ENTRY);
    for (const line of state.hooks) expect(line).toMatch(/\/dotagent\.cjs" hook [a-z-]+ --client codex$/);
  });

  it("an earlier install's hook lines running dotagent.mjs are replaced by dotagent.cjs's, not left beside them", () => {
    const root = project();
    install(root);
    const file = join(root, CODEX_HOOKS);
    writeFileSync(file, readFileSync(file, "utf8").replaceAll('dotagent.cjs\\" hook', 'dotagent.mjs\\" hook'));
    expect(codexInstallState(root).hooks.every((line) => line.includes('/dotagent.mjs" hook'))).toBe(true);
    expect(install(root).hooks).toBe("updated");
    const lines = codexInstallState(root).hooks;
    expect(lines).toHaveLength(6);
    for (const line of lines) expect(line).toMatch(/\/dotagent\.cjs" hook [a-z-]+ --client codex$/);
  });

  it("an earlier install's PostToolUse without its matcher: doctor's facts name it, install rewrites it, uninstall removes it", () => {
    const root = project();
    install(root);
    const file = join(root, CODEX_HOOKS);
    const current = readFileSync(file, "utf8");
    const older = current.replace(/\n\s*"matcher": "wait_agent\$",/, "");
    expect(older).not.toContain("matcher");
    writeFileSync(file, older);
    expect(codexInstallState(root)).toMatchObject({ olderHooks: ["PostToolUse"] });
    expect(codexInstallState(root).hooks).toHaveLength(6);
    expect(install(root).hooks).toBe("updated");
    expect(readFileSync(file, "utf8")).toBe(current);
    expect(codexInstallState(root).olderHooks).toEqual([]);
    writeFileSync(file, older);
    expect(uninstallCodex({ root, dryRun: false }).hooks).toBe("removed");
    expect(existsSync(file)).toBe(false);
  });

  it("changes nothing the second time", () => {
    const root = project();
    install(root);
    const before = tree(root);
    const again = install(root);
    expect(new Set(Object.values(actions(again)))).toEqual(new Set(["unchanged"]));
    expect(again.hooks).toBe("already there");
    expect(tree(root)).toEqual(before);
  });

  it("--dry-run writes nothing and shows the same plan", () => {
    const root = project();
    const dry = install(root, true);
    expect(readdirSync(root)).toEqual([]);
    expect(actions(dry)).toEqual(actions(install(root)));
  });

  it("merges into the person's hooks.json and gives it back on --uninstall", () => {
    const root = project();
    const users = { hooks: { Stop: [{ hooks: [{ type: "command", command: "notify-send done" }] }] } };
    mkdirSync(join(root, ".codex"));
    writeFileSync(join(root, CODEX_HOOKS), JSON.stringify(users));
    install(root);
    const merged = JSON.parse(readFileSync(join(root, CODEX_HOOKS), "utf8")) as { hooks: Record<string, unknown[]> };
    expect(merged.hooks.Stop).toEqual(users.hooks.Stop);
    expect(Object.keys(merged.hooks).sort()).toEqual([
      "PostToolUse",
      "PreToolUse",
      "SessionStart",
      "Stop",
      "SubagentStart",
      "SubagentStop",
      "UserPromptSubmit",
    ]);
    uninstallCodex({ root, dryRun: false });
    expect(JSON.parse(readFileSync(join(root, CODEX_HOOKS), "utf8"))).toEqual(users);
    expect(existsSync(join(root, ".agents"))).toBe(false);
  });

  it("--uninstall removes exactly what it added: the project is as before", () => {
    const root = project();
    writeFileSync(join(root, "README.md"), "# app\n");
    mkdirSync(join(root, ".agents/skills/mine"), { recursive: true });
    writeFileSync(join(root, ".agents/skills/mine/SKILL.md"), "mine\n");
    const before = tree(root);
    install(root);
    const removed = uninstallCodex({ root, dryRun: false });
    expect(removed.hooks).toBe("removed");
    expect(tree(root)).toEqual(before);
    expect(existsSync(join(root, ".codex"))).toBe(false);
  });

  it("merges memory/'s machine-local lines into the person's .gitignore and takes out exactly those", () => {
    const root = project();
    writeFileSync(join(root, ".gitignore"), "node_modules/\n");
    const result = install(root);
    expect(result.gitignore).toBe("lines added");
    const text = readFileSync(join(root, ".gitignore"), "utf8");
    expect(text.startsWith("node_modules/\n")).toBe(true);
    expect(text).toContain("/memory/state/.lock*");
    expect(install(root).gitignore).toBe("lines already there");
    uninstallCodex({ root, dryRun: false });
    expect(readFileSync(join(root, ".gitignore"), "utf8")).toBe("node_modules/\n");
  });

  it("never overwrites or removes a file someone changed, nor one it did not write", () => {
    const root = project();
    mkdirSync(join(root, ".codex/agents"), { recursive: true });
    writeFileSync(join(root, ".codex/agents/pm.toml"), 'name = "pm"\n# the person\'s own\n');
    install(root);
    expect(readFileSync(join(root, ".codex/agents/pm.toml"), "utf8")).toContain("the person's own");
    writeFileSync(join(root, ".agents/skills/status/SKILL.md"), "edited\n");
    const again = install(root);
    // SPEC §22: a file the person edited is kept (`keep`), one dotagent did not write is `skip`.
    expect(actions(again)[".agents/skills/status/SKILL.md"]).toBe("keep");
    expect(actions(again)[".codex/agents/pm.toml"]).toBe("skip");
    expect(readFileSync(join(root, ".agents/skills/status/SKILL.md"), "utf8")).toBe("edited\n");
    const removed = uninstallCodex({ root, dryRun: false });
    expect(actions(removed)[".agents/skills/status/SKILL.md"]).toBe("keep");
    expect(existsSync(join(root, ".agents/skills/status/SKILL.md"))).toBe(true);
    expect(existsSync(join(root, ".codex/agents/pm.toml"))).toBe(true);
  });

  it("refuses a hooks.json that does not parse, before writing anything", () => {
    const root = project();
    mkdirSync(join(root, ".codex"));
    writeFileSync(join(root, CODEX_HOOKS), "{ not json");
    expect(() => install(root)).toThrow(DotagentError);
    expect(readdirSync(root)).toEqual([".codex"]);
    expect(readdirSync(join(root, ".codex"))).toEqual(["hooks.json"]);
  });

  it("ignores a manifest entry that names a file outside what it installs", () => {
    const root = project();
    install(root);
    writeFileSync(join(root, "precious.txt"), "keep me\n");
    const manifest = JSON.parse(readFileSync(join(root, CODEX_MANIFEST), "utf8")) as {
      files: Array<{ path: string; sha256: string }>;
    };
    manifest.files.push(
      { path: "precious.txt", sha256: "x" },
      { path: ".agents/skills/develop/../../../precious.txt", sha256: "x" },
    );
    writeFileSync(join(root, CODEX_MANIFEST), JSON.stringify(manifest));
    const removed = uninstallCodex({ root, dryRun: false });
    expect(readFileSync(join(root, "precious.txt"), "utf8")).toBe("keep me\n");
    // Reported, as the other clients report them: never silently dropped.
    expect(removed.changes).toContainEqual({
      action: "skip",
      path: "precious.txt",
      reason: "manifest entry is not a file dotagent installs for Codex: ignored, nothing done to it",
    });
    expect(removed.changes).toContainEqual({
      action: "skip",
      path: ".agents/skills/develop/../../../precious.txt",
      reason: "manifest entry climbs out of the install folder with ..: ignored, nothing done to it",
    });
  });

  it.each([".codex", ".agents"])(
    "refuses %s as a link that leads out of the project: nothing is written through it, on install or uninstall",
    (folder) => {
      const root = project();
      const outside = project();
      install(root);
      rmSync(join(root, folder), { recursive: true });
      symlinkSync(outside, join(root, folder));
      for (const run of [() => install(root), () => uninstallCodex({ root, dryRun: false })]) {
        let error: unknown;
        try {
          run();
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(DotagentError);
        expect((error as DotagentError).code).toBe("install_target_invalid");
        expect((error as Error).message).toContain(`is inside ${folder}, a link that leads out of the project`);
        expect(readdirSync(outside)).toEqual([]);
      }
    },
  );
});
