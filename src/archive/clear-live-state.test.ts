import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { clearLiveState } from "./clear-live-state.js";
import { createArchive } from "./create-archive.js";
import { makeSandbox, sampleExecution, samplePhase, snapshotTree, writeLiveState, type Sandbox } from "./test-support.js";

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox();
});
afterEach(() => box.cleanup());

test("removes state files and report contents, keeps the folders and the archives", async () => {
  writeLiveState(box.root, {
    phase: samplePhase(),
    execution: sampleExecution(),
    events: "{}\n",
    reports: { "demand.json": "{}", "designs/a.json": "{}", "tasks/task-001.json": "{}" },
  });
  await createArchive(box.root, { now: new Date("2026-11-20T09:00:00Z") });
  const archives = snapshotTree(join(box.root, "memory/state/.archive"));

  await clearLiveState(box.root);

  expect(readdirSync(join(box.root, "memory/reports"))).toEqual([]);
  expect(readdirSync(join(box.root, "memory/state"))).toEqual([".archive"]);
  expect(snapshotTree(join(box.root, "memory/state/.archive"))).toEqual(archives);
});

test("leaves other files in memory/state alone (the lock belongs to the running command)", async () => {
  writeLiveState(box.root, { phase: samplePhase() });
  writeFileSync(join(box.root, "memory/state/.lock"), "{}");
  await clearLiveState(box.root);
  expect(existsSync(join(box.root, "memory/state/.lock"))).toBe(true);
  expect(existsSync(join(box.root, "memory/state/phase.json"))).toBe(false);
});

test("an already clear project stays clear", async () => {
  await clearLiveState(box.root);
  await clearLiveState(box.root);
  expect(readdirSync(join(box.root, "memory/reports"))).toEqual([]);
  expect(readdirSync(join(box.root, "memory/state"))).toEqual([".archive"]);
});
