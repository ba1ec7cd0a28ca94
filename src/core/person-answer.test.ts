import { describe, expect, it } from "vitest";
import { gateAnswer, type LoggedEvent } from "./person-answer.js";

const at = (minute: number) => `2026-11-26T10:${String(minute).padStart(2, "0")}:00.000Z`;
const ms = (minute: number) => Date.parse(at(minute));
const e = (minute: number, type: string, extra: Record<string, unknown> = {}): LoggedEvent => ({ at: at(minute), type, ...extra });
const started = e(0, "workflow_started");

describe("gateAnswer: a reply counts when it is newer than everything that put the gate's question", () => {
  it.each([
    ["no reply", [started], [ms(5)], false],
    ["a reply after the report", [started, e(6, "person_replied", { phase: "REQUIREMENTS" })], [ms(5)], true],
    ["a reply before the report was written", [started, e(4, "person_replied", { phase: "REQUIREMENTS" })], [ms(5)], false],
    ["a reply to another phase's gate", [started, e(6, "person_replied", { phase: "ARCHITECTURE" })], [ms(5)], false],
    ["a reply, then the pm started again", [started, e(6, "person_replied", { phase: "REQUIREMENTS" }), e(7, "agent_started", { agent: "pm" })], [ms(5)], false],
    ["a reply, then another phase's agent", [started, e(6, "person_replied", { phase: "REQUIREMENTS" }), e(7, "agent_started", { agent: "architect" })], [ms(5)], true],
    ["a reply, then the workflow rolled back", [started, e(6, "person_replied", { phase: "REQUIREMENTS" }), e(7, "rolled_back")], [ms(5)], false],
    ["a reply with no report at all", [started, e(6, "person_replied", { phase: "REQUIREMENTS" })], [], true],
    ["a reply of an earlier run, before the workflow started again", [e(6, "person_replied", { phase: "REQUIREMENTS" }), e(8, "workflow_started")], [ms(5)], false],
  ] as const)("%s", (_name, events, times, answered) => {
    expect(gateAnswer(events, "REQUIREMENTS", times).answered).toBe(answered);
  });

  it("ARCHITECTURE's question is put again by an architect or the roundtable", () => {
    const reply = e(6, "person_replied", { phase: "ARCHITECTURE" });
    expect(gateAnswer([started, reply, e(7, "agent_ended", { agent: "roundtable" })], "ARCHITECTURE", [ms(5)]).answered).toBe(false);
    expect(gateAnswer([started, reply, e(7, "agent_ended", { agent: "pm" })], "ARCHITECTURE", [ms(5)]).answered).toBe(true);
  });

  it("says when the question was put", () => {
    expect(gateAnswer([started, e(3, "agent_ended", { agent: "pm" })], "REQUIREMENTS", [ms(2)])).toEqual({ answered: false, since: at(3) });
  });
});
