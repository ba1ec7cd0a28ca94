// The landing guard (SPEC §19): the one place that says what dotagent's git may run, which git
// folder a task's worktree is, what a landing may merge into the session's checkout, and what the
// sweep may delete under .dotagent/worktrees. Pure: the store reads the facts and acts on the
// verdicts (src/store/git.ts: the config on every call and GIT_DIR/GIT_WORK_TREE; store/worktrees.ts:
// worktreeGitAt, guardedFor, dropGuardedChanges, removeIfEmpty; store/git-merge.ts:
// guardMergeTree; ops/worktree-tasks.ts: the landing's step 0 and the sweep).
//
// The threat: a task's executor is an agent that may be hostile, and everything it writes is
// untrusted input: the files and commits in its worktree, the worktree's own `.git` file, folders
// it makes under .dotagent/worktrees. dotagent then runs git there and fast-forwards the main
// checkout, often from a hook nobody watches (SubagentStop). Without these rules an executor
// could get a program of its choosing run by dotagent's git (a hook it wrote in a tracked hooks
// folder, a `.git` file naming a git folder it wrote with `core.fsmonitor` or a filter), change
// what the session runs next (its `.claude/`, `.codex/` or `.github/hooks` settings and helper, dotagent's state, the
// repository's hooks and submodules), or get the sweep to delete what is not dotagent's.
//
// Out of reach here: an executor that writes outside its worktree (the repository's own git
// folder and config, the person's home) has the person's rights already; keeping it in its
// worktree is the sandbox's job, not the landing's.

/**
 * Config every git command of dotagent's runs with (`GIT_CONFIG_COUNT`, which beats every config
 * file): no hook of anyone's runs (an empty hooks path: git 2.39+ finds no hook under /dev/null),
 * no fsmonitor program, no submodule recursion (a checkout or merge would fetch and check out what
 * `.gitmodules` names), no background maintenance.
 *
 * Left as the person set them, deliberately: clean/smudge filters, diff and merge drivers (a
 * `.gitattributes` can only name a driver whose command the repository's or person's config
 * defines, such as git-lfs, and dotagent names the repository's git folder itself, so a config
 * file the executor wrote is never read); commit signing (the person's own rule for commits).
 * Never used offline: ssh, credential helpers, remote helpers. Not reachable by config: a
 * nested repository the executor makes in its worktree has its own; so dotagent never runs git
 * inside one (status with `--ignore-submodules=dirty`, leftovers staged by `update-index`).
 */
export const GIT_SAFETY_CONFIG: ReadonlyArray<readonly [string, string]> = [
  ["core.hooksPath", "/dev/null"],
  ["core.fsmonitor", "false"],
  ["submodule.recurse", "false"],
  ["maintenance.auto", "false"],
  ["gc.auto", "0"],
];

/** What the store found about a worktree's `.git` (paths real: links resolved). */
export interface WorktreeGitFacts {
  /** The worktree's top folder. */
  readonly worktree: string;
  /** `<common git dir>/worktrees` of the project's repository. */
  readonly adminRoot: string;
  /** `.git` in the worktree: a file (as git makes it), missing, or something else (a folder, a link). */
  readonly kind: "file" | "missing" | "other";
  /** The folder its `gitdir:` line names, resolved; undefined when it has none. */
  readonly named?: string | undefined;
  /** What that folder's `gitdir` file names (the worktree's `.git` as git recorded it), resolved. */
  readonly pointsBack?: string | undefined;
  /** Whether that folder's `commondir` names the repository's common git dir. */
  readonly commonMatches?: boolean;
}

export type WorktreeGitVerdict =
  { readonly ok: true; readonly gitDir: string } | { readonly ok: false; readonly reason: string };

/**
 * A worktree's `.git` is trusted only when it is the file git wrote for THIS repository: its
 * `gitdir:` names a folder right in `<common git dir>/worktrees/`, whose `gitdir` file names this
 * worktree's `.git` back and whose `commondir` is this repository's. Then dotagent runs git there
 * with that folder named (GIT_DIR, GIT_WORK_TREE); otherwise nothing of dotagent's runs there.
 */
export function judgeWorktreeGit(facts: WorktreeGitFacts): WorktreeGitVerdict {
  if (facts.kind === "missing") return { ok: false, reason: "it has no .git file" };
  if (facts.kind === "other") return { ok: false, reason: "its .git is not the file git writes (a folder or a link)" };
  if (facts.named === undefined) return { ok: false, reason: "its .git file has no gitdir: line" };
  if (parentOf(facts.named) !== facts.adminRoot)
    return {
      ok: false,
      reason: `its .git file names ${facts.named}, not a folder in this repository's ${facts.adminRoot}`,
    };
  if (facts.pointsBack !== `${facts.worktree}/.git`)
    return { ok: false, reason: `${facts.named}/gitdir does not name this worktree back` };
  if (facts.commonMatches !== true)
    return { ok: false, reason: `${facts.named}/commondir is not this repository's git folder` };
  return { ok: true, gitDir: facts.named };
}

const parentOf = (path: string) => path.slice(0, Math.max(path.lastIndexOf("/"), 0)) || "/";

/**
 * The folder `core.hooksPath` names, relative to the repository's top, when it lies in the
 * repository (a tracked hooks folder: `.githooks`, husky's `.husky/_`); undefined when it is
 * unset or outside (`.git/hooks`, a folder in the person's home).
 */
export function hooksFolderIn(hooksPath: string | undefined, top: string): string | undefined {
  if (hooksPath === undefined || hooksPath.trim() === "") return undefined;
  const abs = hooksPath.startsWith("/") ? hooksPath : `${top}/${hooksPath}`;
  const parts: string[] = [];
  for (const part of abs.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  const normal = `/${parts.join("/")}`;
  if (!normal.startsWith(`${top}/`)) return undefined;
  const rel = normal.slice(top.length + 1);
  return rel === ".git" || rel.startsWith(".git/") ? undefined : rel;
}

/**
 * The folders from which a client's session takes what it runs and obeys, whichever client dotagent
 * is installed for (an executor in one client could plant another's): Claude Code's `.claude/`
 * (settings, hooks, agents, skills and the helper every hook runs); Copilot CLI's hooks, skills and
 * agents under `.github/` (not the rest of `.github/`: workflows and templates are project content);
 * Codex CLI's `.codex/` (config.toml with its sandbox and approval policy, hooks.json, agents) and
 * `.agents/` (its skills and the helper).
 */
export const SESSION_FOLDERS = [".claude", ".github/hooks", ".github/skills", ".github/agents", ".codex", ".agents"];

/**
 * What a landing never merges, as folders and files relative to the repository's top: the
 * session's folders (SESSION_FOLDERS), at the project's root and the repository's top; dotagent's `memory/` and
 * `.dotagent/`, the hooks folder (`.husky/` always; the one core.hooksPath names, and its parent
 * when it is husky's `_`) and `.gitmodules`. `.gitattributes` is merged: it is project content
 * (line endings, LFS tracking) and names only drivers whose programs the person's config defines.
 */
export function guardedPaths(prefix: string, hooksFolder: string | undefined): string[] {
  const session = SESSION_FOLDERS.flatMap((folder) => [`${prefix}${folder}`, folder]);
  const paths = [`${prefix}memory`, `${prefix}.dotagent`, ...session, ".husky", ".gitmodules"];
  if (hooksFolder !== undefined) {
    paths.push(hooksFolder);
    const slash = hooksFolder.lastIndexOf("/");
    if (hooksFolder.slice(slash + 1) === "_" && slash > 0) paths.push(hooksFolder.slice(0, slash));
  }
  return [...new Set(paths)];
}

/** Whether a repository path is one of `guarded` or inside one (case-insensitive: a case-insensitive disk writes `.Claude/` into `.claude/`). */
export function isGuarded(path: string, guarded: readonly string[]): boolean {
  const p = path.toLowerCase();
  return guarded.some((g) => {
    const lower = g.toLowerCase();
    return p === lower || p.startsWith(`${lower}/`);
  });
}

/** What the sweep found at a folder under .dotagent/worktrees. */
export interface SweptFolder {
  /** Nothing in it (a start cut off before `git worktree add`). */
  readonly empty: boolean;
  /** `git worktree list` of this repository names it. */
  readonly registered: boolean;
  /** Its lock reason is dotagent's, or a task of the state records it. */
  readonly dotagents: boolean;
  /** The verdict on its `.git` (registered folders only). */
  readonly gitFile?: WorktreeGitVerdict;
}

export type SweepVerdict = { readonly action: "remove" } | { readonly action: "keep"; readonly reason: string };

/**
 * The sweep removes only what dotagent made: an empty folder, or a worktree of this repository
 * that dotagent locked or recorded and whose `.git` is the one git made for it. Anything else
 * (another repository's worktree, a person's folder, a worktree whose `.git` was rewritten) is
 * kept and named.
 */
export function judgeSweptFolder(folder: SweptFolder): SweepVerdict {
  if (folder.empty) return { action: "remove" };
  if (!folder.registered)
    return {
      action: "keep",
      reason:
        "it is not a worktree of this repository (another repository's worktree or a person's folder), so dotagent did not make it",
    };
  if (!folder.dotagents)
    return {
      action: "keep",
      reason: "it is a worktree of this repository that dotagent did not make (no dotagent lock, no task records it)",
    };
  if (folder.gitFile !== undefined && !folder.gitFile.ok)
    return { action: "keep", reason: `its .git is not the one git made for it (${folder.gitFile.reason})` };
  return { action: "remove" };
}
