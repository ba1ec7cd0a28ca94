// recoverableQuery: the Claude Agent SDK's query() with a checkpoint under `key`, so a program
// killed mid-conversation continues that conversation on its next start instead of starting over,
// and a finished one is never asked again.
//
// The record `{ session_id, iteration, status, result? }` is saved when the init message names
// the session, after every completed assistant turn, and at the result. On start:
//   complete record            → nothing is asked; the saved result is returned (replayed)
//   running, with a session id → query({ prompt: resumePrompt, options: { ...options, resume } })
//   anything else              → a fresh query
// A success result completes the record; an error result (an error subtype, or `is_error: true`,
// which Claude Code sends with subtype "success" when the turn ended on an API or login error)
// leaves it running, so the next start resumes. The SDK is an optional peer dependency: it is
// imported here, on the first call that needs it, and nowhere else (the CLI and the library load
// without it).
//
// The Claude Code process the SDK starts is recorded in the record (`process`: pid, start time,
// host) through the SDK's `spawnClaudeCodeProcess` option, and forgotten when the query ends. A
// program killed with kill -9 leaves that process running; while it lives, a new start of the same
// query is refused (`query_running`, exit 4) instead of starting a second agent on the same job.
import type { ChildProcess, SpawnOptions as NodeSpawnOptions } from "node:child_process";
import { DotagentError, EXIT } from "../core/errors.js";
import { currentHost, hasEnded, isPidAlive, processStartTime } from "../store/process-facts.js";
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
  /** True when the result message said `is_error` (or had an error subtype): not a success, whatever its subtype. */
  is_error: boolean;
  /** The SDK's error code for the turn that ended it (an assistant message's `error`: "authentication_failed", "rate_limit", …), else null. */
  error: string | null;
}

/** The Claude Code process of a query that is (or was, when its program was killed) running. */
export interface QueryProcess {
  pid: number;
  /** Field 22 of /proc/<pid>/stat (start time); null where there is no /proc. */
  pid_start: string | null;
  host: string;
  started_at: string;
}

export interface QueryRecord {
  session_id: string | null;
  iteration: number;
  status: "running" | "complete";
  result?: string;
  /** Set while the query's Claude Code process runs; absent once the query ended. */
  process?: QueryProcess;
}

const SDK_PACKAGE = "@anthropic-ai/claude-agent-sdk";

/** The default prompt for continuing an interrupted session: one sentence, then the original task. */
export function resumePromptFor(prompt: string): string {
  return `This session was interrupted before you finished; continue the original task from where it stopped, without redoing finished work.\n\nThe original task:\n${prompt}`;
}

export async function* recoverableQuery<M extends QueryMessage = QueryMessage>(
  params: RecoverableQueryParams<M>,
): AsyncGenerator<M, RecoverableResult> {
  const { prompt, options = {}, store, key = "query", sdk } = params;
  const records = store as CheckpointStore<QueryRecord>;
  const saved = readRecord(await records.load(key), store.path, key);
  if (saved?.status === "complete") {
    return {
      session_id: saved.session_id,
      iterations: saved.iteration,
      result: saved.result ?? null,
      subtype: "success",
      resumed: false,
      replayed: true,
      is_error: false,
      error: null,
    };
  }
  const survivor = saved?.process === undefined ? undefined : liveProcess(saved.process);
  if (survivor !== undefined) {
    throw new DotagentError(
      "query_running",
      `${store.path}/${key}.checkpoint.json: the Claude Code process of an earlier start (pid ${survivor.pid}, since ${survivor.started_at}) is still running: its program was stopped but the agent was not; wait for it to end, or stop it (kill ${survivor.pid}), then start again`,
      EXIT.locked,
      { key, pid: survivor.pid },
    );
  }
  const query = sdk ? (p: QueryParams) => sdk.query(p) : await loadSdkQuery<M>();
  let resumed = typeof saved?.session_id === "string";
  let record: QueryRecord = {
    session_id: saved?.session_id ?? null,
    iteration: saved?.iteration ?? 0,
    status: "running",
  };
  const save = async (next: QueryRecord) => {
    record = next;
    await records.save(key, next);
  };
  // The Claude Code process, recorded as soon as it is spawned (the save is awaited before the next message).
  let pendingSave: Promise<void> = Promise.resolve();
  const tracked = {
    ...options,
    spawnClaudeCodeProcess: trackingSpawner(options, (process) => {
      pendingSave = pendingSave.then(() => save({ ...record, process }));
    }),
  };
  const start = () =>
    (resumed
      ? query({
          prompt: params.resumePrompt ?? resumePromptFor(prompt),
          options: { ...tracked, resume: record.session_id },
        })
      : query({ prompt, options: tracked }))[Symbol.asyncIterator]();

  let messages = start();
  let sawInit = false;
  /**
   * A session that cannot be continued fails before its init message: it throws, or (Claude Code
   * 2.1) answers an error result "No conversation found with session ID", as when a kill -9 came
   * before its transcript reached the disk. Starting the task afresh is then what a person would
   * do by hand; a fresh start that fails the same way (no binary, an abort) fails as it is. A
   * session the caller aborted (the SDK's abortController) keeps its session id: its end says
   * nothing about the resume, and the next start resumes it.
   */
  const callerAborted = () =>
    (options.abortController as { signal?: { aborted?: unknown } } | undefined)?.signal?.aborted === true;
  const cannotResume = () => resumed && !sawInit && !callerAborted();
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
  /** The error code of the last top-level assistant message that carried one (an API or login error). */
  let turnError: string | null = null;
  const finish = (
    sessionId: string | null,
    result: string | null,
    subtype: string,
    isError: boolean,
  ): RecoverableResult => ({
    session_id: sessionId,
    iterations: record.iteration,
    result,
    subtype,
    resumed,
    replayed: false,
    is_error: isError,
    error: isError ? turnError : null,
  });
  /** The record once the query ended: its process is no longer this query's. */
  const ended = (next: QueryRecord): QueryRecord => {
    const { process: _ended, ...rest } = next;
    return rest;
  };
  let done = false;
  try {
    for (;;) {
      let next: IteratorResult<M>;
      try {
        next = await messages.next();
      } catch (error) {
        await pendingSave;
        if (!cannotResume()) throw error;
        await startAfresh();
        continue;
      }
      await pendingSave;
      if (next.done) break;
      const message = next.value;
      const isError = message.type === "result" && (message.subtype !== "success" || message.is_error === true);
      if (isError && cannotResume()) {
        await startAfresh();
        continue;
      }
      if (message.type === "system" && message.subtype === "init" && typeof message.session_id === "string") {
        sawInit = true;
        if (message.session_id !== record.session_id) await save({ ...record, session_id: message.session_id });
      } else if (message.type === "assistant" && (message.parent_tool_use_id ?? null) === null) {
        if (typeof message.error === "string") turnError = message.error;
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
        if (!isError) {
          const text = typeof message.result === "string" ? message.result : "";
          await save({ session_id: sessionId, iteration: record.iteration, status: "complete", result: text });
          yield message;
          return finish(sessionId, text, subtype, false);
        }
        await save(ended({ ...record, session_id: sessionId }));
        yield message;
        return finish(sessionId, null, subtype, true);
      }
      yield message;
    }
    done = true;
    await closeTurn();
    if (record.process !== undefined) await save(ended(record));
    return finish(record.session_id, null, "no_result", false);
  } finally {
    // The caller stopped early (break, return, an error): end the SDK's query and its process.
    if (!done) await messages.return?.(undefined);
  }
}

/** The recorded process when it is still the one that was recorded, alive on this host; else undefined. */
export function liveProcess(recorded: QueryProcess): QueryProcess | undefined {
  if (recorded.host !== currentHost() || !isPidAlive(recorded.pid) || hasEnded(recorded.pid)) return undefined;
  const start = processStartTime(recorded.pid);
  if (start !== null && recorded.pid_start !== null && start !== recorded.pid_start) return undefined; // the pid was reused
  return recorded;
}

/** The SDK's spawner, as its options name it (a structural type: the SDK is not loaded here). */
type Spawner = (options: {
  command: string;
  args: string[];
  cwd?: string;
  env: Record<string, string | undefined>;
  signal?: AbortSignal;
}) => unknown;

/**
 * `spawnClaudeCodeProcess` that reports the process it starts: the caller's own spawner (a VM, a
 * container), else a local spawn like the SDK's own. Its stderr is drained (to the `stderr`
 * option when one is given) so a chatty process never blocks on a full pipe.
 */
function trackingSpawner(options: Record<string, unknown>, onSpawned: (process: QueryProcess) => void): Spawner {
  const own =
    typeof options.spawnClaudeCodeProcess === "function" ? (options.spawnClaudeCodeProcess as Spawner) : undefined;
  const onStderr = typeof options.stderr === "function" ? (options.stderr as (text: string) => void) : undefined;
  return (spawnOptions) => {
    const child = own ? own(spawnOptions) : spawnLocal(spawnOptions, onStderr);
    const pid = (child as { pid?: unknown } | null)?.pid;
    if (typeof pid === "number" && Number.isSafeInteger(pid) && pid > 0) {
      onSpawned({ pid, pid_start: processStartTime(pid), host: currentHost(), started_at: new Date().toISOString() });
    }
    return child;
  };
}

function spawnLocal(options: Parameters<Spawner>[0], onStderr: ((text: string) => void) | undefined): ChildProcess {
  const { spawn } = process.getBuiltinModule("node:child_process");
  const spawnOptions: NodeSpawnOptions = {
    cwd: options.cwd,
    env: options.env as NodeJS.ProcessEnv,
    stdio: ["pipe", "pipe", "pipe"],
    windowsHide: true,
    ...(options.signal ? { signal: options.signal } : {}),
  };
  const child = spawn(options.command, options.args, spawnOptions);
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (text: string) => {
    try {
      onStderr?.(text);
    } catch {
      // the caller's stderr callback failing never stops the agent
    }
  });
  child.stderr?.on("error", () => {});
  return child;
}

/** The saved record, checked: a hand-edited one is exit 3 naming the store and key. */
function readRecord(raw: unknown, path: string, key: string): QueryRecord | undefined {
  if (raw === undefined) return undefined;
  const r = raw as Partial<QueryRecord> | null;
  const ok =
    typeof r === "object" &&
    r !== null &&
    (r.session_id === null || typeof r.session_id === "string") &&
    Number.isSafeInteger(r.iteration) &&
    (r.iteration as number) >= 0 &&
    (r.status === "running" || r.status === "complete") &&
    (r.result === undefined || typeof r.result === "string") &&
    (r.process === undefined || isProcess(r.process));
  if (!ok) {
    throw new DotagentError(
      "checkpoint_invalid",
      `${path}/${key}.checkpoint.json: not a query record ({ session_id, iteration, status, result?, process? }); use another key, or clear() the store`,
      EXIT.invalid,
    );
  }
  return r as QueryRecord;
}

export function isProcess(value: unknown): value is QueryProcess {
  const p = value as Partial<QueryProcess> | null;
  return (
    typeof p === "object" &&
    p !== null &&
    Number.isSafeInteger(p.pid) &&
    (p.pid as number) > 0 &&
    (p.pid_start === null || typeof p.pid_start === "string") &&
    typeof p.host === "string" &&
    typeof p.started_at === "string"
  );
}

async function loadSdkQuery<M extends QueryMessage>(): Promise<(p: QueryParams) => AsyncIterable<M>> {
  let sdk: { query?: unknown };
  try {
    // External in both builds (scripts/build.mjs): loaded from the user's node_modules, only here.
    sdk = (await import("@anthropic-ai/claude-agent-sdk")) as { query?: unknown };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (
      (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") &&
      String((error as Error).message).includes(SDK_PACKAGE)
    ) {
      throw new DotagentError(
        "sdk_missing",
        `recoverableQuery needs the Claude Agent SDK: npm install ${SDK_PACKAGE}`,
        EXIT.refused,
      );
    }
    throw error;
  }
  if (typeof sdk.query !== "function")
    throw new DotagentError(
      "sdk_missing",
      `${SDK_PACKAGE} has no query(); npm install ${SDK_PACKAGE}@0.3`,
      EXIT.refused,
    );
  return sdk.query as (p: QueryParams) => AsyncIterable<M>;
}
