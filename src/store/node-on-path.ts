// `node --version` as a client's hooks would run it (Codex's and Copilot's doctor: the hooks start
// `node` from PATH), without a process when PATH's first `node` is the very binary running now:
// the same file gives the same answer, and a spawn costs tens of milliseconds (issue 41). Anything
// less plain (a relative or empty PATH entry, a folder that cannot be searched, a shim that is
// another file, a different NODE_OPTIONS, Windows) asks `node --version` as before.
import { spawnSync } from "node:child_process";
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";

/** The version `node --version` prints in `env`, or null when `node` does not run there. */
export function nodeOnPathVersion(env: NodeJS.ProcessEnv = process.env): string | null {
  if (sameNodeAsThis(env)) return process.version;
  const run = spawnSync("node", ["--version"], { encoding: "utf8", timeout: 10_000, env });
  return run.status === 0 ? run.stdout.trim() : null;
}

/** Whether PATH's first executable `node` in `env` is this process's own binary, judged without guessing. */
export function sameNodeAsThis(env: NodeJS.ProcessEnv): boolean {
  if (process.platform === "win32" || env.PATH === undefined) return false;
  if ((env.NODE_OPTIONS ?? "") !== (process.env.NODE_OPTIONS ?? "")) return false;
  for (const dir of env.PATH.split(":")) {
    if (dir === "" || !isAbsolute(dir)) return false;
    const candidate = join(dir, "node");
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Not there: the search goes on, as exec's does. Anything else: exec's own answer is asked.
      if (code === "ENOENT" || code === "ENOTDIR") continue;
      return false;
    }
    try {
      return realpathSync(candidate) === realpathSync(process.execPath);
    } catch {
      return false;
    }
  }
  return false;
}
