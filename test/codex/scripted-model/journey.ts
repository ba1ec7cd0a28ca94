// One /develop journey in the real Codex CLI against the scripted model: a temp project (without
// git by default; with git each task works in its own worktree, its lines told by a hook),
// `dotagent install --client codex`, `codex exec '$develop add login'`, then the person's answers
// as `codex exec resume <session> "<answer>"` until the workflow is complete. Optionally kills the
// codex process group (kill -9) when a request the test picks arrives, then goes on with
// `codex exec resume <session> "continue"`.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PolicyOptions } from "../../claude/scripted-model/policy.js";
import { startCodexModel } from "./server.js";
import type { ResponsesItem, ResponsesRequest } from "./translate.js";
import { answerTo } from "../../claude/scripted-model/journey.js";
import { repliesSettled } from "../../support/replies-settled.js";

export interface CodexJourneyOptions {
  root: string;
  codex: string;
  policy?: PolicyOptions;
  /** The model Codex is told it talks to: "scripted" (unknown: Codex's fallback tools) or a slug it knows (its tools: code mode). */
  model?: string;
  /** Answers in place of the policy (a probe); the journey then runs the first prompt only. */
  override?: (body: ResponsesRequest, k: number) => ResponsesItem[] | undefined;
  /** The first prompt (default `$develop add login`). */
  prompt?: string;
  /** true: a git project (install committed, so each task gets its worktree, SPEC §19). Default false. */
  git?: boolean;
  /** In a git project: false leaves what the install wrote uncommitted (the person did not commit it). Default true. */
  commitInstall?: boolean;
  /** "workspace-write": Codex's default sandbox for the model's commands (hooks still run outside it). Default: no sandbox, no approvals. */
  sandbox?: "workspace-write";
  /** Runs after the install (committed in a git project), before codex: a test's own starting state. */
  prepare?: (project: string, cli: string) => void;
  /** Kill codex when this says so (once): the request's number, who asks, what it would get. */
  killWhen?: (k: number, who: string, items: ResponsesItem[]) => boolean;
  /** What the person types instead of the scripted answer, when it says so (e.g. a plain no); `said`: the model's last words. */
  beforeAnswer?: (project: string, answer: string, said: string) => string | undefined | void;
}

export interface CodexRun {
  prompt: string;
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface LogEntry {
  kind: "request" | "response";
  k: number;
  who: string;
  output?: Array<{ text?: string; call?: string; arguments?: string }>;
  [key: string]: unknown;
}

export interface CodexJourneyResult {
  work: string;
  project: string;
  runs: CodexRun[];
  log: LogEntry[];
  killed: boolean;
  complete: boolean;
  validateExit: number | null;
  events: Array<{ type: string; phase?: string; task_id?: string; by?: string; [key: string]: unknown }>;
  session: string | undefined;
}

/** What the person says to the model's last words: as in the Claude Code journeys. */
export { answerTo };

/** The environment for the binary: no real account, no outer session, its own CODEX_HOME. */
export function codexEnv(home: string, codexHome: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env))
    if (!/^(CODEX|OPENAI|CLAUDE|ANTHROPIC)/.test(key)) env[key] = value;
  return { ...env, HOME: home, CODEX_HOME: codexHome, SCRIPTED_MODEL_KEY: "dummy", NO_COLOR: "1", RUST_LOG: "error" };
}

/** Runs `codex exec …` in its own process group (so a kill takes its children too). */
function runCodex(
  binary: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  onStart: (pid: number) => void,
): Promise<CodexRun> {
  const started = Date.now();
  return new Promise((done) => {
    const child = spawn(binary, args, { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    if (child.pid !== undefined) onStart(child.pid);
    const timer = setTimeout(() => child.pid !== undefined && process.kill(-child.pid, "SIGKILL"), 120_000);
    child.on("close", (status, signal) => {
      clearTimeout(timer);
      done({ prompt: args.at(-1) ?? "", status, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
}

export interface CodexProject {
  work: string;
  home: string;
  codexHome: string;
  project: string;
  cli: string;
  logFile: string;
}

/** A temp project with dotagent installed for Codex (and committed in a git project), an isolated HOME and CODEX_HOME. */
export function prepareCodexProject(
  options: Pick<CodexJourneyOptions, "root" | "git" | "commitInstall" | "prepare">,
): CodexProject {
  const work = mkdtempSync(join(tmpdir(), "dotagent-codex-journey-"));
  const home = join(work, "home");
  const codexHome = join(work, "codex-home");
  const project = join(work, "project");
  for (const dir of [home, codexHome, project]) mkdirSync(dir);
  writeFileSync(join(project, "README.md"), "# demo app\n");
  const git = (...args: string[]) =>
    spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: project, encoding: "utf8" });
  if (options.git === true) {
    git("init", "-q");
    git("add", ".");
    git("commit", "-qm", "init");
  }
  const cli = join(options.root, "dist/dotagent.mjs");
  const installed = spawnSync(process.execPath, [cli, "install", "--client", "codex", "--json"], {
    cwd: project,
    encoding: "utf8",
    env: { ...process.env, HOME: home },
  });
  if (installed.status !== 0)
    throw new Error(`dotagent install --client codex failed: ${installed.stdout}${installed.stderr}`);
  // The person commits what the install wrote: the checkout is clean when the tasks start.
  if (options.git === true && options.commitInstall !== false) {
    git("add", "-A");
    git("commit", "-qm", "dotagent install --client codex");
  }
  options.prepare?.(project, cli);
  return { work, home, codexHome, project, cli, logFile: join(work, "model.jsonl") };
}

/**
 * The person's Codex: the scripted model as its provider, and this project trusted (Codex loads
 * a project's .codex/ — agents, hooks — only then). Hook trust is given per run (a flag).
 */
export function writeCodexConfig(
  codexHome: string,
  project: string,
  modelUrl: string,
  model = "scripted",
  extra: string[] = [],
): void {
  writeFileSync(
    join(codexHome, "config.toml"),
    [
      `model = ${JSON.stringify(model)}`,
      'model_provider = "scripted"',
      ...extra,
      "[model_providers.scripted]",
      'name = "scripted"',
      `base_url = "${modelUrl}"`,
      'env_key = "SCRIPTED_MODEL_KEY"',
      'wire_api = "responses"',
      "request_max_retries = 0",
      "stream_max_retries = 0",
      `[projects.${JSON.stringify(project)}]`,
      'trust_level = "trusted"',
      "",
    ].join("\n"),
  );
}

export function readCodexLog(logFile: string): LogEntry[] {
  return existsSync(logFile)
    ? readFileSync(logFile, "utf8")
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as LogEntry)
    : [];
}

export function readCodexEvents(project: string): CodexJourneyResult["events"] {
  const eventsFile = join(project, "memory/state/events.jsonl");
  return existsSync(eventsFile)
    ? readFileSync(eventsFile, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as CodexJourneyResult["events"][number])
    : [];
}

export async function runCodexJourney(options: CodexJourneyOptions): Promise<CodexJourneyResult> {
  const { work, home, codexHome, project, cli, logFile } = prepareCodexProject(options);
  let killed = false;
  let pid: number | undefined;
  const model = await startCodexModel({
    logFile,
    agentsDir: join(options.root, "agents"),
    ...(options.policy ? { policyOptions: options.policy } : {}),
    ...(options.override ? { override: options.override } : {}),
    onRequest: (k, info) => {
      if (killed || options.killWhen === undefined || !options.killWhen(k, info.who, info.items)) return "answer";
      killed = true;
      setImmediate(() => pid !== undefined && process.kill(-pid, "SIGKILL"));
      return "hang";
    },
  });
  writeCodexConfig(codexHome, project, model.url, options.model);
  const env = codexEnv(home, codexHome);
  // Inside the test's temp folder only: no sandbox (or the one asked for; `exec` never asks for an
  // approval), the project's hooks run untrusted-by-review.
  const sandbox =
    options.sandbox === undefined
      ? ["--dangerously-bypass-approvals-and-sandbox"]
      : ["-c", `sandbox_mode="${options.sandbox}"`];
  const flags = [...sandbox, "--dangerously-bypass-hook-trust", "--skip-git-repo-check"];
  const runs: CodexRun[] = [];
  let complete = false;
  let session: string | undefined;
  try {
    let prompt = options.prompt ?? "$develop add login";
    for (let turn = 0; turn < 12; turn++) {
      const killedBefore = killed;
      const args = session === undefined ? ["exec", ...flags, prompt] : ["exec", "resume", ...flags, session, prompt];
      const run = await runCodex(options.codex, args, project, env, (p) => (pid = p));
      runs.push(run);
      session ??= /session id: ([0-9a-f-]{36})/.exec(run.stderr)?.[1];
      if (session === undefined)
        throw new Error(`codex gave no session id (exit ${run.status ?? run.signal}):\n${run.stdout}\n${run.stderr}`);
      if (killed && !killedBefore) {
        prompt = "continue";
        continue;
      }
      if (options.override) break;
      const said = run.stdout.trim();
      if (/workflow is complete/i.test(said)) {
        complete = true;
        break;
      }
      const answer = answerTo(said);
      if (answer === null) break;
      prompt = options.beforeAnswer?.(project, answer, said) || answer;
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
    runs,
    log: readCodexLog(logFile),
    killed,
    complete,
    validateExit: validate.status,
    events: readCodexEvents(project),
    session,
  };
}

/** Each spawn_agent call the scripted model made (not the history Codex resends): agent type and task. */
export function spawnsIn(log: readonly LogEntry[]): Array<{ type: string; task: string | undefined }> {
  return log
    .filter((e) => e.kind === "response")
    .flatMap((e) => e.output ?? [])
    .filter((o) => o.call === "spawn_agent")
    .map((o) => {
      const a = JSON.parse(o.arguments ?? "{}") as { agent_type?: string; message?: string };
      return { type: String(a.agent_type), task: /^Task: (\S+)$/m.exec(a.message ?? "")?.[1] };
    });
}

/** Executor spawns per task, and spawns per agent type. */
export function spawnCounts(log: readonly LogEntry[]): {
  perTask: Record<string, number>;
  perType: Record<string, number>;
} {
  const perTask: Record<string, number> = {};
  const perType: Record<string, number> = {};
  for (const s of spawnsIn(log)) {
    perType[s.type] = (perType[s.type] ?? 0) + 1;
    if (s.task !== undefined) perTask[s.task] = (perTask[s.task] ?? 0) + 1;
  }
  return { perTask, perType };
}
