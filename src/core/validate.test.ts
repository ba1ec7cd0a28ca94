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
