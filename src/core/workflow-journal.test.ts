import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { headlineOf, readJournal, rerunOnResume } from "./workflow-journal.js";

const fixture = (name: string) =>
  readFileSync(join(import.meta.dirname, "../../test/claude/fixtures/workflow-tool", name), "utf8");

describe("readJournal", () => {
  it("reads a completed run of the real client: three agents done, nothing to run again", () => {
    const reading = readJournal(fixture("journal-complete.jsonl"));
    expect(reading.launched).toBe(true);
    expect(reading.unreadLines).toBe(0);
    expect(reading.agents.map((a) => [a.label, a.phase, a.state, a.headline])).toEqual([
      ["alpha", "Fan", "done", "result alpha"],
      ["beta", "Fan", "done", "result beta"],
      ["gamma", "Join", "done", "result gamma"],
    ]);
    expect(rerunOnResume(reading)).toEqual([]);
  });

  it("reads a run killed while gamma worked: gamma is what a relaunch runs again", () => {
    const reading = readJournal(fixture("journal-killed.jsonl"));
    expect(reading.agents.map((a) => `${a.label}:${a.state}`)).toEqual(["alpha:done", "beta:done", "gamma:started"]);
    expect(rerunOnResume(reading).map((a) => a.label)).toEqual(["gamma"]);
  });

  it("counts an agent started again by a resumed run once, with both starts", () => {
    const killed = fixture("journal-killed.jsonl");
    const gamma = killed.trim().split("\n").at(-1)!;
    const resumed = `${killed}${gamma.replace("a7c43afd3b15167df", "a000000000000000b")}\n${JSON.stringify({
      type: "result",
      key: JSON.parse(gamma).key,
      agentId: "a000000000000000b",
      result: "result gamma",
    })}\n`;
    const reading = readJournal(resumed);
    expect(reading.agents).toHaveLength(3);
    expect(reading.agents[2]).toMatchObject({ label: "gamma", state: "done", starts: 2 });
  });

  it("passes over lines it cannot read (torn, not objects, unknown types, no key) and counts them", () => {
    const text = [
      '{"type":"launched"}',
      '{"type":"started","key":"k1","label":"a"}',
      "[1,2]",
      "null",
      '{"type":"bogus","key":"k1"}',
      '{"type":"result"}',
      '{"type":"result","key":"k1","result":{"ok":true}}',
      '{"type":"started","key":"k2","la',
    ].join("\n");
    const reading = readJournal(text);
    expect(reading.unreadLines).toBe(5);
    expect(reading.agents).toEqual([
      { key: "k1", label: "a", phase: null, state: "done", starts: 1, headline: '{"ok":true}' },
    ]);
  });

  it("takes a result without a start (a hand edit) as an agent with no label", () => {
    const reading = readJournal('{"type":"result","key":"k9","result":"x"}');
    expect(reading.launched).toBe(false);
    expect(reading.agents).toEqual([{ key: "k9", label: null, phase: null, state: "done", starts: 0, headline: "x" }]);
  });
});

describe("headlineOf", () => {
  it("is the first non-empty line, without control characters, at most 120 characters", () => {
    expect(headlineOf("\n\n  first line \nsecond")).toBe("first line");
    expect(headlineOf("a\u001b[31mred")).toBe("a [31mred");
    const long = headlineOf("x".repeat(500));
    expect(long).toHaveLength(120);
    expect(long.endsWith("…")).toBe(true);
    expect(headlineOf(undefined)).toBe("undefined");
  });
});
