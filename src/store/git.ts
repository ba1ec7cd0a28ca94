// Running git for the task worktrees (SPEC §19): one synchronous call at a time, with a plain,
// predictable environment (C locale for parsing, no prompts, no GIT_DIR or GIT_INDEX_FILE of a
// caller that is itself a git hook) and an identity for dotagent's own commits where the
// repository has none. A failure is a DotagentError `git_failed` naming the command and git's
// first line of complaint, never a stack.
//
// Every call goes through `spawnGit`, which gives git no stdin pipe: a sandbox that refuses
// `shutdown()` (Codex's default one, test/codex/NOTES.md) makes Node report EPERM for a git that
// ran, and leaves a git reading its input waiting forever. Input goes in through a temp file. What
// a result means (ran, missing, refused by the system, failed) is src/core/git-run.ts's call; a
// refusal is `git_sandboxed`, never "git is not installed" (SPEC §19 "Git in a sandbox").
//
// The git environment rule of the landing guard (src/core/landing-guard.ts, where the threat is
// stated): every call runs with GIT_SAFETY_CONFIG (no hooks, no fsmonitor, no submodule
// recursion), and a call in a task's worktree names its git folder and work tree itself
// (`dirs`: GIT_DIR, GIT_WORK_TREE, the ones dotagent checked), never what the worktree's own
// `.git` file says.
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import { classifyGitRun, gitRunProblem, type GitRun } from "../core/git-run.js";
import { GIT_SAFETY_CONFIG } from "../core/landing-guard.js";
import { timed } from "./trace.js";

export interface GitResult {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface GitOptions {
  /** Read-only call: git takes no optional lock (no index refresh), so it never collides with an executor's git. */
  readonly readOnly?: boolean;
  /** Exit codes that are answers, not failures (merge-tree's 1: conflicts; merge-base --is-ancestor's 1: no). */
  readonly ok?: readonly number[];
  readonly input?: string;
  /** A task worktree's git folder and work tree, checked by the landing guard (never found from its `.git`). */
  readonly dirs?: GitDirs;
  /** A scratch index (GIT_INDEX_FILE) for building a tree without touching any checkout's. */
  readonly indexFile?: string;
  /** A network call's limit: past it git is killed and the call fails (`git_failed`, "gave no answer within …"). */
  readonly timeoutMs?: number;
}

/** The git folder and work tree a call names explicitly (GIT_DIR, GIT_WORK_TREE). */
export interface GitDirs {
  readonly gitDir: string;
  readonly workTree: string;
}

const CALLER_GIT = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_COMMON_DIR",
  "GIT_PREFIX",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_NAMESPACE",
];

let identity: Record<string, string> | undefined;

/** Commands that write a commit, and so need an author. */
const COMMITTING = new Set(["commit", "commit-tree", "merge"]);

function baseEnv(cwd: string, command?: string, dirs?: GitDirs, safety = true): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LC_ALL: "C",
    LANG: "C",
    GIT_TERMINAL_PROMPT: "0",
    GIT_EDITOR: "true",
    GIT_MERGE_AUTOEDIT: "no",
    GIT_PAGER: "cat",
  };
  for (const name of CALLER_GIT) delete env[name];
  if (dirs !== undefined) Object.assign(env, { GIT_DIR: dirs.gitDir, GIT_WORK_TREE: dirs.workTree });
  // After the person's own GIT_CONFIG_* entries, so these win over them and over every config file.
  const n = Number(env.GIT_CONFIG_COUNT ?? 0) || 0;
  const safe = safety ? GIT_SAFETY_CONFIG : [];
  env.GIT_CONFIG_COUNT = String(n + safe.length);
  safe.forEach(([key, value], i) =>
    Object.assign(env, { [`GIT_CONFIG_KEY_${n + i}`]: key, [`GIT_CONFIG_VALUE_${n + i}`]: value }),
  );
  if (command === undefined || !COMMITTING.has(command)) return env;
  identity ??= identityFallback(cwd, env);
  return { ...env, ...identity };
}

/** dotagent's own commits need an author: the repository's, else `dotagent <dotagent@localhost>`. */
function identityFallback(cwd: string, env: NodeJS.ProcessEnv): Record<string, string> {
  const probe = spawnGit(["var", "GIT_COMMITTER_IDENT"], { cwd, env });
  if (probe.run.kind === "ran" && probe.run.status === 0) return {};
  return {
    GIT_AUTHOR_NAME: env.GIT_AUTHOR_NAME || "dotagent",
    GIT_AUTHOR_EMAIL: env.GIT_AUTHOR_EMAIL || "dotagent@localhost",
    GIT_COMMITTER_NAME: env.GIT_COMMITTER_NAME || "dotagent",
    GIT_COMMITTER_EMAIL: env.GIT_COMMITTER_EMAIL || "dotagent@localhost",
  };
}

/** One git call's outcome and output (stdout as bytes: `gitBytes` reads blobs). */
interface Spawned {
  readonly run: GitRun;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/**
 * `input` in a temp file, opened for reading and already removed: git reads the open file, and a
 * dotagent killed while git runs (the crash matrices do it) leaves no folder behind in the temp
 * directory. Only a kill between the folder's making and its removal, a few system calls, can.
 */
function inputFile(input: string): number {
  const dir = mkdtempSync(join(tmpdir(), "dotagent-git-"));
  try {
    const file = join(dir, "stdin");
    writeFileSync(file, input, { flag: "wx", mode: 0o600 });
    return openSync(file, "r");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let spawnWatcher: ((args: readonly string[]) => void) | undefined;

/** For tests that count git processes (src/ops/git-calls.test.ts): told every git dotagent starts, with its arguments; undefined stops it. */
export function watchGitSpawns(watcher: ((args: readonly string[]) => void) | undefined): void {
  spawnWatcher = watcher;
}

/**
 * For tests that count git processes in a worker shared with other test files: forget what this
 * process has learnt of git (the commit identity, git's version), as a process of its own starts.
 * An earlier file that made a commit in the same worker had settled the identity, and the count
 * came out one lower (a flaky src/ops/git-calls.test.ts, issue 41).
 */
export function forgetGitFacts(): void {
  identity = undefined;
  version = undefined;
}

/** Runs git with no stdin pipe (see the header): stdin is /dev/null, or a temp file holding `input`. */
function spawnGit(
  args: readonly string[],
  options: { cwd?: string; env: NodeJS.ProcessEnv; input?: string; maxBuffer?: number; timeoutMs?: number },
): Spawned {
  const base = {
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs, killSignal: "SIGKILL" as const } : {}),
    env: options.env,
    maxBuffer: options.maxBuffer ?? 64 * 1024 * 1024,
  };
  spawnWatcher?.(args);
  let result: SpawnSyncReturns<Buffer>;
  if (options.input === undefined) result = spawnSync("git", args, { ...base, stdio: ["ignore", "pipe", "pipe"] });
  else {
    let fd: number | undefined;
    try {
      fd = inputFile(options.input);
    } catch {
      // No temp folder to write: a pipe, as Node gives it (fine outside a sandbox).
      fd = undefined;
    }
    try {
      result =
        fd === undefined
          ? spawnSync("git", args, { ...base, input: options.input })
          : spawnSync("git", args, { ...base, stdio: [fd, "pipe", "pipe"] });
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }
  const error = result.error as (Error & { code?: string }) | undefined;
  return {
    run: classifyGitRun({
      status: result.status,
      signal: result.signal,
      error: error === undefined ? undefined : { code: error.code, message: error.message },
    }),
    stdout: result.stdout ?? Buffer.alloc(0),
    stderr: result.stderr?.toString("utf8") ?? "",
  };
}

/** The error for a call that gave no answer of git's: refused by the system (`git_sandboxed`), or not run (`git_failed`). */
function notRun(run: Exclude<GitRun, { kind: "ran" }>, cwd: string, args: readonly string[]): DotagentError {
  const what = `git ${args[0] ?? ""} could not run in ${cwd}: ${gitRunProblem(run)}`;
  return run.kind === "refused"
    ? new DotagentError("git_sandboxed", what, EXIT.refused, { args: [...args], errno: run.code })
    : new DotagentError("git_failed", what, EXIT.refused, { args: [...args], git: run.kind });
}

/** Runs git in `cwd`; throws `git_failed` unless it exits 0 (or with one of `ok`), `git_sandboxed` when the system refused the call. */
export function git(cwd: string, args: readonly string[], options: GitOptions = {}): GitResult {
  const env = baseEnv(cwd, args[0], options.dirs);
  if (options.readOnly) env.GIT_OPTIONAL_LOCKS = "0";
  if (options.indexFile !== undefined) env.GIT_INDEX_FILE = options.indexFile;
  const spawned = timed(`git ${args[0] ?? ""}`, () =>
    spawnGit(args, {
      cwd,
      env,
      ...(options.input !== undefined ? { input: options.input } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    }),
  );
  if (spawned.run.kind === "failed" && spawned.run.why === "ETIMEDOUT" && options.timeoutMs !== undefined)
    throw new DotagentError(
      "git_failed",
      `git ${args[0] ?? ""} gave no answer within ${options.timeoutMs / 1000} s in ${cwd}`,
      EXIT.refused,
      { args: [...args], git: "timeout" },
    );
  if (spawned.run.kind !== "ran") throw notRun(spawned.run, cwd, args);
  const status = spawned.run.status;
  const stdout = spawned.stdout.toString("utf8");
  if (status !== 0 && !(options.ok ?? []).includes(status)) {
    const why =
      (spawned.stderr || stdout)
        .trim()
        .split("\n")
        .find((l) => l.trim() !== "") ?? `exit ${status}`;
    throw new DotagentError(
      "git_failed",
      `git ${args
        .filter((a) => !a.includes("\n"))
        .slice(0, 4)
        .join(" ")} failed in ${cwd}: ${why}`,
      EXIT.refused,
      { args: [...args], status },
    );
  }
  return { status, stdout, stderr: spawned.stderr };
}

/** A read-only call's raw output (a blob, `cat-file --batch`'s objects for `input`), or undefined when git says no. */
export function gitBytes(cwd: string, args: readonly string[], input?: string): Buffer | undefined {
  const env = baseEnv(cwd, undefined);
  env.GIT_OPTIONAL_LOCKS = "0";
  const spawned = spawnGit(args, { cwd, env, maxBuffer: 256 * 1024 * 1024, ...(input !== undefined ? { input } : {}) });
  return spawned.run.kind === "ran" && spawned.run.status === 0 ? spawned.stdout : undefined;
}

/** The output's first line, trimmed. */
export function gitLine(cwd: string, args: readonly string[], options: GitOptions = {}): string {
  return git(cwd, args, options).stdout.split("\n")[0]!.trim();
}

/** NUL-separated output (`-z`) as a list, empty entries dropped. */
export function splitZ(text: string): string[] {
  return text.split("\0").filter((s) => s !== "");
}

export interface GitVersion {
  readonly major: number;
  readonly minor: number;
  readonly text: string;
}

let version: GitVersion | Exclude<GitRun, { kind: "ran" }> | undefined;

/** git's version, or why there is none: no git (`missing`), the system refused the call (`refused`: a sandbox), or it failed. */
export function gitVersion(): GitVersion | Exclude<GitRun, { kind: "ran" }> {
  if (version !== undefined) return version;
  const spawned = spawnGit(["--version"], { env: { ...process.env, LC_ALL: "C" } });
  if (spawned.run.kind !== "ran") return (version = spawned.run);
  const match = spawned.run.status === 0 ? /(\d+)\.(\d+)(?:\.\d+)?/.exec(spawned.stdout.toString("utf8")) : null;
  version = match
    ? { major: Number(match[1]), minor: Number(match[2]), text: match[0] }
    : { kind: "failed", why: "`git --version` gave no version" };
  return version;
}

/** Whether `ancestor` is reachable from `of` (a commit merged into a branch). */
export function isAncestor(cwd: string, ancestor: string, of: string): boolean {
  return git(cwd, ["merge-base", "--is-ancestor", ancestor, of], { ok: [1], readOnly: true }).status === 0;
}

/** The commits of branches, in one call: `refs/heads/…` names, each also a prefix (`refs/heads/dotagent/wf` lists the branches under it). */
export function branchTips(cwd: string, refs: readonly string[]): Map<string, string> {
  const tips = new Map<string, string>();
  if (refs.length === 0) return tips;
  for (const line of git(cwd, ["for-each-ref", "--format=%(objectname) %(refname)", ...refs], {
    readOnly: true,
  }).stdout.split("\n")) {
    const space = line.indexOf(" ");
    if (space > 0) tips.set(line.slice(space + 1), line.slice(0, space));
  }
  return tips;
}

/** Settles, once per process, which identity dotagent's commits use (a commit made later under the lock then spawns no probe). */
export function prepareIdentity(cwd: string): void {
  baseEnv(cwd, "commit");
}

/** The commit a ref names, or undefined when it does not exist. */
export function resolveRef(cwd: string, ref: string): string | undefined {
  const run = git(cwd, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], { ok: [1, 128], readOnly: true });
  return run.status === 0 ? run.stdout.trim() : undefined;
}

/**
 * A config value as the person's own git sees it (without dotagent's GIT_SAFETY_CONFIG), or
 * undefined when unset: `core.hooksPath`, to know which folder holds the repository's hooks.
 * Reading config runs no program.
 */
export function personConfig(cwd: string, key: string): string | undefined {
  const spawned = spawnGit(["config", "--get", key], { cwd, env: baseEnv(cwd, undefined, undefined, false) });
  const value = spawned.run.kind === "ran" && spawned.run.status === 0 ? spawned.stdout.toString("utf8").trim() : "";
  return value === "" ? undefined : value;
}
