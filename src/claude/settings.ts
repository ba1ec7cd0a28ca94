// settings.json and dotagent's SessionStart hook entry in it: read (never throws past a refusal
// that names the file), find, add and remove the entry without touching anything else. No globby,
// no tar: `doctor` reads these on its fast path.
import { existsSync, readFileSync } from "node:fs";
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
export function readSettings(file: string): { value: Settings; text: string | null } {
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
