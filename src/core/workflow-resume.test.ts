// What a starting session is handed for an open Workflow run (SPEC §11), as a table: sealed or not
// (and why not), another session's or this one's, and the journal's agents done or to run again.
import { describe, expect, it } from "vitest";
import type { WorkflowRunRecord } from "./claude-workflow-run.js";
import { endStatus } from "./claude-workflow-run.js";
import {
  handFor,
  judgeSeal,
  readSeal,
  resumeCall,
  runLines,
  runPersonLine,
  sealText,
  type SealVerdict,
} from "./workflow-resume.js";

const RUN = "wf_3216a11b-d0a";
const record: WorkflowRunRecord = {
  run_id: RUN,
  client: "claude",
  session_id: "s-1",
  task_id: "w1",
  workflow_name: "probe",
  args: { topic: "probe", n: 3 },
  script_path: null,
  journal_path: "/h/s-1/subagents/workflows/wf_3216a11b-d0a/journal.jsonl",
  script_file: null,
  journal_file: "memory/state/workflow-runs/wf_3216a11b-d0a/journal.jsonl",
  recorded_at: "2026-11-30T02:00:00.000Z",
};
const JOURNAL = [
  '{"type":"launched"}',
  '{"type":"started","key":"k1","agentId":"a1","label":"alpha"}',
  '{"type":"started","key":"k2","agentId":"a2","label":"beta"}',
  '{"type":"result","key":"k1","agentId":"a1","result":"ok"}',
].join("\n");
const SEALED: SealVerdict = { kind: "sealed" };

describe("handFor: what an open run gets at a session's start", () => {
  const cases: Array<[string, SealVerdict, string | null, string | null, string]> = [
    ["sealed, another session", SEALED, "s-2", "/p/script.js", "hand put-back"],
    ["sealed, this session (claude -r)", SEALED, "s-1", "/p/script.js", "hand"],
    ["sealed, no script kept", SEALED, "s-2", null, "none"],
    ["edited journal", { kind: "unsealed", why: "journal_edited" }, "s-2", "/p/script.js", "ask"],
    ["another checkout", { kind: "unsealed", why: "other_checkout" }, "s-2", "/p/script.js", "ask"],
    ["changed script", { kind: "unsealed", why: "script_edited" }, "s-1", "/p/script.js", "ask"],
    ["no seal", { kind: "unsealed", why: "no_seal" }, "s-2", "/p/script.js", "ask"],
  ];
  it.each(cases)("%s", (_name, verdict, sessionId, scriptFile, want) => {
    const hand = handFor({ record, verdict, journal: JOURNAL, scriptFile, sessionId, live: null });
    expect(hand.kind === "hand" && hand.putBack ? "hand put-back" : hand.kind).toBe(want);
    if (hand.kind === "hand") {
      expect(hand.done).toEqual(["alpha"]);
      expect(hand.rerun).toEqual(["beta"]);
      expect(hand.call).toBe(resumeCall("/p/script.js", RUN, { topic: "probe", n: 3 }));
    }
  });

  it.each([["here"], ["elsewhere"]] as const)(
    "a run whose launching process still runs (%s): never handed, even sealed",
    (live) => {
      const facts = { record, journal: JOURNAL, scriptFile: "/p/s.js", sessionId: "s-2", live };
      expect(handFor({ ...facts, verdict: SEALED })).toEqual({ kind: "live", runId: RUN, where: live });
      expect(handFor({ ...facts, verdict: { kind: "unsealed", why: "other_checkout" } }).kind).toBe("live");
      const [line] = runLines([{ kind: "live", runId: RUN, where: live }], new Map());
      expect(line).toContain("is still running in");
      expect(line).toContain("do not relaunch it");
    },
  );

  it("the call: the kept script, the run id and the args verbatim as JSON (none: null)", () => {
    expect(resumeCall("/p/s.js", RUN, { a: [1, "x"] })).toBe(
      'Workflow({scriptPath: "/p/s.js", resumeFromRunId: "wf_3216a11b-d0a", args: {"a":[1,"x"]}})',
    );
    expect(resumeCall("/p/s.js", RUN, null)).toContain("args: null");
  });

  it("lines: none for no open run; one short line for a run the person must choose on", () => {
    expect(runLines([], new Map())).toEqual([]);
    const lines = runLines(
      [{ kind: "ask", runId: RUN, why: "its journal was edited since dotagent copied it" }],
      new Map(),
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`run \`dotagent workflow-run resume ${RUN}\` (it records the question, exit 5)`);
    expect(
      runLines(
        [{ kind: "ask", runId: RUN, why: "x" }],
        new Map(),
        "/p/.claude/skills/checkpoint/scripts/dotagent.mjs",
      )[0],
    ).toContain(`run \`node "/p/.claude/skills/checkpoint/scripts/dotagent.mjs" workflow-run resume ${RUN}\``);
  });
});

describe("runPersonLine: what the person reads after coming back (the interactive client shows it)", () => {
  const names = new Map([[RUN, "three-agents"]]);
  const hand = (done: string[], rerun: string[]) =>
    ({
      kind: "hand",
      runId: RUN,
      putBack: true,
      call: "Workflow(…)",
      done,
      rerun,
      total: done.length + rerun.length,
    }) as const;
  it("a run handed: its name, how far it got, what to type and what runs again; no call, no JSON", () => {
    expect(runPersonLine([hand(["alpha", "beta"], ["gamma"])], names)).toBe(
      `dotagent: Claude Code workflow "three-agents" (run ${RUN}) was cut off with 2 of 3 agents finished. Type "resume the cut-off workflow" to finish it: gamma runs again, no finished agent does.`,
    );
    expect(runPersonLine([hand([], ["alpha", "beta"])], new Map())).toBe(
      `dotagent: Claude Code workflow (run ${RUN}) was cut off with 0 of 2 agents finished. Type "resume the cut-off workflow" to finish it: alpha, beta run again.`,
    );
  });
  it("the person's choice, a run that cannot be resumed, one running elsewhere; nothing for one running here", () => {
    expect(
      runPersonLine([{ kind: "ask", runId: RUN, why: "its journal was edited since dotagent copied it" }], names),
    ).toBe(
      `dotagent: Claude Code workflow "three-agents" (run ${RUN}) was cut off; dotagent does not resume it by itself: its journal was edited since dotagent copied it. Type "resume the cut-off workflow" to be asked whether to.`,
    );
    expect(runPersonLine([{ kind: "none", runId: RUN, why: "dotagent kept no script of it" }], names)).toContain(
      "was cut off and cannot be resumed: dotagent kept no script of it.",
    );
    expect(runPersonLine([{ kind: "live", runId: RUN, where: "elsewhere" }], names)).toContain(
      "still runs in another Claude Code process",
    );
    expect(runPersonLine([{ kind: "live", runId: RUN, where: "here" }], names)).toBeNull();
    expect(runPersonLine([], names)).toBeNull();
  });
  it("a name or label from run.json or the journal (it may arrive by git) never brings control characters to the terminal", () => {
    const line = runPersonLine([hand(["a\u001b[2Jb"], ["x".repeat(50)])], new Map([[RUN, 'evil"\nname\u009b']]));
    expect(line).toContain('workflow "evil??name?" (run');
    expect(line).toContain(`${"x".repeat(40)}… runs again`);
    expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });
});

describe("judgeSeal", () => {
  const covered = {
    run_id: RUN,
    journal_sha256: "a".repeat(64),
    script_sha256: "b".repeat(64),
    args_sha256: "c".repeat(64),
  };
  const seal = { format: 1 as const, ...covered, seal: `mac:${sealText(covered)}` };
  const check = (text: string, mac: string) => mac === `mac:${text}`;
  it.each([
    ["all as sealed", covered, "sealed"],
    ["journal changed", { ...covered, journal_sha256: "d".repeat(64) }, "journal_edited"],
    ["script changed", { ...covered, script_sha256: null }, "script_edited"],
    ["args changed", { ...covered, args_sha256: "d".repeat(64) }, "args_edited"],
    ["another run's seal", { ...covered, run_id: "wf_other-1" }, "other_checkout"],
  ])("%s", (_name, now, want) => {
    const verdict = judgeSeal(seal, now, check);
    expect(verdict.kind === "sealed" ? "sealed" : verdict.why).toBe(want);
  });
  it("another key, or none: another checkout; no seal: never sealed", () => {
    expect(judgeSeal(seal, covered, () => false)).toEqual({ kind: "unsealed", why: "other_checkout" });
    expect(judgeSeal(null, covered, check)).toEqual({ kind: "unsealed", why: "no_seal" });
  });
  it("readSeal takes only its own shape", () => {
    expect(readSeal(seal)).toEqual(seal);
    expect(readSeal({ ...seal, journal_sha256: "../x" })).toBeNull();
    expect(readSeal([seal])).toBeNull();
  });
});

describe("endStatus: a run's end from its <task-notification>", () => {
  const note = (status: string, summary = "done") =>
    `<task-notification>\n<task-id>w1</task-id>\n<tool-use-id>t</tool-use-id>\n<output-file>/x/w1.output</output-file>\n<status>${status}</status>\n<summary>${summary}</summary>`;
  it("the status where the client puts it", () => {
    expect(endStatus(note("completed"))).toBe("completed");
    expect(endStatus(note("failed"))).toBe("failed");
  });
  it("not from the result's text, and no end for a run a killed session left", () => {
    expect(
      endStatus("<task-notification>\n<task-id>w1</task-id>\n<result><status>completed</status></result>"),
    ).toBeNull();
    expect(
      endStatus(
        note("stopped", 'Background workflow "x" (run wf_a-bcdefg) didn\'t finish before the previous session ended'),
      ),
    ).toBeNull();
  });
});
