import { describe, expect, it } from "vitest";
import { validateState, DEFAULT_STALE_AFTER_MS } from "./validate.js";
import { REPORT } from "./phases.js";
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

const opts = { staleAfterMs: DEFAULT_STALE_AFTER_MS };
const codes = (snap: StateSnapshot) => validateState(snap, NOW, opts);

// [name, snapshot, expected error (code, file, path) or warning code]
const errors: Array<[string, StateSnapshot, string, string, string]> = [
  [
    "future timestamp",
    snapshot(phaseState({ last_updated: "2026-11-20T12:06:00Z" })),
    "future_timestamp",
    "memory/state/phase.json",
    "last_updated",
  ],
  [
    "timestamps out of order",
    snapshot(phaseState({ started_at: "2026-11-20T11:00:00Z", last_updated: "2026-11-20T10:00:00Z" })),
    "time_order",
    "memory/state/phase.json",
    "last_updated",
  ],
  [
    "completed phases out of order",
    snapshot(
      phaseState({
        current_phase: "VERIFICATION",
        completed_phases: [{ phase: "ARCHITECTURE", completed_at: "2026-11-20T10:00:00Z" }],
      }),
    ),
    "phase_order",
    "memory/state/phase.json",
    "completed_phases[0].phase",
  ],
  [
    "duplicate completed phase",
    snapshot(
      atPhase("ARCHITECTURE", {
        completed_phases: [
          { phase: "REQUIREMENTS", completed_at: "2026-11-20T10:00:00Z" },
          { phase: "REQUIREMENTS", completed_at: "2026-11-20T10:01:00Z" },
        ],
      }),
    ),
    "phase_order",
    "memory/state/phase.json",
    "completed_phases[1].phase",
  ],
  [
    "current phase not after the completed ones",
    snapshot(atPhase("ARCHITECTURE", { current_phase: "VERIFICATION" }), undefined, reportsBefore("ARCHITECTURE")),
    "phase_order",
    "memory/state/phase.json",
    "current_phase",
  ],
  [
    "referenced output missing",
    snapshot(atPhase("ARCHITECTURE"), undefined, reports()),
    "output_missing",
    "memory/state/phase.json",
    "completed_phases[0].output",
  ],
  [
    "absolute output path",
    snapshot(
      atPhase("ARCHITECTURE", {
        completed_phases: [{ phase: "REQUIREMENTS", completed_at: "2026-11-20T10:00:00Z", output: "/etc/passwd" }],
      }),
    ),
    "path_outside",
    "memory/state/phase.json",
    "completed_phases[0].output",
  ],
  [
    "output path with ..",
    snapshot(phaseState(), execution([task("a", { output: "../../etc/passwd" })])),
    "path_outside",
    "memory/state/execution.json",
    "tasks[0].output",
  ],
  [
    "output through a link out",
    snapshot(
      phaseState(),
      execution([task("a", { status: "complete" })]),
      reports({
        "memory/reports/tasks/a.json": { status: "outside", reason: "is a link that leads out of the project" },
      }),
    ),
    "path_outside",
    "memory/state/execution.json",
    "tasks[0].output",
  ],
  [
    "workflow ids differ",
    snapshot(phaseState(), execution([], { workflow_id: "wf-other" })),
    "workflow_mismatch",
    "memory/state/execution.json",
    "workflow_id",
  ],
  [
    "duplicate task ids",
    snapshot(phaseState(), execution([task("a"), task("a")])),
    "duplicate_task",
    "memory/state/execution.json",
    "tasks[1].id",
  ],
  [
    "unknown dependency",
    snapshot(phaseState(), execution([task("a", { depends_on: ["ghost"] })])),
    "unknown_dependency",
    "memory/state/execution.json",
    "tasks[0].depends_on[0]",
  ],
  [
    "cyclic dependencies",
    snapshot(phaseState(), execution([task("a", { depends_on: ["b"] }), task("b", { depends_on: ["a"] })])),
    "dependency_cycle",
    "memory/state/execution.json",
    "tasks[0].depends_on",
  ],
  ["execution without phase", snapshot(undefined, execution([])), "no_phase_state", "memory/state/execution.json", ""],
];

const warnings: Array<[string, StateSnapshot, string]> = [
  [
    "stale state",
    snapshot(phaseState({ started_at: "2026-11-01T09:00:00Z", last_updated: "2026-11-02T09:00:00Z" })),
    "stale",
  ],
  ["interruption_safe false", snapshot(phaseState({ interruption_safe: false })), "interruption_unsafe"],
  ["leftover temp file", snapshot(phaseState(), undefined, reports(), ["phase.json.123456"]), "temp_file"],
  [
    "gated phase completed without approval",
    snapshot(atPhase("ARCHITECTURE", { user_checkpoints: [] }), undefined, reportsBefore("ARCHITECTURE")),
    "not_approved",
  ],
];

describe("validateState", () => {
  it.each(errors)("error: %s", (_name, snap, code, file, path) => {
    expect(codes(snap).errors).toContainEqual(expect.objectContaining({ code, file, path }));
  });
  it.each(warnings)("warning: %s", (_name, snap, code) => {
    const report = codes(snap);
    expect(report.errors).toEqual([]);
    expect(report.warnings.map((w) => w.code)).toContain(code);
  });
  it("a hand-written phase.json exactly as the contract shows is valid", () => {
    const state = phaseState({
      current_phase: "ARCHITECTURE",
      completed_phases: [{ phase: "REQUIREMENTS", completed_at: "2026-11-20T10:00:00Z", output: REPORT.demand }],
      user_checkpoints: [{ phase: "REQUIREMENTS", approved_at: "2026-11-20T09:58:00Z" }],
    });
    expect(codes(snapshot(state, undefined, reports({ [REPORT.demand]: { goal: "x" } })))).toEqual({
      errors: [],
      warnings: [],
    });
  });
});

describe("validateState with a checked plan (a command's own step after its write)", () => {
  // A plan of three that passed validation; `after` is it with task b completed (a new object).
  const a = task("a", { status: "complete", started_at: "2026-11-20T10:00:00Z", completed_at: "2026-11-20T10:30:00Z" });
  const b = task("b", { status: "running", depends_on: ["a"], started_at: "2026-11-20T10:40:00Z" });
  const c = task("c", { depends_on: ["b"] });
  const files = reports({ "memory/reports/tasks/a.json": { ok: true }, "memory/reports/tasks/b.json": { ok: true } });
  const before = execution([a, b, c]);
  const at = NOW.getTime();
  const checkedSnap = (exec: typeof before, over: Partial<NonNullable<StateSnapshot["checked"]>> = {}) => ({
    ...snapshot(phaseState({ current_phase: "IMPLEMENTATION" }), exec, files),
    checked: { execution: before, reports: files, at, ...over },
  });
  const full = (exec: typeof before) => codes(snapshot(phaseState({ current_phase: "IMPLEMENTATION" }), exec, files));

  it("finds what a full check finds in the tasks that changed", () => {
    const future = execution([a, { ...b, status: "complete", completed_at: "2026-11-20T13:00:00Z" }, c]);
    expect(codes(checkedSnap(future)).errors).toEqual(full(future).errors);
    expect(codes(checkedSnap(future)).errors).toContainEqual(
      expect.objectContaining({ code: "future_timestamp", path: "tasks[1].completed_at" }),
    );
    const missing = execution([a, b, { ...c, status: "complete", started_at: "2026-11-20T11:00:00Z" }]);
    expect(codes(checkedSnap(missing)).errors).toContainEqual(
      expect.objectContaining({ code: "output_missing", path: "tasks[2].output" }),
    );
  });

  it("checks ids and dependencies in full when they changed", () => {
    const cycle = execution([{ ...a, depends_on: ["c"] }, b, c]);
    expect(codes(checkedSnap(cycle)).errors).toEqual(full(cycle).errors);
    expect(codes(checkedSnap(cycle)).errors.map((e) => e.code)).toContain("dependency_cycle");
    const duplicate = execution([a, b, c, task("a")]);
    expect(codes(checkedSnap(duplicate)).errors.map((e) => e.code)).toContain("duplicate_task");
  });

  it("is not taken for other reports or a later check", () => {
    // The same plan, but a task that is the very object it was is judged again: its output gone.
    const gone = reports({ "memory/reports/tasks/b.json": { ok: true } });
    const same = execution([a, b, c]);
    const other = {
      ...snapshot(phaseState({ current_phase: "IMPLEMENTATION" }), same, gone),
      checked: { execution: before, reports: files, at },
    };
    expect(codes(other).errors.map((e) => e.code)).toContain("output_missing");
    const later = {
      ...snapshot(phaseState({ current_phase: "IMPLEMENTATION" }), same, gone),
      checked: { execution: before, reports: gone, at: at + 1 },
    };
    expect(codes(later).errors.map((e) => e.code)).toContain("output_missing");
  });
});

describe("a task's times, compared as strings where toISOString wrote them", () => {
  const limit = NOW.getTime() + 5 * 60 * 1000;
  const near = [-7 * 86_400_000, -1, 0, 1, 999, 1000, 60_000].flatMap((d) => [limit + d, NOW.getTime() + d]);
  // Each instant in toISOString's form and in others that Date.parse reads (no fraction, an offset).
  const forms = (t: number) => {
    const iso = new Date(t).toISOString();
    const plus = new Date(t + 3_600_000).toISOString().replace("Z", "+01:00");
    return [iso, iso.replace(/\.\d{3}Z$/, "Z"), plus];
  };
  const times = near.flatMap(forms);

  it("finds future and out-of-order times exactly as Date.parse orders them", () => {
    for (const started of times)
      for (const completed of [times[0]!, started, ...times.filter((_, i) => i % 5 === 0)]) {
        const t = task("t-1", { status: "failed", started_at: started, completed_at: completed, output: null });
        const found = codes(snapshot(phaseState({ current_phase: "IMPLEMENTATION" }), execution([t]))).errors.map(
          (e) => `${e.code} ${e.path}`,
        );
        const expected = [
          ...(Date.parse(started) > limit ? ["future_timestamp tasks[0].started_at"] : []),
          ...(Date.parse(completed) > limit ? ["future_timestamp tasks[0].completed_at"] : []),
          ...(Date.parse(completed) < Date.parse(started) ? ["time_order tasks[0].completed_at"] : []),
        ];
        expect(
          found.filter((f) => f.includes("tasks[0]")),
          `${started} → ${completed}`,
        ).toEqual(expected);
      }
  });
});
