// Who runs a task, and whether that runner is still there. `task start` records an owner (the
// Claude Code session and its process, the host, the time); `resume` orphans a running task only
// when its owner is gone. The verdict is pure: the shell looks at the process table and passes
// the facts in. The promise: a task whose owner may still be working is never reset, so two
// sessions never run the same task; a task whose owner is certainly gone is recovered as before.

/** The `owner` field of a running task in execution.json. */
export interface Owner {
  /** Claude Code's session id (CLAUDE_CODE_SESSION_ID), or null outside Claude Code. */
  session?: string | null | undefined;
  /** The long-lived process that runs the task's executor (CLAUDE_PID, a parent, or --owner). */
  pid: number;
  /** That process's start time as the OS reports it (Linux: /proc/<pid>/stat field 22), to tell a reused pid. */
  pid_start?: string | null | undefined;
  host: string;
  at: string;
  /** Fields added by later versions are kept. */
  [key: string]: unknown;
}

/**
 * live: the owner's process runs on this host; unknown: on another host, inside the lease (it
 * cannot be checked from here, so it is trusted); gone: dead, pid reused, past the lease, or no
 * owner recorded (files written before owners existed: recovered as they always were).
 */
export type OwnerVerdict = "live" | "unknown" | "gone";

export interface OwnerJudgement {
  verdict: OwnerVerdict;
  why: string;
}

/**
 * A task owned from another host is trusted this long after it started, then treated as gone.
 * Longer than the lock's 10-minute lease: one executor can work for an hour or more, and a
 * project shared between hosts is rare (a network folder), while resetting a live task wastes it.
 */
export const TASK_LEASE_MS = 2 * 60 * 60 * 1000;

export interface OwnerFacts {
  /** This host's name. */
  host: string;
  now: Date;
  /** The owner's process as seen on this host; only read when the owner is on this host. */
  process: { alive: boolean; start: string | null };
  leaseMs?: number;
}

export function judgeOwner(owner: Owner | null | undefined, facts: OwnerFacts): OwnerJudgement {
  if (owner === null || owner === undefined) return { verdict: "gone", why: "no owner is recorded" };
  if (owner.host !== facts.host) {
    const leaseMs = facts.leaseMs ?? TASK_LEASE_MS;
    const age = facts.now.getTime() - Date.parse(owner.at);
    if (!(age <= leaseMs))
      return {
        verdict: "gone",
        why: `it was started on host ${owner.host} more than ${Math.round(leaseMs / 60000)} minutes ago (the lease)`,
      };
    return {
      verdict: "unknown",
      why: `it runs on host ${owner.host}, started ${Math.round(age / 60000)} minutes ago (within the lease)`,
    };
  }
  if (!facts.process.alive) return { verdict: "gone", why: `its process ${owner.pid} is gone` };
  if (owner.pid_start != null && facts.process.start !== null && owner.pid_start !== facts.process.start) {
    return { verdict: "gone", why: `its process ${owner.pid} is gone (the pid now belongs to another process)` };
  }
  return { verdict: "live", why: `its process ${owner.pid} is alive` };
}

/** "session 3f2a… (pid 4242 on host dev, since 2026-11-20T10:40:00Z)", for refusals. */
export function describeOwner(owner: Owner): string {
  const session = owner.session == null ? "a process outside Claude Code" : `session ${owner.session}`;
  return `${session} (pid ${owner.pid} on host ${owner.host}, since ${owner.at})`;
}

/** The task ids whose owner is not gone: running elsewhere, so neither repaired nor listed again. */
export type OwnerVerdicts = ReadonlyMap<string, OwnerVerdict>;

export function isInFlight(verdicts: OwnerVerdicts | undefined, taskId: string): boolean {
  const verdict = verdicts?.get(taskId);
  return verdict === "live" || verdict === "unknown";
}

/** The key of a phase agent's verdict in OwnerVerdicts (tasks are keyed by their id). */
export const agentOwnerKey = (output: string) => `agent:${output}`;
