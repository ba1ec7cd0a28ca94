import { describe, expect, it } from "vitest";
import { planResume } from "./plan-resume.js";
import { REPORT } from "./phases.js";
import { atPhase, reports, reportsBefore, snapshot } from "./fixtures.test-support.js";
import { NOW } from "./fixtures.test-support.js";
import { ownedReports, unownedCopyPath } from "./report-owners.js";
import { applyRework } from "./transitions.js";
import { DEVELOP, stepOf, type CheckStep } from "./flow.js";

const VERIFICATION = stepOf(DEVELOP, "VERIFICATION") as CheckStep & { rework: string };

describe("a phase agent's report counts only when a hook recorded its agent at work (agent_reports)", () => {
  const passed = { [REPORT.verification]: { passed: true } };
  const owned = ["memory/reports/demand.json", "memory/reports/designs/minimal.json", "memory/reports/roundtable.json"];

  it("verification.json nobody recorded: qa is spawned, saying why; the phase does not advance", () => {
    const plan = planResume(
      snapshot(atPhase("VERIFICATION", { agent_reports: owned }), undefined, reportsBefore("VERIFICATION", passed)),
      NOW,
    );
    expect(plan.phase).toBe("VERIFICATION");
    expect(plan.next).toMatchObject({
      action: "spawn_agent",
      agent: "qa",
      reason: "verification.json was not written by a qa agent (dotagent recorded none at work on it): spawn qa",
    });
  });

  it("a failed verdict nobody recorded opens no rework round", () => {
    const plan = planResume(
      snapshot(
        atPhase("VERIFICATION", { agent_reports: owned }),
        undefined,
        reportsBefore("VERIFICATION", { [REPORT.verification]: { passed: false } }),
      ),
      NOW,
    );
    expect(plan.phase).toBe("VERIFICATION");
    expect(plan.next).toMatchObject({ action: "spawn_agent", agent: "qa" });
  });

  it("recorded, it advances as before; without agent_reports (no hooks) too", () => {
    expect(
      planResume(
        snapshot(
          atPhase("VERIFICATION", { agent_reports: [...owned, REPORT.verification] }),
          undefined,
          reportsBefore("VERIFICATION", passed),
        ),
        NOW,
      ).phase,
    ).toBe("REFLECTION");
    expect(
      planResume(snapshot(atPhase("VERIFICATION"), undefined, reportsBefore("VERIFICATION", passed)), NOW).phase,
    ).toBe("REFLECTION");
  });

  it("the reflection: a reflector recorded on reflection.json owns reflection.md too", () => {
    const md = { [REPORT.reflectionMd]: { status: "valid", data: "# Lessons" } };
    expect(
      planResume(
        snapshot(
          atPhase("REFLECTION", { agent_reports: [REPORT.reflectionJson] }),
          undefined,
          reportsBefore("REFLECTION", md),
        ),
        NOW,
      ).next.action,
    ).toBe("workflow_complete");
    expect(
      planResume(
        snapshot(atPhase("REFLECTION", { agent_reports: [] }), undefined, reportsBefore("REFLECTION", md)),
        NOW,
      ).next,
    ).toMatchObject({ action: "spawn_agent", agent: "reflector" });
  });

  it("designs drop out of the list; the skill's and the executors' files are never judged", () => {
    const snap = reports(
      {
        "memory/reports/designs/a.json": { name: "a" },
        "memory/reports/designs/b.json": { name: "b" },
        [REPORT.finalDesign]: { chosen: "a" },
        "memory/reports/tasks/t.json": { task_id: "t", status: "complete" },
      },
      ["memory/reports/designs/a.json", "memory/reports/designs/b.json"],
    );
    const seen = ownedReports(snap, atPhase("ARCHITECTURE", { agent_reports: ["memory/reports/designs/a.json"] }));
    expect(seen.designs).toEqual(["memory/reports/designs/a.json"]);
    expect(seen.files.get("memory/reports/designs/b.json")).toMatchObject({ status: "invalid" });
    expect(seen.files.get(REPORT.finalDesign)).toMatchObject({ status: "valid" });
    expect(seen.files.get("memory/reports/tasks/t.json")).toMatchObject({ status: "valid" });
  });

  it("a rework round forgets qa's record: the next verification.json is the next qa's", () => {
    const state = applyRework(
      atPhase("VERIFICATION", { agent_reports: [REPORT.demand, REPORT.verification] }),
      VERIFICATION,
      1,
      "memory/reports/verification.rework-1.json",
      NOW,
    );
    expect(state.agent_reports).toEqual([REPORT.demand]);
    expect(applyRework(atPhase("VERIFICATION"), VERIFICATION, 1, "x", NOW).agent_reports).toBeUndefined();
  });

  it("unownedCopyPath keeps the folder and numbers the taken", () => {
    const taken = new Set(["memory/reports/unowned/verification.json", "memory/reports/unowned/verification.2.json"]);
    expect(unownedCopyPath("memory/reports/verification.json", (c) => taken.has(c))).toBe(
      "memory/reports/unowned/verification.3.json",
    );
    expect(unownedCopyPath("memory/reports/designs/a.json", () => false)).toBe("memory/reports/unowned/designs/a.json");
  });
});
