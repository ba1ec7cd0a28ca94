// `dotagent install --client …` and `dotagent doctor --client copilot` as a person runs them (the
// built CLI): the options, the exit codes, the JSON, and the round trip install → uninstall.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { dotagent, removeTemps, tempProject } from "../support/cli.js";

afterEach(removeTemps);

describe("install --client", () => {
  it("an unknown client, or copilot with --scope user: usage errors (exit 2), nothing written", () => {
    const p = tempProject();
    expect(dotagent(p, ["install", "--client", "codexx"]).code).toBe(2);
    expect(dotagent(p, ["install", "--client", "copilot", "--scope", "user"]).code).toBe(2);
    expect(existsSync(join(p, ".github"))).toBe(false);
    expect(existsSync(join(p, ".claude"))).toBe(false);
  });

  it("copilot: --json result, a second run changes nothing, --uninstall takes it all out again", () => {
    const p = tempProject();
    const first = dotagent(p, ["install", "--client", "copilot", "--json"]);
    expect(first.code).toBe(0);
    expect(first.json).toMatchObject({ client: "copilot", scope: "project", target: join(p, ".github"), dry_run: false, hooks: "added" });
    expect(existsSync(join(p, "memory/reports/tasks"))).toBe(true);
    expect(existsSync(join(p, ".claude"))).toBe(false);
    const again = dotagent(p, ["install", "--client", "copilot", "--json"]).json as { changes: Array<{ action: string }>; hooks: string };
    expect(again.changes.every((c) => c.action === "unchanged")).toBe(true);
    expect(again.hooks).toBe("already there");
    const removed = dotagent(p, ["install", "--client", "copilot", "--uninstall", "--json"]);
    expect(removed.code).toBe(0);
    expect(removed.json).toMatchObject({ hooks: "removed", gitignore: "lines removed" });
    expect(existsSync(join(p, ".github"))).toBe(false);
    expect(dotagent(p, ["install", "--client", "copilot", "--uninstall"]).code).toBe(1);
  });
});

describe("doctor --client copilot", () => {
  it("not installed: fails (exit 1) with the install command", () => {
    const p = tempProject();
    const r = dotagent(p, ["doctor", "--client", "copilot", "--json"], { env: { HOME: join(p, "home") } });
    expect(r.code).toBe(1);
    expect((r.json as { checks: Array<{ name: string; status: string; fix: string }> }).checks.find((c) => c.name === "install")).toMatchObject({ status: "fail", fix: "run `dotagent install --client copilot` in the project" });
  });

  it("installed, folder untrusted: a warning that no hook would run; trusted: all good", () => {
    const p = tempProject();
    const home = join(p, "home");
    expect(dotagent(p, ["install", "--client", "copilot"], { env: { HOME: home } }).code).toBe(0);
    const untrusted = dotagent(p, ["doctor", "--client", "copilot", "--json"], { env: { HOME: home } });
    expect(untrusted.code).toBe(0);
    const trust = (r: typeof untrusted) => (r.json as { checks: Array<{ name: string; status: string }> }).checks.find((c) => c.name === "trust")?.status;
    expect(trust(untrusted)).toBe("warn");
    mkdirSync(join(home, ".copilot"), { recursive: true });
    writeFileSync(join(home, ".copilot", "config.json"), `// User settings belong in settings.json.\n// This file is managed automatically.\n${JSON.stringify({ trustedFolders: [p] })}\n`);
    const trusted = dotagent(p, ["doctor", "--client", "copilot", "--json"], { env: { HOME: home } });
    expect(trust(trusted)).toBe("ok");
    expect((trusted.json as { checks: Array<{ status: string }> }).checks.every((c) => c.status === "ok")).toBe(true);
  });
});
