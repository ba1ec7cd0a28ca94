// The processes a test left in its temp folder, found by their working folder (/proc/<pid>/cwd),
// so a test can prove that nothing it started still runs, and end whatever does (tests run as
// root in CI: nothing may outlive them). Linux only: elsewhere there is nothing to look at.
import { readdirSync, readlinkSync, realpathSync } from "node:fs";
import { hasEnded } from "./process-facts.js";

export const HAS_PROC = (() => {
  try {
    return readdirSync("/proc/self").length > 0;
  } catch {
    return false;
  }
})();

/** Live processes (not ending already) whose working folder is `dir` or inside it. */
export function processesIn(dir: string): number[] {
  if (!HAS_PROC) return [];
  const root = realpathSync(dir);
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    let cwd: string;
    try {
      cwd = readlinkSync(`/proc/${name}/cwd`);
    } catch {
      continue;
    }
    if ((cwd === root || cwd.startsWith(`${root}/`)) && !hasEnded(Number(name))) found.push(Number(name));
  }
  return found;
}

/** SIGKILLs every process in `dir` (a test's clean-up, also when it failed). */
export function endProcessesIn(dir: string): void {
  for (let round = 0; round < 10; round++) {
    const pids = processesIn(dir);
    if (pids.length === 0) return;
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone
      }
    }
  }
}
