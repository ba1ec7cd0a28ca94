// `dotagent once`, the idempotency guard, through the built CLI: a side effect runs at most once
// per op id, across kill -9 at every step and concurrent callers.
import { afterEach, describe, expect, it } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DotagentError, openWorkflow } from "../src/index.js";
import { unprivileged } from "./support/unprivileged.js";
import { CLI, dotagent, expectNoStack, readJson, removeTemps, tempProject } from "./support/cli.js";
import { copyOfTemplate } from "./support/template.js";
import { endProcessesIn, HAS_PROC, processesIn } from "../src/store/processes.test-support.js";

afterEach(removeTemps);

const PRELOAD = join(CLI, "../../test/torture/kill-at.mjs");
/** A command with a visible side effect: one line appended to effects.txt per run (a shell: a Node process each cost far more). */
const EFFECT = ["sh", "-c", "echo x >> effects.txt; echo made it"];

/** A workflow started (`init --request t`): made once per file, a copy per test. */
function project(): string {
  return copyOfTemplate("init", (p) => expect(dotagent(p, ["init", "--request", "t"]).code).toBe(0));
}

/** A copy of project() whose op `op` ran EFFECT once, recorded done (made once per file; the first test checks that run end to end). */
function projectWithOpDone(): string {
  return copyOfTemplate("op done", (p) => {
    expect(dotagent(p, ["init", "--request", "t"]).code).toBe(0);
    expect(dotagent(p, ["once", "op", "--", ...EFFECT]).code).toBe(0);
  });
}

function runs(p: string): number {
  const file = join(p, "effects.txt");
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).length : 0;
}

/**
 * The CLI with kill-at.mjs preloaded; TORTURE_KILL_AT says where it SIGKILLs itself. Its stderr is
 * a pipe, which the command inherits: spawnSync returns only once every holder has closed it, so
 * a command the killed CLI left behind has ended too, and what it did is on disk.
 */
function killedAt(p: string, killAt: string, args: string[]): number | null {
  const result = spawnSync(process.execPath, ["--import", PRELOAD, CLI, ...args], {
    cwd: p,
    env: { ...process.env, TORTURE_KILL_AT: killAt },
    stdio: ["ignore", "ignore", "pipe"],
  });
  return result.signal === "SIGKILL" ? null : result.status;
}

describe("once: at most one run per op id", () => {
  it("runs, records, then replays the recorded result without running", () => {
    const p = project();
    const first = dotagent(p, ["once", "t1.commit", "--", ...EFFECT]);
    expect(first).toMatchObject({ code: 0, stdout: "made it\n" });
    const again = dotagent(p, ["once", "t1.commit", "--json", "--", ...EFFECT]);
    expect(again.code).toBe(0);
    expect(again.json).toMatchObject({
      op_id: "t1.commit",
      outcome: "replayed",
      status: "done",
      ran: false,
      exit_code: 0,
      stdout: "made it\n",
      how: "ran",
      runs: 1,
      decision: null,
    });
    const plain = dotagent(p, ["once", "t1.commit", "--", ...EFFECT]);
    expect(plain.stdout).toBe("made it\n");
    expect(plain.stderr).toMatch(
      /^Op t1.commit already done at \d{4}-\d\d-\d\d \d\d:\d\d UTC \(exit 0\); not run again.\n$/,
    );
    expect(runs(p)).toBe(1);
    expect(readJson(p, "memory/state/once/t1.commit/op.json")).toMatchObject({
      status: "done",
      exit_code: 0,
      command: EFFECT,
    });
  });

  it("passes the command's exit code through; a failure is retried, not replayed", () => {
    const p = project();
    const fail = dotagent(p, ["once", "push", "--json", "--", "sh", "-c", "echo x >> effects.txt; exit 7"]);
    expect(fail.code).toBe(7);
    expect(fail.json).toMatchObject({ outcome: "ran", status: "failed", exit_code: 7 });
    expect(dotagent(p, ["status", "--json"]).json.ops).toEqual([
      { op_id: "push", status: "failed", started_at: fail.json.started_at },
    ]);
    expect(dotagent(p, ["once", "push", "--json", "--", ...EFFECT]).json).toMatchObject({
      outcome: "ran",
      status: "done",
      runs: 2,
    });
    expect(dotagent(p, ["once", "push", "--", ...EFFECT]).code).toBe(0);
    expect(runs(p)).toBe(2);
    expect(dotagent(p, ["status", "--json"]).json.ops).toEqual([]);
  });

  it("a command that does not exist is exit 127, recorded failed", () => {
    const p = project();
    expect(dotagent(p, ["once", "x", "--json", "--", "no-such-command-dotagent"]).json).toMatchObject({
      status: "failed",
      exit_code: 127,
    });
  });

  it("refuses bad input with one line and the right exit code", () => {
    const p = project();
    for (const [args, code, text] of [
      [["once"], 2, "needs an op id"],
      [["once", "op"], 2, "needs the command to run"],
      [["once", "../escape", "--", "true"], 2, "is not a valid op id"],
      [["once", "op", "--mark-done", "--redo"], 2, "give one"],
    ] as const) {
      const result = dotagent(p, [...args]);
      expect(result.code).toBe(code);
      expect(result.stderr).toContain(text);
      expectNoStack(result.stderr);
    }
    const elsewhere = dotagent(tempProject(), ["once", "op", "--", "true"]);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain("no memory/state in");
  });

  it("memory/state/once as a link out of the project is refused (exit 3), nothing runs", () => {
    const p = project();
    const outside = tempProject();
    symlinkSync(outside, join(p, "memory/state/once"));
    const r = dotagent(p, ["once", "op", "--", ...EFFECT]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("memory/state/once is a symbolic link, where dotagent keeps a folder of op records");
    expect(runs(p)).toBe(0);
    expect(readdirSync(outside)).toEqual([]);
  });

  it("a damaged record is exit 3 naming the file and the remedy, and nothing runs", () => {
    const p = projectWithOpDone();
    writeFileSync(join(p, "memory/state/once/op/op.json"), '{"op_id":"op","sta');
    const result = dotagent(p, ["once", "op", "--", ...EFFECT]);
    expect(result.code).toBe(3);
    expect(result.stderr.trim()).toBe(
      "dotagent: memory/state/once/op/op.json: not valid JSON; for the person: fix it by hand, or remove memory/state/once/op/ to forget the op (it may then run again)",
    );
    expect(runs(p)).toBe(1);
    expect(dotagent(p, ["status", "--json"]).json.ops).toMatchObject([{ op_id: "op", status: "unknown" }]);
  });
});

describe("once: kill -9 between intent and result", () => {
  it("killed before the intent is recorded: nothing ran, the next call runs it", () => {
    const p = project();
    expect(killedAt(p, "renameSync:/op.json:1", ["once", "op", "--", ...EFFECT])).toBeNull();
    expect(runs(p)).toBe(0);
    expect(dotagent(p, ["once", "op", "--json", "--", ...EFFECT]).json).toMatchObject({ outcome: "ran", runs: 1 });
    expect(runs(p)).toBe(1);
  });

  it("issue 40: killed right after the command's start, before its pid is recorded: the command never runs (it waits for the record), and --redo runs it once", () => {
    // op.json is written three times: the intent, the intent with the command's pid, the result.
    const p = project();
    expect(killedAt(p, "renameSync:/op.json:2", ["once", "op", "--", ...EFFECT])).toBeNull();
    expect(runs(p)).toBe(0);
    expect(readJson(p, "memory/state/once/op/op.json")).toMatchObject({ status: "running", child: null });
    expect(dotagent(p, ["once", "op", "--redo", "--json", "--", ...EFFECT]).json).toMatchObject({
      outcome: "ran",
      status: "done",
      runs: 2,
    });
    expect(runs(p)).toBe(1);
  });

  it("the record of the command's pid cannot be written (EIO): write_failed, exit 1, one line, and the command never runs", () => {
    const p = project();
    const run = spawnSync(process.execPath, ["--import", PRELOAD, CLI, "once", "op", "--json", "--", ...EFFECT], {
      cwd: p,
      encoding: "utf8",
      env: { ...process.env, TORTURE_FAULT: "renameSync:EIO:op.json:2" },
    });
    expect(run.status).toBe(1);
    expect(JSON.parse(run.stdout).error).toMatchObject({
      code: "write_failed",
      errno: "EIO",
      message: expect.stringMatching(/^could not write memory\/state\/once\/op\/op\.json \(EIO\)/),
    });
    expect(runs(p)).toBe(0);
    const plain = spawnSync(process.execPath, ["--import", PRELOAD, CLI, "once", "other", "--", ...EFFECT], {
      cwd: p,
      encoding: "utf8",
      env: { ...process.env, TORTURE_FAULT: "renameSync:EIO:op.json:2" },
    });
    expect([plain.status, plain.stderr.trim().split("\n").length]).toEqual([1, 1]);
    expectNoStack(plain.stderr);
    expect(runs(p)).toBe(0);
    // The intent stands without a pid: the person is asked, and the no (--redo) runs it once.
    expect(dotagent(p, ["once", "op", "--json", "--", ...EFFECT]).code).toBe(5);
    expect(dotagent(p, ["once", "op", "--redo", "--json", "--", ...EFFECT]).json).toMatchObject({
      outcome: "ran",
      runs: 2,
    });
    expect(runs(p)).toBe(1);
  });

  it("killed after the command, before its result: a decision (exit 5), never a silent re-run", () => {
    // op.json is written three times: the intent, the intent with the command's pid, the result.
    const p = project();
    expect(killedAt(p, "renameSync:/op.json:3", ["once", "op", "--", ...EFFECT])).toBeNull();
    expect(runs(p)).toBe(1);
    expect(dotagent(p, ["status", "--json"]).json.ops).toMatchObject([{ op_id: "op", status: "unknown" }]);
    const asked = dotagent(p, ["once", "op", "--json", "--", ...EFFECT]);
    expect(asked.code).toBe(5);
    expect(asked.json).toMatchObject({
      outcome: "decide",
      status: "running",
      ran: false,
      decision: { default: false, yes: "dotagent once op --mark-done" },
    });
    expect(asked.json.decision.no).toMatch(/^dotagent once op --redo -- /);
    expect(runs(p)).toBe(1);
    // The yes command records it done; from then on it only replays.
    const marked = dotagent(p, ["once", "op", "--mark-done"]);
    // Good news is not printed like an error: on stdout, no "dotagent:" prefix, stderr empty.
    expect(marked).toMatchObject({ code: 0, stdout: "Op op recorded done; it will not run again.\n", stderr: "" });
    expect(dotagent(p, ["once", "op", "--json", "--", ...EFFECT]).json).toMatchObject({
      outcome: "replayed",
      status: "done",
      how: "marked_done",
    });
    expect(dotagent(p, ["once", "op", "--json", "--", ...EFFECT]).json).toMatchObject({ outcome: "replayed" });
    expect(runs(p)).toBe(1);
  });

  it("--check probes instead of asking: exit 0 records done, non-zero runs it again", () => {
    const p = project();
    killedAt(p, "renameSync:/op.json:3", ["once", "a", "--", ...EFFECT]);
    const checked = dotagent(p, ["once", "a", "--check", "test -f effects.txt", "--", ...EFFECT]);
    expect(checked).toMatchObject({
      code: 0,
      stdout: "Op a: the check passed, so the cut-off run took effect; recorded done, not run again.\n",
      stderr: "",
    });
    expect(dotagent(p, ["once", "a", "--json", "--", ...EFFECT]).json).toMatchObject({
      outcome: "replayed",
      status: "done",
      how: "checked",
    });
    expect(runs(p)).toBe(1);
    killedAt(p, "renameSync:/op.json:3", ["once", "b", "--", ...EFFECT]);
    expect(runs(p)).toBe(2);
    expect(dotagent(p, ["once", "b", "--json", "--check", "test -f no-such-file", "--", ...EFFECT]).json).toMatchObject(
      { outcome: "ran", status: "done", runs: 2 },
    );
    expect(runs(p)).toBe(3);
  });

  it("the no command (--redo) runs it again", () => {
    const p = project();
    killedAt(p, "renameSync:/op.json:3", ["once", "op", "--", ...EFFECT]);
    expect(dotagent(p, ["once", "op", "--redo", "--json", "--", ...EFFECT]).json).toMatchObject({
      outcome: "ran",
      runs: 2,
    });
    expect(runs(p)).toBe(2);
  });

  it("killed after the result, holding the op's lock: the stale lock is taken over and the result replayed", () => {
    const p = project();
    expect(killedAt(p, "unlinkSync:/.lock:2", ["once", "op", "--", ...EFFECT])).toBeNull();
    expect(existsSync(join(p, "memory/state/once/op/.lock"))).toBe(true);
    expect(readJson(p, "memory/state/once/op/op.json").status).toBe("done");
    expect(dotagent(p, ["once", "op", "--json", "--", ...EFFECT]).json).toMatchObject({ outcome: "replayed" });
    expect(runs(p)).toBe(1);
  });

  it("killed at every disk step: never two runs after a recorded success, never an unreadable record", () => {
    const p = project();
    for (let n = 1; n <= 10; n++) {
      const op = `op-${n}`;
      const before = runs(p);
      killedAt(p, String(n), ["once", op, "--", ...EFFECT]);
      const ranBefore = runs(p) - before;
      const next = dotagent(p, ["once", op, "--json", "--check", "false", "--", ...EFFECT]);
      expect(next.code).toBe(0);
      const record = readJson(p, `memory/state/once/${op}/op.json`);
      expect(record.status).toBe("done");
      // Ran once, or (killed after the effect, before the result: the check said no) twice, never more.
      expect(runs(p) - before).toBeLessThanOrEqual(ranBefore + 1);
      expect(dotagent(p, ["once", op, "--json", "--", ...EFFECT]).json.outcome).toBe("replayed");
    }
  });
});

describe("once: concurrent callers with one op id", () => {
  it("exactly one runs; the others wait and replay its result", async () => {
    const p = project();
    const slow = [
      process.execPath,
      "-e",
      "require('fs').appendFileSync('effects.txt','x\\n'); setTimeout(() => console.log('slow done'), 400)",
    ];
    const results = await Promise.all(
      Array.from(
        { length: 6 },
        () =>
          new Promise<{ code: number | null; json: { outcome: string; stdout: string } }>((resolve) => {
            const child = spawn(process.execPath, [CLI, "once", "race", "--json", "--", ...slow], {
              cwd: p,
              env: { ...process.env, DOTAGENT_LOCK_WAIT_MS: "30000" },
            });
            let out = "";
            child.stdout.on("data", (c: Buffer) => (out += c.toString()));
            child.on("close", (code) => resolve({ code, json: JSON.parse(out) }));
          }),
      ),
    );
    expect(results.map((r) => r.code)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(results.filter((r) => r.json.outcome === "ran")).toHaveLength(1);
    expect(results.filter((r) => r.json.outcome === "replayed")).toHaveLength(5);
    expect(results.every((r) => r.json.stdout === "slow done\n")).toBe(true);
    expect(runs(p)).toBe(1);
  });

  it("a caller that cannot wait long enough gets exit 4 naming the runner, and nothing runs twice", async () => {
    const p = project();
    // The first run holds until this test lets it go (the file `release`), however slow the machine:
    // a fixed sleep could end before the second caller has even started.
    const slow = [
      process.execPath,
      "-e",
      "const fs=require('fs'); fs.appendFileSync('effects.txt','x\\n'); const t=setInterval(() => { if (fs.existsSync('release')) clearInterval(t); }, 20)",
    ];
    const first = spawn(process.execPath, [CLI, "once", "race", "--", ...slow], { cwd: p, stdio: "ignore" });
    const closed = new Promise((r) => first.on("close", r));
    const deadline = Date.now() + 60_000;
    while (!existsSync(join(p, "effects.txt")) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const second = dotagent(p, ["once", "race", "--json", "--", ...slow], { env: { DOTAGENT_LOCK_WAIT_MS: "100" } });
    expect(second.code).toBe(4);
    expect(second.json.error).toMatchObject({ code: "op_running", holder: { pid: first.pid } });
    expect(second.json.error.message).toContain(`op race is being run by pid ${first.pid}`);
    expect(dotagent(p, ["status", "--json"]).json.ops).toMatchObject([{ op_id: "race", status: "running" }]);
    writeFileSync(join(p, "release"), "");
    await closed;
    expect(dotagent(p, ["once", "race", "--json", "--", ...slow]).json.outcome).toBe("replayed");
    expect(runs(p)).toBe(1);
  });
});

describe("issue 21, case 4: kill -9 of the runner leaves its command running: the op is running while it lives", () => {
  /** A command that appends "start", waits until the file `stop` appears, then appends "end". */
  const WAITER = [
    process.execPath,
    "-e",
    "const fs=require('fs');fs.appendFileSync('log.txt','start\\n');setInterval(()=>{if(fs.existsSync('stop')){fs.appendFileSync('log.txt','end\\n');process.exit(0)}},20)",
  ];
  const log = (p: string) =>
    existsSync(join(p, "log.txt")) ? readFileSync(join(p, "log.txt"), "utf8").split("\n").filter(Boolean) : [];

  async function until(what: string, ok: () => boolean): Promise<void> {
    const deadline = Date.now() + 20_000;
    while (!ok()) {
      if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  it("while the command lives: exit 4 (op_running), --redo and --mark-done too, status says running; once it ended: the decision", async () => {
    const p = project();
    const runner = spawn(process.execPath, [CLI, "once", "op", "--", ...WAITER], { cwd: p, stdio: "ignore" });
    const record = () =>
      existsSync(join(p, "memory/state/once/op/op.json")) ? readJson(p, "memory/state/once/op/op.json") : null;
    await until("the command's pid in op.json", () => record()?.child?.pid !== undefined && log(p).length === 1);
    const child = record().child as { pid: number; start: string };
    expect(child.start).toMatch(/^\d+$/);
    runner.kill("SIGKILL");
    await new Promise((r) => runner.on("close", r));

    for (const args of [
      ["once", "op", "--json", "--", ...WAITER],
      ["once", "op", "--redo", "--json", "--", ...WAITER],
      ["once", "op", "--mark-done", "--json"],
      ["once", "op", "--check", "true", "--json", "--", ...WAITER],
    ]) {
      const r = dotagent(p, args);
      expect(r.code, args.join(" ")).toBe(4);
      expect(r.json.error).toMatchObject({ code: "op_running", op_id: "op", child: { pid: child.pid } });
      expect(r.json.error.message).toBe(
        `op op: its command (pid ${child.pid}) is still running, though the dotagent that started it (pid ${runner.pid}) is gone; run the same command again once it has ended (to stop it: kill ${child.pid})`,
      );
    }
    const plain = dotagent(p, ["once", "op", "--", ...WAITER]);
    expect(plain.stderr.trim().split("\n")).toHaveLength(1);
    expect(dotagent(p, ["status", "--json"]).json.ops).toMatchObject([{ op_id: "op", status: "running" }]);
    expect(log(p)).toEqual(["start"]);
    expect(record().status).toBe("running");

    writeFileSync(join(p, "stop"), "");
    await until("the command to end", () => log(p).includes("end"));
    // It has ended (a zombie under a pid 1 that does not reap counts as ended too): the question as before.
    let asked = dotagent(p, ["once", "op", "--json", "--", ...WAITER]);
    const deadline = Date.now() + 20_000;
    while (asked.code === 4 && Date.now() < deadline) asked = dotagent(p, ["once", "op", "--json", "--", ...WAITER]);
    expect(asked.code).toBe(5);
    expect(asked.json).toMatchObject({
      outcome: "decide",
      status: "running",
      decision: { yes: "dotagent once op --mark-done" },
    });
    expect(dotagent(p, ["status", "--json"]).json.ops).toMatchObject([{ op_id: "op", status: "unknown" }]);
    expect(log(p)).toEqual(["start", "end"]);
  });

  it("a recorded command pid that now belongs to another process (another start time) does not hold the op", () => {
    const p = project();
    killedAt(p, "renameSync:/op.json:3", ["once", "op", "--", ...EFFECT]);
    const file = join(p, "memory/state/once/op/op.json");
    // This test's own process, with a start time it never had: a reused pid.
    writeFileSync(
      file,
      JSON.stringify({ ...readJson(p, "memory/state/once/op/op.json"), child: { pid: process.pid, start: "1" } }),
    );
    expect(dotagent(p, ["once", "op", "--json", "--", ...EFFECT]).code).toBe(5);
  });
});

describe("issue 21, case 5: a closed stdout stops the forwarding, never the recording", () => {
  function piped(p: string, command: string): { code: number | null; stdout: string; stderr: string } {
    const r = spawnSync("sh", ["-c", `"${process.execPath}" "${CLI}" ${command} | head -c 10`], {
      cwd: p,
      encoding: "utf8",
      timeout: 60_000,
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  it("once X -- seq 1 200000 | head -c 10: no EPIPE stack, the op recorded done, the lock released", () => {
    const p = project();
    const r = piped(p, "once X -- seq 1 200000");
    expect(r.stdout).toBe("1\n2\n3\n4\n5\n");
    expect(r.stderr).toBe("");
    const record = readJson(p, "memory/state/once/X/op.json");
    expect(record).toMatchObject({ status: "done", exit_code: 0, stdout_truncated: true });
    expect(record.stdout.startsWith("1\n2\n3\n")).toBe(true);
    expect(existsSync(join(p, "memory/state/once/X/.lock"))).toBe(false);
    expect(dotagent(p, ["status", "--json"]).json.ops).toEqual([]);
    // The replay through the same closed pipe: no stack either.
    const again = piped(p, "once X -- seq 1 200000");
    expect(again.stderr).toContain("Op X already done");
    expectNoStack(again.stderr);
  });

  it("a command that fails after its reader went away is recorded failed with its exit code", () => {
    const p = project();
    const r = piped(p, `once Y -- sh -c 'seq 1 200000; exit 3'`);
    expectNoStack(r.stderr);
    expect(readJson(p, "memory/state/once/Y/op.json")).toMatchObject({ status: "failed", exit_code: 3 });
    expect(existsSync(join(p, "memory/state/once/Y/.lock"))).toBe(false);
  });
});

describe("issue 21, case 6: a record is always readable back; a command that cannot start is a result", () => {
  it("a command too big for its record is refused up front (exit 2, one line), nothing recorded", () => {
    const p = project();
    const big = Array.from({ length: 6 }, (_, i) => `${i}`.repeat(100_000));
    const r = dotagent(p, ["once", "big", "--", "true", ...big]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(
      /^dotagent: once big: the command takes 58\d KiB in its record, over the 512 KiB a record keeps: put it in a script and run that; nothing was run or recorded$/,
    );
    expect(existsSync(join(p, "memory/state/once/big"))).toBe(false);
  });

  it("a command just under the limit is recorded and replayed", () => {
    const p = project();
    const big = Array.from({ length: 5 }, (_, i) => `${i}`.repeat(100_000));
    expect(dotagent(p, ["once", "big", "--", "true", ...big]).code).toBe(0);
    expect(dotagent(p, ["once", "big", "--json", "--", "true", ...big]).json).toMatchObject({
      outcome: "replayed",
      exit_code: 0,
    });
  });

  it("through the library: a NUL byte is a usage error before anything is recorded; E2BIG is recorded failed (126), never left running", async () => {
    const p = project();
    const w = openWorkflow(p);
    const nul = await w.once("nul", ["echo", "a\0b"]).catch((e: unknown) => e);
    expect(nul).toBeInstanceOf(DotagentError);
    expect(nul).toMatchObject({
      code: "usage",
      exitCode: 2,
      message: "once nul: argument 1 holds a NUL byte, which no program can receive; nothing was run or recorded",
    });
    expect(existsSync(join(p, "memory/state/once/nul"))).toBe(false);
    // One argument over the kernel's 128 KiB per-argument limit: spawn throws E2BIG synchronously.
    const huge = await w.once("huge", ["true", "x".repeat(200_000)]);
    expect(huge).toMatchObject({
      outcome: "ran",
      status: "failed",
      exit_code: 126,
      start_error: "argument list too long for the system",
    });
    expect(readJson(p, "memory/state/once/huge/op.json")).toMatchObject({ status: "failed", exit_code: 126 });
    expect(existsSync(join(p, "memory/state/once/huge/.lock"))).toBe(false);
    expect(dotagent(p, ["status", "--json"]).json.ops).toEqual([
      { op_id: "huge", status: "failed", started_at: huge.started_at },
    ]);
  });
});

describe("issue 21, case 12: op.json is validated strictly, never replayed as something else", () => {
  const done = (p: string) => readJson(p, "memory/state/once/op/op.json");
  it.each([
    ["exit_code 1.5", { exit_code: 1.5 }, "exit_code: 1.5 with status done, which means exit 0"],
    [
      "exit_code 300",
      { status: "failed", exit_code: 300 },
      "exit_code: 300 with status failed: expected a whole number from 1 to 255",
    ],
    ["exit_code 1e10", { status: "failed", exit_code: 1e10 }, "exit_code: 10000000000 with status failed"],
    ["exit_code -1", { status: "failed", exit_code: -1 }, "exit_code: -1 with status failed"],
    ['exit_code "0"', { exit_code: "0" }, 'exit_code: "0" with status done'],
    ["exit_code null with done", { exit_code: null }, "exit_code: null with status done"],
    ["status done with exit_code 7", { exit_code: 7 }, "exit_code: 7 with status done, which means exit 0"],
    ["another op's record", { op_id: "other" }, `op_id: "other" is another op's record, not op's`],
    [
      "a runner pid that is not a pid",
      { runner: { pid: 1.5, hostname: "h" } },
      "runner: expected {pid: a positive integer, hostname}",
    ],
    ["stdout not base64", { stdout: "%%%", stdout_encoding: "base64" }, "stdout: not base64"],
  ])("%s: exit 3 op_record_invalid naming the file and the fix, nothing run", (_, change, message) => {
    const p = projectWithOpDone();
    writeFileSync(join(p, "memory/state/once/op/op.json"), JSON.stringify({ ...done(p), ...change }));
    const r = dotagent(p, ["once", "op", "--json", "--", ...EFFECT]);
    expect(r.code).toBe(3);
    expect(r.json.error).toMatchObject({
      code: "op_record_invalid",
      op_id: "op",
      path: "memory/state/once/op/op.json",
    });
    expect(r.json.error.message).toContain(`memory/state/once/op/op.json: ${message}`);
    expect(r.json.error.message).toContain("remove memory/state/once/op/ to forget the op");
    expect(runs(p)).toBe(1);
    expectNoStack(dotagent(p, ["once", "op", "--", ...EFFECT]).stderr);
  });

  it.each([
    [
      "a file",
      (dir: string) => writeFileSync(dir, ""),
      "memory/state/once is a file, where dotagent keeps a folder of op records",
    ],
    [
      "a FIFO",
      (dir: string) => spawnSync("mkfifo", [dir]),
      "memory/state/once is a FIFO, where dotagent keeps a folder of op records",
    ],
  ])(
    "memory/state/once replaced by %s: once and status say so in one line, exit 3, nothing runs",
    (_, make, message) => {
      const p = project();
      make(join(p, "memory/state/once"));
      for (const args of [["once", "op", "--", ...EFFECT], ["status"]]) {
        const r = dotagent(p, args);
        expect(r.code, args[0]).toBe(3);
        expect(r.stderr.trim()).toBe(`dotagent: ${message} (never followed): replace it with a real folder`);
      }
      expect(runs(p)).toBe(0);
    },
  );

  it("memory/state/once unreadable (chmod 000): once and status exit 3 naming it, never an empty list (run as nobody when the tests run as root)", (context) => {
    const p = projectWithOpDone();
    const run = unprivileged(p);
    if (run === null) return context.skip("root without setpriv: nobody to run as who cannot read past chmod 000");
    chmodSync(join(p, "memory/state/once"), 0o000);
    try {
      const once = run(["once", "op", "--", ...EFFECT]);
      expect(once.code).toBe(3);
      expect(once.stderr.trim()).toBe(
        "dotagent: memory/state/once/op cannot be read (EACCES); the op records are there but unreadable: check the permissions of memory/state/once",
      );
      const status = run(["status", "--json"]);
      expect(status.code).toBe(3);
      expect(status.json.error).toMatchObject({ code: "state_unreadable", path: "memory/state/once", errno: "EACCES" });
    } finally {
      chmodSync(join(p, "memory/state/once"), 0o755);
    }
    expect(runs(p)).toBe(1);
  });

  it("op.json unreadable (chmod 000) is state_unreadable, not a damaged record (run as nobody when the tests run as root)", (context) => {
    const p = projectWithOpDone();
    const run = unprivileged(p);
    if (run === null) return context.skip("root without setpriv");
    chmodSync(join(p, "memory/state/once/op/op.json"), 0o000);
    const r = run(["once", "op", "--json", "--", ...EFFECT]);
    expect(r.code).toBe(3);
    expect(r.json.error).toMatchObject({
      code: "state_unreadable",
      path: "memory/state/once/op/op.json",
      errno: "EACCES",
    });
    expect(runs(p)).toBe(1);
  });
});

describe("issue 21, case 14: once's small wrong answers", () => {
  it("an op id over 128 characters is named by its length and first 20 characters", () => {
    const p = project();
    for (const args of [
      ["once", "a".repeat(10_000), "--", "true"],
      ["once", "a".repeat(10_000)],
    ]) {
      const r = dotagent(p, args);
      expect(r.code).toBe(2);
      expect(r.stderr.trim()).toBe(
        'dotagent: an op id of 10000 characters ("aaaaaaaaaaaaaaaaaaaa"…) is too long: at most 128 characters',
      );
    }
  });

  it("a missing program says COMMAND: not found in one line, exit 127", () => {
    const p = project();
    const r = dotagent(p, ["once", "x", "--", "no-such-command-dotagent", "arg"]);
    expect(r.code).toBe(127);
    expect(r.stderr.trim()).toBe(
      "dotagent: op x: no-such-command-dotagent: not found (exit 127); recorded failed, running the same command again retries it",
    );
    expect(readJson(p, "memory/state/once/x/op.json")).toMatchObject({
      status: "failed",
      exit_code: 127,
      start_error: "not found",
    });
  });

  it("replay gives the recorded stdout back byte for byte: no newline added, binary kept", () => {
    const p = project();
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const write = [
      process.execPath,
      "-e",
      `process.stdout.write(Buffer.from(${JSON.stringify(bytes.toString("base64"))}, "base64"))`,
    ];
    const raw = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { cwd: p }).stdout;
    expect(raw(["once", "bin", "--", ...write])).toEqual(bytes);
    expect(raw(["once", "bin", "--", ...write])).toEqual(bytes);
    expect(readJson(p, "memory/state/once/bin/op.json")).toMatchObject({
      stdout_encoding: "base64",
      stdout: bytes.toString("base64"),
    });
    expect(dotagent(p, ["once", "bin", "--json", "--", ...write]).json).toMatchObject({
      outcome: "replayed",
      stdout_encoding: "base64",
      stdout: bytes.toString("base64"),
    });
    const text = [process.execPath, "-e", "process.stdout.write('no newline')"];
    expect(raw(["once", "txt", "--", ...text]).toString()).toBe("no newline");
    expect(raw(["once", "txt", "--", ...text]).toString()).toBe("no newline");
  });

  it("a record written before stdout_encoding existed still replays as text", () => {
    const p = project();
    dotagent(p, ["once", "old", "--", ...EFFECT]);
    const { stdout_encoding: _, ...old } = readJson(p, "memory/state/once/old/op.json");
    writeFileSync(join(p, "memory/state/once/old/op.json"), JSON.stringify(old));
    expect(dotagent(p, ["once", "old", "--", ...EFFECT]).stdout).toBe("made it\n");
  });
});

describe("issue 40: once returns when its command does", () => {
  it("a command that returns while its background child holds stdout: once returns with the result, the child is left running", () => {
    const p = project();
    try {
      // Its stderr is once's (the child holds that too): only the JSON on stdout is waited for.
      const run = spawnSync(
        process.execPath,
        [CLI, "once", "bg", "--json", "--", "sh", "-c", "sleep 120 & echo done"],
        { cwd: p, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 50_000, killSignal: "SIGKILL" },
      );
      expect([run.signal, run.status]).toEqual([null, 0]);
      expect(JSON.parse(run.stdout)).toMatchObject({ outcome: "ran", status: "done", exit_code: 0, stdout: "done\n" });
      if (HAS_PROC) expect(processesIn(p)).toHaveLength(1);
    } finally {
      endProcessesIn(p);
    }
  });
});
