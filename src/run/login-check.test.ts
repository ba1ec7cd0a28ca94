// Whether the SDK's account facts say Claude Code cannot call the model (issue 21, case 9): the
// pure decision runWorkflow's check before a run makes (runner.test.ts runs it end to end, once
// stopping the run and once letting it go on).
import { describe, expect, test } from "vitest";
import { notLoggedIn, type AccountFacts } from "./login-check.js";

const NO_LOGIN = "no API key (ANTHROPIC_API_KEY) and no login (`claude` then /login, or CLAUDE_CODE_OAUTH_TOKEN)";

describe("notLoggedIn", () => {
  test.each<[string, AccountFacts | undefined, string | null]>([
    ["no key, no token, no account", { tokenSource: "none", apiProvider: "firstParty" }, NO_LOGIN],
    ["nothing said but the provider", { apiProvider: "firstParty" }, NO_LOGIN],
    ["no provider said (first party)", { apiKeySource: "none" }, NO_LOGIN],
    ["an API key", { apiKeySource: "ANTHROPIC_API_KEY", tokenSource: "none", apiProvider: "firstParty" }, null],
    ["an OAuth token", { tokenSource: "CLAUDE_CODE_OAUTH_TOKEN", apiProvider: "firstParty" }, null],
    ["a Claude Code login (its subscription)", { apiProvider: "firstParty", subscriptionType: "max" }, null],
    ["an account's email", { apiProvider: "firstParty", email: "a@b.c" }, null],
    ["Bedrock", { apiProvider: "bedrock" }, null],
    ["Vertex", { apiProvider: "vertex", tokenSource: "none" }, null],
    ["no answer (no accountInfo, or none in time)", undefined, null],
  ])("%s", (_name, info, why) => expect(notLoggedIn(info)).toBe(why));
});
