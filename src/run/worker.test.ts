import { describe, expect, test } from "vitest";
import { DEVELOP } from "../core/flow.js";
import type { RunStep } from "../core/run-step.js";
import { pollWait, tasksPosition, workerRefusal, WorkerLog, WORKER_FIRST_POLL_MS, WORKER_POLL_MS } from "./worker.js";

describe("tasksPosition: where a run's next step stands against develop's tasks step", () => {
  const agents = (phase: string): RunStep =>
    ({ kind: "agents", phase, agent: "x", jobs: [], then: "complete", outputs: [] }) as RunStep;
  test.each<[string, RunStep, string | undefined]>([
    ["a new workflow", { kind: "init" }, "before"],
    ["the requirements", agents("REQUIREMENTS"), "before"],
    ["the design pick", { kind: "choose_design", phase: "ARCHITECTURE" }, "before"],
    ["the plan not written yet", { kind: "plan_tasks", round: 0, file: "f", source: "s" }, "before"],
    ["tasks to run", { kind: "run_tasks", tasks: ["t1"] }, "at"],
    ["tasks at work elsewhere", { kind: "wait", inFlight: ["t1"] }, "at"],
    ["tasks failed too often", { kind: "dead_tasks", tasks: ["t1"] }, "at"],
    ["verification", agents("VERIFICATION"), "past"],
    ["a gate after the tasks", { kind: "gate", phase: "REFLECTION", output: "r", view: "report" }, "past"],
    ["the workflow complete", { kind: "complete" }, "past"],
    ["a failed workflow", { kind: "failed", reason: "x" }, undefined],
  ])("%s", (_, step, position) => expect(tasksPosition(DEVELOP, step)).toBe(position));
});

describe("workerRefusal", () => {
  test.each<[Parameters<typeof workerRefusal>[0], string | undefined]>([
    [{}, undefined],
    [{ request: "add login" }, "request"],
    [{ workflow: "review" }, "--workflow"],
    [{ change: "x" }, "--change"],
    [{ design: "minimal" }, "--design"],
    [{ approve: "auto" }, "--approve"],
    [{ untilTasks: true }, "--until-tasks"],
  ])("%j", (given, what) =>
    what === undefined
      ? expect(workerRefusal(given)).toBeUndefined()
      : expect(workerRefusal(given)).toMatch(new RegExp(`^--worker takes no ${what}: [^\\n]*--until-tasks$`)),
  );
});

describe("pollWait: a worker's waits with nothing claimable", () => {
  test("the defaults: 2 s first, the cap min(30 s, lease / 4)", () => {
    expect([WORKER_FIRST_POLL_MS, WORKER_POLL_MS]).toEqual([2_000, 30_000]);
  });
  test.each<[number, number]>([
    [0, 2_000],
    [1, 4_000],
    [2, 8_000],
    [3, 16_000],
    [4, 30_000],
    [5, 30_000],
    [1_000, 30_000],
  ])("after %i quiet polls: %i ms", (quiet, ms) => expect(pollWait(quiet)).toBe(ms));
  test("injected first and cap", () => {
    expect([0, 1, 2, 3].map((q) => pollWait(q, 5, 12))).toEqual([5, 10, 12, 12]);
  });
});

describe("WorkerLog's idle clock", () => {
  test("polls until --idle passes with nothing done; a round that claims or takes in starts it again", async () => {
    let now = 0;
    const waits: number[] = [];
    const log = new WorkerLog({ idleMs: 70_000, clock: () => now, sleep: async (ms) => void waits.push((now += ms)) });
    expect(await log.poll(undefined)).toBe(true);
    expect(await log.poll(undefined)).toBe(true);
    log.round([], ["t2"]); // a landing taken in: idle from the next empty round, the waits short again
    for (let i = 0; i < 6; i++) expect(await log.poll(undefined)).toBe(true);
    expect(await log.poll(undefined)).toBe(false);
    // 2 s doubling to 30 s; the last wait is what is left of --idle, not a whole poll.
    expect(waits).toEqual([2_000, 6_000, 8_000, 12_000, 20_000, 36_000, 66_000, 76_000]);
    expect(log).toMatchObject({ rounds: 1, polls: 8, takenIn: ["t2"] });
  });

  test("a round that claims nothing and takes nothing in leaves the waits long", async () => {
    let now = 0;
    const waits: number[] = [];
    const log = new WorkerLog({ clock: () => now, sleep: async (ms) => void waits.push(ms) });
    for (let i = 0; i < 3; i++) {
      await log.poll(undefined);
      log.round([], []);
    }
    log.round(["t1"], []);
    await log.poll(undefined);
    expect(waits).toEqual([2_000, 4_000, 8_000, 2_000]);
  });
});
