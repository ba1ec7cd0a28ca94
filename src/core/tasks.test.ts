import { describe, expect, it } from "vitest";
import {
  addTasks,
  completeTask,
  failTask,
  findCycle,
  readyTasks,
  releaseTask,
  retryQuestion,
  retryTask,
  startTask,
} from "./tasks.js";
import { NOW, execution, reports, task } from "./fixtures.test-support.js";

const ok = <T extends { ok: boolean }>(r: T) => {
  expect(r.ok).toBe(true);
  return r as Extract<T, { ok: true }>;
};

const OWNER = { session: "s-1", pid: 4242, pid_start: "1000", host: "dev", at: "2026-11-20T11:59:00Z" };

describe("task operations", () => {
  it.each([
    ["add a duplicate", () => addTasks(execution([task("a")]), [{ id: "a" }], NOW), "duplicate_task"],
    [
      "add with an unknown dependency",
      () => addTasks(execution([]), [{ id: "a", depends_on: ["zz"] }], NOW),
      "unknown_dependency",
    ],
    [
      "import a cycle",
      () =>
        addTasks(
          execution([]),
          [
            { id: "a", depends_on: ["b"] },
            { id: "b", depends_on: ["a"] },
          ],
          NOW,
        ),
      "dependency_cycle",
    ],
    [
      "start a task with unmet dependencies",
      () => startTask(execution([task("a"), task("b", { depends_on: ["a"] })]), "b", NOW),
      "task_refused",
    ],
    [
      "start a dead task",
      () => startTask(execution([task("a", { status: "dead", attempts: 3 })]), "a", NOW),
      "task_refused",
    ],
    ["start an unknown task", () => startTask(execution([]), "a", NOW), "unknown_task"],
    [
      "start a task that is running with a live owner",
      () => startTask(execution([task("a", { status: "running", owner: OWNER })]), "a", NOW, OWNER, "live"),
      "task_refused",
    ],
    [
      "start a task that is running with a gone owner (resume recovers it first)",
      () => startTask(execution([task("a", { status: "running", owner: OWNER })]), "a", NOW, OWNER, "gone"),
      "task_refused",
    ],
    [
      "complete without output",
      () => completeTask(execution([task("a", { status: "running" })]), "a", reports(), NOW),
      "task_refused",
    ],
    [
      "complete with an output for another task",
      () =>
        completeTask(
          execution([task("a", { status: "running" })]),
          "a",
          reports({ "memory/reports/tasks/a.json": { task_id: "b", status: "complete" } }),
          NOW,
        ),
      "task_refused",
    ],
    [
      "complete with a failed output",
      () =>
        completeTask(
          execution([task("a", { status: "running" })]),
          "a",
          reports({ "memory/reports/tasks/a.json": { task_id: "a", status: "failed" } }),
          NOW,
        ),
      "task_refused",
    ],
    [
      "release a task that is not running",
      () => releaseTask(execution([task("a", { status: "pending" })]), "a", NOW),
      "task_refused",
    ],
    [
      "release a task another process owns",
      () => releaseTask(execution([task("a", { status: "running", owner: OWNER })]), "a", NOW, 999),
      "task_refused",
    ],
    [
      "retry dead without more attempts",
      () => retryTask(execution([task("a", { status: "dead", attempts: 3 })]), "a", 0, NOW),
      "task_refused",
    ],
  ])("refuses: %s", (_name, run, code) => {
    const result = run();
    expect(result.ok).toBe(false);
    expect(!result.ok && result.code).toBe(code);
  });

  it("start records the owner; a second start names it, or sends a gone owner's task to resume", () => {
    const started = ok(startTask(execution([task("a")]), "a", NOW, OWNER));
    expect(started.state.tasks[0]).toMatchObject({ status: "running", owner: OWNER });
    expect(started.events[0]).toMatchObject({ type: "task_started", session: "s-1", pid: 4242 });
    const again = startTask(started.state, "a", NOW, { ...OWNER, session: "s-2" }, "live");
    expect(!again.ok && again.message).toContain("owned by session s-1 (pid 4242 on host dev");
    const gone = startTask(started.state, "a", NOW, OWNER, "gone");
    expect(!gone.ok && gone.message).toContain("its owner is gone; if its executor died, run `dotagent resume`");
  });

  it("release (Ctrl-C of dotagent run): its owner gives a running task back, pending, no attempt counted", () => {
    const started = ok(startTask(execution([task("a", { attempts: 1 })]), "a", NOW, OWNER));
    const released = ok(releaseTask(started.state, "a", NOW, OWNER.pid));
    expect(released.state.tasks[0]).toMatchObject({ status: "pending", attempts: 1, started_at: null, error: null });
    expect(released.state.tasks[0]).not.toHaveProperty("owner");
    expect(released.events).toEqual([{ type: "task_released", task_id: "a", attempts: 1 }]);
    expect(readyTasks(released.state).map((t) => t.id)).toEqual(["a"]);
  });

  it("import lets tasks depend on each other in one batch", () => {
    const result = ok(addTasks(execution([]), [{ id: "b", depends_on: ["a"] }, { id: "a" }], NOW));
    expect(result.state.tasks.map((t) => t.id)).toEqual(["b", "a"]);
    expect(readyTasks(result.state).map((t) => t.id)).toEqual(["a"]);
  });

  it("fail counts attempts and dead-letters at max_attempts; retry with extra attempts revives", () => {
    let state = execution([task("a", { status: "running" })], { max_attempts: 2 });
    state = ok(failTask(state, "a", "boom", NOW)).state;
    expect(state.tasks[0]).toMatchObject({ status: "failed", attempts: 1, error: "boom" });
    state = ok(startTask(state, "a", NOW)).state;
    state = ok(failTask(state, "a", "boom again", NOW)).state;
    expect(state.tasks[0]).toMatchObject({ status: "dead", attempts: 2 });
    state = ok(retryTask(state, "a", 1, NOW)).state;
    expect(state.tasks[0]).toMatchObject({ status: "pending", attempts: 2, max_attempts: 3 });
  });

  it.each<[string, Parameters<typeof task>[1], number, string]>([
    [
      "dead, titled, its error",
      { title: "Login form", status: "dead", attempts: 3, error: "tests fail" },
      2,
      'Give a ("Login form", dead after 3 of 3 attempts: tests fail) 2 more attempts? It runs again.',
    ],
    [
      "failed, no title, no error, one attempt",
      { status: "failed", attempts: 1, max_attempts: 4 },
      1,
      "Give a (failed after 1 of 4 attempts) 1 more attempt? It runs again.",
    ],
    [
      "a long error on one line, cut, its controls shown",
      { status: "dead", attempts: 3, error: `line one\n\u001b[2J${"x".repeat(200)}` },
      2,
      `Give a (dead after 3 of 3 attempts: line one \\u001b[2J${"x".repeat(101)}…) 2 more attempts? It runs again.`,
    ],
  ])("retry's question: %s", (_name, overrides, extra, question) => {
    expect(retryQuestion(execution([task("a", overrides)]), "a", extra)).toBe(question);
  });

  it("complete takes a valid output", () => {
    const state = ok(
      completeTask(
        execution([task("a", { status: "running" })]),
        "a",
        reports({ "memory/reports/tasks/a.json": { task_id: "a", status: "complete" } }),
        NOW,
      ),
    ).state;
    expect(state.tasks[0]).toMatchObject({ status: "complete", completed_at: NOW.toISOString() });
  });

  it("finds no cycle in a chain of 10,000 tasks, and the whole cycle when the chain is closed", () => {
    const chain = Array.from({ length: 10_000 }, (_, i) =>
      task(`t${i}`, { depends_on: i === 0 ? [] : [`t${i - 1}`] }),
    ).reverse();
    expect(findCycle(chain)).toBeUndefined();
    const closed = chain.map((t) => (t.id === "t0" ? { ...t, depends_on: ["t9999"] } : t));
    expect(findCycle(closed)?.length).toBe(10_001);
  });

  it("names the cycle from where it closes, not the path that led into it", () => {
    const tasks = [
      task("x", { depends_on: ["a"] }),
      task("a", { depends_on: ["missing", "b"] }),
      task("b", { depends_on: ["c"] }),
      task("c", { depends_on: ["a"] }),
    ];
    expect(findCycle(tasks)).toEqual(["a", "b", "c", "a"]);
    expect(findCycle([task("s", { depends_on: ["s"] })])).toEqual(["s", "s"]);
  });
});
