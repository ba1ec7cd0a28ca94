// `dotagent run --until-tasks` and `dotagent run --worker` (SPEC §17, §23 "The worker"): a planning
// run that stops with the plan written, and workers on clones of one project that run its tasks
// through the git remote. Real git (a bare remote and clones), the stand-in SDK, no sleeps: the
// workers' poll waits are injected and move by what the other worker does.
import { describe, expect, test } from "vitest";
import { good, harness } from "./stand-in-sdk.test-support.js";
import { runWorkflow } from "./runner.js";

describe("dotagent run --until-tasks", () => {
  test("stops with the plan written before any task runs; again: the same; past the tasks step: runs nothing", async () => {
    const h = harness(good);
    const ready = await runWorkflow(h.options({ untilTasks: true }));
    expect(ready).toMatchObject({
      outcome: "tasks_ready",
      workflow_id: "wf-add-login",
      step: "IMPLEMENTATION",
      tasks: ["task-001", "task-002"],
    });
    expect(h.sessions.map((s) => s.agent)).toEqual(["pm", "architect", "architect", "roundtable"]);
    expect(h.lines.filter((l) => l.includes("the plan is ready for workers"))).toEqual([
      "  ✓ the plan is ready for workers: 2 tasks at IMPLEMENTATION (dotagent run --worker runs them)",
    ]);
    // Again: nothing more is carried out.
    expect(await runWorkflow(h.options({ request: undefined, untilTasks: true }))).toMatchObject({
      outcome: "tasks_ready",
      steps: 0,
      agents: 0,
    });
    expect(await runWorkflow(h.options({ request: undefined }))).toMatchObject({ outcome: "complete" });
    const sessions = h.sessions.length;
    expect(await runWorkflow(h.options({ request: undefined, untilTasks: true }))).toMatchObject({
      outcome: "past_tasks",
      steps: 0,
      agents: 0,
    });
    expect(h.sessions).toHaveLength(sessions);
  });
});
