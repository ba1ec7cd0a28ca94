// What dotagent tells the model never asks it for what its skills forbid (issue 40): the model
// never touches memory/state/, never makes, merges or removes a task's worktree, never deletes a
// branch, a lock or a journal, and never repairs by hand (skills/develop/SKILL.md,
// references/decisions.md, skills/checkpoint/SKILL.md). Such a step is the person's, and every
// message that names one hands it to them: it says `for the person:` before it, which the skills
// tell the model to relay and end its turn on. The source is scanned (every string and template
// literal under src/, as TypeScript reads them), so a new message that asks the model for such a
// step fails here before it ships.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { REPO } from "./support/cli.js";

/** The mark a step for the person carries (the skills say what the model does with it). */
const FOR_THE_PERSON = "for the person:";

/** Instructions the model must never be given (each a thing its skills forbid it). */
const FORBIDDEN: ReadonlyArray<readonly [string, RegExp]> = [
  ["a worktree command", /git worktree (remove|prune|unlock|move)\b/],
  ["deleting a branch", /git branch -[dD]\b/],
  ["aborting a merge or rebase", /git (merge|rebase) --abort\b/],
  ["rm or rmdir", /\b(rm|rmdir) (-[a-zA-Z]+ )*[\w./~$'"`-]/],
  ["removing or deleting something", /\b(remove|delete) (it|them|the (file|folder|lock file|worktree|link))\b/i],
  ["moving something away", /\bmove (it|them|the file)( \w+)? (away|out)\b/i],
  ["a repair by hand", /\b(fix|put|commit|merge|restore)\b[^.;:]{0,40}\bby hand\b/i],
  ["writing memory/state", /\b(edit|remove|delete|move|fix)\b[^.;]{0,40}memory\/state/i],
];

/**
 * Literals that name such a step for someone else, each with why: the message is never the
 * model's to act on. Keyed by file and a piece of the literal's text.
 */
const NOT_FOR_THE_MODEL: ReadonlyArray<{ file: string; contains: string; why: string }> = [
  {
    file: "src/api/checkpoint-store.ts",
    contains: "",
    why: "the library's errors go to a program's author (docs/api.md), never through the helper",
  },
  { file: "src/langgraph/saver.ts", contains: "", why: "the LangGraph saver's errors go to a program's author" },
  {
    file: "src/run/runner.ts",
    contains: "delete it to have the roundtable run again",
    why: "`dotagent run` is the person's terminal; the allow grammar never lets the model run it",
  },
  {
    file: "src/claude/install.ts",
    contains: "move it out of the way and run",
    why: "`install` is the person's command; the allow grammar never lets the model run it",
  },
  {
    file: "src/clients/codex/install.ts",
    contains: "move it out of the way and run",
    why: "`install` is the person's command",
  },
  { file: "src/claude/inspect-install.ts", contains: "move ", why: "doctor's `fix` lines: the person's checklist" },
  {
    file: "src/cli/doctor-command.ts",
    contains: "move it out of the way",
    why: "doctor's `fix` lines: the person's checklist",
  },
  {
    file: "src/clients/copilot/doctor.ts",
    contains: "move them away",
    why: "doctor's `fix` lines: the person's checklist",
  },
  {
    file: "src/claude/briefing.ts",
    contains: "never edit or remove them by hand",
    why: "a prohibition, not an instruction",
  },
];

/** Every .ts file under src/ but tests and test support. */
function sources(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(REPO, dir))) {
      const rel = `${dir}/${name}`;
      if (statSync(join(REPO, rel)).isDirectory()) walk(rel);
      else if (name.endsWith(".ts") && !/\.test(-support)?\.ts$|\.test\.ts$|test-support/.test(name)) out.push(rel);
    }
  };
  walk("src");
  return out;
}

interface Literal {
  readonly file: string;
  readonly line: number;
  readonly text: string;
}

/** The outermost string and template literals of a file (a template's `${…}` parts kept as source). */
function literals(file: string): Literal[] {
  const text = readFileSync(join(REPO, file), "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: Literal[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) {
      // Imports, and keys of objects, are not messages.
      if (
        !ts.isImportDeclaration(node.parent) &&
        !ts.isExportDeclaration(node.parent) &&
        !ts.isLiteralTypeNode(node.parent)
      ) {
        out.push({
          file,
          line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1,
          text: node.getText(source),
        });
      }
      return; // nested literals are part of this one
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** What a literal asks that the model must not do, unless it hands it to the person. */
function judge(literal: Literal): string | undefined {
  for (const [what, pattern] of FORBIDDEN) {
    const found = pattern.exec(literal.text);
    if (found === null) continue;
    const before = literal.text.slice(0, found.index);
    if (before.includes(FOR_THE_PERSON)) continue;
    if (NOT_FOR_THE_MODEL.some((a) => a.file === literal.file && literal.text.includes(a.contains))) continue;
    return `${literal.file}:${literal.line}: ${what} (${found[0]}) not handed to the person: ${literal.text.slice(0, 160)}`;
  }
  return undefined;
}

describe("messages to the model", () => {
  it("never ask it for what its skills forbid: such steps are marked for the person", () => {
    const problems = sources()
      .flatMap(literals)
      .flatMap((l) => judge(l) ?? []);
    expect(problems).toEqual([]);
  });

  it.each([
    [
      "the finding's refusal (issue 40)",
      "`${want.path} is a git worktree of ${there.branch}, not of ${want.branch}; remove it (git worktree remove ${abs}) and start the task again`",
      "a worktree command",
    ],
    [
      "the lock",
      "`memory/state/.lock is held by pid ${lock.pid}; wait for it to finish, or if that process is gone remove the lock file`",
      "removing or deleting something",
    ],
    [
      "an op record",
      "`${opRel(opId)}: ${parsed.invalid}; fix it by hand, or remove memory/state/${ONCE_DIR}/${opId}/`",
      "a repair by hand",
    ],
    [
      "a branch",
      "`kept its branch ${branch}; git branch -D ${branch} once you no longer need them`",
      "deleting a branch",
    ],
  ])("catches a message that asks the model for such a step: %s", (_what, text, kind) => {
    expect(judge({ file: "src/x.ts", line: 1, text })).toContain(kind);
    expect(judge({ file: "src/x.ts", line: 1, text: text.replace(/; /, "; for the person: ") })).toBeUndefined();
  });
});
