import { describe, expect, it } from "vitest";
import { encodeStateJson } from "./state-json.js";
import { handOn } from "./spare-buffer.js";

const stringified = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
const long = (item: (i: number) => unknown, n = 200) => Array.from({ length: n }, (_, i) => item(i));
const task = (i: number) => ({
  id: `task-${i}`,
  title: `Part ${i} \u00e9\u2192\ud83d\ude00 "quoted" \\ \n`,
  depends_on: i > 0 ? [`task-${i - 1}`] : [],
  attempts: 0,
  started_at: null,
  nested: { deep: [[{}], []], empty: {} },
});

describe("encodeStateJson: JSON.stringify(value, null, 2) and a newline, byte for byte", () => {
  const cases: [string, unknown][] = [
    ["a small object (stringified whole)", { a: 1, b: [1, 2], c: "x" }],
    [
      "a long array among other members",
      { workflow_id: "w", revision: 3, tasks: long(task), isolation: { mode: "x" } },
    ],
    ["the long array first and last", { tasks: long(task), other: long((i) => i) }],
    [
      "undefined, functions and symbols: left out of objects, null in arrays",
      {
        gone: undefined,
        fn: () => 1,
        sym: Symbol("s"),
        tasks: long((i) => [undefined, () => 1, Symbol("s"), i][i % 4]),
        last: undefined,
      },
    ],
    [
      "a toJSON in an element and a member, given its own key",
      {
        when: new Date(0),
        keyed: { toJSON: (key: string) => `member ${key}` },
        tasks: long((i) => (i % 3 === 0 ? { toJSON: (key: string) => `element ${key}` } : i)),
      },
    ],
    [
      "a toJSON leaving a member out",
      { tasks: long(() => ({ toJSON: () => undefined })), x: { toJSON: () => undefined } },
    ],
    ["a lone surrogate and a __proto__ key", { ["__proto__"]: { x: 1 }, tasks: long((i) => `\ud800${i}\udfff`) }],
    ["integer-like keys, in JSON.stringify's order", { b: 1, 2: "two", 1: "one", tasks: long((i) => i) }],
    ["an array of arrays", { tasks: long((i) => long((j) => i * j, 3)) }],
    [
      "a long array with a toJSON of its own (stringified whole)",
      {
        tasks: Object.assign(
          long((i) => i),
          { toJSON: () => "whole" },
        ),
      },
    ],
    [
      "a class instance (stringified whole)",
      new (class {
        tasks = long((i) => i);
      })(),
    ],
    ["no members left but the array", { tasks: long(() => null, 128) }],
  ];
  it.each(cases)("%s", (_name, value) => {
    expect(encodeStateJson(value).toString("utf8")).toBe(stringified(value));
  });

  it("fills the memory handed on, and grows past it when the value is larger", () => {
    const value = { tasks: long(task, 5000) };
    const expected = stringified(value);
    const small = Buffer.allocUnsafe(1024 * 1024 + 1);
    handOn(small);
    const grown = encodeStateJson(value);
    expect(grown.toString("utf8")).toBe(expected);
    const roomy = Buffer.allocUnsafe(4 * 1024 * 1024);
    handOn(roomy);
    const kept = encodeStateJson(value);
    expect(kept.buffer).toBe(roomy.buffer);
    expect(kept.toString("utf8")).toBe(expected);
  });
});
