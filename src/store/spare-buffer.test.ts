import { describe, expect, it } from "vitest";
import { handOn, roomFor, takeBuffer } from "./spare-buffer.js";

const MiB = 1024 * 1024;

describe("spare-buffer", () => {
  it("hands a large read's memory to the next buffer taken, once", () => {
    const read = Buffer.allocUnsafe(2 * MiB + 10).subarray(0, 2 * MiB);
    handOn(read);
    const first = takeBuffer(2 * MiB + 5);
    expect(first.buffer).toBe(read.buffer);
    expect(first.byteOffset).toBe(0);
    expect(first.length).toBe(2 * MiB + 5);
    expect(takeBuffer(2 * MiB).buffer).not.toBe(read.buffer);
  });

  it("makes a new buffer when the memory handed on is too small, and lets that memory go", () => {
    const read = Buffer.allocUnsafe(2 * MiB);
    handOn(read);
    const big = takeBuffer(3 * MiB);
    expect(big.buffer).not.toBe(read.buffer);
    expect(big.length).toBe(3 * MiB);
    expect(takeBuffer(MiB).buffer).not.toBe(read.buffer);
  });

  it("keeps no small buffer (it may share the pool's memory)", () => {
    const large = Buffer.allocUnsafe(2 * MiB);
    handOn(large);
    handOn(Buffer.from("{}\n"));
    // A small buffer taken (phase.json) leaves the spare for a large one.
    expect(takeBuffer(10).buffer).not.toBe(large.buffer);
    expect(takeBuffer(MiB).buffer).toBe(large.buffer);
  });

  it("reads large files with room to grow, small ones without", () => {
    expect(roomFor(100)).toBe(0);
    expect(roomFor(4 * MiB)).toBeGreaterThanOrEqual(4096);
  });
});
