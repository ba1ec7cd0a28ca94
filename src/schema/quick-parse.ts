// A fast, zod-free check of phase.json and execution.json for the common case: a well-formed
// file. It is deliberately stricter than the zod schemas, never looser: when it says yes the zod
// schema says yes too and gives the same value (defaults filled in), which the property test in
// quick-parse.test.ts checks. When it says no (or meets anything unusual), the caller falls back to
// zod, which decides and explains. This keeps zod's start-up (~15 ms) and its per-task cost (135 ms
// at 10,000 tasks) off `status` and the SessionStart hook.
import { PHASES, PHASE_STATUSES } from "../core/phases.js";
import {
  DEFAULT_MAX_ATTEMPTS,
  ID_PATTERN,
  MAX_PARALLEL_LIMIT,
  TASK_BRANCH_PATTERN,
  TASK_STATUSES,
  WORKTREE_PATH_PATTERN,
} from "./json.js";
import type { PhaseState } from "./phase.js";
import type { ExecutionState, Task } from "./execution.js";

// The same date-time zod's z.iso.datetime({ offset: true }) accepts, from zod's own regexes.
const DATE = String.raw`(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29|\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|(?:02)-(?:0[1-9]|1\d|2[0-8])))`;
const ISO = new RegExp(
  String.raw`^${DATE}T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$`,
);

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === "object" && !Array.isArray(v);
const isIso = (v: unknown) => typeof v === "string" && ISO.test(v);
const isOptIso = (v: unknown) => v === undefined || v === null || isIso(v);
const isOptString = (v: unknown) => v === undefined || v === null || typeof v === "string";
const isStrings = (v: unknown) => Array.isArray(v) && v.every((f) => typeof f === "string");
const isNonEmpty = (v: unknown) => typeof v === "string" && v.length > 0;
const isIntAtLeast = (v: unknown, min: number) => typeof v === "number" && Number.isSafeInteger(v) && v >= min;
const oneOf = (values: readonly string[]) => (v: unknown) => typeof v === "string" && values.includes(v);
const isPhase = oneOf(PHASES);
const isPhaseStatus = oneOf(PHASE_STATUSES);
const isTaskStatus = oneOf(TASK_STATUSES);
const isId = (v: unknown) => typeof v === "string" && ID_PATTERN.test(v);

export function quickPhaseState(data: unknown): PhaseState | undefined {
  if (!isObject(data)) return undefined;
  const d = data;
  // A pinned definition (a workflow other than develop) is checked by the full schema and its rules.
  if (d.workflow !== undefined) return undefined;
  if (!isNonEmpty(d.workflow_id) || !isIso(d.started_at) || !isIso(d.last_updated)) return undefined;
  if (!isPhase(d.current_phase) || !isPhaseStatus(d.phase_status) || typeof d.interruption_safe !== "boolean")
    return undefined;
  if (!Array.isArray(d.completed_phases) || !Array.isArray(d.user_checkpoints)) return undefined;
  for (const c of d.completed_phases)
    if (!isObject(c) || !isPhase(c.phase) || !isIso(c.completed_at) || !isOptString(c.output)) return undefined;
  for (const c of d.user_checkpoints) if (!isObject(c) || !isPhase(c.phase) || !isIso(c.approved_at)) return undefined;
  if (d.schema_version !== undefined && d.schema_version !== 1) return undefined;
  if (d.revision !== undefined && !isIntAtLeast(d.revision, 0)) return undefined;
  if (!isOptString(d.request) || !isOptString(d.error)) return undefined;
  if (d.designs_requested !== undefined && !(Array.isArray(d.designs_requested) && d.designs_requested.every(isId)))
    return undefined;
  if (d.agent_reports !== undefined && !isStrings(d.agent_reports)) return undefined;
  if (
    d.agents !== undefined &&
    !(
      Array.isArray(d.agents) &&
      d.agents.every(
        (a) =>
          isObject(a) &&
          isId(a.agent) &&
          typeof a.output === "string" &&
          (a.design === undefined || isId(a.design)) &&
          isOwner(a.owner),
      )
    )
  )
    return undefined;
  if (
    d.inputs_hash !== undefined &&
    d.inputs_hash !== null &&
    !(typeof d.inputs_hash === "string" && /^[0-9a-f]{16}$/.test(d.inputs_hash))
  )
    return undefined;
  if (d.instance_id !== undefined && !(typeof d.instance_id === "string" && /^[0-9a-f]{16}$/.test(d.instance_id)))
    return undefined;
  // Rare, nested fields: leave them to the full schema.
  if (
    (d.pending_transition !== undefined && d.pending_transition !== null) ||
    (d.rework !== undefined && d.rework !== null)
  )
    return undefined;
  return d as unknown as PhaseState;
}

function isOwner(o: unknown): boolean {
  return (
    isObject(o) &&
    isIntAtLeast(o.pid, 1) &&
    isNonEmpty(o.host) &&
    isIso(o.at) &&
    isOptString(o.session) &&
    isOptString(o.pid_start)
  );
}

const COMMIT = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
const isCommit = (v: unknown) => typeof v === "string" && COMMIT.test(v);
const isOptCommit = (v: unknown) => v === undefined || v === null || isCommit(v);

function isMerge(m: unknown): boolean {
  if (m === undefined || m === null) return true;
  if (!isObject(m) || !oneOf(["merging", "merged", "conflict"])(m.state) || !isNonEmpty(m.into) || !isIso(m.at))
    return false;
  if (
    !isOptCommit(m.onto) ||
    !isOptCommit(m.head) ||
    !isOptCommit(m.commit) ||
    !isOptString(m.reason) ||
    !isOptString(m.detail)
  )
    return false;
  if (
    m.left_out !== undefined &&
    !(
      isObject(m.left_out) &&
      isStrings(m.left_out.files) &&
      (m.left_out.commit === null || isCommit(m.left_out.commit))
    )
  )
    return false;
  return m.files === undefined || isStrings(m.files);
}

function isWorktree(w: unknown): boolean {
  if (w === undefined || w === null) return true;
  return (
    isObject(w) &&
    typeof w.path === "string" &&
    WORKTREE_PATH_PATTERN.test(w.path) &&
    typeof w.branch === "string" &&
    TASK_BRANCH_PATTERN.test(w.branch) &&
    isNonEmpty(w.into) &&
    isCommit(w.base) &&
    isMerge(w.merge)
  );
}

function isIsolation(i: unknown): boolean {
  if (i === undefined || i === null) return true;
  return (
    isObject(i) &&
    isIntAtLeast(i.round, 0) &&
    oneOf(["worktree", "shared"])(i.mode) &&
    (i.branch === undefined || i.branch === null || isNonEmpty(i.branch)) &&
    isOptString(i.reason) &&
    isIso(i.decided_at)
  );
}

function quickTask(t: unknown): Task | undefined {
  if (!isObject(t) || !isId(t.id) || !isTaskStatus(t.status)) return undefined;
  if (t.title !== undefined && typeof t.title !== "string") return undefined;
  if (t.depends_on !== undefined && !(Array.isArray(t.depends_on) && t.depends_on.every(isId))) return undefined;
  if (t.attempts !== undefined && !isIntAtLeast(t.attempts, 0)) return undefined;
  if (t.max_attempts !== undefined && !isIntAtLeast(t.max_attempts, 1)) return undefined;
  if (!isOptIso(t.started_at) || !isOptIso(t.completed_at) || !isOptString(t.output) || !isOptString(t.error))
    return undefined;
  if (t.owner !== undefined && t.owner !== null && !isOwner(t.owner)) return undefined;
  if (!isWorktree(t.worktree)) return undefined;
  if (
    t.skipped !== undefined &&
    t.skipped !== null &&
    !(isObject(t.skipped) && isNonEmpty(t.skipped.reason) && isIso(t.skipped.at))
  )
    return undefined;
  if (t.depends_on !== undefined && t.attempts !== undefined) return t as unknown as Task;
  return { ...t, depends_on: t.depends_on ?? [], attempts: t.attempts ?? 0 } as Task;
}

export function quickExecutionState(data: unknown): ExecutionState | undefined {
  if (!isObject(data)) return undefined;
  const d = data;
  // A pinned definition (a workflow other than develop) is checked by the full schema and its rules.
  if (d.workflow !== undefined) return undefined;
  if (
    !isNonEmpty(d.workflow_id) ||
    !isIso(d.updated_at) ||
    typeof d.interruption_safe !== "boolean" ||
    !Array.isArray(d.tasks)
  )
    return undefined;
  if (d.max_attempts !== undefined && !isIntAtLeast(d.max_attempts, 1)) return undefined;
  if (d.revision !== undefined && !isIntAtLeast(d.revision, 0)) return undefined;
  if (
    d.max_parallel !== undefined &&
    !(isIntAtLeast(d.max_parallel, 1) && (d.max_parallel as number) <= MAX_PARALLEL_LIMIT)
  )
    return undefined;
  if (
    d.plans !== undefined &&
    !(
      Array.isArray(d.plans) &&
      d.plans.every((p) => isObject(p) && isIntAtLeast(p.round, 0) && isIso(p.recorded_at) && isIntAtLeast(p.tasks, 0))
    )
  )
    return undefined;
  if (!isIsolation(d.isolation)) return undefined;
  const tasks: Task[] = new Array(d.tasks.length);
  for (let i = 0; i < d.tasks.length; i++) {
    const task = quickTask(d.tasks[i]);
    if (task === undefined) return undefined;
    tasks[i] = task;
  }
  return { ...d, max_attempts: d.max_attempts ?? DEFAULT_MAX_ATTEMPTS, tasks } as ExecutionState;
}
