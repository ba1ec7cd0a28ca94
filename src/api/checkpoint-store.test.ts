import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "./canonical-json.js";
import { failure, tempFolders } from "./test-support.js";
import { checkpointStore } from "./checkpoint-store.js";

const fresh = tempFolders("dotagent-cp-");

describe("checkpointStore", () => {
  it("saves, loads, lists and finds the latest; seq grows with every save", async () => {
    const dir = fresh();
    const store = checkpointStore<{ step: number }>(join(dir, "runs"), "job-1");
    expect(await store.status()).toBe("new");
    expect(await store.loadLatest()).toBeUndefined();
    expect(await store.list()).toEqual([]);
    expect(readdirSync(dir)).toEqual([]); // reads create nothing
    expect(await store.save("a", { step: 1 })).toBe(1);
    expect(await store.save("b", { step: 2 })).toBe(2);
    expect(await store.save("a", { step: 3 })).toBe(3);
    expect(await store.status()).toBe("running");
    expect(await store.load("a")).toEqual({ step: 3 });
    expect(await store.load("b")).toEqual({ step: 2 });
    expect(await store.load("c")).toBeUndefined();
    expect(await store.loadLatest()).toMatchObject({ id: "a", seq: 3, data: { step: 3 } });
    const list = await store.list();
    expect(list.map((c) => [c.id, c.seq])).toEqual([
      ["b", 2],
      ["a", 3],
    ]);
    expect(list[0]).not.toHaveProperty("data");
    expect(readdirSync(join(dir, "runs", "job-1")).sort()).toEqual([
      "a.checkpoint.json",
      "b.checkpoint.json",
      "store.json",
    ]);
    // A second handle (a restarted program) sees the same.
    expect(await checkpointStore(join(dir, "runs"), "job-1").loadLatest()).toMatchObject({ id: "a", seq: 3 });
  });

  it("update reads, changes and saves in one step; a store name that is also an id does not clash", async () => {
    const store = checkpointStore<number[]>(fresh(), "store");
    expect(await store.update("store", (c) => [...(c ?? []), 1])).toEqual([1]);
    expect(await store.update("store", (c) => [...(c ?? []), 2])).toEqual([1, 2]);
    expect(await store.load("store")).toEqual([1, 2]);
  });

  it("refuses an async change (it would let another call between the read and the write) and inputs that are not JSON", async () => {
    const store = checkpointStore<unknown>(fresh(), "s");
    const err = await failure(store.update("x", async () => 1));
    expect([err.code, err.exitCode]).toEqual(["usage", 2]);
    expect(await store.load("x")).toBeUndefined();
    expect(() => checkpointStore(fresh(), "s", { inputs: { n: 1n } })).toThrowError(
      /inputs of a checkpoint store must be JSON/,
    );
  });

  it("concurrent updates in one process lose nothing", async () => {
    const store = checkpointStore<string[]>(fresh(), "s");
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.update("list", (c) => [...(c ?? []), `x${i}`])));
    expect((await store.load("list"))!.length).toBe(20);
  });

  it("complete(): save and update refuse, loads still work, a second complete changes nothing", async () => {
    const dir = fresh();
    const store = checkpointStore(dir, "r");
    await store.save("x", 1);
    await store.complete({ answer: 42 });
    expect(await store.status()).toBe("complete");
    const completion = await store.completion();
    expect(completion?.result).toEqual({ answer: 42 });
    const err = await failure(store.save("x", 2));
    expect([err.code, err.exitCode]).toEqual(["run_complete", 1]);
    expect(err.message).toBe(`${join(dir, "r")} is complete; clear() it to start a new run, or use another name`);
    expect((await failure(store.update("x", () => 3))).code).toBe("run_complete");
    expect(await store.loadLatest()).toMatchObject({ id: "x", data: 1 });
    await store.complete("other");
    expect((await store.completion())?.result).toEqual({ answer: 42 });
  });

  it("clear() removes what it made, keeps a stranger's file, and lets a new run start with other inputs", async () => {
    const dir = fresh();
    const store = checkpointStore(dir, "r", { inputs: { a: 1 } });
    await store.save("x", 1);
    await store.complete();
    await store.clear();
    expect(readdirSync(dir)).toEqual([]);
    await store.clear(); // nothing to clear: harmless

    const again = checkpointStore(dir, "r", { inputs: { a: 2 } });
    expect(await again.status()).toBe("new");
    await again.save("y", 2);
    writeFileSync(join(dir, "r", "notes.txt"), "mine");
    await again.clear();
    expect(readdirSync(join(dir, "r"))).toEqual(["notes.txt"]);
    expect(await again.status()).toBe("new");
  });

  it("refuses every call for other inputs (key order does not matter), until clear()", async () => {
    const dir = fresh();
    await checkpointStore(dir, "r", { inputs: { model: "m", files: ["a", "b"] } }).save("x", 1);
    expect(await checkpointStore(dir, "r", { inputs: { files: ["a", "b"], model: "m" } }).load("x")).toBe(1);
    const other = checkpointStore(dir, "r", { inputs: { model: "m", files: ["a"] } });
    for (const call of [
      () => other.save("x", 2),
      () => other.load("x"),
      () => other.loadLatest(),
      () => other.list(),
      () => other.status(),
      () => other.complete(),
      () => other.update("x", () => 3),
    ]) {
      const err = await failure(call());
      expect([err.code, err.exitCode, err.message]).toEqual([
        "inputs_changed",
        1,
        `${join(dir, "r")} was saved for other inputs; clear() it or use another name`,
      ]);
    }
    expect((await failure(checkpointStore(dir, "r").status())).code).toBe("inputs_changed"); // no inputs is an input too
    await other.clear();
    await other.save("x", 2);
    expect(await other.load("x")).toBe(2);
  });

  it.each([
    ["a name with a slash", "../x", "x"],
    ["an id starting with a dot", "r", ".."],
    ["an empty id", "r", ""],
    ["a 200-character id", "r", "a".repeat(200)],
  ])("refuses %s (exit 2)", async (_what, name, id) => {
    const err = await failure(Promise.resolve().then(() => checkpointStore(fresh(), name).save(id, 1)));
    expect([err.code, err.exitCode]).toEqual(["usage", 2]);
    expect(err.message.length).toBeLessThan(200);
  });

  it.each([
    ["undefined", undefined, "is undefined"],
    ["a function", () => 1, "data is a function"],
    ["a BigInt", { n: 1n }, "cannot be saved as JSON"],
    [
      "a cycle",
      (() => {
        const o: Record<string, unknown> = {};
        o.self = o;
        return o;
      })(),
      "cannot be saved as JSON",
    ],
  ])("refuses data that is not JSON: %s", async (_what, data, words) => {
    const store = checkpointStore<unknown>(fresh(), "r");
    const err = await failure(store.save("x", data));
    expect(err.code).toBe("data_invalid");
    expect(err.message).toContain(words);
    expect(err.message).not.toContain("\n");
    expect(await store.status()).toBe("new");
  });
});

describe("checkpointStore on hostile or corrupt files: exit 3 naming the file", () => {
  async function saved(): Promise<{ dir: string; folder: string }> {
    const dir = fresh();
    const store = checkpointStore(dir, "r");
    await store.save("x", { ok: true });
    return { dir, folder: join(dir, "r") };
  }
  const cases: Array<[string, (folder: string) => void, string]> = [
    [
      "truncated store.json",
      (f) => writeFileSync(join(f, "store.json"), readFileSync(join(f, "store.json"), "utf8").slice(0, 20)),
      "store.json: not valid JSON",
    ],
    ["empty store.json", (f) => writeFileSync(join(f, "store.json"), ""), "store.json: file is empty"],
    [
      "store.json with a bad status",
      (f) =>
        writeFileSync(
          join(f, "store.json"),
          readFileSync(join(f, "store.json"), "utf8").replace('"running"', '"paused"'),
        ),
      "store.json: status: expected",
    ],
    [
      "store.json with a negative seq",
      (f) =>
        writeFileSync(
          join(f, "store.json"),
          readFileSync(join(f, "store.json"), "utf8").replace('"seq": 1', '"seq": -1'),
        ),
      "store.json: seq:",
    ],
    [
      "a checkpoint truncated",
      (f) => writeFileSync(join(f, "x.checkpoint.json"), '{"id":"x","seq":1,'),
      "x.checkpoint.json: not valid JSON",
    ],
    [
      "a checkpoint renamed by hand",
      (f) =>
        writeFileSync(
          join(f, "x.checkpoint.json"),
          JSON.stringify({ id: "y", seq: 1, saved_at: "2026-11-20T10:00:00Z", data: 1 }),
        ),
      'x.checkpoint.json: id: expected "x"',
    ],
    [
      "a checkpoint without data",
      (f) =>
        writeFileSync(
          join(f, "x.checkpoint.json"),
          JSON.stringify({ id: "x", seq: 1, saved_at: "2026-11-20T10:00:00Z" }),
        ),
      "x.checkpoint.json: data: required",
    ],
    [
      "a checkpoint that is a symbolic link",
      (f) => {
        writeFileSync(join(f, "..", "elsewhere"), "{}");
        rmSync(join(f, "x.checkpoint.json"));
        symlinkSync(join(f, "..", "elsewhere"), join(f, "x.checkpoint.json"));
      },
      "x.checkpoint.json: is a symbolic link",
    ],
    [
      "a checkpoint that is a FIFO",
      (f) => {
        rmSync(join(f, "x.checkpoint.json"));
        execFileSync("mkfifo", [join(f, "x.checkpoint.json")]);
      },
      "x.checkpoint.json: is a FIFO",
    ],
    [
      "a checkpoint that is a folder",
      (f) => {
        rmSync(join(f, "x.checkpoint.json"));
        mkdirSync(join(f, "x.checkpoint.json"));
      },
      "x.checkpoint.json: is a folder",
    ],
  ];
  it.each(cases)("%s", async (_what, damage, words) => {
    const { dir, folder } = await saved();
    damage(folder);
    const store = checkpointStore(dir, "r");
    const err = await failure(store.loadLatest().then(() => store.load("x")));
    expect([err.code, err.exitCode]).toEqual(["checkpoint_invalid", 3]);
    expect(err.message).toContain(join(folder, words.split(":")[0]!));
    expect(err.message).toContain(words);
    expect(err.message).not.toContain("\n");
    await store.clear(); // the way out works whatever the damage
    expect(await store.status()).toBe("new");
  });

  it("a store folder that is a link is refused, and nothing is written through it", async () => {
    const dir = fresh();
    mkdirSync(join(dir, "target"));
    symlinkSync(join(dir, "target"), join(dir, "r"));
    const err = await failure(checkpointStore(dir, "r").save("x", 1));
    expect([err.code, err.exitCode]).toEqual(["checkpoint_invalid", 3]);
    expect(err.message).toContain(`${join(dir, "r")}: is not a real folder (a link)`);
    expect(readdirSync(join(dir, "target"))).toEqual([]);
  });
});

describe("checkpointStore: a link planted where it writes (SPEC §2 Writes)", () => {
  it("a checkpoint file that is a link to a file outside: save replaces the link, the file it pointed to keeps its bytes", async () => {
    const dir = fresh();
    const store = checkpointStore(join(dir, "runs"), "r");
    await store.save("a", 1);
    writeFileSync(join(dir, "victim.txt"), "the victim's bytes");
    symlinkSync(join(dir, "victim.txt"), join(dir, "runs", "r", "b.checkpoint.json"));
    await store.save("b", 2);
    expect(readFileSync(join(dir, "victim.txt"), "utf8")).toBe("the victim's bytes");
    expect(await store.load("b")).toBe(2);
  });
});

describe("checkpointStore across processes", () => {
  const HERE = fileURLToPath(new URL(".", import.meta.url));
  const CHILD = `
import { checkpointStore } from "./checkpoint-store.ts";
const [dir, tag, count, big] = process.argv.slice(2);
const store = checkpointStore(dir, "shared");
const payload = "p".repeat(Number(big));
process.stdout.write("ready\\n");
for (let i = 0; i < Number(count); i++) {
  await store.update("log", (log) => [...(log ?? []), tag + i]);
  await store.save(tag, { i, payload, check: payload.length + i });
}
process.stdout.write("done\\n");
`;
  function bundle(dir: string): string {
    const outfile = join(dir, "child.mjs");
    buildSync({
      stdin: { contents: CHILD, resolveDir: HERE, loader: "ts", sourcefile: "store-child.ts" },
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      outfile,
      // A CommonJS dependency would require() built-ins and read __filename: the bundle provides both.
      banner: {
        js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url); const __filename = process.argv[1];",
      },
      logLevel: "silent",
    });
    return outfile;
  }
  function run(script: string, args: string[], killAfterMs?: number): Promise<{ done: boolean; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [script, ...args], { stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      let stderr = "";
      child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
      child.stdout.on("data", (c: Buffer) => {
        out += c.toString();
        if (killAfterMs !== undefined && out.includes("ready")) setTimeout(() => child.kill("SIGKILL"), killAfterMs);
      });
      child.on("close", () => resolve({ done: out.includes("done"), stderr }));
    });
  }

  it("two processes saving at once lose no update and never share a seq", async () => {
    const dir = fresh();
    const script = bundle(dir);
    const results = await Promise.all([run(script, [dir, "a", "40", "10"]), run(script, [dir, "b", "40", "10"])]);
    for (const r of results) expect(r, r.stderr).toMatchObject({ done: true });
    const store = checkpointStore<string[]>(dir, "shared");
    const log = (await store.load("log"))!;
    expect(log.length).toBe(80);
    expect(log.filter((e) => e.startsWith("a"))).toEqual(Array.from({ length: 40 }, (_, i) => `a${i}`));
    const seqs = (await store.list()).map((c) => c.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(JSON.parse(readFileSync(join(dir, "shared", "store.json"), "utf8")).seq).toBe(160);
  });

  it("kill -9 during saves leaves the previous checkpoint readable, and the next save takes the dead lock over", async () => {
    const dir = fresh();
    const script = bundle(dir);
    let before = 0;
    for (const killAfter of [5, 20, 45, 80, 130]) {
      const r = await run(script, [dir, `k`, "100000", "300000"], killAfter);
      expect(r.done).toBe(false);
      const store = checkpointStore<{ i: number; payload: string; check: number }>(dir, "shared");
      const latest = await store.loadLatest();
      const k = await store.load("k");
      if (k !== undefined) {
        expect(k.check).toBe(k.payload.length + k.i); // whole, never torn
        expect(k.i).toBeGreaterThanOrEqual(0);
      }
      const log = (await store.load("log")) as unknown as string[] | undefined;
      if (log) expect(log.length).toBeGreaterThanOrEqual(before);
      before = log?.length ?? 0;
      expect(latest === undefined || latest.seq >= 1).toBe(true);
    }
    const store = checkpointStore(dir, "shared");
    await store.save("after", 1); // a dead holder's lock is taken over; leftover temp files are swept
    expect(
      readdirSync(join(dir, "shared")).filter((n) => !n.endsWith(".checkpoint.json") && n !== "store.json"),
    ).toEqual([]);
    expect(before).toBeGreaterThan(0);
  });
});

describe("canonicalJson", () => {
  it.each([
    [{ b: 1, a: { d: [2, { z: 1, y: 2 }], c: null } }, '{"a":{"c":null,"d":[2,{"y":2,"z":1}]},"b":1}'],
    [undefined, "null"],
    [{ a: undefined, b: 1 }, '{"b":1}'],
  ])("%j → %s", (value, text) => expect(canonicalJson(value)).toBe(text));
});
