// One named test per attack on restore. Each archive is written header by header (node-tar's
// Pack would sanitize these entries away), the test first proves the hostile entry really is in
// the archive, then asserts: refused with archive_unsafe (exit 3) naming the archive, the entry
// and why; the project (live state and every archive, byte for byte) and the folder outside the
// project unchanged; no temp folder left behind.
import { existsSync, lstatSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { DotagentError } from "../core/errors.js";
import { createArchive } from "./create-archive.js";
import type { ArchiveLimits } from "./entry-policy.js";
import { restoreArchive } from "./restore-archive.js";
import {
  buildTarGz,
  listRawEntries,
  makeSandbox,
  samplePhase,
  snapshotTree,
  writeLiveState,
  type RawEntry,
  type Sandbox,
} from "./test-support.js";

let box: Sandbox;
beforeEach(async () => {
  box = makeSandbox();
  writeLiveState(box.root, {
    phase: samplePhase("wf-live"),
    events: "{}\n",
    reports: { "demand.json": '{"live":true}' },
  });
  await createArchive(box.root, { now: new Date("2026-11-19T09:00:00Z") }); // an archive that must survive untouched
  writeFileSync(join(box.outside, "target"), "outside file");
});
afterEach(() => box.cleanup());

const NAME = "hostile_20261120T090000Z.tar.gz";
const archiveDir = (): string => join(box.root, "memory/state/.archive");
/** Benign entries first, so the attack comes mid-archive as it would in a real one. */
const BENIGN: RawEntry[] = [
  { path: "memory/state/phase.json", data: JSON.stringify(samplePhase("wf-evil")) },
  { path: "memory/reports/", type: "Directory" },
  { path: "memory/reports/demand.json", data: "{}" },
];

async function writeHostile(
  entries: RawEntry[],
): Promise<Array<{ path: string; type: string; linkpath: string | undefined }>> {
  writeFileSync(join(archiveDir(), NAME), buildTarGz([...BENIGN, ...entries]));
  return (await listRawEntries(join(archiveDir(), NAME))).map(({ path, type, linkpath }) => ({ path, type, linkpath }));
}

async function expectRefused(reason: string, limits?: Partial<ArchiveLimits>): Promise<DotagentError> {
  const project = snapshotTree(box.root);
  const outside = snapshotTree(box.outside);
  const error: unknown = await restoreArchive(box.root, NAME, {
    now: new Date("2026-11-21T09:00:00Z"),
    ...(limits ? { limits } : {}),
  }).then(
    () => new Error("restore was expected to refuse"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DotagentError);
  expect(error).toMatchObject({ code: "archive_unsafe", exitCode: 3 });
  const message = (error as Error).message;
  expect(message).toContain(NAME);
  expect(message).toContain(reason);
  expect(snapshotTree(box.root)).toEqual(project);
  expect(snapshotTree(box.outside)).toEqual(outside);
  expect(readdirSync(archiveDir()).filter((name) => name.startsWith("."))).toEqual([]);
  return error as DotagentError;
}

test("`..` in a path (memory/state/../../evil) is refused, not rewritten", async () => {
  expect(await writeHostile([{ path: "memory/state/../../evil", data: "pwned" }])).toContainEqual({
    path: "memory/state/../../evil",
    type: "File",
    linkpath: undefined,
  });
  const error = await expectRefused("contains '..'");
  expect(error.details).toMatchObject({ entry: "memory/state/../../evil" });
  expect(existsSync(join(box.root, "evil"))).toBe(false);
});

test("`..` climbing out of the project (memory/reports/../../../outside/evil) is refused", async () => {
  expect(
    (await writeHostile([{ path: "memory/reports/../../../outside/evil", data: "pwned" }])).map((e) => e.path),
  ).toContain("memory/reports/../../../outside/evil");
  await expectRefused("contains '..'");
  expect(existsSync(join(box.outside, "evil"))).toBe(false);
});

test("an absolute path is refused, not stripped", async () => {
  const target = join(box.outside, "evil");
  expect((await writeHostile([{ path: target, data: "pwned" }])).map((e) => e.path)).toContain(target);
  await expectRefused("is an absolute path");
  expect(existsSync(target)).toBe(false);
});

test("a symlink pointing outside the project is refused", async () => {
  expect(
    await writeHostile([{ path: "memory/reports/link", type: "SymbolicLink", linkpath: box.outside }]),
  ).toContainEqual({
    path: "memory/reports/link",
    type: "SymbolicLink",
    linkpath: box.outside,
  });
  await expectRefused("is a symbolic link");
});

test("a hard link to a file outside the project is refused", async () => {
  const target = join(box.outside, "target");
  expect(await writeHostile([{ path: "memory/reports/hard", type: "Link", linkpath: target }])).toContainEqual({
    path: "memory/reports/hard",
    type: "Link",
    linkpath: target,
  });
  await expectRefused("is a hard link");
  expect(lstatSync(target).nlink).toBe(1);
});

test("a symlink and then a file written through it (memory/reports/l -> outside, memory/reports/l/pwned) is refused", async () => {
  const entries = await writeHostile([
    { path: "memory/reports/l", type: "SymbolicLink", linkpath: box.outside },
    { path: "memory/reports/l/pwned", data: "pwned" },
  ]);
  expect(entries.map((e) => e.path)).toEqual(expect.arrayContaining(["memory/reports/l", "memory/reports/l/pwned"]));
  await expectRefused('"memory/reports/l" is a symbolic link');
  expect(existsSync(join(box.outside, "pwned"))).toBe(false);
});

test("a character device entry is refused", async () => {
  expect((await writeHostile([{ path: "memory/reports/null", type: "CharacterDevice" }])).map((e) => e.type)).toContain(
    "CharacterDevice",
  );
  await expectRefused("is a device");
});

test("a FIFO entry is refused", async () => {
  expect((await writeHostile([{ path: "memory/reports/pipe", type: "FIFO" }])).map((e) => e.type)).toContain("FIFO");
  await expectRefused("is a FIFO");
});

test("an entry type node-tar would silently skip is refused", async () => {
  await writeHostile([{ path: "memory/reports/sparse", type: "SparseFile", data: "x" }]);
  await expectRefused("entry type dotagent does not restore");
});

test("an oversized entry is refused before it is extracted", async () => {
  expect(await writeHostile([{ path: "memory/reports/huge.json", data: Buffer.alloc(4096, 0x20) }])).toContainEqual({
    path: "memory/reports/huge.json",
    type: "File",
    linkpath: undefined,
  });
  await expectRefused("is 4096 bytes (limit 1024)", { maxEntrySize: 1024 });
});

test("too-deep nesting is refused", async () => {
  const deep = `memory/reports/${"d/".repeat(40)}x`;
  expect((await writeHostile([{ path: deep, data: "x" }])).map((e) => e.path)).toContain(deep);
  await expectRefused("folders deep (limit 32)");
});

test("too many entries are refused", async () => {
  await writeHostile(Array.from({ length: 20 }, (_, i) => ({ path: `memory/reports/r${i}.json`, data: "{}" })));
  await expectRefused("limit 10 entries", { maxEntries: 10 });
});

test("an entry outside memory/ (a git hook) is refused", async () => {
  expect(
    (await writeHostile([{ path: ".git/hooks/pre-commit", data: "#!/bin/sh\nrm -rf ~\n", mode: 0o755 }])).map(
      (e) => e.path,
    ),
  ).toContain(".git/hooks/pre-commit");
  await expectRefused("is outside what an archive may hold");
});

test("a state-folder entry that is not a state file (memory/state/.lock, .archive/) is refused", async () => {
  await writeHostile([{ path: "memory/state/.archive/planted_20991231T000000Z.tar.gz", data: "x" }]);
  await expectRefused("is outside what an archive may hold");
});

test("a path through a file of the archive (memory/reports/a, then memory/reports/a/b) is refused", async () => {
  await writeHostile([
    { path: "memory/reports/a", data: "file" },
    { path: "memory/reports/a/b", data: "through" },
  ]);
  await expectRefused("which is a file in the archive");
});

test("a path that appears twice (a later entry overwriting an earlier one) is refused", async () => {
  await writeHostile([{ path: "memory/state/phase.json", data: "{}" }]);
  await expectRefused("appears twice");
});

test("a symlink already on disk is never written through nor removed unarchived: restore refuses, the outside stays untouched", async () => {
  // Not an attack in the archive (a plain file under memory/reports/l/), but a trap on disk.
  symlinkSync(box.outside, join(box.root, "memory/reports/l"));
  writeFileSync(join(archiveDir(), NAME), buildTarGz([...BENIGN, { path: "memory/reports/l/pwned", data: "pwned" }]));
  const outside = snapshotTree(box.outside);

  await expect(restoreArchive(box.root, NAME, { now: new Date("2026-11-21T09:00:00Z") })).rejects.toMatchObject({
    code: "not_archivable",
    details: { path: "memory/reports/l" },
  });

  expect(snapshotTree(box.outside)).toEqual(outside);
  expect(lstatSync(join(box.root, "memory/reports/l")).isSymbolicLink()).toBe(true);
  expect(existsSync(join(box.outside, "pwned"))).toBe(false);
  expect(readdirSync(archiveDir()).filter((name) => name.startsWith("."))).toEqual([]);
});

// Issue 15, case 6: bytes inflated and time are bounded; reading stops at the end of the tar.
describe("archives that inflate far beyond their size", () => {
  /** `count` gzip members of 64 MiB of one byte each: ~64 KiB on disk per 64 MiB inflated. */
  const lowEntropy = (count: number): Buffer => {
    const member = gzipSync(Buffer.alloc(64 * 1024 * 1024, "A"), { level: 9 });
    return Buffer.concat(Array.from({ length: count }, () => member));
  };

  test("a valid tar followed by a 3 GiB trailer is read only up to the end of the tar", async () => {
    const manifestless = buildTarGz(BENIGN);
    writeFileSync(join(archiveDir(), NAME), Buffer.concat([manifestless, lowEntropy(48)]));
    const started = Date.now();
    const result = await restoreArchive(box.root, NAME, { now: new Date("2026-11-21T09:00:00Z") });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(result.restored.name).toBe(NAME);
    expect(readdirSync(archiveDir()).filter((name) => name.startsWith("."))).toEqual([]);
  }, 600_000);

  test("2 GiB of inflated zeros is refused at once: an archive with no files", async () => {
    const zeros = gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
    writeFileSync(join(archiveDir(), NAME), Buffer.concat(Array.from({ length: 32 }, () => zeros)));
    const project = snapshotTree(box.root);
    await expect(restoreArchive(box.root, NAME, { now: new Date("2026-11-21T09:00:00Z") })).rejects.toMatchObject({
      code: "archive_invalid",
    });
    expect(snapshotTree(box.root)).toEqual(project);
  }, 600_000);
});
