import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { DotagentError } from "../core/errors.js";
import { tempFolders } from "./test-support.js";
import { checkpointStore, type CheckpointStore } from "./checkpoint-store.js";
import {
  recoverableQuery,
  resumePromptFor,
  type QueryMessage,
  type QueryParams,
  type QueryRecord,
  type RecoverableResult,
} from "./recoverable-query.js";

const fresh = tempFolders("dotagent-rq-");

const init = (session: string): QueryMessage => ({ type: "system", subtype: "init", session_id: session });
const assistant = (id: string, session: string, parent: string | null = null): QueryMessage => ({
  type: "assistant",
  message: { id, content: [] },
  parent_tool_use_id: parent,
  session_id: session,
});
const user = (session: string): QueryMessage => ({ type: "user", session_id: session });
const resultMsg = (session: string, subtype = "success", text = "all done"): QueryMessage => ({
  type: "result",
  subtype,
  session_id: session,
  ...(subtype === "success" ? { result: text } : {}),
});

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

async function drain<M>(
  gen: AsyncGenerator<M, RecoverableResult>,
): Promise<{ messages: M[]; result: RecoverableResult }> {
  const messages: M[] = [];
  for (;;) {
    const next = await gen.next();
    if (next.done) return { messages, result: next.value };
    messages.push(next.value);
  }
}

const SCRIPT = [
  init("s-1"),
  assistant("m1", "s-1"),
  assistant("m1", "s-1"),
  user("s-1"),
  assistant("sub", "s-1", "toolu_1"),
  assistant("m2", "s-1"),
  resultMsg("s-1"),
];

describe("recoverableQuery", () => {
  it("records the session at init and the iteration after every turn, completes on success", async () => {
    const store = checkpointStore(fresh(), "run");
    const fake = fakeSdk([SCRIPT], store);
    const { messages, result } = await drain(
      recoverableQuery({ prompt: "do it", options: { cwd: "/x" }, store, sdk: fake.sdk }),
    );
    expect(messages).toEqual(SCRIPT);
    expect(result).toEqual({
      session_id: "s-1",
      iterations: 2,
      result: "all done",
      subtype: "success",
      resumed: false,
      replayed: false,
      is_error: false,
      error: null,
    });
    expect(fake.calls).toEqual([
      { prompt: "do it", options: { cwd: "/x", spawnClaudeCodeProcess: expect.any(Function) } },
    ]);
    // What the store held before each message: nothing, then the session, then turn 1 after the user message.
    expect(fake.seen.map((r) => r && [r.session_id, r.iteration, r.status])).toEqual([
      undefined,
      ["s-1", 0, "running"],
      ["s-1", 0, "running"],
      ["s-1", 0, "running"],
      ["s-1", 1, "running"],
      ["s-1", 1, "running"],
      ["s-1", 1, "running"],
    ]);
    expect(await store.load("query")).toEqual({
      session_id: "s-1",
      iteration: 2,
      status: "complete",
      result: "all done",
    });
  });

  it("a complete record is replayed without asking the model", async () => {
    const store = checkpointStore(fresh(), "run");
    await drain(recoverableQuery({ prompt: "p", store, sdk: fakeSdk([SCRIPT], store).sdk }));
    const fake = fakeSdk([SCRIPT], store);
    const { messages, result } = await drain(recoverableQuery({ prompt: "p", store, sdk: fake.sdk }));
    expect(messages).toEqual([]);
    expect(result).toEqual({
      session_id: "s-1",
      iterations: 2,
      result: "all done",
      subtype: "success",
      resumed: false,
      replayed: true,
      is_error: false,
      error: null,
    });
    expect(fake.calls).toEqual([]);
  });

  it("after a crash it continues the same session with the resume prompt, counting turns on", async () => {
    const store = checkpointStore(fresh(), "run");
    const crashed = fakeSdk(
      [[init("s-1"), assistant("m1", "s-1"), user("s-1"), assistant("m2", "s-1"), "crash"]],
      store,
      "job",
    );
    await expect(
      drain(recoverableQuery({ prompt: "write a.md", options: { cwd: "/x" }, store, key: "job", sdk: crashed.sdk })),
    ).rejects.toThrow("the process died");
    expect(crashed.closed()).toBe(1);
    expect(await store.load("job")).toEqual({ session_id: "s-1", iteration: 1, status: "running" });

    const fake = fakeSdk(
      [[init("s-1"), assistant("m3", "s-1"), resultMsg("s-1", "success", "wrote a.md")]],
      store,
      "job",
    );
    const { result } = await drain(
      recoverableQuery({ prompt: "write a.md", options: { cwd: "/x" }, store, key: "job", sdk: fake.sdk }),
    );
    expect(fake.calls).toEqual([
      {
        prompt: resumePromptFor("write a.md"),
        options: { cwd: "/x", resume: "s-1", spawnClaudeCodeProcess: expect.any(Function) },
      },
    ]);
    expect(resumePromptFor("write a.md")).toMatch(
      /^This session was interrupted[^\n]*\n\nThe original task:\nwrite a\.md$/,
    );
    expect(result).toEqual({
      session_id: "s-1",
      iterations: 2,
      result: "wrote a.md",
      subtype: "success",
      resumed: true,
      replayed: false,
      is_error: false,
      error: null,
    });
  });

  it("a crash before init leaves nothing to resume: the next start is fresh", async () => {
    const store = checkpointStore(fresh(), "run");
    await expect(
      drain(recoverableQuery({ prompt: "p", store, sdk: fakeSdk([["crash"]], store).sdk })),
    ).rejects.toThrow();
    expect(await store.load("query")).toBeUndefined();
    const fake = fakeSdk([SCRIPT], store);
    const { result } = await drain(recoverableQuery({ prompt: "p", store, sdk: fake.sdk, resumePrompt: "go on" }));
    expect(fake.calls[0]).toEqual({ prompt: "p", options: { spawnClaudeCodeProcess: expect.any(Function) } });
    expect(result.resumed).toBe(false);
  });

  it("an error result is returned and leaves the record running, so the next start resumes with the given prompt", async () => {
    const store = checkpointStore(fresh(), "run");
    const { result } = await drain(
      recoverableQuery({
        prompt: "p",
        store,
        sdk: fakeSdk([[init("s-9"), assistant("m1", "s-9"), resultMsg("s-9", "error_max_turns")]], store).sdk,
      }),
    );
    expect(result).toEqual({
      session_id: "s-9",
      iterations: 1,
      result: null,
      subtype: "error_max_turns",
      resumed: false,
      replayed: false,
      is_error: true,
      error: null,
    });
    expect(await store.load("query")).toEqual({ session_id: "s-9", iteration: 1, status: "running" });
    const fake = fakeSdk([[init("s-9"), resultMsg("s-9")]], store);
    const again = await drain(recoverableQuery({ prompt: "p", store, sdk: fake.sdk, resumePrompt: "go on" }));
    expect(fake.calls[0]).toEqual({
      prompt: "go on",
      options: { resume: "s-9", spawnClaudeCodeProcess: expect.any(Function) },
    });
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

  it("a resumed session the caller aborts before its init (Ctrl-C of dotagent run) keeps its session id: no fresh start", async () => {
    const store = checkpointStore(fresh(), "run");
    await store.save("query", { session_id: "s-1", iteration: 3, status: "running" });
    const abortController = new AbortController();
    abortController.abort();
    const fake = fakeSdk([["crash"], [init("s-2"), resultMsg("s-2")]], store);
    await expect(
      drain(recoverableQuery({ prompt: "p", options: { abortController }, store, sdk: fake.sdk })),
    ).rejects.toThrow("the process died");
    expect(fake.calls).toHaveLength(1);
    expect(await store.load("query")).toMatchObject({ session_id: "s-1", status: "running" });
  });

  it("a resumed session answered by an error result before its init (no transcript) is started afresh, once", async () => {
    const store = checkpointStore(fresh(), "run");
    await store.save("query", { session_id: "lost", iteration: 0, status: "running" });
    const noConversation = {
      type: "result",
      subtype: "error_during_execution",
      errors: ["No conversation found with session ID: lost"],
    };
    const fake = fakeSdk([[noConversation], [init("s-3"), resultMsg("s-3", "error_max_turns")]], store);
    const { messages, result } = await drain(recoverableQuery({ prompt: "p", store, sdk: fake.sdk }));
    expect(fake.calls.map((c) => [c.prompt, c.options?.resume])).toEqual([
      [resumePromptFor("p"), "lost"],
      ["p", undefined],
    ]);
    expect(messages.map((m) => m.type)).toEqual(["system", "result"]); // the failed resume is not passed on
    expect(result).toMatchObject({ session_id: "s-3", resumed: false, subtype: "error_max_turns" });
    // An error result after init is the session's own outcome: returned, nothing started afresh.
    const again = fakeSdk([[init("s-3"), resultMsg("s-3", "error_during_execution")]], store);
    expect((await drain(recoverableQuery({ prompt: "p", store, sdk: again.sdk }))).result).toMatchObject({
      resumed: true,
      subtype: "error_during_execution",
    });
    expect(again.calls).toHaveLength(1);
  });

  it("a stream that ends without a result stays running and says so", async () => {
    const store = checkpointStore(fresh(), "run");
    const { result } = await drain(
      recoverableQuery({ prompt: "p", store, sdk: fakeSdk([[init("s-1"), assistant("m1", "s-1")]], store).sdk }),
    );
    expect(result).toMatchObject({ subtype: "no_result", result: null, iterations: 1 });
    expect(await store.status()).toBe("running");
  });

  it("a caller that stops early ends the SDK's query", async () => {
    const store = checkpointStore(fresh(), "run");
    const fake = fakeSdk([SCRIPT], store);
    for await (const message of recoverableQuery({ prompt: "p", store, sdk: fake.sdk }))
      if (message.type === "assistant") break;
    expect(fake.closed()).toBe(1);
    expect(await store.load("query")).toMatchObject({ session_id: "s-1", status: "running" });
  });

  it("a hand-edited record is exit 3 naming the file", async () => {
    const dir = fresh();
    const store = checkpointStore(dir, "run");
    await store.save("query", { session_id: 5, iteration: "x" });
    const err = await drain(recoverableQuery({ prompt: "p", store, sdk: fakeSdk([SCRIPT], store).sdk })).catch(
      (e: unknown) => e as DotagentError,
    );
    expect(err).toBeInstanceOf(DotagentError);
    expect([(err as DotagentError).code, (err as DotagentError).exitCode]).toEqual(["checkpoint_invalid", 3]);
    expect((err as DotagentError).message).toContain(join(dir, "run", "query.checkpoint.json"));
    writeFileSync(join(dir, "run", "query.checkpoint.json"), "{");
    await expect(
      drain(recoverableQuery({ prompt: "p", store, sdk: fakeSdk([SCRIPT], store).sdk })),
    ).rejects.toMatchObject({ code: "checkpoint_invalid" });
  });
});

describe("issue 21: what Claude Code reports, and the process it leaves", () => {
  it("case 9: a result with is_error (subtype success: 'Not logged in') is an error: not completed, is_error and the assistant's error code returned", async () => {
    const store = checkpointStore(fresh(), "run");
    // What Claude Code 2.1 sends with no credentials (see docs/api.md): a synthetic assistant message, then the result.
    const notLoggedIn: QueryMessage[] = [
      init("s-1"),
      {
        type: "assistant",
        message: { id: "m1", content: [{ type: "text", text: "Not logged in · Please run /login" }] },
        parent_tool_use_id: null,
        session_id: "s-1",
        error: "authentication_failed",
        is_api_error_message: true,
      },
      {
        type: "result",
        subtype: "success",
        is_error: true,
        result: "Not logged in · Please run /login",
        session_id: "s-1",
        terminal_reason: "api_error",
      },
    ];
    const { result } = await drain(recoverableQuery({ prompt: "p", store, sdk: fakeSdk([notLoggedIn], store).sdk }));
    expect(result).toMatchObject({
      session_id: "s-1",
      result: null,
      subtype: "success",
      is_error: true,
      error: "authentication_failed",
      replayed: false,
    });
    expect(await store.load("query")).toMatchObject({ status: "running", session_id: "s-1" });
    // The next start resumes instead of replaying a "success".
    const again = fakeSdk([[init("s-1"), resultMsg("s-1")]], store);
    expect((await drain(recoverableQuery({ prompt: "p", store, sdk: again.sdk }))).result).toMatchObject({
      resumed: true,
      is_error: false,
      result: "all done",
    });
  });

  it("case 4: the Claude Code process is recorded; a start while the process of a killed program still runs is refused (query_running, exit 4); when it ends, the query continues", async () => {
    const store = checkpointStore(fresh(), "run");
    let child: import("node:child_process").ChildProcess | undefined;
    const sdk = {
      query({ options }: QueryParams): AsyncIterable<QueryMessage> {
        return (async function* () {
          // As the real SDK does: spawn Claude Code through the option, then talk to it.
          const spawnIt = options?.spawnClaudeCodeProcess as (o: {
            command: string;
            args: string[];
            env: Record<string, string | undefined>;
          }) => import("node:child_process").ChildProcess;
          child = spawnIt({
            command: process.execPath,
            args: ["-e", "setTimeout(() => {}, 60000)"],
            env: { ...process.env },
          });
          yield init("s-1");
          yield assistant("m1", "s-1");
          throw new Error("the program was killed"); // the host dies; its agent process does not
        })();
      },
    };
    await expect(drain(recoverableQuery({ prompt: "p", store, sdk }))).rejects.toThrow("killed");
    const record = (await store.load("query")) as QueryRecord;
    expect(record.process).toMatchObject({ pid: child!.pid, host: expect.any(String) });
    try {
      const second = fakeSdk([[init("s-1"), resultMsg("s-1")]], store);
      const err = await drain(recoverableQuery({ prompt: "p", store, sdk: second.sdk })).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DotagentError);
      expect(err).toMatchObject({ code: "query_running", exitCode: 4, details: { pid: child!.pid } });
      expect((err as Error).message).toContain(`kill ${child!.pid}`);
      expect(second.calls).toHaveLength(0); // no second agent
    } finally {
      child!.kill("SIGKILL");
      await new Promise((resolve) => child!.once("exit", resolve));
    }
    const third = fakeSdk([[init("s-1"), resultMsg("s-1")]], store);
    expect((await drain(recoverableQuery({ prompt: "p", store, sdk: third.sdk }))).result).toMatchObject({
      resumed: true,
      result: "all done",
    });
    expect(await store.load("query")).not.toHaveProperty("process");
  });

  it("case 4: a recorded pid that now belongs to another process (start time differs) is not the agent", async () => {
    const store = checkpointStore(fresh(), "run");
    const { currentHost, processStartTime } = await import("../store/process-facts.js");
    if (processStartTime(process.pid) === null) return; // no /proc: only liveness counts there
    await store.save("query", {
      session_id: "s-1",
      iteration: 0,
      status: "running",
      process: { pid: process.pid, pid_start: "1", host: currentHost(), started_at: "2026-11-20T10:00:00Z" },
    });
    const fake = fakeSdk([[init("s-1"), resultMsg("s-1")]], store);
    expect((await drain(recoverableQuery({ prompt: "p", store, sdk: fake.sdk }))).result).toMatchObject({
      resumed: true,
    });
  });

  it("case 4: a recorded process that has exited but is not yet reaped (a zombie) is not running", async () => {
    const store = checkpointStore(fresh(), "run");
    const { currentHost, processStartTime, isZombie } = await import("../store/process-facts.js");
    if (processStartTime(process.pid) === null) return; // no /proc: no process states to read
    const { spawnZombie } = await import("../store/zombie.test-support.js");
    const { parent, pid } = await spawnZombie(60);
    onTestFinished(() => void parent.kill("SIGKILL"));
    const start = processStartTime(pid);
    // A loaded machine may take a while to see the child end: wait up to 10 s.
    for (const deadline = Date.now() + 10_000; !isZombie(pid) && Date.now() < deadline;)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(isZombie(pid)).toBe(true);
    await store.save("query", {
      session_id: "s-1",
      iteration: 0,
      status: "running",
      process: { pid, pid_start: start, host: currentHost(), started_at: "2026-11-20T10:00:00Z" },
    });
    const fake = fakeSdk([[init("s-1"), resultMsg("s-1")]], store);
    expect((await drain(recoverableQuery({ prompt: "p", store, sdk: fake.sdk }))).result).toMatchObject({
      resumed: true,
    });
  });
});
