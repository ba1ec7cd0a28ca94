// A deliberately tiny reader for the YAML frontmatter subset the skills and agents use: one
// `key: value` per line, values plain, single- or double-quoted, `true`/`false` as booleans.
// Anything outside that subset is reported, not guessed at, so a skill that real YAML would
// read differently (a second `: ` in a plain value, a ` #` comment, an indented continuation)
// fails the test instead of silently losing its description in Claude Code.

export type FrontmatterValue = string | boolean;

export type FrontmatterResult =
  { ok: true; data: Record<string, FrontmatterValue>; body: string } | { ok: false; error: string };

const KEY = /^[a-z][a-z0-9_-]*$/;
// Characters that start something other than a plain scalar in YAML.
const INDICATOR = /^[-?:,[\]{}#&*!|>'"%@`]/;

function parseValue(raw: string, line: number): { ok: true; value: FrontmatterValue } | { ok: false; error: string } {
  const text = raw.trim();
  if (text === "") return { ok: false, error: `line ${line}: empty value (nested blocks are not supported)` };
  if (text.startsWith('"')) {
    try {
      const value = JSON.parse(text) as unknown;
      if (typeof value === "string") return { ok: true, value };
    } catch {
      // fall through
    }
    return { ok: false, error: `line ${line}: bad double-quoted string ${text}` };
  }
  if (text.startsWith("'")) {
    if (text.length < 2 || !text.endsWith("'") || /(^|[^'])'($|[^'])/.test(text.slice(1, -1)))
      return { ok: false, error: `line ${line}: bad single-quoted string ${text}` };
    return { ok: true, value: text.slice(1, -1).replaceAll("''", "'") };
  }
  if (INDICATOR.test(text))
    return { ok: false, error: `line ${line}: a plain value cannot start with ${JSON.stringify(text[0])}; quote it` };
  if (text.includes(": ") || text.endsWith(":"))
    return {
      ok: false,
      error: `line ${line}: ": " inside a plain value makes YAML read a nested mapping; quote the value or reword it`,
    };
  if (text.includes(" #"))
    return { ok: false, error: `line ${line}: " #" starts a YAML comment; quote the value or reword it` };
  if (text === "true" || text === "false") return { ok: true, value: text === "true" };
  return { ok: true, value: text };
}

/** Splits `---\n…\n---\n` off the top of a Markdown file and reads it. Pure. */
export function parseFrontmatter(source: string): FrontmatterResult {
  const text = source.replace(/^\uFEFF/, "").replaceAll("\r\n", "\n");
  if (!text.startsWith("---\n")) return { ok: false, error: "the file does not start with a --- line" };
  const end = text.indexOf("\n---\n", 3);
  const endAtEof = text.endsWith("\n---") ? text.length - 4 : -1;
  const close = end !== -1 ? end : endAtEof;
  if (close === -1) return { ok: false, error: "no closing --- line" };
  const lines = text.slice(4, close + 1).split("\n");
  const body = text.slice(close + 5);
  const data: Record<string, FrontmatterValue> = {};
  for (const [index, line] of lines.entries()) {
    const number = index + 2;
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    if (/^\s/.test(line))
      return { ok: false, error: `line ${number}: indented lines (lists, continuations) are not supported` };
    const colon = line.indexOf(":");
    if (colon === -1) return { ok: false, error: `line ${number}: expected "key: value"` };
    const key = line.slice(0, colon);
    if (!KEY.test(key)) return { ok: false, error: `line ${number}: bad key ${JSON.stringify(key)}` };
    if (line[colon + 1] !== " ") return { ok: false, error: `line ${number}: expected a space after "${key}:"` };
    if (key in data) return { ok: false, error: `line ${number}: duplicate key ${key}` };
    const value = parseValue(line.slice(colon + 2), number);
    if (!value.ok) return value;
    data[key] = value.value;
  }
  return { ok: true, data, body };
}

/**
 * The shell commands Claude Code runs while expanding a skill: fenced ```! blocks and inline
 * !`…` spans at the start of a word (inline code preceded by anything else is left alone).
 */
export function shellCommandsIn(body: string): string[] {
  const fenced = [...body.matchAll(/```!\s*\n?([\s\S]*?)\n?```/g)].map((m) => (m[1] ?? "").trim());
  const inline = [...body.matchAll(/(?<=^|\s)!`([^`]+)`/gm)].map((m) => (m[1] ?? "").trim());
  return [...fenced, ...inline].filter((c) => c !== "");
}

/** Claude Code's `Bash(pattern)` permission rule as a RegExp: `*` matches any run of characters. */
export function bashRuleToRegExp(rule: string): RegExp | null {
  const inner = /^Bash\((.*)\)$/.exec(rule.trim())?.[1];
  if (inner === undefined) return null;
  const escaped = inner
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${escaped}$`);
}

/** Splits an `allowed-tools` value on commas or spaces outside parentheses. */
export function splitToolList(value: string): string[] {
  const tools: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of value) {
    if (ch === "(") depth++;
    if (ch === ")") depth = Math.max(0, depth - 1);
    if (depth === 0 && (ch === "," || ch === " ")) {
      if (current.trim() !== "") tools.push(current.trim());
      current = "";
      continue;
    }
    current += ch;
  }
  if (current.trim() !== "") tools.push(current.trim());
  return tools;
}
