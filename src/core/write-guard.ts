// Who may write where in a dotagent project, for the PreToolUse hook on Write, Edit, MultiEdit,
// NotebookEdit and the Bash lines it sees (SPEC §11 "Who writes what"). The threat is the model
// itself, not an attacker: a main agent that marks a phase complete by writing phase.json (the
// next `resume` took it silently), edits execution.json (the state became "corrupt"), writes qa's
// verification.json itself ("I reviewed the changes myself": VERIFICATION completed, qa never
// ran), or an executor that writes its code into the main checkout instead of its worktree (an
// empty merge, the task recorded complete, the code outside any commit). So:
//
//   memory/state/          dotagent's alone: every Write/Edit and every Bash redirection, copy,
//                          move or removal into it is denied, with the helper command to use;
//   memory/reports/        a report counts for the agent at work: a dotagent agent writes only
//                          its own report (its `Output file:`); the main agent only the plan
//                          files (plan.json, plan.rework-N.json); final_design.json is dotagent's,
//                          written from the person's pick (`phase approve STEP --pick NAME`);
//   an executor's worktree an executor whose task has a worktree writes only inside it (its
//                          report in the main checkout aside).
//
// Anything else (another agent type, paths outside memory/ for the main agent) gets no answer:
// Claude Code's own flow decides. Paths are resolved the way the kernel does: relative to the
// call's cwd, links followed and `..` taken physically, so a path written any way that lands in
// memory/state/ is caught. The Bash reading is best effort on purpose (what the shell would
// expand at run time, a script, an interpreter's own file calls such as `python -c` are not
// seen); the Write tools are the model's way to write files and are judged exactly. Pure:
// realpath comes in.
import { REPORTS_DIR, STATE_DIR } from "./phases.js";
import { REPORT, type Flow } from "./flow.js";
import type { AgentJob, AgentName } from "./agent-job.js";
import { describeJob } from "./agent-job.js";

export interface GuardContext {
  /** The project root (the session's folder). */
  readonly root: string;
  /** The folder the call runs in (the hook input's cwd). */
  readonly cwd: string;
  /** The real path of a path, or undefined when it does not exist. */
  readonly realpath: (path: string) => string | undefined;
  /** How the model runs the helper, for the reasons: `node "<helper>"`. */
  readonly helper: string;
  /** The workflow in force (its steps say who writes which report): flowOrDefault of phase.json. */
  readonly flow: Flow;
}

/** Who makes the call: the main agent (no agent_id), one of dotagent's agents, or anyone else. */
export type Writer =
  | { readonly kind: "main" }
  | {
      readonly kind: "agent";
      readonly agent: AgentName;
      readonly job?: AgentJob | undefined;
      readonly worktree?: string | undefined;
    }
  | { readonly kind: "other" };

export type GuardVerdict = { readonly deny: false } | { readonly deny: true; readonly reason: string };

const PASS: GuardVerdict = { deny: false };
const deny = (reason: string): GuardVerdict => ({ deny: true, reason });

/**
 * A path as the kernel resolves it: relative to `cwd`, each existing component's links followed,
 * `..` the parent of what was reached (never folded lexically). Components past the first one
 * that does not exist are appended as written.
 */
export function physicalPath(path: string, cwd: string, realpath: (p: string) => string | undefined): string {
  const start = path.startsWith("/") ? path : `${cwd}/${path}`;
  let current = "/";
  let exists = true;
  for (const part of start.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      current = current === "/" ? "/" : current.slice(0, current.lastIndexOf("/")) || "/";
      continue;
    }
    const next = current === "/" ? `/${part}` : `${current}/${part}`;
    const real = exists ? realpath(next) : undefined;
    if (real === undefined) exists = false;
    current = real ?? next;
  }
  return current;
}

const inside = (path: string, dir: string) => path === dir || path.startsWith(dir.endsWith("/") ? dir : `${dir}/`);

interface Places {
  root: string;
  memory: string;
  state: string;
  reports: string;
}

function placesOf(ctx: GuardContext): Places {
  const root = ctx.realpath(ctx.root) ?? ctx.root;
  return { root, memory: `${root}/memory`, state: `${root}/${STATE_DIR}`, reports: `${root}/${REPORTS_DIR}` };
}

/**
 * Who writes a file of memory/reports/ (project-relative, `/`-separated), read from the workflow's
 * steps (develop's, fix's or a project's own definition): an agent step's report is its agent's,
 * a choose step's designs its agent's and its comparison its reducer's, a tasks step's task
 * reports its agent's, a check's report its agent's (dotagent's for a command's verdict), a shell
 * step's dotagent's, and the copies a rework round keeps dotagent's. The plan files are the main
 * agent's, final_design.json is written from the person's pick.
 */
export function reportWriter(rel: string, flow: Flow): AgentName | "main" | "dotagent" | "pick" | undefined {
  if (rel === REPORT.finalDesign) return "pick";
  if (/^memory\/reports\/plan(?:\.rework-\d+)?\.json$/.test(rel)) return "main";
  const copy = /^(.*)\.rework-\d+\.(json|md)$/.exec(rel);
  const original = copy === null ? undefined : `${copy[1]}.${copy[2]}`;
  for (const step of flow.steps) {
    if (original !== undefined && step.reports.includes(original)) return "dotagent";
    switch (step.kind) {
      case "agent":
        if (step.reports.includes(rel)) return step.agent;
        break;
      case "choose":
        if (/^memory\/reports\/designs\/[^/]+\.json$/.test(rel)) return step.agent;
        if (rel === REPORT.roundtable) return step.reducer;
        break;
      case "tasks":
        if (/^memory\/reports\/tasks\/[^/]+\.json$/.test(rel)) return step.agent;
        break;
      case "check":
      case "shell":
        if (step.reports.includes(rel))
          return step.kind === "check" && step.agent !== undefined ? step.agent : "dotagent";
        break;
    }
  }
  return undefined;
}

/** The agent of the flow's tasks step, whose reports are one per task. */
const taskAgentOf = (flow: Flow) => flow.steps.find((s) => s.kind === "tasks")?.agent;

function stateReason(rel: string, helper: string): string {
  const file = rel.slice(STATE_DIR.length + 1) || "memory/state/";
  const how =
    file === "phase.json"
      ? `a phase is completed by the person's approval (${helper} phase approve <PHASE> --json) or by the hooks when its agent's report is in`
      : file === "execution.json"
        ? `tasks come from a plan file (${helper} task import <plan file> --json), their starts and results are recorded by the hooks, a dead task is retried with ${helper} task retry <id> --json`
        : "the helper writes it with the changes it records";
  return `dotagent: ${rel} is dotagent's workflow state: only dotagent writes memory/state/ (an edit by hand is read as corrupt or taken silently). Do not write it; ${how}. ${helper} resume --json says where the workflow stands and what to do next.`;
}

function ownerPhrase(owner: ReturnType<typeof reportWriter>, flow: Flow): string {
  if (owner !== undefined && owner === taskAgentOf(flow))
    return `it is a task's report, by the ${owner} agent: spawn ${owner} for that task`;
  switch (owner) {
    case undefined:
      return `no agent of the ${flow.name} workflow writes it`;
    case "main":
      return "the /develop skill writes it (the main agent)";
    case "dotagent":
      return "dotagent writes it";
    case "pick":
      return "dotagent writes it from the person's pick: once they have named a design, run `phase approve <STEP> --pick <name> --json` (their words become its notes)";
    default:
      return `it is ${owner}'s report: spawn ${owner}`;
  }
}

/**
 * A Write, Edit, MultiEdit or NotebookEdit of `path`: denied with the reason, or passed (no answer).
 */
export function judgeFileWrite(path: string, writer: Writer, ctx: GuardContext): GuardVerdict {
  const places = placesOf(ctx);
  const target = physicalPath(path, ctx.cwd, ctx.realpath);
  const rel = inside(target, places.root) ? target.slice(places.root.length + 1) : undefined;
  if (inside(target, places.state)) return deny(stateReason(rel ?? STATE_DIR, ctx.helper));
  if (writer.kind === "other") return PASS;
  if (writer.kind === "agent" && writer.worktree !== undefined) {
    const worktree = physicalPath(writer.worktree, ctx.cwd, ctx.realpath);
    // The worktree holds a copy of memory/; its state copy is dotagent's too.
    if (inside(target, `${worktree}/${STATE_DIR}`))
      return deny(stateReason(STATE_DIR + target.slice(`${worktree}/${STATE_DIR}`.length), ctx.helper));
    const report = writer.job ? `${places.root}/${writer.job.output}` : undefined;
    if (inside(target, worktree) || target === report) return PASS;
    const there = rel !== undefined ? ` (this file there: ${worktree}/${rel})` : "";
    return deny(
      `dotagent: you are the ${writer.job ? describeJob(writer.job) : "executor"} and your task works in its own worktree, ${worktree}: write your changes there${there}, not into ${target}. Your report goes to ${report ?? "your Output file"}.`,
    );
  }
  if (rel === undefined || !inside(target, places.reports)) return PASS;
  const flow = ctx.flow;
  const owner = reportWriter(rel, flow);
  if (writer.kind === "main") {
    if (owner === "main") return PASS;
    return deny(
      `dotagent: ${rel} is not yours to write: ${ownerPhrase(owner, flow)}. A report counts only from the agent at work; you write only the plan file next.plan_file names.`,
    );
  }
  const own = writer.job ? target === `${places.root}/${writer.job.output}` : owner === writer.agent;
  if (own) return PASS;
  const yours = writer.job ? `your report is ${writer.job.output}` : `you write only ${writer.agent}'s report`;
  return deny(
    `dotagent: ${rel} is not your report (${ownerPhrase(owner, flow)}); you are the ${writer.job ? describeJob(writer.job) : writer.agent} agent and ${yours}.`,
  );
}

// ---- Bash: the redirections and file commands a line shows ----

/** A word the shell would expand at run time: its target cannot be known here. */
const DYNAMIC = /[$`*?[{~]/;

interface Segment {
  words: string[];
  /** Redirection targets (`>`, `>>`, `>|`, `&>`, `N>`, `<>`). */
  writes: string[];
}

/** Splits a line into simple commands (`;`, `&&`, `||`, `|`, `&`, newlines, parentheses) of unquoted words. */
export function shellSegments(line: string): Segment[] {
  const segments: Segment[] = [];
  let words: string[] = [];
  let writes: string[] = [];
  let word: string | null = null;
  let redirect = false;
  const endWord = () => {
    if (word === null) return;
    if (redirect) {
      writes.push(word);
      redirect = false;
    } else words.push(word);
    word = null;
  };
  const endSegment = () => {
    endWord();
    if (words.length > 0 || writes.length > 0) segments.push({ words, writes });
    words = [];
    writes = [];
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const close = line.indexOf("'", i + 1);
      const end = close === -1 ? line.length : close;
      word = (word ?? "") + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      let text = "";
      while (j < line.length && line[j] !== '"') {
        if (line[j] === "\\" && j + 1 < line.length && '"\\$`'.includes(line[j + 1]!)) j++;
        text += line[j];
        j++;
      }
      word = (word ?? "") + text;
      i = j;
    } else if (c === "\\" && i + 1 < line.length) {
      if (line[i + 1] !== "\n") word = (word ?? "") + line[i + 1];
      i++;
    } else if (c === " " || c === "\t") {
      endWord();
    } else if (c === "\n" || c === ";" || c === "(" || c === ")") {
      endSegment();
    } else if (c === "&" || c === "|") {
      if (c === "&" && line[i + 1] === ">") {
        endWord();
        redirect = true;
        i += line[i + 2] === ">" ? 2 : 1;
        continue;
      }
      if (line[i + 1] === c) i++;
      endSegment();
    } else if (c === ">" || (c === "<" && line[i + 1] === ">")) {
      // `2>&1`, `>&2`: a descriptor, not a file.
      const j = c === "<" ? i + 2 : line[i + 1] === ">" || line[i + 1] === "|" ? i + 2 : i + 1;
      if (line[j] === "&") {
        word = null;
        i = j + 1;
        while (i < line.length && /[0-9-]/.test(line[i]!)) i++;
        i--;
        continue;
      }
      // A descriptor number before `>` belongs to the operator.
      if (word !== null && /^\d+$/.test(word)) word = null;
      endWord();
      redirect = true;
      i = j - 1;
    } else if (c === "#" && word === null) {
      const nl = line.indexOf("\n", i);
      i = nl === -1 ? line.length : nl - 1;
    } else {
      word = (word ?? "") + c;
    }
  }
  endSegment();
  return segments;
}

const WRAPPERS = new Set(["sudo", "env", "command", "nohup", "time", "exec", "nice", "doas", "builtin"]);

/** The commands that remove, move or restore whole folders: a folder holding memory/state/ is theirs too. */
const WHOLE = new Set(["rm", "rmdir", "mv", "shred", "git"]);

/** The paths a simple command writes, removes or moves away (best effort: the common file commands). */
function commandTargets(words: readonly string[]): { targets: string[]; whole: boolean } {
  let i = 0;
  while (i < words.length && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!) || WRAPPERS.has(words[i]!))) i++;
  const name = (words[i] ?? "").split("/").pop() ?? "";
  return { targets: targetsOf(name, words.slice(i + 1)), whole: WHOLE.has(name) };
}

function targetsOf(name: string, args: readonly string[]): string[] {
  const operands = args.filter((a) => !a.startsWith("-") || a === "-");
  const option = (short: string, long: string) => {
    const at = args.findIndex((a) => a === short || a === long || a.startsWith(`${long}=`));
    if (at === -1) return undefined;
    const a = args[at]!;
    return a.includes("=") ? a.slice(a.indexOf("=") + 1) : args[at + 1];
  };
  switch (name) {
    case "tee":
    case "rm":
    case "rmdir":
    case "unlink":
    case "truncate":
    case "touch":
    case "shred":
    case "mkdir":
    case "mv":
      return operands;
    case "cp":
    case "ln":
    case "install":
    case "rsync": {
      const dir = option("-t", "--target-directory");
      return dir !== undefined ? [dir] : operands.slice(-1);
    }
    case "dd":
      return args.filter((a) => a.startsWith("of=")).map((a) => a.slice(3));
    case "git":
      return gitTargets(args);
    case "sed":
    case "perl": {
      if (!args.some((a) => /^-[a-zA-Z]*i/.test(a) || a.startsWith("--in-place"))) return [];
      const scripted = args.some((a) => a === "-e" || a === "-f" || a === "--expression" || a === "--file");
      return scripted ? operands : operands.slice(1);
    }
    default:
      return [];
  }
}

/** git's subcommands that write, restore or remove the files they name (`git checkout -- memory/state/…` undoes dotagent's state). */
const GIT_WRITERS = new Set(["checkout", "restore", "rm", "mv", "clean", "stash", "apply"]);

function gitTargets(args: readonly string[]): string[] {
  let dir: string | undefined;
  let i = 0;
  // Global options before the subcommand; `-C <dir>` moves where the paths are read from.
  while (i < args.length && args[i]!.startsWith("-")) {
    if (args[i] === "-C") dir = args[i + 1];
    i += args[i] === "-C" || args[i] === "-c" ? 2 : 1;
  }
  if (!GIT_WRITERS.has(args[i] ?? "")) return [];
  const operands = args.slice(i + 1).filter((a) => !a.startsWith("-"));
  return operands.map((a) => (dir === undefined || a.startsWith("/") ? a : `${dir}/${a}`));
}

/**
 * A Bash line: denied when a redirection, or a file command it can read (tee, cp, mv, rm, sed -i,
 * …), writes into memory/state/ (or removes, moves or restores a folder holding it), or, from the
 * main agent, into a report of another agent (not `undefined` ones), wherever the path leads
 * physically; a `cd` earlier on the line moves the folder the rest is resolved from. A target
 * the shell would expand at run time is denied when its text names memory/state.
 */
export function judgeBashWrite(line: string, ctx: GuardContext, writer: Writer = { kind: "other" }): GuardVerdict {
  const places = placesOf(ctx);
  let cwd = ctx.cwd;
  for (const segment of shellSegments(line)) {
    const [first, second] = segment.words;
    if (first === "cd" || first === "pushd") {
      if (second !== undefined && !DYNAMIC.test(second)) cwd = physicalPath(second, cwd, ctx.realpath);
      continue;
    }
    const command = commandTargets(segment.words);
    for (const target of [...segment.writes, ...command.targets]) {
      if (DYNAMIC.test(target)) {
        if (/memory\/+state/.test(target))
          return deny(
            `dotagent: this line writes to ${target}, which names memory/state/: only dotagent writes memory/state/. ${stateReason(STATE_DIR, ctx.helper).split(". ").slice(1).join(". ")}`,
          );
        continue;
      }
      const path = physicalPath(target, cwd, ctx.realpath);
      if (inside(path, places.state)) {
        const rel = path.slice(places.root.length + 1);
        return deny(
          stateReason(rel, ctx.helper).replace(`dotagent: ${rel} is`, `dotagent: this line writes ${rel}, which is`),
        );
      }
      // The main agent's redirection or copy into a phase agent's report (a heredoc into verification.json).
      if (writer.kind === "main" && inside(path, places.reports)) {
        const rel = path.slice(places.root.length + 1);
        const flow = ctx.flow;
        const owner = reportWriter(rel, flow);
        if (owner !== "main" && owner !== undefined)
          return deny(
            `dotagent: this line writes ${rel}, which is not yours to write: ${ownerPhrase(owner, flow)}. A report counts only from the agent at work.`,
          );
      }
      // `rm -rf memory`, `git checkout .`: the folder holds dotagent's state.
      if (command.whole && command.targets.includes(target) && inside(places.state, path)) {
        return deny(
          `dotagent: this line removes, moves or restores ${target}, which holds memory/state/, dotagent's workflow state: ${stateReason(STATE_DIR, ctx.helper).split(": ").slice(2).join(": ")}`,
        );
      }
    }
  }
  return PASS;
}
