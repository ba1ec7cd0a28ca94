// A captured terminal session for the docs: the screens of an interactive journey, each taken
// just before the person typed, reduced to the conversation (what was typed, what Claude Code and
// the model showed, the agents it ran), with the temp folder shown as ~/my-project. Written by
// the terminal journey when DOTAGENT_CAPTURE_SESSION=1 (`npm run capture-session`), never by hand.
import { readFileSync, writeFileSync } from "node:fs";

/** A line cut to 100 characters (the docs are read in narrower windows than the terminal). */
const clip = (line: string) => (line.length > 100 ? `${line.slice(0, 99)}…` : line);

/** Words into lines of at most `width` characters. */
function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line !== "" && line.length + 1 + word.length > width) {
      out.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  if (line !== "") out.push(line);
  return out;
}

/** The conversation lines of one screen: no status bar, no side panel, no file diffs. */
export function conversation(screen: string, project: string): string[] {
  const out: string[] = [];
  let inTool = false;
  const lines = screen.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.split("│")[0]!
      .trimEnd()
      .replaceAll(project, "~/my-project")
      .replace(/\/tmp\/dotagent-terminal-\w+\/home/g, "~");
    // dotagent's line after `claude -r` (the SessionStart hook's systemMessage) is the person's
    // news: whole, its wrapped rest joined, then wrapped again at the docs' width.
    if (/^\s+⎿\s+SessionStart:\w+ says:/.test(line)) {
      // A right-aligned status item (`◐ medium · /effort`) shares a wrapped line: cut at a wide gap.
      const words = (raw: string) =>
        raw
          .split("│")[0]!
          .trim()
          .split(/\s{3,}/)[0]!;
      let text = words(line);
      while (i + 1 < lines.length && /^\s{3,}[^\s⎿●❯›✻─◐]/.test(lines[i + 1]!)) text += ` ${words(lines[++i]!)}`;
      out.push(...wrap(text.replace(/^⎿\s+/, ""), 96).map((part, n) => `  ${n === 0 ? "⎿  " : "   "}${part}`));
      continue;
    }
    if (
      line.trim() === "" ||
      /^[─━]+$/.test(line.trim()) ||
      /⏵⏵|◐ medium|Claude Code v|Opus|API Usage|▐▛|▝▜|▝▝|^▎/.test(line)
    )
      continue;
    // An indented ● is the agents panel of a killed screen, not the conversation.
    if (/^\s+●/.test(line)) continue;
    if (/^[❯›●✻]/.test(line.trimStart())) {
      inTool = /^● (Bash|Read|Write|Update)\(/.test(line.trimStart());
      // The typed line (the step's heading says it) and the turn's timing are left out.
      if (/^❯/.test(line.trim()) || /^✻ (?!Waiting).* for \d/.test(line.trim())) continue;
      out.push(clip(line.replace(/\s+$/, "")));
      continue;
    }
    // The first result line of a tool or agent call; diffs and file lists are left out.
    if (/^\s+⎿/.test(line) && !/Updated memory|files that changed|\+\d+ lines/.test(line)) {
      if (!inTool || out.at(-1)?.trimStart().startsWith("●")) out.push(clip(line));
    }
  }
  return out;
}

/** The whole session: each step headed by what the person typed next. */
export function sessionText(screens: ReadonlyArray<{ before: string; screen: string }>, project: string): string {
  const parts: string[] = [];
  let shown = new Set<string>();
  for (const { before, screen } of screens) {
    const lines = conversation(screen, project).filter((l) => !shown.has(l));
    shown = new Set([...shown, ...lines]);
    if (lines.length > 0) parts.push(lines.join("\n"));
    if (before === "(end)") break;
    parts.push(before.startsWith("claude") ? `$ ${before}` : `❯ ${before}`);
  }
  return parts.join("\n");
}

/** Replaces the text between `<!-- name -->` and `<!-- /name -->` in a file. */
export function fillBlock(file: string, name: string, text: string): void {
  const source = readFileSync(file, "utf8");
  const open = `<!-- ${name} -->`;
  const close = `<!-- /${name} -->`;
  const a = source.indexOf(open);
  const b = source.indexOf(close);
  if (a === -1 || b === -1) throw new Error(`${file} has no ${open} … ${close} block`);
  writeFileSync(file, `${source.slice(0, a + open.length)}\n${text}\n${source.slice(b)}`);
}
