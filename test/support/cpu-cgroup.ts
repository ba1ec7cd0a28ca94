// The CPU each test file costs, load-independent (vitest setupFiles; issue 41): with
// DOTAGENT_TEST_CPU=<a cgroup v1 cpuacct folder> (root, e.g. /sys/fs/cgroup/cpuacct/tests), the
// worker moves itself into a cgroup of its own, named after its test file, before the file's code
// runs. Every process it starts afterwards (the CLI host, the built CLI, git, the real clients and
// their hooks) is counted there too, also when it outlives the test. vitest's forks pool runs each
// file in a fresh worker, so one run gives every file's CPU; `node scripts/test-times.mjs --cpu
// FOLDER` reads them. The src/ unit tests that share workers (vitest.config.ts) move theirs at each
// file's start: a module an earlier file of that worker imported counts for that file alone.
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
