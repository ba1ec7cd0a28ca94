// Claims through the git remote (SPEC §23) against real git: a bare remote and clones in a temp
// folder. Races run as spawned processes (test/support/claim-worker.ts), leases move on an injected
// clock (never a sleep), faults come from wrapper scripts git runs in place of receive-pack and
// upload-pack.
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLAIM_LEASE_MS, CLAIM_SKEW_MS, MAX_CLAIM_BYTES, type ClaimWorker } from "../src/core/claims.js";
import { DotagentError } from "../src/core/errors.js";
import { claimTask, finishClaim, releaseClaim, renewClaim, type ClaimContext } from "../src/ops/claims.js";
import { fetchClaims } from "../src/store/remote-claims.js";
import { bundleClaimWorker } from "./support/claim-bundle.js";

let work: string;
let workerScript: string;
let caseNo = 0;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "dotagent-claims-"));
  workerScript = bundleClaimWorker(work);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function sh(cwd: string, ...args: string[]): string {
  const run = spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@e", ...args], { cwd, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr}`);
  return run.stdout.trim();
}

/**
 * The most clones a case takes: the template (a bare remote, each clone with a commit of its own)
 * is made once per file with git and copied for each case (a cluster made afresh is about five git
 * processes a clone; issue 41).
 */
const TEMPLATE_CLONES = 4;
let template: string | undefined;

/** A bare remote and `n` clones of it (each a machine), copied from the file's template. */
function cluster(n: number): { dir: string; remote: string; clones: string[] } {
  expect(n).toBeLessThanOrEqual(TEMPLATE_CLONES);
  template ??= makeCluster(join(work, "template"), TEMPLATE_CLONES);
  const dir = join(work, `case-${++caseNo}`);
  mkdirSync(dir);
  const remote = join(dir, "remote.git");
  cpSync(join(template, "remote.git"), remote, { recursive: true, verbatimSymlinks: true });
  const clones = Array.from({ length: n }, (_, i) => {
    const clone = join(dir, `clone-${i}`);
    cpSync(join(template!, `clone-${i}`), clone, { recursive: true, verbatimSymlinks: true });
    // The one place a clone names its remote: origin's url, pointed at this case's remote.
    const config = join(clone, ".git/config");
    const text = readFileSync(config, "utf8");
    const url = `\turl = ${join(template!, "remote.git")}\n`;
    expect(text).toContain(url);
    writeFileSync(config, text.replace(url, `\turl = ${remote}\n`));
    return clone;
  });
  return { dir, remote, clones };
}

function makeCluster(dir: string, n: number): string {
  const remote = join(dir, "remote.git");
  sh(work, "init", "-q", "--bare", remote);
  // No `git gc --auto` after each push (a process each; far below its thresholds here, it does nothing).
  sh(remote, "config", "receive.autogc", "false");
  for (let i = 0; i < n; i++) {
    const clone = join(dir, `clone-${i}`);
    sh(dir, "clone", "-q", remote, clone);
    writeFileSync(join(clone, "README.md"), "# app\n");
    sh(clone, "add", "README.md");
    sh(clone, "commit", "-qm", "initial");
  }
  return dir;
}

const worker = (n: number): ClaimWorker => ({ id: String(n).repeat(16).slice(0, 16), host: `host-${n}`, pid: 100 + n });
const T0 = Date.parse("2026-11-30T07:00:00.000Z");
const ctxOf = (clone: string, w: ClaimWorker, ms: number, extra: Partial<ClaimContext> = {}): ClaimContext => ({
  remote: { cwd: clone, remote: "origin" },
  workflowId: "wf",
  worker: w,
  now: () => new Date(T0 + ms),
  ...extra,
});

function remoteClaim(remote: string, task: string): any {
  const run = spawnSync("git", ["show", `refs/dotagent/claims/wf/${task}:claim.json`], {
    cwd: remote,
    encoding: "utf8",
  });
  return run.status === 0 ? JSON.parse(run.stdout) : undefined;
}

interface WorkerAnswer {
  code: number | null;
  signal: string | null;
  answer: any;
}

/** Starts the bundled worker as a process of its own (its own process group, so a kill takes its git too). */
function startWorker(ask: Record<string, unknown>) {
  const child = spawn(process.execPath, [workerScript, JSON.stringify(ask)], {
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const done = new Promise<WorkerAnswer>((resolve) =>
    child.on("close", (code, signal) => {
      let answer: any;
      try {
        answer = JSON.parse(out);
      } catch {
        answer = { raw: out, stderr: err };
      }
      resolve({ code, signal, answer });
    }),
  );
  return { child, done };
}

/**
 * Rounds of each race: 1 in the suite (each round spawns every worker; CI's time is bounded,
 * issue 41), CLAIM_RACE_ROUNDS=20 or more by hand (`npm run torture:claims`).
 */
const RACE_ROUNDS = Number(process.env.CLAIM_RACE_ROUNDS ?? 1);
/** Kills across a claim's git work: 2 in the suite, CLAIM_KILLS=50 or more by hand. */
const KILLS = Number(process.env.CLAIM_KILLS ?? 2);

describe("two and four processes racing for one task: exactly one wins, every time", () => {
  it.each([2, 4])(`%i workers, ${RACE_ROUNDS} round${RACE_ROUNDS === 1 ? "" : "s"}`, async (n) => {
    const { dir, remote, clones } = cluster(n);
    for (let round = 0; round < RACE_ROUNDS; round++) {
      const go = join(dir, `go-${round}`);
      const racers = clones.map((clone) =>
        startWorker({ op: "claim", cwd: clone, remote: "origin", workflowId: "wf", taskId: `t${round}`, go }),
      );
      writeFileSync(go, "");
      const answers = await Promise.all(racers.map((r) => r.done));
      for (const a of answers) expect(a.code, JSON.stringify(a.answer)).toBe(0);
      const winners = answers.filter((a) => a.answer.outcome === "claimed");
      expect(winners).toHaveLength(1);
      const winner = winners[0]!.answer.worker.id;
      for (const a of answers.filter((x) => x !== winners[0]))
        expect(a.answer).toMatchObject({ outcome: "waiting", holder: { id: winner } });
      expect(remoteClaim(remote, `t${round}`)).toMatchObject({ state: "held", attempt: 1, worker: { id: winner } });
    }
  });
});

describe("the lease: renewed, lapsed, taken over, noticed before landing", () => {
  it("renew keeps it; a lapsed lease is taken over; the first worker notices before landing and gives it back", () => {
    const { remote, clones } = cluster(3);
    const [a, b, c] = [worker(1), worker(2), worker(3)];
    expect(claimTask(ctxOf(clones[0]!, a, 0), "t1")).toMatchObject({ outcome: "claimed", claim: { attempt: 1 } });
    // A renews at 2 min: its lease now ends at 7 min.
    expect(renewClaim(ctxOf(clones[0]!, a, 2 * 60_000), "t1")).toMatchObject({ outcome: "pushed" });
    // B at 6 min and at 7 min + skew: still A's (past the first lease, inside the renewed one).
    const renewedEnd = 2 * 60_000 + CLAIM_LEASE_MS;
    expect(claimTask(ctxOf(clones[1]!, b, 6 * 60_000), "t1")).toMatchObject({ outcome: "waiting", holder: a });
    expect(claimTask(ctxOf(clones[1]!, b, renewedEnd + CLAIM_SKEW_MS), "t1")).toMatchObject({ outcome: "waiting" });
    // A stops renewing (its machine slept): B takes over 1 ms later, attempt 2.
    expect(claimTask(ctxOf(clones[1]!, b, renewedEnd + CLAIM_SKEW_MS + 1), "t1")).toMatchObject({
      outcome: "claimed",
      took_over: a,
      claim: { attempt: 2, worker: b },
    });
    // A wakes and renews before landing: lost, with who has it now; nothing pushed.
    const before = sh(remote, "rev-parse", "refs/dotagent/claims/wf/t1");
    const lost = renewClaim(ctxOf(clones[0]!, a, renewedEnd + 2 * CLAIM_SKEW_MS), "t1");
    expect(lost).toEqual({
      outcome: "lost",
      why: `its claim was taken over by worker ${b.id} (host host-2, pid 102) at ${new Date(renewedEnd + CLAIM_SKEW_MS + 1 + T0).toISOString()}`,
    });
    expect(releaseClaim(ctxOf(clones[0]!, a, renewedEnd + 2 * CLAIM_SKEW_MS), "t1")).toMatchObject({ outcome: "lost" });
    expect(finishClaim(ctxOf(clones[0]!, a, renewedEnd + 2 * CLAIM_SKEW_MS), "t1")).toMatchObject({ outcome: "lost" });
    expect(sh(remote, "rev-parse", "refs/dotagent/claims/wf/t1")).toBe(before);
    // B lands: done. Nobody claims it again, however late.
    expect(finishClaim(ctxOf(clones[1]!, b, renewedEnd + 3 * CLAIM_SKEW_MS), "t1")).toMatchObject({
      outcome: "pushed",
    });
    expect(claimTask(ctxOf(clones[2]!, c, 100 * CLAIM_LEASE_MS), "t1")).toEqual({ outcome: "done", by: b });
    expect(remoteClaim(remote, "t1")).toMatchObject({ state: "done", attempt: 2, expires_at: null });
    // The ref's history is the claim's log, every push a fast-forward.
    expect(sh(remote, "log", "--format=%s", "refs/dotagent/claims/wf/t1").split("\n")).toEqual([
      `dotagent claim wf/t1: done by ${b.id}`,
      `dotagent claim wf/t1: held by ${b.id}`,
      `dotagent claim wf/t1: held by ${a.id}`,
      `dotagent claim wf/t1: held by ${a.id}`,
    ]);
  });

  it("a lease that lapsed while nobody took it over is renewed without loss", () => {
    const { clones } = cluster(1);
    const a = worker(1);
    claimTask(ctxOf(clones[0]!, a, 0), "t1");
    expect(renewClaim(ctxOf(clones[0]!, a, 10 * CLAIM_LEASE_MS), "t1")).toMatchObject({
      outcome: "pushed",
      claim: { state: "held", attempt: 1 },
    });
  });

  it("a released task is claimed by the next worker, its attempt counted", () => {
    const { clones } = cluster(2);
    claimTask(ctxOf(clones[0]!, worker(1), 0), "t1");
    expect(releaseClaim(ctxOf(clones[0]!, worker(1), 1000), "t1")).toMatchObject({ outcome: "pushed" });
    expect(claimTask(ctxOf(clones[1]!, worker(2), 2000), "t1")).toMatchObject({
      outcome: "claimed",
      claim: { attempt: 2, worker: worker(2) },
    });
    expect(claimTask(ctxOf(clones[0]!, worker(1), 3000), "t1")).toMatchObject({ outcome: "waiting" });
  });
});

/** A script git runs in place of receive-pack or upload-pack (`remote.origin.receivepack`). */
function wrapper(dir: string, name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

async function waitFor(file: string): Promise<void> {
  while (!existsSync(file)) await new Promise((r) => setTimeout(r, 5));
}

describe("kill -9 of a claiming process leaves the claim there or not there, never broken", () => {
  it.each([
    ["before receive-pack starts its work", "touch '{M}'; sleep 30", false],
    ["after the remote updated the ref, before the answer", "git-receive-pack \"$@\"; touch '{M}'; sleep 30", true],
  ])("killed %s: the next claim works", async (_name, body, landed) => {
    const { dir, remote, clones } = cluster(2);
    const marker = join(dir, "pushing");
    const script = wrapper(dir, "rp.sh", body.replace("{M}", marker));
    sh(clones[0]!, "config", "remote.origin.receivepack", script);
    const w1 = worker(1);
    const ask = { op: "claim", cwd: clones[0], remote: "origin", workflowId: "wf", taskId: "t1", worker: w1 };
    const run = startWorker({ ...ask, now: new Date(T0).toISOString() });
    await waitFor(marker);
    process.kill(-run.child.pid!, "SIGKILL");
    expect((await run.done).signal).toBe("SIGKILL");
    expect(spawnSync("git", ["fsck", "--no-dangling"], { cwd: remote }).status).toBe(0);
    expect(remoteClaim(remote, "t1")?.worker.id).toBe(landed ? w1.id : undefined);
    sh(clones[0]!, "config", "--unset", "remote.origin.receivepack");
    // The same worker (its push's answer lost) finds the claim its own; another waits, then takes over.
    if (landed) {
      expect(claimTask(ctxOf(clones[0]!, w1, 1000), "t1")).toMatchObject({ outcome: "held" });
      expect(claimTask(ctxOf(clones[1]!, worker(2), 1000), "t1")).toMatchObject({ outcome: "waiting" });
    }
    expect(claimTask(ctxOf(clones[1]!, worker(2), 2 * CLAIM_LEASE_MS), "t1")).toMatchObject({ outcome: "claimed" });
  });

  it(`killed at ${KILLS} random points of its git work: never a broken ref, the next claim works`, async () => {
    const { dir, remote, clones } = cluster(2);
    let seed = 45;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    /** A worker loaded and waiting at its `go` file; `go()` lets it start and returns when. */
    const ready = async (task: string) => {
      const go = join(dir, `go-${task}`);
      const run = startWorker({ op: "claim", cwd: clones[0], remote: "origin", workflowId: "wf", taskId: task, go });
      await waitFor(`${go}.ready-${run.child.pid}`);
      return { run, go: () => (writeFileSync(go, ""), performance.now()) };
    };
    // How long one claim's git work takes here and now: the kills fall across it.
    const probe = await ready("probe");
    const started = probe.go();
    await probe.run.done;
    const life = performance.now() - started;
    const left: boolean[] = [];
    const finished: boolean[] = [];
    for (let round = 0; round < KILLS; round++) {
      const task = `t${round}`;
      const { run, go } = await ready(task);
      go();
      await new Promise((r) => setTimeout(r, Math.floor(random() * life * 1.5)));
      try {
        process.kill(-run.child.pid!, "SIGKILL");
      } catch {
        // It had ended already.
      }
      const end = await run.done;
      finished.push(end.signal === null);
      expect(spawnSync("git", ["fsck", "--no-dangling"], { cwd: remote }).status).toBe(0);
      const claim = remoteClaim(remote, task);
      left.push(claim !== undefined);
      const seen = fetchClaims({ cwd: clones[1]!, remote: "origin" }, "wf").get(task);
      expect(seen === undefined || !("invalid" in seen)).toBe(true);
      expect(claimTask(ctxOf(clones[1]!, worker(2), Date.now() - T0 + 2 * CLAIM_LEASE_MS), task)).toMatchObject({
        outcome: "claimed",
      });
    }
    // The clone whose workers were killed still claims: a killed read left no lock behind.
    expect(claimTask(ctxOf(clones[0]!, worker(3), 0), "after")).toMatchObject({ outcome: "claimed" });
    // Where the kills fell is up to the machine; what each left was checked above.
    console.log(
      `kill -9 across a claim's git work (${Math.round(life)} ms): ${finished.filter(Boolean).length} of ${KILLS} ended first, ` +
        `${left.filter(Boolean).length} left their claim on the remote`,
    );
  });
});

function caught(f: () => unknown): DotagentError {
  try {
    f();
  } catch (error) {
    if (error instanceof DotagentError) return error;
    throw error;
  }
  throw new Error("expected a DotagentError");
}

describe("a failing or slow remote: one clear line, nothing local lost", () => {
  function localState(clone: string): string {
    return [sh(clone, "rev-parse", "HEAD"), sh(clone, "status", "--porcelain"), sh(clone, "for-each-ref")].join("\n");
  }

  it.each([
    [
      "a remote folder that is gone",
      (dir: string, clone: string) => sh(clone, "remote", "set-url", "origin", join(dir, "gone.git")),
      /does not appear to be a git repository|not a git repository/,
    ],
    [
      "a remote that fails",
      (dir: string, clone: string) =>
        sh(
          clone,
          "config",
          "remote.origin.uploadpack",
          wrapper(dir, "up.sh", "echo 'fatal: the host is down' >&2; exit 1"),
        ),
      /the host is down|hung up/,
    ],
    [
      "a remote that does not answer (a time-out of 1 s)",
      (dir: string, clone: string) =>
        sh(
          clone,
          "config",
          "remote.origin.uploadpack",
          wrapper(dir, "up.sh", "exec sleep 30 </dev/null >/dev/null 2>&1"),
        ),
      /gave no answer within 1 s/,
    ],
  ])("%s", (_name, breakIt, why) => {
    const { dir, clones } = cluster(1);
    const clone = clones[0]!;
    claimTask(ctxOf(clone, worker(1), 0), "t0");
    breakIt(dir, clone);
    const before = localState(clone);
    const error = caught(() =>
      claimTask(ctxOf(clone, worker(1), 0, { remote: { cwd: clone, remote: "origin", timeoutMs: 1000 } }), "t1"),
    );
    expect(error.code).toBe("remote_failed");
    expect(error.message).not.toContain("\n");
    expect(error.message).toMatch(/^the git remote origin failed \(git ls-remote\): /);
    expect(error.message).toMatch(why);
    expect(localState(clone)).toBe(before);
  });

  it("a remote whose hook declines the claim (a protected ref): remote_failed naming the refusal, not a lost race", () => {
    const { remote, clones } = cluster(1);
    wrapper(join(remote, "hooks"), "pre-receive", "echo 'refs/dotagent is protected' >&2; exit 1");
    const error = caught(() => claimTask(ctxOf(clones[0]!, worker(1), 0), "t1"));
    expect(error.code).toBe("remote_failed");
    expect(error.message).toMatch(
      /^the git remote origin refused the claim of task t1 \(.*declined.*\) while nobody else changed it/,
    );
    expect(error.message).not.toContain("\n");
    expect(remoteClaim(remote, "t1")).toBeUndefined();
  });

  it("a remote that refuses forced pushes takes every claim change: each is a fast-forward", () => {
    const { remote, clones } = cluster(2);
    sh(remote, "config", "receive.denyNonFastForwards", "true");
    sh(remote, "config", "receive.denyDeletes", "true");
    claimTask(ctxOf(clones[0]!, worker(1), 0), "t1");
    expect(renewClaim(ctxOf(clones[0]!, worker(1), 1000), "t1")).toMatchObject({ outcome: "pushed" });
    expect(claimTask(ctxOf(clones[1]!, worker(2), 10 * CLAIM_LEASE_MS), "t1")).toMatchObject({ outcome: "claimed" });
    expect(finishClaim(ctxOf(clones[1]!, worker(2), 10 * CLAIM_LEASE_MS), "t1")).toMatchObject({ outcome: "pushed" });
    expect(remoteClaim(remote, "t1")).toMatchObject({ state: "done", attempt: 2 });
  });

  it("a remote whose receive-pack fails before any answer: remote_failed, one line", () => {
    const { dir, clones } = cluster(1);
    const clone = clones[0]!;
    sh(clone, "config", "remote.origin.receivepack", wrapper(dir, "rp.sh", "echo 'fatal: refusing' >&2; exit 1"));
    const error = caught(() => claimTask(ctxOf(clone, worker(1), 0), "t1"));
    expect(error.code).toBe("remote_failed");
    expect(error.message).not.toContain("\n");
  });
});

describe("hostile claims on the remote are refused with one line, never taken over", () => {
  /** Writes a claim ref straight into the bare remote, as a person with push rights could. */
  function plant(remote: string, task: string, tree: string | { blob: string }): void {
    const plumb = (args: string[], input?: string) => {
      const run = spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@e", ...args], {
        cwd: remote,
        encoding: "utf8",
        ...(input !== undefined ? { input } : {}),
      });
      if (run.status !== 0) throw new Error(run.stderr);
      return run.stdout.trim();
    };
    const target =
      typeof tree === "string"
        ? plumb(["commit-tree", plumb(["mktree"], tree), "-m", "x"])
        : plumb(["hash-object", "-w", "--stdin"], tree.blob);
    plumb(["update-ref", `refs/dotagent/claims/wf/${task}`, target]);
  }
  const blob = (remote: string, text: string) =>
    spawnSync("git", ["hash-object", "-w", "--stdin"], { cwd: remote, input: text, encoding: "utf8" }).stdout.trim();
  const good = {
    format: 1,
    workflow_id: "wf",
    task_id: "t1",
    state: "held",
    worker: { id: "cccccccccccccccc", host: "x", pid: 1 },
    claimed_at: "2026-11-30T07:00:00Z",
    renewed_at: "2026-11-30T07:00:00Z",
    expires_at: "2026-11-30T07:05:00Z",
    attempt: 1,
  };
  const goodFor = (task: string) => ({ ...good, task_id: task });
  let hostile: ReturnType<typeof cluster> | undefined;
  let hostileNo = 0;
  /** Each case's task and the reason its read gave. */
  const hostileWhy = new Map<string, string>();
  const file = (remote: string, json: unknown) =>
    `100644 blob ${blob(remote, typeof json === "string" ? json : JSON.stringify(json))}\tclaim.json\n`;

  it.each([
    [
      "huge",
      (r: string, t: string) => file(r, JSON.stringify({ ...goodFor(t), pad: "x".repeat(1 << 20) })),
      `is ${(1 << 20) + JSON.stringify(good).length + 9} bytes, at most ${MAX_CLAIM_BYTES}`,
    ],
    [
      "wrong types",
      (r: string, t: string) => file(r, { ...goodFor(t), attempt: "one", worker: { ...goodFor(t).worker, pid: "1" } }),
      "worker.pid: expected number, got string",
    ],
    ["not JSON", (r: string, _t: string) => file(r, '{"format":1,'), "claim.json is not valid JSON"],
    [
      "a terminal escape in the host",
      (r: string, t: string) => file(r, { ...goodFor(t), worker: { ...goodFor(t).worker, host: "x\u001b[2Jy\nz" } }),
      "printable characters only",
    ],
    [
      "another task's claim copied here",
      (r: string, t: string) => file(r, { ...goodFor(t), task_id: "t2" }),
      "names wf/t2, not its own ref",
    ],
    [
      "a path: claim.json a symlink",
      (r: string, _t: string) => `120000 blob ${blob(r, "/etc/passwd")}\tclaim.json\n`,
      "not exactly one regular file claim.json",
    ],
    [
      "a path: a folder beside it",
      (r: string, t: string) =>
        `${file(r, goodFor(t))}040000 tree ${spawnSync("git", ["mktree"], { cwd: r, input: "", encoding: "utf8" }).stdout.trim()}\tetc\n`,
      "not exactly one regular file claim.json",
    ],
    [
      "not a commit",
      (_r: string, t: string) => ({ blob: JSON.stringify(goodFor(t)) }),
      "points at a blob, not a commit",
    ],
  ] as const)("%s", (name, make, why) => {
    // One remote and clone for every case (a cluster is a dozen git processes): each case plants
    // its own task's ref, `h<n>`, and claims its own next one, `h<n>-next`.
    hostile ??= cluster(1);
    const { remote, clones } = hostile;
    const task = `h${++hostileNo}`;
    plant(remote, task, make(remote, task));
    const ref = `refs/dotagent/claims/wf/${task}`;
    const before = sh(remote, "rev-parse", ref);
    const error = caught(() => claimTask(ctxOf(clones[0]!, worker(1), 100 * CLAIM_LEASE_MS), task));
    expect(error.code, name).toBe("claim_invalid");
    expect(error.exitCode).toBe(3);
    expect(error.message).not.toMatch(/[\n\u001b]/);
    expect(error.message.length).toBeLessThan(500);
    expect(error.message).toContain(why);
    hostileWhy.set(task, why);
    expect(error.message).toContain(`git push origin --delete ${ref}`);
    expect(sh(remote, "rev-parse", ref)).toBe(before);
    // Another task of the same workflow is still claimed as usual.
    expect(claimTask(ctxOf(clones[0]!, worker(1), 0), `${task}-next`)).toMatchObject({ outcome: "claimed" });
  });

  it("the workflow's claims read together (a take-in's read, three git calls): each hostile ref invalid for the reason its read alone gave, the good claims beside them read", (ctx) => {
    // The refs the cases above planted (each hostile one, and the good claims beside them).
    if (hostile === undefined || hostileWhy.size !== hostileNo) return ctx.skip();
    const { clones } = hostile;
    const r = { cwd: clones[0]!, remote: "origin" };
    const all = fetchClaims(r, "wf");
    expect(all.size).toBe(2 * hostileNo);
    for (const [task, why] of hostileWhy) {
      expect((all.get(task) as { invalid?: string }).invalid, task).toContain(why);
      expect(all.get(`${task}-next`), task).toMatchObject({ claim: { state: "held", worker: worker(1) } });
    }
  });

  it("refs under the workflow whose name is not a task id are left alone", () => {
    const { remote, clones } = cluster(1);
    plant(remote, "sub/t1", file(remote, good));
    expect([...fetchClaims({ cwd: clones[0]!, remote: "origin" }, "wf").keys()]).toEqual([]);
  });
});
