// Ends everything a command started, when its timeout or a stop says so (SPEC §20): not only its
// process group, which is all a `kill -- -PID` reaches. A child that called setsid has left the
// group and the session, and one whose parent died has been handed to init; either kept the
// output pipe open, and `step run` waited for it long after the timeout (issue 40, finding 5).
//
// What counts as the command's (Linux, from /proc): its own process and every descendant by
// parent pid; with its own session (`step run`'s commands have one), every process of that
// session; and every process whose environment carries the run's token (DOTAGENT_RUN_TOKEN,
// which every descendant inherits, through setsid, double forks and reparenting alike). Each is
// sent SIGKILL, and the scan repeats until it finds none alive (a child forked meanwhile is in
// the next scan), at most MAX_SCANS times. dotagent's own process and init are never ended.
//
// What escapes, honestly: a process that replaced its environment (`env -i`, an exec with
// another environment) and also left the session and is no descendant any more (a daemon that
// does all three on purpose); another user's process, whose environment a non-root dotagent
// cannot read; a process in another pid namespace. Without /proc (macOS, the BSDs) only the
// process group is ended. None of these can make `step run` wait: it never waits on a pipe past
// the command's own end (run-command.ts).
import { readdirSync, readFileSync } from "node:fs";
import { hasEnded, processTies } from "./process-facts.js";

const MAX_SCANS = 20;

export interface RunMarks {
  /** The command's process (the shell dotagent spawned). */
  readonly root: number;
  /** The command has its own session and process group, both numbered `root` (spawned detached). */
  readonly ownSession: boolean;
  /** The random token in the command's environment, if it was given one. */
  readonly token: string | undefined;
}

/** SIGKILLs the command's process group (when it has its own) and every process that is the command's (above). */
export function endProcesses(marks: RunMarks): void {
  for (let scan = 0; scan < MAX_SCANS; scan++) {
    // Scanned before the first kill: the parent links still lead from the root to its descendants.
    const pids = scanFor(marks);
    if (scan === 0) signal(marks.ownSession ? -marks.root : marks.root);
    if (pids.length === 0) return;
    for (const pid of pids) signal(pid);
  }
}

function signal(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // gone already, or not ours to end
  }
}

/** The live processes (not ending already) that are the command's; [] without /proc. */
function scanFor(marks: RunMarks): number[] {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  const found = new Set<number>();
  const children = new Map<number, number[]>();
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid || pid === 1) continue;
    const ties = processTies(pid);
    if (ties === null) continue;
    children.set(ties.ppid, [...(children.get(ties.ppid) ?? []), pid]);
    if (
      pid === marks.root ||
      (marks.ownSession && ties.session === marks.root) ||
      (marks.token !== undefined && carries(pid, marks.token))
    )
      found.add(pid);
  }
  // Descendants by parent pid, from the root and from every process found.
  const queue = [marks.root, ...found];
  while (queue.length > 0) {
    for (const child of children.get(queue.pop()!) ?? []) {
      if (found.has(child)) continue;
      found.add(child);
      queue.push(child);
    }
  }
  // One killed a moment ago (SIGKILL pending, or a zombie) is ended already.
  return [...found].filter((pid) => !hasEnded(pid));
}

function carries(pid: number, token: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`).includes(token);
  } catch {
    return false; // another user's process (EACCES), or gone
  }
}
