// A command dotagent runs for a person: `step run`'s shell command (SPEC §20) and `once`'s argv
// (SPEC §14). Three promises, each against a failure seen in the field (issue 40):
//
// 1. Started only once it is recorded. The command is spawned as a shell that waits on a pipe
//    (fd 3) until the caller's `recorded(pid)` has put the pid on disk, then becomes the command
//    (`exec`, same pid). A caller killed before that closes the pipe and the shell ends without
//    running it; a record that cannot be written kills the waiting shell. So no command runs that
//    no record names, and the next `step run` or `once` cannot start a second copy beside it.
// 2. Never waited on past its own end. The result comes when the command's process exits, once
//    the output it wrote before that is read (the pipes drained until the kernel holds nothing
//    more for them, at most DRAIN_TICKS turns of the event loop or DRAIN_BYTES). A descendant
//    that keeps stdout or stderr open (`server &`, a setsid child) is not waited for: its output
//    is no longer read (its next write may then fail with EPIPE). What the command left running
//    is left running, as a shell leaves it: a step that starts a server keeps doing so.
// 3. Bounded by its timeout. At the timeout (or `signal`'s abort) everything the command started
//    is ended, its process group, its session and every process that carries its token
//    (end-processes.ts, with what escapes that), and the result says `timedOut`.
//
// A command that cannot start (its program not found or not executable, a NUL byte, E2BIG) is a
// result too (`not_started`, with the errno a shell's exec would meet, or spawn's code), never a throw.
import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, resolve } from "node:path";
import type { Readable, Writable } from "node:stream";
import { endProcesses } from "./end-processes.js";

/** The environment variable that marks every process of a bounded command (end-processes.ts). */
export const RUN_TOKEN_VARIABLE = "DOTAGENT_RUN_TOKEN";
/** Turns of the event loop, after the command's exit, in which its pipes may still bring output. */
const DRAIN_TICKS = 64;
/** Bytes read after the command's exit, at most (a descendant may write for ever). */
const DRAIN_BYTES = 1024 * 1024;

/** Waits for the record (fd 3), then becomes the command: `$@`, same pid. */
const GATE = 'read -r go <&3 || exit 125; exec 3<&-; exec "$@"';

export interface CommandSpec {
  /** The program and its arguments, run without a shell (step run passes `["sh", "-c", line]`). */
  readonly argv: readonly string[];
  readonly cwd?: string | undefined;
  readonly stdin: "ignore" | "inherit";
  readonly stderr: "pipe" | "inherit";
  /**
   * Its own session and process group (step run: it outlives a killed CLI, and `kill -- -PID`
   * stops it); otherwise the caller's (once: Ctrl-C at the terminal reaches it).
   */
  readonly ownSession: boolean;
  readonly timeoutMs?: number | undefined;
  /** Aborting it ends the command as the timeout does (`dotagent run`'s Ctrl-C). */
  readonly signal?: AbortSignal | undefined;
  readonly onOutput?: ((chunk: Buffer, stream: "stdout" | "stderr") => void) | undefined;
  /** Records the command's pid; the command starts once this has resolved. If it throws, the command never starts and runCommand rejects with its error. */
  readonly recorded: (pid: number) => void | Promise<void>;
}

export type CommandOutcome =
  | { kind: "exited"; code: number | null; signal: NodeJS.Signals | null; timedOut: boolean; aborted: boolean }
  | { kind: "not_started"; errno: string; message: string };

export function runCommand(spec: CommandSpec): Promise<CommandOutcome> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  const cannot = startProblem(spec.argv, spec.cwd ?? process.cwd(), env.PATH);
  if (cannot !== null) return Promise.resolve(cannot);
  if (spec.signal?.aborted)
    return Promise.resolve({ kind: "exited", code: null, signal: null, timedOut: false, aborted: true });
  // A command that may have to be ended (its own session, a timeout, a stop) carries a token.
  const marked = spec.ownSession || spec.timeoutMs !== undefined || spec.signal !== undefined;
  const token = marked ? process.getBuiltinModule("node:crypto").randomBytes(16).toString("hex") : undefined;
  // Added to an inherited one: a dotagent run by a bounded command keeps its caller's token too.
  if (token !== undefined)
    env[RUN_TOKEN_VARIABLE] = env[RUN_TOKEN_VARIABLE] ? `${env[RUN_TOKEN_VARIABLE]}:${token}` : token;
  // A program named like an option would be one to the shell's exec: pass the path found for it.
  const argv = spec.argv[0]!.startsWith("-")
    ? [resolveProgram(spec.argv[0]!, spec.cwd ?? process.cwd(), env.PATH).path!, ...spec.argv.slice(1)]
    : spec.argv;
  let child: ChildProcess;
  try {
    child = spawn("/bin/sh", ["-c", GATE, "sh", ...argv], {
      cwd: spec.cwd,
      env,
      stdio: [spec.stdin, "pipe", spec.stderr, "pipe"],
      detached: spec.ownSession,
    });
  } catch (error) {
    return Promise.resolve(notStarted(error));
  }
  return new Promise<CommandOutcome>((resolvePromise, reject) => {
    let settled = false;
    let timedOut = false;
    let aborted = false;
    let timer: NodeJS.Timeout | undefined;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let bytesAfterExit = 0;
    let poll: NodeJS.Immediate | undefined; // the drain's next turn, cleared when the call settles
    const streams = [child.stdout, child.stderr].filter((s): s is Readable => s !== null);
    const gate = child.stdio[3] as Writable;
    gate.on("error", () => {}); // a shell that could not start: its 'error' says so

    const end = () => {
      if (child.pid !== undefined) endProcesses({ root: child.pid, ownSession: spec.ownSession, token });
    };
    const onAbort = () => {
      aborted = true;
      end();
    };
    const finish = (outcome: CommandOutcome) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      if (poll) clearImmediate(poll);
      spec.signal?.removeEventListener("abort", onAbort);
      // Stop reading: a pipe a descendant keeps open must not hold this process either.
      for (const stream of streams) stream.destroy();
      gate.destroy();
      resolvePromise(outcome);
    };
    const exited = () =>
      finish({ kind: "exited", code: exit?.code ?? null, signal: exit?.signal ?? null, timedOut, aborted });
    // After the exit: read while the pipes still bring what was written before it, then stop.
    // Each turn of the event loop polls them; two turns in a row without a byte, and the
    // kernel holds nothing more from before the exit.
    const drain = (tick: number, seen: number, quiet: number) => {
      if (settled) return;
      const still = bytesAfterExit === seen ? quiet + 1 : 0;
      if (still >= 2 || tick >= DRAIN_TICKS || bytesAfterExit >= DRAIN_BYTES) return exited();
      poll = setImmediate(() => drain(tick + 1, bytesAfterExit, still));
    };

    for (const [stream, name] of [
      [child.stdout, "stdout"],
      [child.stderr, "stderr"],
    ] as const) {
      stream?.on("data", (chunk: Buffer) => {
        if (exit !== undefined) bytesAfterExit += chunk.length;
        spec.onOutput?.(chunk, name);
      });
      stream?.on("error", () => {});
    }
    child.on("error", (error) => {
      // No process (spawn failed later, as E2BIG may): nothing ran.
      if (exit === undefined && !settled) {
        settled = true;
        if (timer) clearTimeout(timer);
        resolvePromise(notStarted(error));
      }
    });
    // Every pipe closed: all output read, nothing left to wait for.
    child.on("close", (code, signal) => {
      exit ??= { code, signal };
      exited();
    });
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      drain(0, -1, -1);
    });
    if (child.pid === undefined) return; // 'error' follows
    const pid = child.pid;
    Promise.resolve()
      .then(() => spec.recorded(pid))
      .then(
        () => {
          if (settled || exit !== undefined) return;
          // Stopped while it was being recorded: the shell ends without running it.
          if (spec.signal?.aborted) return onAbort();
          spec.signal?.addEventListener("abort", onAbort, { once: true });
          if (spec.timeoutMs !== undefined) {
            timer = setTimeout(() => {
              timedOut = true;
              end();
            }, spec.timeoutMs);
          }
          gate.end("go\n");
        },
        (error: unknown) => {
          // Not recorded: the shell never runs the command.
          try {
            process.kill(pid, "SIGKILL");
          } catch {
            // ended already
          }
          settled = true;
          for (const stream of streams) stream.destroy();
          gate.destroy();
          reject(error);
        },
      );
  });
}

function notStarted(error: unknown): CommandOutcome {
  const e = error as NodeJS.ErrnoException;
  return { kind: "not_started", errno: e.code ?? "error", message: e.message?.split("\n")[0] ?? String(error) };
}

/** Why the command cannot start (its program not found or not executable), or null; spawn itself refuses a NUL byte (ERR_INVALID_ARG_VALUE). */
function startProblem(argv: readonly string[], cwd: string, path: string | undefined): CommandOutcome | null {
  const program = argv[0];
  if (!program) return { kind: "not_started", errno: "ENOENT", message: "no program" };
  const found = resolveProgram(program, cwd, path);
  return found.path === undefined
    ? { kind: "not_started", errno: found.errno, message: `${program}: ${found.errno}` }
    : null;
}

/**
 * Where the system's exec would find `program` (execvp's search: a name with a slash as it is,
 * else each folder of PATH, "/bin:/usr/bin" when PATH is unset), or the errno it would meet:
 * EACCES when only something not executable was found, else ENOENT (ENOTDIR for a path through
 * a file). Checked before the shell is spawned, so a missing program is told apart from a command
 * that exits 127.
 */
function resolveProgram(program: string, cwd: string, path: string | undefined): { path?: string; errno: string } {
  const candidates = program.includes("/")
    ? [isAbsolute(program) ? program : resolve(cwd, program)]
    : (path ?? "/bin:/usr/bin").split(delimiter).map((dir) => resolve(cwd, dir || ".", program));
  let errno = "ENOENT";
  for (const candidate of candidates) {
    try {
      const stat = statSync(candidate);
      if (!stat.isFile()) {
        errno = "EACCES";
        continue;
      }
      accessSync(candidate, constants.X_OK);
      return { path: candidate, errno: "" };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EACCES" || code === "EPERM") errno = "EACCES";
      else if (code === "ENOTDIR" && program.includes("/")) errno = "ENOTDIR";
    }
  }
  return { errno };
}
