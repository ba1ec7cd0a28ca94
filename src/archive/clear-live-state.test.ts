import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { clearLiveState } from "./clear-live-state.js";
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

const archiveNow = async () => (await createArchive(box.root, { now: new Date("2026-11-20T09:00:00Z") }))!;

test("removes state files and report contents, keeps the folders and the archives", async () => {
  writeLiveState(box.root, {
    phase: samplePhase(),
    execution: sampleExecution(),
    events: "{}\n",
    reports: { "demand.json": "{}", "designs/a.json": "{}", "tasks/task-001.json": "{}" },
  });
  const created = await archiveNow();
  const archives = snapshotTree(join(box.root, "memory/state/.archive"));

  await clearLiveState(box.root, created.manifest.files, created.name);

  expect(readdirSync(join(box.root, "memory/reports"))).toEqual([]);
  expect(readdirSync(join(box.root, "memory/state"))).toEqual([".archive"]);
  expect(snapshotTree(join(box.root, "memory/state/.archive"))).toEqual(archives);
});

test("leaves other files in memory/state alone (the lock belongs to the running command)", async () => {
  writeLiveState(box.root, { phase: samplePhase() });
  writeFileSync(join(box.root, "memory/state/.lock"), "{}");
  const created = await archiveNow();
  await clearLiveState(box.root, created.manifest.files, created.name);
  expect(existsSync(join(box.root, "memory/state/.lock"))).toBe(true);
  expect(existsSync(join(box.root, "memory/state/phase.json"))).toBe(false);
});

test("an already clear project stays clear", async () => {
  await clearLiveState(box.root, [], "x.tar.gz");
  await clearLiveState(box.root, [], "x.tar.gz");
  expect(readdirSync(join(box.root, "memory/reports"))).toEqual([]);
  expect(readdirSync(join(box.root, "memory/state"))).toEqual([".archive"]);
});

// Issue 15, case 2: the clear may remove only what the archive holds.
test("a report the archive does not hold stops the clear and everything stays", async () => {
  writeLiveState(box.root, { phase: samplePhase(), reports: { "demand.json": '{"a":1}' } });
  const created = await archiveNow();
  writeFileSync(join(box.root, "memory/reports/late.json"), "written after the archive");
  const before = snapshotTree(join(box.root, "memory"));
  await expect(clearLiveState(box.root, created.manifest.files, created.name)).rejects.toMatchObject({
    code: "clear_refused",
    details: { path: "memory/reports/late.json" },
  });
  const after = snapshotTree(join(box.root, "memory"));
  for (const [path, bytes] of Object.entries(before))
    if (!path.includes(".archive")) expect(after[path], path).toEqual(bytes);
});

test("a report changed after it was archived is put back, with everything moved before it", async () => {
  writeLiveState(box.root, { phase: samplePhase(), reports: { "a.json": "{}", "b.json": '{"v":1}' } });
  const created = await archiveNow();
  writeFileSync(join(box.root, "memory/reports/b.json"), '{"v":2}');
  await expect(clearLiveState(box.root, created.manifest.files, created.name)).rejects.toMatchObject({
    code: "clear_refused",
    details: { path: "memory/reports/b.json" },
  });
  expect(readFileSync(join(box.root, "memory/reports/a.json"), "utf8")).toBe("{}");
  expect(readFileSync(join(box.root, "memory/reports/b.json"), "utf8")).toBe('{"v":2}');
  expect(existsSync(join(box.root, "memory/state/phase.json"))).toBe(true);
});

test("a link in the reports is never removed (an archive cannot hold it)", async () => {
  writeLiveState(box.root, { phase: samplePhase(), reports: { "a.json": "{}" } });
  mkdirSync(join(box.root, "memory/reports/sub"));
  symlinkSync("../a.json", join(box.root, "memory/reports/sub/link.json"));
  const created = await archiveNow();
  await expect(clearLiveState(box.root, created.manifest.files, created.name)).rejects.toMatchObject({
    code: "clear_refused",
  });
  expect(readFileSync(join(box.root, "memory/reports/sub/link.json"), "utf8")).toBe("{}");
  expect(existsSync(join(box.root, "memory/reports/a.json"))).toBe(true);
});
