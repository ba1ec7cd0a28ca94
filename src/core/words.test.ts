import { expect, it } from "vitest";
import { count } from "./words.js";

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
