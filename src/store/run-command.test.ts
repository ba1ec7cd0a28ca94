// run-command.ts's three promises, each on real processes in a temp folder: gated on its record,
// never waited on past its own end, bounded by its timeout. Whatever a test starts runs in its
// temp folder and is ended there afterwards (processesIn finds it by its working folder).
import { afterEach, describe, expect, it } from "vitest";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCommand, type CommandOutcome, type CommandSpec } from "./run-command.js";
import { isProcessRunning, processStartTime } from "./process-facts.js";
import { endProcessesIn, HAS_PROC, processesIn } from "./processes.test-support.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) {
    endProcessesIn(dir);
    rmSync(dir, { recursive: true, force: true });
  }
});

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), "dotagent-run-command-"));
  dirs.push(dir);
  return dir;
}

/** Runs a shell line in `cwd` as step run does (its own session), collecting its output. */
async function sh(
  cwd: string,
  line: string,
  more: Partial<CommandSpec> = {},
): Promise<{ outcome: CommandOutcome; output: string }> {
  let output = "";
  const outcome = await runCommand({
    argv: ["sh", "-c", line],
    cwd,
    stdin: "ignore",
    stderr: "pipe",
    ownSession: true,
    onOutput: (chunk) => (output += chunk.toString()),
    recorded: () => {},
    ...more,
  });
  return { outcome, output };
}

const alive = (dir: string, file: string) => {
  const pid = Number(readFileSync(join(dir, file), "utf8"));
  return isProcessRunning(pid, processStartTime(pid));
};

describe("the gate: the command starts only once it is recorded", () => {
  it("recorded(pid) runs before the command, with the pid the command then has", async () => {
    const dir = folder();
    let before: boolean | undefined;
    let pid: number | undefined;
    const run = await sh(dir, "echo $$ > pid.txt", {
      recorded: (p) => {
        pid = p;
        before = existsSync(join(dir, "pid.txt"));
      },
    });
    expect(before).toBe(false);
    expect(run.outcome).toMatchObject({ kind: "exited", code: 0 });
    expect(Number(readFileSync(join(dir, "pid.txt"), "utf8"))).toBe(pid);
  });

  it("a record that cannot be written: the command never runs, runCommand rejects with the error, the waiting shell is ended", async () => {
    const dir = folder();
    let pid = 0;
    const failure = new Error("disk full");
    const run = sh(dir, "echo ran > ran.txt", {
      recorded: (p) => {
        pid = p;
        throw failure;
      },
    });
    await expect(run).rejects.toBe(failure);
    // Its shell waited on the pipe and was sent SIGKILL: it ends without running anything.
    while (isProcessRunning(pid, processStartTime(pid))) await new Promise((r) => setTimeout(r, 10));
    expect(existsSync(join(dir, "ran.txt"))).toBe(false);
  });

  it("stopped while it was being recorded: the command never runs", async () => {
    const dir = folder();
    const stop = new AbortController();
    const run = await sh(dir, "echo ran > ran.txt", { signal: stop.signal, recorded: () => stop.abort() });
    expect(run.outcome).toMatchObject({ kind: "exited", aborted: true });
    expect(existsSync(join(dir, "ran.txt"))).toBe(false);
  });
});

describe("never waited on past its own end", () => {
  it("`sleep 30 & echo done` with no timeout: the result when the shell exits; the background child is left running, its output no longer read", async () => {
    const dir = folder();
    const run = await sh(dir, "sleep 30 & echo $! > bg.pid; echo done");
    expect(run.outcome).toEqual({ kind: "exited", code: 0, signal: null, timedOut: false, aborted: false });
    expect(run.output).toBe("done\n");
    if (HAS_PROC) expect(alive(dir, "bg.pid")).toBe(true);
  });

  it("all the output written before the exit is read, though a child holds the pipe (200 KB, more than a pipe holds)", async () => {
    const dir = folder();
    const run = await sh(dir, "sleep 30 & head -c 200000 /dev/zero | tr '\\0' a; echo");
    expect(run.outcome).toMatchObject({ kind: "exited", code: 0 });
    expect(run.output).toBe(`${"a".repeat(200_000)}\n`);
  });

  it("once: in the caller's process group, its exit code and signal as they are", async () => {
    const dir = folder();
    const run = await runCommand({
      argv: ["sh", "-c", "exit 7"],
      cwd: dir,
      stdin: "ignore",
      stderr: "pipe",
      ownSession: false,
      recorded: () => {},
    });
    expect(run).toEqual({ kind: "exited", code: 7, signal: null, timedOut: false, aborted: false });
    const killed = await runCommand({
      argv: ["sh", "-c", "kill -TERM $$"],
      cwd: dir,
      stdin: "ignore",
      stderr: "pipe",
      ownSession: false,
      recorded: () => {},
    });
    expect(killed).toMatchObject({ kind: "exited", code: null, signal: "SIGTERM" });
  });
});

describe.runIf(HAS_PROC)("a timeout ends everything the command started (Linux: /proc)", () => {
  it("issue 40, finding 5: a setsid child and a reparented one, both holding the output open, are ended at the timeout; the result says timed out", async () => {
    const dir = folder();
    const line = [
      "setsid sh -c 'echo $$ > setsid.pid; exec sleep 120' &",
      "(sh -c 'echo $$ > orphan.pid; exec sleep 120' &)",
      "while [ ! -s setsid.pid ] || [ ! -s orphan.pid ]; do sleep 0.01; done",
      "echo started; sleep 120",
    ].join("\n");
    // The timeout counts from the start; the command tells when both children are there.
    const run = await sh(dir, line, { timeoutMs: 1000 });
    expect(run.outcome).toEqual({ kind: "exited", code: null, signal: "SIGKILL", timedOut: true, aborted: false });
    if (run.output === "started\n") {
      expect(alive(dir, "setsid.pid")).toBe(false);
      expect(alive(dir, "orphan.pid")).toBe(false);
    }
    expect(processesIn(dir)).toEqual([]);
  });

  it("a child that left the session and has no parent left is still found by its token", async () => {
    const dir = folder();
    // Double fork, then setsid: neither the session nor the parent links lead to it.
    const line =
      "(setsid sh -c 'echo $$ > far.pid; exec sleep 120' &) ; while [ ! -s far.pid ]; do sleep 0.01; done; sleep 120";
    const stop = new AbortController();
    const run = sh(dir, line, { signal: stop.signal });
    while (!existsSync(join(dir, "far.pid")) || readFileSync(join(dir, "far.pid"), "utf8") === "")
      await new Promise((r) => setTimeout(r, 10));
    stop.abort();
    expect((await run).outcome).toMatchObject({ kind: "exited", aborted: true, timedOut: false });
    expect(alive(dir, "far.pid")).toBe(false);
    expect(processesIn(dir)).toEqual([]);
  });
});

describe("a command that cannot start is a result, never a throw", () => {
  const cases: Array<[string, string, (dir: string) => string[]]> = [
    ["a program not on PATH", "ENOENT", () => ["no-such-program-dotagent"]],
    ["a path that does not exist", "ENOENT", () => ["./missing/program"]],
    [
      "a file that is not executable",
      "EACCES",
      (dir) => (writeFileSync(join(dir, "plain"), "echo x\n"), chmodSync(join(dir, "plain"), 0o644), ["./plain"]),
    ],
    ["a folder", "EACCES", (dir) => (mkdirSync(join(dir, "sub")), ["./sub"])],
    ["a path through a file", "ENOTDIR", (dir) => (writeFileSync(join(dir, "file"), ""), ["./file/program"])],
    ["a NUL byte in an argument", "ERR_INVALID_ARG_VALUE", () => ["echo", "a\0b"]],
  ];
  it.each(cases)("%s: not_started (%s), nothing spawned", async (_name, errno, argv) => {
    const dir = folder();
    let recorded = false;
    const run = await runCommand({
      argv: argv(dir),
      cwd: dir,
      stdin: "ignore",
      stderr: "pipe",
      ownSession: false,
      recorded: () => void (recorded = true),
    });
    expect(run).toMatchObject({ kind: "not_started", errno });
    expect(recorded).toBe(false);
  });
});
