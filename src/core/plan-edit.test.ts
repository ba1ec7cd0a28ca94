import { describe, expect, it } from "vitest";
import { applyPlanEdit, planEditQuestion, type PlanEdit } from "./plan-edit.js";
import { readyTasks, startTask } from "./tasks.js";
import { provePhase } from "./transitions.js";
import { NOW, atPhase, execution, reports, task } from "./fixtures.test-support.js";

const SHA = "0123456789abcdef0123456789abcdef01234567";
const MERGED = {
  path: ".dotagent/worktrees/a",
  branch: "dotagent/wf/a",
  into: "main",
  base: SHA,
  merge: { state: "merged" as const, into: "main", commit: SHA, at: "2026-11-20T11:00:00Z" },
};
// a ← b ← c (c depends on b, b on a); d alone.
const plan = () =>
  execution([
    task("a", { title: "form" }),
    task("b", { depends_on: ["a"] }),
    task("c", { depends_on: ["b"] }),
    task("d"),
  ]);
const withA = (overrides: Parameters<typeof task>[1]) =>
  execution([task("a", overrides), task("b", { depends_on: ["a"] })]);

describe("plan edits refused, the state unchanged", () => {
  it.each<[string, ReturnType<typeof execution>, PlanEdit, string]>([
    ["an unknown task", plan(), { kind: "edit", id: "zz", title: "x" }, "unknown_task"],
    ["a dependency on an unknown task", plan(), { kind: "edit", id: "d", dependsOn: ["zz"] }, "unknown_dependency"],
    ["a dependency on itself", plan(), { kind: "edit", id: "d", dependsOn: ["d"] }, "dependency_cycle"],
    ["a cycle through the graph", plan(), { kind: "edit", id: "a", dependsOn: ["c"] }, "dependency_cycle"],
    [
      "editing a running task",
      withA({ status: "running" }),
      { kind: "edit", id: "a", title: "x" },
      "task_not_editable",
    ],
    [
      "editing a complete task",
      withA({ status: "complete", worktree: MERGED }),
      { kind: "edit", id: "a", title: "x" },
      "task_not_editable",
    ],
    [
      "editing a skipped task",
      withA({ status: "skipped", skipped: { reason: "r", at: NOW.toISOString() } }),
      { kind: "edit", id: "a", title: "x" },
      "task_not_editable",
    ],
    ["removing a task others depend on", plan(), { kind: "remove", id: "b" }, "task_has_dependants"],
    [
      "removing a running task",
      execution([task("a", { status: "running" }), task("b")]),
      { kind: "remove", id: "a" },
      "task_not_editable",
    ],
    [
      "removing a complete task",
      execution([task("a", { status: "complete" }), task("b")]),
      { kind: "remove", id: "a" },
      "task_not_editable",
    ],
    [
      "removing a task with a worktree",
      execution([task("a", { status: "dead", attempts: 3, worktree: { ...MERGED, merge: null } }), task("b")]),
      { kind: "remove", id: "a" },
      "task_has_worktree",
    ],
    ["removing the only task", execution([task("a")]), { kind: "remove", id: "a" }, "empty_plan"],
    [
      "skipping a running task",
      withA({ status: "running" }),
      { kind: "skip", id: "a", reason: "r" },
      "task_not_editable",
    ],
    [
      "skipping a complete task",
      withA({ status: "complete" }),
      { kind: "skip", id: "a", reason: "r" },
      "task_not_editable",
    ],
  ])("%s", (_name, state, edit, code) => {
    const result = applyPlanEdit(state, edit, NOW);
    expect(result).toMatchObject({ ok: false, code });
  });

  it("a task that others depend on is named with what to do instead", () => {
    const result = applyPlanEdit(plan(), { kind: "remove", id: "b" }, NOW);
    expect(!result.ok && result.message).toBe(
      "task b cannot be removed: c depends on it; first change that (`dotagent task edit c --depends-on ''`), or skip b instead (`dotagent task skip b --reason …`: it then counts as done for them)",
    );
  });
});

describe("plan edits carried out", () => {
  it("edit: a title and dependencies, one event naming what changed", () => {
    const result = applyPlanEdit(plan(), { kind: "edit", id: "c", title: "logout", dependsOn: ["a", "d", "a"] }, NOW);
    expect(result).toMatchObject({
      ok: true,
      changed: true,
      after: { id: "c", title: "logout", depends_on: ["a", "d"] },
    });
    expect(result.ok && result.events).toEqual([
      {
        type: "task_edited",
        task_id: "c",
        title: { from: null, to: "logout" },
        depends_on: { from: ["b"], to: ["a", "d"] },
      },
    ]);
    expect(result.ok && result.state.updated_at).toBe(NOW.toISOString());
  });

  it("edit: an empty title clears it, no dependencies is []", () => {
    const result = applyPlanEdit(plan(), { kind: "edit", id: "a", title: "", dependsOn: [] }, NOW);
    expect(result.ok && result.after).not.toHaveProperty("title");
    expect(result.ok && result.events[0]).toEqual({
      type: "task_edited",
      task_id: "a",
      title: { from: "form", to: null },
    });
  });

  it("edit of a dead or failed task is allowed and keeps its status", () => {
    const result = applyPlanEdit(
      withA({ status: "dead", attempts: 3 }),
      { kind: "edit", id: "a", title: "again" },
      NOW,
    );
    expect(result).toMatchObject({ ok: true, after: { status: "dead", attempts: 3, title: "again" } });
  });

  it("an edit the plan already says changes nothing: no event, the same state", () => {
    const state = plan();
    const result = applyPlanEdit(state, { kind: "edit", id: "c", title: undefined, dependsOn: ["b"] }, NOW);
    expect(result).toMatchObject({ ok: true, changed: false, events: [] });
    expect(result.ok && result.state).toBe(state);
  });

  it("remove: a task nothing depends on leaves the plan; the event keeps what it was", () => {
    const result = applyPlanEdit(plan(), { kind: "remove", id: "d" }, NOW);
    expect(result.ok && result.state.tasks.map((t) => t.id)).toEqual(["a", "b", "c"]);
    expect(result.ok && result.events).toEqual([
      { type: "task_removed", task_id: "d", status: "pending", attempts: 0 },
    ]);
    expect(result).toMatchObject({ after: null });
  });

  it("skip: the task is kept as skipped with its reason; its dependants may start; a second skip changes nothing", () => {
    const state = execution([
      task("a", { status: "dead", attempts: 3, error: "tests fail" }),
      task("b", { depends_on: ["a"] }),
    ]);
    expect(readyTasks(state)).toEqual([]);
    const result = applyPlanEdit(state, { kind: "skip", id: "a", reason: "done by hand" }, NOW);
    if (!result.ok) throw new Error(result.message);
    expect(result.after).toMatchObject({
      status: "skipped",
      skipped: { reason: "done by hand", at: NOW.toISOString() },
      attempts: 3,
      error: "tests fail",
    });
    expect(result.events).toEqual([
      { type: "task_skipped", task_id: "a", reason: "done by hand", from: "dead", dependants: ["b"] },
    ]);
    expect(readyTasks(result.state).map((t) => t.id)).toEqual(["b"]);
    expect(startTask(result.state, "b", NOW).ok).toBe(true);
    expect(startTask(result.state, "a", NOW)).toMatchObject({
      ok: false,
      message: "task a was skipped (done by hand); it is not run",
    });
    expect(applyPlanEdit(result.state, { kind: "skip", id: "a", reason: "other" }, NOW)).toMatchObject({
      ok: true,
      changed: false,
    });
  });

  it("IMPLEMENTATION is done when every task is complete or skipped (no report needed for a skipped one)", () => {
    const state = execution(
      [
        task("a", { status: "complete" }),
        task("b", { status: "skipped", skipped: { reason: "r", at: NOW.toISOString() } }),
      ],
      { plans: [{ round: 0, recorded_at: NOW.toISOString(), tasks: 2 }] },
    );
    const phase = atPhase("IMPLEMENTATION");
    expect(
      provePhase(
        "IMPLEMENTATION",
        reports({ "memory/reports/tasks/a.json": { task_id: "a", status: "complete" } }),
        state,
        phase,
      ),
    ).toMatchObject({ done: true });
    expect(provePhase("IMPLEMENTATION", reports({}), state, phase)).toMatchObject({
      done: false,
      missing: "memory/reports/tasks/a.json of task a does not exist",
    });
  });
});

describe("the question a plan edit puts to the person", () => {
  it.each<[PlanEdit, string]>([
    [
      { kind: "edit", id: "c", title: "logout", dependsOn: ["a"] },
      'Change task c of the plan: title "logout", depends on a (was b)?',
    ],
    [{ kind: "edit", id: "a", dependsOn: [] }, 'Change task a ("form") of the plan: depends on nothing (was nothing)?'],
    [{ kind: "remove", id: "d" }, "Remove task d (pending, 0 failed attempts) from the plan?"],
    [
      { kind: "skip", id: "a", reason: "done by hand" },
      'Skip task a ("form", pending) because "done by hand"? It then counts as done for b, which may start without it.',
    ],
  ])("%j", (edit, question) => {
    expect(planEditQuestion(plan(), edit)).toBe(question);
  });
});
