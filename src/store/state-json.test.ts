import { describe, expect, it } from "vitest";
import { encodeStateJson } from "./state-json.js";
import { handOn, roomFor } from "./spare-buffer.js";
import { decodeJsonBytes } from "./parse-state-json.js";

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

describe("encodeStateJson after a read in pieces: the elements read copied, the rest encoded, the same bytes", () => {
  type State = { workflow_id: string; revision: number; tasks: Record<string, unknown>[]; plans?: unknown[] };
  const changed = (t: Record<string, unknown>, status: string) => ({ ...t, status });
  /** How each case changes the value read (a copy of its array: the elements read are frozen). */
  const changes: [string, (s: State) => State][] = [
    ["nothing but the revision", (s) => ({ ...s, revision: s.revision + 1 })],
    [
      "one element replaced",
      (s) => ({ ...s, tasks: s.tasks.map((t, i) => (i === 2500 ? changed(t, "complete") : t)) }),
    ],
    [
      "the first and the last replaced",
      (s) => ({ ...s, tasks: s.tasks.map((t, i, a) => (i === 0 || i === a.length - 1 ? changed(t, "x") : t)) }),
    ],
    [
      "an element longer by a lot",
      (s) => ({ ...s, tasks: s.tasks.map((t, i) => (i === 10 ? { ...t, title: "y".repeat(100_000) } : t)) }),
    ],
    ["elements shorter", (s) => ({ ...s, tasks: s.tasks.map((t, i) => (i % 500 === 0 ? { id: t.id } : t)) })],
    ["elements added at the end", (s) => ({ ...s, tasks: [...s.tasks, { id: "new-1" }, { id: "new-2" }] })],
    ["an element taken out", (s) => ({ ...s, tasks: s.tasks.filter((_, i) => i !== 1234) })],
    [
      "two elements swapped",
      (s) => ({ ...s, tasks: s.tasks.map((t, i, a) => (i === 5 ? a[3000]! : i === 3000 ? a[5]! : t)) }),
    ],
    ["the order reversed", (s) => ({ ...s, tasks: [...s.tasks].reverse() })],
    ["an element twice", (s) => ({ ...s, tasks: [...s.tasks.slice(0, 100), s.tasks[50]!, ...s.tasks.slice(100)] })],
    ["a member added before the array", (s) => ({ plans: [{ round: 1 }], ...s })],
    ["every element new", (s) => ({ ...s, tasks: s.tasks.map((t) => ({ ...t })) })],
    [
      "non-ASCII text in a new element",
      (s) => ({ ...s, tasks: s.tasks.map((t, i) => (i === 7 ? { ...t, title: "\u00e9\ud83d\ude00" } : t)) }),
    ],
  ];
  it.each(changes)("%s", (_name, change) => {
    const before: State = { workflow_id: "w", revision: 1, tasks: long(task, 4000) as Record<string, unknown>[] };
    const text = stringified(before);
    // As the state file read does it: into memory with room past the bytes, then handed on.
    const memory = Buffer.allocUnsafe(Buffer.byteLength(text) + roomFor(Buffer.byteLength(text)));
    const bytes = memory.subarray(0, memory.write(text, "utf8"));
    const read = decodeJsonBytes(bytes);
    if (!read.ok || read.held === undefined) throw new Error("not read in pieces");
    handOn(bytes, read.held);
    const after = change(read.value as State);
    const want = stringified(after);
    const written = encodeStateJson(after);
    expect(written.toString("utf8")).toBe(want);
    if (Buffer.byteLength(want) <= memory.length) expect(written.buffer).toBe(memory.buffer);
  });

  it("copies nothing from memory the read's elements no longer lie in", () => {
    const before = { tasks: long(task, 4000) };
    const text = stringified(before);
    const bytes = Buffer.from(text);
    const read = decodeJsonBytes(bytes);
    if (!read.ok || read.held === undefined) throw new Error("not read in pieces");
    handOn(bytes, read.held);
    // Another large read hands on other memory with nothing held: the first read's elements are
    // encoded, not copied from memory that is not theirs.
    const other = Buffer.alloc(text.length + 10, 0x20);
    handOn(other);
    expect(encodeStateJson(read.value).toString("utf8")).toBe(text);
  });
});
