// The `task` operations' decisions as tables (issue 41): refusals, transitions, attempts,
// dependencies, retry limits, the next tasks, plan edits and the lines they print, in-process.
// What only the built CLI can show (exit codes and --json from a process, the lock, files on disk,
// git, the person's reply) stays in test/tasks.test.ts and test/cli.test.ts.
import { describe, expect, it } from "vitest";
import type { ExecutionState, Task } from "../schema/execution.js";
import type { Owner, OwnerVerdict } from "./ownership.js";
import type { PlanEdit } from "./plan-edit.js";
import {
  needsVerdicts,
  nextTasksOf,
  planRetryQuestion,
  planTaskChange,
  planTaskEdit,
  retryIsPersons,
  taskChangeLine,
  type TaskFacts,
} from "./task-plan.js";
import type { TaskChange } from "./tasks.js";
import { NOW, atPhase, execution, reports, task } from "./fixtures.test-support.js";
import type { ReportSnapshot } from "./reports.js";

const AT = NOW.toISOString();
const PHASE = atPhase("IMPLEMENTATION");
const RECORDED = { plans: [{ round: 0, recorded_at: "2026-11-20T11:00:00Z", tasks: 3 }] };
const OWNER: Owner = { pid: 4242, host: "box", at: "2026-11-20T11:30:00Z", session: null };
const SHA = "0123456789abcdef0123456789abcdef01234567";
const TREE = { path: ".dotagent/worktrees/t2", branch: "dotagent/wf-login/t2", into: "main", base: SHA, merge: null };

/** The spawned tests' plan: t1 "Login form" ← t2 "Session store" ← t3 "Logout", recorded as round 0's plan. */
const chain = (t1: Partial<Task> = {}, t2: Partial<Task> = {}, t3: Partial<Task> = {}) =>
  execution(
    [
      task("t1", { title: "Login form", ...t1 }),
      task("t2", { title: "Session store", depends_on: ["t1"], ...t2 }),
      task("t3", { title: "Logout", depends_on: ["t2"], ...t3 }),
    ],
    RECORDED,
  );
/** Mid-round: t1 complete, t2 running for a live owner, t3 pending. */
const midRound = () => chain({ status: "complete", completed_at: AT }, { status: "running", owner: OWNER });
const dead = (t1: Partial<Task> = {}) => chain({ status: "dead", attempts: 3, error: "tests fail", ...t1 });
const T1_DONE = { "memory/reports/tasks/t1.json": { task_id: "t1", status: "complete" } };

function facts(
  exec: ExecutionState | undefined,
  more: { reports?: ReportSnapshot; byModel?: boolean; verdicts?: Record<string, OwnerVerdict>; owner?: Owner } = {},
): TaskFacts {
  return {
    phase: PHASE,
    execution: exec,
    reports: more.reports ?? reports(),
    now: NOW,
    byModel: more.byModel ?? false,
    verdicts: new Map(Object.entries(more.verdicts ?? {})),
    owner: more.owner,
  };
}

describe("task changes refused: code, message, exit 1, nothing to write", () => {
  it.each<[string, TaskFacts, TaskChange, string, string]>([
    [
      "add: an id in use",
      facts(chain()),
      { action: "add", id: "t1" },
      "duplicate_task",
      "task t1 already exists; pick another id",
    ],
    [
      "add: an unknown dependency",
      facts(chain()),
      { action: "add", id: "t4", dependsOn: ["t9"] },
      "unknown_dependency",
      "task t4 depends on t9, which does not exist; add t9 first or fix --depends-on",
    ],
    [
      "import: no tasks",
      facts(undefined),
      { action: "import", tasks: [] },
      "empty_plan",
      'the plan has no tasks; list every task as {"id": …, "title": …, "depends_on": […]}',
    ],
    [
      "import: an id in use with other content",
      facts(chain()),
      { action: "import", tasks: [{ id: "t2", title: "other" }] },
      "task_conflict",
      "task t2 already exists with another title or depends_on; give the new task another id, or import the same content",
    ],
    [
      "import: a cycle inside the plan",
      facts(undefined),
      {
        action: "import",
        tasks: [
          { id: "a", depends_on: ["b"] },
          { id: "b", depends_on: ["a"] },
        ],
      },
      "dependency_cycle",
      "dependencies would form a cycle: a → b → a",
    ],
    [
      "start: a dependency not complete",
      facts(chain()),
      { action: "start", id: "t2" },
      "task_refused",
      "task t2 cannot start: it depends on t1, not complete yet",
    ],
    [
      "start: before the plan is recorded (tasks added one by one)",
      facts(execution([task("t1", { title: "form" })], { plans: [] })),
      { action: "start", id: "t1" },
      "plan_not_recorded",
      "task t1 cannot start before the task plan is recorded: write every task from final_design.json to memory/reports/plan.json, then `dotagent task import memory/reports/plan.json`; include t1, added one by one",
    ],
    [
      "start: a skipped task",
      facts(chain({ status: "skipped", skipped: { reason: "done by hand", at: AT } })),
      { action: "start", id: "t1" },
      "task_refused",
      "task t1 was skipped (done by hand); it is not run",
    ],
    [
      "start: a complete task",
      facts(midRound()),
      { action: "start", id: "t1" },
      "task_refused",
      "task t1 is already complete",
    ],
    [
      "start: a dead task",
      facts(dead()),
      { action: "start", id: "t1" },
      "task_refused",
      "task t1 is dead after 3 failed attempts; a person can run `dotagent task retry t1 --extra-attempts 1`",
    ],
    [
      "start: running for a live owner (two sessions never run one task)",
      facts(midRound(), { verdicts: { t2: "live" } }),
      { action: "start", id: "t2" },
      "task_refused",
      "task t2 is already running, owned by a process outside Claude Code (pid 4242 on host box, since 2026-11-20T11:30:00Z); it is in flight, so it is not started twice",
    ],
    [
      "start: running, its owner gone",
      facts(midRound(), { verdicts: { t2: "gone" } }),
      { action: "start", id: "t2" },
      "task_refused",
      "task t2 is already running (since an unknown time) and its owner is gone; if its executor died, run `dotagent resume` to recover it",
    ],
    [
      "start: an unknown task",
      facts(chain()),
      { action: "start", id: "t9" },
      "unknown_task",
      "task t9 does not exist; see `dotagent task next` or `dotagent status`",
    ],
    [
      "complete: no report",
      facts(chain({ status: "running" })),
      { action: "complete", id: "t1" },
      "task_refused",
      'task t1 cannot complete: memory/reports/tasks/t1.json does not exist; the executor writes {"task_id": "t1", "status": "complete", …} there first',
    ],
    [
      "complete: a report for another task",
      facts(chain({ status: "running" }), { reports: reports({ "memory/reports/tasks/t1.json": { task_id: "t2" } }) }),
      { action: "complete", id: "t1" },
      "task_refused",
      "task t1 cannot complete: memory/reports/tasks/t1.json is for task t2",
    ],
    [
      "complete: a report that says failed",
      facts(chain({ status: "running" }), {
        reports: reports({ "memory/reports/tasks/t1.json": { task_id: "t1", status: "failed" } }),
      }),
      { action: "complete", id: "t1" },
      "task_refused",
      'task t1 cannot complete: memory/reports/tasks/t1.json says status "failed"; use `dotagent task fail t1`',
    ],
    [
      "complete: a dead task",
      facts(dead(), { reports: reports(T1_DONE) }),
      { action: "complete", id: "t1" },
      "task_refused",
      "task t1 is dead; a person must retry it first (`dotagent task retry t1 --extra-attempts 1`)",
    ],
    [
      "complete: a worktree task without its report is refused before any landing",
      facts(chain({ status: "complete" }, { status: "running", worktree: TREE })),
      { action: "complete", id: "t2" },
      "task_refused",
      'task t2 cannot complete: memory/reports/tasks/t2.json does not exist; the executor writes {"task_id": "t2", "status": "complete", …} there first',
    ],
    [
      "fail: a complete task",
      facts(midRound()),
      { action: "fail", id: "t1" },
      "task_refused",
      "task t1 is complete; it cannot fail now",
    ],
    ["fail: a dead task", facts(dead()), { action: "fail", id: "t1" }, "task_refused", "task t1 is already dead"],
    [
      "fail: a task never started (its attempts are not the model's to spend)",
      facts(chain()),
      { action: "fail", id: "t1" },
      "task_refused",
      "task t1 is pending: no attempt of it is running, so there is nothing to fail (`dotagent task skip t1 --reason …` leaves it out of the plan)",
    ],
    [
      "fail: a task requeued after a failure, no attempt at work",
      facts(chain({ status: "pending", attempts: 1, error: "red" })),
      { action: "fail", id: "t1" },
      "task_refused",
      "task t1 is pending: no attempt of it is running, so there is nothing to fail (`dotagent task skip t1 --reason …` leaves it out of the plan)",
    ],
    [
      "fail: a failed task not yet requeued is not failed twice",
      facts(chain({ status: "failed", attempts: 1, error: "red" })),
      { action: "fail", id: "t1" },
      "task_refused",
      "task t1 is failed: no attempt of it is running, so there is nothing to fail (`dotagent task skip t1 --reason …` leaves it out of the plan)",
    ],
    [
      "retry: a task never tried",
      facts(chain()),
      { action: "retry", id: "t2", extraAttempts: 2 },
      "task_refused",
      "task t2 is pending; only failed or dead tasks can be retried",
    ],
    [
      "retry: a dead task without more attempts",
      facts(dead()),
      { action: "retry", id: "t1" },
      "task_refused",
      "task t1 has used 3 of 3 attempts; give it more with --extra-attempts N",
    ],
    [
      "release: a task not running",
      facts(chain()),
      { action: "release", id: "t1" },
      "task_refused",
      "task t1 is pending, not running; there is nothing to give back",
    ],
    [
      "release: another owner's task",
      facts(midRound()),
      { action: "release", id: "t2", owner: 7 },
      "task_refused",
      "task t2 is owned by a process outside Claude Code (pid 4242 on host box, since 2026-11-20T11:30:00Z), not by pid 7; only its owner gives it back",
    ],
  ])("%s", (_name, given, change, code, message) => {
    expect(planTaskChange(given, change)).toEqual({ kind: "refuse", code, message, exit: 1 });
  });

  // An attempt is its executor's: from an agent's shell, its end waits for the executor to stop.
  it.each<[TaskChange["action"], OwnerVerdict, boolean, "refuse" | "write"]>([
    ["complete", "live", true, "refuse"],
    ["fail", "live", true, "refuse"],
    ["release", "unknown", true, "refuse"],
    ["fail", "gone", true, "write"],
    ["fail", "live", false, "write"],
  ])("%s of a running task whose owner is %s, from an agent's shell %s: %s", (action, verdict, byModel, kind) => {
    const given = facts(midRound(), {
      byModel,
      verdicts: { t2: verdict },
      reports: reports({ "memory/reports/tasks/t2.json": { task_id: "t2", status: "complete" } }),
    });
    const plan = planTaskChange(given, { action, id: "t2" });
    expect(plan.kind).toBe(kind);
    if (kind === "refuse")
      expect(plan).toEqual({
        kind: "refuse",
        code: "agent_at_work",
        message:
          "t2's executor is at work; its result is recorded when it stops (its notification or the Agent call's result says so): wait for it",
        exit: 1,
        details: { task: "t2" },
      });
  });
});

describe("the process table is looked at only when the plan needs its owners' verdicts", () => {
  it.each<[TaskChange["action"], boolean, boolean]>([
    ["start", false, true], // two sessions never run one task
    ["complete", true, true], // an executor at work
    ["fail", true, true],
    ["release", true, true],
    ["complete", false, false],
    ["add", true, false],
    ["import", true, false],
    ["retry", true, false],
  ])("%s, from an agent's shell %s: %s", (action, byModel, needed) => {
    expect(needsVerdicts(action, byModel)).toBe(needed);
  });
});

describe("task changes carried out: the task after, the events", () => {
  it.each<[string, TaskFacts, TaskChange, Partial<Task>, Array<Record<string, unknown>>]>([
    [
      "add: pending, its dependencies kept",
      facts(chain()),
      { action: "add", id: "t4", title: "Docs", dependsOn: ["t3"] },
      {
        id: "t4",
        title: "Docs",
        status: "pending",
        depends_on: ["t3"],
        attempts: 0,
        output: "memory/reports/tasks/t4.json",
      },
      [{ type: "task_added", task_id: "t4" }],
    ],
    [
      "start: running for its owner, attempt 1",
      facts(chain(), { owner: OWNER }),
      { action: "start", id: "t1" },
      { status: "running", started_at: AT, completed_at: null, error: null, owner: OWNER, attempts: 0 },
      [{ type: "task_started", task_id: "t1", attempt: 1, session: null, pid: 4242 }],
    ],
    [
      "start: a failed task's next attempt clears its error",
      facts(chain({ status: "pending", attempts: 1, error: "red" })),
      { action: "start", id: "t1" },
      { status: "running", attempts: 1, error: null },
      [{ type: "task_started", task_id: "t1", attempt: 2 }],
    ],
    [
      "start: a dependency skipped counts as done",
      facts(chain({ status: "skipped", skipped: { reason: "by hand", at: AT } })),
      { action: "start", id: "t2" },
      { id: "t2", status: "running" },
      [{ type: "task_started", task_id: "t2", attempt: 1 }],
    ],
    [
      "complete: with its report",
      facts(chain({ status: "running" }), { reports: reports(T1_DONE) }),
      { action: "complete", id: "t1" },
      { status: "complete", completed_at: AT, output: "memory/reports/tasks/t1.json", error: null },
      [{ type: "task_completed", task_id: "t1" }],
    ],
    [
      "complete: the report at --output",
      facts(chain({ status: "running" }), {
        reports: reports({ "out/t1.json": { task_id: "t1", status: "complete" } }),
      }),
      { action: "complete", id: "t1", output: "out/t1.json" },
      { status: "complete", output: "out/t1.json" },
      [{ type: "task_completed", task_id: "t1" }],
    ],
    [
      "fail: attempt 1 of 3, failed with its error",
      facts(chain({ status: "running" })),
      { action: "fail", id: "t1", error: "red" },
      { status: "failed", attempts: 1, error: "red" },
      [{ type: "task_failed", task_id: "t1", attempts: 1, error: "red" }],
    ],
    [
      "fail: without --error keeps the last error",
      facts(chain({ status: "running", attempts: 1, error: "red" })),
      { action: "fail", id: "t1" },
      { status: "failed", attempts: 2, error: "red" },
      [{ type: "task_failed", task_id: "t1", attempts: 2, error: "red" }],
    ],
    [
      "fail: the third attempt makes it dead",
      facts(chain({ status: "running", attempts: 2 })),
      { action: "fail", id: "t1", error: "tests fail" },
      { status: "dead", attempts: 3, error: "tests fail" },
      [{ type: "task_dead", task_id: "t1", attempts: 3, error: "tests fail" }],
    ],
    [
      "fail: a task's own max_attempts counts",
      facts(chain({ status: "running", attempts: 4, max_attempts: 5 })),
      { action: "fail", id: "t1" },
      { status: "dead", attempts: 5, error: "failed" },
      [{ type: "task_dead", task_id: "t1", attempts: 5, error: "failed" }],
    ],
    [
      "retry: a dead task with 2 more attempts (a person's)",
      facts(dead()),
      { action: "retry", id: "t1", extraAttempts: 2 },
      { status: "pending", attempts: 3, max_attempts: 5, error: null },
      [{ type: "task_retried", task_id: "t1", max_attempts: 5 }],
    ],
    [
      "retry: a failed task within its attempts is requeued, none added",
      facts(chain({ status: "failed", attempts: 1, error: "tests fail" })),
      { action: "retry", id: "t1" },
      { status: "pending", attempts: 1, max_attempts: 3, error: null },
      [{ type: "task_retried", task_id: "t1", max_attempts: 3 }],
    ],
    [
      "retry: a failure already requeued (pending after an attempt) runs again, none added",
      facts(chain({ status: "pending", attempts: 1, error: "tests fail" })),
      { action: "retry", id: "t1" },
      { status: "pending", attempts: 1, max_attempts: 3, error: null },
      [{ type: "task_retried", task_id: "t1", max_attempts: 3 }],
    ],
    [
      "release: pending again, no attempt counted, no owner",
      facts(midRound()),
      { action: "release", id: "t2", owner: 4242 },
      { status: "pending", attempts: 0, started_at: null },
      [{ type: "task_released", task_id: "t2", attempts: 0 }],
    ],
  ])("%s", (_name, given, change, after, events) => {
    const plan = planTaskChange(given, change);
    if (plan.kind !== "write") throw new Error(`expected a write: ${JSON.stringify(plan)}`);
    expect(plan.state.tasks.find((t) => t.id === change.id)).toMatchObject(after);
    expect(plan.events).toEqual(events);
    expect(plan.state.updated_at).toBe(AT);
    expect(plan.state).not.toBe(plan.before);
  });

  it("release gives the task back without its owner", () => {
    const plan = planTaskChange(facts(midRound()), { action: "release", id: "t2", owner: 4242 });
    expect(plan.kind === "write" && plan.state.tasks[1]).not.toHaveProperty("owner");
  });

  it("complete of a complete task changes nothing (a hook or resume recorded it): no write", () => {
    const before = midRound();
    const plan = planTaskChange(facts(before, { reports: reports(T1_DONE) }), { action: "complete", id: "t1" });
    expect(plan).toMatchObject({ kind: "write", events: [] });
    expect(plan.kind === "write" && plan.state).toBe(before);
  });

  it("complete of a running task in a worktree, its report there: landed (git decides the rest)", () => {
    const given = facts(chain({ status: "complete" }, { status: "running", worktree: TREE }), {
      reports: reports({ "memory/reports/tasks/t2.json": { task_id: "t2", status: "complete" } }),
    });
    expect(planTaskChange(given, { action: "complete", id: "t2" })).toEqual({ kind: "land", id: "t2" });
  });

  it("no execution.json yet: add starts the plan for the workflow", () => {
    const plan = planTaskChange(facts(undefined), { action: "add", id: "a" });
    expect(plan).toMatchObject({ kind: "write", state: { workflow_id: "wf-login", max_attempts: 3 } });
    expect(plan.kind === "write" && plan.state.tasks.map((t) => t.id)).toEqual(["a"]);
  });

  it.each<[string, ExecutionState | undefined, TaskChange["tasks"], string[], string[], object | null, string[]]>([
    [
      "the plan: every task added and round 0 recorded",
      undefined,
      [
        { id: "t1", title: "form" },
        { id: "t2", depends_on: ["t1"] },
      ],
      ["t1", "t2"],
      [],
      { round: 0, recorded_at: AT, tasks: 2 },
      ["task_added", "task_added", "plan_recorded"],
    ],
    [
      "again after a crash: the same tasks skipped, the plan already recorded",
      chain(),
      [
        { id: "t1", title: "Login form" },
        { id: "t2", title: "Session store", depends_on: ["t1"] },
        { id: "t3", title: "Logout", depends_on: ["t2"] },
      ],
      [],
      ["t1", "t2", "t3"],
      null,
      [],
    ],
    [
      "tasks added one by one, then the plan: the new ones added, round 0 recorded",
      execution([task("task-001", { title: "form" })], { plans: [] }),
      [
        { id: "task-001", title: "form" },
        { id: "task-002", title: "api", depends_on: ["task-001"] },
      ],
      ["task-002"],
      ["task-001"],
      { round: 0, recorded_at: AT, tasks: 2 },
      ["task_added", "plan_recorded"],
    ],
    [
      "more tasks once the round's plan is recorded: added, no second record",
      chain(),
      [{ id: "t4", depends_on: ["t3"] }],
      ["t4"],
      [],
      null,
      ["task_added"],
    ],
  ])("import: %s", (_name, before, tasks, added, skipped, plan, events) => {
    const planned = planTaskChange(facts(before), { action: "import", tasks });
    if (planned.kind !== "write") throw new Error(JSON.stringify(planned));
    expect(planned.imported).toMatchObject({ added, skipped, plan });
    expect(planned.events.map((e) => e.type)).toEqual(events);
  });

  it.each<[string, ReportSnapshot, object | undefined]>([
    ["no earlier output: nothing to move", reports(), undefined],
    [
      "an earlier attempt's output: set aside, named for its attempt and the time",
      reports({ "memory/reports/tasks/t1.json": { task_id: "t1", status: "failed" } }),
      { from: "memory/reports/tasks/t1.json", to: `memory/reports/tasks/t1.attempt-1-${NOW.getTime()}.json` },
    ],
    [
      "an output that is not JSON any more: set aside too",
      reports({ "memory/reports/tasks/t1.json": { status: "invalid", reason: "not JSON" } }),
      { from: "memory/reports/tasks/t1.json", to: `memory/reports/tasks/t1.attempt-1-${NOW.getTime()}.json` },
    ],
    [
      "an output path outside the project: left alone",
      reports({ "memory/reports/tasks/t1.json": { status: "outside", reason: "a link" } }),
      undefined,
    ],
  ])("start: %s", (_name, present, setAside) => {
    const plan = planTaskChange(facts(chain({ status: "pending", attempts: 1 }), { reports: present }), {
      action: "start",
      id: "t1",
    });
    expect(plan.kind === "write" && plan.setAside).toEqual(setAside ?? undefined);
  });
});

describe("plan edits: task edit, remove, skip", () => {
  // The spawned test's refusals, with their exact lines: mid-round, or "planned" (every task pending).
  it.each<[string, ExecutionState | undefined, PlanEdit, string, string]>([
    [
      "an unknown task",
      midRound(),
      { kind: "edit", id: "t9", title: "x" },
      "unknown_task",
      "task t9 does not exist; `dotagent tasks` lists the plan",
    ],
    [
      "no plan at all",
      undefined,
      { kind: "skip", id: "t1", reason: "x" },
      "unknown_task",
      "task t1 does not exist: no task is planned yet (memory/state/execution.json does not exist)",
    ],
    [
      "a cycle",
      chain(),
      { kind: "edit", id: "t1", dependsOn: ["t3"] },
      "dependency_cycle",
      "task t1 cannot depend on t3: the dependencies would form a cycle: t1 → t3 → t2 → t1",
    ],
    [
      "a task depending on itself",
      midRound(),
      { kind: "edit", id: "t3", dependsOn: ["t3"] },
      "dependency_cycle",
      "task t3 cannot depend on t3: the dependencies would form a cycle: t3 → t3",
    ],
    [
      "an unknown dependency",
      midRound(),
      { kind: "edit", id: "t3", dependsOn: ["t1", "t8"] },
      "unknown_dependency",
      "task t3 cannot depend on t8, which does not exist; `dotagent tasks` lists the plan",
    ],
    [
      "editing a running task",
      midRound(),
      { kind: "edit", id: "t2", title: "x" },
      "task_not_editable",
      "task t2 is running: its executor works from the plan as it is; change it after this attempt ends",
    ],
    [
      "removing a task another depends on",
      chain(),
      { kind: "remove", id: "t2" },
      "task_has_dependants",
      "task t2 cannot be removed: t3 depends on it; first change that (`dotagent task edit t3 --depends-on ''`), or skip t2 instead (`dotagent task skip t2 --reason …`: it then counts as done for them)",
    ],
    [
      "removing a running task",
      midRound(),
      { kind: "remove", id: "t2" },
      "task_not_editable",
      "task t2 is running: its executor works from the plan as it is; remove it after this attempt ends",
    ],
    [
      "skipping a complete task",
      midRound(),
      { kind: "skip", id: "t1", reason: "x" },
      "task_not_editable",
      "task t1 is complete: its work is done, and the plan keeps it as it ran",
    ],
  ])("refused: %s", (_name, before, edit, code, message) => {
    expect(planTaskEdit(before, edit, NOW)).toEqual({ kind: "refuse", code, message, exit: 1 });
  });

  it.each<[string, ExecutionState, PlanEdit, Partial<Task> | null, Record<string, unknown>, string[], string]>([
    [
      "edit: title and dependencies",
      chain(),
      { kind: "edit", id: "t3", title: "Sign out", dependsOn: ["t1"] },
      { title: "Sign out", depends_on: ["t1"] },
      {
        type: "task_edited",
        task_id: "t3",
        title: { from: "Logout", to: "Sign out" },
        depends_on: { from: ["t2"], to: ["t1"] },
      },
      [],
      'Change task t3 ("Logout") of the plan: title "Sign out", depends on t1 (was t2)?',
    ],
    [
      "remove: a task nothing depends on",
      chain(),
      { kind: "remove", id: "t3" },
      null,
      { type: "task_removed", task_id: "t3", status: "pending", attempts: 0, title: "Logout" },
      [],
      'Remove task t3 ("Logout", pending, 0 failed attempts) from the plan?',
    ],
    [
      "skip: a dead task, its dependants named",
      dead(),
      { kind: "skip", id: "t1", reason: "done by hand" },
      { status: "skipped", skipped: { reason: "done by hand", at: AT }, attempts: 3, error: "tests fail" },
      { type: "task_skipped", task_id: "t1", reason: "done by hand", from: "dead", dependants: ["t2"] },
      ["t2"],
      'Skip task t1 ("Login form", dead) because "done by hand"? It then counts as done for t2, which may start without it.',
    ],
    [
      "skip: a pending task nothing depends on",
      midRound(),
      { kind: "skip", id: "t3", reason: "done by hand" },
      { status: "skipped" },
      { type: "task_skipped", task_id: "t3", reason: "done by hand", from: "pending" },
      [],
      'Skip task t3 ("Logout", pending) because "done by hand"?',
    ],
  ])(
    "%s: one event, and the question asked from an agent's shell",
    (_name, before, edit, after, event, dependants, question) => {
      const plan = planTaskEdit(before, edit, NOW);
      if (plan.kind !== "edit") throw new Error(plan.message);
      expect(plan.outcome.changed).toBe(true);
      if (after === null) expect(plan.outcome.state.tasks.map((t) => t.id)).not.toContain(edit.id);
      else expect(plan.outcome.state.tasks.find((t) => t.id === edit.id)).toMatchObject(after);
      expect(plan.outcome.events).toEqual([event]);
      expect(plan.outcome.dependants).toEqual(dependants);
      expect(plan.question).toBe(question);
    },
  );

  it("a skipped task is ready no more, and what depends on it is", () => {
    const plan = planTaskEdit(dead(), { kind: "skip", id: "t1", reason: "done by hand" }, NOW);
    if (plan.kind !== "edit") throw new Error(plan.message);
    expect(nextTasksOf(plan.outcome.state).tasks.map((t) => t.id)).toEqual(["t2"]);
    expect(planTaskChange(facts(plan.outcome.state), { action: "start", id: "t1" })).toMatchObject({
      kind: "refuse",
      message: "task t1 was skipped (done by hand); it is not run",
    });
  });
});

describe("task retry: more attempts are the person's to give", () => {
  it.each<[number, boolean, boolean]>([
    [2, true, true],
    [1, true, true],
    [0, true, false], // a requeue within its attempts runs at once
    [2, false, false], // outside an agent's shell: retried at once
  ])("%i more attempts, from an agent's shell %s: the person's decision %s", (extra, byModel, persons) => {
    expect(retryIsPersons(extra, byModel)).toBe(persons);
  });

  it.each<[string, ExecutionState, string, number, object]>([
    [
      "a dead task: the question names its attempts and its last error",
      dead(),
      "t1",
      2,
      {
        kind: "ask",
        question: 'Give t1 ("Login form", dead after 3 of 3 attempts: tests fail) 2 more attempts? It runs again.',
      },
    ],
    [
      "one more attempt",
      dead({ title: undefined }),
      "t1",
      1,
      { kind: "ask", question: "Give t1 (dead after 3 of 3 attempts: tests fail) 1 more attempt? It runs again." },
    ],
    ["an unknown task: refused, never asked", dead(), "t9", 2, { kind: "refuse", code: "unknown_task", exit: 1 }],
    [
      "a pending task: refused, never asked",
      dead(),
      "t2",
      2,
      { kind: "refuse", code: "task_refused", message: "task t2 is pending; only failed or dead tasks can be retried" },
    ],
  ])("%s", (_name, before, id, extra, expected) => {
    expect(planRetryQuestion(PHASE, before, id, extra, NOW)).toMatchObject(expected);
  });
});

describe("task next: ready tasks in dependency order", () => {
  it.each<[string, ExecutionState | undefined, string[]]>([
    ["no plan", undefined, []],
    ["a chain: its first task", chain(), ["t1"]],
    ["mid-round: nothing (t2 runs, t3 waits for it)", midRound(), []],
    ["a dependency complete", chain({ status: "complete" }), ["t2"]],
    ["a dependency skipped counts as done", chain({ status: "skipped", skipped: { reason: "r", at: AT } }), ["t2"]],
    ["a dead dependency blocks", dead(), []],
    ["failed tasks are not ready until requeued", chain({ status: "failed", attempts: 1 }), []],
    [
      "file order among independent tasks",
      execution([task("b"), task("a"), task("c", { depends_on: ["a"] })]),
      ["b", "a"],
    ],
  ])("%s", (_name, before, ready) => {
    expect(nextTasksOf(before).tasks.map((t) => t.id)).toEqual(ready);
  });

  it("each ready task as --json gives it", () => {
    expect(nextTasksOf(chain({ attempts: 1 }))).toEqual({
      tasks: [{ id: "t1", title: "Login form", depends_on: [], attempts: 1, output: "memory/reports/tasks/t1.json" }],
    });
  });
});

describe("the plain line of task start|complete|fail|retry", () => {
  const merged = { ...TREE, path: ".dotagent/worktrees/t1", branch: "dotagent/wf-login/t1" };
  it.each<[string, Parameters<typeof taskChangeLine>, string]>([
    ["a start", ["start", "t1", task("t1", { status: "running" }), 3, undefined], "t1: running"],
    [
      "a start in a worktree",
      ["start", "t1", task("t1", { status: "running", worktree: merged }), 3, undefined],
      "t1: running in .dotagent/worktrees/t1, branch dotagent/wf-login/t1 (merges into main)",
    ],
    [
      "a failure with attempts left",
      ["fail", "t1", task("t1", { status: "pending", attempts: 1 }), 3, undefined],
      "t1: pending (1 of 3 attempts used)",
    ],
    [
      "a complete task merged (a repeat says so from the record)",
      [
        "complete",
        "t1",
        task("t1", {
          status: "complete",
          worktree: { ...merged, merge: { state: "merged", into: "main", commit: SHA, at: AT } },
        }),
        3,
        undefined,
      ],
      "t1: complete, merged into main (0123456)",
    ],
    [
      "a landing that merged",
      ["complete", "t1", task("t1", { status: "complete" }), 3, "complete, merged into main (0123456)"],
      "t1: complete, merged into main (0123456)",
    ],
    [
      "a landing in conflict",
      [
        "complete",
        "t2",
        task("t2", { status: "pending", attempts: 1 }),
        3,
        "not merged: conflict with main in shared.txt; its branch is kept",
      ],
      "t2: not merged: conflict with main in shared.txt; its branch is kept; now pending (1 of 3 attempts used)",
    ],
  ])("%s", (_name, args, line) => {
    expect(taskChangeLine(...args)).toBe(line);
  });
});
