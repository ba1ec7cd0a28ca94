// The tests' temp folder (vitest.config.ts, before any worker starts; issue 41): a folder of
// this run's own on a memory file system (/dev/shm) when the machine has one with room, else the
// system's. The suite makes and removes hundreds of thousands of files (projects, state, git
// repositories, worktrees), and on a disk's ext4 each new file's inode search skips the ones
// deleted moments before (`recently_deleted` in a profile: a tenth of test/worktrees.test.ts's CPU)
// and every fsync of an atomic write goes to the journal. What the tests check does not change:
// rename, link, O_EXCL and permissions behave the same there; only the disk's speed is left out,
// and the benchmarks measure on the disk.
//
// The clients' binaries and the other Node versions stay cached where the fetch scripts put them
// (under the system's temp folder, scripts/fetch-*.mjs): their folders are pinned first. A run
// killed before its end leaves its folder; the next run removes it once its process is gone.
// DOTAGENT_TEST_TMPDIR=system keeps the system's temp folder (to run the suite on the disk), and
// so does KEEP=1 (the tests that leave their folders for a person to look at): a folder on
// /dev/shm would go with the run.
import { mkdtempSync, readFileSync, readdirSync, rmSync, statfsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isPidAlive } from "../../src/store/process-facts.js";

const SHM = "/dev/shm";
/** Free space the suite may need at its peak (the real clients' projects, the packed package), with room to spare. */
const ROOM = 2 * 1024 ** 3;
const CACHES = {
  DOTAGENT_CLAUDE_CACHE: "dotagent-claude",
  DOTAGENT_CODEX_CACHE: "dotagent-codex",
  DOTAGENT_COPILOT_CACHE: "dotagent-copilot",
  DOTAGENT_NODE_CACHE: "dotagent-node",
} as const;
const TMPFS_MAGIC = 0x01021994;

/** Points TMPDIR at the run's own folder on /dev/shm when it is a tmpfs with room; the folder, or undefined when the system's stays. */
export function useMemoryTmpdir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.DOTAGENT_TEST_TMPDIR === "system" || env.KEEP || env.DOTAGENT_TEST_SCRATCH !== undefined)
    return env.DOTAGENT_TEST_SCRATCH;
  let fs;
  try {
    fs = statfsSync(SHM);
  } catch {
    return undefined;
  }
  if (fs.type !== TMPFS_MAGIC || fs.bavail * fs.bsize < ROOM || !allowsPrograms()) return undefined;
  removeLeftOvers();
  let dir;
  try {
    dir = mkdtempSync(join(SHM, `dotagent-tests-${process.pid}-`));
  } catch {
    return undefined;
  }
  for (const [name, folder] of Object.entries(CACHES)) env[name] ??= join(tmpdir(), folder);
  // Set for this process and every worker and child it starts; the workers see it as their own.
  env.TMPDIR = dir;
  env.DOTAGENT_TEST_SCRATCH = dir;
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Whether programs may run from /dev/shm: the tests write stand-ins there (a `node` or `git` on
 * PATH, the scripted agents) and run them, which a `noexec` mount (a hardened host's, a
 * container's) refuses. Judged from /proc/mounts; unreadable, the disk is used.
 */
function allowsPrograms(): boolean {
  let mounts: string;
  try {
    mounts = readFileSync("/proc/mounts", "utf8");
  } catch {
    return false;
  }
  const shm = mounts
    .split("\n")
    .map((line) => line.split(" "))
    .filter((fields) => fields[1] === SHM)
    .at(-1);
  return shm !== undefined && !(shm[3] ?? "").split(",").includes("noexec");
}

/** The folders of runs whose process is gone (killed before their exit). */
function removeLeftOvers(): void {
  for (const name of readdirSync(SHM)) {
    const pid = /^dotagent-tests-(\d+)-/.exec(name)?.[1];
    if (pid !== undefined && !isPidAlive(Number(pid))) rmSync(join(SHM, name), { recursive: true, force: true });
  }
}
