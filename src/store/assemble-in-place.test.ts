import { describe, expect, it } from "vitest";
import { assembleInPlace, type Piece } from "./assemble-in-place.js";

/** What the pieces make, assembled the plain way from a copy of the memory. */
function expected(memory: Buffer, pieces: readonly Piece[]): Buffer {
  const source = Buffer.from(memory);
  return Buffer.concat(
    pieces.map((p) => ("from" in p ? source.subarray(p.from, p.from + p.len) : Buffer.from(p.bytes))),
  );
}

/** Whether a buffer starts where the memory does (small buffers share the pool's ArrayBuffer). */
const inMemory = (out: Buffer, memory: Buffer) => out.buffer === memory.buffer && out.byteOffset === memory.byteOffset;

/** A deterministic pseudo-random sequence (a seed per case, so a failure names its case). */
function random(seed: number): (n: number) => number {
  let s = seed >>> 0 || 1;
  return (n) => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s % n;
  };
}

/** The memory (`used` bytes of content, room past them) and pieces copying runs of it in order with new bytes between. */
function arrangement(seed: number): { memory: Buffer; pieces: Piece[] } {
  const next = random(seed);
  const used = 20 + next(400);
  const memory = Buffer.alloc(used + next(60));
  for (let i = 0; i < memory.length; i++) memory[i] = i < used ? 65 + (i % 26) : 0x2e;
  const pieces: Piece[] = [];
  let at = 0;
  while (at < used) {
    at += next(3) === 0 ? next(20) : 0; // a run left out
    const len = Math.min(used - at, next(40));
    if (len > 0 && next(4) !== 0) pieces.push({ from: at, len });
    at += len;
    if (next(2) === 0) pieces.push({ bytes: Buffer.from("0123456789abcdefghij".slice(0, next(21))) });
  }
  return { memory, pieces };
}

describe("assembleInPlace: the pieces one after another, in the memory they come from", () => {
  const table: [string, string, Piece[], string][] = [
    ["nothing changed", "abcdef..", [{ from: 0, len: 6 }], "abcdef"],
    [
      "a piece grows: the rest moves right",
      "ab-cd...",
      [{ from: 0, len: 2 }, { bytes: Buffer.from("XYZ") }, { from: 3, len: 2 }],
      "abXYZcd",
    ],
    [
      "a piece shrinks: the rest moves left",
      "ab---cd.",
      [{ from: 0, len: 2 }, { bytes: Buffer.from("X") }, { from: 5, len: 2 }],
      "abXcd",
    ],
    [
      "growth then shrinking: moves both ways",
      "a-bc---de..",
      [
        { from: 0, len: 1 },
        { bytes: Buffer.from("XYZ") },
        { from: 2, len: 2 },
        { bytes: Buffer.from("") },
        { from: 7, len: 2 },
      ],
      "aXYZbcde",
    ],
    ["the start left out", "xxabc...", [{ from: 2, len: 3 }], "abc"],
    ["only new bytes", "abc", [{ bytes: Buffer.from("new") }], "new"],
  ];
  it.each(table)("%s", (_name, start, pieces, result) => {
    const memory = Buffer.from(start);
    const out = assembleInPlace(memory, pieces);
    expect(out.toString()).toBe(result);
    expect(inMemory(out, memory)).toBe(true);
  });

  it("makes a new buffer when the pieces do not fit in the memory", () => {
    const memory = Buffer.from("abcd");
    const out = assembleInPlace(memory, [{ from: 0, len: 2 }, { bytes: Buffer.from("XYZ") }, { from: 2, len: 2 }]);
    expect(out.toString()).toBe("abXYZcd");
    expect(inMemory(out, memory)).toBe(false);
    expect(memory.toString()).toBe("abcd");
  });

  it("refuses copies out of order, overlapping or past the memory", () => {
    const memory = Buffer.from("abcdef");
    for (const pieces of [
      [
        { from: 3, len: 1 },
        { from: 1, len: 1 },
      ],
      [
        { from: 0, len: 3 },
        { from: 2, len: 1 },
      ],
      [{ from: 4, len: 3 }],
    ])
      expect(() => assembleInPlace(memory, pieces)).toThrow(RangeError);
  });

  it("equals the plain concatenation for 2,000 random arrangements", () => {
    let inPlace = 0;
    for (let seed = 1; seed <= 2000; seed++) {
      const { memory, pieces } = arrangement(seed);
      const want = expected(memory, pieces);
      const out = assembleInPlace(memory, pieces);
      if (!out.equals(want)) throw new Error(`seed ${seed}: ${out.toString()} is not ${want.toString()}`);
      if (inMemory(out, memory)) inPlace++;
    }
    // Most arrangements fit (the case the write is for); the rest took the new-buffer path.
    expect(inPlace).toBeGreaterThan(1000);
    expect(inPlace).toBeLessThan(2000);
  });
});
