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
//   project's .gitignore (gitignore.ts), and `--uninstall` takes out exactly those lines;
// - every write goes through write-file.ts, inside the project (for the user: their home folder,
//   or the Claude Code folder when it lies elsewhere), never through a link that leads out.
import { existsSync, lstatSync, readFileSync, realpathSync, statSync, unlinkSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, relative, sep } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import { mkdirInside, writeFileInside, type InsideOptions } from "../store/write-file.js";
import { isInside } from "../store/read-file.js";
import { emptyManifest, MANIFEST, readInstallManifest, type InstallManifest } from "./install-manifest.js";
import {
  applyFilePlan,
  applyGitignore,
  ignoredChanges,
  listFiles,
  planFolderRemoval,
  planGitignoreMerge,
  planGitignoreUnmerge,
  planInstallFiles,
  planUninstallFiles,
  removeEmptyFolders,
  type GitignorePlan,
  type InstallPlanEntry,
  type SourceFile,
} from "../install/plan-files.js";
import {
  allowList,
  BASH_DIFF_SETTING,
  hasBashDiffSetting,
  HOOK_MATCHER,
  hookCommand,
  hookEntries,
  EARLIER_FORMS,
  olderHookLines,
  HOOK_ENTRY,
  entriesToWrite,
  PERMISSION_RULE,
  readSettings,
  withBashDiffsOff,
  withHooks,
  withoutBashDiffsOff,
  withoutHooks,
  withoutRule,
  type Scope,
  type Settings,
} from "./settings.js";

export { HOOK_MATCHER, hookCommand, PERMISSION_RULE, type Scope } from "./settings.js";

export type { InstallPlanEntry } from "../install/plan-files.js";

export interface InstallResult {
  scope: Scope;
  target: string;
  dry_run: boolean;
  changes: InstallPlanEntry[];
  settings: "hook added" | "hook updated" | "hook already there" | "hook removed" | "restored" | "untouched";
  permission: "rule added" | "rule already there" | "rule removed" | "untouched";
  /** Claude Code's diff view under Bash commands (settings.ts BASH_DIFF_SETTING): `turned off` by this install, `off` (install's false is there), `removed` (uninstall took its false out), `untouched`. */
  bash_diffs: "turned off" | "off" | "removed" | "untouched";
  /** The project's .gitignore (project scope): dotagent's lines for memory/'s machine-local files. */
  gitignore: GitignorePlan["outcome"];
}

/** The folder holding skills/ and agents/: the package, or an installed .claude/ copy. */
export function findSourceRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (existsSync(join(dir, "skills", "checkpoint", "SKILL.md")) && existsSync(join(dir, "agents"))) return dir;
    const parent = dirname(dir);
    if (parent === dir)
      throw new DotagentError(
        "install_source_missing",
        `cannot find dotagent's skills/ and agents/ above ${start}; reinstall the dotagent package`,
        EXIT.refused,
      );
    dir = parent;
  }
}

function collectSources(sourceRoot: string, helperScript: Buffer, entryScript: Buffer): SourceFile[] {
  const files: SourceFile[] = [];
  for (const rel of listFiles(join(sourceRoot, "skills"))) {
    // added below from the running CLI
    if (rel === "checkpoint/scripts/dotagent.mjs" || rel === `checkpoint/scripts/${HOOK_ENTRY}`) continue;
    files.push({ dest: `skills/${rel}`, bytes: readFileSync(join(sourceRoot, "skills", rel)) });
  }
  files.push({ dest: "skills/checkpoint/scripts/dotagent.mjs", bytes: helperScript, mode: 0o755 });
  files.push({ dest: `skills/checkpoint/scripts/${HOOK_ENTRY}`, bytes: entryScript, mode: 0o755 });
  for (const rel of listFiles(join(sourceRoot, "agents"))) {
    if (rel.endsWith(".md"))
      files.push({ dest: `agents/${rel}`, bytes: readFileSync(join(sourceRoot, "agents", rel)) });
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
    if (!statSync(target).isDirectory())
      throw new DotagentError(
        "install_target_invalid",
        `${target} is a file, where Claude Code keeps a folder; move it out of the way and run \`dotagent install\` again`,
        EXIT.refused,
        { path: target },
      );
  } catch (error) {
    if (error instanceof DotagentError) throw error;
    if ((error as NodeJS.ErrnoException).code !== "ENOENT")
      throw new DotagentError(
        "install_target_invalid",
        `${target} cannot be read (${(error as NodeJS.ErrnoException).code}); check its permissions`,
        EXIT.refused,
        { path: target },
      );
  }
  if (scope !== "project") return;
  const root = dirname(target);
  const settingsFile = join(target, "settings.json");
  if (leadsOut(target, root))
    throw new DotagentError(
      "install_target_invalid",
      `${target} is a symbolic link that leads out of the project; dotagent installs only into the project's own .claude folder: replace the link with a folder`,
      EXIT.refused,
      { path: target },
    );
  if (leadsOut(settingsFile, root))
    throw new DotagentError(
      "settings_invalid",
      `${settingsFile} is a symbolic link that leads out of the project; dotagent changes settings only inside the project: replace the link with the file (dotagent changed nothing)`,
      EXIT.refused,
      { file: settingsFile },
    );
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

/**
 * The folder install's writes stay inside (write-file.ts): the project; for the user, their home
 * folder (a settings.json may be a link to a dotfiles copy there), or the Claude Code folder itself
 * when it lies elsewhere (CLAUDE_CONFIG_DIR, or ~/.claude a link out of the home folder).
 */
function writeRoot(target: string, scope: Scope): [string, InsideOptions] {
  if (scope === "project") return [dirname(target), { within: "the project" }];
  const home = process.env.HOME || homedir();
  return isInside(target, home)
    ? [home, { within: "your home folder" }]
    : [target, { within: "the Claude Code folder" }];
}

export interface InstallOptions {
  target: string;
  scope: Scope;
  sourceRoot: string;
  helperScript: Buffer;
  /** dotagent.cjs, which the hook lines run (settings.ts HOOK_ENTRY), beside the helper. */
  entryScript: Buffer;
  dryRun: boolean;
  /** The running CLI's version, recorded in the manifest. */
  version: string;
  /** The project's .gitignore (absolute), to merge dotagent's lines into; absent: leave it alone. */
  gitignore?: string;
}

export function install(options: InstallOptions): InstallResult {
  const { target, scope, dryRun } = options;
  assertTarget(target, scope);
  const [root, inside] = writeRoot(target, scope);
  const settingsFile = join(target, "settings.json");
  const settings = readSettings(settingsFile); // refuses before anything is written
  const read = readInstallManifest(target);
  const manifest = read?.manifest ?? emptyManifest();
  const files = planInstallFiles(
    target,
    collectSources(options.sourceRoot, options.helperScript, options.entryScript),
    manifest.files,
    "dotagent install",
  );
  const changes: InstallPlanEntry[] = [...ignoredChanges(read?.ignored), ...files.changes];
  const writes: Array<() => void> = [
    () => {
      for (const dir of applyFilePlan(target, files)) if (!manifest.dirs.includes(dir)) manifest.dirs.push(dir);
    },
  ];

  const entries = hookEntries(scope, target);
  const commands = [...new Set(entries.map((e) => e.command))];
  // An older version's hook lines (other commands) are replaced, not left beside the new ones.
  const installed = [...(manifest.hook_commands ?? []), ...(manifest.hook_command ? [manifest.hook_command] : [])];
  const old = [...new Set(installed)].filter((c) => !commands.includes(c));
  const stripped = old.length > 0 ? withoutHooks(settings.value, old) : settings.value;
  const oldGone = stripped !== settings.value && JSON.stringify(stripped) !== JSON.stringify(settings.value);
  // An entry an earlier install wrote in another form (its `if`) is written again as this version's.
  const addHooks = entriesToWrite(stripped, entries).length > 0;
  // The rule an older install added (the hook allows the helper's lines now), where it still is.
  const dropRule = manifest.permission_rule != null && allowList(settings.value).includes(manifest.permission_rule);
  const settingsOutcome: InstallResult["settings"] =
    !addHooks && !oldGone ? "hook already there" : oldGone || installed.length > 0 ? "hook updated" : "hook added";
  const permissionOutcome: InstallResult["permission"] = dropRule ? "rule removed" : "untouched";
  // A project's Bash diff view off, once (a person who takes the false out again keeps the view).
  const quietDiffs = scope === "project" && manifest.bash_diffs_off !== true && !hasBashDiffSetting(settings.value);
  const diffsOutcome: InstallResult["bash_diffs"] = quietDiffs
    ? "turned off"
    : manifest.bash_diffs_off === true && settings.value[BASH_DIFF_SETTING] === false
      ? "off"
      : "untouched";
  if (addHooks || oldGone || dropRule || quietDiffs) {
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
      if (quietDiffs) {
        next = withBashDiffsOff(next);
        manifest.bash_diffs_off = true;
      }
      manifest.hook_command = hookCommand(scope, target);
      manifest.hook_commands = commands;
      delete manifest.permission_rule;
      writeFileInside(root, settingsFile, `${JSON.stringify(inKeyOrder(settings.value, next), null, 2)}\n`, {
        ...inside,
        link: "inside",
      });
    });
  } else {
    changes.push({ action: "unchanged", path: "settings.json" });
  }

  let gitignoreOutcome: InstallResult["gitignore"] = "untouched";
  if (options.gitignore !== undefined) {
    const file = options.gitignore;
    const before = manifest.gitignore ?? null;
    const plan = planGitignoreMerge(target, file, before, "dotagent install");
    gitignoreOutcome = plan.outcome;
    if (plan.change) changes.push(plan.change);
    if (plan.owned !== null || before !== null) {
      writes.push(() => {
        manifest.gitignore = plan.owned && { path: relative(target, file).split(sep).join("/"), ...plan.owned };
        applyGitignore(file, plan);
      });
    }
  }

  const changed = changes.some((c) => c.action === "create" || c.action === "update" || c.action === "remove");
  const versionMoved = manifest.files.length > 0 && manifest.dotagent_version !== options.version;
  if (!dryRun && (changed || versionMoved)) {
    if (!existsSync(target) && !manifest.dirs.includes(".")) manifest.dirs.push(".");
    mkdirInside(root, target, inside);
    for (const write of writes) write();
    manifest.dotagent_version = options.version;
    manifest.files = files.owned;
    writeFileInside(root, join(target, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, inside);
  }
  return {
    scope,
    target,
    dry_run: dryRun,
    changes,
    settings: settingsOutcome,
    permission: permissionOutcome,
    bash_diffs: diffsOutcome,
    gitignore: gitignoreOutcome,
  };
}

/**
 * `next` with its keys in `before`'s order, new ones last: an update that takes every hook of an
 * earlier install out and puts this version's in leaves `hooks` where it was, so the text stays
 * what installedSettings rebuilds (uninstall gives the original back only then).
 */
function inKeyOrder(before: Settings, next: Settings): Settings {
  const keys = [...Object.keys(before).filter((k) => k in next), ...Object.keys(next).filter((k) => !(k in before))];
  return Object.fromEntries(keys.map((k) => [k, next[k]])) as Settings;
}

/**
 * The settings.json texts install can have written from `before` (its hook lines and rule added):
 * uninstall gives the original back only when the file is still exactly one of these, so a
 * manifest's `settings_original` can never put other bytes in place of settings the person changed.
 */
function installedSettings(before: Settings, manifest: InstallManifest, scope: Scope, target: string): string[] {
  const text = (next: Settings) => {
    const kept = manifest.bash_diffs_off === true && scope === "project" ? withBashDiffsOff(next) : next;
    return `${JSON.stringify(kept, null, 2)}\n`;
  };
  // This version's entries, or an earlier install's forms of them (EARLIER_FORMS, newest first):
  // every form whose lines are the manifest's, since two forms can differ only in an entry's `if`.
  const entries = hookEntries(scope, target);
  const eras = [entries, ...EARLIER_FORMS.map((earlier) => entries.map(earlier))];
  const written = eras.filter((forms) => manifest.hook_commands?.every((c) => forms.some((e) => e.command === c)));
  if (manifest.hook_commands !== undefined && written.length > 0)
    return [...new Set(written.map((forms) => text(withHooks(before, forms))))];
  // A manifest of an install before 0.2: one SessionStart hook and the permission rule.
  let next =
    manifest.hook_command === null
      ? before
      : withHooks(before, [
          { event: "SessionStart", matcher: HOOK_MATCHER, command: manifest.hook_command, timeout: 10 },
        ]);
  const rule = manifest.permission_rule ?? null;
  if (rule !== null && !allowList(next).includes(rule)) {
    const permissions = (next.permissions && typeof next.permissions === "object" ? next.permissions : {}) as Record<
      string,
      unknown
    >;
    next = { ...next, permissions: { ...permissions, allow: [...allowList(next), rule] } };
  }
  return [text(next)];
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
  const [root, inside] = writeRoot(target, scope);
  const read = readInstallManifest(target);
  if (read === null)
    throw new DotagentError(
      "not_installed",
      `dotagent is not installed in ${target} (no ${MANIFEST}); nothing to remove`,
      EXIT.refused,
    );
  const { manifest } = read;
  const settingsFile = join(target, "settings.json");
  const settings = readSettings(settingsFile);
  const files = planUninstallFiles(target, manifest.files);
  const changes: InstallPlanEntry[] = [...ignoredChanges(read.ignored), ...files.changes];
  const removals: Array<() => void> = [() => applyFilePlan(target, files)];
  let settingsOutcome: InstallResult["settings"] = "untouched";
  const rule = manifest.permission_rule ?? null;
  const installed = [...(manifest.hook_commands ?? []), ...(manifest.hook_command ? [manifest.hook_command] : [])];
  // An earlier install's form of a line install put there is dotagent's too (olderHookLines).
  const commands = [...new Set(installed.flatMap((c) => [c, ...olderHookLines(c)]))];
  const withoutOurs = withoutHooks(settings.value, commands);
  const hadHook = JSON.stringify(withoutOurs) !== JSON.stringify(settings.value);
  const hadRule = rule !== null && allowList(settings.value).includes(rule);
  const permissionOutcome: InstallResult["permission"] = hadRule ? "rule removed" : "untouched";
  const hadDiffsOff = manifest.bash_diffs_off === true && settings.value[BASH_DIFF_SETTING] === false;
  if (settings.text !== null && (hadHook || hadRule || hadDiffsOff)) {
    let stripped = withoutOurs;
    if (hadRule) stripped = withoutRule(stripped, rule);
    if (hadDiffsOff) stripped = withoutBashDiffsOff(stripped);
    const hookOutcome = hadHook ? "hook removed" : "untouched";
    const original = manifest.settings_original;
    const before = manifest.settings_created ? {} : original === null ? null : parseObject(original);
    const untouchedSince =
      before !== null && installedSettings(before, manifest, scope, target).includes(settings.text);
    if (untouchedSince && manifest.settings_created) {
      settingsOutcome = hookOutcome;
      changes.push({ action: "remove", path: "settings.json" });
      removals.push(() => unlinkSync(settingsFile));
    } else if (untouchedSince && original !== null) {
      settingsOutcome = "restored";
      changes.push({ action: "update", path: "settings.json", reason: "original bytes restored" });
      removals.push(() => writeFileInside(root, settingsFile, original, { ...inside, link: "inside" }));
    } else {
      settingsOutcome = hookOutcome;
      changes.push({ action: "update", path: "settings.json" });
      removals.push(() =>
        writeFileInside(root, settingsFile, `${JSON.stringify(stripped, null, 2)}\n`, { ...inside, link: "inside" }),
      );
    }
  }
  const ignored = manifest.gitignore ?? null;
  const gitignoreFile = join(target, ignored?.path ?? "../.gitignore");
  const gitignore = planGitignoreUnmerge(target, gitignoreFile, ignored, "dotagent install");
  if (gitignore.change) changes.push(gitignore.change);
  changes.push({ action: "remove", path: MANIFEST });
  // Folders dotagent created, deepest first, only when empty and inside the target.
  const folders = planFolderRemoval(target, manifest.dirs);
  changes.push(...folders.changes);
  if (!dryRun) {
    for (const removal of removals) removal();
    applyGitignore(gitignoreFile, gitignore);
    unlinkSync(join(target, MANIFEST));
    removeEmptyFolders(folders.folders);
  }
  return {
    scope,
    target,
    dry_run: dryRun,
    changes,
    settings: settingsOutcome,
    permission: permissionOutcome,
    bash_diffs: hadDiffsOff ? "removed" : "untouched",
    gitignore: gitignore.outcome,
  };
}
