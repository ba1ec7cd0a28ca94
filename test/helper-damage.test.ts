// A copy of the helper that cannot run (issue 41): every command it serves fails with
// `helper_damaged` or "a half of it is missing" and says "reinstall dotagent", but install kept
// any installed file whose bytes changed as the person's edit, the damaged helper with it. Now a
// helper that cannot run is replaced, and doctor names it. The checks run on the built CLI.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { helperDamage, isHelper } from "../src/install/helper-damage.js";
import { CLI, REPO, dotagent, installedProject, removeTemps, tempProject } from "./support/cli.js";

afterEach(() => removeTemps());

const built = readFileSync(CLI);
/** The built helper with `length` bytes put in place at `at` bytes after `marker`'s start. */
const changed = (marker: string, after: number, bytes: string) => {
  const at = built.indexOf(marker) + after;
  return Buffer.concat([built.subarray(0, at), Buffer.from(bytes, "latin1"), built.subarray(at + bytes.length)]);
};

describe("helperDamage", () => {
  it("a helper as built runs; cut short, its cold half changed or its hot half changed, it says which", () => {
    expect(isHelper(built)).toBe(true);
    expect(isHelper(Buffer.from("# a skill\n"))).toBe(false);
    expect(helperDamage(built)).toBeNull();
    // An edit that keeps both halves whole is an edit, not damage.
    expect(helperDamage(Buffer.concat([built, Buffer.from("\n// the person's note\n")]))).toBeNull();
    expect(helperDamage(built.subarray(0, Math.floor(built.length * 0.6)))).toBe("a half of it is missing");
    expect(helperDamage(changed("/*\x01C", 1000, "A".repeat(100)))).toBe("its cold half does not unpack");
    expect(helperDamage(changed("/*\x01H", 200_000, "((((("))).toBe("its hot half does not parse");
  });
});

describe("an installed helper that cannot run", () => {
  const doctorCheck = (p: string) =>
    (
      dotagent(p, ["doctor", "--json"], { env: { HOME: join(p, "home") } }).json.checks as Array<
        Record<string, unknown>
      >
    )
      .filter((c) => c.name === "helper" || c.name === "install")
      .map(({ name, status, message, fix }) => ({ name, status, message, fix }));

  it("doctor fails on it and names the fix; install replaces it (and only it), then both are fine", () => {
    const { p, helper } = installedProject();
    writeFileSync(helper, built.subarray(0, Math.floor(built.length / 2)));
    const where = `project (${join(p, ".claude")})`;
    expect(doctorCheck(p)).toEqual([
      expect.objectContaining({ name: "install", status: "ok" }),
      {
        name: "helper",
        status: "fail",
        message: `${where}: the helper skills/checkpoint/scripts/dotagent.mjs is cut short or edited (a half of it is missing), so the skills cannot run it`,
        fix: "run `dotagent install` (it replaces a helper that cannot run)",
      },
    ]);
    expect((doctorCheck(p)[0] as { message: string }).message).not.toContain("edited by you");

    const install = dotagent(p, ["install", "--json"], { env: { HOME: join(p, "home") } });
    expect(install.code).toBe(0);
    const changes = install.json.changes as Array<{ action: string; path: string; reason?: string }>;
    expect(changes.filter((c) => c.action !== "unchanged")).toEqual([
      {
        action: "update",
        path: "skills/checkpoint/scripts/dotagent.mjs",
        reason: "the helper is cut short or edited (a half of it is missing): replaced",
      },
    ]);
    expect(readFileSync(helper).equals(built)).toBe(true);
    expect(doctorCheck(p).filter((c) => c.status === "fail")).toEqual([]);
  });

  it("a helper the person edited that still runs is theirs: kept, as any edited file", () => {
    const { p, helper } = installedProject();
    const edited = Buffer.concat([built, Buffer.from("\n// the person's note\n")]);
    writeFileSync(helper, edited);
    const install = dotagent(p, ["install", "--json"], { env: { HOME: join(p, "home") } });
    expect(install.code).toBe(0);
    expect(install.json.changes).toContainEqual(
      expect.objectContaining({ action: "keep", path: "skills/checkpoint/scripts/dotagent.mjs" }),
    );
    expect(readFileSync(helper).equals(edited)).toBe(true);
  });
});

describe.each([
  {
    client: "copilot",
    helper: ".github/skills/checkpoint/scripts/dotagent.mjs",
    dest: "skills/checkpoint/scripts/dotagent.mjs",
  },
  {
    client: "codex",
    helper: ".agents/skills/checkpoint/scripts/dotagent.mjs",
    dest: ".agents/skills/checkpoint/scripts/dotagent.mjs",
  },
])("$client: an installed helper that cannot run", ({ client, helper, dest }) => {
  it("doctor fails on it; install replaces it", () => {
    const p = tempProject();
    const env = { HOME: join(p, "home") };
    expect(dotagent(p, ["install", "--client", client, "--json"], { env }).code).toBe(0);
    writeFileSync(join(p, helper), changed("/*\x01C", 1000, "A".repeat(100)));
    const checks = dotagent(p, ["doctor", "--client", client, "--json"], { env }).json.checks as Array<
      Record<string, unknown>
    >;
    expect(checks.filter((c) => c.name === "helper")).toEqual([
      expect.objectContaining({
        status: "fail",
        message: expect.stringContaining(
          "is cut short or edited (its cold half does not unpack), so the skills cannot run it",
        ),
        fix: expect.stringContaining("(it replaces a helper that cannot run)"),
      }),
    ]);
    const install = dotagent(p, ["install", "--client", client, "--json"], { env });
    expect(install.code).toBe(0);
    expect(install.json.changes).toContainEqual({
      action: "update",
      path: dest,
      reason: "the helper is cut short or edited (its cold half does not unpack): replaced",
    });
    expect(readFileSync(join(p, helper)).equals(built)).toBe(true);
  });
});

describe("a plugin's helper that cannot run", () => {
  it("doctor fails on it with the plugin's update as the fix", () => {
    const p = tempProject();
    const config = join(p, "claude-config");
    const plugin = join(p, "plugin-copy");
    cpSync(join(REPO, "plugin"), plugin, { recursive: true });
    writeFileSync(join(plugin, "skills/checkpoint/scripts/dotagent.mjs"), built.subarray(0, 4096));
    mkdirSync(join(config, "plugins"), { recursive: true });
    writeFileSync(
      join(config, "plugins/installed_plugins.json"),
      JSON.stringify({ version: 2, plugins: { "dotagent@local": [{ installPath: plugin, version: "x" }] } }),
    );
    const run = dotagent(p, ["doctor", "--json"], { env: { HOME: join(p, "home"), CLAUDE_CONFIG_DIR: config } });
    expect((run.json.checks as Array<Record<string, unknown>>).filter((c) => c.name === "helper")).toEqual([
      {
        name: "helper",
        status: "fail",
        message: `plugin dotagent@local (${plugin}): the helper skills/checkpoint/scripts/dotagent.mjs is cut short or edited (a half of it is missing), so the skills cannot run it`,
        fix: "run `claude plugin update dotagent@local`, or uninstall and install it again",
        client: "claude",
      },
    ]);
  });
});
