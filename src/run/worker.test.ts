import { describe, expect, test } from "vitest";
import { DEVELOP } from "../core/flow.js";
import type { RunStep } from "../core/run-step.js";
import { tasksPosition, workerRefusal, WorkerLog, WORKER_POLL_MS } from "./worker.js";

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

describe("WorkerLog's idle clock", () => {
  test("polls until --idle passes with nothing done; a round that claims or takes in starts it again", async () => {
    let now = 0;
    const waits: number[] = [];
    const log = new WorkerLog({ idleMs: 70_000, clock: () => now, sleep: async (ms) => void waits.push((now += ms)) });
    expect(await log.poll(undefined)).toBe(true);
    expect(await log.poll(undefined)).toBe(true);
    log.round([], ["t2"]); // a landing taken in: idle from the next empty round
    expect(await log.poll(undefined)).toBe(true);
    expect(await log.poll(undefined)).toBe(true);
    expect(await log.poll(undefined)).toBe(true);
    expect(await log.poll(undefined)).toBe(false);
    // The last wait is what is left of --idle, not a whole poll.
    expect(waits).toEqual([30_000, 60_000, 90_000, 120_000, 130_000]);
    expect(log).toMatchObject({ rounds: 1, polls: 5, takenIn: ["t2"] });
    expect(WORKER_POLL_MS).toBe(30_000);
  });
});
