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
  hooks?: Array<{ type?: string; command?: string; timeout?: number; if?: string }>;
}

/** The events dotagent hooks into (SPEC §11). */
export const HOOK_EVENTS = [
  "SessionStart",
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "SubagentStart",
  "SubagentStop",
  "UserPromptSubmit",
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** One hook dotagent installs: an event, which calls (matcher, `if`), and the helper's command. */
export interface HookEntry {
  readonly event: HookEvent;
  readonly matcher?: string;
  /** Claude Code's permission-rule filter: the hook process starts only for matching calls. */
  readonly if?: string;
  readonly command: string;
  readonly timeout: number;
}

/** The tools that write files: the PreToolUse hook decides who writes what (SPEC §11). */
export const WRITE_MATCHER = "Write|Edit|MultiEdit|NotebookEdit";
/**
 * The Bash lines the hook reads to let the helper's own through: the skills' lines run
 * dotagent.cjs (SPEC §13 "Start-up"), an earlier skill's dotagent.mjs; both match (the client's
 * `*` matches any text: test/claude/NOTES.md "Which Bash lines a hook's `if` sees").
 */
export const HELPER_BASH_RULE = "Bash(node *dotagent.*js*)";
/** The rule installs wrote before the skills' lines ran dotagent.cjs: it lets only dotagent.mjs lines through. */
export const MJS_HELPER_BASH_RULE = "Bash(node *dotagent.mjs*)";
/** The Bash lines the hook reads for writes into memory/state/ (Claude Code starts it only for these). */
export const STATE_BASH_RULE = "Bash(*memory/state*)";
/** The Bash lines the hook reads for the main agent's writes of a phase agent's report. */
export const REPORTS_BASH_RULE = "Bash(*memory/reports*)";

/** The .claude folder of a scope: the project's, or the user's (CLAUDE_CONFIG_DIR, else ~/.claude). */
export function installTarget(scope: Scope, projectRoot: string): string {
  if (scope === "project") return join(projectRoot, ".claude");
  // An empty CLAUDE_CONFIG_DIR is unset (as a shell `export CLAUDE_CONFIG_DIR=` leaves it).
  return process.env.CLAUDE_CONFIG_DIR || join(process.env.HOME || homedir(), ".claude");
}

/**
 * The file a hook line runs: dotagent.cjs, the CommonJS entry the build puts beside each helper
 * (SPEC §13 "Start-up": Node starts it without its ES-module loader). It runs the dotagent.mjs
 * beside it. The skills' helper lines run it too. A hook line of an earlier install runs
 * dotagent.mjs itself, which works as well (hasEntry counts it; `dotagent install` updates it).
 */
export const HOOK_ENTRY = "dotagent.cjs";

/**
 * How a hook runs the helper. In a project it goes through $CLAUDE_PROJECT_DIR, so a committed
 * .claude/settings.json works wherever the repository is checked out; for the user it is the
 * absolute path of the installed helper (right even with CLAUDE_CONFIG_DIR set); the plugin's
 * goes through ${CLAUDE_PLUGIN_ROOT}.
 */
export function helperInvocation(scope: Scope | "plugin", target?: string): string {
  if (scope === "project") return `node "$CLAUDE_PROJECT_DIR/.claude/skills/checkpoint/scripts/${HOOK_ENTRY}"`;
  if (scope === "plugin") return `node "\${CLAUDE_PLUGIN_ROOT}/skills/checkpoint/scripts/${HOOK_ENTRY}"`;
  return `node "${join(target ?? "~/.claude", "skills", "checkpoint", "scripts", HOOK_ENTRY)}"`;
}

/**
 * What every hook line but session-start's starts with: Copilot CLI runs a project's
 * .claude/settings.json hooks (and the plugin's hooks.json) too, where they do nothing
 * (src/clients/claude/hook-run.ts), so the shell skips Node there. Run by Copilot, a line has
 * COPILOT_CLI=1 and no CLAUDECODE (Claude Code sets CLAUDECODE=1 for its hooks, a Claude Code
 * started from Copilot's shell too; Copilot 1.0.102 sets COPILOT_HOOK_DIR for its own and the
 * plugin's hooks but not for .claude/settings.json's: test/copilot/NOTES.md).
 * `$COPILOT_CLI${CLAUDECODE+x}` is `1` exactly then, in POSIX sh; it skips no line hook-run.ts
 * would not also leave silent. Skipped, the line exits 0; otherwise with Node's status.
 * session-start runs under Copilot too: it tells a project without Copilot's install how to get it.
 */
export const COPILOT_GUARD = '[ "$COPILOT_CLI${CLAUDECODE+x}" = 1 ] || ';

/** A hook line as an install before dotagent.cjs wrote it: the same line running dotagent.mjs. */
export function mjsHookLine(command: string): string {
  return command.replace(/([\\/])dotagent\.cjs" hook /, '$1dotagent.mjs" hook ');
}

/**
 * The lines earlier installs wrote for this one (doctor counts them, `dotagent install` replaces
 * them): without the Copilot guard, and that line running dotagent.mjs.
 */
export function olderHookLines(command: string): string[] {
  return [unguardedHookLine(command), mjsHookLine(unguardedHookLine(command))].filter(
    (line, i, all) => line !== command && all.indexOf(line) === i,
  );
}

/** A hook line as an install before COPILOT_GUARD wrote it. */
export function unguardedHookLine(command: string): string {
  return command.startsWith(COPILOT_GUARD) ? command.slice(COPILOT_GUARD.length) : command;
}

/** The SessionStart hook's command line (doctor looks for it). */
export function hookCommand(scope: Scope, target?: string): string {
  return `${helperInvocation(scope, target)} hook session-start`;
}

/**
 * Every hook dotagent installs (SPEC §11): the SessionStart briefing; PreToolUse on Bash (only for
 * lines that look like the helper's: it allows exactly dotagent's own; and lines naming
 * memory/state: it denies writes into it), on the file-writing tools (who writes what), and on the Agent tool and
 * the hand-back (records an agent's start, sends an agent without its report back); PostToolUse
 * and PostToolUseFailure on Agent (the result and the next step, in the foreground); PostToolUse on
 * Workflow (records a run of Claude Code's Workflow tool); SubagentStop (records an agent's result,
 * copies a workflow agent's run journal); UserPromptSubmit (a background agent's notification gets the next
 * step). Each line but session-start's starts with COPILOT_GUARD.
 */
export function hookEntries(scope: Scope | "plugin", target?: string): HookEntry[] {
  const helper = helperInvocation(scope, target);
  const run = (event: string) => `${COPILOT_GUARD}${helper} hook ${event}`;
  return [
    { event: "SessionStart", matcher: HOOK_MATCHER, command: `${helper} hook session-start`, timeout: 10 },
    {
      event: "PreToolUse",
      matcher: "Bash",
      if: HELPER_BASH_RULE,
      command: run("pre-tool-use"),
      timeout: 10,
    },
    { event: "PreToolUse", matcher: "Bash", if: STATE_BASH_RULE, command: run("pre-tool-use"), timeout: 10 },
    { event: "PreToolUse", matcher: "Bash", if: REPORTS_BASH_RULE, command: run("pre-tool-use"), timeout: 10 },
    { event: "PreToolUse", matcher: WRITE_MATCHER, command: run("pre-tool-use"), timeout: 10 },
    { event: "PreToolUse", matcher: "Agent|Task|SubagentHandback", command: run("pre-tool-use"), timeout: 30 },
    { event: "PostToolUse", matcher: "Agent|Task|Workflow", command: run("post-tool-use"), timeout: 30 },
    { event: "PostToolUseFailure", matcher: "Agent|Task", command: run("post-tool-use"), timeout: 30 },
    // Every sub-agent's end: which agents are the workflow's is known only from the definition in
    // force (a project's own agents, fix's reproducer), so the hook reads it; any other agent's
    // end is nothing to it.
    // A workflow agent of Claude Code's Workflow tool starts: the results before it are in the run's journal.
    { event: "SubagentStart", matcher: "workflow-subagent", command: run("subagent-start"), timeout: 30 },
    { event: "SubagentStop", command: run("subagent-stop"), timeout: 30 },
    { event: "UserPromptSubmit", command: run("user-prompt-submit"), timeout: 30 },
  ];
}

/** The hooks object of Claude Code's settings (or a plugin's hooks.json) holding these entries. */
export function hooksObject(entries: readonly HookEntry[]): Record<string, HookGroup[]> {
  const hooks: Record<string, HookGroup[]> = {};
  for (const entry of entries) (hooks[entry.event] ??= []).push(groupOf(entry));
  return hooks;
}

function groupOf(entry: HookEntry): HookGroup {
  return {
    ...(entry.matcher === undefined ? {} : { matcher: entry.matcher }),
    hooks: [
      {
        type: "command",
        command: entry.command,
        timeout: entry.timeout,
        ...(entry.if === undefined ? {} : { if: entry.if }),
      },
    ],
  };
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
    new DotagentError(
      "settings_invalid",
      `${file} ${why}; fix it (dotagent changed nothing) and run \`dotagent install\` again`,
      EXIT.refused,
      { file },
    );
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
  if (hooks !== undefined && !isPlainObject(hooks))
    throw refuse(`has "hooks": ${describeJson(hooks)}, where Claude Code expects an object of events`);
  const permissions = value.permissions;
  if (permissions !== undefined && !isPlainObject(permissions))
    throw refuse(`has "permissions": ${describeJson(permissions)}, where Claude Code expects an object`);
  if (permissions?.allow !== undefined && !Array.isArray(permissions.allow))
    throw refuse(
      `has "permissions.allow": ${describeJson(permissions.allow)}, where Claude Code expects an array of rules`,
    );
  for (const event of HOOK_EVENTS) {
    const groups = hooks?.[event];
    if (groups !== undefined && !Array.isArray(groups))
      throw refuse(`has "hooks.${event}": ${describeJson(groups)}, where Claude Code expects an array of hook groups`);
    (groups ?? []).forEach((group: unknown, i: number) => {
      if (!isPlainObject(group) || (group.hooks !== undefined && !Array.isArray(group.hooks)))
        throw refuse(`has "hooks.${event}[${i}]" that is not a hook group ({"matcher": …, "hooks": [ … ]})`);
    });
  }
  return { value: value as Settings, text: read.text };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function describeJson(value: unknown): string {
  return value === null
    ? "null"
    : Array.isArray(value)
      ? "an array"
      : typeof value === "object"
        ? "an object"
        : `a ${typeof value}`;
}

function groupsOf(settings: Settings, event: string): HookGroup[] {
  const hooks = settings.hooks;
  const list = hooks && typeof hooks === "object" ? (hooks as Record<string, unknown>)[event] : undefined;
  return Array.isArray(list) ? (list as HookGroup[]) : [];
}

const withMjsIf = (entry: HookEntry): HookEntry =>
  entry.if === HELPER_BASH_RULE ? { ...entry, if: MJS_HELPER_BASH_RULE } : entry;

/**
 * How earlier installs wrote each entry, newest first: with the `if` that let only dotagent.mjs
 * lines through (every install before the skills ran dotagent.cjs), then also without the Copilot
 * guard, then also through dotagent.mjs.
 */
export const EARLIER_FORMS: ReadonlyArray<(entry: HookEntry) => HookEntry> = [
  withMjsIf,
  (e) => ({ ...withMjsIf(e), command: unguardedHookLine(e.command) }),
  (e) => ({ ...withMjsIf(e), command: mjsHookLine(unguardedHookLine(e.command)) }),
];

/**
 * The forms earlier installs wrote this entry in, each distinct from it and from each other; an
 * earlier line with this version's `if` (a hand-edited mix) counts too.
 */
export function olderEntryForms(entry: HookEntry): HookEntry[] {
  const forms: HookEntry[] = [];
  const mixed = olderHookLines(entry.command).map((command) => ({ ...entry, command }));
  for (const form of [...EARLIER_FORMS.map((earlier) => earlier(entry)), ...mixed])
    if (![entry, ...forms].some((f) => f.command === form.command && f.if === form.if)) forms.push(form);
  return forms;
}

const sameHook = (h: { command?: string; if?: string }, entry: HookEntry) =>
  h.command === entry.command && h.if === entry.if;

/** The form of `entry` settings.json runs: this version's, an earlier install's, or undefined. */
function formIn(settings: Settings, entry: HookEntry): HookEntry | undefined {
  return [entry, ...olderEntryForms(entry)].find((form) =>
    groupsOf(settings, entry.event).some((g) => g.matcher === entry.matcher && g.hooks?.some((h) => sameHook(h, form))),
  );
}

/** Whether settings.json has this very entry: its event, matcher, `if` and command (the timeout is the person's to tune), or an earlier install's form of it. */
export function hasEntry(settings: Settings, entry: HookEntry): boolean {
  return formIn(settings, entry) !== undefined;
}

/**
 * How settings.json runs these entries where an earlier install wrote them: `mjs` (some hook lines
 * run dotagent.mjs, or only the `if` is older: the skills' helper lines it lets through run
 * dotagent.mjs), `unguarded` (some hook lines without the Copilot guard), or null (every one as
 * this version writes it).
 */
export function olderHooks(settings: Settings, entries: readonly HookEntry[]): "mjs" | "unguarded" | null {
  const found = entries.flatMap((e) => {
    const form = formIn(settings, e);
    return form === undefined || form === e ? [] : [{ form, entry: e }];
  });
  if (found.length === 0) return null;
  if (found.some(({ form }) => /dotagent\.mjs" hook /.test(form.command))) return "mjs";
  return found.some(({ form, entry }) => form.command !== entry.command) ? "unguarded" : "mjs";
}

/**
 * The entries settings.json does not run yet. Several entries share one command (pre-tool-use on
 * Bash, on the file tools, on Agent), so an entry counts only with its matcher and `if` too.
 */
export function missingHooks(settings: Settings, entries: readonly HookEntry[]): HookEntry[] {
  return entries.filter((e) => !hasEntry(settings, e));
}

/** The entries settings.json does not run exactly as this version writes them (install puts these in). */
export function entriesToWrite(settings: Settings, entries: readonly HookEntry[]): HookEntry[] {
  return entries.filter((e) => formIn(settings, e) !== e);
}

/** Adds each entry not there yet as a group of its own; everything else stays as it was. */
export function withHooks(settings: Settings, entries: readonly HookEntry[]): Settings {
  const hooks = {
    ...((settings.hooks && typeof settings.hooks === "object" ? settings.hooks : {}) as Record<string, unknown>),
  };
  for (const entry of missingHooks(settings, entries))
    hooks[entry.event] = [...groupsOf({ hooks } as Settings, entry.event), groupOf(entry)];
  return { ...settings, hooks };
}

/** Removes every hook running one of these commands, in every event; empty groups and events go too. */
export function withoutHooks(settings: Settings, commands: readonly string[]): Settings {
  if (!settings.hooks || typeof settings.hooks !== "object") return settings;
  const hooks = { ...(settings.hooks as Record<string, unknown>) };
  for (const [event, list] of Object.entries(hooks)) {
    if (!Array.isArray(list)) continue;
    const groups = (list as HookGroup[])
      .map((g) =>
        Array.isArray(g?.hooks) ? { ...g, hooks: g.hooks.filter((h) => !commands.includes(h?.command ?? "")) } : g,
      )
      .filter((g) => !Array.isArray(g?.hooks) || g.hooks.length > 0);
    if (groups.length > 0) hooks[event] = groups;
    else delete hooks[event];
  }
  const next: Settings = { ...settings, hooks };
  if (Object.keys(hooks).length === 0) delete next.hooks;
  return next;
}

/**
 * The permission rule installs before 0.2 added for the helper's command lines. It was looser than
 * the PreToolUse hook that replaced it (it allowed `once` and any look-alike path, and auto mode
 * ignored it anyway): an install removes it where the manifest says dotagent added it.
 */
export const PERMISSION_RULE = "Bash(node *dotagent.mjs*)";

export function allowList(settings: Settings): unknown[] {
  const permissions = settings.permissions;
  const allow =
    permissions && typeof permissions === "object" ? (permissions as Record<string, unknown>).allow : undefined;
  return Array.isArray(allow) ? allow : [];
}

export function withRule(settings: Settings, rule: string): Settings {
  const permissions = (
    settings.permissions && typeof settings.permissions === "object" ? settings.permissions : {}
  ) as Record<string, unknown>;
  return { ...settings, permissions: { ...permissions, allow: [...allowList(settings), rule] } };
}

export function withoutRule(settings: Settings, rule: string): Settings {
  if (!allowList(settings).includes(rule)) return settings;
  const permissions: Record<string, unknown> = {
    ...(settings.permissions as Record<string, unknown>),
    allow: allowList(settings).filter((r) => r !== rule),
  };
  if ((permissions.allow as unknown[]).length === 0) delete permissions.allow;
  const next: Settings = { ...settings, permissions };
  if (Object.keys(permissions).length === 0) delete next.permissions;
  return next;
}

/**
 * Claude Code 2.1.332 shows, under a Bash command in auto and bypassPermissions modes, a diff of
 * every file the command changed in the repository (`bashEditDiffEnabled`, test/claude/NOTES.md).
 * dotagent's helper changes memory/state at each step, so after `claude -r` and "continue" most of
 * the screen was diffs of phase.json, execution.json and events.jsonl. A project install turns the
 * view off (`false`) where the person has not set it; `.claude/settings.local.json` with `true`
 * brings it back for one person (local settings outrank the project's).
 */
export const BASH_DIFF_SETTING = "bashEditDiffEnabled";

/** Whether the person (or anyone but install) has set the view either way. */
export const hasBashDiffSetting = (settings: Settings): boolean =>
  Object.prototype.hasOwnProperty.call(settings, BASH_DIFF_SETTING);

export function withBashDiffsOff(settings: Settings): Settings {
  return hasBashDiffSetting(settings) ? settings : { ...settings, [BASH_DIFF_SETTING]: false };
}

/** Takes install's `false` out again; a value the person changed since (true) stays. */
export function withoutBashDiffsOff(settings: Settings): Settings {
  if (settings[BASH_DIFF_SETTING] !== false) return settings;
  const next: Settings = { ...settings };
  delete next[BASH_DIFF_SETTING];
  return next;
}
