#!/usr/bin/env node
// The long torture run (`npm run torture`): the same suites as the bounded `npm test` run, with
// much bigger counts, then one table of what they found. Usage:
//   node test/torture/run-long.mjs [--kills N] [--scale F] [--seed S] [vitest filters…]
// --kills sets the kill -9 count (default 3000); --scale multiplies every other count (default 1).
// Each suite appends its figures to a JSON-lines file (TORTURE_STATS); this script sums them.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = args[i + 1];
  args.splice(i, 2);
  return value;
};
const kills = Number(option("kills", process.env.TORTURE_KILLS ?? "3000"));
const scale = Number(option("scale", "1"));
const seed = option("seed", process.env.TORTURE_SEED);
const filters = args.length > 0 ? args : ["test/torture"];
const n = (base) => String(Math.max(1, Math.round(base * scale)));

const statsDir = mkdtempSync(join(tmpdir(), "dotagent-torture-stats-"));
const stats = join(statsDir, "figures.jsonl");
const env = {
  ...process.env,
  TORTURE_STATS: stats,
  TORTURE_KILLS: String(kills),
  TORTURE_LANES: process.env.TORTURE_LANES ?? "2",
  TORTURE_VALIDATE_EVERY: process.env.TORTURE_VALIDATE_EVERY ?? "1",
  TORTURE_FAULT_STRIDE: process.env.TORTURE_FAULT_STRIDE ?? "1",
  TORTURE_CONC_N: n(8),
  TORTURE_CONC_K: n(12),
  TORTURE_CONC_RUNS: n(6),
  TORTURE_TAKER_ROUNDS: n(20),
  TORTURE_TAKERS: n(8),
  TORTURE_MODEL_RUNS: n(5000),
  TORTURE_CLI_RUNS: n(12),
  TORTURE_CORRUPT_RUNS: n(120),
  TORTURE_OWN_ROUNDS: n(40),
  ...(seed === undefined ? {} : { TORTURE_SEED: String(seed) }),
};

const vitest = join(repo, "node_modules/vitest/vitest.mjs");
console.log(
  `torture: ${kills} kills, counts ×${scale}${seed === undefined ? "" : `, seed ${seed}`}; figures in ${stats}\n`,
);
const started = Date.now();
const result = spawnSync(process.execPath, [vitest, "run", ...filters], { cwd: repo, env, stdio: "inherit" });
const minutes = ((Date.now() - started) / 60000).toFixed(1);

const rows = existsSync(stats)
  ? readFileSync(stats, "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l))
  : [];
const bySuite = new Map();
for (const { suite, ...figures } of rows) {
  const into = bySuite.get(suite) ?? {};
  for (const [key, value] of Object.entries(figures)) into[key] = (into[key] ?? 0) + value;
  bySuite.set(suite, into);
}

const sum = (key) => [...bySuite.values()].reduce((total, f) => total + (f[key] ?? 0), 0);
const headline = [
  ["kills (SIGKILL landed)", sum("kills")],
  ["  … right before a write/fsync/rename/link/unlink", sum("kills_mid_write")],
  ["  … as the command exited", sum("kills_at_exit")],
  ["corrupt state found (after a kill, fault or race)", sum("corrupt_after_kill") + sum("invalid_after")],
  ["lost updates (acknowledged change missing)", sum("lost_updates")],
  ["stale locks left after the next command", sum("stale_locks_left")],
  ["temp files left after the next command", sum("temp_files_left")],
  ["next command failed after a kill", sum("next_command_failed")],
  ["resume not idempotent", sum("resume_not_idempotent")],
  ["concurrent commands failed", sum("failed")],
  ["two lock holders at once", sum("overlaps")],
  ["takeover rounds without exactly one warning", sum("rounds_without_exactly_one_warning")],
  ["I/O failures surfacing as raw (non-DotagentError) errors", sum("raw_errors")],
  ["CLI commands run", sum("commands")],
];
const width = Math.max(...headline.map(([label]) => label.length));
console.log(`\nTorture figures (${minutes} min, vitest exit ${result.status ?? result.signal})`);
console.log(`${"-".repeat(width + 12)}`);
for (const [label, value] of headline) console.log(`${label.padEnd(width)}  ${String(value).padStart(8)}`);
console.log(`${"-".repeat(width + 12)}\nBy suite:`);
for (const [suite, figures] of [...bySuite].sort(([a], [b]) => a.localeCompare(b))) {
  console.log(
    `  ${suite}: ${Object.entries(figures)
      .map(([k, v]) => `${k}=${v}`)
      .join(" ")}`,
  );
}
rmSync(statsDir, { recursive: true, force: true });
process.exit(result.status ?? 1);
