// Shared machinery of the torture suites: a seeded random source, temp projects, running the
// BUILT CLI (optionally SIGKILLed at a chosen moment through the kill-at.mjs preload), reading
// what is on disk afterwards, and the figures the long run prints. The bounded vitest suites and
// run-long.mjs (which runs the same suites with bigger counts) share all of it.
import { spawn, spawnSync } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadSnapshotSync } from "../../src/store/load-sync.js";
import { projectPaths } from "../../src/store/project.js";
import { validateState, type Problem } from "../../src/core/validate.js";
import { planResume, type ResumePlan } from "../../src/core/plan-resume.js";
import { readEvents, type EventRecord } from "../../src/store/events.js";
import { judgeRunningTasks } from "../../src/store/process-facts.js";
import { decodeJson } from "../../src/schema/common.js";
import { list as listTar, type ReadEntry } from "tar";
import { parsePhaseState, type PhaseState } from "../../src/schema/phase.js";
import { parseExecutionState, type ExecutionState } from "../../src/schema/execution.js";
import { colorsFor, type Output } from "../../src/cli/output.js";
import type { Command } from "../../src/cli/context.js";
import { atFileEnd } from "../support/file-end.js";
import { hostRun } from "../support/cli-host.js";

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** The CLI under test; TORTURE_CLI points the suites at another build (a patched copy). */
export const CLI = process.env.TORTURE_CLI ? resolve(process.env.TORTURE_CLI) : join(REPO, "dist/dotagent.mjs");
/**
 * The store's lock module bundled on its own (the package's library exports only openWorkflow and
 * its types now), for child processes that race for the lock. Built once per test process.
 */
let lockModule: string | undefined;
export async function lockLibrary(): Promise<string> {
  if (lockModule === undefined) {
    const { build } = await import("esbuild");
    const dir = mkdtempSync(join(tmpdir(), "dotagent-lock-"));
    atFileEnd(() => {
      rmSync(dir, { recursive: true, force: true });
      lockModule = undefined;
    });
    const out = join(dir, "lock.mjs");
    await build({
      entryPoints: [join(REPO, "src/store/lock.ts")],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      outfile: out,
      logLevel: "warning",
    });
    lockModule = out;
  }
  return lockModule;
}
export const PRELOAD = join(REPO, "test/torture/kill-at.mjs");
export const STATE = "memory/state";

// ---------------------------------------------------------------------------------------------
// Knobs and randomness

/** A whole number from the environment (the long run raises them), else the bounded default. */
export function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number, not ${raw}`);
  return value;
}

/** TORTURE_SEED if set (to replay a failure), else a fresh one; always printed with failures. */
export function seedFor(label: string): number {
  const fixed = process.env.TORTURE_SEED;
  const seed =
    fixed !== undefined && fixed !== "" ? Number(fixed) : (Date.now() ^ (process.pid << 8) ^ hash(label)) >>> 0;
  return seed >>> 0;
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

export interface Rng {
  readonly seed: number;
  /** [0, 1) */
  next(): number;
  /** A whole number in [lo, hi]. */
  int(lo: number, hi: number): number;
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** A new generator derived from this one (for a parallel lane). */
  fork(label: string): Rng;
}

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
export function makeRng(seed: number): Rng {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const rng: Rng = {
    seed,
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    chance: (p) => next() < p,
    pick: (items) => {
      if (items.length === 0) throw new Error("pick from an empty list");
      return items[Math.floor(next() * items.length)]!;
    },
    fork: (label) => makeRng((Math.floor(next() * 4294967296) ^ hash(label)) >>> 0),
  };
  return rng;
}

// ---------------------------------------------------------------------------------------------
// Temp projects

const made = new Set<string>();

/** A fresh folder under the OS temp dir; removeTempDirs() deletes every one made. */
export function makeTempDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `dotagent-torture-${label}-`));
  made.add(dir);
  return dir;
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  made.delete(dir);
}

export function removeTempDirs(): void {
  for (const dir of [...made]) removeTempDir(dir);
}

// ---------------------------------------------------------------------------------------------
// Running a command module in this process (fixtures, and the in-process fault injection)

const quietOutput: Output = { json: true, color: colorsFor(process.stdout), result: () => {}, note: () => {} };

const COMMAND_MODULES: Record<string, () => Promise<{ command: Command }>> = {
  init: () => import("../../src/cli/commands/init.js"),
  task: () => import("../../src/cli/commands/task.js"),
  phase: () => import("../../src/cli/commands/phase.js"),
  resume: () => import("../../src/cli/commands/resume.js"),
  archive: () => import("../../src/cli/commands/archive.js"),
};

export type InProcessOptions = Record<string, string | boolean | undefined>;

/** Runs `dotagent <name> <args>` through its command module, as the CLI entry would (no exit). */
export async function runInProcess(
  dir: string,
  name: string,
  args: string[],
  options: InProcessOptions = {},
  now: () => Date = () => new Date(),
): Promise<number> {
  const { command } = await COMMAND_MODULES[name]!();
  return command.run({ args, options, out: quietOutput, paths: projectPaths(dir), now });
}

export type FixtureStep = [name: string, args: string[], options?: InProcessOptions] | ((dir: string) => void);

/**
 * A fresh project built with the command modules in this process (fast: no node start-up per
 * step). Steps are commands, or functions that write what an agent would (reports).
 */
export async function makeProject(label: string, steps: readonly FixtureStep[]): Promise<string> {
  const dir = makeTempDir(label);
  for (const step of steps) {
    if (typeof step === "function") {
      step(dir);
      continue;
    }
    const [name, args, options] = step;
    const code = await runInProcess(dir, name, args, options ?? {});
    if (code !== 0) throw new Error(`fixture step \`${name} ${args.join(" ")}\` exited ${code}`);
  }
  return dir;
}

/** Fixture steps from nothing to IMPLEMENTATION with no tasks yet: every report written (final_design.json lists `tasks`), both gates approved. */
export function toImplementation(
  request: string,
  workflowId: string,
  tasks: ReadonlyArray<{ id: string; depends_on?: string[] }> = [],
): FixtureStep[] {
  return [
    ["init", [], { request, "workflow-id": workflowId }],
    (dir) => {
      writeReport(dir, "demand.json", { summary: request });
      writeReport(dir, "designs/a.json", { name: "plan a" });
      writeReport(dir, "roundtable.json", { winner: "a" });
      writeReport(dir, "final_design.json", { chosen: "a", tasks });
    },
    ["phase", ["approve", "REQUIREMENTS"]],
    ["phase", ["complete", "REQUIREMENTS"]],
    ["phase", ["approve", "ARCHITECTURE"]],
    ["phase", ["complete", "ARCHITECTURE"]],
  ];
}

/** An agent's report, as JSON (or text for .md). */
export function writeReport(dir: string, rel: string, value: unknown): void {
  const file = join(dir, "memory/reports", rel);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value));
}

// ---------------------------------------------------------------------------------------------
// Running the built CLI

export interface CliOptions {
  env?: Record<string, string | undefined>;
  /** SIGKILL the CLI right before its n-th disk-changing call, or as it exits, or before the
   * nth call matching "<call>:<path part>[:<nth>]" (see kill-at.mjs). */
  killAtOp?: number | "exit" | string;
  /** SIGKILL the CLI this long after the preload says it is loaded. */
  killAfterMs?: number;
  /** Make these fs calls fail: "renameSync:EIO:phase.json" (see kill-at.mjs). */
  fault?: string;
  /** Sleep before the first such call: "linkSync:/.lock:1500" (see kill-at.mjs). */
  pause?: string;
  input?: string;
  timeoutMs?: number;
  /** Run without the preload at all (plain `node dist/dotagent.mjs`). */
  plain?: boolean;
}

export interface CliResult {
  readonly args: readonly string[];
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Disk-changing calls the CLI made, in order, as "<n> <call> <path>". */
  readonly ops: string[];
  /** Killed by our SIGKILL (and not finished first). */
  readonly killed: boolean;
  /** Where the kill landed: the call it preceded, "exit", or the last call made before a timer kill. */
  readonly landed: string | null;
  /** Milliseconds from the preload being loaded to the end (the command's own run time). */
  readonly workMs: number;
  readonly timedOut: boolean;
}

/**
 * The session that owns the tasks the torture CLI starts: a process that is already gone, so
 * every kill -9 models a dead session and the next resume recovers its tasks (as before owners
 * existed). Tests of live owners pass their own CLAUDE_PID.
 */
export const GONE_SESSION_PID = String(spawnSync("true").pid);

export function runCli(dir: string | undefined, args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  const argv = [
    ...(options.plain ? [] : ["--import", PRELOAD]),
    CLI,
    ...args,
    ...(dir === undefined ? [] : ["--dir", dir]),
  ];
  const env: Record<string, string | undefined> = {
    ...process.env,
    CLAUDE_PID: GONE_SESSION_PID,
    NO_COLOR: "1",
    DOTAGENT_DEBUG: undefined,
    ...(options.plain ? {} : { TORTURE_REPORT_FD: "3" }),
    ...(options.killAtOp === undefined ? {} : { TORTURE_KILL_AT: String(options.killAtOp) }),
    ...(options.fault === undefined ? {} : { TORTURE_FAULT: options.fault }),
    ...(options.pause === undefined ? {} : { TORTURE_PAUSE: options.pause }),
    ...options.env,
  };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, argv, {
      env: env as NodeJS.ProcessEnv,
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let report = "";
    let readyAt: number | undefined;
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    let killedByTimer = false;
    const started = Date.now();
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const fd3 = child.stdio[3] as NodeJS.ReadableStream | null;
    fd3?.setEncoding("utf8");
    fd3?.on("data", (chunk: string) => {
      report += chunk;
      if (readyAt === undefined && report.includes("ready\n")) {
        readyAt = Date.now();
        if (options.killAfterMs !== undefined) {
          timer = setTimeout(() => {
            killedByTimer = true;
            child.kill("SIGKILL");
          }, options.killAfterMs);
        }
      }
    });
    if (options.input !== undefined) child.stdin!.end(options.input);
    const guard = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, options.timeoutMs ?? 60_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(guard);
      if (timer !== undefined) clearTimeout(timer);
      const lines = report.split("\n").filter((l) => l !== "");
      const ops = lines.filter((l) => /^\d+ /.test(l));
      const killLine = lines.find((l) => l.startsWith("kill "));
      const killed = signal === "SIGKILL" && !timedOut && (killLine !== undefined || killedByTimer);
      let landed: string | null = null;
      if (killLine !== undefined)
        landed = killLine === "kill exit" ? "exit" : `before ${killLine.replace(/^kill \d+ /, "").split(" ")[0]}`;
      else if (killed) landed = ops.length === 0 ? "before any write" : `after ${ops[ops.length - 1]!.split(" ")[1]}`;
      resolvePromise({
        args,
        code,
        signal,
        stdout,
        stderr,
        ops,
        killed,
        landed,
        workMs: Date.now() - (readyAt ?? started),
        timedOut,
      });
    });
  });
}

/**
 * `runCli(dir, args)` for a command that is not to be killed and whose calls need not be counted:
 * run in the test worker's CLI host (test/support/cli-host.ts: the same built file, its own argv,
 * folder, environment and exit code) instead of a Node process of its own, about 0.2 s of CPU less
 * a call (issue 41). No preload, so no `ops` and no kill; the event loop waits while it runs.
 */
export function runCliHosted(dir: string, args: readonly string[]): CliResult {
  const env: Record<string, string | undefined> = { ...process.env, CLAUDE_PID: GONE_SESSION_PID, NO_COLOR: "1" };
  delete env.DOTAGENT_DEBUG;
  const started = Date.now();
  const run = hostRun(CLI, process.cwd(), [...args, "--dir", dir], env);
  return {
    args,
    code: run.code,
    signal: null,
    stdout: run.stdout,
    stderr: run.stderr,
    ops: [],
    killed: false,
    landed: null,
    workMs: Date.now() - started,
    timedOut: false,
  };
}

/** One line for a failure message. */
export function describeRun(run: CliResult): string {
  const outcome = run.timedOut
    ? "TIMED OUT"
    : run.killed
      ? `killed ${run.landed ?? ""}`
      : `exit ${run.code}${run.signal ? ` (${run.signal})` : ""}`;
  const err = run.stderr.trim().split("\n").slice(0, 3).join(" | ");
  return `\`dotagent ${run.args.join(" ")}\` → ${outcome}${err ? `; stderr: ${err}` : ""}`;
}

export function parseStdoutJson(run: CliResult): Record<string, unknown> {
  const decoded = decodeJson(run.stdout);
  if (!decoded.ok || decoded.value === null || typeof decoded.value !== "object")
    throw new Error(`stdout is not one JSON object: ${describeRun(run)}\n${run.stdout.slice(0, 500)}`);
  return decoded.value as Record<string, unknown>;
}

/** Lines of a stack trace (`    at …`) in stderr: never allowed for an expected failure. */
export function stackLines(stderr: string): string[] {
  return stderr.split("\n").filter((line) => /^\s+at /.test(line));
}

// ---------------------------------------------------------------------------------------------
// Kill scheduling

/** Per command kind: how many disk-changing calls it made and how long it ran, unkilled. */
export class Calibration {
  private readonly ops = new Map<string, number>();
  private readonly ms = new Map<string, number>();

  learn(kind: string, run: CliResult): void {
    // A killed run made at least the calls it reported (all of them, when killed as it exited).
    this.ops.set(kind, Math.max(this.ops.get(kind) ?? 0, run.ops.length));
    if (run.killed || run.code === null) return;
    const before = this.ms.get(kind);
    this.ms.set(kind, before === undefined ? run.workMs : 0.7 * before + 0.3 * run.workMs);
  }

  /** Whether an unkilled run of this kind was seen (else run one unkilled first, to learn). */
  knows(kind: string): boolean {
    return this.ms.has(kind);
  }

  opsOf(kind: string): number {
    return this.ops.get(kind) ?? 24;
  }

  msOf(kind: string): number {
    return Math.max(5, this.ms.get(kind) ?? 80);
  }
}

export interface KillPlan {
  killAtOp?: number | "exit";
  killAfterMs?: number;
}

/**
 * Where to kill: mostly right before a randomly chosen disk-changing call (every write, fsync,
 * rename, link and unlink of the command is a candidate, and "as it exits"), sometimes after a
 * random delay over the command's own run time (measured from when the preload is loaded; a delay
 * from spawn would almost always land in node's start-up on this machine).
 */
export function planKill(rng: Rng, calibration: Calibration, kind: string): KillPlan {
  if (rng.chance(0.25)) return { killAfterMs: Math.floor(rng.next() * calibration.msOf(kind) * 1.1) };
  const ops = calibration.opsOf(kind);
  const n = rng.int(1, ops + 1);
  return { killAtOp: n > ops ? "exit" : n };
}

// ---------------------------------------------------------------------------------------------
// What is on disk

/** Temp files the contract says a killed process may leave (and the next command sweeps). */
export const TEMP_FILE = /(\.json|\.jsonl)\.\d+$|\.tmp$/;

/** Names in memory/state other than the state files, .archive/ and .history/: temp files, locks, guards (and half-built checkpoints in .history/). */
export function stateLeftovers(dir: string): string[] {
  const stateDir = join(dir, STATE);
  if (!existsSync(stateDir)) return [];
  const history = existsSync(join(stateDir, ".history"))
    ? readdirSync(join(stateDir, ".history"))
        .filter((name) => name.startsWith("."))
        .map((name) => `.history/${name}`)
    : [];
  return [
    ...readdirSync(stateDir).filter(
      (name) =>
        !["phase.json", "execution.json", "events.jsonl", ".last-write.json", ".archive", ".history"].includes(name),
    ),
    ...history,
  ];
}

export function readBytes(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

export interface StateOnDisk {
  phase?: PhaseState;
  execution?: ExecutionState;
  /** Parse or schema problems of either file: a torn or corrupt state file. */
  problems: string[];
}

/** Both state files parsed (JSON, then schema), as any reader would. */
export function readState(dir: string): StateOnDisk {
  const out: StateOnDisk = { problems: [] };
  const phaseBytes = readBytes(join(dir, STATE, "phase.json"));
  if (phaseBytes !== undefined) {
    const decoded = decodeJson(phaseBytes.toString("utf8"));
    const parsed = decoded.ok ? parsePhaseState(decoded.value) : undefined;
    if (parsed?.ok) out.phase = parsed.value;
    else
      out.problems.push(
        `phase.json: ${decoded.ok ? (parsed?.ok === false ? parsed.problems.map((p) => `${p.path}: ${p.message}`).join("; ") : "") : decoded.message}`,
      );
  }
  const executionBytes = readBytes(join(dir, STATE, "execution.json"));
  if (executionBytes !== undefined) {
    const decoded = decodeJson(executionBytes.toString("utf8"));
    const parsed = decoded.ok ? parseExecutionState(decoded.value) : undefined;
    if (parsed?.ok) out.execution = parsed.value;
    else
      out.problems.push(
        `execution.json: ${decoded.ok ? (parsed?.ok === false ? parsed.problems.map((p) => `${p.path}: ${p.message}`).join("; ") : "") : decoded.message}`,
      );
  }
  return out;
}

/** The §9 errors of the state on disk, computed in-process with the library's own rules. */
export function validationErrors(dir: string): Problem[] {
  return validateState(loadSnapshotSync(projectPaths(dir)), new Date(), { staleAfterMs: Number.POSITIVE_INFINITY })
    .errors;
}

export function planOnDisk(dir: string): ResumePlan {
  const snapshot = loadSnapshotSync(projectPaths(dir));
  const now = new Date();
  return planResume(snapshot, now, {
    staleAfterMs: Number.POSITIVE_INFINITY,
    owners: judgeRunningTasks(snapshot, now),
  });
}

export function eventsOnDisk(dir: string): EventRecord[] {
  return readEvents(join(dir, STATE, "events.jsonl"));
}

/** Problems with the event log's sequence numbers: each must be unique and larger than the last. */
export function sequenceProblems(events: readonly EventRecord[]): string[] {
  const problems: string[] = [];
  let last = 0;
  for (const event of events) {
    if (typeof event.seq !== "number" || !Number.isInteger(event.seq))
      problems.push(`event without an integer seq: ${JSON.stringify(event)}`);
    else if (event.seq <= last)
      problems.push(`seq ${event.seq} (${event.type}) after seq ${last}: not strictly increasing`);
    else last = event.seq;
  }
  return problems;
}

/** The `*.tar.gz` archives in .archive/ (complete ones only: temp names start with "."). */
export function archiveNames(dir: string): string[] {
  const archiveDir = join(dir, STATE, ".archive");
  if (!existsSync(archiveDir)) return [];
  return readdirSync(archiveDir)
    .filter((name) => name.endsWith(".tar.gz") && !name.startsWith("."))
    .sort();
}

/** Every regular file in an archive, path → bytes; throws if the archive is torn or not a tar.gz. */
export async function archiveContents(file: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  await listTar({
    file,
    strict: true,
    onReadEntry: (entry: ReadEntry) => {
      const chunks: Buffer[] = [];
      entry.on("data", (chunk: Buffer) => chunks.push(chunk));
      entry.on("end", () => {
        if (entry.type === "File") files.set(entry.path.replace(/^\.\//, ""), Buffer.concat(chunks));
      });
    },
  });
  return files;
}

// ---------------------------------------------------------------------------------------------
// Figures for the long run

export type Figures = Record<string, number>;

export function addFigures(into: Figures, from: Figures): Figures {
  for (const [key, value] of Object.entries(from)) into[key] = (into[key] ?? 0) + value;
  return into;
}

/** Appends one suite's figures to TORTURE_STATS (a JSON-lines file run-long.mjs reads), if set. */
export function recordFigures(suite: string, figures: Figures): void {
  const file = process.env.TORTURE_STATS;
  if (!file) return;
  appendFileSync(file, `${JSON.stringify({ suite, ...figures })}\n`);
}

/** Runs `fn` over `items` with at most `width` running at once. */
export async function inLanes<T, R>(
  items: readonly T[],
  width: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let nextIndex = 0;
  const lane = async () => {
    for (;;) {
      const i = nextIndex++;
      if (i >= items.length) return;
      results[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
  return results;
}
