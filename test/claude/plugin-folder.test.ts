// plugin/ is what a plugin install copies (issue 16): only what the plugin runs, built from the
// repository's own files by `npm run build`, and every path its skills and hook name resolves
// inside it (an installed copy lives under ~/.claude/plugins/cache, far from any checkout).
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve, sep } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
// @ts-expect-error a build script in plain JavaScript, without declarations
import { buildPlugin } from "../../scripts/build-plugin.mjs";
import { ROOT } from "./harness.js";

const PLUGIN = join(ROOT, "plugin");

function files(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.set(relative(dir, path).split(sep).join("/"), readFileSync(path));
    }
  };
  walk(dir);
  return out;
}

const temp = mkdtempSync(join(tmpdir(), "dotagent-plugin-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe("the lean plugin folder", () => {
  const shipped = files(PLUGIN);

  it("is exactly what scripts/build-plugin.mjs makes from the repository's files", () => {
    const fresh = files(buildPlugin(join(temp, "plugin")) as string);
    expect([...shipped.keys()].sort()).toEqual([...fresh.keys()].sort());
    for (const [path, bytes] of fresh)
      expect(shipped.get(path)?.equals(bytes), `plugin/${path} differs: run \`npm run build\``).toBe(true);
  });

  it("holds only what the plugin runs: no package.json, lock file or node_modules, under 1 MB", () => {
    const top = new Set([...shipped.keys()].map((p) => p.split("/")[0]));
    expect([...top].sort()).toEqual([".claude-plugin", "README.md", "agents", "hooks", "skills"]);
    for (const path of shipped.keys())
      expect(path).not.toMatch(/(^|\/)(package(-lock)?\.json|node_modules|npm-shrinkwrap\.json)(\/|$)/);
    const bytes = [...shipped.values()].reduce((sum, b) => sum + b.length, 0);
    expect(bytes).toBeLessThan(1024 * 1024);
  });

  it("every ${CLAUDE_PLUGIN_ROOT} and ${CLAUDE_SKILL_DIR} path resolves to a file inside the folder", () => {
    const found: string[] = [];
    for (const [path, bytes] of shipped) {
      if (!/\.(md|json)$/.test(path)) continue;
      const text = bytes.toString("utf8");
      for (const match of text.matchAll(/\$\{(CLAUDE_PLUGIN_ROOT|CLAUDE_SKILL_DIR)\}([^\s"'`)\\]*)/g)) {
        const base = match[1] === "CLAUDE_PLUGIN_ROOT" ? PLUGIN : join(PLUGIN, path, "..");
        const target = resolve(base, `.${match[2]}`);
        found.push(`${path}: ${match[0]}`);
        expect(target.startsWith(PLUGIN + sep), `${path}: ${match[0]} leaves the plugin`).toBe(true);
        expect(
          shipped.has(relative(PLUGIN, target).split(sep).join("/")),
          `${path}: ${match[0]} → ${target} does not exist`,
        ).toBe(true);
      }
    }
    // The hook and both skills name the helper this way.
    expect(found.some((f) => f.startsWith("hooks/hooks.json"))).toBe(true);
    expect(found.some((f) => f.startsWith("skills/develop/SKILL.md"))).toBe(true);
    expect(found.some((f) => f.startsWith("skills/checkpoint/SKILL.md"))).toBe(true);
  });

  it("carries the package's version and the helper built from this source", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
    expect(JSON.parse(shipped.get(".claude-plugin/plugin.json")!.toString()).version).toBe(pkg.version);
    expect(
      shipped.get("skills/checkpoint/scripts/dotagent.mjs")!.equals(readFileSync(join(ROOT, "dist/dotagent.mjs"))),
    ).toBe(true);
  });
});
