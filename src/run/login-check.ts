// Is Claude Code logged in? Asked before a run starts anything, so a missing key is one clear line
// instead of agents that "fail" one after another (Claude Code answers every prompt with "Not
// logged in · Please run /login" as a successful-looking result, without calling the API).
// The SDK's accountInfo() asks the Claude Code process without a model call (about a second). What
// it says with the runner's own options (the same environment, the same settings sources) decides:
//   apiProvider firstParty, no apiKeySource, tokenSource none → not logged in
// Anything else (a key, an OAuth token, Bedrock/Vertex, a gateway), an SDK without accountInfo
// (a stand-in) or no answer in time: the run goes on, and an authentication error inside a session
// stops it just as clearly (runner.ts).
import type { QueryMessage, QueryParams, QuerySdk } from "../api/recoverable-query.js";

/** The SDK's account facts (AccountInfo), as far as this check reads them. */
export interface AccountFacts {
  readonly apiProvider?: string;
  readonly apiKeySource?: string;
  readonly tokenSource?: string;
}

/** Why Claude Code would not be able to call the model, or null when it can (or this cannot tell). */
export function notLoggedIn(info: AccountFacts | undefined): string | null {
  if (info === undefined || info === null || typeof info !== "object") return null;
  const provider = info.apiProvider ?? "firstParty";
  const key = info.apiKeySource;
  const token = info.tokenSource;
  if (provider !== "firstParty") return null;
  if ((key === undefined || key === "none") && (token === undefined || token === "none")) {
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
export async function checkLogin(sdk: QuerySdk<QueryMessage>, options: Record<string, unknown>, timeoutMs = 20_000): Promise<string | null> {
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
