// Checkpoint history through the built CLI: what is recorded, when, how it is bounded, and that
// a torn or tampered checkpoint is never shown as good.
import { afterEach, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { CLI, dotagent, expectNoStack, readJson, removeTemps, tempProject, writeJson } from "./support/cli.js";
import { copyOfTemplate } from "./support/template.js";

afterEach(removeTemps);
const PRELOAD = join(CLI, "../../test/torture/kill-at.mjs");

/** A workflow through REQUIREMENTS and ARCHITECTURE, with `tasks` tasks planned: made once per file and `tasks`, a copy per test. */
function toImplementation(tasks: number): string {
  return copyOfTemplate(`toImplementation ${tasks}`, (p) => makeImplementation(p, tasks));
}

function makeImplementation(p: string, tasks: number): void {
  dotagent(p, ["init", "--request", "add login"]);
  writeJson(p, "memory/reports/demand.json", { stories: ["sign in"] });
  dotagent(p, ["phase", "approve"]);
  dotagent(p, ["phase", "complete"]);
  writeJson(p, "memory/reports/designs/a.json", { name: "a" });
  writeJson(p, "memory/reports/roundtable.json", { pick: "a" });
  writeJson(p, "memory/reports/final_design.json", { chosen: "a" });
  dotagent(p, ["phase", "approve"]);
  dotagent(p, ["phase", "complete"]);
  if (tasks > 0) {
    writeJson(
      p,
      "tasks.json",
      Array.from({ length: tasks }, (_, i) => ({ id: `t${i + 1}` })),
    );
    expect(dotagent(p, ["task", "import", "tasks.json"]).code).toBe(0);
  }
}

function completeTask(p: string, id: string): void {
  dotagent(p, ["task", "start", id]);
  writeJson(p, `memory/reports/tasks/${id}.json`, { task_id: id, status: "complete" });
  expect(dotagent(p, ["task", "complete", id]).code).toBe(0);
}

describe("history", () => {
  it("lists a checkpoint per start, approval, completion, task plan and task completion, rev = the event's seq", () => {
    const p = toImplementation(2);
    completeTask(p, "t1");
    const { json, code } = dotagent(p, ["history", "--json"]);
    expect(code).toBe(0);
    expect(json.workflow_id).toBe("wf-add-login");
    expect(json.checkpoints.map((c: { what: string }) => c.what)).toEqual([
      "workflow started",
      "REQUIREMENTS approved",
      "REQUIREMENTS completed",
      "ARCHITECTURE approved",
      "ARCHITECTURE completed",
      "task plan recorded",
      "task t1 completed",
    ]);
    const events = dotagent(p, ["log", "-n", "100", "--json"]).json.events as Array<{
      seq: number;
      type: string;
      task_id?: string;
    }>;
    const last = json.checkpoints.at(-1);
    expect(events.find((e) => e.seq === last.rev)).toMatchObject({ type: "task_completed", task_id: "t1" });
    expect(last).toMatchObject({
      phase: "IMPLEMENTATION",
      kind: "task",
      task_id: "t1",
      completed_phases: ["REQUIREMENTS", "ARCHITECTURE"],
    });
    const plain = dotagent(p, ["history"]).stdout;
    expect(plain).toContain("ARCHITECTURE approved");
  });

  it("show REV prints the exact state files held", () => {
    const p = toImplementation(2);
    completeTask(p, "t1");
    const rev = dotagent(p, ["history", "--json"]).json.checkpoints.at(-1).rev;
    const shown = dotagent(p, ["history", "show", String(rev), "--json"]);
    expect(shown.json.phase_state).toEqual(readJson(p, "memory/state/phase.json"));
    expect(shown.json.execution).toEqual(readJson(p, "memory/state/execution.json"));
    completeTask(p, "t2");
    // Still the old revision's files, though both state files were rewritten since.
    expect(
      dotagent(p, ["history", "show", String(rev), "--json"]).json.execution.tasks.map(
        (t: { status: string }) => t.status,
      ),
    ).toEqual(["complete", "pending"]);
    expect(dotagent(p, ["history", "show", String(rev)]).stdout).toContain("Tasks: t1 complete, t2 pending");
  });

  it("refuses bad input with one line", () => {
    const p = toImplementation(0);
    for (const [args, code, text] of [
      [["history", "show"], 2, "needs a revision number"],
      [["history", "show", "x"], 2, "is not a checkpoint revision"],
      [["history", "show", "999"], 1, "there is no checkpoint 999"],
      [["history", "shw", "1"], 2, 'not "shw"'],
    ] as const) {
      const r = dotagent(p, [...args]);
      expect(r.code).toBe(code);
      expect(r.stderr).toContain(text);
      expectNoStack(r.stderr);
    }
    expect(dotagent(tempProject(), ["history", "--json"]).json).toEqual({
      workflow_id: null,
      listed_for: null,
      checkpoints: [],
    });
  });

  it("hand edit: phase.json changed in place (written through the file) leaves the checkpoint intact; a checkpoint file changed itself is damaged, never shown as good", () => {
    const p = toImplementation(0);
    const rev = dotagent(p, ["history", "--json"]).json.checkpoints.at(-1).rev;
    // Writing in place, as some editors do: the checkpoint is a copy, so it keeps what dotagent wrote.
    writeFileSync(
      join(p, "memory/state/phase.json"),
      JSON.stringify(readJson(p, "memory/state/phase.json")).replace("add login", "add logout"),
    );
    const intact = dotagent(p, ["history", "show", String(rev), "--json"]);
    expect(intact.code).toBe(0);
    expect(intact.json.phase_state.request).toBe("add login");
    const held = join(p, `memory/state/.history/${String(rev).padStart(8, "0")}/phase.json`);
    writeFileSync(held, readFileSync(held, "utf8").replace("add login", "add logout"));
    const shown = dotagent(p, ["history", "show", String(rev)]);
    expect(shown.code).toBe(1);
    expect(shown.stderr).toContain(`checkpoint ${rev} is damaged (its phase.json does not match its checksum)`);
  });

  it("a torn checkpoint (a folder without its checkpoint.json, a temp folder) is left out", () => {
    const p = toImplementation(0);
    const before = dotagent(p, ["history", "--json"]).json.checkpoints.length;
    mkdirSync(join(p, "memory/state/.history/00000099"));
    mkdirSync(join(p, "memory/state/.history/.tmp-00000100-1"));
    writeFileSync(join(p, "memory/state/.history/00000098"), "not a folder");
    expect(dotagent(p, ["history", "--json"]).json.checkpoints).toHaveLength(before);
  });

  it("a kill -9 while a checkpoint is written leaves valid state and no checkpoint; the next command sweeps the temp folder", () => {
    const p = toImplementation(2);
    dotagent(p, ["task", "start", "t1"]);
    writeJson(p, "memory/reports/tasks/t1.json", { task_id: "t1", status: "complete" });
    const killed = spawnSync(process.execPath, ["--import", PRELOAD, CLI, "task", "complete", "t1"], {
      cwd: p,
      env: { ...process.env, TORTURE_KILL_AT: "renameSync:/.history/" },
    });
    expect(killed.signal).toBe("SIGKILL");
    expect(dotagent(p, ["validate"]).code).toBe(0);
    expect(readJson(p, "memory/state/execution.json").tasks[0].status).toBe("complete");
    expect(dotagent(p, ["history", "--json"]).json.checkpoints.map((c: { what: string }) => c.what)).not.toContain(
      "task t1 completed",
    );
    expect(readdirSync(join(p, "memory/state/.history")).some((n) => n.startsWith(".tmp-"))).toBe(true);
    dotagent(p, ["task", "start", "t2"]); // any command under the lock sweeps it
    expect(readdirSync(join(p, "memory/state/.history")).some((n) => n.startsWith(".tmp-"))).toBe(false);
    writeJson(p, "memory/reports/tasks/t2.json", { task_id: "t2", status: "complete" });
    dotagent(p, ["task", "complete", "t2"]);
    // The last task's completion also completes IMPLEMENTATION: both are checkpoints.
    expect(
      dotagent(p, ["history", "--json"])
        .json.checkpoints.slice(-2)
        .map((c: { what: string }) => c.what),
    ).toEqual(["task t2 completed", "IMPLEMENTATION completed"]);
  });
});
