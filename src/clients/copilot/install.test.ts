import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sha256 } from "../../claude/install-paths.js";
import { gatherCopilotFacts } from "./doctor.js";
import { HOOKS_FILE } from "./hooks-file.js";
import { COPILOT_MANIFEST, installCopilot, uninstallCopilot } from "./install.js";
import { claudeOnlyMarkers } from "./skill-text.js";

const SOURCE = join(import.meta.dirname, "../../..");
const HELPER = Buffer.from("#!/usr/bin/env node\n// helper\n");
const ENTRY = Buffer.from("#!/usr/bin/env node\n// entry\n");
let root: string;

const install = (dryRun = false) =>
  installCopilot({ root, sourceRoot: SOURCE, helperScript: HELPER, entryScript: ENTRY, dryRun, version: "9.9.9" });
const actions = (changes: Array<{ action: string; path: string }>) =>
  Object.fromEntries(changes.map((c) => [c.path, c.action]));
const github = (rel: string) => join(root, ".github", rel);

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "dotagent-copilot-install-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("installCopilot", () => {
  it("writes the skills (Copilot's variant), the helper, the agents and the hooks under .github/, and a manifest", () => {
    const result = install();
    expect(result).toMatchObject({ client: "copilot", hooks: "added", gitignore: "lines added", dry_run: false });
    const develop = readFileSync(github("skills/develop/SKILL.md"), "utf8");
    expect(claudeOnlyMarkers(develop)).toEqual([]);
    expect(develop).toContain(`node "${github("skills/develop")}/../checkpoint/scripts/dotagent.cjs" <command>`);
    expect(readFileSync(github("skills/checkpoint/scripts/dotagent.mjs"))).toEqual(HELPER);
    expect(readFileSync(github("skills/checkpoint/scripts/dotagent.cjs"))).toEqual(ENTRY);
    expect(readdirSync(github("agents")).sort()).toEqual(
      readdirSync(join(SOURCE, "agents"))
        .filter((f) => f.endsWith(".md"))
        .map((f) => f.replace(/\.md$/, ".agent.md"))
        .sort(),
    );
    expect(readFileSync(github("agents/pm.agent.md"), "utf8")).toBe(readFileSync(join(SOURCE, "agents/pm.md"), "utf8"));
    const hooks = JSON.parse(readFileSync(github("hooks/dotagent.json"), "utf8")) as {
      version: number;
      hooks: Record<string, Array<{ bash: string }>>;
    };
    expect(hooks.version).toBe(1);
    expect(Object.keys(hooks.hooks)).toEqual([
      "sessionStart",
      "userPromptSubmitted",
      "preToolUse",
      "postToolUse",
      "postToolUseFailure",
      "subagentStop",
    ]);
    // The hooks run the CommonJS entry beside the helper (SPEC §13 "Start-up").
    for (const [event, [entry]] of Object.entries(hooks.hooks))
      expect(entry!.bash, event).toMatch(
        new RegExp(`^node "${github("skills/checkpoint/scripts/dotagent.cjs")}" hook [a-z-]+ --client copilot$`),
      );
    const manifest = JSON.parse(readFileSync(github(COPILOT_MANIFEST), "utf8")) as {
      files: Array<{ path: string }>;
      dotagent_version: string;
    };
    expect(manifest.dotagent_version).toBe("9.9.9");
    expect(manifest.files.map((f) => f.path)).toContain("hooks/dotagent.json");
    expect(readFileSync(join(root, ".gitignore"), "utf8")).toContain("dotagent");
  });

  it("narrows postToolUse to `task` and no other hook: never preToolUse, the write guard", () => {
    install();
    const { hooks } = JSON.parse(readFileSync(github("hooks/dotagent.json"), "utf8")) as {
      hooks: Record<string, Array<{ matcher?: string }>>;
    };
    expect(Object.fromEntries(Object.entries(hooks).map(([event, [entry]]) => [event, entry!.matcher]))).toEqual({
      sessionStart: undefined,
      userPromptSubmitted: undefined,
      preToolUse: undefined,
      postToolUse: "task",
      postToolUseFailure: undefined,
      subagentStop: undefined,
    });
  });

  it("an earlier install's hooks without the matcher: doctor counts them with the update as fix, install rewrites them, uninstall removes them", () => {
    install();
    // As that install wrote and recorded it: the same lines, no matcher.
    const file = github("hooks/dotagent.json");
    const older = readFileSync(file, "utf8").replace(/\n\s*"matcher": "task",/, "");
    expect(older).not.toContain("matcher");
    writeFileSync(file, older);
    const manifestFile = github(COPILOT_MANIFEST);
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as {
      files: Array<{ path: string; sha256: string }>;
    };
    manifest.files.find((f) => f.path === HOOKS_FILE)!.sha256 = sha256(older);
    writeFileSync(manifestFile, JSON.stringify(manifest));
    const env = { HOME: root, COPILOT_ALLOW_ALL: "true" };
    expect(gatherCopilotFacts(root, env)).toMatchObject({ edited: [], wrongHooks: [], olderHooks: ["postToolUse"] });
    expect(actions(uninstallCopilot({ root, dryRun: true }).changes)).toMatchObject({ [HOOKS_FILE]: "remove" });
    expect(install().hooks).toBe("updated");
    expect(readFileSync(file, "utf8")).toContain('"matcher": "task"');
    expect(gatherCopilotFacts(root, env)).toMatchObject({ edited: [], wrongHooks: [], olderHooks: [] });
  });

  it("twice changes nothing", () => {
    install();
    const again = install();
    expect(again.changes.every((c) => c.action === "unchanged")).toBe(true);
    expect(again).toMatchObject({ hooks: "already there", gitignore: "lines already there" });
  });

  it("--dry-run writes nothing", () => {
    const result = install(true);
    expect(result.changes.length).toBeGreaterThan(10);
    expect(existsSync(join(root, ".github"))).toBe(false);
    expect(existsSync(join(root, ".gitignore"))).toBe(false);
  });

  it("a file it did not write is never overwritten; one the person edited is kept", () => {
    mkdirSync(github("agents"), { recursive: true });
    writeFileSync(github("agents/pm.agent.md"), "the person's own pm\n");
    install();
    expect(readFileSync(github("agents/pm.agent.md"), "utf8")).toBe("the person's own pm\n");
    writeFileSync(github("hooks/dotagent.json"), "{}\n");
    const again = install();
    expect(actions(again.changes)).toMatchObject({ "agents/pm.agent.md": "skip", "hooks/dotagent.json": "keep" });
    expect(again.hooks).toBe("untouched");
    expect(readFileSync(github("hooks/dotagent.json"), "utf8")).toBe("{}\n");
  });

  it("--uninstall removes exactly what it added and nobody changed, the .gitignore lines too", () => {
    mkdirSync(github("workflows"), { recursive: true });
    writeFileSync(github("workflows/ci.yml"), "on: push\n");
    install();
    writeFileSync(github("skills/status/SKILL.md"), "edited\n");
    const result = uninstallCopilot({ root, dryRun: false });
    expect(result.hooks).toBe("removed");
    expect(actions(result.changes)).toMatchObject({
      "skills/status/SKILL.md": "keep",
      "hooks/dotagent.json": "remove",
      [COPILOT_MANIFEST]: "remove",
    });
    expect(readFileSync(github("workflows/ci.yml"), "utf8")).toBe("on: push\n");
    expect(readFileSync(github("skills/status/SKILL.md"), "utf8")).toBe("edited\n");
    expect(existsSync(github("hooks"))).toBe(false);
    expect(existsSync(github("agents"))).toBe(false);
    expect(existsSync(join(root, ".gitignore"))).toBe(false);
  });

  it("--uninstall without an install is refused", () => {
    expect(() => uninstallCopilot({ root, dryRun: false })).toThrow(/not installed for Copilot/);
  });

  it("a crafted manifest entry that leads out of .github/ is reported and never removed", () => {
    install();
    const outside = join(root, "keep.txt");
    writeFileSync(outside, "mine\n");
    const file = github(COPILOT_MANIFEST);
    const manifest = JSON.parse(readFileSync(file, "utf8")) as { files: Array<{ path: string; sha256: string }> };
    manifest.files.push({ path: "../keep.txt", sha256: "0".repeat(64) });
    writeFileSync(file, JSON.stringify(manifest));
    const result = uninstallCopilot({ root, dryRun: false });
    expect(result.changes.find((c) => c.path === "../keep.txt")).toMatchObject({ action: "skip" });
    expect(readFileSync(outside, "utf8")).toBe("mine\n");
  });
});
