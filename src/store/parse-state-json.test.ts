import { afterEach, describe, expect, it, vi } from "vitest";
import { decodeJsonBytes, type HeldElements } from "./parse-state-json.js";

const task = (i: number) => ({
  id: `task-${i}`,
  title: `Part ${i} \u00e9\u2192\ud83d\ude00 "},\\n    {" [x] {y}`,
  depends_on: i > 0 ? [`task-${i - 1}`] : [],
  nested: [{ a: [{}] }, { b: null }],
  output: null,
});
/** The same, its bytes ASCII (the usual file: each element read as latin1, not through UTF-8's decoder). */
const asciiTask = (i: number) => ({ ...task(i), title: `Part ${i} "},\\n    {" [x] {y} \\u00e9` });
/** Over 1 MiB pretty-printed: parsed in pieces when the layout allows. */
const tasks = (n = 4000, item: (i: number) => unknown = task) => Array.from({ length: n }, (_, i) => item(i));
const pretty = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

afterEach(() => vi.restoreAllMocks());

/**
 * decodeJsonBytes gives JSON.parse's value or JSON.parse's message, and how many JSON.parse calls
 * it made. Where it parsed in pieces, each element it holds is the value's own, frozen, and its
 * bytes are the element's JSON, with `,\n    ` between neighbours.
 */
function decoded(text: string) {
  const bytes = Buffer.from(text, "utf8");
  const parse = vi.spyOn(JSON, "parse");
  const result = decodeJsonBytes(bytes);
  const calls = parse.mock.calls.length;
  parse.mockRestore();
  let expected: unknown;
  try {
    expected = { ok: true, value: JSON.parse(text) };
  } catch (error) {
    expected = { ok: false, message: `not valid JSON (${(error as Error).message})` };
  }
  const { held, ...rest } = result as typeof result & { held?: HeldElements };
  expect(rest).toStrictEqual(expected);
  if (held !== undefined) {
    const array = Object.values((result as { value: Record<string, unknown> }).value).find(
      (member) => Array.isArray(member) && member.length === held.elements.length && member[0] === held.elements[0],
    ) as unknown[];
    expect(array).toBeDefined();
    for (let i = 0; i < held.elements.length; i++) {
      expect(array[i]).toBe(held.elements[i]);
      expect(Object.isFrozen(held.elements[i])).toBe(true);
      expect(JSON.parse(bytes.toString("utf8", held.starts[i], held.ends[i]))).toStrictEqual(held.elements[i]);
      if (i > 0) expect(bytes.toString("utf8", held.ends[i - 1], held.starts[i])).toBe(",\n    ");
    }
  }
  return calls;
}

describe("decodeJsonBytes: JSON.parse of the bytes' text", () => {
  it.each([
    ["bytes beyond ASCII", task],
    ["ASCII bytes", asciiTask],
  ])("parses a state file dotagent wrote in pieces, to the same value (%s)", (_name, item) => {
    const value = {
      workflow_id: "w",
      revision: 3,
      tasks: tasks(4000, item),
      isolation: { mode: "x", list: [{ a: 1 }, { b: 2 }] },
    };
    const text = pretty(value);
    expect(Buffer.byteLength(text) === text.length).toBe(item === asciiTask);
    expect(decoded(text)).toBeGreaterThan(10);
  });

  it("holds a list of the elements of its own: a change to the value's array leaves it as read", () => {
    const result = decodeJsonBytes(Buffer.from(pretty({ tasks: tasks() })));
    if (!result.ok || result.held === undefined) throw new Error("not parsed in pieces");
    const array = (result.value as { tasks: unknown[] }).tasks;
    const first = array[0];
    array.unshift({ id: "new" });
    expect(result.held.elements[0]).toBe(first);
    expect(result.held.elements).toHaveLength(array.length - 1);
  });

  it("freezes the elements parsed in pieces, every object and array in them", () => {
    const result = decodeJsonBytes(Buffer.from(pretty({ tasks: tasks() })));
    const first = (result as { value: { tasks: ReturnType<typeof task>[] } }).value.tasks[1]!;
    expect(Object.isFrozen(first.depends_on)).toBe(true);
    expect(Object.isFrozen(first.nested[0]!.a![0])).toBe(true);
    expect(() => {
      (first as { output: unknown }).output = "changed";
    }).toThrow(TypeError);
  });

  it("freezes an element nested deeper than any stack (JSON.parse takes any depth)", () => {
    const depth = 200_000;
    const text = pretty({ tasks: tasks() }).replace(
      '"output": null',
      `"output": ${"[".repeat(depth)}${"]".repeat(depth)}`,
    );
    const result = decodeJsonBytes(Buffer.from(text));
    if (!result.ok || result.held === undefined) throw new Error("not parsed in pieces");
    let inner = (result.held.elements[0] as { output: unknown[] }).output;
    for (let i = 1; i < depth; i++) inner = inner[0] as unknown[];
    expect(inner).toStrictEqual([]);
    expect(Object.isFrozen(inner)).toBe(true);
  });

  const whole: [string, string][] = [
    ["a small file", pretty({ tasks: tasks(3) })],
    ["no separators (one line)", JSON.stringify({ tasks: tasks() })],
    ["the array nested below the top level", pretty({ run: { tasks: tasks() } })],
    ["the array as the whole file", pretty(tasks())],
    ["the array's key twice", pretty({ tasks: tasks() }).replace('{\n  "tasks"', '{\n  "tasks": 1,\n  "tasks"')],
    ["the array's key again after it", pretty({ tasks: tasks() }).replace(/\n}\n$/, ',\n  "tasks": [1]\n}\n')],
    ["a __proto__ key", pretty({ ["__proto__"]: tasks() })],
    ["a second long array after it", pretty({ tasks: tasks(), more: tasks(10) })],
    ["a corrupt element", pretty({ tasks: tasks() }).replace('"task-2000"', '"task-2000" "x"')],
    ["a corrupt end", pretty({ tasks: tasks() }).replace(/\n}\n$/, "\n")],
    ["a corrupt start", `x${pretty({ tasks: tasks() })}`],
    ["a byte order mark", `\ufeff${pretty({ tasks: tasks() })}`],
    [
      "an element holding an array laid out as the top one",
      pretty({
        // Long enough, and often enough, that some cut falls inside one.
        tasks: tasks(4000, (i) => (i % 10 === 7 ? tasks(20, (j) => ({ x: j })) : task(i))),
      })
        .replace(/\[\n {6}\{/g, "[\n    {")
        .replace(/\},\n {6}\{/g, "},\n    {"),
    ],
  ];
  it.each(whole)("%s: the same value or message as JSON.parse", (_name, text) => {
    decoded(text);
  });

  it("parses pieces whatever else the file holds around the array", () => {
    const value = {
      ['a \\ " key']: "},\n    {",
      tasks: tasks(12000, (i) => (i % 2 === 0 ? task(i) : { toJSON: undefined, i })),
      after: { "[": "]", "{": ["}"] },
    };
    expect(decoded(pretty(value))).toBeGreaterThan(10);
  });
});
