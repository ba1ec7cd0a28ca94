// Where archives live and which live files they cover (CONTRACT §2, §8). Every archive operation
// starts here, so a project whose memory/ folders are links somewhere else is refused before
// anything is read or moved: renames through a link would write outside the project.
import { lstatSync } from "node:fs";
import { join } from "node:path";
import { REPORTS_DIR, STATE_DIR } from "../core/phases.js";
import { DotagentError, EXIT } from "../core/errors.js";

export const ARCHIVE_DIR = `${STATE_DIR}/.archive`;
export const ARCHIVE_EXTENSION = ".tar.gz";
/** The live state files an archive holds, in the order they are cleared and restored (phase.json last). */
export const STATE_FILES = ["execution.json", "events.jsonl", "phase.json"] as const;
/** First entry of every archive dotagent writes; `archive list` reads nothing else. */
export const MANIFEST_NAME = "dotagent-archive.json";

export interface ArchivePaths {
  readonly root: string;
  readonly memoryDir: string;
  readonly stateDir: string;
  readonly reportsDir: string;
  readonly archiveDir: string;
}

export function resolveArchivePaths(root: string): ArchivePaths {
  return {
    root,
    memoryDir: join(root, "memory"),
    stateDir: join(root, STATE_DIR),
    reportsDir: join(root, REPORTS_DIR),
    archiveDir: join(root, ARCHIVE_DIR),
  };
}

/** Path of an archive relative to the project root, with `/` on every platform. */
export function archiveRelativePath(name: string): string {
  return `${ARCHIVE_DIR}/${name}`;
}

/**
 * Throws `unsafe_path` when memory/, memory/state/, memory/reports/ or .archive/ exists but is
 * not a real folder (a symlink, a file). Missing folders are fine: callers create them.
 */
export function assertRealFolders(paths: ArchivePaths): void {
  const folders: Array<[string, string]> = [
    [paths.memoryDir, "memory"],
    [paths.stateDir, STATE_DIR],
    [paths.reportsDir, REPORTS_DIR],
    [paths.archiveDir, ARCHIVE_DIR],
  ];
  for (const [abs, rel] of folders) {
    let isDir: boolean;
    let isLink: boolean;
    try {
      const stat = lstatSync(abs);
      isDir = stat.isDirectory();
      isLink = stat.isSymbolicLink();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw error;
    }
    if (!isDir) {
      const what = isLink ? "a symbolic link" : "not a folder";
      throw new DotagentError(
        "unsafe_path",
        `${rel} is ${what}; archives only work on real folders inside the project: replace it with a folder and run \`dotagent validate\``,
        EXIT.invalid,
        { path: rel },
      );
    }
  }
}
