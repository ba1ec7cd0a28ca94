import { describe, expect, it } from "vitest";
import { outputWidth, table } from "./table.js";

describe("table", () => {
  it("pads every column but the last to its widest cell, under a header", () => {
    expect(
      table(
        ["REV", "TIME", "WHAT"],
        [
          ["1", "2026-11-20 10:30 UTC", "workflow started"],
          ["12", "2026-11-20 10:31 UTC", "REQUIREMENTS approved"],
        ],
      ),
    ).toEqual([
      "REV  TIME                  WHAT",
      "1    2026-11-20 10:30 UTC  workflow started",
      "12   2026-11-20 10:31 UTC  REQUIREMENTS approved",
    ]);
  });

  it("cuts a line longer than the width with …, so an 80-column terminal never wraps", () => {
    const lines = table(["ID", "WHAT"], [["1", "x".repeat(200)]], 80);
    expect(lines[1]).toHaveLength(80);
    expect(lines[1]!.endsWith("…")).toBe(true);
    expect(lines[0]).toBe("ID  WHAT");
  });

  it("no header-only trailing spaces", () => {
    expect(table(["A", "B"], [["long cell", ""]])).toEqual(["A          B", "long cell"]);
  });
});

describe("outputWidth", () => {
  it.each([
    [{ isTTY: true, columns: 80 }, 80],
    [{ isTTY: true, columns: 20 }, 40],
    [{ isTTY: true }, 80],
    [{ isTTY: false, columns: 80 }, Number.POSITIVE_INFINITY],
    [{}, Number.POSITIVE_INFINITY],
  ])("%j → %d", (stream, width) => expect(outputWidth(stream)).toBe(width));
});
