// One /develop journey in the INTERACTIVE Codex CLI (its terminal UI, `codex` with no `exec`), as
// a person runs it: the client in tmux (../../claude/scripted-model/terminal.ts) against the
// scripted model, the project, HOME and CODEX_HOME of the exec journey (journey.ts: dotagent
// installed, the project trusted). The person answers Codex's "Hooks need review" box ("Trust all
// and continue"), types `$develop add login`, then their answers at the two gates. Optionally the
// client's process group is killed (-9) when a chosen request arrives; the person then runs
// `codex resume <id>` and types "continue". What the terminal shows: ../NOTES.md ("The interactive terminal").
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { PolicyOptions } from "../../claude/scripted-model/policy.js";
import { playPerson } from "../../claude/scripted-model/person-loop.js";
import { startClientTerminal, watchScreen, type Terminal } from "../../claude/scripted-model/terminal.js";
import {
  answerTo,
  codexEnv,
  prepareCodexProject,
  readCodexEvents,
  readCodexLog,
  writeCodexConfig,
  type CodexJourneyResult,
  type LogEntry,
} from "./journey.js";
import { startCodexModel } from "./server.js";
import type { ResponsesItem } from "./translate.js";
import { repliesSettled } from "../../support/replies-settled.js";

export interface CodexTerminalOptions {
  root: string;
  codex: string;
  policy?: PolicyOptions;
  /** Kill the client (-9) when this returns true for a request (once): its number, who asks, what it would get. */
  killWhen?: (k: number, who: string, items: ResponsesItem[]) => boolean;
  /** After the kill: watch the screen from the person's first prompt after `codex resume` until this shows (or 60 s pass). */
  watchAfterResume?: RegExp;
  /** A git project (each task in its own worktree); `commitInstall: false` leaves the install uncommitted (prepareCodexProject). */
  git?: boolean;
  commitInstall?: boolean;
  /** Runs after the install, before codex (prepareCodexProject): a test's own starting state. */
  prepare?: (project: string, cli: string) => void;
  /** Before the person types `answer` (the model's last words `said`): a string returned is typed instead. */
  beforeAnswer?: (project: string, answer: string, said: string) => string | undefined | void;
  /** Watch the screen from the start until this shows (the client redraws: what scrolled away is gone). */
  watchFor?: RegExp;
  timeoutMs?: number;
}

export interface CodexTerminalResult extends Omit<CodexJourneyResult, "runs"> {
  /** What the person typed at the prompt, in order (`codex resume` is a restart, not typed). */
  typed: string[];
  /** How many "Hooks need review" boxes Codex showed (each answered "Trust all and continue"). */
  hookReviews: number;
  /** The whole pane (scrollback included) at the end, and just before the kill. */
  screen: string;
  screenAtKill: string;
  /** The first screen after the resumed prompt that showed `watchAfterResume` (else the last one watched). */
  screenAfterResume: string;
  eventsAtKill: CodexJourneyResult["events"];
  /** The screen each time the person was about to type an answer (what they read before answering). */
  screensAtAnswers: string[];
  /** The first screen that showed `watchFor` (whitespace folded), else the last one watched ("" without it). */
  screenWatched: string;
}

/** The prompt is ready for the person's words: the composer's hint line under it. */
const READY = /\? for shortcuts/;
/** Codex's box for a project's new or changed hooks (test/codex/NOTES.md). */
const HOOK_REVIEW = /Hooks need review[\s\S]*2\. Trust all and continue/;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The interactive client runs its turns in a background app-server (CODEX_HOME/packages/
 * app-server-daemon/…, `codex app-server --listen unix:// --manage`, its own session, started by the
 * first `codex`, outliving it: NOTES.md). Its pids are in CODEX_HOME/app-server-daemon/*.pid; each
 * is killed (its group, -9) only while its command line still names this CODEX_HOME.
 */
export function killCodexDaemons(codexHome: string): number[] {
  const killed: number[] = [];
  for (const name of ["daemon.pid", "daemon-updater.pid"]) {
    const file = join(codexHome, "app-server-daemon", name);
    if (!existsSync(file)) continue;
    const pid = Number(/"pid":(\d+)/.exec(readFileSync(file, "utf8"))?.[1]);
    if (!Number.isInteger(pid) || pid <= 1) continue;
    let cmdline = "";
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    } catch {
      continue; // gone
    }
    if (!cmdline.includes(codexHome)) continue;
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        continue;
      }
    }
    killed.push(pid);
  }
  return killed;
}

/** The main agent's last answer, when it was words only (its turn ended): the words. */
function endedTurn(log: readonly LogEntry[]): string | undefined {
  const last = log.filter((e) => e.kind === "response" && e.who === "main").at(-1);
  const output = last?.output ?? [];
  if (output.length === 0 || output.some((o) => o.call !== undefined)) return undefined;
  return output.map((o) => o.text ?? "").join("\n");
}

export async function runCodexTerminalJourney(options: CodexTerminalOptions): Promise<CodexTerminalResult> {
  const { work, home, codexHome, project, cli, logFile } = prepareCodexProject(options);
  let killed = false;
  let eventsAtKill: CodexJourneyResult["events"] = [];
  let screenAtKill = "";
  let terminal: Terminal | undefined;
  const hung = new Set<number>();
  const model = await startCodexModel({
    logFile,
    agentsDir: join(options.root, "agents"),
    ...(options.policy ? { policyOptions: options.policy } : {}),
    onRequest: (k, info) => {
      if (killed || options.killWhen === undefined || !options.killWhen(k, info.who, info.items)) return "answer";
      killed = true;
      hung.add(k);
      eventsAtKill = readCodexEvents(project);
      screenAtKill = terminal?.history() ?? "";
      // A crash of the person's Codex: the terminal client and the app-server that runs its turn.
      setImmediate(() => {
        terminal?.kill9();
        killCodexDaemons(codexHome);
      });
      return "hang";
    },
  });
  writeCodexConfig(codexHome, project, model.url);
  // The terminal draws in color; NO_COLOR (the exec journey's) is dropped by startClientTerminal.
  terminal = startClientTerminal(options.codex, codexEnv(home, codexHome), project, []);
  const typed: string[] = [];
  const type = (text: string) => {
    typed.push(text);
    terminal!.type(text);
  };
  const screensAtAnswers: string[] = [];
  let hookReviews = 0;
  let complete = false;
  let screen = "";
  let session: string | undefined;
  // After `codex resume` the pane keeps no history of the conversation (Codex redraws it): what the
  // resumed prompt brought is read while it is on screen.
  let watch: ReturnType<typeof watchScreen> | undefined;
  let watched: ReturnType<typeof watchScreen> | undefined;
  /** Answers the hook review box if it shows. */
  const answerHookReview = async (): Promise<boolean> => {
    if (!HOOK_REVIEW.test(terminal!.screen())) return false;
    hookReviews++;
    terminal!.press("2");
    await sleep(300);
    if (HOOK_REVIEW.test(terminal!.screen())) terminal!.press("Enter");
    await sleep(500);
    return true;
  };
  /**
   * The prompt, the hook review answered first when it is due (new hooks: the first start). Codex
   * draws its composer about 5 s before that box, so a prompt typed at once would land in the box.
   */
  const untilReady = async (hookReviewDue: boolean) => {
    if (hookReviewDue) {
      await terminal!.waitFor(HOOK_REVIEW, 120_000);
      await answerHookReview();
    }
    await terminal!.waitFor(READY, 120_000);
    await sleep(500);
  };
  try {
    await untilReady(true);
    type("$develop add login");
    if (options.watchFor !== undefined) watched = watchScreen(terminal, options.watchFor, options.timeoutMs ?? 360_000);
    complete = await playPerson({
      terminal,
      log: () => {
        const log = readCodexLog(logFile);
        session ??= log.find((e) => e.kind === "request" && e.who === "main")?.thread as string | undefined;
        return log;
      },
      endedTurn,
      answerTo,
      type,
      hung,
      killed: () => killed,
      // The person comes back: `codex resume <id>`, then asks it to go on.
      comeBack: async () => {
        if (session === undefined) return undefined;
        terminal!.restart(["resume", session]);
        await untilReady(false);
        await sleep(1000);
        if (options.watchAfterResume !== undefined) watch = watchScreen(terminal!, options.watchAfterResume);
        return "continue";
      },
      box: answerHookReview,
      ready: READY,
      beforeAnswer: (answer) => {
        screensAtAnswers.push(terminal!.screen());
        return options.beforeAnswer?.(project, answer, endedTurn(readCodexLog(logFile)) ?? "");
      },
      quietMs: 1000,
      deadline: Date.now() + (options.timeoutMs ?? 360_000),
    });
  } finally {
    watch?.stop();
    watched?.stop();
    screen = terminal.history();
    terminal.close();
    killCodexDaemons(codexHome);
    await model.close();
  }
  // The last reply (a final gate's approval) may still be on its way to the state.
  await repliesSettled(project);
  const validate = spawnSync(process.execPath, [cli, "validate", "--json"], { cwd: project, encoding: "utf8" });
  return {
    work,
    project,
    session,
    log: readCodexLog(logFile),
    killed,
    eventsAtKill,
    complete,
    validateExit: validate.status,
    events: readCodexEvents(project),
    typed,
    hookReviews,
    screen,
    screenAtKill,
    screenAfterResume: watch?.seen() ?? "",
    screensAtAnswers,
    screenWatched: watched?.seen() ?? "",
  };
}
