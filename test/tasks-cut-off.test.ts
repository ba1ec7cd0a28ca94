// A task whose session ended while it ran (kill -9, a closed laptop) is counted as an attempt, so
// a crash loop ends; people are told that attempt was cut off, not failed (issue 42): the task's
// `cut_off` field, shown in the FAILED column of `dotagent tasks`.
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { dotagent, removeTemps } from "./support/cli.js";
import { deadPid, ok, projectAtImplementation, startTask, stopOwner } from "./support/worktree-project.js";

afterEach(() => removeTemps());
afterAll(async () => stopOwner());

describe("a cut-off attempt in dotagent tasks", () => {
  it("after a kill, the row says 0/3 + 1 cut off (not FAILED 1/3) and --json cut_off 1; a reported failure adds to the count only", () => {
    const p = projectAtImplementation([{ id: "t1", title: "Login form" }], { git: false });
    ok(startTask(p, "t1", deadPid()).run);
    // Right after the kill, before anything resumed: `report` says it in status's words (issue 42).
    expect(ok(dotagent(p, ["report", "--json"])).json.cut_off).toMatchObject({
      step: "IMPLEMENTATION",
      by: "session",
      tasks: ["t1"],
      words: "interrupted: the session running t1 ended",
    });
    ok(dotagent(p, ["resume", "--json"]));
    expect(ok(dotagent(p, ["report", "--json"])).json.cut_off).toBeNull();
    const row = ok(dotagent(p, ["tasks"]))
      .stdout.split("\n")
      .find((l) => l.startsWith("t1 "));
    expect(row).toMatch(/^t1 +pending +0\/3 \+ 1 cut off +/);
    expect(ok(dotagent(p, ["tasks", "--json"])).json.tasks[0]).toMatchObject({
      id: "t1",
      attempts: 1,
      cut_off: 1,
      max_attempts: 3,
      error: "orphaned: the session ended while it ran",
    });
    ok(startTask(p, "t1").run);
    ok(dotagent(p, ["task", "fail", "t1", "--error", "tests fail"]));
    expect(ok(dotagent(p, ["tasks", "--json"])).json.tasks[0]).toMatchObject({ attempts: 2, cut_off: 1 });
    expect(ok(dotagent(p, ["tasks"])).stdout).toMatch(/^t1 +\w+ +1\/3 \+ 1 cut off +/m);
  });
});
