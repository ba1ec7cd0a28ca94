// The idempotency guard on disk: memory/state/once/<op-id>/op.json, written under the op's own
// lock (memory/state/once/<op-id>/.lock, the same lock as the state's: exclusive link, stale
// takeover by exactly one taker). The state lock is not held, so a long command blocks nobody.
// Guarantees:
// - the command runs only after its intent ("running") is durably recorded, and its result is
//   recorded durably before the op lock is released: a kill -9 at any point leaves either no
//   record (the command never started), the intent (unknown: a person decides), or the result;
// - two callers with one op id never both run it: the second waits for the lock (then exit 4),
//   and under the lock a "done" record is only ever replayed;
// - op.json is replaced whole (write-file-atomic), never seen torn.
import { spawn } from "node:child_process";
import { hostname } from "node:os";
import { existsSync, lstatSync, mkdirSync, readdirSync, unlinkSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import { capOutput, planOnce, type OnceRequest, type OpRecord } from "../core/once.js";
import type { Decision } from "../core/plan-resume.js";
import { acquireLock, type LockHandle } from "./lock.js";
import { isPidAlive } from "./process-facts.js";
import { checkOpId, opDir, opRel, readOpRecord, RECORD } from "./op-records.js";
import { writeJsonDurable } from "./atomic-write.js";
import { writeFailure } from "./io-error.js";
import type { ProjectPaths } from "./project.js";

function writeRecord(paths: ProjectPaths, record: OpRecord): void {
  try {
    writeJsonDurable(join(opDir(paths, record.op_id), RECORD), record);
  } catch (error) {
    throw writeFailure(opRel(record.op_id), error);
  }
}

/** Bytes of a command's stdout kept in its record (and replayed). */
export const STDOUT_LIMIT = 16 * 1024;

export interface RunOnceOptions extends OnceRequest {
  /** Receives the command's stdout as it comes (the CLI passes it through); the record keeps the first STDOUT_LIMIT bytes. */
  onStdout?: (chunk: Uint8Array) => void;
  now?: () => Date;
  /** How long to wait for another runner of the same op id (default: DOTAGENT_LOCK_WAIT_MS or 2 s). */
  waitMs?: number;
}

export type OnceOutcome =
  /** The command ran now (`record.exit_code` is its exit code). */
  | { outcome: "ran"; record: OpRecord }
  /** It had run before: nothing ran, `record` is the earlier result. */
  | { outcome: "replayed"; record: OpRecord }
  /** A crash left it unknown and `--check` said it happened: recorded done, nothing ran. */
  | { outcome: "checked"; record: OpRecord }
  | { outcome: "marked_done"; record: OpRecord }
  /** A crash left it unknown: a person must say whether it happened. */
  | { outcome: "decide"; record: OpRecord; decision: Decision };

/** Temp files of a killed writer in an op's folder; only the op lock's holder calls this. */
function sweepOpTemps(dir: string): void {
  for (const name of readdirSync(dir)) {
    const lockTemp = /^\.lock\.(\d+)\.[0-9a-f]+\.tmp$/.exec(name);
    if (/^op\.json\.\d+$/.test(name) || (lockTemp && !isPidAlive(Number(lockTemp[1])))) {
      try {
        unlinkSync(join(dir, name));
      } catch {
        // gone already
      }
    }
  }
}

function lockOp(paths: ProjectPaths, opId: string, options: RunOnceOptions): LockHandle {
  const dir = opDir(paths, opId);
  // Checked before anything is made: through a linked folder, mkdir would write outside the project.
  for (const folder of [dirname(dir), dir]) {
    if (existsSync(folder) && !lstatSync(folder).isDirectory()) {
      throw new DotagentError("state_path_invalid", `${relative(paths.root, folder)} is not a real folder (a link?); op records are only kept inside memory/state: replace it with a folder`, EXIT.invalid);
    }
    mkdirSync(folder, { recursive: true });
  }
  try {
    return acquireLock(dir, { command: `once ${opId}`, ...(options.waitMs === undefined ? {} : { waitMs: options.waitMs }), ...(options.now ? { now: options.now } : {}) });
  } catch (error) {
    const holder = (error as DotagentError).details?.holder as { pid: number; hostname: string } | undefined;
    if ((error as DotagentError).code !== "locked") throw error;
    throw new DotagentError(
      "op_running",
      `op ${opId} is being run by pid ${holder?.pid ?? "?"} on ${holder?.hostname ?? "?"}; run the same command again when it has finished to get its result`,
      EXIT.locked,
      { op_id: opId, ...(holder ? { holder } : {}) },
    );
  }
}

/**
 * Runs `command` unless the op already ran: the library form of `dotagent once`. The project's
 * memory/state must exist (a guard in the wrong folder would not find earlier runs).
 */
export async function runOnce(paths: ProjectPaths, opId: string, command: readonly string[], options: RunOnceOptions = {}): Promise<OnceOutcome> {
  checkOpId(opId);
  if (!existsSync(paths.stateDir)) {
    throw new DotagentError("no_project", `no memory/state in ${paths.root}: run dotagent in the project (or pass --dir) so the guard finds earlier runs; \`dotagent init\` starts one`, EXIT.refused);
  }
  const now = options.now ?? (() => new Date());
  const lock = lockOp(paths, opId, options);
  try {
    sweepOpTemps(opDir(paths, opId));
    const found = readOpRecord(paths, opId);
    const plan = planOnce(opId, found, command, options);
    switch (plan.action) {
      case "replay":
        return { outcome: "replayed", record: plan.record };
      case "decide":
        return { outcome: "decide", record: plan.record, decision: plan.decision };
      case "mark_done": {
        const at = now().toISOString();
        const record: OpRecord = { ...(plan.record ?? { op_id: opId, command: [...command], started_at: at, runner: { pid: process.pid, hostname: hostname() }, runs: 0 }), status: "done", finished_at: at, exit_code: 0, stdout: "", stdout_truncated: false, how: "marked_done" };
        writeRecord(paths, record);
        return { outcome: "marked_done", record };
      }
      case "check": {
        if ((await runShell(plan.check)) === 0) {
          const record: OpRecord = { ...plan.record, status: "done", finished_at: now().toISOString(), exit_code: 0, stdout: "", stdout_truncated: false, how: "checked" };
          writeRecord(paths, record);
          return { outcome: "checked", record };
        }
        return { outcome: "ran", record: await runRecorded(paths, opId, found, command, options, now) };
      }
      case "run":
        return { outcome: "ran", record: await runRecorded(paths, opId, found, command, options, now) };
    }
  } finally {
    lock.release();
  }
}

async function runRecorded(paths: ProjectPaths, opId: string, found: OpRecord | null, command: readonly string[], options: RunOnceOptions, now: () => Date): Promise<OpRecord> {
  if (command.length === 0) throw new DotagentError("usage", `op ${opId} has no command to run: give it after \`--\``, EXIT.usage);
  const intent: OpRecord = { op_id: opId, command: [...command], status: "running", started_at: now().toISOString(), runner: { pid: process.pid, hostname: hostname() }, runs: (found?.runs ?? 0) + 1 };
  writeRecord(paths, intent);
  const result = await runCommand(command, options.onStdout);
  const record: OpRecord = { ...intent, status: result.exitCode === 0 ? "done" : "failed", finished_at: now().toISOString(), exit_code: result.exitCode, stdout: result.stdout, stdout_truncated: result.truncated, how: "ran" };
  writeRecord(paths, record);
  return record;
}

/**
 * Runs argv without a shell: stdin and stderr are the caller's, stdout is captured (first
 * STDOUT_LIMIT bytes) and handed to `onStdout` as it comes. Ctrl-C reaches the command (same
 * process group) and is ignored here meanwhile, so its result is still recorded.
 */
function runCommand(argv: readonly string[], onStdout?: (chunk: Uint8Array) => void): Promise<{ exitCode: number; stdout: string; truncated: boolean }> {
  const [file, ...args] = argv as [string, ...string[]];
  const ignore = () => undefined;
  process.on("SIGINT", ignore);
  return new Promise<{ exitCode: number; stdout: string; truncated: boolean }>((resolve) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let seen = 0;
    const child = spawn(file, args, { stdio: ["inherit", "pipe", "inherit"] });
    child.stdout.on("data", (chunk: Buffer) => {
      seen += chunk.length;
      if (kept < STDOUT_LIMIT + 4) {
        chunks.push(chunk);
        kept += chunk.length;
      }
      onStdout?.(chunk);
    });
    let spawnError: NodeJS.ErrnoException | undefined;
    child.on("error", (error: NodeJS.ErrnoException) => {
      spawnError = error;
    });
    child.on("close", (code, signal) => {
      const capped = capOutput(Buffer.concat(chunks).toString("utf8"), STDOUT_LIMIT);
      // 127: the shell's "command not found"; a signal death is 128 + its number, as in a shell.
      const exitCode = spawnError ? (spawnError.code === "ENOENT" ? 127 : 126) : (code ?? 128 + signalNumber(signal));
      resolve({ exitCode, stdout: capped.text, truncated: capped.truncated || seen > kept });
    });
  }).finally(() => process.off("SIGINT", ignore));
}

function signalNumber(signal: NodeJS.Signals | null): number {
  return signal === null ? 0 : ((process.getBuiltinModule("node:os").constants.signals as Record<string, number>)[signal] ?? 0);
}

/** Runs a probe through the shell (`--check 'git rev-parse --verify feature/login'`); its exit code. */
function runShell(commandLine: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(commandLine, { shell: true, stdio: ["ignore", "ignore", "inherit"] });
    child.on("error", () => resolve(127));
    child.on("close", (code) => resolve(code ?? 1));
  });
}
