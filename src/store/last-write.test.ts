import { afterEach, describe, expect, it } from "vitest";
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { projectPaths, type ProjectPaths } from "./project.js";
import { adoptLiveFiles, findHandEdits, isLastWrite, LAST_WRITE, recordingWrite } from "./last-write.js";
import { readStateFileSync, stampOf } from "./state-files.js";
import type { StateSnapshot } from "../core/snapshot.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function project(): ProjectPaths {
  const root = mkdtempSync(join(tmpdir(), "dotagent-last-write-"));
  dirs.push(root);
  const paths = projectPaths(root);
  mkdirSync(paths.stateDir, { recursive: true });
  return paths;
}

/** The reads a snapshot holds (kind, stamp and the digest of the bytes read matter here). */
function reads(paths: ProjectPaths): [StateSnapshot["phase"], StateSnapshot["execution"]] {
  const read = (file: string, rel: string) =>
    stampOf(file) === "missing"
      ? { kind: "missing" as const, file: rel }
      : { kind: "corrupt" as const, file: rel, stamp: stampOf(file), sha256: sha(readFileSync(file)), problems: [] };
  return [
    read(paths.phaseFile, "memory/state/phase.json"),
    read(paths.executionFile, "memory/state/execution.json"),
  ] as never;
}
const edits = (paths: ProjectPaths) => findHandEdits(paths, ...reads(paths));
const write = (file: string, text: string) =>
  recordingWrite(join(file, "../../.."), file, Buffer.from(text), () => writeFileSync(file, text));
const sha = (bytes: string | Buffer) => createHash("sha256").update(bytes).digest("hex");

/** Rewrites a file through its own descriptor (same inode) and puts its mtime back to the nanosecond (GNU touch): only its bytes differ. */
function rewriteKeepingStamp(file: string, text: string): void {
  const before = statSync(file, { bigint: true });
  expect(Buffer.byteLength(text)).toBe(Number(before.size));
  const fd = openSync(file, "r+");
  writeSync(fd, text, 0);
  closeSync(fd);
  const ns = before.mtimeNs;
  const touched = spawnSync("touch", [
    "-m",
    "-d",
    `@${ns / 1_000_000_000n}.${String(ns % 1_000_000_000n).padStart(9, "0")}`,
    file,
  ]);
  expect(touched.status).toBe(0);
  expect(stampOf(file)).toBe(`${before.ino}:${before.size}:${before.mtimeNs}`);
}

describe("last write: what dotagent wrote, and what it did not", () => {
  it("a file as dotagent wrote it is no hand edit; other bytes in it are, named by file", () => {
    const paths = project();
    write(paths.phaseFile, '{"a":1}\n');
    write(paths.executionFile, '{"b":1}\n');
    expect(edits(paths)).toEqual([]);
    writeFileSync(paths.executionFile, '{"b":2}\n');
    expect(edits(paths)).toEqual(["memory/state/execution.json"]);
  });

  it("hand edit: other bytes under the very stamp dotagent left (same inode, size and mtime) are named: content, not stamps", () => {
    const paths = project();
    write(paths.executionFile, '{"tasks":[{"status":"pending"}]} \n');
    write(paths.phaseFile, '{"a":1}\n');
    rewriteKeepingStamp(paths.executionFile, '{"tasks":[{"status":"complete"}]}\n');
    expect(edits(paths)).toEqual(["memory/state/execution.json"]);
  });

  it("hand edit: a reader that read a file as dotagent replaced it (old bytes, the record already naming the new) names nothing", () => {
    const paths = project();
    write(paths.phaseFile, '{"a":1}\n');
    const [oldRead, execution] = reads(paths);
    write(paths.phaseFile, '{"a":2}\n');
    expect(findHandEdits(paths, oldRead, execution)).toEqual([]);
    writeFileSync(paths.phaseFile, '{"a":3}\n'); // and once the live bytes are not dotagent's, they are named
    expect(findHandEdits(paths, oldRead, execution)).toEqual(["memory/state/phase.json"]);
  });

  it("hand edit: a state held in memory (no bytes read from disk) is not judged", () => {
    const paths = project();
    write(paths.phaseFile, '{"a":1}\n');
    writeFileSync(paths.phaseFile, '{"a":9}\n');
    const held = { kind: "ok" as const, file: "memory/state/phase.json", value: {}, stamp: "held" };
    expect(findHandEdits(paths, held as never, { kind: "missing", file: "memory/state/execution.json" })).toEqual([]);
  });

  it("hand edit: a write cut off before the rename, or after it before the record names the new bytes, claims nothing", () => {
    const paths = project();
    write(paths.phaseFile, '{"a":1}\n');
    write(paths.executionFile, '{"b":1}\n');
    expect(() =>
      recordingWrite(paths.root, paths.phaseFile, Buffer.from('{"a":2}\n'), () => {
        throw new Error("killed");
      }),
    ).toThrow("killed");
    expect(edits(paths)).toEqual([]);
    writeFileSync(paths.phaseFile, '{"a":2}\n'); // …or the rename landed and the second record did not
    expect(edits(paths)).toEqual([]);
    writeFileSync(paths.executionFile, '{"b":2}\n'); // the other file is still known
    expect(edits(paths)).toEqual(["memory/state/execution.json"]);
  });

  it("hand edit: a torn, foreign or missing record claims nothing", () => {
    const paths = project();
    write(paths.phaseFile, '{"a":1}\n');
    writeFileSync(paths.phaseFile, '{"a":9}\n');
    expect(edits(paths)).toEqual(["memory/state/phase.json"]);
    for (const record of [
      "",
      '{"format":1,"fi',
      '{"format":2,"files":{}}',
      '{"format":1,"files":{"phase.json":{"sha256":"x"}}}',
    ]) {
      writeFileSync(join(paths.stateDir, LAST_WRITE), record);
      expect(edits(paths), record).toEqual([]);
    }
    rmSync(join(paths.stateDir, LAST_WRITE));
    expect(edits(paths)).toEqual([]);
  });

  it("adopting the live files makes them dotagent's; isLastWrite compares a checkpoint's checksums with the last write", () => {
    const paths = project();
    write(paths.phaseFile, '{"a":1}\n');
    expect(isLastWrite(paths.stateDir, { "phase.json": sha('{"a":1}\n'), "execution.json": null })).toBe(true);
    expect(isLastWrite(paths.stateDir, { "phase.json": sha('{"a":0}\n'), "execution.json": null })).toBe(false);
    writeFileSync(paths.phaseFile, '{"a":5}\n');
    adoptLiveFiles(paths.root, paths.stateDir);
    expect(edits(paths)).toEqual([]);
    expect(JSON.parse(readFileSync(join(paths.stateDir, LAST_WRITE), "utf8")).files["phase.json"].sha256).toEqual([
      sha('{"a":5}\n'),
    ]);
    rmSync(join(paths.stateDir, LAST_WRITE));
    expect(isLastWrite(paths.stateDir, { "phase.json": sha('{"a":5}\n'), "execution.json": null })).toBeNull();
  });
});

describe("last write: the stamp, which spares a reader the hash of a file as dotagent left it", () => {
  const record = (paths: ProjectPaths) => join(paths.stateDir, LAST_WRITE);
  /** What a reader takes as the digest of the bytes it read (state-files.ts). */
  const digestRead = (file: string) =>
    readStateFileSync(join(file, "../../.."), file, (value) => ({ ok: true, value })) as { sha256?: string | null };
  /** The record as if written a second after now: no stamp in it is racy. */
  const recordLater = (paths: ProjectPaths) => {
    const later = Date.now() / 1000 + 1;
    utimesSync(record(paths), later, later);
  };
  /** Puts `digest` into the record as the execution.json's sha256 (the stamp kept): a reader that returns it did not hash. */
  const forgeDigest = (paths: ProjectPaths, digest: string, stamp?: string, { later = true } = {}) => {
    const held = JSON.parse(readFileSync(record(paths), "utf8"));
    held.files["execution.json"].sha256 = [digest];
    if (stamp !== undefined) held.files["execution.json"].stamp = stamp;
    writeFileSync(record(paths), JSON.stringify(held));
    if (later) recordLater(paths);
  };
  const FORGED = "0".repeat(64);

  it("a file as dotagent left it (device, inode, size, mtime and ctime) is taken by the recorded digest, not hashed", () => {
    const paths = project();
    write(paths.executionFile, '{"b":1}\n');
    const stamp = JSON.parse(readFileSync(record(paths), "utf8")).files["execution.json"].stamp as string;
    const s = statSync(paths.executionFile, { bigint: true });
    expect(stamp).toBe(`n1:${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`);
    forgeDigest(paths, FORGED);
    expect(digestRead(paths.executionFile).sha256).toBe(FORGED);
  });

  it("hand edit: rewritten in place at the same size with its mtime put back: the ctime moved, so it is hashed and named", () => {
    const paths = project();
    write(paths.executionFile, '{"tasks":[{"status":"pending"}]} \n');
    // A record written a tick of the filesystem's clock later (no forged times): the stamp is trusted…
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 25);
    forgeDigest(paths, FORGED, undefined, { later: false });
    expect(digestRead(paths.executionFile).sha256).toBe(FORGED);
    // …until the file is rewritten in place, after that record, whatever its inode, size and mtime say.
    rewriteKeepingStamp(paths.executionFile, '{"tasks":[{"status":"complete"}]}\n');
    const read = digestRead(paths.executionFile);
    expect(read.sha256).toBe(sha('{"tasks":[{"status":"complete"}]}\n'));
    expect(findHandEdits(paths, { kind: "missing", file: "memory/state/phase.json" }, read as never)).toEqual([
      "memory/state/execution.json",
    ]);
  });

  it("racy: a stamp whose ctime is not before the record's own write time is not trusted, nor a stamp of an older version: hashed", () => {
    const paths = project();
    write(paths.executionFile, '{"b":1}\n');
    forgeDigest(paths, FORGED);
    const ctime = Number(statSync(paths.executionFile, { bigint: true }).ctimeNs / 1_000_000n) / 1000;
    utimesSync(record(paths), ctime - 1, ctime - 1);
    expect(digestRead(paths.executionFile).sha256).toBe(sha('{"b":1}\n'));
    const s = statSync(paths.executionFile, { bigint: true });
    forgeDigest(paths, FORGED, `${s.ino}:${s.size}:${s.mtimeNs}`);
    expect(digestRead(paths.executionFile).sha256).toBe(sha('{"b":1}\n'));
  });

  it("a record from another clone (the files copied: other device or inode) still verifies by hash", () => {
    const paths = project();
    write(paths.phaseFile, '{"a":1}\n');
    write(paths.executionFile, '{"b":1}\n');
    recordLater(paths);
    const other = project();
    for (const name of ["phase.json", "execution.json", LAST_WRITE])
      writeFileSync(join(other.stateDir, name), readFileSync(join(paths.stateDir, name)));
    recordLater(other);
    expect(digestRead(other.executionFile).sha256).toBe(sha('{"b":1}\n'));
    const reads = [digestRead(other.phaseFile), digestRead(other.executionFile)] as never as [never, never];
    expect(findHandEdits(other, ...reads)).toEqual([]);
  });

  it("a record rewritten for the other file keeps a stamp's bound: the time of the record that first named it", () => {
    const paths = project();
    write(paths.executionFile, '{"b":1}\n');
    const first = statSync(record(paths), { bigint: true }).mtimeNs;
    write(paths.phaseFile, '{"a":1}\n');
    const files = JSON.parse(readFileSync(record(paths), "utf8")).files;
    expect(files["execution.json"].stamp).toMatch(new RegExp(`^n1(:\\d+){5}:${first}$`));
    expect(files["phase.json"].stamp).toMatch(/^n1(:\d+){5}$/);
  });
});
