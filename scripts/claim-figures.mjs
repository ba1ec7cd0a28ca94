// Claim overhead per task (SPEC §23), measured: `node scripts/claim-figures.mjs [--n 30] [--json]
// [--listed]` bundles src/ops/claims.ts with esbuild, makes a bare remote and one clone in a temp
// folder (local disk, file:// transport: the protocol's own cost, no network), and times N tasks
// each claimed, renewed and released by one worker, in one process, as the runner does: the claim
// from the claims its take-in read, the renewal and release against the claim last pushed.
// `--listed`: each operation lists its ref first (the protocol before that change), for the
// before/after figure. Prints the median and 90th percentile in ms, and the git network calls
// (upload-pack and receive-pack runs, counted by wrappers), of claim, renew, release and claim +
// release. A figure, not a test: it depends on the machine.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";
import { buildSync } from "esbuild";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const nAt = args.indexOf("--n");
const N = nAt >= 0 ? Number(args[nAt + 1]) : 30;
const LISTED = args.includes("--listed");
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

  // Each network call git makes runs upload-pack or receive-pack on the remote: counted.
  const count = join(work, "calls");
  for (const [key, program] of [
    ["uploadpack", "git-upload-pack"],
    ["receivepack", "git-receive-pack"],
  ]) {
    const wrapper = join(work, `${program}.sh`);
    writeFileSync(wrapper, `#!/bin/sh\necho . >> '${count}'\nexec ${program} "$@"\n`, { mode: 0o755 });
    git(clone, "config", `remote.origin.${key}`, wrapper);
  }
  const calls = () => (existsSync(count) ? readFileSync(count, "utf8").split("\n").length - 1 : 0);
  const ctx = { remote: { cwd: clone, remote: "origin" }, workflowId: "wf-figures", worker: claims.newWorker() };
  const times = { claim: [], renew: [], release: [], "claim + release": [] };
  const counts = { claim: [], renew: [], release: [], "claim + release": [] };
  const timed = (what, f) => {
    const c = calls();
    const t = performance.now();
    const out = f();
    times[what].push(performance.now() - t);
    counts[what].push(calls() - c);
    return out;
  };
  // One task first, not counted: git's and the bundle's first-call costs.
  claims.claimTask(ctx, "warm-up");
  for (let i = 0; i < N; i++) {
    const task = `t${i}`;
    // The runner's take-in has just read the workflow's claims: this task has none yet (null).
    const claimed = timed("claim", () => claims.claimTask(ctx, task, LISTED ? undefined : null));
    if (claimed.outcome !== "claimed") throw new Error(`task ${task}: ${claimed.outcome}`);
    const held = LISTED ? undefined : { sha: claimed.sha, claim: claimed.claim };
    const renewed = timed("renew", () => claims.renewClaim(ctx, task, held));
    if (renewed.outcome !== "pushed") throw new Error("renew lost");
    const last = LISTED ? undefined : { sha: renewed.sha, claim: renewed.claim };
    if (timed("release", () => claims.releaseClaim(ctx, task, last)).outcome !== "pushed")
      throw new Error("release lost");
    times["claim + release"].push(times.claim.at(-1) + times.release.at(-1));
    counts["claim + release"].push(counts.claim.at(-1) + counts.release.at(-1));
  }
  const q = (list, p) => {
    const sorted = [...list].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  };
  const rows = Object.entries(times).map(([what, list]) => ({
    what,
    median_ms: Math.round(q(list, 0.5)),
    p90_ms: Math.round(q(list, 0.9)),
    network_calls: q(counts[what], 0.5),
  }));
  if (args.includes("--json")) console.log(JSON.stringify({ tasks: N, listed: LISTED, git: gitVersion(), rows }));
  else {
    console.log(
      `claim overhead per task: ${N} tasks, a local bare remote (file://), ${gitVersion()}${LISTED ? ", each operation listing its ref first (--listed)" : ""}`,
    );
    for (const r of rows)
      console.log(
        `  ${r.what.padEnd(16)} median ${r.median_ms} ms   p90 ${r.p90_ms} ms   ${r.network_calls} network calls`,
      );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

function gitVersion() {
  return spawnSync("git", ["--version"], { encoding: "utf8" }).stdout.trim();
}
