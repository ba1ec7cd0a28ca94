// The CPU each test file costs, load-independent (vitest setupFiles; issue 41): with
// DOTAGENT_TEST_CPU=<a cgroup v1 cpuacct folder> (root, e.g. /sys/fs/cgroup/cpuacct/tests), the
// worker moves itself into a cgroup of its own, named after its test file, before the file's code
// runs. Every process it starts afterwards (the CLI host, the built CLI, git, the real clients and
// their hooks) is counted there too, also when it outlives the test. The files with a worker of
// their own (vitest.config.ts) get exactly their CPU from one run; the files that share workers move
// theirs at each file's start, so a module an earlier file of that worker imported, and the CLI host
// it started (kept for the next files, test/support/cli-host.ts), count for that earlier file: their
// sum, and the run's total, are exact, one file's figure is not. `node scripts/test-times.mjs --cpu
// FOLDER` reads them.
// Unset (always, but when a person measures), this does nothing.
import { mkdirSync, writeFileSync } from "node:fs";
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
}
