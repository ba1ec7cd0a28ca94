// Issue 21, cases 11, 12 and 14 (library parts): the checkpoint store never hangs, never blocks the
// event loop while it waits, never crashes its host on a bad argument, and never saves data that
// would load back changed. One named test per case.
import { describe, expect, it } from "vitest";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { failure, tempFolders } from "./test-support.js";
import { checkpointStore } from "./checkpoint-store.js";
import { coordinator } from "./coordinator.js";
import { acquireLock } from "../store/lock.js";
import { DotagentError } from "../core/errors.js";

const fresh = tempFolders("dotagent-cp21-");

describe("issue 21, case 11: lockWaitMs is a finite number ≥ 0, else a usage error at once", () => {
  it.each([NaN, Infinity, -1, "abc", "100", null, {}])("lockWaitMs %j", (lockWaitMs) => {
    const started = Date.now();
    let thrown: unknown;
    try {
      checkpointStore(fresh(), "s", { lockWaitMs: lockWaitMs as number });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DotagentError);
    expect(thrown).toMatchObject({ code: "usage", exitCode: 2 });
    expect((thrown as Error).message).toContain("lockWaitMs takes a number of milliseconds ≥ 0");
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("0 and a finite wait are accepted", () => {
    expect(() => checkpointStore(fresh(), "s", { lockWaitMs: 0 })).not.toThrow();
    expect(() => checkpointStore(fresh(), "s", { lockWaitMs: 1500.5 })).not.toThrow();
  });
});

describe("issue 21, case 11: a lock wait does not block the event loop", () => {
  it("while another holder keeps the store's lock, timers keep firing; the wait ends with `locked` (exit 4)", async () => {
    const dir = fresh();
    mkdirSync(join(dir, "s"));
    const other = acquireLock(join(dir, "s"), { command: "someone else" });
    try {
      const store = checkpointStore(dir, "s", { lockWaitMs: 600 });
      let ticks = 0;
      const timer = setInterval(() => ticks++, 20);
      const err = await failure(store.save("x", 1));
      clearInterval(timer);
      expect([err.code, err.exitCode]).toEqual(["locked", 4]);
      // A blocked loop would have run no tick during the wait.
      expect(ticks).toBeGreaterThan(5);
    } finally {
      other.release();
    }
  });

  it("a caller's other work goes on during the wait, and the call succeeds once the holder lets go", async () => {
    const dir = fresh();
    mkdirSync(join(dir, "s"));
    const other = acquireLock(join(dir, "s"), { command: "someone else" });
    const store = checkpointStore<number>(dir, "s", { lockWaitMs: 5000 });
    const saving = store.save("x", 7);
    await new Promise((resolve) => setTimeout(resolve, 100));
    other.release();
    expect(await saving).toBe(1);
    expect(await store.load("x")).toBe(7);
  });
});

describe("issue 21, case 11: a call on the same store inside update()'s change is refused at once, never a 10 s freeze", () => {
  it.each([
    ["save()", (s: ReturnType<typeof checkpointStore<number>>) => void s.save("y", 1)],
    ["update()", (s: ReturnType<typeof checkpointStore<number>>) => void s.update("y", () => 1)],
    ["complete()", (s: ReturnType<typeof checkpointStore<number>>) => void s.complete()],
    ["clear()", (s: ReturnType<typeof checkpointStore<number>>) => void s.clear()],
  ])(
    "%s inside change: the update rejects with usage naming it, nothing is saved, the host does not crash",
    async (call, inner) => {
      const store = checkpointStore<number>(fresh(), "s", { lockWaitMs: 10_000 });
      await store.save("x", 1);
      const started = Date.now();
      const err = await failure(
        store.update("x", (current) => {
          inner(store); // not awaited, as a synchronous change would do: its refusal is handled, never an unhandled rejection
          return (current ?? 0) + 1;
        }),
      );
      expect(Date.now() - started).toBeLessThan(2000);
      expect([err.code, err.exitCode]).toEqual(["usage", 2]);
      expect(err.message).toContain(`${call.replace("()", "")}(`);
      expect(err.message).toContain('inside update("x", change)');
      expect(await store.load("x")).toBe(1);
      expect(await store.load("y")).toBeUndefined();
      // The store works on afterwards.
      expect(await store.update("x", (c) => (c ?? 0) + 1)).toBe(2);
    },
  );

  it("awaited inside the change it rejects at once too; a different store's save inside a change is fine", async () => {
    const dir = fresh();
    const store = checkpointStore<number>(dir, "s");
    const other = checkpointStore<number>(dir, "t");
    let inner: Promise<number> | undefined;
    await failure(store.update("x", () => ((inner = store.save("y", 1)), 1)));
    await expect(inner).rejects.toMatchObject({ code: "usage" });
    let elsewhere: Promise<number> | undefined;
    expect(await store.update("x", () => ((elsewhere = other.save("y", 5)), 2))).toBe(2);
    expect(await elsewhere).toBe(1);
    expect(await other.load("y")).toBe(5);
  });

  it("8 concurrent updates in one process, without a lock wait between them, lose nothing", async () => {
    const store = checkpointStore<number[]>(fresh(), "s", { lockWaitMs: 0 });
    await Promise.all(Array.from({ length: 8 }, (_, i) => store.update("list", (c) => [...(c ?? []), i])));
    expect((await store.load("list"))!.sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });
});

describe("issue 21, case 12: bad arguments are DotagentErrors, never a TypeError", () => {
  it.each([
    ["checkpointStore(42, name)", () => checkpointStore(42 as unknown as string, "s"), "usage"],
    ["checkpointStore(dir, 42)", () => checkpointStore(fresh(), 42 as unknown as string), "usage"],
    ["checkpointStore(dir, name, null)", () => checkpointStore(fresh(), "s", null as unknown as object), "usage"],
    ["checkpointStore(dir, name, 5)", () => checkpointStore(fresh(), "s", 5 as unknown as object), "usage"],
    ["checkpointStore(undefined, name)", () => checkpointStore(undefined as unknown as string, "s"), "usage"],
  ])("%s: usage, exit 2", (_name, call, code) => {
    expect(call).toThrow(DotagentError);
    expect(call).toThrow(expect.objectContaining({ code, exitCode: 2 }));
  });

  it.each([5, "x", null, undefined, {}])("update(id, %j): usage, exit 2, nothing saved", async (change) => {
    const store = checkpointStore(fresh(), "s");
    const err = await failure(store.update("x", change as never));
    expect([err.code, err.exitCode]).toEqual(["usage", 2]);
    expect(err.message).toContain("change must be a function");
    expect(await store.status()).toBe("new");
  });

  it.each([
    ["an array", [1, 2]],
    ["a string", "manifest"],
    ["planned not an array", { planned: 3, completed: {}, failed: {} }],
    ["a planned item without an id", { planned: [{ input: 1 }], completed: {}, failed: {} }],
    ["completed an array", { planned: [{ id: "a" }], completed: [], failed: {} }],
  ])(
    "a coordinator over a checkpoint of another shape (%s): checkpoint_invalid, exit 3, naming the file",
    async (_name, value) => {
      const store = checkpointStore(fresh(), "s");
      await store.save("coordinator", value);
      const c = coordinator(store);
      for (const call of [
        () => c.plan([{ id: "a" }]),
        () => c.complete("a"),
        () => c.fail("a", "x"),
        () => c.pending(),
        () => c.manifest(),
      ]) {
        const err = await failure(call());
        expect([err.code, err.exitCode]).toEqual(["checkpoint_invalid", 3]);
        expect(err.message).toContain("coordinator.checkpoint.json");
      }
    },
  );

  it.each([[42], [null], [{}], [{ path: "x" }]])("coordinator(%j): usage, exit 2", (store) => {
    expect(() => coordinator(store as never)).toThrow(expect.objectContaining({ code: "usage", exitCode: 2 }));
  });
});

describe("issue 21, case 14: data that would load back changed is refused with data_invalid naming its JSON path", () => {
  it.each([
    ["NaN", { score: NaN }, "data.score is NaN"],
    ["Infinity", { steps: [1, Infinity] }, "data.steps[1] is Infinity"],
    ["-Infinity", [-Infinity], "data[0] is -Infinity"],
    ["a Map", { seen: new Map([["a", 1]]) }, "data.seen is a Map"],
    ["a Set", { a: { b: new Set([1]) } }, "data.a.b is a Set"],
    ["undefined in an array", { list: [1, undefined] }, "data.list[1] is undefined"],
    ["a hole in an array", { list: [1, , 3] }, "data.list[1] is undefined"],
    ["a BigInt", { n: 10n }, "data.n is a BigInt"],
    ["a Date", { at: new Date(0) }, "data.at is a Date"],
    [
      "a class instance",
      {
        x: new (class Point {
          y = 1;
        })(),
      },
      "data.x is a Point",
    ],
    ["a function value", { f: () => 1 }, "data.f is a function"],
    ["an odd key", { "a b": NaN }, 'data["a b"] is NaN'],
  ])("%s", async (_name, data, words) => {
    const store = checkpointStore<unknown>(fresh(), "s");
    for (const call of [() => store.save("x", data), () => store.update("x", () => data), () => store.complete(data)]) {
      const err = await failure(call());
      expect([err.code, err.exitCode]).toEqual(["data_invalid", 1]);
      expect(err.message.replace("the result", "data")).toContain(
        words.replace(/^data/, err.message.includes("result") ? "data" : "data"),
      );
      expect(err.details.path).toBe(words.slice(0, words.indexOf(" is ")));
    }
    expect(await store.status()).toBe("new");
  });

  it("inputs with NaN are refused too (NaN and null would hash alike)", () => {
    expect(() => checkpointStore(fresh(), "s", { inputs: { temperature: NaN } })).toThrow(
      expect.objectContaining({ code: "data_invalid", details: { path: "inputs.temperature" } }),
    );
  });

  it("plain data still round-trips, an undefined object member is dropped as JSON does", async () => {
    const store = checkpointStore<unknown>(fresh(), "s");
    const data = {
      a: [1, "x", null, true, { b: -0.5 }],
      c: Object.assign(Object.create(null) as object, { d: 1 }),
      e: undefined,
    };
    await store.save("x", data);
    expect(await store.load("x")).toEqual({ a: [1, "x", null, true, { b: -0.5 }], c: { d: 1 } });
  });
});
