import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sha256Hex, SMALL_BYTES } from "./sha256.js";

const nodeSha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const text = (s: string) => new TextEncoder().encode(s);

describe("sha256Hex", () => {
  it.each([
    ["", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
    ["abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
    [
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    ],
  ])("%j: the published digest", (input, digest) => {
    expect(sha256Hex(text(input))).toBe(digest);
  });

  // Every length around the padding's edges (55, 56, 63, 64 bytes of a block) and a few blocks on.
  it("equals node:crypto at every length up to 300 bytes", () => {
    const bytes = Uint8Array.from({ length: 300 }, (_, i) => (i * 131 + 7) & 0xff);
    for (let n = 0; n <= bytes.length; n++) expect(sha256Hex(bytes.subarray(0, n))).toBe(nodeSha(bytes.subarray(0, n)));
  });

  it("equals node:crypto on any bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), (bytes) => sha256Hex(bytes) === nodeSha(bytes)),
      { numRuns: 300 },
    );
  });

  it("equals node:crypto on a state file's size, up to where digestOf hands over", () => {
    const bytes = Uint8Array.from({ length: SMALL_BYTES }, (_, i) => (i * 7919) & 0xff);
    expect(sha256Hex(bytes)).toBe(nodeSha(bytes));
  });
});
