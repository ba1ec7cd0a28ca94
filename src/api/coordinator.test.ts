import { describe, expect, it } from "vitest";
import { failure, tempFolders } from "./test-support.js";
import { checkpointStore } from "./checkpoint-store.js";
import { coordinator } from "./coordinator.js";

const fresh = tempFolders("dotagent-coord-");

const ITEMS = [{ id: "a", input: { topic: "x" } }, { id: "b" }, { id: "c", input: 3 }];

describe("coordinator", () => {
  it("records the plan once, completes and fails items, and pending() is planned minus completed", async () => {
    const dir = fresh();
    const c = coordinator(checkpointStore(dir, "run"));
    expect(await c.manifest()).toEqual({ planned: [], completed: {}, failed: {} });
    expect(await c.pending()).toEqual([]);
    expect(await c.plan(ITEMS)).toEqual(ITEMS);
    await c.complete("b", { report: "b.md" });
    await c.fail("c", new Error("rate limited"));
    expect((await c.pending()).map((i) => i.id)).toEqual(["a", "c"]);
    expect(await c.manifest()).toEqual({
      planned: ITEMS,
      completed: { b: { report: "b.md" } },
      failed: { c: "rate limited" },
    });
    await c.complete("c", "done");
    expect((await c.manifest()).failed).toEqual({});

    // A restarted program: the same ids return the recorded plan (inputs as first recorded), nothing re-runs.
    const again = coordinator(checkpointStore(dir, "run"));
    expect(await again.plan([{ id: "a", input: "changed" }, { id: "b" }, { id: "c" }])).toEqual(ITEMS);
    expect((await again.pending()).map((i) => i.id)).toEqual(["a"]);
  });

  it("refuses another plan (plan_changed), an unplanned item (not_planned) and bad ids (usage)", async () => {
    const c = coordinator(checkpointStore(fresh(), "run"), "fan-out");
    expect((await failure(c.complete("a", 1))).code).toBe("not_planned");
    await c.plan(ITEMS);
    const changed = await failure(c.plan([{ id: "a" }, { id: "b" }]));
    expect([changed.code, changed.exitCode]).toEqual(["plan_changed", 1]);
    expect(changed.message).toContain("(fan-out) was planned with a, b, c, not a, b; clear() the store to plan again");
    expect((await failure(c.complete("zzz", 1))).code).toBe("not_planned");
    expect((await failure(c.plan([]))).code).toBe("usage");
    expect(
      (await failure(coordinator(checkpointStore(fresh(), "r")).plan([{ id: "x" }, { id: "x" }]))).message,
    ).toContain("planned twice");
    expect((await failure(coordinator(checkpointStore(fresh(), "r")).plan([{ id: "../x" }]))).exitCode).toBe(2);
  });

  it("parallel completes in one process lose none of each other's results", async () => {
    const store = checkpointStore(fresh(), "run");
    const c = coordinator(store);
    const items = Array.from({ length: 12 }, (_, i) => ({ id: `job-${i}` }));
    await c.plan(items);
    await Promise.all(
      items.map(async (item, i) => {
        await new Promise((r) => setTimeout(r, (i * 7) % 5));
        await c.complete(item.id, { n: i });
      }),
    );
    expect(Object.keys((await c.manifest()).completed).length).toBe(12);
    expect(await c.pending()).toEqual([]);
  });

  it("keeps working after the store is complete for reads and a repeated plan", async () => {
    const store = checkpointStore(fresh(), "run");
    const c = coordinator(store);
    await c.plan(ITEMS);
    for (const item of ITEMS) await c.complete(item.id, item.id);
    await store.complete("all done");
    expect(await c.plan(ITEMS)).toEqual(ITEMS);
    expect(await c.pending()).toEqual([]);
    expect((await failure(c.complete("a", 2))).code).toBe("run_complete");
  });
});
