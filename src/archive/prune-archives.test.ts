import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { createArchive } from "./create-archive.js";
import { listArchives } from "./list-archives.js";
import { pruneArchives } from "./prune-archives.js";
import { makeSandbox, samplePhase, writeLiveState, type Sandbox } from "./test-support.js";

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox();
  writeLiveState(box.root, { phase: samplePhase("wf") });
});
afterEach(() => box.cleanup());

const archiveDir = (): string => join(box.root, "memory/state/.archive");
const at = (day: number, second = 0): Date => new Date(Date.UTC(2026, 10, day, 9, 0, second));

test("retention: of 8 archives exactly the five newest remain", async () => {
  // Created out of order, so "newest" must come from the names, not from creation order.
  const days = [3, 8, 1, 6, 2, 7, 4, 5];
  for (const day of days) await createArchive(box.root, { now: at(day) });
  expect(readdirSync(archiveDir())).toHaveLength(8);

  const result = await pruneArchives(box.root);

  expect(result.removed).toEqual([
    "wf_20261103T090000Z.tar.gz",
    "wf_20261102T090000Z.tar.gz",
    "wf_20261101T090000Z.tar.gz",
  ]);
  expect(readdirSync(archiveDir()).sort()).toEqual(
    [4, 5, 6, 7, 8].map((d) => `wf_202611${String(d).padStart(2, "0")}T090000Z.tar.gz`),
  );
  expect((await listArchives(box.root)).map((a) => a.created_at)).toEqual(
    [8, 7, 6, 5, 4].map((d) => at(d).toISOString().replace(".000Z", "Z")),
  );
});

test("retention: same-second archives are kept apart and ordered by their -N suffix", async () => {
  for (let i = 0; i < 12; i += 1) await createArchive(box.root, { now: at(1) });
  await pruneArchives(box.root, 5);
  expect(readdirSync(archiveDir()).sort()).toEqual(
    [8, 9, 10, 11, 12].map((n) => `wf_20261101T090000Z-${n}.tar.gz`).sort(),
  );
});

test("removes leftovers of killed archivers, restorers and clears", async () => {
  await createArchive(box.root, { now: at(1) });
  mkdirSync(archiveDir(), { recursive: true });
  writeFileSync(join(archiveDir(), ".partial-abc-wf_20261102T090000Z.tar.gz.partial"), "half");
  mkdirSync(join(archiveDir(), ".staging-x1/memory"), { recursive: true });
  mkdirSync(join(archiveDir(), ".restore-x2/memory"), { recursive: true });
  mkdirSync(join(archiveDir(), ".clear-x3/reports"), { recursive: true });

  const result = await pruneArchives(box.root);

  expect([...result.leftovers].sort()).toEqual([
    ".clear-x3",
    ".partial-abc-wf_20261102T090000Z.tar.gz.partial",
    ".restore-x2",
    ".staging-x1",
  ]);
  expect(readdirSync(archiveDir())).toEqual(["wf_20261101T090000Z.tar.gz"]);
});

test("leaves files that are not dotagent archives alone", async () => {
  for (const day of [1, 2, 3, 4, 5, 6]) await createArchive(box.root, { now: at(day) });
  writeFileSync(join(archiveDir(), "my-backup.tar.gz"), "mine");
  writeFileSync(join(archiveDir(), "README"), "mine");
  await pruneArchives(box.root);
  expect(existsSync(join(archiveDir(), "my-backup.tar.gz"))).toBe(true);
  expect(existsSync(join(archiveDir(), "README"))).toBe(true);
  expect(existsSync(join(archiveDir(), "wf_20261101T090000Z.tar.gz"))).toBe(false);
});

test("no archive folder is nothing to prune; a bad keep is a usage error", async () => {
  expect(await pruneArchives(box.root)).toEqual({ removed: [], leftovers: [] });
  await expect(pruneArchives(box.root, -1)).rejects.toMatchObject({ code: "usage", exitCode: 2 });
  await expect(pruneArchives(box.root, 1.5)).rejects.toMatchObject({ code: "usage" });
});
