// Task worktrees (SPEC §19), the pure half: names, the records in execution.json, the lines an
// executor's prompt gets, and the state changes of a merge (intent, result, conflict). Git itself
// runs in src/store/git*.ts and src/ops/worktree-*.ts; nothing here touches the disk.
//
// A round's tasks run either each in its own git worktree, on a branch made from the workflow's
// branch, merged back one at a time when the task completes (`worktree`), or all in the one
// checkout as before (`shared`: no git repository, a git too old, a detached HEAD, or the person's
// choice). The choice is recorded once per round (`isolation`), so every reader agrees.
import type { ExecutionState, IsolationRecord, MergeRecord, Task, WorktreeRecord } from "../schema/execution.js";
import { countFailure } from "./tasks.js";
import { count } from "./words.js";

/** Where dotagent makes the worktrees, relative to the project root (a dot folder: tools skip it). */
export const WORKTREES_DIR = ".dotagent/worktrees";
/** Every branch dotagent makes starts with this. */
export const BRANCH_PREFIX = "dotagent/";
/** `git merge-tree --write-tree` (the conflict check) came with git 2.38. */
export const MIN_GIT: readonly [number, number] = [2, 38];

export type IsolationMode = IsolationRecord["mode"];

/** A merge record without its state (the fields every state shares). */
export interface MergeFields {
  into: string;
  onto?: string | null;
  head?: string | null;
  commit?: string | null;
  files?: string[];
  /** conflict: `conflict` (both sides changed the files), `local_changes` (the main checkout's), `unfinished_merge` (the executor's), `untrusted_worktree` (its `.git` is not git's own: the landing guard), `wrong_branch` (its worktree was on another branch), `nothing_landed` (its report lists changed files, its worktree held none), `carried` (a mend left an earlier attempt's work, conflicting, on the branch `detail`). */
  reason?: string | null;
  /** untrusted_worktree: why (the landing guard's words). */
  detail?: string | null;
  at: string;
}

/**
 * What the shell found about the main checkout, for the decision at a round's first task.
 * `git: "refused"`: the system would not let git run here (a sandbox), so nothing is known: never
 * read as "no git" (SPEC §19 "Git in a sandbox"). `writable: false`: git runs, but this shell
 * cannot write the repository's git folder (a sandbox keeps `.git` read-only), so it cannot commit.
 */
export type CheckoutFacts =
  | { readonly git: false; readonly reason: string }
  | { readonly git: "refused"; readonly reason: string }
  | {
      readonly git: true;
      readonly branch: string;
      readonly head: string;
      readonly dirty: readonly string[];
      readonly writable?: boolean;
    };

/** One component of a branch name from an id: git refuses `..`, a trailing `.` and `.lock`. */
function refComponent(id: string): string {
  return id
    .replace(/\.{2,}/g, (dots) => "_".repeat(dots.length))
    .replace(/\.lock$/i, "_lock")
    .replace(/\.$/, "_");
}

/** `dotagent/<workflow>/<task>`: one branch per task and workflow. */
export function branchNameFor(workflowId: string, taskId: string): string {
  return `${BRANCH_PREFIX}${refComponent(workflowId)}/${refComponent(taskId)}`;
}

/** Where a mend keeps an earlier attempt's work for the task's executor to merge (SPEC §19 Mending): `<task branch>-carried`, `-carried-2`, … */
export const CARRIED_SUFFIX = "-carried";

/** Whether `branch` is a carried branch of one of `taskBranches` (kept while its task still needs it). */
export function isCarriedOf(branch: string, taskBranches: Iterable<string>): boolean {
  for (const b of taskBranches)
    if (branch === `${b}${CARRIED_SUFFIX}` || branch.startsWith(`${b}${CARRIED_SUFFIX}-`)) return true;
  return false;
}

/** `.dotagent/worktrees/<task>`, or `<task>-2`, … when that folder is taken. */
export function worktreePathFor(taskId: string, taken: (path: string) => boolean): string {
  const base = `${WORKTREES_DIR}/${taskId}`;
  if (!taken(base)) return base;
  for (let n = 2; ; n++) if (!taken(`${base}-${n}`)) return `${base}-${n}`;
}

/** The isolation decided for this round, if any. */
export function isolationOf(execution: ExecutionState | undefined, round: number): IsolationRecord | undefined {
  const record = execution?.isolation;
  return record != null && record.round === round ? record : undefined;
}

/** The record a round gets from the facts, "decide" when the main checkout has uncommitted changes, "refused" when git could not be run here. */
export function isolationFromFacts(
  facts: CheckoutFacts,
  round: number,
  now: Date,
): IsolationRecord | "decide" | "refused" {
  const at = now.toISOString();
  if (facts.git === "refused") return "refused";
  if (!facts.git) return { round, mode: "shared", branch: null, reason: facts.reason, decided_at: at };
  if (facts.dirty.length > 0) return "decide";
  return { round, mode: "worktree", branch: facts.branch, reason: null, decided_at: at };
}

/** One line for the warning a round without worktrees gets (once, when it is decided). */
export function sharedWarning(record: IsolationRecord): string {
  return `the tasks of this round share one checkout (no worktrees): ${record.reason ?? "shared"}; at most max_parallel run at once`;
}

/** "a.txt, b.txt and 3 more" */
export function fileList(files: readonly string[], max = 5): string {
  return files.length <= max ? files.join(", ") : `${files.slice(0, max).join(", ")} and ${files.length - max} more`;
}

/** What a landing left out of a task's merge (the landing guard, SPEC §19), said wherever the landing is told: the files, and the commit that still holds them. */
export function leftOutNote(files: readonly string[], commit: string | null | undefined): string {
  const sha = commit ? commit.slice(0, 7) : "-";
  return `left out its changes to ${fileList(files)}: a landing never merges memory/, .dotagent/, a client's session files (.claude/, .codex/, .agents/, .github/hooks, skills and agents), git hooks or .gitmodules; commit ${sha} still holds them (git show ${sha} -- ${files.slice(0, 5).join(" ")})`;
}

/** The decision a round needs when the main checkout has uncommitted changes (SPEC §19): the three answers in plain words. */
export function isolationQuestion(facts: Extract<CheckoutFacts, { git: true }>): string {
  // Asked from a shell that cannot write .git (a sandbox): the yes cannot commit from there.
  const commit =
    facts.writable === false
      ? "Commit them now (yes: this shell cannot write the repository's .git, a sandbox, so commit them yourself first, or let that command run outside the sandbox)"
      : "Commit them now (yes)";
  return `The main checkout has uncommitted changes (${fileList(facts.dirty)}). Each task works in its own git worktree made from the last commit of ${facts.branch}, so the tasks would not see them. ${commit}, run the tasks without worktrees, all in the one checkout (no), or stop and let me handle it (neither)?`;
}

/** The decision a round needs when git could not be run from this shell (SPEC §19 "Git in a sandbox"): the same three answers, the checkout unseen. */
export function gitRefusedQuestion(facts: Extract<CheckoutFacts, { git: "refused" }>): string {
  return `dotagent could not look at the main checkout before the tasks start: ${facts.reason}. Each task would work in its own git worktree made from the last commit, so uncommitted changes would not reach the tasks. Commit whatever is uncommitted and give each task its own worktree (yes: that command has to run outside the sandbox, so approve it when asked, or run \`dotagent resume\` in your own terminal), run the tasks without worktrees, all in the one checkout (no), or stop and let me handle it (neither)?`;
}

/** The same question as a workflow starts, before its first agent runs (`dotagent run` on a terminal). */
export function startIsolationQuestion(facts: Extract<CheckoutFacts, { git: true }>): string {
  return `The main checkout has uncommitted changes (${fileList(facts.dirty)}). The tasks will each work in a git worktree made from the last commit of ${facts.branch}, so they would not see them.`;
}

/** The three answers, labelled for people: commit (then worktrees), shared (no worktrees), stop. */
export const ISOLATION_CHOICES = [
  {
    name: "commit",
    title: "Commit them now",
    hint: "one commit of your changes on the branch; each task then gets its own worktree",
  },
  {
    name: "shared",
    title: "Run the tasks without worktrees",
    hint: "the tasks work in this checkout, beside your changes, one batch at a time",
  },
  {
    name: "stop",
    title: "Stop and let me handle it",
    hint: "nothing runs; commit or stash them yourself, then run again",
  },
] as const;
export type IsolationChoice = (typeof ISOLATION_CHOICES)[number]["name"];

export function withWorktree(state: ExecutionState, taskId: string, record: WorktreeRecord | null): ExecutionState {
  return { ...state, tasks: state.tasks.map((t) => (t.id === taskId ? { ...t, worktree: record } : t)) };
}

/** The intent of a merge, written before git changes anything. */
export function mergeIntent(state: ExecutionState, task: Task, merge: MergeFields): ExecutionState {
  return withWorktree(state, task.id, { ...task.worktree!, merge: { ...merge, state: "merging" } });
}

/** An attempt whose branch did not merge: failed (it counts), the files named, the branch kept. */
export function conflictFailure(
  state: ExecutionState,
  taskId: string,
  merge: MergeFields,
  now: Date,
): { state: ExecutionState; events: Array<{ type: string; task_id: string; [key: string]: unknown }> } {
  const files = merge.files ?? [];
  const tasks = state.tasks.map((t) => {
    if (t.id !== taskId) return t;
    const branch = t.worktree?.branch ?? "its branch";
    const error =
      merge.reason === "local_changes"
        ? `its branch ${branch} could not be merged into ${merge.into}: the main checkout has uncommitted changes to ${fileList(files)}; commit or stash them, then the next attempt merges again`
        : merge.reason === "unfinished_merge"
          ? `its executor left a merge unfinished in its worktree (unmerged: ${fileList(files)}); the branch ${branch} is kept, and the next attempt finishes it`
          : merge.reason === "wrong_branch"
            ? `${merge.detail ?? "its worktree is on another branch"}: its work is not there, so nothing was merged; when the task starts again, dotagent puts its worktree back on ${branch} with that work`
            : merge.reason === "nothing_landed"
              ? `its executor's report lists ${fileList(files)} as changed, but its worktree held no change and its branch ${branch} no commit of its own: nothing of its work landed, so the attempt failed; the next attempt writes them in its worktree`
              : merge.reason === "untrusted_worktree"
                ? `its worktree ${t.worktree?.path ?? ""} is not the one dotagent made (${merge.detail ?? "its .git was changed"}): dotagent ran nothing there and merged nothing; the folder and the branch ${branch} are kept. for the person: look at the folder, keep what you need, then \`git worktree remove --force ${t.worktree?.path ?? ""}\` and \`dotagent resume\``
                : `merge conflict: its branch ${branch} and ${merge.into} both changed ${fileList(files)}; the branch is kept, and the next attempt merges ${merge.into} into it in its worktree and resolves ${count(files.length, "file")}`;
    const failed = countFailure(t, state, error);
    return { ...failed, worktree: { ...t.worktree!, merge: { ...merge, state: "conflict" as const } } };
  });
  const task = tasks.find((t) => t.id === taskId)!;
  return {
    state: { ...state, tasks, updated_at: now.toISOString() },
    events: [
      {
        type: "task_conflict",
        task_id: taskId,
        into: merge.into,
        files: [...files],
        reason: merge.reason ?? "conflict",
      },
      {
        type: task.status === "dead" ? "task_dead" : "task_failed",
        task_id: taskId,
        attempts: task.attempts,
        error: task.error,
      },
    ],
  };
}

/** Where a task's executor works: the project folder inside its worktree, and the branches. */
export interface WorktreeAt {
  /** Absolute: the project root's counterpart inside the worktree. */
  readonly dir: string;
  readonly branch: string;
  readonly into: string;
  readonly merge?: MergeRecord | null | undefined;
}

/**
 * The lines dotagent puts into an executor's prompt when its task has a worktree (the hook's
 * updatedInput, `dotagent run`): where to work, its branch, where the report goes (the project
 * root's memory/, never the worktree's copy), and, after a conflict, what to merge first.
 */
export function executorLines(at: WorktreeAt, reportPath: string): string[] {
  const lines = [
    `Worktree: ${at.dir}`,
    `Branch: ${at.branch} (dotagent merges it into ${at.into} when you finish)`,
    `Report file: ${reportPath}`,
  ];
  const line = at.merge?.state === "conflict" ? attemptLine(at.merge, at.branch) : undefined;
  if (line !== undefined) lines.push(line);
  return lines;
}

/** What the last attempt's end left for the next executor to do first, by its reason (none: nothing of its own to do). */
function attemptLine(merge: MergeRecord, branch: string): string | undefined {
  const files = fileList(merge.files ?? [], 20);
  switch (merge.reason) {
    case "local_changes":
    case "untrusted_worktree":
      return undefined; // the person's to sort out, not the executor's
    case "wrong_branch":
      return `Wrong branch: ${merge.detail ?? "your worktree was on another branch"}; switch back to ${branch} first`;
    case "carried":
      // The mend left an earlier attempt's work on its branch: it conflicts, so the executor merges it (SPEC §19 "Mending").
      return `Merge conflict: ${merge.detail ?? merge.into} (${files})`;
    case "nothing_landed":
      return `Nothing landed: the last attempt's report listed ${files}, but its worktree held none of them; write them in your worktree`;
    default:
      return `Merge conflict: ${merge.into} (${files})`;
  }
}

/** The prompt with dotagent's worktree lines put in before its `Output file:` line (older ones of the same names replaced). */
export function promptWithLines(prompt: string, lines: readonly string[]): string {
  if (lines.length === 0) return prompt;
  const names = new Set(lines.map((l) => l.slice(0, l.indexOf(":") + 1)));
  const kept = prompt.split(/\r?\n/).filter((l) => ![...names].some((n) => l.startsWith(`${n} `)));
  const at = kept.findLastIndex((l) => l.startsWith("Output file: "));
  const index = at === -1 ? kept.length : at;
  return [...kept.slice(0, index), ...lines, ...kept.slice(index)].join("\n");
}

/** A task's worktree as status shows it. */
export interface WorktreeView {
  task: string;
  status: Task["status"];
  path: string;
  branch: string;
  into: string;
  base: string;
  merge: MergeRecord["state"] | null;
  commit?: string | null;
  files?: string[];
  /** merged: what the landing left out (the landing guard) and the commit that holds it. */
  left_out?: { files: string[]; commit: string | null };
}

/** A merge record's `left_out`, when it names files. */
export function leftOutOf(
  merge: MergeRecord | null | undefined,
): { files: string[]; commit: string | null } | undefined {
  const value = merge?.left_out;
  return value !== undefined && value.files.length > 0 ? { files: [...value.files], commit: value.commit } : undefined;
}

export function worktreeViews(execution: ExecutionState | undefined): WorktreeView[] {
  return (execution?.tasks ?? [])
    .filter((t) => t.worktree != null)
    .map((t) => {
      const w = t.worktree!;
      const merge = w.merge ?? null;
      return {
        task: t.id,
        status: t.status,
        path: w.path,
        branch: w.branch,
        into: w.into,
        base: w.base,
        merge: merge?.state ?? null,
        ...(merge?.state === "merged" ? { commit: merge.commit ?? null } : {}),
        ...(merge?.state === "merged" && leftOutOf(merge) ? { left_out: leftOutOf(merge)! } : {}),
        ...(merge?.state === "conflict" ? { files: [...(merge.files ?? [])] } : {}),
      };
    });
}

/** Worktree paths and branches the live state still needs: every task's but those complete and merged. */
export function liveWorktrees(execution: ExecutionState | undefined): { paths: Set<string>; branches: Set<string> } {
  const paths = new Set<string>();
  const branches = new Set<string>();
  for (const t of execution?.tasks ?? []) {
    const w = t.worktree;
    if (w == null) continue;
    if (t.status !== "complete" || w.merge?.state !== "merged") {
      paths.add(w.path);
      branches.add(w.branch);
    }
  }
  return { paths, branches };
}
