// Every dotagent command line the skills and agents show the model, made concrete the way a
// model would fill it in (placeholders replaced by sample values), so a test can send each one
// through a Bash tool call of the real Claude Code and see whether its safety check refuses it.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface ShownCommand {
  file: string;
  shown: string;
  command: string;
}

/** Sample values for the placeholders the texts use. */
const FILL: Array<[RegExp, string]> = [
  [/<PHASE>/g, "REQUIREMENTS"],
  [/<next\.plan_file>/g, "memory/reports/plan.json"],
  [/<id>/g, "task-001"],
  [/<rev>/g, "12"],
  [/<that file>|<report>/g, "memory/reports/demand.json"],
  [/"<request>"/g, '"add login"'],
  [/rework-<N>-<k>/g, "rework-1-1"],
  [/\bID\b/g, "task-001"],
  [/--title (…|T)/g, '--title "a task"'],
  [/--error …/g, '--error "tests fail"'],
  [/--extra-attempts N/g, "--extra-attempts 1"],
  [/ …/g, ""],
];

function concrete(shown: string, helper: string): string | null {
  // Grammar, not a command line: alternatives, optional parts, the generic `<command>`.
  if (/<command>|\[|\w\|\w/.test(shown.split("\n")[0]!)) return null;
  let line = shown.replace(/^dotagent /, `node "${helper}" `);
  for (const [pattern, value] of FILL) line = line.replace(pattern, value);
  if (/<[A-Za-z]/.test(line.replace(/<<'\w+'/g, ""))) return null; // a placeholder we cannot fill
  return line;
}

/** The command lines in one markdown file: indented or fenced blocks and inline code spans. */
export function commandsIn(file: string, text: string, helper: string): ShownCommand[] {
  const body = text.replace(/^---[\s\S]*?\n---\n/, "").replace(/```![\s\S]*?```/g, ""); // shell lines run at expansion
  const found: string[] = [];
  // Blocks: consecutive lines indented by 4, starting with the helper.
  const lines = body.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const first = lines[i]!;
    if (!/^ {4}(dotagent |node ")/.test(first)) continue;
    const block = [first.slice(4)];
    while (i + 1 < lines.length && /^ {4}.*\S/.test(lines[i + 1]!)) block.push(lines[++i]!.slice(4));
    found.push(block.join("\n"));
  }
  // Inline commands: `dotagent <subcommand> …` (not prose such as "a `dotagent next:` line").
  for (const m of body.matchAll(/`(dotagent [a-z]+(?: [^`]*)?)`/g))
    if (!/^dotagent [a-z]+:/.test(m[1]!)) found.push(m[1]!);
  const out: ShownCommand[] = [];
  for (const shown of found) {
    const command = concrete(
      shown
        .replace(/\$\{CLAUDE_SKILL_DIR\}(?:\/\.\.\/checkpoint)?\/scripts\/dotagent\.[cm]js/g, "HELPER")
        .replace(/^node "HELPER" /, "dotagent "),
      helper,
    );
    if (command !== null && !out.some((c) => c.command === command)) out.push({ file, shown, command });
  }
  return out;
}

export function shownCommands(root: string, helper: string): ShownCommand[] {
  const files = [
    join("skills/develop/SKILL.md"),
    ...readdirSync(join(root, "skills/develop/references")).map((f) => join("skills/develop/references", f)),
    join("skills/checkpoint/SKILL.md"),
    ...readdirSync(join(root, "agents")).map((f) => join("agents", f)),
  ];
  const all: ShownCommand[] = [];
  for (const file of files)
    for (const c of commandsIn(file, readFileSync(join(root, file), "utf8"), helper))
      if (!all.some((a) => a.command === c.command)) all.push(c);
  return all;
}
