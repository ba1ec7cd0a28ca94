import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { gzipSync } from "node:zlib";
import { list as listTar } from "tar";
import { afterEach, beforeEach, expect, test } from "vitest";
import { createArchive } from "./create-archive.js";
import { listArchives } from "./list-archives.js";
import { buildTarGz, makeSandbox, samplePhase, writeLiveState, type Sandbox } from "./test-support.js";

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox();
});
afterEach(() => box.cleanup());

const archiveDir = (): string => join(box.root, "memory/state/.archive");

test("no archive folder lists nothing", async () => {
  expect(await listArchives(box.root)).toEqual([]);
});

test("reads workflow, phase, status, time and reason from each manifest, newest first", async () => {
  writeLiveState(box.root, { phase: samplePhase("wf-a", { current_phase: "VERIFICATION", phase_status: "failed" }) });
  const a = await createArchive(box.root, { reason: "first", now: new Date("2026-11-20T09:00:00Z") });
  writeLiveState(box.root, { phase: samplePhase("wf-b") });
  const b = await createArchive(box.root, { now: new Date("2026-11-21T09:00:00Z") });

  const listed = await listArchives(box.root);

  const row = ({ manifest: _, ...info }: NonNullable<typeof a>) => info;
  expect(listed).toEqual([row(b!), row(a!)]);
  expect(listed[1]).toEqual({
    name: "wf-a_20261120T090000Z.tar.gz",
    path: "memory/state/.archive/wf-a_20261120T090000Z.tar.gz",
    workflow_id: "wf-a",
    phase: "VERIFICATION",
    phase_status: "failed",
    created_at: "2026-11-20T09:00:00Z",
    reason: "first",
    size: readFileSync(join(archiveDir(), "wf-a_20261120T090000Z.tar.gz")).length,
  });
});

test("reads only the manifest: an archive cut off after it still lists", async () => {
  // Random bytes do not compress, so a cut at 64 KiB lands inside this report, far past the manifest.
  writeLiveState(box.root, { phase: samplePhase("wf"), reports: { "big.bin": randomBytes(1024 * 1024) } });
  const info = await createArchive(box.root, { now: new Date("2026-11-20T09:00:00Z") });
  const file = join(archiveDir(), info!.name);
  writeFileSync(file, readFileSync(file).subarray(0, 64 * 1024));
  await expect(listTar({ file, strict: true })).rejects.toThrow(); // reading it all would fail
  const [listed] = await listArchives(box.root);
  expect(listed?.error).toBeUndefined();
  expect(listed).toMatchObject({ workflow_id: "wf", size: 64 * 1024 });
});

test("garbage, truncated and manifest-less archives are listed with an error, never thrown", async () => {
  writeLiveState(box.root, { phase: samplePhase("wf") });
  const good = await createArchive(box.root, { now: new Date("2026-11-20T09:00:00Z") });
  mkdirSync(archiveDir(), { recursive: true });
  writeFileSync(
    join(archiveDir(), "garbage.tar.gz"),
    "this is not an archive at all, just some text that goes on\n".repeat(20),
  );
  writeFileSync(join(archiveDir(), "empty_20261101T000000Z.tar.gz"), "");
  writeFileSync(
    join(archiveDir(), "cut_20261102T000000Z.tar.gz"),
    readFileSync(join(archiveDir(), good!.name)).subarray(0, 40),
  );
  writeFileSync(
    join(archiveDir(), "plain_20261103T000000Z.tar.gz"),
    buildTarGz([{ path: "memory/state/phase.json", data: "{}" }]),
  );
  writeFileSync(
    join(archiveDir(), "badjson_20261104T000000Z.tar.gz"),
    buildTarGz([{ path: "dotagent-archive.json", data: "{oops" }]),
  );
  writeFileSync(
    join(archiveDir(), "badshape_20261105T000000Z.tar.gz"),
    buildTarGz([{ path: "dotagent-archive.json", data: '{"format":2}' }]),
  );
  writeFileSync(join(archiveDir(), "gzgarbage_20261106T000000Z.tar.gz"), gzipSync(Buffer.from("x".repeat(3000))));

  const listed = await listArchives(box.root);

  expect(listed.map((a) => a.name)).toEqual([
    good!.name,
    "gzgarbage_20261106T000000Z.tar.gz",
    "badshape_20261105T000000Z.tar.gz",
    "badjson_20261104T000000Z.tar.gz",
    "plain_20261103T000000Z.tar.gz",
    "cut_20261102T000000Z.tar.gz",
    "empty_20261101T000000Z.tar.gz",
    "garbage.tar.gz",
  ]);
  expect(listed[0]?.error).toBeUndefined();
  const errors = Object.fromEntries(listed.slice(1).map((a) => [a.name, a.error]));
  expect(errors).toEqual({
    "gzgarbage_20261106T000000Z.tar.gz": expect.stringContaining("cannot be read"),
    "badshape_20261105T000000Z.tar.gz": expect.stringContaining("manifest does not match format 1"),
    "badjson_20261104T000000Z.tar.gz": expect.stringContaining("manifest is not valid JSON"),
    "plain_20261103T000000Z.tar.gz": 'no manifest: first entry is "memory/state/phase.json", not dotagent-archive.json',
    "cut_20261102T000000Z.tar.gz": expect.stringContaining("cannot be read"),
    "empty_20261101T000000Z.tar.gz": expect.stringMatching(/cannot be read|empty archive/),
    "garbage.tar.gz": expect.stringContaining("cannot be read"),
  });
  for (const bad of listed.slice(1)) {
    expect(bad).toMatchObject({ workflow_id: null, phase: null, phase_status: null, created_at: null, reason: null });
  }
});
