// Runs the built CLI as a user who cannot read what chmod 000 hides. Tests here often run as
// root, who reads everything: then the command runs as `nobody` through setpriv, with the project
// handed to that user. Null when neither is possible (root without setpriv, or the CLI out of
// nobody's reach): the caller skips and says why.
import { accessSync, chmodSync, chownSync, constants, existsSync, readdirSync, statSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { CLI, type RunResult } from "./cli.js";

const NOBODY = 65534;
const SETPRIV = ["/usr/bin/setpriv", "/bin/setpriv"].find((p) => existsSync(p));

function chownTree(path: string): void {
  chownSync(path, NOBODY, NOBODY);
  if (statSync(path).isDirectory()) for (const name of readdirSync(path)) chownTree(join(path, name));
}

/** Whether nobody can read the built CLI: asked once per test file (a setpriv and a Node process each time it is asked). */
let nobodyReadsCli: boolean | undefined;

/** A runner that cannot read past permissions, for `project`; null when there is none here. */
export function unprivileged(project: string): ((args: string[]) => RunResult) | null {
  const run = (argv: string[]) => {
    const result = spawnSync(argv[0]!, argv.slice(1), {
      cwd: project,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1", DOTAGENT_LOCK_WAIT_MS: "300", HOME: project },
    });
    let json: unknown;
    try {
      json = JSON.parse(result.stdout);
    } catch {
      json = undefined;
    }
    return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr, json };
  };
  if (process.getuid?.() !== 0) return (args) => run([process.execPath, CLI, ...args]);
  if (SETPRIV === undefined) return null;
  nobodyReadsCli ??=
    spawnSync(SETPRIV, [
      `--reuid=${NOBODY}`,
      `--regid=${NOBODY}`,
      "--clear-groups",
      process.execPath,
      "-e",
      `require("fs").accessSync(${JSON.stringify(CLI)}, ${constants.R_OK})`,
    ]).status === 0;
  if (!nobodyReadsCli) return null;
  chownTree(project);
  // The temp folders above the project are root's (mode 700): let nobody walk through them.
  for (
    let dir = dirname(project);
    dir !== dirname(dir) && statSync(dir).uid === 0 && (statSync(dir).mode & 0o001) === 0;
    dir = dirname(dir)
  )
    chmodSync(dir, statSync(dir).mode | 0o001);
  accessSync(project);
  return (args) =>
    run([SETPRIV, `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", process.execPath, CLI, ...args]);
}
