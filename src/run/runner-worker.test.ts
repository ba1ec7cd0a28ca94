// `dotagent run --until-tasks` and `dotagent run --worker` (SPEC §17, §23 "The worker"): a planning
// run that stops with the plan written, and workers on clones of one project that run its tasks
// through the git remote. Real git (a bare remote and clones), the stand-in SDK, no sleeps: the
// workers' poll waits are injected and move by what the other worker does.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { workflowAt } from "../api/workflow.js";
import { claimTask } from "../ops/claims.js";
import {
  deferred,
  executorsOf,
  noTimer,
  planWriter,
  seedAtDesignPick,
  sh,
  worker,
  type Seed,
} from "./claims-cluster.test-support.js";
import { good, harness, type Harness, type Writer } from "./stand-in-sdk.test-support.js";
import type { Progress } from "./progress.js";
import type { QueryMessage, QuerySdk } from "../api/recoverable-query.js";
import { runResultLines } from "./run-words.js";
import { runWorkflow, type RunOptions, type WorkerOutcome } from "./runner.js";
import type { WorkerOptions } from "./worker.js";

describe("dotagent run --until-tasks", () => {
  test("stops with the plan written before any task runs; again: the same; past the tasks step: runs nothing", async () => {
    const h = harness(good);
    const ready = await runWorkflow(h.options({ untilTasks: true }));
    expect(ready).toMatchObject({
      outcome: "tasks_ready",
      workflow_id: "wf-add-login",
      step: "IMPLEMENTATION",
      tasks: ["task-001", "task-002"],
    });
    expect(h.sessions.map((s) => s.agent)).toEqual(["pm", "architect", "architect", "roundtable"]);
    expect(h.lines.filter((l) => l.includes("the plan is ready for workers"))).toEqual([
      "  ✓ the plan is ready for workers: 2 tasks at IMPLEMENTATION (dotagent run --worker runs them)",
    ]);
    // Again: nothing more is carried out.
    expect(await runWorkflow(h.options({ request: undefined, untilTasks: true }))).toMatchObject({
      outcome: "tasks_ready",
      steps: 0,
      agents: 0,
    });
    expect(await runWorkflow(h.options({ request: undefined }))).toMatchObject({ outcome: "complete" });
    const sessions = h.sessions.length;
    expect(await runWorkflow(h.options({ request: undefined, untilTasks: true }))).toMatchObject({
      outcome: "past_tasks",
      steps: 0,
      agents: 0,
    });
    expect(h.sessions).toHaveLength(sessions);
  });
});

/**
 * Three tasks over two workers: t1 and t2 one each from the start, t3 needing both (so one worker
 * waits on the other's landing, and the other polls while t3 is held).
 */
const PLAN = [
  { id: "t1", title: "t1", depends_on: [] },
  { id: "t2", title: "t2", depends_on: [] },
  { id: "t3", title: "t3", depends_on: ["t1", "t2"] },
];
const TASKS = PLAN.map((t) => t.id);

const threeTasks = planWriter(PLAN);

const workflowIdOf = (root: string): string =>
  JSON.parse(readFileSync(join(root, "memory/state/phase.json"), "utf8")).workflow_id;

/** A worker's options: no request, no --approve (a worker refuses both), claims under worker `n`'s identity. */
const workerOptions = (h: Harness, n: number, extra: Partial<RunOptions>, worker_: WorkerOptions): RunOptions =>
  h.options({
    request: undefined,
    approve: undefined,
    maxParallel: 1,
    claims: { remote: "origin", worker: worker(n), every: noTimer },
    worker: worker_,
    ...extra,
  });

/** The SDK of `h`, each executor started once `gate(task)` settles. */
function gated(h: Harness, gate: (task: string) => Promise<unknown>): QuerySdk<QueryMessage> {
  const inner = h.options().sdk!;
  return {
    query(args) {
      const task = /^Task: (.*)$/m.exec(String(args.prompt))?.[1];
      if (task === undefined) return inner.query(args);
      return (async function* () {
        await gate(task);
        yield* inner.query(args);
      })();
    },
  };
}

/**
 * The workers' poll waits, moved by what the others do: a worker's wait ends when another worker
 * says a line (claimed, landed, taken in) or ends; when every worker still running waits, all go on.
 */
function pollBus(n: number) {
  const waiting = new Map<number, () => void>();
  const ended = new Set<number>();
  const polled = Array.from({ length: n }, () => deferred());
  const nudge = (from: number) => {
    for (const [w, go] of [...waiting]) if (w !== from) (waiting.delete(w), go());
  };
  const allWait = () => Array.from({ length: n }, (_, w) => w).every((w) => ended.has(w) || waiting.has(w));
  return {
    sleep: (me: number) => () =>
      new Promise<void>((go) => {
        polled[me]!.resolve();
        waiting.set(me, go);
        if (allWait()) nudge(-1);
      }),
    progress: (me: number, inner: Progress): Progress => ({
      ...inner,
      line: (text, options) => {
        inner.line(text, options);
        nudge(me);
      },
    }),
    end: (me: number) => {
      ended.add(me);
      polled[me]!.resolve();
      nudge(me);
    },
    /** Settles once worker `w` first waited for a poll (or ended). */
    polled: (w: number) => polled[w]!.promise,
  };
}

describe("dotagent run --worker", () => {
  let seed: Seed;
  beforeAll(async () => {
    seed = await seedAtDesignPick("dotagent-run-worker-", threeTasks);
  });
  afterAll(() => rmSync(seed.work, { recursive: true, force: true }));

  /** `n` clones of a project whose plan a planning run wrote (--until-tasks) and pushed. */
  async function planned(n: number): Promise<{ remote: string; planner: Harness; clones: Harness[] }> {
    const { remote, clones } = seed.cluster(n + 1);
    const [planner, ...rest] = clones as [Harness, ...Harness[]];
    const ready = await runWorkflow(planner.options({ request: undefined, untilTasks: true }));
    expect(ready).toMatchObject({ outcome: "tasks_ready", tasks: TASKS });
    expect(runResultLines(ready)).toHaveLength(1);
    sh(planner.root, "add", "-A");
    sh(planner.root, "commit", "-qm", "the plan");
    sh(planner.root, "push", "-q", "origin", "main");
    for (const h of rest) sh(h.root, "pull", "-q", "--ff-only");
    return { remote, planner, clones: rest };
  }

  test("two workers on two clones: every task ran once, landed once on the remote, both complete, the state valid", async () => {
    const { remote, clones } = await planned(2);
    const [a, b] = clones as [Harness, Harness];
    const bus = pollBus(2);
    // Each worker's first executor waits until the other started one: the two overlap from the start.
    // t3's waits until the other worker polled: it had nothing to claim while t3 was held here.
    const started = [deferred(), deferred()];
    const runs = [a, b].map((h, me) =>
      runWorkflow(
        workerOptions(
          h,
          me + 1,
          {
            progress: bus.progress(me, h.options().progress),
            sdk: gated(h, (task) => {
              if (task === "t3") return bus.polled(1 - me);
              started[me]!.resolve();
              return started[1 - me]!.promise;
            }),
          },
          { sleep: bus.sleep(me), idleMs: 24 * 60 * 60_000 },
        ),
      ).finally(() => {
        started[me]!.resolve();
        bus.end(me);
      }),
    );
    const results = (await Promise.all(runs)) as WorkerOutcome[];
    for (const [r, h] of [
      [results[0]!, a],
      [results[1]!, b],
    ] as const) {
      expect(r).toMatchObject({ outcome: "complete", ended: "tasks_done", held_elsewhere: [] });
      expect(r.ran).toEqual(executorsOf(h));
      expect([...r.ran, ...r.taken_in].sort()).toEqual(TASKS);
      expect((await workflowAt(h.root, {}, undefined).tasks.list()).tasks.map((t) => t.status)).toEqual(
        TASKS.map(() => "complete"),
      );
      expect((await workflowAt(h.root, {}, undefined).validate()).valid).toBe(true);
      for (const id of r.ran) expect(h.lines).toContain(`  · ${id}: claimed on origin`);
      expect(runResultLines(r)).toEqual([
        expect.stringMatching(/^Worker \d{16}: every task of the plan is complete here/),
      ]);
    }
    // Every task's agent ran once over both workers; each landed once on the remote, its claim done.
    expect([...executorsOf(a), ...executorsOf(b)].sort()).toEqual(TASKS);
    expect(executorsOf(a).length).toBeGreaterThan(0);
    expect(executorsOf(b).length).toBeGreaterThan(0);
    // The worker that did not run t3 polled (nothing claimable while t3 was held) until t3's landing came.
    const other = results.findIndex((r) => !r.ran.includes("t3"));
    expect(results[other]!.polls).toBeGreaterThan(0);
    expect(results[other]!.taken_in).toContain("t3");
    const workflowId = workflowIdOf(a.root);
    const subjects = sh(remote, "log", "--format=%s", "main").split("\n");
    for (const id of TASKS) {
      expect(subjects.filter((s) => s.startsWith(`Merge task ${id}:`))).toHaveLength(1);
      expect(JSON.parse(sh(remote, "show", `refs/dotagent/claims/${workflowId}/${id}:claim.json`))).toMatchObject({
        state: "done",
        attempt: 1,
      });
    }
  });

  test("a worker started before the tasks step ends waiting with one line, nothing claimed", async () => {
    const { remote, clones } = seed.cluster(1);
    const h = clones[0]!;
    const result = (await runWorkflow(workerOptions(h, 1, {}, {}))) as WorkerOutcome;
    expect(result).toMatchObject({
      outcome: "waiting",
      ended: "not_at_tasks",
      phase: "ARCHITECTURE",
      in_flight: [],
      ran: [],
      rounds: 0,
      worker: worker(1),
    });
    expect(h.sessions).toEqual([]);
    expect(runResultLines(result)).toEqual([
      `Workflow ${result.workflow_id} is at ARCHITECTURE, before its tasks step: nothing for a worker yet; dotagent run walks the steps and gates (--until-tasks stops when the plan is ready).`,
    ]);
    expect(sh(remote, "for-each-ref", "refs/dotagent/")).toBe("");
  });

  test("a worker whose ready tasks a live worker holds polls, then ends waiting after --idle; SIGTERM mid-poll stops it", async () => {
    // This clone plans for itself (--until-tasks); another worker, alive, holds both ready tasks.
    const h = seed.cluster(1).clones[0]!;
    expect(await runWorkflow(h.options({ request: undefined, untilTasks: true }))).toMatchObject({
      outcome: "tasks_ready",
    });
    const workflowId = workflowIdOf(h.root);
    for (const id of ["t1", "t2"])
      expect(claimTask({ remote: { cwd: h.root, remote: "origin" }, workflowId, worker: worker(7) }, id)).toMatchObject(
        {
          outcome: "claimed",
        },
      );
    let now = 0;
    const idle: WorkerOptions = {
      idleMs: 60_000,
      // Whole 30 s polls from the first (the doubling schedule is worker.test.ts's): two polls, three rounds.
      firstPollMs: 30_000,
      clock: () => now,
      sleep: async (ms) => {
        now += ms;
      },
    };
    const result = (await runWorkflow(workerOptions(h, 1, {}, idle))) as WorkerOutcome;
    expect(result).toMatchObject({
      outcome: "waiting",
      ended: "idle",
      in_flight: ["t1", "t2"],
      ran: [],
      taken_in: [],
      rounds: 3,
      polls: 2,
      held_elsewhere: [
        { task_id: "t1", state: "held", worker: worker(7) },
        { task_id: "t2", state: "held", worker: worker(7) },
      ],
    });
    expect(now).toBe(60_000);
    expect(executorsOf(h)).toEqual([]);
    // Each holder said once, however often it was polled.
    for (const id of ["t1", "t2"])
      expect(h.lines.filter((l) => l.includes(`${id}: held by worker 7777777777777777`))).toHaveLength(1);
    expect(runResultLines(result)[0]).toMatch(/^Nothing claimable within --idle: t1, t2 are other workers'/);
    // SIGTERM (a CI job's time-out) while the worker waits: it stops at once, holding nothing.
    const stop = new AbortController();
    await expect(
      runWorkflow(
        workerOptions(
          h,
          2,
          { signal: stop.signal },
          {
            sleep: async () => stop.abort(),
          },
        ),
      ),
    ).rejects.toMatchObject({ code: "interrupted", exitCode: 130 });
    expect((await workflowAt(h.root, {}, undefined).validate()).valid).toBe(true);
  });
});
