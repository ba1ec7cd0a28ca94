import { describe, expect, it } from "vitest";
import { DEVELOP } from "../core/flow.js";
import type { NextAction } from "../core/plan-resume.js";
import { MANIFEST } from "../claude/install-manifest.js";
import { CODEX_MANIFEST } from "../clients/codex/install.js";
import { COPILOT_MANIFEST } from "../clients/copilot/install.js";
import { CLIENT_DRIVERS, howToStart, INSTALL_MANIFEST, personNext, personNextOf, type Driver } from "./person-next.js";

const next = (action: NextAction["action"], more: Partial<NextAction> = {}): NextAction => ({
  action,
  agent: null,
  tasks: [],
  reason: "why",
  ...more,
});

describe("personNext", () => {
  const cases: Array<[NextAction, Driver, string | null]> = [
    [next("start_workflow"), "claude", "Next: type /develop <what to build> in Claude Code, e.g. /develop add login"],
    [next("start_workflow"), "headless", 'Next: dotagent run "<what to build>", e.g. dotagent run "add login"'],
    [
      next("await_approval", { gate: "approve_requirements" }),
      "claude",
      "Next: read memory/reports/demand.json, then type approve in Claude Code (or what to change)",
    ],
    [
      next("await_approval", { gate: "approve_requirements" }),
      "headless",
      "Next: dotagent run asks you to approve memory/reports/demand.json (or say what to change)",
    ],
    [
      next("await_approval", { gate: "pick_design" }),
      "claude",
      "Next: pick a design in Claude Code (memory/reports/roundtable.json compares them)",
    ],
    [
      next("await_approval", { gate: "approve_design" }),
      "claude",
      "Next: read memory/reports/final_design.json, then type approve in Claude Code (or what to change)",
    ],
    [
      next("await_approval", { gate: "approve_report", output: "memory/reports/plan.json" }),
      "headless",
      "Next: dotagent run asks you to approve memory/reports/plan.json (or say what to change)",
    ],
    [
      next("spawn_agent", { agent: "pm" }),
      "claude",
      "Next: type /develop in Claude Code to go on (the pm agent is next)",
    ],
    [next("spawn_agent", { agent: "pm" }), "headless", "Next: dotagent run goes on (the pm agent is next)"],
    [
      next("run_tasks", { tasks: ["task-001", "task-002"] }),
      "claude",
      "Next: type /develop in Claude Code to go on (tasks task-001, task-002 next)",
    ],
    [next("run_step", { step: "TEST" }), "headless", "Next: dotagent run goes on (step TEST is next)"],
    // Installed for Copilot CLI or Codex CLI: what the person types there, never `dotagent run` (the SDK and a key it needs they may not have).
    [next("start_workflow"), "copilot", "Next: type /develop <what to build> in Copilot CLI, e.g. /develop add login"],
    [next("start_workflow"), "codex", "Next: type $develop <what to build> in Codex CLI, e.g. $develop add login"],
    [
      next("await_approval", { gate: "approve_requirements" }),
      "codex",
      "Next: read memory/reports/demand.json, then type approve in Codex CLI (or what to change)",
    ],
    [
      next("await_approval", { gate: "pick_design" }),
      "copilot",
      "Next: pick a design in Copilot CLI (memory/reports/roundtable.json compares them)",
    ],
    [next("spawn_agent", { agent: "qa" }), "codex", "Next: type $develop in Codex CLI to go on (the qa agent is next)"],
    [
      next("run_tasks", { tasks: ["task-003"] }),
      "copilot",
      "Next: type /develop in Copilot CLI to go on (task task-003 next)",
    ],
    // The model's line already speaks to a person, or there is nothing for them to type.
    [next("run_tasks"), "claude", null],
    [next("await_agents"), "claude", null],
    [next("confirm_isolation"), "claude", null],
    [next("resolve_dead_tasks", { tasks: ["task-001"] }), "headless", null],
    // The end: what starts the next one.
    [
      next("workflow_complete", { reason: "workflow wf-x is complete" }),
      "claude",
      "Next: nothing to do — workflow wf-x is complete; start another: type /develop <what to build> in Claude Code (`dotagent show` reads this one's reports)",
    ],
    [
      next("workflow_complete", { reason: "workflow wf-x is complete" }),
      "headless",
      'Next: nothing to do — workflow wf-x is complete; start another: dotagent run "<what to build>" (`dotagent show` reads this one\'s reports)',
    ],
  ];
  it.each(cases)("%j for %s", (n, driver, line) => expect(personNext(n, driver, DEVELOP)).toBe(line));

  it.each([
    ["claude", undefined, "type /develop <what to build> in Claude Code"],
    ["headless", undefined, 'dotagent run "<what to build>"'],
    ["claude", "NAME", "type /develop --workflow NAME <what to build> in Claude Code"],
    ["headless", "fix", 'dotagent run --workflow fix "<what to build>"'],
    ["copilot", undefined, "type /develop <what to build> in Copilot CLI"],
    ["codex", "fix", "type $develop --workflow fix <what to build> in Codex CLI"],
  ] as const)("howToStart(%s, %s): %s", (driver, workflow, line) => expect(howToStart(driver, workflow)).toBe(line));

  it.each([
    [
      next("spawn_agent", { agent: "architect" }),
      null,
      "headless",
      "Next: dotagent run goes on (the architect agent is next)",
    ],
    [
      next("await_approval", { gate: "pick_design" }),
      "write final_design.json — …",
      "claude",
      "Next: type /develop in Claude Code to go on (the approved step still needs its output written)",
    ],
  ] as const)("personNextOf %j, approvedNeeds %s, %s", (n, needs, driver, line) =>
    expect(personNextOf(n, needs, driver, DEVELOP)).toBe(line),
  );

  it("looks for the manifest each client's install writes", () => {
    expect(INSTALL_MANIFEST).toBe(`.claude/${MANIFEST}`);
    expect(CLIENT_DRIVERS.map((c) => c.manifest)).toEqual([
      INSTALL_MANIFEST,
      `.github/${COPILOT_MANIFEST}`,
      CODEX_MANIFEST,
    ]);
  });
});
