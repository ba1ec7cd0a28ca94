// `dotagent install`: puts the skills (with the helper script), the agents and the SessionStart
// hook into .claude/ (project) or ~/.claude/ (user). Promises:
// - running it twice changes nothing (files compared by bytes, the hook entry by content);
// - settings.json is merged, never replaced: other keys and hooks stay as they were; a
//   settings.json that does not parse is left alone and nothing is installed;
// - a file already there that dotagent did not install is never overwritten;
// - the helper's command line gets one permission rule (PERMISSION_RULE), so the person's answers
//   in later turns (and a resumed session) can run it without a prompt; the skill's
//   allowed-tools cover the /develop turn alone;
// - `--uninstall` removes exactly what the manifest (.claude/.dotagent-install.json) says was
//   added, and gives settings.json back its original bytes when nothing else changed in it.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmdirSync, unlinkSync, chmodSync } from "node:fs";
import { globbySync } from "globby";
import { dirname, join, relative, sep } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import { writeFileDurable } from "../store/atomic-write.js";

export type Scope = "project" | "user";
export const HOOK_MATCHER = "startup|resume|clear|compact|fork";
const MANIFEST = ".dotagent-install.json";
/**
 * Allows the helper's command lines as the skills write them (the same pattern as the skills'
 * allowed-tools). Claude Code honours a project's rules once the workspace is trusted, a user's
 * rules always. A tighter pattern (the quoted path of checkpoint/scripts/dotagent.mjs) misses
 * the init line with its here-document (measured in test/claude/command-lines.test.ts).
 */
export const PERMISSION_RULE = "Bash(node *dotagent.mjs*)";

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
  settings: "hook added" | "hook already there" | "hook removed" | "restored" | "untouched";
  permission: "rule added" | "rule already there" | "rule removed" | "untouched";
}

interface Manifest {
  version: 1;
  files: Array<{ path: string; sha256: string }>;
  dirs: string[];
  hook_command: string | null;
  permission_rule?: string | null;
  settings_created: boolean;
  settings_original: string | null;
}

interface SourceFile {
  /** Path under the .claude folder, like skills/checkpoint/SKILL.md. */
  readonly dest: string;
  readonly bytes: Buffer;
  readonly mode?: number;
}

const sha = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");

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
 * The hook's command line. In a project it goes through $CLAUDE_PROJECT_DIR, so a committed
 * .claude/settings.json works wherever the repository is checked out; for the user it is the
 * absolute path of the installed helper (right even with CLAUDE_CONFIG_DIR set).
 */
export function hookCommand(scope: Scope, target?: string): string {
  if (scope === "project") return 'node "$CLAUDE_PROJECT_DIR/.claude/skills/checkpoint/scripts/dotagent.mjs" hook session-start';
  return `node "${join(target ?? "~/.claude", "skills", "checkpoint", "scripts", "dotagent.mjs")}" hook session-start`;
}

type Settings = Record<string, unknown> & { hooks?: Record<string, unknown> };
interface HookGroup {
  matcher?: string;
  hooks?: Array<{ type?: string; command?: string; timeout?: number }>;
}

function readSettings(file: string): { value: Settings; text: string | null } {
  if (!existsSync(file)) return { value: {}, text: null };
  const text = readFileSync(file, "utf8");
  try {
    const value = JSON.parse(text) as unknown;
    if (value === null || typeof value !== "object" || Array.isArray(value)) throw new Error("not an object");
    return { value: value as Settings, text };
  } catch {
    throw new DotagentError("settings_invalid", `${file} is not a JSON object; fix it (dotagent leaves it alone) and run \`dotagent install\` again`, EXIT.refused);
  }
}

function sessionStartGroups(settings: Settings): HookGroup[] {
  const hooks = settings.hooks;
  const list = hooks && typeof hooks === "object" ? (hooks as Record<string, unknown>).SessionStart : undefined;
  return Array.isArray(list) ? (list as HookGroup[]) : [];
}

function hasHook(settings: Settings, command: string): boolean {
  return sessionStartGroups(settings).some((g) => g.hooks?.some((h) => h.command === command));
}

function withHook(settings: Settings, command: string): Settings {
  const hooks = (settings.hooks && typeof settings.hooks === "object" ? settings.hooks : {}) as Record<string, unknown>;
  const group: HookGroup = { matcher: HOOK_MATCHER, hooks: [{ type: "command", command, timeout: 10 }] };
  return { ...settings, hooks: { ...hooks, SessionStart: [...sessionStartGroups(settings), group] } };
}

function withoutHook(settings: Settings, command: string): Settings {
  const groups = sessionStartGroups(settings)
    .map((g) => ({ ...g, hooks: (g.hooks ?? []).filter((h) => h.command !== command) }))
    .filter((g) => g.hooks.length > 0);
  const hooks = { ...(settings.hooks as Record<string, unknown>) };
  if (groups.length > 0) hooks.SessionStart = groups;
  else delete hooks.SessionStart;
  const next: Settings = { ...settings, hooks };
  if (Object.keys(hooks).length === 0) delete next.hooks;
  return next;
}

function allowList(settings: Settings): unknown[] {
  const permissions = settings.permissions;
  const allow = permissions && typeof permissions === "object" ? (permissions as Record<string, unknown>).allow : undefined;
  return Array.isArray(allow) ? allow : [];
}

function withRule(settings: Settings, rule: string): Settings {
  const permissions = (settings.permissions && typeof settings.permissions === "object" ? settings.permissions : {}) as Record<string, unknown>;
  return { ...settings, permissions: { ...permissions, allow: [...allowList(settings), rule] } };
}

function withoutRule(settings: Settings, rule: string): Settings {
  if (!allowList(settings).includes(rule)) return settings;
  const permissions: Record<string, unknown> = { ...(settings.permissions as Record<string, unknown>), allow: allowList(settings).filter((r) => r !== rule) };
  if ((permissions.allow as unknown[]).length === 0) delete permissions.allow;
  const next: Settings = { ...settings, permissions };
  if (Object.keys(permissions).length === 0) delete next.permissions;
  return next;
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function readManifest(target: string): Manifest | null {
  try {
    return JSON.parse(readFileSync(join(target, MANIFEST), "utf8")) as Manifest;
  } catch {
    return null;
  }
}

export function install(options: { target: string; scope: Scope; sourceRoot: string; helperScript: Buffer; dryRun: boolean }): InstallResult {
  const { target, scope, dryRun } = options;
  const settingsFile = join(target, "settings.json");
  const settings = readSettings(settingsFile); // refuses before anything is written
  const manifest: Manifest = readManifest(target) ?? { version: 1, files: [], dirs: [], hook_command: null, settings_created: false, settings_original: null };
  const owned = new Map(manifest.files.map((f) => [f.path, f.sha256]));
  const changes: InstallPlanEntry[] = [];
  const writes: Array<() => void> = [];

  for (const file of collectSources(options.sourceRoot, options.helperScript)) {
    const dest = join(target, file.dest);
    const hash = sha(file.bytes);
    if (existsSync(dest)) {
      const current = sha(readFileSync(dest));
      if (current === hash) {
        changes.push({ action: "unchanged", path: file.dest });
        if (!owned.has(file.dest)) owned.set(file.dest, hash);
        continue;
      }
      if (owned.get(file.dest) !== current) {
        changes.push({ action: "skip", path: file.dest, reason: "exists and was not installed by dotagent (or was edited since): left alone" });
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

  const command = hookCommand(scope, target);
  const addHook = !hasHook(settings.value, command);
  const addRule = !allowList(settings.value).includes(PERMISSION_RULE);
  const settingsOutcome: InstallResult["settings"] = addHook ? "hook added" : "hook already there";
  const permissionOutcome: InstallResult["permission"] = addRule ? "rule added" : "rule already there";
  if (addHook || addRule) {
    changes.push({ action: settings.text === null ? "create" : "update", path: "settings.json" });
    writes.push(() => {
      if (settings.text === null) manifest.settings_created = true;
      else if (manifest.settings_original === null) manifest.settings_original = settings.text;
      if (addHook) manifest.hook_command = command;
      if (addRule) manifest.permission_rule = PERMISSION_RULE;
      let next = addHook ? withHook(settings.value, command) : settings.value;
      if (addRule) next = withRule(next, PERMISSION_RULE);
      writeFileDurable(settingsFile, `${JSON.stringify(next, null, 2)}\n`);
    });
  } else {
    changes.push({ action: "unchanged", path: "settings.json" });
  }

  const changed = changes.some((c) => c.action === "create" || c.action === "update");
  if (!dryRun && changed) {
    if (!existsSync(target) && !manifest.dirs.includes(".")) manifest.dirs.push(".");
    mkdirSync(target, { recursive: true });
    for (const write of writes) write();
    manifest.files = [...owned].map(([path, sha256]) => ({ path, sha256 })).sort((a, b) => a.path.localeCompare(b.path));
    writeFileDurable(join(target, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  }
  return { scope, target, dry_run: dryRun, changes, settings: settingsOutcome, permission: permissionOutcome };
}

export function uninstall(options: { target: string; scope: Scope; dryRun: boolean }): InstallResult {
  const { target, scope, dryRun } = options;
  const manifest = readManifest(target);
  if (manifest === null) throw new DotagentError("not_installed", `dotagent is not installed in ${target} (no ${MANIFEST}); nothing to remove`, EXIT.refused);
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
    if (hadRule && rule !== null) stripped = withoutRule(stripped, rule);
    const original = manifest.settings_original;
    const hookOutcome = hadHook ? "hook removed" : "untouched";
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
  return { scope, target, dry_run: dryRun, changes, settings: settingsOutcome, permission: permissionOutcome };
}
