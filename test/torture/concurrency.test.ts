// Concurrent commands on one project through the built CLI: N processes each doing K
// read-modify-write updates at once lose nothing and double nothing; the event log gets exactly one
// line per change with unique, increasing seq; a command that meets a live lock waits and succeeds
// or exits 4 naming the holder. TORTURE_CONC_N / TORTURE_CONC_K / TORTURE_CONC_RUNS raise the counts.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { acquireLock } from "../../src/store/lock.js";
import { withLock } from "../../src/store/session.js";
import { projectPaths } from "../../src/store/project.js";
import {
  archiveContents,
  archiveNames,
  describeRun,
  envInt,
  eventsOnDisk,
  makeProject,
  makeTempDir,
  readState,
  recordFigures,
  removeTempDirs,
  runCli,
  sequenceProblems,
  stackLines,
  stateLeftovers,
  validationErrors,
  type CliResult,
  type FixtureStep,
} from "./helpers.js";

const N = Math.max(2, envInt("TORTURE_CONC_N", 6));
const K = Math.max(1, envInt("TORTURE_CONC_K", 4));
/** Tasks each worker starts and completes (of its K). */
const RUNS = Math.min(K, envInt("TORTURE_CONC_RUNS", 1));
const WAIT = { DOTAGENT_LOCK_WAIT_MS: "60000" };

afterAll(removeTempDirs);

function project(label: string, ...steps: FixtureStep[]): Promise<string> {
  return makeProject(label, [["init", [], { request: "concurrency", "workflow-id": "wf-conc" }], ...steps]);
}

/** Runs one worker's commands in order; all workers run at once. */
async function workers<T>(count: number, work: (worker: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: count }, (_, w) => work(w)));
}

function countBy(values: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return counts;
}

describe(`${N} processes × ${K} updates at once`, () => {
  it(
    "task add of distinct ids, then start/complete of distinct tasks: exactly N×K recorded, events once each, seq unique and increasing",
    async () => {
      const dir = await project("conc");
      const figures = { commands: 0, failed: 0, lost_updates: 0, doubled: 0, seq_problems: 0 };
      const failures: string[] = [];
      const acknowledged = new Set<string>();
      const note = (run: CliResult) => {
        figures.commands += 1;
        if (run.code !== 0) {
          figures.failed += 1;
          failures.push(describeRun(run));
        } else acknowledged.add(run.args.slice(0, 3).join(" "));
      };
      const id = (w: number, k: number) => `w${w}-k${k}`;

      // Phase 1: N workers, each adding K tasks one after the other.
      await workers(N, async (w) => {
        for (let k = 0; k < K; k++)
          note(
            await runCli(dir, ["task", "add", id(w, k), "--title", `worker ${w} task ${k}`], {
              env: WAIT,
              plain: true,
            }),
          );
      });
      const all = Array.from({ length: N }, (_, w) => Array.from({ length: K }, (_, k) => id(w, k))).flat();
      // The tasks added one by one become the recorded plan (identical content: nothing added), so
      // they may start.
      writeFileSync(
        join(dir, "plan.json"),
        JSON.stringify(
          all.map((i) => ({
            id: i,
            title: `worker ${i.slice(1, i.indexOf("-"))} task ${i.slice(i.indexOf("-k") + 2)}`,
            depends_on: [],
          })),
        ),
      );
      note(await runCli(dir, ["task", "import", "plan.json"], { env: WAIT, plain: true }));
      let tasks = readState(dir).execution?.tasks ?? [];
      const ids = tasks.map((t) => t.id);
      figures.lost_updates += all.filter((i) => acknowledged.has(`task add ${i}`) && !ids.includes(i)).length;
      figures.doubled += [...countBy(ids).values()].filter((n) => n > 1).length;

      // Phase 2: each worker starts its first RUNS tasks, writes their outputs, completes them. The
      // sessions are live (this process): with runCli's gone owner, another worker's command would
      // rightly requeue a task started but not yet reported, a write this count does not expect.
      const LIVE = { ...WAIT, CLAUDE_PID: String(process.pid) };
      await workers(N, async (w) => {
        for (let k = 0; k < RUNS; k++) {
          note(await runCli(dir, ["task", "start", id(w, k)], { env: LIVE, plain: true }));
          mkdirSync(join(dir, "memory/reports/tasks"), { recursive: true });
          writeFileSync(
            join(dir, `memory/reports/tasks/${id(w, k)}.json`),
            JSON.stringify({ task_id: id(w, k), status: "complete" }),
          );
          note(await runCli(dir, ["task", "complete", id(w, k)], { env: LIVE, plain: true }));
        }
      });
      tasks = readState(dir).execution?.tasks ?? [];
      const ran = Array.from({ length: N }, (_, w) => Array.from({ length: RUNS }, (_, k) => id(w, k))).flat();
      const notComplete = ran.filter((i) => tasks.find((t) => t.id === i)?.status !== "complete");
      figures.lost_updates += notComplete.filter((i) => acknowledged.has(`task complete ${i}`)).length;

      const events = eventsOnDisk(dir);
      const seq = sequenceProblems(events);
      figures.seq_problems = seq.length;
      recordFigures("concurrency", figures);

      expect(failures, "every command exits 0 (they wait for the lock)").toEqual([]);
      expect(
        all.filter((i) => acknowledged.has(`task add ${i}`) && !tasks.some((t) => t.id === i)),
        "lost: `task add` exited 0, task missing",
      ).toEqual([]);
      expect(tasks.map((t) => t.id).sort()).toEqual([...all].sort());
      expect(
        notComplete.filter((i) => acknowledged.has(`task complete ${i}`)),
        "tasks whose `task complete` exited 0 but are not complete",
      ).toEqual([]);
      expect(notComplete, "tasks started and completed").toEqual([]);
      expect(tasks.filter((t) => !ran.includes(t.id)).every((t) => t.status === "pending")).toBe(true);
      const added = countBy(events.filter((e) => e.type === "task_added").map((e) => String(e.task_id)));
      expect([...added.keys()].sort()).toEqual([...all].sort());
      expect(
        [...added.values()].every((n) => n === 1),
        "exactly one task_added per task",
      ).toBe(true);
      const started = countBy(events.filter((e) => e.type === "task_started").map((e) => String(e.task_id)));
      const completed = countBy(events.filter((e) => e.type === "task_completed").map((e) => String(e.task_id)));
      expect([...started.keys()].sort()).toEqual([...ran].sort());
      expect([...completed.keys()].sort()).toEqual([...ran].sort());
      expect([...started.values(), ...completed.values()].every((n) => n === 1)).toBe(true);
      expect(seq).toEqual([]);
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
      expect(readState(dir).phase?.revision).toBe(1);
      expect(
        events.filter((e) => e.type === "task_requeued"),
        "no live session's task is taken back",
      ).toEqual([]);
      expect(readState(dir).execution?.revision).toBe(N * K + 1 + 2 * N * RUNS);
      expect(validationErrors(dir)).toEqual([]);
      expect(stateLeftovers(dir)).toEqual([]);
    },
    600_000 + N * K * 3_000,
  );
});

describe("read-only commands beside a writer", () => {
  it("`validate` running while `task add` is taking the lock never breaks the writer", async () => {
    const dir = await project("validate-beside");
    const stateDir = join(dir, "memory/state");
    // The writer stops for a moment with its lock file written but not yet linked into place
    // (a slow disk, a busy machine); validate runs in that moment.
    const writer = runCli(dir, ["task", "add", "beside"], { env: WAIT, pause: "linkSync:/.lock:2500" });
    const deadline = Date.now() + 20_000;
    while (!readdirSync(stateDir).some((n) => /^\.lock\.\d+\.[0-9a-f]+\.tmp$/.test(n)) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const validate = await runCli(dir, ["validate", "--json"], { plain: true });
    const added = await writer;
    expect(validate.code, describeRun(validate)).toBe(0);
    expect(added.code, describeRun(added)).toBe(0);
    expect(readState(dir).execution?.tasks.map((t) => t.id)).toEqual(["beside"]);
  }, 600_000);

  it("a command taking the lock while another holds it and sweeps never breaks the taker", async () => {
    const dir = await project("sweep-beside");
    const stateDir = join(dir, "memory/state");
    // The second writer has its lock file in the making when the first (holding the lock) sweeps.
    writeFileSync(join(stateDir, "phase.json.12345"), "leftover of a killed write");
    const second = runCli(dir, ["task", "add", "second"], { env: WAIT, pause: "linkSync:/.lock:2500" });
    const deadline = Date.now() + 20_000;
    while (!readdirSync(stateDir).some((n) => /^\.lock\.\d+\.[0-9a-f]+\.tmp$/.test(n)) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const first = await runCli(dir, ["task", "add", "first"], { env: WAIT, plain: true });
    const later = await second;
    expect(first.code, describeRun(first)).toBe(0);
    expect(later.code, describeRun(later)).toBe(0);
    expect(
      readState(dir)
        .execution?.tasks.map((t) => t.id)
        .sort(),
    ).toEqual(["first", "second"]);
    expect(stateLeftovers(dir)).toEqual([]);
  }, 600_000);
});

describe("a live lock", () => {
  it("held by a live process: with DOTAGENT_LOCK_WAIT_MS=0 the command exits 4 with one line naming pid, host, command and age", async () => {
    const dir = await project("live-lock");
    const sleeper = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      await new Promise((resolve) => sleeper.once("spawn", resolve));
      const lock = {
        pid: sleeper.pid,
        hostname: hostname(),
        acquired_at: new Date(Date.now() - 3000).toISOString(),
        command: "phase complete",
        token: "0123456789abcdef",
      };
      writeFileSync(join(dir, "memory/state/.lock"), JSON.stringify(lock));
      const before = readState(dir);
      const run = await runCli(dir, ["task", "add", "blocked"], { env: { DOTAGENT_LOCK_WAIT_MS: "0" } });
      expect(run.code, describeRun(run)).toBe(4);
      const lines = run.stderr.trim().split("\n");
      expect(lines, run.stderr).toHaveLength(1);
      expect(lines[0]).toContain(String(sleeper.pid));
      expect(lines[0]).toContain(hostname());
      expect(lines[0]).toContain("phase complete");
      expect(lines[0]).toMatch(/\b\d+ ?s\b/); // its age, like "3s"
      expect(stackLines(run.stderr)).toEqual([]);
      expect(readState(dir)).toEqual(before);
      expect(existsSync(join(dir, "memory/state/.lock")), "the live holder's lock stays").toBe(true);
    } finally {
      sleeper.kill("SIGKILL");
    }
  });

  it("two commands contending: each waits its turn and succeeds, or exits 4 naming the holder", async () => {
    const dir = await project("contend");
    const runs = await Promise.all([
      runCli(dir, ["task", "add", "a"], { plain: true }),
      runCli(dir, ["task", "add", "b"], { plain: true }),
    ]);
    for (const run of runs) {
      if (run.code === 4) expect(run.stderr).toMatch(/held by pid \d+ on .+ \(task add, for \d+/);
      else expect(run.code, describeRun(run)).toBe(0);
    }
    const added = runs.filter((r) => r.code === 0).map((r) => r.args[2]);
    expect(
      readState(dir)
        .execution?.tasks.map((t) => t.id)
        .sort(),
    ).toEqual(added.sort());
  });

  it("a holder that releases after a while: the waiting command takes the lock then and succeeds", async () => {
    const dir = await project("wait");
    const stateDir = join(dir, "memory/state");
    const held = acquireLock(stateDir, { command: "test holder", waitMs: 0 });
    const release = setTimeout(() => held.release(), 600);
    try {
      const run = await runCli(dir, ["task", "add", "waited"], {
        env: { DOTAGENT_LOCK_WAIT_MS: "20000" },
        plain: true,
      });
      expect(run.code, describeRun(run)).toBe(0);
      expect(readState(dir).execution?.tasks.map((t) => t.id)).toEqual(["waited"]);
    } finally {
      clearTimeout(release);
      held.release();
    }
  });
});

describe("the lock covers the whole command, async parts included", () => {
  it("withLock keeps memory/state/.lock until an async callback has finished", async () => {
    const dir = makeTempDir("withlock");
    const paths = projectPaths(dir);
    const seen: boolean[] = [];
    await withLock(paths, "async work", async () => {
      seen.push(existsSync(join(paths.stateDir, ".lock")));
      await new Promise((resolve) => setTimeout(resolve, 30));
      seen.push(existsSync(join(paths.stateDir, ".lock"))); // the archive and restore work happens here
    });
    expect(seen, "lock present [before, after] the first await").toEqual([true, true]);
    expect(existsSync(join(paths.stateDir, ".lock"))).toBe(false);
  });

  it("`archive` racing `task add`s: every task whose add exited 0 is live or inside an archive", async () => {
    const dir = await project("archive-race", ["task", ["add", "seed-1"]], ["task", ["add", "seed-2"]]);
    const acknowledged: string[] = ["seed-1", "seed-2"];
    const adders = workers(3, async (w) => {
      for (let k = 0; k < 4; k++) {
        const run = await runCli(dir, ["task", "add", `race-${w}-${k}`], { env: WAIT, plain: true });
        if (run.code === 0) acknowledged.push(`race-${w}-${k}`);
      }
    });
    const archiver = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 150));
      return runCli(dir, ["archive", "--reason", "race"], { env: WAIT, plain: true });
    })();
    const [, archived] = await Promise.all([adders, archiver]);
    expect(archived.code, describeRun(archived)).toBe(0);
    const live = new Set(readState(dir).execution?.tasks.map((t) => t.id));
    const inArchives = new Set<string>();
    for (const name of archiveNames(dir)) {
      const files = await archiveContents(join(dir, "memory/state/.archive", name));
      const execution = files.get("memory/state/execution.json");
      if (execution)
        for (const task of (JSON.parse(execution.toString("utf8")) as { tasks: Array<{ id: string }> }).tasks)
          inArchives.add(task.id);
    }
    const lost = acknowledged.filter((id) => !live.has(id) && !inArchives.has(id));
    recordFigures("archive-race", { acknowledged: acknowledged.length, lost_updates: lost.length });
    expect(lost, "acknowledged tasks neither live nor archived").toEqual([]);
    expect(validationErrors(dir)).toEqual([]);
  }, 600_000);
});
