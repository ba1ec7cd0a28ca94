// The process table as ownership needs it: is a pid alive, when did it start (to tell a reused
// pid), this host's name, and which process owns the tasks this command starts. Linux gives the
// start time in /proc/<pid>/stat; elsewhere it is null and only liveness counts.
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { agentOwnerKey, judgeOwner, type Owner, type OwnerVerdict } from "../core/ownership.js";
import type { StateSnapshot } from "../core/snapshot.js";

export function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Fields 3 onwards of /proc/<pid>/stat (after the command name, which may hold spaces and parentheses). */
function statFields(pid: number): { comm: string; fields: string[] } | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return null;
  return {
    comm: text.slice(open + 1, close),
    fields: text
      .slice(close + 2)
      .trim()
      .split(" "),
  };
}

/** True when the process has exited and waits to be reaped (state Z in /proc/<pid>/stat): alive for kill(pid, 0), gone for every other purpose. */
export function isZombie(pid: number): boolean {
  return statFields(pid)?.fields[0] === "Z";
}

/** PF_EXITING in field 9 of /proc/<pid>/stat: the kernel has begun to take the process down. */
const PF_EXITING = 0x4;
/** SIGKILL's bit in the pending-signal masks of /proc/<pid>/status. */
const SIGKILL_BIT = 1n << 8n;

/**
 * True when the process has ended or is ending, though kill(pid, 0) still finds it: a zombie
 * (state Z or X), one the kernel is taking down (PF_EXITING), or one with SIGKILL pending, which
 * is how a process killed a moment ago looks until it is next scheduled (measured: 8 of 20 node
 * processes holding 480 MB were still state R, flags clear, right after kill -9 returned).
 */
export function hasEnded(pid: number): boolean {
  const stat = statFields(pid);
  if (stat === null) return false;
  if (hasEndedStat(stat.fields)) return true;
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return false;
  }
  for (const line of status.matchAll(/^(?:SigPnd|ShdPnd):\s*([0-9a-f]+)$/gm)) {
    if ((BigInt(`0x${line[1]}`) & SIGKILL_BIT) !== 0n) return true;
  }
  return false;
}

function hasEndedStat(fields: string[]): boolean {
  return fields[0] === "Z" || fields[0] === "X" || (Number(fields[6]) & PF_EXITING) !== 0;
}

/** Its parent's pid and its session id (fields 4 and 6 of /proc/<pid>/stat), or null where /proc does not show the process. */
export function processTies(pid: number): { ppid: number; session: number } | null {
  const stat = statFields(pid);
  return stat === null ? null : { ppid: Number(stat.fields[1]), session: Number(stat.fields[3]) };
}

/** The process's start time in clock ticks after boot (field 22), or null where /proc is not there. */
export function processStartTime(pid: number): string | null {
  return statFields(pid)?.fields[19] ?? null;
}

/**
 * True while the process that had this pid and start time runs: a pid reused by another process
 * (another start time) is not it, and one that has ended or is ending (hasEnded: a zombie not
 * yet reaped, as under a container's pid 1 that does not reap, or one killed a moment ago) is not. Where /proc exists a start time is required
 * (without it the pid may be anyone's by now); without /proc only liveness counts.
 */
export function isProcessRunning(pid: number, start: string | null): boolean {
  const stat = statFields(pid);
  if (stat === null) return !hasProc() && isPidAlive(pid);
  if (start === null || stat.fields[19] !== start) return false;
  return !hasEnded(pid);
}

let procThere: boolean | undefined;
function hasProc(): boolean {
  if (procThere === undefined) {
    try {
      procThere = readFileSync("/proc/self/stat", "utf8").length > 0;
    } catch {
      procThere = false;
    }
  }
  return procThere;
}

export function currentHost(): string {
  return hostname();
}

// The Bash tool (and scripts) run each command in a short-lived shell; the owner is whoever runs
// the shell. These names are walked past.
const SHELLS = new Set([
  "sh",
  "bash",
  "dash",
  "zsh",
  "ksh",
  "mksh",
  "fish",
  "busybox",
  "env",
  "timeout",
  "nice",
  "nohup",
  "xargs",
  "npm exec",
  "npx",
]);

/**
 * The nearest long-lived ancestor of this process: the parent, or past it while it is a shell.
 * Never init (pid 1): if the walk reaches it, the immediate parent is the owner after all.
 */
export function longLivedParent(): number {
  const parent = process.ppid;
  let pid = parent;
  for (let step = 0; step < 8; step++) {
    const stat = statFields(pid);
    if (stat === null || !SHELLS.has(stat.comm)) return pid;
    const up = Number(stat.fields[1]);
    if (!Number.isSafeInteger(up) || up <= 1) return parent;
    pid = up;
  }
  return pid;
}

/**
 * The owner a `task start` records: Claude Code's process (CLAUDE_PID) and session
 * (CLAUDE_CODE_SESSION_ID) when run from its Bash tool; an explicit pid; else the nearest
 * long-lived parent process.
 */
export function currentOwner(
  now: Date,
  explicitPid?: number,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Owner {
  const fromEnv = Number(env.CLAUDE_PID);
  const pid = explicitPid ?? (Number.isSafeInteger(fromEnv) && fromEnv > 1 ? fromEnv : longLivedParent());
  return {
    session: env.CLAUDE_CODE_SESSION_ID || null,
    pid,
    pid_start: processStartTime(pid),
    host: currentHost(),
    at: now.toISOString(),
  };
}

/** The verdict on every running task's owner, for the planner (which stays pure). */
export function judgeRunningTasks(snapshot: StateSnapshot, now: Date): Map<string, OwnerVerdict> {
  const verdicts = new Map<string, OwnerVerdict>();
  let host: string | undefined;
  // A batch shares one owner: look each process up once.
  const seen = new Map<number, { alive: boolean; start: string | null }>();
  const lookUp = (pid: number) => {
    let facts = seen.get(pid);
    // A zombie (dead, not yet reaped by its parent) or a process killed a moment ago is gone: kill(pid, 0) alone would call it alive.
    if (facts === undefined)
      seen.set(pid, (facts = { alive: isPidAlive(pid) && !hasEnded(pid), start: processStartTime(pid) }));
    return facts;
  };
  const judge = (key: string, owner: Owner | null | undefined) => {
    host ??= currentHost();
    const ownerProcess = owner != null && owner.host === host ? lookUp(owner.pid) : { alive: false, start: null };
    verdicts.set(key, judgeOwner(owner, { host, now, process: ownerProcess }).verdict);
  };
  const tasks = snapshot.execution.kind === "ok" ? snapshot.execution.value.tasks : [];
  for (const task of tasks) if (task.status === "running") judge(task.id, task.owner);
  // Phase agents at work (phase.json `agents`), keyed by their output: see plan-resume.ts.
  const agents = snapshot.phase.kind === "ok" ? (snapshot.phase.value.agents ?? []) : [];
  for (const run of agents) judge(agentOwnerKey(run.output), run.owner);
  return verdicts;
}

/** The verdict on one owner (a worktree's lock, say), judged like a running task's. */
export function judgeOneOwner(owner: Owner | null | undefined, now: Date): OwnerVerdict {
  const host = currentHost();
  const facts =
    owner != null && owner.host === host
      ? { alive: isPidAlive(owner.pid) && !hasEnded(owner.pid), start: processStartTime(owner.pid) }
      : { alive: false, start: null };
  return judgeOwner(owner, { host, now, process: facts }).verdict;
}
