// One /develop journey in the INTERACTIVE Claude Code client, as a person runs it in a terminal:
// the client in tmux (terminal.ts), default permission mode (auto mode, whose security monitor the
// scripted model answers), every sub-agent in the background; the person types `/develop add
// login`, then answers the questions the model asks; optionally the client is killed with -9 when
// a chosen request arrives, and the person runs `claude -r`, picks the session and goes on.
import { spawnSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { claudeEnv } from "./client.js";
import { startScriptedModel, type LogEntry } from "./server.js";
import type { PolicyOptions, Reply } from "./policy.js";
import { mainTurnText, playPerson } from "./person-loop.js";
import { startTerminal, watchScreen, type Terminal } from "./terminal.js";
import { repliesSettled } from "../../support/replies-settled.js";

export const TERMINAL_KEY = "sk-ant-dummy-key-0123456789abcdefghij";

/**
 * Claude Code without the git status (and commit instructions) in each agent's system prompt: 7 of
 * the 9 git commands it runs at each agent's start (session, sub-agent, resume) are gone, ~9% of
 * the interactive journey's CPU (issue 41; test/claude/NOTES.md). dotagent never reads them; the
 * scripted model neither. A person's client keeps them; the recorded figures do too.
 */
export const NO_GIT_STATUS = { CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS: "1" } as const;

export interface TerminalJourneyOptions {
  root: string;
  claude: string;
  /** Install as a plugin (marketplace add + plugin install) instead of `dotagent install`. */
  plugin?: { marketplace: string; name: string };
  policy?: PolicyOptions;
  /** How long an executor works before it writes its report (by the report's path). */
  executorMs?: number | ((report: string) => number);
  /** Kill the client (-9) when this request arrives, once; the person then runs `claude -r`. */
  killWhen?: (k: number, who: string, log: readonly LogEntry[]) => boolean;
  /** The kill waits (that request unanswered) until this holds, polled every 100 ms for at most 30 s: e.g. until a hook's work has landed. */
  killAfter?: () => boolean;
  /** What the person types after `claude -r` (default "continue"). */
  afterKill?: string;
  timeoutMs?: number;
  /** false: the project is no git repository (its tasks share the checkout, SPEC §19). Default true. */
  git?: boolean;
  /** After the install, before the client starts: e.g. commit what install wrote. */
  afterInstall?: (project: string, home: string) => void;
  /** What the person does in their own shell before they answer the model (e.g. edit a state file by hand). */
  beforeAnswer?: (project: string, answer: string) => string | undefined | void;
  /** What follows `/develop` in the first prompt (default "add login"; e.g. "--workflow review add login"). */
  developArgs?: string;
  /**
   * Once the person has typed `after`, the screen is watched until `until` shows on it (whitespace
   * folded): what the client shows only for a while, before its redraws take it off (`watched`).
   */
  watch?: { after: string; until: RegExp };
}

export interface TerminalJourneyResult {
  work: string;
  project: string;
  home: string;
  log: LogEntry[];
  killed: boolean;
  eventsAtKill: number;
  complete: boolean;
  validateExit: number | null;
  events: Array<{ type: string; phase?: string; task_id?: string; seq?: number }>;
  /** What the person typed, in order. */
  typed: string[];
  screen: string;
  /** The screen `watch` asked for: the first that showed its pattern, else the last one watched ("" when never typed). */
  watched: string;
  /** The whole screen history (scrollback included) each time before the person typed, and at the end; `at`: when (the model log's `t` clock). */
  screens: Array<{ before: string; screen: string; at: number }>;
}

function readLog(file: string): LogEntry[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as LogEntry);
}

/**
 * The model's log as it grows, each line parsed once: a call reads only the whole lines appended
 * since the last (the person polls it every 300 ms, the kill predicate at every request; a full
 * read each time was ~0.5 s of a journey's CPU, issue 41).
 */
function logTail(file: string): () => LogEntry[] {
  const entries: LogEntry[] = [];
  let offset = 0;
  return () => {
    const size = existsSync(file) ? statSync(file).size : 0;
    if (size > offset) {
      const bytes = Buffer.alloc(size - offset);
      const fd = openSync(file, "r");
      try {
        readSync(fd, bytes, 0, bytes.length, offset);
      } finally {
        closeSync(fd);
      }
      const end = bytes.lastIndexOf(10);
      if (end >= 0) {
        offset += end + 1;
        for (const line of bytes.subarray(0, end).toString("utf8").split("\n"))
          if (line.trim() !== "") entries.push(JSON.parse(line) as LogEntry);
      }
    }
    return entries.slice();
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

/** What the person says to the model's last words (null: nothing to answer). */
function answerTo(text: string): string | null {
  // A decision the model put to the person (commit the checkout's changes, go back to a checkpoint): yes.
  if (/Yes or no\?\s*$/.test(text)) return "yes";
  // A question handed word for word, with its answers (a briefing's, after a crash): yes.
  if (/Reply "yes" or "no"; any other reply is not taken as an answer\.\s*$/.test(text)) return "yes";
  if (/Which one\?/.test(text)) return "minimal";
  if (/approve/i.test(text) && /\?\s*$/.test(text)) return "approve";
  return null;
}

function executorDelay(ms: number | ((report: string) => number), who: string, reply: Reply): number {
  const write = reply.blocks.find((b) => b.type === "tool_use" && b.name === "Write");
  if (who !== "executor" || write === undefined || write.type !== "tool_use") return 0;
  return typeof ms === "number" ? ms : ms(String(write.input.file_path));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runTerminalJourney(options: TerminalJourneyOptions): Promise<TerminalJourneyResult> {
  const work = mkdtempSync(join(tmpdir(), "dotagent-terminal-"));
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
  if (options.plugin) {
    const env = claudeEnv({ binary: options.claude, home, url: "http://127.0.0.1:9" });
    for (const args of [
      ["plugin", "marketplace", "add", options.root],
      ["plugin", "install", `${options.plugin.name}@${options.plugin.marketplace}`],
    ]) {
      const run = spawnSync(options.claude, args, { cwd: project, env, encoding: "utf8", timeout: 60_000 });
      if (run.status !== 0) throw new Error(`claude ${args.join(" ")}: ${run.stdout}${run.stderr}`);
    }
  } else {
    const installed = spawnSync(process.execPath, [cli, "install", "--json"], {
      cwd: project,
      encoding: "utf8",
      env: { ...process.env, HOME: home, CLAUDE_CONFIG_DIR: "" },
    });
    if (installed.status !== 0) throw new Error(`dotagent install failed: ${installed.stdout}${installed.stderr}`);
  }
  // The person commits what the install wrote: the main checkout is clean when the tasks start (SPEC §19).
  if (options.git !== false) {
    git("-c", "user.name=t", "-c", "user.email=t@t", "add", "-A");
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "dotagent install");
  }
  options.afterInstall?.(project, home);
  // A person who has used Claude Code before: onboarding done, this folder trusted, the key approved.
  const configFile = join(home, ".claude.json");
  const config = existsSync(configFile)
    ? (JSON.parse(readFileSync(configFile, "utf8")) as Record<string, unknown>)
    : {};
  writeFileSync(
    configFile,
    JSON.stringify({
      ...config,
      hasCompletedOnboarding: true,
      customApiKeyResponses: { approved: [TERMINAL_KEY.slice(-20)], rejected: [] },
      projects: { [project]: { hasTrustDialogAccepted: true } },
    }),
  );
  // … who turned animations off (Claude Code's prefersReducedMotion): the spinner redrawn while the
  // client waits on the model and the hooks is a third of its CPU then (issue 41); the words on
  // the screen are the same.
  const settingsFile = join(home, ".claude/settings.json");
  const settings = existsSync(settingsFile)
    ? (JSON.parse(readFileSync(settingsFile, "utf8")) as Record<string, unknown>)
    : {};
  mkdirSync(join(home, ".claude"), { recursive: true });
  writeFileSync(settingsFile, JSON.stringify({ ...settings, prefersReducedMotion: true }));

  const logFile = join(work, "model.jsonl");
  const logSoFar = logTail(logFile);
  let killed = false;
  let eventsAtKill = 0;
  let terminal: Terminal | undefined;
  const hung = new Set<number>();
  const model = await startScriptedModel({
    logFile,
    agentsDir: join(options.root, "agents"),
    ...(options.policy ? { policyOptions: options.policy } : {}),
    ...(options.executorMs
      ? { delayMs: (who: string, reply: Reply) => executorDelay(options.executorMs!, who, reply) }
      : {}),
    onRequest: (k, info) => {
      if (killed || !options.killWhen || !options.killWhen(k, info.who, logSoFar())) return "answer";
      killed = true;
      hung.add(k);
      const killNow = () => {
        eventsAtKill = countEvents(project);
        terminal?.kill9();
      };
      if (options.killAfter === undefined) setImmediate(killNow);
      else
        void (async () => {
          const until = Date.now() + 30_000;
          while (!options.killAfter!() && Date.now() < until) await sleep(100);
          killNow();
        })();
      return "hang";
    },
  });
  const env = {
    ANTHROPIC_API_KEY: TERMINAL_KEY,
    CLAUDE_CODE_AUTO_MODE_SERVER: "0",
    // No git status in each agent's system prompt: Claude Code's 7 git commands per agent start
    // (the scripted model never reads them; test/claude/NOTES.md, issue 41), but when the figures
    // are recorded: they are what a person's client sends.
    ...(process.env.DOTAGENT_RECORD_FIGURES === "1" ? {} : NO_GIT_STATUS),
    ...(process.env.DOTAGENT_TRACE ? { DOTAGENT_TRACE: join(work, "trace.jsonl") } : {}),
  };
  terminal = startTerminal({ binary: options.claude, home, url: model.url, env }, project);
  const typed: string[] = [];
  const screens: TerminalJourneyResult["screens"] = [];
  let watcher: ReturnType<typeof watchScreen> | undefined;
  const type = (text: string) => {
    typed.push(text);
    screens.push({ before: text, screen: terminal!.history(), at: Date.now() });
    terminal!.type(text);
    if (options.watch?.after === text && watcher === undefined)
      watcher = watchScreen(terminal!, options.watch.until, 120_000);
  };
  let complete = false;
  let screen = "";
  try {
    await terminal.waitFor(/auto mode on/, 30_000);
    type(`/${options.plugin ? `${options.plugin.name}:` : ""}develop ${options.developArgs ?? "add login"}`);
    complete = await playPerson({
      terminal,
      log: logSoFar,
      endedTurn: mainTurnText,
      answerTo,
      type,
      hung,
      killed: () => killed,
      // The person comes back: `claude -r`, picks the session (the newest, at the top), goes on.
      comeBack: async () => {
        screens.push({ before: "claude -r", screen: terminal!.history(), at: Date.now() });
        terminal!.restart(["-r"]);
        await terminal!.waitFor(/Resume session/, 30_000);
        await sleep(500);
        terminal!.press("Enter");
        await terminal!.waitFor(/auto mode on/, 30_000);
        // The person reads dotagent's line first (the SessionStart hook's systemMessage, shown once
        // the hook has answered: a second or more on a loaded machine); a test asserts it is there.
        await terminal!.waitFor(/SessionStart:resume says/, 30_000).catch(() => undefined);
        await sleep(1000);
        return options.afterKill ?? "continue";
      },
      quietMs: 2500,
      // A prompt the model scheduled for the next minute comes by itself too (the schedule_approval deviation).
      waitForAgentsMs: options.policy?.deviation === "schedule_approval" ? 75_000 : 30_000,
      beforeAnswer: (answer) => options.beforeAnswer?.(project, answer),
      deadline: Date.now() + (options.timeoutMs ?? 240_000),
    });
  } finally {
    screen = terminal.screen();
    screens.push({ before: "(end)", screen: terminal.history(), at: Date.now() });
    watcher?.stop();
    terminal.close();
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
        .map((l) => JSON.parse(l) as TerminalJourneyResult["events"][number])
    : [];
  return {
    work,
    project,
    home,
    log: readLog(logFile),
    killed,
    eventsAtKill,
    complete,
    validateExit: validate.status,
    events,
    typed,
    screen,
    watched: watcher?.seen() ?? "",
    screens,
  };
}
