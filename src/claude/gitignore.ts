// The project's .gitignore lines for what dotagent keeps in memory/ that belongs to one machine:
// the headless runner's sessions, checkpoints (copies of the state files), archives (binary undo copies), once's
// records (pids of this machine), the lock, the record of dotagent's last state write (inodes of this
// disk), the running `step run`, `dotagent report`'s page and temp files. What stays committed —
// memory/reports/ and the three state files — is the team's record of the workflow (SPEC §11). A
// file dotagent writes that a clone could carry would come as whatever the repository holds, a
// link too: every such file is listed (write-file.ts never writes through a link either way).
//
// Promises: the lines are merged into an existing .gitignore, never replacing it; a line already
// there (the person's own) is not added again and is never removed; `--uninstall` removes exactly
// the lines install added (recorded in the manifest), and the file when install created it and
// nothing else is left. Pure text in, text out: install.ts does the reading and writing.

/** The heading line install writes above its lines (one of the lines it owns). */
export const GITIGNORE_HEADING =
  "# dotagent: machine-local workflow files (commit memory/reports/ and memory/state/*.json, events.jsonl)";

export const GITIGNORE_LINES: readonly string[] = [
  GITIGNORE_HEADING,
  "/memory/runs/",
  "/memory/state/.history/",
  "/memory/state/.archive/",
  "/memory/state/once/",
  "/memory/state/.lock*",
  "/memory/state/.clearing*",
  "/memory/state/.rollback*",
  "/memory/state/.last-write.json*",
  "/memory/state/.step-running.json*",
  "/memory/state/.pending-reply.json*",
  "/memory/report.html",
  "/memory/state/phase.json.*",
  "/memory/state/execution.json.*",
  "/memory/state/events.jsonl.*",
];

const linesOf = (text: string): string[] => (text === "" ? [] : text.replace(/\r?\n$/, "").split(/\r?\n/));
const eol = (text: string): string => (text.includes("\r\n") ? "\r\n" : "\n");

/** Removes one occurrence of each line, searching from the end (install appends its lines). */
function withoutLines(lines: string[], remove: readonly string[]): string[] {
  const out = [...lines];
  for (const line of remove) {
    const at = out.lastIndexOf(line);
    if (at < 0) continue;
    // The blank line install put before its heading goes with it.
    const blankBefore = line.startsWith("# dotagent") && at > 0 && out[at - 1]!.trim() === "";
    out.splice(blankBefore ? at - 1 : at, blankBefore ? 2 : 1);
  }
  while (out.length > 0 && out[out.length - 1]!.trim() === "") out.pop();
  return out;
}

export interface GitignoreMerge {
  /** The new text; equal to the old one when nothing changes. */
  text: string;
  /** The lines dotagent owns after the merge (to record in the manifest). */
  owned: string[];
  changed: boolean;
}

/**
 * Merges `wanted` into a .gitignore's text (null: no file). `owned`: the lines an earlier install
 * added. A wanted line already there is not added again; one install added before that is gone
 * now was removed by the person and stays removed; owned lines no longer wanted (an older
 * version's) are taken out. The person's own lines are left as they are.
 */
export function mergeGitignore(
  text: string | null,
  wanted: readonly string[],
  owned: readonly string[],
): GitignoreMerge {
  const old = text ?? "";
  const retired = owned.filter((line) => !wanted.includes(line));
  let lines = retired.length > 0 ? withoutLines(linesOf(old), retired) : linesOf(old);
  const present = new Set(lines.map((l) => l.trim()));
  const missing = wanted.filter((line) => !present.has(line) && !owned.includes(line));
  if (retired.length === 0 && missing.length === 0)
    return { text: old, owned: owned.filter((line) => present.has(line)), changed: false };
  if (missing.length > 0) lines = [...lines, ...(lines.length > 0 ? [""] : []), ...missing];
  const nl = eol(old);
  const next = lines.length === 0 ? "" : `${lines.join(nl)}${nl}`;
  const keptOwned = owned.filter((line) => wanted.includes(line) && present.has(line));
  return { text: next, owned: [...keptOwned, ...missing], changed: next !== old };
}

/** The text without the lines dotagent added; null when nothing is left of a file it created. */
export function unmergeGitignore(text: string, owned: readonly string[], created: boolean): string | null {
  const lines = withoutLines(linesOf(text), owned);
  if (lines.length === 0 && created) return null;
  return lines.length === 0 ? "" : `${lines.join(eol(text))}${eol(text)}`;
}
