import { describe, expect, it } from "vitest";
import { classifyGitRun, gitRunProblem, type GitRun, type SpawnFacts } from "./git-run.js";

const error = (code: string) => ({ code, message: `spawnSync git ${code}` });

describe("what a git call's spawnSync result means", () => {
  // Each row a result Node gives (the Codex rows as measured under its default sandbox, test/codex/NOTES.md).
  it.each<[string, SpawnFacts, GitRun]>([
    ["git ran and said yes", { status: 0, signal: null }, { kind: "ran", status: 0 }],
    ["git ran and said no (its status is its answer)", { status: 128, signal: null }, { kind: "ran", status: 128 }],
    ["no git on PATH", { status: null, signal: null, error: error("ENOENT") }, { kind: "missing" }],
    [
      "not allowed to start it (EACCES)",
      { status: null, signal: null, error: error("EACCES") },
      { kind: "refused", code: "EACCES" },
    ],
    [
      "not allowed to start it (EPERM)",
      { status: null, signal: null, error: error("EPERM") },
      { kind: "refused", code: "EPERM" },
    ],
    [
      "Codex's sandbox: git ran (status 0), its stdin pipe's shutdown() refused",
      { status: 0, signal: null, error: error("EPERM") },
      { kind: "refused", code: "EPERM" },
    ],
    [
      "Codex's sandbox: git failed (128), the same refusal beside it",
      { status: 128, signal: null, error: error("EPERM") },
      { kind: "refused", code: "EPERM" },
    ],
    ["a timeout", { status: null, signal: "SIGTERM", error: error("ETIMEDOUT") }, { kind: "failed", why: "ETIMEDOUT" }],
    [
      "output past the buffer",
      { status: null, signal: "SIGTERM", error: error("ENOBUFS") },
      { kind: "failed", why: "ENOBUFS" },
    ],
    [
      "an error without a code",
      { status: null, signal: null, error: { message: "odd" } },
      { kind: "failed", why: "odd" },
    ],
    ["killed by a signal", { status: null, signal: "SIGKILL" }, { kind: "failed", why: "killed by SIGKILL" }],
    ["neither status nor signal", { status: null, signal: null }, { kind: "failed", why: "no exit status" }],
  ])("%s", (_name, run, expected) => expect(classifyGitRun(run)).toEqual(expected));

  it("a refusal is never worded as git missing", () => {
    expect(gitRunProblem({ kind: "missing" })).toMatch(/^git is not installed/);
    const refused = gitRunProblem({ kind: "refused", code: "EPERM" });
    expect(refused).not.toMatch(/not installed/);
    expect(refused).toMatch(/refused it \(EPERM\): a sandbox .* outside the sandbox/);
  });
});
