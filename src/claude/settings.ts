// settings.json and dotagent's SessionStart hook entry in it: read (never throws past a refusal
// that names the file), find, add and remove the entry without touching anything else. No globby,
// no tar: `doctor` reads these on its fast path.
import { lstatSync } from "node:fs";
import { readProjectText } from "../store/read-file.js";
import { homedir } from "node:os";
import { join } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";

export type Scope = "project" | "user";
export const HOOK_MATCHER = "startup|resume|clear|compact|fork";

export type Settings = Record<string, unknown> & { hooks?: Record<string, unknown> };
interface HookGroup {
  matcher?: string;
  hooks?: Array<{ type?: string; command?: string; timeout?: number }>;
}

/** The .claude folder of a scope: the project's, or the user's (CLAUDE_CONFIG_DIR, else ~/.claude). */
export function installTarget(scope: Scope, projectRoot: string): string {
  if (scope === "project") return join(projectRoot, ".claude");
  // An empty CLAUDE_CONFIG_DIR is unset (as a shell `export CLAUDE_CONFIG_DIR=` leaves it).
  return process.env.CLAUDE_CONFIG_DIR || join(process.env.HOME || homedir(), ".claude");
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

/** settings.json as an object ({} when absent), and its text (null when absent). */
const MAX_SETTINGS_BYTES = 16 * 1024 * 1024;


/**
 * settings.json as it is, or a refusal before anything is written: dotagent merges only into the
 * shapes Claude Code documents (`hooks` an object, `hooks.SessionStart` an array of groups), and
 * never replaces what it does not understand.
 */
export function readSettings(file: string): { value: Settings; text: string | null } {
  const refuse = (why: string) =>
    new DotagentError("settings_invalid", `${file} ${why}; fix it (dotagent changed nothing) and run \`dotagent install\` again`, EXIT.refused, { file });
  let isLink = false;
  try {
    isLink = lstatSync(file).isSymbolicLink();
  } catch {
    // missing: read below says so
  }
  const read = readProjectText(file, { maxBytes: MAX_SETTINGS_BYTES, links: "follow" });
  if (read.kind === "missing") {
    if (isLink) throw refuse("is a symbolic link to a file that does not exist");
    return { value: {}, text: null };
  }
  if (read.kind === "refused") throw refuse(read.reason);
  let value: unknown;
  try {
    value = JSON.parse(read.text) as unknown;
  } catch {
    throw refuse("is not valid JSON");
  }
  if (!isPlainObject(value)) throw refuse("is not a JSON object");
  const hooks = value.hooks;
  if (hooks !== undefined && !isPlainObject(hooks)) throw refuse(`has "hooks": ${describeJson(hooks)}, where Claude Code expects an object of events`);
  const permissions = value.permissions;
  if (permissions !== undefined && !isPlainObject(permissions)) throw refuse(`has "permissions": ${describeJson(permissions)}, where Claude Code expects an object`);
  if (permissions?.allow !== undefined && !Array.isArray(permissions.allow)) throw refuse(`has "permissions.allow": ${describeJson(permissions.allow)}, where Claude Code expects an array of rules`);
  const groups = hooks?.SessionStart;
  if (groups !== undefined && !Array.isArray(groups)) throw refuse(`has "hooks.SessionStart": ${describeJson(groups)}, where Claude Code expects an array of hook groups`);
  (groups ?? []).forEach((group: unknown, i: number) => {
    if (!isPlainObject(group) || (group.hooks !== undefined && !Array.isArray(group.hooks))) throw refuse(`has "hooks.SessionStart[${i}]" that is not a hook group ({"matcher": …, "hooks": [ … ]})`);
  });
  return { value: value as Settings, text: read.text };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function describeJson(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "an array" : typeof value === "object" ? "an object" : `a ${typeof value}`;
}

function sessionStartGroups(settings: Settings): HookGroup[] {
  const hooks = settings.hooks;
  const list = hooks && typeof hooks === "object" ? (hooks as Record<string, unknown>).SessionStart : undefined;
  return Array.isArray(list) ? (list as HookGroup[]) : [];
}

export function hasHook(settings: Settings, command: string): boolean {
  return sessionStartGroups(settings).some((g) => g.hooks?.some((h) => h.command === command));
}

export function withHook(settings: Settings, command: string): Settings {
  const hooks = (settings.hooks && typeof settings.hooks === "object" ? settings.hooks : {}) as Record<string, unknown>;
  const group: HookGroup = { matcher: HOOK_MATCHER, hooks: [{ type: "command", command, timeout: 10 }] };
  return { ...settings, hooks: { ...hooks, SessionStart: [...sessionStartGroups(settings), group] } };
}

export function withoutHook(settings: Settings, command: string): Settings {
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

/**
 * Allows the helper's command lines as the skills write them (the same pattern as the skills'
 * allowed-tools), so the person's answers in later turns and a resumed session can run it: the
 * skill's allowed-tools cover the /develop turn alone. Claude Code honours a project's rules once
 * the workspace is trusted, a user's rules always. A tighter pattern (the quoted path of
 * checkpoint/scripts/dotagent.mjs) misses the init line with its here-document (measured in
 * test/claude/command-lines.test.ts).
 */
export const PERMISSION_RULE = "Bash(node *dotagent.mjs*)";

export function allowList(settings: Settings): unknown[] {
  const permissions = settings.permissions;
  const allow = permissions && typeof permissions === "object" ? (permissions as Record<string, unknown>).allow : undefined;
  return Array.isArray(allow) ? allow : [];
}

export function withRule(settings: Settings, rule: string): Settings {
  const permissions = (settings.permissions && typeof settings.permissions === "object" ? settings.permissions : {}) as Record<string, unknown>;
  return { ...settings, permissions: { ...permissions, allow: [...allowList(settings), rule] } };
}

export function withoutRule(settings: Settings, rule: string): Settings {
  if (!allowList(settings).includes(rule)) return settings;
  const permissions: Record<string, unknown> = { ...(settings.permissions as Record<string, unknown>), allow: allowList(settings).filter((r) => r !== rule) };
  if ((permissions.allow as unknown[]).length === 0) delete permissions.allow;
  const next: Settings = { ...settings, permissions };
  if (Object.keys(permissions).length === 0) delete next.permissions;
  return next;
}
