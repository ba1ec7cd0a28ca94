// The task plan as `dotagent tasks` shows it (SPEC §10 "dotagent tasks"): one row per task with
// what a person asks of it — where it stands, how often it failed, what it waits for, who holds it,
// where its work is (its worktree, or the merge commit and the branch it landed on). Pure: the
// owners' verdicts come in from the process table.
import type { ExecutionState, MergeRecord, Task } from "../schema/execution.js";
import { TASK_STATUSES, type TaskStatus } from "../schema/json.js";
import type { OwnerVerdict, OwnerVerdicts } from "./ownership.js";
import { maxAttemptsOf, unmetDependencies } from "./tasks.js";

/** Who holds a running task: its recorded owner, the verdict on it, and the attempt it runs. */
export interface TaskHolder {
  session: string | null;
  pid: number;
  host: string;
  /** When this attempt started. */
  at: string;
  verdict: OwnerVerdict;
  /** The attempt it runs: failed attempts + 1. */
  attempt: number;
}

/** A task's merge (SPEC §19), the fields a reader needs. */
export interface TaskMerge {
  state: MergeRecord["state"];
  into: string;
  /** merged: the merge commit (null: nothing to merge); merging: the commit being landed; conflict: null. */
  commit: string | null;
  at: string;
  /** conflict: the files named; otherwise []. */
  files: string[];
  /** conflict: conflict | local_changes | unfinished_merge | untrusted_worktree | wrong_branch; otherwise null. */
  reason: string | null;
}

/** One task as `dotagent tasks --json` gives it: stable fields, every one always present. */
export interface TaskRow {
  id: string;
  title: string | null;
  status: TaskStatus;
  /** Attempts that did not succeed, and how many it may use. */
  attempts: number;
  /** Of `attempts`, those cut off (the session ended while it ran), not failures the task reported. */
  cut_off: number;
  max_attempts: number;
  depends_on: string[];
  /** The dependencies not complete or skipped yet. */
  waiting_on: string[];
  /** Running: who holds it; otherwise null. */
  owner: TaskHolder | null;
  started_at: string | null;
  completed_at: string | null;
  error: string | null;
  /** Its git worktree (kept after it lands, as its record); null in a shared round. */
  worktree: { path: string; branch: string; into: string; base: string } | null;
  merge: TaskMerge | null;
  /** `task skip`: why, and when. */
  skipped: { reason: string; at: string } | null;
}

export function taskRow(task: Task, state: ExecutionState, verdicts: OwnerVerdicts | undefined): TaskRow {
  const w = task.worktree ?? null;
  const m = w?.merge ?? null;
  const owner =
    task.status === "running" && task.owner != null
      ? {
          session: task.owner.session ?? null,
          pid: task.owner.pid,
          host: task.owner.host,
          at: task.started_at ?? task.owner.at,
          verdict: verdicts?.get(task.id) ?? "gone",
          attempt: task.attempts + 1,
        }
      : null;
  return {
    id: task.id,
    title: task.title ?? null,
    status: task.status,
    attempts: task.attempts,
    cut_off: Math.min(task.cut_off ?? 0, task.attempts),
    max_attempts: maxAttemptsOf(task, state),
    depends_on: [...(task.depends_on ?? [])],
    waiting_on:
      task.status === "pending" || task.status === "failed" || task.status === "dead"
        ? unmetDependencies(state, task)
        : [],
    owner,
    started_at: task.started_at ?? null,
    completed_at: task.completed_at ?? null,
    error: task.error ?? null,
    worktree: w === null ? null : { path: w.path, branch: w.branch, into: w.into, base: w.base },
    merge:
      m === null
        ? null
        : {
            state: m.state,
            into: m.into,
            commit: m.state === "conflict" ? null : (m.commit ?? null),
            at: m.at,
            files: m.state === "conflict" ? [...(m.files ?? [])] : [],
            reason: m.state === "conflict" ? (m.reason ?? "conflict") : null,
          },
    skipped: task.skipped == null ? null : { reason: task.skipped.reason, at: task.skipped.at },
  };
}

/** `--status running,failed` → the statuses, or why not (a usage error). */
export function parseStatusFilter(text: string): { ok: true; statuses: TaskStatus[] } | { ok: false; message: string } {
  const words = text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (words.length === 0)
    return { ok: false, message: `--status needs one or more of ${TASK_STATUSES.join(", ")}, comma-separated` };
  for (const word of words) {
    if (!(TASK_STATUSES as readonly string[]).includes(word))
      return {
        ok: false,
        message: `--status: "${word.length > 20 ? `${word.slice(0, 20)}…` : word}" is not a task status; give one or more of ${TASK_STATUSES.join(", ")}`,
      };
  }
  return { ok: true, statuses: [...new Set(words)] as TaskStatus[] };
}

/** The rows of the tasks whose status is in `statuses` (all when undefined), in file order. */
export function taskRows(
  state: ExecutionState | undefined,
  verdicts: OwnerVerdicts | undefined,
  statuses?: readonly TaskStatus[],
): TaskRow[] {
  if (state === undefined) return [];
  const wanted = statuses === undefined ? undefined : new Set<string>(statuses);
  return state.tasks
    .filter((t) => wanted === undefined || wanted.has(t.status))
    .map((t) => taskRow(t, state, verdicts));
}

const short = (sha: string | null) => (sha === null ? "" : sha.slice(0, 7));

/**
 * Where a task's work is, in a few words: its holder and worktree while it runs, the merge commit
 * and branch once it landed, the conflict, or what it waits for. The table's WHERE column.
 */
export function whereText(row: TaskRow): string {
  const tree = row.worktree?.path;
  if (row.status === "running") {
    const holder =
      row.owner === null
        ? "no owner recorded"
        : `pid ${row.owner.pid}${row.owner.verdict === "live" ? "" : row.owner.verdict === "gone" ? " (gone)" : ` on ${row.owner.host}`}`;
    return tree ? `${holder}, ${tree}` : holder;
  }
  if (row.merge?.state === "merged")
    return row.merge.commit === null
      ? `nothing to merge into ${row.merge.into}`
      : `merged into ${row.merge.into} as ${short(row.merge.commit)}`;
  if (row.merge?.state === "merging") return `merging into ${row.merge.into}`;
  if (row.status === "pending") return row.waiting_on.length > 0 ? `waits for ${row.waiting_on.join(", ")}` : "ready";
  if (row.merge?.state === "conflict")
    return `not merged: ${row.merge.reason === "conflict" ? `conflict in ${row.merge.files.slice(0, 3).join(", ")}${row.merge.files.length > 3 ? ", …" : ""}` : row.merge.reason}; ${row.worktree?.branch ?? "its branch"} kept`;
  if (tree && row.status !== "complete") return tree;
  return "";
}

/** The time a row shows: when it started (running, failed, dead), completed, or was skipped. */
export function rowTime(row: TaskRow): string | null {
  if (row.status === "complete") return row.completed_at ?? row.merge?.at ?? null;
  if (row.status === "skipped") return row.skipped?.at ?? null;
  if (row.status === "pending") return null;
  return row.started_at;
}
