// The LangGraph saver's torture (issue 33): writers (langgraph-child.mjs) killed with SIGKILL right
// before a random disk change of theirs (kill-at.mjs: every open-for-write, write, fsync, rename,
// link and unlink of a put, a putWrites or the lock is a candidate), and 8 writers on one thread at
// once, some of them killed. After every run a fresh saver in this process reads back every call a
// writer acknowledged: the checkpoint with its values (carried ones included) and metadata, its
// pending writes, and the whole thread through list(). Used by test/torture/langgraph.test.ts (a
// bounded run in npm test) and scripts/langgraph-torture.mjs (the long run and its figures).
import { spawn } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { fileURLToPath } from "node:url";
import { expectedValues, pendingWritesOf, stepId } from "./langgraph-model.mjs";

const CHILD = fileURLToPath(new URL("./langgraph-child.mjs", import.meta.url));
const PRELOAD = fileURLToPath(new URL("./kill-at.mjs", import.meta.url));
export const THREAD = "torture-thread";
export const SHARED = "shared-000000";

/** A seeded generator (mulberry32), so a failing run can be replayed with its seed. */
export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)) };
}

/** One writer run: its acknowledgements, whether and where it was killed, how many disk changes it made. */
function runChild({ saverPath, dir, chain, steps, bytes, shared, killAt, timeoutMs = 60_000 }) {
  const args = [
    ...(killAt === undefined ? [] : ["--import", PRELOAD]),
    CHILD,
    saverPath,
    dir,
    THREAD,
    chain,
    String(steps),
    String(bytes),
    ...(shared ? [shared] : []),
  ];
  const env = {
    ...process.env,
    ...(killAt === undefined ? {} : { TORTURE_REPORT_FD: "3", TORTURE_KILL_AT: String(killAt) }),
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let report = "";
    child.stdout.setEncoding("utf8").on("data", (c) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c) => (stderr += c));
    child.stdio[3]?.setEncoding("utf8").on("data", (c) => (report += c));
    const guard = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(guard);
      const lines = report.split("\n");
      const kill = lines.find((l) => l.startsWith("kill "));
      resolve({
        code,
        signal,
        stderr,
        done: stdout.includes("\ndone\n") || stdout.startsWith("done\n"),
        acks: stdout
          .split("\n")
          .filter((l) => l.startsWith("ack "))
          .map((l) => l.slice(4).split(" ")),
        ops: lines.filter((l) => /^\d+ /.test(l)).length,
        killed: signal === "SIGKILL" && kill !== undefined,
        // "before renameSync", "before writeSync", … (the call the kill preceded)
        landed: kill === undefined ? null : `before ${kill.split(" ")[2]}`,
        landedOn: kill === undefined ? null : kill.split(" ").slice(3).join(" "),
      });
    });
  });
}

/**
 * What the acknowledged calls left: each check that fails is one violation, counted by kind.
 * `full`: every call acknowledged so far and the whole thread through list(); else the calls
 * acknowledged since the last check and the newest checkpoints (what a kill can have touched:
 * a run never rewrites an older checkpoint's files), so a long run does not read its whole
 * history after every kill.
 */
async function verify(saverPath, dir, acked, bytes, findings, full = true) {
  const { DotagentSaver } = await import(saverPath);
  const saver = new DotagentSaver(dir);
  const cfg = (id) => ({ configurable: { thread_id: THREAD, checkpoint_ns: "", checkpoint_id: id } });
  const tuples = new Map();
  const read = async (id) => {
    if (!tuples.has(id)) tuples.set(id, await saver.getTuple(cfg(id)));
    return tuples.get(id);
  };
  const puts = full ? acked.puts : acked.puts.slice(acked.checked?.puts ?? 0);
  const writes = full ? acked.writes : acked.writes.slice(acked.checked?.writes ?? 0);
  acked.checked = { puts: acked.puts.length, writes: acked.writes.length };
  try {
    for (const id of puts) {
      const [chain, n] = [id.slice(0, id.lastIndexOf("-")), Number(id.slice(id.lastIndexOf("-") + 1))];
      const tuple = await read(id);
      if (tuple === undefined) {
        findings.violation("lost_updates", `put ${id} was acknowledged and is not on disk`);
        continue;
      }
      if (!isDeepStrictEqual(tuple.checkpoint.channel_values, expectedValues(chain, n, bytes)))
        findings.violation("corrupt_after_kill", `${id}: channel values differ from what was put`);
      if (tuple.metadata?.step !== n || tuple.metadata?.chain !== chain)
        findings.violation("corrupt_after_kill", `${id}: metadata differs from what was put`);
      const parent = n === 0 ? undefined : stepId(chain, n - 1);
      if (tuple.parentConfig?.configurable?.checkpoint_id !== parent)
        findings.violation("corrupt_after_kill", `${id}: parent is not ${parent}`);
    }
    for (const [id, task] of writes) {
      const tuple = await read(id);
      const chain = id === SHARED ? undefined : id.slice(0, id.lastIndexOf("-"));
      const expected =
        chain === undefined
          ? [["crowd", task]]
          : pendingWritesOf(chain, Number(id.slice(id.lastIndexOf("-") + 1)))[task];
      const got = (tuple?.pendingWrites ?? [])
        .filter(([t]) => t === task)
        .map(([, channel, value]) => [channel, value]);
      if (!isDeepStrictEqual(got, expected))
        findings.violation(
          "lost_updates",
          `writes of ${task} on ${id} were acknowledged and read back as ${JSON.stringify(got)}`,
        );
    }
    // The whole thread reads: every checkpoint on disk (acknowledged or not) is whole.
    let listed = 0;
    for await (const tuple of saver.list({ configurable: { thread_id: THREAD } }, full ? {} : { limit: 10 })) {
      listed += 1;
      if (tuple.checkpoint.id !== SHARED && tuple.checkpoint.channel_values.doc === undefined)
        findings.violation("corrupt_after_kill", `${tuple.checkpoint.id}: listed without its carried values`);
    }
    findings.figures.checkpoints_read += listed;
  } catch (error) {
    findings.violation(
      "corrupt_after_kill",
      `reading the thread failed: ${error?.code ?? ""} ${String(error?.message ?? error).split("\n")[0]}`,
    );
  }
}

/** Temp files and locks the writers left (after a run that finished: a clean run sweeps them). */
function leftovers(dir) {
  const out = [];
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.json\.\d+$/.test(name) || name === ".lock" || /^\.lock\./.test(name))
        out.push(path.slice(dir.length + 1));
    }
  };
  walk(dir);
  return out;
}

function newFindings() {
  const violations = [];
  const figures = {
    kills: 0,
    kills_mid_write: 0,
    runs: 0,
    runs_not_killed: 0,
    acknowledged_puts: 0,
    acknowledged_writes: 0,
    checkpoints_read: 0,
    lost_updates: 0,
    corrupt_after_kill: 0,
    next_command_failed: 0,
    temp_files_left: 0,
    stale_locks_left: 0,
  };
  return {
    figures,
    violations,
    landed: {},
    violation(kind, message) {
      figures[kind] += 1;
      if (violations.length < 40) violations.push(`${kind}: ${message}`);
    },
  };
}

function record(findings, acked, run) {
  findings.figures.runs += 1;
  for (const [kind, ...rest] of run.acks) {
    if (kind === "put") {
      acked.puts.push(rest[0]);
      findings.figures.acknowledged_puts += 1;
    } else {
      acked.writes.push([rest[0], rest[1]]);
      findings.figures.acknowledged_writes += 1;
    }
  }
  if (run.killed) {
    findings.figures.kills += 1;
    if (run.landed !== "before exit") findings.figures.kills_mid_write += 1;
    const what = `${run.landed} ${/\.lock/.test(run.landedOn) ? "(lock)" : /checkpoint\.json/.test(run.landedOn) ? "(put)" : /writes\.json/.test(run.landedOn) ? "(putWrites)" : "(folder)"}`;
    findings.landed[what] = (findings.landed[what] ?? 0) + 1;
  } else if (run.code !== 0) {
    const why = run.stderr
      .split("\n")
      .filter((l) => /^\w*Error\b/.test(l.trim()))
      .map((l) => l.trim().slice(0, 300));
    findings.violation(
      "next_command_failed",
      `a writer exited ${run.code ?? run.signal}: ${why.join(" | ") || run.stderr.trim().slice(-300)}`,
    );
  } else {
    findings.figures.runs_not_killed += 1;
  }
}

/**
 * One writer, killed `kills` times right before a random one of its disk changes, each run
 * continuing the chain from the newest checkpoint on disk; then a clean run that must leave no
 * temp file and no lock behind.
 */
export async function killTorture({ saverPath, dir, kills, steps, bytes, seed }) {
  const random = rng(seed);
  const findings = newFindings();
  const acked = { puts: [], writes: [] };
  // How many disk changes a run makes: a kill point is drawn from 1 to that.
  const calibration = await runChild({ saverPath, dir: join(dir, "calibrate"), chain: "c", steps, bytes, killAt: 1e9 });
  const span = Math.max(1, calibration.ops);
  const folder = join(dir, "threads");
  for (let k = 0; k < kills; k++) {
    const run = await runChild({ saverPath, dir: folder, chain: "w", steps, bytes, killAt: random.int(1, span) });
    record(findings, acked, run);
    await verify(saverPath, folder, acked, bytes, findings, (k + 1) % 20 === 0);
  }
  const last = await runChild({ saverPath, dir: folder, chain: "w", steps: 2, bytes });
  record(findings, acked, last);
  await verify(saverPath, folder, acked, bytes, findings);
  for (const file of leftovers(folder))
    findings.violation(/\.lock$/.test(file) ? "stale_locks_left" : "temp_files_left", `${file} left after a clean run`);
  return { ...findings, span };
}

/**
 * `processes` writers on one thread at once, `rounds` times: each puts its own chain of
 * checkpoints and writes one task's writes to a checkpoint they all share (a read-modify-write of
 * one file under the lock); in each round `kills` of them are killed right before a random disk
 * change. Every acknowledged put and write must be read back.
 */
export async function crowdTorture({ saverPath, dir, processes, rounds, steps, kills, bytes, seed }) {
  const random = rng(seed);
  const findings = newFindings();
  const acked = { puts: [], writes: [] };
  const folder = join(dir, "threads");
  const { DotagentSaver } = await import(saverPath);
  const shared = {
    v: 4,
    id: SHARED,
    ts: new Date(0).toISOString(),
    channel_values: {},
    channel_versions: {},
    versions_seen: {},
  };
  await new DotagentSaver(folder).put(
    { configurable: { thread_id: THREAD } },
    shared,
    { source: "input", step: -1, parents: {} },
    {},
  );
  // A crowd writer's run makes roughly this many disk changes (measured alone).
  const calibration = await runChild({
    saverPath,
    dir: join(dir, "calibrate"),
    chain: "c",
    steps,
    bytes,
    shared: undefined,
    killAt: 1e9,
  });
  const span = Math.max(1, calibration.ops);
  for (let r = 0; r < rounds; r++) {
    const victims = new Set();
    while (victims.size < Math.min(kills, processes)) victims.add(random.int(0, processes - 1));
    const runs = await Promise.all(
      Array.from({ length: processes }, (_, p) =>
        runChild({
          saverPath,
          dir: folder,
          chain: `p${p}`,
          steps,
          bytes,
          shared: SHARED,
          killAt: victims.has(p) ? random.int(1, span) : undefined,
        }),
      ),
    );
    for (const run of runs) record(findings, acked, run);
    await verify(saverPath, folder, acked, bytes, findings, (r + 1) % 5 === 0);
  }
  const last = await runChild({ saverPath, dir: folder, chain: "p0", steps: 1, bytes, shared: SHARED });
  record(findings, acked, last);
  await verify(saverPath, folder, acked, bytes, findings);
  for (const file of leftovers(folder))
    findings.violation(/\.lock$/.test(file) ? "stale_locks_left" : "temp_files_left", `${file} left after a clean run`);
  return { ...findings, span };
}
