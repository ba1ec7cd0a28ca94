// Claude Code 2.1.332 runs `PreSkillShellCommand` hooks before each `!` line of a skill, and a
// hook that refuses (exit 2, a `deny`, an `ask` or `defer` a skill cannot wait for, a rewritten
// command, or any prompt/agent hook, which that event does not run) replaces the line's output
// with `[not run: …]`. /develop's plan comes from such a line: the skill then has the model run
// the same helper call itself, so nothing breaks, but the person should know why. This module
// finds, in one settings object, the hooks of that event that apply to dotagent's lines (pure:
// the caller reads the files). Applies = the matcher (on tool_name, "Bash") and the `if` rule
// (permission-rule syntax) both match. Whether a command hook refuses is only known by running
// it, which `doctor` does not do (it reads only): such a hook is reported as one that may refuse.

export interface SkillShellHook {
  /** Index of the matcher group under hooks.PreSkillShellCommand, and of the hook in it. */
  readonly at: string;
  readonly type: string;
  /** "refuses": Claude Code counts it as a refusal whatever it says; "may refuse": a command hook. */
  readonly verdict: "refuses" | "may refuse";
  /** The hook's command (or its type), for the person to find it. */
  readonly shown: string;
}

/** The tool name Claude Code gives a skill's `!` line (measured in 2.1.332: "Bash"). */
export const SKILL_SHELL_TOOL = "Bash";

/** Claude Code's matcher: absent, "" or "*" match everything; names joined by | match exactly; else a regular expression. */
export function matcherApplies(matcher: unknown, tool: string): boolean {
  if (matcher === undefined || matcher === null || matcher === "" || matcher === "*") return true;
  if (typeof matcher !== "string") return false;
  if (/^[\w|]+$/.test(matcher)) return matcher.split("|").includes(tool);
  try {
    return new RegExp(matcher).test(tool);
  } catch {
    // A matcher that is no regular expression: Claude Code's handling is unknown, so count it in.
    return true;
  }
}

/** A permission rule (`Bash(node *)`, `Bash(node:*)`, `Bash`) applied to a command line. */
export function ruleApplies(rule: unknown, tool: string, command: string): boolean {
  if (rule === undefined || rule === null || rule === "") return true;
  if (typeof rule !== "string") return false;
  const m = /^([\w-]+)(?:\(([\s\S]*)\))?$/.exec(rule.trim());
  if (m === null) return true;
  if (m[1] !== tool) return false;
  const pattern = m[2];
  if (pattern === undefined || pattern === "" || pattern === "*") return true;
  // `prefix:*` is the older prefix form; `*` anywhere else matches any run of characters.
  const glob = pattern.endsWith(":*") ? `${pattern.slice(0, -2)}*` : pattern;
  const re = new RegExp(
    `^${glob
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join("[\\s\\S]*")}$`,
  );
  // Claude Code matches a compound line part by part: the whole line or its first command.
  const first = command.split(/\s(?:\|\||&&|;)\s/)[0] ?? command;
  return re.test(command) || re.test(first);
}

/** The PreSkillShellCommand hooks in one settings object that apply to any of `lines`. */
export function skillShellHooks(settings: unknown, lines: readonly string[]): SkillShellHook[] {
  if (typeof settings !== "object" || settings === null) return [];
  const { hooks, disableAllHooks } = settings as { hooks?: unknown; disableAllHooks?: unknown };
  if (disableAllHooks === true || typeof hooks !== "object" || hooks === null) return [];
  const groups = (hooks as Record<string, unknown>).PreSkillShellCommand;
  if (!Array.isArray(groups)) return [];
  const found: SkillShellHook[] = [];
  groups.forEach((group: unknown, g) => {
    if (typeof group !== "object" || group === null) return;
    const { matcher, hooks: list } = group as { matcher?: unknown; hooks?: unknown };
    if (!matcherApplies(matcher, SKILL_SHELL_TOOL) || !Array.isArray(list)) return;
    list.forEach((hook: unknown, h) => {
      if (typeof hook !== "object" || hook === null) return;
      const { type, command, if: rule } = hook as { type?: unknown; command?: unknown; if?: unknown };
      if (!lines.some((line) => ruleApplies(rule, SKILL_SHELL_TOOL, line))) return;
      const kind = typeof type === "string" ? type : "command";
      const refuses = kind === "prompt" || kind === "agent";
      found.push({
        at: `hooks.PreSkillShellCommand[${g}].hooks[${h}]`,
        type: kind,
        verdict: refuses ? "refuses" : "may refuse",
        shown: typeof command === "string" ? command.slice(0, 80) : kind,
      });
    });
  });
  return found;
}

/** The `!` lines dotagent's skills run, as Claude Code hands them to the hook (the request left empty). */
export function dotagentSkillLines(helper: string): string[] {
  return [
    `node "${helper}" resume --json --start --request="$(cat <<'DOTAGENT_REQUEST'\n\nDOTAGENT_REQUEST\n)" || true`,
    `node "${helper}" status 2>&1 || true`,
  ];
}
