import { describe, expect, it } from "vitest";
import { parseRollbackTarget, planRollback, reportOwner } from "./rollback.js";
import { atPhase } from "./fixtures.test-support.js";
import { DEVELOP } from "./flow.js";
import { PHASES, type Phase } from "./phases.js";
import type { ExecutionState } from "../schema/execution.js";
import type { PhaseState } from "../schema/phase.js";

const execution = (tasks: Array<[string, string, string?]>): ExecutionState =>
  ({
    workflow_id: "wf-login",
    updated_at: "2026-11-20T11:00:00Z",
    interruption_safe: true,
    max_attempts: 3,
    tasks: tasks.map(([id, status, output]) => ({
      id,
      title: id,
      status,
      depends_on: [],
      attempts: 0,
      started_at: null,
      completed_at: null,
      output: output ?? `memory/reports/tasks/${id}.json`,
      error: null,
    })),
  }) as ExecutionState;

describe("reportOwner: which phase a report belongs to", () => {
  const outputs = new Map([["memory/reports/custom/t9.json", "t9"]]);
  it.each([
    ["memory/reports/demand.json", { phase: "REQUIREMENTS" }],
    ["memory/reports/designs/a.json", { phase: "ARCHITECTURE" }],
    ["memory/reports/final_design.json", { phase: "ARCHITECTURE" }],
    ["memory/reports/tasks/t1.json", { phase: "IMPLEMENTATION" }],
    ["memory/reports/custom/t9.json", { phase: "IMPLEMENTATION", taskId: "t9" }],
    ["memory/reports/verification.rework-2.json", { phase: "VERIFICATION", reworkRound: 2 }],
    ["memory/reports/reflection.md", { phase: "REFLECTION" }],
    ["memory/reports/plan.json", { phase: "IMPLEMENTATION", planRound: 0 }],
    ["memory/reports/plan.rework-3.json", { phase: "IMPLEMENTATION", planRound: 3 }],
    ["memory/reports/notes.txt", null],
  ])("%s", (path, owner) => expect(reportOwner(path, outputs, DEVELOP)).toEqual(owner));
});

describe("planRollback", () => {
  const files = [
    "memory/reports/demand.json",
    "memory/reports/final_design.json",
    "memory/reports/tasks/t1.json",
    "memory/reports/tasks/t2.json",
    "memory/reports/verification.rework-1.json",
    "memory/reports/verification.json",
    "memory/reports/notes.txt",
  ];
  const live = atPhase("VERIFICATION", {
    rework: {
      round: 1,
      verification: "memory/reports/verification.rework-1.json",
      started_at: "2026-11-20T10:40:00Z",
      closed_at: "2026-11-20T10:50:00Z",
    },
  });
  const tasks = execution([
    ["t1", "complete"],
    ["t2", "complete"],
  ]);

  it.each([
    ["VERIFICATION", ["memory/reports/verification.json"]],
    [
      "IMPLEMENTATION",
      [
        "memory/reports/tasks/t1.json",
        "memory/reports/tasks/t2.json",
        "memory/reports/verification.json",
        "memory/reports/verification.rework-1.json",
      ],
    ],
    [
      "REQUIREMENTS",
      [
        "memory/reports/demand.json",
        "memory/reports/final_design.json",
        "memory/reports/tasks/t1.json",
        "memory/reports/tasks/t2.json",
        "memory/reports/verification.json",
        "memory/reports/verification.rework-1.json",
      ],
    ],
  ] as const)("to the start of %s moves %j (a report that is not the workflow's stays)", (phase, moves) => {
    const result = planRollback(live, tasks, files, { kind: "phase", phase });
    expect(result.ok && result.plan.moves).toEqual(moves);
  });

  describe("issue 21, case 7: the task plans leave with the rest", () => {
    const plans = ["memory/reports/plan.json", "memory/reports/plan.rework-1.json"];
    const recorded = {
      ...tasks,
      plans: [
        { round: 0, recorded_at: "2026-11-20T10:35:00Z", tasks: 2 },
        { round: 1, recorded_at: "2026-11-20T10:41:00Z", tasks: 1 },
      ],
    } as ExecutionState;
    it.each([
      ["REQUIREMENTS", plans],
      ["ARCHITECTURE", plans],
      ["IMPLEMENTATION", plans],
      ["VERIFICATION", []],
    ] as const)("to the start of %s, plan.json and plan.rework-N.json that move: %j", (phase, moved) => {
      const result = planRollback(live, recorded, [...files, ...plans], { kind: "phase", phase });
      expect(result.ok && result.plan.moves.filter((m) => m.includes("/plan"))).toEqual(moved);
    });
    it("to a checkpoint in rework round 1 before its plan: plan.json stays, plan.rework-1.json goes", () => {
      const at = atPhase("IMPLEMENTATION", {
        rework: {
          round: 1,
          verification: "memory/reports/verification.rework-1.json",
          started_at: "2026-11-20T10:40:00Z",
          closed_at: null,
        },
      });
      const held = { ...tasks, plans: [{ round: 0, recorded_at: "2026-11-20T10:35:00Z", tasks: 2 }] } as ExecutionState;
      const result = planRollback(live, recorded, [...files, ...plans], {
        kind: "checkpoint",
        rev: 9,
        phase: at,
        execution: held,
      });
      expect(result.ok && result.plan.moves.filter((m) => m.includes("/plan"))).toEqual([
        "memory/reports/plan.rework-1.json",
      ]);
    });
    it("to a checkpoint of round 0 before the plan was recorded: plan.json goes", () => {
      const result = planRollback(live, recorded, [...files, ...plans], {
        kind: "checkpoint",
        rev: 9,
        phase: atPhase("IMPLEMENTATION"),
        execution: { ...execution([]), plans: [] } as ExecutionState,
      });
      expect(result.ok && result.plan.moves.filter((m) => m.includes("/plan"))).toEqual(plans);
    });
  });

  it("to a checkpoint mid-IMPLEMENTATION: the outputs of tasks not complete then move", () => {
    const at = atPhase("IMPLEMENTATION");
    const result = planRollback(live, tasks, files, {
      kind: "checkpoint",
      rev: 9,
      phase: at,
      execution: execution([
        ["t1", "complete"],
        ["t2", "running"],
      ]),
    });
    expect(result.ok && result.plan.moves).toEqual([
      "memory/reports/tasks/t2.json",
      "memory/reports/verification.json",
      "memory/reports/verification.rework-1.json",
    ]);
  });

  it.each([
    ["a later phase", { kind: "phase", phase: "REFLECTION" }, "rollback_forward"],
    [
      "another workflow's checkpoint",
      { kind: "checkpoint", rev: 3, phase: atPhase("ARCHITECTURE", { workflow_id: "wf-other" }), execution: null },
      "rollback_other_workflow",
    ],
    [
      "a checkpoint whose outputs are gone",
      { kind: "checkpoint", rev: 3, phase: atPhase("VERIFICATION"), execution: execution([["t3", "complete"]]) },
      "rollback_outputs_missing",
    ],
  ] as const)("refuses %s", (_name, target, code) => {
    const result = planRollback(live, tasks, files, target as never);
    expect(result.ok === false && result.code).toBe(code);
  });

  it.each([
    ["architecture", { kind: "phase", phase: "ARCHITECTURE" }],
    ["12", { kind: "rev", rev: 12 }],
    ["0", null],
    ["-1", null],
    ["LATER", null],
    ["1e3", null],
  ])("--to %s", (text, target) => expect(parseRollbackTarget(text, PHASES)).toEqual(target));
});

describe("planRollback and the agents' records (agent_reports)", () => {
  const owner = { pid: 1, host: "h", at: "2026-11-20T11:00:00Z" };
  const demand = "memory/reports/demand.json";
  const live = atPhase("ARCHITECTURE", { agent_reports: [demand, "memory/reports/designs/a.json"] });
  const files = [demand, "memory/reports/designs/a.json"];

  it("a checkpoint after the pm ended keeps its demand (a hand edit at the gate costs no pm run)", () => {
    const at = atPhase("REQUIREMENTS", { phase_status: "in_progress", agent_reports: [demand] });
    const result = planRollback(live, undefined, files, { kind: "checkpoint", rev: 5, phase: at, execution: null });
    expect(result.ok && result.plan.moves).toEqual(["memory/reports/designs/a.json"]);
  });

  it("a checkpoint while the pm was still at work: its report goes, and leaves the record", () => {
    const at = atPhase("REQUIREMENTS", {
      phase_status: "in_progress",
      agent_reports: [demand],
      agents: [{ agent: "pm", output: demand, owner }],
    });
    const result = planRollback(live, undefined, files, { kind: "checkpoint", rev: 5, phase: at, execution: null });
    expect(result.ok && result.plan.moves).toEqual([demand, "memory/reports/designs/a.json"]);
    expect(result.ok && result.plan.phase.agent_reports).toEqual([]);
  });

  it("back to the start of a phase: its agents' records and those of later phases go", () => {
    const result = planRollback(live, undefined, files, { kind: "phase", phase: "ARCHITECTURE" });
    expect(result.ok && result.plan.phase.agent_reports).toEqual([demand]);
    const start = planRollback(live, undefined, files, { kind: "phase", phase: "REQUIREMENTS" });
    expect(start.ok && start.plan.phase.agent_reports).toEqual([]);
    expect(start.ok && start.plan.moves).toEqual([demand, "memory/reports/designs/a.json"]);
  });
});

/**
 * The plan of a rollback from every stage of a workflow to the start of every phase up to it: the
 * table behind test/rollback.test.ts, which runs a few of these pairs end to end through the CLI
 * (one from each stage, one to each phase). The stages are those that file's workflow goes
 * through: each phase's reports written, the phase not yet approved or completed (REQUIREMENTS and
 * ARCHITECTURE approved once done), t1 of two tasks complete in IMPLEMENTATION, and the finished
 * workflow.
 */
describe("planRollback from every stage to the start of every phase up to it", () => {
  type Stage = Phase | "COMPLETE";
  const REPORTS: Record<Phase, string[]> = {
    REQUIREMENTS: ["memory/reports/demand.json"],
    ARCHITECTURE: [
      "memory/reports/designs/a.json",
      "memory/reports/designs/b.json",
      "memory/reports/roundtable.json",
      "memory/reports/final_design.json",
    ],
    IMPLEMENTATION: ["memory/reports/tasks/t1.json", "memory/reports/tasks/t2.json"],
    VERIFICATION: ["memory/reports/verification.json"],
    REFLECTION: ["memory/reports/reflection.md"],
  };
  const STAGES: Stage[] = [...PHASES, "COMPLETE"];
  const stage = (at: Stage): { phase: PhaseState; execution: ExecutionState | undefined; files: string[] } => {
    const done = at === "COMPLETE" ? PHASES.length : PHASES.indexOf(at);
    const files = PHASES.slice(0, Math.min(done + 1, PHASES.length))
      .flatMap((p) => REPORTS[p]!)
      .sort();
    const phase =
      at === "COMPLETE"
        ? atPhase("REFLECTION", {
            phase_status: "complete",
            completed_phases: PHASES.map((p) => ({ phase: p, completed_at: "2026-11-20T10:00:00Z" })),
          })
        : atPhase(at, { phase_status: "in_progress" });
    if (at === "IMPLEMENTATION")
      return {
        phase,
        execution: execution([
          ["t1", "complete"],
          ["t2", "pending"],
        ]),
        files: files.filter((f) => f !== "memory/reports/tasks/t2.json"),
      };
    return {
      phase,
      execution:
        done > PHASES.indexOf("IMPLEMENTATION")
          ? execution([
              ["t1", "complete"],
              ["t2", "complete"],
            ])
          : undefined,
      files,
    };
  };
  const pairs = STAGES.flatMap((from, i) =>
    PHASES.filter((_, j) => j <= Math.min(i, PHASES.length - 1)).map((to) => [from, to] as const),
  );

  it("covers the 20 pairs", () => expect(pairs).toHaveLength(20));

  it.each(pairs)("from %s to the start of %s", (from, to) => {
    const before = stage(from);
    const result = planRollback(before.phase, before.execution, before.files, { kind: "phase", phase: to });
    if (!result.ok) throw new Error(result.message);
    const { plan } = result;
    const earlier = PHASES.slice(0, PHASES.indexOf(to));
    // The reports of this phase and the later ones move (sorted, as the live tree lists them); the rest stay.
    const later = PHASES.slice(PHASES.indexOf(to)).flatMap((p) => REPORTS[p]!);
    expect(plan.moves).toEqual(before.files.filter((f) => later.includes(f)));
    expect(plan.from).toEqual({ phase: before.phase.current_phase, phase_status: before.phase.phase_status });
    expect(plan.to).toEqual({ phase: to, phase_status: "pending" });
    expect(plan.describe).toBe(`the start of ${to}`);
    expect(plan.phase).toMatchObject({
      workflow_id: before.phase.workflow_id,
      current_phase: to,
      phase_status: "pending",
      error: null,
      pending_transition: null,
      rework: null,
    });
    expect(plan.phase.completed_phases.map((c) => c.phase)).toEqual(earlier);
    expect(plan.phase.user_checkpoints.map((c) => c.phase)).toEqual(
      earlier.filter((p) => p === "REQUIREMENTS" || p === "ARCHITECTURE"),
    );
    // execution.json stays only for a phase after IMPLEMENTATION, as it was.
    expect(plan.execution).toEqual(PHASES.indexOf(to) > PHASES.indexOf("IMPLEMENTATION") ? before.execution : null);
  });
});
