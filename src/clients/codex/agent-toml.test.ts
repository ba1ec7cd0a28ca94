import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { codexAgentToml, readAgentMarkdown, tomlBasicString, tomlText } from "./agent-toml.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/** Python's tomllib (3.11+) as the reference TOML reader, when this machine has it. */
const tomllib = spawnSync("python3", ["-c", "import tomllib"]).status === 0;
/**
 * Every TOML document the tests read, parsed by one Python process (a `python3` start costs about
 * a second behind pyenv's shim): the document's text → what tomllib made of it.
 */
function parseAllWithPython(texts: readonly string[]): Map<string, Record<string, string>> {
  const run = spawnSync(
    "python3",
    ["-c", "import json,sys,tomllib; print(json.dumps([tomllib.loads(t) for t in json.load(sys.stdin)]))"],
    { input: JSON.stringify(texts), encoding: "utf8" },
  );
  if (run.status !== 0) throw new Error(run.stderr);
  const parsed = JSON.parse(run.stdout) as Array<Record<string, string>>;
  return new Map(texts.map((text, i) => [text, parsed[i]!]));
}

/** What TOML can hold of a text: each lone surrogate as U+FFFD, pairs kept. */
const expected = (text: string) =>
  text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");

// Hostile texts, one per thing TOML forbids raw or treats specially.
const TEXTS: Array<[string, string]> = [
  ["plain", "You are the pm."],
  ["double quotes and backslashes", 'say "hi" \\ C:\\path\\n'],
  ["three single quotes", "a ''' b"],
  ["ends in a single quote", "it's the pm'"],
  ["three double quotes", 'a """ b'],
  ["control characters", "bell\u0007 nul\u0000 esc\u001b del\u007f"],
  ["CRLF", "one\r\ntwo\r\n"],
  ["tabs and newlines", "a\tb\n\nc\n"],
  ["a lone surrogate", "x\uD800y"],
  ["unicode", "naïve — 日本 🙂"],
  ["a TOML table line", '[projects]\nkey = "value"\n'],
];

/** The shipped agents, each with its Markdown source. */
const AGENTS = readdirSync(join(ROOT, "agents"))
  .filter((f) => f.endsWith(".md"))
  .map((file) => {
    const source = readFileSync(join(ROOT, "agents", file), "utf8");
    return { file, source, agent: readAgentMarkdown(`agents/${file}`, source) };
  });

/** Each TOML document below, read by Python once (empty without tomllib: those checks are skipped). */
const parsed = tomllib
  ? parseAllWithPython([
      ...TEXTS.flatMap(([, text]) => [`v = ${tomlBasicString(text)}\n`, `v = ${tomlText(text)}\n`]),
      ...AGENTS.map(({ agent }) => codexAgentToml(agent)),
    ])
  : new Map<string, Record<string, string>>();
const parseWithPython = (toml: string): Record<string, string> => {
  const value = parsed.get(toml);
  if (value === undefined) throw new Error(`not read by Python: ${toml}`);
  return value;
};

describe("TOML strings for .codex/agents/*.toml", () => {
  it.each(TEXTS)("a basic string holds %s", (_what, text) => {
    const value = tomlBasicString(text);
    expect(value).toMatch(/^".*"$/s);
    // eslint-disable-next-line no-control-regex
    expect(value).not.toMatch(/[\u0000-\u0008\u000A-\u001F\u007F]/);
    if (tomllib) expect(parseWithPython(`v = ${value}\n`).v).toBe(expected(text));
  });

  it.each(TEXTS)("a long text holds %s", (_what, text) => {
    const value = tomlText(text);
    if (tomllib) expect(parseWithPython(`v = ${value}\n`).v).toBe(expected(text));
  });

  it("writes readable text as a multi-line literal string, hostile text as a basic string", () => {
    expect(tomlText("line one\nline two\n")).toBe("'''\nline one\nline two\n'''");
    expect(tomlText("a ''' b")).toMatch(/^"/);
    expect(tomlText("ends'")).toMatch(/^"/);
    expect(tomlText("cr\r\n")).toMatch(/^"/);
  });

  it("turns every shipped agent into a TOML file with its name, description and body", () => {
    expect(AGENTS.length).toBeGreaterThan(0);
    for (const { file, source, agent } of AGENTS) {
      expect(agent.name).toBe(file.replace(/\.md$/, ""));
      const toml = codexAgentToml(agent);
      if (!tomllib) continue;
      const parsed = parseWithPython(toml);
      expect(parsed).toEqual({ name: agent.name, description: agent.description, developer_instructions: agent.body });
      // The scripted model and a reader recognise the agent by its body's first line.
      expect(parsed.developer_instructions?.split("\n")[0]).toBe(
        source
          .replace(/^---[\s\S]*?\n---\n/, "")
          .trim()
          .split("\n")[0],
      );
    }
  });

  it("refuses an agent file without frontmatter or without a description", () => {
    expect(() => readAgentMarkdown("agents/x.md", "no frontmatter")).toThrow(/no frontmatter/);
    expect(() => readAgentMarkdown("agents/x.md", "---\nname: x\n---\nbody")).toThrow(/lacks name or description/);
  });

  it("reads quoted frontmatter values", () => {
    expect(readAgentMarkdown("a.md", '---\nname: \'qa\'\ndescription: "says: \\"yes\\""\n---\nbody\n')).toEqual({
      name: "qa",
      description: 'says: "yes"',
      body: "body\n",
    });
  });
});
