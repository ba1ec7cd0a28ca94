import { describe, expect, test } from "vitest";
import { nextRunStep, tasksToPlan, type PlanView, type RunFacts } from "./run-step.js";
import { DEVELOP, stepOf } from "./flow.js";
import { resolveWorkflow } from "./resolve-workflow.js";

const plan = (
  phase: PlanView["phase"],
  action: string,
  extra: Partial<PlanView["next"]> = {},
  inFlight: string[] = [],
): PlanView => ({ phase, next: { action, ...extra }, in_flight: inFlight });

// develop is walked by the same code as any definition: its facts are its current step (flowOf of a
// phase.json without a pin) and the earlier dotagent's session keys.
const dev = (phase: string | null, more: RunFacts = {}): RunFacts => ({
  ...(phase === null ? {} : { step: stepOf(DEVELOP, phase) }),
  keyedByAgent: true,
  ...more,
});
const D = "memory/reports/final_design.json";

describe("nextRunStep: develop's moves for each next.action, from its steps' kinds", () => {
  test.each([
    ["start_workflow", plan(null, "start_workflow"), { kind: "init" }],
    ["workflow_complete", plan("REFLECTION", "workflow_complete"), { kind: "complete" }],
    // The gate and the round are fields: the reason's wording never steers the runner.
    [
      "requirements gate",
      plan("REQUIREMENTS", "await_approval", { gate: "approve_requirements", reason: "anything" }),
      { kind: "gate", phase: "REQUIREMENTS", output: "memory/reports/demand.json", agent: "pm", view: "requirements" },
    ],
    [
      "design pick",
      plan("ARCHITECTURE", "await_approval", { gate: "pick_design", reason: "final_design.json is mentioned here" }),
      { kind: "choose_design", phase: "ARCHITECTURE" },
    ],
    [
      "final design gate",
      plan("ARCHITECTURE", "await_approval", { gate: "approve_design", reason: "" }),
      { kind: "gate", phase: "ARCHITECTURE", output: D, view: "design" },
    ],
    [
      "an unknown gate",
      plan("ARCHITECTURE", "await_approval", { gate: "teleport", reason: "?" }),
      { kind: "stuck", reason: "an approval this dotagent does not know (teleport): ?" },
    ],
    [
      "plan round 0",
      plan("IMPLEMENTATION", "plan_tasks", {
        round: 0,
        plan_file: "memory/reports/plan.json",
        reason: "rework round 7 in the words",
      }),
      { kind: "plan_tasks", round: 0, file: "memory/reports/plan.json", source: D },
    ],
    [
      "plan rework 2",
      plan("IMPLEMENTATION", "plan_tasks", { round: 2, plan_file: "memory/reports/plan.rework-2.json", reason: "" }),
      {
        kind: "plan_tasks",
        round: 2,
        file: "memory/reports/plan.rework-2.json",
        source: "memory/reports/verification.rework-2.json",
      },
    ],
    [
      "agents at work",
      plan("ARCHITECTURE", "await_agents", { reason: "1 agent is at work" }, []),
      { kind: "wait", inFlight: [] },
    ],
    [
      "a batch",
      plan("IMPLEMENTATION", "run_tasks", { tasks: ["t1", "t2"] }),
      { kind: "run_tasks", tasks: ["t1", "t2"] },
    ],
    [
      "nothing to start",
      plan("IMPLEMENTATION", "run_tasks", { tasks: [] }, ["t3"]),
      { kind: "wait", inFlight: ["t3"] },
    ],
    [
      "dead tasks",
      plan("IMPLEMENTATION", "resolve_dead_tasks", { tasks: ["t4"] }),
      { kind: "dead_tasks", tasks: ["t4"] },
    ],
    // Running `dotagent run` again is the person's decision: the failed phase's agent runs (the runner starts the phase first).
    [
      "a failed phase's agent",
      plan("REQUIREMENTS", "resolve_failed_agent", { agent: "pm", reason: "REQUIREMENTS failed" }),
      {
        kind: "agents",
        phase: "REQUIREMENTS",
        agent: "pm",
        jobs: [
          { key: "pm.REQUIREMENTS", formerKey: "pm", agent: "pm", output: "memory/reports/demand.json", lines: [] },
        ],
        then: "resume",
        outputs: ["memory/reports/demand.json"],
      },
    ],
    [
      "legacy rework executor (round from the runner's facts)",
      plan("IMPLEMENTATION", "spawn_agent", {
        agent: "executor",
        reason: "verification failed: fix what memory/reports/verification.rework-1.json lists",
      }),
      { kind: "plan_tasks", round: 0, file: "memory/reports/plan.json", source: D },
    ],
    [
      "an agent no step of develop runs",
      plan("VERIFICATION", "spawn_agent", { agent: "pm" }),
      { kind: "stuck", reason: 'VERIFICATION (a check step) does not spawn "pm"' },
    ],
    ["unknown action", plan("IMPLEMENTATION", "teleport", { reason: "?" }), { kind: "stuck", reason: "teleport: ?" }],
  ])("%s", (_name, input, expected) => {
    expect(nextRunStep(input, dev(input.phase))).toEqual(expected);
  });

  test("no current step: an approval or an agent is stuck, never guessed from names", () => {
    expect(nextRunStep(plan("REQUIREMENTS", "spawn_agent", { agent: "pm" }))).toEqual({
      kind: "stuck",
      reason: "no current phase",
    });
    expect(
      nextRunStep(plan("REQUIREMENTS", "await_approval", { gate: "approve_requirements", reason: "r" })),
    ).toMatchObject({ kind: "stuck" });
  });

  test("a legacy rework executor plans the runner's open round", () => {
    expect(
      nextRunStep(
        plan("IMPLEMENTATION", "spawn_agent", { agent: "executor", reason: "" }),
        dev("IMPLEMENTATION", { reworkRound: 1 }),
      ),
    ).toEqual({
      kind: "plan_tasks",
      round: 1,
      file: "memory/reports/plan.rework-1.json",
      source: "memory/reports/verification.rework-1.json",
    });
  });

  test("pm, roundtable, qa, reflector: one agent with its output and what follows; each rework round's qa a job of its own", () => {
    const pm = nextRunStep(plan("REQUIREMENTS", "spawn_agent", { agent: "pm" }), dev("REQUIREMENTS"));
    expect(pm).toMatchObject({
      kind: "agents",
      agent: "pm",
      then: "resume",
      jobs: [{ key: "pm.REQUIREMENTS", formerKey: "pm", output: "memory/reports/demand.json" }],
    });
    expect(
      nextRunStep(plan("ARCHITECTURE", "spawn_agent", { agent: "roundtable" }), dev("ARCHITECTURE")),
    ).toMatchObject({ jobs: [{ key: "roundtable", output: "memory/reports/roundtable.json" }] });
    expect(nextRunStep(plan("VERIFICATION", "spawn_agent", { agent: "qa" }), dev("VERIFICATION"))).toMatchObject({
      then: "verdict",
      rework: "IMPLEMENTATION",
      jobs: [{ key: "qa.VERIFICATION", formerKey: "qa", output: "memory/reports/verification.json" }],
    });
    expect(
      nextRunStep(plan("VERIFICATION", "spawn_agent", { agent: "qa" }), dev("VERIFICATION", { latestRound: 2 })),
    ).toMatchObject({ jobs: [{ key: "qa.VERIFICATION.r2", formerKey: "qa" }] });
    expect(nextRunStep(plan("REFLECTION", "spawn_agent", { agent: "reflector" }), dev("REFLECTION"))).toMatchObject({
      then: "complete",
      outputs: ["memory/reports/reflection.json", "memory/reports/reflection.md"],
      jobs: [{ output: "memory/reports/reflection.json" }],
    });
  });

  test("architects: the runner's pair is recorded; designs already asked for are written as named, no others", () => {
    const fresh = nextRunStep(plan("ARCHITECTURE", "spawn_agent", { agent: "architect" }), dev("ARCHITECTURE"));
    expect(fresh).toMatchObject({ kind: "agents", designs: ["minimal", "robust"] });
    expect(fresh.kind === "agents" && fresh.jobs.map((j) => j.output)).toEqual([
      "memory/reports/designs/minimal.json",
      "memory/reports/designs/robust.json",
    ]);
    const missing = nextRunStep(
      plan("ARCHITECTURE", "spawn_agent", { agent: "architect", designs: ["robust"] }),
      dev("ARCHITECTURE"),
    );
    expect(missing).not.toHaveProperty("designs");
    expect(missing.kind === "agents" && missing.jobs.map((j) => [j.key, ...j.lines])).toEqual([
      ["architect.robust", "Design name: robust", "Angle: a design that holds up as the feature grows"],
    ]);
  });
});

describe("tasksToPlan", () => {
  test("round 0: final_design.json's tasks, cleaned; the design's own list when the top level has none", () => {
    expect(
      tasksToPlan(
        0,
        {
          tasks: [{ id: "a", title: "A", depends_on: [] }, { id: "b", depends_on: ["a", 3] }, { title: "no id" }, null],
        },
        "req",
      ),
    ).toEqual([
      { id: "a", title: "A", depends_on: [] },
      { id: "b", title: "b", depends_on: ["a"] },
    ]);
    expect(tasksToPlan(0, { design: { tasks: [{ id: "x", title: "X" }] } }, "req")).toEqual([
      { id: "x", title: "X", depends_on: [] },
    ]);
  });
  test("a design without tasks is one task: the request", () => {
    expect(tasksToPlan(0, {}, "add login")).toEqual([{ id: "task-001", title: "add login", depends_on: [] }]);
  });
  test("rework round N: one task per failure, ids rework-N-i", () => {
    expect(
      tasksToPlan(
        2,
        { failures: [{ criterion: "AC-4", problem: "cookie readable", where: "src/login.ts" }, "tests fail"] },
        "",
      ),
    ).toEqual([
      { id: "rework-2-1", title: "AC-4: cookie readable (in src/login.ts)", depends_on: [] },
      { id: "rework-2-2", title: "tests fail", depends_on: [] },
    ]);
    expect(tasksToPlan(1, { failures: [] }, "")).toEqual([
      { id: "rework-1-1", title: "Fix what verification found", depends_on: [] },
    ]);
  });
});

describe("nextRunStep in a workflow with a pinned definition: the same code, by the step's kind, never its agent's name", () => {
  const flow = resolveWorkflow("own", (name) =>
    name === "own"
      ? {
          name,
          source: "test",
          def: {
            steps: [
              { id: "BRIEF", kind: "agent", agent: "pm", report: ["brief.json", "brief.md"], gate: "approve" },
              {
                id: "SKETCH",
                kind: "choose",
                agent: "designer",
                reducer: "judge",
                designs: [{ name: "small", angle: "fewest lines" }],
              },
              { id: "BUILD", kind: "tasks", agent: "builder" },
              { id: "REVIEW", kind: "check", agent: "qa", report: "review.json", rework: "BUILD", max_rounds: 2 },
              { id: "TESTS", kind: "check", run: "npm test" },
              { id: "NOTES", kind: "agent", agent: "reflector", report: "notes.md" },
            ],
          },
        }
      : undefined,
  );
  if (!flow.ok) throw new Error(JSON.stringify(flow.problems));
  const step = (id: string) => flow.flow.steps.find((s) => s.id === id)!;

  test("an agent step: one job writing next.output, keyed by agent and step (and round); a gate follows, else the step completes", () => {
    expect(
      nextRunStep(plan("BRIEF", "spawn_agent", { agent: "pm", output: "memory/reports/brief.json" }), {
        step: step("BRIEF"),
      }),
    ).toEqual({
      kind: "agents",
      phase: "BRIEF",
      agent: "pm",
      jobs: [{ key: "pm.BRIEF", agent: "pm", output: "memory/reports/brief.json", lines: [] }],
      then: "resume",
      outputs: ["memory/reports/brief.json", "memory/reports/brief.md"],
    });
    expect(
      nextRunStep(plan("NOTES", "spawn_agent", { agent: "reflector", output: "memory/reports/notes.md" }), {
        step: step("NOTES"),
        latestRound: 2,
      }),
    ).toMatchObject({ then: "complete", jobs: [{ key: "reflector.NOTES.r2", output: "memory/reports/notes.md" }] });
  });

  test("a check step's agent: its verdict sends the work back to the step's rework", () => {
    expect(
      nextRunStep(plan("REVIEW", "spawn_agent", { agent: "qa", output: "memory/reports/review.json" }), {
        step: step("REVIEW"),
        latestRound: 1,
      }),
    ).toMatchObject({ kind: "agents", then: "verdict", rework: "BUILD", jobs: [{ key: "qa.REVIEW.r1" }] });
  });

  test("a choose step: the designs by its own agent and angles, the comparison by its reducer; the pick and the gate name the step", () => {
    const designs = nextRunStep(plan("SKETCH", "spawn_agent", { agent: "designer", designs: ["small"] }), {
      step: step("SKETCH"),
    });
    expect(designs).toEqual({
      kind: "agents",
      phase: "SKETCH",
      agent: "designer",
      jobs: [
        {
          key: "designer.small",
          agent: "designer",
          output: "memory/reports/designs/small.json",
          lines: ["Design name: small", "Angle: fewest lines"],
        },
      ],
      then: "resume",
      outputs: ["memory/reports/designs/small.json"],
    });
    expect(nextRunStep(plan("SKETCH", "spawn_agent", { agent: "judge" }), { step: step("SKETCH") })).toMatchObject({
      agent: "judge",
      jobs: [{ key: "judge", output: "memory/reports/roundtable.json" }],
    });
    expect(nextRunStep(plan("SKETCH", "await_approval", { gate: "pick_design" }), { step: step("SKETCH") })).toEqual({
      kind: "choose_design",
      phase: "SKETCH",
    });
    expect(nextRunStep(plan("SKETCH", "await_approval", { gate: "approve_design" }), { step: step("SKETCH") })).toEqual(
      { kind: "gate", phase: "SKETCH", output: "memory/reports/final_design.json", view: "design" },
    );
    expect(nextRunStep(plan("SKETCH", "spawn_agent", { agent: "architect" }), { step: step("SKETCH") })).toMatchObject({
      kind: "stuck",
    });
  });

  test("an agent step's gate shows the report next.output names, revised by the step's agent", () => {
    expect(
      nextRunStep(
        plan("BRIEF", "await_approval", { gate: "approve_report", step: "BRIEF", output: "memory/reports/brief.md" }),
        { step: step("BRIEF") },
      ),
    ).toEqual({ kind: "gate", phase: "BRIEF", output: "memory/reports/brief.md", agent: "pm", view: "report" });
  });

  test("the tasks step plans from planSource, and a rework round from phase.json's failed report", () => {
    expect(
      nextRunStep(plan("BUILD", "plan_tasks", { round: 0, plan_file: "memory/reports/plan.json" }), {
        step: step("BUILD"),
        planSource: "memory/reports/final_design.json",
      }),
    ).toEqual({
      kind: "plan_tasks",
      round: 0,
      file: "memory/reports/plan.json",
      source: "memory/reports/final_design.json",
    });
    expect(
      nextRunStep(plan("BUILD", "plan_tasks", { round: 1, plan_file: "memory/reports/plan.rework-1.json" }), {
        step: step("BUILD"),
        reworkReport: "memory/reports/review.rework-1.json",
      }),
    ).toMatchObject({ round: 1, source: "memory/reports/review.rework-1.json" });
  });

  test("a command to run, and a failed workflow", () => {
    expect(nextRunStep(plan("TESTS", "run_step", { step: "TESTS" }), { step: step("TESTS") })).toEqual({
      kind: "command",
      step: "TESTS",
    });
    expect(
      nextRunStep(plan("TESTS", "workflow_failed", { reason: "TESTS failed 2 rework rounds" }), {
        step: step("TESTS"),
      }),
    ).toEqual({ kind: "failed", reason: "TESTS failed 2 rework rounds" });
  });
});

describe("tasksToPlan: a rework round from a check command's report", () => {
  test("one task: make the command pass, with its exit and its last line", () => {
    expect(
      tasksToPlan(
        1,
        { step: "TESTS", command: "npm test", passed: false, exit_code: 1, output_tail: "ok 1\nnot ok 2 login\n" },
        "",
      ),
    ).toEqual([{ id: "rework-1-1", title: "Make `npm test` pass (exit 1: not ok 2 login)", depends_on: [] }]);
    expect(
      tasksToPlan(2, { command: "make", passed: false, exit_code: null, timed_out: true, output_tail: "" }, ""),
    ).toEqual([{ id: "rework-2-1", title: "Make `make` pass (timed out)", depends_on: [] }]);
  });
});
