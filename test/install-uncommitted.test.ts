// Issue 42: after `dotagent install --client copilot` (or codex) in a git project, left
// uncommitted, the round's tasks asked the person whether to commit "their" uncommitted changes:
// the files dotagent itself had just written. The Claude Code install's `.claude/` never counted.
// Now, in all three clients, what an install wrote (and nobody changed since) is dotagent's own
// (SPEC §19): no question for it, and the person's "yes" does not commit it; the executors never
// needed it in their worktrees (their hooks and agents come from the main checkout's session).
// Whatever the person changed, inside an install's files too, is still asked about.
import { createHash } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { dotagent, removeTemps, tempProject } from "./support/cli.js";
import { git, ok, projectAtImplementation, startTask, stopOwner } from "./support/worktree-project.js";

afterEach(async () => {
  await stopOwner();
  removeTemps();
});

const CLIENTS = [
  { client: "claude", args: [] },
  { client: "copilot", args: ["--client", "copilot"] },
  { client: "codex", args: ["--client", "codex"] },
] as const;

/** A git project at IMPLEMENTATION (one task planned), the client installed and not committed. */
function installedNotCommitted(args: readonly string[]): string {
  const root = projectAtImplementation([{ id: "t1" }]);
  ok(dotagent(root, ["install", ...args, "--json"], { env: { HOME: tempProject() } }));
  expect(git(root, "status", "--porcelain")).not.toBe("?? memory/");
  return root;
}

const sha256 = (bytes: string | Buffer) => createHash("sha256").update(bytes).digest("hex");

const question = (root: string) => {
  const plan = dotagent(root, ["resume", "--json", "--dry-run"]);
  return { code: plan.code, action: plan.json.next.action, question: plan.json.decision?.question ?? null };
};

describe("an install left uncommitted is dotagent's own, in every client", () => {
  it.each(CLIENTS)("$client: no uncommitted-changes question; the task gets its worktree", ({ args }) => {
    const root = installedNotCommitted(args);
    const before = git(root, "status", "--porcelain");
    expect(question(root)).toEqual({ code: 0, action: "run_tasks", question: null });
    const started = startTask(root, "t1");
    expect(started.run.code, started.run.stdout).toBe(0);
    expect(started.dir).toBeDefined();
    expect(existsSync(join(started.dir!, "README.md"))).toBe(true);
    // Nothing committed for the person: the install is still theirs to commit, as its closing line says.
    expect(git(root, "status", "--porcelain")).toBe(before);
  });

  it.each(CLIENTS)(
    "$client: the person's own change is asked about alone, and their yes commits it, not the install",
    ({ args }) => {
      const root = installedNotCommitted(args);
      const installed = git(root, "status", "--porcelain");
      writeFileSync(join(root, "README.md"), "# app, edited by the person\n");
      const asked = question(root);
      expect(asked).toMatchObject({ code: 5, action: "confirm_isolation" });
      expect(asked.question).toContain("The main checkout has uncommitted changes (README.md).");
      const yes = ok(dotagent(root, ["resume", "--isolation", "commit", "--json"])).json;
      expect(yes.next).toMatchObject({ action: "run_tasks", tasks: ["t1"] });
      expect(git(root, "show", "--name-only", "--format=", "HEAD")).toBe("README.md");
      expect(git(root, "status", "--porcelain")).toBe(installed);
    },
  );

  // Claude Code's `.claude/` stays dotagent's whole (SPEC §19): the session's own settings folder, which
  // Claude Code writes too (settings.local.json) and a landing never merges. Copilot's and Codex's
  // files sit beside the person's own (.github/workflows, .codex/config.toml): counted file by file.
  it.each([
    { client: "copilot", args: ["--client", "copilot"], edited: ".github/agents/executor.agent.md" },
    { client: "codex", args: ["--client", "codex"], edited: ".codex/agents/executor.toml" },
  ])("$client: an installed file the person edited is theirs", ({ args, edited }) => {
    const root = installedNotCommitted(args);
    appendFileSync(join(root, edited), "\nthe person's own note\n");
    expect(question(root).question).toContain(`The main checkout has uncommitted changes (${edited}).`);
  });

  it("copilot: the person's own file beside the install's in .github/ is theirs", () => {
    const root = installedNotCommitted(["--client", "copilot"]);
    mkdirSync(join(root, ".github/workflows"), { recursive: true });
    writeFileSync(join(root, ".github/workflows/ci.yml"), "on: push\n");
    expect(question(root).question).toContain("The main checkout has uncommitted changes (.github/workflows/ci.yml).");
  });

  it("the install committed, then installed again after an upgrade (files rewritten as install records them): still no question", () => {
    const root = installedNotCommitted(["--client", "copilot"]);
    git(root, "add", "-A", ".github", ".gitignore");
    git(root, "commit", "-qm", "dotagent for copilot");
    // A file install wrote, as an older version wrote and recorded it: the next install rewrites it.
    const older = "an older SKILL.md\n";
    writeFileSync(join(root, ".github/skills/status/SKILL.md"), older);
    const file = join(root, ".github/.dotagent-copilot-install.json");
    const manifest = JSON.parse(readFileSync(file, "utf8"));
    for (const f of manifest.files) if (f.path === "skills/status/SKILL.md") f.sha256 = sha256(older);
    writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
    git(root, "commit", "-qam", "an older install");
    ok(dotagent(root, ["install", "--client", "copilot", "--json"]));
    expect(git(root, "status", "--porcelain")).toMatch(/skills\/status\/SKILL\.md/);
    expect(question(root)).toEqual({ code: 0, action: "run_tasks", question: null });
  });

  it("Codex's hooks.json with the person's own hook: dotagent's entries are its own, the person's edit is theirs", () => {
    const root = projectAtImplementation([{ id: "t1" }]);
    const own = { hooks: { Stop: [{ hooks: [{ type: "command", command: "echo stopped", timeout: 5 }] }] } };
    mkdirSync(join(root, ".codex"), { recursive: true });
    writeFileSync(join(root, ".codex/hooks.json"), `${JSON.stringify(own, null, 2)}\n`);
    git(root, "add", "-A", ".codex");
    git(root, "commit", "-qm", "the person's codex hook");
    ok(dotagent(root, ["install", "--client", "codex", "--json"]));
    expect(git(root, "status", "--porcelain", ".codex/hooks.json")).toBe("M .codex/hooks.json");
    expect(question(root)).toEqual({ code: 0, action: "run_tasks", question: null });
    const merged = JSON.parse(readFileSync(join(root, ".codex/hooks.json"), "utf8"));
    merged.hooks.Stop[0].hooks[0].command = "echo stopped, edited";
    writeFileSync(join(root, ".codex/hooks.json"), JSON.stringify(merged));
    expect(question(root).question).toContain("The main checkout has uncommitted changes (.codex/hooks.json).");
  });

  it("a manifest naming a file install never writes does not hide the person's change to it", () => {
    const root = installedNotCommitted(["--client", "codex"]);
    writeFileSync(join(root, "README.md"), "# app, edited by the person\n");
    const file = join(root, ".codex/.dotagent-install.json");
    const manifest = JSON.parse(readFileSync(file, "utf8"));
    manifest.files.push({ path: "README.md", sha256: sha256(readFileSync(join(root, "README.md"))) });
    writeFileSync(file, JSON.stringify(manifest));
    expect(question(root).question).toContain("The main checkout has uncommitted changes (README.md).");
  });
});
