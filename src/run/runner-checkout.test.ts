// Git settled up front (SPEC §19): `dotagent run` on a terminal asks about the person's
// uncommitted changes before the first agent runs, with three plain answers, and never counts
// dotagent's own files (memory/, .dotagent/, .claude/, the .gitignore lines install wrote).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { GITIGNORE_LINES } from "../claude/gitignore.js";
import { good, harness, personSaying, type Writer } from "./stand-in-sdk.test-support.js";
import { runWorkflow } from "./runner.js";

const git = (cwd: string, ...args: string[]) =>
  spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, encoding: "utf8" }).stdout.trim();
const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Record<string, any>;

/** A committed project, then what `dotagent install` leaves uncommitted, and (`notes`) one file of the person's. */
function project(writer: Writer, notes: boolean) {
  return harness(writer, (root) => {
    git(root, "init", "-q", "-b", "main");
    writeFileSync(join(root, "README.md"), "# app\n");
    git(root, "add", "-A");
    git(root, "commit", "-qm", "initial");
    writeFileSync(join(root, ".gitignore"), `\n${GITIGNORE_LINES.join("\n")}\n`);
    mkdirSync(join(root, ".claude"), { recursive: true });
    writeFileSync(join(root, ".claude", "settings.json"), "{}\n");
    if (notes) writeFileSync(join(root, "notes.txt"), "half-done\n");
  });
}

const START =
  /^The main checkout has uncommitted changes \(notes\.txt\)\. The tasks will each work in a git worktree made from the last commit of main/;

describe("dotagent run: the checkout is settled before the first agent runs", () => {
  test("only dotagent's own files uncommitted (after install): nothing is asked, tasks get worktrees", async () => {
    const h = project(good, false);
    const asked = personSaying();
    expect(await runWorkflow(h.options({ ask: asked.asker }))).toMatchObject({ outcome: "complete" });
    expect(asked.asked).toEqual([]);
    expect(readJson(join(h.root, "memory/state/execution.json")).isolation).toMatchObject({
      mode: "worktree",
      branch: "main",
    });
  });

  test("commit them now: one commit before any agent, then worktrees and no question mid-run", async () => {
    const h = project(good, true);
    let sessionsWhenAsked = -1;
    const asked = personSaying((q) => ((sessionsWhenAsked = h.sessions.length), q && "Commit them now"));
    expect(await runWorkflow(h.options({ ask: asked.asker }))).toMatchObject({ outcome: "complete" });
    expect(asked.asked).toHaveLength(1);
    expect(asked.asked[0]).toMatch(START);
    expect(sessionsWhenAsked).toBe(0);
    expect(git(h.root, "show", "main:notes.txt")).toBe("half-done");
    // dotagent's own files were not part of it.
    expect(git(h.root, "show", "--name-only", "--format=", ":/work in progress")).toBe("notes.txt");
    expect(h.lines).toContainEqual(
      expect.stringMatching(/committed 1 file of yours \(notes\.txt\); each task gets its own worktree/),
    );
    expect(readJson(join(h.root, "memory/state/execution.json")).isolation).toMatchObject({ mode: "worktree" });
  });

  test("run the tasks without worktrees: remembered for the workflow, not asked again when the tasks start", async () => {
    const h = project(good, true);
    const asked = personSaying("Run the tasks without worktrees");
    expect(await runWorkflow(h.options({ ask: asked.asker }))).toMatchObject({ outcome: "complete" });
    expect(asked.asked).toHaveLength(1);
    expect(readJson(join(h.root, "memory/state/execution.json")).isolation).toMatchObject({
      mode: "shared",
      reason: expect.stringMatching(/chose/),
    });
    expect(h.lines).toContainEqual(
      expect.stringMatching(/the tasks run without worktrees, as you chose when the workflow started/),
    );
    expect(git(h.root, "status", "--porcelain", "notes.txt")).toBe("?? notes.txt");
  });

  test("stop and let me handle it: nothing starts, a calm stop (exit 130), the changes untouched", async () => {
    const h = project(good, true);
    const asked = personSaying("Stop and let me handle it");
    await expect(runWorkflow(h.options({ ask: asked.asker }))).rejects.toMatchObject({
      code: "interrupted",
      exitCode: 130,
      message:
        "stopped, as you chose: commit or stash your changes, then `dotagent run 'add login'` starts the workflow",
    });
    expect(h.sessions).toEqual([]);
    expect(existsSync(join(h.root, "memory/state/phase.json"))).toBe(false);
    expect(git(h.root, "status", "--porcelain", "notes.txt")).toBe("?? notes.txt");
    // The command that starts it again names the workflow it was asked for (issue 42).
    const fix = personSaying("Stop and let me handle it");
    await expect(
      runWorkflow(h.options({ ask: fix.asker, workflow: "fix", request: "login fails with +" })),
    ).rejects.toMatchObject({
      message:
        "stopped, as you chose: commit or stash your changes, then `dotagent run --workflow fix 'login fails with +'` starts the workflow",
    });
  });

  test("no terminal: nothing asked at the start; the tasks step stops with the decision (exit 5), as before", async () => {
    const h = project(good, true);
    expect(await runWorkflow(h.options())).toMatchObject({
      outcome: "decision",
      decision: { yes: "dotagent resume --isolation commit", no: "dotagent resume --isolation shared" },
    });
    expect(h.sessions.map((s) => s.agent)).not.toContain("executor");
  });

  test("changes made after the start are asked about when the tasks start, with the same three answers", async () => {
    const h = project((agent, prompt, output) => {
      if (agent === "pm") writeFileSync(join(h.root, "scratch.txt"), "the pm's stray file\n");
      return good(agent, prompt, output);
    }, false);
    const asked = personSaying("Stop and let me handle it");
    await expect(runWorkflow(h.options({ ask: asked.asker }))).rejects.toMatchObject({
      code: "interrupted",
      exitCode: 130,
    });
    expect(asked.asked).toHaveLength(1);
    expect(asked.asked[0]).toMatch(
      /^The main checkout has uncommitted changes \(scratch\.txt\)\. Each task works in its own git worktree made from the last commit of main, so the tasks would not see them\.$/,
    );
    expect(h.sessions.map((s) => s.agent)).not.toContain("executor");
    expect(readJson(join(h.root, "memory/state/phase.json")).current_phase).toBe("IMPLEMENTATION");
  });
});
