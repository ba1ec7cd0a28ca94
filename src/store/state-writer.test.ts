// StateWriter.writtenStates: what a writer just wrote, as loadSnapshot takes it instead of reading
// the file back (ops/settle.ts after a task change). It must be exactly what a reread gives: the
// value as the read's check leaves it, the stamp and the digest of the bytes on disk.
import { afterEach, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { projectPaths, type ProjectPaths } from "./project.js";
import { loadSnapshot } from "./session.js";
import { readExecutionFile, readPhaseFile } from "./state-files.js";
import { StateWriter } from "./state-writer.js";
import type { ExecutionState } from "../schema/execution.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const AT = "2026-11-20T10:00:00.000Z";
function project(): ProjectPaths {
  const root = mkdtempSync(join(tmpdir(), "dotagent-state-writer-"));
  dirs.push(root);
  const paths = projectPaths(root);
  mkdirSync(paths.stateDir, { recursive: true });
  writeFileSync(
    paths.phaseFile,
    JSON.stringify({
      workflow_id: "wf",
      instance_id: "0123456789abcdef",
      started_at: AT,
      last_updated: AT,
      current_phase: "IMPLEMENTATION",
      phase_status: "in_progress",
      completed_phases: [
        { phase: "REQUIREMENTS", completed_at: AT },
        { phase: "ARCHITECTURE", completed_at: AT },
      ],
      user_checkpoints: [],
      interruption_safe: true,
    }),
  );
  writeFileSync(
    paths.executionFile,
    JSON.stringify({
      workflow_id: "wf",
      updated_at: AT,
      interruption_safe: true,
      tasks: [{ id: "t1", status: "pending" }],
    }),
  );
  return paths;
}

describe("StateWriter.writtenStates", () => {
  it("is what reading the files back gives: value, stamp and digest", async () => {
    const paths = project();
    const now = new Date("2026-11-20T11:00:00.000Z");
    const snapshot = await loadSnapshot(paths);
    const writer = new StateWriter(paths, snapshot, now);
    expect(writer.writtenStates()).toEqual({});
    const execution = snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined;
    writer.writeExecution({ ...execution!, tasks: [{ ...execution!.tasks[0]!, status: "running", attempts: 1 }] });
    const phase = snapshot.phase.kind === "ok" ? snapshot.phase.value : undefined;
    writer.writePhase({ ...phase!, phase_status: "in_progress" });
    const written = writer.writtenStates();
    expect(written.execution).toStrictEqual(await readExecutionFile(paths));
    expect(written.phase).toStrictEqual(await readPhaseFile(paths));
    expect(await loadSnapshot(paths, [], written)).toEqual(await loadSnapshot(paths));
  });

  it("leaves out a value the read's quick check would not take as it is (a reread decides then)", async () => {
    const paths = project();
    const snapshot = await loadSnapshot(paths);
    const writer = new StateWriter(paths, snapshot, new Date());
    const execution = (snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined) as ExecutionState;
    writer.writeExecution({ ...execution, tasks: [{ ...execution.tasks[0]!, status: "no such status" as never }] });
    expect(writer.writtenStates()).toEqual({});
  });
});
