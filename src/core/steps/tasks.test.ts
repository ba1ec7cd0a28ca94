import { describe, expect, it } from "vitest";
import { DEVELOP, REPORT, type TasksStep } from "../flow.js";
import { NOW, atPhase, execution, reports, task } from "../fixtures.test-support.js";
import type { NextAction } from "../plan-resume.js";
import type { ExecutionState } from "../../schema/execution.js";
import { skippedSteps, tasksKind } from "./tasks.js";
import { PLAN_TASKS, resumeAt, spawnAt } from "./context.test-support.js";
import type { ResumeContext } from "./types.js";

const IMPL = DEVELOP.steps[2] as TasksStep;
const phase = atPhase("IMPLEMENTATION");
const planned = (tasks: ExecutionState["tasks"]) =>
  execution(tasks, { plans: [{ round: 0, recorded_at: "2026-11-20T10:30:00Z", tasks: tasks.length }] });
const t = (id: string, status: "pending" | "running" | "complete" | "dead") => task(id, { status });
const at = (overrides: Partial<ResumeContext>) => resumeAt({ phase, ...overrides });

const rows: [string, Partial<ResumeContext>, Partial<NextAction>][] = [
  [
    "no plan recorded → plan round 0 from the design",
    {},
    { action: "plan_tasks", round: 0, plan_from: REPORT.finalDesign },
  ],
  [
    "two ready, one slot → run one",
    { execution: planned([t("a", "pending"), t("b", "pending")]), maxParallel: 1 },
    { action: "run_tasks", tasks: ["a"], reason: "2 tasks ready, 1 to run now (at most 1 at once)", round: 0 },
  ],
  [
    "one in flight, one ready, two slots → run the other, the flying one said",
    { execution: planned([t("a", "running"), t("b", "pending")]), inFlight: ["a"] },
    {
      action: "run_tasks",
      tasks: ["b"],
      reason: "1 task ready, 1 to run now (at most 2 at once); 1 in flight (a)",
      round: 0,
    },
  ],
  [
    "every slot in flight → wait for them",
    { execution: planned([t("a", "running"), t("b", "pending")]), inFlight: ["a"], maxParallel: 1 },
    { action: "await_agents", reason: "the executor of a is at work; wait for its result", round: 0 },
  ],
  [
    "a dead task blocks → the person decides",
    { execution: planned([t("a", "dead"), t("b", "complete")]) },
    { action: "resolve_dead_tasks", tasks: ["a"], round: 0 },
  ],
  [
    "running, owner not live → tasks are running",
    { execution: planned([t("a", "running")]) },
    { action: "await_agents", reason: "tasks are running", round: 0 },
  ],
  [
    "legacy rework round open, no tasks → the bare rework executor",
    {
      execution: execution([]),
      reworkOpen: true,
      phase: {
        ...phase,
        rework: {
          round: 1,
          verification: "memory/reports/verification.rework-1.json",
          started_at: "2026-11-20T11:00:00Z",
        },
      },
    },
    {
      action: "spawn_agent",
      agent: "executor",
      reason:
        "verification failed: fix what memory/reports/verification.rework-1.json lists, then `dotagent phase complete IMPLEMENTATION`",
    },
  ],
  [
    "legacy execution without tasks → plan round 0",
    { execution: execution([]) },
    { action: "plan_tasks", round: 0, plan_from: REPORT.finalDesign },
  ],
];

describe("tasks step: the resume rule", () => {
  it.each(rows)("%s", (_name, overrides, next) => expect(tasksKind.next(IMPL, at(overrides))).toMatchObject(next));
  it("a step passed over does not count as the plan's source", () => {
    const skipped = {
      ...phase,
      completed_phases: [{ phase: "X", completed_at: phase.started_at, output: null, skipped: true }],
    };
    expect([...skippedSteps(skipped)]).toEqual(["X"]);
  });
});

describe("tasks step: what the planner records as it reaches the step", () => {
  const arrive = (files: Record<string, object>, exec?: ExecutionState) =>
    tasksKind.recordBeforeProof(IMPL, { phase, execution: exec, reports: reports(files), now: NOW });
  it("the design's own task list becomes round 0's plan, in one write", () => {
    const record = arrive({ [REPORT.finalDesign]: { tasks: [{ id: "a" }, { id: "b", depends_on: ["a"] }] } });
    expect(record?.repair).toEqual({
      code: "plan_recorded",
      message: "recorded the task plan of final_design.json (2 tasks)",
    });
    expect(record?.execution?.tasks.map((x) => [x.id, x.depends_on])).toEqual([
      ["a", []],
      ["b", ["a"]],
    ]);
    expect(record?.execution?.plans).toEqual([{ round: 0, recorded_at: NOW.toISOString(), tasks: 2 }]);
  });
  it.each([
    ["no tasks in the design", { [REPORT.finalDesign]: { design: "x" } }, undefined],
    ["a bad id: left to plan_tasks", { [REPORT.finalDesign]: { tasks: [{ id: "../x" }] } }, undefined],
    ["a plan recorded already", { [REPORT.finalDesign]: { tasks: [{ id: "a" }] } }, planned([t("a", "pending")])],
  ] as const)("%s: nothing", (_name, files, exec) => expect(arrive(files, exec)).toBeUndefined());
});

describe("tasks step: transitions", () => {
  const proof = (exec: ExecutionState | undefined, files: Record<string, object> = {}) =>
    tasksKind.prove(IMPL, { reports: reports(files), execution: exec, state: phase });
  it.each([
    ["no execution.json", undefined, {}, { done: false, missing: "execution.json does not exist" }],
    [
      "no plan recorded",
      execution([t("a", "complete")], { plans: [] }),
      {},
      { done: false, missing: "no task plan is recorded (`dotagent task import FILE`)" },
    ],
    ["a task open", planned([t("a", "pending")]), {}, { done: false, missing: "1 task not complete (a: pending)" }],
    [
      "complete without its output",
      planned([t("a", "complete")]),
      {},
      { done: false, missing: "memory/reports/tasks/a.json of task a does not exist" },
    ],
    [
      "every task complete with its output",
      planned([t("a", "complete")]),
      { "memory/reports/tasks/a.json": {} },
      { done: true, output: REPORT.execution },
    ],
  ] as const)("%s", (_name, exec, files, expected) => expect(proof(exec, files)).toEqual(expected));
  it("its output is execution.json, not a report; its reports stay through a rework round", () =>
    expect([tasksKind.outputIsReport, tasksKind.reworkMovesReports, tasksKind.takesDesigns]).toEqual([
      false,
      false,
      false,
    ]));
});

describe("tasks step: the runner's move", () => {
  it("an older dotagent's bare rework executor: plan the round instead", () =>
    expect(tasksKind.spawn(IMPL, spawnAt({ action: "spawn_agent", agent: "executor" }))).toBe(PLAN_TASKS));
});
