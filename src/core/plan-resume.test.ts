import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { needsRecoveryPoint, planResume, replacesComplete, type ResumePlan } from "./plan-resume.js";
import { REPORT, type Phase } from "./phases.js";
import {
  NOW,
  atPhase,
  execution,
  phaseState,
  reports,
  reportsBefore,
  snapshot,
  task,
} from "./fixtures.test-support.js";
import type { StateSnapshot } from "./snapshot.js";
import type { ExecutionState } from "../schema/execution.js";
import { inputsHash } from "./transitions.js";

const approved = (...phases: Phase[]) => phases.map((phase) => ({ phase, approved_at: "2026-11-20T09:45:00Z" }));
const D1 = `${REPORT.designsDir}/a.json`;
const t = (id: string, status: "pending" | "running" | "complete" | "failed" | "dead", extra = {}) =>
  task(id, { status, ...extra });
const plan0 = { round: 0, recorded_at: "2026-11-20T10:30:00Z", tasks: 1 };
const complete = (id: string) => ({ [`memory/reports/tasks/${id}.json`]: { task_id: id, status: "complete" } });

interface Row {
  name: string;
  snap: StateSnapshot;
  phase: Phase | null;
  action: ResumePlan["next"]["action"];
  agent?: string | null;
  tasks?: string[];
}

// One line per row of CONTRACT §5's table.
const rows: Row[] = [
  {
    name: "no phase.json → start_workflow",
    snap: snapshot(undefined),
    phase: null,
    action: "start_workflow",
    agent: "pm",
  },
  {
    name: "REQUIREMENTS, valid demand, approved → advance",
    snap: snapshot(
      phaseState({ user_checkpoints: approved("REQUIREMENTS") }),
      undefined,
      reports({ [REPORT.demand]: { goal: "x" } }),
    ),
    phase: "ARCHITECTURE",
    action: "spawn_agent",
    agent: "architect",
  },
  {
    name: "REQUIREMENTS, valid demand, not approved → await_approval",
    snap: snapshot(phaseState(), undefined, reports({ [REPORT.demand]: { goal: "x" } })),
    phase: "REQUIREMENTS",
    action: "await_approval",
  },
  {
    name: "REQUIREMENTS, no demand → spawn pm",
    snap: snapshot(phaseState()),
    phase: "REQUIREMENTS",
    action: "spawn_agent",
    agent: "pm",
  },
  {
    name: "REQUIREMENTS failed (its pm stopped without a report), no demand → resolve_failed_agent",
    snap: snapshot(phaseState({ phase_status: "failed", error: "the pm agent stopped without a valid report" })),
    phase: "REQUIREMENTS",
    action: "resolve_failed_agent",
    agent: "pm",
  },
  {
    name: "REQUIREMENTS failed, valid demand → await_approval (the report stands)",
    snap: snapshot(
      phaseState({ phase_status: "failed", error: "x" }),
      undefined,
      reports({ [REPORT.demand]: { goal: "x" } }),
    ),
    phase: "REQUIREMENTS",
    action: "await_approval",
  },
  {
    name: "ARCHITECTURE failed, no designs → resolve_failed_agent (architect)",
    snap: snapshot(
      atPhase("ARCHITECTURE", { phase_status: "failed", error: "x" }),
      undefined,
      reportsBefore("ARCHITECTURE"),
    ),
    phase: "ARCHITECTURE",
    action: "resolve_failed_agent",
    agent: "architect",
  },
  {
    name: "VERIFICATION failed, none → resolve_failed_agent (qa)",
    snap: snapshot(
      atPhase("VERIFICATION", { phase_status: "failed", error: "x" }),
      undefined,
      reportsBefore("VERIFICATION"),
    ),
    phase: "VERIFICATION",
    action: "resolve_failed_agent",
    agent: "qa",
  },
  {
    name: "REQUIREMENTS, invalid demand counts as absent",
    snap: snapshot(
      phaseState({ user_checkpoints: approved("REQUIREMENTS") }),
      undefined,
      reports({ [REPORT.demand]: { status: "invalid", reason: "is empty" } }),
    ),
    phase: "REQUIREMENTS",
    action: "spawn_agent",
    agent: "pm",
  },
  {
    name: "ARCHITECTURE, final design approved → advance",
    snap: snapshot(
      atPhase("ARCHITECTURE", { user_checkpoints: approved("REQUIREMENTS", "ARCHITECTURE") }),
      undefined,
      reportsBefore("ARCHITECTURE", { [REPORT.finalDesign]: { pick: "a" } }, [D1]),
    ),
    phase: "IMPLEMENTATION",
    action: "plan_tasks",
  },
  {
    name: "ARCHITECTURE, final design not approved → await_approval",
    snap: snapshot(
      atPhase("ARCHITECTURE"),
      undefined,
      reportsBefore("ARCHITECTURE", { [REPORT.finalDesign]: { pick: "a" } }, [D1]),
    ),
    phase: "ARCHITECTURE",
    action: "await_approval",
  },
  {
    name: "ARCHITECTURE, designs + roundtable, no final → await_approval",
    snap: snapshot(
      atPhase("ARCHITECTURE"),
      undefined,
      reportsBefore("ARCHITECTURE", { [REPORT.roundtable]: { rec: "a" } }, [D1]),
    ),
    phase: "ARCHITECTURE",
    action: "await_approval",
  },
  {
    name: "ARCHITECTURE, designs, no roundtable → spawn roundtable",
    snap: snapshot(atPhase("ARCHITECTURE"), undefined, reportsBefore("ARCHITECTURE", {}, [D1])),
    phase: "ARCHITECTURE",
    action: "spawn_agent",
    agent: "roundtable",
  },
  {
    name: "ARCHITECTURE, no designs → spawn architect",
    snap: snapshot(atPhase("ARCHITECTURE"), undefined, reportsBefore("ARCHITECTURE")),
    phase: "ARCHITECTURE",
    action: "spawn_agent",
    agent: "architect",
  },
  {
    name: "IMPLEMENTATION, no execution.json → plan_tasks",
    snap: snapshot(atPhase("IMPLEMENTATION"), undefined, reportsBefore("IMPLEMENTATION")),
    phase: "IMPLEMENTATION",
    action: "plan_tasks",
  },
  {
    name: "IMPLEMENTATION, no tasks → plan_tasks",
    snap: snapshot(atPhase("IMPLEMENTATION"), execution([]), reportsBefore("IMPLEMENTATION")),
    phase: "IMPLEMENTATION",
    action: "plan_tasks",
  },
  {
    name: "IMPLEMENTATION, all complete → advance",
    snap: snapshot(
      atPhase("IMPLEMENTATION"),
      execution([t("a", "complete")]),
      reportsBefore("IMPLEMENTATION", complete("a")),
    ),
    phase: "VERIFICATION",
    action: "spawn_agent",
    agent: "qa",
  },
  {
    name: "IMPLEMENTATION, ready tasks → run_tasks in dependency order",
    snap: snapshot(
      atPhase("IMPLEMENTATION"),
      execution([
        t("b", "pending", { depends_on: ["c"] }),
        t("a", "complete"),
        t("c", "pending", { depends_on: ["a"] }),
        t("d", "pending"),
      ]),
      reportsBefore("IMPLEMENTATION", complete("a")),
    ),
    phase: "IMPLEMENTATION",
    action: "run_tasks",
    tasks: ["c", "d"],
  },
  {
    name: "IMPLEMENTATION, only dead tasks block → resolve_dead_tasks",
    snap: snapshot(
      atPhase("IMPLEMENTATION"),
      execution([t("a", "dead", { attempts: 3 }), t("b", "pending", { depends_on: ["a"] })]),
      reportsBefore("IMPLEMENTATION"),
    ),
    phase: "IMPLEMENTATION",
    action: "resolve_dead_tasks",
    tasks: ["a"],
  },
  {
    name: "VERIFICATION, passed → advance",
    snap: snapshot(
      atPhase("VERIFICATION"),
      undefined,
      reportsBefore("VERIFICATION", { [REPORT.verification]: { passed: true } }),
    ),
    phase: "REFLECTION",
    action: "spawn_agent",
    agent: "reflector",
  },
  {
    name: "VERIFICATION, failed → rework, plan its tasks",
    snap: snapshot(
      atPhase("VERIFICATION"),
      execution([t("a", "complete")], { plans: [plan0] }),
      reportsBefore("VERIFICATION", { [REPORT.verification]: { passed: false }, ...complete("a") }),
    ),
    phase: "IMPLEMENTATION",
    action: "plan_tasks",
  },
  {
    name: "VERIFICATION, failed, legacy execution.json → rework, spawn executor",
    snap: snapshot(
      atPhase("VERIFICATION"),
      execution([t("a", "complete")]),
      reportsBefore("VERIFICATION", { [REPORT.verification]: { passed: false }, ...complete("a") }),
    ),
    phase: "IMPLEMENTATION",
    action: "spawn_agent",
    agent: "executor",
  },
  {
    name: "VERIFICATION, none → spawn qa",
    snap: snapshot(atPhase("VERIFICATION"), undefined, reportsBefore("VERIFICATION")),
    phase: "VERIFICATION",
    action: "spawn_agent",
    agent: "qa",
  },
  {
    name: "REFLECTION, reflection file → workflow_complete",
    snap: snapshot(
      atPhase("REFLECTION"),
      undefined,
      reportsBefore("REFLECTION", { [REPORT.reflectionMd]: { status: "valid", data: "# lessons" } }),
    ),
    phase: "REFLECTION",
    action: "workflow_complete",
  },
  {
    name: "REFLECTION, none → spawn reflector",
    snap: snapshot(atPhase("REFLECTION"), undefined, reportsBefore("REFLECTION")),
    phase: "REFLECTION",
    action: "spawn_agent",
    agent: "reflector",
  },
];

function expectRow({ snap, phase, action, agent, tasks }: Row): ResumePlan {
  const plan = planResume(snap, NOW);
  expect(plan.errors).toEqual([]);
  expect(plan.phase).toBe(phase);
  expect(plan.next.action).toBe(action);
  if (agent !== undefined) expect(plan.next.agent).toBe(agent);
  if (tasks !== undefined) expect(plan.next.tasks).toEqual(tasks);
  return plan;
}

describe("planResume: the contract's table", () => {
  it.each(rows)("$name", (row) => {
    expectRow(row);
  });
});

/** What the state looks like after the plan's writes, for the second-run checks. */
function afterWrites(snap: StateSnapshot, plan: ResumePlan): StateSnapshot {
  const files = new Map(snap.reports.files);
  for (const move of plan.writes.moves) {
    files.set(move.to, files.get(move.from) ?? { status: "exists" });
    files.delete(move.from);
  }
  // execution.json is a state file, so it exists once written (the store checks it like a report).
  if (snap.execution.kind === "ok") files.set(REPORT.execution, { status: "exists" });
  return {
    ...snap,
    reports: { ...snap.reports, files },
    phase: plan.writes.phase
      ? { kind: "ok", file: "memory/state/phase.json", value: plan.writes.phase, stamp: "x" }
      : snap.phase,
    execution: plan.writes.execution
      ? { kind: "ok", file: "memory/state/execution.json", value: plan.writes.execution, stamp: "x" }
      : snap.execution,
  };
}

describe("planResume: running it twice gives the same next action and no repairs", () => {
  it.each(rows)("$name", ({ snap }) => {
    const first = planResume(snap, NOW);
    const second = planResume(afterWrites(snap, first), NOW);
    expect(second.next).toEqual(first.next);
    expect(second.repairs).toEqual([]);
  });
});

describe("planResume: recovery cases", () => {
  it("orphan: a running task with no output goes back to pending with attempts + 1", () => {
    const plan = planResume(
      snapshot(
        atPhase("IMPLEMENTATION"),
        execution([t("task-001", "running", { attempts: 1 })]),
        reportsBefore("IMPLEMENTATION"),
      ),
      NOW,
    );
    expect(plan.repairs).toEqual([
      { code: "task_reset", message: "task-001 was running with no output: attempt 3 of 3" },
    ]);
    expect(plan.writes.execution?.tasks[0]).toMatchObject({ status: "pending", attempts: 2, cut_off: 1 });
    expect(plan.next).toMatchObject({ action: "run_tasks", tasks: ["task-001"] });
    const again = planResume(
      snapshot(
        atPhase("IMPLEMENTATION"),
        execution([t("task-001", "running", { attempts: 1, cut_off: 1 })]),
        reportsBefore("IMPLEMENTATION"),
      ),
      NOW,
    );
    expect(again.writes.execution?.tasks[0]).toMatchObject({ attempts: 2, cut_off: 2 });
  });

  it("orphan past max_attempts is dead and blocks", () => {
    const plan = planResume(
      snapshot(
        atPhase("IMPLEMENTATION"),
        execution([t("a", "running", { attempts: 2 })]),
        reportsBefore("IMPLEMENTATION"),
      ),
      NOW,
    );
    expect(plan.writes.execution?.tasks[0]).toMatchObject({ status: "dead", attempts: 3 });
    expect(plan.next).toMatchObject({ action: "resolve_dead_tasks", tasks: ["a"] });
  });

  it("output without update: a running task whose output says complete is complete, and the phase advances", () => {
    const plan = planResume(
      snapshot(
        atPhase("IMPLEMENTATION"),
        execution([t("a", "running")]),
        reportsBefore("IMPLEMENTATION", complete("a")),
      ),
      NOW,
    );
    expect(plan.repairs.map((r) => r.code)).toEqual(["task_completed_from_output", "phase_advanced"]);
    expect(plan.phase).toBe("VERIFICATION");
  });

  it("a running task whose output says failed counts an attempt and is requeued", () => {
    const plan = planResume(
      snapshot(
        atPhase("IMPLEMENTATION"),
        execution([t("a", "running")]),
        reportsBefore("IMPLEMENTATION", { "memory/reports/tasks/a.json": { task_id: "a", status: "failed" } }),
      ),
      NOW,
    );
    expect(plan.writes.execution?.tasks[0]).toMatchObject({ status: "pending", attempts: 1 });
  });

  it("failed with attempts left goes back to pending", () => {
    const plan = planResume(
      snapshot(
        atPhase("IMPLEMENTATION"),
        execution([t("a", "failed", { attempts: 1 })]),
        reportsBefore("IMPLEMENTATION"),
      ),
      NOW,
    );
    expect(plan.writes.execution?.tasks[0]).toMatchObject({ status: "pending", attempts: 1 });
    expect(plan.repairs[0]?.code).toBe("task_requeued");
  });

  it("interrupted approval: approved but not completed advances", () => {
    const plan = planResume(
      snapshot(
        phaseState({ user_checkpoints: approved("REQUIREMENTS") }),
        undefined,
        reports({ [REPORT.demand]: { goal: "x" } }),
      ),
      NOW,
    );
    expect(plan.repairs[0]?.code).toBe("phase_advanced");
    expect(plan.writes.phase?.completed_phases.map((c) => c.phase)).toEqual(["REQUIREMENTS"]);
  });

  it("ancient state: stale with a decision, default no, nothing written", () => {
    const old = phaseState({ started_at: "2026-10-01T09:00:00Z", last_updated: "2026-10-02T09:00:00Z" });
    const plan = planResume(snapshot(old), NOW);
    expect(plan.situation).toBe("stale");
    expect(plan.next.action).toBe("confirm_fresh_start");
    expect(plan.decision).toMatchObject({ default: false, yes: "dotagent archive --reason 'stale state'" });
    expect(plan.last_activity_ago).toBe("2 months ago");
    expect(plan.writes).toEqual({ moves: [], events: [] });
    expect(planResume(snapshot(old), NOW, { staleAfterMs: Number.POSITIVE_INFINITY }).situation).toBe("interrupted");
  });

  it("a cut-off rework whose file was moved is rolled forward", () => {
    const journal = {
      type: "rework",
      started_at: "2026-11-20T11:00:00Z",
      round: 1,
      moves: [{ from: REPORT.verification, to: "memory/reports/verification.rework-1.json" }],
    };
    const state = atPhase("VERIFICATION", { interruption_safe: false, pending_transition: journal });
    const plan = planResume(
      snapshot(
        state,
        undefined,
        reportsBefore("VERIFICATION", { "memory/reports/verification.rework-1.json": { status: "exists" } }),
      ),
      NOW,
    );
    expect(plan.repairs[0]?.code).toBe("transition_rolled_forward");
    expect(plan.phase).toBe("IMPLEMENTATION");
    expect(plan.writes.phase).toMatchObject({
      interruption_safe: true,
      pending_transition: null,
      rework: { round: 1 },
    });
  });

  it("a cut-off rework whose file was not moved is rolled back, then reworked afresh", () => {
    const journal = {
      type: "rework",
      started_at: "2026-11-20T11:00:00Z",
      round: 1,
      moves: [{ from: REPORT.verification, to: "memory/reports/verification.rework-1.json" }],
    };
    const state = atPhase("VERIFICATION", { interruption_safe: false, pending_transition: journal });
    const plan = planResume(
      snapshot(state, undefined, reportsBefore("VERIFICATION", { [REPORT.verification]: { passed: false } })),
      NOW,
    );
    expect(plan.repairs.map((r) => r.code)).toEqual(["transition_rolled_back", "rework"]);
    expect(plan.writes.moves).toEqual([
      { type: "move", from: REPORT.verification, to: "memory/reports/verification.rework-1.json" },
    ]);
  });
});

describe("planResume: ownership and parallel batches", () => {
  const impl = (tasks: ReturnType<typeof t>[], extra: Parameters<typeof execution>[1] = {}, files = {}) =>
    snapshot(atPhase("IMPLEMENTATION"), execution(tasks, extra), reportsBefore("IMPLEMENTATION", files));
  const verdicts = (entries: Record<string, "live" | "unknown" | "gone">) => new Map(Object.entries(entries));
  const pending = (...ids: string[]) => ids.map((id) => t(id, "pending"));

  it("a running task of a live or unknown owner is in flight: not repaired, not listed, shown in in_flight", () => {
    const snap = impl([t("a", "running"), t("b", "running"), t("c", "running"), ...pending("d", "e")]);
    const plan = planResume(snap, NOW, { owners: verdicts({ a: "live", b: "unknown", c: "gone" }) });
    expect(plan.in_flight).toEqual(["a", "b"]);
    expect(plan.repairs.map((r) => r.message)).toEqual(["c was running with no output: attempt 2 of 3"]);
    expect(plan.writes.execution?.tasks.map((x) => x.status)).toEqual([
      "running",
      "running",
      "pending",
      "pending",
      "pending",
    ]);
    expect(plan.next).toMatchObject({ action: "run_tasks", tasks: ["c"] }); // 3 at once, 2 of them in flight
  });

  it("an in-flight task with an output is still left to its owner (it records the result)", () => {
    const plan = planResume(impl([t("a", "running")], {}, complete("a")), NOW, { owners: verdicts({ a: "live" }) });
    expect(plan.repairs).toEqual([]);
    expect(plan.phase).toBe("IMPLEMENTATION");
    expect(plan.next).toMatchObject({
      action: "await_agents",
      tasks: [],
      round: 0,
      reason: "the executor of a is at work; wait for its result",
    });
  });

  it("without verdicts every running task is orphaned, as before owners existed", () => {
    expect(planResume(impl([t("a", "running")]), NOW).repairs[0]?.code).toBe("task_reset");
  });

  it.each([
    ["default 3", {}, undefined, ["a", "b", "c"]],
    ["max_parallel 1 in execution.json: one task at a time", { max_parallel: 1 }, undefined, ["a"]],
    ["--max-parallel 5 wins over the stored 1", { max_parallel: 1 }, 5, ["a", "b", "c", "d", "e"]],
  ] as const)("run_tasks lists at most max_parallel ready tasks: %s", (_name, extra, maxParallel, tasks) => {
    const plan = planResume(impl(pending("a", "b", "c", "d", "e", "f"), extra), NOW, { maxParallel });
    expect(plan.next).toMatchObject({ action: "run_tasks", tasks });
  });

  it("dependencies still hold in a batch", () => {
    const plan = planResume(
      impl([t("a", "pending"), t("b", "pending", { depends_on: ["a"] }), t("c", "pending")]),
      NOW,
    );
    expect(plan.next.tasks).toEqual(["a", "c"]);
  });

  it("in-flight tasks use up the slots: nothing to start until one finishes", () => {
    const plan = planResume(impl([t("a", "running"), ...pending("b")], { max_parallel: 1 }), NOW, {
      owners: verdicts({ a: "live" }),
    });
    expect(plan.next).toMatchObject({ action: "await_agents", tasks: [] });
    expect(plan.writes.execution).toBeUndefined();
  });

  it("--max-parallel is stored in execution.json once; the next resume writes nothing", () => {
    const snap = impl(pending("a", "b"));
    const first = planResume(snap, NOW, { maxParallel: 1 });
    expect(first.writes.execution?.max_parallel).toBe(1);
    expect(first.repairs).toEqual([]);
    const second = planResume(afterWrites(snap, first), NOW, { maxParallel: 1 });
    expect(second.writes.execution).toBeUndefined();
    expect(planResume(afterWrites(snap, first), NOW).next.tasks).toEqual(["a"]);
  });
});

describe("planResume: situations", () => {
  it("a complete workflow is never resumed", () => {
    const done = atPhase("REFLECTION", {
      phase_status: "complete",
      completed_phases: atPhase("REFLECTION").completed_phases.concat([
        { phase: "REFLECTION", completed_at: "2026-11-20T11:00:00Z", output: REPORT.reflectionMd },
      ]),
    });
    const plan = planResume(
      snapshot(done, undefined, reportsBefore("REFLECTION", { [REPORT.reflectionMd]: { status: "exists" } })),
      NOW,
    );
    expect(plan.errors).toEqual([]);
    expect(plan.situation).toBe("complete");
    expect(plan.next.action).toBe("workflow_complete");
    expect(plan.writes.phase).toBeUndefined();
  });

  it("a different request asks before changing anything", () => {
    const state = phaseState({ request: "add login", inputs_hash: inputsHash("add login") });
    expect(planResume(snapshot(state), NOW, { request: "add login" }).situation).toBe("interrupted");
    const plan = planResume(snapshot(state), NOW, { request: "add signup" });
    expect(plan.situation).toBe("request_changed");
    expect(plan.next.action).toBe("confirm_request_change");
    expect(plan.decision?.yes).toBe("dotagent init --request 'add signup' --yes");
    expect(plan.writes).toEqual({ moves: [], events: [] });
  });

  it.each([
    [undefined, "dotagent init --request 'add signup' --yes"],
    ["develop", "dotagent init --request 'add signup' --yes"],
    ["fix", "dotagent init --request 'add signup' --workflow fix --yes"],
  ])(
    "a changed request's yes, for a new workflow of %s, starts that workflow as printed (issue 42)",
    (newWorkflow, yes) => {
      const state = phaseState({ request: "add login", inputs_hash: inputsHash("add login") });
      expect(planResume(snapshot(state), NOW, { request: "add signup", newWorkflow }).decision?.yes).toBe(yes);
    },
  );

  it.each([
    ["request_changed", "complete", true],
    ["request_changed", "in_progress", false],
    ["complete", "complete", false],
    ["stale", "complete", false],
  ] as const)("replacesComplete: %s at %s → %s", (situation, phase_status, replaces) =>
    expect(replacesComplete({ situation, phase_status })).toBe(replaces),
  );

  it("inputs_hash is the first 16 hex chars of sha256 of the canonical JSON", () => {
    // sha256('{"request":"add login"}')
    expect(inputsHash("add login")).toMatch(/^[0-9a-f]{16}$/);
    expect(inputsHash("add login")).toBe("4ee200a66a7205c8");
  });

  it("corrupt state offers a fresh start, default no, and repairs nothing", () => {
    const snap: StateSnapshot = {
      ...snapshot(undefined),
      phase: {
        kind: "corrupt",
        file: "memory/state/phase.json",
        stamp: "s",
        problems: [{ file: "memory/state/phase.json", path: "current_phase", message: "expected one of …" }],
      },
    };
    const plan = planResume(snap, NOW);
    expect(plan.situation).toBe("corrupt");
    expect(plan.next.action).toBe("confirm_fresh_start");
    expect(plan.decision?.default).toBe(false);
    expect(plan.errors[0]).toMatchObject({ file: "memory/state/phase.json", path: "current_phase" });
  });
});

describe("planResume: corrupt or hand-edited state, and the newest checkpoint (SPEC §5, §15)", () => {
  const point = {
    rev: 7,
    at: "2026-11-20T11:00:00Z",
    phase: "ARCHITECTURE" as const,
    phase_status: "pending",
    what: "REQUIREMENTS completed",
    last_write: true,
  };
  const corrupt: StateSnapshot = {
    ...snapshot(undefined),
    phase: {
      kind: "corrupt",
      file: "memory/state/phase.json",
      stamp: "s",
      problems: [{ file: "memory/state/phase.json", path: "", message: "not valid JSON" }],
    },
  };
  const edited: StateSnapshot = {
    ...snapshot(atPhase("IMPLEMENTATION"), undefined, reportsBefore("IMPLEMENTATION")),
    handEdits: ["memory/state/phase.json"],
  };
  const cases: Array<
    [
      string,
      StateSnapshot,
      Parameters<typeof planResume>[2],
      ResumePlan["situation"],
      ResumePlan["next"]["action"],
      string | null,
      string | null,
    ]
  > = [
    [
      "corrupt, a checkpoint → go back first (no: fresh start)",
      corrupt,
      { recovery: point },
      "corrupt",
      "confirm_rollback",
      "dotagent rollback --to 7 --yes",
      "dotagent archive --reason 'corrupt state'",
    ],
    [
      "corrupt, going back declined → fresh start",
      corrupt,
      { recovery: point, declineRollback: true },
      "corrupt",
      "confirm_fresh_start",
      "dotagent archive --reason 'corrupt state'",
      "dotagent validate",
    ],
    [
      "corrupt, no checkpoint → fresh start",
      corrupt,
      { recovery: null },
      "corrupt",
      "confirm_fresh_start",
      "dotagent archive --reason 'corrupt state'",
      "dotagent validate",
    ],
    [
      "hand edit, a checkpoint → go back (no: keep)",
      edited,
      { recovery: point },
      "hand_edit",
      "confirm_rollback",
      "dotagent rollback --to 7 --yes",
      "dotagent resume --keep-edit",
    ],
    [
      "hand edit kept (--keep-edit) → planned on from the edit",
      edited,
      { recovery: point, keepEdits: true },
      "interrupted",
      "plan_tasks",
      null,
      null,
    ],
    [
      "hand edit, no checkpoint → kept without asking",
      edited,
      { recovery: null },
      "interrupted",
      "plan_tasks",
      null,
      null,
    ],
    [
      "hand edit, checkpoints not looked for (other commands) → a warning only",
      edited,
      {},
      "interrupted",
      "plan_tasks",
      null,
      null,
    ],
  ];
  it.each(cases)("%s", (_name, snap, options, situation, action, yes, no) => {
    const plan = planResume(snap, NOW, options);
    expect(plan.situation).toBe(situation);
    expect(plan.next.action).toBe(action);
    expect(plan.decision?.yes ?? null).toBe(yes);
    expect(plan.decision?.no ?? null).toBe(no);
    if (action === "confirm_rollback") expect(plan.next.rev).toBe(7);
    if (plan.decision !== null) expect(plan.writes).toEqual({ moves: [], events: [] });
  });

  it("a kept hand edit is adopted (repair hand_edit_kept) only when asked or with nothing to go back to; a warning names the file either way", () => {
    expect(planResume(edited, NOW, { recovery: point, keepEdits: true }).writes.adoptEdits).toEqual([
      "memory/state/phase.json",
    ]);
    expect(planResume(edited, NOW, { recovery: null }).repairs[0]).toMatchObject({ code: "hand_edit_kept" });
    const warned = planResume(edited, NOW, {});
    expect(warned.writes.adoptEdits).toBeUndefined();
    expect(warned.warnings).toContainEqual(
      expect.objectContaining({ code: "hand_edit", file: "memory/state/phase.json" }),
    );
  });

  it("the question says whether the checkpoint is what dotagent last wrote", () => {
    expect(planResume(edited, NOW, { recovery: point }).decision?.question).toContain("what dotagent last wrote");
    expect(planResume(edited, NOW, { recovery: { ...point, last_write: false } }).decision?.question).toContain(
      "it wrote after it, and that is not kept",
    );
  });

  it("needsRecoveryPoint: asked for corrupt state and hand edits, not for a stray .clearing or good state", () => {
    const clearing: StateSnapshot = {
      ...snapshot(phaseState()),
      clearing: { archive: null, problem: "does not name an archive" },
    };
    expect(needsRecoveryPoint(planResume(corrupt, NOW), {})).toBe(true);
    expect(needsRecoveryPoint(planResume(edited, NOW), {})).toBe(true);
    expect(needsRecoveryPoint(planResume(clearing, NOW), {})).toBe(false);
    expect(needsRecoveryPoint(planResume(snapshot(phaseState()), NOW), {})).toBe(false);
    expect(needsRecoveryPoint(planResume(corrupt, NOW), { recovery: null })).toBe(false);
  });
});

describe("planResume: property", () => {
  const statuses = fc.constantFrom("pending", "running", "complete", "failed", "dead");
  const anyPhase = fc.constantFrom<Phase>(
    "REQUIREMENTS",
    "ARCHITECTURE",
    "IMPLEMENTATION",
    "VERIFICATION",
    "REFLECTION",
  );
  it("random states either plan cleanly or report errors, and never throw", () => {
    fc.assert(
      fc.property(
        anyPhase,
        fc.array(
          fc.record({
            id: fc.constantFrom("a", "b", "c", "d", "e"),
            status: statuses,
            attempts: fc.nat(5),
            deps: fc.array(fc.constantFrom("a", "b", "c", "x"), { maxLength: 2 }),
          }),
          { maxLength: 6 },
        ),
        fc.dictionary(
          fc.constantFrom(
            REPORT.demand,
            REPORT.finalDesign,
            REPORT.roundtable,
            REPORT.verification,
            REPORT.reflectionMd,
            "memory/reports/tasks/a.json",
          ),
          fc.oneof(
            fc.constant({ passed: false }),
            fc.constant({ passed: true }),
            fc.constant({ task_id: "a", status: "complete" }),
          ),
        ),
        fc.boolean(),
        fc.constantFrom<ExecutionState["plans"]>(
          undefined,
          [],
          [{ round: 0, recorded_at: "2026-11-20T10:30:00Z", tasks: 2 }],
        ),
        (phase, tasks, files, approve, plans) => {
          const state = atPhase(phase, approve ? { user_checkpoints: approved("REQUIREMENTS", "ARCHITECTURE") } : {});
          const exec = execution(
            tasks.map((x) => task(x.id, { status: x.status, attempts: x.attempts, depends_on: x.deps })),
            plans === undefined ? {} : { plans },
          );
          const snap = snapshot(state, exec, reportsBefore(phase, files));
          const plan = planResume(snap, NOW);
          if (plan.errors.length > 0) expect(plan.situation).toBe("corrupt");
          else {
            const again = planResume(afterWrites(snap, plan), NOW);
            expect(again.next).toEqual(plan.next);
            expect(again.repairs).toEqual([]);
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe("planResume: task plans recorded whole (issue 10)", () => {
  const recorded = (round: number) => ({ round, recorded_at: "2026-11-20T10:30:00Z", tasks: 1 });
  const inRework = (round: number) =>
    atPhase("IMPLEMENTATION", {
      rework: {
        round,
        verification: `memory/reports/verification.rework-${round}.json`,
        started_at: "2026-11-20T11:00:00Z",
      },
    });
  const rowsNew: Row[] = [
    {
      name: "one task added one by one, complete, no plan → plan_tasks (not VERIFICATION)",
      snap: snapshot(
        atPhase("IMPLEMENTATION"),
        execution([t("task-001", "complete")], { plans: [] }),
        reportsBefore("IMPLEMENTATION", complete("task-001")),
      ),
      phase: "IMPLEMENTATION",
      action: "plan_tasks",
    },
    {
      name: "plan recorded, every task complete → advance",
      snap: snapshot(
        atPhase("IMPLEMENTATION"),
        execution([t("a", "complete")], { plans: [recorded(0)] }),
        reportsBefore("IMPLEMENTATION", complete("a")),
      ),
      phase: "VERIFICATION",
      action: "spawn_agent",
      agent: "qa",
    },
    {
      name: "plan recorded, a task pending → run_tasks",
      snap: snapshot(
        atPhase("IMPLEMENTATION"),
        execution([t("a", "complete"), t("b", "pending")], { plans: [recorded(0)] }),
        reportsBefore("IMPLEMENTATION", complete("a")),
      ),
      phase: "IMPLEMENTATION",
      action: "run_tasks",
      tasks: ["b"],
    },
    {
      name: "no execution.json → plan_tasks",
      snap: snapshot(atPhase("IMPLEMENTATION"), undefined, reportsBefore("IMPLEMENTATION")),
      phase: "IMPLEMENTATION",
      action: "plan_tasks",
    },
    {
      name: "rework round 1 not planned → plan_tasks",
      snap: snapshot(
        inRework(1),
        execution([t("a", "complete")], { plans: [recorded(0)] }),
        reportsBefore("IMPLEMENTATION", complete("a")),
      ),
      phase: "IMPLEMENTATION",
      action: "plan_tasks",
    },
    {
      name: "rework round 1 planned, fix pending → run_tasks",
      snap: snapshot(
        inRework(1),
        execution([t("a", "complete"), t("fix", "pending")], { plans: [recorded(0), recorded(1)] }),
        reportsBefore("IMPLEMENTATION", complete("a")),
      ),
      phase: "IMPLEMENTATION",
      action: "run_tasks",
      tasks: ["fix"],
    },
    {
      name: "rework round 1 planned, all complete → advances by itself",
      snap: snapshot(
        inRework(1),
        execution([t("a", "complete"), t("fix", "complete")], { plans: [recorded(0), recorded(1)] }),
        reportsBefore("IMPLEMENTATION", { ...complete("a"), ...complete("fix") }),
      ),
      phase: "VERIFICATION",
      action: "spawn_agent",
      agent: "qa",
    },
    {
      name: "rework round 2 with only round 1 planned → plan_tasks",
      snap: snapshot(
        inRework(2),
        execution([t("a", "complete")], { plans: [recorded(0), recorded(1)] }),
        reportsBefore("IMPLEMENTATION", complete("a")),
      ),
      phase: "IMPLEMENTATION",
      action: "plan_tasks",
    },
    {
      name: "legacy rework, fix tasks complete → stays open: spawn executor",
      snap: snapshot(
        inRework(1),
        execution([t("a", "complete"), t("fix", "complete")]),
        reportsBefore("IMPLEMENTATION", { ...complete("a"), ...complete("fix") }),
      ),
      phase: "IMPLEMENTATION",
      action: "spawn_agent",
      agent: "executor",
    },
    {
      name: "legacy, tasks complete, no plan → advance as before",
      snap: snapshot(
        atPhase("IMPLEMENTATION"),
        execution([t("a", "complete")]),
        reportsBefore("IMPLEMENTATION", complete("a")),
      ),
      phase: "VERIFICATION",
      action: "spawn_agent",
      agent: "qa",
    },
  ];
  it.each(rowsNew)("$name", (row) => {
    const plan = expectRow(row);
    const second = planResume(afterWrites(row.snap, plan), NOW);
    expect(second.next).toEqual(plan.next);
    expect(second.repairs).toEqual([]);
  });

  it("the reason names the tasks added one by one and, in rework, the report to plan from", () => {
    const loose = planResume(
      snapshot(
        atPhase("IMPLEMENTATION"),
        execution([t("task-001", "pending")], { plans: [] }),
        reportsBefore("IMPLEMENTATION"),
      ),
      NOW,
    );
    expect(loose.next.reason).toMatch(/include task-001, added one by one/);
    const rework = planResume(
      snapshot(
        inRework(1),
        execution([t("a", "complete")], { plans: [recorded(0)] }),
        reportsBefore("IMPLEMENTATION", complete("a")),
      ),
      NOW,
    );
    expect(rework.next.reason).toMatch(/verification\.rework-1\.json .*plan\.rework-1\.json/);
  });

  it("advancing out of a planned rework round closes it", () => {
    const plan = planResume(rowsNew[6]!.snap, NOW);
    expect(plan.writes.phase?.rework?.closed_at).toBe(NOW.toISOString());
  });
});

describe("planResume: the designs ARCHITECTURE asked for (issue 10)", () => {
  const asked = atPhase("ARCHITECTURE", { designs_requested: ["minimal", "robust"] });
  const design = (name: string) => `${REPORT.designsDir}/${name}.json`;
  it.each([
    ["none written → architect for both", [], {}, "spawn_agent", "architect", ["minimal", "robust"]],
    [
      "one written (a kill after the first architect) → architect for the other, not the roundtable",
      [design("minimal")],
      {},
      "spawn_agent",
      "architect",
      ["robust"],
    ],
    [
      "one invalid → it counts as missing",
      [design("minimal")],
      { [design("robust")]: { status: "invalid", reason: "is empty" } },
      "spawn_agent",
      "architect",
      ["robust"],
    ],
    [
      "an extra design does not stand in for a requested one",
      [design("other"), design("robust")],
      {},
      "spawn_agent",
      "architect",
      ["minimal"],
    ],
    ["both written → roundtable", [design("minimal"), design("robust")], {}, "spawn_agent", "roundtable", undefined],
    [
      "both and the roundtable → await_approval",
      [design("minimal"), design("robust")],
      { [REPORT.roundtable]: { rec: "minimal" } },
      "await_approval",
      null,
      undefined,
    ],
  ] as const)("%s", (_name, designs, files, action, agent, missing) => {
    const plan = planResume(snapshot(asked, undefined, reportsBefore("ARCHITECTURE", files, [...designs])), NOW);
    expect(plan.next).toMatchObject({ action, agent });
    expect(plan.next.designs).toEqual(missing);
  });

  it("legacy (no designs_requested): one design is enough for the roundtable, and next has no designs", () => {
    const plan = planResume(
      snapshot(atPhase("ARCHITECTURE"), undefined, reportsBefore("ARCHITECTURE", {}, [design("minimal")])),
      NOW,
    );
    expect(plan.next).toMatchObject({ action: "spawn_agent", agent: "roundtable" });
    expect("designs" in plan.next).toBe(false);
  });

  it("the reason names the missing designs and says not to re-run the others", () => {
    const plan = planResume(snapshot(asked, undefined, reportsBefore("ARCHITECTURE", {}, [design("minimal")])), NOW);
    expect(plan.next.reason).toBe("designs robust of minimal, robust are missing (do not re-run the others)");
  });
});

describe("planResume: fields for programs and agents in flight (SPEC §5)", () => {
  const owner = { pid: 4242, host: "dev", at: "2026-11-20T11:59:00Z", session: "s1" };
  const run = (agent: string, output: string, design?: string) => ({
    agent,
    output,
    ...(design ? { design } : {}),
    owner,
  });
  const agentVerdicts = (entries: Record<string, "live" | "gone">) =>
    new Map(Object.entries(entries).map(([output, v]) => [`agent:${output}`, v]));
  const robust = `${REPORT.designsDir}/robust.json`;
  const minimal = `${REPORT.designsDir}/minimal.json`;

  it.each([
    [
      "demand written",
      snapshot(phaseState(), undefined, reports({ [REPORT.demand]: { goal: "x" } })),
      "approve_requirements",
    ],
    [
      "designs and roundtable",
      snapshot(
        atPhase("ARCHITECTURE"),
        undefined,
        reportsBefore("ARCHITECTURE", { [REPORT.roundtable]: { rec: "a" } }, [D1]),
      ),
      "pick_design",
    ],
    [
      "final design written",
      snapshot(
        atPhase("ARCHITECTURE"),
        undefined,
        reportsBefore("ARCHITECTURE", { [REPORT.finalDesign]: { pick: "a" } }, [D1]),
      ),
      "approve_design",
    ],
  ] as const)("await_approval names its gate: %s → %s", (_name, snap, gate) => {
    expect(planResume(snap, NOW).next).toMatchObject({ action: "await_approval", gate });
  });

  it("develop's requirements gate names no output: its JSON is as before (a definition's names its report: test/workflows.test.ts)", () => {
    expect(
      planResume(snapshot(phaseState(), undefined, reports({ [REPORT.demand]: { goal: "x" } })), NOW).next,
    ).toEqual({
      action: "await_approval",
      agent: null,
      tasks: [],
      gate: "approve_requirements",
      reason: "demand.json awaits the user's approval",
    });
  });

  it("plan_tasks names the round and the plan file: round 0, then rework round 1", () => {
    expect(
      planResume(snapshot(atPhase("IMPLEMENTATION"), execution([]), reportsBefore("IMPLEMENTATION")), NOW).next,
    ).toMatchObject({ action: "plan_tasks", round: 0, plan_file: "memory/reports/plan.json" });
    const failed = snapshot(
      atPhase("VERIFICATION"),
      execution([t("a", "complete")], { plans: [plan0] }),
      reportsBefore("VERIFICATION", { [REPORT.verification]: { passed: false }, ...complete("a") }),
    );
    expect(planResume(failed, NOW).next).toMatchObject({
      action: "plan_tasks",
      round: 1,
      plan_file: "memory/reports/plan.rework-1.json",
    });
  });

  it("spawn architect with no designs asked for proposes the default pair", () => {
    expect(
      planResume(snapshot(atPhase("ARCHITECTURE"), undefined, reportsBefore("ARCHITECTURE")), NOW).next,
    ).toMatchObject({ action: "spawn_agent", agent: "architect", designs: ["minimal", "robust"] });
  });

  it("a pm at work is waited for, even with a valid demand (it may be revising it)", () => {
    const snap = snapshot(
      phaseState({ agents: [run("pm", REPORT.demand)] }),
      undefined,
      reports({ [REPORT.demand]: { goal: "x" } }),
    );
    const plan = planResume(snap, NOW, { owners: agentVerdicts({ [REPORT.demand]: "live" }) });
    expect(plan.next).toMatchObject({ action: "await_agents", reason: expect.stringContaining("pm") });
    expect(plan.agents_in_flight).toEqual([{ agent: "pm", output: REPORT.demand }]);
    expect(plan.repairs).toEqual([]);
  });

  it("an architect at work is never asked for again; the others are; the roundtable waits for all", () => {
    const asked = atPhase("ARCHITECTURE", {
      designs_requested: ["minimal", "robust"],
      agents: [run("architect", robust, "robust")],
    });
    const none = planResume(snapshot(asked, undefined, reportsBefore("ARCHITECTURE")), NOW, {
      owners: agentVerdicts({ [robust]: "live" }),
    });
    expect(none.next).toMatchObject({ action: "spawn_agent", agent: "architect", designs: ["minimal"] });
    const oneDone = planResume(
      snapshot(asked, undefined, reportsBefore("ARCHITECTURE", { [minimal]: { name: "minimal" } }, [minimal])),
      NOW,
      { owners: agentVerdicts({ [robust]: "live" }) },
    );
    expect(oneDone.next).toMatchObject({
      action: "await_agents",
      reason: expect.stringContaining("the architect agent on design robust"),
    });
  });

  it("a failed ARCHITECTURE: the missing design is the person's to ask for again (an architect at work on another goes on), with its spawn's fields", () => {
    const failed = atPhase("ARCHITECTURE", {
      phase_status: "failed",
      error: "the architect for design minimal agent stopped without a valid report",
      designs_requested: ["minimal", "robust"],
      agents: [run("architect", robust, "robust")],
    });
    expect(
      planResume(snapshot(failed, undefined, reportsBefore("ARCHITECTURE")), NOW, {
        owners: agentVerdicts({ [robust]: "live" }),
      }).next,
    ).toMatchObject({ action: "resolve_failed_agent", agent: "architect", designs: ["minimal"] });
    const robustDone = planResume(
      snapshot(
        { ...failed, agents: [] },
        undefined,
        reportsBefore("ARCHITECTURE", { [robust]: { name: "robust" } }, [robust]),
      ),
      NOW,
    );
    expect(robustDone.next).toMatchObject({
      action: "resolve_failed_agent",
      agent: "architect",
      designs: ["minimal"],
      reason: expect.stringMatching(
        /^ARCHITECTURE failed: the architect for design minimal agent stopped without a valid report\. Tell the person/,
      ),
    });
    // Asking writes nothing: the phase stays failed until the person replies.
    expect(robustDone.writes.phase).toBeUndefined();
  });

  it("an agent whose session is gone is dropped (a repair), and its job is asked for again", () => {
    const snap = snapshot(
      atPhase("VERIFICATION", { agents: [run("qa", REPORT.verification)] }),
      undefined,
      reportsBefore("VERIFICATION"),
    );
    const plan = planResume(snap, NOW, { owners: agentVerdicts({ [REPORT.verification]: "gone" }) });
    expect(plan.repairs.map((r) => r.code)).toEqual(["agent_gone"]);
    expect(plan.writes.phase?.agents).toEqual([]);
    expect(plan.next).toMatchObject({ action: "spawn_agent", agent: "qa" });
  });

  it("the plan's words never nest a parenthesis in another: the model repeats them inside its own", () => {
    const architects = [run("architect", minimal, "minimal"), run("architect", robust, "robust")];
    const plans = [
      ...rows.map((row) => planResume(row.snap, NOW)),
      // Two architects at work, one of them gone: the wait and the repair name them.
      planResume(
        snapshot(atPhase("ARCHITECTURE", { agents: architects }), undefined, reportsBefore("ARCHITECTURE")),
        NOW,
        {
          owners: agentVerdicts({ [minimal]: "live", [robust]: "gone" }),
        },
      ),
      planResume(
        snapshot(atPhase("ARCHITECTURE", { agents: architects }), undefined, reportsBefore("ARCHITECTURE")),
        NOW,
        {
          owners: agentVerdicts({ [minimal]: "live", [robust]: "live" }),
        },
      ),
      // Executors at work, and a phase failed with a reason of its own.
      planResume(
        snapshot(
          atPhase("IMPLEMENTATION"),
          execution([t("a", "running"), t("b", "running"), t("c", "pending", { depends_on: ["a"] })], {
            plans: [{ ...plan0, tasks: 3 }],
          }),
          reportsBefore("IMPLEMENTATION"),
        ),
        NOW,
        {
          owners: new Map([
            ["a", "live"],
            ["b", "live"],
          ]),
        },
      ),
      planResume(
        snapshot(
          atPhase("ARCHITECTURE", {
            phase_status: "failed",
            error: "the architect for design minimal agent stopped without a valid report",
          }),
          undefined,
          reportsBefore("ARCHITECTURE"),
        ),
        NOW,
      ),
    ];
    const said = plans.flatMap((p) => [p.next.reason, ...p.repairs.map((r) => r.message)]);
    expect(said).toContain(
      "2 agents are at work: the architect agent on design minimal and the architect agent on design robust; wait for their results",
    );
    expect(said).toContain(
      "the architect agent on design robust stopped without a recorded end: its session ended or its phase is over",
    );
    expect(said).toContain("2 agents are at work: the executor of a and the executor of b; wait for their results");
    // Code spans (`dotagent step run X`) are the model's to run, not words: left out.
    expect(said.filter((text) => /\([^()]*\(/.test(text.replace(/`[^`]*`/g, "")))).toEqual([]);
  });

  it("an agent of a phase that is over is dropped, whatever its owner", () => {
    const snap = snapshot(
      atPhase("ARCHITECTURE", { agents: [run("pm", REPORT.demand)] }),
      undefined,
      reportsBefore("ARCHITECTURE"),
    );
    expect(
      planResume(snap, NOW, { owners: agentVerdicts({ [REPORT.demand]: "live" }) }).repairs.map((r) => r.code),
    ).toEqual(["agent_gone"]);
  });

  it("the approved design's tasks become round 0's plan in the same step (no plan_tasks)", () => {
    const design = {
      [REPORT.finalDesign]: {
        chosen: "a",
        tasks: [
          { id: "task-001", title: "one" },
          { id: "task-002", title: "two", depends_on: ["task-001"] },
        ],
      },
    };
    const snap = snapshot(
      atPhase("ARCHITECTURE", { user_checkpoints: approved("REQUIREMENTS", "ARCHITECTURE") }),
      undefined,
      reportsBefore("ARCHITECTURE", design, [D1]),
    );
    const plan = planResume(snap, NOW);
    expect(plan.phase).toBe("IMPLEMENTATION");
    expect(plan.next).toMatchObject({ action: "run_tasks", tasks: ["task-001"], round: 0 });
    expect(plan.writes.execution?.tasks.map((x) => [x.id, x.depends_on])).toEqual([
      ["task-001", []],
      ["task-002", ["task-001"]],
    ]);
    expect(plan.writes.execution?.plans).toEqual([{ round: 0, recorded_at: NOW.toISOString(), tasks: 2 }]);
    expect(plan.repairs.map((r) => r.code)).toContain("plan_recorded");
  });

  it.each([
    ["a bad id", [{ id: "../x" }]],
    ["an unknown dependency", [{ id: "a", depends_on: ["zz"] }]],
    [
      "a cycle",
      [
        { id: "a", depends_on: ["b"] },
        { id: "b", depends_on: ["a"] },
      ],
    ],
    ["no tasks", []],
    ["tasks that are not a list", { id: "a" }],
  ])("a design whose task list does not import (%s) is left to plan_tasks", (_name, tasks) => {
    const snap = snapshot(
      atPhase("IMPLEMENTATION"),
      undefined,
      reportsBefore("IMPLEMENTATION", { [REPORT.finalDesign]: { chosen: "a", tasks } }),
    );
    const plan = planResume(snap, NOW);
    expect(plan.next.action).toBe("plan_tasks");
    expect(plan.writes.execution).toBeUndefined();
  });

  it("tasks added one by one before a plan keep the plan to the model (no import over them)", () => {
    const snap = snapshot(
      atPhase("IMPLEMENTATION"),
      execution([t("x", "pending")], { plans: [] }),
      reportsBefore("IMPLEMENTATION", { [REPORT.finalDesign]: { chosen: "a", tasks: [{ id: "a" }] } }),
    );
    expect(planResume(snap, NOW).next.action).toBe("plan_tasks");
  });
});

describe("planResume: a check whose command fails once more than max_rounds allows", () => {
  // What `step run TESTS` leaves in rework round 1 of max_rounds 1: its failed result (issue 41: a
  // row instead of a spawned walk through the built CLI; test/workflows.test.ts runs a real check).
  const PINNED = {
    name: "review",
    hash: "0123456789abcdef",
    steps: [
      { id: "BUILD", kind: "agent", agent: "executor", report: "build.json" },
      { id: "TESTS", kind: "check", run: "npm test", rework: "BUILD", max_rounds: 1 },
    ],
  } as unknown as NonNullable<Parameters<typeof atPhase>[1]>["workflow"];
  const atTests = (round: number) =>
    atPhase("REQUIREMENTS", {
      workflow: PINNED,
      current_phase: "TESTS",
      completed_phases: [{ phase: "BUILD", completed_at: "2026-11-20T11:00:00Z", output: "memory/reports/build.json" }],
      ...(round > 0
        ? {
            rework: {
              round,
              step: "TESTS",
              to: "BUILD",
              verification: `memory/reports/steps/TESTS.rework-${round}.json`,
              started_at: "2026-11-20T10:00:00Z",
            },
          }
        : {}),
    });
  const failed = reports({
    "memory/reports/build.json": { ok: true },
    "memory/reports/steps/TESTS.json": { passed: false },
  });

  it("round 1 of 1 failed again: the workflow stops at the check, failed, with the reason", () => {
    const plan = planResume(snapshot(atTests(1), undefined, failed), NOW);
    expect(plan.next).toMatchObject({
      action: "workflow_failed",
      reason: expect.stringContaining("TESTS failed 1 rework round (max_rounds 1)"),
    });
    expect(plan.writes.phase).toMatchObject({ current_phase: "TESTS", phase_status: "failed" });
    expect(plan.repairs).toContainEqual(expect.objectContaining({ code: "rework_exhausted" }));
  });

  it("the first failure: back to BUILD for rework round 1, the result kept aside", () => {
    const plan = planResume(snapshot(atTests(0), undefined, failed), NOW);
    expect(plan.writes.phase).toMatchObject({
      current_phase: "BUILD",
      rework: { round: 1, step: "TESTS", to: "BUILD" },
    });
    expect(plan.repairs).toContainEqual(expect.objectContaining({ code: "rework" }));
  });
});
