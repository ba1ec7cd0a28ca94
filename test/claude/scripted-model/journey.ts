// One /develop journey in the real Claude Code against the scripted model: a temp git project,
// `dotagent install`, `claude -p "/develop add login"`, then the person's answers as
// `claude -p --resume <session> "<answer>"` until the workflow is complete. Optionally kills the
// claude process tree (kill -9 of its process group) when request `killAt` arrives, then
// continues with `claude -p --resume <session> "/develop"`.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { killClaude, runClaude, type ClaudeRun } from "./client.js";
import { startScriptedModel, type LogEntry } from "./server.js";
import type { PolicyOptions, Reply } from "./policy.js";
import { repliesSettled } from "../../support/replies-settled.js";
import { NO_GIT_STATUS } from "./terminal-journey.js";

export interface JourneyOptions {
  root: string;
  claude: string;
  /** Kill claude when this request number arrives (or when the predicate says so), once. */
  killAt?: number | ((k: number, who: string, lastResult: string) => boolean);
  /** How the person goes on after a kill: the default is `/develop`. */
  afterKill?: string;
  /** Skills and agents installed by `dotagent install`, or a plugin set up by the caller. */
  setup?: (project: string, home: string, run: (args: string[]) => ReturnType<typeof spawnSync>) => void;
  developCommand?: string;
  /** The scripted policy's task plan and --max-parallel (default: three tasks in a chain). */
  policy?: PolicyOptions;
  /** How long each executor works before it writes its report (by the report's path). */
  executorMs?: number | ((report: string) => number);
  /** false: the project is no git repository (its tasks share the checkout, SPEC §19). Default true. */
  git?: boolean;
  /** After the install, before the first session: e.g. commit what install wrote, add permission rules. */
  afterInstall?: (project: string, home: string) => void;
  /** What the person does in their own shell before they answer the model (e.g. edit a state file by hand). */
  beforeAnswer?: (project: string, answer: string) => string | undefined | void;
}

export interface JourneyResult {
  work: string;
  project: string;
  home: string;
  runs: Array<{ prompt: string; run: ClaudeRun }>;
  log: LogEntry[];
  killed: boolean;
  /** How many events the log held when claude was killed: what was finished before. */
  eventsAtKill: number;
  complete: boolean;
  validateExit: number | null;
  events: Array<{ type: string; phase?: string; task_id?: string }>;
}

/** What the person says to the model's last words. */
export function answerTo(text: string): string | null {
  // A decision the model put to the person (commit the checkout's changes, go back to a checkpoint): yes.
  if (/Yes or no\?\s*$/.test(text)) return "yes";
  // A question handed word for word, with its answers (a briefing's, after a crash): yes.
  if (/Reply "yes" or "no"; any other reply is not taken as an answer\.\s*$/.test(text)) return "yes";
  if (/Which one\?/.test(text)) return "minimal";
  if (/approve/i.test(text)) return "approve";
  return null;
}

function executorDelay(ms: number | ((report: string) => number), who: string, reply: Reply): number {
  if (who !== "executor") return 0;
  const write = reply.blocks.find((b) => b.type === "tool_use" && b.name === "Write");
  if (write === undefined || write.type !== "tool_use") return 0;
  return typeof ms === "number" ? ms : ms(String(write.input.file_path));
}

export async function runJourney(options: JourneyOptions): Promise<JourneyResult> {
  const work = mkdtempSync(join(tmpdir(), "dotagent-journey-"));
  const home = join(work, "home");
  const project = join(work, "project");
  mkdirSync(home);
  mkdirSync(project);
  const cli = join(options.root, "dist/dotagent.mjs");
  const git = (...args: string[]) => spawnSync("git", args, { cwd: project, encoding: "utf8" });
  writeFileSync(join(project, "README.md"), "# demo app\n");
  if (options.git !== false) {
    git("init", "-q");
    git("-c", "user.name=t", "-c", "user.email=t@t", "add", ".");
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init");
  }
  const runCli = (args: string[]) =>
    spawnSync(process.execPath, [cli, ...args], {
      cwd: project,
      encoding: "utf8",
      env: { ...process.env, HOME: home, CLAUDE_CONFIG_DIR: "" },
    });
  if (options.setup) options.setup(project, home, runCli);
  else {
    const installed = runCli(["install", "--json"]);
    if (installed.status !== 0) throw new Error(`dotagent install failed: ${installed.stdout}${installed.stderr}`);
    // The person has opened this project in Claude Code once and trusted it (project
    // permission rules apply only then); print mode never asks.
    writeFileSync(
      join(home, ".claude.json"),
      JSON.stringify({ projects: { [project]: { hasTrustDialogAccepted: true } } }),
    );
  }
  // The person commits what the install wrote (.claude/, .gitignore): the main checkout is clean
  // when the tasks start, so each gets its worktree without a question (SPEC §19).
  if (options.git !== false) {
    git("-c", "user.name=t", "-c", "user.email=t@t", "add", "-A");
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "dotagent install");
  }
  options.afterInstall?.(project, home);

  const logFile = join(work, "model.jsonl");
  let killed = false;
  let eventsAtKill = 0;
  const model = await startScriptedModel({
    logFile,
    agentsDir: join(options.root, "agents"),
    ...(options.policy ? { policyOptions: options.policy } : {}),
    // The executor's work: its Write of the report comes this long after it was asked.
    ...(options.executorMs
      ? { delayMs: (who: string, reply: Reply) => executorDelay(options.executorMs!, who, reply) }
      : {}),
    onRequest: (k, info) => {
      if (killed || options.killAt === undefined) return "answer";
      const hit =
        typeof options.killAt === "number"
          ? k === options.killAt
          : options.killAt(k, info.who, info.lastToolResult?.text ?? "");
      if (!hit) return "answer";
      killed = true;
      eventsAtKill = countEvents(project);
      setImmediate(killClaude);
      return "hang";
    },
  });
  // Without the client's git status in each agent's prompt (terminal-journey.ts, NO_GIT_STATUS), but
  // when the figures are recorded: the cost bar's figures are what a person's client sends.
  const client = {
    binary: options.claude,
    home,
    url: model.url,
    env: process.env.DOTAGENT_RECORD_FIGURES === "1" ? {} : { ...NO_GIT_STATUS },
  };
  const runs: JourneyResult["runs"] = [];
  let complete = false;
  try {
    let prompt = `${options.developCommand ?? "/develop"} add login`;
    let session: string | undefined;
    for (let turn = 0; turn < 12; turn++) {
      const args = ["-p", ...(session ? ["--resume", session] : []), prompt, "--permission-mode", "acceptEdits"];
      const killedBefore = killed;
      const run = await runClaude(client, project, args);
      runs.push({ prompt, run });
      session ??= run.result?.session_id ?? sessionFromLog(logFile);
      if (!session) throw new Error(`claude gave no session id: ${run.stdout}${run.stderr}`);
      if (killed && !killedBefore) {
        prompt = options.afterKill ?? options.developCommand ?? "/develop";
        continue;
      }
      // Killed before the session was on disk: there is nothing to resume, so the person
      // starts again, as they would after `claude -r` shows no such session.
      if (
        runs.length >= 2 &&
        runs.at(-2)!.run.signal === "SIGKILL" &&
        /No conversation found/i.test(`${run.stdout}${run.stderr}`)
      ) {
        session = undefined;
        prompt = `${options.developCommand ?? "/develop"} add login`;
        continue;
      }
      const said = run.result?.result ?? "";
      if (/workflow is complete/i.test(said)) {
        complete = true;
        break;
      }
      const answer = answerTo(said);
      if (answer === null) break;
      // What the person types: the scripted answer, or what beforeAnswer says instead.
      prompt = options.beforeAnswer?.(project, answer) || answer;
    }
  } finally {
    await model.close();
  }
  // The last reply (a final gate's approval) may still be on its way to the state.
  await repliesSettled(project);
  const validate = spawnSync(process.execPath, [cli, "validate", "--json"], { cwd: project, encoding: "utf8" });
  const eventsFile = join(project, "memory/state/events.jsonl");
  const events = existsSync(eventsFile)
    ? readFileSync(eventsFile, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as JourneyResult["events"][number])
    : [];
  return {
    work,
    project,
    home,
    runs,
    log: readLog(logFile),
    killed,
    eventsAtKill,
    complete,
    validateExit: validate.status,
    events,
  };
}

function countEvents(project: string): number {
  const file = join(project, "memory/state/events.jsonl");
  return existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\n")
        .filter((l) => l.trim() !== "").length
    : 0;
}

function readLog(file: string): LogEntry[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as LogEntry);
}

/** A killed run prints no result: its session id is in the requests it made. */
function sessionFromLog(file: string): string | undefined {
  return readLog(file).find((e) => e.kind === "request" && e.who === "main" && e.session)?.session;
}

/** The agents the clean journey spawns (three tasks in a chain, two designs). */
/** The person's first answer at the requirements gate is a plain no (SPEC §11): "no, add remember-me". */
export function sayNoOnce(): (project: string, answer: string) => string | undefined {
  let said = false;
  return (_project, answer) => {
    if (said || answer !== "approve") return undefined;
    said = true;
    return "no, add remember-me";
  };
}

export const CLEAN_SPAWNS = { pm: 1, architect: 2, roundtable: 1, executor: 3, qa: 1, reflector: 1 };

export interface ToolCall {
  k: number;
  who: string;
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export function toolCalls(log: LogEntry[]): ToolCall[] {
  return log
    .filter((e) => e.kind === "response")
    .flatMap((e) =>
      ((e.blocks as Array<{ type: string; id: string; name: string; input: Record<string, unknown> }>) ?? [])
        .filter((b) => b.type === "tool_use")
        .map((b) => ({ k: e.k, who: String(e.who), id: b.id, name: b.name, input: b.input })),
    );
}

export function toolResults(log: LogEntry[]): Map<string, { is_error: boolean; text: string }> {
  return new Map(
    log
      .filter((e) => e.kind === "tool_result")
      .map((e) => [String(e.tool_use_id), { is_error: e.is_error === true, text: String(e.text) }]),
  );
}

export const isHelper = (c: ToolCall) =>
  c.name === "Bash" && /checkpoint\/scripts\/dotagent\.[cm]js" /.test(String(c.input.command));
/**
 * A tool call Claude Code did not run: an error result that is not a command's own failure
 * ("Exit code N …") nor the synthetic result of a call cut off by a kill.
 */
export const refused = (r: { is_error: boolean; text: string }) =>
  r.is_error && !/^Exit code \d+/.test(r.text) && !/interrupt|File does not exist/i.test(r.text);

/** Spawns per agent type (the plugin prefix dropped). */
export function spawns(calls: ToolCall[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const c of calls)
    if (c.name === "Agent") {
      const type = String(c.input.subagent_type).replace(/^.*:/, "");
      counts[type] = (counts[type] ?? 0) + 1;
    }
  return counts;
}

/** Write calls per file (relative to the project). */
export function writes(calls: ToolCall[], project: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const c of calls)
    if (c.name === "Write") {
      const file = String(c.input.file_path).replace(`${project}/`, "");
      counts[file] = (counts[file] ?? 0) + 1;
    }
  return counts;
}
