// `dotagent once`, the idempotency guard, through the built CLI: a side effect runs at most once
// per op id, across kill -9 at every step and concurrent callers.
import { afterEach, describe, expect, it } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, dotagent, expectNoStack, readJson, removeTemps, tempProject } from "./support/cli.js";

afterEach(removeTemps);

const PRELOAD = join(CLI, "../../test/torture/kill-at.mjs");
/** A command with a visible side effect: one line appended to effects.txt per run. */
const EFFECT = [process.execPath, "-e", "require('fs').appendFileSync('effects.txt','x\\n'); console.log('made it')"];

function project(): string {
  const p = tempProject();
  expect(dotagent(p, ["init", "--request", "t"]).code).toBe(0);
  return p;
}

function runs(p: string): number {
  const file = join(p, "effects.txt");
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).length : 0;
}

/** The CLI with kill-at.mjs preloaded; TORTURE_KILL_AT says where it SIGKILLs itself. */
function killedAt(p: string, killAt: string, args: string[]): number | null {
  const result = spawnSync(process.execPath, ["--import", PRELOAD, CLI, ...args], { cwd: p, env: { ...process.env, TORTURE_KILL_AT: killAt }, stdio: "ignore" });
  return result.signal === "SIGKILL" ? null : result.status;
}

describe("once: at most one run per op id", () => {
  it("runs, records, then replays the recorded result without running", () => {
    const p = project();
    const first = dotagent(p, ["once", "t1.commit", "--", ...EFFECT]);
    expect(first).toMatchObject({ code: 0, stdout: "made it\n" });
    const again = dotagent(p, ["once", "t1.commit", "--json", "--", ...EFFECT]);
    expect(again.code).toBe(0);
    expect(again.json).toMatchObject({ op_id: "t1.commit", outcome: "replayed", status: "done", ran: false, exit_code: 0, stdout: "made it\n", how: "ran", runs: 1, decision: null });
    const plain = dotagent(p, ["once", "t1.commit", "--", ...EFFECT]);
    expect(plain.stdout).toBe("made it\n");
    expect(plain.stderr).toMatch(/^Op t1.commit already done at \d{4}-\d\d-\d\d \d\d:\d\d UTC \(exit 0\); not run again.\n$/);
    expect(runs(p)).toBe(1);
    expect(readJson(p, "memory/state/once/t1.commit/op.json")).toMatchObject({ status: "done", exit_code: 0, command: EFFECT });
  });

  it("passes the command's exit code through; a failure is retried, not replayed", () => {
    const p = project();
    const fail = dotagent(p, ["once", "push", "--json", "--", process.execPath, "-e", "require('fs').appendFileSync('effects.txt','x\\n'); process.exit(7)"]);
    expect(fail.code).toBe(7);
    expect(fail.json).toMatchObject({ outcome: "ran", status: "failed", exit_code: 7 });
    expect(dotagent(p, ["status", "--json"]).json.ops).toEqual([{ op_id: "push", status: "failed", started_at: fail.json.started_at }]);
    expect(dotagent(p, ["once", "push", "--json", "--", ...EFFECT]).json).toMatchObject({ outcome: "ran", status: "done", runs: 2 });
    expect(dotagent(p, ["once", "push", "--", ...EFFECT]).code).toBe(0);
    expect(runs(p)).toBe(2);
    expect(dotagent(p, ["status", "--json"]).json.ops).toEqual([]);
  });

  it("a command that does not exist is exit 127, recorded failed", () => {
    const p = project();
    expect(dotagent(p, ["once", "x", "--json", "--", "no-such-command-dotagent"]).json).toMatchObject({ status: "failed", exit_code: 127 });
  });

  it("refuses bad input with one line and the right exit code", () => {
    const p = project();
    for (const [args, code, text] of [
      [["once"], 2, "needs an op id"],
      [["once", "op"], 2, "needs the command to run"],
      [["once", "../escape", "--", "true"], 2, "is not valid"],
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
    expect(r.stderr).toContain("memory/state/once is not a real folder");
    expect(runs(p)).toBe(0);
    expect(readdirSync(outside)).toEqual([]);
  });

  it("a damaged record is exit 3 naming the file and the remedy, and nothing runs", () => {
    const p = project();
    dotagent(p, ["once", "op", "--", ...EFFECT]);
    writeFileSync(join(p, "memory/state/once/op/op.json"), '{"op_id":"op","sta');
    const result = dotagent(p, ["once", "op", "--", ...EFFECT]);
    expect(result.code).toBe(3);
    expect(result.stderr.trim()).toBe("dotagent: memory/state/once/op/op.json: not valid JSON; fix it by hand, or remove memory/state/once/op/ to forget the op (it may then run again)");
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

  it("killed after the command, before its result: a decision (exit 5), never a silent re-run", () => {
    const p = project();
    expect(killedAt(p, "renameSync:/op.json:2", ["once", "op", "--", ...EFFECT])).toBeNull();
    expect(runs(p)).toBe(1);
    expect(dotagent(p, ["status", "--json"]).json.ops).toMatchObject([{ op_id: "op", status: "unknown" }]);
    const asked = dotagent(p, ["once", "op", "--json", "--", ...EFFECT]);
    expect(asked.code).toBe(5);
    expect(asked.json).toMatchObject({ outcome: "decide", status: "running", ran: false, decision: { default: false, yes: "dotagent once op --mark-done" } });
    expect(asked.json.decision.no).toMatch(/^dotagent once op --redo -- /);
    expect(runs(p)).toBe(1);
    // The yes command records it done; from then on it only replays.
    const marked = dotagent(p, ["once", "op", "--mark-done"]);
    // Good news is not printed like an error: on stdout, no "dotagent:" prefix, stderr empty.
    expect(marked).toMatchObject({ code: 0, stdout: "Op op recorded done; it will not run again.\n", stderr: "" });
    expect(dotagent(p, ["once", "op", "--json", "--", ...EFFECT]).json).toMatchObject({ outcome: "replayed", status: "done", how: "marked_done" });
    expect(dotagent(p, ["once", "op", "--json", "--", ...EFFECT]).json).toMatchObject({ outcome: "replayed" });
    expect(runs(p)).toBe(1);
  });

  it("--check probes instead of asking: exit 0 records done, non-zero runs it again", () => {
    const p = project();
    killedAt(p, "renameSync:/op.json:2", ["once", "a", "--", ...EFFECT]);
    const checked = dotagent(p, ["once", "a", "--check", "test -f effects.txt", "--", ...EFFECT]);
    expect(checked).toMatchObject({ code: 0, stdout: "Op a: the check passed, so the cut-off run took effect; recorded done, not run again.\n", stderr: "" });
    expect(dotagent(p, ["once", "a", "--json", "--", ...EFFECT]).json).toMatchObject({ outcome: "replayed", status: "done", how: "checked" });
    expect(runs(p)).toBe(1);
    killedAt(p, "renameSync:/op.json:2", ["once", "b", "--", ...EFFECT]);
    expect(runs(p)).toBe(2);
    expect(dotagent(p, ["once", "b", "--json", "--check", "test -f no-such-file", "--", ...EFFECT]).json).toMatchObject({ outcome: "ran", status: "done", runs: 2 });
    expect(runs(p)).toBe(3);
  });

  it("the no command (--redo) runs it again", () => {
    const p = project();
    killedAt(p, "renameSync:/op.json:2", ["once", "op", "--", ...EFFECT]);
    expect(dotagent(p, ["once", "op", "--redo", "--json", "--", ...EFFECT]).json).toMatchObject({ outcome: "ran", runs: 2 });
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
    const slow = [process.execPath, "-e", "require('fs').appendFileSync('effects.txt','x\\n'); setTimeout(() => console.log('slow done'), 400)"];
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        new Promise<{ code: number | null; json: { outcome: string; stdout: string } }>((resolve) => {
          const child = spawn(process.execPath, [CLI, "once", "race", "--json", "--", ...slow], { cwd: p, env: { ...process.env, DOTAGENT_LOCK_WAIT_MS: "30000" } });
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
    const slow = [process.execPath, "-e", "const fs=require('fs'); fs.appendFileSync('effects.txt','x\\n'); const t=setInterval(() => { if (fs.existsSync('release')) clearInterval(t); }, 20)"];
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
