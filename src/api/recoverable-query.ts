// recoverableQuery: the Claude Agent SDK's query() with a checkpoint under `key`, so a program
// killed mid-conversation continues that conversation on its next start instead of starting over,
// and a finished one is never asked again.
//
// The record `{ session_id, iteration, status, result? }` is saved when the init message names
// the session, after every completed assistant turn, and at the result. On start:
//   complete record            → nothing is asked; the saved result is returned (replayed)
//   running, with a session id → query({ prompt: resumePrompt, options: { ...options, resume } })
//   anything else              → a fresh query
// A success result completes the record; an error result leaves it running, so the next start
// resumes. The SDK is an optional peer dependency: it is imported here, on the first call that
// needs it, and nowhere else (the CLI and the library load without it).
import { DotagentError, EXIT } from "../core/errors.js";
import type { CheckpointStore } from "./checkpoint-store.js";

/** The fields of an SDK message this module reads; the SDK's SDKMessage fits it. */
export interface QueryMessage {
  readonly type: string;
  readonly [field: string]: unknown;
}

export interface QueryParams {
  prompt: string;
  options?: Record<string, unknown>;
}

/** The SDK, or a stand-in with its query() (tests). A method, so the SDK's own query type fits. */
export interface QuerySdk<M extends QueryMessage> {
  query(params: QueryParams): AsyncIterable<M>;
}

export interface RecoverableQueryParams<M extends QueryMessage> {
  prompt: string;
  /** The SDK's query options (cwd, systemPrompt, allowedTools, permissionMode, env, …); `resume` is set when continuing. */
  options?: Record<string, unknown>;
  store: CheckpointStore<unknown>;
  /** The checkpoint id of this query's record (default "query"). */
  key?: string;
  /** The prompt sent when an interrupted session is continued (default: resumePromptFor(prompt)). */
  resumePrompt?: string;
  sdk?: QuerySdk<M>;
}

export interface RecoverableResult {
  session_id: string | null;
  /** Completed assistant turns, across every start of this query. */
  iterations: number;
  /** The success result's text; null on an error result or when the stream ended without one. */
  result: string | null;
  /** The result message's subtype ("success", "error_max_turns", …), or "no_result" when the stream ended without one. */
  subtype: string;
  /** True when this start continued an interrupted session. */
  resumed: boolean;
  /** True when the record was already complete: nothing was asked. */
  replayed: boolean;
}

export interface QueryRecord {
  session_id: string | null;
  iteration: number;
  status: "running" | "complete";
  result?: string;
}

const SDK_PACKAGE = "@anthropic-ai/claude-agent-sdk";

/** The default prompt for continuing an interrupted session: one sentence, then the original task. */
export function resumePromptFor(prompt: string): string {
  return `This session was interrupted before you finished; continue the original task from where it stopped, without redoing finished work.\n\nThe original task:\n${prompt}`;
}

export async function* recoverableQuery<M extends QueryMessage = QueryMessage>(params: RecoverableQueryParams<M>): AsyncGenerator<M, RecoverableResult> {
  const { prompt, options = {}, store, key = "query", sdk } = params;
  const records = store as CheckpointStore<QueryRecord>;
  const saved = readRecord(await records.load(key), store.path, key);
  if (saved?.status === "complete") {
    return { session_id: saved.session_id, iterations: saved.iteration, result: saved.result ?? null, subtype: "success", resumed: false, replayed: true };
  }
  const query = sdk ? (p: QueryParams) => sdk.query(p) : await loadSdkQuery<M>();
  let resumed = typeof saved?.session_id === "string";
  let record: QueryRecord = { session_id: saved?.session_id ?? null, iteration: saved?.iteration ?? 0, status: "running" };
  const save = async (next: QueryRecord) => {
    record = next;
    await records.save(key, next);
  };
  const start = () =>
    (resumed
      ? query({ prompt: params.resumePrompt ?? resumePromptFor(prompt), options: { ...options, resume: record.session_id } })
      : query({ prompt, options }))[Symbol.asyncIterator]();

  let messages = start();
  let sawInit = false;
  /**
   * A session that cannot be continued fails before its init message: it throws, or (Claude Code
   * 2.1) answers an error result "No conversation found with session ID", as when a kill -9 came
   * before its transcript reached the disk. Starting the task afresh is then what a person would
   * do by hand; a fresh start that fails the same way (no binary, an abort) fails as it is.
   */
  const cannotResume = () => resumed && !sawInit;
  const startAfresh = async () => {
    await messages.return?.(undefined);
    resumed = false;
    await save({ ...record, session_id: null });
    messages = start();
  };

  // The turn in progress: an assistant turn completes when anything but its own next block arrives.
  let openTurn: unknown = null;
  const closeTurn = async () => {
    if (openTurn === null) return;
    openTurn = null;
    await save({ ...record, iteration: record.iteration + 1 });
  };
  const finish = (sessionId: string | null, result: string | null, subtype: string): RecoverableResult => ({ session_id: sessionId, iterations: record.iteration, result, subtype, resumed, replayed: false });
  let done = false;
  try {
    for (;;) {
      let next: IteratorResult<M>;
      try {
        next = await messages.next();
      } catch (error) {
        if (!cannotResume()) throw error;
        await startAfresh();
        continue;
      }
      if (next.done) break;
      const message = next.value;
      if (message.type === "result" && message.subtype !== "success" && cannotResume()) {
        await startAfresh();
        continue;
      }
      if (message.type === "system" && message.subtype === "init" && typeof message.session_id === "string") {
        sawInit = true;
        if (message.session_id !== record.session_id) await save({ ...record, session_id: message.session_id });
      } else if (message.type === "assistant" && (message.parent_tool_use_id ?? null) === null) {
        const turn = (message.message as { id?: unknown } | undefined)?.id ?? message.uuid ?? {};
        if (openTurn !== null && turn !== openTurn) await closeTurn();
        openTurn = turn;
      } else if (message.type === "user" || message.type === "result") {
        await closeTurn();
      }
      if (message.type === "result") {
        done = true;
        const sessionId = typeof message.session_id === "string" ? message.session_id : record.session_id;
        const subtype = typeof message.subtype === "string" ? message.subtype : "unknown";
        if (subtype === "success") {
          const text = typeof message.result === "string" ? message.result : "";
          await save({ session_id: sessionId, iteration: record.iteration, status: "complete", result: text });
          yield message;
          return finish(sessionId, text, subtype);
        }
        if (sessionId !== record.session_id) await save({ ...record, session_id: sessionId });
        yield message;
        return finish(sessionId, null, subtype);
      }
      yield message;
    }
    done = true;
    await closeTurn();
    return finish(record.session_id, null, "no_result");
  } finally {
    // The caller stopped early (break, return, an error): end the SDK's query and its process.
    if (!done) await messages.return?.(undefined);
  }
}

/** The saved record, checked: a hand-edited one is exit 3 naming the store and key. */
function readRecord(raw: unknown, path: string, key: string): QueryRecord | undefined {
  if (raw === undefined) return undefined;
  const r = raw as Partial<QueryRecord> | null;
  const ok =
    typeof r === "object" && r !== null &&
    (r.session_id === null || typeof r.session_id === "string") &&
    Number.isSafeInteger(r.iteration) && (r.iteration as number) >= 0 &&
    (r.status === "running" || r.status === "complete") &&
    (r.result === undefined || typeof r.result === "string");
  if (!ok) {
    throw new DotagentError("checkpoint_invalid", `${path}/${key}.checkpoint.json: not a query record ({ session_id, iteration, status, result? }); use another key, or clear() the store`, EXIT.invalid);
  }
  return r as QueryRecord;
}

async function loadSdkQuery<M extends QueryMessage>(): Promise<(p: QueryParams) => AsyncIterable<M>> {
  let sdk: { query?: unknown };
  try {
    // External in both builds (scripts/build.mjs): loaded from the user's node_modules, only here.
    sdk = (await import("@anthropic-ai/claude-agent-sdk")) as { query?: unknown };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if ((code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") && String((error as Error).message).includes(SDK_PACKAGE)) {
      throw new DotagentError("sdk_missing", `recoverableQuery needs the Claude Agent SDK: npm install ${SDK_PACKAGE}`, EXIT.refused);
    }
    throw error;
  }
  if (typeof sdk.query !== "function") throw new DotagentError("sdk_missing", `${SDK_PACKAGE} has no query(); npm install ${SDK_PACKAGE}@0.3`, EXIT.refused);
  return sdk.query as (p: QueryParams) => AsyncIterable<M>;
}
