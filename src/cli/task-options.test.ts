import { describe, expect, it } from "vitest";
import { TASK_OPTIONS, taskOptionProblem, type TaskOptionAction } from "./task-options.js";
import { command } from "./commands/task.js";

describe("task options: each action reads its own, any other is refused (exit 2)", () => {
  it.each<[string, TaskOptionAction, Record<string, string | boolean>, string | undefined]>([
    ["add with a title and dependencies", "add", { title: "x", "depends-on": "t1" }, undefined],
    ["retry with more attempts and --yes", "retry", { "extra-attempts": "2", yes: true }, undefined],
    ["skip with a reason", "skip", { reason: "done by hand" }, undefined],
    ["edit of dependencies only (none: '')", "edit", { "depends-on": "" }, undefined],
    ["next alone", "next", {}, undefined],
    [
      "a skip without a reason",
      "skip",
      {},
      "task skip t3 needs --reason TEXT: why the task is not done (it is kept in the plan and the log)",
    ],
    [
      "a skip with a blank reason",
      "skip",
      { reason: "  " },
      "task skip t3 needs --reason TEXT: why the task is not done (it is kept in the plan and the log)",
    ],
    [
      "an edit that changes nothing named",
      "edit",
      {},
      "task edit t3 needs --title T or --depends-on A,B (--depends-on '' for none)",
    ],
    [
      "--title with remove",
      "remove",
      { title: "x" },
      "--title and --depends-on go with `task edit`, not `task remove`",
    ],
    ["--reason with edit", "edit", { title: "x", reason: "r" }, "--reason goes with `task skip`"],
    ["--owner with skip", "skip", { owner: "1", reason: "r" }, "--owner does not go with `task skip`"],
    [
      "--yes with another action",
      "start",
      { yes: true },
      "--yes goes with `task edit|remove|skip|retry`, not `task start`",
    ],
    ["--reason with fail", "fail", { reason: "r" }, "--reason goes with `task skip`, not `task fail`"],
    [
      "--title with retry",
      "retry",
      { "extra-attempts": "1", title: "new" },
      "--title does not go with `task retry` (it takes --extra-attempts, --yes); see `dotagent task --help`",
    ],
    [
      "--error with complete",
      "complete",
      { error: "x" },
      "--error does not go with `task complete` (it takes --output); see `dotagent task --help`",
    ],
    [
      "--output with fail",
      "fail",
      { output: "memory/reports/tasks/t2.json" },
      "--output does not go with `task fail` (it takes --error); see `dotagent task --help`",
    ],
    [
      "--depends-on with start",
      "start",
      { "depends-on": "t1" },
      "--depends-on does not go with `task start` (it takes --owner); see `dotagent task --help`",
    ],
    ["--title with next", "next", { title: "x" }, "--title does not go with `task next`; see `dotagent task --help`"],
    ["--yes with next", "next", { yes: true }, "--yes does not go with `task next`; see `dotagent task --help`"],
    [
      "anything with import",
      "import",
      { owner: "1" },
      "--owner does not go with `task import`; see `dotagent task --help`",
    ],
  ])("%s", (_name, action, options, problem) => {
    expect(taskOptionProblem(action, "t3", options)).toBe(problem);
  });

  it("names every option the command declares, in its order", () => {
    expect(Object.keys(command.options ?? {})).toEqual(TASK_OPTIONS);
  });
});
