// Preloaded into the built CLI by the worktree kill matrix: `node --import git-kill-at.mjs
// dist/dotagent.mjs …`. It wraps child_process.spawnSync (what dotagent runs git with) and
// syncBuiltinESMExports(), so the bundle's named import sees the wrapper. Inert unless set:
//   GIT_KILL_LOG=<file>          append one line per git call: "<n> <args…>"
//   GIT_KILL_AT=<n>:before|after SIGKILL this process right before / right after its n-th git call
// It changes nothing else.
import childProcess from "node:child_process";
import { appendFileSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";

const log = process.env.GIT_KILL_LOG;
const [nth, when] = (process.env.GIT_KILL_AT ?? "").split(":");
const killAt = nth ? Number(nth) : undefined;

if (log || killAt !== undefined) {
  const original = childProcess.spawnSync;
  let calls = 0;
  childProcess.spawnSync = function spawnSync(file, args, options) {
    if (
      file !== "git" ||
      (Array.isArray(args) && args[0] === "--version") ||
      (Array.isArray(args) && args[0] === "var")
    )
      return original.call(this, file, args, options);
    calls++;
    if (log) appendFileSync(log, `${calls} ${(args ?? []).join(" ").replace(/\n/g, "\\n")}\n`);
    if (calls === killAt && when === "before") process.kill(process.pid, "SIGKILL");
    const result = original.call(this, file, args, options);
    if (calls === killAt && when === "after") process.kill(process.pid, "SIGKILL");
    return result;
  };
  syncBuiltinESMExports();
}
