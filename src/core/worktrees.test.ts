import { describe, expect, it } from "vitest";
import {
  branchNameFor,
  conflictFailure,
  executorLines,
  isCarriedOf,
  isolationFromFacts,
  liveWorktrees,
  promptWithLines,
  worktreePathFor,
  worktreeViews,
  type CheckoutFacts,
} from "./worktrees.js";
import { planResume } from "./plan-resume.js";
import { NOW, atPhase, execution, reportsBefore, snapshot, task } from "./fixtures.test-support.js";
import type { WorktreeRecord } from "../schema/execution.js";

const SHA = "0123456789abcdef0123456789abcdef01234567";
const record = (over: Partial<WorktreeRecord> = {}): WorktreeRecord => ({
  path: ".dotagent/worktrees/t1",
  branch: "dotagent/wf/t1",
  into: "main",
  base: SHA,
  merge: null,
  ...over,
});

describe("names", () => {
  it.each([
    ["wf-login", "task-001", "dotagent/wf-login/task-001"],
    ["wf..x", "a.lock", "dotagent/wf__x/a_lock"],
    ["wf", "t.", "dotagent/wf/t_"],
  ])("branch of %s / %s is %s (git refuses .., .lock, a trailing dot)", (wf, id, branch) =>
    expect(branchNameFor(wf, id)).toBe(branch),
  );

  it("a worktree folder that is taken gets -2, -3, …", () => {
    const taken = new Set([".dotagent/worktrees/t1", ".dotagent/worktrees/t1-2"]);
    expect(worktreePathFor("t1", (p) => taken.has(p))).toBe(".dotagent/worktrees/t1-3");
    expect(worktreePathFor("t2", (p) => taken.has(p))).toBe(".dotagent/worktrees/t2");
  });
});

describe("the isolation of a round", () => {
  const clean: CheckoutFacts = { git: true, branch: "main", head: SHA, dirty: [] };
  it.each([
    [
      "no git: shared, saying why",
      { git: false, reason: "the project is not in a git repository" } as CheckoutFacts,
      { mode: "shared", reason: "the project is not in a git repository" },
    ],
    ["a clean branch: worktrees merged into it", clean, { mode: "worktree", branch: "main", reason: null }],
  ])("%s", (_name, facts, expected) =>
    expect(isolationFromFacts(facts, 2, NOW)).toMatchObject({ round: 2, decided_at: NOW.toISOString(), ...expected }),
  );
  it("uncommitted changes: a person decides", () =>
    expect(isolationFromFacts({ ...clean, dirty: ["a.txt"] }, 0, NOW)).toBe("decide"));
  it("git refused here (a sandbox): nothing decided, never shared", () =>
    expect(isolationFromFacts({ git: "refused", reason: "git could not be run from this shell" }, 0, NOW)).toBe(
      "refused",
    ));
});

describe("the executor's prompt", () => {
  const at = { dir: "/p/.dotagent/worktrees/t1", branch: "dotagent/wf/t1", into: "main" };
  it("gets its worktree lines before Output file:, replacing older ones", () => {
    const prompt =
      "Feature request: x\nPhase: IMPLEMENTATION\nTask: t1\nWorktree: /old\nOutput file: memory/reports/tasks/t1.json";
    const lines = executorLines(at, "/p/memory/reports/tasks/t1.json");
    expect(promptWithLines(prompt, lines).split("\n")).toEqual([
      "Feature request: x",
      "Phase: IMPLEMENTATION",
      "Task: t1",
      "Worktree: /p/.dotagent/worktrees/t1",
      "Branch: dotagent/wf/t1 (dotagent merges it into main when you finish)",
      "Report file: /p/memory/reports/tasks/t1.json",
      "Output file: memory/reports/tasks/t1.json",
    ]);
    expect(promptWithLines(prompt, [])).toBe(prompt);
  });
  it.each([
    ["conflict", ["Merge conflict: main (a.txt, b.txt)"]],
    ["unfinished_merge", ["Merge conflict: main (a.txt, b.txt)"]],
    ["local_changes", []],
    ["untrusted_worktree", []],
    ["carried", ["Merge conflict: feature/t1 (a.txt, b.txt)"]],
    [
      "nothing_landed",
      [
        "Nothing landed: the last attempt's report listed a.txt, b.txt, but its worktree held none of them; write them in your worktree",
      ],
    ],
    ["wrong_branch", ["Wrong branch: feature/t1; switch back to dotagent/wf/t1 first"]],
  ])("after a %s the retry is told what to do first: %j", (reason, extra) => {
    const lines = executorLines(
      {
        ...at,
        merge: {
          state: "conflict",
          into: "main",
          files: ["a.txt", "b.txt"],
          reason,
          detail: "feature/t1",
          at: NOW.toISOString(),
        },
      },
      "/r",
    );
    expect(lines.slice(3)).toEqual(extra);
  });
});

describe("a mend's carried branches", () => {
  it.each([
    ["dotagent/wf/t1-carried", true],
    ["dotagent/wf/t1-carried-2", true],
    ["dotagent/wf/t1", false],
    ["dotagent/wf/t1-2", false],
    ["dotagent/wf/t10-carried", false],
  ])("%s is t1's carried branch: %s", (branch, carried) =>
    expect(isCarriedOf(branch, ["dotagent/wf/t1"])).toBe(carried),
  );
});

describe("a conflict", () => {
  const merge = {
    into: "main",
    onto: SHA,
    head: SHA,
    files: ["shared.txt"],
    reason: "conflict",
    at: NOW.toISOString(),
  };
  it("fails the attempt (it counts), names the files, keeps the worktree record", () => {
    const state = execution([task("t1", { status: "running", attempts: 0, worktree: record() })]);
    const out = conflictFailure(state, "t1", merge, NOW);
    expect(out.state.tasks[0]).toMatchObject({
      status: "failed",
      attempts: 1,
      error: expect.stringMatching(
        /^merge conflict: its branch dotagent\/wf\/t1 and main both changed shared\.txt; the branch is kept/,
      ),
      worktree: { path: ".dotagent/worktrees/t1", merge: { state: "conflict", files: ["shared.txt"] } },
    });
    expect(out.events.map((e) => e.type)).toEqual(["task_conflict", "task_failed"]);
  });
  it.each([
    [
      "wrong_branch",
      /^feature\/t1: its work is not there, so nothing was merged; when the task starts again, dotagent puts its worktree back on dotagent\/wf\/t1 with that work$/,
    ],
    [
      "nothing_landed",
      /^its executor's report lists shared\.txt as changed, but its worktree held no change and its branch dotagent\/wf\/t1 no commit of its own: nothing of its work landed, so the attempt failed/,
    ],
    [
      "untrusted_worktree",
      /dotagent ran nothing there and merged nothing; the folder and the branch dotagent\/wf\/t1 are kept\. for the person: /,
    ],
  ])("%s: the attempt fails, saying what happens next and whose step it is", (reason, error) => {
    const state = execution([task("t1", { status: "running", attempts: 0, worktree: record() })]);
    expect(conflictFailure(state, "t1", { ...merge, reason, detail: "feature/t1" }, NOW).state.tasks[0]).toMatchObject({
      status: "failed",
      attempts: 1,
      error: expect.stringMatching(error),
    });
  });
  it("past its attempts: dead", () => {
    const state = execution([task("t1", { status: "running", attempts: 2, worktree: record() })]);
    expect(conflictFailure(state, "t1", merge, NOW).state.tasks[0]!.status).toBe("dead");
  });
});

describe("which worktrees the state still needs", () => {
  it("every task not complete, and one whose merge is in progress; not a merged one", () => {
    const state = execution([
      task("a", { status: "running", worktree: record({ path: "p/a", branch: "b/a" }) }),
      task("b", {
        status: "complete",
        worktree: record({
          path: "p/b",
          branch: "b/b",
          merge: { state: "merged", into: "main", at: NOW.toISOString() },
        }),
      }),
      task("c", {
        status: "complete",
        worktree: record({
          path: "p/c",
          branch: "b/c",
          merge: { state: "merging", into: "main", at: NOW.toISOString() },
        }),
      }),
      task("d", { status: "pending" }),
    ]);
    expect([...liveWorktrees(state).paths]).toEqual(["p/a", "p/c"]);
    expect(worktreeViews(state).map((w) => [w.task, w.merge])).toEqual([
      ["a", null],
      ["b", "merged"],
      ["c", "merging"],
    ]);
  });
});

describe("the planner and the main checkout's uncommitted changes", () => {
  const plan0 = { round: 0, recorded_at: "2026-11-20T10:30:00Z", tasks: 1 };
  const snap = (over = {}) =>
    snapshot(
      atPhase("IMPLEMENTATION"),
      execution([task("t1")], { plans: [plan0], ...over }),
      reportsBefore("IMPLEMENTATION"),
    );
  const dirty: CheckoutFacts = { git: true, branch: "main", head: SHA, dirty: ["a.txt"] };
  it("ready tasks and a dirty checkout: confirm_isolation with the decision", () => {
    const plan = planResume(snap(), NOW, { checkout: dirty });
    expect(plan.next).toMatchObject({ action: "confirm_isolation", round: 0 });
    expect(plan.decision).toMatchObject({
      default: false,
      yes: "dotagent resume --isolation commit",
      no: "dotagent resume --isolation shared",
    });
    expect(plan.decisionKind).toBe("isolation");
  });
  it("git refused from this shell (a sandbox): confirm_isolation saying so, never run_tasks", () => {
    const plan = planResume(snap(), NOW, {
      checkout: { git: "refused", reason: "git could not be run from this shell (the system refused it: EPERM)" },
    });
    expect(plan.next).toMatchObject({ action: "confirm_isolation", round: 0, checkout: "git_refused", tasks: [] });
    expect(plan.decision).toMatchObject({
      default: false,
      yes: "dotagent resume --isolation commit",
      no: "dotagent resume --isolation shared",
    });
    expect(plan.decision?.question).toMatch(
      /^dotagent could not look at the main checkout before the tasks start: git could not be run from this shell \(the system refused it: EPERM\)\..*has to run outside the sandbox/,
    );
    expect(plan.decisionKind).toBe("isolation");
  });
  it("a dirty checkout whose .git this shell cannot write: the question says to commit outside the sandbox", () => {
    const plan = planResume(snap(), NOW, { checkout: { ...dirty, writable: false } });
    expect(plan.next).toMatchObject({ action: "confirm_isolation", checkout: "uncommitted" });
    expect(plan.decision?.question).toContain(
      "Commit them now (yes: this shell cannot write the repository's .git, a sandbox, so commit them yourself first, or let that command run outside the sandbox)",
    );
    expect(planResume(snap(), NOW, { checkout: dirty }).decision?.question).toContain(
      "Commit them now (yes), run the tasks",
    );
  });
  it.each([
    [
      "the round's isolation is decided (git refused)",
      snap({ isolation: { round: 0, mode: "shared", reason: "x", decided_at: NOW.toISOString() } }),
      { git: "refused", reason: "r" } as CheckoutFacts,
    ],
    [
      "the round's isolation is decided",
      snap({ isolation: { round: 0, mode: "shared", reason: "x", decided_at: NOW.toISOString() } }),
      dirty,
    ],
    ["the checkout is clean", snap(), { ...dirty, dirty: [] }],
    ["there is no git", snap(), { git: false, reason: "no git" } as CheckoutFacts],
  ])("not when %s: run_tasks", (_name, s, facts) => {
    const plan = planResume(s, NOW, { checkout: facts });
    expect(plan.next.action).toBe("run_tasks");
    expect(plan.decision).toBeNull();
  });
});
