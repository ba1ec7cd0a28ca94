// `dotagent run --claims` (SPEC §23 "The runner") against real git: a bare remote and clones of a
// project whose workflow waits at its first gate, each clone a machine running the runner with the
// stand-in SDK. A claim taken over while the agent works gives the task back (not landed, branch
// kept); a remote that fails starts nothing and says one line. Two runners on two clones never
// running the same task, and how each ends (waiting on the other's tasks, said once, or complete),
// is runner-landing.test.ts's first case (one end-to-end run of that promise, not two).
// The renewal timer is injected (never a sleep): the tests call it by hand.
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { workflowAt } from "../api/workflow.js";
import { claimTask } from "../ops/claims.js";
import { recordWorker } from "../store/claim-workers.js";
import { executorsOf, noTimer, seedAtDesignPick, sh, worker, type Seed } from "./claims-cluster.test-support.js";
import { good, type Harness, type Writer } from "./stand-in-sdk.test-support.js";
import { runWorkflow, type RunOptions } from "./runner.js";

let seed: Seed;
afterAll(() => rmSync(seed.work, { recursive: true, force: true }));

const TASKS = ["t1", "t2"];
/** The good agents, the design planning two tasks that do not wait for each other. */
const twoTasks: Writer = (agent, prompt, output) =>
  agent === "architect"
    ? {
        name: /^Design name: (.*)$/m.exec(prompt)?.[1] ?? "",
        tasks: TASKS.map((id) => ({ id, title: id, depends_on: [] })),
      }
    : good(agent, prompt, output);

/** A bare remote holding a project whose workflow waits at its design pick (requirements approved, designs written). */
beforeAll(async () => {
  seed = await seedAtDesignPick("dotagent-run-claims-", twoTasks);
});

/** A copy of the seed's remote and `n` clones of it (each a machine), the stand-in SDK writing `writer`'s reports. */
const cluster = (n: number, writer: Writer = twoTasks) => seed.cluster(n, writer);

function remoteClaim(remote: string, task: string, workflowId: string): any {
  return JSON.parse(sh(remote, "show", `refs/dotagent/claims/${workflowId}/${task}:claim.json`));
}

describe("dotagent run --claims", () => {
  test("a claim taken over while the agent works: the task is given back, not landed, its branch kept", async () => {
    let taken = false;
    const { remote, clones } = cluster(1, (agent, prompt, output) => {
      if (agent === "executor" && !taken) {
        taken = true;
        // Another machine takes t1 over as if its lease had lapsed (its clock far ahead).
        const workflowId = JSON.parse(
          spawnSync("git", ["show", "HEAD:memory/state/phase.json"], { cwd: h.root, encoding: "utf8" }).stdout,
        ).workflow_id;
        const got = claimTask(
          {
            remote: { cwd: h.root, remote: "origin" },
            workflowId,
            worker: worker(7),
            now: () => new Date(Date.now() + 3_600_000),
          },
          "t1",
        );
        expect(got.outcome).toBe("claimed");
      }
      return twoTasks(agent, prompt, output);
    });
    const h = clones[0]!;
    const renewals: Array<() => void> = [];
    const result = await runWorkflow(
      h.options({
        request: undefined,
        maxParallel: 1,
        claims: {
          remote: "origin",
          worker: worker(1),
          every: (renew) => {
            renewals.push(renew);
            return () => {};
          },
        },
      }),
    );
    expect(renewals.length).toBeGreaterThan(0);
    renewals[0]!(); // a renewal after the take-over pushes nothing (the claim is not this worker's)
    const workflowId = result.workflow_id!;
    const line = h.lines.find((l) => l.includes("task t1: "));
    expect(line).toMatch(
      new RegExp(
        `task t1: its claim was taken over by worker 7777777777777777 \\(host host-7, pid 107\\) at .*; its work stays on branch dotagent/${workflowId}/t1, not landed`,
      ),
    );
    expect(result).toMatchObject({ outcome: "waiting", in_flight: ["t1"] });
    const t1 = (await workflowAt(h.root, {}, undefined).tasks.list()).tasks.find((t: { id: string }) => t.id === "t1");
    expect(t1).toMatchObject({ status: "pending" });
    expect(sh(h.root, "branch", "--list", `dotagent/${workflowId}/t1`)).not.toBe("");
    expect(sh(h.root, "log", "--format=%s", "main")).not.toMatch(/t1/);
    expect(remoteClaim(remote, "t1", workflowId)).toMatchObject({ state: "held", worker: { id: "7777777777777777" } });
    for (const id of ["t2"]) expect(remoteClaim(remote, id, workflowId)).toMatchObject({ state: "done" });
    expect((await workflowAt(h.root, {}, undefined).validate()).valid).toBe(true);
  });

  test("a run stopped (Ctrl-C, SIGTERM) while its agent works: the task given back here and its claim released", async () => {
    const stop = new AbortController();
    const { remote, clones } = cluster(1, (agent, prompt, output) => {
      if (agent !== "executor") return twoTasks(agent, prompt, output);
      setImmediate(() => stop.abort());
      return "hang";
    });
    const h = clones[0]!;
    await expect(
      runWorkflow(
        h.options({
          request: undefined,
          maxParallel: 1,
          signal: stop.signal,
          claims: { remote: "origin", worker: worker(1), every: noTimer },
        }),
      ),
    ).rejects.toMatchObject({ code: "interrupted" });
    const workflowId = JSON.parse(sh(h.root, "show", "HEAD:memory/state/phase.json")).workflow_id;
    expect(remoteClaim(remote, "t1", workflowId)).toMatchObject({
      state: "released",
      worker: { id: "1111111111111111" },
    });
    expect(sh(remote, "for-each-ref", "--format=%(refname)", "refs/dotagent/claims/")).not.toContain("/t2");
    const t1 = (await workflowAt(h.root, {}, undefined).tasks.list()).tasks.find((t: { id: string }) => t.id === "t1");
    expect(t1).toMatchObject({ status: "pending" });
    expect((await workflowAt(h.root, {}, undefined).validate()).valid).toBe(true);
  });

  test("a remote that fails: no task starts, one line naming the remote, exit 1, the state valid", async () => {
    const { clones } = cluster(1);
    const h = clones[0]!;
    sh(h.root, "remote", "set-url", "origin", join(seed.work, "no-such-remote.git"));
    await expect(
      runWorkflow(h.options({ request: undefined, claims: { remote: "origin", worker: worker(1), every: noTimer } })),
    ).rejects.toMatchObject({
      code: "remote_failed",
      exitCode: 1,
      message: expect.stringMatching(
        /^task t1 was not started: the git remote origin failed \(git ls-remote\): [^\n]*$/,
      ),
    });
    expect(executorsOf(h)).toEqual([]);
    expect((await workflowAt(h.root, {}, undefined).validate()).valid).toBe(true);
  });
  test("a remote down while a task renews and lands: tried again after short waits, the task lands, nothing run twice", async () => {
    const bad = join(seed.work, "no-such-remote.git");
    let good = "";
    // t1's agent ends as the remote goes down: its renewal before landing fails until the second wait.
    const { remote, clones } = cluster(1, (agent, prompt, output) => {
      if (agent === "executor" && /^Task: t1$/m.test(prompt)) sh(h.root, "remote", "set-url", "origin", bad);
      return twoTasks(agent, prompt, output);
    });
    const h = clones[0]!;
    good = sh(h.root, "remote", "get-url", "origin").trim();
    // t2 held by a worker elsewhere: t1 is this run's one task (a run going on to its next task after a
    // landing the remote did not take at once: runner-landing's failed-push case).
    const workflowId = JSON.parse(readFileSync(join(h.root, "memory/state/phase.json"), "utf8")).workflow_id;
    expect(claimTask({ remote: { cwd: h.root, remote: "origin" }, workflowId, worker: worker(9) }, "t2").outcome).toBe(
      "claimed",
    );
    const waits: number[] = [];
    await runWorkflow(
      h.options({
        request: undefined,
        maxParallel: 1,
        claims: {
          remote: "origin",
          worker: worker(1),
          every: noTimer,
          wait: async (ms) => {
            waits.push(ms);
            if (waits.length === 2) sh(h.root, "remote", "set-url", "origin", good);
          },
        },
      }),
    );
    expect(waits).toEqual([1_000, 2_000]);
    expect(remoteClaim(remote, "t1", workflowId)).toMatchObject({ state: "done" });
    expect(executorsOf(h)).toEqual(["t1"]);
    // One line for the outage, not one per try.
    expect(h.lines.filter((l) => l.includes("did not answer"))).toEqual([
      expect.stringMatching(
        /task t1: origin did not answer renewing its claim before landing \(.*\); trying again while its lease lasts$/,
      ),
    ]);
    expect((await workflowAt(h.root, {}, undefined).validate()).valid).toBe(true);
  });

  test("a run restarted on the same machine after kill -9 takes its dead run's claims over at once; another clone waits them out", async () => {
    const { remote, clones } = cluster(2);
    const [a, b] = clones as [Harness, Harness];
    const workflowId = JSON.parse(readFileSync(join(a.root, "memory/state/phase.json"), "utf8")).workflow_id;
    // a's earlier run, killed: recorded in a's clone, on this host, its process gone; it held t1.
    const dead = spawnSync(process.execPath, ["-e", ""]).pid!;
    const gone = { id: "dddddddddddddddd", host: hostname(), pid: dead };
    recordWorker(a.root, gone, new Date());
    expect(claimTask({ remote: { cwd: a.root, remote: "origin" }, workflowId, worker: gone }, "t1").outcome).toBe(
      "claimed",
    );
    const options = (h: Harness, n: number): RunOptions =>
      h.options({
        request: undefined,
        maxParallel: 1,
        claims: { remote: "origin", worker: worker(n), every: noTimer },
      });
    // b is another clone: the record is not its, so t1's lease is waited out; it runs t2.
    const rb = await runWorkflow(options(b, 2));
    expect(rb).toMatchObject({ outcome: "waiting", in_flight: ["t1"] });
    expect(executorsOf(b)).toEqual(["t2"]);
    // a, restarted: t1 taken over at once (its lease still runs), one line; run and landed.
    const ra = await runWorkflow(options(a, 1));
    expect(ra.outcome, a.lines.join("\n")).toBe("complete");
    expect(executorsOf(a)).toEqual(["t1"]);
    expect(
      a.lines.filter((l) =>
        l.includes(
          `t1: held by worker dddddddddddddddd (host ${hostname()}, pid ${dead}), an earlier run of this clone whose process is gone; taken over at once`,
        ),
      ),
    ).toHaveLength(1);
    expect(remoteClaim(remote, "t1", workflowId)).toMatchObject({
      state: "done",
      attempt: 2,
      worker: { id: "1111111111111111" },
    });
  });
});
