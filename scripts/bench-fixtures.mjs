// Realistic project states for the benchmark (scripts/bench.mjs), written straight to disk in
// the shape the CLI itself writes them (a 10,000-task state through the CLI would take minutes).
// The workflow is in IMPLEMENTATION with REQUIREMENTS and ARCHITECTURE completed, their reports
// present and approved; most tasks are complete with an output file, a few are running (one of
// them with its output already written, for `task complete`), the rest pending, and dependencies
// form a DAG (each task depends only on earlier ones); the round's isolation is decided (shared:
// the fixture is not a git repository), as it is once a task has started. Same `n`, `now` and options → same bytes.
// Options (test/scale.test.ts): `shape` "mixed" (the default: a few dependencies each, mostly near
// neighbours), "chain" (each task depends on the one before it: the complete ones, then the pending
// ones from the last complete; one task ready), "wide" (every task depends on the first, the last
// also on every other pending task: a task with n - 1 dependants, one with as many dependencies,
// most pending tasks ready) or "chain+wide" (complete tasks chained; of the pending ones the first
// half a chain, the rest wide); `complete`: the share of complete tasks (0.9).
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const HOUR = 60 * 60 * 1000;
const WORKFLOW_ID = "wf-add-login-and-sessions";
const REQUEST = "add login with email and password, sessions, and a logout button";

/** Small seeded PRNG (mulberry32): fixtures differ by size, never between runs. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function writeJson(file, value) {
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

export function taskId(i) {
  return `task-${String(i + 1).padStart(5, "0")}`;
}

/** How many tasks of `n` are complete, running and pending. */
export function taskMix(n, share = 0.9) {
  const running = 3;
  const complete = Math.max(1, Math.floor(n * share) - running);
  return { complete, running, pending: n - complete - running };
}

/**
 * Writes memory/ under `root` for a workflow with `n` tasks, as of `now`. Returns what the
 * benchmark needs to know: the running task whose output is already on disk (for `task complete`),
 * the first ready task (for `task start`) and the counts.
 */
export function buildFixture(root, n, now = new Date(), { shape = "mixed", complete = 0.9 } = {}) {
  if (!["mixed", "chain", "wide", "chain+wide"].includes(shape))
    throw new Error(`unknown fixture shape ${shape}: mixed, chain, wide or chain+wide`);
  const t0 = now.getTime() - 48 * HOUR;
  const at = (ms) => new Date(ms).toISOString();
  const stateDir = join(root, "memory/state");
  const reportsDir = join(root, "memory/reports");
  for (const dir of [stateDir, join(reportsDir, "designs"), join(reportsDir, "tasks")])
    mkdirSync(dir, { recursive: true });

  // Phase reports, a few KiB each like the agents write them.
  const requirement = (i) => ({
    id: `R${i + 1}`,
    text: `The user can ${["sign in", "sign out", "reset a password", "stay signed in", "see a session list"][i % 5]} (requirement ${i + 1}).`,
    priority: i % 3 === 0 ? "must" : "should",
  });
  writeJson(join(reportsDir, "demand.json"), {
    request: REQUEST,
    summary: "Email/password login with server-side sessions.",
    requirements: Array.from({ length: 12 }, (_, i) => requirement(i)),
    out_of_scope: ["OAuth", "2FA"],
  });
  for (const name of ["design-a", "design-b", "design-c"]) {
    writeJson(join(reportsDir, "designs", `${name}.json`), {
      name,
      summary: `Architecture option ${name}`,
      components: Array.from({ length: 8 }, (_, i) => ({
        name: `component-${i}`,
        responsibility: "handles one part of the login flow",
        interfaces: ["POST /login", "POST /logout"],
      })),
      risks: ["session fixation", "timing attacks"],
    });
  }
  writeJson(join(reportsDir, "roundtable.json"), {
    options: ["design-a", "design-b", "design-c"],
    recommendation: "design-b",
    notes: "b balances simplicity and security",
  });
  writeJson(join(reportsDir, "final_design.json"), {
    chosen: "design-b",
    modules: Array.from({ length: 10 }, (_, i) => ({ name: `module-${i}`, files: [`src/auth/module-${i}.ts`] })),
    decisions: ["argon2id for hashes", "httpOnly cookies"],
  });

  const phase = {
    workflow_id: WORKFLOW_ID,
    started_at: at(t0),
    last_updated: at(t0 + 9 * HOUR),
    current_phase: "IMPLEMENTATION",
    phase_status: "in_progress",
    completed_phases: [
      { phase: "REQUIREMENTS", completed_at: at(t0 + 2 * HOUR), output: "memory/reports/demand.json" },
      { phase: "ARCHITECTURE", completed_at: at(t0 + 8 * HOUR), output: "memory/reports/final_design.json" },
    ],
    user_checkpoints: [
      { phase: "REQUIREMENTS", approved_at: at(t0 + 2 * HOUR - 60_000) },
      { phase: "ARCHITECTURE", approved_at: at(t0 + 8 * HOUR - 60_000) },
    ],
    interruption_safe: true,
    schema_version: 1,
    revision: 7,
    request: REQUEST,
    inputs_hash: createHash("sha256")
      .update(JSON.stringify({ request: REQUEST }))
      .digest("hex")
      .slice(0, 16),
    pending_transition: null,
  };

  // Tasks: complete first (their dependencies are all earlier, so complete too), then running
  // (dependencies among the complete ones), then pending (dependencies anywhere earlier: some are
  // ready, some blocked).
  const mix = taskMix(n, complete);
  const rand = random(n * 2654435761);
  const implStart = t0 + 9 * HOUR;
  const implEnd = now.getTime() - HOUR;
  const step = (implEnd - implStart) / Math.max(1, mix.complete);
  const tasks = [];
  const events = [
    { type: "workflow_started", workflow_id: WORKFLOW_ID, request: REQUEST, at: at(t0) },
    { type: "phase_started", phase: "REQUIREMENTS", at: at(t0 + 60_000) },
    { type: "phase_approved", phase: "REQUIREMENTS", at: at(t0 + 2 * HOUR - 60_000) },
    { type: "phase_completed", phase: "REQUIREMENTS", output: "memory/reports/demand.json", at: at(t0 + 2 * HOUR) },
    { type: "phase_approved", phase: "ARCHITECTURE", at: at(t0 + 8 * HOUR - 60_000) },
    {
      type: "phase_completed",
      phase: "ARCHITECTURE",
      output: "memory/reports/final_design.json",
      at: at(t0 + 8 * HOUR),
    },
    { type: "phase_started", phase: "IMPLEMENTATION", at: at(t0 + 9 * HOUR) },
  ];
  for (let i = 0; i < n; i++) events.push({ type: "task_added", task_id: taskId(i), at: at(t0 + 9 * HOUR) });
  // The round's isolation, decided at its first task start as `task start` decides it (SPEC §19):
  // outside a git repository, one shared checkout. Tasks that ran always leave this record, so
  // without it the readers would look at the main checkout (git) as only a round's first tasks do.
  const isolation = {
    round: 0,
    mode: "shared",
    branch: null,
    reason: "the project is not in a git repository",
    decided_at: at(implStart),
  };
  events.push({ type: "isolation_decided", round: 0, mode: "shared", reason: isolation.reason, at: at(implStart) });
  let runningWithOutput;
  for (let i = 0; i < n; i++) {
    const id = taskId(i);
    const status = i < mix.complete ? "complete" : i < mix.complete + mix.running ? "running" : "pending";
    const pool = status === "running" ? mix.complete : i; // running tasks depend on complete ones only
    const deps = new Set();
    const firstPending = mix.complete + mix.running;
    const wideFrom = shape === "wide" ? 0 : shape === "chain+wide" ? firstPending + Math.ceil(mix.pending / 2) : n;
    if (i >= wideFrom) {
      // The first task; the last one also every pending task before it from here.
      if (i > 0) deps.add(taskId(0));
      if (i === n - 1 && status === "pending")
        for (let k = Math.max(wideFrom, firstPending); k < i; k++) deps.add(taskId(k));
    } else if (shape === "chain" || shape === "chain+wide") {
      // The task before it; a running task and the first pending one: the last complete task.
      if (i > 0) deps.add(taskId(status === "complete" || i > firstPending ? i - 1 : mix.complete - 1));
    } else {
      const count = pool === 0 || rand() < 0.3 ? 0 : 1 + Math.floor(rand() * 3);
      for (let k = 0; k < count; k++) {
        // Mostly near neighbours (a module's tasks build on each other), sometimes far back.
        const back = rand() < 0.8 ? 1 + Math.floor(rand() * Math.min(pool, 20)) : 1 + Math.floor(rand() * pool);
        deps.add(taskId(Math.max(0, Math.min(pool, i) - back)));
      }
    }
    const task = {
      id,
      title: `Implement part ${i + 1} of module-${i % 10}`,
      status,
      depends_on: [...deps],
      attempts: 0,
      started_at: null,
      completed_at: null,
      output: `memory/reports/tasks/${id}.json`,
      error: null,
    };
    if (status === "complete") {
      const started = implStart + i * step;
      task.started_at = at(started);
      task.completed_at = at(started + step * 0.8);
      // A task that needed a second attempt now and then.
      if (i % 17 === 5) task.attempts = 1;
      events.push(
        { type: "task_started", task_id: id, attempt: task.attempts + 1, at: task.started_at },
        { type: "task_completed", task_id: id, at: task.completed_at },
      );
      writeOutput(reportsDir, id, i);
    } else if (status === "running") {
      task.started_at = at(now.getTime() - 30 * 60_000);
      events.push({ type: "task_started", task_id: id, attempt: 1, at: task.started_at });
      if (runningWithOutput === undefined) {
        runningWithOutput = id;
        writeOutput(reportsDir, id, i);
      }
    }
    tasks.push(task);
  }
  const execution = {
    workflow_id: WORKFLOW_ID,
    updated_at: at(now.getTime() - 10 * 60_000),
    interruption_safe: true,
    max_attempts: 3,
    revision: events.length,
    tasks,
    isolation,
  };
  phase.last_updated = at(now.getTime() - 10 * 60_000);

  writeJson(join(stateDir, "phase.json"), phase);
  writeJson(join(stateDir, "execution.json"), execution);
  writeLastWrite(stateDir);
  writeFileSync(
    join(stateDir, "events.jsonl"),
    events.map(({ at: when, ...e }, i) => JSON.stringify({ seq: i + 1, at: when, ...e })).join("\n") + "\n",
  );
  const done = new Set(tasks.filter((t) => t.status === "complete").map((t) => t.id));
  const ready = tasks.find((t) => t.status === "pending" && t.depends_on.every((d) => done.has(d)))?.id;
  return { root, tasks: n, mix, runningWithOutput, ready, events: events.length };
}

/**
 * memory/state/.last-write.json as dotagent leaves it after its last write (src/store/last-write.ts):
 * every project dotagent wrote has one, so the hand-edit check every reader makes is measured too.
 * The stamps are the files' as they are now, and the record is written a tick of the filesystem's
 * clock after their ctimes (rewritten until its mtime is later), as dotagent's record is after a
 * state write's fsyncs: a reader takes the recorded digest without hashing, as after a real write.
 * bench.mjs calls it again after putting back the files `task complete` changed.
 */
export function writeLastWrite(stateDir) {
  const files = {};
  let ctime = 0n;
  for (const name of ["phase.json", "execution.json"]) {
    const file = join(stateDir, name);
    const s = statSync(file, { bigint: true });
    if (s.ctimeNs > ctime) ctime = s.ctimeNs;
    files[name] = {
      sha256: [createHash("sha256").update(readFileSync(file)).digest("hex")],
      stamp: `n1:${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`,
    };
  }
  const record = join(stateDir, ".last-write.json");
  for (let tries = 0; tries < 500; tries++) {
    writeFileSync(record, `${JSON.stringify({ format: 1, files })}\n`);
    if (statSync(record, { bigint: true }).mtimeNs > ctime) return;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
  }
}

function writeOutput(reportsDir, id, i) {
  writeJson(join(reportsDir, "tasks", `${id}.json`), {
    task_id: id,
    status: "complete",
    summary: `Implemented part ${i + 1}: handler, tests and docs.`,
    files_changed: [`src/auth/module-${i % 10}/part-${i + 1}.ts`, `src/auth/module-${i % 10}/part-${i + 1}.test.ts`],
    tests: { passed: 12 + (i % 7), failed: 0 },
  });
}
