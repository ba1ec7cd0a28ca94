// Projects in a git repository at IMPLEMENTATION, for the task-worktree tests (SPEC §19): the
// built CLI drives the workflow; a "person" and "executors" run git as they would.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect } from "vitest";
import { dotagent, writeJson, type RunResult } from "./cli.js";
import { atFileEnd } from "./file-end.js";
import { copyOfTemplate } from "./template.js";

export const IDENT = ["-c", "user.name=tester", "-c", "user.email=tester@example.com"];

export function git(cwd: string, ...args: string[]): string {
  const run = spawnSync("git", [...IDENT, ...args], { cwd, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`git ${args.join(" ")} in ${cwd}: ${run.stderr}`);
  return run.stdout.trim();
}

export function gitStatus(cwd: string, ...args: string[]): { code: number; out: string } {
  const run = spawnSync("git", [...IDENT, ...args], { cwd, encoding: "utf8" });
  return { code: run.status ?? -1, out: `${run.stdout}${run.stderr}` };
}

/** A process that outlives the test's commands: the "session" that owns the tasks. */
let owner: ChildProcess | undefined;
export function liveOwner(): number {
  owner ??= spawn("sleep", ["3600"], { stdio: "ignore" });
  return owner.pid!;
}
export async function stopOwner(): Promise<void> {
  const child = owner;
  owner = undefined;
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once("exit", done));
  child.kill("SIGKILL");
  await exited;
}
// A file that forgot stopOwner does not leave its owner to the next file of its worker.
atFileEnd(stopOwner);

/** A pid that has ended (a session that is gone). */
export function deadPid(): number {
  const run = spawnSync("sh", ["-c", "echo $$"], { encoding: "utf8" });
  return Number(run.stdout.trim());
}

export interface Plan {
  id: string;
  title?: string;
  depends_on?: string[];
}

/**
 * A git repository (files committed on main), a workflow at IMPLEMENTATION with `tasks` planned.
 * Made once per set of arguments (per test file) through the CLI, then copied (a copy costs far
 * less than the commands that make one).
 */
export function projectAtImplementation(
  tasks: Plan[],
  options: { git?: boolean; files?: Record<string, string> } = {},
): string {
  return copyOfTemplate(`projectAtImplementation ${JSON.stringify([tasks, options])}`, (dir) =>
    makeProject(dir, tasks, options),
  );
}

function makeProject(root: string, tasks: Plan[], options: { git?: boolean; files?: Record<string, string> }): void {
  const files = options.files ?? { "README.md": "# app\n", "shared.txt": "one\ntwo\nthree\n" };
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, name)), { recursive: true });
    writeFileSync(join(root, name), text);
  }
  if (options.git !== false) {
    git(root, "init", "-q", "-b", "main");
    git(root, "add", "-A");
    git(root, "commit", "-qm", "initial");
  }
  ok(dotagent(root, ["init", "--request", "add parts", "--json"]));
  writeJson(root, "memory/reports/demand.json", { summary: "parts" });
  ok(dotagent(root, ["phase", "approve", "REQUIREMENTS", "--json"]));
  writeJson(root, "memory/reports/final_design.json", {
    chosen: "minimal",
    design: {},
    tasks: tasks.map((t) => ({ title: t.id, depends_on: [], ...t })),
  });
  ok(dotagent(root, ["phase", "approve", "ARCHITECTURE", "--json"]));
}

export function ok(run: RunResult): RunResult {
  expect(run.code, `${run.stdout}${run.stderr}`).toBe(0);
  return run;
}

/** `task start ID --owner PID --json`, its worktree folder (where the executor works). */
export function startTask(
  root: string,
  id: string,
  ownerPid = liveOwner(),
): { run: RunResult; dir: string | undefined; lines: string[] } {
  const run = dotagent(root, ["task", "start", id, "--owner", String(ownerPid), "--json"]);
  return { run, dir: run.json?.task?.worktree?.dir, lines: run.json?.task?.worktree?.prompt_lines ?? [] };
}

/** What an executor does: files written in its worktree, committed there (unless `commit: false`), its report in the main checkout. */
export function executorWork(
  root: string,
  id: string,
  dir: string,
  files: Record<string, string>,
  options: { commit?: boolean; status?: "complete" | "failed" } = {},
): void {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  if (options.commit !== false) {
    git(dir, "add", "-A");
    git(dir, "commit", "-qm", `task ${id}`);
  }
  writeJson(root, `memory/reports/tasks/${id}.json`, {
    task_id: id,
    status: options.status ?? "complete",
    summary: `did ${id}`,
  });
}

/** The worktrees git knows, other than the main checkout. */
export function taskWorktrees(root: string): string[] {
  return git(root, "worktree", "list", "--porcelain")
    .split("\n")
    .filter((l) => l.startsWith("worktree "))
    .map((l) => l.slice("worktree ".length))
    .slice(1);
}

export function taskBranches(root: string): string[] {
  return git(root, "for-each-ref", "--format=%(refname:short)", "refs/heads/dotagent/").split("\n").filter(Boolean);
}

/**
 * `git fsck --full` finds no error (dangling objects of a cut-off merge are not errors). Nothing in
 * these repositories writes a commit-graph or a multi-pack-index (asserted), so fsck is told not to
 * start a `git commit-graph verify` and a `git multi-pack-index verify` for files that are not
 * there: one git process instead of three (issue 41).
 */
export function expectFsckClean(root: string): void {
  const objects = join(root, ".git/objects"); // a main checkout's
  expect(existsSync(objects), objects).toBe(true);
  expect(existsSync(join(objects, "info/commit-graph")) || existsSync(join(objects, "info/commit-graphs"))).toBe(false);
  expect(existsSync(join(objects, "pack/multi-pack-index"))).toBe(false);
  const fsck = gitStatus(
    root,
    "-c",
    "core.commitGraph=false",
    "-c",
    "core.multiPackIndex=false",
    "fsck",
    "--full",
    "--no-dangling",
  );
  expect(fsck.code, fsck.out).toBe(0);
  expect(fsck.out).not.toMatch(/error|missing|broken|corrupt/i);
}

export function readExecution(root: string): any {
  return JSON.parse(readFileSync(join(root, "memory/state/execution.json"), "utf8"));
}

export function taskOf(root: string, id: string): any {
  return readExecution(root).tasks.find((t: { id: string }) => t.id === id);
}

/** How many times a commit's changes reached a branch as a merge's second parent (a task merged twice would show 2). */
export function timesMerged(root: string, branch: string, head: string): number {
  return git(root, "rev-list", "--merges", "--parents", branch)
    .split("\n")
    .filter(Boolean)
    .filter((line) => line.split(" ").slice(2).includes(head)).length;
}

export const exists = (root: string, rel: string) => existsSync(join(root, rel));
