// How many git processes each operation that runs git starts (issue 41: each costs 15-25 ms of
// CPU, in CI and in every person's command), counted at dotagent's one spawn point
// (src/store/git.ts watchGitSpawns), in process, against real git in a temp repository. The
// table is the budget: a change that adds a git call to one of these operations fails here and
// says which calls it now makes, so the number goes up only on purpose.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { workflowAt, type Workflow } from "../api/workflow.js";
import { forgetGitFacts, watchGitSpawns } from "../store/git.js";
import { checkoutFacts, isRepo, oneOperation, repoAt } from "../store/worktrees.js";
import { claimTask, newWorker } from "./claims.js";
import { endAgentJob, startAgentJob } from "./agent-run.js";
import type { OpContext } from "./op-context.js";
import { projectPaths } from "../store/project.js";

const IDENT = ["-c", "user.name=tester", "-c", "user.email=tester@example.com"];

function sh(cwd: string, ...args: string[]): string {
  const run = spawnSync("git", [...IDENT, ...args], { cwd, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr}`);
  return run.stdout.trim();
}

function write(root: string, rel: string, value: unknown): void {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), typeof value === "string" ? value : JSON.stringify(value));
}

/**
 * The git calls `fn` makes (their first two arguments, for the failure message), as a process of
 * its own would: what this process learnt of git before (the commit identity, git's version) is
 * forgotten first. Kept, it made a count depend on what ran before in the worker, or meanwhile
 * (a run where the identity was settled earlier counted one call fewer).
 */
async function calls(fn: () => unknown): Promise<string[]> {
  forgetGitFacts();
  const seen: string[] = [];
  watchGitSpawns((args) => {
    seen.push(args.slice(0, 2).join(" "));
    if (process.env.GITSTACK && args[1] === process.env.GITSTACK)
      console.log(new Error().stack?.split("\n").slice(2, 9).join("\n"));
  });
  try {
    await fn();
  } finally {
    watchGitSpawns(undefined);
  }
  return seen;
}

let work: string;
let root: string;
let flow: Workflow;
const counts: Record<string, string[]> = {};

/** A repository with a workflow at IMPLEMENTATION, two tasks; owner: this process. */
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "dotagent-git-calls-"));
  root = join(work, "project");
  mkdirSync(root);
  write(root, "README.md", "# app\n");
  sh(root, "init", "-q", "-b", "main");
  sh(root, "add", "-A");
  sh(root, "commit", "-qm", "initial");
  flow = workflowAt(root, {}, undefined);
  await flow.init("add parts");
  write(root, "memory/reports/demand.json", { summary: "parts" });
  await flow.phase.approve("REQUIREMENTS");
  write(root, "memory/reports/final_design.json", {
    chosen: "minimal",
    design: {},
    tasks: [
      { id: "a", title: "a", depends_on: [] },
      { id: "b", title: "b", depends_on: [] },
      { id: "c", title: "c", depends_on: [] },
    ],
  });
  await flow.phase.approve("ARCHITECTURE");
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * Today's numbers, each as a process of its own (`calls` forgets what this one learnt of git): the
 * identity probe (`git var`) and `git --version` counted where the operation needs them, as a CLI
 * call or a hook asks each once. (At a7abc93, before the repository lookup was asked once per
 * operation and the checkout's facts came from one `git status`, counted with the two kept from
 * earlier calls: 8, 4, 0, 15, 11, 3, 15, 5; the same way, before this count: 4, 3, 0, 15, 8, 3,
 * 14, 5.) A claim's commit stays three local calls: `mktree` needs its blob written (`--missing` only skips the check) and `commit-tree` its
 * tree; only `fast-import` makes all three in one, and it always writes a ref and a pack.
 */
const BUDGET: Record<string, number> = {
  "task start, the round's first (its isolation decided)": 5,
  "task start": 3,
  "status, tasks in worktrees": 0,
  "task complete, its landing a merge": 15,
  "task complete, nothing to land": 9,
  "hook: an executor starts": 3,
  "hook: an executor ends, its landing a merge": 15,
  "claim push (fetch, build, push)": 6,
};

const worktreeOf = async (id: string): Promise<string> =>
  join(root, ((await flow.tasks.list()).tasks.find((t) => t.id === id) as any).worktree.path);

/** What an executor does: a file committed in its worktree, its report in the main checkout. */
async function executorWork(id: string, file?: string): Promise<void> {
  if (file !== undefined) {
    const dir = await worktreeOf(id);
    write(dir, file, `${id}\n`);
    sh(dir, "add", "-A");
    sh(dir, "commit", "-qm", `task ${id}`);
  }
  write(root, `memory/reports/tasks/${id}.json`, { task_id: id, status: "complete", summary: `did ${id}` });
}

describe("git processes per operation", () => {
  test("task start, status, task complete (CLI and library)", async () => {
    counts["task start, the round's first (its isolation decided)"] = await calls(() => flow.tasks.start("a"));
    counts["task start"] = await calls(() => flow.tasks.start("b"));
    counts["status, tasks in worktrees"] = await calls(() => flow.status());
    await executorWork("a", "a.txt");
    counts["task complete, its landing a merge"] = await calls(() => flow.tasks.complete("a"));
    await executorWork("b");
    counts["task complete, nothing to land"] = await calls(() => flow.tasks.complete("b"));
  });

  test("an executor's start and end through the hooks (Claude Code's, the runner's)", async () => {
    const op: OpContext = { paths: projectPaths(root), now: () => new Date(), warn: () => {}, note: () => {} };
    const job = { agent: "executor", phase: "IMPLEMENTATION", task: "c", output: "memory/reports/tasks/c.json" };
    counts["hook: an executor starts"] = await calls(() => startAgentJob(op, job));
    await executorWork("c", "c.txt");
    counts["hook: an executor ends, its landing a merge"] = await calls(() =>
      endAgentJob(op, job, { final: true, ended: true }),
    );
    expect((await flow.tasks.list()).tasks.map((t) => t.status)).toEqual(["complete", "complete", "complete"]);
  });

  test("a claim pushed to a remote", async () => {
    const remote = join(work, "remote.git");
    sh(work, "init", "-q", "--bare", remote);
    sh(root, "remote", "add", "origin", remote);
    const ctx = { remote: { cwd: root, remote: "origin" }, workflowId: "wf", worker: newWorker() };
    counts["claim push (fetch, build, push)"] = await calls(() => claimTask(ctx, "a"));
  });

  test("the repository lookup is asked once per operation, and again in the next one", async () => {
    const dir = join(work, "later-a-repo");
    mkdirSync(dir);
    const inOne = await calls(() =>
      oneOperation(async () => {
        expect(isRepo(repoAt(dir))).toBe(false);
        await Promise.resolve();
        expect(isRepo(repoAt(dir))).toBe(false);
      }),
    );
    expect(inOne).toEqual(["rev-parse --show-toplevel"]);
    // A long-lived process (the library, `dotagent run`) sees the repository made after it.
    sh(dir, "init", "-q");
    expect(await calls(() => oneOperation(() => expect(isRepo(repoAt(dir))).toBe(true)))).toHaveLength(1);
    // Outside an operation nothing is kept.
    expect(await calls(() => [repoAt(dir), repoAt(dir)])).toHaveLength(2);
  });

  test("the main checkout's facts: branch, commit and changes from one git status", async () => {
    const dir = join(work, "checkout");
    mkdirSync(dir);
    sh(dir, "init", "-q", "-b", "trunk");
    expect(checkoutFacts(dir)).toEqual({ git: false, reason: expect.stringMatching(/no commit yet/) });
    write(dir, "a b.txt", "one\n");
    write(dir, "kept.txt", "one\n");
    sh(dir, "add", "-A");
    sh(dir, "commit", "-qm", "first");
    write(dir, "a b.txt", "two\n");
    write(dir, "new dir/x y.txt", "new\n");
    write(dir, "staged.txt", "new\n");
    sh(dir, "add", "staged.txt");
    const head = sh(dir, "rev-parse", "HEAD");
    const seen: unknown[] = [];
    // A process of its own asks git's version once (the worktree commands need git 2.38).
    expect(await calls(() => seen.push(checkoutFacts(dir)))).toEqual([
      "--version",
      "rev-parse --show-toplevel",
      "status --porcelain=v2",
    ]);
    expect(seen[0]).toEqual({
      git: true,
      branch: "trunk",
      head,
      dirty: ["a b.txt", "new dir/x y.txt", "staged.txt"],
      writable: true,
    });
    sh(dir, "checkout", "-q", "--detach");
    expect(checkoutFacts(dir)).toEqual({ git: false, reason: expect.stringMatching(/detached HEAD/) });
  });

  test("the table", () => {
    const table = Object.entries(counts).map(([op, list]) => `${op}: ${list.length} (${list.join(", ")})`);
    expect(Object.fromEntries(Object.entries(counts).map(([op, list]) => [op, list.length])), table.join("\n")).toEqual(
      BUDGET,
    );
  });
});
