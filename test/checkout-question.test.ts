// The readers' look at the main checkout (status, resume --dry-run, the SessionStart hook:
// checkoutQuestionFor) gives the planner what the full look (checkoutFactsFor) would, in every
// situation that can matter: uncommitted changes, git refused, no git, no repository, a detached
// HEAD, only dotagent's own files changed. And it counts its git calls, not its time: a `git` on
// PATH that logs each call before it runs the real one.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { removeTemps, tempProject } from "./support/cli.js";
import { git, projectAtImplementation } from "./support/worktree-project.js";
import type { CheckoutFacts } from "../src/core/worktrees.js";

const PATH = process.env.PATH;
let realGit = "";
let log = "";

beforeAll(() => {
  realGit = whichGit();
});
afterEach(() => {
  process.env.PATH = PATH;
});
afterAll(removeTemps);

/** The real git's file, for the stand-ins to run. */
function whichGit(): string {
  for (const dir of (PATH ?? "").split(delimiter)) if (existsSync(join(dir, "git"))) return join(dir, "git");
  throw new Error("no git on PATH");
}

/** PATH whose `git` is `script` (a shell script's body), alone. */
function gitOnPath(script: string | null, mode = 0o755): void {
  const bin = join(tempProject(), "bin");
  mkdirSync(bin);
  if (script !== null) writeFileSync(join(bin, "git"), `#!/bin/sh\n${script}\n`, { mode });
  chmodSync(bin, 0o755);
  process.env.PATH = bin;
}

/** A git that logs each call's first argument, then runs the real git. */
function countingGit(): void {
  log = join(tempProject(), "git.log");
  gitOnPath(`echo "$1" >> "${log}"\nexec "${realGit}" "$@"`);
}

const calls = (): string[] =>
  readFileSync(log, "utf8")
    .trim()
    .split("\n")
    .filter((l) => l !== "");

/** Both looks at `root`, each from fresh modules (git's version is remembered per process). */
async function looks(
  root: string,
): Promise<{ question: CheckoutFacts | undefined; full: CheckoutFacts | undefined; questionCalls?: string[] }> {
  const load = async () => {
    vi.resetModules();
    const { loadSnapshot } = await import("../src/store/session.js");
    const { projectPaths } = await import("../src/store/project.js");
    const worktrees = await import("../src/store/worktrees.js");
    return { snapshot: await loadSnapshot(projectPaths(root)), worktrees };
  };
  const a = await load();
  const question = a.worktrees.checkoutQuestionFor(root, a.snapshot);
  const b = await load();
  const full = b.worktrees.checkoutFactsFor(root, b.snapshot);
  return { question, full };
}

/** What the planner reads of the full look: the facts when they ask the person, else nothing. */
const asks = (facts: CheckoutFacts | undefined) =>
  facts?.git === "refused" || (facts?.git === true && facts.dirty.length > 0) ? facts : undefined;

describe("the readers' look at the main checkout is the full look, where it can matter", () => {
  it.each([
    ["a clean checkout", (_root: string) => undefined, false],
    ["the person's uncommitted changes", (root: string) => writeFileSync(join(root, "shared.txt"), "changed\n"), true],
    ["a new file of the person's", (root: string) => writeFileSync(join(root, "new.txt"), "new\n"), true],
    ["only dotagent's own files", (root: string) => writeFileSync(join(root, "memory", "notes.txt"), "x\n"), false],
    [
      "a detached HEAD with changes",
      (root: string) => (git(root, "checkout", "-q", "--detach"), writeFileSync(join(root, "new.txt"), "new\n")),
      false,
    ],
  ])("%s", async (_name, change, asked) => {
    const root = projectAtImplementation([{ id: "t1" }]);
    change(root);
    const { question, full } = await looks(root);
    expect(question).toEqual(asks(full));
    expect(question !== undefined).toBe(asked);
  });

  it("no repository, no git, git refused: as the full look says", async () => {
    const root = projectAtImplementation([{ id: "t1" }], { git: false });
    let both = await looks(root);
    expect(both.question).toBeUndefined();
    expect(both.full).toMatchObject({ git: false, reason: "the project is not in a git repository" });

    gitOnPath(null);
    both = await looks(root);
    expect(both.question).toBeUndefined();
    expect(both.full).toMatchObject({ git: false, reason: "git is not installed" });

    // A git that may not be executed (EACCES, as a sandbox answers): asked, never "no git".
    gitOnPath("exit 0", 0o644);
    both = await looks(root);
    expect(both.question).toEqual(both.full);
    expect(both.question).toMatchObject({ git: "refused", reason: expect.stringMatching(/EACCES/) });
  });

  it("a git too old for worktrees: nothing asked, though the checkout has changes", async () => {
    const root = projectAtImplementation([{ id: "t1" }]);
    writeFileSync(join(root, "new.txt"), "new\n");
    gitOnPath(`[ "$1" = "--version" ] && { echo "git version 2.20.1"; exit 0; }\nexec "${realGit}" "$@"`);
    const { question, full } = await looks(root);
    expect(full).toMatchObject({ git: false, reason: expect.stringMatching(/older than/) });
    expect(question).toBeUndefined();
  });
});

describe("the git calls of the readers' look (counted, not timed)", () => {
  it("outside a repository: git rev-parse alone", async () => {
    const root = projectAtImplementation([{ id: "t1" }], { git: false });
    countingGit();
    vi.resetModules();
    const { loadSnapshot } = await import("../src/store/session.js");
    const { projectPaths } = await import("../src/store/project.js");
    const { checkoutQuestionFor } = await import("../src/store/worktrees.js");
    expect(checkoutQuestionFor(root, await loadSnapshot(projectPaths(root)))).toBeUndefined();
    expect(calls()).toEqual(["rev-parse"]);
  });

  it("a clean checkout: rev-parse and status (the full look adds git --version)", async () => {
    const root = projectAtImplementation([{ id: "t1" }]);
    countingGit();
    vi.resetModules();
    const { loadSnapshot } = await import("../src/store/session.js");
    const { projectPaths } = await import("../src/store/project.js");
    const worktrees = await import("../src/store/worktrees.js");
    const snapshot = await loadSnapshot(projectPaths(root));
    expect(worktrees.checkoutQuestionFor(root, snapshot)).toBeUndefined();
    expect(calls()).toEqual(["rev-parse", "status"]);
    writeFileSync(log, "");
    vi.resetModules();
    const fresh = await import("../src/store/worktrees.js");
    expect(fresh.checkoutFactsFor(root, snapshot)).toMatchObject({ git: true, dirty: [] });
    expect(calls()).toEqual(["--version", "rev-parse", "status"]);
  });
});
