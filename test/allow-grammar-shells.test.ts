// The allow grammar (src/core/helper-command.ts) against the real shells: every line it allows
// must hand the same argv to `node` in bash, dash and zsh (Debian's packages: the shells Claude
// Code's Bash tool runs, and a POSIX sh), and run nothing else. A stand-in `node` first on PATH
// prints the argv it got (NUL-separated), so each run costs a shell start, not a Node start.
// Also: the option tables the grammar reads equal the CLI's own (a new option cannot slip past).
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ALLOWED_SUBCOMMANDS,
  COMMAND_RULES,
  GLOBAL_OPTION_RULES,
  judgeHelperCommand,
  type HelperContext,
} from "../src/core/helper-command.js";
import { GLOBAL_OPTIONS } from "../src/cli/context.js";

const SHELLS = ["bash", "dash", "zsh"] as const;
const has = (shell: string) => spawnSync(shell, ["-c", "exit 0"]).status === 0;
const missing = SHELLS.filter((s) => !has(s));
/** The shells installed here, asked once (each check runs the line in every one of them). */
const present = SHELLS.filter((s) => !missing.includes(s));
// CI installs zsh (.ci/run); on a developer's machine without it the shell runs are skipped, and say so.
if (missing.length > 0 && process.env.CI)
  throw new Error(`the allow grammar's shell test needs ${missing.join(", ")} (apt-get install ${missing.join(" ")})`);
if (missing.length > 0)
  console.warn(`allow-grammar-shells: ${missing.join(", ")} not installed; those runs are skipped`);

let root: string;
let helper: string;
let bin: string;
let ctx: HelperContext;
const marker = () => join(root, "pwned");

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "dotagent-shells-")));
  helper = join(root, ".claude/skills/checkpoint/scripts/dotagent.mjs");
  mkdirSync(join(helper, ".."), { recursive: true });
  mkdirSync(join(root, "memory/reports"), { recursive: true });
  writeFileSync(helper, "// the helper\n");
  writeFileSync(join(root, "memory/reports/plan.json"), "[]");
  bin = join(root, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "node"), '#!/bin/sh\nfor a in "$@"; do printf \'%s\\0\' "$a"; done\n');
  chmodSync(join(bin, "node"), 0o755);
  const realpath = (path: string) => {
    try {
      return realpathSync.native(path);
    } catch {
      return undefined;
    }
  };
  ctx = { helper, root, cwd: root, realpath };
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** What `node` got when `shell` ran the line, or the shell's complaint. */
function runIn(shell: string, line: string): { argv?: string[]; error?: string } {
  rmSync(marker(), { force: true });
  const run = spawnSync(shell, ["-c", line], {
    cwd: root,
    encoding: "utf8",
    env: { PATH: `${bin}:/usr/bin:/bin`, HOME: root, LC_ALL: "C.UTF-8" },
    // A hang (a shell waiting on its input) is caught, never a loaded machine: a minute.
    timeout: 60_000,
  });
  if (run.error !== undefined) return { error: `${shell} did not finish: ${run.error.message}` };
  if (existsSync(marker())) return { error: `${shell} ran a command: ${marker()} exists` };
  if (run.status !== 0) return { error: `${shell} exit ${run.status}: ${run.stderr}` };
  return { argv: run.stdout.split("\0").slice(0, -1) };
}

/** The line is allowed, and every shell hands node exactly the argv the grammar read. */
function expectSameArgv(line: string): void {
  const verdict = judgeHelperCommand(line, ctx);
  if (!verdict.allow) throw new Error(`refused: ${verdict.why}`);
  for (const shell of present) expect({ shell, ...runIn(shell, line) }).toEqual({ shell, argv: verdict.argv });
}

const H = () => `node "${helper}"`;
const doc = (delimiter: string, body: string) => `"$(cat <<'${delimiter}'\n${body}\n${delimiter}\n)"`;

describe("every documented form means the same argv in bash, dash and zsh", () => {
  const forms: Array<[string, () => string]> = [
    ["status --json", () => `${H()} status --json`],
    [
      "resume with a here-document request",
      () =>
        `${H()} resume --json --start --request ${doc("EOF", `add "login" for $HOME; it's \`id\` $(touch ${marker()}) & | done`)}`,
    ],
    ["a here-document line that ends in EOF", () => `${H()} task fail t1 --error ${doc("EOF", "x EOF)\n) EOF\n)")}`],
    [
      "a here-document whose lines hold quotes and parentheses",
      () => `${H()} init --request ${doc("EOF", `"(\n'\n)")`)}`,
    ],
    ["an empty here-document", () => `${H()} init --request "$(cat <<'EOF'\nEOF\n)"`],
    ["quoted and unquoted pieces in one word", () => `${H()} task fail t1 --error a'b c'"d e"f`],
    ["tabs between words", () => `${H()}\tstatus\t--json`],
    ["= inside a word", () => `${H()} status --dir=.`],
    ["short options grouped", () => `${H()} rollback --to ARCHITECTURE -y --json`],
    ["a task import of the plan", () => `${H()} task import memory/reports/plan.json --json`],
    ["a word of safe characters", () => `${H()} task fail t1 --error a@b%c+d=e:f,g.h/i-j_k`],
    ["Unicode text in quotes", () => `${H()} task fail t1 --error 'café — 東京 ✓'`],
    ["a plan edit with its reason", () => `${H()} task skip t1 --reason 'done by hand' --yes --json`],
    ["the task list", () => `${H()} tasks --status running,dead --json`],
  ];
  it.each(forms)("%s", (_name, line) => expectSameArgv(line()));
});

describe("the here-document forms the grammar refuses really run a command in bash", () => {
  // Without these the refusals above would be untested guesses: bash 5.1/5.2 ends the
  // here-document (and the $( … )) at a line that starts with the delimiter.
  it.each([["EOF)"], ["EOF )"], ["EOF\t)"]])("a line %j", (start) => {
    const line = `${H()} status --request "$(cat <<'EOF'\n${start}"; touch ${marker()}; echo "\nEOF\n)"`;
    expect(judgeHelperCommand(line, ctx).allow).toBe(false);
    expect(runIn("bash", line).error).toMatch(/ran a command/);
  });
});

describe("random lines: whatever the grammar allows means the same argv in every shell", () => {
  // npm test: 50 lines each, seed 28 (the documented forms above are each tried on their own; these
  // only repeat the search). A longer search: ALLOW_FUZZ_RUNS=5000 ALLOW_FUZZ_SEED=random.
  const runs = {
    numRuns: Number(process.env.ALLOW_FUZZ_RUNS ?? 50),
    seed: process.env.ALLOW_FUZZ_SEED === "random" ? Date.now() : 28,
  };
  // Pieces chosen to break shells: quotes, expansions, operators, the delimiter, blanks.
  const piece = () =>
    fc.constantFrom(
      "EOF",
      "EOF)",
      ")",
      "(",
      '"',
      "'",
      "$",
      "$(touch M)",
      "`touch M`",
      "\\",
      "!",
      "#",
      "&",
      ";",
      "|",
      ">",
      "<",
      "*",
      "?",
      "[",
      "]",
      "{a,b}",
      "~",
      "=",
      "=x",
      "%",
      "@",
      "+",
      ",",
      ":",
      "-",
      "--",
      "\t",
      " ",
      "\n",
      "x",
      "é",
      "$HOME",
      "${x}",
    );
  const text = () => fc.array(piece(), { maxLength: 8 }).map((ps) => ps.join("").replaceAll("M", "MARKER"));
  const withMarker = (line: string) => line.replaceAll("MARKER", marker());

  it(
    "in a here-document",
    () => {
      fc.assert(
        fc.property(text(), (body) => {
          const line = withMarker(`${H()} task fail t1 --error ${doc("EOF", body)}`);
          if (judgeHelperCommand(line, ctx).allow) expectSameArgv(line);
        }),
        runs,
      );
    },
    600_000 + runs.numRuns * 60,
  );

  it(
    "as words after --error",
    () => {
      fc.assert(
        fc.property(text(), fc.constantFrom("", "'", '"'), (word, quote) => {
          const line = withMarker(`${H()} task fail t1 --error ${quote}${word}${quote}`);
          if (judgeHelperCommand(line, ctx).allow) expectSameArgv(line);
        }),
        runs,
      );
    },
    600_000 + runs.numRuns * 60,
  );
});

describe("the grammar's option tables are the CLI's", () => {
  const shape = (options: Record<string, { type: string; short?: string }>) =>
    Object.fromEntries(
      Object.entries(options)
        .map(([name, o]) => [name, { type: o.type, short: o.short }])
        .sort(),
    );
  it("the options every command takes", () => {
    expect(shape(GLOBAL_OPTION_RULES)).toEqual(shape(GLOBAL_OPTIONS as never));
  });
  it.each(ALLOWED_SUBCOMMANDS.map((name) => [name]))("%s", async (name) => {
    const { command } = (await import(`../src/cli/commands/${name}.ts`)) as {
      command: { options: Record<string, { type: string; short?: string }> };
    };
    expect(shape(COMMAND_RULES[name].options)).toEqual(shape(command.options));
  });
});
