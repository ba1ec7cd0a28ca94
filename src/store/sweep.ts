// Temp files left by killed processes: write-file-atomic's `<name>.<digits>`, our `<name>.tmp`
// and `<name>.<hex>.tmp`. Only commands holding the state lock sweep, because every writer of
// these files holds the lock too: nothing swept can belong to a live write.
import { readdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";

const TEMP = /^(phase\.json|execution\.json|events\.jsonl|\.lock)\.(\d+|[\w.-]*\.tmp|tmp)$/;

export function findTempFiles(stateDir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(stateDir);
  } catch {
    return [];
  }
  return names.filter((name) => TEMP.test(name) || name.startsWith(".lock.takeover-") && name.endsWith(".tmp"));
}

/** Removes leftover temp files; returns the names removed. */
export function sweepTempFiles(stateDir: string): string[] {
  const removed: string[] = [];
  for (const name of findTempFiles(stateDir)) {
    try {
      unlinkSync(join(stateDir, name));
      removed.push(name);
    } catch {
      // gone already
    }
  }
  return removed;
}
