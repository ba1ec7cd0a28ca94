import { afterEach, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { projectPaths, type ProjectPaths } from "./project.js";
import { KEEP, listCheckpoints, readCheckpoint, recordCheckpoint } from "./checkpoints.js";
import type { EventRecord } from "./events.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function project(): ProjectPaths {
  const root = mkdtempSync(join(tmpdir(), "dotagent-checkpoints-"));
  dirs.push(root);
  const paths = projectPaths(root);
  mkdirSync(paths.stateDir, { recursive: true });
  return paths;
}

function writeState(paths: ProjectPaths, workflowId: string, tasksDone: number): void {
  writeFileSync(paths.phaseFile, JSON.stringify({ workflow_id: workflowId, current_phase: "IMPLEMENTATION", phase_status: "in_progress", completed_phases: [{ phase: "REQUIREMENTS" }, { phase: "ARCHITECTURE" }] }));
  writeFileSync(paths.executionFile, JSON.stringify({ workflow_id: workflowId, tasks: [{ id: "t", done: tasksDone }] }));
}

const event = (seq: number, type: string, extra: Record<string, unknown> = {}): EventRecord => ({ seq, at: `2026-11-20T10:00:${String(seq % 60).padStart(2, "0")}Z`, type, ...extra });

describe("recordCheckpoint", () => {
  it("takes one only for events worth returning to, named by the last such event's seq", () => {
    const paths = project();
    writeState(paths, "wf", 0);
    recordCheckpoint(paths, [event(1, "task_started"), event(2, "resumed")]);
    expect(listCheckpoints(paths)).toEqual([]);
    recordCheckpoint(paths, [event(3, "task_completed", { task_id: "a" }), event(4, "task_completed", { task_id: "b" }), event(5, "task_reset")]);
    expect(listCheckpoints(paths).map((c) => [c.rev, c.event])).toEqual([[4, { type: "task_completed", task_id: "b" }]]);
  });

  it(`keeps the live workflow's newest ${KEEP.task} task and ${KEEP.phase} phase checkpoints, and no other workflow's`, () => {
    const paths = project();
    writeState(paths, "old", 0);
    recordCheckpoint(paths, [event(1, "workflow_started")]);
    writeState(paths, "wf", 0);
    let seq = 1;
    for (let i = 0; i < KEEP.phase + 3; i++) recordCheckpoint(paths, [event(++seq, "phase_approved", { phase: "ARCHITECTURE" })]);
    for (let i = 0; i < KEEP.task + 5; i++) {
      writeState(paths, "wf", i);
      recordCheckpoint(paths, [event(++seq, "task_completed", { task_id: `t${i}` })]);
    }
    const list = listCheckpoints(paths);
    expect(list.every((c) => c.workflow_id === "wf")).toBe(true);
    expect(list.filter((c) => c.kind === "phase")).toHaveLength(KEEP.phase);
    expect(list.filter((c) => c.kind === "task").map((c) => c.event.task_id)).toEqual(Array.from({ length: KEEP.task }, (_, i) => `t${i + 5}`));
    expect(readdirSync(join(paths.stateDir, ".history"))).toHaveLength(KEEP.phase + KEEP.task);
    // Each holds the state files of its own moment.
    const last = list.at(-1);
    expect(readCheckpoint(paths, last!.rev)).toMatchObject({ execution: { tasks: [{ id: "t", done: KEEP.task + 4 }] } });
  });

  it("replaces a checkpoint of the same rev from an earlier workflow (events.jsonl starts again after a fresh start)", () => {
    const paths = project();
    writeState(paths, "old", 0);
    recordCheckpoint(paths, [event(1, "workflow_started")]);
    writeState(paths, "new", 0);
    recordCheckpoint(paths, [event(1, "workflow_started")]);
    expect(listCheckpoints(paths).map((c) => c.workflow_id)).toEqual(["new"]);
    expect(listCheckpoints(paths, "old")).toEqual([]);
  });

  it("never throws: no phase.json, or a history folder that cannot be made", () => {
    const paths = project();
    expect(() => recordCheckpoint(paths, [event(1, "workflow_started")])).not.toThrow();
    writeState(paths, "wf", 0);
    writeFileSync(join(paths.stateDir, ".history"), "a file where the folder should be");
    expect(() => recordCheckpoint(paths, [event(2, "workflow_started")])).not.toThrow();
    expect(listCheckpoints(paths)).toEqual([]);
  });
});
