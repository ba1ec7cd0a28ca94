import { describe, expect, it } from "vitest";
import {
  capOutput,
  commandProblem,
  decodeOutput,
  encodeOutput,
  MAX_COMMAND_BYTES,
  parseOpRecord,
  planOnce,
  type OpRecord,
} from "./once.js";

const base: OpRecord = {
  op_id: "op",
  command: ["git", "push"],
  status: "running",
  started_at: "2026-11-20T10:00:00Z",
  runner: { pid: 42, hostname: "h" },
  runs: 1,
};
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

  it.each([
    ["intent, command still running", base, {}],
    ["intent, command still running, --redo", base, { redo: true }],
    ["intent, command still running, --mark-done", base, { markDone: true }],
    ["intent, command still running, --check", base, { check: "true" }],
  ] as const)("%s → running (no question, nothing run beside it)", (_name, record, request) => {
    expect(
      planOnce("op", { ...record, child: { pid: 7, start: "1" } }, ["git", "push"], request, { commandRunning: true }),
    ).toMatchObject({ action: "running", pid: 7 });
  });

  it("a done record is replayed even if its pid is alive again (reused)", () => {
    expect(planOnce("op", { ...done, child: { pid: 7, start: "1" } }, [], {}, { commandRunning: true }).action).toBe(
      "replay",
    );
  });

  it("names the exact yes and no commands, default no", () => {
    const plan = planOnce("wf.pr", { ...base, command: ["gh", "pr", "create", "--title", "a b"] }, [], {});
    expect(plan).toMatchObject({
      action: "decide",
      decision: {
        default: false,
        yes: "dotagent once wf.pr --mark-done",
        no: "dotagent once wf.pr --redo -- gh pr create --title 'a b'",
      },
    });
    if (plan.action === "decide")
      expect(plan.decision.question).toContain(
        "`gh pr create --title 'a b'` (op wf.pr) was started at 2026-11-20T10:00:00Z by pid 42",
      );
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

  it.each([
    ["exit_code 1.5", { ...done, exit_code: 1.5 }, "exit_code: 1.5 with status done"],
    ["exit_code 300", { ...failed, exit_code: 300 }, "exit_code: 300 with status failed"],
    ["exit_code 1e10", { ...failed, exit_code: 1e10 }, "exit_code: 10000000000"],
    ["exit_code -1", { ...failed, exit_code: -1 }, "exit_code: -1"],
    ["exit_code 0 with failed", { ...failed, exit_code: 0 }, "exit_code: 0 with status failed"],
    ['exit_code "0"', { ...done, exit_code: "0" }, 'exit_code: "0"'],
    ["exit_code null with done", { ...done, exit_code: null }, "exit_code: null"],
    ["exit_code on a running record", { ...base, exit_code: 0 }, "on a running record"],
    ["done with 7", { ...done, exit_code: 7 }, "which means exit 0"],
    ["runs 1.5", { ...done, runs: 1.5 }, "runs"],
    ["runner pid 0", { ...done, runner: { pid: 0, hostname: "h" } }, "runner"],
    ["child pid text", { ...base, child: { pid: "7", start: null } }, "child"],
    ["child start not digits", { ...base, child: { pid: 7, start: "x" } }, "child"],
    ["stdout a number", { ...done, stdout: 5 }, "stdout"],
    ["unknown encoding", { ...done, stdout: "", stdout_encoding: "hex" }, "stdout_encoding"],
    ["how unknown", { ...done, how: "guessed" }, "how"],
    ["start_error a number", { ...failed, start_error: 1 }, "start_error"],
  ])("%s", (_name, record, message) => {
    const parsed = parseOpRecord(JSON.stringify(record), "op");
    expect("invalid" in parsed && parsed.invalid).toContain(message);
  });

  it("another op's record is refused when read for this op", () => {
    const parsed = parseOpRecord(JSON.stringify({ ...done, op_id: "b" }), "a");
    expect("invalid" in parsed && parsed.invalid).toBe(`op_id: "b" is another op's record, not a's`);
  });

  it("accepts a record and defaults runs to 1", () => {
    const { runs: _runs, ...old } = done;
    expect(parseOpRecord(JSON.stringify(old))).toEqual(done);
  });
});

describe("encodeOutput / decodeOutput: the recorded stdout gives back the bytes written", () => {
  it.each([
    ["text", Buffer.from("héllo\n"), 100, "utf8", false],
    ["binary", Buffer.from([0, 255, 1, 254, 10]), 100, "base64", false],
    ["text cut inside a character", Buffer.from("aé"), 2, "utf8", true],
    ["binary cut", Buffer.from([255, 255, 255, 255]), 2, "base64", true],
    ["empty", Buffer.alloc(0), 10, "utf8", false],
  ] as const)("%s", (_name, bytes, limit, encoding, truncated) => {
    const out = encodeOutput(bytes, limit);
    expect(out).toMatchObject({ stdout_encoding: encoding, stdout_truncated: truncated });
    const back = Buffer.from(decodeOutput(out));
    expect(bytes.subarray(0, back.length).equals(back)).toBe(true);
    if (!truncated) expect(back.equals(bytes)).toBe(true);
  });

  it("a record from before the encoding field decodes as text", () => {
    expect(Buffer.from(decodeOutput({ stdout: "made it\n" })).toString()).toBe("made it\n");
  });
});

describe("commandProblem: what cannot be run and recorded is refused before anything is", () => {
  it.each([
    ["fine", ["git", "push"], null],
    ["an empty program", [""], "the program name is empty"],
    ["a NUL in an argument", ["echo", "a\0b"], "argument 1 holds a NUL byte"],
    ["a NUL in the program", ["ec\0ho"], "the program name holds a NUL byte"],
    ["over the record's room", ["x", "y".repeat(MAX_COMMAND_BYTES)], "over the 512 KiB a record keeps"],
  ] as const)("%s", (_name, argv, problem) => {
    const found = commandProblem(argv);
    if (problem === null) expect(found).toBeNull();
    else expect(found).toContain(problem);
  });

  it("a command at the limit leaves its record under the 1 MiB op.json is read with", () => {
    let arg = "y".repeat(MAX_COMMAND_BYTES - 20);
    while (commandProblem(["x", arg]) !== null) arg = arg.slice(0, -1);
    // Worst case stdout: 16 KiB of control characters, each escaped as \u00XX in the JSON.
    const stdout = String.fromCharCode(1).repeat(16 * 1024);
    const record = {
      ...done,
      op_id: "o".repeat(128),
      command: ["x", arg],
      child: { pid: 2 ** 31, start: "9".repeat(20) },
      stdout,
      stdout_encoding: "utf8",
      stdout_truncated: true,
      start_error: "argument list too long for the system",
      finished_at: base.started_at,
    };
    expect(Buffer.byteLength(JSON.stringify(record, null, 2))).toBeLessThan(1024 * 1024);
  });
});
