import { describe, expect, it } from "vitest";
import { parseStatusFilter, rowTime, taskRow, taskRows, whereText } from "./task-list.js";
import { NOW, execution, task } from "./fixtures.test-support.js";

const SHA = "34e1dc7984ee84587116ae5ce885df88b12659fc";
const BASE = "c8b1a6e3b4e0baff5306ed12e0ed977a682bc0f5";
const OWNER = { session: "s-1", pid: 4242, pid_start: "1", host: "dev", at: "2026-11-20T11:00:00Z" };
const tree = (merge: object | null = null) => ({
  path: ".dotagent/worktrees/a",
  branch: "dotagent/wf/a",
  into: "main",
  base: BASE,
  merge: merge as never,
});
const merged = (commit: string | null) =>
  tree({ state: "merged", into: "main", onto: BASE, head: BASE, commit, at: "2026-11-20T11:30:00Z" });

describe("one row per task", () => {
  it("a running task: who holds it, which attempt, its worktree", () => {
    const state = execution([
      task("a", { status: "running", attempts: 1, started_at: "2026-11-20T11:10:00Z", owner: OWNER, worktree: tree() }),
    ]);
    expect(taskRow(state.tasks[0]!, state, new Map([["a", "live"]]))).toEqual({
      id: "a",
      title: null,
      status: "running",
      attempts: 1,
      cut_off: 0,
      max_attempts: 3,
      depends_on: [],
      waiting_on: [],
      owner: { session: "s-1", pid: 4242, host: "dev", at: "2026-11-20T11:10:00Z", verdict: "live", attempt: 2 },
      started_at: "2026-11-20T11:10:00Z",
      completed_at: null,
      error: null,
      worktree: { path: ".dotagent/worktrees/a", branch: "dotagent/wf/a", into: "main", base: BASE },
      merge: null,
      skipped: null,
    });
  });

  it("cut_off: how many of its attempts were cut off, never more than its attempts (a hand-edited count)", () => {
    const state = execution([
      task("a", { status: "pending", attempts: 2, cut_off: 1 }),
      task("b", { status: "pending", attempts: 1, cut_off: 5 }),
      task("c", { status: "pending" }),
    ]);
    expect(state.tasks.map((t) => taskRow(t, state, undefined).cut_off)).toEqual([1, 1, 0]);
  });

  it("a complete task keeps no holder; its merge says where it landed", () => {
    const state = execution([
      task("a", { status: "complete", owner: OWNER, worktree: merged(SHA), completed_at: "2026-11-20T11:30:00Z" }),
    ]);
    const row = taskRow(state.tasks[0]!, state, undefined);
    expect(row.owner).toBeNull();
    expect(row.merge).toEqual({
      state: "merged",
      into: "main",
      commit: SHA,
      at: "2026-11-20T11:30:00Z",
      files: [],
      reason: null,
    });
  });

  it("waiting_on: the dependencies not complete or skipped", () => {
    const state = execution([
      task("a", { status: "complete" }),
      task("b", { status: "skipped", skipped: { reason: "r", at: NOW.toISOString() } }),
      task("c"),
      task("d", { depends_on: ["a", "b", "c"] }),
    ]);
    expect(taskRows(state, undefined).map((r) => [r.id, r.waiting_on])).toEqual([
      ["a", []],
      ["b", []],
      ["c", []],
      ["d", ["c"]],
    ]);
  });

  it("a filter keeps the statuses asked for, in file order", () => {
    const state = execution([
      task("a", { status: "complete" }),
      task("b", { status: "dead", attempts: 3 }),
      task("c"),
      task("d", { status: "running" }),
    ]);
    expect(taskRows(state, undefined, ["running", "dead"]).map((r) => r.id)).toEqual(["b", "d"]);
    expect(taskRows(undefined, undefined)).toEqual([]);
  });
});

describe("the WHERE column and the time", () => {
  const row = (
    overrides: Parameters<typeof task>[1],
    verdict: "live" | "unknown" | "gone" = "live",
    others = [task("z")],
  ) => {
    const state = execution([task("a", overrides), ...others]);
    return taskRow(state.tasks[0]!, state, new Map([["a", verdict]]));
  };
  it.each([
    [
      "running, live owner, in a worktree",
      row({ status: "running", owner: OWNER, worktree: tree() }),
      "pid 4242, .dotagent/worktrees/a",
    ],
    ["running, owner gone", row({ status: "running", owner: OWNER }, "gone"), "pid 4242 (gone)"],
    ["running on another host", row({ status: "running", owner: OWNER }, "unknown"), "pid 4242 on dev"],
    ["merged", row({ status: "complete", worktree: merged(SHA) }), "merged into main as 34e1dc7"],
    ["nothing to merge", row({ status: "complete", worktree: merged(null) }), "nothing to merge into main"],
    [
      "a conflict, dead",
      row({
        status: "dead",
        attempts: 3,
        worktree: tree({
          state: "conflict",
          into: "main",
          files: ["x.ts", "y.ts"],
          reason: "conflict",
          at: NOW.toISOString(),
        }),
      }),
      "not merged: conflict in x.ts, y.ts; dotagent/wf/a kept",
    ],
    ["pending, ready", row({}), "ready"],
    ["pending, waiting", row({ depends_on: ["z"] }), "waits for z"],
    ["complete in a shared round", row({ status: "complete" }), ""],
  ])("%s", (_name, r, text) => {
    expect(whereText(r)).toBe(text);
  });

  it("the time is when it started, completed or was skipped; none while pending", () => {
    const state = execution([
      task("a", { status: "running", started_at: "2026-11-20T11:00:00Z" }),
      task("b", { status: "complete", started_at: "2026-11-20T11:00:00Z", completed_at: "2026-11-20T11:30:00Z" }),
      task("c", { status: "skipped", skipped: { reason: "r", at: "2026-11-20T11:45:00Z" } }),
      task("d", { started_at: "2026-11-20T11:00:00Z", attempts: 1 }),
    ]);
    expect(taskRows(state, undefined).map(rowTime)).toEqual([
      "2026-11-20T11:00:00Z",
      "2026-11-20T11:30:00Z",
      "2026-11-20T11:45:00Z",
      null,
    ]);
  });
});

describe("--status", () => {
  it.each([
    ["running,failed", { ok: true, statuses: ["running", "failed"] }],
    [" dead , dead", { ok: true, statuses: ["dead"] }],
    ["skipped", { ok: true, statuses: ["skipped"] }],
    ["", { ok: false }],
    [",", { ok: false }],
    [
      "done",
      {
        ok: false,
        message:
          '--status: "done" is not a task status; give one or more of pending, running, complete, failed, dead, skipped',
      },
    ],
  ])("%j", (text, expected) => {
    expect(parseStatusFilter(text)).toMatchObject(expected);
  });
});
