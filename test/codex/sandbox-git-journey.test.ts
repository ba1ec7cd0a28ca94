// Issue 42's Codex finding, in the REAL Codex CLI (0.169.0) against the scripted model: a git
// project whose dotagent install is not committed, the model's commands in Codex's default
// sandbox (workspace-write; the hooks run outside it). Before, Node's spawnSync reported EPERM for
// a git that ran (the sandbox refuses shutdown() of git's stdin pipe), the model's `resume` read
// it as "git is not installed" and planned run_tasks, and the spawn hook, seeing the uncommitted
// install, refused every executor: resume, refused spawn, resume … until codex was killed. Now
// both see the same checkout: the model asks the isolation question; the person's first yes cannot
// commit from the sandbox (.git is read-only there: `git_sandboxed`, asked again), they commit by
// hand and say yes, and the tasks run in worktrees. Since then the install's own files are no
// longer the person's changes (SPEC §19): with the install alone uncommitted nothing is asked and
// the tasks run in worktrees; the question comes for the person's own edit (README.md here).
// Opt-in: DOTAGENT_E2E_CODEX=1 (test/codex/NOTES.md).
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { runCodexJourney, spawnCounts, type CodexJourneyResult } from "./scripted-model/journey.js";
import { JOURNEY_MORE } from "../support/journey-tier.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const ENABLED = process.env.DOTAGENT_E2E_CODEX === "1";
// The install-alone journey runs in `npm run journey`: CI keeps the question's journey, and
// test/install-uncommitted.test.ts holds the install's own files apart through the CLI.
const ALL = process.env.DOTAGENT_JOURNEY_ALL === "1";

function fetchCodex(): string {
  const fetched = spawnSync(process.execPath, [join(ROOT, "scripts/fetch-codex.mjs")], {
    encoding: "utf8",
    timeout: 600_000,
  });
  if (fetched.status !== 0) throw new Error(`scripts/fetch-codex.mjs failed: ${fetched.stderr}`);
  return fetched.stdout.trim();
}

function diagnose(result: CodexJourneyResult): string {
  return JSON.stringify(
    {
      work: result.work,
      runs: result.runs.map((r) => ({
        prompt: r.prompt,
        status: r.status,
        signal: r.signal,
        ms: r.ms,
        said: r.stdout.slice(-400),
      })),
      events: result.events.map((e) => `${e.type} ${e.phase ?? e.task_id ?? ""}`),
    },
    null,
    1,
  );
}

describe.skipIf(!ENABLED || !JOURNEY_MORE)("Codex's default sandbox, a git project, the install not committed", () => {
  let codex = "";
  beforeAll(() => {
    codex = fetchCodex();
  }, 600_000);

  it.skipIf(!ALL)(
    "the install alone uncommitted: nothing asked, the model's resume and the spawn hook agree, the tasks run in worktrees",
    async () => {
      const started = Date.now();
      const result = await runCodexJourney({
        root: ROOT,
        codex,
        git: true,
        commitInstall: false,
        sandbox: "workspace-write",
        policy: { executorWrites: "own" },
      });
      const ms = Date.now() - started;
      expect(result.complete, diagnose(result)).toBe(true);
      expect(result.validateExit).toBe(0);
      expect(result.runs.map((r) => r.prompt)).toEqual(["$develop add login", "approve", "minimal"]);
      expect(result.events.filter((e) => e.type === "decision_asked")).toEqual([]);
      expect(result.events.filter((e) => e.type === "isolation_decided").map((e) => e.mode)).toEqual(["worktree"]);
      expect(spawnCounts(result.log).perTask).toEqual({ "task-001": 1, "task-002": 1, "task-003": 1 });
      for (const task of ["task-001", "task-002", "task-003"])
        expect(readFileSync(join(result.project, `${task}.txt`), "utf8")).toBe(`done by ${task}\n`);
      // The install is still the person's to commit: nothing of it went into a commit of dotagent's.
      const status = spawnSync("git", ["status", "--porcelain", ".agents", ".codex"], {
        cwd: result.project,
        encoding: "utf8",
      }).stdout;
      expect(status, diagnose(result)).toMatch(/^\?\? \.agents\/$/m);
      expect(
        spawnSync("grep", ["-rc", "blocked by PreToolUse hook", join(result.work, "codex-home/sessions")], {
          encoding: "utf8",
        }).stdout,
        diagnose(result),
      ).not.toMatch(/:[1-9]/);
      process.stdout.write(
        `codex sandbox git journey, install uncommitted: ${ms} ms (${result.runs.map((r) => r.ms).join(" + ")}), ${result.log.filter((e) => e.kind === "request").length} model requests\n`,
      );
      if (!process.env.KEEP) rmSync(result.work, { recursive: true, force: true });
    },
    600_000,
  );

  it("the model's resume and the spawn hook agree: the isolation question, the person's answers, then the tasks in worktrees, no loop", async () => {
    const started = Date.now();
    const asked: string[] = [];
    const result = await runCodexJourney({
      root: ROOT,
      codex,
      git: true,
      commitInstall: false,
      // The person's own edit, not committed: theirs to decide about (the install's files are not).
      prepare: (project) => writeFileSync(join(project, "README.md"), "# demo app, edited by the person\n"),
      sandbox: "workspace-write",
      policy: { executorWrites: "own" },
      beforeAnswer: (project, answer, said) => {
        if (!said.includes("uncommitted changes")) return;
        asked.push(said);
        // The second time, the person does what the question says: commits by hand (outside the sandbox), then yes.
        if (asked.length === 2) {
          for (const args of [
            ["add", "-A"],
            ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "dotagent install"],
          ]) {
            const run = spawnSync("git", args, { cwd: project, encoding: "utf8" });
            if (run.status !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr}`);
          }
        }
        return answer;
      },
    });
    const ms = Date.now() - started;
    expect(result.complete, diagnose(result)).toBe(true);
    expect(result.validateExit).toBe(0);
    // The question came from inside the sandbox, naming the person's edit alone and the read-only .git.
    expect(asked[0], diagnose(result)).toContain("The main checkout has uncommitted changes (README.md).");
    expect(asked[0]).toContain(
      "this shell cannot write the repository's .git, a sandbox, so commit them yourself first",
    );
    expect(result.runs.map((r) => r.prompt)).toEqual(["$develop add login", "approve", "minimal", "yes", "yes"]);
    // The first yes: the commit refused in the sandbox, with what to do; nothing recorded; asked again.
    const model = readFileSync(join(result.work, "model.jsonl"), "utf8");
    const session = spawnSync("grep", ["-rh", "git_sandboxed", join(result.work, "codex-home/sessions")], {
      encoding: "utf8",
    }).stdout;
    expect(session, diagnose(result)).toContain("cannot be committed from this shell");
    expect(session).toContain("commit them yourself (`git add -A && git commit`)");
    // The second: nothing left to commit, the round gets worktrees; each task once, its file merged.
    expect(result.events.filter((e) => e.type === "isolation_decided").map((e) => `${e.mode} ${e.chosen}`)).toEqual([
      "worktree commit",
    ]);
    expect(spawnCounts(result.log).perTask).toEqual({ "task-001": 1, "task-002": 1, "task-003": 1 });
    for (const task of ["task-001", "task-002", "task-003"])
      expect(readFileSync(join(result.project, `${task}.txt`), "utf8")).toBe(`done by ${task}\n`);
    // No loop: no spawn refused (the hook's next after the pick already named the question), and a handful of resumes, not the dozens of the loop.
    expect(
      spawnSync("grep", ["-rc", "blocked by PreToolUse hook", join(result.work, "codex-home/sessions")], {
        encoding: "utf8",
      }).stdout,
      diagnose(result),
    ).not.toMatch(/:[1-9]/);
    const resumes = (model.match(/dotagent\.[cm]js\\\\\\" resume --json\\"/g) ?? []).length;
    expect(resumes, diagnose(result)).toBeLessThan(30);
    process.stdout.write(
      `codex sandbox git journey: ${ms} ms (${result.runs.map((r) => r.ms).join(" + ")}), ${result.log.filter((e) => e.kind === "request").length} model requests, ${resumes} resumes\n`,
    );
    if (!process.env.KEEP) rmSync(result.work, { recursive: true, force: true });
  }, 600_000);
});
