// Where a project's memory lives. `--dir` wins; otherwise the nearest folder upwards that holds
// memory/state, else the current folder (so `init` creates it there).
import { existsSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { STATE_DIR, REPORTS_DIR } from "../core/phases.js";

export interface ProjectPaths {
  readonly root: string;
  readonly stateDir: string;
  readonly reportsDir: string;
  readonly phaseFile: string;
  readonly executionFile: string;
  readonly eventsFile: string;
  readonly archiveDir: string;
}

export function projectPaths(root: string): ProjectPaths {
  const stateDir = join(root, STATE_DIR);
  return {
    root,
    stateDir,
    reportsDir: join(root, REPORTS_DIR),
    phaseFile: join(stateDir, "phase.json"),
    executionFile: join(stateDir, "execution.json"),
    eventsFile: join(stateDir, "events.jsonl"),
    archiveDir: join(stateDir, ".archive"),
  };
}

export function findProjectRoot(dir: string | undefined, cwd: string = process.cwd()): string {
  if (dir !== undefined) return resolve(cwd, dir);
  let current = resolve(cwd);
  for (;;) {
    if (isDirectory(join(current, STATE_DIR))) return current;
    const parent = dirname(current);
    if (parent === current) return resolve(cwd);
    current = parent;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export function hasState(paths: ProjectPaths): boolean {
  return existsSync(paths.phaseFile) || existsSync(paths.executionFile);
}
