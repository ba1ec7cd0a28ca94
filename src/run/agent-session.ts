// One agent of the headless runner: an Agent SDK session with the agent file's body as its system
// prompt and its tools pre-approved, run through recoverableQuery so a runner killed mid-agent
// continues that agent's own conversation on the next `dotagent run` instead of starting over.
// Sessions are recorded in memory/runs/<workflow-id>/ under the job's key and a session
// number (pm.REQUIREMENTS.s1, executor.task-002.s2): a session that finished but whose report the workflow still asks for (rolled back,
// invalid report) is not replayed; the next generation starts fresh.
import { join } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import type { AgentJob } from "../core/run-step.js";
import { checkpointStore, type CheckpointStore } from "../api/checkpoint-store.js";
import {
  recoverableQuery,
  type QueryMessage,
  type QuerySdk,
  type RecoverableResult,
} from "../api/recoverable-query.js";
import type { AgentFile } from "./agent-files.js";

export interface AgentRunContext {
  readonly root: string;
  readonly workflowId: string;
  readonly request: string;
  readonly phase: string;
  readonly agents: ReadonlyMap<string, AgentFile>;
  /** The SDK's query() (loaded by the caller); without it recoverableQuery loads the SDK itself. */
  readonly sdk?: QuerySdk<QueryMessage>;
  /** Extra SDK options (the tests' environment, a Claude Code binary path). */
  readonly sdkOptions?: Record<string, unknown>;
  /** The project's CLAUDE.md (`dotagent run` from the CLI), appended to each agent's system prompt. */
  readonly instructions?: string | undefined;
}

export interface AgentOutcome {
  readonly key: string;
  readonly sessionId: string | null;
  readonly resumed: boolean;
  /** The agent's last message (its reply, or the SDK's error text). */
  readonly said: string;
  readonly error?: string;
  /**
   * Set when the session ended on a problem of the account (not logged in, billing, …) or of the
   * API (unreachable, overloaded, rate limited): the SDK's error code. Not the agent's failure, and
   * no other session would do better until it is fixed or over.
   */
  readonly blocked?: {
    readonly kind: "account" | "service" | "budget";
    readonly error: string;
    readonly resetsAt?: number;
  };
  /** The session's estimated cost in USD (its last result's `total_cost_usd`), when the SDK said it. */
  readonly costUsd?: number;
  /** Set when the run was interrupted (Ctrl-C) during the session: stopped, its record kept for the next run. */
  readonly interrupted?: true;
}

/** What the runner gives one session besides the job: a way to stop it, and eyes on it. */
export interface SessionControls {
  /** Aborted on Ctrl-C: the SDK stops Claude Code (stdin closed, then killed after ~2 s). */
  readonly signal?: AbortSignal;
  /** Every message of the session, as it arrives (the live line). */
  readonly onMessage?: (message: QueryMessage) => void;
}

/** The SDK's assistant error codes (SDKAssistantMessageError) that mean the account cannot be used. */
export const ACCOUNT_ERRORS: ReadonlySet<string> = new Set([
  "authentication_failed",
  "oauth_org_not_allowed",
  "account_on_hold",
  "verification_required",
  "billing_error",
  "cloud_credential_error",
]);
/** …and those that mean the API cannot be used right now (after Claude Code's own retries). */
export const SERVICE_ERRORS: ReadonlySet<string> = new Set(["server_error", "overloaded", "rate_limit"]);
/**
 * Claude Code retries a request refused for authentication (a 401) up to 10 times over about three
 * minutes before it gives up; a session stops at this many such retries instead.
 */
const AUTH_RETRIES_TO_STOP = 2;

function blockedBy(error: string | null | undefined): AgentOutcome["blocked"] {
  if (typeof error !== "string") return undefined;
  if (ACCOUNT_ERRORS.has(error)) return { kind: "account", error };
  if (SERVICE_ERRORS.has(error)) return { kind: "service", error };
  return undefined;
}

/** The folder of the runner's session records. */
export function runsDir(root: string): string {
  return join(root, "memory", "runs");
}

/** The prompt an agent gets: the same lines the /develop skill gives a spawned agent. */
export function agentPrompt(job: AgentJob, request: string, phase: string): string {
  return [`Feature request: ${request}`, `Phase: ${phase}`, ...job.lines, `Output file: ${job.output}`].join("\n");
}

/**
 * The key of this job's current session: the newest generation unless it finished. A job with a
 * `formerKey` and no session yet continues a session an earlier dotagent cut off under that key.
 */
async function sessionKey(
  store: CheckpointStore<Record<string, unknown>>,
  base: string,
  former?: string,
): Promise<string> {
  const ids = (await store.list()).map((c) => c.id);
  const newest = newestGeneration(ids, base);
  if (newest === 0 && former !== undefined) {
    const cut = newestGeneration(ids, former);
    if (cut > 0 && (await store.load(`${former}.s${cut}`))?.status !== "complete") return `${former}.s${cut}`;
  }
  if (newest === 0) return `${base}.s1`;
  const record = await store.load(`${base}.s${newest}`);
  return record?.status === "complete" ? `${base}.s${newest + 1}` : `${base}.s${newest}`;
}

function newestGeneration(ids: readonly string[], base: string): number {
  const generations = ids
    .map((id) => /^(.*)\.s(\d+)$/.exec(id))
    .filter((m): m is RegExpExecArray => m !== null && m[1] === base)
    .map((m) => Number(m[2]));
  return generations.length > 0 ? Math.max(...generations) : 0;
}

export async function runAgentJob(
  job: AgentJob,
  context: AgentRunContext,
  controls: SessionControls = {},
): Promise<AgentOutcome> {
  const agent = context.agents.get(job.agent);
  if (!agent)
    throw new DotagentError(
      "agents_missing",
      `no ${job.agent}.md among the agent files; pass --agents DIR with all six`,
      EXIT.refused,
    );
  const store = checkpointStore<Record<string, unknown>>(runsDir(context.root), context.workflowId);
  const key = await sessionKey(store, job.key, job.formerKey);
  // The SDK's own way to stop a session; recoverableQuery keeps the record running, so the next
  // run continues this SDK session.
  const abort = new AbortController();
  const stop = () => abort.abort();
  if (controls.signal?.aborted) abort.abort();
  controls.signal?.addEventListener("abort", stop, { once: true });
  const options = {
    cwd: context.root,
    // What Claude Code gives a sub-agent: the agent file's body, and where it works.
    systemPrompt: `${agent.body}\n\nPrimary working directory: ${context.root}${context.instructions ? `\n\n# The project's instructions (CLAUDE.md)\n\n${context.instructions}` : ""}`,
    allowedTools: [...agent.tools],
    permissionMode: "dontAsk",
    settingSources: [],
    ...(agent.model ? { model: agent.model } : {}),
    ...context.sdkOptions,
    abortController: abort,
  };
  const run = recoverableQuery({
    prompt: agentPrompt(job, context.request, context.phase),
    options,
    store,
    key,
    ...(context.sdk ? { sdk: context.sdk } : {}),
  });
  let lastWords: string | undefined;
  let authRetries = 0;
  // A usage limit the API said it refuses until (a `rate_limit_event`), and what the session cost.
  let resetsAt: number | undefined;
  let costUsd: number | undefined;
  let sessionId: string | null = null;
  const interrupted = (): AgentOutcome => ({ key, sessionId, resumed: false, said: "", interrupted: true });
  try {
    let step;
    for (;;) {
      try {
        step = await run.next();
      } catch (error) {
        if (abort.signal.aborted) return interrupted();
        throw error;
      }
      if (step.done) break;
      const message = step.value as {
        type: string;
        subtype?: unknown;
        result?: unknown;
        errors?: unknown;
        error?: unknown;
        error_status?: unknown;
        session_id?: unknown;
        total_cost_usd?: unknown;
      };
      if (typeof message.session_id === "string") sessionId = message.session_id;
      try {
        controls.onMessage?.(step.value);
      } catch {
        // the live line failing never stops an agent
      }
      if (abort.signal.aborted) {
        // An SDK that does not stop by itself (a stand-in): stop reading; the record stays running.
        await run.return(undefined as never);
        return interrupted();
      }
      if (message.type === "result")
        lastWords =
          typeof message.result === "string"
            ? message.result
            : Array.isArray(message.errors)
              ? message.errors.join("; ")
              : undefined;
      if (message.type === "result" && typeof message.total_cost_usd === "number") costUsd = message.total_cost_usd;
      if (message.type === "rate_limit_event") {
        const info = (message as { rate_limit_info?: { status?: unknown; resetsAt?: unknown } }).rate_limit_info;
        // resetsAt is in seconds since the epoch (Claude Code's headers); milliseconds accepted too.
        if (info?.status === "rejected" && typeof info.resetsAt === "number" && Number.isFinite(info.resetsAt))
          resetsAt = info.resetsAt < 1e12 ? info.resetsAt * 1000 : info.resetsAt;
      }
      if (
        message.type === "system" &&
        message.subtype === "api_retry" &&
        message.error === "authentication_failed" &&
        ++authRetries >= AUTH_RETRIES_TO_STOP
      ) {
        // A key the API refuses: minutes of retries would end the same way. Stop this session now
        // (the record stays running; nothing about the agent is judged).
        await run.return(undefined as never);
        return {
          key,
          sessionId: typeof message.session_id === "string" ? message.session_id : null,
          resumed: false,
          said: `the API refused the credentials (HTTP ${String(message.error_status ?? "401")})`,
          error: `${job.agent} could not authenticate`,
          blocked: { kind: "account", error: "authentication_failed" },
        };
      }
    }
    const outcome = finished(job, key, step.value, lastWords);
    return {
      ...outcome,
      ...(costUsd === undefined ? {} : { costUsd }),
      ...(outcome.blocked && resetsAt !== undefined ? { blocked: { ...outcome.blocked, resetsAt } } : {}),
    };
  } finally {
    controls.signal?.removeEventListener("abort", stop);
  }
}

function finished(job: AgentJob, key: string, result: RecoverableResult, lastWords: string | undefined): AgentOutcome {
  const failed = result.is_error || (result.subtype !== undefined && result.subtype !== "success");
  // The run's cost cap reached inside this session (the SDK's maxBudgetUsd): not the agent's failure.
  const blocked = failed
    ? result.subtype === "error_max_budget_usd"
      ? { kind: "budget" as const, error: "error_max_budget_usd" }
      : blockedBy(result.error)
    : undefined;
  return {
    key,
    sessionId: result.session_id ?? null,
    resumed: result.resumed,
    said: lastWords ?? result.result ?? "",
    ...(failed ? { error: `${job.agent} ended with ${result.error ?? String(result.subtype)}` } : {}),
    ...(blocked ? { blocked } : {}),
  };
}
