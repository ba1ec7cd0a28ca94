import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentPlace, capDecision, capInForce, refusalContext, refusalLine } from "./workflow-cap.js";

const killed = readFileSync(
  join(import.meta.dirname, "../../test/claude/fixtures/workflow-tool/journal-killed.jsonl"),
  "utf8",
);
const started = (key: string, agentId: string) => JSON.stringify({ type: "started", key, agentId, label: key });

describe("capInForce: the lowest valid value wins, so a repository can only lower the person's cap", () => {
  it.each([
    ["none set", [undefined, undefined], null, 0],
    ["the environment alone", ["5", undefined], 5, 0],
    ["the user settings alone (a number)", [undefined, 3], 3, 0],
    ["both: the lower", ["10", "4"], 4, 0],
    ["both: the lower, the other way", ["2", "40"], 2, 0],
    ["an empty value is unset", ["", "7"], 7, 0],
    ["spaces around are fine", [" 6 ", undefined], 6, 0],
    ["zero: a warning, no cap", ["0", undefined], null, 1],
    ["negative, fraction, word: warnings, the valid one stands", ["-1", "2.5"], null, 2],
    ["a word beside a valid value", ["many", "9"], 9, 1],
    ["too large", ["100000000", undefined], null, 1],
  ] as const)("%s", (_case, [env, user], cap, warnings) => {
    const reading = capInForce([
      { value: env, from: "the environment" },
      { value: user, from: "/home/u/.claude/settings.json" },
    ]);
    expect(reading.cap).toBe(cap);
    expect(reading.warnings).toHaveLength(warnings);
  });

  it("says where a bad value is", () => {
    expect(capInForce([{ value: "x", from: "the environment" }]).warnings).toEqual([
      "DOTAGENT_WORKFLOW_MAX_AGENTS in the environment is not a whole number from 1 to 9999999; ignored",
    ]);
  });
});

describe("agentPlace: distinct agents started up to and including this one", () => {
  it.each([
    ["the first of the real killed run", killed, "a22dce20520af9d86", 1],
    ["an id the journal does not hold", killed, "a0000000000000000", null],
    ["the third", [started("k1", "a1"), started("k2", "a2"), started("k3", "a3")].join("\n"), "a3", 3],
    // A resumed run starts a cut-off agent again with a new id: the same key, the same place.
    [
      "a repeat start of a cut-off agent",
      [started("k1", "a1"), started("k2", "a2"), started("k2", "b2")].join("\n"),
      "b2",
      2,
    ],
    [
      "torn and foreign lines passed over",
      ['{"type":"started"', "[1]", started("k1", "a1"), '{"type":"started","key":7}', started("k2", "a2")].join("\n"),
      "a2",
      2,
    ],
  ] as const)("%s", (_case, journal, id, place) => expect(agentPlace(journal, id)).toBe(place));
});

describe("capDecision", () => {
  it.each([
    [1, null, "within"],
    [2, 2, "within"],
    [3, 2, "over"],
    [1, 1, "within"],
    [2, 1, "over"],
  ] as const)("place %i, cap %s: %s", (place, cap, kind) => expect(capDecision(place, cap).kind).toBe(kind));

  it("the refusal: one line, and the agent told to answer with it", () => {
    expect(refusalLine("wf_abcdef-123", { place: 3, cap: 2 })).toBe(
      "dotagent: refused: workflow run wf_abcdef-123 reached its cap of 2 agents (DOTAGENT_WORKFLOW_MAX_AGENTS); agent 3 does not run",
    );
    expect(refusalLine("wf_abcdef-123", { place: 2, cap: 1 })).toContain("its cap of 1 agent (");
    expect(refusalContext(refusalLine("wf_abcdef-123", { place: 3, cap: 2 }))).toMatch(
      /agent 3 does not run\. Do no work and call no tool: answer with exactly that line and stop\.$/,
    );
  });
});
