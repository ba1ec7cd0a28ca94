// `dotagent install`: puts the skills (with the helper script), the agents and the SessionStart
// hook into .claude/ (project) or ~/.claude/ (user). Promises:
// - running it twice changes nothing (files compared by bytes, the hook entry by content);
// - settings.json is merged, never replaced: other keys and hooks stay as they were; a
//   settings.json that does not parse is left alone and nothing is installed;
// - a file already there that dotagent did not install is never overwritten;
// - an upgrade (install by a newer CLI) replaces the files dotagent wrote that nobody changed
//   since (their sha256 in the manifest), keeps edited ones with a note, removes unchanged files
//   the new version no longer ships, and replaces an older hook line instead of adding a second;
// - the helper's command line gets one permission rule (PERMISSION_RULE), so the person's answers
//   in later turns (and a resumed session) can run it without a prompt;
// - `--uninstall` removes exactly what the manifest (.claude/.dotagent-install.json) says was
//   added, and gives settings.json back its original bytes when nothing else changed in it;
// - a project install merges the .gitignore lines for memory/'s machine-local files into the
//   project's .gitignore (gitignore.ts), and `--uninstall` takes out exactly those lines.
import { existsSync, mkdirSync, readFileSync, rmdirSync, statSync, unlinkSync, chmodSync } from "node:fs";
import { globbySync } from "globby";
import { dirname, join, relative, sep } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import { writeFileDurable } from "../store/atomic-write.js";
import { emptyManifest, MANIFEST, readInstallManifest, sha256 as sha, type InstallManifest } from "./install-manifest.js";
import { GITIGNORE_LINES, mergeGitignore, unmergeGitignore } from "./gitignore.js";
import { readProjectText } from "../store/read-file.js";
import { allowList, hasHook, hookCommand, PERMISSION_RULE, readSettings, withHook, withoutHook, withoutRule, withRule, type Scope } from "./settings.js";

export { HOOK_MATCHER, hookCommand, PERMISSION_RULE, type Scope } from "./settings.js";

export interface InstallPlanEntry {
  action: "create" | "update" | "unchanged" | "skip" | "remove" | "keep";
  path: string;
  reason?: string;
}

export interface InstallResult {
  scope: Scope;
  target: string;
  dry_run: boolean;
  changes: InstallPlanEntry[];
  settings: "hook added" | "hook updated" | "hook already there" | "hook removed" | "restored" | "untouched";
  permission: "rule added" | "rule already there" | "rule removed" | "untouched";
  /** The project's .gitignore (project scope): dotagent's lines for memory/'s machine-local files. */
  gitignore: "lines added" | "lines updated" | "lines already there" | "lines removed" | "untouched";
}

interface SourceFile {
  /** Path under the .claude folder, like skills/checkpoint/SKILL.md. */
  readonly dest: string;
  readonly bytes: Buffer;
  readonly mode?: number;
}

/** The folder holding skills/ and agents/: the package, or an installed .claude/ copy. */
export function findSourceRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (existsSync(join(dir, "skills", "checkpoint", "SKILL.md")) && existsSync(join(dir, "agents"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new DotagentError("install_source_missing", `cannot find dotagent's skills/ and agents/ above ${start}; reinstall the dotagent package`, EXIT.refused);
    dir = parent;
  }
}

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  // Hidden files and editor leftovers are not part of a skill.
  return globbySync("**/*", { cwd: dir, onlyFiles: true, dot: false, ignore: ["**/*~", "**/*.swp"] })
    .sort()
    .map((rel) => join(dir, rel));
}

function collectSources(sourceRoot: string, helperScript: Buffer): SourceFile[] {
  const files: SourceFile[] = [];
  for (const path of listFiles(join(sourceRoot, "skills"))) {
    const dest = relative(sourceRoot, path).split(sep).join("/");
    if (dest === "skills/checkpoint/scripts/dotagent.mjs") continue; // added below from the running CLI
    files.push({ dest, bytes: readFileSync(path) });
  }
  files.push({ dest: "skills/checkpoint/scripts/dotagent.mjs", bytes: helperScript, mode: 0o755 });
  for (const path of listFiles(join(sourceRoot, "agents"))) {
    if (path.endsWith(".md")) files.push({ dest: `agents/${relative(join(sourceRoot, "agents"), path).split(sep).join("/")}`, bytes: readFileSync(path) });
  }
  return files;
}

/** Refuses a target that exists but is not a folder (`.claude` a file), before anything is written. */
function assertTargetFolder(target: string): void {
  try {
    if (statSync(target).isDirectory()) return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw new DotagentError("install_target_invalid", `${target} cannot be read (${(error as NodeJS.ErrnoException).code}); check its permissions`, EXIT.refused, { path: target });
  }
  throw new DotagentError("install_target_invalid", `${target} is a file, where Claude Code keeps a folder; move it out of the way and run \`dotagent install\` again`, EXIT.refused, { path: target });
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export interface InstallOptions {
  target: string;
  scope: Scope;
  sourceRoot: string;
  helperScript: Buffer;
  dryRun: boolean;
  /** The running CLI's version, recorded in the manifest. */
  version: string;
  /** The project's .gitignore (absolute), to merge dotagent's lines into; absent: leave it alone. */
  gitignore?: string;
}

/** A .gitignore's text (null: none), or a one-line refusal naming it. */
function readGitignore(file: string): string | null {
  const read = readProjectText(file, { maxBytes: 16 * 1024 * 1024, links: "follow" });
  if (read.kind === "missing") return null;
  if (read.kind === "refused") throw new DotagentError("gitignore_invalid", `${file} ${read.reason}; fix it (dotagent changed nothing) and run \`dotagent install\` again`, EXIT.refused, { file });
  return read.text;
}

/** Plans the .gitignore merge: the outcome, and the write (recording the owned lines in the manifest). */
function planGitignore(target: string, file: string, manifest: InstallManifest): { outcome: InstallResult["gitignore"]; entry: InstallPlanEntry; write: (() => void) | null } {
  const text = readGitignore(file);
  const path = relative(target, file).split(sep).join("/");
  const before = manifest.gitignore ?? null;
  const merge = mergeGitignore(text, GITIGNORE_LINES, before?.lines ?? []);
  const record = () => {
    manifest.gitignore = merge.owned.length === 0 ? null : { path, lines: merge.owned, created: before?.created ?? text === null };
  };
  if (!merge.changed) return { outcome: "lines already there", entry: { action: "unchanged", path }, write: before !== null && merge.owned.length !== before.lines.length ? record : null };
  return {
    outcome: (before?.lines.length ?? 0) > 0 ? "lines updated" : "lines added",
    entry: { action: text === null ? "create" : "update", path },
    write: () => {
      record();
      writeFileDurable(file, merge.text);
    },
  };
}

const EDITED = "edited since dotagent installed it: kept; to take this version's copy, move yours away and run `dotagent install` again";

export function install(options: InstallOptions): InstallResult {
  const { target, scope, dryRun } = options;
  assertTargetFolder(target);
  const settingsFile = join(target, "settings.json");
  const settings = readSettings(settingsFile); // refuses before anything is written
  const manifest = readInstallManifest(target) ?? emptyManifest();
  const owned = new Map(manifest.files.map((f) => [f.path, f.sha256]));
  const changes: InstallPlanEntry[] = [];
  const writes: Array<() => void> = [];
  const sources = collectSources(options.sourceRoot, options.helperScript);

  for (const file of sources) {
    const dest = join(target, file.dest);
    const hash = sha(file.bytes);
    if (existsSync(dest)) {
      const current = sha(readFileSync(dest));
      if (current === hash) {
        changes.push({ action: "unchanged", path: file.dest });
        if (!owned.has(file.dest)) owned.set(file.dest, hash);
        continue;
      }
      // An upgrade replaces only what dotagent wrote and nobody changed since (the manifest's hash).
      if (!owned.has(file.dest)) {
        changes.push({ action: "skip", path: file.dest, reason: "exists and was not installed by dotagent: left alone" });
        continue;
      }
      if (owned.get(file.dest) !== current) {
        changes.push({ action: "keep", path: file.dest, reason: EDITED });
        continue;
      }
      changes.push({ action: "update", path: file.dest });
    } else {
      changes.push({ action: "create", path: file.dest });
    }
    owned.set(file.dest, hash);
    writes.push(() => {
      for (let dir = dirname(dest); dir.startsWith(target) && !existsSync(dir); dir = dirname(dir)) {
        const rel = relative(target, dir).split(sep).join("/");
        if (rel && !manifest.dirs.includes(rel)) manifest.dirs.push(rel);
      }
      mkdirSync(dirname(dest), { recursive: true });
      writeFileDurable(dest, file.bytes);
      if (file.mode !== undefined) chmodSync(dest, file.mode);
    });
  }

  // Files an older version installed that this one no longer ships.
  const shipped = new Set(sources.map((f) => f.dest));
  for (const [path, hash] of [...owned]) {
    if (shipped.has(path)) continue;
    const file = join(target, path);
    if (!existsSync(file)) {
      owned.delete(path);
    } else if (sha(readFileSync(file)) === hash) {
      changes.push({ action: "remove", path, reason: "no longer part of dotagent" });
      owned.delete(path);
      writes.push(() => unlinkSync(file));
    } else {
      changes.push({ action: "keep", path, reason: "no longer part of dotagent, but edited since it was installed: kept" });
    }
  }

  const command = hookCommand(scope, target);
  // An older version's hook line (another command) is replaced, not left beside the new one.
  const old = manifest.hook_command !== null && manifest.hook_command !== command && hasHook(settings.value, manifest.hook_command) ? manifest.hook_command : null;
  const addHook = !hasHook(settings.value, command) || old !== null;
  const addRule = !allowList(settings.value).includes(PERMISSION_RULE);
  const settingsOutcome: InstallResult["settings"] = !addHook ? "hook already there" : old === null ? "hook added" : "hook updated";
  const permissionOutcome: InstallResult["permission"] = addRule ? "rule added" : "rule already there";
  if (addHook || addRule) {
    changes.push({ action: settings.text === null ? "create" : "update", path: "settings.json" });
    writes.push(() => {
      if (settings.text === null) manifest.settings_created = true;
      else if (manifest.settings_original === null) manifest.settings_original = settings.text;
      let next = settings.value;
      if (addHook) {
        manifest.hook_command = command;
        const base = old === null ? next : withoutHook(next, old);
        next = hasHook(base, command) ? base : withHook(base, command);
      }
      if (addRule) {
        manifest.permission_rule = PERMISSION_RULE;
        next = withRule(next, PERMISSION_RULE);
      }
      writeFileDurable(settingsFile, `${JSON.stringify(next, null, 2)}\n`);
    });
  } else {
    changes.push({ action: "unchanged", path: "settings.json" });
  }

  let gitignoreOutcome: InstallResult["gitignore"] = "untouched";
  if (options.gitignore !== undefined) {
    const plan = planGitignore(target, options.gitignore, manifest);
    gitignoreOutcome = plan.outcome;
    changes.push(plan.entry);
    if (plan.write) writes.push(plan.write);
  }

  const changed = changes.some((c) => c.action === "create" || c.action === "update" || c.action === "remove");
  const versionMoved = manifest.files.length > 0 && manifest.dotagent_version !== options.version;
  if (!dryRun && (changed || versionMoved)) {
    if (!existsSync(target) && !manifest.dirs.includes(".")) manifest.dirs.push(".");
    mkdirSync(target, { recursive: true });
    for (const write of writes) write();
    manifest.dotagent_version = options.version;
    manifest.files = [...owned].map(([path, sha256]) => ({ path, sha256 })).sort((a, b) => a.path.localeCompare(b.path));
    writeFileDurable(join(target, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  }
  return { scope, target, dry_run: dryRun, changes, settings: settingsOutcome, permission: permissionOutcome, gitignore: gitignoreOutcome };
}

export function uninstall(options: { target: string; scope: Scope; dryRun: boolean }): InstallResult {
  const { target, scope, dryRun } = options;
  const manifest = readInstallManifest(target);
  if (manifest === null) throw new DotagentError("not_installed", `dotagent is not installed in ${target} (no ${MANIFEST}); nothing to remove`, EXIT.refused);
  assertTargetFolder(target);
  const settingsFile = join(target, "settings.json");
  const settings = readSettings(settingsFile);
  const changes: InstallPlanEntry[] = [];
  const removals: Array<() => void> = [];
  for (const file of manifest.files) {
    const path = join(target, file.path);
    if (!existsSync(path)) continue;
    if (sha(readFileSync(path)) !== file.sha256) {
      changes.push({ action: "keep", path: file.path, reason: "edited since dotagent installed it: left alone" });
      continue;
    }
    changes.push({ action: "remove", path: file.path });
    removals.push(() => unlinkSync(path));
  }
  let settingsOutcome: InstallResult["settings"] = "untouched";
  const rule = manifest.permission_rule ?? null;
  const hadHook = manifest.hook_command !== null && hasHook(settings.value, manifest.hook_command);
  const hadRule = rule !== null && allowList(settings.value).includes(rule);
  const permissionOutcome: InstallResult["permission"] = hadRule ? "rule removed" : "untouched";
  if (settings.text !== null && (hadHook || hadRule)) {
    let stripped = hadHook ? withoutHook(settings.value, manifest.hook_command!) : settings.value;
    if (hadRule) stripped = withoutRule(stripped, rule);
    const hookOutcome = hadHook ? "hook removed" : "untouched";
    const original = manifest.settings_original;
    if (manifest.settings_created && Object.keys(stripped).length === 0) {
      settingsOutcome = hookOutcome;
      changes.push({ action: "remove", path: "settings.json" });
      removals.push(() => unlinkSync(settingsFile));
    } else if (original !== null && sameJson(JSON.parse(original), stripped)) {
      settingsOutcome = "restored";
      changes.push({ action: "update", path: "settings.json", reason: "original bytes restored" });
      removals.push(() => writeFileDurable(settingsFile, original));
    } else {
      settingsOutcome = hookOutcome;
      changes.push({ action: "update", path: "settings.json" });
      removals.push(() => writeFileDurable(settingsFile, `${JSON.stringify(stripped, null, 2)}\n`));
    }
  }
  let gitignoreOutcome: InstallResult["gitignore"] = "untouched";
  const ignored = manifest.gitignore ?? null;
  if (ignored !== null && ignored.lines.length > 0) {
    const file = join(target, ignored.path);
    const text = readGitignore(file);
    if (text !== null) {
      const next = unmergeGitignore(text, ignored.lines, ignored.created);
      if (next !== text) {
        gitignoreOutcome = "lines removed";
        changes.push({ action: next === null ? "remove" : "update", path: ignored.path });
        removals.push(() => (next === null ? unlinkSync(file) : writeFileDurable(file, next)));
      }
    }
  }
  changes.push({ action: "remove", path: MANIFEST });
  if (!dryRun) {
    for (const removal of removals) removal();
    unlinkSync(join(target, MANIFEST));
    // Folders dotagent created, deepest first, only when empty.
    const depth = (d: string) => (d === "." ? 0 : d.split("/").length);
    for (const dir of [...manifest.dirs].sort((a, b) => depth(b) - depth(a))) {
      try {
        rmdirSync(join(target, dir));
      } catch {
        // not empty: something else lives there now
      }
    }
  }
  return { scope, target, dry_run: dryRun, changes, settings: settingsOutcome, permission: permissionOutcome, gitignore: gitignoreOutcome };
}
