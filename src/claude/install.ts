// `dotagent install`: puts the skills (with the helper script), the agents and the SessionStart
// hook into .claude/ (project) or ~/.claude/ (user). Promises:
// - running it twice changes nothing (files compared by bytes, the hook entry by content);
// - settings.json is merged, never replaced: other keys and hooks stay as they were; a
//   settings.json that does not parse is left alone and nothing is installed;
// - a file already there that dotagent did not install is never overwritten;
// - an upgrade (install by a newer CLI) replaces the files dotagent wrote that nobody changed
//   since (their sha256 in the manifest), keeps edited ones with a note, removes unchanged files
//   the new version no longer ships, and replaces an older hook line instead of adding a second;
// - the hooks (SPEC §11) go in whole: the briefing, the helper's own command lines allowed, agents'
//   starts and results recorded; the permission rule older versions added is taken out again;
// - `--uninstall` removes exactly what the manifest (.claude/.dotagent-install.json) says was
//   added, and gives settings.json back its original bytes only when it is exactly what install
//   made of them;
// - nothing outside the target is read, written or removed, whatever the manifest says: its
//   entries are parsed (install-manifest.ts) and placed (install-paths.ts) before use, and one
//   that leads out is reported (`skip`, with the reason) and left alone;
// - a project install merges the .gitignore lines for memory/'s machine-local files into the
//   project's .gitignore (gitignore.ts), and `--uninstall` takes out exactly those lines.
import { existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, rmdirSync, statSync, unlinkSync, chmodSync } from "node:fs";
import { globbySync } from "globby";
import { dirname, join, relative, sep } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import { writeFileDurable } from "../store/atomic-write.js";
import { isInside, readProjectText } from "../store/read-file.js";
import { GITIGNORE_LINES, mergeGitignore, unmergeGitignore } from "./gitignore.js";
import { emptyManifest, MANIFEST, readInstallManifest, sha256 as sha, type InstallManifest, type ManifestRead } from "./install-manifest.js";
import { lookAt, placeInTarget, showEntry, type Found } from "./install-paths.js";
import { allowList, HOOK_MATCHER, hookCommand, hookEntries, missingHooks, PERMISSION_RULE, readSettings, withHooks, withoutHooks, withoutRule, type Scope, type Settings } from "./settings.js";

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

/**
 * Refuses, before anything is read or written: a target that exists but is not a folder (`.claude`
 * a file); and in a project, a `.claude` or `.claude/settings.json` that is a link leading out of
 * the project. A repository can commit such a link: install would write, and `--uninstall`
 * remove, wherever it leads (another project, the user's own ~/.claude).
 */
function assertTarget(target: string, scope: Scope): void {
  try {
    if (!statSync(target).isDirectory()) throw new DotagentError("install_target_invalid", `${target} is a file, where Claude Code keeps a folder; move it out of the way and run \`dotagent install\` again`, EXIT.refused, { path: target });
  } catch (error) {
    if (error instanceof DotagentError) throw error;
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw new DotagentError("install_target_invalid", `${target} cannot be read (${(error as NodeJS.ErrnoException).code}); check its permissions`, EXIT.refused, { path: target });
  }
  if (scope !== "project") return;
  const root = dirname(target);
  const settingsFile = join(target, "settings.json");
  if (leadsOut(target, root)) throw new DotagentError("install_target_invalid", `${target} is a symbolic link that leads out of the project; dotagent installs only into the project's own .claude folder: replace the link with a folder`, EXIT.refused, { path: target });
  if (leadsOut(settingsFile, root)) throw new DotagentError("settings_invalid", `${settingsFile} is a symbolic link that leads out of the project; dotagent changes settings only inside the project: replace the link with the file (dotagent changed nothing)`, EXIT.refused, { file: settingsFile });
}

/** A link whose target exists outside `root` (a dangling one is left to the reader, which names it). */
function leadsOut(path: string, root: string): boolean {
  try {
    if (!lstatSync(path).isSymbolicLink()) return false;
    realpathSync(path);
  } catch {
    return false;
  }
  return !isInside(path, root);
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

/** The manifest entries left out (out of the folder, not dotagent's), as changes that say so. */
function ignoredChanges(read: ManifestRead | null): InstallPlanEntry[] {
  return (read?.ignored ?? []).map((entry) => ({ action: "skip", path: entry.path, reason: entry.reason }));
}

/** lookAt, with the reason completed for a change line. */
function look(target: string, rel: string): Found {
  const found = lookAt(target, rel);
  return found.kind === "refused" ? { kind: "refused", reason: `${found.reason}: left alone` } : found;
}

export function install(options: InstallOptions): InstallResult {
  const { target, scope, dryRun } = options;
  assertTarget(target, scope);
  const settingsFile = join(target, "settings.json");
  const settings = readSettings(settingsFile); // refuses before anything is written
  const read = readInstallManifest(target);
  const manifest = read?.manifest ?? emptyManifest();
  const owned = new Map(manifest.files.map((f) => [f.path, f.sha256]));
  const changes: InstallPlanEntry[] = ignoredChanges(read);
  const writes: Array<() => void> = [];
  const sources = collectSources(options.sourceRoot, options.helperScript);

  for (const file of sources) {
    const hash = sha(file.bytes);
    const found = look(target, file.dest);
    if (found.kind === "refused") {
      changes.push({ action: "skip", path: file.dest, reason: found.reason });
      continue;
    }
    const dest = join(target, file.dest);
    if (found.kind === "file") {
      const current = found.hash;
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
    const found = look(target, path);
    if (found.kind === "missing") {
      owned.delete(path);
    } else if (found.kind === "refused") {
      changes.push({ action: "skip", path: showEntry(path), reason: found.reason });
    } else if (found.hash === hash) {
      changes.push({ action: "remove", path, reason: "no longer part of dotagent" });
      owned.delete(path);
      const file = found.path;
      writes.push(() => unlinkSync(file));
    } else {
      changes.push({ action: "keep", path, reason: "no longer part of dotagent, but edited since it was installed: kept" });
    }
  }

  const entries = hookEntries(scope, target);
  const commands = [...new Set(entries.map((e) => e.command))];
  // An older version's hook lines (other commands) are replaced, not left beside the new ones.
  const installed = [...(manifest.hook_commands ?? []), ...(manifest.hook_command ? [manifest.hook_command] : [])];
  const old = [...new Set(installed)].filter((c) => !commands.includes(c));
  const stripped = old.length > 0 ? withoutHooks(settings.value, old) : settings.value;
  const oldGone = stripped !== settings.value && JSON.stringify(stripped) !== JSON.stringify(settings.value);
  const addHooks = missingHooks(stripped, entries).length > 0;
  // The rule an older install added (the hook allows the helper's lines now), where it still is.
  const dropRule = manifest.permission_rule != null && allowList(settings.value).includes(manifest.permission_rule);
  const settingsOutcome: InstallResult["settings"] = !addHooks && !oldGone ? "hook already there" : oldGone || installed.length > 0 ? "hook updated" : "hook added";
  const permissionOutcome: InstallResult["permission"] = dropRule ? "rule removed" : "untouched";
  if (addHooks || oldGone || dropRule) {
    changes.push({ action: settings.text === null ? "create" : "update", path: "settings.json" });
    writes.push(() => {
      if (settings.text === null) manifest.settings_created = true;
      else if (manifest.settings_original === null) manifest.settings_original = settings.text;
      // dotagent's own entries (this version's commands, the manifest says install put them
      // there) go before the table is added again: an entry whose matcher or `if` changed is
      // replaced, never left beside the new one.
      const ours = commands.filter((c) => installed.includes(c));
      let next = withHooks(addHooks && ours.length > 0 ? withoutHooks(stripped, ours) : stripped, entries);
      if (dropRule) next = withoutRule(next, manifest.permission_rule!);
      manifest.hook_command = hookCommand(scope, target);
      manifest.hook_commands = commands;
      delete manifest.permission_rule;
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

/**
 * The settings.json text install writes from `before` (its hook line and rule added): uninstall
 * gives the original back only when the file is still exactly this, so a manifest's
 * `settings_original` can never put other bytes in place of settings the person changed.
 */
function installedSettings(before: Settings, manifest: InstallManifest, scope: Scope, target: string): string {
  const entries = hookEntries(scope, target);
  const current = entries.map((e) => e.command);
  let next: Settings;
  if (manifest.hook_commands !== undefined && manifest.hook_commands.every((c) => current.includes(c))) {
    next = withHooks(before, entries);
  } else {
    // A manifest of an install before 0.2: one SessionStart hook and the permission rule.
    next = manifest.hook_command === null ? before : withHooks(before, [{ event: "SessionStart", matcher: HOOK_MATCHER, command: manifest.hook_command, timeout: 10 }]);
    const rule = manifest.permission_rule ?? null;
    if (rule !== null && !allowList(next).includes(rule)) {
      const permissions = (next.permissions && typeof next.permissions === "object" ? next.permissions : {}) as Record<string, unknown>;
      next = { ...next, permissions: { ...permissions, allow: [...allowList(next), rule] } };
    }
  }
  return `${JSON.stringify(next, null, 2)}\n`;
}

function parseObject(text: string): Settings | null {
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Settings) : null;
  } catch {
    return null;
  }
}

export function uninstall(options: { target: string; scope: Scope; dryRun: boolean }): InstallResult {
  const { target, scope, dryRun } = options;
  assertTarget(target, scope);
  const read = readInstallManifest(target);
  if (read === null) throw new DotagentError("not_installed", `dotagent is not installed in ${target} (no ${MANIFEST}); nothing to remove`, EXIT.refused);
  const { manifest } = read;
  const settingsFile = join(target, "settings.json");
  const settings = readSettings(settingsFile);
  const changes: InstallPlanEntry[] = ignoredChanges(read);
  const removals: Array<() => void> = [];
  for (const file of manifest.files) {
    const found = look(target, file.path);
    if (found.kind === "missing") continue;
    if (found.kind === "refused") {
      changes.push({ action: "skip", path: showEntry(file.path), reason: found.reason });
      continue;
    }
    if (found.hash !== file.sha256) {
      changes.push({ action: "keep", path: file.path, reason: "edited since dotagent installed it: left alone" });
      continue;
    }
    changes.push({ action: "remove", path: file.path });
    const path = found.path;
    removals.push(() => unlinkSync(path));
  }
  let settingsOutcome: InstallResult["settings"] = "untouched";
  const rule = manifest.permission_rule ?? null;
  const commands = [...new Set([...(manifest.hook_commands ?? []), ...(manifest.hook_command ? [manifest.hook_command] : [])])];
  const withoutOurs = withoutHooks(settings.value, commands);
  const hadHook = JSON.stringify(withoutOurs) !== JSON.stringify(settings.value);
  const hadRule = rule !== null && allowList(settings.value).includes(rule);
  const permissionOutcome: InstallResult["permission"] = hadRule ? "rule removed" : "untouched";
  if (settings.text !== null && (hadHook || hadRule)) {
    let stripped = withoutOurs;
    if (hadRule) stripped = withoutRule(stripped, rule);
    const hookOutcome = hadHook ? "hook removed" : "untouched";
    const original = manifest.settings_original;
    const before = manifest.settings_created ? {} : original === null ? null : parseObject(original);
    const untouchedSince = before !== null && settings.text === installedSettings(before, manifest, scope, target);
    if (untouchedSince && manifest.settings_created) {
      settingsOutcome = hookOutcome;
      changes.push({ action: "remove", path: "settings.json" });
      removals.push(() => unlinkSync(settingsFile));
    } else if (untouchedSince && original !== null) {
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
  // Folders dotagent created, deepest first, only when empty and inside the target.
  const depth = (d: string) => (d === "." ? 0 : d.split("/").length);
  const folders: string[] = [];
  for (const dir of [...manifest.dirs].sort((a, b) => depth(b) - depth(a))) {
    const placed = placeInTarget(target, dir);
    if (placed.ok) folders.push(placed.path);
    else changes.push({ action: "skip", path: showEntry(dir), reason: `${placed.reason}: left alone` });
  }
  if (!dryRun) {
    for (const removal of removals) removal();
    unlinkSync(join(target, MANIFEST));
    for (const folder of folders) {
      try {
        rmdirSync(folder);
      } catch {
        // not empty (something else lives there now), or not a folder
      }
    }
  }
  return { scope, target, dry_run: dryRun, changes, settings: settingsOutcome, permission: permissionOutcome, gitignore: gitignoreOutcome };
}
