// A lock whose holder is gone: its process was killed, the file is truncated or garbage, or it
// comes from another host and is older than the lease. The next command must take it over at
// once (no waiting: these run with DOTAGENT_LOCK_WAIT_MS=0), say so in a warning, and leave no
// lock behind. Many takers of one stale lock: exactly one takes it over, the others wait their
// turn, and no update is lost. TORTURE_TAKER_ROUNDS / TORTURE_TAKERS raise the counts.
import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  lockLibrary,
  REPO,
  describeRun,
  envInt,
  makeProject,
  parseStdoutJson,
  readState,
  recordFigures,
  removeTempDirs,
  runCli,
  stackLines,
  stateLeftovers,
  validationErrors,
} from "./helpers.js";

const ROUNDS = envInt("TORTURE_TAKER_ROUNDS", 2);
const TAKERS = Math.max(2, envInt("TORTURE_TAKERS", 4));

afterAll(removeTempDirs);

function project(label: string): Promise<string> {
  return makeProject(label, [["init", [], { request: "locks", "workflow-id": "wf-locks" }]]);
}

/** The pid of a process that existed a moment ago and is gone now. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
  await new Promise((resolve) => child.once("spawn", resolve));
  const pid = child.pid!;
  child.kill("SIGKILL");
  await new Promise((resolve) => child.once("exit", resolve));
  return pid;
}

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();

type StaleKind = "killed holder" | "truncated" | "garbage" | "empty" | "foreign host past the lease";

async function staleLock(kind: StaleKind): Promise<string> {
  switch (kind) {
    case "killed holder":
      return JSON.stringify({
        pid: await deadPid(),
        hostname: hostname(),
        acquired_at: minutesAgo(0.1),
        command: "task add",
        token: "feedface00000001",
      });
    case "truncated":
      return JSON.stringify({ pid: 1234, hostname: hostname(), acquired_at: minutesAgo(1), command: "resume" }).slice(
        0,
        25,
      );
    case "garbage":
      return "\u0000\u00ff\u00fe not a lock at all \u0007";
    case "empty":
      return "";
    case "foreign host past the lease":
      return JSON.stringify({
        pid: 1,
        hostname: "some-other-host.example",
        acquired_at: minutesAgo(11),
        command: "resume",
        token: "feedface00000002",
      });
  }
}

const TAKEOVER = /took over|stale|taken over/i;

describe("a lock whose holder is gone", () => {
  const kinds: StaleKind[] = ["killed holder", "truncated", "garbage", "empty", "foreign host past the lease"];
  it.each(kinds)("%s: the next command takes it over at once, with a warning, and leaves no lock", async (kind) => {
    const dir = await project("stale");
    writeFileSync(join(dir, "memory/state/.lock"), await staleLock(kind));
    const run = await runCli(dir, ["task", "add", "after-stale"], {
      env: { DOTAGENT_LOCK_WAIT_MS: "0" },
      timeoutMs: 20_000,
    });
    expect(run.code, describeRun(run)).toBe(0);
    expect(readState(dir).execution?.tasks.map((t) => t.id)).toEqual(["after-stale"]);
    expect(stateLeftovers(dir)).toEqual([]);
    expect(stackLines(run.stderr)).toEqual([]);
    // CONTRACT §6: "taken over with a warning".
    expect(run.stderr, `no takeover warning on stderr: ${describeRun(run)}`).toMatch(TAKEOVER);
  });

  it("a foreign host's lock inside the lease is live: exit 4 naming pid, host, command and age", async () => {
    const dir = await project("foreign-live");
    const lock = {
      pid: 4242,
      hostname: "some-other-host.example",
      acquired_at: minutesAgo(2),
      command: "phase complete",
      token: "feedface00000003",
    };
    writeFileSync(join(dir, "memory/state/.lock"), JSON.stringify(lock));
    const run = await runCli(dir, ["task", "add", "x"], { env: { DOTAGENT_LOCK_WAIT_MS: "0" } });
    expect(run.code, describeRun(run)).toBe(4);
    const lines = run.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/4242/);
    expect(lines[0]).toMatch(/some-other-host\.example/);
    expect(lines[0]).toMatch(/phase complete/);
    expect(lines[0]).toMatch(/\b(1\d\d|2 min|\d+ ?s)\b/);
    expect(readState(dir).execution).toBeUndefined();
  });
});

describe("the takeover itself", () => {
  it("leaves no moment without a lock: a command arriving mid-takeover cannot slip in and make the takeover silent", async () => {
    const dir = await project("takeover-gap");
    writeFileSync(join(dir, "memory/state/.lock"), await staleLock("killed holder"));
    // The taker stops right after moving the stale lock aside (its 3rd unlink of a .lock.* file:
    // its own probe, its guard's temp file, then the stale lock's trash copy).
    const taker = runCli(dir, ["task", "add", "taker"], {
      env: { DOTAGENT_LOCK_WAIT_MS: "30000" },
      pause: "unlinkSync:/.lock.:2500:3",
    });
    const deadline = Date.now() + 20_000;
    while (existsSync(join(dir, "memory/state/.lock")) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    // A second command arrives now and holds the lock a while (slow to append its event).
    const other = await runCli(dir, ["task", "add", "other"], {
      env: { DOTAGENT_LOCK_WAIT_MS: "0" },
      pause: "openSync:events.jsonl:2500",
    });
    const took = await taker;
    expect(took.code, describeRun(took)).toBe(0);
    expect(
      readState(dir)
        .execution?.tasks.map((t) => t.id)
        .sort(),
    ).toEqual(other.code === 0 ? ["other", "taker"] : ["taker"]);
    const warnings = [took, other].filter((run) => TAKEOVER.test(run.stderr)).length;
    expect(
      warnings,
      `the stale lock was replaced; exactly one command must say so (taker: ${took.stderr.trim()} | other: ${other.stderr.trim()})`,
    ).toBe(1);
  }, 600_000);

  it("a taker killed in the middle of a takeover leaves nothing behind once the next command has run", async () => {
    const dir = await project("takeover-killed");
    writeFileSync(join(dir, "memory/state/.lock"), await staleLock("killed holder"));
    // Killed right after it moved the stale lock aside (its 3rd unlink of a .lock.* file).
    const killed = await runCli(dir, ["task", "add", "killed"], { killAtOp: "unlinkSync:/.lock.:3" });
    expect(killed.killed, describeRun(killed)).toBe(true);
    const next = await runCli(dir, ["task", "add", "next"], { env: { DOTAGENT_LOCK_WAIT_MS: "0" }, plain: true });
    expect(next.code, describeRun(next)).toBe(0);
    expect(stateLeftovers(dir), "left in memory/state after the next command").toEqual([]);
    expect(validationErrors(dir)).toEqual([]);
  }, 600_000);
});

describe("many takers of one stale lock", () => {
  it(
    `${TAKERS} commands at once over a stale lock, ${ROUNDS} rounds: all succeed, one takeover warning a round, no update lost`,
    async () => {
      const dir = await project("takers-cli");
      const figures = {
        rounds: 0,
        commands: 0,
        lost_updates: 0,
        warnings: 0,
        rounds_without_exactly_one_warning: 0,
        stale_locks_left: 0,
      };
      const problems: string[] = [];
      const expected: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        figures.rounds += 1;
        writeFileSync(join(dir, "memory/state/.lock"), await staleLock(round % 2 === 0 ? "killed holder" : "garbage"));
        const ids = Array.from({ length: TAKERS }, (_, i) => `r${round}-w${i}`);
        const runs = await Promise.all(
          ids.map((id) =>
            runCli(dir, ["task", "add", id], {
              env: { DOTAGENT_LOCK_WAIT_MS: "30000" },
              plain: true,
              timeoutMs: 60_000,
            }),
          ),
        );
        figures.commands += runs.length;
        for (const run of runs) if (run.code !== 0) problems.push(`round ${round}: ${describeRun(run)}`);
        expected.push(...ids.filter((_, i) => runs[i]!.code === 0));
        const warned = runs.filter((run) => TAKEOVER.test(run.stderr)).length;
        figures.warnings += warned;
        if (warned !== 1) {
          figures.rounds_without_exactly_one_warning += 1;
          problems.push(`round ${round}: ${warned} of ${TAKERS} commands warned of the takeover (expected exactly 1)`);
        }
        if (stateLeftovers(dir).includes(".lock")) figures.stale_locks_left += 1;
      }
      const onDisk = new Set(readState(dir).execution?.tasks.map((t) => t.id));
      const lost = expected.filter((id) => !onDisk.has(id));
      figures.lost_updates = lost.length;
      recordFigures("lock-takers-cli", figures);
      expect(lost, "acknowledged task adds missing from execution.json").toEqual([]);
      expect(validationErrors(dir)).toEqual([]);
      expect(stateLeftovers(dir)).toEqual([]);
      expect(problems).toEqual([]);
    },
    600_000 + ROUNDS * 30_000,
  );

  it(
    `the store's acquireLock: ${TAKERS} processes race for one stale lock, ${ROUNDS} rounds: never two inside, exactly one takeover`,
    async () => {
      const dir = await project("takers-lib");
      const stateDir = join(dir, "memory/state");
      const library = await lockLibrary();
      const figures = { rounds: 0, takers: 0, overlaps: 0, warnings: 0, rounds_without_exactly_one_warning: 0 };
      const problems: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        figures.rounds += 1;
        writeFileSync(join(stateDir, ".lock"), await staleLock(round % 2 === 0 ? "killed holder" : "truncated"));
        const startAt = Date.now() + 1500;
        const outputs = await Promise.all(
          Array.from(
            { length: TAKERS },
            () =>
              new Promise<string>((resolve, reject) => {
                const child = spawn(
                  process.execPath,
                  [join(REPO, "test/torture/lock-taker.mjs"), library, stateDir, String(startAt), "30"],
                  { stdio: ["ignore", "pipe", "pipe"] },
                );
                let out = "";
                let err = "";
                child.stdout.on("data", (c: Buffer) => (out += c));
                child.stderr.on("data", (c: Buffer) => (err += c));
                child.on("error", reject);
                child.on("close", (code) =>
                  code === 0 ? resolve(out) : reject(new Error(`lock-taker exit ${code}: ${err}`)),
                );
              }),
          ),
        );
        const results = outputs.map((o) => JSON.parse(o) as { pid: number; warnings: string[]; overlap: boolean });
        figures.takers += results.length;
        const overlaps = results.filter((r) => r.overlap).length;
        const warned = results.filter((r) => r.warnings.length > 0).length;
        figures.overlaps += overlaps;
        figures.warnings += warned;
        if (overlaps > 0)
          problems.push(`round ${round}: ${overlaps} takers were inside the lock while another held it`);
        if (warned !== 1) {
          figures.rounds_without_exactly_one_warning += 1;
          problems.push(`round ${round}: ${warned} takers reported taking over the stale lock (expected exactly 1)`);
        }
      }
      recordFigures("lock-takers-library", figures);
      expect(stateLeftovers(dir)).toEqual([]);
      expect(problems).toEqual([]);
    },
    600_000 + ROUNDS * 20_000,
  );
});

describe("the lock message for people and for --json", () => {
  it("--json: the error object names the holder; stderr is one line, stdout one JSON object", async () => {
    const dir = await project("locked-json");
    const sleeper = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      await new Promise((resolve) => sleeper.once("spawn", resolve));
      writeFileSync(
        join(dir, "memory/state/.lock"),
        JSON.stringify({
          pid: sleeper.pid,
          hostname: hostname(),
          acquired_at: minutesAgo(0.05),
          command: "resume",
          token: "feedface00000004",
        }),
      );
      const run = await runCli(dir, ["task", "add", "x", "--json"], { env: { DOTAGENT_LOCK_WAIT_MS: "0" } });
      expect(run.code, describeRun(run)).toBe(4);
      const json = parseStdoutJson(run) as {
        error?: { code?: string; exit_code?: number; holder?: { pid?: number; hostname?: string; command?: string } };
      };
      expect(json.error?.code).toBe("locked");
      expect(json.error?.exit_code).toBe(4);
      expect(json.error?.holder).toMatchObject({ pid: sleeper.pid, hostname: hostname(), command: "resume" });
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
    } finally {
      sleeper.kill("SIGKILL");
    }
  });
});
