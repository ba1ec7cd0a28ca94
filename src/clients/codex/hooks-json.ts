// .codex/hooks.json: Codex reads Claude Code's nested hook format (event → [{matcher?, hooks:
// [{type, command, timeout}]}]). dotagent's entries are merged in and taken out again, never
// replacing what the person has there: an entry is dotagent's when every hook in it is a command
// line of dotagent's helper for the codex client (the shape below), and only those are touched.

export type HooksFile = { hooks?: Record<string, unknown[]> } & Record<string, unknown>;

/**
 * PostToolUse's matcher: dotagent acts there only on `wait_agent` (hook-io.ts), which Codex names
 * with its namespace glued on (`multi_agent_v1wait_agent`, `collaborationwait_agent`). Codex
 * 0.169–0.171 (measured, test/codex/NOTES.md "Matchers") reads a matcher of letters, digits, `_`
 * and `|` as exact names and anything else as a regex found anywhere in the name, so `wait_agent$`
 * starts Node for each namespace's wait and for no other tool. A tool Codex renames loses only the
 * `dotagent next:` line after a wait: SubagentStop still records each agent's end.
 */
export const CODEX_WAIT_MATCHER = "wait_agent$";

/**
 * Codex's events dotagent answers, the `dotagent hook` event each runs, and the matcher that
 * narrows it (SPEC §11, test/codex/NOTES.md). PreToolUse has none, and never may: it is the write
 * guard, and a tool Codex renames must not slip past it.
 */
export const CODEX_HOOK_EVENTS: ReadonlyArray<
  readonly [codexEvent: string, dotagentEvent: string, timeout: number, matcher?: string]
> = [
  ["SessionStart", "session-start", 10],
  ["UserPromptSubmit", "user-prompt-submit", 30],
  ["PreToolUse", "pre-tool-use", 30],
  ["PostToolUse", "post-tool-use", 30, CODEX_WAIT_MATCHER],
  ["SubagentStart", "subagent-start", 30],
  ["SubagentStop", "subagent-stop", 30],
];

/** The command line of one hook: the installed helper, by its absolute path. */
export function codexHookCommand(helper: string, event: string): string {
  return `node "${helper}" hook ${event} --client codex`;
}

/** A hook command dotagent installed for Codex (any helper path; dotagent.cjs, before it dotagent.mjs): what uninstall and a re-install replace. */
export const CODEX_HOOK_SHAPE =
  /^node "[^"\n]*\/dotagent\.[cm]js" hook (?:session-start|user-prompt-submit|pre-tool-use|post-tool-use|subagent-start|subagent-stop) --client codex$/;

const obj = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

function isDotagentEntry(entry: unknown): boolean {
  const hooks = obj(entry)?.hooks;
  return (
    Array.isArray(hooks) &&
    hooks.length > 0 &&
    hooks.every((h) => typeof obj(h)?.command === "string" && CODEX_HOOK_SHAPE.test(obj(h)!.command as string))
  );
}

/** The file without dotagent's entries (events left empty are dropped; the rest as it was). Pure. */
export function withoutDotagentHooks(file: HooksFile): HooksFile {
  const hooks = obj(file.hooks);
  if (hooks === undefined) return file;
  const kept: Record<string, unknown[]> = {};
  for (const [event, entries] of Object.entries(hooks)) {
    if (!Array.isArray(entries)) {
      kept[event] = entries as unknown[];
      continue;
    }
    const rest = entries.filter((e) => !isDotagentEntry(e));
    if (rest.length > 0) kept[event] = rest;
  }
  return { ...file, hooks: kept };
}

/** The file with dotagent's entries (one per event, after the person's own). Pure. */
export function withDotagentHooks(file: HooksFile, helper: string): HooksFile {
  const base = withoutDotagentHooks(file);
  const hooks: Record<string, unknown[]> = { ...(obj(base.hooks) as Record<string, unknown[]> | undefined) };
  for (const [event, dotagentEvent, timeout, matcher] of CODEX_HOOK_EVENTS) {
    const own = {
      ...(matcher === undefined ? {} : { matcher }),
      hooks: [{ type: "command", command: codexHookCommand(helper, dotagentEvent), timeout }],
    };
    hooks[event] = [...(Array.isArray(hooks[event]) ? hooks[event] : []), own];
  }
  return { ...base, hooks };
}

/** Whether a hooks file has no hook left (uninstall removes a file it created then). */
export function hasNoHooks(file: HooksFile): boolean {
  const keys = Object.keys(file).filter((k) => k !== "hooks");
  return keys.length === 0 && Object.keys(obj(file.hooks) ?? {}).length === 0;
}

/** The dotagent commands a hooks file holds. */
export function dotagentCommandsIn(file: HooksFile): string[] {
  const hooks = obj(file.hooks) ?? {};
  return Object.values(hooks).flatMap((entries) =>
    Array.isArray(entries)
      ? entries
          .filter(isDotagentEntry)
          .flatMap((e) => (obj(e)!.hooks as Array<{ command: string }>).map((h) => h.command))
      : [],
  );
}

/**
 * The events whose dotagent entry an earlier install wrote without this version's matcher (it
 * still works, starting Node for every tool call; `dotagent install` rewrites it). Pure.
 */
export function olderCodexEntries(file: HooksFile): string[] {
  const hooks = obj(file.hooks) ?? {};
  return CODEX_HOOK_EVENTS.filter(
    ([event, , , matcher]) =>
      matcher !== undefined &&
      Array.isArray(hooks[event]) &&
      (hooks[event] as unknown[]).some((e) => isDotagentEntry(e) && obj(e)!.matcher !== matcher),
  ).map(([event]) => event);
}
