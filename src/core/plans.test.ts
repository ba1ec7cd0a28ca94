import { describe, expect, it } from "vitest";
import {
  currentRound,
  importPlan,
  missingPlan,
  planFileOf,
  planStatus,
  planTasksReason,
  startPlannedTask,
} from "./plans.js";
import { NOW, atPhase, execution, task } from "./fixtures.test-support.js";
import type { PhaseState } from "../schema/phase.js";
import { resolveWorkflow } from "./resolve-workflow.js";
import { BUILTIN_WORKFLOWS } from "./workflow-defs.js";
import { pinFlow } from "./flow-of.js";

const rec = (round: number, tasks = 1) => ({ round, recorded_at: "2026-11-20T10:30:00Z", tasks });
const rework = (round: number, closed = false): Partial<PhaseState> => ({
  rework: {
    round,
    verification: `memory/reports/verification.rework-${round}.json`,
    started_at: "2026-11-20T11:00:00Z",
    ...(closed ? { closed_at: "2026-11-20T11:30:00Z" } : {}),
  },
});
const impl = atPhase("IMPLEMENTATION");
const done = (id: string) => task(id, { status: "complete" });

describe("planStatus", () => {
  it.each([
    ["no execution.json: round 0 not recorded", impl, undefined, { kind: "unrecorded", round: 0, loose: [] }],
    ["no plans key: legacy", impl, execution([task("a")]), { kind: "legacy" }],
    [
      "plans: [] with tasks added one by one",
      impl,
      execution([task("a"), task("b")], { plans: [] }),
      { kind: "unrecorded", round: 0, loose: ["a", "b"] },
    ],
    [
      "round 0 recorded",
      impl,
      execution([task("a")], { plans: [rec(0)] }),
      { kind: "recorded", round: 0, record: rec(0) },
    ],
    [
      "open rework round 2, only round 0 and 1 recorded",
      atPhase("IMPLEMENTATION", rework(2)),
      execution([done("a"), task("fix")], { plans: [rec(0), rec(1)] }),
      { kind: "unrecorded", round: 2, loose: ["fix"] },
    ],
    [
      "open rework round 1 recorded",
      atPhase("IMPLEMENTATION", rework(1)),
      execution([done("a")], { plans: [rec(0), rec(1)] }),
      { kind: "recorded", round: 1, record: rec(1) },
    ],
    [
      "a closed rework round is round 0 again",
      atPhase("VERIFICATION", rework(1, true)),
      execution([done("a")], { plans: [rec(0), rec(1)] }),
      { kind: "recorded", round: 0, record: rec(0) },
    ],
  ] as const)("%s", (_name, phase, exec, expected) => {
    expect(planStatus(phase, exec)).toEqual(expected);
  });

  it("currentRound is the open rework round, else 0", () => {
    expect(currentRound(undefined)).toBe(0);
    expect(currentRound(atPhase("IMPLEMENTATION", rework(3)))).toBe(3);
    expect(currentRound(atPhase("IMPLEMENTATION", rework(3, true)))).toBe(0);
  });

  it("a definition's tasks step is where its rework rounds are planned (fix: FIX, not IMPLEMENTATION)", () => {
    const fix = resolveWorkflow("fix", (name) => ({ name, source: "built-in", def: BUILTIN_WORKFLOWS[name]! }));
    if (!fix.ok) throw new Error("fix does not resolve");
    const workflow = pinFlow(fix.flow) as PhaseState["workflow"];
    const back = {
      rework: {
        round: 1,
        verification: "memory/reports/verification.rework-1.json",
        started_at: "2026-11-20T11:00:00Z",
        step: "TEST",
        to: "FIX",
      },
    };
    expect(currentRound(atPhase("FIX", { ...back, workflow }))).toBe(1);
    expect(
      planStatus(atPhase("FIX", { ...back, workflow }), execution([done("fix-decode")], { plans: [rec(0)] })),
    ).toEqual({ kind: "unrecorded", round: 1, loose: [] });
    expect(currentRound(atPhase("TEST", { ...back, workflow }))).toBe(0);
  });

  it("missingPlan names the round; legacy and recorded plans miss nothing", () => {
    expect(missingPlan(impl, execution([], { plans: [] }))).toMatch(/no task plan is recorded/);
    expect(missingPlan(atPhase("IMPLEMENTATION", rework(2)), execution([], { plans: [rec(0)] }))).toMatch(
      /rework round 2 has no task plan/,
    );
    expect(missingPlan(impl, execution([task("a")]))).toBeUndefined();
    expect(missingPlan(impl, execution([task("a")], { plans: [rec(0)] }))).toBeUndefined();
  });

  it("the plan_tasks reason says where to plan from and to, and names loose tasks", () => {
    expect(planTasksReason({ kind: "unrecorded", round: 0, loose: [] })).toBe(
      "write every task from final_design.json to memory/reports/plan.json, then `dotagent task import memory/reports/plan.json`",
    );
    expect(planTasksReason({ kind: "unrecorded", round: 2, loose: ["fix-1"] })).toBe(
      "rework round 2: write every task from verification.rework-2.json to memory/reports/plan.rework-2.json, then `dotagent task import memory/reports/plan.rework-2.json`; include fix-1, added one by one",
    );
    expect(planTasksReason({ kind: "unrecorded", round: 0, loose: ["a", "b", "c", "d", "e", "f", "g"] })).toMatch(
      /include a, b, c, d, e and 2 more,/,
    );
    expect(planFileOf(0)).toBe("memory/reports/plan.json");
  });
});

describe("importPlan", () => {
  const plan = [
    { id: "a", title: "A" },
    { id: "b", title: "B", depends_on: ["a"] },
  ];
  const ok = (r: ReturnType<typeof importPlan>) => {
    if (!r.ok) throw new Error(r.message);
    return r;
  };

  it("adds every task and records round 0 in one new state", () => {
    const r = ok(importPlan(execution([], { plans: [] }), impl, plan, NOW));
    expect(r.state.tasks.map((t) => t.id)).toEqual(["a", "b"]);
    expect(r.state.plans).toEqual([{ round: 0, recorded_at: NOW.toISOString(), tasks: 2 }]);
    expect(r.added).toEqual(["a", "b"]);
    expect(r.events.map((e) => e.type)).toEqual(["task_added", "task_added", "plan_recorded"]);
  });

  it("re-importing the same plan is harmless: nothing added, no second record", () => {
    const first = ok(importPlan(execution([], { plans: [] }), impl, plan, NOW));
    const again = ok(importPlan(first.state, impl, plan, NOW));
    expect(again).toMatchObject({ added: [], skipped: ["a", "b"], plan: null });
    expect(again.state.plans).toHaveLength(1);
  });

  it("tasks added one by one before are skipped and the plan recorded", () => {
    const added = execution([task("a", { title: "A" })], { plans: [] });
    const r = ok(importPlan(added, impl, plan, NOW));
    expect(r).toMatchObject({ added: ["b"], skipped: ["a"], plan: { round: 0, tasks: 2 } });
  });

  it("an open rework round gets its own record", () => {
    const r = ok(
      importPlan(
        execution([done("a")], { plans: [rec(0)] }),
        atPhase("IMPLEMENTATION", rework(1)),
        [{ id: "fix-1" }],
        NOW,
      ),
    );
    expect(r.state.plans?.map((p) => p.round)).toEqual([0, 1]);
  });

  it("a legacy file gains plans on its first import", () => {
    const r = ok(importPlan(execution([]), impl, plan, NOW));
    expect(r.state.plans).toHaveLength(1);
  });

  it.each([
    [
      "the same id with another title",
      execution([task("a", { title: "other" })], { plans: [] }),
      plan,
      "task_conflict",
    ],
    [
      "the same id with other dependencies",
      execution([task("b", { title: "B" })], { plans: [] }),
      [{ id: "b", title: "B", depends_on: ["a"] }],
      "task_conflict",
    ],
    ["an empty plan", execution([], { plans: [] }), [], "empty_plan"],
    [
      "a cycle",
      execution([], { plans: [] }),
      [
        { id: "a", depends_on: ["b"] },
        { id: "b", depends_on: ["a"] },
      ],
      "dependency_cycle",
    ],
    ["an unknown dependency", execution([], { plans: [] }), [{ id: "a", depends_on: ["zz"] }], "unknown_dependency"],
  ] as const)("refuses %s and writes nothing", (_name, state, tasks, code) => {
    const r = importPlan(state, impl, tasks, NOW);
    expect(r).toMatchObject({ ok: false, code });
  });

  it("a conflicting id is named in the message", () => {
    const r = importPlan(execution([task("a", { title: "other" })], { plans: [] }), impl, plan, NOW);
    expect(!r.ok && r.message).toMatch(/^task a already exists/);
  });
});

describe("startPlannedTask", () => {
  it.each([
    [
      "refused while the plan is not recorded, naming the remedy",
      execution([task("a")], { plans: [] }),
      impl,
      { ok: false, code: "plan_not_recorded" },
    ],
    [
      "refused in a rework round without its plan",
      execution([done("a"), task("fix")], { plans: [rec(0)] }),
      atPhase("IMPLEMENTATION", rework(1)),
      { ok: false, code: "plan_not_recorded" },
    ],
    ["allowed once the plan is recorded", execution([task("a")], { plans: [rec(0)] }), impl, { ok: true }],
    ["allowed for a legacy file", execution([task("a")]), impl, { ok: true }],
    [
      "the task's own refusal comes first",
      execution([done("a")], { plans: [] }),
      impl,
      { ok: false, code: "task_refused" },
    ],
  ] as const)("%s", (_name, state, phase, expected) => {
    const r = startPlannedTask(state, phase, state.tasks.at(-1)!.id, NOW);
    expect(r).toMatchObject(expected);
    if (!r.ok && r.code === "plan_not_recorded")
      expect(r.message).toMatch(/`dotagent task import memory\/reports\/plan(\.rework-1)?\.json`/);
  });
});
