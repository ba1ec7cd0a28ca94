import { describe, expect, it } from "vitest";
import { capOutput, parseOpRecord, planOnce, type OpRecord } from "./once.js";

const base: OpRecord = { op_id: "op", command: ["git", "push"], status: "running", started_at: "2026-11-20T10:00:00Z", runner: { pid: 42, hostname: "h" }, runs: 1 };
const done: OpRecord = { ...base, status: "done", exit_code: 0, how: "ran" };
const failed: OpRecord = { ...base, status: "failed", exit_code: 1, how: "ran" };

describe("planOnce: what the holder of an op's lock does with the record found", () => {
  it.each([
    ["no record", null, {}, "run"],
    ["no record, --check (nothing to probe yet)", null, { check: "true" }, "run"],
    ["done", done, {}, "replay"],
    ["done, even with --redo", done, { redo: true }, "replay"],
    ["done, even with --mark-done", done, { markDone: true }, "replay"],
    ["failed: retried", failed, {}, "run"],
    ["intent without result", base, {}, "decide"],
    ["intent without result, --check", base, { check: "git rev-parse x" }, "check"],
    ["intent without result, --redo", base, { redo: true }, "run"],
    ["intent without result, --mark-done", base, { markDone: true }, "mark_done"],
    ["no record, --mark-done", null, { markDone: true }, "mark_done"],
  ] as const)("%s → %s", (_name, record, request, action) => {
    expect(planOnce("op", record, ["git", "push"], request).action).toBe(action);
  });

  it("names the exact yes and no commands, default no", () => {
    const plan = planOnce("wf.pr", { ...base, command: ["gh", "pr", "create", "--title", "a b"] }, [], {});
    expect(plan).toMatchObject({ action: "decide", decision: { default: false, yes: "dotagent once wf.pr --mark-done", no: "dotagent once wf.pr --redo -- gh pr create --title 'a b'" } });
    if (plan.action === "decide") expect(plan.decision.question).toContain("`gh pr create --title 'a b'` (op wf.pr) was started at 2026-11-20T10:00:00Z by pid 42");
  });
});

describe("capOutput", () => {
  it.each([
    ["short", "abc", 10, "abc", false],
    ["exact", "abcd", 4, "abcd", false],
    ["long", "abcdef", 4, "abcd", true],
    ["cut inside a multi-byte character", "aé", 2, "a", true],
  ] as const)("%s", (_name, text, limit, kept, truncated) => {
    expect(capOutput(text, limit)).toEqual({ text: kept, truncated });
  });
});

describe("parseOpRecord: a hand-edited or damaged record is named, never trusted", () => {
  it.each([
    ["torn JSON", '{"op_id":"op","comm', "not valid JSON"],
    ["an array", "[]", "not a JSON object"],
    ["no command", JSON.stringify({ ...base, command: "git push" }), "command"],
    ["unknown status", JSON.stringify({ ...base, status: "maybe" }), "status"],
    ["no runner", JSON.stringify({ ...base, runner: null }), "runner"],
    ["done without exit code", JSON.stringify({ ...base, status: "done" }), "exit_code"],
  ])("%s", (_name, text, message) => {
    const parsed = parseOpRecord(text);
    expect("invalid" in parsed && parsed.invalid).toContain(message);
  });

  it("accepts a record and defaults runs to 1", () => {
    const { runs: _runs, ...old } = done;
    expect(parseOpRecord(JSON.stringify(old))).toEqual(done);
  });
});
