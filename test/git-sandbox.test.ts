// Git that the system refuses to run (SPEC §19 "Git in a sandbox"), from the built CLI. A `git` on
// PATH that may not be executed (EACCES, as a sandbox's exec rule answers) stands in for the
// refusal; a PATH with no git at all is "git is not installed". The refusal never reads as no git:
// the plan asks the person instead of run_tasks (which a hook outside the sandbox would refuse),
// `task start` is refused with `git_sandboxed`, and the person's answers work or say what to do.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { dotagent, expectNoStack, removeTemps, tempProject } from "./support/cli.js";
import { liveOwner, ok, projectAtImplementation, readExecution, stopOwner } from "./support/worktree-project.js";

afterEach(async () => {
  await stopOwner();
  removeTemps();
});

/** A PATH whose only `git` may not be executed (mode 0644: EACCES, for root too). */
function refusingPath(): string {
  const bin = join(tempProject(), "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "git"), "#!/bin/sh\nexit 0\n", { mode: 0o644 });
  return bin;
}

describe("git refused by the system (a sandbox)", () => {
  it("resume asks the person (confirm_isolation, git_refused) instead of run_tasks; task start and a commit are refused with git_sandboxed", () => {
    const root = projectAtImplementation([{ id: "t1" }]);
    const env = { PATH: refusingPath() };
    const plan = dotagent(root, ["resume", "--json"], { env });
    expect(plan.code, plan.stdout + plan.stderr).toBe(5);
    expect(plan.json.next).toMatchObject({ action: "confirm_isolation", round: 0, checkout: "git_refused", tasks: [] });
    expect(plan.json.decision).toMatchObject({
      default: false,
      yes: "dotagent resume --isolation commit",
      no: "dotagent resume --isolation shared",
    });
    expect(plan.json.decision.question).toMatch(
      /^dotagent could not look at the main checkout before the tasks start: git could not be run from this shell \(the system refused it: EACCES; /,
    );
    expect(plan.json.decision.question).not.toMatch(/not installed/);

    const start = dotagent(root, ["task", "start", "t1", "--owner", String(liveOwner()), "--json"], { env });
    expect(start.code).toBe(1);
    expect(start.json.error.code).toBe("git_sandboxed");
    expect(start.json.error.message).toMatch(
      /the system refused it: EACCES.*a person decides first: commit what is uncommitted, running `dotagent resume --isolation commit` outside the sandbox, or run the tasks without worktrees/,
    );
    expect(readExecution(root).isolation ?? null).toBeNull();

    // The person's yes, run where git is still refused: what to do, nothing recorded.
    const commit = dotagent(root, ["resume", "--isolation", "commit"], { env });
    expect(commit.code).toBe(1);
    expect(commit.stderr.trim().split("\n")).toHaveLength(1);
    expect(commit.stderr).toMatch(
      /git could not be run from this shell.*commit them yourself \(`git add -A && git commit`\).*outside the sandbox.*--isolation shared/,
    );
    expectNoStack(commit.stderr);
    expect(readExecution(root).isolation ?? null).toBeNull();

    // Their no needs no git: the round runs without worktrees, and the tasks start.
    const shared = ok(dotagent(root, ["resume", "--isolation", "shared", "--json"], { env })).json;
    expect(shared.next).toMatchObject({ action: "run_tasks", tasks: ["t1"] });
    expect(readExecution(root).isolation).toMatchObject({ mode: "shared", round: 0 });
  });

  it("outside the sandbox (git runs) the same project is clean: worktrees, no question", () => {
    const root = projectAtImplementation([{ id: "t1" }]);
    expect(ok(dotagent(root, ["resume", "--json"])).json.next).toMatchObject({ action: "run_tasks", tasks: ["t1"] });
  });

  it("no git at all (ENOENT) is still 'git is not installed': the round shares one checkout", () => {
    const root = projectAtImplementation([{ id: "t1" }]);
    const env = { PATH: join(tempProject(), "empty") };
    expect(ok(dotagent(root, ["resume", "--json"], { env })).json.next).toMatchObject({ action: "run_tasks" });
    ok(dotagent(root, ["task", "start", "t1", "--owner", String(liveOwner()), "--json"], { env }));
    expect(readExecution(root).isolation).toMatchObject({ mode: "shared", reason: "git is not installed" });
  });
});
