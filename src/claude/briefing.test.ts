import { describe, expect, test } from "vitest";
import { briefingFor } from "./briefing.js";
import type { ResumePlan } from "../core/plan-resume.js";

const plan = (phase: string): ResumePlan =>
  ({
    situation: "interrupted",
    workflow_id: "wf-x",
    phase,
    phase_status: "in_progress",
    completed_phases: [],
    next: { action: "run_tasks", agent: "executor", tasks: ["t1"], reason: "t1 is ready" },
    in_flight: [],
    repairs: [],
    decision: null,
    errors: [],
  }) as unknown as ResumePlan;
const shared = {
  isolation: {
    round: 0,
    mode: "shared" as const,
    reason: "not a git repository",
    decided_at: "2026-11-29T10:00:00.000Z",
  },
  worktrees: [],
};

describe("briefingFor: a round's shared checkout is told at the workflow's tasks step, whatever its id", () => {
  test.each([
    ["develop's IMPLEMENTATION", "IMPLEMENTATION", "IMPLEMENTATION", true],
    ["fix's FIX", "FIX", "FIX", true],
    ["another step", "VERIFICATION", "IMPLEMENTATION", false],
    ["a workflow without a tasks step", "REVIEW", undefined, false],
  ])("%s", (_name, phase, tasksStep, told) => {
    const text = briefingFor(plan(phase), "resume", undefined, { ...shared, tasksStep }) ?? "";
    expect(text.includes("Tasks share one checkout this round (no worktrees): not a git repository.")).toBe(told);
  });
});

describe("briefingFor: a question recorded as asked is handed whole as the model's next step", () => {
  const question = (files: number) =>
    `The main checkout has uncommitted changes (${Array.from({ length: files }, (_, i) => `src/file-${i}.ts`).join(", ")}). Commit them now (yes), run the tasks without worktrees (no), or stop (neither)?`;
  const asking = (q: string, repairs = 0): ResumePlan =>
    ({
      ...plan("IMPLEMENTATION"),
      next: { action: "confirm_isolation", agent: null, tasks: [], reason: "uncommitted changes", round: 0 },
      repairs: Array.from({ length: repairs }, (_, i) => ({ code: "x", message: `repair ${i} ${"x".repeat(300)}` })),
      decision: {
        question: q,
        default: false,
        yes: "dotagent resume --isolation commit",
        no: "dotagent resume --isolation shared",
      },
      agents_in_flight: [],
    }) as unknown as ResumePlan;
  const handed = (text: string) => JSON.parse(/^dotagent next: (\{.*\})$/m.exec(text)?.[1] ?? "null");

  test.each([
    ["a short briefing", 0],
    ["a long one: the facts above are cut, the question stays whole", 3],
  ])("%s", (_name, repairs) => {
    const text = briefingFor(asking(question(2), repairs), "resume", "/h/dotagent.mjs", undefined, "add login", true)!;
    expect(text.length).toBeLessThanOrEqual(2000);
    expect(text.endsWith("}")).toBe(true);
    expect(handed(text).decision).toMatchObject({ question: question(2), yes: "dotagent resume --isolation commit" });
    expect(text).not.toContain("Continue: ");
  });

  // The interactive Claude Code puts a resumed session's first prompt BEFORE the briefing (Codex and
  // print mode after it): "the message that follows" made a "yes" typed right after `claude -r`
  // (as the person's line asks) no answer, and the question was put again.
  test("the person's reply counts on either side of the briefing", () => {
    const text = briefingFor(asking(question(2)), "resume", "/h/dotagent.mjs", undefined, "add login", true)!;
    const words = text.slice(
      text.indexOf("A person must decide, and dotagent recorded"),
      text.indexOf("dotagent next:"),
    );
    expect(words).toContain("If the person's newest message, just before or after this text, already says yes or no");
    expect(words).not.toContain("message that follows");
    expect(words).toContain(
      "Otherwise show them decision.question and decision.answers from the line below, word for word",
    );
  });

  test.each([
    ["not recorded (the lock was held)", question(2), false],
    ["too long to hand whole", question(80), true],
  ])("%s: named as before, the model runs resume", (_name, q, asked) => {
    const text = briefingFor(asking(q), "resume", "/h/dotagent.mjs", undefined, "add login", asked)!;
    expect(text).toContain("A person must decide: The main checkout");
    expect(text).not.toContain("dotagent next:");
  });
});
