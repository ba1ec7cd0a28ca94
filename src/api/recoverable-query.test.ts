import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DotagentError } from "../core/errors.js";
import { tempFolders } from "./test-support.js";
import { checkpointStore, type CheckpointStore } from "./checkpoint-store.js";
import { recoverableQuery, resumePromptFor, type QueryMessage, type QueryParams, type QueryRecord, type RecoverableResult } from "./recoverable-query.js";

const fresh = tempFolders("dotagent-rq-");

const init = (session: string): QueryMessage => ({ type: "system", subtype: "init", session_id: session });
const assistant = (id: string, session: string, parent: string | null = null): QueryMessage => ({ type: "assistant", message: { id, content: [] }, parent_tool_use_id: parent, session_id: session });
const user = (session: string): QueryMessage => ({ type: "user", session_id: session });
const resultMsg = (session: string, subtype = "success", text = "all done"): QueryMessage => ({ type: "result", subtype, session_id: session, ...(subtype === "success" ? { result: text } : {}) });

/**
 * A stand-in for the SDK: each call plays the next script; "crash" throws there (the process dying
 * as far as the record is concerned), and `seen` records what the store held at each message.
 */
function fakeSdk(scripts: Array<Array<QueryMessage | "crash">>, store: CheckpointStore<unknown>, key = "query") {
  const calls: QueryParams[] = [];
  const seen: Array<QueryRecord | undefined> = [];
  let closed = 0;
  return {
    calls,
    seen,
    closed: () => closed,
    sdk: {
      query(params: QueryParams): AsyncIterable<QueryMessage> {
        calls.push(params);
        const script = scripts.shift() ?? [];
        return (async function* () {
          try {
            for (const step of script) {
              seen.push((await store.load(key)) as QueryRecord | undefined);
              if (step === "crash") throw new Error("the process died");
              yield step;
            }
          } finally {
            closed++;
          }
        })();
      },
    },
  };
}

async function drain<M>(gen: AsyncGenerator<M, RecoverableResult>): Promise<{ messages: M[]; result: RecoverableResult }> {
  const messages: M[] = [];
  for (;;) {
    const next = await gen.next();
    if (next.done) return { messages, result: next.value };
    messages.push(next.value);
  }
}

const SCRIPT = [init("s-1"), assistant("m1", "s-1"), assistant("m1", "s-1"), user("s-1"), assistant("sub", "s-1", "toolu_1"), assistant("m2", "s-1"), resultMsg("s-1")];

describe("recoverableQuery", () => {
  it("records the session at init and the iteration after every turn, completes on success", async () => {
    const store = checkpointStore(fresh(), "run");
    const fake = fakeSdk([SCRIPT], store);
    const { messages, result } = await drain(recoverableQuery({ prompt: "do it", options: { cwd: "/x" }, store, sdk: fake.sdk }));
    expect(messages).toEqual(SCRIPT);
    expect(result).toEqual({ session_id: "s-1", iterations: 2, result: "all done", subtype: "success", resumed: false, replayed: false });
    expect(fake.calls).toEqual([{ prompt: "do it", options: { cwd: "/x" } }]);
    // What the store held before each message: nothing, then the session, then turn 1 after the user message.
    expect(fake.seen.map((r) => r && [r.session_id, r.iteration, r.status])).toEqual([
      undefined, ["s-1", 0, "running"], ["s-1", 0, "running"], ["s-1", 0, "running"], ["s-1", 1, "running"], ["s-1", 1, "running"], ["s-1", 1, "running"],
    ]);
    expect(await store.load("query")).toEqual({ session_id: "s-1", iteration: 2, status: "complete", result: "all done" });
  });

  it("a complete record is replayed without asking the model", async () => {
    const store = checkpointStore(fresh(), "run");
    await drain(recoverableQuery({ prompt: "p", store, sdk: fakeSdk([SCRIPT], store).sdk }));
    const fake = fakeSdk([SCRIPT], store);
    const { messages, result } = await drain(recoverableQuery({ prompt: "p", store, sdk: fake.sdk }));
    expect(messages).toEqual([]);
    expect(result).toEqual({ session_id: "s-1", iterations: 2, result: "all done", subtype: "success", resumed: false, replayed: true });
    expect(fake.calls).toEqual([]);
  });

  it("after a crash it continues the same session with the resume prompt, counting turns on", async () => {
    const store = checkpointStore(fresh(), "run");
    const crashed = fakeSdk([[init("s-1"), assistant("m1", "s-1"), user("s-1"), assistant("m2", "s-1"), "crash"]], store, "job");
    await expect(drain(recoverableQuery({ prompt: "write a.md", options: { cwd: "/x" }, store, key: "job", sdk: crashed.sdk }))).rejects.toThrow("the process died");
    expect(crashed.closed()).toBe(1);
    expect(await store.load("job")).toEqual({ session_id: "s-1", iteration: 1, status: "running" });

    const fake = fakeSdk([[init("s-1"), assistant("m3", "s-1"), resultMsg("s-1", "success", "wrote a.md")]], store, "job");
    const { result } = await drain(recoverableQuery({ prompt: "write a.md", options: { cwd: "/x" }, store, key: "job", sdk: fake.sdk }));
    expect(fake.calls).toEqual([{ prompt: resumePromptFor("write a.md"), options: { cwd: "/x", resume: "s-1" } }]);
    expect(resumePromptFor("write a.md")).toMatch(/^This session was interrupted[^\n]*\n\nThe original task:\nwrite a\.md$/);
    expect(result).toEqual({ session_id: "s-1", iterations: 2, result: "wrote a.md", subtype: "success", resumed: true, replayed: false });
  });

  it("a crash before init leaves nothing to resume: the next start is fresh", async () => {
    const store = checkpointStore(fresh(), "run");
    await expect(drain(recoverableQuery({ prompt: "p", store, sdk: fakeSdk([["crash"]], store).sdk }))).rejects.toThrow();
    expect(await store.load("query")).toBeUndefined();
    const fake = fakeSdk([SCRIPT], store);
    const { result } = await drain(recoverableQuery({ prompt: "p", store, sdk: fake.sdk, resumePrompt: "go on" }));
    expect(fake.calls[0]).toEqual({ prompt: "p", options: {} });
    expect(result.resumed).toBe(false);
  });

  it("an error result is returned and leaves the record running, so the next start resumes with the given prompt", async () => {
    const store = checkpointStore(fresh(), "run");
    const { result } = await drain(recoverableQuery({ prompt: "p", store, sdk: fakeSdk([[init("s-9"), assistant("m1", "s-9"), resultMsg("s-9", "error_max_turns")]], store).sdk }));
    expect(result).toEqual({ session_id: "s-9", iterations: 1, result: null, subtype: "error_max_turns", resumed: false, replayed: false });
    expect(await store.load("query")).toEqual({ session_id: "s-9", iteration: 1, status: "running" });
    const fake = fakeSdk([[init("s-9"), resultMsg("s-9")]], store);
    const again = await drain(recoverableQuery({ prompt: "p", store, sdk: fake.sdk, resumePrompt: "go on" }));
    expect(fake.calls[0]).toEqual({ prompt: "go on", options: { resume: "s-9" } });
    expect(again.result).toMatchObject({ resumed: true, subtype: "success", iterations: 1 });
  });

  it("a session that cannot be resumed (fails before its first message) is started afresh", async () => {
    const store = checkpointStore(fresh(), "run");
    await store.save("query", { session_id: "gone", iteration: 3, status: "running" });
    const fake = fakeSdk([["crash"], [init("s-2"), assistant("m1", "s-2"), resultMsg("s-2")]], store);
    const { result } = await drain(recoverableQuery({ prompt: "p", store, sdk: fake.sdk }));
    expect(fake.calls.map((c) => c.options?.resume)).toEqual(["gone", undefined]);
    expect(result).toMatchObject({ session_id: "s-2", resumed: false, iterations: 4 });
  });

  it("a resumed session answered by an error result before its init (no transcript) is started afresh, once", async () => {
    const store = checkpointStore(fresh(), "run");
    await store.save("query", { session_id: "lost", iteration: 0, status: "running" });
    const noConversation = { type: "result", subtype: "error_during_execution", errors: ["No conversation found with session ID: lost"] };
    const fake = fakeSdk([[noConversation], [init("s-3"), resultMsg("s-3", "error_max_turns")]], store);
    const { messages, result } = await drain(recoverableQuery({ prompt: "p", store, sdk: fake.sdk }));
    expect(fake.calls.map((c) => [c.prompt, c.options?.resume])).toEqual([[resumePromptFor("p"), "lost"], ["p", undefined]]);
    expect(messages.map((m) => m.type)).toEqual(["system", "result"]); // the failed resume is not passed on
    expect(result).toMatchObject({ session_id: "s-3", resumed: false, subtype: "error_max_turns" });
    // An error result after init is the session's own outcome: returned, nothing started afresh.
    const again = fakeSdk([[init("s-3"), resultMsg("s-3", "error_during_execution")]], store);
    expect((await drain(recoverableQuery({ prompt: "p", store, sdk: again.sdk }))).result).toMatchObject({ resumed: true, subtype: "error_during_execution" });
    expect(again.calls).toHaveLength(1);
  });

  it("a stream that ends without a result stays running and says so", async () => {
    const store = checkpointStore(fresh(), "run");
    const { result } = await drain(recoverableQuery({ prompt: "p", store, sdk: fakeSdk([[init("s-1"), assistant("m1", "s-1")]], store).sdk }));
    expect(result).toMatchObject({ subtype: "no_result", result: null, iterations: 1 });
    expect(await store.status()).toBe("running");
  });

  it("a caller that stops early ends the SDK's query", async () => {
    const store = checkpointStore(fresh(), "run");
    const fake = fakeSdk([SCRIPT], store);
    for await (const message of recoverableQuery({ prompt: "p", store, sdk: fake.sdk })) if (message.type === "assistant") break;
    expect(fake.closed()).toBe(1);
    expect(await store.load("query")).toMatchObject({ session_id: "s-1", status: "running" });
  });

  it("a hand-edited record is exit 3 naming the file", async () => {
    const dir = fresh();
    const store = checkpointStore(dir, "run");
    await store.save("query", { session_id: 5, iteration: "x" });
    const err = await drain(recoverableQuery({ prompt: "p", store, sdk: fakeSdk([SCRIPT], store).sdk })).catch((e: unknown) => e as DotagentError);
    expect(err).toBeInstanceOf(DotagentError);
    expect([(err as DotagentError).code, (err as DotagentError).exitCode]).toEqual(["checkpoint_invalid", 3]);
    expect((err as DotagentError).message).toContain(join(dir, "run", "query.checkpoint.json"));
    writeFileSync(join(dir, "run", "query.checkpoint.json"), "{");
    await expect(drain(recoverableQuery({ prompt: "p", store, sdk: fakeSdk([SCRIPT], store).sdk }))).rejects.toMatchObject({ code: "checkpoint_invalid" });
  });
});
