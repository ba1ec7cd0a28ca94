import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CODE_CACHE_DIR, cacheGroup, codeCacheFile, readCodeCache, writeCodeCache } from "./code-cache.js";

let dir: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "dotagent-code-cache-"));
  env = { DOTAGENT_STATE_HOME: join(dir, "state") };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const KEY = "0.1.0-0123456789abcdef";
const blobDir = () => join(dir, "state", CODE_CACHE_DIR);

describe("cacheGroup", () => {
  it.each([
    [["status", "--json"], "status"],
    [["hook", "session-start"], "hook-session-start"],
    [["hook"], "hook"],
    [["hook", "../x"], "hook"],
    [["--version"], "other"],
    [[], "other"],
    [["../../etc"], "other"],
    [["a".repeat(40)], "other"],
  ])("%j → %s", (argv, group) => expect(cacheGroup(argv)).toBe(group));
});

describe("codeCacheFile", () => {
  it("names a blob per build, Node version, architecture and command, in the state folder", () => {
    expect(codeCacheFile(KEY, ["status"], env)).toBe(
      join(blobDir(), `${KEY}-${process.version}-${process.arch}-status.bin`),
    );
  });
  it("keeps the blobs in the folder DOTAGENT_CODE_CACHE names when it is an absolute path", () => {
    expect(codeCacheFile(KEY, ["status"], { ...env, DOTAGENT_CODE_CACHE: "/x/y" })).toBe(
      `/x/y/${KEY}-${process.version}-${process.arch}-status.bin`,
    );
    expect(codeCacheFile(KEY, ["status"], { ...env, DOTAGENT_CODE_CACHE: "rel" })).toBe(
      join(blobDir(), `${KEY}-${process.version}-${process.arch}-status.bin`),
    );
  });
  it("is off with DOTAGENT_CODE_CACHE=0, and for a key that is no plain key", () => {
    expect(codeCacheFile(KEY, ["status"], { ...env, DOTAGENT_CODE_CACHE: "0" })).toBeNull();
    expect(codeCacheFile("../x", ["status"], env)).toBeNull();
  });
});

describe("writeCodeCache and readCodeCache", () => {
  const file = () => codeCacheFile(KEY, ["status"], env)!;

  it("round-trips a blob: the folder 0700, the file 0600, no temp left", () => {
    expect(writeCodeCache(file(), Buffer.from("blob"), KEY)).toBe(true);
    expect(readCodeCache(file())?.toString()).toBe("blob");
    expect(statSync(blobDir()).mode & 0o777).toBe(0o700);
    expect(statSync(file()).mode & 0o777).toBe(0o600);
    expect(readdirSync(blobDir())).toEqual([file().split("/").at(-1)]);
  });

  it("reads a blob into the memory it is handed when it fits, else into a buffer of its own", () => {
    expect(writeCodeCache(file(), Buffer.from("blob"), KEY)).toBe(true);
    const scratch = Buffer.alloc(8, ".");
    const fitted = readCodeCache(file(), scratch)!;
    expect(fitted.toString()).toBe("blob");
    expect(scratch.toString()).toBe("blob....");
    scratch.write("B");
    expect(fitted.toString()).toBe("Blob"); // the same memory, no copy
    const small = Buffer.alloc(3, ".");
    const own = readCodeCache(file(), small)!;
    expect(own.toString()).toBe("blob");
    expect(small.toString()).toBe("...");
  });

  it("reads nothing through a link, from a folder or from an empty file", () => {
    mkdirSync(blobDir(), { recursive: true });
    writeFileSync(join(dir, "elsewhere"), "planted");
    symlinkSync(join(dir, "elsewhere"), file());
    expect(readCodeCache(file())).toBeUndefined();
    rmSync(file());
    mkdirSync(file());
    expect(readCodeCache(file())).toBeUndefined();
    rmSync(file(), { recursive: true });
    writeFileSync(file(), "");
    expect(readCodeCache(file())).toBeUndefined();
    expect(readCodeCache(join(dir, "missing.bin"))).toBeUndefined();
  });

  it("replaces a link at the blob's name and leaves its target alone", () => {
    mkdirSync(blobDir(), { recursive: true });
    writeFileSync(join(dir, "target"), "keep me");
    symlinkSync(join(dir, "target"), file());
    expect(writeCodeCache(file(), Buffer.from("new"), KEY)).toBe(true);
    expect(readFileSync(join(dir, "target"), "utf8")).toBe("keep me");
    expect(readCodeCache(file())?.toString()).toBe("new");
  });

  it("writes nothing when the cache folder is a link (to anywhere)", () => {
    mkdirSync(join(dir, "state"), { recursive: true });
    mkdirSync(join(dir, "other"));
    symlinkSync(join(dir, "other"), blobDir());
    expect(writeCodeCache(file(), Buffer.from("blob"), KEY)).toBe(false);
    expect(readdirSync(join(dir, "other"))).toEqual([]);
  });

  it("removes other builds' blobs and temps a kill left, keeps this build's newest 32", () => {
    mkdirSync(blobDir(), { recursive: true });
    writeFileSync(join(blobDir(), "0.0.9-ffffffffffffffff-v20-x64-status.bin"), "old build");
    const old = Date.now() / 1000 - 3600;
    writeFileSync(join(blobDir(), `${KEY}-v20-x64-status.bin.1.x.tmp`), "cut off");
    utimesSync(join(blobDir(), `${KEY}-v20-x64-status.bin.1.x.tmp`), old, old);
    writeFileSync(join(blobDir(), `${KEY}-v20-x64-fresh.bin.2.y.tmp`), "being written");
    for (let i = 0; i < 40; i++) {
      const name = join(blobDir(), `${KEY}-v20-x64-cmd${i}.bin`);
      writeFileSync(name, "b");
      utimesSync(name, old + i, old + i);
    }
    expect(writeCodeCache(file(), Buffer.from("blob"), KEY)).toBe(true);
    const left = readdirSync(blobDir());
    expect(left.filter((n) => n.endsWith(".bin"))).toHaveLength(32);
    expect(left).toContain(file().split("/").at(-1));
    expect(left).toContain(`${KEY}-v20-x64-cmd39.bin`);
    expect(left).not.toContain(`${KEY}-v20-x64-cmd0.bin`);
    expect(left).not.toContain("0.0.9-ffffffffffffffff-v20-x64-status.bin");
    expect(left).not.toContain(`${KEY}-v20-x64-status.bin.1.x.tmp`);
    expect(left).toContain(`${KEY}-v20-x64-fresh.bin.2.y.tmp`);
  });

  it("writes nothing empty", () => {
    expect(writeCodeCache(file(), Buffer.alloc(0), KEY)).toBe(false);
  });
});
