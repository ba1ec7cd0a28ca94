import { afterEach, describe, expect, it } from "vitest";
import {
  chmodSync,
  closeSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  statSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeFileSync as fsWriteFileSync,
} from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { projectPaths, type ProjectPaths } from "./project.js";
import { KEEP, recordCheckpoint } from "./checkpoints.js";
import { listCheckpoints, readCheckpoint } from "./checkpoint-read.js";
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

const NOW = new Date("2026-11-20T12:00:00Z");

/** Valid state files of workflow `workflowId` (instance `instance`), at IMPLEMENTATION. */
function writeState(
  paths: ProjectPaths,
  workflowId: string,
  tasksDone: number,
  instance = `${workflowId}`
    .padEnd(16, "0")
    .replace(/[^0-9a-f]/g, "a")
    .slice(0, 16),
): void {
  const at = "2026-11-20T10:00:00Z";
  // Replaced by rename, as dotagent writes them.
  const writeFileSync = (file: string, text: string) => {
    fsWriteFileSync(`${file}.new`, text);
    renameSync(`${file}.new`, file);
  };
  writeFileSync(
    paths.phaseFile,
    JSON.stringify({
      workflow_id: workflowId,
      instance_id: instance,
      started_at: at,
      last_updated: at,
      current_phase: "IMPLEMENTATION",
      phase_status: "in_progress",
      completed_phases: [
        { phase: "REQUIREMENTS", completed_at: at },
        { phase: "ARCHITECTURE", completed_at: at },
      ],
      user_checkpoints: [],
      interruption_safe: true,
    }),
  );
  writeFileSync(
    paths.executionFile,
    JSON.stringify({
      workflow_id: workflowId,
      updated_at: at,
      interruption_safe: true,
      tasks: [{ id: "t", status: "pending", done: tasksDone }],
    }),
  );
}

const instanceOf = (workflowId: string) =>
  `${workflowId}`
    .padEnd(16, "0")
    .replace(/[^0-9a-f]/g, "a")
    .slice(0, 16);
const list = (paths: ProjectPaths, workflowId = "wf") =>
  listCheckpoints(paths, instanceOf(workflowId), NOW).map((c) => c.meta);

const event = (seq: number, type: string, extra: Record<string, unknown> = {}): EventRecord => ({
  seq,
  at: `2026-11-20T10:00:${String(seq % 60).padStart(2, "0")}Z`,
  type,
  ...extra,
});

describe("recordCheckpoint", () => {
  it("takes one only for events worth returning to, named by the last such event's seq", () => {
    const paths = project();
    writeState(paths, "wf", 0);
    recordCheckpoint(paths, [event(1, "task_started"), event(2, "resumed")]);
    expect(list(paths)).toEqual([]);
    recordCheckpoint(paths, [
      event(3, "task_completed", { task_id: "a" }),
      event(4, "task_completed", { task_id: "b" }),
      event(5, "task_reset"),
    ]);
    expect(list(paths).map((c) => [c.rev, c.event])).toEqual([[4, { type: "task_completed", task_id: "b" }]]);
  });

  it("holds the bytes a writer just wrote, not what is on disk after (read back only for files it did not write)", () => {
    const paths = project();
    writeState(paths, "wf", 1);
    const phaseBytes = readFileSync(paths.phaseFile);
    const written = Buffer.from(readFileSync(paths.executionFile, "utf8").replace('"revision":', '"revision": '));
    const sha256 = createHash("sha256").update(written).digest("hex");
    fsWriteFileSync(paths.executionFile, "changed on disk after the write\n");
    recordCheckpoint(
      paths,
      [event(1, "task_completed", { task_id: "a" })],
      new Map([[paths.executionFile, { bytes: written, sha256 }]]),
    );
    const folder = join(paths.stateDir, ".history", "00000001");
    expect(readFileSync(join(folder, "execution.json"))).toEqual(written);
    expect(readFileSync(join(folder, "phase.json"))).toEqual(phaseBytes);
    const meta = JSON.parse(readFileSync(join(folder, "checkpoint.json"), "utf8")) as { files: Record<string, string> };
    expect(meta.files["execution.json"]).toBe(sha256);
    expect(meta.files["phase.json"]).toBe(createHash("sha256").update(phaseBytes).digest("hex"));
  });

  it(`keeps the live workflow's newest ${KEEP.task} task and ${KEEP.phase} phase checkpoints, and no other workflow's`, () => {
    const paths = project();
    writeState(paths, "old", 0);
    recordCheckpoint(paths, [event(1, "workflow_started")]);
    writeState(paths, "wf", 0);
    let seq = 1;
    for (let i = 0; i < KEEP.phase + 3; i++)
      recordCheckpoint(paths, [event(++seq, "phase_approved", { phase: "ARCHITECTURE" })]);
    for (let i = 0; i < KEEP.task + 5; i++) {
      writeState(paths, "wf", i);
      recordCheckpoint(paths, [event(++seq, "task_completed", { task_id: `t${i}` })]);
    }
    const metas = list(paths);
    expect(metas.every((c) => c.workflow_id === "wf")).toBe(true);
    expect(metas.filter((c) => c.kind === "phase")).toHaveLength(KEEP.phase);
    expect(metas.filter((c) => c.kind === "task").map((c) => c.event.task_id)).toEqual(
      Array.from({ length: KEEP.task }, (_, i) => `t${i + 5}`),
    );
    expect(readdirSync(join(paths.stateDir, ".history"))).toHaveLength(KEEP.phase + KEEP.task);
    // Each holds the state files of its own moment.
    const last = metas.at(-1);
    expect(readCheckpoint(paths, last!.rev, instanceOf("wf"), NOW)).toMatchObject({
      execution: { tasks: [{ id: "t", done: KEEP.task + 4 }] },
    });
  });

  it("replaces a checkpoint of the same rev from an earlier workflow (events.jsonl starts again after a fresh start)", () => {
    const paths = project();
    writeState(paths, "old", 0);
    recordCheckpoint(paths, [event(1, "workflow_started")]);
    writeState(paths, "new", 0);
    recordCheckpoint(paths, [event(1, "workflow_started")]);
    expect(list(paths, "new").map((c) => c.workflow_id)).toEqual(["new"]);
    expect(list(paths, "old")).toEqual([]);
  });

  it("never throws: no phase.json, or a history folder that cannot be made", () => {
    const paths = project();
    expect(() => recordCheckpoint(paths, [event(1, "workflow_started")])).not.toThrow();
    writeState(paths, "wf", 0);
    writeFileSync(join(paths.stateDir, ".history"), "a file where the folder should be");
    expect(() => recordCheckpoint(paths, [event(2, "workflow_started")])).not.toThrow();
    expect(() => list(paths)).toThrow(/memory\/state\/\.history is not a folder/);
  });
});

describe("hand edits: a checkpoint is a copy no edit of the live files can change", () => {
  it("hand edit: an in-place edit of phase.json (same inode, written through) leaves the newest checkpoint intact", () => {
    const paths = project();
    writeState(paths, "wf", 1);
    recordCheckpoint(paths, [event(1, "workflow_started")]);
    const folder = join(paths.stateDir, ".history/00000001");
    const before = readFileSync(join(folder, "phase.json"));
    const inode = statSync(paths.phaseFile).ino;
    // `head -c 100 phase.json > phase.json.cut; cat phase.json.cut > phase.json`: written through the file.
    const fd = openSync(paths.phaseFile, "r+");
    ftruncateSync(fd, 100);
    closeSync(fd);
    expect(statSync(paths.phaseFile).ino).toBe(inode);
    expect(statSync(join(folder, "phase.json")).ino).not.toBe(inode);
    expect(readFileSync(join(folder, "phase.json"))).toEqual(before);
    expect(list(paths).map((c) => c.rev)).toEqual([1]);
    expect(readCheckpoint(paths, 1, instanceOf("wf"), NOW)).toMatchObject({ meta: { rev: 1 } });
  });
});

describe("issue 21: checkpoints belong to one workflow instance and are judged before use", () => {
  it("case 2: a workflow started again under the same id lists none of the earlier run's checkpoints", () => {
    const paths = project();
    writeState(paths, "wf", 0, "1111111111111111");
    recordCheckpoint(paths, [event(1, "workflow_started"), event(2, "phase_approved", { phase: "REQUIREMENTS" })]);
    recordCheckpoint(paths, [event(4, "phase_approved", { phase: "ARCHITECTURE" })]);
    writeState(paths, "wf", 0, "2222222222222222");
    expect(listCheckpoints(paths, "2222222222222222", NOW)).toEqual([]);
    expect(readCheckpoint(paths, 4, "2222222222222222", NOW)).toMatchObject({ why: "other_instance" });
    recordCheckpoint(paths, [event(1, "workflow_started")]);
    expect(listCheckpoints(paths, "2222222222222222", NOW).map((c) => c.meta.rev)).toEqual([1]);
    // The next checkpoint prunes the earlier instance's.
    expect(readdirSync(join(paths.stateDir, ".history"))).toEqual(["00000001"]);
  });

  it("case 2: a checkpoint written before instance ids belongs to the instance of the phase.json it holds", () => {
    const paths = project();
    writeState(paths, "wf", 0, "3333333333333333");
    recordCheckpoint(paths, [event(1, "workflow_started")]);
    const meta = join(paths.stateDir, ".history/00000001/checkpoint.json");
    const { instance: _gone, ...old } = JSON.parse(readFileSync(meta, "utf8")) as Record<string, unknown>;
    writeFileSync(meta, JSON.stringify(old));
    expect(listCheckpoints(paths, "3333333333333333", NOW).map((c) => c.meta.rev)).toEqual([1]);
    expect(listCheckpoints(paths, "4444444444444444", NOW)).toEqual([]);
  });

  it.each([
    [
      "phases out of order",
      (p: Record<string, unknown>) => ({
        ...p,
        completed_phases: [
          { phase: "ARCHITECTURE", completed_at: "2026-11-20T10:00:00Z" },
          { phase: "REQUIREMENTS", completed_at: "2026-11-20T10:00:00Z" },
        ],
      }),
      /not valid: phase\.json: completed_phases\[0\]\.phase/,
    ],
    ["not JSON", () => "{not json", /its phase\.json is not JSON/],
    [
      "a schema violation",
      (p: Record<string, unknown>) => ({ ...p, current_phase: "LATER" }),
      /not valid: phase\.json: current_phase/,
    ],
  ])(
    "case 8: a checkpoint whose phase.json matches its checksum but is %s is damaged: not listed, never restored",
    (_name, tamper, reason) => {
      const paths = project();
      writeState(paths, "wf", 0);
      recordCheckpoint(paths, [event(1, "workflow_started")]);
      const folder = join(paths.stateDir, ".history/00000001");
      const held = JSON.parse(readFileSync(join(folder, "phase.json"), "utf8")) as Record<string, unknown>;
      const tampered = tamper(held);
      const text = typeof tampered === "string" ? tampered : JSON.stringify(tampered);
      rmSync(join(folder, "phase.json"));
      writeFileSync(join(folder, "phase.json"), text);
      const meta = JSON.parse(readFileSync(join(folder, "checkpoint.json"), "utf8")) as {
        files: Record<string, string>;
      };
      meta.files["phase.json"] = createHash("sha256").update(text).digest("hex");
      writeFileSync(join(folder, "checkpoint.json"), JSON.stringify(meta));
      expect(list(paths)).toEqual([]);
      const read = readCheckpoint(paths, 1, instanceOf("wf"), NOW);
      expect(read).toMatchObject({ why: "damaged" });
      expect((read as { missing: string }).missing).toMatch(reason);
    },
  );

  it.skipIf(process.getuid?.() === 0)(
    'case 13: an unreadable .history or checkpoint folder is state_unreadable, never "no checkpoints"',
    () => {
      const paths = project();
      writeState(paths, "wf", 0);
      recordCheckpoint(paths, [event(1, "workflow_started")]);
      const history = join(paths.stateDir, ".history");
      chmodSync(join(history, "00000001"), 0o000);
      try {
        expect(() => list(paths)).toThrow(
          expect.objectContaining({
            code: "state_unreadable",
            details: expect.objectContaining({ path: "memory/state/.history/00000001/checkpoint.json" }),
          }),
        );
      } finally {
        chmodSync(join(history, "00000001"), 0o755);
      }
      chmodSync(history, 0o000);
      try {
        expect(() => list(paths)).toThrow(
          expect.objectContaining({
            code: "state_unreadable",
            details: expect.objectContaining({ path: "memory/state/.history" }),
          }),
        );
        expect(() => readCheckpoint(paths, 1, instanceOf("wf"), NOW)).toThrow(
          expect.objectContaining({ code: "state_unreadable" }),
        );
      } finally {
        chmodSync(history, 0o755);
      }
    },
  );
});
