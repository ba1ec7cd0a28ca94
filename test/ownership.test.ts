// Task ownership through the built CLI, with fake owners: a live `sleep` process, a dead pid, a
// reused pid, another host. A running task of a live owner is in flight (never reset, never
// started twice); a gone owner's task is recovered as before; batches of up to max_parallel run
// at once and a kill -9 of their session loses exactly the unfinished ones.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { dotagent, readJson, removeTemps, tempProject, writeJson } from "./support/cli.js";

const sleepers: ChildProcess[] = [];
afterEach(() => {
  for (const s of sleepers.splice(0)) s.kill("SIGKILL");
  removeTemps();
});

/** A live process to own tasks: a stand-in for a Claude Code session. */
function session(): { pid: number; env: Record<string, string>; kill: () => Promise<void> } {
  const child = spawn("sleep", ["120"], { stdio: "ignore" });
  sleepers.push(child);
  const pid = child.pid!;
  return {
    pid,
    env: { CLAUDE_PID: String(pid), CLAUDE_CODE_SESSION_ID: `session-${pid}` },
    kill: () =>
      new Promise((done) => {
        child.once("exit", () => done());
        child.kill("SIGKILL");
      }),
  };
}

/** A pid that was alive a moment ago and is now gone (reaped). */
function deadPid(): number {
  return spawnSync("true").pid;
}

const EXEC = "memory/state/execution.json";

/** A project in IMPLEMENTATION with independent tasks t1..tN, written as an agent's files would be. */
function implementation(n: number, extra: Record<string, unknown> = {}): string {
  const p = tempProject();
  const now = new Date().toISOString();
  writeJson(p, "memory/state/phase.json", {
    workflow_id: "wf-par",
    started_at: now,
    last_updated: now,
    current_phase: "IMPLEMENTATION",
    phase_status: "in_progress",
    completed_phases: [
      { phase: "REQUIREMENTS", completed_at: now, output: "memory/reports/demand.json" },
      { phase: "ARCHITECTURE", completed_at: now, output: "memory/reports/final_design.json" },
    ],
    user_checkpoints: [
      { phase: "REQUIREMENTS", approved_at: now },
      { phase: "ARCHITECTURE", approved_at: now },
    ],
    interruption_safe: true,
  });
  writeJson(p, "memory/reports/demand.json", { goal: "x" });
  writeJson(p, "memory/reports/final_design.json", { chosen: "a" });
  const tasks = Array.from({ length: n }, (_, i) => ({
    id: `t${i + 1}`,
    status: "pending",
    depends_on: [],
    attempts: 0,
    started_at: null,
    completed_at: null,
    output: `memory/reports/tasks/t${i + 1}.json`,
    error: null,
  }));
  writeJson(p, EXEC, {
    workflow_id: "wf-par",
    updated_at: now,
    interruption_safe: true,
    max_attempts: 3,
    tasks,
    ...extra,
  });
  return p;
}

function setOwner(p: string, id: string, owner: Record<string, unknown>): void {
  const exec = readJson(p, EXEC);
  const task = exec.tasks.find((t: { id: string }) => t.id === id);
  Object.assign(task, { status: "running", started_at: new Date().toISOString(), owner });
  writeJson(p, EXEC, exec);
}

const statusOf = (p: string) =>
  Object.fromEntries(readJson(p, EXEC).tasks.map((t: { id: string; status: string }) => [t.id, t.status]));
const finish = (p: string, id: string) =>
  writeJson(p, `memory/reports/tasks/${id}.json`, { task_id: id, status: "complete" });

function run(
  args: string[],
  p: string,
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(
      process.execPath,
      [new URL("../dist/dotagent.mjs", import.meta.url).pathname, ...args, "--dir", p],
      {
        env: { ...process.env, NO_COLOR: "1", DOTAGENT_LOCK_WAIT_MS: "20000", ...env },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("close", (code) => done({ code: code ?? -1, stdout, stderr }));
  });
}

describe("task start records its owner", () => {
  it("CLAUDE_PID and CLAUDE_CODE_SESSION_ID, the pid's start time, this host and the time", () => {
    const p = implementation(1);
    const s = session();
    const out = dotagent(p, ["task", "start", "t1", "--json"], { env: s.env });
    expect(out.code).toBe(0);
    const owner = readJson(p, EXEC).tasks[0].owner;
    expect(owner).toMatchObject({ session: `session-${s.pid}`, pid: s.pid, host: hostname() });
    expect(Date.parse(owner.at)).toBeGreaterThan(Date.now() - 60_000);
    if (process.platform === "linux") expect(owner.pid_start).toMatch(/^\d+$/);
    expect(out.json.task).not.toHaveProperty("owner"); // the slim result: the owner is on disk, not in the model's context
  });

  it("--owner PID outside Claude Code; without either, the nearest long-lived parent (here: this test process)", () => {
    const p = implementation(2);
    const s = session();
    expect(dotagent(p, ["task", "start", "t1", "--owner", String(s.pid)], { env: { CLAUDE_PID: "" } }).code).toBe(0);
    expect(readJson(p, EXEC).tasks[0].owner).toMatchObject({ pid: s.pid, session: null });
    expect(dotagent(p, ["task", "start", "t2"], { env: { CLAUDE_PID: "", CLAUDE_CODE_SESSION_ID: "" } }).code).toBe(0);
    expect(readJson(p, EXEC).tasks[1].owner.pid).toBe(process.pid);
  });

  it.runIf(process.platform === "linux")(
    "run through short-lived shells (as the Bash tool does), the owner is the process above them",
    () => {
      const p = implementation(1);
      const cli = new URL("../dist/dotagent.mjs", import.meta.url).pathname;
      const env = { ...process.env, CLAUDE_PID: "", CLAUDE_CODE_SESSION_ID: "" };
      const out = spawnSync("sh", ["-c", `bash -c '"${process.execPath}" "${cli}" task start t1 --dir "${p}"; true'`], {
        env,
        encoding: "utf8",
      });
      expect(out.status).toBe(0);
      expect(readJson(p, EXEC).tasks[0].owner.pid).toBe(process.pid);
    },
  );

  it.each([["abc"], ["1"], ["0"], ["2.5"]])("--owner %s is a usage error, nothing written", (value) => {
    const p = implementation(1);
    const out = dotagent(p, ["task", "start", "t1", "--owner", value]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("--owner takes the pid");
    expect(statusOf(p).t1).toBe("pending");
  });
});

describe("resume judges each running task's owner", () => {
  it("a live owner: in flight, not repaired, not listed again, counted by status and named by the hook", () => {
    const p = implementation(4);
    const s = session();
    dotagent(p, ["task", "start", "t1"], { env: s.env });
    const before = readJson(p, EXEC);
    const plan = dotagent(p, ["resume", "--json"]).json;
    expect(plan).toMatchObject({ in_flight: ["t1"], repairs: [], next: { action: "run_tasks", tasks: ["t2", "t3"] } });
    expect(readJson(p, EXEC).tasks).toEqual(before.tasks);
    const status = dotagent(p, ["status"]);
    expect(status.stdout).toContain("Tasks: 3 pending, 1 running");
    expect(status.stdout).toContain("In flight (a live session runs them; not repaired): t1");
    expect(dotagent(p, ["status", "--json"]).json.in_flight).toEqual(["t1"]);
    const hook = dotagent(p, ["hook", "session-start"], { input: JSON.stringify({ source: "resume", cwd: p }) });
    expect(hook.json.hookSpecificOutput.additionalContext).toContain(
      "In flight (a live session runs them; do not start them again): t1.",
    );
  });

  it("the owner's process is killed: the next resume orphans the task", async () => {
    const p = implementation(1);
    const s = session();
    dotagent(p, ["task", "start", "t1"], { env: s.env });
    await s.kill();
    const plan = dotagent(p, ["resume", "--json"]).json;
    expect(plan.in_flight).toEqual([]);
    expect(plan.repairs).toEqual([{ code: "task_reset", message: "t1 was running with no output: attempt 2 of 3" }]);
    expect(readJson(p, EXEC).tasks[0]).toMatchObject({ status: "pending", attempts: 1 });
  });

  it.each([
    ["a dead pid", "orphaned", () => ({ pid: deadPid(), pid_start: null, host: hostname() })],
    [
      "a reused pid (alive, but started at another time)",
      "orphaned",
      (live: number) => ({ pid: live, pid_start: "1", host: hostname() }),
    ],
    [
      "the same pid and start time",
      "in flight",
      (live: number) => ({ pid: live, pid_start: startTimeOf(live), host: hostname() }),
    ],
    [
      "another host, started a minute ago (within the 2-hour lease)",
      "in flight",
      () => ({ pid: 4242, host: "elsewhere.example", at: new Date(Date.now() - 60_000).toISOString() }),
    ],
    [
      "another host, started three hours ago (past the lease)",
      "orphaned",
      () => ({ pid: 4242, host: "elsewhere.example", at: new Date(Date.now() - 3 * 3600_000).toISOString() }),
    ],
    ["no owner (a file from an older version)", "orphaned", () => null],
  ] as const)("a hand-written owner: %s → %s", (_name, expected, make) => {
    const p = implementation(1);
    const s = session();
    const owner = make(s.pid);
    setOwner(p, "t1", owner === null ? {} : { session: "other", at: new Date().toISOString(), ...owner });
    if (owner === null) {
      const exec = readJson(p, EXEC);
      delete exec.tasks[0].owner;
      writeJson(p, EXEC, exec);
    }
    const plan = dotagent(p, ["resume", "--json"]).json;
    if (expected === "in flight") {
      expect(plan.in_flight).toEqual(["t1"]);
      expect(statusOf(p).t1).toBe("running");
    } else {
      expect(plan.in_flight).toEqual([]);
      expect(plan.repairs[0].code).toBe("task_reset");
      expect(statusOf(p).t1).toBe("pending");
    }
  });

  it("an owner that is not an object, or a pid of 0, is a schema error named with its path", () => {
    const p = implementation(1);
    setOwner(p, "t1", { pid: 0, host: "h", at: new Date().toISOString() });
    const out = dotagent(p, ["validate", "--json"]);
    expect(out.code).toBe(3);
    expect(JSON.stringify(out.json.errors)).toContain("tasks[0].owner.pid");
  });
});

function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

describe("two sessions on one project never run the same task", () => {
  it("a task running with a live owner is refused to another session, naming the owner; the other session gets other tasks", () => {
    const p = implementation(2);
    const a = session();
    const b = session();
    dotagent(p, ["task", "start", "t1"], { env: a.env });
    const refused = dotagent(p, ["task", "start", "t1"], { env: b.env });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toMatch(
      new RegExp(
        `^dotagent: task t1 is already running, owned by session session-${a.pid} \\(pid ${a.pid} on host .+, since .+\\); it is in flight, so it is not started twice$`,
      ),
    );
    expect(dotagent(p, ["resume", "--json"], { env: b.env }).json.next.tasks).toEqual(["t2"]);
  });
});

describe("parallel batches", () => {
  it("--max-parallel N is stored; later resumes keep it; 1 lists one task at a time; bad values are usage errors", () => {
    const p = implementation(5);
    expect(dotagent(p, ["resume", "--json"]).json.next.tasks).toEqual(["t1", "t2", "t3"]);
    expect(dotagent(p, ["resume", "--json", "--max-parallel", "1"]).json.next.tasks).toEqual(["t1"]);
    expect(readJson(p, EXEC).max_parallel).toBe(1);
    expect(dotagent(p, ["resume", "--json"]).json.next.tasks).toEqual(["t1"]);
    expect(dotagent(p, ["resume", "--json", "--max-parallel", "5"]).json.next.tasks).toEqual([
      "t1",
      "t2",
      "t3",
      "t4",
      "t5",
    ]);
    for (const bad of ["0", "33", "x", "1.5"]) {
      const out = dotagent(p, ["resume", "--max-parallel", bad]);
      expect(out.code).toBe(2);
      expect(out.stderr).toContain("--max-parallel takes a whole number from 1 to 32");
    }
  });

  it("a batch started, completed and failed at once: every call lands", async () => {
    const p = implementation(6);
    const s = session();
    const ids = ["t1", "t2", "t3", "t4", "t5", "t6"];
    const starts = await Promise.all(ids.map((id) => run(["task", "start", id], p, s.env)));
    expect(starts.map((r) => r.code)).toEqual([0, 0, 0, 0, 0, 0]);
    for (const id of ids.slice(0, 4)) finish(p, id);
    const ends = await Promise.all(
      ids.map((id, i) =>
        run(i < 4 ? ["task", "complete", id] : ["task", "fail", id, "--error", "tests fail"], p, s.env),
      ),
    );
    expect(ends.map((r) => r.code)).toEqual([0, 0, 0, 0, 0, 0]);
    // A failure with attempts left is requeued by the same command (its answer's next lists it again).
    expect(statusOf(p)).toEqual({
      t1: "complete",
      t2: "complete",
      t3: "complete",
      t4: "complete",
      t5: "pending",
      t6: "pending",
    });
  });

  it("kill -9 of the session mid-batch: a new session's resume orphans exactly the unfinished tasks and keeps the finished ones", async () => {
    const p = implementation(5);
    const old = session();
    const plan = dotagent(p, ["resume", "--json"], { env: old.env }).json;
    expect(plan.next.tasks).toEqual(["t1", "t2", "t3"]);
    for (const id of plan.next.tasks) expect(dotagent(p, ["task", "start", id], { env: old.env }).code).toBe(0);
    finish(p, "t2");
    expect(dotagent(p, ["task", "complete", "t2"], { env: old.env }).code).toBe(0);
    await old.kill();
    const fresh = session();
    const after = dotagent(p, ["resume", "--json"], { env: fresh.env }).json;
    expect(after.repairs.map((r: { message: string }) => r.message)).toEqual([
      "t1 was running with no output: attempt 2 of 3",
      "t3 was running with no output: attempt 2 of 3",
    ]);
    expect(after.in_flight).toEqual([]);
    expect(statusOf(p)).toEqual({ t1: "pending", t2: "complete", t3: "pending", t4: "pending", t5: "pending" });
    expect(after.next.tasks).toEqual(["t1", "t3", "t4"]);
  });
});
