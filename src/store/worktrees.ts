// The task worktrees on disk (SPEC §19): the repository a project lives in, the main checkout's
// state at a round's start, and making, finding, tidying and removing the worktrees dotagent owns
// (under <root>/.dotagent/worktrees/, on branches dotagent/…). Every worktree dotagent makes is
// locked (`git worktree lock`) with its owner in the reason, so neither git's own prune nor a
// later sweep touches the worktree of a session that still runs; uncommitted work in a worktree
// that goes is committed onto its branch first, and a branch with commits that are not merged
// anywhere is kept. What runs in a worktree (its `.git` checked first) and what the sweep may
// delete are the landing guard's rules (src/core/landing-guard.ts).
import {
  accessSync,
  constants as fsConstants,
  existsSync,
  lstatSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  rmdirSync,
  rmSync,
  unlinkSync,
} from "node:fs";
import { AsyncLocalStorage } from "node:async_hooks";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { BRANCH_PREFIX, isolationOf, MIN_GIT, WORKTREES_DIR, type CheckoutFacts } from "../core/worktrees.js";
import { currentRound, tasksStepOf } from "../core/plans.js";
import { readyTasks } from "../core/tasks.js";
import type { StateSnapshot } from "../core/snapshot.js";
import type { Owner } from "../core/ownership.js";
import { DotagentError, EXIT } from "../core/errors.js";
import { guardedPaths, hooksFolderIn, judgeWorktreeGit, type WorktreeGitVerdict } from "../core/landing-guard.js";
import {
  branchTips,
  git,
  gitBytes,
  gitLine,
  gitVersion,
  isAncestor,
  personConfig,
  resolveRef,
  splitZ,
  type GitDirs,
} from "./git.js";
import { GITIGNORE_LINES } from "../claude/gitignore.js";
import { installWrote } from "../install/own-changes.js";
import { appendFileInside, mkdirInside } from "./write-file.js";

export interface Repo {
  /** The main checkout's top folder (the worktree the project root is in). */
  readonly top: string;
  /** The project root relative to `top`, with a trailing slash ("" when they are the same). */
  readonly prefix: string;
  /** The repository's common git folder (objects, refs, info/exclude). */
  readonly commonDir: string;
}

/** Why there is no repository to use. `refused`: the system refused to run git here (a sandbox), so whether there is one is unknown. */
export interface NoRepo {
  readonly reason: string;
  readonly refused?: true;
}

/** The reason a refused git call gives (SPEC §19 "Git in a sandbox"): never "git is not installed". */
const refusedReason = (code: string) =>
  `git could not be run from this shell (the system refused it: ${code}; a sandbox such as Codex's keeps the model's commands from running it)`;

/** The repository the project root is in, or why there is none to use (no git, too old, not a repository, git refused here). */
export function repoAt(root: string, options: { checkVersion?: boolean } = {}): Repo | NoRepo {
  // The version is judged when a round decides its isolation; later calls trust that decision.
  if (options.checkVersion) {
    const version = gitVersion();
    if (!("major" in version)) {
      if (version.kind === "refused") return { reason: refusedReason(version.code), refused: true };
      return { reason: version.kind === "missing" ? "git is not installed" : `git could not run: ${version.why}` };
    }
    if (version.major < MIN_GIT[0] || (version.major === MIN_GIT[0] && version.minor < MIN_GIT[1]))
      return {
        reason: `git ${version.text} is older than ${MIN_GIT.join(".")}, which the conflict check (git merge-tree --write-tree) needs`,
      };
  }
  const memo = lookups.getStore();
  const key = resolve(root);
  const known = memo?.get(key);
  if (known !== undefined) return known;
  const found = lookUpRepo(root);
  // A failure to run git is not kept: a later call asks again.
  if (isRepo(found) || found.reason === NOT_A_REPO) memo?.set(key, found);
  return found;
}

const NOT_A_REPO = "the project is not in a git repository";

/** The repository lookups of one operation (oneOperation), by folder; none outside one. */
const lookups = new AsyncLocalStorage<Map<string, Repo | NoRepo>>();

/**
 * Runs `fn` as one operation (a command, a hook, a step of the runner): within it, and in what it
 * awaits, repoAt asks git once per folder (issue 41: the lookup was a third of a `task start`'s
 * git processes). Nested calls share the outer operation's answers. Nothing is kept after `fn`,
 * so a long-lived process (the library, `dotagent run`, the test CLI host) asks again in its next
 * operation, and sees a repository made, moved or removed in between.
 */
export function oneOperation<T>(fn: () => T): T {
  return lookups.getStore() !== undefined ? fn() : lookups.run(new Map(), fn);
}

function lookUpRepo(root: string): Repo | NoRepo {
  let run;
  try {
    run = git(root, ["rev-parse", "--show-toplevel", "--show-prefix", "--git-common-dir"], {
      ok: [128],
      readOnly: true,
    });
  } catch (error) {
    if (error instanceof DotagentError && error.code === "git_sandboxed")
      return { reason: refusedReason(String(error.details.errno ?? "EPERM")), refused: true };
    return {
      reason:
        error instanceof DotagentError && error.details.git === "missing"
          ? "git is not installed"
          : `git could not run: ${(error as Error).message}`,
    };
  }
  if (run.status !== 0) return { reason: NOT_A_REPO };
  const [top = "", prefix = "", common = ""] = run.stdout.split("\n");
  return { top, prefix, commonDir: isAbsolute(common) ? common : resolve(root, common) };
}

export const isRepo = (r: Repo | NoRepo): r is Repo => "top" in r;

/** Paths dotagent itself writes in the main checkout: never a person's uncommitted work, never merged. */
export function ownPaths(repo: Repo): string[] {
  return [`${repo.prefix}memory`, `${repo.prefix}.dotagent`, `${repo.prefix}.claude`];
}

const under = (path: string, folders: readonly string[]) => folders.some((f) => path === f || path.startsWith(`${f}/`));

/**
 * `git status --porcelain -z` entries of a checkout (paths relative to its top), renames' old
 * paths dropped. In a task worktree (`dirs`), a nested repository the executor made is not looked
 * into (`--ignore-submodules=dirty`: git would run `git status` in it, with its own config, which
 * dotagent's config does not reach); a new commit in it still shows.
 */
export function changedFiles(dir: string, pathspecs: readonly string[] = [], dirs?: GitDirs): string[] {
  const tokens = splitZ(
    git(
      dir,
      [
        "status",
        "--porcelain",
        "-z",
        "--untracked-files=all",
        "--no-renames",
        ...(dirs ? ["--ignore-submodules=dirty"] : []),
        ...(pathspecs.length > 0 ? ["--", ...pathspecs] : []),
      ],
      { readOnly: true, ...(dirs ? { dirs } : {}) },
    ).stdout,
  );
  return tokens.map((t) => t.slice(3));
}

/**
 * The main checkout's branch (undefined: a detached HEAD), its commit (undefined: none yet) and
 * changedFiles' paths, from one `git status` (issue 41: it was three calls, with `symbolic-ref`
 * and `rev-parse`). `--no-ahead-behind`: the upstream's distance is not counted.
 */
function checkoutStatus(top: string): { branch: string | undefined; head: string | undefined; changed: string[] } {
  const out = git(
    top,
    ["status", "--porcelain=v2", "--branch", "--no-ahead-behind", "-z", "--untracked-files=all", "--no-renames"],
    { readOnly: true },
  ).stdout;
  let branch: string | undefined;
  let head: string | undefined;
  const changed: string[] = [];
  for (const entry of splitZ(out)) {
    if (entry.startsWith("# branch.head ")) {
      const name = entry.slice("# branch.head ".length);
      branch = name === "(detached)" ? undefined : name;
    } else if (entry.startsWith("# branch.oid ")) {
      const oid = entry.slice("# branch.oid ".length);
      head = oid === "(initial)" ? undefined : oid;
    } else if (!entry.startsWith("#")) changed.push(statusPath(entry));
  }
  return { branch, head, changed };
}

/** A `--porcelain=v2 -z` entry's path: after 8 fields for a changed entry (`1`), 10 for an unmerged one (`u`), 1 for an untracked one (`?`). */
function statusPath(entry: string): string {
  const fields = entry[0] === "1" ? 8 : entry[0] === "u" ? 10 : 1;
  let at = 0;
  for (let i = 0; i < fields; i++) at = entry.indexOf(" ", at) + 1;
  return entry.slice(at);
}

/** The main checkout as a round's first task finds it (SPEC §19); `git: "refused"` when the system would not let git run here. */
export function checkoutFacts(root: string): CheckoutFacts {
  try {
    return lookAtCheckout(root);
  } catch (error) {
    if (error instanceof DotagentError && error.code === "git_sandboxed")
      return { git: "refused", reason: refusedReason(String(error.details.errno ?? "EPERM")) };
    throw error;
  }
}

function lookAtCheckout(root: string): CheckoutFacts {
  const repo = repoAt(root, { checkVersion: true });
  if (!isRepo(repo))
    return repo.refused ? { git: "refused", reason: repo.reason } : { git: false, reason: repo.reason };
  const status = checkoutStatus(repo.top);
  if (status.branch === undefined)
    return {
      git: false,
      reason: "the main checkout is on a detached HEAD, not a branch, so there is no branch to merge the tasks into",
    };
  const head = status.head;
  if (head === undefined) return { git: false, reason: "the repository has no commit yet to make worktrees from" };
  const linked = linkedWorktreesDir(root);
  if (linked !== undefined)
    return {
      git: false,
      reason: `${linked} is a link or not a folder, and dotagent makes and removes task worktrees only in a folder of the project's own`,
    };
  return {
    git: true,
    branch: status.branch,
    head,
    dirty: sortChanges(repo, status.changed).person,
    writable: gitFolderWritable(repo) === undefined,
  };
}

/**
 * The main checkout's uncommitted paths that are the person's (sorted), and the others outside
 * dotagent's own folders that dotagent wrote: its own lines in a .gitignore, and the files a
 * Copilot CLI or Codex CLI install wrote (src/install/own-changes.ts), which the tasks' worktrees
 * do not need, as they do not need `.claude/`.
 */
function sortChanges(repo: Repo, all = changedFiles(repo.top)): { person: string[]; dotagents: string[] } {
  const own = ownPaths(repo);
  const changed = all.filter((p) => !under(p, own));
  const inRoot = changed.filter((p) => p.startsWith(repo.prefix)).map((p) => p.slice(repo.prefix.length));
  const root = join(repo.top, repo.prefix);
  const installed = installWrote(root, inRoot, (rel) =>
    gitBytes(repo.top, ["show", `HEAD:${repo.prefix}${rel}`])?.toString("utf8"),
  );
  const dotagents = changed.filter(
    (p) => installed.has(p.slice(repo.prefix.length)) || onlyDotagentIgnoreLines(repo.top, p),
  );
  const ours = new Set(dotagents);
  return { person: changed.filter((p) => !ours.has(p)).sort(), dotagents };
}

const personChanges = (repo: Repo): string[] => sortChanges(repo).person;

/**
 * Why this shell cannot write the repository's git folder (EROFS, EACCES: a sandbox such as
 * Codex's workspace-write mounts `.git` read-only for the model's commands), or undefined when it can.
 */
export function gitFolderWritable(repo: Repo): string | undefined {
  try {
    accessSync(repo.commonDir, fsConstants.W_OK);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? "EACCES";
  }
}

/** A changed `.gitignore` whose only difference from HEAD's is lines dotagent's install adds (and blank lines). */
function onlyDotagentIgnoreLines(top: string, rel: string): boolean {
  if (basename(rel) !== ".gitignore") return false;
  let now: string;
  try {
    now = readFileSync(join(top, rel), "utf8");
  } catch {
    return false;
  }
  const lines = (text: string) => text.split(/\r?\n/).filter((l) => l.trim() !== "");
  const before = new Map<string, number>();
  for (const line of lines(gitBytes(top, ["show", `HEAD:${rel}`])?.toString("utf8") ?? ""))
    before.set(line, (before.get(line) ?? 0) + 1);
  for (const line of lines(now)) {
    const left = before.get(line) ?? 0;
    if (left > 0) before.set(line, left - 1);
    else if (!GITIGNORE_LINES.includes(line)) return false;
  }
  // Nothing of the person's taken out.
  return [...before.values()].every((n) => n === 0);
}

/**
 * The main checkout's facts for the planner, looked at only when they can matter (checkoutMatters).
 * Otherwise undefined: no git runs.
 */
export function checkoutFactsFor(root: string, snapshot: StateSnapshot): CheckoutFacts | undefined {
  return checkoutMatters(snapshot) ? checkoutFacts(root) : undefined;
}

/** IMPLEMENTATION, tasks ready to start, and the round's isolation not decided yet. */
export function checkoutMatters(snapshot: StateSnapshot): boolean {
  if (snapshot.phase.kind !== "ok" || snapshot.execution.kind !== "ok") return false;
  const phase = snapshot.phase.value;
  if (phase.current_phase !== tasksStepOf(phase)) return false;
  const execution = snapshot.execution.value;
  return isolationOf(execution, currentRound(phase)) === undefined && readyTasks(execution).length > 0;
}

/**
 * The same facts, for a reader's plan: given only when they make the person decide before the
 * round's tasks start (uncommitted changes, or git refused here: the planner reads nothing else,
 * plan-resume.ts), else undefined. On the start-up path of `status`, `resume --dry-run` and the
 * SessionStart hook, so a checkout with nothing to decide costs `git rev-parse` and `git status`
 * (outside a repository `git rev-parse` alone), never checkoutFacts' `git --version` nor its `git
 * show` of the files a client's install changed; anything else is looked at in full, so the answer
 * is always checkoutFacts' own.
 */
export function checkoutQuestionFor(root: string, snapshot: StateSnapshot): CheckoutFacts | undefined {
  if (!checkoutMatters(snapshot) || nothingToDecide(root)) return undefined;
  const facts = checkoutFacts(root);
  return facts.git === "refused" || (facts.git === true && facts.dirty.length > 0) ? facts : undefined;
}

/**
 * True when the checkout surely gives the person nothing to decide; false when unsure. No git,
 * no repository, or a git that failed makes checkoutFacts say `git: false` whatever
 * `git --version` says (a git that ran, or was not found, was not refused); a repository with
 * none of the person's changes has nothing to commit, whatever its branch, HEAD or git's version.
 */
function nothingToDecide(root: string): boolean {
  try {
    const repo = repoAt(root);
    if (!isRepo(repo)) return repo.refused !== true;
    return personChanges(repo).length === 0;
  } catch {
    return false;
  }
}

/** What to do when git cannot run or write from inside a sandbox (SPEC §19 "Git in a sandbox"). */
const OUTSIDE_SANDBOX =
  "for the person: commit them yourself (`git add -A && git commit`) and run `dotagent resume --isolation commit` again, or let this command run outside the sandbox (approve it when asked), or run the tasks without worktrees (`dotagent resume --isolation shared`)";

/** Commits the main checkout's uncommitted changes (the person's "yes": SPEC §19); dotagent's own folders and .gitignore lines stay out. */
export function commitCheckout(root: string, message: string): string[] {
  const repo = repoAt(root);
  if (!isRepo(repo)) {
    if (repo.refused)
      throw new DotagentError(
        "git_sandboxed",
        `the main checkout's changes cannot be committed: ${repo.reason}. ${OUTSIDE_SANDBOX}`,
        EXIT.refused,
      );
    return [];
  }
  const own = ownPaths(repo);
  // What checkoutFacts counts as dotagent's (install's .gitignore lines, a client's installed files) is not in the person's commit.
  const { person: files, dotagents: ours } = sortChanges(repo);
  if (files.length === 0) return [];
  const readOnly = gitFolderWritable(repo);
  if (readOnly !== undefined)
    throw new DotagentError(
      "git_sandboxed",
      `the main checkout's changes (${files.slice(0, 3).join(", ")}${files.length > 3 ? ", …" : ""}) cannot be committed from this shell: ${repo.commonDir} cannot be written here (${readOnly}; a sandbox such as Codex's keeps .git read-only for the model's commands). ${OUTSIDE_SANDBOX}`,
      EXIT.refused,
      { files },
    );
  git(repo.top, [
    "add",
    "-A",
    "--",
    ".",
    ...own.map((p) => `:(exclude)${p}`),
    ...ours.map((p) => `:(exclude,literal)${p}`),
  ]);
  git(repo.top, ["commit", "--no-verify", "-q", "-m", message]);
  return files;
}

export interface WorktreeEntry {
  readonly path: string;
  readonly head: string | null;
  /** `refs/heads/…`, or null (detached, bare). */
  readonly branch: string | null;
  /** The lock reason ("" when locked without one), or null when not locked. */
  readonly locked: string | null;
  readonly prunable: boolean;
}

export function listWorktrees(top: string): WorktreeEntry[] {
  const tokens = git(top, ["worktree", "list", "--porcelain", "-z"], { readOnly: true }).stdout.split("\0");
  const entries: WorktreeEntry[] = [];
  let current: {
    path: string;
    head: string | null;
    branch: string | null;
    locked: string | null;
    prunable: boolean;
  } | null = null;
  for (const token of tokens) {
    if (token === "") {
      if (current) entries.push(current);
      current = null;
      continue;
    }
    const space = token.indexOf(" ");
    const key = space === -1 ? token : token.slice(0, space);
    const value = space === -1 ? "" : token.slice(space + 1);
    if (key === "worktree") current = { path: value, head: null, branch: null, locked: null, prunable: false };
    else if (current && key === "HEAD") current.head = value;
    else if (current && key === "branch") current.branch = value;
    else if (current && key === "locked") current.locked = value;
    else if (current && key === "prunable") current.prunable = true;
  }
  if (current) entries.push(current);
  return entries;
}

const real = (path: string) => {
  try {
    return realpathSync.native(path);
  } catch {
    return resolve(path);
  }
};
export const samePath = (a: string, b: string) => a === b || real(a) === real(b);

/** What dotagent writes as the lock reason: whose worktree it is, to judge its owner without execution.json. */
export interface WorktreeLock {
  task: string;
  workflow: string;
  /** phase.json's instance_id: a workflow id used again is another instance, whose worktrees are not this one's. */
  instance?: string | null;
  owner: Owner | null;
}

export function lockReason(lock: WorktreeLock): string {
  return `dotagent ${JSON.stringify(lock)}`;
}

export function parseLockReason(reason: string | null): WorktreeLock | null {
  if (reason === null || !reason.startsWith("dotagent {")) return null;
  try {
    const value = JSON.parse(reason.slice("dotagent ".length)) as WorktreeLock;
    return typeof value.task === "string" ? value : null;
  } catch {
    return null;
  }
}

/**
 * Keeps the main checkout from listing the worktrees folder as untracked (repository-local, nothing
 * committed). Written inside the repository's git folder, never through a link there.
 */
export function excludeWorktreesFolder(repo: Repo): void {
  const file = join(repo.commonDir, "info", "exclude");
  const line = `/${repo.prefix}${WORKTREES_DIR.split("/")[0]}/`;
  const within = "the repository's git folder";
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    mkdirInside(repo.commonDir, dirname(file), { within });
  }
  if (text.split(/\r?\n/).includes(line)) return;
  appendFileInside(
    repo.commonDir,
    file,
    `${text === "" || text.endsWith("\n") ? "" : "\n"}# dotagent: task worktrees (machine-local)\n${line}\n`,
    { within, mode: 0o666 },
  );
}

export interface EnsureWorktree {
  readonly path: string;
  readonly branch: string;
  readonly base: string;
  readonly lock: WorktreeLock;
  /** Neither the folder nor the branch existed when the caller looked (under the state lock). */
  readonly fresh?: boolean;
}

/**
 * Makes the task's worktree, or finds it made: the folder registered on its branch (the lock's
 * owner updated), else a worktree on the branch (kept from an earlier attempt), else a new branch
 * from `base`. Idempotent: a kill anywhere leaves something the next call finishes.
 */
export function ensureWorktree(
  root: string,
  repo: Repo,
  want: EnsureWorktree,
  listed?: readonly WorktreeEntry[],
): void {
  const abs = join(root, want.path);
  excludeWorktreesFolder(repo);
  // A first start (no folder, no branch yet: the caller saw both free): one `git worktree add`;
  // should it fail (a registration git still remembers), the careful way below sorts it out.
  if (want.fresh === true && !existsSync(abs)) {
    mkdirInside(root, dirname(abs));
    const added = git(
      repo.top,
      ["worktree", "add", "-q", "--lock", "--reason", lockReason(want.lock), "-b", want.branch, abs, want.base],
      { ok: [128, 255] },
    );
    if (added.status === 0) return;
  }
  let there = (listed ?? listWorktrees(repo.top)).find((w) => samePath(w.path, abs));
  if (there && (there.prunable || !existsSync(join(abs, ".git")))) {
    // Registered, but its folder went (removed by hand, a kill while it was made): forget it.
    git(repo.top, ["worktree", "unlock", abs], { ok: [128] });
    git(repo.top, ["worktree", "prune"]);
    there = undefined;
  }
  if (there) {
    // The start puts a retry's worktree back on its branch first (mendStart); one still elsewhere
    // is past what dotagent does alone, and nothing of it is deleted.
    if (there.branch !== `refs/heads/${want.branch}`)
      throw new DotagentError(
        "worktree_busy",
        `${want.path} is a git worktree of ${there.branch ?? "a detached HEAD"}, not of ${want.branch}, and it may hold work; the task waits. for the person: bring that work onto ${want.branch} (git -C '${abs}' switch ${want.branch}), then start the task again`,
        EXIT.refused,
        { path: want.path },
      );
    const trusted = worktreeGitAt(repo, abs);
    if (!trusted.ok)
      throw new DotagentError(
        "worktree_untrusted",
        `${want.path} is not the worktree dotagent made: ${trusted.reason}; dotagent runs nothing there, and the task waits. for the person: look at it, keep what you need, then \`git worktree remove --force ${abs}\` and start the task again`,
        EXIT.refused,
        { path: want.path },
      );
    relock(repo.top, abs, want.lock);
    return;
  }
  // A folder a cut-off start left (made, then killed before `git worktree add`) is empty; any
  // other folder there is not dotagent's, and stays.
  if (!removeIfEmpty(abs) && existsSync(abs))
    throw new DotagentError(
      "worktree_busy",
      `${want.path} holds a folder dotagent did not make, and the task waits. for the person: move it away (out of ${WORKTREES_DIR}), then start the task again`,
      EXIT.refused,
      { path: want.path },
    );
  mkdirInside(root, dirname(abs));
  const hasBranch = resolveRef(repo.top, `refs/heads/${want.branch}`) !== undefined;
  const reason = lockReason(want.lock);
  git(repo.top, [
    "worktree",
    "add",
    "-q",
    "--lock",
    "--reason",
    reason,
    ...(hasBranch ? [abs, want.branch] : ["-b", want.branch, abs, want.base]),
  ]);
}

function relock(top: string, abs: string, lock: WorktreeLock): void {
  git(top, ["worktree", "unlock", abs], { ok: [128] });
  git(top, ["worktree", "lock", "--reason", lockReason(lock), abs]);
}

/** The git files names resolve to in a checkout (`index.lock`, `MERGE_HEAD`), in one call: right in linked worktrees too. */
export function gitPaths(dir: string, names: readonly string[]): string[] {
  // A checkout's own git folder holds these: `.git` itself, or in a linked worktree the folder its
  // `.git` file names (`gitdir: …`). Read without running git; anything else asks git.
  const own = ownGitDir(dir);
  if (own !== undefined) return names.map((n) => join(own, n));
  const out = git(dir, ["rev-parse", ...names.flatMap((n) => ["--git-path", n])], { readOnly: true })
    .stdout.split("\n")
    .slice(0, names.length);
  return out.map((p) => (isAbsolute(p) ? p : resolve(dir, p)));
}

/** The git folder of a checkout when it is plain to see: `<dir>/.git`, or a linked worktree's `gitdir:` folder under the repository's `worktrees/`. */
function ownGitDir(dir: string): string | undefined {
  const dotGit = join(dir, ".git");
  try {
    const stat = lstatSync(dotGit);
    if (stat.isDirectory()) return dotGit;
    if (!stat.isFile()) return undefined;
    const match = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, "utf8"));
    const target = match ? resolve(dir, match[1]!.trim()) : undefined;
    return target !== undefined && basename(dirname(target)) === "worktrees" && existsSync(join(target, "commondir"))
      ? target
      : undefined;
  } catch {
    return undefined;
  }
}

/** Whether some live process holds `file` open (Linux /proc); undefined where that cannot be seen. */
function heldOpen(file: string): boolean | undefined {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((p) => /^\d+$/.test(p));
  } catch {
    return undefined;
  }
  const target = real(file);
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const link = readlinkSync(`/proc/${pid}/fd/${fd}`);
        if (link === file || link === target) return true;
      } catch {
        // gone meanwhile
      }
    }
  }
  return false;
}

/**
 * A checkout's index.lock left by a git that was killed (no live process holds it open) is
 * removed, so git can work there again; one a live git holds is waited for by the caller (exit 4).
 * Returns whether one was removed.
 */
export function clearStaleIndexLock(dir: string, lockPath?: string): boolean {
  const lock = lockPath ?? gitPaths(dir, ["index.lock"])[0]!;
  if (!existsSync(lock)) return false;
  const held = heldOpen(lock);
  if (held !== false)
    throw new DotagentError(
      "git_locked",
      `${lock} exists${held === undefined ? " and this system cannot tell whether a git process still holds it" : ": a git process is working in that checkout"}; wait for it, then run the command again; if no git runs there, for the person: rm '${lock}'`,
      EXIT.locked,
      { path: lock },
    );
  unlinkSync(lock);
  return true;
}

export interface Leftovers {
  /** Files committed on the task's branch by dotagent (its executor left them uncommitted). */
  readonly committed: string[];
  /** A merge the executor started in its worktree and did not finish: its unmerged files. */
  readonly unmerged: string[];
}

/**
 * Commits what an executor left uncommitted in its worktree (dotagent's folders excepted),
 * finishing a merge it concluded but did not commit. `dirs`: the worktree's git folder as the
 * landing guard checked it (worktreeGitAt), named on every call.
 */
export function commitLeftovers(dir: string, dirs: GitDirs, repoPrefix: string, message: string): Leftovers {
  const lock = join(dirs.gitDir, "index.lock");
  clearStaleIndexLock(dir, lock);
  const own = [`${repoPrefix}memory`, `${repoPrefix}.dotagent`];
  const merging = existsSync(join(dirs.gitDir, "MERGE_HEAD"));
  if (merging) {
    const unmerged = splitZ(
      git(dir, ["diff", "--name-only", "-z", "--diff-filter=U"], { readOnly: true, dirs }).stdout,
    );
    if (unmerged.length > 0) return { committed: [], unmerged };
  }
  const files = changedFiles(dir, [], dirs).filter((p) => !under(p, own));
  if (files.length === 0 && !merging) return { committed: [], unmerged: [] };
  // Exactly the files status listed, by update-index: `git add -A` would run `git status` inside a
  // nested repository the executor made, with that repository's own config (a clean filter).
  if (files.length > 0)
    git(dir, ["update-index", "--add", "--remove", "--replace", "-z", "--stdin"], {
      dirs,
      input: files.map((f) => f.replace(/\/$/, "")).join("\0"),
    });
  // Empty only to conclude a merge; otherwise nothing staged (another process committed it meanwhile) is no commit.
  const made = git(
    dir,
    ["commit", "--no-verify", "-q", ...(merging ? ["--allow-empty"] : []), "-m", message],
    merging ? { dirs } : { ok: [1], dirs },
  );
  return { committed: made.status === 0 ? files : [], unmerged: [] };
}

/** What a landing left out of a task's branch: the files, and the commit that still holds them. */
export interface LeftOut {
  readonly files: string[];
  /** The branch's tip before the commit that undid them (null: nothing left out). */
  readonly keptIn: string | null;
}

/**
 * What a landing never merges (the landing guard's guardedPaths: memory/, .dotagent/, the
 * clients' session folders, the hooks folder, .gitmodules): changes the branch made there since it left `onto`, committed
 * by dotagent or by the executor itself, are undone by a commit on it. The commit before that one
 * still holds them.
 */
export function dropGuardedChanges(
  dir: string,
  dirs: GitDirs,
  guarded: readonly string[],
  onto: string,
  message: string,
): LeftOut {
  const changed = splitZ(
    git(
      dir,
      ["diff", "--name-only", "-z", "--no-renames", `${onto}...HEAD`, "--", ...guarded.map((g) => `:(top,icase)${g}`)],
      { readOnly: true, dirs },
    ).stdout,
  );
  if (changed.length === 0) return { files: [], keptIn: null };
  const keptIn = gitLine(dir, ["rev-parse", "HEAD"], { readOnly: true, dirs });
  const since = gitLine(dir, ["merge-base", onto, "HEAD"], { readOnly: true, dirs });
  git(
    dir,
    ["restore", `--source=${since}`, "--staged", "--worktree", "--", ...changed.map((p) => `:(top,literal)${p}`)],
    { dirs },
  );
  git(dir, ["commit", "--no-verify", "-q", "-m", message], { dirs });
  return { files: changed, keptIn };
}

const guardedByTop = new Map<string, string[]>();

/** The paths a landing in this repository never merges (read once per process: core.hooksPath as the person's git sees it). */
export function guardedFor(repo: Repo): string[] {
  let paths = guardedByTop.get(repo.top);
  if (paths === undefined) {
    paths = guardedPaths(repo.prefix, hooksFolderIn(personConfig(repo.top, "core.hooksPath"), repo.top));
    guardedByTop.set(repo.top, paths);
  }
  return paths;
}

/**
 * The landing guard's facts about a task worktree's `.git`, read without running git (nothing of
 * the worktree's runs to judge it), and its verdict: the git folder to name, or why not.
 */
export function worktreeGitAt(repo: Repo, abs: string): WorktreeGitVerdict {
  const worktree = real(abs);
  const adminRoot = real(join(repo.commonDir, "worktrees"));
  const dotGit = join(abs, ".git");
  let stat;
  try {
    stat = lstatSync(dotGit);
  } catch {
    return judgeWorktreeGit({ worktree, adminRoot, kind: "missing" });
  }
  // git writes a one-line file; anything else (a folder, a link, a big file) is not git's.
  if (!stat.isFile() || stat.size > 4096) return judgeWorktreeGit({ worktree, adminRoot, kind: "other" });
  const line = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, "utf8"))?.[1]?.trim();
  if (line === undefined) return judgeWorktreeGit({ worktree, adminRoot, kind: "file" });
  const named = real(resolve(abs, line));
  const readIn = (name: string) => {
    try {
      const text = readFileSync(join(named, name), "utf8").trim();
      return text === "" ? undefined : real(resolve(named, text));
    } catch {
      return undefined;
    }
  };
  return judgeWorktreeGit({
    worktree,
    adminRoot,
    kind: "file",
    named,
    pointsBack: readIn("gitdir"),
    commonMatches: readIn("commondir") === real(repo.commonDir),
  });
}

/** The git folder and work tree to name for a task worktree dotagent made, or why it is not one. */
export function worktreeDirs(repo: Repo, abs: string): { dirs: GitDirs } | { reason: string } {
  const verdict = worktreeGitAt(repo, abs);
  return verdict.ok ? { dirs: { gitDir: verdict.gitDir, workTree: real(abs) } } : { reason: verdict.reason };
}

/** Removes `abs` when it is an empty folder (a start cut off before `git worktree add`); whether it did. */
export function removeIfEmpty(abs: string): boolean {
  try {
    if (!lstatSync(abs).isDirectory() || readdirSync(abs).length > 0) return false;
    rmdirSync(abs);
    return true;
  } catch {
    return false;
  }
}

/** Whether `abs` is there and holds something (lstat: a link counts as something). */
export function holdsSomething(abs: string): boolean {
  try {
    return !lstatSync(abs).isDirectory() || readdirSync(abs).length > 0;
  } catch {
    return false;
  }
}

/** Whether git has any linked worktree registered (a folder in <common>/worktrees), read without git. */
export function hasLinkedWorktrees(repo: Repo): boolean {
  try {
    return readdirSync(join(repo.commonDir, "worktrees")).length > 0;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ENOENT";
  }
}

/**
 * The checkout that has `branch` checked out (a branch is, in one at most), or undefined. The
 * usual cases are read without running git: the main checkout's own HEAD names it, or it does not
 * and git has no linked worktree. Otherwise git lists them (`prunable`: one whose folder went
 * counts too).
 */
export function checkoutHolding(repo: Repo, branch: string, options: { prunable?: boolean } = {}): string | undefined {
  const ref = `refs/heads/${branch}`;
  try {
    const head = readFileSync(join(repo.top, ".git", "HEAD"), "utf8").trim();
    if (head === `ref: ${ref}`) return repo.top;
    if (!hasLinkedWorktrees(repo)) return undefined;
  } catch {
    // .git is a file (the top is itself a linked worktree) or unreadable: ask git
  }
  return listWorktrees(repo.top).find((w) => w.branch === ref && (options.prunable === true || !w.prunable))?.path;
}

/**
 * Removes a worktree dotagent made (locked or not), and its folder if git has forgotten it. A
 * folder whose `.git` is not the one git made for it is not dotagent's to delete: it stays, and
 * the reason is returned (undefined: removed).
 */
export function removeWorktree(repo: Repo, abs: string): string | undefined {
  // Only ever a folder directly in a .dotagent/worktrees (the state's records are checked on
  // read too): never a project folder a hand-edited record names.
  if (
    basename(dirname(abs)) !== "worktrees" ||
    basename(dirname(dirname(abs))) !== ".dotagent" ||
    linkedWorktreesDir(dirname(dirname(dirname(abs)))) !== undefined
  )
    throw new DotagentError(
      "state_invalid",
      `dotagent removes only its own worktrees, folders right in the project's .dotagent/worktrees (neither a link), not ${abs}; check memory/state/execution.json and .dotagent`,
      EXIT.invalid,
    );
  if (holdsSomething(abs)) {
    const trusted = worktreeGitAt(repo, abs);
    if (!trusted.ok) return trusted.reason;
  }
  // Forced twice: locked, and whatever its files hold (its work is committed or merged by now).
  const removed = git(repo.top, ["worktree", "remove", "--force", "--force", abs], { ok: [128] });
  if (removed.status !== 0 && listWorktrees(repo.top).some((w) => samePath(w.path, abs))) {
    git(repo.top, ["worktree", "unlock", abs], { ok: [128] });
    rmSync(abs, { recursive: true, force: true });
    git(repo.top, ["worktree", "prune"]);
  }
  rmSync(abs, { recursive: true, force: true });
  return undefined;
}

/**
 * Deletes a task branch whose commits are all in `into` (or anywhere else worth keeping): never one
 * holding unmerged work. `merged`: its tip as the caller found it merged under the same lock, moments
 * ago (a landing); deleted only while the branch still points there (update-ref's old value), as
 * a landing deletes the branch it merged.
 */
export function deleteBranchIfMerged(top: string, branch: string, into?: string, found?: { tip: string }): boolean {
  if (!branch.startsWith(BRANCH_PREFIX)) return false; // never a branch that is not dotagent's own
  if (found !== undefined)
    return git(top, ["update-ref", "-d", `refs/heads/${branch}`, found.tip], { ok: [1, 128] }).status === 0;
  // Both tips in one call (git keeps only commits under refs/heads/).
  const tips = branchTips(top, [`refs/heads/${branch}`, ...(into !== undefined ? [`refs/heads/${into}`] : [])]);
  const tip = tips.get(`refs/heads/${branch}`);
  if (tip === undefined) return true;
  const merged =
    into !== undefined && tips.has(`refs/heads/${into}`)
      ? isAncestor(top, tip, `refs/heads/${into}`)
      : containedElsewhere(top, branch, tip);
  if (!merged) return false;
  git(top, ["update-ref", "-d", `refs/heads/${branch}`, tip]);
  return true;
}

/** Whether a branch's tip is in some local branch that is not one of dotagent's. */
function containedElsewhere(top: string, branch: string, tip: string): boolean {
  const holders = git(top, ["for-each-ref", "--format=%(refname)", "--contains", tip, "refs/heads/"], {
    readOnly: true,
  })
    .stdout.split("\n")
    .filter((r) => r !== "" && r !== `refs/heads/${branch}` && !r.startsWith(`refs/heads/${BRANCH_PREFIX}`));
  return holders.length > 0;
}

/** dotagent's branches (`dotagent/…`), without the refs/heads/ prefix. */
export function listTaskBranches(top: string): string[] {
  return git(top, ["for-each-ref", "--format=%(refname)", `refs/heads/${BRANCH_PREFIX}`], { readOnly: true })
    .stdout.split("\n")
    .filter((r) => r !== "")
    .map((r) => r.replace(/^refs\/heads\//, ""));
}

/** `.dotagent` or `.dotagent/worktrees` when one is there but is a link (or not a folder): dotagent's worktrees then never live there. */
function linkedWorktreesDir(root: string): string | undefined {
  for (const rel of [".dotagent", WORKTREES_DIR]) {
    let stat;
    try {
      stat = lstatSync(join(root, rel));
    } catch {
      return undefined;
    }
    if (!stat.isDirectory()) return rel;
  }
  return undefined;
}

/** The folders under <root>/.dotagent/worktrees (project-relative), cheap to list: no git; none when that folder is a link. */
export function worktreeFolders(root: string): string[] {
  if (linkedWorktreesDir(root) !== undefined) return [];
  try {
    return readdirSync(join(root, WORKTREES_DIR)).map((name) => `${WORKTREES_DIR}/${name}`);
  } catch {
    return [];
  }
}

export const projectRelative = (root: string, abs: string) => relative(real(root), real(abs)).split("\\").join("/");

/**
 * Whether a command must look at the worktrees before it plans (no git runs to find out): a merge
 * recorded as in progress, a running task with a worktree whose report is there, or a folder under
 * .dotagent/worktrees that no task of the live state needs.
 */
export function needsWorktreeRecovery(root: string, snapshot: StateSnapshot): boolean {
  const execution = snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined;
  for (const task of execution?.tasks ?? []) {
    const w = task.worktree;
    if (w == null) continue;
    if (w.merge?.state === "merging") return true;
    if (
      task.status === "running" &&
      snapshot.reports.files.get(task.output ?? `memory/reports/tasks/${task.id}.json`)?.status === "valid"
    )
      return true;
  }
  const folders = worktreeFolders(root);
  if (folders.length === 0) return false;
  const live = new Set(
    (execution?.tasks ?? []).flatMap((t) =>
      t.worktree != null && (t.status !== "complete" || t.worktree.merge?.state !== "merged") ? [t.worktree.path] : [],
    ),
  );
  return folders.some((f) => !live.has(f));
}
