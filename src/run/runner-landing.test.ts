// Landing through the git remote (SPEC §23 "Landing through the remote", "Taking in others'
// landings") against real git: a bare remote and clones of a project whose workflow waits at its
// design pick, each clone a machine running `dotagent run --claims` with the stand-in SDK, whose
// executors write a file in their worktree (so each landing is a merge commit). No sleeps, no
// timers: the renewal timer is injected, the runs overlap by promises.
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { workflowAt } from "../api/workflow.js";
import { CLAIM_LEASE_MS, CLAIM_SKEW_MS } from "../core/claims.js";
import { claimTask, releaseClaim, type ClaimContext } from "../ops/claims.js";
import {
  deferred,
  executorsOf,
  held,
  noTimer,
  planWriter,
  seedAtDesignPick,
  sh,
  worker,
  type Seed,
} from "./claims-cluster.test-support.js";
import { person, type Harness, type Writer } from "./stand-in-sdk.test-support.js";
import { runWorkflow, type RunOptions, type RunOutcome } from "./runner.js";

let seed: Seed;
afterAll(() => rmSync(seed.work, { recursive: true, force: true }));

/** Four tasks, t3 after t1 and t4 after t2: a task landed elsewhere makes its dependant ready here. */
const PLAN = [
  { id: "t1", title: "t1", depends_on: [] },
  { id: "t2", title: "t2", depends_on: [] },
  { id: "t3", title: "t3", depends_on: ["t1"] },
  { id: "t4", title: "t4", depends_on: ["t2"] },
];
const TASKS = PLAN.map((t) => t.id);

const fourTasks = planWriter(PLAN);

/** A bare remote holding a project whose workflow waits at its design pick (requirements approved, designs written). */
beforeAll(async () => {
  seed = await seedAtDesignPick("dotagent-run-landing-", fourTasks);
});

/** A copy of the seed's remote and `n` clones of it (each a machine), the stand-in SDK writing `writer`'s reports. */
const cluster = (n: number, writer: Writer = fourTasks) => seed.cluster(n, writer);

const claimOf = (remote: string, workflowId: string, task: string): any =>
  JSON.parse(sh(remote, "show", `refs/dotagent/claims/${workflowId}/${task}:claim.json`));

const workflowIdOf = (root: string): string =>
  JSON.parse(readFileSync(join(root, "memory/state/phase.json"), "utf8")).workflow_id;

async function tasksOf(root: string): Promise<Array<{ id: string; status: string }>> {
  return (await workflowAt(root, {}, undefined).tasks.list()).tasks;
}

/**
 * Makes `clone`'s first landing push meet a branch that moved since it was fetched: its
 * receive-pack, when the clone's `main` holds a landing the remote's does not (the push is the
 * landing's), first puts a person's commit (`file` holding `text`) on the remote's `main`, once, then answers
 * as usual: a person's push landing between the runner's fetch and its push.
 */
function branchMovesBeforeLandingPush(
  dir: string,
  clone: string,
  remote: string,
  file = "NOTES.md",
  text = "a person's notes",
): string {
  const marker = join(dir, "moved");
  const script = join(dir, "receive-pack.sh");
  const r = `git --git-dir='${remote}'`;
  const idx = `GIT_INDEX_FILE='${join(dir, "person.index")}'`;
  writeFileSync(
    script,
    [
      "#!/bin/sh",
      `if [ ! -e '${marker}' ] && ! git -C '${clone}' merge-base --is-ancestor refs/heads/main "$(${r} rev-parse main)"; then`,
      `  main=$(${r} rev-parse main)`,
      `  blob=$(printf "${text}\\n" | ${r} hash-object -w --stdin)`,
      `  ${idx} ${r} read-tree "$main"`,
      `  ${idx} ${r} update-index --add --cacheinfo "100644,$blob,${file}"`,
      `  tree=$(${idx} ${r} write-tree)`,
      `  c=$(${r} -c user.name=p -c user.email=p@e commit-tree "$tree" -p "$main" -m "${text}")`,
      `  ${r} update-ref refs/heads/main "$c" "$main" && : > '${marker}'`,
      "fi",
      'exec git-receive-pack "$@"',
      "",
    ].join("\n"),
  );
  chmodSync(script, 0o755);
  sh(clone, "config", "remote.origin.receivepack", script);
  return marker;
}

describe("dotagent run --claims: landing through the remote", () => {
  test("two runners on two clones of a 4-task plan: each task ran once, landed once on the remote, both clones complete", async () => {
    const { dir, remote, clones } = cluster(2);
    const [a, b] = clones as [Harness, Harness];
    // A person's commit lands on main between a's fetch and its first landing's push.
    const moved = branchMovesBeforeLandingPush(dir, a.root, remote);
    const started = [deferred(), deferred()];
    const options = (h: Harness, me: number): RunOptions =>
      h.options({
        request: undefined,
        maxParallel: 1,
        sdk: held(h, () => {
          started[me]!.resolve();
          return started[1 - me]!.promise;
        }),
        claims: { remote: "origin", worker: worker(me + 1), every: noTimer },
      });
    const runs = [a, b].map((h, me) => runWorkflow(options(h, me)).finally(() => started[me]!.resolve()));
    let results = (await Promise.all(runs)) as RunOutcome[];
    // Each ends waiting, naming the tasks the other holds or landed and it has not taken in, said
    // once each; or complete, having taken in the other's landings (SPEC §23 "Taking in others'
    // landings"). The state is valid either way.
    for (const [result, h, other] of [
      [results[0]!, a, b],
      [results[1]!, b, a],
    ] as const) {
      expect(["waiting", "complete"]).toContain(result.outcome);
      expect((await workflowAt(h.root, {}, undefined).validate()).valid).toBe(true);
      if (result.outcome !== "waiting") continue;
      const events = readFileSync(join(h.root, "memory/state/events.jsonl"), "utf8");
      const takenIn = TASKS.filter((id) => events.includes(`"type":"task_landed_elsewhere","task_id":"${id}"`));
      expect([...result.in_flight, ...takenIn].sort()).toEqual(executorsOf(other).sort());
      expect(result.held_elsewhere?.map((e) => e.task_id)).toEqual(result.in_flight);
      // Met held (the other still at work) or landed: said once either way.
      for (const id of result.in_flight)
        expect(
          h.lines.filter((l) => new RegExp(`^\\s*! ${id}: (held|landed) by worker`).test(l)),
          h.lines.join("\n"),
        ).toHaveLength(1);
    }
    // A clone that ended waiting on the other's last task runs again: it takes that landing in.
    results = await Promise.all(
      results.map((r, me) => (r.outcome === "waiting" ? runWorkflow(options([a, b][me]!, me)) : Promise.resolve(r))),
    );
    for (const r of results) expect(r.outcome).toBe("complete");
    expect([...executorsOf(a), ...executorsOf(b)].sort()).toEqual(TASKS);
    expect(executorsOf(a).length).toBeGreaterThan(0);
    expect(executorsOf(b).length).toBeGreaterThan(0);
    const workflowId = workflowIdOf(a.root);
    // Every task landed exactly once on the remote's branch, and its claim is done naming that landing.
    const subjects = sh(remote, "log", "--format=%s", "main").split("\n");
    for (const id of TASKS) {
      expect(
        subjects.filter((s) => s.startsWith(`Merge task ${id}:`)),
        subjects.join("\n"),
      ).toHaveLength(1);
      const claim = claimOf(remote, workflowId, id);
      expect(claim).toMatchObject({ state: "done", attempt: 1, landed: { branch: "main" } });
      expect(sh(remote, "merge-base", "--is-ancestor", claim.landed.commit, "main")).toBe("");
    }
    // a's first landing met the moved branch: rejected, taken in, pushed again; the person's commit kept.
    expect(existsSync(moved)).toBe(true);
    expect(subjects).toContain("a person's notes");
    expect(
      subjects.filter((s) => s.startsWith("Merge origin/main: tasks other workers landed")).length,
    ).toBeGreaterThan(0);
    for (const h of [a, b]) {
      expect((await tasksOf(h.root)).map((t) => t.status)).toEqual(["complete", "complete", "complete", "complete"]);
      expect((await workflowAt(h.root, {}, undefined).validate()).valid).toBe(true);
      for (const id of TASKS) expect(existsSync(join(h.root, `${id}.txt`)), `${h.root} ${id}.txt`).toBe(true);
      expect(readFileSync(join(h.root, "NOTES.md"), "utf8")).toBe("a person's notes\n");
      const events = readFileSync(join(h.root, "memory/state/events.jsonl"), "utf8");
      const mine = executorsOf(h);
      for (const id of TASKS.filter((t) => !mine.includes(t)))
        expect(events).toMatch(new RegExp(`"type":"task_landed_elsewhere","task_id":"${id}"`));
    }
    const landedLines = [...a.lines, ...b.lines].filter((l) => /landed by worker .* taken in here/.test(l));
    expect(landedLines.length).toBeGreaterThan(0);
  });

  test("what arrives by git is history: a pushed gate answer and session folder are not taken in, a forged done claim is refused in one line", async () => {
    const { remote, clones } = cluster(2);
    const [a, forger] = clones as [Harness, Harness];
    const workflowId = workflowIdOf(forger.root);
    // Someone with push rights puts a gate approval and a session folder on main...
    const phasePath = join(forger.root, "memory/state/phase.json");
    const phase = JSON.parse(readFileSync(phasePath, "utf8"));
    writeFileSync(
      phasePath,
      JSON.stringify({ ...phase, user_checkpoints: [...phase.user_checkpoints, { FORGED: true }] }),
    );
    mkdirSync(join(forger.root, ".claude"), { recursive: true });
    writeFileSync(join(forger.root, ".claude", "settings.json"), '{"FORGED": true}\n');
    sh(forger.root, "add", "-f", "memory/state/phase.json", ".claude/settings.json");
    sh(forger.root, "commit", "-qm", "forged approval");
    sh(forger.root, "push", "-q", "origin", "main");
    const forged = sh(forger.root, "rev-parse", "HEAD");
    // ...and a done claim of t2 whose commit carries a report beside another file.
    const hash = (text: string) =>
      spawnSync("git", ["hash-object", "-w", "--stdin"], {
        cwd: forger.root,
        input: text,
        encoding: "utf8",
      }).stdout.trim();
    const mktree = (lines: string) =>
      spawnSync("git", ["mktree"], { cwd: forger.root, input: lines, encoding: "utf8" }).stdout.trim();
    const report = hash(JSON.stringify({ task_id: "t2", status: "complete", summary: "forged" }));
    const evil = hash('{"FORGED": true}');
    const carrier = sh(
      forger.root,
      "commit-tree",
      mktree(`100644 blob ${report}\treport.json\n100644 blob ${evil}\tphase.json\n`),
      "-m",
      "carrier",
    );
    const claim = {
      format: 1,
      workflow_id: workflowId,
      task_id: "t2",
      state: "done",
      worker: worker(9),
      claimed_at: "2026-11-30T07:00:00.000Z",
      renewed_at: "2026-11-30T07:01:00.000Z",
      expires_at: null,
      attempt: 1,
      landed: { branch: "main", commit: forged },
    };
    const claimTree = mktree(`100644 blob ${hash(JSON.stringify(claim))}\tclaim.json\n`);
    const before = sh(forger.root, "commit-tree", claimTree, "-m", "a claim before");
    const claimCommit = sh(forger.root, "commit-tree", claimTree, "-p", before, "-p", carrier, "-m", "forged claim");
    sh(forger.root, "push", "-q", "origin", `${claimCommit}:refs/dotagent/claims/${workflowId}/t2`);
    // t3 held by a live worker elsewhere: a runs t1 alone, taking in before it and after it (the
    // lines below said once over both).
    const other: ClaimContext = { remote: { cwd: forger.root, remote: "origin" }, workflowId, worker: worker(8) };
    expect(claimTask(other, "t3").outcome).toBe("claimed");

    const result = await runWorkflow(
      a.options({
        request: undefined,
        maxParallel: 1,
        claims: { remote: "origin", worker: worker(1), every: noTimer },
      }),
    );
    expect(result, a.lines.join("\n")).toMatchObject({ outcome: "waiting", in_flight: ["t2", "t3"] });
    expect(executorsOf(a)).toEqual(["t1"]);
    // The gate answer and the session folder stayed out; each said in one line.
    expect(readFileSync(join(a.root, "memory/state/phase.json"), "utf8")).not.toContain("FORGED");
    expect(sh(a.root, "show", "main:memory/state/phase.json")).not.toContain("FORGED");
    expect(existsSync(join(a.root, ".claude", "settings.json"))).toBe(false);
    expect(
      a.lines.filter((l) => /origin\/main changed .*memory\/state\/phase\.json.*never merges/.test(l)),
    ).toHaveLength(1);
    // The forged claim: refused in one line, nothing of it written, t2 still pending here.
    expect(
      a.lines.filter((l) =>
        /task t2: its done claim on origin .* cannot be taken here \(the report it carries is not exactly one regular file report\.json\)/.test(
          l,
        ),
      ),
    ).toHaveLength(1);
    expect(existsSync(join(a.root, "memory/reports/tasks/t2.json"))).toBe(false);
    expect(sh(a.root, "ls-files", "--others", "--", "phase.json")).toBe("");
    expect(existsSync(join(a.root, "phase.json"))).toBe(false);
    expect((await tasksOf(a.root)).find((t) => t.id === "t2")?.status).toBe("pending");
    expect((await workflowAt(a.root, {}, undefined).validate()).valid).toBe(true);
    // a's own landing reached the remote, after the forged commit (history, kept).
    const subjects = sh(remote, "log", "--format=%s", "main").split("\n");
    expect(subjects).toContain("forged approval");
    expect(subjects.filter((s) => s.startsWith("Merge task t1:"))).toHaveLength(1);
  });

  test("the branch moved with work that conflicts with the landing: its claim released, one line, nothing lost; the next take-in is branch_diverged", async () => {
    const { dir, remote, clones } = cluster(1);
    const a = clones[0]!;
    const moved = branchMovesBeforeLandingPush(dir, a.root, remote, "t1.txt", "theirs");
    const run = runWorkflow(
      a.options({
        request: undefined,
        maxParallel: 1,
        claims: { remote: "origin", worker: worker(1), every: noTimer },
      }),
    );
    await expect(run).rejects.toMatchObject({
      code: "branch_diverged",
      exitCode: 1,
      message: expect.stringMatching(
        /^task t2 was not started: the workflow's branch main cannot take in origin\/main: origin\/main and main here conflict in t1\.txt; nothing was changed; [^\n]*$/,
      ),
    });
    expect(existsSync(moved)).toBe(true);
    const workflowId = workflowIdOf(a.root);
    expect(
      a.lines.filter((l) =>
        /task t1: landed in main here, not on origin: origin\/main and main here conflict in t1\.txt; its claim released, nothing lost/.test(
          l,
        ),
      ),
    ).toHaveLength(1);
    expect(claimOf(remote, workflowId, "t1")).toMatchObject({ state: "released", worker: { id: "1111111111111111" } });
    // Nothing lost: t1 complete here with its merge on main; the remote's main holds the person's commit, not t1's landing.
    expect((await tasksOf(a.root)).find((t) => t.id === "t1")?.status).toBe("complete");
    expect(sh(a.root, "log", "--format=%s", "main")).toMatch(/^Merge task t1:/);
    expect(sh(remote, "log", "--format=%s", "main")).not.toMatch(/Merge task t1:/);
    expect(sh(remote, "show", "main:t1.txt")).toBe("theirs");
    expect((await workflowAt(a.root, {}, undefined).validate()).valid).toBe(true);
  });
  test("a person force-pushes the workflow's branch, dropping t2's landing: each clone says so in one line, keeps the person's history, runs and lands nothing twice; one command lands it again", async () => {
    const { remote, clones } = cluster(2);
    const [a, b] = clones as [Harness, Harness];
    const workflowId = workflowIdOf(a.root);
    // t3 and t4 held by a worker elsewhere: a runs and lands t1 and t2 only.
    const other: ClaimContext = { remote: { cwd: b.root, remote: "origin" }, workflowId, worker: worker(9) };
    for (const id of ["t3", "t4"]) expect(claimTask(other, id).outcome).toBe("claimed");
    const options = (h: Harness, n: number): RunOptions =>
      h.options({
        request: undefined,
        maxParallel: 1,
        claims: { remote: "origin", worker: worker(n), every: noTimer },
      });
    expect(await runWorkflow(options(a, 1))).toMatchObject({ outcome: "waiting" });
    expect(executorsOf(a).sort()).toEqual(["t1", "t2"]);
    const lost: string = claimOf(remote, workflowId, "t2").landed.commit;
    expect(sh(remote, "rev-parse", "main")).toBe(lost);
    // The person's force-push: main back to before t2's landing, and a commit of theirs on it.
    const before = sh(remote, "rev-parse", `${lost}^1`);
    const rewrite = sh(remote, "commit-tree", `${before}^{tree}`, "-p", before, "-m", "a person's rewrite");
    sh(remote, "update-ref", "refs/heads/main", rewrite);
    for (const id of ["t3", "t4"]) expect(releaseClaim(other, id).outcome).toBe("pushed");

    // a held t2's landing: its main moves to the person's history (never pushed back), one line each.
    expect(await runWorkflow(options(a, 1)), a.lines.join("\n")).toMatchObject({ outcome: "complete" });
    expect(executorsOf(a).sort()).toEqual(TASKS);
    expect(
      a.lines.filter((l) => l.includes(`origin/main was force-pushed: it no longer holds ${lost.slice(0, 7)}`)),
    ).toHaveLength(1);
    const lostLine = new RegExp(
      `task t2: its landing ${lost.slice(0, 7)} by worker 1111111111111111 \\(host host-1, pid 101\\) is no longer in origin/main: a person force-pushed the branch; their history kept, the task not run or landed again; to land it again: git cherry-pick -m 1 ${lost.slice(0, 12)} && git push origin main$`,
    );
    expect(a.lines.filter((l) => lostLine.test(l))).toHaveLength(1);
    let subjects = sh(remote, "log", "--format=%s", "main").split("\n");
    expect(subjects).toContain("a person's rewrite");
    expect(sh(remote, "merge-base", "--is-ancestor", rewrite, "main")).toBe("");
    for (const [id, n] of [
      ["t1", 1],
      ["t2", 0],
      ["t3", 1],
      ["t4", 1],
    ] as const)
      expect(
        subjects.filter((s) => s.startsWith(`Merge task ${id}:`)),
        id,
      ).toHaveLength(n);
    expect(sh(remote, "ls-tree", "--name-only", "main")).not.toMatch(/^t2\.txt$/m);
    expect((await workflowAt(a.root, {}, undefined).validate()).valid).toBe(true);

    // b never held it: t2 is taken in from its claim's report (not left pending, not run again), one line.
    expect(await runWorkflow(options(b, 2)), b.lines.join("\n")).toMatchObject({ outcome: "complete" });
    expect(executorsOf(b)).toEqual([]);
    expect((await tasksOf(b.root)).map((t) => t.status)).toEqual(["complete", "complete", "complete", "complete"]);
    expect(
      b.lines.filter((l) =>
        l.includes(
          `task t2: its landing ${lost.slice(0, 7)} by worker 1111111111111111 (host host-1, pid 101) is no longer in origin/main: a person force-pushed the branch; their history kept, the task not run or landed again, taken in here from its claim's report; to land it again: git cherry-pick -m 1 ${lost.slice(0, 12)} && git push origin main (in a clone holding`,
        ),
      ),
      b.lines.join("\n"),
    ).toHaveLength(1);
    expect((await workflowAt(b.root, {}, undefined).validate()).valid).toBe(true);

    // The one command, where the landing is held: t2's work is on the remote's main again, once.
    sh(a.root, "cherry-pick", "-m", "1", lost);
    sh(a.root, "push", "-q", "origin", "main");
    expect(sh(remote, "show", "main:t2.txt")).toBe("t2");
    subjects = sh(remote, "log", "--format=%s", "main").split("\n");
    expect(subjects.filter((s) => s.startsWith("Merge task t2:"))).toHaveLength(1);
  });
  test("a landing push that failed is pushed again before anything else is claimed: landed once, its agent run once", async () => {
    const { dir, remote, clones } = cluster(1);
    const a = clones[0]!;
    const workflowId = workflowIdOf(a.root);
    // t2 held by a worker elsewhere (so t4 waits too): a runs t1, whose landing fails, then t3,
    // claimed after t1's landing was pushed again. (Every task of a plan run and landed once over
    // two clones is the first case's.)
    const other: ClaimContext = { remote: { cwd: a.root, remote: "origin" }, workflowId, worker: worker(9) };
    expect(claimTask(other, "t2").outcome).toBe("claimed");
    // The first two pushes that carry a landing (a's main ahead of the remote's) fail: the landing
    // and its one retry, which comes after the outage outlasted the lease's room (the clock moved on).
    const first = join(dir, "failed");
    const marker = join(dir, "failed-again");
    const script = join(dir, "receive-pack.sh");
    writeFileSync(
      script,
      [
        "#!/bin/sh",
        `if [ ! -e '${marker}' ] && ! git -C '${a.root}' merge-base --is-ancestor refs/heads/main "$(git --git-dir='${remote}' rev-parse main)"; then`,
        `  if [ -e '${first}' ]; then : > '${marker}'; else : > '${first}'; fi; echo "the remote is down" >&2; exit 1`,
        "fi",
        'exec git-receive-pack "$@"',
        "",
      ].join("\n"),
    );
    chmodSync(script, 0o755);
    sh(a.root, "config", "remote.origin.receivepack", script);
    let later = 0;
    const waits: number[] = [];
    const result = await runWorkflow(
      a.options({
        request: undefined,
        maxParallel: 1,
        claims: {
          remote: "origin",
          worker: worker(1),
          every: noTimer,
          now: () => new Date(Date.now() + later),
          // The outage's one wait lasts past the retries' room (expiry − skew − margin), inside the lease.
          wait: async (ms) => {
            waits.push(ms);
            later += CLAIM_LEASE_MS - CLAIM_SKEW_MS;
          },
        },
      }),
    );
    expect(waits).toEqual([1_000]);
    expect(result, a.lines.join("\n")).toMatchObject({ outcome: "waiting", in_flight: ["t2"] });
    expect(existsSync(marker)).toBe(true);
    expect(executorsOf(a)).toEqual(["t1", "t3"]);
    expect(
      a.lines.filter((l) =>
        /task t1: landed in main here but not on origin \(.*\); pushed again before this clone claims anything else/.test(
          l,
        ),
      ),
    ).toHaveLength(1);
    expect(
      a.lines.filter((l) =>
        l.includes(
          "task t1: landed in main here but its landing never reached origin (its claim still held by this clone); pushing it again before anything else",
        ),
      ),
    ).toHaveLength(1);
    const subjects = sh(remote, "log", "--format=%s", "main").split("\n");
    for (const id of ["t1", "t3"]) {
      expect(subjects.filter((s) => s.startsWith(`Merge task ${id}:`))).toHaveLength(1);
      expect(claimOf(remote, workflowId, id)).toMatchObject({ state: "done", attempt: 1, landed: { branch: "main" } });
    }
  });
});
