// What dotagent catches it also mends or hands to the person (issue 40), through the built CLI
// and its hooks fed what Claude Code sends: a task's worktree an executor left on another branch
// is put back on the task's branch with its work when the task starts again (SPEC §19
// "Mending"), instead of every next spawn being refused with "remove it (git worktree remove …)";
// what dotagent cannot do alone refuses the start with the line for the person; an executor's end
// whose report lists files its worktree does not hold fails its attempt (SPEC §11 Reminders),
// never complete with nothing merged.
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { dotagent, readJson, removeTemps, writeJson } from "./support/cli.js";
import { copyOfTemplate } from "./support/template.js";
import {
  executorWork,
  expectFsckClean,
  git,
  gitStatus,
  liveOwner,
  ok,
  projectAtImplementation,
  startTask,
  stopOwner,
  taskOf,
} from "./support/worktree-project.js";

afterEach(removeTemps);
afterAll(stopOwner);

const BRANCH = "dotagent/wf-add-parts/t1";
const PROMPT = [
  "Feature request: add parts",
  "Phase: IMPLEMENTATION",
  "Task: t1",
  "Title: t1",
  "Workflow: wf-add-parts",
  "Output file: memory/reports/tasks/t1.json",
].join("\n");

function hook(root: string, helper: string, event: string, input: Record<string, unknown>) {
  const r = dotagent(root, ["hook", event], {
    input: JSON.stringify({ session_id: "s-1", cwd: root, ...input }),
    env: { CLAUDE_PID: String(liveOwner()), CLAUDE_CODE_SESSION_ID: "s-1", CLAUDE_PROJECT_DIR: root },
    script: helper,
  });
  expect(r.code).toBe(0);
  return r.stdout.trim() === "" ? null : (JSON.parse(r.stdout) as Record<string, any>);
}

/** An agent transcript as Claude Code writes it: the prompt first, with the time it started. */
function transcript(root: string, agentId: string, prompt: string): string {
  const dir = join(root, "home/.claude/projects/x/s-1/subagents");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `agent-${agentId}.jsonl`);
  writeFileSync(
    file,
    `${JSON.stringify({ type: "user", agentId, timestamp: new Date(Date.now() + 5).toISOString(), message: { role: "user", content: prompt } })}\n`,
  );
  writeFileSync(join(dir, `agent-${agentId}.meta.json`), JSON.stringify({ agentType: "executor" }));
  return file;
}

/** t1 started (dotagent installed, so the hooks run as in a session), its worktree made. */
// Made once per file and copied (its worktree's records pointed at each copy): t1's owner is
// liveOwner, alive until the file ends.
function started() {
  const root = copyOfTemplate("started", (dir) => {
    cpSync(projectAtImplementation([{ id: "t1" }]), dir, { recursive: true, verbatimSymlinks: true });
    expect(dotagent(dir, ["install", "--json"], { env: { HOME: join(dir, "home") } }).code).toBe(0);
    const start = startTask(dir, "t1");
    expect(start.run.code, start.run.stderr).toBe(0);
    expect(start.dir).toBe(join(dir, ".dotagent/worktrees/t1"));
  });
  return {
    root,
    helper: join(root, ".claude/skills/checkpoint/scripts/dotagent.mjs"),
    dir: join(root, ".dotagent/worktrees/t1"),
  };
}

const headOf = (dir: string) => git(dir, "symbolic-ref", "-q", "HEAD");
const events = (root: string, type: string) =>
  (dotagent(root, ["log", "--json"]).json.events as Array<Record<string, unknown>>).filter((e) => e.type === type);
const spawn = (root: string, helper: string) =>
  hook(root, helper, "pre-tool-use", {
    tool_name: "Agent",
    tool_input: { subagent_type: "executor", description: "t1", prompt: PROMPT },
  });

/** The attempt given up as a person would (`task fail`), so the task starts again. */
function failAttempt(root: string): void {
  ok(dotagent(root, ["task", "fail", "t1", "--error", "stopped", "--json"]));
}

describe("a worktree left on another branch: the next start mends it", () => {
  it("the finding: `git checkout -b feature/t1` caught at landing, then the next spawn is allowed, its worktree back on the task's branch with the commits and the uncommitted file; the task lands with that work", () => {
    const { root, helper, dir } = started();
    git(dir, "checkout", "-q", "-b", "feature/t1");
    writeFileSync(join(dir, "t1.txt"), "work\n");
    git(dir, "add", "-A");
    git(dir, "commit", "-qm", "work on the wrong branch");
    writeFileSync(join(dir, "notes.txt"), "not committed yet\n");
    const work = git(dir, "rev-parse", "HEAD");
    writeJson(root, "memory/reports/tasks/t1.json", {
      task_id: "t1",
      status: "complete",
      files_changed: ["t1.txt", "notes.txt"],
    });
    // Caught at landing: the attempt fails, saying the next start puts it back.
    ok(dotagent(root, ["task", "complete", "t1", "--json"]));
    expect(taskOf(root, "t1")).toMatchObject({
      status: "pending",
      attempts: 1,
      error: expect.stringContaining("dotagent puts its worktree back on"),
      worktree: { merge: { reason: "wrong_branch" } },
    });
    // The next spawn: allowed (before: refused, "remove it (git worktree remove …)"), nothing asked of the model.
    const out = spawn(root, helper)?.hookSpecificOutput;
    expect(out, JSON.stringify(out)).toMatchObject({
      permissionDecision: "allow",
      permissionDecisionReason: expect.stringContaining(
        `its worktree was on branch feature/t1: back on ${BRANCH} with its work`,
      ),
    });
    expect(out.updatedInput.prompt).toContain(`Worktree: ${dir}`);
    expect(out.updatedInput.prompt).not.toMatch(/Wrong branch:|Merge conflict:/);
    expect(headOf(dir)).toBe(`refs/heads/${BRANCH}`);
    expect(git(root, "rev-parse", BRANCH)).toBe(work);
    expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("not committed yet\n");
    expect(git(dir, "status", "--porcelain", "--", "notes.txt")).toBe("?? notes.txt");
    expect(git(root, "rev-parse", "feature/t1")).toBe(work); // not dotagent's: left as it was
    expect(events(root, "worktree_mended")).toEqual([
      expect.objectContaining({
        task_id: "t1",
        from: "branch feature/t1",
        branch: BRANCH,
        how: "fast_forward",
        commit: work,
      }),
    ]);
    expect(taskOf(root, "t1")).toMatchObject({ status: "running", worktree: { merge: null } });
    // The next executor finishes; the task lands with both files.
    writeJson(root, "memory/reports/tasks/t1.json", {
      task_id: "t1",
      status: "complete",
      files_changed: ["t1.txt", "notes.txt"],
    });
    ok(dotagent(root, ["task", "complete", "t1", "--json"]));
    expect(taskOf(root, "t1")).toMatchObject({ status: "complete", worktree: { merge: { state: "merged" } } });
    expect(readFileSync(join(root, "t1.txt"), "utf8")).toBe("work\n");
    expect(readFileSync(join(root, "notes.txt"), "utf8")).toBe("not committed yet\n");
    expectFsckClean(root);
  });

  it("a detached HEAD with a commit: `task start` (as `dotagent run` starts tasks) carries the commit onto the task's branch", () => {
    const { root, dir } = started();
    git(dir, "checkout", "-q", "--detach");
    executorWork(root, "t1", dir, { "t1.txt": "detached\n" });
    const work = git(dir, "rev-parse", "HEAD");
    failAttempt(root);
    const again = startTask(root, "t1");
    expect(again.run.code, again.run.stderr).toBe(0);
    expect(again.run.stderr).toContain(
      `its worktree was on a detached HEAD (${work.slice(0, 7)}): back on ${BRANCH} with its work`,
    );
    expect(headOf(dir)).toBe(`refs/heads/${BRANCH}`);
    expect(git(root, "rev-parse", BRANCH)).toBe(work);
  });

  it("diverged from the task's branch (a branch made from the base after an earlier attempt's commit): merged into it, the uncommitted file committed first; the worktree on the task's branch holds all three", () => {
    const { root, dir } = started();
    executorWork(root, "t1", dir, { "a.txt": "earlier attempt\n" }); // committed on the task's branch
    const earlier = git(dir, "rev-parse", "HEAD");
    git(dir, "checkout", "-q", "-b", "feature/t1", "HEAD~1");
    executorWork(root, "t1", dir, { "b.txt": "on feature\n" });
    writeFileSync(join(dir, "c.txt"), "uncommitted\n");
    failAttempt(root);
    expect(startTask(root, "t1").run.code).toBe(0);
    expect(headOf(dir)).toBe(`refs/heads/${BRANCH}`);
    const tip = git(root, "rev-parse", BRANCH);
    expect(git(root, "rev-parse", `${tip}^1`)).toBe(earlier);
    expect(git(root, "rev-parse", `${tip}^2`)).toBe(git(root, "rev-parse", "feature/t1"));
    for (const [file, text] of [
      ["a.txt", "earlier attempt\n"],
      ["b.txt", "on feature\n"],
      ["c.txt", "uncommitted\n"],
    ])
      expect(readFileSync(join(dir, file!), "utf8")).toBe(text);
    expect(git(dir, "status", "--porcelain")).toBe("");
    expect(events(root, "worktree_mended")).toEqual([
      expect.objectContaining({ how: "merged", commit: tip, committed: 1 }),
    ]);
  });

  it("diverged with a conflict: the work is kept on a branch of dotagent's (-carried), the worktree goes back to the task's, and the next executor is told to merge it (Merge conflict:); merged by it, the task lands with both sides", () => {
    const { root, dir } = started();
    executorWork(root, "t1", dir, { "shared.txt": "one\nfrom the earlier attempt\nthree\n" });
    git(dir, "checkout", "-q", "-b", "feature/t1", "HEAD~1");
    executorWork(root, "t1", dir, { "shared.txt": "one\nfrom feature\nthree\n" });
    const work = git(dir, "rev-parse", "HEAD");
    failAttempt(root);
    const again = startTask(root, "t1");
    expect(again.run.code, again.run.stderr).toBe(0);
    const carried = `${BRANCH}-carried`;
    expect(again.lines).toContain(`Merge conflict: ${carried} (shared.txt)`);
    expect(headOf(dir)).toBe(`refs/heads/${BRANCH}`);
    expect(git(root, "rev-parse", "feature/t1")).toBe(work);
    expect(git(root, "rev-parse", carried)).toBe(work);
    expect(taskOf(root, "t1").worktree.merge).toMatchObject({
      state: "conflict",
      reason: "carried",
      detail: carried,
      files: ["shared.txt"],
    });
    expect(events(root, "worktree_mended")).toEqual([
      expect.objectContaining({ how: "carried_conflict", carried, files: ["shared.txt"] }),
    ]);
    // resume sweeps the dotagent/ branches no task needs: not this one, though feature/t1 holds its commit too.
    ok(dotagent(root, ["resume", "--json"]));
    expect(git(root, "rev-parse", carried)).toBe(work);
    // An executor that finishes without merging it is sent back (its end would land without that work).
    writeJson(root, "memory/reports/tasks/t1.json", {
      task_id: "t1",
      status: "complete",
      files_changed: ["shared.txt"],
    });
    const { helper } = { helper: join(root, ".claude/skills/checkpoint/scripts/dotagent.mjs") };
    const agent = transcript(root, "ex2", PROMPT);
    expect(
      hook(root, helper, "subagent-stop", {
        hook_event_name: "SubagentStop",
        agent_id: "ex2",
        agent_type: "executor",
        agent_transcript_path: agent,
      }),
    ).toMatchObject({ decision: "block", reason: expect.stringContaining(`does not hold ${carried} yet`) });
    // The executor's conflict flow (agents/executor.md): merge the branch, resolve, commit.
    expect(gitStatus(dir, "merge", carried).code).not.toBe(0);
    writeFileSync(join(dir, "shared.txt"), "one\nfrom the earlier attempt and from feature\nthree\n");
    git(dir, "add", "-A");
    git(dir, "commit", "-q", "--no-edit");
    writeJson(root, "memory/reports/tasks/t1.json", {
      task_id: "t1",
      status: "complete",
      files_changed: ["shared.txt"],
    });
    ok(dotagent(root, ["task", "complete", "t1", "--json"]));
    expect(readFileSync(join(root, "shared.txt"), "utf8")).toBe(
      "one\nfrom the earlier attempt and from feature\nthree\n",
    );
    // IMPLEMENTATION done: the carried branch, merged now, is swept with the task's.
    expect(git(root, "branch", "--list", "dotagent/*")).toBe("");
    expectFsckClean(root);
  });

  it("what dotagent cannot do alone (a merge half done on the other branch): the start is refused, naming the line for the person; nothing changed", () => {
    const { root, helper, dir } = started();
    executorWork(root, "t1", dir, { "shared.txt": "one\nA\nthree\n" });
    git(dir, "checkout", "-q", "-b", "feature/t1", "HEAD~1");
    executorWork(root, "t1", dir, { "shared.txt": "one\nB\nthree\n" });
    expect(gitStatus(dir, "merge", BRANCH).code).not.toBe(0); // left half done
    failAttempt(root);
    const start = startTask(root, "t1");
    expect(start.run.code).toBe(1);
    expect(start.run.json.error).toMatchObject({
      code: "worktree_off_branch",
      message: expect.stringMatching(
        /a merge is half done there.*for the person: git -C \S+ merge --continue to finish it, or git -C \S+ merge --abort to drop it/,
      ),
    });
    expect(headOf(dir)).toBe("refs/heads/feature/t1");
    expect(existsSync(join(dir, ".git"))).toBe(true);
    expect(taskOf(root, "t1")).toMatchObject({ status: "pending" });
    // The hook says the same to the model, for the person.
    const out = spawn(root, helper)?.hookSpecificOutput;
    expect(out).toMatchObject({
      permissionDecision: "deny",
      permissionDecisionReason: expect.stringContaining("for the person: git -C"),
    });
    expect(out.permissionDecisionReason).not.toContain("git worktree remove");
  });
});

describe("an executor's end that lands nothing fails its attempt (SPEC §11 Reminders)", () => {
  it("its report lists files its worktree does not hold (written in the main checkout): sent back twice, then the task fails with why, not complete", () => {
    const { root, helper } = started();
    const agent = transcript(root, "ex1", PROMPT);
    const stop = () =>
      hook(root, helper, "subagent-stop", {
        hook_event_name: "SubagentStop",
        agent_id: "ex1",
        agent_type: "executor",
        agent_transcript_path: agent,
      });
    writeFileSync(join(root, "t1.txt"), "written in the main checkout\n");
    writeJson(root, "memory/reports/tasks/t1.json", { task_id: "t1", status: "complete", files_changed: ["t1.txt"] });
    const main = git(root, "rev-parse", "main");
    for (const n of [1, 2]) {
      const sent = stop();
      expect(sent).toMatchObject({
        decision: "block",
        reason: expect.stringContaining(
          `dotagent reminder ${n} of 2: your report is not done: your report lists files_changed (t1.txt) but your worktree`,
        ),
      });
      // Claude Code puts the hook's reason into the agent's transcript.
      appendFileSync(agent, `${JSON.stringify({ type: "user", message: { role: "user", content: sent!.reason } })}\n`);
    }
    expect(stop()).toBeNull();
    const task = taskOf(root, "t1");
    expect(task.status).not.toBe("complete");
    expect(task).toMatchObject({
      attempts: 1,
      error: expect.stringContaining("nothing of its work landed, so the attempt failed"),
      worktree: { merge: { state: "conflict", reason: "nothing_landed", files: ["t1.txt"] } },
    });
    expect(git(root, "rev-parse", "main")).toBe(main);
    expect(events(root, "task_failed")).toEqual([expect.objectContaining({ task_id: "t1", attempts: 1 })]);
    // The next executor is told.
    expect(startTask(root, "t1").lines).toContain(
      "Nothing landed: the last attempt's report listed t1.txt, but its worktree held none of them; write them in your worktree",
    );
  });

  it("a report that lists no files and changed nothing (nothing to do) still completes, as before", () => {
    const { root } = started();
    writeJson(root, "memory/reports/tasks/t1.json", { task_id: "t1", status: "complete", summary: "already there" });
    const done = ok(dotagent(root, ["task", "complete", "t1", "--json"]));
    expect(done.json.task).toMatchObject({ status: "complete" });
    expect(readJson(root, "memory/state/execution.json").tasks[0].worktree.merge).toMatchObject({
      state: "merged",
      commit: null,
    });
  });
});
