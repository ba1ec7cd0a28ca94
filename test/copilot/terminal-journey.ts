// One /develop journey in the INTERACTIVE GitHub Copilot CLI (its terminal UI), as a person runs
// it: the client in tmux (../claude/scripted-model/terminal.ts) against the scripted model, the
// project and HOME of the print journey (journey.ts: dotagent installed, the folder trusted). The
// person types `/develop add login` at the prompt, answers the file-permission box the client
// shows, and types their answers at the two gates. Optionally the client's process group is
// killed (-9) when a chosen request arrives; the person then runs `copilot --resume <id>` and
// types `/develop`. What the terminal shows is in NOTES.md ("The interactive terminal").
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { startScriptedModel } from "../claude/scripted-model/server.js";
import { mainTurnText, playPerson } from "../claude/scripted-model/person-loop.js";
import { startClientTerminal, watchScreen, type Terminal } from "../claude/scripted-model/terminal.js";
import { decideCopilot } from "./copilot-model.js";
import {
  answerTo,
  copilotEnv,
  prepareCopilotProject,
  readEvents,
  readLog,
  type CopilotJourneyResult,
} from "./journey.js";

export interface CopilotTerminalOptions {
  root: string;
  copilot: string;
  /** Start the client with `--allow-all-tools` (no permission box at all). */
  allowAllTools?: boolean;
  /** Kill the client (-9) when this returns true for a request (once): its number, who asks, the newest tool result. */
  killAt?: (k: number, who: string, lastResult: string) => boolean;
  /** The model starts every agent with `mode: "background"` (the skill asks for "sync"). */
  background?: boolean;
  /** After the kill: watch the screen from the person's first prompt after `--resume` until this shows (or 60 s pass). */
  watchAfterResume?: RegExp;
  /** false: the install is left uncommitted (the person did not commit it; dotagent's own files, SPEC §19: no question for them). */
  commitInstall?: boolean;
  /** Runs after the install, before copilot (prepareCopilotProject): a test's own starting state. */
  prepare?: (project: string) => void;
  /** Watch the screen from the start until this shows (the client redraws: what scrolled away is gone). */
  watchFor?: RegExp;
  timeoutMs?: number;
}

export interface CopilotTerminalResult extends Omit<CopilotJourneyResult, "runs"> {
  /** What the person typed at the prompt, in order (`copilot --resume` is a restart, not typed). */
  typed: string[];
  /** How many permission boxes the client showed (each answered "Yes, and don't ask again … in this repo"). */
  permissionBoxes: number;
  /** The whole pane (scrollback included) at the end, and just before the kill. */
  screen: string;
  screenAtKill: string;
  /** The first screen after the resumed prompt that showed `watchAfterResume` (else the last one watched). */
  screenAfterResume: string;
  /** The screen each time the person was about to type an answer (what they read before answering). */
  screensAtAnswers: string[];
  /** The first screen that showed `watchFor` (whitespace folded), else the last one watched ("" without it). */
  screenWatched: string;
}

/** The prompt is ready: the status line under the input box names the mode. */
const READY = /Interactive · /;
/** Copilot's permission box: "Do you want to create …?" with a "don't ask again" choice (option 2). */
const PERMISSION_BOX = /Do you want to [\s\S]*2\. Yes, and don't ask again/;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runCopilotTerminalJourney(options: CopilotTerminalOptions): Promise<CopilotTerminalResult> {
  const { work, home, project, cli } = prepareCopilotProject(options.root, {
    ...(options.commitInstall === false ? { commitInstall: false } : {}),
    ...(options.prepare ? { prepare: options.prepare } : {}),
  });
  const logFile = join(work, "model.jsonl");
  const agentsDir = join(options.root, "agents");
  let killed = false;
  let eventsAtKill: CopilotJourneyResult["events"] = [];
  let screenAtKill = "";
  let terminal: Terminal | undefined;
  const hung = new Set<number>();
  const model = await startScriptedModel({
    logFile,
    agentsDir,
    policy: (body, k) =>
      decideCopilot(body, { agentsDir, seq: k, ...(options.background ? { background: true } : {}) }),
    onRequest: (k, info) => {
      if (killed || options.killAt === undefined || !options.killAt(k, info.who, info.lastToolResult?.text ?? ""))
        return "answer";
      killed = true;
      hung.add(k);
      eventsAtKill = readEvents(project);
      screenAtKill = terminal?.history() ?? "";
      setImmediate(() => terminal?.kill9());
      return "hang";
    },
  });
  const session = randomUUID();
  const flags = options.allowAllTools ? ["--allow-all-tools"] : [];
  terminal = startClientTerminal(options.copilot, copilotEnv(home, model.url), project, [
    "--session-id",
    session,
    ...flags,
  ]);
  const typed: string[] = [];
  const type = (text: string) => {
    typed.push(text);
    terminal!.type(text);
  };
  const screensAtAnswers: string[] = [];
  let permissionBoxes = 0;
  let complete = false;
  let screen = "";
  // The client draws its own scrolling view (tmux keeps only its last screen): what the resumed
  // prompt brought is read while it is on screen.
  let watch: ReturnType<typeof watchScreen> | undefined;
  let watched: ReturnType<typeof watchScreen> | undefined;
  try {
    await terminal.waitFor(READY, 120_000);
    type("/develop add login");
    if (options.watchFor !== undefined) watched = watchScreen(terminal, options.watchFor, options.timeoutMs ?? 360_000);
    complete = await playPerson({
      terminal,
      log: () => readLog(logFile),
      endedTurn: mainTurnText,
      answerTo,
      type,
      hung,
      killed: () => killed,
      // The person comes back: `copilot --resume <id>`, then `/develop` to go on.
      comeBack: async () => {
        terminal!.restart(["--resume", session, ...flags]);
        await terminal!.waitFor(READY, 120_000);
        await sleep(1000);
        if (options.watchAfterResume !== undefined) watch = watchScreen(terminal!, options.watchAfterResume);
        return "/develop";
      },
      box: async () => {
        if (!PERMISSION_BOX.test(terminal!.screen())) return false;
        permissionBoxes++;
        terminal!.press("2");
        await sleep(300);
        if (PERMISSION_BOX.test(terminal!.screen())) terminal!.press("Enter");
        await sleep(500);
        return true;
      },
      beforeAnswer: () => {
        screensAtAnswers.push(terminal!.screen());
      },
      quietMs: 1000,
      // "They are working in the background": their notifications come by themselves (under load, later than a second).
      waitForAgentsMs: 30_000,
      deadline: Date.now() + (options.timeoutMs ?? 360_000),
    });
  } finally {
    watch?.stop();
    watched?.stop();
    screen = terminal.history();
    terminal.close();
    await model.close();
  }
  const validate = spawnSync(process.execPath, [cli, "validate", "--json"], { cwd: project, encoding: "utf8" });
  return {
    work,
    project,
    home,
    session,
    log: readLog(logFile),
    killed,
    eventsAtKill,
    complete,
    validateExit: validate.status,
    events: readEvents(project),
    typed,
    permissionBoxes,
    screen,
    screenAtKill,
    screenAfterResume: watch?.seen() ?? "",
    screensAtAnswers,
    screenWatched: watched?.seen() ?? "",
  };
}
