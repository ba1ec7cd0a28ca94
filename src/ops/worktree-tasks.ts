// Task worktrees (SPEC §19), the operations: a task's worktree made when it starts, its branch
// merged into the workflow's branch when it completes ("landing"), a merge cut off by a kill
// finished, and worktrees nobody needs any more removed. Every function here runs under the
// state lock its caller holds, so merges happen one at a time and never beside a start or a sweep.
//
// Landing, in order (each step a kill may cut; the next locked command goes on from there):
//   0. the worktree's `.git` must be the one git made for it (the landing guard,
//      src/core/landing-guard.ts): otherwise nothing runs there and the attempt fails;
//   1. what the executor left uncommitted in its worktree is committed on its branch (memory/
//      excepted: it belongs to the main checkout), and changes its branch made to what a landing
//      never merges (memory/, .dotagent/, .claude/, the hooks folder, .gitmodules) are undone by
//      a commit, the commit before it named to the person;
//   2. nothing to merge (no commit of its own, or merged already): the task completes; but a
//      report that lists changed files while the branch holds nothing of its own landed nothing:
//      the attempt fails (`nothing_landed`);
//   3. the conflict check (git merge-tree): a conflict fails the attempt, naming the files, and
//      keeps the branch; the main checkout's own uncommitted changes in the way, likewise;
//   4. the merge commit is made (no branch points to it yet) and the intent is recorded in
//      execution.json (`worktree.merge`: merging, onto, head, commit);
//   5. the workflow's branch moves to it (a fast-forward of the main checkout);
//   6. the task is recorded complete (merge: merged);
//   7. its worktree and branch are removed.
// An intent found later is finished (the branch is still at `onto`), or taken as done (the branch
// holds the task's commits), or dropped and the landing redone (the branch moved on meanwhile).
//
// A landing that finds the worktree on another branch (step 0) fails the attempt; the task's next
// start puts the worktree back on the task's branch with that work (`mendStart`, the steps in
// src/store/mend-worktree.ts), so the next executor goes on from it.
import { existsSync, readFileSync } from "node:fs";
import { isGuarded, judgeSweptFolder } from "../core/landing-guard.js";
import { join } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import { reportAt } from "../core/reports.js";
import { completeTask, outputOf, releaseTask } from "../core/tasks.js";
import { currentRound, tasksStepOf } from "../core/plans.js";
import { STATE_DIR, taskOutputPath } from "../core/phases.js";
import type { Owner } from "../core/ownership.js";
import type { Repair } from "../core/tasks.js";
import { reportsCover, type ReportRequest, type StateSnapshot } from "../core/snapshot.js";
import type { MachineEvent } from "../core/transitions.js";
import {
  branchNameFor,
  conflictFailure,
  type CheckoutFacts,
  executorLines,
  fileList,
  isCarriedOf,
  leftOutNote,
  isolationFromFacts,
  isolationOf,
  liveWorktrees,
  mergeIntent,
  sharedWarning,
  withWorktree,
  worktreePathFor,
  WORKTREES_DIR,
  type MergeFields,
  type WorktreeAt,
} from "../core/worktrees.js";
import type { ExecutionState, IsolationRecord, MergeRecord, Task, WorktreeRecord } from "../schema/execution.js";
import type { PhaseState } from "../schema/phase.js";
import { loadSnapshot, type WrittenStates } from "../store/session.js";
import { judgeOneOwner, judgeRunningTasks } from "../store/process-facts.js";
import { StateWriter } from "../store/state-writer.js";
import { branchTips, git, gitLine, isAncestor, prepareIdentity, resolveRef, type GitDirs } from "../store/git.js";
import {
  applyMerge,
  changedBetween,
  checkMerge,
  finishMerge,
  guardMergeTree,
  localChanges,
  makeMergeCommit,
  mergeState,
} from "../store/git-merge.js";
import {
  changedFiles,
  checkoutFacts,
  checkoutHolding,
  commitCheckout,
  commitLeftovers,
  deleteBranchIfMerged,
  dropGuardedChanges,
  ensureWorktree,
  excludeWorktreesFolder,
  guardedFor,
  hasLinkedWorktrees,
  holdsSomething,
  isRepo,
  listTaskBranches,
  listWorktrees,
  parseLockReason,
  removeIfEmpty,
  removeWorktree,
  repoAt,
  samePath,
  worktreeDirs,
  worktreeFolders,
  worktreeGitAt,
  type LeftOut,
  type Repo,
  type WorktreeEntry,
} from "../store/worktrees.js";
import { locked, type OpContext } from "./op-context.js";
import { clearStart, startInFlight } from "../store/start-markers.js";
import { mendWorktree } from "../store/mend-worktree.js";

/** A task start's worktree, as `task start --json` and the hook give it. */
export interface StartedWorktree {
  readonly record: WorktreeRecord;
  readonly at: WorktreeAt;
  /** The lines the executor's prompt gets (updatedInput, `dotagent run`). */
  readonly lines: string[];
  /** Makes the worktree on disk (idempotent); run by `makeStartedWorktree` after the lock. Absent: nothing to make. */
  readonly make?: () => void;
}

export interface IsolatedStart {
  readonly state: ExecutionState;
  readonly events: MachineEvent[];
  readonly worktree: StartedWorktree | undefined;
  /** Said once, when a round is decided to run without worktrees. */
  readonly warning: string | undefined;
  /** Its worktree was found on another branch and put back on the task's (SPEC §19 "Mending"): what was done. */
  readonly mended?: string;
}

function repoOrThrow(root: string, what: string): Repo {
  const repo = repoAt(root);
  if (!isRepo(repo)) throw new DotagentError("git_failed", `${what}: ${repo.reason}`, EXIT.refused);
  return repo;
}

/** The isolation of the round a task starts in: recorded, or decided now from the main checkout (a dirty one is the person's decision). `known`: the facts a settle under the same lock just read. */
export function isolationForStart(
  context: OpContext,
  phase: PhaseState,
  execution: ExecutionState,
  now: Date,
  known?: CheckoutFacts,
): { record: IsolationRecord; fresh: boolean } {
  const round = currentRound(phase);
  const recorded = isolationOf(execution, round);
  if (recorded !== undefined) return { record: recorded, fresh: false };
  const facts = known ?? checkoutFacts(context.paths.root);
  const decided = isolationFromFacts(facts, round, now);
  // Never read as "no git": the start is refused until git can look (outside the sandbox) or the person chose.
  if (decided === "refused")
    throw new DotagentError(
      "git_sandboxed",
      `${facts.git === "refused" ? facts.reason : "git could not be run from this shell"}, so this round cannot decide whether its tasks get worktrees: a person decides first: commit what is uncommitted, running \`dotagent resume --isolation commit\` outside the sandbox, or run the tasks without worktrees (\`dotagent resume --isolation shared\`)`,
      EXIT.refused,
    );
  if (decided === "decide") {
    const files = facts.git === true ? facts.dirty : [];
    throw new DotagentError(
      "isolation_undecided",
      `the main checkout has uncommitted changes (${files.slice(0, 5).join(", ")}${files.length > 5 ? ", …" : ""}) and each task would work in a worktree made from the last commit: a person decides first: commit them (\`dotagent resume --isolation commit\`), or run the tasks without worktrees (\`dotagent resume --isolation shared\`)`,
      EXIT.decide,
      { files },
    );
  }
  return { record: decided, fresh: true };
}

const executorDir = (root: string, repo: Repo, record: WorktreeRecord) => join(root, record.path, repo.prefix);

export function worktreeAt(root: string, repo: Repo, record: WorktreeRecord): WorktreeAt {
  return {
    dir: executorDir(root, repo, record).replace(/\/$/, ""),
    branch: record.branch,
    into: record.into,
    merge: record.merge ?? null,
  };
}

/**
 * After `startPlannedTask` (pure) ran: the round's isolation (decided now if it is the first
 * task), and in a worktree round the task's worktree chosen (or found: a retry goes on in the
 * worktree and on the branch of its earlier attempts) and recorded on the task. The worktree
 * itself is made by `worktree.make`, which the caller runs once the state is written, after it
 * lets go of the lock, so the starts of a batch make theirs side by side (`git worktree add`
 * checks out the whole tree); `makeStartedWorktree` does it and takes the start back if it fails.
 */
export function isolateStart(
  context: OpContext,
  phase: PhaseState,
  before: ExecutionState,
  started: ExecutionState,
  taskId: string,
  owner: Owner | undefined,
  now: Date,
  known?: CheckoutFacts,
): IsolatedStart {
  const { record: isolation, fresh } = isolationForStart(context, phase, before, now, known);
  let state: ExecutionState = fresh ? { ...started, isolation } : started;
  const events: MachineEvent[] = fresh
    ? [
        {
          type: "isolation_decided",
          round: isolation.round,
          mode: isolation.mode,
          ...(isolation.branch ? { branch: isolation.branch } : {}),
          ...(isolation.reason ? { reason: isolation.reason } : {}),
        },
      ]
    : [];
  const warning = fresh && isolation.mode === "shared" ? sharedWarning(isolation) : undefined;
  if (isolation.mode !== "worktree") return { state, events, worktree: undefined, warning };
  const root = context.paths.root;
  const repo = repoOrThrow(root, `task ${taskId} cannot get its worktree`);
  const task = state.tasks.find((t) => t.id === taskId)!;
  let record = task.worktree ?? undefined;
  let listed: ReturnType<typeof listWorktrees> | undefined;
  let freshTree = false;
  let mendNote: string | undefined;
  if (record == null) {
    const into = isolation.branch!;
    const branchOf = (name: string) => `refs/heads/${name}`;
    // One look at the refs: the workflow's branch and this workflow's task branches.
    const tips = branchTips(repo.top, [
      branchOf(into),
      branchOf(branchNameFor(state.workflow_id, "").replace(/\/$/, "")),
    ]);
    const base = tips.get(branchOf(into));
    if (base === undefined)
      throw new DotagentError(
        "git_failed",
        `task ${taskId} cannot get its worktree: the workflow's branch ${into} does not exist any more; switch the main checkout to a branch, then \`dotagent resume\``,
        EXIT.refused,
      );
    const used = new Set(state.tasks.flatMap((t) => (t.worktree ? [t.worktree.path, t.worktree.branch] : [])));
    // A start cut off after \`git worktree add\` and before its record (as an older dotagent made
    // them): that worktree is this task's. Only looked for when its folder is there.
    const made = existsSync(
      join(
        root,
        worktreePathFor(taskId, (p) => used.has(p)),
      ),
    )
      ? adoptable(
          root,
          (listed = listWorktrees(repo.top)),
          { task: taskId, workflow: state.workflow_id, instance: phase.instance_id ?? null },
          used,
        )
      : undefined;
    if (made !== undefined) record = { ...made, into, merge: null };
    else {
      const path = worktreePathFor(taskId, (p) => used.has(p) || existsSync(join(root, p)));
      let branch = branchNameFor(state.workflow_id, taskId);
      for (let n = 2; used.has(branch) || tips.has(branchOf(branch)); n++)
        branch = `${branchNameFor(state.workflow_id, taskId)}-${n}`;
      record = { path, branch, into, base, merge: null };
      freshTree = true;
    }
  } else if (isForeignFolder(repo, join(root, record.path), () => (listed ??= listWorktrees(repo.top)))) {
    // Its folder is not a worktree any more and holds what dotagent did not make (the landing
    // guard: never deleted): the task's worktree moves to the next free name, on its branch.
    const taken = new Set(state.tasks.flatMap((t) => (t.worktree ? [t.worktree.path] : [])));
    const path = worktreePathFor(taskId, (p) => taken.has(p) || existsSync(join(root, p)));
    events.push({
      type: "worktree_moved",
      task_id: taskId,
      from: record.path,
      to: path,
      reason: "a folder dotagent did not make holds its path",
    });
    record = { ...record, path };
  } else {
    // A retry whose worktree an executor left on another branch: back on the task's, with its work.
    const mended = mendStart(repo, root, taskId, record, now);
    record = mended.record;
    events.push(...mended.events);
    mendNote = mended.note;
  }
  excludeWorktreesFolder(repo);
  const want = {
    path: record.path,
    branch: record.branch,
    base: record.base,
    lock: { task: taskId, workflow: state.workflow_id, instance: phase.instance_id ?? null, owner: owner ?? null },
    fresh: freshTree,
  };
  state = withWorktree(state, taskId, record);
  if (task.worktree == null)
    events.push({
      type: "worktree_created",
      task_id: taskId,
      path: record.path,
      branch: record.branch,
      base: record.base,
    });
  const at = worktreeAt(root, repo, record);
  return {
    state,
    events,
    worktree: {
      record,
      at,
      lines: executorLines(at, join(root, outputOf(task))),
      make: () => ensureWorktree(root, repo, want, listed),
    },
    warning,
    ...(mendNote ? { mended: mendNote } : {}),
  };
}

/**
 * A retry's worktree found on another branch than the task's (its executor switched, SPEC §19
 * "Mending"): put back on the task's branch with its work before the next executor gets it
 * (store/mend-worktree.ts has the kill-safe steps), event `worktree_mended`, and the earlier
 * landing's `wrong_branch` record dropped once it is on its branch (its `Wrong branch:` line would
 * be stale). A conflict leaves the work on a `-carried` branch for the next executor to merge
 * (`carried`, the `Merge conflict:` line), said again at every start until it is merged. What dotagent cannot do alone refuses the start, naming the line
 * the person types; nothing is changed then.
 */
function mendStart(
  repo: Repo,
  root: string,
  taskId: string,
  record: WorktreeRecord,
  now: Date,
): { record: WorktreeRecord; events: MachineEvent[]; note?: string } {
  const abs = join(root, record.path);
  const stale = record.merge?.state === "conflict" && record.merge.reason === "wrong_branch";
  const on = (r: WorktreeRecord) => ({ record: stale ? { ...r, merge: null } : r, events: [] as MachineEvent[] });
  if (!holdsSomething(abs)) return on(record);
  // A worktree whose .git is not git's own is refused when it is made (the landing guard): nothing runs there now.
  const at = worktreeDirs(repo, abs);
  if ("reason" in at) return { record, events: [] };
  const mend = mendWorktree(repo, { task: taskId, branch: record.branch, abs, dirs: at.dirs });
  if (mend.kind === "on_branch") {
    // An earlier mend's carried work not merged yet (its start cut off, or its executor did not merge it): said again.
    if (mend.carried === undefined) return on(record);
    const merge: MergeRecord = {
      state: "conflict",
      into: record.into,
      onto: null,
      head: null,
      files: mend.carried.files,
      reason: "carried",
      detail: mend.carried.branch,
      at: now.toISOString(),
    };
    return { record: { ...record, merge }, events: [] };
  }
  if (mend.kind === "person") {
    throw new DotagentError(
      "worktree_off_branch",
      `task ${taskId}'s worktree ${abs} is on ${mend.from}, not on ${record.branch}, the branch dotagent merges, and dotagent cannot bring the work back by itself: ${mend.why}; the task waits. for the person: ${mend.command}; then start the task again (/develop)`,
      EXIT.refused,
      { task: taskId, path: record.path },
    );
  }
  const committed =
    mend.committed.length > 0 ? `, its ${mend.committed.length} uncommitted file(s) committed there first` : "";
  if (mend.kind === "carried_conflict") {
    const event: MachineEvent = {
      type: "worktree_mended",
      task_id: taskId,
      path: record.path,
      from: mend.from,
      branch: record.branch,
      how: "carried_conflict",
      carried: mend.carried,
      files: mend.files,
      commit: mend.commit,
      committed: mend.committed.length,
    };
    const merge: MergeRecord = {
      state: "conflict",
      into: record.into,
      onto: null,
      head: mend.commit,
      files: mend.files,
      reason: "carried",
      detail: mend.carried,
      at: now.toISOString(),
    };
    return {
      record: { ...record, merge },
      events: [event],
      note: `its worktree was on ${mend.from}: back on ${record.branch}; its work${committed} conflicts with it in ${fileList(mend.files)}, so it is kept on ${mend.carried} for the executor to merge (Merge conflict: ${mend.carried})`,
    };
  }
  const event: MachineEvent = {
    type: "worktree_mended",
    task_id: taskId,
    path: record.path,
    from: mend.from,
    branch: record.branch,
    how: mend.how,
    commit: mend.commit,
    committed: mend.committed.length,
  };
  const how =
    mend.how === "merged"
      ? `merged into it (${shortSha(mend.commit)})`
      : mend.how === "fast_forward"
        ? `its commits now on it, its uncommitted files as they were`
        : "its work already on it";
  return {
    record: stale ? { ...record, merge: null } : record,
    events: [event],
    note: `its worktree was on ${mend.from}: back on ${record.branch} with its work${committed}, ${how}`,
  };
}

/**
 * A start refused because the task is running already, by this same owner (its session or
 * process), while its worktree was never finished: a start cut off as it made the worktree (after
 * the record). That start is finished instead of refused: the worktree made, the lines given. No
 * executor can have worked in a worktree that is not there.
 */
export function unfinishedStart(
  root: string,
  phase: PhaseState,
  execution: ExecutionState,
  taskId: string,
  owner: Owner | undefined,
): StartedWorktree | undefined {
  const task = execution.tasks.find((t) => t.id === taskId);
  const record = task?.worktree;
  if (task === undefined || record == null || task.status !== "running" || owner === undefined || task.owner == null)
    return undefined;
  if (
    task.owner.pid !== owner.pid ||
    (task.owner.host ?? null) !== (owner.host ?? null) ||
    (task.owner.session ?? null) !== (owner.session ?? null)
  )
    return undefined;
  if (existsSync(join(root, record.path, ".git"))) return undefined;
  // Still being made by the start that recorded it (a second spawn of the task in the same message): in flight, not cut off.
  if (startInFlight(join(root, STATE_DIR), taskId)) return undefined;
  const repo = repoAt(root);
  if (!isRepo(repo)) return undefined;
  const at = worktreeAt(root, repo, record);
  const lock = { task: taskId, workflow: execution.workflow_id, instance: phase.instance_id ?? null, owner };
  return {
    record,
    at,
    lines: executorLines(at, join(root, outputOf(task))),
    make: () => ensureWorktree(root, repo, { path: record.path, branch: record.branch, base: record.base, lock }),
  };
}

/**
 * Makes a started task's worktree (`worktree.make`), after the start is recorded and the lock let
 * go. Should git fail, the start is taken back under the lock (the task released, its worktree
 * record kept for the next start to finish) and the failure thrown: no executor works without it.
 */
export async function makeStartedWorktree(
  context: OpContext,
  taskId: string,
  worktree: StartedWorktree,
  now: Date,
): Promise<void> {
  try {
    worktree.make?.();
    clearStart(context.paths.stateDir, taskId);
  } catch (error) {
    clearStart(context.paths.stateDir, taskId);
    await locked(context, `task ${taskId}: worktree not made`, async () => {
      const snapshot = await loadSnapshot(context.paths);
      const execution = snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined;
      if (execution?.tasks.find((t) => t.id === taskId)?.status !== "running") return;
      const released = releaseTask(execution, taskId, now);
      if (!released.ok) return;
      const writer = new StateWriter(context.paths, snapshot, now, context.warn);
      writer.writeExecution(released.state);
      writer.appendEvents([
        ...released.events,
        { type: "worktree_failed", task_id: taskId, path: worktree.record.path, error: (error as Error).message },
      ]);
    });
    throw error;
  }
}

/** A folder that holds something, whose `.git` is not git's own for it and that git does not list: not dotagent's (the landing guard). */
function isForeignFolder(repo: Repo, abs: string, list: () => readonly WorktreeEntry[]): boolean {
  return holdsSomething(abs) && !worktreeGitAt(repo, abs).ok && !list().some((w) => samePath(w.path, abs));
}

/** A worktree under .dotagent/worktrees locked for this task of this workflow that no task records. */
function adoptable(
  root: string,
  listed: ReturnType<typeof listWorktrees>,
  want: { task: string; workflow: string; instance: string | null },
  used: ReadonlySet<string>,
): { path: string; branch: string; base: string } | undefined {
  const folder = join(root, WORKTREES_DIR);
  for (const entry of listed) {
    const lock = parseLockReason(entry.locked);
    if (
      lock?.task !== want.task ||
      lock.workflow !== want.workflow ||
      (lock.instance ?? null) !== want.instance ||
      !entry.branch ||
      entry.prunable ||
      !entry.path.startsWith(`${folder}/`)
    )
      continue;
    const path = `${WORKTREES_DIR}/${entry.path.slice(folder.length + 1)}`;
    const branch = entry.branch.replace(/^refs\/heads\//, "");
    if (used.has(path) || used.has(branch) || entry.head === null) continue;
    return { path, branch, base: entry.head };
  }
  return undefined;
}

/** The lines and place of a task's worktree, for a start that is already recorded (the runner, status). */
export function startedWorktreeOf(root: string, task: Task): StartedWorktree | undefined {
  if (task.worktree == null) return undefined;
  const repo = repoAt(root);
  if (!isRepo(repo)) return undefined;
  const at = worktreeAt(root, repo, task.worktree);
  return { record: task.worktree, at, lines: executorLines(at, join(root, outputOf(task))) };
}

export interface Landing {
  /** For the hook's "dotagent recorded:" line and the CLI. */
  readonly what: string;
  readonly outcome: "merged" | "nothing_to_merge" | "conflict" | "complete";
  /** execution.json as the landing wrote it, for the caller's settle (loadSnapshot's `written`). */
  readonly written: WrittenStates;
  /** The read the landing worked from: the caller's own (`options.read`) when it answered, else its own. */
  readonly read: StateSnapshot;
}

type Landed = Pick<Landing, "what" | "outcome">;

const shortSha = (sha: string | null | undefined) => (sha ? sha.slice(0, 7) : "-");

function taskOf(snapshot: StateSnapshot, id: string): { execution: ExecutionState; task: Task } {
  const execution = snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined;
  const task = execution?.tasks.find((t) => t.id === id);
  if (execution === undefined || task === undefined)
    throw new DotagentError("unknown_task", `task ${id} does not exist; see \`dotagent status\``, EXIT.refused);
  return { execution, task };
}

function requirePhase(snapshot: StateSnapshot): PhaseState {
  if (snapshot.phase.kind !== "ok")
    throw new DotagentError("no_workflow", "no workflow here; run `dotagent init`", EXIT.refused);
  return snapshot.phase.value;
}

/** What `prepareLanding` did in a task's worktree before the lock. */
export interface PreparedLanding {
  readonly task: string;
  readonly path: string;
  readonly branch: string;
  readonly committed: string[];
  readonly dropped: LeftOut;
  /** The branch's tip once that was done: the guard has seen it (a later tip is looked at again under the lock). */
  readonly tip: string;
  readonly repo: Repo;
}

/**
 * A landing's first step, before the lock: in the task's own worktree, which nothing else writes
 * once its executor has ended, what the executor left uncommitted is committed on its branch and
 * changes its branch made under memory/ are undone (steps 1 of the landing). The starts and
 * landings of a batch then hold the lock only for the merge itself. Anything unusual (no report
 * saying complete, no worktree, a merge in the worktree, a git failure) leaves it all to the
 * landing under the lock: undefined.
 */
export async function prepareLanding(
  context: OpContext,
  id: string,
  output?: string,
): Promise<PreparedLanding | undefined> {
  if (worktreeFolders(context.paths.root).length === 0) return undefined; // no worktrees: nothing to read
  try {
    const snapshot = await loadSnapshot(context.paths, [{ path: output ?? taskOutputPath(id), mode: "parse" }]);
    const execution = snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined;
    const task = execution?.tasks.find((t) => t.id === id);
    const record = task?.worktree;
    if (
      execution === undefined ||
      task === undefined ||
      record == null ||
      task.status !== "running" ||
      record.merge != null
    )
      return undefined;
    const data = completeReport(snapshot, id, output ?? taskOutputPath(id));
    if (data === undefined) return undefined;
    const root = context.paths.root;
    const abs = join(root, record.path);
    const repo = repoAt(root);
    if (!isRepo(repo)) return undefined;
    // A worktree whose .git is not git's own is refused by the landing under the lock.
    const at = worktreeDirs(repo, abs);
    if ("reason" in at || offBranch(at.dirs.gitDir, record.branch) !== undefined) return undefined;
    prepareIdentity(repo.top);
    const left = commitLeftovers(abs, at.dirs, repo.prefix, taskCommitMessage(id, task, data, execution.workflow_id));
    if (left.unmerged.length > 0) return undefined;
    // Against the workflow branch by name: its tip may move on meanwhile, the fork point does not.
    const dropped = dropGuardedChanges(abs, at.dirs, guardedFor(repo), `refs/heads/${record.into}`, guardedMessage(id));
    const tip = gitLine(abs, ["rev-parse", "HEAD"], { readOnly: true, dirs: at.dirs });
    return { task: id, path: record.path, branch: record.branch, committed: left.committed, dropped, tip, repo };
  } catch {
    return undefined;
  }
}

/** Where a worktree's HEAD is when it is not on `branch` ("branch x", "a detached HEAD"), read from its git folder; undefined when it is. */
function offBranch(gitDir: string, branch: string): string | undefined {
  const head = readFileSync(join(gitDir, "HEAD"), "utf8").trim();
  if (head === `ref: refs/heads/${branch}`) return undefined;
  return head.startsWith("ref: refs/heads/") ? `branch ${head.slice(16)}` : "a detached HEAD";
}

/**
 * What an executor that just ended must still fix in its worktree before its task can land, or
 * undefined (SPEC §19, "the landing checks the worktree"): its worktree on another branch than
 * the task's (dotagent merges only that branch: the work would land nowhere), or a report that
 * lists changed files while its worktree holds no change and its branch no commit (it wrote them
 * somewhere else, the main checkout say). Read without the lock; anything it cannot read is left
 * to the landing.
 */
export async function landingProblem(context: OpContext, id: string, output?: string): Promise<string | undefined> {
  if (worktreeFolders(context.paths.root).length === 0) return undefined;
  try {
    const snapshot = await loadSnapshot(context.paths, [{ path: output ?? taskOutputPath(id), mode: "parse" }]);
    const task = snapshot.execution.kind === "ok" ? snapshot.execution.value.tasks.find((t) => t.id === id) : undefined;
    const record = task?.worktree;
    if (
      task === undefined ||
      record == null ||
      task.status !== "running" ||
      (record.merge != null && record.merge.reason !== "carried")
    )
      return undefined;
    const data = completeReport(snapshot, id, output ?? taskOutputPath(id));
    if (data === undefined) return undefined;
    const repo = repoAt(context.paths.root);
    if (!isRepo(repo)) return undefined;
    const abs = join(context.paths.root, record.path);
    const at = worktreeDirs(repo, abs);
    if ("reason" in at) return undefined;
    const on = offBranch(at.dirs.gitDir, record.branch);
    if (on !== undefined)
      return `your worktree ${abs} is on ${on}, not on ${record.branch}, the branch dotagent merges: switch back (git -C "${abs}" switch ${record.branch}) and bring your work onto it`;
    // The work an earlier attempt left on a -carried branch (Mending) not merged yet: it would not land.
    const carried =
      record.merge?.state === "conflict" && record.merge.reason === "carried" ? record.merge.detail : undefined;
    const carriedAt = carried ? resolveRef(repo.top, `refs/heads/${carried}`) : undefined;
    if (
      carried &&
      carriedAt !== undefined &&
      !isAncestor(repo.top, carriedAt, gitLine(abs, ["rev-parse", "HEAD"], { readOnly: true, dirs: at.dirs }))
    ) {
      return `your branch ${record.branch} does not hold ${carried} yet, the work an earlier attempt left there: merge it first (git -C "${abs}" merge ${carried}), resolve the files, commit, then finish`;
    }
    const listed = Array.isArray(data.files_changed)
      ? data.files_changed.filter((f): f is string => typeof f === "string" && f !== "")
      : [];
    if (listed.length === 0) return undefined;
    const own = [`${repo.prefix}memory`, `${repo.prefix}.dotagent`];
    const changed = changedFiles(abs, [], at.dirs).filter((p) => !own.some((o) => p === o || p.startsWith(`${o}/`)));
    const tip = gitLine(abs, ["rev-parse", "HEAD"], { readOnly: true, dirs: at.dirs });
    if (changed.length === 0 && tip === record.base) {
      return `your report lists files_changed (${listed.slice(0, 3).join(", ")}${listed.length > 3 ? ", …" : ""}) but your worktree ${abs} holds no change: write them there (not in the main checkout), then finish`;
    }
    return undefined;
  } catch {
    return undefined;
  }
}

/**
 * For a call about an agent that did not end it (a notification): a task of its whose worktree is
 * about to land is given time to be landed by the call its end made (SubagentStop, which commits
 * the worktree before it takes the lock), instead of racing it in that worktree. Waits while the
 * task is still running with a report that says complete, up to `waitMs`; then the caller goes on
 * (and lands it itself if that call never came).
 */
export async function awaitLanding(context: OpContext, id: string, output?: string, waitMs = 3000): Promise<void> {
  if (worktreeFolders(context.paths.root).length === 0) return;
  const deadline = Date.now() + waitMs;
  for (;;) {
    const snapshot = await loadSnapshot(context.paths, [{ path: output ?? taskOutputPath(id), mode: "parse" }]);
    const task = snapshot.execution.kind === "ok" ? snapshot.execution.value.tasks.find((t) => t.id === id) : undefined;
    if (
      task === undefined ||
      task.status !== "running" ||
      task.worktree == null ||
      completeReport(snapshot, id, output ?? taskOutputPath(id)) === undefined ||
      Date.now() >= deadline
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
}

/** The commit of an executor's work: named after the task, with its report's summary. */
function taskCommitMessage(
  id: string,
  task: Task,
  data: Record<string, unknown> | undefined,
  workflowId: string,
): string {
  const summary = typeof data?.summary === "string" ? data.summary.trim().slice(0, 2000) : "";
  return `Task ${id}${task.title ? `: ${task.title}` : ""}${summary ? `\n\n${summary}` : ""}\n\ndotagent workflow ${workflowId}`;
}

const guardedMessage = (id: string) =>
  `dotagent: task ${id}'s changes to memory/, .dotagent/, .claude/, git hooks or .gitmodules are not merged (SPEC §19); the commit before this one holds them`;

/**
 * A running task whose report says complete lands: merged into the workflow's branch (or nothing
 * to merge) and recorded complete, or failed by a conflict. A task without a worktree (a shared
 * round) is simply completed. The caller holds the state lock and has checked the report.
 */
export async function landTask(
  context: OpContext,
  id: string,
  now: Date,
  output?: string,
  options: { recovered?: boolean; prepared?: PreparedLanding; read?: StateSnapshot } = {},
): Promise<Landing> {
  // The report is read whatever the task's status (a task requeued while its executor still finished).
  const request: ReportRequest = { path: output ?? taskOutputPath(id), mode: "parse" };
  // The caller's read under the lock it holds, nothing written since, stands for this one when it
  // holds the report (an executor's end, `task complete`: execution.json read once, not twice).
  const read =
    options.read !== undefined && reportsCover(options.read.reports, [request])
      ? options.read
      : await loadSnapshot(context.paths, [request]);
  const writer = new StateWriter(context.paths, read, now, context.warn);
  const landed = await landFrom(context, id, now, output, options, read, writer);
  return { ...landed, written: writer.writtenStates(), read };
}

/** landTask's work from `read`; every outcome writes execution.json through `writer`. */
async function landFrom(
  context: OpContext,
  id: string,
  now: Date,
  output: string | undefined,
  options: { recovered?: boolean; prepared?: PreparedLanding },
  read: StateSnapshot,
  writer: StateWriter,
): Promise<Landed> {
  let snapshot = read;
  let { execution, task } = taskOf(snapshot, id);
  const phase = requirePhase(snapshot);
  const record = task.worktree;
  const complete = (state: ExecutionState, merge: MergeRecord | undefined, extra: MachineEvent[]) => {
    const done = completeTask(state, id, snapshot.reports, now, output);
    if (!done.ok) throw new DotagentError(done.code, done.message, EXIT.refused);
    const after =
      merge === undefined
        ? done.state
        : withWorktree(done.state, id, { ...done.state.tasks.find((t) => t.id === id)!.worktree!, merge });
    writer.writeExecution(after);
    // Taken from its report by a recovery (its session gone), as resume's own recovery marks it.
    const mark = (e: MachineEvent): MachineEvent => (options.recovered ? { ...e, recovered: true } : e);
    writer.appendEvents([...extra, ...done.events].map(mark));
  };
  if (record == null) {
    complete(execution, undefined, []);
    return { what: `executor for ${id}: complete`, outcome: "complete" };
  }
  const root = context.paths.root;
  const repo =
    options.prepared?.task === id
      ? options.prepared.repo
      : repoOrThrow(root, `task ${id} cannot be merged into ${record.into}`);
  const abs = join(root, record.path);
  const reflog = `dotagent: merge task ${id} (${record.branch})`;
  const message = `Merge task ${id}${task.title ? `: ${task.title}` : ""}\n\ndotagent workflow ${execution.workflow_id}, branch ${record.branch}`;

  // An intent already recorded (a landing cut off): finish it, or see it done, or start over.
  const intent = record.merge?.state === "merging" ? record.merge : undefined;
  if (intent !== undefined && intent.onto && intent.head && intent.commit) {
    const where = mergeState(repo.top, record.into, { onto: intent.onto, head: intent.head, commit: intent.commit });
    if (where !== "moved") {
      if (where === "not_merged") finishMerge(repo, record.into, intent.onto, intent.commit, reflog);
      const tip = resolveRef(repo.top, `refs/heads/${record.into}`);
      const commit = tip !== undefined && isAncestor(repo.top, intent.commit, tip) ? intent.commit : null;
      complete(execution, { ...intent, state: "merged", commit, at: now.toISOString() }, [
        { type: "task_merged", task_id: id, into: record.into, commit, recovered: true },
      ]);
      cleanUp(repo, abs, record);
      return {
        what: `executor for ${id}: complete, merged into ${record.into} (${shortSha(commit)}, a merge cut off earlier, finished)`,
        outcome: "merged",
      };
    }
    // The branch moved on without these commits: this intent is void; land again from its new tip,
    // from execution.json as just written (read back only when the writer cannot vouch for it).
    writer.writeExecution(withWorktree(execution, id, { ...record, merge: null }));
    const cleared = writer.writtenStates().execution;
    snapshot = cleared
      ? { ...snapshot, execution: cleared }
      : await loadSnapshot(context.paths, [{ path: output ?? taskOutputPath(id), mode: "parse" }]);
    ({ execution, task } = taskOf(snapshot, id));
  }

  // 1. The worktree's leftovers: done before the lock by this very process (`prepareLanding`), else here.
  const prepared =
    options.prepared !== undefined &&
    options.prepared.task === id &&
    options.prepared.path === record.path &&
    options.prepared.branch === record.branch &&
    intent === undefined
      ? options.prepared
      : undefined;
  let committed: string[] = prepared?.committed ?? [];
  let dropped: LeftOut = prepared?.dropped ?? { files: [], keptIn: null };
  let dirs: GitDirs | undefined;
  if (prepared === undefined && holdsSomething(abs)) {
    // 0. The landing guard: git runs there only with the git folder dotagent made named.
    const at = worktreeDirs(repo, abs);
    if ("reason" in at)
      return conflict(
        writer,
        execution,
        id,
        {
          into: record.into,
          onto: null,
          head: null,
          files: [".git"],
          reason: "untrusted_worktree",
          detail: at.reason,
          at: now.toISOString(),
        },
        now,
        options.recovered,
      );
    // Its work is on another branch (the executor switched): committing there and merging the
    // task's unchanged branch would land nothing. The attempt fails, everything kept.
    const on = offBranch(at.dirs.gitDir, record.branch);
    if (on !== undefined)
      return conflict(
        writer,
        execution,
        id,
        {
          into: record.into,
          onto: null,
          head: null,
          files: [],
          reason: "wrong_branch",
          detail: `its worktree is on ${on}, not on ${record.branch}`,
          at: now.toISOString(),
        },
        now,
        options.recovered,
      );
    dirs = at.dirs;
    // The executor's work is committed here (its agent file leaves that to dotagent).
    const report = reportAt(snapshot.reports, output ?? taskOutputPath(id));
    const left = commitLeftovers(
      abs,
      dirs,
      repo.prefix,
      taskCommitMessage(
        id,
        task,
        report.status === "valid" ? (report.data as Record<string, unknown>) : undefined,
        execution.workflow_id,
      ),
    );
    if (left.unmerged.length > 0)
      return conflict(
        writer,
        execution,
        id,
        {
          into: record.into,
          onto: null,
          head: null,
          files: left.unmerged,
          reason: "unfinished_merge",
          at: now.toISOString(),
        },
        now,
        options.recovered,
      );
    committed = left.committed;
  }
  // The two branches' tips in one look.
  const tips = branchTips(repo.top, [`refs/heads/${record.into}`, `refs/heads/${record.branch}`]);
  const onto = tips.get(`refs/heads/${record.into}`);
  if (onto === undefined)
    throw new DotagentError(
      "git_failed",
      `task ${id} cannot be merged: the workflow's branch ${record.into} does not exist any more; create it again (git branch ${record.into} ${record.base}), then \`dotagent resume\``,
      EXIT.refused,
    );
  let head = tips.get(`refs/heads/${record.branch}`);
  let merged = head === undefined || head === onto || isAncestor(repo.top, head, onto);
  if (!merged && dirs !== undefined) {
    dropped = dropGuardedChanges(abs, dirs, guardedFor(repo), onto, guardedMessage(id));
    if (dropped.files.length > 0) {
      head = resolveRef(repo.top, `refs/heads/${record.branch}`);
      merged = head === undefined || isAncestor(repo.top, head, onto);
    }
  }
  // What was left out is recorded (execution.json's merge, the event, status) and said, so nothing
  // goes unnoticed; memory/ alone is routine (the executor's copy of the state), not warned about.
  const landed = () => {
    const left = dropped.files.length > 0 ? leftOutNote(dropped.files, dropped.keptIn) : "";
    if (dropped.files.some((f) => !isGuarded(f, [`${repo.prefix}memory`]))) context.warn(`task ${id}: ${left}`);
    const notes = [committed.length > 0 ? `committed its executor's work (${committed.length} file(s))` : "", left]
      .filter(Boolean)
      .join("; ");
    return {
      notes: notes ? `; ${notes}` : "",
      leftOut: dropped.files.length > 0 ? { left_out: { files: dropped.files, commit: dropped.keptIn } } : {},
    };
  };
  // 2. Nothing to merge. An executor whose report lists changed files while its branch holds no
  // commit of its own and its worktree held no change landed nothing of its work: its attempt
  // fails (SPEC §11 Reminders, §19 step 2), never complete with its work nowhere.
  if (head === undefined || merged) {
    const claimed = filesClaimed(snapshot, output ?? taskOutputPath(id));
    if (claimed.length > 0 && committed.length === 0 && (head === undefined || head === record.base)) {
      return conflict(
        writer,
        execution,
        id,
        {
          into: record.into,
          onto,
          head: head ?? null,
          files: claimed,
          reason: "nothing_landed",
          at: now.toISOString(),
        },
        now,
        options.recovered,
      );
    }
    const { notes, leftOut } = landed();
    const merge: MergeRecord = {
      state: "merged",
      into: record.into,
      onto,
      head: head ?? null,
      commit: null,
      at: now.toISOString(),
      ...leftOut,
    };
    complete(execution, merge, [{ type: "task_merged", task_id: id, into: record.into, commit: null, ...leftOut }]);
    cleanUp(repo, abs, record, { tip: head });
    return {
      what: `executor for ${id}: complete (nothing to merge into ${record.into}${head === undefined ? ": its branch is gone" : ""}${notes})`,
      outcome: "nothing_to_merge",
    };
  }
  // 3. The conflict check, and the main checkout's own changes in the way.
  const check = checkMerge(repo.top, onto, head);
  if (check.kind === "conflict")
    return conflict(
      writer,
      execution,
      id,
      { into: record.into, onto, head, files: check.files, reason: "conflict", at: now.toISOString() },
      now,
      options.recovered,
    );
  // The landing guard on the tree, unless step 1 before the lock saw this very tip: commits with
  // no worktree to undo them in (its folder gone) or made after it keep onto's version.
  let tree = check.tree;
  if (prepared === undefined || prepared.tip !== head) {
    const guarded = guardMergeTree(repo.top, onto, head, check.tree, guardedFor(repo));
    if (guarded.files.length > 0) dropped = { files: [...new Set([...dropped.files, ...guarded.files])], keptIn: head };
    tree = guarded.tree;
  }
  const checkout = checkoutHolding(repo, record.into);
  const local = localChanges(checkout, changedBetween(repo.top, onto, tree));
  if (local.length > 0)
    return conflict(
      writer,
      execution,
      id,
      { into: record.into, onto, head, files: local, reason: "local_changes", at: now.toISOString() },
      now,
      options.recovered,
    );
  const { notes, leftOut } = landed();
  // 4. The merge commit, then the intent.
  const commit = makeMergeCommit(repo.top, tree, onto, head, message);
  const merging: MergeFields = { into: record.into, onto, head, commit, at: now.toISOString() };
  writer.writeExecution(mergeIntent(execution, task, merging));
  // 5. The branch moves.
  applyMerge(repo, record.into, onto, commit, reflog, checkout);
  // 6. Recorded.
  complete(execution, { ...merging, state: "merged", ...leftOut }, [
    { type: "task_merged", task_id: id, into: record.into, commit, ...leftOut },
  ]);
  // 7. Its worktree and branch go (its commits are in the workflow's branch now).
  removeWorktree(repo, abs);
  git(repo.top, ["update-ref", "-d", `refs/heads/${record.branch}`, head], { ok: [1, 128] });
  return {
    what: `executor for ${id}: complete, merged into ${record.into} (${shortSha(commit)})${notes}`,
    outcome: "merged",
  };
}

function conflict(
  writer: StateWriter,
  execution: ExecutionState,
  id: string,
  merge: MergeFields,
  now: Date,
  recovered = false,
): Landed {
  const failed = conflictFailure(execution, id, merge, now);
  writer.writeExecution(failed.state);
  writer.appendEvents(recovered ? failed.events.map((e) => ({ ...e, recovered: true })) : failed.events);
  const files = merge.files ?? [];
  const what =
    merge.reason === "local_changes"
      ? `uncommitted changes in the main checkout to ${files.join(", ")} are in the way`
      : merge.reason === "unfinished_merge"
        ? `its worktree holds an unfinished merge (${files.join(", ")})`
        : merge.reason === "untrusted_worktree"
          ? `its worktree is not the one dotagent made (${merge.detail ?? ".git"}): nothing ran there`
          : merge.reason === "nothing_landed"
            ? `its report lists ${fileList(files)} as changed, but its worktree held none of them: nothing landed, the attempt failed`
            : merge.reason === "wrong_branch"
              ? `${merge.detail ?? "its worktree is on another branch"}; dotagent puts it back on its branch with that work when the task starts again`
              : `conflict with ${merge.into} in ${files.join(", ")}`;
  return { what: `executor for ${id}: not merged: ${what}; its branch is kept`, outcome: "conflict" };
}

/** `merged`: the branch's tip, found merged into `into` under this lock (the landing's own look), so not asked of git again. */
function cleanUp(repo: Repo, abs: string, record: WorktreeRecord, merged?: { tip: string | undefined }): void {
  removeWorktree(repo, abs);
  if (merged === undefined) deleteBranchIfMerged(repo.top, record.branch, record.into);
  // Its branch gone, there is nothing to delete.
  else if (merged.tip !== undefined) deleteBranchIfMerged(repo.top, record.branch, record.into, { tip: merged.tip });
}

/**
 * Under the lock, before a command plans (settle, resume): merges cut off are finished; running
 * tasks whose owner is gone and whose report says complete land (what `resume` does from a report,
 * with the merge first); and, when something is left over, worktrees and branches no task needs
 * are removed (`sweep`). Cheap when there is nothing to do: no git runs.
 */
export async function recoverWorktrees(
  context: OpContext,
  now: Date,
  options: { skip?: readonly string[]; branches?: boolean; read?: StateSnapshot } = {},
): Promise<Repair[]> {
  const repairs: Repair[] = [];
  // The caller's read under the lock it holds (settle's), or a fresh one. Each landing below reads
  // for itself: the one before it has written execution.json.
  const snapshot = options.read ?? (await loadSnapshot(context.paths));
  const execution = snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined;
  const withTrees = (execution?.tasks ?? []).filter((t) => t.worktree != null && !(options.skip ?? []).includes(t.id));
  const verdicts = judgeRunningTasks(snapshot, now);
  for (const task of withTrees) {
    const merging = task.worktree!.merge?.state === "merging";
    const orphanDone =
      task.status === "running" &&
      verdicts.get(task.id) === "gone" &&
      completeReport(snapshot, task.id, outputOf(task)) !== undefined;
    if (!merging && !orphanDone) continue;
    const landed = await landTask(context, task.id, now, undefined, { recovered: true });
    repairs.push({
      code: landed.outcome === "conflict" ? "task_conflict" : "task_merged",
      message: `${task.id} ${merging ? "was being merged when it was cut off" : "was running and its output says complete"}: ${landed.what.replace(/^executor for \S+: /, "")}`,
    });
  }
  const after = repairs.length > 0 ? await loadSnapshot(context.paths) : snapshot;
  const current = after.execution.kind === "ok" ? after.execution.value : undefined;
  const live = liveWorktrees(current);
  const strays = worktreeFolders(context.paths.root).filter((p) => !live.paths.has(p));
  if (strays.length > 0 || options.branches)
    repairs.push(
      ...sweepWorktrees(context.paths.root, now, { branches: options.branches === true, execution: current }),
    );
  return repairs;
}

/** The files a valid report of an executor lists as changed (`files_changed`), or none. */
function filesClaimed(snapshot: StateSnapshot, path: string): string[] {
  const report = reportAt(snapshot.reports, path);
  const listed = report.status === "valid" ? (report.data as Record<string, unknown>).files_changed : undefined;
  return Array.isArray(listed) ? listed.filter((f): f is string => typeof f === "string" && f !== "") : [];
}

/** The report at `path` when it is valid, for this task, and says complete; otherwise undefined. */
function completeReport(snapshot: StateSnapshot, id: string, path: string): Record<string, unknown> | undefined {
  const report = reportAt(snapshot.reports, path);
  if (report.status !== "valid") return undefined;
  const data = report.data as Record<string, unknown>;
  return data.task_id === id && data.status === "complete" ? data : undefined;
}

/**
 * Worktrees under .dotagent/worktrees and `dotagent/` branches that no task of the live state
 * needs (compared with `git worktree list` and the branches, never by age) are removed: not one
 * whose lock names an owner still alive; uncommitted work committed onto its branch first; a
 * branch only when its commits are merged somewhere (otherwise it is kept and named).
 */
export function sweepWorktrees(
  root: string,
  now: Date,
  options: { branches: boolean; execution: ExecutionState | undefined },
): Repair[] {
  const repo = repoAt(root);
  if (!isRepo(repo)) return [];
  const repairs: Repair[] = [];
  const execution = options.execution;
  const live = liveWorktrees(execution);
  const folder = join(root, WORKTREES_DIR);
  const kept = new Set<string>();
  // No linked worktree at all (git keeps one folder per worktree in <common>/worktrees) and no
  // folder of ours: only the branches are left to look at.
  const linked = hasLinkedWorktrees(repo) || worktreeFolders(root).length > 0;
  for (const entry of linked ? listWorktrees(repo.top) : []) {
    if (!entry.path.startsWith(`${folder}/`) && !samePath(join(entry.path, ".."), folder)) continue;
    const rel = `${WORKTREES_DIR}/${entry.path.slice(folder.length + 1)}`;
    const branch = entry.branch?.replace(/^refs\/heads\//, "");
    if (live.paths.has(rel)) {
      if (branch) kept.add(branch);
      continue;
    }
    const lock = parseLockReason(entry.locked);
    // A task recorded complete (merged) is done with its worktree whoever owned it; any other
    // worktree no task needs is left alone while the owner its lock names may still work in it.
    const done = (execution?.tasks ?? []).some(
      (t) => t.status === "complete" && t.worktree?.path === rel && t.worktree.merge?.state === "merged",
    );
    const verdict = done ? "gone" : lock?.owner ? judgeOneOwner(lock.owner, now) : "gone";
    if (verdict !== "gone") {
      if (branch) kept.add(branch);
      continue;
    }
    let saved = "";
    if (holdsSomething(entry.path)) {
      // The landing guard: only a worktree dotagent locked or recorded, its .git git's own, goes.
      const gitFile = worktreeGitAt(repo, entry.path);
      const recorded = (execution?.tasks ?? []).some((t) => t.worktree?.path === rel);
      const judged = judgeSweptFolder({
        empty: false,
        registered: true,
        dotagents: lock !== null || recorded,
        gitFile,
      });
      if (judged.action === "keep" || !gitFile.ok) {
        if (branch) kept.add(branch);
        repairs.push({
          code: "worktree_kept",
          message: `${rel} kept: ${judged.action === "keep" ? judged.reason : "its .git is not git's own"}; dotagent deletes nothing of it. for the person: move what you need out, then \`git worktree remove --force ${entry.path}\``,
        });
        continue;
      }
      try {
        const left = commitLeftovers(
          entry.path,
          { gitDir: gitFile.gitDir, workTree: entry.path },
          repo.prefix,
          `dotagent: work left in the worktree of task ${lock?.task ?? rel} when it was removed`,
        );
        if (left.committed.length > 0)
          saved = `, its ${left.committed.length} uncommitted file(s) committed on ${branch} first`;
        if (left.unmerged.length > 0) {
          if (branch) kept.add(branch);
          repairs.push({
            code: "worktree_kept",
            message: `${rel} holds an unfinished merge (${left.unmerged.join(", ")}): kept. for the person: finish it there or abort it (\`git -C ${entry.path} merge --abort\`), then \`dotagent resume\``,
          });
          continue;
        }
      } catch (error) {
        if (branch) kept.add(branch);
        repairs.push({
          code: "worktree_kept",
          message: `${rel} could not be tidied (${(error as Error).message}): kept`,
        });
        continue;
      }
    }
    const notRemoved = removeWorktree(repo, entry.path);
    if (notRemoved !== undefined) {
      if (branch) kept.add(branch);
      repairs.push({ code: "worktree_kept", message: `${rel} kept: ${notRemoved}` });
      continue;
    }
    const into = (execution?.tasks ?? []).find((t) => t.worktree?.branch === branch)?.worktree?.into;
    const gone = branch === undefined || deleteBranchIfMerged(repo.top, branch, into);
    repairs.push({
      code: gone ? "worktree_removed" : "branch_kept",
      message: `removed the worktree ${rel}, which no task needs${saved}${gone ? "" : `; kept its branch ${branch}: it holds commits merged nowhere (for the person: \`git branch -D ${branch}\` once they no longer need them)`}`,
    });
  }
  // Folders in .dotagent/worktrees that git does not know: an empty one is a start cut off before
  // `git worktree add`; anything else is not dotagent's (another repository's worktree, a
  // person's folder) and is kept and named, never deleted.
  const folders = worktreeFolders(root);
  const registered = folders.length > 0 ? new Set(listWorktrees(repo.top).map((w) => w.path)) : new Set<string>();
  for (const rel of folders) {
    const abs = join(root, rel);
    if (
      live.paths.has(rel) ||
      [...registered].some((p) => samePath(p, abs)) ||
      removeIfEmpty(abs) ||
      !holdsSomething(abs)
    )
      continue;
    const judged = judgeSweptFolder({ empty: false, registered: false, dotagents: false });
    if (judged.action === "keep")
      repairs.push({
        code: "worktree_kept",
        message: `${rel} kept: ${judged.reason}; dotagent deletes nothing of it. for the person: move it out of ${WORKTREES_DIR}`,
      });
  }
  if (options.branches) {
    const tasksInto = new Map(
      (execution?.tasks ?? []).flatMap((t) => (t.worktree ? [[t.worktree.branch, t.worktree.into] as const] : [])),
    );
    for (const branch of listTaskBranches(repo.top)) {
      // A carried branch (Mending) stays while its task does: its executor has yet to merge it.
      if (live.branches.has(branch) || kept.has(branch) || isCarriedOf(branch, live.branches)) continue;
      if (checkoutHolding(repo, branch, { prunable: true }) !== undefined) continue;
      // One holding commits merged nowhere stays, and is not named again each time (it was when its worktree went).
      if (deleteBranchIfMerged(repo.top, branch, tasksInto.get(branch)))
        repairs.push({ code: "branch_removed", message: `deleted the branch ${branch}: its commits are merged` });
    }
  }
  return repairs;
}

/**
 * The person's answer for a round whose main checkout had uncommitted changes (`resume
 * --isolation commit|shared`): commit them, then worktrees; or no worktrees this round.
 */
export async function chooseIsolation(
  context: OpContext,
  choice: "commit" | "shared",
  now: Date,
): Promise<string | undefined> {
  const snapshot = await loadSnapshot(context.paths);
  const phase = requirePhase(snapshot);
  if (phase.current_phase !== tasksStepOf(phase) || snapshot.execution.kind !== "ok") return undefined;
  const execution = snapshot.execution.value;
  const round = currentRound(phase);
  if (isolationOf(execution, round) !== undefined) return undefined;
  let record: IsolationRecord;
  let note: string;
  if (choice === "commit") {
    const files = commitCheckout(
      context.paths.root,
      `dotagent: work in progress, committed before the tasks of ${execution.workflow_id} start`,
    );
    const facts = checkoutFacts(context.paths.root);
    const decided = isolationFromFacts(facts, round, now);
    if (decided === "refused")
      throw new DotagentError(
        "git_sandboxed",
        `the main checkout cannot be looked at after committing: ${facts.git === "refused" ? facts.reason : "git refused"}. for the person: run \`dotagent resume --isolation commit\` outside the sandbox`,
        EXIT.refused,
      );
    if (decided === "decide")
      throw new DotagentError(
        "isolation_undecided",
        `the main checkout still has uncommitted changes after committing: ${facts.git === true ? facts.dirty.slice(0, 5).join(", ") : ""}. for the person: commit them by hand, then \`dotagent resume\``,
        EXIT.refused,
      );
    record = decided;
    note =
      files.length > 0
        ? `committed ${files.length} uncommitted file(s) of the main checkout; tasks get worktrees`
        : "the main checkout is clean; tasks get worktrees";
  } else {
    record = {
      round,
      mode: "shared",
      branch: null,
      reason: "the person chose to run the tasks in the one checkout (it had uncommitted changes)",
      decided_at: now.toISOString(),
    };
    note = sharedWarning(record);
  }
  const writer = new StateWriter(context.paths, snapshot, now, context.warn);
  writer.writeExecution({ ...execution, isolation: record });
  writer.appendEvents([
    {
      type: "isolation_decided",
      round,
      mode: record.mode,
      ...(record.branch ? { branch: record.branch } : {}),
      ...(record.reason ? { reason: record.reason } : {}),
      chosen: choice,
    },
  ]);
  return note;
}

/** After a fresh start or a rollback cleared tasks: their worktrees go (never a live owner's, never unmerged commits). Never fails the caller. */
export async function sweepAfterClear(root: string, now: Date, note?: (line: string) => void): Promise<void> {
  if (worktreeFolders(root).length === 0 && !hasTaskBranches(root)) return;
  try {
    const { loadSnapshot: load } = await import("../store/session.js");
    const { projectPaths } = await import("../store/project.js");
    const snapshot = await load(projectPaths(root));
    const execution = snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined;
    for (const r of sweepWorktrees(root, now, { branches: true, execution }))
      if (r.code === "branch_kept" || r.code === "worktree_kept") note?.(r.message);
  } catch (error) {
    note?.(`the task worktrees could not be tidied (${(error as Error).message}); \`dotagent resume\` tries again`);
  }
}

function hasTaskBranches(root: string): boolean {
  const repo = repoAt(root);
  return isRepo(repo) && listTaskBranches(repo.top).length > 0;
}
