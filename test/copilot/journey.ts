import { expect } from "vitest";
// One /develop journey in the real GitHub Copilot CLI against the scripted model: a temp git
// project, `dotagent install --client copilot`, an isolated HOME whose ~/.copilot/config.json
// trusts the project (repository hooks run only there), `copilot -p "/develop add login"
// --session-id <id>`, then the person's answers as `copilot -p "<answer>" --resume <id>` until the
// workflow is complete. Optionally kills copilot's process group (kill -9) when a request the
// predicate names arrives, then goes on with `copilot -p "/develop" --resume <id>`.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startScriptedModel, type LogEntry } from "../claude/scripted-model/server.js";
import type { PolicyOptions } from "../claude/scripted-model/policy.js";
import { decideCopilot } from "./copilot-model.js";
import { answerTo } from "../claude/scripted-model/journey.js";
import { repliesSettled } from "../support/replies-settled.js";
import { fetchCopilot } from "../../scripts/fetch-copilot.mjs";

export interface CopilotRun {
  prompt: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface CopilotJourneyOptions {
  root: string;
  copilot: string;
  /** Kill copilot when this returns true for a request (once): its number, who asks, the newest tool result. */
  killAt?: (k: number, who: string, lastResult: string) => boolean;
  /** Kill copilot when this returns true for a request, and end the journey there (no resume): a run cut short on purpose. */
  stopAt?: (k: number, who: string) => boolean;
  policy?: PolicyOptions;
  /** The model starts every agent with `mode: "background"` (the skill asks for "sync"). */
  background?: boolean;
  /** Also install for Claude Code (`.claude/`): Copilot then runs both sets of hooks; the Claude ones must step aside. */
  alsoClaude?: boolean;
  /** What the person types instead of the scripted answer, when it says so (e.g. a plain no). */
  beforeAnswer?: (project: string, answer: string) => string | undefined | void;
}

export interface CopilotJourneyResult {
  work: string;
  project: string;
  home: string;
  session: string;
  runs: CopilotRun[];
  log: LogEntry[];
  killed: boolean;
  /** The event log's entries when copilot was killed: what was recorded before. */
  eventsAtKill: CopilotJourneyResult["events"];
  complete: boolean;
  validateExit: number | null;
  events: Array<{ type: string; phase?: string; task_id?: string; by?: string; [key: string]: unknown }>;
}

/** The environment of the binary: an isolated HOME, the local model, nothing of an outer session. */
/** The Copilot CLI binary (scripts/fetch-copilot.mjs: from the npm registry once, then cached; in this process, no Node start). */
export function fetchCopilotBinary(): string {
  return fetchCopilot();
}

export function copilotEnv(home: string, url: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env))
    if (!/^(COPILOT|GH_|GITHUB|CLAUDE|ANTHROPIC)/.test(key)) env[key] = value;
  return Object.assign(env, {
    HOME: home,
    COPILOT_PROVIDER_BASE_URL: url,
    COPILOT_PROVIDER_TYPE: "anthropic",
    COPILOT_PROVIDER_API_KEY: "x",
    COPILOT_MODEL: "claude-sonnet-4.5",
    COPILOT_OFFLINE: "true",
    COPILOT_AUTO_UPDATE: "false",
    NO_COLOR: "1",
  });
}

let current: ChildProcess | null = null;

export function killCopilot(): void {
  if (current?.pid !== undefined && current.exitCode === null) {
    try {
      process.kill(-current.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

function runCopilot(
  binary: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
  args: string[],
  timeoutMs = 120_000,
): Promise<Omit<CopilotRun, "prompt">> {
  const started = Date.now();
  return new Promise((done) => {
    const child = spawn(binary, args, { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    current = child;
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr!.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    const timer = setTimeout(killCopilot, timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (current === child) current = null;
      done({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** What the person says to the model's last words: as in the Claude Code journeys. */
export { answerTo };

export function readLog(file: string): LogEntry[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as LogEntry);
}

/** The main agent's last words in the log after request `from`: what the person answers. */
export function lastSaid(log: LogEntry[], from: number): string {
  const said = log
    .filter((e) => e.kind === "response" && e.who === "main" && e.k > from && e.stop === "end_turn")
    .at(-1);
  return ((said?.blocks as Array<{ type: string; text?: string }> | undefined) ?? [])
    .filter((b) => b.type === "text")
    .map((b) => b.text)
    .join("\n");
}

/**
 * A temp git project with dotagent installed for Copilot (committed, unless `commitInstall` is
 * false: the person did not commit it) and a HOME whose Copilot config trusts it.
 */
export function prepareCopilotProject(
  root: string,
  options: { alsoClaude?: boolean; commitInstall?: boolean; prepare?: (project: string) => void } = {},
): { work: string; home: string; project: string; cli: string } {
  const work = mkdtempSync(join(tmpdir(), "dotagent-copilot-journey-"));
  const home = join(work, "home");
  const project = join(work, "project");
  mkdirSync(join(home, ".copilot"), { recursive: true });
  mkdirSync(project);
  const cli = join(root, "dist/dotagent.mjs");
  const git = (...args: string[]) =>
    spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: project, encoding: "utf8" });
  writeFileSync(join(project, "README.md"), "# demo app\n");
  git("init", "-q");
  git("add", ".");
  git("commit", "-qm", "init");
  const installed = spawnSync(process.execPath, [cli, "install", "--client", "copilot", "--json"], {
    cwd: project,
    encoding: "utf8",
    env: { ...process.env, HOME: home },
  });
  if (installed.status !== 0)
    throw new Error(`dotagent install --client copilot failed: ${installed.stdout}${installed.stderr}`);
  if (options.alsoClaude) {
    const claude = spawnSync(process.execPath, [cli, "install", "--json"], {
      cwd: project,
      encoding: "utf8",
      env: { ...process.env, HOME: home },
    });
    if (claude.status !== 0) throw new Error(`dotagent install failed: ${claude.stdout}${claude.stderr}`);
  }
  // The person trusted this folder in Copilot once (repository hooks run only there).
  writeFileSync(join(home, ".copilot", "config.json"), JSON.stringify({ trusted_folders: [project] }));
  // The person commits what the install wrote: the checkout is clean when the tasks start (SPEC §19).
  if (options.commitInstall !== false) {
    git("add", "-A");
    git("commit", "-qm", "dotagent install --client copilot");
  }
  options.prepare?.(project);
  return { work, home, project, cli };
}

export async function runCopilotJourney(options: CopilotJourneyOptions): Promise<CopilotJourneyResult> {
  const { work, home, project, cli } = prepareCopilotProject(
    options.root,
    options.alsoClaude ? { alsoClaude: true } : {},
  );

  const logFile = join(work, "model.jsonl");
  let killed = false;
  let stopped = false;
  let eventsAtKill: CopilotJourneyResult["events"] = [];
  const model = await startScriptedModel({
    logFile,
    agentsDir: join(options.root, "agents"),
    policy: (body, k) =>
      decideCopilot(body, {
        agentsDir: join(options.root, "agents"),
        seq: k,
        ...(options.policy ? { policy: options.policy } : {}),
        ...(options.background ? { background: true } : {}),
      }),
    onRequest: (k, info) => {
      // A loop (a refusal the script cannot get past) ends the run instead of eating the test's time.
      if (k > 150) {
        setImmediate(killCopilot);
        return "hang";
      }
      if (stopped) return "hang";
      if (options.stopAt?.(k, info.who) === true) {
        stopped = true;
        setImmediate(killCopilot);
        return "hang";
      }
      if (killed || options.killAt === undefined || !options.killAt(k, info.who, info.lastToolResult?.text ?? ""))
        return "answer";
      killed = true;
      eventsAtKill = readEvents(project);
      setImmediate(killCopilot);
      return "hang";
    },
  });
  const env = copilotEnv(home, model.url);
  const session = randomUUID();
  const runs: CopilotRun[] = [];
  let complete = false;
  try {
    let prompt = "/develop add login";
    for (let turn = 0; turn < 10; turn++) {
      const before = readLog(logFile).at(-1)?.k ?? 0;
      const args = [
        "-p",
        prompt,
        ...(turn === 0 ? ["--session-id", session] : ["--resume", session]),
        "--allow-all-tools",
        "--output-format",
        "json",
      ];
      const killedBefore = killed;
      const run = await runCopilot(options.copilot, env, project, args);
      runs.push({ prompt, ...run });
      if (stopped) break;
      if (killed && !killedBefore) {
        prompt = "/develop";
        continue;
      }
      const said = lastSaid(readLog(logFile), before);
      if (/workflow is complete/i.test(said)) {
        complete = true;
        break;
      }
      const answer = answerTo(said);
      if (answer === null) break;
      prompt = options.beforeAnswer?.(project, answer) || answer;
    }
  } finally {
    await model.close();
  }
  // The last reply (a final gate's approval) may still be on its way to the state.
  await repliesSettled(project);
  const validate = spawnSync(process.execPath, [cli, "validate", "--json"], { cwd: project, encoding: "utf8" });
  return {
    work,
    project,
    home,
    session,
    runs,
    log: readLog(logFile),
    killed,
    eventsAtKill,
    complete,
    validateExit: validate.status,
    events: readEvents(project),
  };
}

export function readEvents(project: string): CopilotJourneyResult["events"] {
  const file = join(project, "memory/state/events.jsonl");
  return existsSync(file)
    ? readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as CopilotJourneyResult["events"][number])
    : [];
}

/** The texts dotagent's hooks put into the session (Copilot's own record of it, ~/.copilot/session-state/<id>/events.jsonl). */
export function sessionText(result: Pick<CopilotJourneyResult, "home" | "session">): string {
  const file = join(result.home, ".copilot", "session-state", result.session, "events.jsonl");
  return existsSync(file) ? readFileSync(file, "utf8") : "";
}

/** The `task` calls of the log (Copilot's sub-agent spawns), with the task id an executor's prompt names. */
export function taskCalls(log: LogEntry[]): Array<{ k: number; agent: string; task?: string }> {
  return log
    .filter((e) => e.kind === "response")
    .flatMap((e) =>
      ((e.blocks as Array<{ type: string; name?: string; input?: Record<string, unknown> }>) ?? [])
        .filter((b) => b.type === "tool_use" && b.name === "task")
        .map((b) => ({
          k: e.k,
          agent: String(b.input?.agent_type),
          task: /^Task: (\S+)$/m.exec(String(b.input?.prompt ?? ""))?.[1],
        })),
    );
}

type Logged = Pick<CopilotJourneyResult, "log" | "events">;

/** Executor spawns per task id, and spawns per agent type. */
export function spawnCounts(result: Logged) {
  const calls = taskCalls(result.log);
  const byTask: Record<string, number> = {};
  const byAgent: Record<string, number> = {};
  for (const c of calls) {
    byAgent[c.agent] = (byAgent[c.agent] ?? 0) + 1;
    if (c.task) byTask[c.task] = (byTask[c.task] ?? 0) + 1;
  }
  return { byTask, byAgent };
}

/** The gates in the event log: the person's reply (their prompt, recorded by the hook), then the approval. */
export const gateTrail = (result: Logged) =>
  result.events
    .filter(
      (e) => (e.type === "person_replied" && e.phase !== undefined && e.failed !== true) || e.type === "phase_approved",
    )
    .map((e) => `${e.type === "person_replied" ? "replied" : "approved"} ${String(e.phase)}`);

/** The calls dotagent's preToolUse hook refused (Copilot's words in the tool result). */
export const denials = (result: Logged) =>
  result.log
    .filter((e) => e.kind === "tool_result" && /^Denied by preToolUse hook/.test(String(e.text)))
    .map((e) => String(e.text));

/**
 * A journey whose model started every agent in the background ended as the clean one does: every
 * agent once, each start with one end (none at its launch), no phase failed, both gates the person's.
 */
export function expectBackgroundSafe(
  result: Pick<CopilotJourneyResult, "log" | "events" | "complete" | "validateExit" | "project">,
  info: string,
): void {
  expect(result.complete, info).toBe(true);
  const { byTask, byAgent } = spawnCounts(result);
  expect(byTask, info).toEqual({ "task-001": 1, "task-002": 1, "task-003": 1 });
  expect(byAgent, info).toEqual({ pm: 1, architect: 2, roundtable: 1, executor: 3, qa: 1, reflector: 1 });
  const types = result.events.map((e) => e.type);
  expect(types.filter((t) => t === "agent_ended").length, info).toBe(types.filter((t) => t === "agent_started").length);
  expect(
    types.filter((t) => t === "phase_failed"),
    info,
  ).toEqual([]);
  expect(gateTrail(result), info).toEqual([
    "replied REQUIREMENTS",
    "approved REQUIREMENTS",
    "replied ARCHITECTURE",
    "approved ARCHITECTURE",
  ]);
  expect(result.validateExit).toBe(0);
}
