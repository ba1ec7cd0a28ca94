// A program using the checkpoint API as a user would, with the real SDK's types: compiled by
// test/api-types.test.ts (and `npm run typecheck`). Each @ts-expect-error is a misuse the types
// must refuse: if a type decayed to `any`, that line would stop being an error and tsc would fail.
import { query, type SDKMessage } from "@anthropic-ai/claude-agent-sdk";
import {
  checkpointStore,
  coordinator,
  recoverableQuery,
  type CheckpointInfo,
  type CheckpointStore,
  type Manifest,
  type PlannedItem,
  type RecoverableResult,
  type SavedCheckpoint,
  type StoreStatus,
} from "../../src/index.js";

interface Step {
  n: number;
  notes: string[];
}

export async function loop(dir: string): Promise<RecoverableResult | undefined> {
  const store: CheckpointStore<Step> = checkpointStore<Step>(dir, "run", { inputs: { model: "m", files: ["a"] } });
  const seq: number = await store.save("step-1", { n: 1, notes: [] });
  // @ts-expect-error a checkpoint has the store's data type
  await store.save("step-2", { n: "two" });
  const step: Step | undefined = await store.load("step-1");
  const latest: SavedCheckpoint<Step> | undefined = await store.loadLatest();
  const listed: CheckpointInfo[] = await store.list();
  // @ts-expect-error list() carries no data
  listed[0]?.data;
  const status: StoreStatus = await store.status();
  // @ts-expect-error a status is "new", "running" or "complete"
  const paused: StoreStatus = "paused";
  const next: Step = await store.update("step-1", (current) => ({
    n: (current?.n ?? 0) + 1,
    notes: current?.notes ?? [],
  }));

  const jobs = coordinator(store);
  const planned: PlannedItem[] = await jobs.plan([{ id: "a", input: { topic: "x" } }, { id: "b" }]);
  // @ts-expect-error every planned item has an id
  await jobs.plan([{ input: 1 }]);
  await jobs.complete("a", { report: "a.md" });
  await jobs.fail("b", new Error("rate limited"));
  const manifest: Manifest = await jobs.manifest();

  // The SDK's own query() fits, and the messages come out as the SDK's types.
  const messages = recoverableQuery({
    prompt: "write a.md",
    store,
    key: "job-a",
    sdk: { query },
    options: { cwd: dir, permissionMode: "dontAsk", allowedTools: ["Read", "Write"] },
  });
  for (let m = await messages.next(); ; m = await messages.next()) {
    if (m.done) {
      const text: string | null = m.value.result;
      // @ts-expect-error resumed is a boolean
      const resumed: string = m.value.resumed;
      void [text, resumed];
      return m.value;
    }
    const message: SDKMessage = m.value;
    if (message.type === "result") void message.subtype;
  }
  void [seq, step, latest, status, paused, next, planned, manifest];
}

// Without `sdk`, the messages are the structural QueryMessage (the SDK is loaded at run time).
export async function untyped(store: CheckpointStore<unknown>): Promise<void> {
  for await (const message of recoverableQuery({ prompt: "p", store })) {
    const type: string = message.type;
    void type;
  }
}
