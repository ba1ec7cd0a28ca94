// Which Bash command lines are dotagent's own, for the PreToolUse hook that lets them run without
// a permission prompt or the auto-mode check (SPEC §11, "The allow grammar").
//
// THREAT. The line comes from the model, and anything an agent wrote can steer the model: a line
// this module allows runs with nobody asked. So it allows a line only when it can say exactly
// which argv the shell hands to the kernel, and that argv is `node <helper> <subcommand> …` with
// words the subcommand's own option table reads the way this module does. The shell is the
// user's (Claude Code runs bash or zsh; scripts may use a POSIX sh such as dash), so a line must
// mean the same argv in all three: `test/allow-grammar-shells.test.ts` runs every allowed form in
// the real bash, dash and zsh and compares. Known traps this module closes:
// - bash 5.1/5.2 ends a here-document inside `$( … )` at a line that merely STARTS with the
//   delimiter (`EOF)`, `EOF )`, `EOF<TAB>)`: parse_comsub), and the rest of the line then runs as
//   commands: every body line that starts with the delimiter, after blanks, is refused;
// - control characters (NUL, CR, ESC, DEL, C1, line separators) are refused anywhere: shells
//   differ on them and they hide text from a person reading the line;
// - zsh expands an unquoted word starting with `=` to a command's path (EQUALS): refused;
// - a positional that names a file is found with the command's own option table (`task import
//   --title a.json /etc/passwd` imports /etc/passwd), never by guessing which word it is.
// Out of scope (the session's shell as the person set it up): aliases or functions named `node`
// or `cat` in the person's shell start-up files, and which `node` PATH finds.
//
// The grammar, a subset of the POSIX shell with no expansion of any kind:
//
//   node <helper> <subcommand> <word>…
//
// where a word is unquoted safe characters (`A-Za-z0-9_@%+=:,./-`, not starting with `=`), a
// '…' string, a "…" string without $ ` \ !, or the documented here-document for free text,
// "$(cat <<'EOF'\n…\nEOF\n)" (quoted delimiter: the body is never expanded). The helper must be
// the very file the hook runs from; the subcommand one that only touches dotagent's own state
// (never `once`, which runs any command, nor `run`, `install` or `hook`). Anything else is not
// answered: Claude Code's normal permission flow decides. Pure: realpath comes in.

/** Subcommands the hook allows: they read or change only the workflow state under memory/. */
export const ALLOWED_SUBCOMMANDS = [
  "init",
  "resume",
  "status",
  "validate",
  "phase",
  "task",
  "tasks",
  "archive",
  "log",
  "history",
  "rollback",
  "schema",
  "doctor",
  "step",
  "workflows",
  "workflow-run",
] as const;
export type AllowedSubcommand = (typeof ALLOWED_SUBCOMMANDS)[number];

export type HelperVerdict = { allow: true; subcommand: string; argv: string[] } | { allow: false; why: string };

export interface HelperContext {
  /**
   * The real path of the helper the hook runs from: dotagent.cjs or dotagent.mjs. A line may run
   * either of the two, beside each other (SPEC §13 "Start-up"): the skills' run dotagent.cjs, an
   * earlier skill's and a resumed session's dotagent.mjs.
   */
  readonly helper: string;
  /** The project root (the session's folder). */
  readonly root: string;
  /** The folder the command runs in (the Bash tool's cwd). */
  readonly cwd: string;
  /** The real path of a path, `..` taken physically as the kernel does, or undefined when it does not exist. */
  readonly realpath: (path: string) => string | undefined;
}

/** An option as the CLI's parser (node:util parseArgs, strict) reads it; `path`: its value must stay in the project. */
export interface OptionRule {
  readonly type: "string" | "boolean";
  readonly short?: string;
  readonly path?: boolean;
  /**
   * An option the CLI takes that the grammar never lets through, and why (the line then gets no
   * answer: the client asks the person): `--claims` reads the git remote, which runs git's
   * transport and the person's credentials.
   */
  readonly asks?: string;
}

/** Options every command takes (src/cli/main.ts GLOBAL_OPTIONS). */
export const GLOBAL_OPTION_RULES: Readonly<Record<string, OptionRule>> = {
  dir: { type: "string", path: true },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
  debug: { type: "boolean" },
};

interface CommandRule {
  /** The command's own options (src/cli/commands/<name>.ts `options`; a test keeps the two equal). */
  readonly options: Readonly<Record<string, OptionRule>>;
  /** Why these positionals are not a form the command documents (none when they are), and which of them name files. */
  readonly positionals: (words: readonly string[]) => { why?: string; files?: string[] };
}

const none = (words: readonly string[]) =>
  words.length === 0 ? {} : { why: `an unexpected argument ${JSON.stringify(words[0])}` };
/** `<action> [args]` with each action's exact number of arguments; `bare`: no action at all is a form too. */
const oneOf =
  (forms: Readonly<Record<string, number>>, bare = false) =>
  (words: readonly string[]) => {
    if (words.length === 0) return bare ? {} : { why: "no action" };
    const arity = forms[words[0]!];
    if (arity === undefined) return { why: `the action ${JSON.stringify(words[0])}` };
    return words.length - 1 === arity ? {} : { why: `${words[0]} takes ${arity} argument(s)` };
  };

/** `status --claims` and `tasks --claims` read the git remote (SPEC §23): the person's yes, never the grammar's. */
const REMOTE_ASKS: Readonly<Record<string, OptionRule>> = {
  claims: { type: "boolean", asks: "it reads the git remote" },
  remote: { type: "string", asks: "it names a git remote" },
};

export const COMMAND_RULES: Readonly<Record<AllowedSubcommand, CommandRule>> = {
  init: {
    options: {
      request: { type: "string" },
      workflow: { type: "string" },
      "workflow-id": { type: "string" },
      yes: { type: "boolean", short: "y" },
    },
    positionals: none,
  },
  resume: {
    options: {
      "max-parallel": { type: "string" },
      request: { type: "string" },
      "dry-run": { type: "boolean" },
      start: { type: "boolean" },
      workflow: { type: "string" },
      yes: { type: "boolean", short: "y" },
      "stale-after": { type: "string" },
      isolation: { type: "string" },
      "keep-edit": { type: "boolean" },
      "keep-definition": { type: "boolean" },
    },
    positionals: none,
  },
  status: { options: { "stale-after": { type: "string" }, ...REMOTE_ASKS }, positionals: none },
  validate: { options: { "stale-after": { type: "string" } }, positionals: none },
  doctor: {
    options: { "stale-after": { type: "string" }, headless: { type: "boolean" }, client: { type: "string" } },
    positionals: none,
  },
  phase: {
    options: {
      output: { type: "string", path: true },
      error: { type: "string" },
      designs: { type: "string" },
      pick: { type: "string" },
      notes: { type: "string" },
    },
    // `phase <action> [PHASE]`
    positionals: (words) =>
      words.length === 0
        ? { why: "no action" }
        : !["start", "complete", "fail", "approve", "rework"].includes(words[0]!)
          ? { why: `the action ${JSON.stringify(words[0])}` }
          : words.length > 2
            ? { why: `an unexpected argument ${JSON.stringify(words[2])}` }
            : {},
  },
  task: {
    options: {
      title: { type: "string" },
      "depends-on": { type: "string" },
      output: { type: "string", path: true },
      error: { type: "string" },
      "extra-attempts": { type: "string" },
      owner: { type: "string" },
      reason: { type: "string" },
      yes: { type: "boolean", short: "y" },
    },
    positionals: (words) => {
      const [action, ...rest] = words;
      if (action === "next") return none(rest);
      if (action === "import") return rest.length === 1 ? { files: [rest[0]!] } : { why: "task import takes one FILE" };
      // edit, remove, skip: the person's decision from an agent's shell (the CLI asks it, SPEC §10).
      if (
        action !== undefined &&
        ["add", "start", "complete", "fail", "retry", "edit", "remove", "skip"].includes(action)
      )
        return rest.length === 1 ? {} : { why: `task ${action} takes one task id` };
      return { why: action === undefined ? "no action" : `the action ${JSON.stringify(action)}` };
    },
  },
  tasks: {
    options: {
      status: { type: "string" },
      watch: { type: "boolean" },
      "workflow-runs": { type: "boolean" },
      ...REMOTE_ASKS,
    },
    positionals: oneOf({ show: 1 }, true),
  },
  archive: {
    options: { reason: { type: "string" }, yes: { type: "boolean", short: "y" } },
    positionals: oneOf({ list: 0, restore: 1 }, true),
  },
  log: { options: { n: { type: "string", short: "n" } }, positionals: none },
  history: { options: {}, positionals: oneOf({ show: 1 }, true) },
  rollback: { options: { to: { type: "string" }, yes: { type: "boolean", short: "y" } }, positionals: none },
  schema: {
    options: {},
    positionals: (words) =>
      words.length === 1 && ["phase", "execution", "task-output", "workflow"].includes(words[0]!)
        ? {}
        : { why: "schema takes one of phase, execution, task-output, workflow" },
  },
  // `step run STEP`: the command runs only after the person approved it (dotagent asks them, SPEC §20).
  step: {
    options: { again: { type: "boolean" }, yes: { type: "boolean", short: "y" } },
    positionals: (words) => (words.length === 2 && words[0] === "run" ? {} : { why: "step takes run STEP" }),
  },
  workflows: {
    options: {},
    positionals: (words) =>
      words.length === 0 ||
      (words[0] === "list" && words.length === 1) ||
      (words[0] === "show" && words.length === 2) ||
      words[0] === "validate"
        ? {}
        : { why: "workflows takes list, show NAME or validate [NAME…]" },
  },
  // `workflow-run resume RUN_ID`: a run whose copy is not trusted resumes only on the person's yes (SPEC §11).
  "workflow-run": {
    options: { yes: { type: "boolean", short: "y" } },
    positionals: oneOf({ resume: 1, forget: 1 }),
  },
};

/** A path as the shell hands it to the kernel: relative to cwd, `..` not folded lexically (a link's `..` is its target's parent). */
const atCwd = (cwd: string, path: string) => (path.startsWith("/") ? path : `${cwd}/${path}`);

const SAFE = /[A-Za-z0-9_@%+=:,./-]/;
const HEREDOC = /^"\$\(cat <<'([A-Za-z_][A-Za-z0-9_]*)'\n/;
/** C0 controls but TAB and LF, DEL, C1 controls, and the Unicode line and paragraph separators. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/;

type Scan = { ok: true; words: string[] } | { ok: false; why: string };

const describeChar = (ch: string) =>
  ch.length === 1 && (ch < " " || ch === "\u007f")
    ? `U+${ch.charCodeAt(0).toString(16).padStart(4, "0").toUpperCase()}`
    : JSON.stringify(ch);

/** Splits a command line into words, or says which character it cannot read. */
export function scanWords(line: string): Scan {
  const control = CONTROL.exec(line);
  if (control) return { ok: false, why: `the control character ${describeChar(control[0])}` };
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
    const start = i;
    while (i < n && line[i] !== " " && line[i] !== "\t") {
      const ch = line[i]!;
      if (ch === "'") {
        const end = line.indexOf("'", i + 1);
        if (end === -1) return { ok: false, why: "an unterminated ' quote" };
        const inner = line.slice(i + 1, end);
        if (inner.includes("\n")) return { ok: false, why: "a line break inside '…'" };
        word += inner;
        i = end + 1;
      } else if (ch === '"') {
        const heredoc = HEREDOC.exec(line.slice(i));
        if (heredoc) {
          const delimiter = heredoc[1]!;
          const bodyStart = i + heredoc[0].length;
          const close = `\n${delimiter}\n)"`;
          const end = line.indexOf(close, bodyStart - 1);
          if (end === -1) return { ok: false, why: `a here-document not closed by a "${delimiter}" line and )"` };
          const body = end < bodyStart ? "" : line.slice(bodyStart, end);
          // bash ends the here-document at a line that only starts with the delimiter (`EOF)`).
          if (body.split("\n").some((l) => l.replace(/^[ \t]+/, "").startsWith(delimiter)))
            return { ok: false, why: `a here-document text line that starts with its end word ${delimiter}` };
          // $( … ) drops every trailing line break of cat's output.
          word += body.replace(/\n+$/, "");
          i = end + close.length;
        } else {
          const end = line.indexOf('"', i + 1);
          if (end === -1) return { ok: false, why: 'an unterminated " quote' };
          const inner = line.slice(i + 1, end);
          const bad = /[$`\\!\n]/.exec(inner);
          if (bad)
            return {
              ok: false,
              why: bad[0] === "\n" ? 'a line break inside "…"' : `${JSON.stringify(bad[0])} inside "…" (it expands)`,
            };
          word += inner;
          i = end + 1;
        }
      } else if (SAFE.test(ch)) {
        // zsh expands an unquoted word that starts with = (=node is node's path).
        if (ch === "=" && i === start) return { ok: false, why: "a word starting with = (zsh expands it)" };
        word += ch;
        i++;
      } else {
        return { ok: false, why: `the character ${describeChar(ch)}` };
      }
    }
    words.push(word);
  }
  return { ok: true, words };
}

type Parsed =
  { ok: true; positionals: string[]; paths: string[]; values: Record<string, string> } | { ok: false; why: string };

/** Reads the words after the subcommand as the CLI's strict parseArgs does, with the command's own table. */
export function readOptions(words: readonly string[], options: Readonly<Record<string, OptionRule>>): Parsed {
  const all: Record<string, OptionRule> = { ...GLOBAL_OPTION_RULES, ...options };
  const byShort = new Map(
    Object.entries(all).flatMap(([name, rule]) => (rule.short ? [[rule.short, name] as const] : [])),
  );
  const positionals: string[] = [];
  const paths: string[] = [];
  const values: Record<string, string> = {};
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === "--") return { ok: false, why: "--" };
    if (word.startsWith("--")) {
      const eq = word.indexOf("=");
      const name = word.slice(2, eq === -1 ? undefined : eq);
      const rule = all[name];
      if (rule === undefined) return { ok: false, why: `the option --${name}` };
      if (rule.asks !== undefined) return { ok: false, why: `--${name} (${rule.asks})` };
      if (rule.type === "boolean") {
        if (eq !== -1) return { ok: false, why: `--${name} takes no value` };
        continue;
      }
      const value: string | undefined = eq === -1 ? words[++i] : word.slice(eq + 1);
      if (value === undefined || (eq === -1 && value.startsWith("-")))
        return { ok: false, why: `--${name} without its value` };
      if (rule.path) paths.push(value);
      values[name] = value;
      continue;
    }
    if (word.startsWith("-") && word !== "-") {
      // Short options, grouped as parseArgs reads them (-yh, -n5, -n 5).
      for (let k = 1; k < word.length; k++) {
        const name = byShort.get(word[k]!);
        if (name === undefined) return { ok: false, why: `the option -${word[k]}` };
        if (all[name]!.asks !== undefined) return { ok: false, why: `-${word[k]} (${all[name]!.asks})` };
        if (all[name]!.type === "string") {
          const value = k + 1 < word.length ? word.slice(k + 1) : words[++i];
          if (value === undefined || (k + 1 === word.length && value.startsWith("-")))
            return { ok: false, why: `-${word[k]} without its value` };
          if (all[name]!.path) paths.push(value);
          values[name] = value;
          break;
        }
      }
      continue;
    }
    positionals.push(word);
  }
  return { ok: true, positionals, paths, values };
}

/** Values of options that name a path, checked to stay in the project. */
function insideProject(path: string, ctx: HelperContext): boolean {
  const full = atCwd(ctx.cwd, path);
  // A file not written yet: its folder must be inside (its own name cannot climb out).
  const slash = full.lastIndexOf("/");
  const name = full.slice(slash + 1);
  const real =
    ctx.realpath(full) ??
    (name !== "" && name !== "." && name !== ".."
      ? withName(ctx.realpath(full.slice(0, slash) || "/"), name)
      : undefined);
  const root = ctx.realpath(ctx.root) ?? ctx.root;
  return real !== undefined && (real === root || real.startsWith(`${root}/`));
}

const withName = (folder: string | undefined, name: string) =>
  folder === undefined ? undefined : `${folder === "/" ? "" : folder}/${name}`;

/** The helper's other entry, beside it: dotagent.mjs for dotagent.cjs and the other way round (real, when it exists). */
function besideEntry(ctx: HelperContext): string | undefined {
  const other = ctx.helper.replace(/\.([cm])js$/, (_all, kind: string) => (kind === "c" ? ".mjs" : ".cjs"));
  return other === ctx.helper ? undefined : ctx.realpath(other);
}

export function judgeHelperCommand(command: string, ctx: HelperContext): HelperVerdict {
  const scan = scanWords(command.replace(/^[ \t]+|[ \t]+$/g, ""));
  if (!scan.ok) return { allow: false, why: scan.why };
  const [program, helper, subcommand, ...args] = scan.words;
  if (program !== "node") return { allow: false, why: "it does not start with node" };
  if (helper === undefined || !/dotagent\.[cm]js$/.test(helper))
    return { allow: false, why: "it does not run the dotagent helper" };
  const real = ctx.realpath(atCwd(ctx.cwd, helper));
  if (real === undefined || (real !== ctx.helper && real !== besideEntry(ctx)))
    return { allow: false, why: `${helper} is not this project's installed helper` };
  if (subcommand === undefined) return { allow: false, why: "no subcommand" };
  const argv = scan.words.slice(1);
  if (["--help", "--version", "-h", "-v"].includes(subcommand))
    return args.length === 0
      ? { allow: true, subcommand, argv }
      : { allow: false, why: `an argument after ${subcommand}` };
  const rule = (COMMAND_RULES as Readonly<Record<string, CommandRule>>)[subcommand];
  if (rule === undefined)
    return {
      allow: false,
      why: `the subcommand ${JSON.stringify(subcommand)} is left to Claude Code's permission check`,
    };
  const parsed = readOptions(args, rule.options);
  if (!parsed.ok) return { allow: false, why: `${parsed.why} is not what \`${subcommand}\` reads` };
  const shape = rule.positionals(parsed.positionals);
  if (shape.why !== undefined) return { allow: false, why: `${shape.why} is not what \`${subcommand}\` reads` };
  for (const path of parsed.paths)
    if (!insideProject(path, ctx))
      return { allow: false, why: `the path ${JSON.stringify(path)} leads out of the project` };
  for (const file of shape.files ?? []) {
    if (file === "-" || !insideProject(file, ctx))
      return { allow: false, why: `${subcommand} of a file outside the project (or standard input)` };
  }
  return { allow: true, subcommand, argv };
}

/** The fields /develop gives a dotagent agent's spawn (SPEC §11); anything else (`isolation: "remote"`, `model`, `cwd`) is not allowed with it. */
const SPAWN_FIELDS: Readonly<Record<string, "string" | "boolean">> = {
  subagent_type: "string",
  description: "string",
  prompt: "string",
  run_in_background: "boolean",
};

/** Why an Agent call's input is not a spawn as /develop makes it, or undefined when it is. */
export function judgeSpawnInput(input: Readonly<Record<string, unknown>>): string | undefined {
  const extra = Object.keys(input).filter((key) => !Object.hasOwn(SPAWN_FIELDS, key));
  if (extra.length > 0)
    return `a dotagent agent is spawned with ${Object.keys(SPAWN_FIELDS).join(", ")} only; leave out ${extra.map((k) => JSON.stringify(k.slice(0, 40))).join(", ")}`;
  const wrong = Object.entries(SPAWN_FIELDS).find(
    ([key, type]) => input[key] !== undefined && typeof input[key] !== type,
  );
  return wrong ? `${wrong[0]} must be a ${wrong[1]}` : undefined;
}
