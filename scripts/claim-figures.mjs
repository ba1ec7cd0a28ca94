// Claim overhead per task (SPEC §23), measured: `node scripts/claim-figures.mjs [--n 30] [--json]`
// bundles src/ops/claims.ts with esbuild, makes a bare remote and one clone in a temp folder
// (local disk, file:// transport: the protocol's own cost, no network), and times N tasks each
// claimed and released by one worker, in one process. Prints the median and 90th percentile in ms
// of claim, renew, release and claim + release. A figure, not a test: it depends on the machine.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";
import { buildSync } from "esbuild";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const nAt = args.indexOf("--n");
const N = nAt >= 0 ? Number(args[nAt + 1]) : 30;
if (!(Number.isInteger(N) && N > 0)) throw new Error("--n takes a whole number of tasks");

const work = mkdtempSync(join(tmpdir(), "dotagent-claim-figures-"));
try {
  const bundle = join(work, "claims.mjs");
  buildSync({
    entryPoints: [join(ROOT, "src/ops/claims.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile: bundle,
    logLevel: "warning",
  });
  const claims = await import(pathToFileURL(bundle).href);
  const git = (cwd, ...a) => {
    const r = spawnSync("git", ["-c", "user.name=f", "-c", "user.email=f@e", ...a], { cwd, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`git ${a.join(" ")}: ${r.stderr}`);
  };
  const remote = join(work, "remote.git");
  const clone = join(work, "clone");
  git(work, "init", "-q", "--bare", remote);
  git(work, "clone", "-q", remote, clone);
  writeFileSync(join(clone, "README.md"), "# figures\n");
  git(clone, "add", "README.md");
  git(clone, "commit", "-qm", "initial");

  const ctx = { remote: { cwd: clone, remote: "origin" }, workflowId: "wf-figures", worker: claims.newWorker() };
  const times = { claim: [], renew: [], release: [], "claim + release": [] };
  const timed = (what, f) => {
    const t = performance.now();
    const out = f();
    times[what].push(performance.now() - t);
    return out;
  };
  // One task first, not counted: git's and the bundle's first-call costs.
  claims.claimTask(ctx, "warm-up");
  for (let i = 0; i < N; i++) {
    const task = `t${i}`;
    const claimed = timed("claim", () => claims.claimTask(ctx, task));
    if (claimed.outcome !== "claimed") throw new Error(`task ${task}: ${claimed.outcome}`);
    if (timed("renew", () => claims.renewClaim(ctx, task)).outcome !== "pushed") throw new Error("renew lost");
    if (timed("release", () => claims.releaseClaim(ctx, task)).outcome !== "pushed") throw new Error("release lost");
    times["claim + release"].push(times.claim.at(-1) + times.release.at(-1));
  }
  const q = (list, p) => {
    const sorted = [...list].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  };
  const rows = Object.entries(times).map(([what, list]) => ({
    what,
    median_ms: Math.round(q(list, 0.5)),
    p90_ms: Math.round(q(list, 0.9)),
  }));
  if (args.includes("--json")) console.log(JSON.stringify({ tasks: N, git: gitVersion(), rows }));
  else {
    console.log(`claim overhead per task: ${N} tasks, a local bare remote (file://), ${gitVersion()}`);
    for (const r of rows) console.log(`  ${r.what.padEnd(16)} median ${r.median_ms} ms   p90 ${r.p90_ms} ms`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

function gitVersion() {
  return spawnSync("git", ["--version"], { encoding: "utf8" }).stdout.trim();
}
