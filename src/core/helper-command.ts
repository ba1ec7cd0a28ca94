// Which Bash command lines are dotagent's own, for the PreToolUse hook that lets them run without
// a permission prompt or the auto-mode check (SPEC §11). It is a security boundary, so it is
// strict: a line is allowed only when this module can read every character of it. The grammar is
// a small subset of the POSIX shell with no expansion of any kind:
//
//   node <helper> <subcommand> <word>…
//
// where a word is unquoted safe characters, a '…' string, a "…" string without $ ` \ !, or the
// documented here-document for free text, "$(cat <<'EOF'\n…\nEOF\n)" (quoted delimiter: the body
// is never expanded; a body line equal to the delimiter would end it early, so it is refused).
// The helper must be the very file the hook runs from; the subcommand one that only touches
// dotagent's own state (never `once`, which runs any command, nor `run`, `install` or `hook`).
// Anything else (an operator, a pipe, a redirection, a substitution, a glob, a look-alike path)
// is not answered: Claude Code's normal permission flow decides. Pure: realpath comes in.

/** Subcommands the hook allows: they read or change only the workflow state under memory/. */
export const ALLOWED_SUBCOMMANDS = ["init", "resume", "status", "validate", "phase", "task", "archive", "log", "history", "rollback", "schema", "doctor"] as const;

export type HelperVerdict = { allow: true; subcommand: string } | { allow: false; why: string };

export interface HelperContext {
  /** The real path of the helper the hook runs from. */
  readonly helper: string;
  /** The project root (the session's folder). */
  readonly root: string;
  /** The folder the command runs in (the Bash tool's cwd). */
  readonly cwd: string;
  /** The real path of a path, `..` taken physically as the kernel does, or undefined when it does not exist. */
  readonly realpath: (path: string) => string | undefined;
}

/** A path as the shell hands it to the kernel: relative to cwd, `..` not folded lexically (a link's `..` is its target's parent). */
const atCwd = (cwd: string, path: string) => (path.startsWith("/") ? path : `${cwd}/${path}`);

const SAFE = /[A-Za-z0-9_@%+=:,./-]/;
const HEREDOC = /^"\$\(cat <<'([A-Za-z_][A-Za-z0-9_]*)'\n/;

type Scan = { ok: true; words: string[] } | { ok: false; why: string };

/** Splits a command line into words, or says which character it cannot read. */
export function scanWords(line: string): Scan {
  const words: string[] = [];
  let i = 0;
  const n = line.length;
  while (i < n) {
    const c = line[i]!;
    if (c === " " || c === "\t") {
      i++;
      continue;
    }
    let word = "";
    while (i < n && line[i] !== " " && line[i] !== "\t") {
      const ch = line[i]!;
      if (ch === "'") {
        const end = line.indexOf("'", i + 1);
        if (end === -1) return { ok: false, why: "an unterminated ' quote" };
        word += line.slice(i + 1, end);
        i = end + 1;
      } else if (ch === '"') {
        const heredoc = HEREDOC.exec(line.slice(i));
        if (heredoc) {
          const delimiter = heredoc[1]!;
          const start = i + heredoc[0].length;
          const close = `\n${delimiter}\n)"`;
          const end = line.indexOf(close, start - 1);
          if (end === -1) return { ok: false, why: `a here-document not closed by a "${delimiter}" line and )"` };
          const body = line.slice(start, end);
          if (body.split("\n").some((l) => l === delimiter)) return { ok: false, why: "a here-document whose text holds its own end line" };
          word += body;
          i = end + close.length;
        } else {
          const end = line.indexOf('"', i + 1);
          if (end === -1) return { ok: false, why: 'an unterminated " quote' };
          const inner = line.slice(i + 1, end);
          const bad = /[$`\\!]/.exec(inner);
          if (bad) return { ok: false, why: `${JSON.stringify(bad[0])} inside "…" (it expands)` };
          word += inner;
          i = end + 1;
        }
      } else if (SAFE.test(ch)) {
        word += ch;
        i++;
      } else {
        return { ok: false, why: `the character ${JSON.stringify(ch)}` };
      }
    }
    words.push(word);
  }
  return { ok: true, words };
}

/** Values of options that name a path, checked to stay in the project. */
function insideProject(path: string, ctx: HelperContext): boolean {
  const full = atCwd(ctx.cwd, path);
  // A file not written yet: its folder must be inside (its own name cannot climb out).
  const slash = full.lastIndexOf("/");
  const name = full.slice(slash + 1);
  const real = ctx.realpath(full) ?? (name !== "" && name !== "." && name !== ".." ? withName(ctx.realpath(full.slice(0, slash) || "/"), name) : undefined);
  const root = ctx.realpath(ctx.root) ?? ctx.root;
  return real !== undefined && (real === root || real.startsWith(`${root}/`));
}

const withName = (folder: string | undefined, name: string) => (folder === undefined ? undefined : `${folder === "/" ? "" : folder}/${name}`);

export function judgeHelperCommand(command: string, ctx: HelperContext): HelperVerdict {
  const scan = scanWords(command.trim());
  if (!scan.ok) return { allow: false, why: scan.why };
  const [program, helper, subcommand, ...args] = scan.words;
  if (program !== "node") return { allow: false, why: "it does not start with node" };
  if (helper === undefined || !/dotagent\.mjs$/.test(helper)) return { allow: false, why: "it does not run the dotagent helper" };
  const real = ctx.realpath(atCwd(ctx.cwd, helper));
  if (real === undefined || real !== ctx.helper) return { allow: false, why: `${helper} is not this project's installed helper` };
  if (subcommand === undefined) return { allow: false, why: "no subcommand" };
  if (!(ALLOWED_SUBCOMMANDS as readonly string[]).includes(subcommand) && !["--help", "--version", "-h", "-v"].includes(subcommand)) {
    return { allow: false, why: `the subcommand ${JSON.stringify(subcommand)} is left to Claude Code's permission check` };
  }
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = arg.startsWith("--dir=") ? arg.slice(6) : arg === "--dir" ? args[i + 1] : undefined;
    if (value !== undefined && !insideProject(value, ctx)) return { allow: false, why: "--dir names another folder" };
  }
  if (subcommand === "task" && args[0] === "import") {
    const file = args.slice(1).find((a) => !a.startsWith("-"));
    if (file === undefined || !insideProject(file, ctx)) return { allow: false, why: "task import of a file outside the project (or standard input)" };
  }
  return { allow: true, subcommand };
}
