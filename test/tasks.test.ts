// People see and shape the work (issue 31), through the built CLI: `dotagent tasks` (the plan on one
// screen, `show`, `--watch`), the plan edits `task edit|remove|skip` and who may make them, and the
// git effects `task start`, `task complete` and `rollback` say.
import { spawn, spawnSync } from "node:child_process";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { openWorkflow } from "../src/index.js";
import { CLI, dotagent, readJson, removeTemps, tempProject, treeBytes, writeJson } from "./support/cli.js";
import { copyOfTemplate } from "./support/template.js";
import { typedPrompt } from "./support/typed-prompt.js";
import {
  executorWork,
  git,
  liveOwner,
  ok,
  projectAtImplementation,
  startTask,
  stopOwner,
} from "./support/worktree-project.js";

afterEach(() => removeTemps());
afterAll(async () => stopOwner());

const AS_MODEL = { CLAUDECODE: "1" };
const CHAIN = [
  { id: "t1", title: "Login form" },
  { id: "t2", title: "Session store", depends_on: ["t1"] },
  { id: "t3", title: "Logout", depends_on: ["t2"] },
];
const ROW_FIELDS = [
  "id",
  "title",
  "status",
  "attempts",
  "cut_off",
  "max_attempts",
  "depends_on",
  "waiting_on",
  "owner",
  "started_at",
  "completed_at",
  "error",
  "worktree",
  "merge",
  "skipped",
];
const events = (p: string) =>
  dotagent(p, ["log", "-n", "1000", "--json"]).json.events as Array<{ type: string; [k: string]: unknown }>;
const stateBytes = (p: string) => treeBytes(join(p, "memory/state"));

/** t1 complete (merged when in git), t2 running for a live owner, t3 pending: made once per file, a copy per test. */
function midRound(options: { git?: boolean } = {}): string {
  return copyOfTemplate(`midRound ${JSON.stringify(options)}`, (dir) => {
    cpSync(projectAtImplementation(CHAIN, options), dir, { recursive: true, verbatimSymlinks: true });
    const first = startTask(dir, "t1");
    ok(first.run);
    if (first.dir) executorWork(dir, "t1", first.dir, { "form.txt": "form\n" });
    else writeJson(dir, "memory/reports/tasks/t1.json", { task_id: "t1", status: "complete" });
    ok(dotagent(dir, ["task", "complete", "t1"]));
    ok(startTask(dir, "t2").run);
  });
}

describe("dotagent tasks: the plan on one screen", () => {
  it("a 3-task plan: a line about the workflow, a table of every task, and --json with each row's fields", () => {
    const p = midRound();
    const merge = git(p, "rev-parse", "main");
    const plain = ok(dotagent(p, ["tasks"]))
      .stdout.trimEnd()
      .split("\n");
    expect(plain[0]).toBe("wf-add-parts at IMPLEMENTATION: 3 tasks, 1 pending, 1 running, 1 complete");
    expect(plain[1]).toMatch(/^ID +STATUS +FAILED +DEPENDS ON +TIME +WHERE +TITLE$/);
    expect(plain[2]).toMatch(
      new RegExp(
        `^t1 +complete +0/3 +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC +merged into main as ${merge.slice(0, 7)} +Login form$`,
      ),
    );
    expect(plain[3]).toMatch(
      new RegExp(`^t2 +running +0/3 +t1 +\\S+ \\S+ UTC +pid ${liveOwner()}, \\.dotagent/worktrees/t2 +Session store$`),
    );
    expect(plain[4]).toMatch(/^t3 +pending +0\/3 +t2 +waits for t2 +Logout$/);
    expect(plain).toHaveLength(5);
    const json = ok(dotagent(p, ["tasks", "--json"])).json;
    expect(json).toMatchObject({
      workflow_id: "wf-add-parts",
      phase: "IMPLEMENTATION",
      round: 0,
      total: 3,
      filter: null,
      counts: { pending: 1, running: 1, complete: 1, failed: 0, dead: 0, skipped: 0 },
    });
    for (const row of json.tasks) expect(Object.keys(row)).toEqual(ROW_FIELDS);
    expect(json.tasks[0]).toMatchObject({
      id: "t1",
      status: "complete",
      owner: null,
      merge: { state: "merged", into: "main", commit: merge, files: [], reason: null },
      worktree: { path: ".dotagent/worktrees/t1", branch: "dotagent/wf-add-parts/t1", into: "main" },
    });
    expect(json.tasks[1]).toMatchObject({
      id: "t2",
      status: "running",
      owner: { pid: liveOwner(), verdict: "live", attempt: 1 },
      waiting_on: [],
      merge: null,
    });
    expect(json.tasks[2]).toMatchObject({
      id: "t3",
      status: "pending",
      owner: null,
      waiting_on: ["t2"],
      worktree: null,
    });
  });

  it("--status keeps those rows (counts still count every task); an unknown status is exit 2", () => {
    const p = midRound({ git: false });
    const json = ok(dotagent(p, ["tasks", "--status", "running,pending", "--json"])).json;
    expect(json.tasks.map((t: { id: string }) => t.id)).toEqual(["t2", "t3"]);
    expect(json).toMatchObject({ total: 3, filter: ["running", "pending"], counts: { complete: 1 } });
    expect(ok(dotagent(p, ["tasks", "--status", "dead"])).stdout).toBe(
      "wf-add-parts at IMPLEMENTATION: 3 tasks, 1 pending, 1 running, 1 complete; showing dead: 0\n",
    );
    const bad = dotagent(p, ["tasks", "--status", "done"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      'dotagent: --status: "done" is not a task status; give one or more of pending, running, complete, failed, dead, skipped\n',
    );
  });

  it("tasks show ID: the task, what needs it and its events; an id not in the plan is exit 1", () => {
    const p = midRound({ git: false });
    const shown = ok(dotagent(p, ["tasks", "show", "t1", "--json"])).json;
    expect(shown.task).toMatchObject({
      id: "t1",
      status: "complete",
      output: "memory/reports/tasks/t1.json",
      dependants: ["t2"],
    });
    expect(shown.events.map((e: { type: string }) => e.type)).toEqual(["task_added", "task_started", "task_completed"]);
    const plain = ok(dotagent(p, ["tasks", "show", "t2"])).stdout;
    expect(plain).toContain(`Status: running, attempt 1, pid ${liveOwner()} on`);
    expect(plain).toMatch(/^SEQ +TIME +EVENT +DETAILS$/m);
    const unknown = dotagent(p, ["tasks", "show", "t9", "--json"]);
    expect(unknown.code).toBe(1);
    expect(unknown.json.error).toMatchObject({
      code: "unknown_task",
      message: "task t9 does not exist; `dotagent tasks` lists the plan",
    });
  });

  it("no workflow: one line, exit 0; a corrupt execution.json: one line, exit 3, nothing written", () => {
    expect(ok(dotagent(tempProject(), ["tasks"])).stdout).toBe(
      "No workflow here; `dotagent init --request …` starts one.\n",
    );
    const empty = projectAtImplementation(CHAIN, { git: false });
    writeFileSync(join(empty, "memory/state/execution.json"), '{"workflow_id": "wf-add-parts", "tasks": [');
    const before = stateBytes(empty);
    const corrupt = dotagent(empty, ["tasks"]);
    expect(corrupt.code).toBe(3);
    expect(corrupt.stdout).toBe("");
    expect(corrupt.stderr.trim().split("\n")).toHaveLength(1);
    expect(corrupt.stderr).toMatch(/^dotagent: memory\/state\/execution\.json/);
    expect(stateBytes(empty)).toEqual(before);
  });

  it("--watch without a terminal, or with --json: refused at once, exit 2", () => {
    const p = midRound({ git: false });
    const piped = dotagent(p, ["tasks", "--watch"]);
    expect(piped.code).toBe(2);
    expect(piped.stderr).toBe(
      "dotagent: --watch redraws a terminal, and stdout is not one: run `dotagent tasks` (or `--json`) when you need the list\n",
    );
    expect(dotagent(p, ["tasks", "--watch", "--json"]).json.error).toMatchObject({ code: "usage", exit_code: 2 });
  });

  const hasScript = spawnSync("script", ["--version"]).status === 0;
  it.skipIf(!hasScript)(
    "--watch on a terminal: redraws when a task changes, and Ctrl-C ends it with exit 0",
    async () => {
      const p = midRound({ git: false });
      const child = spawn(
        "script",
        ["-qefc", `stty cols 160 rows 40; exec '${process.execPath}' '${CLI}' tasks --watch`, "/dev/null"],
        { cwd: p, env: { ...process.env, TERM: "xterm", NO_COLOR: "1" } },
      );
      let screen = "";
      child.stdout.on("data", (chunk: Buffer) => (screen += chunk.toString("utf8")));
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
      const waitFor = async (what: RegExp) => {
        for (let i = 0; i < 200 && !what.test(screen); i++) await new Promise((r) => setTimeout(r, 25));
        expect(screen).toMatch(what);
      };
      await waitFor(/t3 +pending.*Logout/);
      expect(screen).toContain("Watching memory/state; Ctrl-C to stop.");
      ok(dotagent(p, ["task", "skip", "t3", "--reason", "not needed"]));
      await waitFor(/t3 +skipped/);
      expect(screen).toContain("t3 skipped: not needed");
      child.stdin.write("\u0003");
      expect(await exited).toBe(0);
    },
    600_000,
  );
});

describe("plan edits: task edit, remove, skip", () => {
  // The rules (refusals, events, dependants, the question) are tables in src/core/task-plan.test.ts;
  // here the built CLI: the --json shape, the plain lines, the log, and the round ended by a skip.
  it("each is one write and one event; a skip lets its dependants start, and skipping the last open task ends the round", () => {
    const p = projectAtImplementation([...CHAIN, { id: "t4", title: "Docs" }], { git: false });
    const edited = ok(dotagent(p, ["task", "edit", "t3", "--title", "Sign out", "--depends-on", "t1", "--json"])).json;
    expect(edited).toMatchObject({
      ok: true,
      action: "edit",
      changed: true,
      task: { id: "t3", title: "Sign out", depends_on: ["t1"], waiting_on: ["t1"] },
      total: 4,
    });
    expect(ok(dotagent(p, ["task", "remove", "t4"])).stdout).toBe("Removed t4 from the plan; 3 tasks left.\n");
    const skipped = ok(dotagent(p, ["task", "skip", "t1", "--reason", "done by hand", "--json"])).json;
    expect(skipped).toMatchObject({
      action: "skip",
      task: { status: "skipped", skipped: { reason: "done by hand" } },
      dependants: ["t2", "t3"],
      next: { action: "run_tasks", tasks: ["t2", "t3"] },
    });
    // t2 done, t3 skipped: IMPLEMENTATION completes (no report is asked of a skipped task).
    ok(dotagent(p, ["task", "start", "t2", "--owner", String(liveOwner())]));
    writeJson(p, "memory/reports/tasks/t2.json", { task_id: "t2", status: "complete" });
    ok(dotagent(p, ["task", "complete", "t2"]));
    expect(ok(dotagent(p, ["task", "skip", "t3", "--reason", "later", "--json"])).json).toMatchObject({
      next: { action: "spawn_agent", agent: "qa" },
    });
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({ current_phase: "VERIFICATION" });
    const log = events(p).filter((e) => e.type.startsWith("task_"));
    expect(log.map((e) => e.type)).toEqual([
      "task_added",
      "task_added",
      "task_added",
      "task_added",
      "task_edited",
      "task_removed",
      "task_skipped",
      "task_started",
      "task_completed",
      "task_skipped",
    ]);
    expect(log[4]).toMatchObject({
      task_id: "t3",
      title: { from: "Logout", to: "Sign out" },
      depends_on: { from: ["t2"], to: ["t1"] },
    });
    expect(log[5]).toMatchObject({ task_id: "t4", status: "pending", attempts: 0, title: "Docs" });
    expect(ok(dotagent(p, ["validate", "--json"])).json.valid).toBe(true);
  });

  // One refusal (exit 1) and one option refused (exit 2) through the built CLI: one line, the state
  // untouched. Every rule's line is a row of src/core/task-plan.test.ts and src/cli/task-options.test.ts.
  it.each<[string, string[], number, RegExp, ("planned" | "mid")?]>([
    [
      "a cycle",
      ["task", "edit", "t1", "--depends-on", "t3"],
      1,
      /^dotagent: task t1 cannot depend on t3: the dependencies would form a cycle: t1 → t3 → t2 → t1$/,
      "planned",
    ],
    // An option the action does not read is refused, never ignored (the title would not change).
    [
      "--title with retry",
      ["task", "retry", "t3", "--extra-attempts", "1", "--title", "new"],
      2,
      /^dotagent: --title does not go with `task retry` \(it takes --extra-attempts, --yes\); see `dotagent task --help`$/,
    ],
  ])("refused, the state untouched: %s", (_name, args, code, message, at = "mid") => {
    const p = at === "mid" ? midRound({ git: false }) : projectAtImplementation(CHAIN, { git: false });
    const before = stateBytes(p);
    const run = dotagent(p, args);
    expect(run.code).toBe(code);
    expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(run.stderr.trimEnd()).toMatch(message);
    expect(stateBytes(p)).toEqual(before);
  });

  it("a corrupt execution.json: exit 3, one line, nothing written", () => {
    const p = midRound({ git: false });
    writeFileSync(join(p, "memory/state/execution.json"), "{}");
    const before = stateBytes(p);
    const run = dotagent(p, ["task", "skip", "t3", "--reason", "x"]);
    expect(run.code).toBe(3);
    expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(stateBytes(p)).toEqual(before);
  });

  it("from an agent's shell: a decision (exit 5), its --yes refused until the person replied, then carried out", () => {
    const p = midRound({ git: false });
    expect(ok(dotagent(p, ["install", "--json"], { env: { HOME: join(p, "home") } })).code).toBe(0);
    const helper = join(p, ".claude/skills/checkpoint/scripts/dotagent.mjs");
    const early = dotagent(p, ["task", "skip", "t3", "--reason", "done by hand", "--yes", "--json"], { env: AS_MODEL });
    expect(early.json.error).toMatchObject({ code: "person_not_answered" });
    const asked = dotagent(p, ["task", "skip", "t3", "--reason", "done by hand", "--json"], { env: AS_MODEL });
    expect(asked.code).toBe(5);
    expect(asked.json).toEqual({
      ok: false,
      decision: {
        question: 'Skip task t3 ("Logout", pending) because "done by hand"?',
        default: false,
        yes: "dotagent task skip t3 --reason 'done by hand' --yes",
        no: "dotagent resume",
        answers: 'Reply "yes" or "no"; any other reply is not taken as an answer.',
      },
    });
    expect(events(p).filter((e) => e.type === "decision_asked")).toHaveLength(1);
    expect(readJson(p, "memory/state/execution.json").tasks[2].status).toBe("pending");
    // A refused edit is refused at once, never asked.
    expect(dotagent(p, ["task", "remove", "t2", "--json"], { env: AS_MODEL }).json.error).toMatchObject({
      code: "task_not_editable",
    });
    expect(events(p).filter((e) => e.type === "decision_asked")).toHaveLength(1);
    // The person replies (Claude Code's UserPromptSubmit hook records it); the model runs the yes.
    const reply = dotagent(p, ["hook", "user-prompt-submit"], {
      input: JSON.stringify({ session_id: "s-1", cwd: p, ...typedPrompt("yes, skip it").input }),
      env: { CLAUDE_PID: String(process.pid), CLAUDE_PROJECT_DIR: p },
      script: helper,
    });
    expect(reply.code).toBe(0);
    const done = dotagent(p, ["task", "skip", "t3", "--reason", "done by hand", "--yes", "--json"], { env: AS_MODEL });
    expect(done.code).toBe(0);
    expect(done.json).toMatchObject({ ok: true, changed: true, task: { id: "t3", status: "skipped" } });
  });
});

describe("task retry: more attempts are the person's to give", () => {
  /** t1 dead after its 3 attempts ("tests fail"), t2 and t3 waiting on it: made once per file, a copy per test. */
  function deadTask(): string {
    return copyOfTemplate("deadTask", (dir) => {
      cpSync(projectAtImplementation(CHAIN, { git: false }), dir, { recursive: true });
      for (let i = 0; i < 3; i++) {
        ok(dotagent(dir, ["task", "start", "t1", "--owner", String(liveOwner())]));
        ok(dotagent(dir, ["task", "fail", "t1", "--error", "tests fail"]));
      }
      expect(readJson(dir, "memory/state/execution.json").tasks[0]).toMatchObject({ status: "dead", attempts: 3 });
    });
  }
  const QUESTION = 'Give t1 ("Login form", dead after 3 of 3 attempts: tests fail) 2 more attempts? It runs again.';

  it("from an agent's shell: a decision (exit 5), its --yes refused until the person replied, then carried out", () => {
    const p = deadTask();
    expect(ok(dotagent(p, ["install", "--json"], { env: { HOME: join(p, "home") } })).code).toBe(0);
    const helper = join(p, ".claude/skills/checkpoint/scripts/dotagent.mjs");
    const plan = () => readFileSync(join(p, "memory/state/execution.json"), "utf8");
    const before = plan();
    const asked = dotagent(p, ["task", "retry", "t1", "--extra-attempts", "2", "--json"], { env: AS_MODEL });
    expect(asked.code).toBe(5);
    expect(asked.json).toEqual({
      ok: false,
      decision: {
        question: QUESTION,
        default: false,
        yes: "dotagent task retry t1 --extra-attempts 2 --yes",
        no: "dotagent resume",
        answers: 'Reply "yes" or "no"; any other reply is not taken as an answer.',
      },
    });
    expect(events(p).filter((e) => e.type === "decision_asked")).toEqual([
      expect.objectContaining({ key: QUESTION, yes: "dotagent task retry t1 --extra-attempts 2 --yes" }),
    ]);
    expect(plan()).toBe(before);
    // Its --yes before the person replied: refused, nothing changed.
    const early = dotagent(p, ["task", "retry", "t1", "--extra-attempts", "2", "--yes", "--json"], { env: AS_MODEL });
    expect(early.code).toBe(1);
    expect(early.json.error).toMatchObject({ code: "person_not_answered" });
    expect(plan()).toBe(before);
    // A retry that would be refused is refused at once, never asked (the refusals: task-plan.test.ts).
    const unknown = dotagent(p, ["task", "retry", "t9", "--extra-attempts", "2", "--json"], { env: AS_MODEL });
    expect(unknown.code).toBe(1);
    expect(unknown.json.error).toMatchObject({ code: "unknown_task" });
    expect(events(p).filter((e) => e.type === "decision_asked")).toHaveLength(1);
    // The person replies (Claude Code's UserPromptSubmit hook records it); the model runs the yes.
    const reply = dotagent(p, ["hook", "user-prompt-submit"], {
      input: JSON.stringify({ session_id: "s-1", cwd: p, ...typedPrompt("yes, two more").input }),
      env: { CLAUDE_PID: String(process.pid), CLAUDE_PROJECT_DIR: p },
      script: helper,
    });
    expect(reply.code).toBe(0);
    const done = dotagent(p, ["task", "retry", "t1", "--extra-attempts", "2", "--yes", "--json"], { env: AS_MODEL });
    expect(done.code).toBe(0);
    expect(done.json).toMatchObject({
      ok: true,
      task: { id: "t1", status: "pending", attempts: 3 },
      max_attempts: 5,
      next: { action: "run_tasks", tasks: ["t1"] },
    });
    expect(events(p).filter((e) => e.type === "task_retried")).toHaveLength(1);
  });

  it("from an agent's shell with --dir: the yes names the project", () => {
    const p = deadTask();
    const asked = dotagent(tempProject(), ["task", "retry", "t1", "--dir", p, "--extra-attempts", "1", "--json"], {
      env: AS_MODEL,
    });
    expect(asked.code).toBe(5);
    expect(asked.json.decision.yes).toBe(`dotagent task --dir ${p} retry t1 --extra-attempts 1 --yes`);
  });
  // A requeue within its attempts, and any retry outside an agent's shell, is not the person's
  // decision and runs at once: rows of src/core/task-plan.test.ts (retryIsPersons, the retry's plan).
});

describe("git effects, said", () => {
  it("task start names the worktree and branch; task complete the merge commit and the branch it landed on; a conflict what stayed", () => {
    const p = projectAtImplementation([{ id: "t1" }, { id: "t2" }]);
    const started = ok(dotagent(p, ["task", "start", "t1", "--owner", String(liveOwner())]));
    expect(started.stdout).toBe(
      "t1: running in .dotagent/worktrees/t1, branch dotagent/wf-add-parts/t1 (merges into main)\n",
    );
    const second = startTask(p, "t2");
    executorWork(p, "t1", join(p, ".dotagent/worktrees/t1"), { "shared.txt": "one\nTWO from t1\nthree\n" });
    executorWork(p, "t2", second.dir!, { "shared.txt": "one\nTWO from t2\nthree\n" });
    const done = ok(dotagent(p, ["task", "complete", "t1"]));
    expect(done.stdout).toBe(`t1: complete, merged into main (${git(p, "rev-parse", "--short=7", "main")})\n`);
    const conflict = ok(dotagent(p, ["task", "complete", "t2"]));
    expect(conflict.stdout).toBe(
      "t2: not merged: conflict with main in shared.txt; its branch is kept; now pending (1 of 3 attempts used)\n",
    );
    // A repeat says where it landed from the record.
    expect(ok(dotagent(p, ["task", "complete", "t1"])).stdout).toMatch(
      /^t1: complete, merged into main \([0-9a-f]{7}\)\n$/,
    );
  });

  it("rollback names the task merges that stay and the git revert that undoes them; running it takes their changes out", () => {
    const p = projectAtImplementation([{ id: "t1" }, { id: "t2" }, { id: "t3" }]);
    for (const id of ["t1", "t2"]) {
      const s = startTask(p, id);
      executorWork(p, id, s.dir!, { [`${id}.txt`]: `${id}\n` });
      ok(dotagent(p, ["task", "complete", id]));
    }
    const merges = git(p, "rev-list", "--merges", "main").split("\n");
    const asked = dotagent(p, ["rollback", "--to", "ARCHITECTURE", "--json"]);
    expect(asked.code).toBe(5);
    expect(asked.json.decision.question).toContain("2 task merges on main stay: a rollback does not touch git.");
    const undo = `git revert -m 1 --no-edit ${merges.map((m) => m.slice(0, 12)).join(" ")}`;
    expect(asked.json).toMatchObject({
      git_undo: undo,
      merges_kept: [
        { task_id: "t1", into: "main", commit: merges[1] },
        { task_id: "t2", into: "main", commit: merges[0] },
      ],
    });
    const done = ok(dotagent(p, ["rollback", "--to", "ARCHITECTURE", "--yes"]));
    expect(done.stdout.split("\n")).toContain(`2 task merges stay on main; to undo them: ${undo}`);
    expect(git(p, "rev-list", "--merges", "main").split("\n")).toEqual(merges); // git untouched
    const reverted = spawnSync("sh", ["-c", undo], {
      cwd: p,
      encoding: "utf8",
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: "t",
        GIT_AUTHOR_EMAIL: "t@e",
        GIT_COMMITTER_NAME: "t",
        GIT_COMMITTER_EMAIL: "t@e",
      },
    });
    expect(reverted.status, reverted.stderr).toBe(0);
    expect(git(p, "ls-files")).not.toMatch(/t[12]\.txt/);
    // Nothing merged any more: a second rollback has nothing to say about git.
    expect(dotagent(p, ["rollback", "--to", "REQUIREMENTS", "--json"]).json).toMatchObject({
      merges_kept: [],
      git_undo: null,
    });
  });
});

describe("the library gives the same objects", () => {
  it("tasks.list, show, edit, skip and remove", async () => {
    const p = midRound({ git: false });
    const w = openWorkflow(p);
    expect(await w.tasks.list()).toEqual(dotagent(p, ["tasks", "--json"]).json);
    expect(await w.tasks.list({ status: ["running"] })).toEqual(
      dotagent(p, ["tasks", "--status", "running", "--json"]).json,
    );
    expect(await w.tasks.show("t2")).toEqual(dotagent(p, ["tasks", "show", "t2", "--json"]).json);
    await expect(w.tasks.list({ status: ["done" as never] })).rejects.toMatchObject({ code: "usage", exitCode: 2 });
    expect(await w.tasks.edit("t3", { title: "Sign out" })).toMatchObject({
      action: "edit",
      changed: true,
      task: { title: "Sign out" },
    });
    expect(await w.tasks.skip("t3", { reason: "later" })).toMatchObject({
      action: "skip",
      task: { status: "skipped" },
    });
    await expect(w.tasks.remove("t2")).rejects.toMatchObject({ code: "task_not_editable", exitCode: 1 });
    await expect(w.tasks.skip("t3", { reason: " " })).rejects.toMatchObject({ code: "usage" });
    expect(readFileSync(join(p, "memory/state/events.jsonl"), "utf8")).toContain('"type":"task_skipped"');
  });
});
