// Every test worker's own machine-local folders (vitest setupFiles): dotagent's state home (the
// checkouts' keys, src/store/checkout-key.ts) and Claude Code's config folder (where the tests
// write the transcripts that confirm a typed prompt). Children inherit process.env, so the built
// CLI and its hooks write there, never into the home of the user running the tests.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { runFileEnd } from "./file-end.js";

// A file whose tests are all skipped never reaches its afterAll, and a worker is stopped without
// an exit event: such a folder is removed by the next file that starts, once its worker is gone
// (the worker's pid is in the name).
const worker = (name: string) => /^dotagent-test-env-(\d+)-/.exec(name)?.[1];
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
};
for (const name of readdirSync(tmpdir())) {
  const pid = worker(name);
  if (pid !== undefined && !alive(Number(pid))) rmSync(join(tmpdir(), name), { recursive: true, force: true });
}
const dir = mkdtempSync(join(tmpdir(), `dotagent-test-env-${process.pid}-`));
process.env.DOTAGENT_STATE_HOME = join(dir, "state");
process.env.CLAUDE_CONFIG_DIR = join(dir, "claude");
// The other clients' homes a test gives its hooks (COPILOT_HOME, CODEX_HOME): per project, in here.
process.env.DOTAGENT_TEST_HOMES = join(dir, "homes");
// Node reads NODE_EXTRA_CA_CERTS's bundle at every start (35-40 ms on a 2-core machine whose image
// sets it, a third of a bare `node -e 0`). The tests start tens of thousands of Node processes and
// none speaks TLS (the models are local http), so workers and their children go without it; the
// npm install that fetches a client's binary gets it back (scripts/fetch-npm-binary.mjs).
if (process.env.NODE_EXTRA_CA_CERTS) {
  process.env.DOTAGENT_NODE_EXTRA_CA_CERTS = process.env.NODE_EXTRA_CA_CERTS;
  delete process.env.NODE_EXTRA_CA_CERTS;
}
// The built CLI's code cache (SPEC §13): one folder for every test file's processes, not one per
// state folder above, so a command's blob is made once per run rather than once per file.
process.env.DOTAGENT_CODE_CACHE = join(tmpdir(), "dotagent-test-code-cache");
// The support modules' own clean-ups (file-end.ts), then this file's folders.
afterAll(async () => {
  await runFileEnd();
  rmSync(dir, { recursive: true, force: true });
});
