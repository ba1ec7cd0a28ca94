// .claude/.dotagent-install.json: what `dotagent install` wrote (each file's sha256), so a later
// install updates only files nobody changed, and `--uninstall` removes exactly what was added.
// The manifest comes from disk and may come from a repository, so it is parsed, never trusted:
// an entry install could not have written (a path out of the install folder, a hook command
// that is not dotagent's, a permission rule dotagent never adds) is dropped with a reason the
// command reports, and nothing is done to what it names.
import { readProjectText } from "../store/read-file.js";
import { join } from "node:path";
import { GITIGNORE_LINES } from "./gitignore.js";
import { entryPathProblem, showEntry } from "./install-paths.js";
import { COPILOT_GUARD, PERMISSION_RULE } from "./settings.js";

export { sha256 } from "./install-paths.js";

export const MANIFEST = ".dotagent-install.json";

export interface InstallManifest {
  version: 1;
  /** The dotagent version that last wrote the files (absent in manifests of builds before 0.1.0). */
  dotagent_version?: string;
  files: Array<{ path: string; sha256: string }>;
  dirs: string[];
  /** The SessionStart hook's command (manifests before 0.2 name only this one). */
  hook_command: string | null;
  /** Every hook command install put into settings.json (SPEC §11). */
  hook_commands?: string[];
  /** The permission rule install added to settings.json (absent: none added). */
  permission_rule?: string | null;
  settings_created: boolean;
  settings_original: string | null;
  /** Install set `bashEditDiffEnabled: false` in settings.json (settings.ts BASH_DIFF_SETTING); absent: it did not. Never set again once the person took it out. */
  bash_diffs_off?: boolean;
  /** The project's .gitignore lines install added (path relative to the .claude folder); absent: none. */
  gitignore?: { path: string; lines: string[]; created: boolean } | null;
}

/** A manifest entry left out: what it named (one line, bounded) and why. */
export interface IgnoredEntry {
  readonly path: string;
  readonly reason: string;
}

export interface ManifestRead {
  readonly manifest: InstallManifest;
  readonly ignored: readonly IgnoredEntry[];
}

/**
 * Every hook line dotagent has installed: node running a helper (dotagent.cjs, before it
 * dotagent.mjs) with `hook <event>`, after the Copilot guard (settings.ts COPILOT_GUARD; lines
 * before it have none).
 */
const HOOK_SHAPE = /^node "[^\n]*\/dotagent\.[cm]js" hook session-start$/;
const ANY_HOOK_SHAPE = new RegExp(
  `^(?:${COPILOT_GUARD.replace(/[$()*+.?[\\\]^{|}]/g, "\\$&")})?node "[^\\n]*/dotagent\\.[cm]js" hook (?:session-start|pre-tool-use|post-tool-use|subagent-start|subagent-stop|user-prompt-submit)$`,
);
/** Every permission rule dotagent has added (the first, tighter one was replaced before 0.1.0). */
const KNOWN_RULES: readonly string[] = [PERMISSION_RULE, 'Bash(node "*/checkpoint/scripts/dotagent.mjs" *)'];

/** A manifest file's JSON object, or null when there is none (or it does not parse as one); a link is never followed. */
export function readManifestJson(file: string): Record<string, unknown> | null {
  const read = readProjectText(file, { maxBytes: 16 * 1024 * 1024, links: "refuse" });
  if (read.kind !== "ok") return null;
  try {
    const value = JSON.parse(read.text) as unknown;
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

/** The manifest in a .claude folder, or null when there is none (or it does not parse as one). */
export function readInstallManifest(target: string): ManifestRead | null {
  const value = readManifestJson(join(target, MANIFEST));
  return value === null ? null : parseInstallManifest(value);
}

/**
 * Pure: the `files` and `dirs` entries of any client's manifest that install could have written
 * (plain paths inside the target; `allowed`, when given, narrows them further and says why not),
 * and the others as entries ignored, with the reason.
 */
export function parseOwnedEntries(
  value: Record<string, unknown>,
  allowed?: (path: string) => string | null,
): { files: InstallManifest["files"]; dirs: string[]; ignored: IgnoredEntry[] } {
  const ignored: IgnoredEntry[] = [];
  const ignore = (path: string, reason: string) =>
    ignored.push({ path, reason: `manifest entry ${reason}: ignored, nothing done to it` });
  const files: InstallManifest["files"] = [];
  (Array.isArray(value.files) ? value.files : []).forEach((entry: unknown, i: number) => {
    if (!isObject(entry) || typeof entry.path !== "string") return ignore(`files[${i}]`, "has no path");
    const problem = entryPathProblem(entry.path, "file") ?? allowed?.(entry.path) ?? null;
    if (problem !== null) return ignore(showEntry(entry.path), problem);
    if (typeof entry.sha256 !== "string" || !/^[0-9a-f]{64}$/.test(entry.sha256))
      return ignore(showEntry(entry.path), "has no sha256");
    files.push({ path: entry.path, sha256: entry.sha256 });
  });
  const dirs: string[] = [];
  if (Array.isArray(value.dirs)) {
    value.dirs.forEach((dir: unknown, i: number) => {
      if (typeof dir !== "string") return ignore(`dirs[${i}]`, "is not a path");
      const problem = entryPathProblem(dir, "dir");
      if (problem !== null) return ignore(showEntry(dir), problem);
      if (!dirs.includes(dir)) dirs.push(dir);
    });
  } else if (value.dirs !== undefined) ignored.push({ path: "dirs", reason: "manifest dirs is not a list: ignored" });
  return { files, dirs, ignored };
}

/** Pure: a Copilot or Codex manifest's `gitignore` ({lines, created}), only the lines install could have added. */
export function parseGitignoreOwned(value: unknown): { lines: string[]; created: boolean } | null {
  if (!isObject(value) || !Array.isArray(value.lines)) return null;
  return {
    lines: value.lines.filter((l): l is string => typeof l === "string" && GITIGNORE_LINES.includes(l)),
    created: value.created === true,
  };
}

/** Pure: the entries install could have written, and the others with the reason they are ignored. */
export function parseInstallManifest(value: unknown): ManifestRead | null {
  if (!isObject(value) || !Array.isArray(value.files)) return null;
  const { files, dirs, ignored } = parseOwnedEntries(value);
  const ignoreField = (field: string, reason: string) =>
    ignored.push({ path: field, reason: `manifest ${field} ${reason}: ignored` });
  let hook: string | null = null;
  if (typeof value.hook_command === "string" && HOOK_SHAPE.test(value.hook_command)) hook = value.hook_command;
  else if (value.hook_command != null)
    ignoreField("hook_command", "is not a dotagent hook command, so that hook is left alone");
  const commands: string[] = [];
  if (Array.isArray(value.hook_commands)) {
    value.hook_commands.forEach((c: unknown, i: number) => {
      if (typeof c === "string" && ANY_HOOK_SHAPE.test(c)) commands.push(c);
      else ignoreField(`hook_commands[${i}]`, "is not a dotagent hook command, so that hook is left alone");
    });
  } else if (value.hook_commands !== undefined) ignoreField("hook_commands", "is not a list");
  let rule: string | null = null;
  if (typeof value.permission_rule === "string" && KNOWN_RULES.includes(value.permission_rule))
    rule = value.permission_rule;
  else if (value.permission_rule != null)
    ignoreField("permission_rule", "is not a rule dotagent adds, so that rule is left alone");
  let gitignore: InstallManifest["gitignore"] = null;
  const g = value.gitignore;
  if (
    isObject(g) &&
    typeof g.path === "string" &&
    /^(?:\.\.\/)?\.gitignore$/.test(g.path) &&
    Array.isArray(g.lines) &&
    g.lines.every((l) => typeof l === "string" && !l.includes("\n")) &&
    typeof g.created === "boolean"
  ) {
    gitignore = { path: g.path, lines: g.lines as string[], created: g.created };
  } else if (g != null) ignoreField("gitignore", "is not the project .gitignore's lines, so .gitignore is left alone");
  let original: string | null = null;
  if (typeof value.settings_original === "string") original = value.settings_original;
  else if (value.settings_original != null)
    ignoreField("settings_original", "is not text, so settings.json is never replaced by it");
  const manifest: InstallManifest = {
    version: 1,
    ...(typeof value.dotagent_version === "string" ? { dotagent_version: value.dotagent_version } : {}),
    files,
    dirs,
    hook_command: hook,
    ...(Array.isArray(value.hook_commands) ? { hook_commands: commands } : {}),
    ...(rule === null ? {} : { permission_rule: rule }),
    settings_created: value.settings_created === true,
    settings_original: original,
    ...(gitignore === null ? {} : { gitignore }),
    ...(value.bash_diffs_off === true ? { bash_diffs_off: true } : {}),
  };
  return { manifest, ignored };
}

export function emptyManifest(): InstallManifest {
  return { version: 1, files: [], dirs: [], hook_command: null, settings_created: false, settings_original: null };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * The version written into the first lines of the bundled CLI by the build (`// dotagent X.Y.Z`),
 * read without running it; null for a helper built before the marker existed.
 */
export function helperVersion(head: string): string | null {
  return /^\/\/ dotagent (\S+)$/m.exec(head.slice(0, 512))?.[1] ?? null;
}
