// Where `npm test`'s time goes, from a vitest JSON report: wall time, the time of the test files
// summed, and the slowest files. The figures docs/evidence.md gives for the test suite come from
// this script.
//
//   npx vitest run --reporter=json --outputFile=/tmp/vitest.json   (or npm test -- --reporter=…)
//   node scripts/test-times.mjs /tmp/vitest.json [--top N] [--json]
//
// Wall time depends on the machine's load; CPU does not. The CPU each file cost, its child
// processes included (test/support/cpu-cgroup.ts, a cgroup v1 cpuacct folder per file, as root):
//
//   mkdir /sys/fs/cgroup/cpuacct/tests && echo $$ > /sys/fs/cgroup/cpuacct/tests/cgroup.procs
//   DOTAGENT_TEST_CPU=/sys/fs/cgroup/cpuacct/tests npm test
//   node scripts/test-times.mjs --cpu /sys/fs/cgroup/cpuacct/tests [--top N] [--json]
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));

/** Per-file durations and totals of a vitest JSON report. */
export function testTimes(report) {
  const files = report.testResults.map((f) => ({
    file: relative(ROOT, f.name),
    ms: Math.max(0, (f.endTime ?? 0) - (f.startTime ?? 0)),
    tests: f.assertionResults.length,
    failed: f.assertionResults.filter((t) => t.status === "failed").length,
    skipped: f.assertionResults.filter((t) => t.status === "pending" || t.status === "skipped").length,
  }));
  const start = Math.min(...report.testResults.map((f) => f.startTime ?? Infinity), report.startTime ?? Infinity);
  const end = Math.max(...report.testResults.map((f) => f.endTime ?? 0));
  const summed = files.reduce((sum, f) => sum + f.ms, 0);
  return {
    wall_ms: end - start,
    summed_ms: summed,
    files: files.sort((a, b) => b.ms - a.ms),
    tests: report.numTotalTests,
    failed: report.numFailedTests,
    passed: report.success === true,
  };
}

/** CPU seconds per test file from test/support/cpu-cgroup.ts's folders, and the whole run's (the folder's own, which holds vitest too). */
export function cpuTimes(folder) {
  const seconds = (dir) => Number(readFileSync(join(dir, "cpuacct.usage"), "utf8")) / 1e9;
  const files = readdirSync(folder, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(folder, e.name, "cpuacct.usage")))
    .map((e) => ({ file: e.name.replaceAll("__", "/"), s: seconds(join(folder, e.name)) }))
    .sort((a, b) => b.s - a.s);
  return { total_s: seconds(folder), files_s: files.reduce((sum, f) => sum + f.s, 0), files };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const cpu = args.indexOf("--cpu");
  if (cpu >= 0) {
    const times = cpuTimes(args[cpu + 1]);
    const top = Number(args[args.indexOf("--top") + 1]) || 15;
    if (args.includes("--json")) console.log(JSON.stringify(times));
    else {
      console.log(
        `CPU ${times.total_s.toFixed(1)} s in all; ${times.files.length} test files ${times.files_s.toFixed(1)} s (node scripts/test-times.mjs --cpu)`,
      );
      for (const f of times.files.slice(0, top)) console.log(`  ${f.s.toFixed(1).padStart(7)} s  ${f.file}`);
    }
    process.exit(0);
  }
  const file = args.find((a) => !a.startsWith("--") && !/^\d+$/.test(a));
  if (file === undefined) {
    process.stderr.write("usage: node scripts/test-times.mjs REPORT.json [--top N] [--json]\n");
    process.exit(2);
  }
  const top = Number(args[args.indexOf("--top") + 1]) || 15;
  const times = testTimes(JSON.parse(readFileSync(file, "utf8")));
  if (args.includes("--json")) {
    console.log(JSON.stringify(times));
  } else {
    const s = (ms) => `${(ms / 1000).toFixed(1)} s`;
    console.log(
      `${times.files.length} test files, ${times.tests} tests${times.failed ? `, ${times.failed} failed` : ""} (node scripts/test-times.mjs)`,
    );
    console.log(
      `wall ${s(times.wall_ms)}; test files summed ${s(times.summed_ms)} (${(times.summed_ms / times.wall_ms).toFixed(2)} files at a time on average)`,
    );
    for (const f of times.files.slice(0, top))
      console.log(
        `  ${s(f.ms).padStart(8)}  ${f.file}  (${f.tests} tests${f.skipped ? `, ${f.skipped} skipped` : ""})`,
      );
  }
}
