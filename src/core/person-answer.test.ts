import { describe, expect, it } from "vitest";
import { DEVELOP } from "./flow.js";
import {
  commandAnswered,
  decisionAnswered,
  decisionKey,
  gateAnswer,
  pendingDecision,
  saysApprove,
  saysNo,
  type LoggedEvent,
} from "./person-answer.js";

const at = (minute: number) => `2026-11-26T10:${String(minute).padStart(2, "0")}:00.000Z`;
const ms = (minute: number) => Date.parse(at(minute));
const e = (minute: number, type: string, extra: Record<string, unknown> = {}): LoggedEvent => ({
  at: at(minute),
  type,
  ...extra,
});
const started = e(0, "workflow_started");

describe("gateAnswer: a reply counts when it is newer than everything that put the gate's question", () => {
  it.each([
    ["no reply", [started], [ms(5)], false],
    [
      "a reply after the report",
      [started, e(6, "person_replied", { phase: "REQUIREMENTS", answer: "yes" })],
      [ms(5)],
      true,
    ],
    [
      "a reply before the report was written",
      [started, e(4, "person_replied", { phase: "REQUIREMENTS", answer: "yes" })],
      [ms(5)],
      false,
    ],
    [
      "a reply to another phase's gate",
      [started, e(6, "person_replied", { phase: "ARCHITECTURE", design: "minimal" })],
      [ms(5)],
      false,
    ],
    [
      "a reply, then the pm started again",
      [
        started,
        e(6, "person_replied", { phase: "REQUIREMENTS", answer: "yes" }),
        e(7, "agent_started", { agent: "pm" }),
      ],
      [ms(5)],
      false,
    ],
    [
      "a reply, then another phase's agent",
      [
        started,
        e(6, "person_replied", { phase: "REQUIREMENTS", answer: "yes" }),
        e(7, "agent_started", { agent: "architect" }),
      ],
      [ms(5)],
      true,
    ],
    [
      "a reply, then the workflow rolled back",
      [started, e(6, "person_replied", { phase: "REQUIREMENTS", answer: "yes" }), e(7, "rolled_back")],
      [ms(5)],
      false,
    ],
    [
      "a reply with no report at all",
      [started, e(6, "person_replied", { phase: "REQUIREMENTS", answer: "yes" })],
      [],
      true,
    ],
    [
      "a reply of an earlier run, before the workflow started again",
      [e(6, "person_replied", { phase: "REQUIREMENTS", answer: "yes" }), e(8, "workflow_started")],
      [ms(5)],
      false,
    ],
  ] as const)("%s", (_name, events, times, answered) => {
    expect(gateAnswer(events, "REQUIREMENTS", times, DEVELOP).answered).toBe(answered);
  });

  it("ARCHITECTURE's question is put again by an architect or the roundtable", () => {
    const reply = e(6, "person_replied", { phase: "ARCHITECTURE", design: "minimal" });
    expect(
      gateAnswer([started, reply, e(7, "agent_ended", { agent: "roundtable" })], "ARCHITECTURE", [ms(5)], DEVELOP)
        .answered,
    ).toBe(false);
    expect(
      gateAnswer([started, reply, e(7, "agent_ended", { agent: "pm" })], "ARCHITECTURE", [ms(5)], DEVELOP).answered,
    ).toBe(true);
  });

  it("a plain no lets no approval through, until the person replies again; a failed phase's restart is no answer", () => {
    const no = e(6, "person_replied", { phase: "REQUIREMENTS", answer: "no", declined: true });
    expect(gateAnswer([started, no], "REQUIREMENTS", [ms(5)], DEVELOP)).toMatchObject({
      answered: false,
      declined: true,
    });
    expect(
      gateAnswer(
        [started, no, e(7, "person_replied", { phase: "REQUIREMENTS", answer: "yes" })],
        "REQUIREMENTS",
        [ms(5)],
        DEVELOP,
      ).answered,
    ).toBe(true);
    expect(
      gateAnswer(
        [started, e(6, "person_replied", { phase: "REQUIREMENTS", gate: null, failed: true })],
        "REQUIREMENTS",
        [ms(5)],
        DEVELOP,
      ).answered,
    ).toBe(false);
  });

  it("what the reply says: a yes (or a design named, at the pick) answers; other words answer nothing", () => {
    expect(
      gateAnswer(
        [started, e(6, "person_replied", { phase: "REQUIREMENTS", answer: null })],
        "REQUIREMENTS",
        [ms(5)],
        DEVELOP,
      ),
    ).toMatchObject({ answered: false, unclear: true });
    expect(
      gateAnswer(
        [started, e(6, "person_replied", { phase: "ARCHITECTURE", answer: null })],
        "ARCHITECTURE",
        [ms(5)],
        DEVELOP,
      ),
    ).toMatchObject({ answered: false, unclear: true });
    expect(
      gateAnswer(
        [started, e(6, "person_replied", { phase: "ARCHITECTURE", answer: "no", design: "robust" })],
        "ARCHITECTURE",
        [ms(5)],
        DEVELOP,
      ),
    ).toMatchObject({ answered: true, design: "robust" });
    expect(
      gateAnswer(
        [started, e(6, "person_replied", { phase: "REQUIREMENTS", answer: "yes", said: "lgtm" })],
        "REQUIREMENTS",
        [ms(5)],
        DEVELOP,
      ),
    ).toMatchObject({ answered: true, said: "lgtm" });
  });

  it("says when the question was put", () => {
    expect(gateAnswer([started, e(3, "agent_ended", { agent: "pm" })], "REQUIREMENTS", [ms(2)], DEVELOP)).toEqual({
      answered: false,
      since: at(3),
    });
  });
});

const OK = { ok: true, saidNo: false };
const NO = { ok: false, saidNo: true };
const NONE = { ok: false, saidNo: false };
const UNCLEAR = { ok: false, saidNo: false, unclear: true };

describe("decisions: a --yes from an agent's shell needs the person's reply after the question", () => {
  const asked = (key: string) => e(1, "decision_asked", { key });
  const replied = (key: string, answer: "yes" | "no" | null = "yes") =>
    e(2, "person_replied", { decision: key, answer });
  it.each([
    ["never asked", [], "Q", NONE],
    ["asked, no reply", [asked("Q")], "Q", NONE],
    ["asked, the person said yes", [asked("Q"), replied("Q")], "Q", OK],
    ['asked, the person replied neither yes nor no ("continue")', [asked("Q"), replied("Q", null)], "Q", UNCLEAR],
    [
      "a reply recorded without what it says (an older dotagent's): answers nothing",
      [asked("Q"), e(2, "person_replied", { decision: "Q" })],
      "Q",
      UNCLEAR,
    ],
    ["replied, then asked again", [asked("Q"), replied("Q"), asked("Q")], "Q", NONE],
    ["another question answered", [asked("Q"), replied("R")], "Q", NONE],
    ["asked, the person said no", [asked("Q"), replied("Q", "no")], "Q", NO],
    [
      "said no, then yes",
      [asked("Q"), replied("Q", "no"), e(3, "person_replied", { decision: "Q", answer: "yes" })],
      "Q",
      OK,
    ],
  ] as const)("%s", (_name, events, key, answered) => {
    expect(decisionAnswered(events, key)).toEqual(answered);
  });
  it("the pending question is the newest one not replied to", () => {
    expect(pendingDecision([asked("Q")])).toBe("Q");
    expect(pendingDecision([asked("Q"), replied("Q")])).toBeUndefined();
    expect(pendingDecision([asked("Q"), replied("Q"), asked("R")])).toBe("R");
    // "continue" answers nothing: the question stays open for the person's yes or no.
    expect(pendingDecision([asked("Q"), replied("Q", null)])).toBe("Q");
    expect(pendingDecision([asked("Q"), replied("Q", null), replied("Q", "no")])).toBeUndefined();
  });
  it("the isolation question is one key, whichever way it is answered", () => {
    expect(decisionKey({ question: "x?", yes: "dotagent resume --isolation commit" })).toBe("isolation");
    expect(decisionKey({ question: "x?", yes: "dotagent init --yes" })).toBe("x?");
  });
});

describe("saysApprove: only a plain yes is an approval by itself", () => {
  it.each([
    ["approve"],
    ["Approve."],
    ["approved"],
    ["yes"],
    ["LGTM"],
    ["ok!"],
    ["looks good to me"],
    ["  go ahead  "],
  ])("%j: yes", (text) => {
    expect(saysApprove(text)).toBe(true);
  });
  it.each([
    ["yes, but add remember-me"],
    ["approve the robust one"],
    ["no"],
    ["minimal"],
    [""],
    ["don't approve"],
    ["approve?"],
  ])("%j: a reply for the model to read", (text) => {
    expect(saysApprove(text)).toBe(false);
  });
});

describe("saysNo: a reply that opens with a plain no", () => {
  it.each([
    ["no"],
    ["No."],
    ["no, add remember-me"],
    ["Nope"],
    ["not yet: the criteria miss lockout"],
    ["Reject"],
    ["wait"],
    ["stop here"],
    ["hold on"],
    ["don't approve it"],
    ["Do not approve"],
    ["not approved"],
  ])("%j: no", (text) => {
    expect(saysNo(text)).toBe(true);
  });
  it.each([
    ["approve"],
    ["no problem, approve it"],
    ["nothing to add, looks good"],
    ["notes: add lockout"],
    ["now approve"],
    ["yes"],
    ["minimal"],
    [""],
    ["no-reply emails too"],
    ["nope, yes it is fine"],
  ])("%j: not a no", (text) => {
    expect(saysNo(text)).toBe(false);
  });
});

describe("commandAnswered: a decision is told by what its yes runs, not by its words", () => {
  const asked = e(1, "decision_asked", {
    key: "Workflow w was last active 8 days ago. Archive it and start fresh?",
    yes: "dotagent resume --yes",
    no: "dotagent resume --stale-after never",
  });
  const replied = e(2, "person_replied", {
    decision: "Workflow w was last active 8 days ago. Archive it and start fresh?",
    answer: "yes",
  });
  it("the question asked 8 days ago and answered when it says 9: the yes still counts", () => {
    expect(commandAnswered([asked, replied], "dotagent resume --yes")).toEqual(OK);
  });
  it("a yes lets only the yes through; the no needs the person's no (resume --keep-edit is the hand-edit question's no)", () => {
    expect(commandAnswered([asked, replied], "dotagent resume --stale-after never")).toEqual(UNCLEAR);
  });
  it("the person said no: the yes is refused (declined), the no goes through", () => {
    const no = { ...replied, answer: "no", declined: true };
    expect(commandAnswered([asked, no], "dotagent resume --yes")).toEqual(NO);
    expect(commandAnswered([asked, no], "dotagent resume --stale-after never")).toEqual(OK);
  });
  it("a reply that says neither lets neither through", () => {
    const neither = { ...replied, answer: null };
    expect(commandAnswered([asked, neither], "dotagent resume --yes")).toEqual(UNCLEAR);
    expect(commandAnswered([asked, neither], "dotagent resume --stale-after never")).toEqual(UNCLEAR);
  });
  it("another command, or no reply: not answered", () => {
    expect(commandAnswered([asked, replied], "dotagent init --yes")).toEqual(NONE);
    expect(commandAnswered([asked], "dotagent resume --yes")).toEqual(NONE);
  });
});
