// One answer everywhere (issue 29, case 9): the step an approval answers with is the step the
// hooks let happen. After `dotagent install` (which writes .gitignore) and no commit, the tasks
// start in their worktrees (dotagent's own lines are not the person's changes); with the person's
// own uncommitted change, ARCHITECTURE's approval answers with the question, not with a
// run_tasks the spawn hook would refuse.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { dotagent, removeTemps, tempProject, writeJson } from "./support/cli.js";
import { git, ok } from "./support/worktree-project.js";

afterEach(removeTemps);

function installedNotCommitted(): string {
  const p = tempProject();
  writeFileSync(join(p, "README.md"), "# app\n");
  git(p, "init", "-q", "-b", "main");
  git(p, "add", "-A");
  git(p, "commit", "-qm", "initial");
  ok(dotagent(p, ["install", "--json"], { env: { HOME: join(p, "home") } }));
  ok(dotagent(p, ["init", "--request", "add parts", "--json"]));
  writeJson(p, "memory/reports/demand.json", { summary: "parts" });
  ok(dotagent(p, ["phase", "approve", "REQUIREMENTS", "--json"]));
  writeJson(p, "memory/reports/final_design.json", {
    chosen: "minimal",
    design: {},
    tasks: [{ id: "t1", title: "one", depends_on: [] }],
  });
  return p;
}

describe("the approval's next step and the hook agree", () => {
  it("only dotagent's own files uncommitted (.claude/, .gitignore, memory/): run_tasks, and the task starts in its worktree", () => {
    const p = installedNotCommitted();
    expect(git(p, "status", "--porcelain")).toContain(".gitignore");
    const approved = ok(dotagent(p, ["phase", "approve", "ARCHITECTURE", "--json"]));
    expect(approved.json.next).toMatchObject({ action: "run_tasks", tasks: ["t1"] });
    expect(ok(dotagent(p, ["task", "start", "t1", "--json"])).json.task.worktree).toMatchObject({
      branch: expect.stringMatching(/^dotagent\//),
    });
  });

  it("the person's own uncommitted change: the approval answers with confirm_isolation and its decision", () => {
    const p = installedNotCommitted();
    writeFileSync(join(p, "README.md"), "# app, edited\n");
    const approved = ok(dotagent(p, ["phase", "approve", "ARCHITECTURE", "--json"]));
    expect(approved.json.next).toMatchObject({ action: "confirm_isolation" });
    expect(approved.json.next.reason).toContain("README.md");
    expect(approved.json.next.reason).not.toContain(".gitignore");
  });

  it("a .gitignore line of the person's own, uncommitted, still counts as their change", () => {
    const p = installedNotCommitted();
    writeFileSync(join(p, ".gitignore"), `node_modules/\n${readFileSync(join(p, ".gitignore"), "utf8")}`);
    expect(ok(dotagent(p, ["phase", "approve", "ARCHITECTURE", "--json"])).json.next).toMatchObject({
      action: "confirm_isolation",
    });
  });
});

describe("the briefing agrees too", () => {
  it("a new session at a round the person must decide about is told the question, not run_tasks", () => {
    const p = installedNotCommitted();
    writeFileSync(join(p, "README.md"), "# app, edited\n");
    ok(dotagent(p, ["phase", "approve", "ARCHITECTURE", "--json"]));
    const helper = join(p, ".claude/skills/checkpoint/scripts/dotagent.mjs");
    const r = dotagent(p, ["hook", "session-start"], {
      input: JSON.stringify({ source: "resume", cwd: p }),
      script: helper,
    });
    const text = JSON.parse(r.stdout).hookSpecificOutput.additionalContext as string;
    expect(text).toContain("Next action: confirm_isolation");
    // Handed as the next step, recorded as asked: the model asks before it runs anything (issue 42).
    expect(text).toContain("A person must decide, and dotagent recorded the question as asked");
    expect(text).toMatch(
      /^dotagent next: \{.*"decision":\{"question":"The main checkout has uncommitted changes \(README\.md\)/m,
    );
  });
});
