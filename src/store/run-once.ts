// The idempotency guard on disk: memory/state/once/<op-id>/op.json, written under the op's own
// lock (memory/state/once/<op-id>/.lock, the same lock as the state's: exclusive link, stale
// takeover by exactly one taker). The state lock is not held, so a long command blocks nobody.
// Guarantees:
// - the command runs only after its intent ("running") is durably recorded, and its result is
//   recorded durably before the op lock is released: a kill -9 at any point leaves either no
//   record (the command never started), the intent (unknown: a person decides), or the result;
// - the command starts only once its process (pid and start time) is durably added to the intent
//   (run-command.ts's gate: it waits on a pipe until then): while it lives the op is running,
//   even if the runner was killed (-9 leaves the child alive), so nobody is asked "did it take
//   effect?" and nothing is run beside it; a kill before that write (or a write that fails,
//   write_failed) leaves the intent and no command, so `--redo` never starts a second copy
//   beside one no record names (under load, a kill right after the start used to);
// - two callers with one op id never both run it: the second waits for the lock (then exit 4),
//   and under the lock a "done" record is only ever replayed;
// - whatever the command or the reader of its output does (a command that cannot start, a
//   stdout closed by `| head`), its result is recorded and the lock released;
// - op.json is replaced whole (write-file.ts: temp file, rename), never seen torn, and never over the 1 MiB it
//   is read with (commands too big for their record are refused before anything is recorded).
import { spawn } from "node:child_process";
import { hostname } from "node:os";
import { existsSync, readdirSync, unlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import { commandProblem, encodeOutput, planOnce, type OnceRequest, type OpRecord } from "../core/once.js";
import type { Decision } from "../core/plan-resume.js";
import { acquireLockAsync, type LockHandle } from "./lock.js";
import { writeFailure } from "./io-error.js";
import { isPidAlive, processStartTime } from "./process-facts.js";
import { checkOpId, commandStillRunning, guardFolder, opDir, opRel, readOpRecord, RECORD } from "./op-records.js";
import { assertStatePaths } from "./state-paths.js";
import { mkdirInside, writeJsonInside } from "./write-file.js";
import { runCommand } from "./run-command.js";
import type { ProjectPaths } from "./project.js";

function writeRecord(paths: ProjectPaths, record: OpRecord): void {
  try {
    writeJsonInside(paths.root, join(opDir(paths, record.op_id), RECORD), record);
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
  /** The command ran now (`record.exit_code` is its exit code; `record.start_error` when it could not start). */
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

async function lockOp(paths: ProjectPaths, opId: string, options: RunOnceOptions): Promise<LockHandle> {
  const dir = opDir(paths, opId);
  // Checked before anything is made: through a linked folder, mkdir would write outside the project.
  for (const folder of [dirname(dir), dir]) {
    if (guardFolder(paths, folder) === "folder") continue;
    try {
      mkdirInside(paths.root, folder);
    } catch (error) {
      throw writeFailure(`memory/state/once/${folder === dir ? `${opId}/` : ""}`, error);
    }
    guardFolder(paths, folder); // made by another caller meanwhile: still a real folder?
  }
  try {
    return await acquireLockAsync(dir, {
      command: `once ${opId}`,
      ...(options.waitMs === undefined ? {} : { waitMs: options.waitMs }),
      ...(options.now ? { now: options.now } : {}),
    });
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
export async function runOnce(
  paths: ProjectPaths,
  opId: string,
  command: readonly string[],
  options: RunOnceOptions = {},
): Promise<OnceOutcome> {
  checkOpId(opId);
  const problem = commandProblem(command);
  if (problem !== null)
    throw new DotagentError("usage", `once ${opId}: ${problem}; nothing was run or recorded`, EXIT.usage, {
      op_id: opId,
    });
  if (options.check?.includes("\0"))
    throw new DotagentError(
      "usage",
      `once ${opId}: the --check command holds a NUL byte, which no shell can receive; nothing was run or recorded`,
      EXIT.usage,
      { op_id: opId },
    );
  // The op records live in the state folder: its paths follow §2 (a link or the wrong type is refused).
  assertStatePaths(paths);
  if (!existsSync(paths.stateDir)) {
    throw new DotagentError(
      "no_project",
      `no memory/state in ${paths.root}: run dotagent in the project (or pass --dir) so the guard finds earlier runs; \`dotagent init\` starts one`,
      EXIT.refused,
    );
  }
  const now = options.now ?? (() => new Date());
  const lock = await lockOp(paths, opId, options); // waited for without blocking the event loop
  try {
    sweepOpTemps(opDir(paths, opId));
    const found = readOpRecord(paths, opId);
    const plan = planOnce(opId, found, command, options, {
      commandRunning: found !== null && commandStillRunning(found),
    });
    switch (plan.action) {
      case "replay":
        return { outcome: "replayed", record: plan.record };
      case "decide":
        return { outcome: "decide", record: plan.record, decision: plan.decision };
      case "running":
        throw new DotagentError(
          "op_running",
          `op ${opId}: its command (pid ${plan.pid}) is still running, though the dotagent that started it (pid ${plan.record.runner.pid}) is gone; run the same command again once it has ended (to stop it: kill ${plan.pid})`,
          EXIT.locked,
          { op_id: opId, child: plan.record.child },
        );
      case "mark_done": {
        const at = now().toISOString();
        const record: OpRecord = {
          ...(plan.record ?? {
            op_id: opId,
            command: [...command],
            started_at: at,
            runner: { pid: process.pid, hostname: hostname() },
            runs: 0,
          }),
          status: "done",
          finished_at: at,
          exit_code: 0,
          stdout: "",
          stdout_encoding: "utf8",
          stdout_truncated: false,
          how: "marked_done",
        };
        writeRecord(paths, record);
        return { outcome: "marked_done", record };
      }
      case "check": {
        if ((await runShell(plan.check)) === 0) {
          const record: OpRecord = {
            ...plan.record,
            status: "done",
            finished_at: now().toISOString(),
            exit_code: 0,
            stdout: "",
            stdout_encoding: "utf8",
            stdout_truncated: false,
            how: "checked",
          };
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

async function runRecorded(
  paths: ProjectPaths,
  opId: string,
  found: OpRecord | null,
  command: readonly string[],
  options: RunOnceOptions,
  now: () => Date,
): Promise<OpRecord> {
  if (command.length === 0)
    throw new DotagentError("usage", `op ${opId} has no command to run: give it after \`--\``, EXIT.usage);
  const intent: OpRecord = {
    op_id: opId,
    command: [...command],
    status: "running",
    started_at: now().toISOString(),
    runner: { pid: process.pid, hostname: hostname() },
    child: null,
    runs: (found?.runs ?? 0) + 1,
  };
  writeRecord(paths, intent);
  let running = intent;
  // The command starts only once this record of its pid is on disk (run-command.ts's gate): a
  // kill before it leaves the intent and no command, a write that fails leaves no command either.
  const result = await runArgv(command, options.onStdout, (pid) => {
    running = { ...intent, child: { pid, start: processStartTime(pid) } };
    writeRecord(paths, running);
  });
  const failed = result.startError !== null || result.exitCode !== 0;
  const record: OpRecord = {
    ...running,
    status: failed ? "failed" : "done",
    finished_at: now().toISOString(),
    exit_code: result.exitCode,
    ...encodeOutput(result.stdout, STDOUT_LIMIT, result.seenMore),
    ...(result.startError === null ? {} : { start_error: result.startError }),
    how: "ran",
  };
  writeRecord(paths, record);
  return record;
}

interface CommandResult {
  exitCode: number;
  /** The first bytes of stdout (at least STDOUT_LIMIT when there were that many). */
  stdout: Buffer;
  /** More bytes came than `stdout` holds. */
  seenMore: boolean;
  /** Why it could not be started ("not found", …), or null when it ran. */
  startError: string | null;
}

/** How a shell would say a program could not be started, and the exit code it would give. */
const START_ERRORS: Record<string, [string, number]> = {
  ENOENT: ["not found", 127],
  EACCES: ["permission denied", 126],
  ENOEXEC: ["not an executable the system can run", 126],
  ENOTDIR: ["not a directory on the way to it", 126],
  E2BIG: ["argument list too long for the system", 126],
  EISDIR: ["is a directory", 126],
};

function startFailure(errno: string, message: string): { exitCode: number; startError: string } {
  const [text, exitCode] = START_ERRORS[errno] ?? [`could not be started (${errno || message || "error"})`, 126];
  return { exitCode, startError: text };
}

/**
 * Runs argv without a shell (run-command.ts: in the caller's process group, gated on `recorded`):
 * stdin and stderr are the caller's, stdout is captured (first STDOUT_LIMIT bytes) and handed to
 * `onStdout` as it comes. Ctrl-C reaches the command (same process group) and is ignored here
 * meanwhile, so its result is still recorded. A command that cannot start is a result too.
 */
async function runArgv(
  argv: readonly string[],
  onStdout: ((chunk: Uint8Array) => void) | undefined,
  recorded: (pid: number) => void,
): Promise<CommandResult> {
  const ignore = () => undefined;
  process.on("SIGINT", ignore);
  const chunks: Buffer[] = [];
  let kept = 0;
  let seen = 0;
  try {
    const outcome = await runCommand({
      argv,
      stdin: "inherit",
      stderr: "inherit",
      ownSession: false,
      recorded,
      onOutput: (chunk) => {
        seen += chunk.length;
        if (kept < STDOUT_LIMIT + 4) {
          chunks.push(chunk);
          kept += chunk.length;
        }
        onStdout?.(chunk);
      },
    });
    const stdout = Buffer.concat(chunks);
    if (outcome.kind === "not_started")
      return { ...startFailure(outcome.errno, outcome.message), stdout, seenMore: seen > kept };
    // A signal death is 128 + its number, as in a shell.
    return {
      exitCode: outcome.code ?? 128 + signalNumber(outcome.signal),
      stdout,
      seenMore: seen > kept,
      startError: null,
    };
  } finally {
    process.off("SIGINT", ignore);
  }
}

function signalNumber(signal: NodeJS.Signals | null): number {
  return signal === null
    ? 0
    : ((process.getBuiltinModule("node:os").constants.signals as Record<string, number>)[signal] ?? 0);
}

/** Runs a probe through the shell (`--check 'git rev-parse --verify feature/login'`); its exit code. */
function runShell(commandLine: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(commandLine, { shell: true, stdio: ["ignore", "ignore", "inherit"] });
    child.on("error", () => resolve(127));
    child.on("close", (code) => resolve(code ?? 1));
  });
}
