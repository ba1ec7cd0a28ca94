// Where a command's CPU goes by process, every process of the machine counted (`npm test`'s
// children included: git, the real clients, the hooks), for docs/evidence.md's figures on the
// test suite (issue 41). It runs the command under `perf record -a` (cpu-clock samples at a fixed
// rate on every core; root, and Debian's linux-perf) and sorts the samples by process:
//
//   node scripts/cpu-by-process.mjs [--freq 499] [--top 15] [--json] -- npx vitest run
//
// Node processes are told apart by how long they lived and what they cost: the long-lived ones
// (vitest's workers, the CLI hosts, the scripted models), the shorter ones that ran a program (CLI
// calls, hooks, short test workers), and a fork's child before its exec (`spawnSync("git")` forks
// the Node process, and the child carries Node's name until it becomes git). It also gives the
// busy share of each 20 s window: whether the command kept every core busy throughout.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

class Usage extends Error {}
const fail = (message) => {
  throw new Usage(message);
};

/** A Node process that lived this long (s) is a long-lived one; one that cost less (s) never ran a program of its own. */
const LONG_LIVED_S = 5;
const FORK_ONLY_S = 0.02;
/** How long a window of busy_by_window is (s). */
const WINDOW_S = 20;

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    main();
  } catch (error) {
    if (!(error instanceof Usage)) throw error;
    process.stderr.write(`cpu-by-process: ${error.message}\n`);
    process.exitCode = 2;
  }
}

function main() {
  const { values, positionals } = parseArgs({
    options: {
      freq: { type: "string", default: "499" },
      json: { type: "boolean" },
      top: { type: "string", default: "15" },
    },
    allowPositionals: true,
  });
  if (positionals.length === 0) fail("name the command to measure after --, like: -- npx vitest run");
  const freq = Number(values.freq);
  if (!Number.isInteger(freq) || freq < 10 || freq > 10_000) fail("--freq takes samples a second, 10 to 10000");
  const top = Number(values.top);
  if (!Number.isInteger(top) || top < 1) fail("--top takes how many process names to list, 1 or more");
  if (spawnSync("perf", ["--version"]).status !== 0) fail("perf is not installed (Debian: apt-get install linux-perf)");
  const work = mkdtempSync(join(tmpdir(), "dotagent-cpu-"));
  try {
    const data = join(work, "perf.data");
    const run = spawnSync("perf", ["record", "-a", "-F", String(freq), "-q", "-o", data, "--", ...positionals], {
      stdio: "inherit",
    });
    if (run.error) fail(`perf record did not run: ${run.error.message}`);
    const script = spawnSync("perf", ["script", "-i", data, "-F", "comm,pid,time"], {
      encoding: "utf8",
      maxBuffer: 1024 * 1024 * 1024,
    });
    if (script.status !== 0) fail(`perf script failed: ${script.stderr.trim().split("\n").pop()}`);
    const result = { command: positionals.join(" "), exit: run.status, ...bySamples(script.stdout, freq) };
    if (values.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else print(result, top);
    process.exitCode = run.status ?? 1;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The samples (`<comm> <pid> <time>:` lines; a comm may hold spaces) as CPU seconds by process kind and name. */
export function bySamples(text, freq) {
  const byComm = new Map();
  const nodePids = new Map();
  /** Each sample's time, and whether it found a process running. */
  const times = [];
  let idle = 0;
  let all = 0;
  for (const line of text.split("\n")) {
    const m = /^\s*(.+?)\s+(\d+)\s+([\d.]+):\s*$/.exec(line);
    if (m === null) continue;
    const [, comm, pid, time] = m;
    const t = Number(time);
    times.push([t, comm !== "swapper"]);
    all++;
    if (comm === "swapper") {
      idle++;
      continue;
    }
    byComm.set(comm, (byComm.get(comm) ?? 0) + 1);
    if (comm !== "node") continue;
    const p = nodePids.get(pid) ?? { samples: 0, first: t, last: t };
    p.samples++;
    p.first = Math.min(p.first, t);
    p.last = Math.max(p.last, t);
    nodePids.set(pid, p);
  }
  const s = (samples) => Math.round((samples / freq) * 100) / 100;
  /** Per WINDOW_S window from the earliest sample: [samples, busy samples]. */
  const windows = [];
  const start = times.reduce((least, [t]) => Math.min(least, t), Infinity);
  for (const [t, busy] of times) {
    const window = (windows[Math.floor((t - start) / WINDOW_S)] ??= [0, 0]);
    window[0]++;
    if (busy) window[1]++;
  }
  const samples = { long_lived: [0, 0], ran: [0, 0], fork_only: [0, 0] };
  for (const p of nodePids.values()) {
    const counted = samples[nodeKind(p.last - p.first, p.samples / freq)];
    counted[0]++;
    counted[1] += p.samples;
  }
  const node = Object.fromEntries(
    Object.entries(samples).map(([kind, [processes, n]]) => [kind, { processes, cpu_s: s(n) }]),
  );
  return {
    busy_cpu_s: s(all - idle),
    idle_share: all === 0 ? 0 : Math.round((idle / all) * 1000) / 1000,
    /** The busy share of each WINDOW_S seconds, in order (a window without samples: 0). */
    busy_by_window: Array.from(windows, (w = [0, 0]) => (w[0] === 0 ? 0 : Math.round((w[1] / w[0]) * 1000) / 1000)),
    by_name: [...byComm].sort((a, b) => b[1] - a[1]).map(([name, samples]) => ({ name, cpu_s: s(samples) })),
    node,
  };
}

/** A Node process by how long it lived and the CPU it cost (seconds). */
function nodeKind(lived, cpu) {
  if (lived >= LONG_LIVED_S) return "long_lived";
  if (cpu < FORK_ONLY_S) return "fork_only";
  return "ran";
}

function print(r, top) {
  const line = (cpu, text) => process.stdout.write(`${cpu.toFixed(1).padStart(8)} s  ${text}\n`);
  process.stdout.write(
    `${r.command}: ${r.busy_cpu_s} s of CPU busy, ${(r.idle_share * 100).toFixed(1)}% of the samples idle\n`,
  );
  const shares = r.busy_by_window.map((share) => `${Math.round(share * 100)}%`);
  if (shares.length > 0) process.stdout.write(`busy by ${WINDOW_S} s window: ${shares.join(" ")}\n`);
  for (const { name, cpu_s } of r.by_name.slice(0, top)) line(cpu_s, name);
  process.stdout.write("Node processes:\n");
  line(
    r.node.long_lived.cpu_s,
    `${r.node.long_lived.processes} lived ${LONG_LIVED_S} s or more (test workers, hosts, servers)`,
  );
  line(
    r.node.ran.cpu_s,
    `${r.node.ran.processes} shorter ones that ran a program (CLI calls, hooks, short test workers)`,
  );
  line(
    r.node.fork_only.cpu_s,
    `${r.node.fork_only.processes} forks before their exec (under ${FORK_ONLY_S * 1000} ms each)`,
  );
}
