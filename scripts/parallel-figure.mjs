#!/usr/bin/env node
// IMPLEMENTATION's wall time at max_parallel 1 and 3, through the built CLI driven the way the
// /develop loop drives it (resume → task start each → the executors at once → task complete as
// each returns → resume), with executors that take a fixed time. Then a kill -9 of the session
// mid-batch: a new session's resume re-runs only the unfinished tasks. Not the Claude Code
// journey (no model, no Agent tool): the CLI's share of the loop and the batching it allows.
// Usage: node scripts/parallel-figure.mjs [--tasks 6] [--executor-ms 2000]
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const cli = join(repo, "dist/dotagent.mjs");
const option = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const TASKS = option("tasks", 6);
const EXECUTOR_MS = option("executor-ms", 2000);

function dotagent(dir, args, env = {}) {
  const out = spawnSync(process.execPath, [cli, ...args, "--dir", dir, "--json"], {
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
  if (out.status !== 0) throw new Error(`dotagent ${args.join(" ")} exited ${out.status}: ${out.stderr}`);
  return JSON.parse(out.stdout);
}

function write(dir, rel, value) {
  mkdirSync(dirname(join(dir, rel)), { recursive: true });
  writeFileSync(join(dir, rel), JSON.stringify(value));
}

function project() {
  const dir = mkdtempSync(join(tmpdir(), "dotagent-parallel-"));
  dotagent(dir, ["init", "--request", "parallel figure"]);
  write(dir, "memory/reports/demand.json", { goal: "x" });
  dotagent(dir, ["phase", "approve", "REQUIREMENTS"]);
  dotagent(dir, ["phase", "complete", "REQUIREMENTS"]);
  write(dir, "memory/reports/final_design.json", { chosen: "a" });
  dotagent(dir, ["phase", "approve", "ARCHITECTURE"]);
  dotagent(dir, ["phase", "complete", "ARCHITECTURE"]);
  write(
    dir,
    "tasks.json",
    Array.from({ length: TASKS }, (_, i) => ({ id: `t${i + 1}`, depends_on: [] })),
  );
  dotagent(dir, ["task", "import", join(dir, "tasks.json")]);
  return dir;
}

/** A stand-in for the Claude Code process that owns the tasks. */
function session() {
  const child = spawn("sleep", ["3600"], { stdio: "ignore" });
  return { child, env: { CLAUDE_PID: String(child.pid), CLAUDE_CODE_SESSION_ID: `figure-${child.pid}` } };
}

/** An executor: works for EXECUTOR_MS, writes its output. Resolves when it is done (or killed). */
function executor(dir, id, running, ms) {
  return new Promise((done) => {
    const child = spawn("sleep", [String(ms / 1000)], { stdio: "ignore" });
    running.add(child);
    child.on("exit", (code, signal) => {
      running.delete(child);
      if (signal === null) write(dir, `memory/reports/tasks/${id}.json`, { task_id: id, status: "complete" });
      done(signal === null);
    });
  });
}

/**
 * The /develop loop over IMPLEMENTATION. `killAfterCompletions`: kill -9 the session (and its
 * executors) once that many tasks were recorded, then carry on from a new session.
 */
async function drive(dir, maxParallel, killAfterCompletions) {
  let owner = session();
  let runs = 0;
  let recorded = 0;
  const repairs = [];
  const running = new Set();
  const started = Date.now();
  let plan = dotagent(dir, ["resume", "--max-parallel", String(maxParallel)], owner.env);
  while (plan.phase === "IMPLEMENTATION") {
    if (plan.next.action !== "run_tasks" || plan.next.tasks.length === 0)
      throw new Error(`unexpected: ${JSON.stringify(plan.next)}`);
    for (const id of plan.next.tasks) dotagent(dir, ["task", "start", id], owner.env);
    const killed = await new Promise((resolve) => {
      let left = plan.next.tasks.length;
      plan.next.tasks.forEach((id, i) => {
        runs++;
        // In the crash run the first executor of a batch is quicker, so the kill lands while the others work.
        const ms = killAfterCompletions !== undefined && i === 0 ? EXECUTOR_MS / 4 : EXECUTOR_MS;
        executor(dir, id, running, ms).then((ok) => {
          if (ok && !owner.child.killed) {
            dotagent(dir, ["task", "complete", id], owner.env);
            recorded++;
            if (recorded === killAfterCompletions) {
              owner.child.kill("SIGKILL");
              for (const child of running) child.kill("SIGKILL");
              return resolve(true);
            }
          }
          if (--left === 0) resolve(false);
        });
      });
    });
    if (killed) {
      await new Promise((r) =>
        owner.child.exitCode !== null || owner.child.signalCode !== null ? r() : owner.child.once("exit", r),
      );
      owner = session();
    }
    plan = dotagent(dir, ["resume"], owner.env);
    repairs.push(...plan.repairs.filter((r) => r.code === "task_reset").map((r) => r.message));
  }
  owner.child.kill("SIGKILL");
  return { seconds: (Date.now() - started) / 1000, runs, repairs };
}

const dirs = [];
const results = [];
for (const maxParallel of [1, 3]) {
  const dir = project();
  dirs.push(dir);
  results.push({ maxParallel, ...(await drive(dir, maxParallel)) });
}
const crashDir = project();
dirs.push(crashDir);
const crash = await drive(crashDir, 3, 1);
for (const dir of dirs) rmSync(dir, { recursive: true, force: true });

console.log(`${TASKS} independent tasks, each executor ${EXECUTOR_MS} ms, through the built CLI:`);
for (const r of results)
  console.log(`  max_parallel ${r.maxParallel}: IMPLEMENTATION ${r.seconds.toFixed(1)} s, ${r.runs} executor runs`);
console.log(`  speed-up: ${(results[0].seconds / results[1].seconds).toFixed(2)}×`);
console.log(
  `  kill -9 of the session after the first task of a batch of 3 was recorded: ${crash.runs} executor runs in all (${TASKS} tasks), re-run: ${crash.repairs.length}`,
);
for (const message of crash.repairs) console.log(`    ${message}`);
