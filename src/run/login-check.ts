// Can Claude Code call the model at all? Asked before a run starts anything, so a missing key or
// an API nobody answers is one clear line instead of agents that "fail" one after another (Claude
// Code answers every prompt with "Not logged in · Please run /login" as a successful-looking
// result, and retries a connection it cannot make for minutes).
//
// The login: the SDK's accountInfo() asks the Claude Code process without a model call (about
// half a second). What it says with the runner's own options (the same environment, the same
// settings sources) decides:
//   apiProvider firstParty, no apiKeySource, no tokenSource, no subscriptionType → not logged in
// (a Claude Code login in .credentials.json shows only as subscriptionType: test/claude/NOTES.md).
// Anything else (a key, an OAuth token, Bedrock/Vertex, a gateway), an SDK without accountInfo
// (a stand-in) or no answer in time: the run goes on, and an authentication error inside a session
// stops it just as clearly (runner.ts).
//
// The API: one HEAD request to the address Claude Code will use (ANTHROPIC_BASE_URL, else the
// Anthropic API). Any HTTP answer, whatever its status, means it is there; a refused connection,
// an unknown host or no answer in 5 s means every session would spend minutes retrying. Not
// asked when a proxy is set (Claude Code goes through it, this request would not) or another
// provider is (Bedrock, Vertex, Foundry: their own endpoints and credentials).
import type { QueryMessage, QueryParams, QuerySdk } from "../api/recoverable-query.js";

/** The SDK's account facts (AccountInfo), as far as this check reads them. */
export interface AccountFacts {
  readonly apiProvider?: string;
  readonly apiKeySource?: string;
  readonly tokenSource?: string;
  readonly subscriptionType?: string;
  readonly email?: string;
  readonly organization?: string;
}

/** Why Claude Code would not be able to call the model, or null when it can (or this cannot tell). */
export function notLoggedIn(info: AccountFacts | undefined): string | null {
  if (info === undefined || info === null || typeof info !== "object") return null;
  const provider = info.apiProvider ?? "firstParty";
  const key = info.apiKeySource;
  const token = info.tokenSource;
  if (provider !== "firstParty") return null;
  const account = [info.subscriptionType, info.email, info.organization].some((f) => typeof f === "string" && f !== "");
  if ((key === undefined || key === "none") && (token === undefined || token === "none") && !account) {
    return "no API key (ANTHROPIC_API_KEY) and no login (`claude` then /login, or CLAUDE_CODE_OAUTH_TOKEN)";
  }
  return null;
}

interface QueryHandle extends AsyncIterable<QueryMessage> {
  accountInfo?: () => Promise<AccountFacts>;
  close?: () => void;
  return?: (value?: unknown) => Promise<unknown>;
}

/** Asks Claude Code through `sdk` who it is logged in as; the reason it is not, or null. */
export async function checkLogin(
  sdk: QuerySdk<QueryMessage>,
  options: Record<string, unknown>,
  timeoutMs = 20_000,
): Promise<string | null> {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  // A prompt that sends nothing: the process starts, answers control requests, and ends on close.
  const prompt = (async function* () {
    await held;
  })() as unknown as string;
  let handle: QueryHandle;
  try {
    handle = sdk.query({ prompt, options } as QueryParams) as QueryHandle;
  } catch {
    return null;
  }
  if (typeof handle.accountInfo !== "function") return null;
  let timer: NodeJS.Timeout | undefined;
  try {
    const info = await Promise.race([
      handle.accountInfo().catch(() => undefined),
      new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), timeoutMs))),
    ]);
    return notLoggedIn(info);
  } finally {
    if (timer) clearTimeout(timer);
    release();
    try {
      handle.close?.();
    } catch {
      // already closed
    }
  }
}

const PROXIES = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"];
const PROVIDERS = ["CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_USE_FOUNDRY"];
const DEFAULT_API = "https://api.anthropic.com";

/** The address Claude Code sends its requests to with `env`, or null when this cannot check it. */
export function apiEndpoint(env: Record<string, string | undefined>): string | null {
  const set = (name: string) => (env[name] ?? "") !== "" && env[name] !== "0" && env[name] !== "false";
  if (PROVIDERS.some(set) || PROXIES.some(set)) return null;
  return env.ANTHROPIC_BASE_URL || DEFAULT_API;
}

/** Network failures that mean nobody answers there; anything else (TLS, a strange reply) counts as an answer. */
const UNREACHABLE: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused",
  ENOTFOUND: "no such host",
  EAI_AGAIN: "its name does not resolve",
  ECONNRESET: "the connection was reset",
  EHOSTUNREACH: "no route to the host",
  ENETUNREACH: "the network is unreachable",
  ETIMEDOUT: "the connection timed out",
};

/**
 * Why nobody answers at `url` ("connection refused", "no answer in 5 s", …), or null when
 * something does. node:http rather than fetch: fetch refuses some ports outright ("bad port").
 */
export async function checkReachable(url: string, timeoutMs = 5_000, signal?: AbortSignal): Promise<string | null> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return "it is not a valid URL";
  }
  if (target.protocol !== "http:" && target.protocol !== "https:") return "it is not an http(s) URL";
  const { request } = process.getBuiltinModule(
    target.protocol === "https:" ? "node:https" : "node:http",
  ) as typeof import("node:http");
  return new Promise((resolve) => {
    let settled = false;
    const done = (why: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", stop);
      req.destroy();
      resolve(why);
    };
    const stop = () => done(null); // interrupted: the run says so itself
    const req = request(target, { method: "HEAD" }, (response) => {
      response.resume();
      done(null);
    });
    req.on("error", (error: NodeJS.ErrnoException) => done(UNREACHABLE[error.code ?? ""] ?? null));
    const timer = setTimeout(() => done(`no answer in ${Math.round(timeoutMs / 1000)} s`), timeoutMs);
    signal?.addEventListener("abort", stop, { once: true });
    req.end();
  });
}
