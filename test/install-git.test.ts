// `dotagent install` in a git repository: the .gitignore lines it writes keep memory/'s
// machine-local files (runner sessions, checkpoints, archives, once records, lock and temps) out
// of git, while the reports and the three state files — the team's record — are offered for
// commit (SPEC §11). Checked with git itself, on a workflow that made each kind of file.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { dotagent, removeTemps, tempProject, writeJson } from "./support/cli.js";

afterEach(removeTemps);

function git(cwd: string, ...args: string[]): string {
  const result = spawnSync("git", args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", HOME: cwd },
  });
  if (result.status !== 0 && args[0] !== "check-ignore") throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
  return result.stdout;
}

describe("install and git", () => {
  it("git offers the reports and the state files for commit and ignores the machine-local files", () => {
    const p = tempProject();
    git(p, "init", "-q");
    writeFileSync(join(p, ".gitignore"), "node_modules/\n");
    const home = tempProject();
    const install = dotagent(p, ["install", "--json"], { env: { HOME: home } });
    expect(install.code, install.stderr).toBe(0);
    expect(install.json.gitignore).toBe("lines added");

    // A workflow that has made every kind of file memory/ holds.
    expect(dotagent(p, ["init", "--request", "add login"]).code).toBe(0);
    writeJson(p, "memory/reports/demand.json", { stories: ["sign in"] });
    expect(dotagent(p, ["phase", "approve"]).code).toBe(0); // a checkpoint in .history/
    expect(dotagent(p, ["once", "wf-add-login-note", "--", process.execPath, "-e", "0"]).code).toBe(0); // once/
    expect(dotagent(p, ["archive", "--reason", "test"]).code).toBe(0); // .archive/
    mkdirSync(join(p, "memory/runs/wf-add-login"), { recursive: true });
    writeFileSync(join(p, "memory/runs/wf-add-login/pm.json"), "{}");
    writeFileSync(join(p, "memory/state/.lock"), "{}");
    writeFileSync(join(p, "memory/state/phase.json.12345"), "");
    expect(dotagent(p, ["init", "--request", "add search", "--yes"]).code).toBe(0);
    writeJson(p, "memory/reports/demand.json", { stories: ["search"] });

    const offered = git(p, "status", "--porcelain", "--untracked-files=all")
      .split("\n")
      .filter(Boolean)
      .map((l) => l.slice(3));
    expect(offered).toEqual(
      expect.arrayContaining([
        ".gitignore",
        ".claude/settings.json",
        ".claude/skills/checkpoint/scripts/dotagent.mjs",
        ".claude/skills/checkpoint/scripts/dotagent.cjs",
        "memory/reports/demand.json",
        "memory/state/phase.json",
        "memory/state/events.jsonl",
      ]),
    );
    const machineLocal = offered.filter((f) =>
      /^memory\/(runs|state\/(\.history|\.archive|once|\.lock|phase\.json\.))/.test(f),
    );
    expect(machineLocal).toEqual([]);
    const ignored = git(
      p,
      "check-ignore",
      "memory/runs/wf-add-login/pm.json",
      "memory/state/.lock",
      "memory/state/phase.json.12345",
      "memory/state/once/x/op.json",
      "memory/state/.history/3/phase.json",
      "memory/state/.archive/a.tar.gz",
      "memory/state/phase.json",
      "memory/reports/demand.json",
    );
    expect(ignored.split("\n").filter(Boolean)).toEqual([
      "memory/runs/wf-add-login/pm.json",
      "memory/state/.lock",
      "memory/state/phase.json.12345",
      "memory/state/once/x/op.json",
      "memory/state/.history/3/phase.json",
      "memory/state/.archive/a.tar.gz",
    ]);

    const uninstall = dotagent(p, ["install", "--uninstall", "--json"], { env: { HOME: home } });
    expect(uninstall.json.gitignore).toBe("lines removed");
    expect(readFileSync(join(p, ".gitignore"), "utf8")).toBe("node_modules/\n");
  });
});
