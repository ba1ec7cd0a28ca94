import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "./sha256.js";

const nodeSha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

describe("sha256Hex: node:crypto's SHA-256 without loading node:crypto", () => {
  it("gives FIPS 180-4's digests of its examples", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")).toBe(
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    );
  });

  it("equals node:crypto at every length around the block and padding edges", () => {
    for (let n = 0; n <= 200; n++) expect(sha256Hex("x".repeat(n)), `length ${n}`).toBe(nodeSha256("x".repeat(n)));
  });

  it("equals node:crypto on any text, paths and characters beyond ASCII included", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 300 }),
          fc.string({ unit: "grapheme", maxLength: 100 }),
          fc.string({ unit: "binary", maxLength: 100 }),
        ),
        (text) => {
          expect(sha256Hex(text)).toBe(nodeSha256(text));
        },
      ),
      { numRuns: 500 },
    );
  });
});
