// A hostile executor against the worktree landing and the sweep (SPEC §19, the landing guard:
// src/core/landing-guard.ts). Everything an executor writes is untrusted: files and commits in its
// worktree, the worktree's `.git`, folders under .dotagent/worktrees. One named test per attack,
// real git repositories in temp folders, the built CLI driving the workflow. Each asserts that
// the program the attack plants never ran (a marker file outside the project never appears) and
// that nothing was deleted.
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { dotagent, removeTemps, writeJson, type RunResult } from "./support/cli.js";
import {
  deadPid,
  executorWork,
  git,
  liveOwner,
  ok,
  projectAtImplementation,
  startTask,
  stopOwner,
  taskOf,
  taskWorktrees,
} from "./support/worktree-project.js";

let markers = "";
beforeEach(() => {
  markers = mkdtempSync(join(tmpdir(), "dotagent-markers-"));
});
afterEach(() => {
  rmSync(markers, { recursive: true, force: true });
  removeTemps();
});
afterAll(async () => stopOwner());

const TWO = [{ id: "t1" }, { id: "t2" }];
const SETTINGS = `${JSON.stringify({ permissions: { allow: ["Bash(npm test)"] } }, null, 2)}\n`;
const HELPER = "// dotagent helper (the session's copy)\n";
const FILES = {
  "README.md": "# app\n",
  "shared.txt": "one\ntwo\nthree\n",
  ".claude/settings.json": SETTINGS,
  ".claude/skills/checkpoint/scripts/dotagent.mjs": HELPER,
  ".githooks/pre-push": "#!/bin/sh\nexit 0\n",
};

/** A shell script that leaves `name` in the markers folder when it runs (and, as a filter, passes its input through). */
function planted(name: string): string {
  return `#!/bin/sh\ntouch '${join(markers, name)}'\ncat 2>/dev/null || true\nexit 0\n`;
}

function writeExecutable(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  chmodSync(path, 0o755);
}

const ran = (name: string) => existsSync(join(markers, name));

/** The SubagentStop hook for the executor of `id` (its transcript names the task), as Claude Code runs it when the executor ends. */
function subagentStop(root: string, id: string): RunResult {
  const prompt = [
    "Feature request: add parts",
    "Phase: IMPLEMENTATION",
    `Task: ${id}`,
    `Output file: memory/reports/tasks/${id}.json`,
  ].join("\n");
  const agents = join(root, "home/.claude/projects/x/s-1/subagents");
  mkdirSync(agents, { recursive: true });
  writeFileSync(
    join(agents, "agent-a1.jsonl"),
    `${JSON.stringify({ type: "user", agentId: "a1", message: { role: "user", content: prompt } })}\n`,
  );
  writeFileSync(join(agents, "agent-a1.meta.json"), JSON.stringify({ agentType: "executor" }));
  const input = {
    hook_event_name: "SubagentStop",
    agent_id: "a1",
    agent_type: "executor",
    agent_transcript_path: join(agents, "agent-a1.jsonl"),
    cwd: root,
  };
  return dotagent(root, ["hook", "subagent-stop"], {
    input: JSON.stringify(input),
    env: { CLAUDE_PROJECT_DIR: root, CLAUDE_PID: String(liveOwner()) },
  });
}

/** `task complete --json`: the task, and what the landing said on stderr. */
function complete(root: string, id: string): { task: any; what: string } {
  const run = ok(dotagent(root, ["task", "complete", id, "--json"]));
  return { task: run.json.task, what: run.stderr };
}

/** The commit a landing names as still holding what it left out, checked against its record. */
function keptIn(done: { task: any; what: string }): string {
  const sha = /commit ([0-9a-f]{7}) still holds them/.exec(done.what)?.[1];
  expect(sha, done.what).toBeDefined();
  expect(done.task.worktree.merge.left_out.commit.startsWith(sha)).toBe(true);
  return sha!;
}

describe("git hooks written by the executor never run in the landing", () => {
  it("husky v9 (core.hooksPath=.husky/_): a .husky/post-merge the executor writes neither runs on the fast-forward the SubagentStop hook makes nor lands", () => {
    const root = projectAtImplementation(TWO, { files: FILES });
    // husky v9's layout: .husky/_ (ignored) holds one wrapper per hook that runs .husky/<hook>.
    writeExecutable(
      join(root, ".husky/_/post-merge"),
      `#!/bin/sh\n[ -f .husky/post-merge ] && sh .husky/post-merge\nexit 0\n`,
    );
    writeFileSync(join(root, ".husky/_/.gitignore"), "*\n");
    git(root, "config", "core.hooksPath", ".husky/_");
    const { dir } = startTask(root, "t1");
    writeExecutable(join(dir!, ".husky/post-merge"), planted("post-merge"));
    executorWork(root, "t1", dir!, { "t1.txt": "t1\n" });
    // The executor ends: the SubagentStop hook lands its task, no one asked.
    const stop = subagentStop(root, "t1");
    expect(stop.code, stop.stderr).toBe(0);
    expect(taskOf(root, "t1")).toMatchObject({ status: "complete", worktree: { merge: { state: "merged" } } });
    expect(ran("post-merge")).toBe(false);
    // The task's own work landed; its hook did not, and the hook's recorded line says where it still is.
    expect(readFileSync(join(root, "t1.txt"), "utf8")).toBe("t1\n");
    expect(existsSync(join(root, ".husky/post-merge"))).toBe(false);
    // SubagentStop answers nothing; the Agent call's result (PostToolUse) and status tell what was left out.
    const prompt = [
      "Feature request: add parts",
      "Phase: IMPLEMENTATION",
      "Task: t1",
      "Output file: memory/reports/tasks/t1.json",
    ].join("\n");
    const post = dotagent(root, ["hook", "post-tool-use"], {
      input: JSON.stringify({
        hook_event_name: "PostToolUse",
        tool_name: "Agent",
        cwd: root,
        tool_input: { subagent_type: "executor", prompt },
        tool_response: { status: "completed" },
      }),
      env: { CLAUDE_PROJECT_DIR: root },
    });
    expect(post.stdout).toMatch(
      /executor for t1: already recorded \(complete; its landing left out its changes to \.husky\/post-merge: a landing never merges/,
    );
    const status = ok(dotagent(root, ["status"])).stdout;
    expect(status).toMatch(
      /^ {2}t1 merged; its landing left out its changes to \.husky\/post-merge: .*commit [0-9a-f]{7} still holds them/m,
    );
    const sha = /commit ([0-9a-f]{7}) still holds them/.exec(status)?.[1];
    expect(git(root, "show", `${sha}:.husky/post-merge`)).toContain("post-merge");
    expect(ok(dotagent(root, ["status", "--json"])).json.worktrees[0]).toMatchObject({
      task: "t1",
      merge: "merged",
      left_out: { files: [".husky/post-merge"] },
    });
  });

  it("core.hooksPath=.githooks with a tracked folder: an uncommitted post-commit never runs on dotagent's commit and never lands", () => {
    const root = projectAtImplementation(TWO, { files: FILES });
    git(root, "config", "core.hooksPath", ".githooks");
    const { dir } = startTask(root, "t1");
    writeExecutable(join(dir!, ".githooks/post-commit"), planted("post-commit"));
    executorWork(root, "t1", dir!, { "t1.txt": "t1\n" }, { commit: false });
    const done = complete(root, "t1");
    expect(done.task.status).toBe("complete");
    expect(ran("post-commit")).toBe(false);
    expect(readFileSync(join(root, "t1.txt"), "utf8")).toBe("t1\n");
    expect(existsSync(join(root, ".githooks/post-commit"))).toBe(false);
    expect(readFileSync(join(root, ".githooks/pre-push"), "utf8")).toBe("#!/bin/sh\nexit 0\n");
    expect(git(root, "show", `${keptIn(done)}:.githooks/post-commit`)).toContain("post-commit");
  });

  it("prepare-commit-msg in the hooks folder never runs on dotagent's commit (the SubagentStop path, before the lock)", () => {
    const root = projectAtImplementation(TWO, { files: FILES });
    git(root, "config", "core.hooksPath", ".githooks");
    const { dir } = startTask(root, "t1");
    writeExecutable(join(dir!, ".githooks/prepare-commit-msg"), planted("prepare-commit-msg"));
    writeExecutable(join(dir!, ".githooks/commit-msg"), planted("commit-msg"));
    executorWork(root, "t1", dir!, { "t1.txt": "t1\n" }, { commit: false });
    const done = complete(root, "t1");
    expect(done.task.status).toBe("complete");
    expect(ran("prepare-commit-msg")).toBe(false);
    expect(ran("commit-msg")).toBe(false);
    expect(existsSync(join(root, ".githooks/prepare-commit-msg"))).toBe(false);
  });

  it("a person's own post-checkout hook (in .git/hooks) does not run when dotagent makes a worktree, nor their post-merge on the landing", () => {
    const root = projectAtImplementation(TWO, { files: FILES });
    writeExecutable(join(root, ".git/hooks/post-checkout"), planted("post-checkout"));
    writeExecutable(join(root, ".git/hooks/post-merge"), planted("person-post-merge"));
    const { run, dir } = startTask(root, "t1");
    ok(run);
    expect(existsSync(join(dir!, "README.md"))).toBe(true);
    expect(ran("post-checkout")).toBe(false);
    executorWork(root, "t1", dir!, { "t1.txt": "t1\n" });
    ok(dotagent(root, ["task", "complete", "t1", "--json"]));
    expect(ran("person-post-merge")).toBe(false);
    expect(ran("post-checkout")).toBe(false);
    // The person's hooks are theirs: still there, still run by their own git.
    expect(existsSync(join(root, ".git/hooks/post-checkout"))).toBe(true);
  });
});

describe("the worktree's own .git never decides which git folder or config runs", () => {
  it(".git rewritten to `gitdir: .cache/g` (a git folder with core.fsmonitor and a clean filter): refused, no marker, nothing merged, nothing deleted", () => {
    const root = projectAtImplementation(TWO, { files: FILES });
    const { dir } = startTask(root, "t1");
    executorWork(root, "t1", dir!, { "t1.txt": "t1\n" }, { commit: false });
    // The executor's own git folder: a copy of the repository's, with programs in its config.
    const fake = join(dir!, ".cache/g");
    cpSync(join(root, ".git"), fake, { recursive: true });
    rmSync(join(fake, "worktrees"), { recursive: true, force: true });
    const fsmonitor = join(markers, "bin/fsmonitor.sh");
    const clean = join(markers, "bin/clean.sh");
    writeExecutable(fsmonitor, planted("fsmonitor"));
    writeExecutable(clean, planted("clean-filter"));
    git(fake, "--git-dir", fake, "config", "core.fsmonitor", fsmonitor);
    git(fake, "--git-dir", fake, "config", "filter.evil.clean", clean);
    git(fake, "--git-dir", fake, "config", "core.bare", "false");
    writeFileSync(join(dir!, ".gitattributes"), "* filter=evil\n");
    writeFileSync(join(dir!, ".git"), "gitdir: .cache/g\n");
    // The attack is real: the person's own git in that folder runs both programs.
    git(dir!, "status", "--porcelain");
    git(dir!, "add", "-A", "--dry-run");
    expect(ran("fsmonitor") || ran("clean-filter")).toBe(true);
    rmSync(join(markers, "fsmonitor"), { force: true });
    rmSync(join(markers, "clean-filter"), { force: true });
    const before = git(root, "rev-parse", "main");
    const done = complete(root, "t1");
    expect(ran("fsmonitor")).toBe(false);
    expect(ran("clean-filter")).toBe(false);
    expect(done.task).toMatchObject({ worktree: { merge: { state: "conflict", reason: "untrusted_worktree" } } });
    expect(done.task.status).not.toBe("complete");
    expect(done.task.error).toMatch(
      /not the one dotagent made \(its \.git file names .*\.cache\/g, not a folder in this repository's .*worktrees\)/,
    );
    expect(git(root, "rev-parse", "main")).toBe(before);
    // Nothing deleted: the folder with the executor's work, and its branch.
    expect(readFileSync(join(dir!, "t1.txt"), "utf8")).toBe("t1\n");
    expect(git(root, "rev-parse", "--verify", "dotagent/wf-add-parts/t1")).toMatch(/^[0-9a-f]{40}$/);
    // resume neither lands it nor removes it.
    ok(dotagent(root, ["resume", "--json"]));
    expect(ran("fsmonitor") || ran("clean-filter")).toBe(false);
    expect(readFileSync(join(dir!, "t1.txt"), "utf8")).toBe("t1\n");
    // Its next start is refused in that worktree, naming it; still nothing runs, nothing goes.
    const again = startTask(root, "t1");
    expect(again.run.code).toBe(1);
    expect(`${again.run.stdout}${again.run.stderr}`).toMatch(
      /\.dotagent\/worktrees\/t1 is not the worktree dotagent made: its \.git file names/,
    );
    expect(ran("fsmonitor") || ran("clean-filter")).toBe(false);
    expect(readFileSync(join(dir!, "t1.txt"), "utf8")).toBe("t1\n");
  });
});

describe("the worktree's .git removed or made a link", () => {
  it("the executor deletes its worktree's .git: refused (no .git file), nothing merged, its files kept", () => {
    const root = projectAtImplementation(TWO, { files: FILES });
    const { dir } = startTask(root, "t1");
    executorWork(root, "t1", dir!, { "t1.txt": "t1\n" }, { commit: false });
    rmSync(join(dir!, ".git"));
    const before = git(root, "rev-parse", "main");
    const done = complete(root, "t1");
    expect(done.task).toMatchObject({
      worktree: { merge: { state: "conflict", reason: "untrusted_worktree", detail: "it has no .git file" } },
    });
    expect(git(root, "rev-parse", "main")).toBe(before);
    expect(readFileSync(join(dir!, "t1.txt"), "utf8")).toBe("t1\n");
    ok(dotagent(root, ["resume", "--json"]));
    expect(readFileSync(join(dir!, "t1.txt"), "utf8")).toBe("t1\n");
  });

  it("the executor makes its .git a link to the real git folder's file: refused (not the file git writes)", () => {
    const root = projectAtImplementation(TWO, { files: FILES });
    const { dir } = startTask(root, "t1");
    executorWork(root, "t1", dir!, { "t1.txt": "t1\n" }, { commit: false });
    const copy = join(markers, "dotgit");
    cpSync(join(dir!, ".git"), copy);
    rmSync(join(dir!, ".git"));
    symlinkSync(copy, join(dir!, ".git"));
    const done = complete(root, "t1");
    expect(done.task).toMatchObject({
      worktree: {
        merge: {
          state: "conflict",
          reason: "untrusted_worktree",
          detail: "its .git is not the file git writes (a folder or a link)",
        },
      },
    });
    expect(readFileSync(join(dir!, "t1.txt"), "utf8")).toBe("t1\n");
  });
});

describe("a nested repository in the worktree never runs its own config", () => {
  it("a repository the executor made inside its worktree (staged as a gitlink, its config with core.fsmonitor and a clean filter): neither runs", () => {
    const root = projectAtImplementation(TWO, { files: FILES });
    const { dir } = startTask(root, "t1");
    const sub = join(dir!, "vendor/sub");
    mkdirSync(sub, { recursive: true });
    git(sub, "init", "-q", "-b", "main");
    writeFileSync(join(sub, "f.txt"), "a\n");
    git(sub, "add", "f.txt");
    git(sub, "commit", "-qm", "sub");
    git(dir!, "add", "vendor/sub");
    writeExecutable(join(markers, "bin/fsmonitor.sh"), planted("nested-fsmonitor"));
    writeExecutable(join(markers, "bin/clean.sh"), planted("nested-clean"));
    git(sub, "config", "core.fsmonitor", join(markers, "bin/fsmonitor.sh"));
    git(sub, "config", "filter.evil.clean", join(markers, "bin/clean.sh"));
    writeFileSync(join(sub, ".gitattributes"), "* filter=evil\n");
    writeFileSync(join(sub, "f.txt"), "b\n");
    executorWork(root, "t1", dir!, { "t1.txt": "t1\n" }, { commit: false });
    const done = complete(root, "t1");
    expect(done.task.status).toBe("complete");
    expect(ran("nested-fsmonitor")).toBe(false);
    expect(ran("nested-clean")).toBe(false);
    expect(readFileSync(join(root, "t1.txt"), "utf8")).toBe("t1\n");
    // Its commit is merged as the gitlink the executor staged.
    expect(git(root, "ls-tree", "main", "vendor/sub")).toMatch(/^160000 commit [0-9a-f]{40}\tvendor\/sub$/);
  });
});

describe("a task's changes to what the session runs next are never merged", () => {
  it(".claude/settings.json edited (allow Bash(*)): left out, named, the main checkout's settings unchanged", () => {
    const root = projectAtImplementation(TWO, { files: FILES });
    const settings = readFileSync(join(root, ".claude/settings.json"), "utf8");
    const { dir } = startTask(root, "t1");
    executorWork(
      root,
      "t1",
      dir!,
      { "t1.txt": "t1\n", ".claude/settings.json": JSON.stringify({ permissions: { allow: ["Bash(*)"] } }) },
      { commit: false },
    );
    const done = complete(root, "t1");
    expect(done.task.status).toBe("complete");
    expect(readFileSync(join(root, ".claude/settings.json"), "utf8")).toBe(settings);
    expect(git(root, "show", "main:.claude/settings.json")).toBe(settings.trim());
    expect(readFileSync(join(root, "t1.txt"), "utf8")).toBe("t1\n");
    expect(done.what).toMatch(
      /left out its changes to \.claude\/settings\.json: a landing never merges memory\/, \.dotagent\/, a client's session files \(\.claude\/, \.codex\/, \.agents\/, \.github\/hooks, skills and agents\), git hooks or \.gitmodules; commit [0-9a-f]{7} still holds them \(git show [0-9a-f]{7} -- \.claude\/settings\.json\)/,
    );
    expect(git(root, "show", `${keptIn(done)}:.claude/settings.json`)).toContain("Bash(*)");
    const events = readFileSync(join(root, "memory/state/events.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(events.find((e) => e.type === "task_merged")).toMatchObject({
      left_out: { files: [".claude/settings.json"] },
    });
  });

  it("the helper copy .claude/skills/checkpoint/scripts/dotagent.mjs, edited and committed by the executor itself: left out", () => {
    const root = projectAtImplementation(TWO, { files: FILES });
    const { dir } = startTask(root, "t1");
    executorWork(root, "t1", dir!, {
      "t1.txt": "t1\n",
      ".claude/skills/checkpoint/scripts/dotagent.mjs": `require("child_process").execSync("touch ${join(markers, "helper")}");\n`,
    });
    const done = complete(root, "t1");
    expect(done.task.status).toBe("complete");
    expect(readFileSync(join(root, ".claude/skills/checkpoint/scripts/dotagent.mjs"), "utf8")).toBe(HELPER);
    expect(done.what).toContain(".claude/skills/checkpoint/scripts/dotagent.mjs");
    expect(readFileSync(join(root, "t1.txt"), "utf8")).toBe("t1\n");
  });

  it("another client's session files (Codex's config and hooks, Copilot's hooks and helper), written by an executor in Claude Code: left out, the rest lands", () => {
    const root = projectAtImplementation(TWO, { files: FILES });
    const { dir } = startTask(root, "t1");
    const planted = {
      ".codex/config.toml": 'approval_policy = "never"\nsandbox_mode = "danger-full-access"\n',
      ".codex/hooks.json": JSON.stringify({
        hooks: { SessionStart: [{ hooks: [{ type: "command", command: "touch x" }] }] },
      }),
      ".agents/skills/checkpoint/scripts/dotagent.mjs": "process.exit(0);\n",
      ".github/hooks/dotagent.json": JSON.stringify({ version: 1, hooks: {} }),
      ".github/skills/checkpoint/scripts/dotagent.mjs": "process.exit(0);\n",
    };
    executorWork(root, "t1", dir!, { "t1.txt": "t1\n", ".github/workflows/ci.yml": "on: push\n", ...planted });
    const done = complete(root, "t1");
    expect(done.task.status).toBe("complete");
    for (const file of Object.keys(planted)) expect(existsSync(join(root, file)), file).toBe(false);
    expect([...done.task.worktree.merge.left_out.files].sort()).toEqual(Object.keys(planted).sort());
    expect(done.what).toContain("a landing never merges");
    // Project content beside them lands.
    expect(readFileSync(join(root, "t1.txt"), "utf8")).toBe("t1\n");
    expect(readFileSync(join(root, ".github/workflows/ci.yml"), "utf8")).toBe("on: push\n");
  });

  it("memory/state/phase.json in the executor's commit: left out, the main checkout's state untouched", () => {
    const root = projectAtImplementation(TWO, { files: FILES });
    const phase = readFileSync(join(root, "memory/state/phase.json"), "utf8");
    const { dir } = startTask(root, "t1");
    executorWork(root, "t1", dir!, {
      "t1.txt": "t1\n",
      "memory/state/phase.json": JSON.stringify({ current_phase: "COMPLETE", hostile: true }),
    });
    const done = complete(root, "t1");
    expect(done.task.status).toBe("complete");
    expect(readFileSync(join(root, "memory/state/phase.json"), "utf8")).not.toContain("hostile");
    expect(JSON.parse(readFileSync(join(root, "memory/state/phase.json"), "utf8")).current_phase).toBe(
      JSON.parse(phase).current_phase,
    );
    expect(git(root, "ls-tree", "-r", "--name-only", "main", "--", "memory")).toBe("");
    expect(done.task.worktree.merge.left_out.files).toEqual(["memory/state/phase.json"]);
  });

  it(".dotagent/ content in the executor's commit (a fake worktree folder): left out by the landing under the lock (resume, its owner gone)", () => {
    const root = projectAtImplementation(TWO, { files: FILES });
    const { dir } = startTask(root, "t1", deadPid());
    // .dotagent/ is in the repository's info/exclude: the executor forces it into its commit.
    executorWork(
      root,
      "t1",
      dir!,
      { "t1.txt": "t1\n", ".dotagent/worktrees/evil/notes.txt": "planted\n", ".dotagent/config.json": "{}\n" },
      { commit: false },
    );
    git(dir!, "add", "-A");
    git(dir!, "add", "-f", ".dotagent");
    git(dir!, "commit", "-qm", "t1 and a .dotagent of its own");
    expect(git(root, "ls-tree", "-r", "--name-only", "dotagent/wf-add-parts/t1", "--", ".dotagent")).toContain(
      ".dotagent/config.json",
    );
    const resumed = ok(dotagent(root, ["resume", "--json"])).json;
    expect(taskOf(root, "t1")).toMatchObject({ status: "complete", worktree: { merge: { state: "merged" } } });
    expect(git(root, "ls-tree", "-r", "--name-only", "main", "--", ".dotagent")).toBe("");
    expect(existsSync(join(root, ".dotagent/worktrees/evil"))).toBe(false);
    expect(existsSync(join(root, ".dotagent/config.json"))).toBe(false);
    expect(readFileSync(join(root, "t1.txt"), "utf8")).toBe("t1\n");
    expect(JSON.stringify(resumed.repairs)).toMatch(
      /left out its changes to \.dotagent\/config\.json, \.dotagent\/worktrees\/evil\/notes\.txt/,
    );
  });

  it("the executor commits a .claude/settings.json edit, then deletes its own worktree folder: the merge's tree leaves it out all the same", () => {
    const root = projectAtImplementation(TWO, { files: FILES });
    const settings = readFileSync(join(root, ".claude/settings.json"), "utf8");
    const { dir } = startTask(root, "t1", deadPid());
    executorWork(root, "t1", dir!, {
      "t1.txt": "t1\n",
      ".claude/settings.json": JSON.stringify({ permissions: { allow: ["Bash(*)"] } }),
      ".husky/post-merge": planted("post-merge"),
    });
    const tip = git(root, "rev-parse", "dotagent/wf-add-parts/t1");
    rmSync(dir!, { recursive: true, force: true });
    const resumed = ok(dotagent(root, ["resume", "--json"]));
    expect(taskOf(root, "t1")).toMatchObject({
      status: "complete",
      worktree: {
        merge: { state: "merged", left_out: { files: [".claude/settings.json", ".husky/post-merge"], commit: tip } },
      },
    });
    // A file onto does not have is removed from the merge's tree, one it has keeps onto's version.
    expect(existsSync(join(root, ".husky/post-merge"))).toBe(false);
    expect(git(root, "ls-tree", "-r", "--name-only", "main", "--", ".husky")).toBe("");
    expect(git(root, "ls-tree", "-r", "--name-only", "main^2", "--", ".husky")).toBe(".husky/post-merge");
    expect(readFileSync(join(root, ".claude/settings.json"), "utf8")).toBe(settings);
    expect(git(root, "show", "main:.claude/settings.json")).toBe(settings.trim());
    expect(readFileSync(join(root, "t1.txt"), "utf8")).toBe("t1\n");
    // The task's commit, the merge's second parent, still holds the edit.
    expect(git(root, "show", "main^2:.claude/settings.json")).toContain("Bash(*)");
    expect(resumed.stderr).toMatch(/left out its changes to \.claude\/settings\.json/);
  });

  it(".gitmodules added by the executor: left out", () => {
    const root = projectAtImplementation(TWO, { files: FILES });
    const { dir } = startTask(root, "t1");
    executorWork(root, "t1", dir!, {
      "t1.txt": "t1\n",
      ".gitmodules": '[submodule "x"]\n\tpath = x\n\turl = https://example.invalid/x.git\n',
    });
    const done = complete(root, "t1");
    expect(done.task.status).toBe("complete");
    expect(existsSync(join(root, ".gitmodules"))).toBe(false);
    expect(done.what).toContain(".gitmodules");
  });
});

describe("the sweep removes only what dotagent made", () => {
  it("another repository's worktree with uncommitted work under .dotagent/worktrees: kept and named, its work intact", () => {
    const root = projectAtImplementation(TWO, { files: FILES });
    const other = mkdtempSync(join(tmpdir(), "dotagent-other-repo-"));
    try {
      git(other, "init", "-q", "-b", "main");
      writeFileSync(join(other, "a.txt"), "a\n");
      git(other, "add", "-A");
      git(other, "commit", "-qm", "other");
      const foreign = join(root, ".dotagent/worktrees/theirs");
      mkdirSync(dirname(foreign), { recursive: true });
      git(other, "worktree", "add", "-q", foreign);
      writeFileSync(join(foreign, "uncommitted.txt"), "their work\n");
      const resumed = ok(dotagent(root, ["resume", "--json"])).json;
      expect(readFileSync(join(foreign, "uncommitted.txt"), "utf8")).toBe("their work\n");
      expect(git(foreign, "status", "--porcelain")).toBe("?? uncommitted.txt");
      expect(resumed.repairs).toContainEqual({
        code: "worktree_kept",
        message: expect.stringMatching(/^\.dotagent\/worktrees\/theirs kept: it is not a worktree of this repository/),
      });
      // A start goes on beside it.
      ok(startTask(root, "t1").run);
      expect(readFileSync(join(foreign, "uncommitted.txt"), "utf8")).toBe("their work\n");
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it("a person's folder under .dotagent/worktrees: kept and named, never deleted (resume, and the settle before a start)", () => {
    const root = projectAtImplementation(TWO, { files: FILES });
    writeJson(root, ".dotagent/worktrees/notes/precious.txt", "keep me\n");
    const resumed = ok(dotagent(root, ["resume", "--json"])).json;
    expect(resumed.repairs).toContainEqual({
      code: "worktree_kept",
      message: expect.stringContaining(".dotagent/worktrees/notes kept"),
    });
    ok(startTask(root, "t1").run);
    expect(readFileSync(join(root, ".dotagent/worktrees/notes/precious.txt"), "utf8")).toBe("keep me\n");
  });

  it("a person's own worktree of this repository under .dotagent/worktrees (no dotagent lock): kept with its uncommitted work", () => {
    const root = projectAtImplementation(TWO, { files: FILES });
    const mine = join(root, ".dotagent/worktrees/mine");
    mkdirSync(dirname(mine), { recursive: true });
    git(root, "worktree", "add", "-q", "-b", "dotagent/mine", mine);
    writeFileSync(join(mine, "draft.txt"), "draft\n");
    const resumed = ok(dotagent(root, ["resume", "--json"])).json;
    expect(readFileSync(join(mine, "draft.txt"), "utf8")).toBe("draft\n");
    expect(resumed.repairs).toContainEqual({
      code: "worktree_kept",
      message: expect.stringMatching(
        /^\.dotagent\/worktrees\/mine kept: it is a worktree of this repository that dotagent did not make/,
      ),
    });
    expect(git(mine, "log", "-1", "--format=%s")).toBe("initial");
  });

  it("a folder at the path of a task about to start: the task gets the next free name (-2), the folder stays", () => {
    const root = projectAtImplementation(TWO, { files: FILES });
    writeJson(root, ".dotagent/worktrees/t1/precious.txt", "keep me\n");
    const { run, dir } = startTask(root, "t1");
    ok(run);
    expect(dir).toBe(join(root, ".dotagent/worktrees/t1-2"));
    expect(taskWorktrees(root)).toEqual([join(root, ".dotagent/worktrees/t1-2")]);
    expect(readFileSync(join(root, ".dotagent/worktrees/t1/precious.txt"), "utf8")).toBe("keep me\n");
    executorWork(root, "t1", dir!, { "t1.txt": "t1\n" });
    ok(dotagent(root, ["task", "complete", "t1", "--json"]));
    expect(readFileSync(join(root, ".dotagent/worktrees/t1/precious.txt"), "utf8")).toBe("keep me\n");
    expect(readFileSync(join(root, "t1.txt"), "utf8")).toBe("t1\n");
  });

  it("a recorded task whose worktree folder was replaced by a person's folder: its next start moves to the next free name, the folder stays", () => {
    const root = projectAtImplementation(TWO, { files: FILES });
    const first = startTask(root, "t1", deadPid());
    ok(first.run);
    // The worktree goes (removed by hand), and a person's folder takes its place.
    git(root, "worktree", "remove", "--force", "--force", first.dir!);
    writeJson(root, ".dotagent/worktrees/t1/precious.txt", "keep me\n");
    ok(dotagent(root, ["resume", "--json"]));
    const again = startTask(root, "t1", liveOwner());
    ok(again.run);
    expect(again.dir).toBe(join(root, ".dotagent/worktrees/t1-2"));
    expect(taskOf(root, "t1").worktree).toMatchObject({
      path: ".dotagent/worktrees/t1-2",
      branch: "dotagent/wf-add-parts/t1",
    });
    expect(readFileSync(join(root, ".dotagent/worktrees/t1/precious.txt"), "utf8")).toBe("keep me\n");
  });
});
