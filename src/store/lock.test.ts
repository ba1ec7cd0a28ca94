import { afterEach, describe, expect, it } from "vitest";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir, hostname } from "node:os";
import { join } from "node:path";
import { acquireLock, judgeLock, readLock } from "./lock.js";
import { DotagentError } from "../core/errors.js";

const dirs: string[] = [];
const fresh = () => {
  const d = mkdtempSync(join(tmpdir(), "dotagent-lock-"));
  dirs.push(d);
  return d;
};
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const NOW = new Date("2026-11-20T12:00:00Z");

describe("lock", () => {
  it("is created whole, holds pid/host/time/command/token, and is removed on release", () => {
    const dir = fresh();
    const lock = acquireLock(dir, { command: "task add" });
    const onDisk = JSON.parse(readFileSync(join(dir, ".lock"), "utf8"));
    expect(onDisk).toMatchObject({ pid: process.pid, hostname: hostname(), command: "task add" });
    expect(onDisk.token).toMatch(/^[0-9a-f]{16}$/);
    lock.release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it("a second taker in the same live process waits, then fails with exit 4", () => {
    const dir = fresh();
    const lock = acquireLock(dir, { command: "first" });
    try {
      expect(() => acquireLock(dir, { command: "second", waitMs: 50 })).toThrowError(DotagentError);
      try {
        acquireLock(dir, { command: "second", waitMs: 0 });
      } catch (error) {
        expect((error as DotagentError).exitCode).toBe(4);
        expect((error as DotagentError).message).toContain(`pid ${process.pid} on ${hostname()} (first`);
      }
    } finally {
      lock.release();
    }
  });

  it.each([
    ["unreadable", "{not json", true],
    [
      "dead pid on this host",
      JSON.stringify({
        pid: 2 ** 22 + 11,
        hostname: hostname(),
        acquired_at: NOW.toISOString(),
        command: "x",
        token: "a",
      }),
      true,
    ],
    [
      "live pid on this host",
      JSON.stringify({
        pid: process.pid,
        hostname: hostname(),
        acquired_at: "2020-01-01T00:00:00Z",
        command: "x",
        token: "a",
      }),
      false,
    ],
    [
      "other host within the lease",
      JSON.stringify({ pid: 1, hostname: "elsewhere", acquired_at: "2026-11-20T11:59:00Z", command: "x", token: "a" }),
      false,
    ],
    [
      "other host past the lease",
      JSON.stringify({ pid: 1, hostname: "elsewhere", acquired_at: "2026-11-20T11:00:00Z", command: "x", token: "a" }),
      true,
    ],
  ])("judges %s", (_name, content, stale) => {
    const dir = fresh();
    writeFileSync(join(dir, ".lock"), content);
    const lock = readLock(dir);
    expect(lock).not.toBeNull();
    expect(judgeLock(lock!, NOW, 10 * 60 * 1000).stale).toBe(stale);
  });

  it("takes over a stale lock with a warning and leaves no guard files", () => {
    const dir = fresh();
    writeFileSync(
      join(dir, ".lock"),
      JSON.stringify({
        pid: 2 ** 22 + 13,
        hostname: hostname(),
        acquired_at: NOW.toISOString(),
        command: "crashed",
        token: "old",
      }),
    );
    const lock = acquireLock(dir, { command: "next" });
    expect(lock.warnings[0]).toContain("process 4194317 is gone");
    expect(readLock(dir)).toMatchObject({ pid: process.pid, command: "next" });
    lock.release();
    expect(readdirSync(dir)).toEqual([]);
  });

  // Issue 15, case 5 and 12: no wait without a deadline, no lock that can never go stale.
  it("a dangling symbolic link at .lock is taken over (it is replaced, not followed)", () => {
    const dir = fresh();
    symlinkSync(join(dir, "nowhere"), join(dir, ".lock"));
    const warnings: string[] = [];
    const lock = acquireLock(dir, { command: "x", waitMs: 500, onWarning: (m) => warnings.push(m) });
    expect(lstatSync(join(dir, ".lock")).isFile()).toBe(true);
    expect(warnings[0]).toContain("unreadable lock");
    lock.release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it("a FIFO at .lock never blocks: it is an unreadable lock, taken over", () => {
    const dir = fresh();
    execFileSync("mkfifo", [join(dir, ".lock")]);
    const lock = acquireLock(dir, { command: "x", waitMs: 500 });
    expect(lstatSync(join(dir, ".lock")).isFile()).toBe(true);
    lock.release();
  });

  it("a folder at .lock ends in exit 4 within the deadline, never a spin", () => {
    const dir = fresh();
    mkdirSync(join(dir, ".lock"));
    writeFileSync(join(dir, ".lock", "x"), "");
    const started = Date.now();
    expect(() => acquireLock(dir, { command: "x", waitMs: 200 })).toThrow();
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("a lock from another host with an acquired_at in the future is stale, not held forever", () => {
    const future = { pid: 1, hostname: "elsewhere", acquired_at: "2999-01-01T00:00:00Z", command: "x", token: "t" };
    expect(judgeLock(future, NOW, 10 * 60 * 1000)).toMatchObject({ stale: true });
    const slightlyAhead = { ...future, acquired_at: "2026-11-20T12:02:00Z" };
    expect(judgeLock(slightlyAhead, NOW, 10 * 60 * 1000)).toEqual({ stale: false });
  });
});
