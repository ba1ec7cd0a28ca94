// Isolated executors in the REAL Claude Code, driven by the scripted model (opt-in:
// DOTAGENT_E2E_CLAUDE=1; SPEC §19). A batch of three independent tasks whose executors each
// write a file and commit it: in a git repository each works in the worktree dotagent made for it
// (the PreToolUse hook put the `Worktree:` lines into its prompt), and each branch lands on the
// workflow's branch when its task completes, with no worktree left. `npm run journey`
// (DOTAGENT_JOURNEY_ALL=1) also measures IMPLEMENTATION's wall time against the same batch in
// a shared checkout (a project without git, as every batch ran before), in print mode and in the
// interactive terminal, and prints the figures.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { clientVersion, fetchClaude } from "./harness.js";
import { independentTasks } from "./scripted-model/policy.js";
import { runJourney, spawns, toolCalls, toolResults, writes, type JourneyResult } from "./scripted-model/journey.js";
import { runTerminalJourney } from "./scripted-model/terminal-journey.js";
import { tmuxAvailable } from "./scripted-model/terminal.js";
import { JOURNEY_MORE } from "../support/journey-tier.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const ENABLED = process.env.DOTAGENT_E2E_CLAUDE === "1";
const ALL = process.env.DOTAGENT_JOURNEY_ALL === "1";
const EXECUTOR_MS = Number(process.env.DOTAGENT_JOURNEY_EXECUTOR_MS ?? (ALL ? 4000 : 500));
const TASKS = independentTasks(3);
/** The executor's work takes this long before it writes its file (not again for its report). */
const work = (path: string) => (path.endsWith(".json") ? 0 : EXECUTOR_MS);

/**
 * The batches measured: the shared checkout in a project without git (as every batch ran before:
 * the executors write their file, no commit); the shared checkout in a git repository (the main
 * checkout on a detached HEAD, so the round runs shared: Claude Code reads the repository for
 * every agent it starts, as it does for worktrees, so this is the like-for-like baseline);
 * worktrees whose executors leave the commit to dotagent (the same tool calls as shared: the
 * difference is dotagent's own cost, the worktrees made and the branches merged); and worktrees
 * whose executors commit (one more tool call each).
 */
const MODES = ["shared", "shared, git repository", "worktree", "worktree, the executor commits"] as const;
type Mode = (typeof MODES)[number];
/** DOTAGENT_WORKTREE_MODES (separated by |) measures some of them; DOTAGENT_WORKTREE_RUNS repeats each, the modes taking turns. */
const MEASURED: readonly Mode[] = process.env.DOTAGENT_WORKTREE_MODES
  ? MODES.filter((m) => process.env.DOTAGENT_WORKTREE_MODES!.split("|").includes(m))
  : MODES;
const RUNS = Math.max(1, Number(process.env.DOTAGENT_WORKTREE_RUNS ?? 1) || 1);
const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** How a mode's project is set up after the install. */
function modeSetUp(mode: Mode): ((project: string) => void) | undefined {
  if (mode === "worktree, the executor commits") return allowGitInWorktrees;
  if (mode === "shared, git repository") return (project) => void git(project, "checkout", "-q", "--detach");
  return undefined;
}

const git = (cwd: string, ...args: string[]) => spawnSync("git", args, { cwd, encoding: "utf8" }).stdout.trim();

/** The person lets executors run git in their worktrees (`git -C <worktree> …`) and has a git identity there. */
function allowGitInWorktrees(project: string): void {
  writeFileSync(
    join(project, ".claude", "settings.local.json"),
    `${JSON.stringify({ permissions: { allow: ["Bash(git -C:*)"] } }, null, 2)}\n`,
  );
  git(project, "config", "user.name", "A Person");
  git(project, "config", "user.email", "person@example.com");
}

/** Merges one client mode's figures into docs/figures/worktree-wall-time.json (DOTAGENT_RECORD_FIGURES=1); scripts/journey-figures.mjs prints it. */
function recordWallTime(claude: string, client: "print" | "terminal", figures: Record<string, number[]>): void {
  if (process.env.DOTAGENT_RECORD_FIGURES !== "1") return;
  const file = join(ROOT, "docs/figures/worktree-wall-time.json");
  const before = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>) : {};
  const record = {
    ...before,
    measured_with: `Claude Code ${clientVersion(claude)}, the scripted model`,
    tasks: TASKS.length,
    executor_ms: EXECUTOR_MS,
    [client]: figures,
  };
  writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
}

/** A worktree mode's three branches landed; the git repository's shared mode ran shared. */
function expectIsolation(mode: Mode, project: string, events: JourneyResult["events"]): void {
  if (mode.startsWith("worktree")) expectLanded(project, events, mode === "worktree, the executor commits");
  if (mode === "shared, git repository")
    expect(events.find((e) => e.type === "isolation_decided")).toMatchObject({ mode: "shared" });
}

/**
 * The batch's wall time: from the first task's start until VERIFICATION starts. An event's `at` is
 * when its command began, so IMPLEMENTATION's own completion would leave out the last landing;
 * VERIFICATION's start comes after it, the notification and the turn that spawns qa (the same
 * in every mode).
 */
function implementationSeconds(events: JourneyResult["events"]): number {
  const at = (match: (e: JourneyResult["events"][number]) => boolean) =>
    Date.parse(String((events.find(match) as { at?: string } | undefined)?.at));
  return (
    (at((e) => e.type === "phase_started" && e.phase === "VERIFICATION") - at((e) => e.type === "task_started")) / 1000
  );
}

/** `executorCommits`: the executor committed its work itself, else dotagent did as the task landed. */
function expectLanded(project: string, events: JourneyResult["events"], executorCommits = false): void {
  for (const t of TASKS) expect(git(project, "show", `HEAD:${t.id}.txt`)).toBe(`done by ${t.id}`);
  const subjects = git(project, "log", "--format=%s").split("\n");
  for (const t of TASKS) {
    expect(subjects).toContain(executorCommits ? `${t.id}: ${t.title}` : `Task ${t.id}: ${t.title}`);
    expect(subjects).toContain(`Merge task ${t.id}: ${t.title}`);
  }
  expect(
    git(project, "worktree", "list", "--porcelain")
      .split("\n")
      .filter((l) => l.startsWith("worktree ")),
  ).toHaveLength(1);
  expect(git(project, "for-each-ref", "refs/heads/dotagent/")).toBe("");
  const fsck = spawnSync("git", ["fsck", "--full", "--no-dangling"], { cwd: project, encoding: "utf8" });
  expect(fsck.status, fsck.stderr).toBe(0);
  expect(events.filter((e) => e.type === "task_merged")).toHaveLength(3);
}

describe.skipIf(!ENABLED || !JOURNEY_MORE)("isolated executors in the real Claude Code (DOTAGENT_E2E_CLAUDE=1)", () => {
  let claude = "";
  beforeAll(() => {
    claude = fetchClaude();
  }, 600_000);

  // In `npm run journey`: the journey below does the same and more (each executor first strays into the main checkout).
  it.runIf(ALL)(
    "print mode: three executors each add and commit a file in their own worktree; all three land, 0 worktrees left",
    async () => {
      // No permission rule and no git identity: dotagent commits each executor's work as it lands.
      const result = await runJourney({
        root: ROOT,
        claude,
        policy: { tasks: TASKS, maxParallel: 3, executorWrites: "own" },
        executorMs: work,
      });
      expect(result.complete, result.runs.at(-1)?.run.stdout).toBe(true);
      expect(result.validateExit).toBe(0);
      const calls = toolCalls(result.log);
      expect(spawns(calls).executor).toBe(3);
      // Each executor wrote its file in its worktree (the lines the hook added), not the main checkout.
      const written = writes(calls, result.project);
      for (const t of TASKS) expect(written[`.dotagent/worktrees/${t.id}/${t.id}.txt`]).toBe(1);
      expectLanded(result.project, result.events);
      console.log(
        `worktree journey (print): IMPLEMENTATION ${implementationSeconds(result.events).toFixed(1)} s for 3 isolated ${EXECUTOR_MS} ms executors`,
      );
    },
    900_000,
  );

  it("print mode: executors that write into the main checkout are denied with their worktree, write there, and their tasks land", async () => {
    const result = await runJourney({
      root: ROOT,
      claude,
      policy: { tasks: TASKS, maxParallel: 3, executorWrites: "own", executorStrays: true },
      executorMs: work,
    });
    expect(result.complete, result.runs.at(-1)?.run.stdout).toBe(true);
    const calls = toolCalls(result.log);
    const results = toolResults(result.log);
    for (const t of TASKS) {
      const stray = calls.find((c) => c.name === "Write" && c.input.file_path === join(result.project, `${t.id}.txt`));
      expect(stray, t.id).toBeDefined();
      expect(results.get(stray!.id)).toMatchObject({
        is_error: true,
        text: expect.stringContaining(
          `your task works in its own worktree, ${join(result.project, ".dotagent/worktrees", t.id)}`,
        ),
      });
    }
    expect(writes(calls, result.project)).toMatchObject(
      Object.fromEntries(TASKS.map((t) => [`.dotagent/worktrees/${t.id}/${t.id}.txt`, 1])),
    );
    // Only the landing put the files into the main checkout: committed, nothing left untracked.
    expectLanded(result.project, result.events);
    expect(
      git(result.project, "status", "--porcelain", "--untracked-files=all", "--", ...TASKS.map((t) => `${t.id}.txt`)),
    ).toBe("");
  }, 900_000);

  it.runIf(ALL)(
    "print mode: two executors change the same line: one merges, the other conflicts, runs again with the Merge conflict line, merges by hand, lands",
    async () => {
      const two = independentTasks(2);
      const result = await runJourney({
        root: ROOT,
        claude,
        policy: { tasks: two, maxParallel: 3, executorWrites: "shared" },
        executorMs: (p) => (p.endsWith("task-002/shared.txt") ? 1500 : 0),
        afterInstall: (project) => {
          allowGitInWorktrees(project);
          writeFileSync(join(project, "shared.txt"), "one\ntwo\nthree\n");
          git(project, "add", "shared.txt");
          git(project, "commit", "-qm", "shared.txt");
        },
      });
      expect(result.complete, result.runs.at(-1)?.run.stdout).toBe(true);
      expect(result.validateExit).toBe(0);
      const conflicts = result.events.filter((e) => e.type === "task_conflict") as Array<{
        task_id: string;
        files?: string[];
      }>;
      expect(conflicts.map((c) => [c.task_id, c.files])).toEqual([["task-002", ["shared.txt"]]]);
      expect(spawns(toolCalls(result.log)).executor).toBe(3);
      const branch = git(result.project, "rev-parse", "--abbrev-ref", "HEAD");
      expect(git(result.project, "show", "HEAD:shared.txt")).toBe(
        `one\nchanged by task-002, merged with ${branch}\nthree`,
      );
      const subjects = git(result.project, "log", "--format=%s").split("\n");
      expect(subjects).toEqual(
        expect.arrayContaining([
          "Task task-001: Independent part 1",
          "Task task-002: Independent part 2",
          "Merge task task-001: Independent part 1",
          "Merge task task-002: Independent part 2",
        ]),
      );
      expect(
        git(result.project, "worktree", "list", "--porcelain")
          .split("\n")
          .filter((l) => l.startsWith("worktree ")),
      ).toHaveLength(1);
      console.log(`worktree journey (print, conflict): ${JSON.stringify(conflicts)}`);
    },
    900_000,
  );

  it.runIf(ALL)(
    `IMPLEMENTATION wall time of 3 executors of ${EXECUTOR_MS} ms: worktrees vs the shared checkout (print mode)`,
    async () => {
      const figures: Record<string, number[]> = {};
      for (let run = 0; run < RUNS; run++) {
        for (const mode of MEASURED) {
          const setUp = modeSetUp(mode);
          const result = await runJourney({
            root: ROOT,
            claude,
            git: mode !== "shared",
            policy: {
              tasks: TASKS,
              maxParallel: 3,
              executorWrites: "own",
              executorCommits: mode === "worktree, the executor commits",
            },
            executorMs: work,
            ...(setUp ? { afterInstall: setUp } : {}),
          });
          expect(result.complete, `${mode}: ${result.runs.at(-1)?.run.stdout}`).toBe(true);
          expectIsolation(mode, result.project, result.events);
          (figures[mode] ??= []).push(implementationSeconds(result.events));
        }
      }
      console.log(`worktree journey (print), IMPLEMENTATION seconds: ${JSON.stringify(figures)}`);
      recordWallTime(claude, "print", figures);
      if (figures.worktree && figures.shared)
        expect(median(figures.worktree)).toBeLessThan(median(figures.shared) * 1.5 + 2);
    },
    1_800_000,
  );

  it.runIf(ALL && tmuxAvailable())(
    `interactive terminal: 3 executors of ${EXECUTOR_MS} ms, worktrees vs the shared checkout`,
    async () => {
      // Each mode RUNS times, the modes taking turns (the machine's load drifts over minutes).
      const figures: Record<string, number[]> = {};
      for (let run = 0; run < RUNS; run++) {
        for (const mode of MEASURED) {
          const setUp = modeSetUp(mode);
          const result = await runTerminalJourney({
            root: ROOT,
            claude,
            git: mode !== "shared",
            policy: {
              tasks: TASKS,
              maxParallel: 3,
              executorWrites: "own",
              executorCommits: mode === "worktree, the executor commits",
            },
            executorMs: work,
            ...(setUp ? { afterInstall: setUp } : {}),
            timeoutMs: 300_000,
          });
          expect(result.complete, `${mode}: ${result.screen}`).toBe(true);
          expect(result.validateExit).toBe(0);
          expectIsolation(mode, result.project, result.events);
          (figures[mode] ??= []).push(implementationSeconds(result.events));
        }
      }
      console.log(`worktree journey (terminal), IMPLEMENTATION seconds: ${JSON.stringify(figures)}`);
      recordWallTime(claude, "terminal", figures);
      if (figures.worktree && figures.shared)
        expect(median(figures.worktree)).toBeLessThan(median(figures.shared) * 1.5 + 2);
    },
    1_800_000,
  );
});
