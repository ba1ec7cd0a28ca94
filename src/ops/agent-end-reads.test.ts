// An executor's end reads execution.json once (issue 41): the hook's read under the lock stands
// for the landing's and for settle's (the step after), which take what was read and written
// instead of reading it again. The reads are counted at the store's reader.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { buildFixture, writeLastWrite } from "../../scripts/bench-fixtures.mjs";
import { projectPaths } from "../store/project.js";
import type { AgentJob } from "../core/agent-job.js";
import { endAgentJob } from "./agent-run.js";
import { changeTask } from "./task-change.js";
import type { OpContext } from "./op-context.js";

const reads = vi.hoisted(() => ({ execution: 0 }));
vi.mock("../store/state-files.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../store/state-files.js")>();
  return {
    ...real,
    readExecutionFile: (...args: Parameters<typeof real.readExecutionFile>) => {
      reads.execution++;
      return real.readExecutionFile(...args);
    },
  };
});

const IDENT = ["-c", "user.name=tester", "-c", "user.email=tester@example.com"];
function git(cwd: string, ...args: string[]): string {
  const run = spawnSync("git", [...IDENT, ...args], { cwd, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr}`);
  return run.stdout.trim();
}

let work = "";
let warnings: string[] = [];
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "dotagent-endreads-"));
  warnings = [];
  reads.execution = 0;
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const contextAt = (root: string): OpContext => ({
  paths: projectPaths(root),
  now: () => new Date(),
  warn: (m) => warnings.push(m),
  note: () => {},
});
const executor = (task: string): AgentJob => ({
  agent: "executor",
  phase: "IMPLEMENTATION",
  task,
  output: `memory/reports/tasks/${task}.json`,
});
const writeJson = (root: string, path: string, value: unknown) => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), `${JSON.stringify(value, null, 2)}\n`);
};
const taskIn = (root: string, id: string) =>
  (
    JSON.parse(readFileSync(join(root, "memory/state/execution.json"), "utf8")) as {
      tasks: { id: string; status: string; worktree?: { merge?: { state: string } | null } | null }[];
    }
  ).tasks.find((t) => t.id === id);

/** Reads of execution.json while `fn` runs. */
async function counted<T>(fn: () => Promise<T>): Promise<{ value: T; reads: number }> {
  reads.execution = 0;
  const value = await fn();
  return { value, reads: reads.execution };
}

describe("an executor's end reads execution.json once (a task's landing and the step after take that read)", () => {
  it("its report says complete (a shared round): completed, the next step planned, one read", async () => {
    const root = join(work, "p");
    const fixture = buildFixture(root, 20);
    const op = contextAt(root);
    const end = await counted(() => endAgentJob(op, executor(fixture.runningWithOutput), { final: true, ended: true }));
    expect(end.value).toMatchObject({ kind: "recorded", what: `executor for ${fixture.runningWithOutput}: complete` });
    expect(end.reads).toBe(1);
    expect(taskIn(root, fixture.runningWithOutput)?.status).toBe("complete");
    expect(warnings).toEqual([]);
  });

  it("its report says failed, or it stopped without one: failed, one read", async () => {
    const root = join(work, "p");
    const fixture = buildFixture(root, 20);
    const [, second, third] = Array.from(
      { length: 3 },
      (_, i) => `task-${String(fixture.mix.complete + i + 1).padStart(5, "0")}`,
    );
    writeJson(root, executor(second!).output, { task_id: second, status: "failed", error: "the tests do not pass" });
    const op = contextAt(root);
    const failed = await counted(() => endAgentJob(op, executor(second!), { final: true, ended: true }));
    expect(failed.value).toMatchObject({ kind: "recorded", what: `executor for ${second}: failed` });
    expect(failed.reads).toBe(1);
    const none = await counted(() => endAgentJob(op, executor(third!), { final: true, ended: true }));
    expect(none.value).toMatchObject({ kind: "recorded" });
    expect(none.reads).toBe(1);
    expect([taskIn(root, second!)?.status, taskIn(root, third!)?.status]).not.toContain("running");
  });

  it("already recorded, and a phase agent's end: one read", async () => {
    const root = join(work, "p");
    const fixture = buildFixture(root, 20);
    const op = contextAt(root);
    const again = await counted(() => endAgentJob(op, executor("task-00001"), { final: true, ended: true }));
    expect(again.value).toMatchObject({
      kind: "recorded",
      what: "executor for task-00001: already recorded (complete)",
    });
    expect(again.reads).toBe(1);
    const pm = await counted(() =>
      endAgentJob(
        op,
        { agent: "pm", phase: "REQUIREMENTS", output: "memory/reports/demand.json" },
        { final: true, ended: true },
      ),
    );
    expect(pm.value).toMatchObject({ kind: "recorded" });
    expect(pm.reads).toBe(1);
    // Recorded as at work: its record goes (phase.json written), execution.json as read.
    const phaseFile = join(root, "memory/state/phase.json");
    const phase = JSON.parse(readFileSync(phaseFile, "utf8")) as Record<string, unknown>;
    const owner = { session: null, pid: process.pid, host: hostname(), at: new Date().toISOString() };
    phase.agents = [{ agent: "pm", output: "memory/reports/demand.json", owner }];
    writeFileSync(phaseFile, `${JSON.stringify(phase, null, 2)}\n`);
    writeLastWrite(join(root, "memory/state"));
    const ended = await counted(() =>
      endAgentJob(
        op,
        { agent: "pm", phase: "REQUIREMENTS", output: "memory/reports/demand.json" },
        { final: true, ended: true },
      ),
    );
    expect(ended.value).toMatchObject({ kind: "recorded" });
    expect(ended.reads).toBe(1);
    expect((JSON.parse(readFileSync(phaseFile, "utf8")) as Record<string, unknown>).agents).toEqual([]);
    expect(fixture.runningWithOutput).toBeDefined();
  });

  it("in a git repository, tasks in worktrees: an executor's end and `task complete` merge, each with one read under the lock", async () => {
    const root = join(work, "p");
    mkdirSync(root);
    writeFileSync(join(root, "README.md"), "# app\n");
    git(root, "init", "-q", "-b", "main");
    git(root, "add", "-A");
    git(root, "commit", "-qm", "initial");
    const fixture = buildFixture(root, 20);
    // The round's isolation not decided yet: the first start decides it (worktrees: a clean checkout).
    const file = join(root, "memory/state/execution.json");
    const { isolation: _, ...undecided } = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    writeFileSync(file, `${JSON.stringify(undecided, null, 2)}\n`);
    writeLastWrite(join(root, "memory/state"));
    const op = contextAt(root);
    const ready = (
      JSON.parse(readFileSync(file, "utf8")) as { tasks: { id: string; status: string; depends_on: string[] }[] }
    ).tasks;
    const done = new Set(ready.filter((t) => t.status === "complete").map((t) => t.id));
    const [a, b] = ready
      .filter((t) => t.status === "pending" && t.depends_on.every((d) => done.has(d)))
      .map((t) => t.id);
    const dirs = new Map<string, string>();
    for (const id of [a!, b!]) {
      const started = await changeTask(op, { action: "start", id });
      const dir = started.result.ok && "task" in started.result ? started.result.task?.worktree?.dir : undefined;
      expect(dir, id).toBeDefined();
      writeFileSync(join(dir!, `${id}.txt`), `${id}\n`);
      dirs.set(id, dir!);
      writeJson(root, executor(id).output, {
        task_id: id,
        status: "complete",
        summary: id,
        files_changed: [`${id}.txt`],
      });
    }
    // One read before the lock (its worktree's leftovers committed there) and one under it.
    const end = await counted(() => endAgentJob(op, executor(a!), { final: true, ended: true }));
    expect(end.value).toMatchObject({ kind: "recorded", what: expect.stringContaining(`complete, merged into main`) });
    expect(end.reads).toBe(2);
    // b's landing cut off earlier, its intent void (main moved on without its merge commit): it is
    // cleared and b lands from execution.json as just written, not read back.
    const state = JSON.parse(readFileSync(file, "utf8")) as {
      tasks: { id: string; worktree: Record<string, unknown> }[];
    };
    const record = state.tasks.find((t) => t.id === b)!.worktree;
    git(dirs.get(b!)!, "add", "-A");
    git(dirs.get(b!)!, "commit", "-qm", `task ${b}`);
    const head = git(root, "rev-parse", `refs/heads/${record.branch as string}`);
    record.merge = { state: "merging", into: "main", onto: head, head, commit: head, at: new Date().toISOString() };
    writeFileSync(file, `${JSON.stringify(state, null, 2)}\n`);
    writeLastWrite(join(root, "memory/state"));
    const complete = await counted(() => changeTask(op, { action: "complete", id: b! }));
    expect(complete.value.landed).toMatch(/^complete, merged into main/);
    expect(complete.reads).toBe(2);
    expect([taskIn(root, a!)?.worktree?.merge?.state, taskIn(root, b!)?.worktree?.merge?.state]).toEqual([
      "merged",
      "merged",
    ]);
    expect(readFileSync(join(root, `${b}.txt`), "utf8")).toBe(`${b}\n`);
    expect(warnings).toEqual([]);
  });
});
