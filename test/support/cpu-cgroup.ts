// The CPU each test file costs, load-independent (vitest setupFiles; issue 41): with
// DOTAGENT_TEST_CPU=<a cgroup v1 cpuacct folder> (root, e.g. /sys/fs/cgroup/cpuacct/tests), the
// worker moves itself into a cgroup of its own, named after its test file, before the file's code
// runs. Every process it starts afterwards (the CLI host, the built CLI, git, the real clients and
// their hooks) is counted there too, also when it outlives the test. The files with a worker of
// their own (vitest.config.ts) get exactly their CPU from one run; the files that share workers move
// theirs at each file's start, and the CLI host the worker keeps for its next files
// (test/support/cli-host.ts) with it, so each file's CLI calls count for that file. A module an
// earlier file of that worker imported still counts for that earlier file: their sum, and the run's
// total, are exact; one file's figure is close. `node scripts/test-times.mjs --cpu FOLDER` reads them.
// Unset (always, but when a person measures), this does nothing.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

const root = process.env.DOTAGENT_TEST_CPU;
const file = expect.getState().testPath;
if (root && file) {
  const group = join(root, relative(REPO, file).replaceAll("/", "__"));
  mkdirSync(group, { recursive: true });
  writeFileSync(join(group, "cgroup.procs"), String(process.pid));
  for (const pid of hostsOf(process.pid)) writeFileSync(join(group, "cgroup.procs"), String(pid));
}

/** The CLI host processes `parent` started (a child stays in the cgroup it was started in). */
function hostsOf(parent: number): number[] {
  const hosts: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === parent && readFileSync(`/proc/${entry}/cmdline`, "latin1").includes("cli-host-process.mjs"))
        hosts.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return hosts;
}
