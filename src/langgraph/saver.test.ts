import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { Annotation, END, MemorySaver, Send, START, StateGraph, interrupt, Command } from "@langchain/langgraph";
import {
  ERROR,
  JsonPlusSerializer,
  compareWritesSortKeys,
  emptyCheckpoint,
  uuid6,
  type Checkpoint,
  type CheckpointMetadata,
} from "@langchain/langgraph-checkpoint";
import type { RunnableConfig } from "@langchain/core/runnables";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { failure, tempFolders } from "../api/test-support.js";
import { DotagentSaver } from "./saver.js";
import { compareCodePoints, namespaceFolder, sortWrites } from "./thread-files.js";
import { LOG_FILE, encodeAppend, parseRecordLine, type LogRecord } from "./thread-log.js";
import { threadFolderName } from "./thread-names.js";

const fresh = tempFolders("dotagent-lg-");
/** A write's lease on its thread ends 10 ms after the writes pause: a later timer fires after it. */
const pause = () => new Promise((resolve) => setTimeout(resolve, 50));
const META: CheckpointMetadata = { source: "loop", step: 0, parents: {} };

function checkpoint(id: string, values: Record<string, unknown>, versions: Record<string, number>): Checkpoint {
  return {
    v: 4,
    id,
    ts: "2026-01-01T00:00:00.000Z",
    channel_values: values,
    channel_versions: versions,
    versions_seen: {},
  };
}
const at = (thread: string, id?: string, ns = "") => ({
  configurable: { thread_id: thread, checkpoint_ns: ns, ...(id === undefined ? {} : { checkpoint_id: id }) },
});
/** The records of a log, in order (damaged lines left out). */
const records = (file: string): LogRecord[] =>
  readFileSync(file)
    .toString("latin1")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => parseRecordLine(Buffer.from(l, "latin1")))
    .filter((r): r is LogRecord => typeof r !== "string");

describe("DotagentSaver on disk", () => {
  it("one folder per thread holding its log: a record per put and per putWrites, every value in its checkpoint's record; no lock once writes pause", async () => {
    const dir = join(fresh(), "lg");
    const saver = new DotagentSaver(dir);
    const c1 = await saver.put(at("t1"), checkpoint("c1", { a: "A", big: "B" }, { a: 1, big: 1 }), META, {
      a: 1,
      big: 1,
    });
    const c2 = await saver.put(
      c1,
      checkpoint("c2", { a: "A2", big: "B" }, { a: 2, big: 1 }),
      { ...META, step: 1 },
      { a: 2 },
    );
    await saver.putWrites(c2, [["a", "next"]], "task-1", "~path");
    await saver.put(at("t1", undefined, "sub:1"), checkpoint("s1", {}, {}), META, {});
    expect(readdirSync(join(dir, "t1"))).toContain(".lock"); // held while writes follow one another
    await pause();
    expect(readdirSync(dir)).toEqual(["t1"]);
    expect(readdirSync(join(dir, "t1"))).toEqual([LOG_FILE]);
    const log = records(join(dir, "t1", LOG_FILE));
    expect(log.map((r) => [r.kind, r.ns, r.id])).toEqual([
      ["put", "", "c1"],
      ["put", "", "c2"],
      ["writes", "", "c2"],
      ["put", "sub:1", "s1"],
    ]);
    // c2 holds the value it carries over from c1 too: a read is one record.
    const c2Record = log[1] as Extract<LogRecord, { kind: "put" }>;
    expect(c2Record.parent).toBe("c1");
    const text = (v: { type: string; bytes: Uint8Array }) => [v.type, Buffer.from(v.bytes).toString("utf8")];
    expect(Object.entries(c2Record.values).map(([c, v]) => [c, v.version, ...text(v.value)])).toEqual([
      ["a", 2, "json", '"A2"'],
      ["big", 1, "json", '"B"'],
    ]);
    const w = log[2] as Extract<LogRecord, { kind: "writes" }>;
    expect([w.task_id, w.task_path, w.writes.map((x) => [x.idx, x.channel, ...text(x.value)])]).toEqual([
      "task-1",
      "~path",
      [[0, "a", "json", '"next"']],
    ]);
    // The serializer's bytes are in the line as they are (JSON holds no line break), not escaped.
    expect(readFileSync(join(dir, "t1", LOG_FILE), "utf8")).toContain('\t{"v":4,"id":"c2"');
    const tuple = await saver.getTuple(at("t1"));
    expect(tuple?.checkpoint.channel_values).toEqual({ a: "A2", big: "B" });
    expect(tuple?.pendingWrites).toEqual([["task-1", "a", "next"]]);
  });

  it("list reads a long thread in batches through one buffer: every tuple it gave keeps its own values after later batches", async () => {
    const saver = new DotagentSaver(fresh());
    let config: RunnableConfig = at("long");
    for (let n = 0; n < 150; n++)
      config = await saver.put(
        config,
        checkpoint(`c${String(n).padStart(3, "0")}`, { text: `value ${n} `.repeat(50), n }, { text: n + 1, n: n + 1 }),
        { ...META, step: n },
        { text: n + 1, n: n + 1 },
      );
    const tuples = [];
    for await (const t of new DotagentSaver(saver.dir).list(at("long"))) tuples.push(t);
    expect(tuples.map((t) => t.checkpoint.channel_values)).toEqual(
      Array.from({ length: 150 }, (_, k) => ({ text: `value ${149 - k} `.repeat(50), n: 149 - k })),
    );
  });

  it("reads create nothing; a missing folder, thread or checkpoint reads as nothing", async () => {
    const dir = join(fresh(), "none");
    const saver = new DotagentSaver(dir);
    expect(await saver.getTuple(at("t"))).toBeUndefined();
    expect(await saver.getTuple(at("t", "c1"))).toBeUndefined();
    const all = [];
    for await (const t of saver.list({})) all.push(t);
    expect(all).toEqual([]);
    await saver.deleteThread("t");
    expect(existsSync(dir)).toBe(false);
  });

  it("a fork keeps its own values: a channel version written on two branches reads as each branch wrote it", async () => {
    const saver = new DotagentSaver(fresh());
    const root = await saver.put(at("t"), checkpoint("c1", { a: "base", b: 0 }, { a: 1, b: 1 }), META, { a: 1, b: 1 });
    const main = await saver.put(root, checkpoint("c2", { a: "main", b: 0 }, { a: 2, b: 1 }), META, { a: 2 });
    const fork = await saver.put(root, checkpoint("c3", { a: "fork", b: 0 }, { a: 2, b: 1 }), META, { a: 2 });
    const after = await saver.put(main, checkpoint("c4", { a: "main", b: 1 }, { a: 2, b: 2 }), META, { b: 2 });
    expect((await saver.getTuple(after))?.checkpoint.channel_values).toEqual({ a: "main", b: 1 });
    expect((await saver.getTuple(fork))?.checkpoint.channel_values).toEqual({ a: "fork", b: 0 });
    expect((await saver.getTuple(at("t")))?.checkpoint.id).toBe("c4");
  });

  it("a channel named __proto__ or constructor is a channel like any other", async () => {
    const saver = new DotagentSaver(fresh());
    const values = JSON.parse('{"__proto__": {"polluted": true}, "constructor": 2, "a": 3}') as Record<string, unknown>;
    const c1 = await saver.put(
      at("t"),
      checkpoint("c1", values, { ["__proto__"]: 1, constructor: 1, a: 1 }),
      META,
      JSON.parse('{"__proto__": 1, "constructor": 1, "a": 1}') as Record<string, number>,
    );
    const c2 = await saver.put(
      c1,
      checkpoint(
        "c2",
        { ...values, a: 4 },
        JSON.parse('{"__proto__": 1, "constructor": 1, "a": 2}') as Record<string, number>,
      ),
      META,
      { a: 2 },
    );
    const read = (await saver.getTuple(c2))!.checkpoint.channel_values;
    expect(Object.keys(read).sort()).toEqual(["__proto__", "a", "constructor"]);
    expect(Object.getOwnPropertyDescriptor(read, "__proto__")?.value).toEqual({ polluted: true });
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("keeps a serializer's bytes exactly, binary ones too", async () => {
    const serde = {
      dumpsTyped: async (value: unknown): Promise<[string, Uint8Array]> =>
        value instanceof Uint8Array ? ["bytes", value] : ["json", new TextEncoder().encode(JSON.stringify(value))],
      loadsTyped: async (type: string, data: Uint8Array | string) =>
        type === "bytes"
          ? new Uint8Array(data as Uint8Array)
          : JSON.parse(new TextDecoder().decode(data as Uint8Array)),
    };
    const dir = fresh();
    const saver = new DotagentSaver(dir, { serde });
    const blob = new Uint8Array([0xff, 0x00, 0xfe, 0x80]);
    const config = await saver.put(
      at("t"),
      checkpoint("c1", { blob, text: "héllo \u{1F600}" }, { blob: 1, text: 1 }),
      META,
      { blob: 1, text: 1 },
    );
    expect((await saver.getTuple(config))?.checkpoint.channel_values).toEqual({ blob, text: "héllo \u{1F600}" });
    const blobValue = (records(join(dir, "t", LOG_FILE))[0] as Extract<LogRecord, { kind: "put" }>).values.blob!;
    expect([blobValue.value.type, [...blobValue.value.bytes]]).toEqual(["bytes", [0xff, 0x00, 0xfe, 0x80]]);
    // Bytes holding a line break go in as base64, so a line stays one record.
    const withBreak = new Uint8Array([0x0a, 0x0d, 0x0a]);
    const c2 = await saver.put(
      config,
      checkpoint("c2", { blob: withBreak, text: "héllo \u{1F600}" }, { blob: 2, text: 1 }),
      META,
      { blob: 2 },
    );
    expect((await new DotagentSaver(dir, { serde }).getTuple(c2))?.checkpoint.channel_values).toEqual({
      blob: withBreak,
      text: "héllo \u{1F600}",
    });
  });
});

describe("DotagentSaver's pending writes", () => {
  it("writes of 20 tasks at once in one process: none lost; ordinary writes are insert-or-ignore, special ones replace", async () => {
    const saver = new DotagentSaver(fresh());
    const config = await saver.put(at("t"), checkpoint("c1", {}, {}), META, {});
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        saver.putWrites(
          config,
          [
            ["x", i],
            ["y", `y${i}`],
          ],
          `task-${String(i).padStart(2, "0")}`,
        ),
      ),
    );
    await saver.putWrites(config, [["x", "again"]], "task-00"); // the same (task, idx): ignored
    await saver.putWrites(config, [[ERROR, "first"]], "task-01");
    await saver.putWrites(config, [[ERROR, "second"]], "task-01"); // a task's error: replaced
    const writes = (await saver.getTuple(config))!.pendingWrites!;
    expect(writes.length).toBe(41);
    expect(writes.slice(0, 2)).toEqual([
      ["task-00", "x", 0],
      ["task-00", "y", "y0"],
    ]);
    expect(writes.filter(([task, channel]) => task === "task-01" && channel === ERROR)).toEqual([
      ["task-01", ERROR, "second"],
    ]);
    // (task_path, task_id, idx) order: the error (idx -1) before the task's ordinary writes.
    expect(writes.filter(([task]) => task === "task-01").map(([, channel]) => channel)).toEqual([ERROR, "x", "y"]);
  });

  it("orders writes as LangGraph's compareWritesSortKeys does, astral characters included", () => {
    const text = fc.string({ unit: fc.constantFrom("a", "b", "é", "\u{1F600}", "\uFFFF", "\uD800"), maxLength: 4 });
    fc.assert(
      fc.property(
        fc.array(fc.record({ task_path: text, task_id: text, idx: fc.integer({ min: -4, max: 4 }) }), {
          maxLength: 12,
        }),
        (writes) => {
          const ours = sortWrites(writes);
          const theirs = [...writes].sort((a, b) =>
            compareWritesSortKeys([a.task_path, a.task_id, a.idx], [b.task_path, b.task_id, b.idx]),
          );
          expect(ours).toEqual(theirs);
        },
      ),
    );
    expect(compareCodePoints("\uFFFF", "\u{1F600}")).toBe(-1); // UTF-16 order would say the opposite
  });
});

describe("namespaceFolder", () => {
  it.each([
    ["", "root"],
    ["node:1ef-ab", "ns-node%3A1ef-ab"],
    ["Outer|inner", "ns-%4Futer%7Cinner"],
    ["../../etc", "ns-%2E%2E%2F%2E%2E%2Fetc"],
    ["é", "ns-%C3%A9"],
  ])("%j → %s", (ns, folder) => expect(namespaceFolder(ns)).toBe(folder));

  it("a long namespace is cut and completed by its hash; two long ones sharing a start differ", () => {
    const a = namespaceFolder(`${"x".repeat(150)}:1`);
    const b = namespaceFolder(`${"x".repeat(150)}:2`);
    expect(a.length).toBeLessThan(90);
    expect(a).not.toBe(b);
  });
});

describe("DotagentSaver with a real LangGraph graph", () => {
  const State = Annotation.Root({
    log: Annotation<string[]>({ reducer: (all, next) => [...all, ...next], default: () => [] }),
    total: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
  });
  const inner = new StateGraph(State)
    .addNode("deep", () => ({ log: ["deep"], total: 100 }))
    .addEdge(START, "deep")
    .addEdge("deep", END)
    .compile();
  function build(checkpointer: DotagentSaver | MemorySaver) {
    return new StateGraph(State)
      .addNode("plan", () => ({ log: ["plan"] }))
      .addNode("work", (s: { total: number }) => ({ log: [`work ${s.total}`], total: 1 }))
      .addNode("sub", inner)
      .addNode("ask", () => ({ log: [`asked ${String(interrupt("go on?"))}`] }))
      .addEdge(START, "plan")
      .addConditionalEdges("plan", () => [new Send("work", { total: 1 }), new Send("work", { total: 2 }), "sub"])
      .addEdge("work", "ask")
      .addEdge("sub", "ask")
      .addEdge("ask", END)
      .compile({ checkpointer });
  }

  it("a graph with parallel sends, a subgraph and an interrupt runs, pauses and resumes as with MemorySaver", async () => {
    const results = [];
    for (const checkpointer of [new MemorySaver(), new DotagentSaver(fresh())]) {
      const graph = build(checkpointer);
      const config = { configurable: { thread_id: "run-1" } };
      await graph.invoke({ log: ["start"] }, config);
      const paused = await graph.getState(config);
      // A second saver on the same folder (a restarted program) resumes where the first stopped.
      const again = checkpointer instanceof DotagentSaver ? build(new DotagentSaver(checkpointer.dir)) : graph;
      const done = await again.invoke(new Command({ resume: "yes" }), config);
      const history = [];
      for await (const snapshot of again.getStateHistory(config)) history.push(snapshot.metadata?.step);
      results.push({ next: paused.next, done, history });
    }
    expect(results[0]!.done.log).toContain("asked yes");
    expect(results[1]).toEqual(results[0]);
  });
});

describe("DotagentSaver takes any string as a thread id", () => {
  const ids = [
    "user@example.com",
    "user:42",
    "a b",
    "../x",
    "..",
    "",
    "-rf",
    "con",
    "Run",
    "run",
    "RUN",
    "a/b\\c",
    "\u00e9t\u00e9",
    "e\u0301te\u0301",
    "\u{1F600}",
    "x".repeat(5000),
    `${"x".repeat(150)}1`,
    `${"x".repeat(150)}2`,
  ];
  it("each id its own folder inside the saver's folder, its checkpoints apart from every other's, listed and deleted by its id", async () => {
    const dir = fresh();
    const saver = new DotagentSaver(join(dir, "lg"));
    for (const [n, id] of ids.entries())
      await saver.put(at(id), checkpoint(`c${n}`, { who: id }, { who: 1 }), META, { who: 1 });
    expect(readdirSync(dir)).toEqual(["lg"]);
    const folders = readdirSync(join(dir, "lg"));
    expect(folders.length).toBe(ids.length);
    // No two names differ only in case (a case-insensitive disk keeps them apart too), all plain ASCII, none hidden.
    expect(new Set(folders.map((f) => f.toLowerCase())).size).toBe(ids.length);
    for (const f of folders) expect(f).toMatch(/^[a-z0-9_%~][A-Za-z0-9_%~-]{0,99}$/);
    for (const [n, id] of ids.entries()) {
      const tuple = await saver.getTuple(at(id));
      expect([
        tuple?.checkpoint.id,
        tuple?.checkpoint.channel_values.who,
        tuple?.config.configurable?.thread_id,
      ]).toEqual([`c${n}`, id, id]);
    }
    const listed = [];
    for await (const t of saver.list({})) listed.push(t.config.configurable?.thread_id);
    expect(listed.sort()).toEqual([...ids].sort());
    await saver.deleteThread("../x");
    await saver.deleteThread("");
    expect(await saver.getTuple(at("../x"))).toBeUndefined();
    expect(await saver.getTuple(at(""))).toBeUndefined();
    expect((await saver.getTuple(at("..")))?.checkpoint.id).toBe("c4");
    expect(readdirSync(join(dir, "lg")).length).toBe(ids.length - 2);
  });

  it.each([
    ["abc-123_x", "abc-123_x"],
    ["1ef6a9c0-0b8e-6d3e-8000-0123456789ab", "1ef6a9c0-0b8e-6d3e-8000-0123456789ab"],
    ["Run", "%52un"],
    ["user@example.com", "user%40example%2Ecom"],
    ["a b", "a%20b"],
    ["../x", "%2E%2E%2Fx"],
    ["", "%"],
    ["-rf", "%2Drf"],
    ["con", "%63on"],
    ["é", "%C3%A9"],
  ])("%j → %s", (id, name) => expect(threadFolderName(id)).toBe(name));

  it("a very long id: cut, completed by its hash, two such ids apart", () => {
    const [a, b] = [threadFolderName(`${"x".repeat(150)}1`), threadFolderName(`${"x".repeat(150)}2`)];
    expect(a.length).toBeLessThanOrEqual(100);
    expect(a).not.toBe(b);
  });
});

describe("DotagentSaver refuses what it cannot keep, with one line", () => {
  it.each<[string, () => Promise<unknown>, string]>([
    [
      "a numeric thread id",
      () => new DotagentSaver(fresh()).put({ configurable: { thread_id: 7 } }, checkpoint("c1", {}, {}), META, {}),
      "thread_id must be a string, not 7",
    ],
    [
      "a numeric thread id to deleteThread",
      () => new DotagentSaver(fresh()).deleteThread(7 as unknown as string),
      "thread_id must be a string, not 7",
    ],
    [
      "a checkpoint without an id",
      () => new DotagentSaver(fresh()).put(at("t"), checkpoint("", {}, {}), META, {}),
      "checkpoint.id must be a non-empty string",
    ],
    [
      "putWrites without a checkpoint id",
      () => new DotagentSaver(fresh()).putWrites(at("t"), [["a", 1]], "task"),
      "checkpoint_id is missing",
    ],
    [
      "put without configurable",
      () => new DotagentSaver(fresh()).put({}, checkpoint("c1", {}, {}), META, {}),
      "config.configurable is missing",
    ],
  ])("%s: usage (exit 2)", async (_what, call, words) => {
    const err = await failure(Promise.resolve().then(call));
    expect([err.code, err.exitCode]).toEqual(["usage", 2]);
    expect(err.message).toContain(words);
    expect(err.message).not.toContain("\n");
  });

  it("bad constructor arguments: usage at once", () => {
    expect(() => new DotagentSaver("")).toThrowError(/non-empty string/);
    expect(() => new DotagentSaver("x", { lockWaitMs: Number.NaN })).toThrowError(
      /lockWaitMs takes a number of milliseconds/,
    );
  });
});

describe("DotagentSaver confines damage to what is damaged", () => {
  async function saved(): Promise<{ dir: string; log: string; saver: DotagentSaver }> {
    const dir = join(fresh(), "lg"); // what a test plants beside the saver's folder stays in the test's own
    const saver = new DotagentSaver(dir);
    const c1 = await saver.put(at("t"), checkpoint("c1", { a: 1, b: 2 }, { a: 1, b: 1 }), META, { a: 1, b: 1 });
    const c2 = await saver.put(c1, checkpoint("c2", { a: 3, b: 2 }, { a: 2, b: 1 }), META, { a: 2 });
    await saver.putWrites(c2, [["a", 4]], "task");
    const c3 = await saver.put(c2, checkpoint("c3", { a: 5, b: 2 }, { a: 3, b: 1 }), META, { a: 3 });
    await saver.putWrites(c3, [["a", 6]], "task");
    return { dir, log: join(dir, "t", LOG_FILE), saver };
  }
  const lines = (log: string) => readFileSync(log, "latin1").split("\n");
  const ids = async (saver: DotagentSaver, config: RunnableConfig = at("t")) => {
    const out = [];
    for await (const t of saver.list(config)) out.push(t.checkpoint.id);
    return out;
  };
  const warnings = async <T>(body: () => Promise<T>): Promise<[T, string[]]> => {
    const seen: string[] = [];
    const on = (w: Error) => seen.push(w.message);
    process.on("warning", on);
    try {
      const result = await body();
      await new Promise((r) => setImmediate(r)); // warnings are emitted on the next tick
      return [result, seen];
    } finally {
      process.off("warning", on);
    }
  };

  it("a record cut short by a kill (a torn tail): skipped; what came before reads, and the next put starts a line of its own", async () => {
    const { dir, log } = await saved();
    const empty = { type: "json", bytes: Buffer.from("{}") };
    const whole = encodeAppend({
      kind: "put",
      thread: "t",
      ns: "",
      id: "c4",
      parent: "c3",
      saved_at: new Date().toISOString(),
      checkpoint: empty,
      metadata: empty,
      values: {},
    });
    appendFileSync(log, whole.subarray(0, whole.length - 30));
    const saver = new DotagentSaver(dir);
    expect((await saver.getTuple(at("t")))?.checkpoint.id).toBe("c3");
    await saver.put(at("t", "c3"), checkpoint("c5", { a: 7, b: 2 }, { a: 4, b: 1 }), META, { a: 4 });
    const again = new DotagentSaver(dir);
    expect(await ids(again)).toEqual(["c5", "c3", "c2", "c1"]);
    expect((await again.getTuple(at("t")))?.checkpoint.channel_values).toEqual({ a: 7, b: 2 });
  });

  it("a damaged record in the middle (a byte changed): only its checkpoint is gone; later ones that carry its values read whole", async () => {
    const { dir, log } = await saved();
    const text = lines(log);
    const c1 = text.findIndex((l) => l.includes('"c1"'));
    text[c1] = text[c1]!.replace('\\"b\\"', '\\"B\\"').replace('"b"', '"B"');
    writeFileSync(log, text.join("\n"), "latin1");
    const saver = new DotagentSaver(dir);
    expect(await ids(saver)).toEqual(["c3", "c2"]);
    expect((await saver.getTuple(at("t", "c3")))?.checkpoint.channel_values).toEqual({ a: 5, b: 2 });
    expect(await saver.getTuple(at("t", "c1"))).toBeUndefined();
  });

  it("a value the serializer cannot load: reading that checkpoint names the log, the checkpoint and a way out; list passes it by with a warning; the others read", async () => {
    const { dir, log } = await saved();
    const text = lines(log);
    const c2 = text.findIndex((l) => l.startsWith("") && l.includes('"put","t","","c2"'));
    const record = parseRecordLine(Buffer.from(text[c2]!, "latin1"));
    if (typeof record === "string" || record.kind !== "put") throw new Error(record as string);
    const broken = encodeAppend({
      ...record,
      values: { ...record.values, a: { version: 2, value: { type: "json", bytes: Buffer.from("{3") } } },
    });
    text[c2] = broken.toString("latin1").trim();
    writeFileSync(log, text.join("\n"), "latin1");
    const saver = new DotagentSaver(dir);
    const err = await failure(saver.getTuple(at("t", "c2")));
    expect([err.code, err.exitCode]).toEqual(["checkpoint_invalid", 3]);
    expect(err.message).toContain(`${log} (checkpoint "c2" at byte `);
    expect(err.message).toContain('values["a"]: the serializer cannot load it');
    expect(err.message).toContain('read an earlier checkpoint (getTuple with its checkpoint_id), or deleteThread("t")');
    expect(err.message).not.toContain("\n");
    const [listed, seen] = await warnings(() => ids(saver));
    expect(listed).toEqual(["c3", "c1"]);
    expect(seen).toEqual([expect.stringContaining("list passed by a checkpoint it cannot read: " + log)]);
    expect((await saver.getTuple(at("t")))?.checkpoint.channel_values).toEqual({ a: 5, b: 2 });
    // A put whose parent is that checkpoint keeps the values LangGraph passed.
    await saver.put(at("t", "c2"), checkpoint("c4", { a: 3, b: 2, c: 1 }, { a: 2, b: 1, c: 1 }), META, { c: 1 });
    expect((await saver.getTuple(at("t", "c4")))?.checkpoint.channel_values).toEqual({ a: 3, b: 2, c: 1 });
  });

  it.each<[string, (dir: string) => void, string, string]>([
    [
      "the log is a link",
      (dir) => {
        writeFileSync(join(dir, "..", "victim.txt"), "the victim's bytes");
        rmSync(join(dir, "t", LOG_FILE));
        symlinkSync(join(dir, "..", "victim.txt"), join(dir, "t", LOG_FILE));
      },
      join("t", LOG_FILE),
      "is a symbolic link",
    ],
    [
      "the log is a folder",
      (dir) => {
        rmSync(join(dir, "t", LOG_FILE));
        mkdirSync(join(dir, "t", LOG_FILE));
      },
      join("t", LOG_FILE),
      "is a folder",
    ],
    [
      "the thread's folder is a file",
      (dir) => {
        rmSync(join(dir, "t"), { recursive: true });
        writeFileSync(join(dir, "t"), "{}");
      },
      "t",
      "is not a real folder (a file)",
    ],
    [
      "the thread's folder is a link",
      (dir) => {
        mkdirSync(join(dir, "..", "elsewhere"), { recursive: true });
        rmSync(join(dir, "t"), { recursive: true });
        symlinkSync(join(dir, "..", "elsewhere"), join(dir, "t"));
      },
      "t",
      "is not a real folder (a link)",
    ],
  ])(
    "%s: reads and writes name it (exit 3), deleteThread (the way out named) works, listing every thread passes it by",
    async (_what, damage, name, words) => {
      const { dir, saver } = await saved();
      await saver.put(at("other"), checkpoint("o1", {}, {}), META, {});
      damage(dir);
      const fresh = new DotagentSaver(dir);
      for (const call of [
        () => fresh.getTuple(at("t")),
        () => fresh.put(at("t"), checkpoint("c9", {}, {}), META, {}),
      ]) {
        const err = await failure(call());
        expect([err.code, err.exitCode], err.message).toEqual([
          err.code === "path_is_link" ? "path_is_link" : "checkpoint_invalid",
          3,
        ]);
        expect(err.message).toContain(err.code === "path_is_link" ? LOG_FILE : `${join(dir, name)}: ${words}`);
        expect(err.message).not.toContain("\n");
      }
      if (existsSync(join(dir, "..", "victim.txt")))
        expect(readFileSync(join(dir, "..", "victim.txt"), "utf8")).toBe("the victim's bytes");
      const [listed, seen] = await warnings(() => ids(fresh, {}));
      expect(listed).toEqual(["o1"]);
      expect(seen.length).toBe(1);
      expect(seen[0]).toContain(join(dir, name));
      await fresh.deleteThread("t");
      expect(readdirSync(dir)).toEqual(["other"]);
      // The link went, never what it pointed to.
      if (name === "t" && words.includes("link")) expect(readdirSync(join(dir, "..", "elsewhere"))).toEqual([]);
      await fresh.put(at("t"), checkpoint("c9", { a: 1 }, { a: 1 }), META, { a: 1 });
      expect((await fresh.getTuple(at("t")))?.checkpoint.channel_values).toEqual({ a: 1 });
    },
  );

  it("the saver's own folder may be a link (to another disk, say)", async () => {
    const dir = fresh();
    mkdirSync(join(dir, "real"));
    symlinkSync(join(dir, "real"), join(dir, "lg"));
    await new DotagentSaver(join(dir, "lg")).put(at("t"), checkpoint("c1", {}, {}), META, {});
    await pause();
    expect(readdirSync(join(dir, "real", "t"))).toEqual([LOG_FILE]);
  });
});

describe("DotagentSaver with several writers on one thread (several processes take the same path: one append each)", () => {
  it("two savers on one folder interleave puts and writes; each reads what the other wrote; insert-or-ignore holds across them", async () => {
    const dir = fresh();
    const [a, b] = [new DotagentSaver(dir), new DotagentSaver(dir)];
    const c1 = await a.put(at("t"), checkpoint("c1", { big: "B" }, { big: 1 }), META, { big: 1 });
    const c2 = await b.put(c1, checkpoint("c2", { big: "B", n: 1 }, { big: 1, n: 1 }), META, { n: 1 });
    await a.putWrites(c2, [["x", "from a"]], "task-1");
    await b.putWrites(c2, [["x", "from b"]], "task-1"); // the same (task, idx): ignored
    await b.putWrites(c2, [[ERROR, "first"]], "task-2");
    await a.putWrites(c2, [[ERROR, "second"]], "task-2"); // an error: replaced
    for (const saver of [a, b]) {
      const tuple = await saver.getTuple(at("t"));
      expect(tuple?.checkpoint.channel_values).toEqual({ big: "B", n: 1 });
      expect(tuple?.pendingWrites).toEqual([
        ["task-1", "x", "from a"],
        ["task-2", ERROR, "second"],
      ]);
    }
  });
});

describe("DotagentSaver reads threads written before the log (format 1)", () => {
  /** A format-1 thread as dotagent 0.1.0 wrote it: c2 carries b from c1; c2's pending writes. */
  function legacyThread(dir: string, thread: string): void {
    const root = join(dir, thread, "root");
    mkdirSync(root, { recursive: true });
    const file = (name: string, value: unknown) =>
      writeFileSync(join(root, name), `${JSON.stringify(value, null, 1)}\n`);
    writeFileSync(
      join(dir, thread, "thread.json"),
      JSON.stringify({ format: 1, thread_id: thread, created_at: "2026-01-01T00:00:00.000Z" }),
    );
    const base = {
      format: 1,
      thread_id: thread,
      checkpoint_ns: "",
      saved_at: "2026-01-01T00:00:00.000Z",
      metadata: { type: "json", text: JSON.stringify(META) },
    };
    const cp = (id: string, versions: Record<string, number>) => ({
      type: "json",
      text: JSON.stringify({ v: 4, id, ts: "2026-01-01T00:00:00.000Z", channel_versions: versions, versions_seen: {} }),
    });
    file("c1.checkpoint.json", {
      ...base,
      checkpoint_id: "c1",
      parent_checkpoint_id: null,
      checkpoint: cp("c1", { a: 1, b: 1 }),
      values: { a: { type: "json", text: "1" }, b: { type: "json", text: '"big"' } },
      sources: { a: { version: 1, checkpoint_id: "c1" }, b: { version: 1, checkpoint_id: "c1" } },
    });
    file("c2.checkpoint.json", {
      ...base,
      checkpoint_id: "c2",
      parent_checkpoint_id: "c1",
      checkpoint: cp("c2", { a: 2, b: 1 }),
      values: { a: { type: "json", text: "2" } },
      sources: { a: { version: 2, checkpoint_id: "c2" }, b: { version: 1, checkpoint_id: "c1" } },
    });
    file("c2.writes.json", {
      format: 1,
      thread_id: thread,
      checkpoint_ns: "",
      checkpoint_id: "c2",
      writes: [{ task_id: "task", task_path: "", idx: 0, channel: "a", value: { type: "json", text: "3" } }],
    });
  }

  it.each(["old-thread", "Old.Thread"])(
    "%s: its checkpoints and writes read; a new put carries its values on into the log; list shows both; deleteThread removes both",
    async (thread) => {
      const dir = fresh();
      legacyThread(dir, thread);
      const saver = new DotagentSaver(dir);
      const c2 = await saver.getTuple(at(thread));
      expect([
        c2?.checkpoint.id,
        c2?.checkpoint.channel_values,
        c2?.pendingWrites,
        c2?.parentConfig?.configurable?.checkpoint_id,
      ]).toEqual(["c2", { a: 2, b: "big" }, [["task", "a", 3]], "c1"]);
      await saver.put(at(thread, "c2"), checkpoint("c3", { a: 4, b: "big" }, { a: 3, b: 1 }), META, { a: 3 });
      await saver.putWrites(at(thread, "c2"), [["a", 5]], "task-2");
      const again = new DotagentSaver(dir);
      expect((await again.getTuple(at(thread)))?.checkpoint.channel_values).toEqual({ a: 4, b: "big" });
      expect((await again.getTuple(at(thread, "c2")))?.pendingWrites).toEqual([
        ["task", "a", 3],
        ["task-2", "a", 5],
      ]);
      const listed = [];
      for await (const t of again.list({})) listed.push(`${t.config.configurable?.thread_id} ${t.checkpoint.id}`);
      expect(listed).toEqual([`${thread} c3`, `${thread} c2`, `${thread} c1`]);
      await again.deleteThread(thread);
      expect(readdirSync(dir)).toEqual([]);
      expect(await again.getTuple(at(thread))).toBeUndefined();
    },
  );

  it("a garbage thread.json: reads name it and deleteThread, the way out named, works", async () => {
    const dir = fresh();
    legacyThread(dir, "t");
    writeFileSync(join(dir, "t", "thread.json"), "garbage");
    const saver = new DotagentSaver(dir);
    const err = await failure(saver.getTuple(at("t")));
    expect([err.code, err.exitCode]).toEqual(["checkpoint_invalid", 3]);
    expect(err.message).toContain(`${join(dir, "t", "thread.json")}: `);
    expect(err.message).toContain('deleteThread("t")');
    await saver.deleteThread("t");
    expect(readdirSync(dir)).toEqual([]);
    await saver.put(at("t"), emptyCheckpoint(), META, {});
    expect(await saver.getTuple(at("t"))).toBeDefined();
  });
});

describe("DotagentSaver.deleteThread", () => {
  it("a thread deleted while it is read (another process's deleteThread) reads whole or not at all, never with values or writes missing", async () => {
    const base = new JsonPlusSerializer();
    let midRead: (() => void) | undefined;
    const serde = {
      dumpsTyped: (value: unknown) => base.dumpsTyped(value),
      loadsTyped: (type: string, data: Uint8Array | string) => {
        const now = midRead;
        midRead = undefined;
        now?.();
        return base.loadsTyped(type, data);
      },
    };
    const dir = fresh();
    const saver = new DotagentSaver(dir, { serde });
    const c1 = await saver.put(at("carried"), checkpoint("c1", { big: "B" }, { big: 1 }), META, { big: 1 });
    await saver.put(c1, checkpoint("c2", { big: "B", n: 1 }, { big: 1, n: 1 }), META, { n: 1 });
    const w1 = await saver.put(at("writes"), checkpoint("w1", {}, {}), META, {});
    await saver.putWrites(w1, [["x", 1]], "task");
    const whole = { carried: { big: "B", n: 1 }, writes: {} };
    await pause(); // another process's deleteThread waits for this one's lease on the thread to end
    for (const thread of ["carried", "writes"] as const) {
      midRead = () => renameSync(join(dir, thread), join(dir, `.deleting.1.ab.${thread}`));
      const tuple = await saver.getTuple(at(thread));
      expect(midRead).toBeUndefined();
      if (tuple !== undefined) {
        expect(tuple.checkpoint.channel_values).toEqual(whole[thread]);
        expect(tuple.pendingWrites).toEqual(thread === "writes" ? [["task", "x", 1]] : []);
      }
      expect(await saver.getTuple(at(thread))).toBeUndefined();
    }
  });

  it("a put racing a deleteThread that renamed the folder away lands in the thread's new log, not in the deleted one", async () => {
    const dir = fresh();
    const [writer, deleter] = [new DotagentSaver(dir), new DotagentSaver(dir)];
    await writer.put(at("t"), checkpoint("c1", {}, {}), META, {}); // the writer knows the folder now
    await deleter.deleteThread("t");
    await writer.put(at("t"), checkpoint("c2", { a: 1 }, { a: 1 }), META, { a: 1 });
    expect((await new DotagentSaver(dir).getTuple(at("t")))?.checkpoint.id).toBe("c2");
  });

  it("removes the thread's folder in one rename, keeps the other threads, and sweeps what a killed delete left", async () => {
    const dir = fresh();
    const saver = new DotagentSaver(dir);
    for (const thread of ["a", "b"]) await saver.put(at(thread), emptyCheckpoint(), META, {});
    mkdirSync(join(dir, `.deleting.${2 ** 22 + 12345}.00ff00ff.old`)); // a delete killed after its rename
    await saver.deleteThread("a");
    expect(readdirSync(dir)).toEqual(["b"]);
    expect(await saver.getTuple(at("a"))).toBeUndefined();
    expect(await saver.getTuple(at("b"))).toBeDefined();
    // The thread starts afresh afterwards.
    const id = uuid6(-1);
    await saver.put(at("a"), { ...emptyCheckpoint(), id }, META, {});
    expect((await saver.getTuple(at("a")))?.checkpoint.id).toBe(id);
  });
});
