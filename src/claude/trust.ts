// Whether Claude Code trusts a project folder, for `dotagent doctor` (SPEC §12). Claude Code keeps
// the answer to its "Do you trust the files in this folder?" question in its state file
// (`$CLAUDE_CONFIG_DIR/.claude.json`, else `~/.claude.json`, as test/claude/NOTES.md measured for
// the /login key): `projects["<abs path>"].hasTrustDialogAccepted`. Until the folder is trusted it
// applies none of the project's .claude/settings.json, so none of dotagent's hooks run and nothing
// is recorded. It keys the entry by the folder it was started in or its git root, and a trusted
// parent folder keeps the question from being asked. Reads only: the file is Claude Code's.
import { existsSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import type { Check } from "../core/doctor.js";
import { readProjectText } from "../store/read-file.js";

/** The nearest folder at or above `dir` holding `.git` (a folder, or a worktree's file), or null. */
export function gitRootOf(dir: string): string | null {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, ".git"))) return at;
    if (dirname(at) === at) return null;
  }
}

/** Claude Code's state file: `$CLAUDE_CONFIG_DIR/.claude.json` (an empty value is unset), else `~/.claude.json`. */
export function claudeStateFile(env: NodeJS.ProcessEnv = process.env): string {
  return env.CLAUDE_CONFIG_DIR
    ? join(env.CLAUDE_CONFIG_DIR, ".claude.json")
    : join(env.HOME || homedir(), ".claude.json");
}

/** The trusted folder that covers `folders[0]` (the project, then its other names), or null. Pure. */
export function trustedEntry(state: unknown, folders: readonly string[]): string | null {
  const projects = (state as { projects?: unknown } | null)?.projects;
  if (projects === null || typeof projects !== "object") return null;
  const trusted = (key: string) =>
    (projects as Record<string, { hasTrustDialogAccepted?: unknown } | undefined>)[key]?.hasTrustDialogAccepted ===
    true;
  for (const folder of folders) if (trusted(folder)) return folder;
  // A trusted parent folder: Claude Code walks up and asks nothing here.
  for (const folder of folders)
    for (let at = dirname(folder); ; at = dirname(at)) {
      if (trusted(at)) return at;
      if (dirname(at) === at) break;
    }
  return null;
}

/** The `trust` check of a project install: ok when Claude Code trusts the folder, else a failure saying how to trust it. */
export function claudeTrustCheck(root: string, env: NodeJS.ProcessEnv = process.env): Check {
  const file = claudeStateFile(env);
  const read = readProjectText(file, { maxBytes: 64 * 1024 * 1024, links: "follow" });
  let state: unknown = null;
  try {
    state = read.kind === "ok" ? JSON.parse(read.text) : null;
  } catch {
    // not JSON: Claude Code would not find the folder trusted in it either
  }
  let real = root;
  try {
    real = realpathSync(root);
  } catch {
    // the root is checked by the writable check
  }
  const git = gitRootOf(real);
  const entry = trustedEntry(state, [...new Set([root, real, ...(git === null ? [] : [git])])]);
  if (entry !== null)
    return {
      name: "trust",
      status: "ok",
      message: `Claude Code trusts ${entry === root ? root : `${root} (through ${entry})`} (${file})`,
      fix: null,
    };
  return {
    name: "trust",
    status: "fail",
    message: `Claude Code does not trust ${root} yet (no hasTrustDialogAccepted for it in ${file}): until it does, it ignores .claude/settings.json, so dotagent's hooks do not run and nothing is recorded`,
    fix: `run \`claude\` in ${root} and answer yes when it asks whether you trust the folder`,
  };
}
