import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, symlinkSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { list as listTar, type ReadEntry } from "tar";
import { createArchive } from "./create-archive.js";
import {
  makeSandbox,
  sampleExecution,
  samplePhase,
  snapshotTree,
  writeLiveState,
  type Sandbox,
} from "./test-support.js";

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox();
});
afterEach(() => box.cleanup());

const NOW = new Date("2026-11-20T12:34:56.789Z");
const archiveDir = (): string => join(box.root, "memory/state/.archive");

/** Every entry of an archive with its bytes, in archive order. */
async function readEntries(file: string): Promise<Array<{ path: string; type: string; body: Buffer }>> {
  const out: Array<{ path: string; type: string; body: Buffer }> = [];
  await listTar({
    file,
    onReadEntry: (entry: ReadEntry) => {
      const chunks: Buffer[] = [];
      const row = { path: entry.path, type: entry.type, body: Buffer.alloc(0) };
      out.push(row);
      entry.on("data", (chunk: Buffer) => chunks.push(chunk));
      entry.on("end", () => (row.body = Buffer.concat(chunks)));
    },
  });
  return out;
}

describe("createArchive", () => {
  test("packs state files and the reports tree, manifest first, paths relative to the project", async () => {
    writeLiveState(box.root, {
      phase: samplePhase("wf-login"),
      execution: sampleExecution("wf-login"),
      events: '{"seq":1}\n',
      reports: { "demand.json": '{"a":1}', "tasks/task-001.json": '{"task_id":"task-001","status":"complete"}' },
    });
    mkdirSync(join(box.root, "memory/reports/designs"));
    const before = snapshotTree(join(box.root, "memory"));

    const info = await createArchive(box.root, { reason: "done", now: NOW });

    expect(info).toEqual({
      manifest: expect.objectContaining({ name: info!.name }),
      name: "wf-login_20261120T123456Z.tar.gz",
      path: "memory/state/.archive/wf-login_20261120T123456Z.tar.gz",
      workflow_id: "wf-login",
      phase: "ARCHITECTURE",
      phase_status: "in_progress",
      created_at: "2026-11-20T12:34:56Z",
      reason: "done",
      size: expect.any(Number),
    });
    const entries = await readEntries(join(archiveDir(), info!.name));
    expect(entries.map((e) => e.path)).toEqual([
      "dotagent-archive.json",
      "memory/state/execution.json",
      "memory/state/events.jsonl",
      "memory/state/phase.json",
      "memory/reports/",
      "memory/reports/demand.json",
      "memory/reports/designs/",
      "memory/reports/tasks/",
      "memory/reports/tasks/task-001.json",
    ]);
    const manifest = JSON.parse(entries[0]!.body.toString("utf8")) as {
      files: Array<{ path: string; size: number; sha256: string }>;
    };
    expect(manifest).toMatchObject({
      format: 1,
      name: info!.name,
      workflow_id: "wf-login",
      reason: "done",
      skipped: [],
    });
    for (const file of manifest.files) {
      const bytes = readFileSync(join(box.root, file.path));
      expect(file).toEqual({
        path: file.path,
        size: bytes.length,
        sha256: createHash("sha256").update(bytes).digest("hex"),
      });
      expect(entries.find((e) => e.path === file.path)!.body.equals(bytes)).toBe(true);
    }
    expect(manifest.files).toHaveLength(5);
    // createArchive only reads the live state; the only new thing is the archive.
    const after = snapshotTree(join(box.root, "memory"));
    expect(Object.keys(after).filter((k) => !(k in before))).toEqual([
      "state/.archive",
      `state/.archive/${info!.name}`,
    ]);
    for (const [k, v] of Object.entries(before)) expect(after[k]).toBe(v);
  });

  test("returns null and writes nothing when there is nothing to archive", async () => {
    mkdirSync(join(box.root, "memory/reports/designs"));
    expect(await createArchive(box.root, { now: NOW })).toBeNull();
    expect(existsSync(archiveDir())).toBe(false);
  });

  test("archives corrupt state too, naming it after execution.json's workflow id", async () => {
    writeLiveState(box.root, { phase: "{ not json", execution: sampleExecution("wf-exec") });
    const info = await createArchive(box.root, { now: NOW });
    expect(info).toMatchObject({
      name: "wf-exec_20261120T123456Z.tar.gz",
      workflow_id: "wf-exec",
      phase: null,
      phase_status: null,
      reason: null,
    });
  });

  test("a phase.json cut short (head -c 100) still names the archive after its workflow", async () => {
    writeLiveState(box.root, {
      phase: '{\n  "workflow_id": "wf-add-login",\n  "started_at": "2026-11-2',
      execution: "",
    });
    expect(await createArchive(box.root, { now: NOW })).toMatchObject({
      name: "wf-add-login_20261120T123456Z.tar.gz",
      workflow_id: "wf-add-login",
      phase: null,
    });
  });

  test("uses `unknown` when no state file names the workflow", async () => {
    writeLiveState(box.root, { phase: "[]", execution: "", reports: { "x.md": "hi" } });
    expect((await createArchive(box.root, { now: NOW }))?.name).toBe("unknown_20261120T123456Z.tar.gz");
  });

  test("sanitizes the workflow id for the file name but keeps it in the manifest", async () => {
    writeLiveState(box.root, { phase: samplePhase("../../wf 1/evil") });
    const info = await createArchive(box.root, { now: NOW });
    expect(info?.name).toBe("wf-1-evil_20261120T123456Z.tar.gz");
    expect(info?.workflow_id).toBe("../../wf 1/evil");
  });

  test("two archives in the same second never overwrite each other", async () => {
    writeLiveState(box.root, { phase: samplePhase("wf") });
    const names: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      writeLiveState(box.root, { events: `run ${i}\n` });
      names.push((await createArchive(box.root, { now: NOW }))!.name);
    }
    expect(names).toEqual([
      "wf_20261120T123456Z.tar.gz",
      "wf_20261120T123456Z-2.tar.gz",
      "wf_20261120T123456Z-3.tar.gz",
    ]);
    expect(readdirSync(archiveDir()).sort()).toEqual([...names].sort());
    // Each kept its own content.
    for (const [i, name] of names.entries()) {
      const events = (await readEntries(join(archiveDir(), name))).find((e) => e.path === "memory/state/events.jsonl");
      expect(events?.body.toString()).toBe(`run ${i}\n`);
    }
  });

  test("concurrent archivers in the same second take distinct names (link() refuses to replace)", async () => {
    writeLiveState(box.root, { phase: samplePhase("wf"), reports: { "demand.json": "{}" } });
    const infos = await Promise.all([1, 2, 3, 4].map(() => createArchive(box.root, { now: NOW })));
    const names = infos.map((info) => info!.name).sort();
    expect(names).toEqual([
      "wf_20261120T123456Z-2.tar.gz",
      "wf_20261120T123456Z-3.tar.gz",
      "wf_20261120T123456Z-4.tar.gz",
      "wf_20261120T123456Z.tar.gz",
    ]);
    expect(readdirSync(archiveDir()).sort()).toEqual(names);
    // Each archive's manifest carries the name it ended up with.
    for (const name of names) {
      const [manifest] = await readEntries(join(archiveDir(), name));
      expect(JSON.parse(manifest!.body.toString()).name).toBe(name);
    }
  });

  test("leaves links out and lists them as skipped instead of following them", async () => {
    writeLiveState(box.root, { phase: samplePhase("wf"), reports: { "demand.json": "{}" } });
    writeFileSync(join(box.outside, "secret"), "secret");
    symlinkSync(join(box.outside, "secret"), join(box.root, "memory/reports/leak.json"));
    const info = await createArchive(box.root, { now: NOW });
    const entries = await readEntries(join(archiveDir(), info!.name));
    expect(entries.map((e) => e.path)).not.toContain("memory/reports/leak.json");
    expect(entries.some((e) => e.body.toString() === "secret")).toBe(false);
    const manifest = JSON.parse(entries[0]!.body.toString()) as { skipped: unknown };
    expect(manifest.skipped).toEqual([
      { path: "memory/reports/leak.json", reason: expect.stringContaining("symbolic link") },
    ]);
  });

  test("refuses when memory/reports is a link out of the project", async () => {
    writeLiveState(box.root, { phase: samplePhase("wf") });
    const reports = join(box.root, "memory/reports");
    rmdirSync(reports);
    symlinkSync(box.outside, reports);
    await expect(createArchive(box.root, { now: NOW })).rejects.toMatchObject({ code: "unsafe_path", exitCode: 3 });
  });
});
