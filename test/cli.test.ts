// End-to-end tests of the built CLI: exit codes, stdout JSON, files on disk.
import { afterEach, describe, expect, it } from "vitest";
import { cpSync, existsSync, readFileSync, writeFileSync, readdirSync } from "node:fs";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { hostname } from "node:os";
import {
  dotagent,
  exampleProject,
  expectNoStack,
  readJson,
  removeTemps,
  tempProject,
  treeBytes,
  writeJson,
} from "./support/cli.js";
import { copyOfTemplate } from "./support/template.js";

afterEach(removeTemps);
const NEVER = ["--stale-after", "never"];

describe("a workflow from init to the end, through the CLI", () => {
  it("walks every phase with the gates, tasks and a rework", () => {
    const p = tempProject();
    expect(dotagent(p, ["init", "--request", "add login", "--json"]).json).toMatchObject({
      created: true,
      workflow_id: "wf-add-login",
      phase: "REQUIREMENTS",
    });
    const refused = dotagent(p, ["phase", "complete", "REQUIREMENTS"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe("dotagent: REQUIREMENTS cannot complete: demand.json does not exist");
    writeJson(p, "memory/reports/demand.json", { stories: ["sign in"] });
    expect(dotagent(p, ["phase", "complete"]).stderr).toContain("not approved");
    // The approval completes the phase (its report is there) and answers with the next step.
    expect(dotagent(p, ["phase", "approve", "requirements", "--json"]).json).toEqual({
      ok: true,
      changed: true,
      phase: "ARCHITECTURE",
      phase_status: "pending",
      next: {
        action: "spawn_agent",
        agent: "architect",
        tasks: [],
        designs: ["minimal", "robust"],
        reason: "write the designs asked for: minimal, robust",
      },
      in_flight: [],
      agents_in_flight: [],
    });
    expect(dotagent(p, ["phase", "complete", "REQUIREMENTS", "--json"]).json).toMatchObject({
      ok: true,
      changed: false,
      phase: "ARCHITECTURE",
    });
    expect(readJson(p, "memory/state/phase.json").completed_phases.map((c: { phase: string }) => c.phase)).toEqual([
      "REQUIREMENTS",
    ]);
    expect(dotagent(p, ["phase", "complete", "ARCHITECTURE"]).stderr.trim()).toBe(
      "dotagent: ARCHITECTURE cannot complete: final_design.json does not exist",
    );
    writeJson(p, "memory/reports/designs/minimal.json", { name: "minimal" });
    expect(dotagent(p, ["status", "--json"]).json.next).toMatchObject({
      action: "spawn_agent",
      agent: "architect",
      designs: ["robust"],
    });
    writeJson(p, "memory/reports/designs/robust.json", { name: "robust" });
    expect(dotagent(p, ["status", "--json"]).json.next).toMatchObject({ action: "spawn_agent", agent: "roundtable" });
    writeJson(p, "memory/reports/roundtable.json", { recommend: "a" });
    writeJson(p, "memory/reports/final_design.json", { chosen: "a" });
    expect(dotagent(p, ["phase", "approve", "ARCHITECTURE", "--json"]).json).toMatchObject({
      phase: "IMPLEMENTATION",
      next: { action: "plan_tasks", round: 0, plan_file: "memory/reports/plan.json" },
    });
    expect(dotagent(p, ["phase", "complete", "ARCHITECTURE"]).code).toBe(0);
    expect(dotagent(p, ["status", "--json"]).json.next.action).toBe("plan_tasks");

    writeJson(p, "tasks.json", [
      { id: "t1", title: "form" },
      { id: "t2", depends_on: ["t1"] },
    ]);
    expect(dotagent(p, ["task", "import", "tasks.json", "--json"]).json).toMatchObject({
      added: ["t1", "t2"],
      total: 2,
      plan: { round: 0, tasks: 2 },
    });
    expect(dotagent(p, ["task", "next", "--json"]).json.tasks.map((t: { id: string }) => t.id)).toEqual(["t1"]);
    expect(dotagent(p, ["task", "start", "t2"]).stderr).toContain("depends on t1");
    expect(dotagent(p, ["task", "start", "t1"]).code).toBe(0);
    expect(dotagent(p, ["task", "complete", "t1"]).stderr).toContain("tasks/t1.json does not exist");
    writeJson(p, "memory/reports/tasks/t1.json", { task_id: "t1", status: "complete" });
    expect(dotagent(p, ["task", "complete", "t1", "--json"]).json.task).toMatchObject({ id: "t1", status: "complete" });
    dotagent(p, ["task", "start", "t2"]);
    writeJson(p, "memory/reports/tasks/t2.json", { task_id: "t2", status: "complete" });
    // The last task's completion completes IMPLEMENTATION by itself.
    expect(dotagent(p, ["task", "complete", "t2", "--json"]).json).toMatchObject({
      task: { id: "t2", status: "complete" },
      next: { action: "spawn_agent", agent: "qa" },
    });
    expect(dotagent(p, ["phase", "complete", "IMPLEMENTATION", "--json"]).json).toMatchObject({
      changed: false,
      phase: "VERIFICATION",
    });

    writeJson(p, "memory/reports/verification.json", { passed: false, failures: ["401 expected"] });
    expect(dotagent(p, ["phase", "rework", "--json"]).json).toMatchObject({
      phase: "IMPLEMENTATION",
      phase_status: "in_progress",
    });
    expect(existsSync(join(p, "memory/reports/verification.json"))).toBe(false);
    expect(readJson(p, "memory/reports/verification.rework-1.json").passed).toBe(false);
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({
      interruption_safe: true,
      pending_transition: null,
      rework: { round: 1 },
    });
    expect(dotagent(p, ["resume", "--json"]).json.next).toMatchObject({
      action: "plan_tasks",
      reason: expect.stringContaining("verification.rework-1.json"),
    });
    expect(dotagent(p, ["phase", "complete", "IMPLEMENTATION"]).stderr).toContain(
      "rework round 1 has no task plan recorded",
    );
    writeJson(p, "memory/reports/plan.rework-1.json", { tasks: [{ id: "rework-1-1", title: "return 401" }] });
    expect(dotagent(p, ["task", "import", "memory/reports/plan.rework-1.json", "--json"]).json).toMatchObject({
      added: ["rework-1-1"],
      plan: { round: 1, tasks: 1 },
    });
    dotagent(p, ["task", "start", "rework-1-1"]);
    writeJson(p, "memory/reports/tasks/rework-1-1.json", { task_id: "rework-1-1", status: "complete" });
    dotagent(p, ["task", "complete", "rework-1-1"]);
    // The planned rework round, all complete, ends by itself: no `phase complete IMPLEMENTATION`.
    expect(dotagent(p, ["resume", "--json"]).json).toMatchObject({
      phase: "VERIFICATION",
      next: { action: "spawn_agent", agent: "qa" },
    });
    writeJson(p, "memory/reports/verification.json", { passed: true });
    dotagent(p, ["phase", "complete"]);
    writeFileSync(join(p, "memory/reports/reflection.md"), "# went well\n");
    expect(dotagent(p, ["tasks"]).stdout.split("\n")[0]).toBe("wf-add-login at REFLECTION: 3 tasks, 3 complete");
    expect(dotagent(p, ["tasks", "--json"]).json).toMatchObject({ phase: "REFLECTION", complete: false });
    expect(dotagent(p, ["phase", "complete"]).stdout).toBe("complete: workflow wf-add-login is complete\n");
    expect(dotagent(p, ["phase", "complete", "--json"]).json).toMatchObject({
      changed: false,
      phase: "REFLECTION",
      phase_status: "complete",
    });
    expect(dotagent(p, ["resume", "--json"]).json).toMatchObject({
      situation: "complete",
      next: { action: "workflow_complete" },
    });
    // A finished workflow's place is its end, in status's words, in every view: not "at REFLECTION".
    expect(dotagent(p, ["status"]).stdout.split("\n")[0]).toBe("Workflow wf-add-login is complete.");
    expect(dotagent(p, ["tasks"]).stdout.split("\n")[0]).toBe("wf-add-login is complete: 3 tasks, 3 complete");
    expect(dotagent(p, ["tasks", "--json"]).json).toMatchObject({ phase: "REFLECTION", complete: true });
    expect(dotagent(p, ["phase", "complete"]).stdout).toBe(
      "complete: nothing to change (workflow wf-add-login is complete)\n",
    );
    expect(dotagent(p, ["doctor"]).stdout).toContain("workflow wf-add-login is complete: valid");
    expect(dotagent(p, ["report", "--json"]).json).toMatchObject({ phase: "REFLECTION", complete: true });
    expect(dotagent(p, ["validate", "--json"]).json).toMatchObject({ valid: true, errors: [] });
    const phase = readJson(p, "memory/state/phase.json");
    expect(phase.completed_phases.map((c: { phase: string }) => c.phase)).toEqual([
      "REQUIREMENTS",
      "ARCHITECTURE",
      "IMPLEMENTATION",
      "VERIFICATION",
      "REFLECTION",
    ]);
    expect(phase.revision).toBeGreaterThan(10);
    const types = dotagent(p, ["log", "-n", "200", "--json"]).json.events.map((e: { type: string }) => e.type);
    expect(types).toEqual(
      expect.arrayContaining([
        "workflow_started",
        "phase_approved",
        "phase_completed",
        "task_added",
        "plan_recorded",
        "task_started",
        "task_completed",
        "phase_rework",
        "resumed",
      ]),
    );
  });
});

/** A new workflow with REQUIREMENTS approved and complete: at ARCHITECTURE (made once per file, a copy per test). */
function atArchitecture(): string {
  return copyOfTemplate("atArchitecture", (p) => {
    dotagent(p, ["init", "--request", "add login"]);
    writeJson(p, "memory/reports/demand.json", { stories: ["sign in"] });
    dotagent(p, ["phase", "approve", "REQUIREMENTS"]);
    dotagent(p, ["phase", "complete"]);
  });
}

describe("task plans recorded whole (task import)", () => {
  /** At IMPLEMENTATION with no plan recorded yet (made once per file, a copy per test). */
  function atImplementation(): string {
    return copyOfTemplate("atImplementation", (p) => {
      cpSync(atArchitecture(), p, { recursive: true });
      // A design without its own task list: the plan is the model's to write (plan_tasks).
      writeJson(p, "memory/reports/final_design.json", { chosen: "a" });
      dotagent(p, ["phase", "approve", "ARCHITECTURE"]);
      writeJson(p, "memory/reports/final_design.tasks.json", {
        chosen: "a",
        tasks: [
          { id: "task-001", title: "form" },
          { id: "task-002", title: "api", depends_on: ["task-001"] },
        ],
      });
    });
  }

  it("imports a JSON array, and an object with a tasks array", () => {
    const p = atImplementation();
    const out = dotagent(p, ["task", "import", "memory/reports/final_design.tasks.json", "--json"]);
    expect(out.code).toBe(0);
    expect(out.json).toMatchObject({
      ok: true,
      added: ["task-001", "task-002"],
      skipped: [],
      total: 2,
      plan: { round: 0, tasks: 2 },
    });
    expect(readJson(p, "memory/state/execution.json").plans).toEqual([
      { round: 0, recorded_at: out.json.plan.recorded_at, tasks: 2 },
    ]);
    const q = atImplementation();
    writeJson(q, "memory/reports/plan.json", [{ id: "a" }]);
    expect(dotagent(q, ["task", "import", "memory/reports/plan.json", "--json"]).json).toMatchObject({
      added: ["a"],
      plan: { round: 0 },
    });
  });

  // Importing again after a crash (the same tasks skipped, no second record) and a conflicting id
  // refused by name are rows of src/core/task-plan.test.ts ("import: …", "import: an id in use …").

  it("refuses hostile plan files with one line and exit 2", () => {
    const p = atImplementation();
    for (const [name, text] of [
      ["empty.json", ""],
      ["scalar.json", "42"],
      ["noarray.json", '{"tasks": 3}'],
      ["badid.json", '[{"id": "../x"}]'],
    ] as const) {
      writeFileSync(join(p, name), text);
      const out = dotagent(p, ["task", "import", name]);
      expect(out.code, name).toBe(2);
      expect(out.stderr.trim().split("\n"), name).toHaveLength(1);
      expectNoStack(out.stderr);
    }
    expect(dotagent(p, ["task", "import", "missing.json"]).code).toBe(1);
  });

  // Tasks added one by one are not a plan: `task start` refused with the remedy, then the import
  // adding the rest: rows of src/core/task-plan.test.ts; resume's plan_tasks naming them:
  // src/core/plan-resume.test.ts.

  it("a legacy execution.json (no plans key) behaves as before", () => {
    const p = atImplementation();
    const at = new Date().toISOString();
    writeJson(p, "memory/state/execution.json", {
      workflow_id: "wf-add-login",
      updated_at: at,
      interruption_safe: true,
      max_attempts: 3,
      tasks: [{ id: "task-001", status: "pending", depends_on: [], attempts: 0 }],
    });
    expect(dotagent(p, ["resume", "--json"]).json.next).toMatchObject({ action: "run_tasks", tasks: ["task-001"] });
    expect(dotagent(p, ["task", "start", "task-001"]).code).toBe(0);
    writeJson(p, "memory/reports/tasks/task-001.json", { task_id: "task-001", status: "complete" });
    dotagent(p, ["task", "complete", "task-001"]);
    expect(dotagent(p, ["resume", "--json"]).json).toMatchObject({ phase: "VERIFICATION" });
  });
});

describe("the designs ARCHITECTURE asked for (phase start --designs)", () => {
  it("records designs_requested, resumes the missing architect after a crash, then the roundtable", () => {
    const p = atArchitecture();
    const start = dotagent(p, ["phase", "start", "ARCHITECTURE", "--designs", "minimal,robust", "--json"]);
    expect(start.json).toMatchObject({
      ok: true,
      changed: true,
      phase_status: "in_progress",
      designs_requested: ["minimal", "robust"],
    });
    expect(readJson(p, "memory/state/phase.json").designs_requested).toEqual(["minimal", "robust"]);
    expect(dotagent(p, ["phase", "start", "ARCHITECTURE", "--designs", "minimal,robust", "--json"]).json).toMatchObject(
      { changed: false },
    );
    writeJson(p, "memory/reports/designs/minimal.json", { name: "minimal" });
    // The session died before the second architect wrote its design.
    expect(dotagent(p, ["resume", "--json"]).json.next).toEqual({
      action: "spawn_agent",
      agent: "architect",
      tasks: [],
      reason: expect.any(String),
      designs: ["robust"],
    });
    writeJson(p, "memory/reports/designs/robust.json", { name: "robust" });
    const next = dotagent(p, ["resume", "--json"]).json.next;
    expect(next).toMatchObject({ action: "spawn_agent", agent: "roundtable" });
    expect(next.designs).toBeUndefined();
    expect(dotagent(p, ["validate", "--json"]).json.errors).toEqual([]);
  });

  it.each([[["phase", "start", "ARCHITECTURE", "--designs", "../x"], 2, "not a valid design name"]] as const)(
    "refuses %j (exit %i)",
    (args, code, says) => {
      const p = atArchitecture();
      const before = readFileSync(join(p, "memory/state/phase.json"), "utf8");
      const out = dotagent(p, [...args]);
      expect(out.code).toBe(code);
      expect(out.stderr).toContain(says);
      expect(out.stderr.trim().split("\n")).toHaveLength(1);
      expect(readFileSync(join(p, "memory/state/phase.json"), "utf8")).toBe(before);
    },
  );
});

describe("resume on the shipped examples", () => {
  it.each([
    ["interrupted-requirements", "REQUIREMENTS", "await_approval", null, []],
    ["interrupted-architecture", "ARCHITECTURE", "spawn_agent", "roundtable", []],
    ["orphaned-tasks", "IMPLEMENTATION", "run_tasks", null, ["task-001", "task-004"]],
    ["failed-verification", "IMPLEMENTATION", "spawn_agent", "executor", []],
    ["output-without-update", "REFLECTION", "workflow_complete", null, []],
  ])("%s", (name, phase, action, agent, tasks) => {
    const p = exampleProject(name);
    const dry = dotagent(p, ["resume", "--json", "--dry-run", ...NEVER]);
    const before = treeBytes(p);
    expect(dotagent(p, ["resume", "--json", "--dry-run", ...NEVER]).json).toEqual(dry.json);
    expect(treeBytes(p)).toEqual(before); // dry-run writes nothing
    const first = dotagent(p, ["resume", "--json", ...NEVER]);
    expect(first.code).toBe(0);
    expect(first.json).toMatchObject({
      situation: "interrupted",
      phase,
      next: { action, agent, tasks },
      applied: true,
    });
    expect(first.json.next).toEqual(dry.json.next);
    const second = dotagent(p, ["resume", "--json", ...NEVER]);
    expect(second.json.next).toEqual(first.json.next);
    expect(second.json.repairs).toEqual([]);
    expect(dotagent(p, ["validate", "--json", ...NEVER]).json.errors).toEqual([]);
  });

  it("orphaned tasks are recovered on disk", () => {
    const p = exampleProject("orphaned-tasks");
    const out = dotagent(p, ["resume", "--json", ...NEVER]).json;
    expect(out.repairs).toContainEqual({
      code: "task_reset",
      message: "task-001 was running with no output: attempt 3 of 3",
    });
    const tasks = readJson(p, "memory/state/execution.json").tasks;
    expect(tasks.map((t: { id: string; status: string; attempts: number }) => [t.id, t.status, t.attempts])).toEqual([
      ["task-001", "pending", 2],
      ["task-002", "complete", 0],
      ["task-003", "pending", 0],
      ["task-004", "pending", 1],
    ]);
  });

  it("people read what is resumed", () => {
    const out = dotagent(exampleProject("interrupted-architecture"), ["resume", ...NEVER]);
    expect(out.stdout).toMatch(
      /^Resuming workflow wf-login from ARCHITECTURE phase\nLast activity: 2026-11-20 10:30 UTC \(.+ ago\)\nCompleted: REQUIREMENTS\nNext: spawn the roundtable agent — designs exist but roundtable\.json does not\n/,
    );
  });

  it("stale state asks, exits 5 in a non-terminal and writes nothing", () => {
    const p = exampleProject("interrupted-architecture");
    const before = treeBytes(p);
    const out = dotagent(p, ["resume", "--json", "--stale-after", "1h"]);
    expect(out.code).toBe(5);
    expect(out.json).toMatchObject({
      situation: "stale",
      next: { action: "confirm_fresh_start" },
      decision: { default: false },
    });
    expect(treeBytes(p)).toEqual(before);
  });

  it("a different request asks and changes nothing", () => {
    const p = tempProject();
    dotagent(p, ["init", "--request", "add login"]);
    const before = treeBytes(p);
    const out = dotagent(p, ["resume", "--json", "--request", "add signup"]);
    expect(out.code).toBe(5);
    expect(out.json).toMatchObject({ situation: "request_changed", next: { action: "confirm_request_change" } });
    expect(treeBytes(p)).toEqual(before);
    expect(dotagent(p, ["resume", "--json", "--request", "add login"]).code).toBe(0);
  });

  it("a person answering yes archives the corrupt state, never deletes it", () => {
    const p = exampleProject("corrupt-state");
    const corrupt = readFileSync(join(p, "memory/state/phase.json"));
    const out = dotagent(p, ["resume", "--json", "--yes"]);
    expect(out.code).toBe(0);
    expect(out.json).toMatchObject({ situation: "none", next: { action: "start_workflow" } });
    const archives = readdirSync(join(p, "memory/state/.archive"));
    expect(archives, archives.join(", ")).toHaveLength(1);
    // phase.json does not parse, but it begins with its workflow id: the archive is named after it.
    expect(archives[0]).toMatch(/^wf-login_\d{8}T\d{6}Z\.tar\.gz$/);
    const list = dotagent(p, ["archive", "list", "--json"]).json.archives;
    expect(list[0]).toMatchObject({ reason: "corrupt state" });
    expect(dotagent(p, ["archive", "restore", archives[0]!]).code).toBe(3); // a corrupt archive does not validate
    expect(existsSync(join(p, "memory/state/phase.json"))).toBe(false);
    expect(corrupt.length).toBeGreaterThan(0);
  });
});

// Each kind of corrupt state: exit 3 from validate, one line naming file and JSON path, no stack,
// the file untouched; status still exits 0; resume returns the decision and exits 5.
const base = {
  workflow_id: "wf-x",
  started_at: "2026-11-20T09:00:00Z",
  last_updated: "2026-11-20T10:00:00Z",
  current_phase: "REQUIREMENTS",
  phase_status: "in_progress",
  completed_phases: [],
  user_checkpoints: [],
  interruption_safe: true,
};
const exec = (tasks: unknown[]) => ({
  workflow_id: "wf-x",
  updated_at: "2026-11-20T10:00:00Z",
  interruption_safe: true,
  max_attempts: 3,
  tasks,
});
const corruptions: Array<[string, Record<string, unknown>, RegExp]> = [
  [
    "truncated phase.json",
    { "memory/state/phase.json": JSON.stringify(base).slice(0, 60) },
    /^memory\/state\/phase\.json: not valid JSON/,
  ],
  ["empty phase.json", { "memory/state/phase.json": "" }, /^memory\/state\/phase\.json: file is empty/],
  [
    "wrong types",
    { "memory/state/phase.json": { ...base, completed_phases: "REQUIREMENTS" } },
    /^memory\/state\/phase\.json: completed_phases: expected array, got string/,
  ],
  [
    "unknown phase",
    { "memory/state/phase.json": { ...base, current_phase: "DEPLOY" } },
    /^memory\/state\/phase\.json: current_phase: expected one of "REQUIREMENTS"/,
  ],
  [
    "duplicate task ids",
    {
      "memory/state/phase.json": base,
      "memory/state/execution.json": exec([
        { id: "a", status: "pending" },
        { id: "a", status: "pending" },
      ]),
    },
    /^memory\/state\/execution\.json: tasks\[1\]\.id: a is also tasks\[0\]\.id/,
  ],
  [
    "cyclic task ids",
    {
      "memory/state/phase.json": base,
      "memory/state/execution.json": exec([
        { id: "a", status: "pending", depends_on: ["b"] },
        { id: "b", status: "pending", depends_on: ["a"] },
      ]),
    },
    /^memory\/state\/execution\.json: tasks\[0\]\.depends_on: dependencies form a cycle: a → b → a/,
  ],
  [
    "future timestamps",
    { "memory/state/phase.json": { ...base, last_updated: "2099-01-01T00:00:00Z" } },
    /^memory\/state\/phase\.json: last_updated: 2099-01-01T00:00:00Z is in the future/,
  ],
  [
    "output path leaving the project",
    {
      "memory/state/phase.json": base,
      "memory/state/execution.json": exec([{ id: "a", status: "complete", output: "../../etc/passwd" }]),
    },
    /^memory\/state\/execution\.json: tasks\[0\]\.output: \.\.\/\.\.\/etc\/passwd leaves the project/,
  ],
  [
    "absolute output path",
    {
      "memory/state/phase.json": base,
      "memory/state/execution.json": exec([{ id: "a", status: "complete", output: "/etc/passwd" }]),
    },
    /^memory\/state\/execution\.json: tasks\[0\]\.output: \/etc\/passwd is absolute/,
  ],
  [
    "task id with a slash",
    { "memory/state/phase.json": base, "memory/state/execution.json": exec([{ id: "../evil", status: "pending" }]) },
    /^memory\/state\/execution\.json: tasks\[0\]\.id: /,
  ],
];

describe("corrupt state: a clear line, exit 3, nothing touched", () => {
  it.each(corruptions)("%s", (_name, files, message) => {
    const p = tempProject();
    for (const [rel, value] of Object.entries(files)) writeJson(p, rel, value);
    const before = treeBytes(p);
    const validate = dotagent(p, ["validate", ...NEVER]);
    expect(validate.code).toBe(3);
    expectNoStack(validate.stderr + validate.stdout);
    const v = dotagent(p, ["validate", "--json", ...NEVER]);
    expect(v.json.valid).toBe(false);
    expect(
      `${v.json.errors[0].file}: ${v.json.errors[0].path ? `${v.json.errors[0].path}: ` : ""}${v.json.errors[0].message}`,
    ).toMatch(message);
    const mutate = dotagent(p, ["task", "add", "zz"]);
    expect(mutate.code).toBe(3);
    expect(mutate.stderr.trim().split("\n")).toHaveLength(1);
    expect(mutate.stderr).toMatch(/^dotagent: memory\/state\/(phase|execution)\.json: /);
    expectNoStack(mutate.stderr);
    const status = dotagent(p, ["status", "--json", ...NEVER]);
    expect(status.code).toBe(0);
    expect(status.json.situation).toBe("corrupt");
    const resume = dotagent(p, ["resume", "--json", ...NEVER]);
    expect(resume.code).toBe(5);
    expect(resume.json).toMatchObject({
      situation: "corrupt",
      next: { action: "confirm_fresh_start" },
      decision: { default: false },
    });
    expect(treeBytes(p)).toEqual(before);
  });
});

describe("the lock", () => {
  it("a live holder makes a writer exit 4 naming pid, host, command and age; readers are not blocked", async () => {
    const p = tempProject();
    dotagent(p, ["init", "--request", "x"]);
    const sleeper = spawn("sleep", ["30"]);
    try {
      // 90 s old when written; the message may say up to 119 s on a slow machine.
      writeJson(p, "memory/state/.lock", {
        pid: sleeper.pid,
        hostname: hostname(),
        acquired_at: new Date(Date.now() - 90_000).toISOString(),
        command: "task add",
        token: "t",
      });
      const out = dotagent(p, ["task", "add", "a"], { env: { DOTAGENT_LOCK_WAIT_MS: "200" } });
      expect(out.code).toBe(4);
      expect(out.stderr.trim()).toMatch(
        new RegExp(
          `^dotagent: memory/state/\\.lock is held by pid ${sleeper.pid} on ${hostname()} \\(task add, for (9\\d|1[01]\\d)s\\); wait for it to finish; if that process is gone, for the person: remove the lock file \\(rm memory/state/\\.lock\\)$`,
        ),
      );
      expect(dotagent(p, ["status", "--json"]).code).toBe(0);
    } finally {
      sleeper.kill("SIGKILL");
    }
  });

  it("a dead holder's lock is taken over with a warning", () => {
    const p = tempProject();
    dotagent(p, ["init", "--request", "x"]);
    writeJson(p, "memory/state/.lock", {
      pid: 2 ** 22 + 7,
      hostname: hostname(),
      acquired_at: new Date().toISOString(),
      command: "task add",
      token: "dead",
    });
    const out = dotagent(p, ["task", "add", "a"]);
    expect(out.code).toBe(0);
    expect(existsSync(join(p, "memory/state/.lock"))).toBe(false);
  });
});

describe("CLI basics", () => {
  it("--help shows examples, --version prints the version, bad usage exits 2", () => {
    const p = tempProject();
    expect(dotagent(p, ["--help"]).stdout).toContain("Examples:");
    expect(dotagent(p, ["resume", "--help"]).stdout).toContain("dotagent resume --json --dry-run");
    expect(dotagent(p, ["--version"]).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const unknown = dotagent(p, ["frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim()).toBe('dotagent: unknown command "frobnicate"; run `dotagent --help` for the list');
    expect(dotagent(p, ["status", "--bogus"]).code).toBe(2);
    expect(dotagent(p, ["task", "add", "../x"]).code).toBe(2);
    expect(dotagent(p, ["resume", "--stale-after", "soon"]).code).toBe(2);
  });

  it("--json errors are one object on stdout, on one line, and said once (nothing on stderr)", () => {
    const p = tempProject();
    const out = dotagent(p, ["phase", "start", "--json"]);
    expect(out.code).toBe(1);
    expect(out.json).toMatchObject({ error: { code: "no_workflow", exit_code: 1 } });
    expect(out.stdout).toBe(`${JSON.stringify(out.json)}\n`);
    expect(out.stderr).toBe("");
    const plain = dotagent(p, ["phase", "start"]);
    expect(plain.stdout).toBe("");
    expect(plain.stderr).toBe(`dotagent: ${out.json.error.message}\n`);
  });

  it("--json results are compact one-line JSON", () => {
    const p = tempProject();
    for (const args of [
      ["init", "--request", "add login", "--json"],
      ["resume", "--json"],
      ["status", "--json"],
      ["phase", "start", "--json"],
      ["validate", "--json"],
      ["log", "--json"],
    ]) {
      const out = dotagent(p, args);
      expect(out.code, args.join(" ")).toBe(0);
      expect(out.stdout, args.join(" ")).toBe(`${JSON.stringify(out.json)}\n`);
    }
  });

  it("task start and complete print the task as the next step needs it", () => {
    const p = tempProject();
    dotagent(p, ["init", "--request", "add login"]);
    writeJson(p, "plan.json", [{ id: "t1", title: "form" }]);
    dotagent(p, ["task", "import", "plan.json"]);
    expect(dotagent(p, ["task", "start", "t1", "--json"]).json).toEqual({
      ok: true,
      task: { id: "t1", title: "form", status: "running", attempts: 0, output: "memory/reports/tasks/t1.json" },
      max_attempts: 3,
      next: { action: "spawn_agent", agent: "pm", tasks: [], reason: "no valid demand.json yet" },
      in_flight: ["t1"],
      agents_in_flight: [],
    });
    // A failure with attempts left is requeued at once: the task shows as it is now.
    expect(dotagent(p, ["task", "fail", "t1", "--error", "red", "--json"]).json).toMatchObject({
      task: {
        id: "t1",
        title: "form",
        status: "pending",
        attempts: 1,
        output: "memory/reports/tasks/t1.json",
        error: "red",
      },
      next: { action: "spawn_agent", agent: "pm" },
    });
  });

  it("status never writes and does not create memory/", () => {
    const p = tempProject();
    expect(dotagent(p, ["status", "--json"]).json).toMatchObject({
      situation: "none",
      next: { action: "start_workflow", agent: "pm" },
      tasks: { pending: 0 },
    });
    expect(dotagent(p, ["resume", "--json"]).json.situation).toBe("none");
    expect(existsSync(join(p, "memory"))).toBe(false);
  });

  it("--dir and the nearest memory/state upwards find the project", () => {
    const p = tempProject();
    dotagent(p, ["init", "--workflow-id", "wf-up"]);
    writeJson(p, "src/deep/x.txt", "x");
    expect(dotagent(join(p, "src/deep"), ["status", "--json"]).json.workflow_id).toBe("wf-up");
    expect(dotagent(tempProject(), ["status", "--json", "--dir", p]).json.workflow_id).toBe("wf-up");
  });

  it("init over an existing workflow asks; --yes archives it first", () => {
    const p = tempProject();
    dotagent(p, ["init", "--request", "one"]);
    const asked = dotagent(p, ["init", "--request", "two", "--json"]);
    expect(asked.code).toBe(5);
    expect(asked.json.decision.yes).toBe("dotagent init --request two --yes");
    const yes = dotagent(p, ["init", "--request", "two", "--yes", "--json"]);
    expect(yes.json).toMatchObject({ created: true, workflow_id: "wf-two" });
    expect(yes.json.archived).toMatch(/^wf-one_/);
  });

  it("schema prints JSON Schema generated from the zod schemas", () => {
    const out = dotagent(tempProject(), ["schema", "phase"]);
    expect(out.code).toBe(0);
    expect(out.json.properties.current_phase.enum).toEqual([
      "REQUIREMENTS",
      "ARCHITECTURE",
      "IMPLEMENTATION",
      "VERIFICATION",
      "REFLECTION",
    ]);
    expect(out.json.required).toEqual(expect.arrayContaining(["workflow_id", "current_phase", "interruption_safe"]));
    expect(dotagent(tempProject(), ["schema", "task-output"]).json.properties.status.enum).toEqual([
      "complete",
      "failed",
    ]);
  });

  it("keeps unknown fields of a hand-written phase.json", () => {
    const p = tempProject();
    writeJson(p, "memory/state/phase.json", {
      ...base,
      started_at: new Date(Date.now() - 60_000).toISOString(),
      last_updated: new Date().toISOString(),
      owner: "alice",
    });
    writeJson(p, "memory/reports/demand.json", { a: 1 });
    dotagent(p, ["phase", "approve"]);
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({
      owner: "alice",
      revision: 2,
      schema_version: 1,
      current_phase: "ARCHITECTURE",
    });
  });
});

describe("the SessionStart hook", () => {
  const hook = (cwd: string, source: string) =>
    dotagent(cwd, ["hook", "session-start"], {
      input: JSON.stringify({ session_id: "s", hook_event_name: "SessionStart", source, cwd }),
    });
  it.each(["startup", "resume", "clear", "compact", "fork"])(
    "source %s: a briefing when a workflow is open, nothing otherwise",
    (source) => {
      const empty = tempProject();
      expect(hook(empty, source)).toMatchObject({ code: 0, stdout: "" });
      const p = exampleProject("interrupted-architecture");
      // Active just now (the example's own date grows stale with the calendar: that asks, below).
      const phase = readJson(p, "memory/state/phase.json");
      writeJson(p, "memory/state/phase.json", { ...phase, last_updated: new Date().toISOString() });
      const out = hook(p, source);
      expect(out.code).toBe(0);
      const context = out.json.hookSpecificOutput;
      expect(context.hookEventName).toBe("SessionStart");
      expect(context.additionalContext).toContain("workflow wf-login is open");
      expect(context.additionalContext).toContain("Phase: ARCHITECTURE");
      expect(context.additionalContext).toContain("/develop");
      // The exact helper line, for a person who types "continue" instead.
      expect(context.additionalContext).toMatch(/`node "[^"]*dotagent\.mjs" resume --json`/);
      expect(context.additionalContext.length).toBeLessThan(10_000);
    },
  );
  it("a question pending (a workflow idle for 9 days): handed as the next step and recorded as asked, in place of the Continue line", () => {
    const p = exampleProject("interrupted-architecture");
    const phase = readJson(p, "memory/state/phase.json");
    writeJson(p, "memory/state/phase.json", {
      ...phase,
      last_updated: new Date(Date.now() - 9 * 24 * 3600_000).toISOString(),
    });
    const briefing: string = hook(p, "resume").json.hookSpecificOutput.additionalContext;
    expect(briefing).not.toContain("Continue: ");
    const handed = JSON.parse(/^dotagent next: (\{.*\})$/m.exec(briefing)![1]!);
    expect(handed).toMatchObject({
      next: { action: "confirm_fresh_start" },
      decision: { question: "Workflow wf-login was last active 9 days ago. Archive it and start fresh?" },
    });
    expect(
      dotagent(p, ["log", "--json"]).json.events.filter((e: { type: string }) => e.type === "decision_asked"),
    ).toEqual([expect.objectContaining({ yes: handed.decision.yes })]);
  });
  it("corrupt state: still exit 0, and the briefing says so", () => {
    const out = hook(exampleProject("corrupt-state"), "resume");
    expect(out.code).toBe(0);
    expect(out.json.hookSpecificOutput.additionalContext).toContain("corrupt");
  });
  it("does not wait for a held lock", () => {
    const p = exampleProject("orphaned-tasks");
    writeJson(p, "memory/state/.lock", {
      pid: process.pid,
      hostname: hostname(),
      acquired_at: new Date().toISOString(),
      command: "resume",
      token: "x",
    });
    // Were the hook to wait for the lock, it would wait the full minute given here: the bound
    // below holds on a loaded machine and still tells the two apart.
    const started = Date.now();
    const out = dotagent(p, ["hook", "session-start"], {
      input: JSON.stringify({ source: "resume", cwd: p }),
      env: { DOTAGENT_LOCK_WAIT_MS: "60000" },
    });
    expect(out.code).toBe(0);
    expect(out.json.hookSpecificOutput.additionalContext).toContain("IMPLEMENTATION");
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});
