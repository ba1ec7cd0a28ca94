import { describe, expect, it } from "vitest";
import { BUDGET_SETTING, budgetDecision, budgetRefusalLine, transcriptTokens } from "./workflow-budget.js";
import { refusalContext } from "./workflow-cap.js";

const assistant = (id: string | undefined, usage: Record<string, unknown>, block = "text") =>
  JSON.stringify({
    type: "assistant",
    message: { ...(id ? { id } : {}), role: "assistant", content: [{ type: block }], usage },
  });

describe("transcriptTokens", () => {
  it("sums input, cache and output tokens, each model message once however many lines it was written as", () => {
    const usage = {
      input_tokens: 100,
      cache_creation_input_tokens: 20,
      cache_read_input_tokens: 300,
      output_tokens: 5,
    };
    const text = [
      JSON.stringify({ type: "user", message: { role: "user", content: "go" } }),
      assistant("msg_1", usage, "thinking"),
      assistant("msg_1", usage, "tool_use"),
      JSON.stringify({ type: "user", message: { role: "user", content: [{ type: "tool_result" }] } }),
      assistant("msg_2", { input_tokens: 10, output_tokens: 7, service_tier: "standard" }),
    ].join("\n");
    expect(transcriptTokens(text)).toBe(425 + 17);
  });

  it("skips what is not a count: torn lines, strings, negatives; a message without an id counts per line", () => {
    const text = [
      assistant("msg_1", { input_tokens: "100", output_tokens: -4 }),
      '{"type":"assistant","message":{"id":"msg_2","usage":{"input_tokens":5',
      assistant(undefined, { output_tokens: 3 }),
      assistant(undefined, { output_tokens: 3 }),
      'not json but says "usage"',
    ].join("\n");
    expect(transcriptTokens(text)).toBe(6);
    expect(transcriptTokens("")).toBe(0);
  });
});

describe("budgetDecision", () => {
  it.each([
    [5000, null, "within"],
    [999, 1000, "within"],
    [1000, 1000, "spent"],
    [1500, 1000, "spent"],
  ] as const)("%i used, budget %s: %s", (used, budget, kind) => expect(budgetDecision(used, budget).kind).toBe(kind));

  it("the refusal: one line naming the run, what it used and the setting; the agent told to answer with it", () => {
    const line = budgetRefusalLine("wf_abcdef-123", { used: 1100, budget: 1000 });
    expect(line).toBe(
      `dotagent: refused: workflow run wf_abcdef-123 used 1100 tokens of its budget of 1000 (${BUDGET_SETTING}); its agents do not go on`,
    );
    expect(refusalContext(line)).toMatch(
      /do not go on\. Do no work and call no tool: answer with exactly that line and stop\.$/,
    );
  });
});
