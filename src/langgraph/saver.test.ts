import { execFileSync } from "node:child_process";
import {
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
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { failure, tempFolders } from "../api/test-support.js";
import { acquireLock } from "../store/lock.js";
import { DotagentSaver } from "./saver.js";
import { compareCodePoints, namespaceFolder, sortWrites } from "./thread-files.js";

const fresh = tempFolders("dotagent-lg-");
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
const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;

describe("DotagentSaver on disk", () => {
  it("one folder per thread: thread.json, a folder per namespace, a file per checkpoint and per checkpoint's writes; no lock left", async () => {
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
    expect(readdirSync(dir)).toEqual(["t1"]);
    expect(readdirSync(join(dir, "t1")).sort()).toEqual(["ns-sub%3A1", "root", "thread.json"]);
    expect(readdirSync(join(dir, "t1", "root")).sort()).toEqual([
      "c1.checkpoint.json",
      "c2.checkpoint.json",
      "c2.writes.json",
    ]);
    expect(readJson(join(dir, "t1", "thread.json"))).toMatchObject({ format: 1, thread_id: "t1" });
    // c2 stores only what it changed; the big value stays in c1, where c2 says it is.
    const file = readJson(join(dir, "t1", "root", "c2.checkpoint.json"));
    expect(file).toMatchObject({
      format: 1,
      thread_id: "t1",
      checkpoint_ns: "",
      checkpoint_id: "c2",
      parent_checkpoint_id: "c1",
    });
    expect(Object.keys(file.values as object)).toEqual(["a"]);
    expect(file.sources).toEqual({ a: { version: 2, checkpoint_id: "c2" }, big: { version: 1, checkpoint_id: "c1" } });
    expect((file.values as Record<string, unknown>).a).toEqual({ type: "json", text: '"A2"' });
    expect(readJson(join(dir, "t1", "root", "c2.writes.json"))).toMatchObject({
      writes: [
        { task_id: "task-1", task_path: "~path", idx: 0, channel: "a", value: { type: "json", text: '"next"' } },
      ],
    });
    const tuple = await saver.getTuple(at("t1"));
    expect(tuple?.checkpoint.channel_values).toEqual({ a: "A2", big: "B" });
    expect(tuple?.pendingWrites).toEqual([["task-1", "a", "next"]]);
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
    expect((readJson(join(dir, "t", "root", "c1.checkpoint.json")).values as Record<string, unknown>).blob).toEqual({
      type: "bytes",
      base64: "/wD+gA==",
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

describe("DotagentSaver refuses what it cannot keep, with one line naming the file", () => {
  it.each<[string, () => Promise<unknown>, string]>([
    [
      "a thread id with ../",
      () => new DotagentSaver(fresh()).put(at("../x"), checkpoint("c1", {}, {}), META, {}),
      'thread_id "../x" cannot name a file',
    ],
    [
      "a thread id with ../ to getTuple",
      () => new DotagentSaver(fresh()).getTuple(at("../x")),
      'thread_id "../x" cannot name a file',
    ],
    [
      "a thread id with ../ to deleteThread",
      () => new DotagentSaver(fresh()).deleteThread("../x"),
      'thread_id "../x" cannot name a file',
    ],
    [
      "a thread id with a slash to list",
      async () => {
        for await (const _ of new DotagentSaver(fresh()).list(at("a/b"))) void _;
      },
      'thread_id "a/b" cannot name a file',
    ],
    [
      "a numeric thread id",
      () => new DotagentSaver(fresh()).put({ configurable: { thread_id: 7 } }, checkpoint("c1", {}, {}), META, {}),
      "thread_id must be a string, not 7",
    ],
    [
      "a checkpoint id with ../",
      () => new DotagentSaver(fresh()).put(at("t"), checkpoint("../../c", {}, {}), META, {}),
      'checkpoint.id "../../c" cannot name a file',
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

  it("a namespace with ../ stays inside its thread's folder", async () => {
    const dir = fresh();
    const saver = new DotagentSaver(join(dir, "lg"));
    const config = await saver.put(at("t", undefined, "../../escape"), checkpoint("c1", { a: 1 }, { a: 1 }), META, {
      a: 1,
    });
    expect(readdirSync(dir)).toEqual(["lg"]);
    expect(readdirSync(join(dir, "lg", "t"))).toContain("ns-%2E%2E%2F%2E%2E%2Fescape");
    expect((await saver.getTuple(config))?.checkpoint.channel_values).toEqual({ a: 1 });
  });

  async function saved(): Promise<{ dir: string; root: string }> {
    const dir = fresh();
    const saver = new DotagentSaver(dir);
    const c1 = await saver.put(at("t"), checkpoint("c1", { a: 1, b: 2 }, { a: 1, b: 1 }), META, { a: 1, b: 1 });
    const c2 = await saver.put(c1, checkpoint("c2", { a: 3, b: 2 }, { a: 2, b: 1 }), META, { a: 2 });
    await saver.putWrites(c2, [["a", 4]], "task");
    return { dir, root: join(dir, "t", "root") };
  }
  const edit = (file: string, change: (text: string) => string) =>
    writeFileSync(file, change(readFileSync(file, "utf8")));
  const cases: Array<[string, (root: string) => void, string, string]> = [
    [
      "a checkpoint cut short",
      (r) => edit(join(r, "c2.checkpoint.json"), (t) => t.slice(0, 40)),
      "c2.checkpoint.json",
      "not valid JSON",
    ],
    [
      "an empty checkpoint",
      (r) => writeFileSync(join(r, "c2.checkpoint.json"), ""),
      "c2.checkpoint.json",
      "file is empty",
    ],
    [
      "a checkpoint renamed by hand",
      (r) => renameSync(join(r, "c1.checkpoint.json"), join(r, "c9.checkpoint.json")),
      "c9.checkpoint.json",
      'checkpoint_id: expected "c9" (the file\'s name)',
    ],
    [
      "a checkpoint copied from another thread",
      (r) => edit(join(r, "c2.checkpoint.json"), (t) => t.replace('"thread_id": "t"', '"thread_id": "u"')),
      "c2.checkpoint.json",
      'thread_id: expected "t"',
    ],
    [
      "the ancestor holding a carried value removed",
      (r) => rmSync(join(r, "c1.checkpoint.json")),
      "c2.checkpoint.json",
      'sources["b"] names checkpoint c1, which is not in',
    ],
    [
      "a carried value taken out of its ancestor",
      (r) =>
        edit(join(r, "c1.checkpoint.json"), (t) => {
          const f = JSON.parse(t);
          delete f.values.b;
          return JSON.stringify(f);
        }),
      "c1.checkpoint.json",
      'sources["b"]: names this checkpoint, whose values have no "b"',
    ],
    [
      "a value the serializer cannot load",
      (r) => edit(join(r, "c2.checkpoint.json"), (t) => t.replace('"text": "3"', '"text": "{3"')),
      "c2.checkpoint.json",
      'values["a"]: the serializer cannot load it',
    ],
    [
      "pending writes with a bad idx",
      (r) => edit(join(r, "c2.writes.json"), (t) => t.replace('"idx": 0', '"idx": "zero"')),
      "c2.writes.json",
      "writes[0].idx: expected a whole number",
    ],
    [
      "a checkpoint that is a symbolic link",
      (r) => {
        rmSync(join(r, "c2.checkpoint.json"));
        symlinkSync(join(r, "c1.checkpoint.json"), join(r, "c2.checkpoint.json"));
      },
      "c2.checkpoint.json",
      "is a symbolic link",
    ],
    [
      "a checkpoint that is a FIFO",
      (r) => {
        rmSync(join(r, "c2.checkpoint.json"));
        execFileSync("mkfifo", [join(r, "c2.checkpoint.json")]);
      },
      "c2.checkpoint.json",
      "is a FIFO",
    ],
    [
      "a namespace folder that is a file",
      (r) => {
        rmSync(r, { recursive: true });
        writeFileSync(r, "{}");
      },
      "root",
      "is not a real folder (a file)",
    ],
  ];
  it.each(cases)("%s: checkpoint_invalid (exit 3) naming the file", async (_what, damage, name, words) => {
    const { dir, root } = await saved();
    damage(root);
    const saver = new DotagentSaver(dir);
    const err = await failure(
      (async () => {
        await saver.getTuple(at("t"));
        await saver.getTuple(at("t", "c2"));
        for await (const _ of saver.list(at("t"))) void _;
      })(),
    );
    expect([err.code, err.exitCode]).toEqual(["checkpoint_invalid", 3]);
    expect(err.message).toContain(join(name === "root" ? join(dir, "t") : root, name));
    expect(err.message).toContain(words);
    expect(err.message).toContain('deleteThread("t")');
    expect(err.message).not.toContain("\n");
    await saver.deleteThread("t"); // the way out works whatever the damage
    expect(await saver.getTuple(at("t"))).toBeUndefined();
  });

  it("a thread folder that is a link is refused, and nothing is written through it", async () => {
    const dir = fresh();
    mkdirSync(join(dir, "elsewhere"));
    mkdirSync(join(dir, "lg"));
    symlinkSync(join(dir, "elsewhere"), join(dir, "lg", "t"));
    const err = await failure(new DotagentSaver(join(dir, "lg")).put(at("t"), checkpoint("c1", {}, {}), META, {}));
    expect([err.code, err.exitCode]).toEqual(["checkpoint_invalid", 3]);
    expect(err.message).toContain(`${join(dir, "lg", "t")}: is not a real folder (a link)`);
    expect(readdirSync(join(dir, "elsewhere"))).toEqual([]);
  });

  it("a checkpoint file planted as a link to a file outside the saver's folder: put replaces the link, the file it pointed to keeps its bytes", async () => {
    const dir = fresh();
    const saver = new DotagentSaver(join(dir, "lg"));
    const c1 = await saver.put(at("t"), checkpoint("c1", { a: 1 }, { a: 1 }), META, { a: 1 });
    writeFileSync(join(dir, "victim.txt"), "the victim's bytes");
    symlinkSync(join(dir, "victim.txt"), join(dir, "lg", "t", "root", "c2.checkpoint.json"));
    await saver.put(c1, checkpoint("c2", { a: 2 }, { a: 2 }), META, { a: 2 });
    expect(readFileSync(join(dir, "victim.txt"), "utf8")).toBe("the victim's bytes");
    expect((await saver.getTuple(at("t", "c2")))?.checkpoint.channel_values).toEqual({ a: 2 });
  });

  it("a namespace's parent, the thread folder, reached through the saver's own folder as a link: allowed (the folder the caller names may be a link)", async () => {
    const dir = fresh();
    mkdirSync(join(dir, "real"));
    symlinkSync(join(dir, "real"), join(dir, "lg"));
    await new DotagentSaver(join(dir, "lg")).put(at("t"), checkpoint("c1", {}, {}), META, {});
    expect(readdirSync(join(dir, "real", "t", "root"))).toEqual(["c1.checkpoint.json"]);
  });

  it("a thread folder whose thread.json names another thread (ids differing in case, on a case-insensitive disk) is not written to", async () => {
    const dir = fresh();
    const saver = new DotagentSaver(dir);
    await saver.put(at("Run"), checkpoint("c1", {}, {}), META, {});
    renameSync(join(dir, "Run"), join(dir, "run")); // what a case-insensitive file system would show for "run"
    const err = await failure(saver.put(at("run"), checkpoint("c2", {}, {}), META, {}));
    expect([err.code, err.exitCode]).toEqual(["checkpoint_invalid", 3]);
    expect(err.message).toContain(
      `${join(dir, "run", "thread.json")}: holds thread "Run", not "run": thread ids that differ only in case share one file`,
    );
    expect(readdirSync(join(dir, "run", "root"))).toEqual(["c1.checkpoint.json"]);
  });

  it("a live writer's lock: locked (exit 4) naming the lock file after lockWaitMs; a dead one's is taken over", async () => {
    const dir = fresh();
    const saver = new DotagentSaver(dir, { lockWaitMs: 50 });
    await saver.put(at("t"), checkpoint("c1", {}, {}), META, {});
    const held = acquireLock(join(dir, "t"), { command: "test" });
    try {
      const err = await failure(saver.put(at("t"), checkpoint("c2", {}, {}), META, {}));
      expect([err.code, err.exitCode]).toEqual(["locked", 4]);
      expect(err.message).toContain(`${join(dir, "t", ".lock")} is held by pid ${process.pid}`);
    } finally {
      held.release();
    }
    writeFileSync(
      join(dir, "t", ".lock"),
      JSON.stringify({
        pid: 2 ** 22 + 12345,
        hostname: (await import("node:os")).hostname(),
        acquired_at: new Date().toISOString(),
        command: "dead",
      }),
    );
    await saver.put(at("t"), checkpoint("c2", {}, {}), META, {});
    expect(existsSync(join(dir, "t", ".lock"))).toBe(false);
  });
});

describe("DotagentSaver.deleteThread", () => {
  it("a thread deleted while it is read (another process's deleteThread) reads as absent, never as a checkpoint with values or writes missing", async () => {
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
    for (const thread of ["carried", "writes"]) {
      expect((await saver.getTuple(at(thread)))?.checkpoint).toBeDefined();
      // The rename deleteThread commits with, landing between the reads of one getTuple.
      midRead = () => renameSync(join(dir, thread), join(dir, `.deleting.1.ab.${thread}`));
      expect(await saver.getTuple(at(thread))).toBeUndefined();
      expect(midRead).toBeUndefined();
    }
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
