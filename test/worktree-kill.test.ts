// kill -9 at each git step of a task's start and of its landing (SPEC §19), then what a person or
// a session does next (`dotagent resume`, the start again, the task completed again): the workflow
// branch holds the task's commits exactly once or not at all, never half, `git fsck` is clean, no
// stale index.lock or half-written file is left in the main checkout, and in the end no worktree
// or task branch is left. The kills land through test/torture/git-kill-at.mjs, preloaded into the
// built CLI: right before or right after the n-th git command it runs. The default matrix takes
// every git command that changes something (a commit, the worktree, a ref, the checkout);
// WORKTREE_KILLS=all takes every git command, read-only ones too. Two kills git itself could
// suffer are staged by hand: a fast-forward cut off with a stale index.lock and a file half
// written, and a person's edit of that file meanwhile (nothing of theirs is overwritten). The
// start's mend of a worktree left on another branch (SPEC §19 "Mending") gets the same matrix:
// after any kill the next start finishes it and the work lands whole.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, REPO, dotagent, removeTemps } from "./support/cli.js";
import {
  deadPid,
  executorWork,
  expectFsckClean,
  git,
  projectAtImplementation,
  taskBranches,
  taskOf,
  taskWorktrees,
  timesMerged,
} from "./support/worktree-project.js";

const PRELOAD = join(REPO, "test/torture/git-kill-at.mjs");
const ALL = process.env.WORKTREE_KILLS === "all";
/**
 * `npm test` (CI) kills at every third point of the matrix below, the first and the last always
 * among them, with the stride's offset moving from one matrix to the next so that together they
 * reach every kind of point; WORKTREE_KILLS=mutating kills at every point of it, WORKTREE_KILLS=all
 * before and after every git command (`npm run torture:worktrees`, CONTRIBUTING.md). Each kill is
 * a spawned CLI and a copied project: on a 2-core VM the whole matrix is a minute of CI by itself.
 */
const STRIDE = ALL || process.env.WORKTREE_KILLS === "mutating" ? 1 : 3;
let matrices = 0;
/** Git commands that change something (the rest only read). */
const MUTATING =
  /^(worktree (add|remove|lock|unlock|prune)|commit |commit-tree |add |update-index |restore |merge --ff-only|update-ref |checkout |rm |symbolic-ref |switch )/;

let work = "";
const templates: Record<string, string> = {};

/** The CLI with the kill preload: killed before/after its n-th git command, or logging them all. */
function killedCli(
  cwd: string,
  args: string[],
  env: Record<string, string>,
): { code: number | null; signal: NodeJS.Signals | null; stdout: string } {
  const run = spawnSync(process.execPath, ["--import", PRELOAD, CLI, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", DOTAGENT_LOCK_WAIT_MS: "2000", ...env },
  });
  return { code: run.status, signal: run.signal, stdout: run.stdout };
}

/** A copy of a project, its worktrees' links to the repository pointed at the copy. */
function cloneProject(from: string): string {
  const to = mkdtempSync(join(work, "case-"));
  cpSync(from, to, { recursive: true, verbatimSymlinks: true });
  const admin = join(to, ".git", "worktrees");
  for (const name of existsSync(admin) ? readdirSync(admin) : []) {
    const gitdirFile = join(admin, name, "gitdir");
    const worktreeGit = readFileSync(gitdirFile, "utf8").trim().replace(from, to);
    writeFileSync(gitdirFile, `${worktreeGit}\n`);
    if (existsSync(worktreeGit)) writeFileSync(worktreeGit, readFileSync(worktreeGit, "utf8").replace(from, to));
  }
  return to;
}

const logged = new Map<string, string[]>();
/** The git commands a command runs (from a logging run on a copy; once per template and command, as a template does not change). */
function gitCalls(template: string, args: string[]): string[] {
  const key = JSON.stringify([template, args]);
  const known = logged.get(key);
  if (known !== undefined) return known;
  const copy = cloneProject(template);
  const log = join(copy, "..", `${copy.split("/").at(-1)}.git-log`);
  const run = killedCli(copy, args, { GIT_KILL_LOG: log });
  expect(run.code, run.stdout).toBe(0);
  const calls = readFileSync(log, "utf8")
    .trim()
    .split("\n")
    .map((l) => l.slice(l.indexOf(" ") + 1));
  rmSync(copy, { recursive: true, force: true });
  logged.set(key, calls);
  return calls;
}

/**
 * Where to kill: before and after every git command (WORKTREE_KILLS=all), else right after each
 * one that changes something and right before the first of them (between two changes every
 * state a kill can leave is one of these), every STRIDE-th of those in `npm test`, and those whose
 * `when call` starts with one of `keep` (the steps a test names).
 */
function killPoints(
  calls: string[],
  keep: readonly string[] = [],
): Array<{ n: number; when: "before" | "after"; call: string }> {
  const points: Array<{ n: number; when: "before" | "after"; call: string }> = [];
  calls.forEach((call, i) => {
    if (ALL) for (const when of ["before", "after"] as const) points.push({ n: i + 1, when, call });
    else if (MUTATING.test(call)) {
      if (!points.some((p) => p.when === "before")) points.push({ n: i + 1, when: "before", call });
      points.push({ n: i + 1, when: "after", call });
    }
  });
  const offset = matrices++ % STRIDE;
  return points.filter(
    (p, i) =>
      i === 0 ||
      i === points.length - 1 ||
      i % STRIDE === offset ||
      keep.some((step) => `${p.when} ${p.call}`.startsWith(step)),
  );
}

/** The invariants once the workflow has gone on: t1 merged once, everything tidy. */
function expectLandedOnce(root: string, head: string, options: { notes?: boolean } = {}): void {
  expect(taskOf(root, "t1")).toMatchObject({ status: "complete", worktree: { merge: { state: "merged" } } });
  expect(timesMerged(root, "main", head)).toBe(1);
  expect(readFileSync(join(root, "t1.txt"), "utf8")).toBe("t1\n");
  if (options.notes) expect(readFileSync(join(root, "t1-notes.txt"), "utf8")).toBe("notes\n");
  expect(git(root, "status", "--porcelain")).toBe("?? memory/");
  expect(existsSync(join(root, ".git", "index.lock"))).toBe(false);
  expect(taskWorktrees(root)).toEqual([]);
  expect(taskBranches(root)).toEqual([]);
  expectFsckClean(root);
  expect(dotagent(root, ["validate", "--json"]).code).toBe(0);
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "dotagent-wtkill-"));
  // Landing: t1 started by a session now gone, its executor's commit and report there.
  const landing = projectAtImplementation([{ id: "t1" }]);
  const started = dotagent(landing, ["task", "start", "t1", "--owner", String(deadPid()), "--json"]);
  executorWork(landing, "t1", started.json.task.worktree.dir, { "t1.txt": "t1\n" });
  // … and a file it left uncommitted, which the landing commits first.
  writeFileSync(join(started.json.task.worktree.dir, "t1-notes.txt"), "notes\n");
  templates.landing = landing;
  // The same, its session still live: after a kill the session completes the task again.
  const live = projectAtImplementation([{ id: "t1" }]);
  const liveStart = dotagent(live, ["task", "start", "t1", "--owner", String(process.pid), "--json"]);
  executorWork(live, "t1", liveStart.json.task.worktree.dir, { "t1.txt": "t1\n" });
  writeFileSync(join(liveStart.json.task.worktree.dir, "t1-notes.txt"), "notes\n");
  templates.live = live;
  // Starting: t1 ready, nothing started.
  templates.start = projectAtImplementation([{ id: "t1" }]);
  // Mending: t1's executor left its worktree on feature/t1, made from the task's branch (a commit
  // and an uncommitted file there), and its attempt was given up.
  const forward = projectAtImplementation([{ id: "t1" }]);
  const forwardDir = dotagent(forward, ["task", "start", "t1", "--owner", String(deadPid()), "--json"]).json.task
    .worktree.dir;
  git(forwardDir, "checkout", "-q", "-b", "feature/t1");
  executorWork(forward, "t1", forwardDir, { "t1.txt": "t1\n" });
  writeFileSync(join(forwardDir, "t1-notes.txt"), "notes\n");
  expect(dotagent(forward, ["task", "fail", "t1", "--json"]).code).toBe(0);
  templates.mendForward = forward;
  // … or on a branch made from the base after an earlier attempt's commit (diverged: a merge).
  const diverged = projectAtImplementation([{ id: "t1" }]);
  const divergedDir = dotagent(diverged, ["task", "start", "t1", "--owner", String(deadPid()), "--json"]).json.task
    .worktree.dir;
  executorWork(diverged, "t1", divergedDir, { "t1-earlier.txt": "earlier\n" });
  git(divergedDir, "checkout", "-q", "-b", "feature/t1", "HEAD~1");
  executorWork(diverged, "t1", divergedDir, { "t1.txt": "t1\n" });
  writeFileSync(join(divergedDir, "t1-notes.txt"), "notes\n");
  expect(dotagent(diverged, ["task", "fail", "t1", "--json"]).code).toBe(0);
  templates.mendDiverged = diverged;
  // … diverged with a conflict: the work is carried for the next executor to merge.
  const conflicting = projectAtImplementation([{ id: "t1" }]);
  const conflictingDir = dotagent(conflicting, ["task", "start", "t1", "--owner", String(deadPid()), "--json"]).json
    .task.worktree.dir;
  executorWork(conflicting, "t1", conflictingDir, { "shared.txt": "one\nearlier\nthree\n" });
  git(conflictingDir, "checkout", "-q", "-b", "feature/t1", "HEAD~1");
  executorWork(conflicting, "t1", conflictingDir, { "shared.txt": "one\nfeature\nthree\n" });
  expect(dotagent(conflicting, ["task", "fail", "t1", "--json"]).code).toBe(0);
  templates.mendConflict = conflicting;
}, 600_000);

afterAll(() => {
  removeTemps();
  rmSync(work, { recursive: true, force: true });
});

describe("kill -9 at each git step of a task's landing, then `dotagent resume`", () => {
  it("merged exactly once or not at all; the next resume finishes it; fsck clean, nothing left", () => {
    const calls = gitCalls(templates.landing!, ["task", "complete", "t1", "--json"]);
    expect(calls.some((c) => c.startsWith("merge-tree --write-tree"))).toBe(true);
    expect(calls.some((c) => c.startsWith("merge --ff-only"))).toBe(true);
    const must = [
      "after commit ",
      "after commit-tree",
      "after merge --ff-only",
      "after worktree remove",
      "after update-ref -d",
    ];
    const points = killPoints(calls, must);
    const seen: string[] = [];
    for (const point of points) {
      const root = cloneProject(templates.landing!);
      const killed = killedCli(root, ["task", "complete", "t1", "--json"], { GIT_KILL_AT: `${point.n}:${point.when}` });
      expect(killed.signal, `${point.when} ${point.call}`).toBe("SIGKILL");
      // Whatever the kill left: merged once or not at all, never twice.
      const tip = spawnSync("git", ["rev-parse", "--verify", "-q", "dotagent/wf-add-parts/t1"], {
        cwd: root,
        encoding: "utf8",
      }).stdout.trim();
      if (tip !== "") expect(timesMerged(root, "main", tip)).toBeLessThanOrEqual(1);
      const resumed = dotagent(root, ["resume", "--json"]);
      expect(resumed.code, `${point.when} ${point.call}: ${resumed.stdout}${resumed.stderr}`).toBe(0);
      // The task branch's tip as merged (the landing may have committed the leftovers after the kill).
      const merged = git(root, "rev-parse", "main^2");
      expectLandedOnce(root, merged, { notes: true });
      seen.push(`${point.when} ${point.call}`);
      rmSync(root, { recursive: true, force: true });
    }
    console.log(`worktree kill matrix (landing): ${points.length} kills of ${calls.length} git commands`);
    for (const step of must)
      expect(
        seen.some((s) => s.startsWith(step)),
        step,
      ).toBe(true);
  }, 600_000);

  it("… its session still live (the task's owner): the session's next `task complete` finishes it, even the worktree it owns", () => {
    const calls = gitCalls(templates.live!, ["task", "complete", "t1", "--json"]);
    for (const point of killPoints(calls)) {
      const root = cloneProject(templates.live!);
      expect(
        killedCli(root, ["task", "complete", "t1", "--json"], { GIT_KILL_AT: `${point.n}:${point.when}` }).signal,
      ).toBe("SIGKILL");
      const again = dotagent(root, ["task", "complete", "t1", "--json"]);
      expect(again.code, `${point.when} ${point.call}: ${again.stdout}${again.stderr}`).toBe(0);
      expectLandedOnce(root, git(root, "rev-parse", "main^2"), { notes: true });
      rmSync(root, { recursive: true, force: true });
    }
  }, 600_000);

  it("a fast-forward git itself was killed in (a stale index.lock, a file half written): finished, the file whole", () => {
    const root = cloneProject(templates.landing!);
    const calls = gitCalls(templates.landing!, ["task", "complete", "t1", "--json"]);
    const ff = calls.findIndex((c) => c.startsWith("merge --ff-only")) + 1;
    expect(killedCli(root, ["task", "complete", "t1", "--json"], { GIT_KILL_AT: `${ff}:before` }).signal).toBe(
      "SIGKILL",
    );
    expect(taskOf(root, "t1").worktree.merge.state).toBe("merging");
    writeFileSync(join(root, ".git", "index.lock"), "");
    writeFileSync(join(root, "t1.txt"), "t"); // the first byte of "t1\n"
    const resumed = dotagent(root, ["resume", "--json"]);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(resumed.json.repairs[0]).toMatchObject({
      code: "task_merged",
      message: expect.stringMatching(/^t1 was being merged when it was cut off/),
    });
    expectLandedOnce(root, git(root, "rev-parse", "main^2"), { notes: true });
  });

  it("… but a person's edit of that file meanwhile stops it: nothing is overwritten, the branch not moved", () => {
    const root = cloneProject(templates.landing!);
    const calls = gitCalls(templates.landing!, ["task", "complete", "t1", "--json"]);
    const ff = calls.findIndex((c) => c.startsWith("merge --ff-only")) + 1;
    const before = git(root, "rev-parse", "main");
    expect(killedCli(root, ["task", "complete", "t1", "--json"], { GIT_KILL_AT: `${ff}:before` }).signal).toBe(
      "SIGKILL",
    );
    writeFileSync(join(root, ".git", "index.lock"), "");
    writeFileSync(join(root, "t1.txt"), "the person's own t1.txt\n");
    const resumed = dotagent(root, ["resume", "--json"]);
    expect(resumed.code).toBe(1);
    expect(resumed.json.error).toMatchObject({ code: "merge_blocked", message: expect.stringMatching(/t1\.txt/) });
    expect(readFileSync(join(root, "t1.txt"), "utf8")).toBe("the person's own t1.txt\n");
    expect(git(root, "rev-parse", "main")).toBe(before);
  });
});

describe("kill -9 at each git step of a task's start, then the start again", () => {
  it("the worktree is made once, the task runs and lands; nothing is left", () => {
    const calls = gitCalls(templates.start!, ["task", "start", "t1", "--owner", String(process.pid), "--json"]);
    expect(calls.some((c) => c.startsWith("worktree add"))).toBe(true);
    const points = killPoints(calls);
    for (const point of points) {
      const root = cloneProject(templates.start!);
      const killed = killedCli(root, ["task", "start", "t1", "--owner", String(process.pid), "--json"], {
        GIT_KILL_AT: `${point.n}:${point.when}`,
      });
      expect(killed.signal, `${point.when} ${point.call}`).toBe("SIGKILL");
      // The session starts it again (or finds it started: its owner, this test, lives).
      const again = dotagent(root, ["task", "start", "t1", "--owner", String(process.pid), "--json"]);
      expect([0, 1], `${point.when} ${point.call}: ${again.stdout}${again.stderr}`).toContain(again.code);
      expect(taskWorktrees(root)).toEqual([join(root, ".dotagent/worktrees/t1")]);
      const dir = taskOf(root, "t1").worktree?.path ? join(root, taskOf(root, "t1").worktree.path) : undefined;
      expect(dir, `${point.when} ${point.call}`).toBe(join(root, ".dotagent/worktrees/t1"));
      executorWork(root, "t1", dir!, { "t1.txt": "t1\n" });
      const done = dotagent(root, ["task", "complete", "t1", "--json"]);
      expect(done.code, `${point.when} ${point.call}: ${done.stdout}${done.stderr}`).toBe(0);
      expectLandedOnce(root, git(root, "rev-parse", "HEAD^2"));
      rmSync(root, { recursive: true, force: true });
    }
    console.log(`worktree kill matrix (start): ${points.length} kills of ${calls.length} git commands`);
  }, 600_000);
});

describe("kill -9 at each git step of a start that mends a worktree left on another branch, then the start again", () => {
  it.each([
    ["made from the task's branch (the branch moves, HEAD follows)", "mendForward", ["update-ref ", "symbolic-ref "]],
    [
      "diverged (its leftovers committed, a merge, the switch)",
      "mendDiverged",
      ["commit ", "commit-tree ", "update-ref ", "switch "],
    ],
  ])(
    "%s: the next start finishes the mend; the work lands whole, fsck clean, nothing left",
    (_what, template, steps) => {
      const args = ["task", "start", "t1", "--owner", String(process.pid), "--json"];
      const calls = gitCalls(templates[template as string]!, args);
      for (const step of steps as string[])
        expect(
          calls.some((c) => c.startsWith(step)),
          step,
        ).toBe(true);
      const points = killPoints(calls);
      for (const point of points) {
        const root = cloneProject(templates[template as string]!);
        const killed = killedCli(root, args, { GIT_KILL_AT: `${point.n}:${point.when}` });
        expect(killed.signal, `${point.when} ${point.call}`).toBe("SIGKILL");
        // The work is never lost: in a commit on a branch, or in the worktree.
        const dir = join(root, ".dotagent/worktrees/t1");
        expect(readFileSync(join(dir, "t1-notes.txt"), "utf8"), `${point.when} ${point.call}`).toBe("notes\n");
        // The session starts it again (or finds it started: its owner, this test, lives).
        const again = dotagent(root, args);
        expect([0, 1], `${point.when} ${point.call}: ${again.stdout}${again.stderr}`).toContain(again.code);
        expect(git(dir, "symbolic-ref", "HEAD"), `${point.when} ${point.call}`).toBe(
          "refs/heads/dotagent/wf-add-parts/t1",
        );
        writeFileSync(
          join(root, "memory/reports/tasks/t1.json"),
          JSON.stringify({ task_id: "t1", status: "complete", summary: "t1" }),
        );
        const done = dotagent(root, ["task", "complete", "t1", "--json"]);
        expect(done.code, `${point.when} ${point.call}: ${done.stdout}${done.stderr}`).toBe(0);
        expectLandedOnce(root, git(root, "rev-parse", "main^2"), { notes: true });
        if (template === "mendDiverged") expect(readFileSync(join(root, "t1-earlier.txt"), "utf8")).toBe("earlier\n");
        rmSync(root, { recursive: true, force: true });
      }
      console.log(`worktree kill matrix (mend, ${template}): ${points.length} kills of ${calls.length} git commands`);
    },
    600_000,
  );

  it("diverged with a conflict: after any kill the next start still tells the executor to merge the carried work, which then lands", () => {
    const args = ["task", "start", "t1", "--owner", String(process.pid), "--json"];
    const calls = gitCalls(templates.mendConflict!, args);
    expect(calls.some((c) => c.startsWith("switch "))).toBe(true);
    const points = killPoints(calls);
    for (const point of points) {
      const root = cloneProject(templates.mendConflict!);
      expect(
        killedCli(root, args, { GIT_KILL_AT: `${point.n}:${point.when}` }).signal,
        `${point.when} ${point.call}`,
      ).toBe("SIGKILL");
      const again = dotagent(root, args);
      expect([0, 1], `${point.when} ${point.call}: ${again.stdout}${again.stderr}`).toContain(again.code);
      const dir = join(root, ".dotagent/worktrees/t1");
      expect(git(dir, "symbolic-ref", "HEAD"), `${point.when} ${point.call}`).toBe(
        "refs/heads/dotagent/wf-add-parts/t1",
      );
      // The record the executor's lines come from says to merge the carried work (a kill before the start was recorded: said again).
      if (again.code === 0)
        expect(again.json.task.worktree.prompt_lines, `${point.when} ${point.call}`).toContain(
          "Merge conflict: dotagent/wf-add-parts/t1-carried (shared.txt)",
        );
      expect(taskOf(root, "t1").worktree.merge, `${point.when} ${point.call}`).toMatchObject({
        reason: "carried",
        detail: "dotagent/wf-add-parts/t1-carried",
      });
      expect(spawnSync("git", ["merge", "-q", "dotagent/wf-add-parts/t1-carried"], { cwd: dir }).status).not.toBe(0);
      writeFileSync(join(dir, "shared.txt"), "one\nearlier and feature\nthree\n");
      git(dir, "add", "-A");
      git(dir, "commit", "-q", "--no-edit");
      writeFileSync(
        join(root, "memory/reports/tasks/t1.json"),
        JSON.stringify({ task_id: "t1", status: "complete", summary: "t1" }),
      );
      const done = dotagent(root, ["task", "complete", "t1", "--json"]);
      expect(done.code, `${point.when} ${point.call}: ${done.stdout}${done.stderr}`).toBe(0);
      expect(readFileSync(join(root, "shared.txt"), "utf8")).toBe("one\nearlier and feature\nthree\n");
      expect(taskBranches(root)).toEqual([]);
      expectFsckClean(root);
      rmSync(root, { recursive: true, force: true });
    }
    console.log(`worktree kill matrix (mend, conflict): ${points.length} kills of ${calls.length} git commands`);
  }, 600_000);

  it("a switch git itself was killed in (a stale index.lock, one of the branch's files written, HEAD not yet moved): the next start commits what it finds, merges it back the same, and the work lands whole", () => {
    const root = cloneProject(templates.mendDiverged!);
    const args = ["task", "start", "t1", "--owner", String(process.pid), "--json"];
    const calls = gitCalls(templates.mendDiverged!, args);
    const switchAt = calls.findIndex((c) => c.startsWith("switch ")) + 1;
    expect(killedCli(root, args, { GIT_KILL_AT: `${switchAt}:before` }).signal).toBe("SIGKILL");
    const dir = join(root, ".dotagent/worktrees/t1");
    expect(git(dir, "symbolic-ref", "HEAD")).toBe("refs/heads/feature/t1");
    writeFileSync(join(git(dir, "rev-parse", "--absolute-git-dir"), "index.lock"), "");
    writeFileSync(join(dir, "t1-earlier.txt"), "earlier\n");
    const again = dotagent(root, args);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(git(dir, "symbolic-ref", "HEAD")).toBe("refs/heads/dotagent/wf-add-parts/t1");
    writeFileSync(
      join(root, "memory/reports/tasks/t1.json"),
      JSON.stringify({ task_id: "t1", status: "complete", summary: "t1" }),
    );
    expect(dotagent(root, ["task", "complete", "t1", "--json"]).code).toBe(0);
    expectLandedOnce(root, git(root, "rev-parse", "main^2"), { notes: true });
    expect(readFileSync(join(root, "t1-earlier.txt"), "utf8")).toBe("earlier\n");
  });
});
