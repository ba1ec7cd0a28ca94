// Links planted where dotagent writes (SPEC §2 "Writes", issue 40): a clone can carry them, an
// agent can make them, and dotagent often runs as root, so a write that follows one replaces the
// file it points to (/etc/passwd, once). One named test per site class, each through the built
// CLI as a user or a hook runs it: the file outside the project keeps its bytes, and a refusal is
// one line with its exit code. Every link points to a "victim" file in this test's own temp
// folders (outside the project, never a system file).
import { afterEach, describe, expect, it } from "vitest";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { dotagent, expectNoStack, readJson, removeTemps, tempProject, writeJson } from "./support/cli.js";
import { typedPrompt } from "./support/typed-prompt.js";

afterEach(removeTemps);

const VICTIM = "the victim's bytes: nothing of dotagent's may land here\n";

/** A file outside the project (in another temp folder of this test), and that folder. */
function victim(): { file: string; folder: string } {
  const folder = tempProject();
  const file = join(folder, "victim.txt");
  writeFileSync(file, VICTIM);
  return { file, folder };
}

const expectUntouched = (v: { file: string; folder: string }) => {
  expect(readFileSync(v.file, "utf8")).toBe(VICTIM);
  expect(readdirSync(v.folder)).toEqual(["victim.txt"]);
};

/** A refusal: one line on stderr (plain) or the error JSON alone (--json), with its code and exit code. */
function expectRefused(
  r: { code: number; stdout: string; stderr: string; json: any },
  exit: number,
  code: string,
  words: RegExp,
): void {
  expect(r.code, r.stdout + r.stderr).toBe(exit);
  expect(r.json.error).toMatchObject({ code, message: expect.stringMatching(words) });
  expect(r.json.error.message).not.toContain("\n");
  expect(r.stdout.trim().split("\n")).toHaveLength(1);
  expectNoStack(r.stdout + r.stderr);
}

/** A project on a one-step workflow whose step is a shell command (`step run S` runs it). */
function atShellStep(): string {
  const p = tempProject();
  writeJson(p, ".dotagent/workflows/one.json", {
    description: "one shell step",
    steps: [{ id: "S", kind: "shell", run: "echo ran >> runs.txt" }],
  });
  expect(dotagent(p, ["init", "--workflow", "one", "--request", "x", "--json"]).code).toBe(0);
  return p;
}

describe("step run", () => {
  it("memory/state/.step-running.json a link to a file outside: the link is replaced, the file it pointed to keeps its bytes", () => {
    const p = atShellStep();
    const v = victim();
    symlinkSync(v.file, join(p, "memory/state/.step-running.json"));
    const run = dotagent(p, ["step", "run", "S", "--yes", "--json"]);
    expect([run.code, run.json.passed]).toEqual([0, true]);
    expectUntouched(v);
    expect(existsSync(join(p, "memory/state/.step-running.json"))).toBe(false); // the record goes with the result
  });

  it("memory/reports/steps a link to a folder outside: refused in one line (exit 3), nothing written there", () => {
    const p = atShellStep();
    const v = victim();
    symlinkSync(v.folder, join(p, "memory/reports/steps"));
    const run = dotagent(p, ["step", "run", "S", "--yes", "--json"]);
    expectRefused(
      run,
      3,
      "path_outside_project",
      /^memory\/reports\/steps is a link that leads out of the project \(to .+\); for the person: remove the link, then run the command again$/,
    );
    expect(run.json.error.path).toBe("memory/reports/steps");
    expectUntouched(v);
  });

  it("memory/reports/steps/S.json a link to a file outside: the link is replaced by the step's report", () => {
    const p = atShellStep();
    const v = victim();
    mkdirSync(join(p, "memory/reports/steps"), { recursive: true });
    symlinkSync(v.file, join(p, "memory/reports/steps/S.json"));
    expect(dotagent(p, ["step", "run", "S", "--yes", "--json"]).code).toBe(0);
    expectUntouched(v);
    expect(readJson(p, "memory/reports/steps/S.json")).toMatchObject({ step: "S", passed: true });
  });
});

describe("the person's pick (the UserPromptSubmit hook writes final_design.json)", () => {
  function atPick(): { p: string; helper: string } {
    const p = tempProject();
    expect(dotagent(p, ["install", "--json"], { env: { HOME: join(p, "home") } }).code).toBe(0);
    expect(dotagent(p, ["resume", "--json", "--start", "--request", "add login"]).code).toBe(0);
    const helper = join(p, ".claude/skills/checkpoint/scripts/dotagent.mjs");
    writeJson(p, "memory/reports/demand.json", {
      feature: "add login",
      user_stories: ["sign in"],
      acceptance: ["an error"],
    });
    personSays(p, helper, "approve");
    const tasks = [{ id: "task-001", title: "one", depends_on: [] }];
    for (const name of ["minimal", "robust"])
      writeJson(p, `memory/reports/designs/${name}.json`, { name, summary: name, tasks });
    writeJson(p, "memory/reports/roundtable.json", { recommendation: "minimal" });
    expect(dotagent(p, ["status", "--json"]).json.next).toMatchObject({ gate: "pick_design" });
    return { p, helper };
  }
  function personSays(p: string, helper: string, prompt: string): string {
    const r = dotagent(p, ["hook", "user-prompt-submit"], {
      input: JSON.stringify({ session_id: "s-1", cwd: p, ...typedPrompt(prompt).input }),
      env: { CLAUDE_PID: String(process.pid), CLAUDE_PROJECT_DIR: p },
      script: helper,
    });
    expect(r.code).toBe(0);
    return r.stdout;
  }

  it("final_design.json a link to a file outside: the pick replaces the link, the file it pointed to keeps its bytes", () => {
    const { p, helper } = atPick();
    const v = victim();
    symlinkSync(v.file, join(p, "memory/reports/final_design.json"));
    expect(personSays(p, helper, "robust")).toContain("the person picked robust");
    expectUntouched(v);
    expect(lstatSync(join(p, "memory/reports/final_design.json")).isFile()).toBe(true);
    expect(readJson(p, "memory/reports/final_design.json")).toMatchObject({ chosen: "robust", approved_by: "user" });
  });
});

describe("dotagent report", () => {
  it("memory/report.html a link to a file outside: the page replaces the link, the file it pointed to keeps its bytes", () => {
    const p = atShellStep();
    const v = victim();
    symlinkSync(v.file, join(p, "memory/report.html"));
    const report = dotagent(p, ["report", "--json"]);
    expect([report.code, report.json.path]).toEqual([0, "memory/report.html"]);
    expectUntouched(v);
    expect(readFileSync(join(p, "memory/report.html"), "utf8")).toMatch(/^<!doctype html>/i);
  });

  it("--out into a folder of the project that is a link out: refused in one line (exit 3)", () => {
    const p = atShellStep();
    const v = victim();
    symlinkSync(v.folder, join(p, "pages"));
    expectRefused(
      dotagent(p, ["report", "--out", "pages/run.html", "--json"]),
      3,
      "path_outside_project",
      /^pages is a link that leads out of the project/,
    );
    expectUntouched(v);
  });
});

describe("install's .gitignore, for every client", () => {
  const clients: Array<[string, string[], string]> = [
    ["claude", [], ".claude"],
    ["copilot", ["--client", "copilot"], ".github"],
    ["codex", ["--client", "codex"], ".codex"],
  ];

  it.each(clients)(
    "%s: a .gitignore that is a link out of the project is refused (gitignore_invalid, exit 1), nothing installed",
    (_client, args, folder) => {
      const p = tempProject();
      const v = victim();
      symlinkSync(v.file, join(p, ".gitignore"));
      const run = dotagent(p, ["install", ...args, "--json"], { env: { HOME: join(p, "home") } });
      expectRefused(
        run,
        1,
        "gitignore_invalid",
        /\.gitignore is a link that leads out of the project; fix it \(dotagent changed nothing\)/,
      );
      expectUntouched(v);
      expect(existsSync(join(p, folder))).toBe(false);
      expect(lstatSync(join(p, ".gitignore")).isSymbolicLink()).toBe(true);
    },
  );

  it.each(clients)(
    "%s: a .gitignore that is a link to a file inside the project is followed: the lines land in that file",
    (_client, args) => {
      const p = tempProject();
      writeFileSync(join(p, "shared.gitignore"), "node_modules/\n");
      symlinkSync(join(p, "shared.gitignore"), join(p, ".gitignore"));
      expect(dotagent(p, ["install", ...args, "--json"], { env: { HOME: join(p, "home") } }).json.gitignore).toBe(
        "lines added",
      );
      expect(lstatSync(join(p, ".gitignore")).isSymbolicLink()).toBe(true);
      expect(readFileSync(join(p, "shared.gitignore"), "utf8")).toMatch(
        /^node_modules\/\n\n# dotagent: [^\n]*\n\/memory\/runs\/\n[\s\S]*\/memory\/state\/\.step-running\.json\*\n\/memory\/state\/\.pending-reply\.json\*\n\/memory\/report\.html\n/,
      );
    },
  );
});

describe("the state files themselves", () => {
  it("memory/state/phase.json a link to a file outside: refused before anything is read or written (state_path_invalid, exit 3)", () => {
    const p = atShellStep();
    const v = victim();
    const phase = join(p, "memory/state/phase.json");
    writeFileSync(v.file, readFileSync(phase));
    const before = readFileSync(v.file, "utf8");
    rmSync(phase);
    symlinkSync(v.file, phase);
    for (const args of [
      ["step", "run", "S", "--yes", "--json"],
      ["resume", "--json"],
    ]) {
      expectRefused(dotagent(p, args), 3, "state_path_invalid", /^memory\/state\/phase\.json is a symbolic link/);
    }
    expect(readFileSync(v.file, "utf8")).toBe(before);
  });

  it("memory/state a link to a folder outside: refused, nothing written there", () => {
    const p = tempProject();
    const v = victim();
    mkdirSync(join(p, "memory"));
    symlinkSync(v.folder, join(p, "memory/state"));
    expectRefused(
      dotagent(p, ["init", "--request", "x", "--json"]),
      3,
      "state_path_invalid",
      /^memory\/state is a symbolic link/,
    );
    expectUntouched(v);
  });
});
