#!/usr/bin/env node
// One workflow, several machines (issue 45, SPEC §23): the GitHub Actions recipe's own lines run on
// this machine. `npm run figures:workers` (not in CI: minutes, and it depends on the machine).
//
// A bare remote; a plan clone runs the recipe's plan job (docs/github-actions/dotagent.yml, its
// `run:` steps read from the YAML and run by bash as Actions runs them, the install step replaced
// by the built CLI on PATH); then for 1, 2 and 4 workers, a copy of the planned remote and a clone
// per worker, each running the workers job's steps (`dotagent run --worker`), then a clone running
// the finish job (`dotagent run --claims`, memory/ committed back). The Agent SDK is the stand-in
// (test/support/fake-agent-sdk.mjs, FAKE_SDK_TASKS=6: a 6-task plan, three tasks after others,
// each executor writing <task>.txt). Every git command reaching the remote goes through a wrapper
// on PATH that sleeps (a slow remote) and, while a flag file exists, fails (the remote down).
// After each run: every task added on the remote branch exactly once, one `done` per claim, the
// finish job complete, `dotagent validate` ok. Each run of 1, 2 and 4 workers has --kills workers
// killed (kill -9) at random, mid-task when one is, restarted as a machine coming back; one worker
// without faults gives the claims' cost per task; then one faults run: the remote down for a while
// and a person's force-push of the workflow's branch; measured and said as it happens, nothing faked.
//
//   node scripts/worker-figures.mjs [--workers 1,2,4] [--delay-ms 1000] [--remote-ms 150]
//                                   [--kills 1] [--no-faults] [--no-write] [--json]
// Writes the figures into docs/evidence.md between <!-- worker-figures --> markers (not with --no-write).
import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:http";
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { parse } from "yaml";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : fallback;
};
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const CLI = resolve(option("--cli", join(ROOT, "dist/dotagent.mjs")));
const RECIPE = join(ROOT, "docs/github-actions/dotagent.yml");
const COUNTS = option("--workers", "1,2,4")
  .split(",")
  .map(Number)
  .filter((n) => n > 0); // --workers 0: only the faults run
const DELAY_MS = Number(option("--delay-ms", "1000")); // the stand-in agent's two waits: a task is about 2 × this
const REMOTE_MS = Number(option("--remote-ms", "150")); // each fetch, push and ls-remote sleeps this long first
const KILLS = Number(option("--kills", "1"));
const TASKS = ["task-001", "task-002", "task-003", "task-004", "task-005", "task-006"];
if (!existsSync(CLI))
  throw new Error("dist/dotagent.mjs is missing: npm run build first (npm run figures:workers does)");

const work = mkdtempSync(join(tmpdir(), "dotagent-worker-figures-"));
const say = (line) => process.stderr.write(`${line}\n`);
const REAL_GIT = spawnSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).stdout.trim();

// The API address `dotagent run` checks before it starts: anything that answers will do.
const api = createServer((_, res) => res.end("ok"));
await new Promise((done) => api.listen(0, "127.0.0.1", done));

const tool = join(work, "tool");
const bin = join(tool, "path");
const downFlag = join(work, "remote-down");
const sdkLog = join(work, "sdk-calls.log");
setUpTool();

const recipe = parse(readFileSync(RECIPE, "utf8"));
const baseEnv = {
  ...process.env,
  PATH: `${bin}:${process.env.PATH}`,
  NO_COLOR: "1",
  ANTHROPIC_BASE_URL: `http://127.0.0.1:${api.address().port}`,
  FAKE_SDK_TASKS: "6",
  FAKE_SDK_DELAY_MS: String(DELAY_MS),
  FAKE_SDK_LOG: sdkLog,
  FIGURES_REMOTE_MS: String(REMOTE_MS),
  FIGURES_REMOTE_DOWN: downFlag,
  GIT_CONFIG_NOSYSTEM: "1",
  HOME: join(work, "home"),
};
mkdirSync(baseEnv.HOME);
let inputs = { request: "add login", approve: "auto", design: "", change: "" };

const started = performance.now();
const loadAtStart = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const results = [];
let faults;
try {
  // The plan job once; every run starts from a copy of the remote it pushed.
  const planned = join(work, "planned.git");
  git(work, "init", "-q", "--bare", "-b", "main", planned);
  const seed = join(work, "seed");
  git(work, "init", "-q", "-b", "main", seed);
  writeFileSync(join(seed, "README.md"), "# app\n");
  git(seed, "add", "-A");
  git(seed, "-c", "user.name=p", "-c", "user.email=p@e", "commit", "-qm", "initial");
  git(seed, "push", "-q", planned, "main");

  // The gates, as a person answers them: one dispatch after another, each a fresh machine.
  const gates = await gatesRun();
  say(`gates: ${gates.map((g) => `${g.dispatch} → ${g.ended}`).join("; ")}`);

  const planClone = clone(planned, join(work, "plan"));
  const plan = await runJob("plan", planClone);
  if (plan.failed || plan.outputs.ready !== "true") fail(`the plan job ended ${plan.failed ?? "not ready"}`, plan);
  const workflowId = JSON.parse(readFileSync(join(planClone, "memory/state/phase.json"), "utf8")).workflow_id;
  say(`plan job: ${workflowId} at its tasks step, memory/ pushed (${seconds(plan.ms)})`);

  // A local run without the remote: the same six tasks, for the claims' cost per task.
  const local = clone(planned, join(work, "local"));
  const localRun = await sh(local, `dotagent run --max-parallel 1`, {});
  if (localRun.code !== 0) fail("the local run failed", localRun);
  const localSpan = tasksSpan(local);
  say(`local run, no remote, 1 at a time: the six tasks in ${seconds(localSpan)}`);

  // One worker without faults: the claims' cost per task, against the local run.
  const clean = await workersRun(planned, workflowId, 1, {});
  say(`1 worker, no faults: 6 tasks in ${seconds(clean.ms)}; checks ${clean.checks}`);
  // Then 1, 2 and 4 workers, each run with workers killed (kill -9) at random and restarted.
  for (const n of COUNTS) {
    const run = await workersRun(planned, workflowId, n, { kills: KILLS });
    results.push(run);
    say(
      `${n} worker${n > 1 ? "s" : ""}: 6 tasks in ${seconds(run.ms)} (${run.perHour} tasks/hour), ${run.sessions} executor sessions; checks ${run.checks}`,
    );
  }
  if (!args.includes("--no-faults")) {
    faults = await workersRun(planned, workflowId, 2, { outage: true, forcePush: true });
    say(`faults, 2 workers: ${JSON.stringify(faults.faults)}; checks ${faults.checks}`);
  }
  const overhead = (clean.ms - localSpan) / TASKS.length;
  const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  const figures = {
    git: spawnSync(REAL_GIT, ["--version"], { encoding: "utf8" }).stdout.trim(),
    agent_ms_per_task: 2 * DELAY_MS,
    remote_ms: REMOTE_MS,
    local_span_ms: Math.round(localSpan),
    clean_1_worker_ms: clean.ms,
    claim_overhead_ms_per_task: Math.round(overhead),
    runs: results.map(({ faults: _, ...r }) => r),
    gates,
    faults: faults ?? null,
    wall_s: Math.round((performance.now() - started) / 1000),
    cpus: availableParallelism(),
    load_at_start: loadAtStart,
    load_at_end: load,
  };
  const table = tableOf(figures);
  if (args.includes("--json")) console.log(JSON.stringify(figures, null, 2));
  else console.log(table);
  if (!args.includes("--no-write")) {
    const file = join(ROOT, "docs/evidence.md");
    const text = readFileSync(file, "utf8");
    const block = (name) => new RegExp(`<!-- ${name} -->\\n(?:[\\s\\S]*?\\n)?<!-- /${name} -->`);
    let next = text;
    for (const [name, body] of [
      ["worker-gates", gatesTable(gates)],
      // --workers 0 --no-faults checks the gates alone and leaves the workers' figures as they are.
      ...(results.length > 0 || faults ? [["worker-figures", table]] : []),
    ]) {
      if (!block(name).test(next)) throw new Error(`docs/evidence.md has no <!-- ${name} --> block`);
      next = next.replace(block(name), () => `<!-- ${name} -->\n${body}\n<!-- /${name} -->`);
    }
    writeFileSync(file, next);
    say("docs/evidence.md: the worker figures written");
  }
  say(`worker figures: ${seconds(performance.now() - started)} in all`);
} finally {
  api.close();
  if (!args.includes("--keep")) rmSync(work, { recursive: true, force: true });
  else say(`kept ${work}`);
}

/** The built CLI beside the stand-in SDK and the agents, `dotagent` and the slow `git` on PATH. */
function setUpTool() {
  const sdk = join(tool, "node_modules/@anthropic-ai/claude-agent-sdk");
  mkdirSync(sdk, { recursive: true });
  writeFileSync(
    join(sdk, "package.json"),
    JSON.stringify({
      name: "@anthropic-ai/claude-agent-sdk",
      version: "0.3.0-fake",
      type: "module",
      main: "sdk.mjs",
      exports: { ".": "./sdk.mjs" },
    }),
  );
  copyFileSync(join(ROOT, "test/support/fake-agent-sdk.mjs"), join(sdk, "sdk.mjs"));
  mkdirSync(join(tool, "bin"));
  copyFileSync(CLI, join(tool, "bin/dotagent.mjs"));
  cpSync(join(ROOT, "agents"), join(tool, "agents"), { recursive: true });
  mkdirSync(bin);
  writeFileSync(
    join(bin, "dotagent"),
    `#!/bin/sh\nexec '${process.execPath}' '${join(tool, "bin/dotagent.mjs")}' "$@"\n`,
  );
  // git's subcommand found past its options (-c x, -C dir); only the ones that reach the remote wait or fail.
  writeFileSync(
    join(bin, "git"),
    [
      "#!/bin/bash",
      'a=("$@"); i=0',
      'while [ $i -lt ${#a[@]} ]; do case "${a[$i]}" in -c|-C) i=$((i+2));; -*) i=$((i+1));; *) break;; esac; done',
      'case "${a[$i]}" in fetch|push|ls-remote|pull|clone)',
      '  if [ -e "$FIGURES_REMOTE_DOWN" ]; then echo "fatal: unable to access the remote: Could not resolve host (figures: the remote is down)" >&2; exit 128; fi',
      '  sleep "$(awk "BEGIN { print ${FIGURES_REMOTE_MS:-0} / 1000 }")";;',
      "esac",
      `exec '${REAL_GIT}' "$@"`,
      "",
    ].join("\n"),
  );
  chmodSync(join(bin, "dotagent"), 0o755);
  chmodSync(join(bin, "git"), 0o755);
}

/** git with the real binary (the script's own set-up: not slowed). */
function git(cwd, ...a) {
  const r = spawnSync(REAL_GIT, a, { cwd, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${a.join(" ")}: ${r.stderr}`);
  return r.stdout.trim();
}

function clone(remote, dir) {
  git(work, "clone", "-q", remote, dir);
  return dir;
}

/** A shell line in `cwd` as a process group of its own; resolves with its exit and output. */
function sh(cwd, script, env, onStart = () => {}) {
  const t = performance.now();
  const child = spawn("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", script], {
    cwd,
    env: { ...baseEnv, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  onStart(child);
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  return new Promise((done) =>
    child.on("close", (code, signal) =>
      done({ code: code ?? (signal ? 128 + 9 : -1), signal, out, ms: performance.now() - t }),
    ),
  );
}

/** A step's `env:` with the recipe's expressions given this machine's values (inputs, the key); anything else is refused. */
function stepEnv(step) {
  const env = {};
  for (const [key, value] of Object.entries(step.env ?? {})) {
    const input = /^\$\{\{ inputs\.(\w+) \}\}$/.exec(String(value));
    if (input) env[key] = inputs[input[1]];
    else if (value === "${{ secrets.ANTHROPIC_API_KEY }}") env[key] = "test";
    else if (!String(value).includes("${{")) env[key] = String(value);
    else throw new Error(`the recipe's step "${step.name}" sets ${key} from ${value}, which this script cannot give`);
  }
  return env;
}

/** The files Actions gives a step: GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, RUNNER_TEMP, the branch's name. */
function actionsEnv(dir) {
  mkdirSync(dir, { recursive: true });
  return {
    GITHUB_OUTPUT: join(dir, "output"),
    GITHUB_STEP_SUMMARY: join(dir, "summary.md"),
    RUNNER_TEMP: dir,
    GITHUB_REF_NAME: "main",
    GITHUB_RUN_ID: "1",
    ...Object.fromEntries(Object.entries(recipe.env ?? {}).map(([k, v]) => [k, String(v)])),
  };
}

/**
 * The `run:` steps of one of the recipe's jobs in `cwd`, in order, as Actions runs them: a failed
 * step skips the rest but those with `if: ${{ !cancelled() }}`. The install step is left out
 * (dotagent and the SDK are on PATH already). `only` names the step ids to run (a restart).
 */
async function runJob(job, cwd, { only, onStart } = {}) {
  const temp = join(work, "runner", `${job}-${Math.random().toString(16).slice(2, 8)}`);
  const env = actionsEnv(temp);
  let failed;
  let ms = 0;
  let out = "";
  for (const step of recipe.jobs[job].steps) {
    if (typeof step.run !== "string" || /npm install -g/.test(step.run)) continue;
    if (only && !only.includes(step.id)) continue;
    if (failed && !/!cancelled\(\)/.test(String(step.if ?? ""))) continue;
    const r = await sh(cwd, step.run, { ...env, ...stepEnv(step) }, onStart);
    ms += r.ms;
    out += r.out;
    if (r.code !== 0 && !failed) failed = `${step.name}: exit ${r.code}${r.signal ? ` (${r.signal})` : ""}`;
  }
  const outputs = existsSync(env.GITHUB_OUTPUT)
    ? Object.fromEntries(
        readFileSync(env.GITHUB_OUTPUT, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => l.split("=")),
      )
    : {};
  return { failed, ms, out, outputs };
}

/**
 * The recipe's plan job dispatched three times on a remote of its own, as a person answers the
 * gates (approve: ask, then once, then the design input), each dispatch in a fresh clone (a new
 * machine: a checkout key of its own). What each ended at, read from its output and job outputs.
 */
async function gatesRun() {
  const remote = join(work, "gates.git");
  git(work, "clone", "-q", "--bare", join(work, "seed"), remote);
  const dispatches = [
    { request: "add login", approve: "ask", design: "", change: "" },
    { request: "", approve: "once", design: "", change: "" },
    { request: "", approve: "ask", design: "minimal", change: "" },
  ];
  const out = [];
  const saved = inputs;
  try {
    for (const [i, given] of dispatches.entries()) {
      inputs = given;
      const job = await runJob("plan", clone(remote, join(work, `gates-${i + 1}`)));
      const stopped = /stopped at the ([^\n]+?) for your answer/.exec(job.out)?.[1];
      const ended = job.failed
        ? `failed (${job.failed})`
        : job.outputs.ready === "true"
          ? "the plan ready for workers"
          : stopped
            ? `stopped at the ${stopped}`
            : "not ready, no gate named";
      const dispatch = Object.entries(given)
        .filter(([, v]) => v !== "")
        .map(([k, v]) => `${k}: ${k === "request" ? JSON.stringify(v) : v}`)
        .join(", ");
      out.push({ dispatch, ended, ready: job.outputs.ready === "true" });
    }
  } finally {
    inputs = saved;
  }
  const want = [false, false, true];
  if (out.some((g, i) => g.ready !== want[i])) fail(`the gates' dispatches ended ${JSON.stringify(out)}`, {});
  return out;
}

function gatesTable(gates) {
  return [
    "The plan job dispatched as a person answers the gates, each dispatch on a fresh clone:",
    "",
    "| dispatch | the plan job ended |",
    "|---|---|",
    ...gates.map((g) => `| ${g.dispatch} | ${g.ended} |`),
  ].join("\n");
}

/** From the first task's start to the last task's completion in a clone's execution.json. */
function tasksSpan(dir) {
  const tasks = JSON.parse(readFileSync(join(dir, "memory/state/execution.json"), "utf8")).tasks;
  const startedAt = Math.min(...tasks.map((t) => Date.parse(t.started_at)));
  const completedAt = Math.max(...tasks.map((t) => Date.parse(t.completed_at)));
  if (!Number.isFinite(startedAt) || !Number.isFinite(completedAt)) throw new Error(`tasks without times in ${dir}`);
  return completedAt - startedAt;
}

function executorSessions() {
  if (!existsSync(sdkLog)) return 0;
  return readFileSync(sdkLog, "utf8")
    .split("\n")
    .filter((l) => l.includes("/tasks/")).length;
}

/** A task held by the clone's state as running (a kill then lands mid-task). */
function runningIn(dir) {
  try {
    const tasks = JSON.parse(readFileSync(join(dir, "memory/state/execution.json"), "utf8")).tasks ?? [];
    return tasks.filter((t) => t.status === "running").map((t) => t.id);
  } catch {
    return [];
  }
}

/** Tasks whose <task>.txt is on the remote's branch. */
function landedOn(remote) {
  return TASKS.filter((t) => spawnSync(REAL_GIT, ["cat-file", "-e", `main:${t}.txt`], { cwd: remote }).status === 0);
}

/**
 * `n` workers running the recipe's workers job on a copy of the planned remote, then its finish
 * job; faults as asked. Checks what landed.
 */
async function workersRun(planned, workflowId, n, { kills = 0, outage = false, forcePush = false }) {
  const dir = join(work, `run-${n}-${kills}-${results.length}`);
  const remote = join(dir, "remote.git");
  cpSync(planned, remote, { recursive: true });
  rmSync(sdkLog, { force: true });
  const clones = Array.from({ length: n }, (_, i) => clone(remote, join(dir, `worker-${i + 1}`)));
  const faultLog = { kills: [], restarts: 0, outage_s: 0, worker_exits: [], force_push: null, gave_up: [] };
  const tries = clones.map(() => 0);
  const groups = new Map(); // worker index → its live process group
  const t0 = performance.now();
  const runWorker = async (i, only) => {
    for (;;) {
      const job = await runJob("workers", clones[i], { only, onStart: (child) => groups.set(i, child.pid) });
      groups.delete(i);
      writeFileSync(join(dir, `worker-${i + 1}.log`), job.out, { flag: "a" });
      const code = job.failed ? Number(/exit (\d+)/.exec(job.failed)?.[1]) : 0;
      faultLog.worker_exits.push(code);
      if (code === 0) return;
      if (code === 2) fail(`worker ${i + 1}: ${job.failed}`, job);
      if (++tries[i] > 8) {
        // Measured, not hidden: the worker's last line goes into the figures and the run goes on to finish.
        const last =
          job.out
            .trim()
            .split("\n")
            .findLast((l) => l.startsWith("dotagent:")) ?? job.failed;
        faultLog.gave_up.push({ worker: i + 1, after_restarts: tries[i] - 1, last });
        say(`  worker ${i + 1} gave up after ${tries[i] - 1} restarts: ${last}`);
        return;
      }
      // Killed, or ended by the remote's failure: the machine comes back and runs the worker step again.
      faultLog.restarts++;
      only = ["work"];
      await new Promise((r) => setTimeout(r, 2000));
    }
  };
  const done = Promise.all(clones.map((_, i) => runWorker(i)));
  let finished = false;
  done.then(() => (finished = true));
  // When the sixth task is on the remote's branch (the workers' last polls come after it).
  let allLandedMs = null;
  const landedAt = {}; // task → seconds from the start until it was first seen on the remote's branch
  const watch = setInterval(() => {
    const landed = landedOn(remote);
    for (const t of landed) landedAt[t] ??= round1((performance.now() - t0) / 1000);
    if (allLandedMs === null && landed.length === TASKS.length) allLandedMs = performance.now() - t0;
  }, 250);

  // Faults, while the workers work.
  const faultsDone = (async () => {
    for (let k = 0; k < kills && !finished; k++) {
      if (k > 0) await new Promise((r) => setTimeout(r, 3 * DELAY_MS));
      // At a random moment once a worker is mid-task (within 60 s), else any live one.
      for (let waited = 0; waited < 240 && ![...groups.keys()].some((i) => runningIn(clones[i]).length > 0); waited++)
        await new Promise((r) => setTimeout(r, 250));
      await new Promise((r) => setTimeout(r, Math.random() * DELAY_MS));
      const live = [...groups.keys()];
      const busy = live.filter((i) => runningIn(clones[i]).length > 0);
      const i = (busy.length ? busy : live)[Math.floor(Math.random() * (busy.length || live.length))];
      if (i === undefined) break;
      const tasks = runningIn(clones[i]);
      try {
        process.kill(-groups.get(i), "SIGKILL");
        faultLog.kills.push({ worker: i + 1, at_s: round1((performance.now() - t0) / 1000), mid_task: tasks });
        say(`  kill -9 worker ${i + 1}${tasks.length ? ` mid-task (${tasks.join(", ")})` : ""}`);
      } catch {}
    }
    if (outage && !finished) {
      await new Promise((r) => setTimeout(r, 2000));
      writeFileSync(downFlag, "");
      const t = performance.now();
      say("  the remote is down");
      await new Promise((r) => setTimeout(r, 5000));
      rmSync(downFlag, { force: true });
      faultLog.outage_s = round1((performance.now() - t) / 1000);
      say("  the remote is back");
    }
    if (forcePush) {
      // A person rewrites the branch once some tasks landed: back to the plan's commit, plus their own.
      for (let waited = 0; landedOn(remote).length < 2 && !finished && waited < 600; waited++)
        await new Promise((r) => setTimeout(r, 1000));
      const landedBefore = landedOn(remote);
      for (const t of landedBefore) landedAt[t] ??= round1((performance.now() - t0) / 1000);
      const person = clone(remote, join(dir, "person"));
      const planTip = git(planned, "rev-parse", "main");
      git(person, "reset", "-q", "--hard", planTip);
      writeFileSync(join(person, "NOTES.md"), "a person's notes\n");
      git(person, "add", "NOTES.md");
      git(person, "-c", "user.name=person", "-c", "user.email=person@e", "commit", "-qm", "a person's force-push");
      git(person, "push", "-q", "--force", "origin", "main");
      faultLog.force_push = {
        at_s: round1((performance.now() - t0) / 1000),
        landed_before: landedBefore,
        dropped: landedBefore,
      };
      say(`  a person force-pushed main back to the plan, dropping ${landedBefore.join(", ") || "nothing"}`);
    }
  })();
  await done;
  const ms = performance.now() - t0;
  clearInterval(watch);
  allLandedMs ??= landedOn(remote).length === TASKS.length ? ms : null;
  await faultsDone;
  const sessions = executorSessions();

  // The finish job in a clone of its own.
  const finishClone = clone(remote, join(dir, "finish"));
  const finish = await runJob("finish", finishClone);
  const validate = spawnSync(process.execPath, [join(tool, "bin/dotagent.mjs"), "validate", "--json"], {
    cwd: finishClone,
    encoding: "utf8",
  });

  // Every task added exactly once on the remote's branch; one done per claim.
  const problems = [];
  for (const task of TASKS) {
    const adds = git(remote, "log", "--format=%H", "--diff-filter=A", "main", "--", `${task}.txt`)
      .split("\n")
      .filter(Boolean);
    if (adds.length !== 1) problems.push(`${task}.txt added ${adds.length} times on main`);
    const claimRef = `refs/dotagent/claims/${workflowId}/${task}`;
    const log = spawnSync(REAL_GIT, ["log", "--first-parent", "--format=%s", claimRef], {
      cwd: remote,
      encoding: "utf8",
    });
    const dones = log.stdout.split("\n").filter((s) => /: done by /.test(s)).length;
    if (dones !== 1) problems.push(`${task}: ${dones} done claims`);
  }
  if (finish.failed)
    problems.push(`finish job: ${finish.failed}: ${finish.out.trim().split("\n").slice(-3).join(" / ")}`);
  if (!finish.failed && !/^Workflow \S+ complete in /m.test(finish.out))
    problems.push("the finish job did not complete the workflow");
  if (validate.status !== 0) problems.push(`validate exit ${validate.status}: ${validate.stdout.slice(0, 200)}`);
  const remoteMemory =
    spawnSync(REAL_GIT, ["cat-file", "-e", "main:memory/reports/reflection.json"], { cwd: remote }).status === 0;
  if (!finish.failed && !remoteMemory) problems.push("finish did not push memory/ back");
  for (const g of faultLog.gave_up) problems.push(`worker ${g.worker} gave up: ${g.last}`);
  if (problems.length && !forcePush) fail(`${n} workers: ${problems.join("; ")}`, finish);
  const landedMs = allLandedMs ?? ms;
  return {
    workers: n,
    ms: Math.round(landedMs),
    workers_ended_ms: Math.round(ms),
    perHour: Math.round((TASKS.length / landedMs) * 3_600_000),
    sessions,
    finish_ms: Math.round(finish.ms),
    checks: problems.length ? problems.join("; ") : "ok",
    killed:
      faultLog.kills
        .map(
          (k) =>
            `worker ${k.worker} at ${k.at_s} s${k.mid_task.length ? ` mid-task (${k.mid_task.map((t) => `${t} landed at ${landedAt[t] ?? "?"} s`).join(", ")})` : ""}`,
        )
        .join("; ") || "none",
    restarts: faultLog.restarts,
    faults: kills || outage || forcePush ? { ...faultLog, landed_at_s: landedAt } : undefined,
  };
}

function tableOf(f) {
  const rows = f.runs.map(
    (r) =>
      `| ${r.workers} | ${r.killed}, ${r.restarts} restart${r.restarts === 1 ? "" : "s"} | ${(r.ms / 1000).toFixed(1)} s | ${(r.workers_ended_ms / 1000).toFixed(1)} s | ${r.perHour} | ${r.sessions} | ${(r.finish_ms / 1000).toFixed(1)} s | ${r.checks} |`,
  );
  const lines = [
    `6 tasks (three after others), the stand-in agent ${(f.agent_ms_per_task / 1000).toFixed(1)} s a task, every fetch, push and ls-remote ${f.remote_ms} ms slower (${f.git}); the recipe's jobs run from its YAML:`,
    "",
    "| workers | kill -9 at random | workers start → 6th task on the remote | → last worker ends | tasks per hour | executor sessions | finish job | checks |",
    "|---|---|---|---|---|---|---|---|",
    ...rows,
    "",
  ];
  lines.push(
    `Claim overhead per task: ${(f.claim_overhead_ms_per_task / 1000).toFixed(2)} s (1 worker without faults, the six tasks on the remote in ${(f.clean_1_worker_ms / 1000).toFixed(1)} s, less the same six tasks run locally without the remote, ${(f.local_span_ms / 1000).toFixed(1)} s, over 6).`,
  );
  if (f.faults) {
    const x = f.faults.faults;
    lines.push(
      "",
      `Faults, 2 workers: ${x.kills.length ? `${x.kills.length} kill -9 (${x.kills.map((k) => `worker ${k.worker} at ${k.at_s} s${k.mid_task.length ? ` mid-task ${k.mid_task.map((t) => `${t}, landed at ${x.landed_at_s[t] ?? "?"} s`).join(", ")}` : ""}`).join("; ")}), ` : ""}${x.restarts} restarts of a worker, the remote down ${x.outage_s} s, ${x.force_push ? `a person's force-push at ${x.force_push.at_s} s dropping ${x.force_push.dropped.join(", ") || "nothing"} from main` : "no force-push"}: the tasks step ${(f.faults.ms / 1000).toFixed(1)} s, ${f.faults.sessions} executor sessions for 6 tasks; checks: ${f.faults.checks}.`,
    );
  }
  lines.push(
    "",
    `The script's wall time: ${f.wall_s} s, on ${f.cpus} CPUs shared with other work (load average ${f.load_at_start} at the start, ${f.load_at_end} at the end).`,
  );
  return lines.join("\n");
}

function seconds(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}

function round1(x) {
  return Math.round(x * 10) / 10;
}

function fail(message, r) {
  if (r?.out) say(r.out.split("\n").slice(-40).join("\n"));
  api.close();
  if (!args.includes("--keep")) rmSync(work, { recursive: true, force: true });
  else say(`kept ${work}`);
  throw new Error(message);
}
