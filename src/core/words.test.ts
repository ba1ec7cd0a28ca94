import { expect, it } from "vitest";
import { controlCharacterIn, count, formatDuration, oneLine } from "./words.js";

it.each([
  [0, "task", undefined, "0 tasks"],
  [1, "task", undefined, "1 task"],
  [2, "task", undefined, "2 tasks"],
  [1, "report file", undefined, "1 report file"],
  [1, "settings file", undefined, "1 settings file"],
  [2, "problem", undefined, "2 problems"],
  [3, "dead task", undefined, "3 dead tasks"],
  [2, "entry", "entries", "2 entries"],
] as const)("count(%i, %s)", (n, one, many, text) => expect(count(n, one, many)).toBe(text));

it.each([
  [0, "0.0s"],
  [-5, "0.0s"],
  [Number.NaN, "0.0s"],
  [420, "0.4s"],
  [9_999, "9.9s"],
  [12_300, "12s"],
  [59_999, "59s"],
  [185_000, "3m 05s"],
  [3_725_000, "1h 02m"],
] as const)("formatDuration(%d) is %s", (ms, text) => expect(formatDuration(ms)).toBe(text));

it("oneLine: someone's words in one line of a message, controls shown, cut with …", () => {
  expect(oneLine("  tests\n  fail\t here ", 80)).toBe("tests fail here");
  expect(oneLine("a\u001b]0;x\u0007b", 80)).toBe("a\\u001b]0;x\\u0007b");
  expect(oneLine("abcdef   ghij", 8)).toBe("abcdef…");
  expect(oneLine("", 10)).toBe("");
});

it.each([
  ["npm test", null],
  ["echo a\techo b\necho c", null],
  ["naïve — 日本語 😀 \u200f", null],
  ["a\u0000b", "U+0000 at character 2"],
  ["\u001b[2J", "U+001B at character 1"],
  ["x\r", "U+000D at character 2"],
  ["\u007f", "U+007F at character 1"],
  ["\u009b", "U+009B at character 1"],
  ["a\u2028", "U+2028 at character 2"],
  ["\u202e", "U+202E at character 1"],
  ["\u2066", "U+2066 at character 1"],
] as const)("controlCharacterIn(%j) is %s", (text, found) => expect(controlCharacterIn(text)).toBe(found));
