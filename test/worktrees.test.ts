// Task worktrees through the built CLI (SPEC §19): each task of a round in its own git worktree and
// branch, merged into the workflow's branch when it completes; conflicts never lose a side; the
// uncommitted-changes decision; no git: the shared checkout as before; leftovers found from git's
// own lists, never by age; status, the briefing and the hook show and hand out the worktrees.
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { CLI, dotagent, removeTemps, writeJson } from "./support/cli.js";
import { copyOfTemplate } from "./support/template.js";
import {
  deadPid,
  executorWork,
  exists,
  expectFsckClean,
  git,
  liveOwner,
  ok,
  projectAtImplementation,
  readExecution,
  startTask,
  stopOwner,
  taskBranches,
  taskOf,
  taskWorktrees,
  timesMerged,
} from "./support/worktree-project.js";

afterEach(() => removeTemps());
afterAll(async () => stopOwner());

const THREE = [{ id: "t1" }, { id: "t2" }, { id: "t3" }];

describe("three independent tasks in their own worktrees", () => {
  it("each adds and commits a file: all three land on the workflow branch, 0 worktrees left", () => {
    const root = projectAtImplementation(THREE);
    const dirs = THREE.map((t) => startTask(root, t.id));
    for (const d of dirs) ok(d.run);
    expect(taskWorktrees(root)).toHaveLength(3);
    // Each from the same commit, each on its own branch, none the main checkout.
    const base = git(root, "rev-parse", "main");
    for (const [i, t] of THREE.entries()) {
      const dir = dirs[i]!.dir!;
      expect(dir).toBe(join(root, ".dotagent/worktrees", t.id));
      expect(git(dir, "rev-parse", "HEAD")).toBe(base);
      expect(git(dir, "rev-parse", "--abbrev-ref", "HEAD")).toBe(`dotagent/wf-add-parts/${t.id}`);
      executorWork(root, t.id, dir, { [`${t.id}.txt`]: `${t.id}\n` });
    }
    const heads = THREE.map((t) => git(root, "rev-parse", `dotagent/wf-add-parts/${t.id}`));
    for (const t of THREE) {
      const done = ok(dotagent(root, ["task", "complete", t.id, "--json"]));
      expect(done.json.task).toMatchObject({
        id: t.id,
        status: "complete",
        worktree: { merge: { state: "merged", into: "main" } },
      });
    }
    for (const [i, t] of THREE.entries()) {
      expect(readFileSync(join(root, `${t.id}.txt`), "utf8")).toBe(`${t.id}\n`);
      expect(timesMerged(root, "main", heads[i]!)).toBe(1);
    }
    expect(taskWorktrees(root)).toEqual([]);
    expect(taskBranches(root)).toEqual([]);
    expect(exists(root, ".dotagent/worktrees/t1")).toBe(false);
    // The main checkout shows nothing of the worktrees folder; only dotagent's own memory/ is new.
    expect(git(root, "status", "--porcelain")).toBe("?? memory/");
    expectFsckClean(root);
    const status = ok(dotagent(root, ["status", "--json"])).json;
    expect(status.phase).toBe("VERIFICATION");
    expect(status.isolation).toMatchObject({ mode: "worktree", branch: "main", round: 0 });
    expect(status.worktrees.map((w: { task: string; merge: string }) => [w.task, w.merge])).toEqual([
      ["t1", "merged"],
      ["t2", "merged"],
      ["t3", "merged"],
    ]);
    const events = readFileSync(join(root, "memory/state/events.jsonl"), "utf8");
    expect(events.match(/"type":"task_merged"/g)).toHaveLength(3);
    expect(events.match(/"type":"worktree_created"/g)).toHaveLength(3);
  });

  it("a task that depends on another starts from the workflow branch with that task merged", () => {
    const root = projectAtImplementation([{ id: "t1" }, { id: "t2", depends_on: ["t1"] }]);
    const first = startTask(root, "t1");
    executorWork(root, "t1", first.dir!, { "lib.txt": "lib\n" });
    ok(dotagent(root, ["task", "complete", "t1", "--json"]));
    const second = startTask(root, "t2");
    ok(second.run);
    expect(readFileSync(join(second.dir!, "lib.txt"), "utf8")).toBe("lib\n");
  });
});

describe("conflicts never lose a side", () => {
  it("two tasks edit the same lines: one merges, the other is a conflict naming the file, both commits reachable", () => {
    const root = projectAtImplementation([{ id: "t1" }, { id: "t2" }]);
    const a = startTask(root, "t1");
    const b = startTask(root, "t2");
    executorWork(root, "t1", a.dir!, { "shared.txt": "one\nTWO from t1\nthree\n" });
    executorWork(root, "t2", b.dir!, { "shared.txt": "one\nTWO from t2\nthree\n" });
    const headA = git(root, "rev-parse", "dotagent/wf-add-parts/t1");
    const headB = git(root, "rev-parse", "dotagent/wf-add-parts/t2");
    ok(dotagent(root, ["task", "complete", "t1", "--json"]));
    const second = ok(dotagent(root, ["task", "complete", "t2", "--json"])).json;
    // Failed by the conflict, requeued (attempts left): the next step runs it again.
    expect(second.task).toMatchObject({
      id: "t2",
      status: "pending",
      attempts: 1,
      worktree: { merge: { state: "conflict", files: ["shared.txt"], reason: "conflict" } },
    });
    expect(second.task.error).toMatch(/merge conflict: .*shared\.txt/);
    expect(second.next).toMatchObject({ action: "run_tasks", tasks: ["t2"] });
    expect(readFileSync(join(root, "shared.txt"), "utf8")).toBe("one\nTWO from t1\nthree\n");
    // Both commits reachable: t1's on main, t2's on its kept branch, its worktree still there.
    expect(gitOk(root, "merge-base", "--is-ancestor", headA, "main")).toBe(true);
    expect(git(root, "rev-parse", "dotagent/wf-add-parts/t2")).toBe(headB);
    expect(taskWorktrees(root)).toEqual([join(root, ".dotagent/worktrees/t2")]);
    expectFsckClean(root);
    const events = readFileSync(join(root, "memory/state/events.jsonl"), "utf8");
    expect(events).toMatch(/"type":"task_conflict","task_id":"t2","into":"main","files":\["shared.txt"\]/);
    const status = ok(dotagent(root, ["status"]));
    expect(status.stdout).toMatch(
      /t2 +pending +\.dotagent\/worktrees\/t2 +dotagent\/wf-add-parts\/t2 +conflict: shared\.txt/,
    );

    // The retry works in the same worktree and is told to merge main first; resolved, it lands.
    const retry = startTask(root, "t2");
    ok(retry.run);
    expect(retry.dir).toBe(b.dir);
    expect(retry.lines).toContain("Merge conflict: main (shared.txt)");
    gitOk(retry.dir!, "merge", "main");
    writeFileSync(join(retry.dir!, "shared.txt"), "one\nTWO from t1 and t2\nthree\n");
    executorWork(root, "t2", retry.dir!, {});
    const landed = ok(dotagent(root, ["task", "complete", "t2", "--json"])).json;
    expect(landed.task.worktree.merge).toMatchObject({ state: "merged" });
    expect(readFileSync(join(root, "shared.txt"), "utf8")).toBe("one\nTWO from t1 and t2\nthree\n");
    expect(gitOk(root, "merge-base", "--is-ancestor", headB, "main")).toBe(true);
    expect(taskWorktrees(root)).toEqual([]);
    expect(ok(dotagent(root, ["status", "--json"])).json.phase).toBe("VERIFICATION");
  });

  it("the main checkout's own uncommitted change to a file the merge changes: not merged, nothing overwritten", () => {
    const root = projectAtImplementation([{ id: "t1" }]);
    const a = startTask(root, "t1");
    executorWork(root, "t1", a.dir!, { "shared.txt": "one\nt1\nthree\n" });
    writeFileSync(join(root, "shared.txt"), "a person's edit\n");
    const done = ok(dotagent(root, ["task", "complete", "t1", "--json"])).json;
    expect(done.task.worktree.merge).toMatchObject({
      state: "conflict",
      reason: "local_changes",
      files: ["shared.txt"],
    });
    expect(readFileSync(join(root, "shared.txt"), "utf8")).toBe("a person's edit\n");
    expect(git(root, "rev-parse", "main")).toBe(taskOf(root, "t1").worktree.base);
  });
});

describe("a task recovered while its executor still finished", () => {
  it("orphaned (its session gone, no report yet), then its report and task complete: it still lands, merged first", () => {
    const root = projectAtImplementation([{ id: "t1" }, { id: "t2" }]);
    const a = startTask(root, "t1", deadPid());
    ok(startTask(root, "t2").run); // the planner of this command finds t1 orphaned: pending again
    expect(taskOf(root, "t1").status).toBe("pending");
    executorWork(root, "t1", a.dir!, { "t1.txt": "t1\n" });
    const done = ok(dotagent(root, ["task", "complete", "t1", "--json"])).json;
    expect(done.task).toMatchObject({ status: "complete", worktree: { merge: { state: "merged" } } });
    expect(readFileSync(join(root, "t1.txt"), "utf8")).toBe("t1\n");
    expect(taskWorktrees(root)).toEqual([join(root, ".dotagent/worktrees/t2")]);
  });
});

describe("what an executor leaves behind", () => {
  it("uncommitted work is committed on its branch by dotagent and merged; its memory/ changes are not merged", () => {
    const root = projectAtImplementation([{ id: "t1" }], {
      files: { "README.md": "# app\n", "memory/reports/old.json": "{}\n" },
    });
    const a = startTask(root, "t1");
    // A commit that touches memory/ (the worktree's copy), then work left uncommitted.
    writeFileSync(join(a.dir!, "memory/reports/old.json"), '{"changed": true}\n');
    git(a.dir!, "commit", "-qam", "touches memory");
    executorWork(root, "t1", a.dir!, { "feature.txt": "feature\n" }, { commit: false });
    const done = ok(dotagent(root, ["task", "complete", "t1", "--json"])).json;
    expect(done.task.worktree.merge.state).toBe("merged");
    expect(readFileSync(join(root, "feature.txt"), "utf8")).toBe("feature\n");
    expect(git(root, "show", "main:memory/reports/old.json")).toBe("{}");
    expect(git(root, "log", "--format=%s", "main")).toMatch(/^Task t1: t1$/m);
    expect(taskWorktrees(root)).toEqual([]);
  });

  it("an index.lock left by an executor killed mid-commit is cleared when no git holds it", () => {
    const root = projectAtImplementation([{ id: "t1" }]);
    const a = startTask(root, "t1");
    executorWork(root, "t1", a.dir!, { "x.txt": "x\n" }, { commit: false });
    writeFileSync(git(a.dir!, "rev-parse", "--git-path", "index.lock").replace(/^(?!\/)/, `${a.dir!}/`), "");
    const done = ok(dotagent(root, ["task", "complete", "t1", "--json"])).json;
    expect(done.task.worktree.merge.state).toBe("merged");
    expect(readFileSync(join(root, "x.txt"), "utf8")).toBe("x\n");
  });
});

describe("what the project needs", () => {
  it("no git repository: the tasks share the checkout as before, max_parallel honoured, one warning", () => {
    const root = projectAtImplementation(THREE, { git: false });
    const set = ok(dotagent(root, ["resume", "--max-parallel", "2", "--json"])).json;
    expect(set.next).toMatchObject({ action: "run_tasks", tasks: ["t1", "t2"] });
    const first = startTask(root, "t1");
    ok(first.run);
    expect(first.dir).toBeUndefined();
    expect(first.run.stderr).toMatch(
      /^dotagent: warning: the tasks of this round share one checkout \(no worktrees\): the project is not in a git repository/,
    );
    const second = startTask(root, "t2");
    expect(second.run.stderr).toBe("");
    expect(second.run.json.next).toMatchObject({ action: "await_agents" });
    expect(readExecution(root).isolation).toMatchObject({
      mode: "shared",
      round: 0,
      reason: "the project is not in a git repository",
    });
    writeJson(root, "memory/reports/tasks/t1.json", { task_id: "t1", status: "complete" });
    expect(ok(dotagent(root, ["task", "complete", "t1", "--json"])).json.task.status).toBe("complete");
  });

  it("a detached HEAD: shared, saying why", () => {
    const root = projectAtImplementation([{ id: "t1" }]);
    git(root, "checkout", "-q", "--detach");
    const first = startTask(root, "t1");
    ok(first.run);
    expect(readExecution(root).isolation).toMatchObject({
      mode: "shared",
      reason: expect.stringMatching(/detached HEAD/),
    });
  });

  it("uncommitted changes at the start of IMPLEMENTATION are a decision: yes commits them, then worktrees", () => {
    const root = projectAtImplementation([{ id: "t1" }]);
    writeFileSync(join(root, "shared.txt"), "half-done edit\n");
    writeFileSync(join(root, "new.txt"), "new file\n");
    const plan = dotagent(root, ["resume", "--json"]);
    expect(plan.code).toBe(5);
    expect(plan.json.next).toMatchObject({ action: "confirm_isolation", round: 0 });
    expect(plan.json.decision).toMatchObject({
      default: false,
      yes: "dotagent resume --isolation commit",
      no: "dotagent resume --isolation shared",
    });
    expect(plan.json.decision.question).toMatch(/uncommitted changes \(new\.txt, shared\.txt\)/);
    const refused = startTask(root, "t1");
    expect(refused.run.code).toBe(5);
    expect(refused.run.json.error.code).toBe("isolation_undecided");
    const yes = ok(dotagent(root, ["resume", "--isolation", "commit", "--json"])).json;
    expect(yes.next).toMatchObject({ action: "run_tasks", tasks: ["t1"] });
    expect(yes.repairs[0]).toMatchObject({
      code: "isolation_decided",
      message: expect.stringMatching(/committed 2 uncommitted file/),
    });
    expect(git(root, "show", "main:shared.txt")).toBe("half-done edit");
    expect(git(root, "status", "--porcelain")).toBe("?? memory/");
    const started = startTask(root, "t1");
    expect(readFileSync(join(started.dir!, "new.txt"), "utf8")).toBe("new file\n");
  });

  it("… and no runs the round in the one checkout, the changes left as they are", () => {
    const root = projectAtImplementation([{ id: "t1" }]);
    writeFileSync(join(root, "shared.txt"), "half-done edit\n");
    const no = ok(dotagent(root, ["resume", "--isolation", "shared", "--json"])).json;
    expect(no.next).toMatchObject({ action: "run_tasks" });
    expect(readExecution(root).isolation).toMatchObject({ mode: "shared", reason: expect.stringMatching(/chose/) });
    const started = startTask(root, "t1");
    expect(started.dir).toBeUndefined();
    expect(git(root, "status", "--porcelain", "shared.txt")).toBe("M shared.txt");
    expect(dotagent(root, ["resume", "--isolation", "maybe"]).code).toBe(2);
  });
});

describe("leftovers", () => {
  it("archiving the workflow leaves no worktree behind, except a live owner's; a branch with unmerged commits is kept and named", async () => {
    const root = projectAtImplementation([{ id: "t1" }, { id: "t2" }, { id: "t3" }]);
    const live = startTask(root, "t1", liveOwner());
    const gone = startTask(root, "t2", deadPid());
    const empty = startTask(root, "t3", deadPid());
    for (const s of [live, gone, empty]) ok(s.run);
    writeFileSync(join(gone.dir!, "wip.txt"), "work in progress\n");
    const archived = ok(dotagent(root, ["archive", "--reason", "start over"]));
    expect(taskWorktrees(root)).toEqual([join(root, ".dotagent/worktrees/t1")]);
    // t2's uncommitted work was committed onto its branch, which is kept: nothing is lost.
    expect(git(root, "show", "dotagent/wf-add-parts/t2:wip.txt")).toBe("work in progress");
    expect(archived.stderr).toMatch(/kept its branch dotagent\/wf-add-parts\/t2: it holds commits merged nowhere/);
    expect(taskBranches(root).sort()).toEqual(["dotagent/wf-add-parts/t1", "dotagent/wf-add-parts/t2"]);
    // Once t1's session is gone, the next command that takes the lock removes its worktree too
    // (and its branch, which holds nothing unmerged); t2's branch stays.
    await stopOwner();
    ok(dotagent(root, ["init", "--request", "next", "--json"]));
    expect(taskWorktrees(root)).toEqual([]);
    expect(taskBranches(root)).toEqual(["dotagent/wf-add-parts/t2"]);
    expectFsckClean(root);
  });

  it("resume lands a task whose session is gone, from its report", () => {
    const root = projectAtImplementation([{ id: "t1" }]);
    const a = startTask(root, "t1", deadPid());
    executorWork(root, "t1", a.dir!, { "a.txt": "a\n" });
    const resumed = ok(dotagent(root, ["resume", "--json"])).json;
    expect(resumed.repairs[0]).toMatchObject({
      code: "task_merged",
      message: expect.stringMatching(/^t1 was running and its output says complete: complete, merged into main/),
    });
    expect(resumed.phase).toBe("VERIFICATION");
    expect(readFileSync(join(root, "a.txt"), "utf8")).toBe("a\n");
    expect(taskWorktrees(root)).toEqual([]);
  });
});

describe("the executor learns its worktree", () => {
  it("the PreToolUse hook records the start and rewrites the Agent call's prompt (updatedInput)", () => {
    const root = projectAtImplementation([{ id: "t1" }]);
    const prompt = [
      "Feature request: add parts",
      "Phase: IMPLEMENTATION",
      "Task: t1",
      "Title: t1",
      "Workflow: wf-add-parts",
      "Output file: memory/reports/tasks/t1.json",
    ].join("\n");
    const input = {
      hook_event_name: "PreToolUse",
      tool_name: "Agent",
      cwd: root,
      tool_input: { subagent_type: "executor", description: "t1", prompt, run_in_background: false },
    };
    const hook = dotagent(root, ["hook", "pre-tool-use"], {
      input: JSON.stringify(input),
      env: { CLAUDE_PID: String(liveOwner()), CLAUDE_PROJECT_DIR: root },
    });
    const out = JSON.parse(hook.stdout).hookSpecificOutput;
    expect(out.permissionDecision).toBe("allow");
    expect(out.permissionDecisionReason).toMatch(/executor for t1 started in its worktree \.dotagent\/worktrees\/t1/);
    expect(out.updatedInput).toMatchObject({ subagent_type: "executor", description: "t1", run_in_background: false });
    const lines = String(out.updatedInput.prompt).split("\n");
    expect(lines.slice(-4)).toEqual([
      `Worktree: ${join(root, ".dotagent/worktrees/t1")}`,
      "Branch: dotagent/wf-add-parts/t1 (dotagent merges it into main when you finish)",
      `Report file: ${join(root, "memory/reports/tasks/t1.json")}`,
      "Output file: memory/reports/tasks/t1.json",
    ]);
    expect(taskWorktrees(root)).toEqual([join(root, ".dotagent/worktrees/t1")]);
  });

  it("an executor that stops without its report is sent back to the main checkout's memory/, not its worktree's copy", () => {
    const root = projectAtImplementation([{ id: "t1" }]);
    ok(startTask(root, "t1").run);
    const prompt = [
      "Feature request: add parts",
      "Phase: IMPLEMENTATION",
      "Task: t1",
      "Output file: memory/reports/tasks/t1.json",
    ].join("\n");
    const dir = join(root, "home/.claude/projects/x/s-1/subagents");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "agent-a1.jsonl"),
      `${JSON.stringify({ type: "user", agentId: "a1", message: { role: "user", content: prompt } })}\n`,
    );
    writeFileSync(join(dir, "agent-a1.meta.json"), JSON.stringify({ agentType: "executor" }));
    const input = {
      hook_event_name: "SubagentStop",
      agent_id: "a1",
      agent_type: "executor",
      agent_transcript_path: join(dir, "agent-a1.jsonl"),
      cwd: root,
    };
    const stop = dotagent(root, ["hook", "subagent-stop"], {
      input: JSON.stringify(input),
      env: { CLAUDE_PROJECT_DIR: root },
    });
    expect(JSON.parse(stop.stdout)).toMatchObject({
      decision: "block",
      reason: expect.stringContaining(
        `Write memory/reports/tasks/t1.json (the main checkout's: ${join(root, "memory/reports/tasks/t1.json")}, not your worktree's copy) now`,
      ),
    });
  });

  it("status and the SessionStart briefing show the tasks by worktree", () => {
    const root = projectAtImplementation([{ id: "t1" }, { id: "t2" }]);
    ok(startTask(root, "t1").run);
    const plain = ok(dotagent(root, ["status"])).stdout;
    expect(plain).toMatch(/^Isolation: each task in its own git worktree, merged into main \(round 0\)$/m);
    expect(plain).toMatch(/^ {2}t1 +running +\.dotagent\/worktrees\/t1 +dotagent\/wf-add-parts\/t1$/m);
    const json = ok(dotagent(root, ["status", "--json"])).json;
    expect(json.worktrees).toEqual([
      {
        task: "t1",
        status: "running",
        path: ".dotagent/worktrees/t1",
        branch: "dotagent/wf-add-parts/t1",
        into: "main",
        base: git(root, "rev-parse", "main"),
        merge: null,
      },
    ]);
    const briefing = dotagent(root, ["hook", "session-start"], {
      input: JSON.stringify({ source: "resume", cwd: root }),
    });
    expect(JSON.parse(briefing.stdout).hookSpecificOutput.additionalContext).toMatch(
      /Task worktrees \(dotagent makes them and merges each into main when its task completes; never edit or remove them by hand\): t1 \.dotagent\/worktrees\/t1 \(running\)/,
    );
  });
});

function gitOk(cwd: string, ...args: string[]): boolean {
  try {
    git(cwd, ...args);
    return true;
  } catch {
    return false;
  }
}

describe("a merge in a linked worktree (found with git rev-parse --git-path MERGE_HEAD)", () => {
  /** t1 lands a change to shared.txt; t2's executor changes the same line, merges main into its branch and stops halfway. */
  function mergeStartedInT2(): { root: string; b: ReturnType<typeof startTask> } {
    const root = projectAtImplementation([{ id: "t1" }, { id: "t2" }]);
    const a = startTask(root, "t1");
    const b = startTask(root, "t2");
    executorWork(root, "t1", a.dir!, { "shared.txt": "one\nt1\nthree\n" });
    ok(dotagent(root, ["task", "complete", "t1", "--json"]));
    writeFileSync(join(b.dir!, "shared.txt"), "one\nt2\nthree\n");
    git(b.dir!, "commit", "-qam", "t2");
    expect(() => git(b.dir!, "merge", "main")).toThrow();
    return { root, b };
  }

  it("left with unresolved files: the attempt is a conflict naming them, the worktree kept as it is", () => {
    const { root, b } = mergeStartedInT2();
    writeJson(root, "memory/reports/tasks/t2.json", { task_id: "t2", status: "complete" });
    const done = ok(dotagent(root, ["task", "complete", "t2", "--json"])).json;
    expect(done.task.worktree.merge).toMatchObject({
      state: "conflict",
      reason: "unfinished_merge",
      files: ["shared.txt"],
    });
    expect(done.task.error).toMatch(/left a merge unfinished in its worktree \(unmerged: shared\.txt\)/);
    expect(git(b.dir!, "rev-parse", "--verify", "MERGE_HEAD")).toMatch(/^[0-9a-f]{40}$/);
  });

  it("resolved but not committed: dotagent concludes the merge on the branch, then lands it", () => {
    const { root, b } = mergeStartedInT2();
    writeFileSync(join(b.dir!, "shared.txt"), "one\nt1 and t2\nthree\n");
    git(b.dir!, "add", "shared.txt");
    writeJson(root, "memory/reports/tasks/t2.json", { task_id: "t2", status: "complete" });
    const done = ok(dotagent(root, ["task", "complete", "t2", "--json"])).json;
    expect(done.task.worktree.merge.state).toBe("merged");
    expect(readFileSync(join(root, "shared.txt"), "utf8")).toBe("one\nt1 and t2\nthree\n");
    expectFsckClean(root);
  });
});

describe("a hand-edited worktree record never reaches outside dotagent's worktrees and branches", () => {
  it.each([
    ["a path outside .dotagent/worktrees", { path: "src" }],
    ["a path that climbs out", { path: ".dotagent/worktrees/../../src" }],
    ["a branch that is not dotagent's", { branch: "main" }],
  ])("%s: the state is invalid (exit 3), the folder and the branch are still there", (_name, edit) => {
    // src/keep.txt committed, t1 started in its worktree and its work done: made once per file, a copy per case.
    const root = copyOfTemplate("keep, t1 done", (dir) => {
      cpSync(projectAtImplementation([{ id: "t1" }]), dir, { recursive: true, verbatimSymlinks: true });
      mkdirSync(join(dir, "src"));
      writeFileSync(join(dir, "src/keep.txt"), "keep me\n");
      git(dir, "add", "src/keep.txt");
      git(dir, "commit", "-qm", "keep");
      const start = startTask(dir, "t1");
      ok(start.run);
      executorWork(dir, "t1", start.dir!, { "t1.txt": "t1\n" });
    });
    const file = join(root, "memory/state/execution.json");
    const state = JSON.parse(readFileSync(file, "utf8"));
    const task = state.tasks.find((t: { id: string }) => t.id === "t1");
    task.worktree = { ...task.worktree, ...edit };
    writeFileSync(file, JSON.stringify(state, null, 2));
    for (const args of [["task", "complete", "t1"], ["validate"]]) {
      const r = dotagent(root, [...args, "--json"]);
      expect([r.code, args.join(" ")]).toEqual([3, args.join(" ")]);
      expect(r.stdout).toMatch(/execution\.json/);
      expect(r.stdout).toMatch(/tasks\[0\]\.worktree\.(path|branch)/);
    }
    // resume: corrupt state is a person's decision (exit 5), never repaired by acting on the record.
    const resume = dotagent(root, ["resume", "--json"]);
    expect([resume.code, resume.json.situation]).toEqual([5, "corrupt"]);
    expect(readFileSync(join(root, "src/keep.txt"), "utf8")).toBe("keep me\n");
    expect(git(root, "rev-parse", "--verify", "main")).toMatch(/^[0-9a-f]{40}$/);
  });
});

describe("a .dotagent that is a link never leads dotagent's worktrees outside the project", () => {
  it("a committed .dotagent link to a folder elsewhere: the round runs shared, saying why; that folder's contents stay", () => {
    const root = projectAtImplementation([{ id: "t1" }]);
    const elsewhere = mkdtempSync(join(tmpdir(), "dotagent-elsewhere-"));
    try {
      mkdirSync(join(elsewhere, "worktrees/keep"), { recursive: true });
      writeFileSync(join(elsewhere, "worktrees/keep/precious.txt"), "keep me\n");
      symlinkSync(elsewhere, join(root, ".dotagent"));
      git(root, "add", ".dotagent");
      git(root, "commit", "-qm", "a link");
      const start = dotagent(root, ["task", "start", "t1", "--json"]);
      expect(start.code, start.stderr).toBe(0);
      expect(start.json.task.worktree).toBeUndefined();
      expect(start.stderr).toMatch(/\.dotagent is a link/);
      for (const args of [["resume"], ["status"], ["validate"]])
        expect(dotagent(root, [...args, "--json"]).code, args.join(" ")).toBe(0);
      expect(readFileSync(join(elsewhere, "worktrees/keep/precious.txt"), "utf8")).toBe("keep me\n");
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});

describe("the lock is held for the merge alone (issue 23: a batch's starts and landings side by side)", () => {
  /** The git commands a command ran, each as before or inside the state lock or after it (DOTAGENT_TRACE). */
  function traced(
    root: string,
    args: string[],
  ): { run: ReturnType<typeof dotagent>; before: string[]; locked: string[]; after: string[] } {
    const file = join(mkdtempSync(join(tmpdir(), "dotagent-trace-")), "trace.jsonl");
    const run = dotagent(root, args, { env: { DOTAGENT_TRACE: file } });
    const line = JSON.parse(readFileSync(file, "utf8").trim().split("\n").at(-1)!) as {
      marks: Array<[string, number, number?]>;
    };
    rmSync(join(file, ".."), { recursive: true, force: true });
    const parts = { before: [] as string[], locked: [] as string[], after: [] as string[] };
    let where: keyof typeof parts = "before";
    for (const [name] of line.marks) {
      if (name === "locked") where = "locked";
      else if (name === "unlocked") where = "after";
      else if (name.startsWith("git ")) parts[where].push(name.slice(4));
    }
    return { run, ...parts };
  }

  it("a start records the task under the lock and makes its worktree after it", () => {
    const root = projectAtImplementation(THREE);
    ok(startTask(root, "t1").run); // the round's first start decides the isolation
    const second = traced(root, ["task", "start", "t2", "--owner", String(liveOwner()), "--json"]);
    ok(second.run);
    expect(second.locked).not.toContain("worktree");
    expect(second.after[0]).toBe("worktree");
    expect(second.locked.length, second.locked.join(", ")).toBeLessThanOrEqual(2);
    expect(taskWorktrees(root)).toEqual([join(root, ".dotagent/worktrees/t1"), join(root, ".dotagent/worktrees/t2")]);
    expect(git(join(root, ".dotagent/worktrees/t2"), "rev-parse", "--abbrev-ref", "HEAD")).toBe(
      "dotagent/wf-add-parts/t2",
    );
  });

  it("a landing commits the executor's work before the lock and merges under it", () => {
    const root = projectAtImplementation([{ id: "t1" }, { id: "t2" }]); // t2 left: no end-of-round sweep
    const { dir } = startTask(root, "t1");
    executorWork(root, "t1", dir!, { "t1.txt": "t1\n" }, { commit: false });
    const done = traced(root, ["task", "complete", "t1", "--json"]);
    ok(done.run);
    expect(done.before).toEqual(expect.arrayContaining(["update-index", "commit"]));
    expect(done.locked).not.toContain("commit");
    expect(done.locked).toEqual(expect.arrayContaining(["merge-tree", "commit-tree", "merge"]));
    // Was 17: the leftovers' commit, three ref reads and a worktree listing ran under it.
    expect(done.locked.length, done.locked.join(", ")).toBeLessThanOrEqual(9);
    expect(git(root, "log", "-1", "--format=%s", "main^2")).toBe("Task t1: t1");
    expect(readFileSync(join(root, "t1.txt"), "utf8")).toBe("t1\n");
    expect(taskWorktrees(root)).toEqual([]);
    expect(taskBranches(root)).toEqual([]);
  });

  it("the agent's end and its notification at once (the terminal): landed once, neither fails, nothing raced in its worktree", async () => {
    const root = projectAtImplementation([{ id: "t1" }, { id: "t2" }]);
    const { dir } = startTask(root, "t1");
    executorWork(root, "t1", dir!, { "t1.txt": "t1\n" }, { commit: false });
    const prompt = [
      "Feature request: add parts",
      "Phase: IMPLEMENTATION",
      "Task: t1",
      "Output file: memory/reports/tasks/t1.json",
    ].join("\n");
    const agents = join(root, "home/.claude/projects/x/s-1/subagents");
    mkdirSync(agents, { recursive: true });
    writeFileSync(
      join(agents, "agent-a1.jsonl"),
      `${JSON.stringify({ type: "user", agentId: "a1", message: { role: "user", content: prompt } })}\n`,
    );
    writeFileSync(join(agents, "agent-a1.meta.json"), JSON.stringify({ agentType: "executor" }));
    const hookRun = (event: string, input: Record<string, unknown>) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [CLI, "hook", event], {
          cwd: root,
          env: { ...process.env, NO_COLOR: "1", CLAUDE_PROJECT_DIR: root, CLAUDE_PID: String(liveOwner()) },
        });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (d) => (stdout += d));
        child.stderr.on("data", (d) => (stderr += d));
        child.on("close", (code) => resolve({ code, stdout, stderr }));
        child.stdin.end(JSON.stringify({ session_id: "s-1", cwd: root, ...input }));
      });
    const [stop, note] = await Promise.all([
      hookRun("subagent-stop", {
        hook_event_name: "SubagentStop",
        agent_id: "a1",
        agent_type: "executor",
        agent_transcript_path: join(agents, "agent-a1.jsonl"),
      }),
      hookRun("user-prompt-submit", {
        hook_event_name: "UserPromptSubmit",
        transcript_path: join(root, "home/.claude/projects/x/s-1.jsonl"),
        prompt: "<task-notification>\n<task-id>a1</task-id>\n<status>completed</status>\n</task-notification>",
      }),
    ]);
    expect([stop.code, note.code]).toEqual([0, 0]);
    expect(`${stop.stderr}${note.stderr}`).toBe("");
    expect(JSON.parse(note.stdout).hookSpecificOutput.additionalContext).toMatch(
      /executor for t1: (complete|already recorded)/,
    );
    expect(taskOf(root, "t1")).toMatchObject({ status: "complete", worktree: { merge: { state: "merged" } } });
    expect(readFileSync(join(root, "t1.txt"), "utf8")).toBe("t1\n");
    expect(
      git(root, "log", "--format=%s", "main")
        .split("\n")
        .filter((l) => l.startsWith("Task t1")),
    ).toEqual(["Task t1: t1"]);
    expect(taskWorktrees(root)).toEqual([]);
    expect(taskBranches(root)).toEqual([]);
  });

  it("a worktree git cannot make: the start is taken back, saying why, and the next start makes it", () => {
    const root = projectAtImplementation([{ id: "t1" }]);
    // A stale ref lock (a git killed meanwhile) keeps `git worktree add -b` from making the branch.
    const refLock = join(root, ".git/refs/heads/dotagent/wf-add-parts/t1.lock");
    mkdirSync(join(refLock, ".."), { recursive: true });
    writeFileSync(refLock, "");
    const failed = startTask(root, "t1");
    expect(failed.run.code).toBe(1);
    expect(failed.run.json.error).toMatchObject({ code: "git_failed" });
    expect(taskOf(root, "t1")).toMatchObject({
      status: "pending",
      worktree: { path: ".dotagent/worktrees/t1", branch: "dotagent/wf-add-parts/t1" },
    });
    expect(readFileSync(join(root, "memory/state/events.jsonl"), "utf8")).toMatch(
      /"type":"worktree_failed","task_id":"t1"/,
    );
    rmSync(refLock);
    const again = startTask(root, "t1");
    ok(again.run);
    expect(again.dir).toBe(join(root, ".dotagent/worktrees/t1"));
    executorWork(root, "t1", again.dir!, { "t1.txt": "t1\n" });
    ok(dotagent(root, ["task", "complete", "t1", "--json"]));
    expect(readFileSync(join(root, "t1.txt"), "utf8")).toBe("t1\n");
    expect(taskWorktrees(root)).toEqual([]);
  });
});
