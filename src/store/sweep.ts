// Temp files left by killed processes: write-file.ts's `<name>.<digits>` beside phase.json,
// execution.json, events.jsonl, the .clearing marker, .last-write.json and .step-running.json, the lock's `.lock.<pid>.<hex>.tmp`, and the temp folders of a
// killed archive or restore in .archive/. Only a command that holds the state lock sweeps. Every
// writer of the state files and archives holds the lock too, so their temp files are never live;
// the lock's temp files are written by processes still waiting for the lock, so those are removed
// only when the pid in their name is dead.
import { readdirSync, rmSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { isLeftoverTempName } from "../archive/archive-names.js";
import { isPidAlive } from "./process-facts.js";

const STATE_TEMP =
  /^(phase\.json|execution\.json|events\.jsonl|\.clearing|\.last-write\.json|\.step-running\.json)\.(\d+|tmp)$/;
const LOCK_TEMP = /^\.lock\.(\d+)\.[0-9a-f]+\.tmp$/;

export function findTempFiles(stateDir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(stateDir);
  } catch {
    return [];
  }
  return names.filter((name) => STATE_TEMP.test(name) || (LOCK_TEMP.test(name) && isLeftover(name)));
}

function isLeftover(lockTemp: string): boolean {
  return !isPidAlive(Number(LOCK_TEMP.exec(lockTemp)?.[1]));
}

/** Removes the entries of `stateDir/sub` that `isTemp` picks (files or folders); returns them as `sub/name`. */
function sweepFolder(stateDir: string, sub: string, isTemp: (name: string) => boolean): string[] {
  let names: string[];
  try {
    names = readdirSync(join(stateDir, sub));
  } catch {
    return [];
  }
  return names.filter(isTemp).map((name) => {
    rmSync(join(stateDir, sub, name), { recursive: true, force: true });
    return sub === "" ? name : `${sub}/${name}`;
  });
}

/** Leftovers of a killed archive create or restore in .archive/ (archives run under the lock too),
 * checkpoint folders half-built in .history/ (taken under the lock), and a rollback journal cut off
 * before its commit point or removed after it finished. */
function sweepFolderTemps(stateDir: string): string[] {
  return [
    ...sweepFolder(stateDir, ".archive", isLeftoverTempName),
    ...sweepFolder(stateDir, ".history", (name) => name.startsWith(".tmp-")),
    ...sweepFolder(stateDir, "", (name) => name.startsWith(".rollback.tmp-") || name.startsWith(".rollback.done-")),
  ];
}

/** Removes leftover temp files; returns the names removed. */
export function sweepTempFiles(stateDir: string): string[] {
  const removed: string[] = sweepFolderTemps(stateDir);
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
