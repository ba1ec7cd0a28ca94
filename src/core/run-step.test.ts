import { describe, expect, test } from "vitest";
import { nextRunStep, tasksToPlan, type PlanView } from "./run-step.js";

const plan = (phase: PlanView["phase"], action: string, extra: Partial<PlanView["next"]> = {}, inFlight: string[] = []): PlanView => ({ phase, next: { action, ...extra }, in_flight: inFlight });

describe("nextRunStep: the /develop loop's moves for each next.action", () => {
  test.each([
    ["start_workflow", plan(null, "start_workflow"), { kind: "init" }],
    ["workflow_complete", plan("REFLECTION", "workflow_complete"), { kind: "complete" }],
    // The gate and the round are fields: the reason's wording never steers the runner.
    ["requirements gate", plan("REQUIREMENTS", "await_approval", { gate: "approve_requirements", reason: "anything" }), { kind: "gate", phase: "REQUIREMENTS", output: "memory/reports/demand.json" }],
    ["design pick", plan("ARCHITECTURE", "await_approval", { gate: "pick_design", reason: "final_design.json is mentioned here" }), { kind: "choose_design" }],
    ["final design gate", plan("ARCHITECTURE", "await_approval", { gate: "approve_design", reason: "" }), { kind: "gate", phase: "ARCHITECTURE", output: "memory/reports/final_design.json" }],
    ["an unknown gate", plan("ARCHITECTURE", "await_approval", { gate: "teleport", reason: "?" }), { kind: "stuck", reason: "an approval this dotagent does not know (teleport): ?" }],
    ["plan round 0", plan("IMPLEMENTATION", "plan_tasks", { round: 0, plan_file: "memory/reports/plan.json", reason: "rework round 7 in the words" }), { kind: "plan_tasks", round: 0, file: "memory/reports/plan.json" }],
    ["plan rework 2", plan("IMPLEMENTATION", "plan_tasks", { round: 2, plan_file: "memory/reports/plan.rework-2.json", reason: "" }), { kind: "plan_tasks", round: 2, file: "memory/reports/plan.rework-2.json" }],
    ["agents at work", plan("ARCHITECTURE", "await_agents", { reason: "1 agent is at work" }, []), { kind: "wait", inFlight: [] }],
    ["a batch", plan("IMPLEMENTATION", "run_tasks", { tasks: ["t1", "t2"] }), { kind: "run_tasks", tasks: ["t1", "t2"] }],
    ["nothing to start", plan("IMPLEMENTATION", "run_tasks", { tasks: [] }, ["t3"]), { kind: "wait", inFlight: ["t3"] }],
    ["dead tasks", plan("IMPLEMENTATION", "resolve_dead_tasks", { tasks: ["t4"] }), { kind: "dead_tasks", tasks: ["t4"] }],
    ["legacy rework executor (round from the runner's facts)", plan("IMPLEMENTATION", "spawn_agent", { agent: "executor", reason: "verification failed: fix what memory/reports/verification.rework-1.json lists" }), { kind: "plan_tasks", round: 0, file: "memory/reports/plan.json" }],
    ["unknown action", plan("IMPLEMENTATION", "teleport", { reason: "?" }), { kind: "stuck", reason: "teleport: ?" }],
  ])("%s", (_name, input, expected) => {
    expect(nextRunStep(input)).toEqual(expected);
  });

  test("a legacy rework executor plans the runner's open round", () => {
    expect(nextRunStep(plan("IMPLEMENTATION", "spawn_agent", { agent: "executor", reason: "" }), { reworkRound: 1 })).toEqual({ kind: "plan_tasks", round: 1, file: "memory/reports/plan.rework-1.json" });
  });

  test("pm, roundtable, qa, reflector: one agent with its output and what follows", () => {
    const pm = nextRunStep(plan("REQUIREMENTS", "spawn_agent", { agent: "pm" }));
    expect(pm).toMatchObject({ kind: "agents", agent: "pm", then: "resume", jobs: [{ key: "pm", output: "memory/reports/demand.json" }] });
    expect(nextRunStep(plan("ARCHITECTURE", "spawn_agent", { agent: "roundtable" }))).toMatchObject({ jobs: [{ output: "memory/reports/roundtable.json" }] });
    expect(nextRunStep(plan("VERIFICATION", "spawn_agent", { agent: "qa" }))).toMatchObject({ then: "verdict", jobs: [{ output: "memory/reports/verification.json" }] });
    expect(nextRunStep(plan("REFLECTION", "spawn_agent", { agent: "reflector" }))).toMatchObject({ then: "complete", jobs: [{ output: "memory/reports/reflection.json" }] });
  });

  test("architects: the runner's pair is recorded; designs already asked for are written as named, no others", () => {
    const fresh = nextRunStep(plan("ARCHITECTURE", "spawn_agent", { agent: "architect" }));
    expect(fresh).toMatchObject({ kind: "agents", designs: ["minimal", "robust"] });
    expect(fresh.kind === "agents" && fresh.jobs.map((j) => j.output)).toEqual(["memory/reports/designs/minimal.json", "memory/reports/designs/robust.json"]);
    const missing = nextRunStep(plan("ARCHITECTURE", "spawn_agent", { agent: "architect", designs: ["robust"] }));
    expect(missing).not.toHaveProperty("designs");
    expect(missing.kind === "agents" && missing.jobs.map((j) => [j.key, ...j.lines])).toEqual([["architect.robust", "Design name: robust", "Angle: a design that holds up as the feature grows"]]);
  });
});

describe("tasksToPlan", () => {
  test("round 0: final_design.json's tasks, cleaned; the design's own list when the top level has none", () => {
    expect(tasksToPlan(0, { tasks: [{ id: "a", title: "A", depends_on: [] }, { id: "b", depends_on: ["a", 3] }, { title: "no id" }, null] }, "req")).toEqual([
      { id: "a", title: "A", depends_on: [] },
      { id: "b", title: "b", depends_on: ["a"] },
    ]);
    expect(tasksToPlan(0, { design: { tasks: [{ id: "x", title: "X" }] } }, "req")).toEqual([{ id: "x", title: "X", depends_on: [] }]);
  });
  test("a design without tasks is one task: the request", () => {
    expect(tasksToPlan(0, {}, "add login")).toEqual([{ id: "task-001", title: "add login", depends_on: [] }]);
  });
  test("rework round N: one task per failure, ids rework-N-i", () => {
    expect(tasksToPlan(2, { failures: [{ criterion: "AC-4", problem: "cookie readable", where: "src/login.ts" }, "tests fail"] }, "")).toEqual([
      { id: "rework-2-1", title: "AC-4: cookie readable (in src/login.ts)", depends_on: [] },
      { id: "rework-2-2", title: "tests fail", depends_on: [] },
    ]);
    expect(tasksToPlan(1, { failures: [] }, "")).toEqual([{ id: "rework-1-1", title: "Fix what verification found", depends_on: [] }]);
  });
});
