// StateWriter.writtenStates: what a writer just wrote, as loadSnapshot takes it instead of reading
// the file back (ops/settle.ts after a task change). It must be exactly what a reread gives: the
// value as the read's check leaves it, the stamp and the digest of the bytes on disk.
import { afterEach, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

  it("writes a large state's exact bytes into the memory of the read before it (spare-buffer.ts), each write its own", async () => {
    const paths = project();
    // Over 1 MiB pretty-printed: the read's buffer is handed on to the write.
    const tasks = Array.from({ length: 30_000 }, (_, i) => ({ id: `t${i}`, status: "pending" }));
    writeFileSync(
      paths.executionFile,
      JSON.stringify({ workflow_id: "wf", updated_at: AT, interruption_safe: true, tasks }),
    );
    const now = new Date("2026-11-20T11:00:00.000Z");
    const first = await loadSnapshot(paths);
    const execution = (first.execution.kind === "ok" ? first.execution.value : undefined) as ExecutionState;
    const grown = { ...execution, tasks: [...execution.tasks, { ...execution.tasks[0]!, id: "t-new" }] };
    const writer1 = new StateWriter(paths, first, now);
    writer1.writeExecution(grown);
    const written1 = writer1.writtenStates().execution;
    expect(written1?.kind).toBe("ok");
    expect(readFileSync(paths.executionFile, "utf8")).toBe(`${JSON.stringify(okValue(written1), null, 2)}\n`);
    // Grown past the room read with: a buffer of its own.
    const second = await loadSnapshot(paths);
    const longer = {
      ...grown,
      tasks: [...grown.tasks, ...execution.tasks.map((t) => ({ ...t, id: `${t.id}-again` }))],
    };
    const writer = new StateWriter(paths, second, now);
    writer.writeExecution(longer);
    const written2 = writer.writtenStates().execution;
    expect(okValue(written2).tasks).toHaveLength(60_001);
    expect(readFileSync(paths.executionFile, "utf8")).toBe(`${JSON.stringify(okValue(written2), null, 2)}\n`);
    expect(written2).toStrictEqual(await readExecutionFile(paths));
  });
});

function okValue(read: Awaited<ReturnType<typeof readExecutionFile>> | undefined): ExecutionState {
  if (read?.kind !== "ok") throw new Error(`expected a written execution.json, got ${read?.kind}`);
  return read.value;
}
