import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { DotagentError } from "../core/errors.js";
import { clearLiveState } from "./clear-live-state.js";
import { createArchive } from "./create-archive.js";
import { listArchives } from "./list-archives.js";
import { restoreArchive } from "./restore-archive.js";
import {
  buildTarGz,
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

const archiveDir = (): string => join(box.root, "memory/state/.archive");
const T1 = new Date("2026-11-20T09:00:00Z");
const T2 = new Date("2026-11-21T09:00:00Z");

const ORIGINAL_REPORTS = {
  "demand.json": '{"goal":"login"}\n',
  "designs/a.json": '{"design":"a"}',
  "designs/b.json": '{"design":"b"}',
  "tasks/task-001.json": '{"task_id":"task-001","status":"complete"}',
  "notes/deep/er/still.md": "# notes\n",
  "blob.bin": randomBytes(300 * 1024),
};

/** Every file under memory/ except the archives, with its bytes. */
function readLiveFiles(): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const [rel, what] of Object.entries(snapshotTree(join(box.root, "memory")))) {
    if (rel.startsWith("state/.archive")) continue;
    if (what.startsWith("file ")) files.set(rel, readFileSync(join(box.root, "memory", rel)));
  }
  return files;
}

async function expectRejection(promise: Promise<unknown>): Promise<DotagentError> {
  const error: unknown = await promise.then(
    () => new Error("expected a rejection"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DotagentError);
  return error as DotagentError;
}

describe("round trip", () => {
  test("archive, clear, restore gives back every file byte for byte; the live state is archived first", async () => {
    writeLiveState(box.root, {
      phase: samplePhase("wf-login"),
      execution: sampleExecution("wf-login"),
      events:
        '{"seq":1,"at":"2026-11-20T09:00:00Z","type":"init"}\n{"seq":2,"at":"2026-11-20T09:01:00Z","type":"phase_started"}\n',
      reports: ORIGINAL_REPORTS,
    });
    mkdirSync(join(box.root, "memory/reports/empty-folder"));
    const original = readLiveFiles();
    expect(original.size).toBe(9);

    const archived = await createArchive(box.root, { reason: "done", now: T1 });
    await clearLiveState(box.root, archived!.manifest.files, archived!.name);
    // A newer workflow is live when the old one is restored.
    writeLiveState(box.root, { phase: samplePhase("wf-new"), reports: { "demand.json": '{"goal":"signup"}' } });
    const newer = readLiveFiles();

    const result = await restoreArchive(box.root, archived!.name, { now: T2 });

    const restored = readLiveFiles();
    expect([...restored.keys()].sort()).toEqual([...original.keys()].sort());
    for (const [rel, bytes] of original) expect(restored.get(rel)!.equals(bytes), rel).toBe(true);
    expect(existsSync(join(box.root, "memory/reports/empty-folder"))).toBe(true);

    const { manifest: _manifest, ...info } = archived!;
    expect(result.restored).toEqual(info);
    expect(result.archivedLive).toMatchObject({ workflow_id: "wf-new", reason: `before restore of ${archived!.name}` });
    // The archive made before restoring holds the newer workflow, byte for byte.
    await clearLiveState(box.root, archived!.manifest.files, archived!.name);
    await restoreArchive(box.root, result.archivedLive!.name, { now: new Date("2026-11-22T09:00:00Z") });
    const back = readLiveFiles();
    expect([...back.keys()].sort()).toEqual([...newer.keys()].sort());
    for (const [rel, bytes] of newer) expect(back.get(rel)!.equals(bytes), rel).toBe(true);

    // The restored archives are kept, and no temp folder is left.
    expect((await listArchives(box.root)).map((a) => a.name)).toContain(archived!.name);
    expect(readdirSync(archiveDir()).filter((n) => n.startsWith("."))).toEqual([]);
  });

  test("with no live state, nothing is archived first", async () => {
    writeLiveState(box.root, { phase: samplePhase("wf"), reports: { "demand.json": "{}" } });
    const archived = await createArchive(box.root, { now: T1 });
    await clearLiveState(box.root, archived!.manifest.files, archived!.name);
    const result = await restoreArchive(box.root, archived!.name, { now: T2 });
    expect(result.archivedLive).toBeNull();
    expect(readdirSync(archiveDir())).toEqual([archived!.name]);
    expect(readFileSync(join(box.root, "memory/reports/demand.json"), "utf8")).toBe("{}");
  });
});

describe("refusals change nothing", () => {
  let snapshot: Record<string, string>;
  const setUp = (): void => {
    writeLiveState(box.root, { phase: samplePhase("wf-live"), reports: { "demand.json": '{"live":true}' } });
    mkdirSync(archiveDir(), { recursive: true });
  };
  const snap = (): void => {
    snapshot = snapshotTree(box.root);
  };
  const expectUnchanged = (): void => expect(snapshotTree(box.root)).toEqual(snapshot);

  test.each([
    ["nope.tar.gz"],
    ["../nope.tar.gz"],
    ["memory/state/.archive/x.tar.gz"],
    [".partial-x.tar.gz"],
    [""],
    ["wf.tar"],
  ])("an unknown or path-like name %j is archive_not_found", async (name) => {
    setUp();
    await createArchive(box.root, { now: T1 });
    snap();
    const error = await expectRejection(restoreArchive(box.root, name, { now: T2 }));
    expect(error).toMatchObject({ code: "archive_not_found", exitCode: 1 });
    expect(error.message).toContain("dotagent archive list");
    expectUnchanged();
  });

  test("a schema-invalid phase.json in the archive is archive_invalid, naming the file and JSON path", async () => {
    writeLiveState(box.root, { phase: samplePhase("wf-old", { current_phase: "DEPLOYMENT" }) });
    const archived = await createArchive(box.root, { now: T1 });
    await clearLiveState(box.root, archived!.manifest.files, archived!.name);
    setUp();
    snap();
    const error = await expectRejection(restoreArchive(box.root, archived!.name, { now: T2 }));
    expect(error).toMatchObject({
      code: "archive_invalid",
      exitCode: 3,
      details: { file: "memory/state/phase.json", json_path: "current_phase" },
    });
    expect(error.message).toContain(archived!.name);
    expect(error.message).toContain("memory/state/phase.json: current_phase: expected one of");
    expectUnchanged();
  });

  test("unparseable execution.json in the archive is archive_invalid", async () => {
    writeLiveState(box.root, { phase: samplePhase("wf-old"), execution: '{"workflow_id": "wf-old", ' });
    const archived = await createArchive(box.root, { now: T1 });
    await clearLiveState(box.root, archived!.manifest.files, archived!.name);
    setUp();
    snap();
    const error = await expectRejection(restoreArchive(box.root, archived!.name, { now: T2 }));
    expect(error).toMatchObject({ code: "archive_invalid", details: { file: "memory/state/execution.json" } });
    expect(error.message).toContain("not valid JSON");
    expectUnchanged();
  });

  test("an archive whose bytes do not match its manifest is archive_invalid", async () => {
    setUp();
    const manifest = {
      format: 1,
      name: "x",
      workflow_id: "wf",
      phase: null,
      phase_status: null,
      created_at: "2026-11-20T09:00:00Z",
      reason: null,
      files: [{ path: "memory/reports/demand.json", size: 2, sha256: "0".repeat(64) }],
    };
    writeFileSync(
      join(archiveDir(), "tampered_20261120T090000Z.tar.gz"),
      buildTarGz([
        { path: "dotagent-archive.json", data: JSON.stringify(manifest) },
        { path: "memory/reports/demand.json", data: "{}" },
      ]),
    );
    snap();
    const error = await expectRejection(restoreArchive(box.root, "tampered_20261120T090000Z.tar.gz", { now: T2 }));
    expect(error).toMatchObject({ code: "archive_invalid", exitCode: 3 });
    expect(error.message).toContain("checksum");
    expectUnchanged();
  });

  test("a file the manifest does not list is archive_invalid", async () => {
    setUp();
    const manifest = {
      format: 1,
      name: "x",
      workflow_id: "wf",
      phase: null,
      phase_status: null,
      created_at: "2026-11-20T09:00:00Z",
      reason: null,
      files: [],
    };
    writeFileSync(
      join(archiveDir(), "extra_20261120T090000Z.tar.gz"),
      buildTarGz([
        { path: "dotagent-archive.json", data: JSON.stringify(manifest) },
        { path: "memory/reports/smuggled.json", data: "{}" },
      ]),
    );
    snap();
    const error = await expectRejection(restoreArchive(box.root, "extra_20261120T090000Z.tar.gz", { now: T2 }));
    expect(error).toMatchObject({ code: "archive_invalid" });
    expect(error.message).toContain("not in its manifest");
    expectUnchanged();
  });

  test("a file that is not an archive is archive_invalid", async () => {
    setUp();
    mkdirSync(archiveDir(), { recursive: true });
    writeFileSync(join(archiveDir(), "junk_20261120T090000Z.tar.gz"), "not a tarball ".repeat(100));
    snap();
    const error = await expectRejection(restoreArchive(box.root, "junk_20261120T090000Z.tar.gz", { now: T2 }));
    expect(error).toMatchObject({ code: "archive_invalid", exitCode: 3 });
    expect(error.message).toContain("cannot be read");
    expectUnchanged();
  });

  test("live memory/reports that is a link out of the project is refused before anything happens", async () => {
    writeLiveState(box.root, { phase: samplePhase("wf-old"), reports: { "demand.json": "{}" } });
    const archived = await createArchive(box.root, { now: T1 });
    rmSync(join(box.root, "memory/reports"), { recursive: true });
    symlinkSync(box.outside, join(box.root, "memory/reports"));
    snap();
    const outside = snapshotTree(box.outside);
    const error = await expectRejection(restoreArchive(box.root, archived!.name, { now: T2 }));
    expect(error).toMatchObject({ code: "unsafe_path", exitCode: 3 });
    expectUnchanged();
    expect(snapshotTree(box.outside)).toEqual(outside);
  });
});
