import { describe, expect, it } from "vitest";
import { mergesTakenBack, undoCommand, type KeptMerge } from "./rollback-merges.js";
import { execution, task } from "./fixtures.test-support.js";

const sha = (n: number) => String(n).repeat(40).slice(0, 40);
const landed = (id: string, n: number, into = "main") =>
  task(id, {
    status: "complete",
    worktree: {
      path: `.dotagent/worktrees/${id}`,
      branch: `dotagent/wf/${id}`,
      into,
      base: sha(0),
      merge: { state: "merged", into, commit: sha(n), at: `2026-11-20T11:0${n}:00Z` },
    },
  });

describe("the task merges a rollback takes back", () => {
  it("every merge of the live plan when execution.json goes, oldest first; no merge commit (nothing merged) is none", () => {
    const live = execution([
      landed("b", 3),
      landed("a", 1),
      task("c", {
        status: "complete",
        worktree: {
          ...landed("c", 2).worktree!,
          merge: { state: "merged", into: "main", commit: null, at: "2026-11-20T11:02:00Z" },
        },
      }),
      task("d", { status: "running" }),
    ]);
    expect(mergesTakenBack(live, null).map((m) => [m.task_id, m.commit])).toEqual([
      ["a", sha(1)],
      ["b", sha(3)],
    ]);
  });

  it("a checkpoint that holds a merge keeps it: only the later ones are taken back", () => {
    const live = execution([landed("a", 1), landed("b", 2)]);
    const target = execution([landed("a", 1), task("b", { status: "running" })]);
    expect(mergesTakenBack(live, target).map((m) => m.task_id)).toEqual(["b"]);
    expect(mergesTakenBack(undefined, null)).toEqual([]);
  });
});

describe("the command that undoes them", () => {
  const merge = (n: number, into = "main"): KeptMerge => ({
    task_id: `t${n}`,
    into,
    commit: sha(n),
    at: `2026-11-20T11:0${n}:00Z`,
  });
  it.each<[string, KeptMerge[], string | null, string | null]>([
    ["none", [], "main", null],
    [
      "on the checked-out branch: newest first",
      [merge(1), merge(2), merge(3)],
      "main",
      `git revert -m 1 --no-edit ${sha(3).slice(0, 12)} ${sha(2).slice(0, 12)} ${sha(1).slice(0, 12)}`,
    ],
    [
      "on another branch: switched to, and back",
      [merge(1, "feature")],
      "main",
      `git switch feature && git revert -m 1 --no-edit ${sha(1).slice(0, 12)} && git switch main`,
    ],
    [
      "two branches: the checked-out one last",
      [merge(1, "main"), merge(2, "feat x")],
      "main",
      `git switch 'feat x' && git revert -m 1 --no-edit ${sha(2).slice(0, 12)} && git switch main && git revert -m 1 --no-edit ${sha(1).slice(0, 12)}`,
    ],
    ["a detached HEAD", [merge(1)], null, `git switch main && git revert -m 1 --no-edit ${sha(1).slice(0, 12)}`],
  ])("%s", (_name, merges, checkedOut, command) => {
    expect(undoCommand(merges, checkedOut)).toBe(command);
  });
});
