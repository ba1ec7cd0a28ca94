// I/O failures inside the store: ENOSPC, EIO, EACCES from write, fsync, rename and friends.
// In-process (the store and command modules imported directly, node:fs hooked through
// fs-hooks.mjs): a failed state write leaves the old file byte-identical and throws a DotagentError
// whose one-line message names the file; a failure at ANY disk-changing call of a command leaves a
// state that validates and that the next `resume` repairs. At the CLI: a read-only memory/state
// (chmod, or chattr +i when running as root) and injected ENOSPC/EIO give exit 1 and one line on
// stderr, no stack trace, the state files untouched.
import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { DotagentError } from "../../src/core/errors.js";
import { projectPaths, type ProjectPaths } from "../../src/store/project.js";
import { stampOf } from "../../src/store/state-files.js";
import { writeStateFile } from "../../src/store/state-writer.js";
import { appendEvents } from "../../src/store/events.js";
import { acquireLock } from "../../src/store/lock.js";
import { errnoError, installFsHooks, type FsOp } from "./fs-hooks.mjs";
import {
  describeRun,
  envInt,
  makeProject,
  makeTempDir,
  readBytes,
  readState,
  recordFigures,
  removeTempDirs,
  runCli,
  stackLines,
  stateLeftovers,
  runInProcess,
  validationErrors,
  type InProcessOptions,
} from "./helpers.js";

const CODES = ["ENOSPC", "EIO", "EACCES"] as const;
const FIXED_NOW = new Date("2026-11-20T12:00:00.000Z");
/** For the per-call runs: the n-th call fails, for n up to this many calls per command. */
const MAX_CALLS = envInt("TORTURE_FAULT_CALLS", 60);
/**
 * Every how many calls one fails: every other one in `npm test` (CI's time is bounded; the first
 * and the last call are always among them), every one in `npm run torture`.
 */
const CALL_STRIDE = Math.max(1, envInt("TORTURE_FAULT_STRIDE", 2));

/** 1, 1 + stride, … up to `last`, and `last` itself. */
function callsToFail(last: number): number[] {
  const ns: number[] = [];
  for (let n = 1; n <= last; n += CALL_STRIDE) ns.push(n);
  if (ns.at(-1) !== last && last >= 1) ns.push(last);
  return ns;
}

let uninstall: (() => void) | undefined;
afterEach(() => {
  uninstall?.();
  uninstall = undefined;
});
afterAll(removeTempDirs);

/** Fails the calls `when` picks with `code`; every other call goes through. */
async function failWhen(code: string, when: (op: FsOp) => boolean): Promise<FsOp[]> {
  const failed: FsOp[] = [];
  uninstall = await installFsHooks((op) => {
    if (when(op)) {
      failed.push(op);
      throw errnoError(code, op.name.replace(/^(promises|handle)\./, ""), op.detail.split(" ")[1]);
    }
  });
  return failed;
}

function stopFaults(): void {
  uninstall?.();
  uninstall = undefined;
}

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

function expectOneLineDotagentError(error: unknown, file: string, code: string): void {
  expect(error, String(error)).toBeInstanceOf(DotagentError);
  const e = error as DotagentError;
  expect(e.exitCode).toBe(1);
  expect(e.message.includes("\n"), e.message).toBe(false);
  expect(e.message).toContain(file);
  expect(e.message).toContain(code);
}

function projectWithState(label: string): ProjectPaths {
  const dir = makeTempDir(label);
  const paths = projectPaths(dir);
  mkdirSync(paths.stateDir, { recursive: true });
  mkdirSync(paths.reportsDir, { recursive: true });
  writeFileSync(
    paths.phaseFile,
    `${JSON.stringify({ workflow_id: "wf-f", started_at: "2026-11-20T09:00:00Z", last_updated: "2026-11-20T09:00:00Z", current_phase: "REQUIREMENTS", phase_status: "pending", completed_phases: [], user_checkpoints: [], interruption_safe: true, revision: 3 }, null, 2)}\n`,
  );
  writeFileSync(
    paths.executionFile,
    `${JSON.stringify({ workflow_id: "wf-f", updated_at: "2026-11-20T09:00:00Z", interruption_safe: true, max_attempts: 3, tasks: [] }, null, 2)}\n`,
  );
  writeFileSync(
    paths.eventsFile,
    `${JSON.stringify({ seq: 1, at: "2026-11-20T09:00:00Z", type: "workflow_started" })}\n`,
  );
  return paths;
}

describe("a failed state write keeps the old file and says so in one line", () => {
  const calls = ["openSync", "writeSync", "fsyncSync", "renameSync"] as const;
  const files = [
    ["phase.json", (p: ProjectPaths) => p.phaseFile],
    ["execution.json", (p: ProjectPaths) => p.executionFile],
  ] as const;
  const cases = calls.flatMap((call) =>
    CODES.flatMap((code) => files.map(([name, pick]) => ({ call, code, name, pick }))),
  );
  it.each(cases)("$call fails with $code on $name", async ({ call, code, name, pick }) => {
    const paths = projectWithState("write");
    const file = pick(paths);
    const before = readFileSync(file);
    const failed = await failWhen(code, (op) => op.name === call && op.detail.includes(`/${name}`));
    const error = caught(() => writeStateFile(paths.root, file, { replaced: true }, stampOf(file)));
    stopFaults();
    expect(failed.length, "the fault was hit").toBeGreaterThan(0);
    expectOneLineDotagentError(error, `memory/state/${name}`, code);
    expect(readFileSync(file).equals(before), "the old file is byte-identical").toBe(true);
    expect(stateLeftovers(paths.root), "no temp file left behind").toEqual([]);
  });
});

describe("the other writes in memory/state fail the same way", () => {
  it.each(CODES)(
    "appending to events.jsonl fails with %s: a one-line DotagentError naming events.jsonl, the log unchanged",
    async (code) => {
      const paths = projectWithState("events");
      const before = readFileSync(paths.eventsFile);
      await failWhen(code, (op) => op.name === "writeSync" && op.detail.includes("events.jsonl"));
      const error = caught(() =>
        appendEvents(paths.root, paths.eventsFile, [{ type: "task_added", task_id: "x" }], FIXED_NOW),
      );
      stopFaults();
      expect(readFileSync(paths.eventsFile).equals(before)).toBe(true);
      expectOneLineDotagentError(error, "events.jsonl", code);
    },
  );

  it.each(CODES)(
    "creating the lock fails with %s: a one-line DotagentError naming the lock, nothing left behind",
    async (code) => {
      const paths = projectWithState("lock");
      await failWhen(
        code,
        (op) => (op.name === "writeFileSync" || op.name === "linkSync") && op.detail.includes(".lock"),
      );
      const error = caught(() => acquireLock(paths.stateDir, { command: "test", waitMs: 0 }));
      stopFaults();
      expectOneLineDotagentError(error, ".lock", code);
      expect(stateLeftovers(paths.root)).toEqual([]);
    },
  );
});

// ---------------------------------------------------------------------------------------------
// Every disk-changing call of a command, failed one at a time

/** Runs a command module in this process with a fixed clock. */
function runCommand(name: string, args: string[], options: InProcessOptions, dir: string): Promise<number> {
  return runInProcess(dir, name, args, options, () => FIXED_NOW);
}

interface Scenario {
  readonly name: string;
  /** Builds the state the command runs on (in-process commands, no faults). */
  setup(dir: string): Promise<void>;
  readonly command: [string, string[], Record<string, string | boolean | undefined>];
}

function report(dir: string, rel: string, value: unknown): void {
  mkdirSync(join(dir, "memory/reports", rel, ".."), { recursive: true });
  writeFileSync(join(dir, "memory/reports", rel), JSON.stringify(value));
}

async function through(
  dir: string,
  ...steps: Array<[string, string[], Record<string, string | boolean | undefined>?]>
): Promise<void> {
  for (const [name, args, options] of steps) {
    const code = await runCommand(name, args, options ?? {}, dir);
    if (code !== 0) throw new Error(`setup ${name} ${args.join(" ")} exited ${code}`);
  }
}

async function toImplementation(dir: string): Promise<void> {
  await through(dir, ["init", [], { request: "faults", "workflow-id": "wf-faults" }]);
  report(dir, "demand.json", { a: 1 });
  report(dir, "designs/a.json", { a: 1 });
  report(dir, "roundtable.json", { a: 1 });
  report(dir, "final_design.json", { a: 1, tasks: [{ id: "t1" }, { id: "t2", depends_on: ["t1"] }] });
  await through(
    dir,
    ["phase", ["approve", "REQUIREMENTS"]],
    ["phase", ["complete", "REQUIREMENTS"]],
    ["phase", ["approve", "ARCHITECTURE"]],
    ["phase", ["complete", "ARCHITECTURE"]],
  );
  await through(dir, ["task", ["import", "memory/reports/final_design.json"]]);
}

const SCENARIOS: Scenario[] = [
  { name: "init", setup: async () => {}, command: ["init", [], { request: "fresh", "workflow-id": "wf-fresh" }] },
  { name: "task add", setup: toImplementation, command: ["task", ["add", "t3"], { "depends-on": "t1,t2" }] },
  {
    name: "task start over an earlier attempt's output (journaled move)",
    setup: async (dir) => {
      await toImplementation(dir);
      await through(dir, ["task", ["start", "t1"]]);
      report(dir, "tasks/t1.json", { task_id: "t1", status: "failed" });
      await through(dir, ["task", ["fail", "t1"], { error: "red" }], ["resume", []]);
    },
    command: ["task", ["start", "t1"], {}],
  },
  {
    name: "task complete",
    setup: async (dir) => {
      await toImplementation(dir);
      await through(dir, ["task", ["start", "t1"]]);
      report(dir, "tasks/t1.json", { task_id: "t1", status: "complete" });
    },
    command: ["task", ["complete", "t1"], {}],
  },
  {
    name: "phase rework (journaled move of verification.json)",
    setup: async (dir) => {
      await toImplementation(dir);
      for (const id of ["t1", "t2"]) {
        await through(dir, ["task", ["start", id]]);
        report(dir, `tasks/${id}.json`, { task_id: id, status: "complete" });
        await through(dir, ["task", ["complete", id]]);
      }
      await through(dir, ["phase", ["complete", "IMPLEMENTATION"]]);
      report(dir, "verification.json", { passed: false });
    },
    command: ["phase", ["rework"], {}],
  },
  {
    name: "resume repairing an orphaned task and advancing a phase",
    setup: async (dir) => {
      await toImplementation(dir);
      await through(dir, ["task", ["start", "t1"]]);
    },
    command: ["resume", [], {}],
  },
  {
    name: "archive",
    setup: toImplementation,
    command: ["archive", [], { reason: "faults" }],
  },
];

describe("a failure at any one disk-changing call of a command", () => {
  it.each(SCENARIOS)(
    "$name: every failure is a one-line DotagentError, and the state stays valid and recoverable",
    async (scenario) => {
      const template = makeTempDir("fault-template");
      await scenario.setup(template);
      // A first run loads every module the command needs (tar, for one) before fs is hooked: a
      // module that keeps a reference to an fs function at load time must keep the real one.
      const warmup = makeTempDir("fault-warmup");
      cpSync(template, warmup, { recursive: true });
      expect(await runCommand(scenario.command[0], scenario.command[1], scenario.command[2], warmup)).toBe(0);
      // Count the calls of an unfailed run.
      const probe = makeTempDir("fault-probe");
      cpSync(template, probe, { recursive: true });
      let total = 0;
      uninstall = await installFsHooks(() => void (total += 1));
      const [name, args, options] = scenario.command;
      expect(await runCommand(name, args, options, probe)).toBe(0);
      stopFaults();
      expect(total).toBeGreaterThan(0);

      const problems: string[] = [];
      const figures = { calls: 0, raw_errors: 0, swallowed: 0, invalid_after: 0, unrecoverable: 0 };
      for (const n of callsToFail(Math.min(total, MAX_CALLS))) {
        figures.calls += 1;
        const dir = makeTempDir("fault-run");
        cpSync(template, dir, { recursive: true });
        let hit: FsOp | undefined;
        uninstall = await installFsHooks((op) => {
          if (op.n === n) {
            hit = op;
            throw errnoError("ENOSPC", op.name.replace(/^(promises|handle)\./, ""), op.detail.split(" ")[1]);
          }
        });
        let error: unknown;
        try {
          await runCommand(name, args, options, dir);
        } catch (e) {
          error = e;
        }
        stopFaults();
        const where = `call ${n} of ${total} (${hit?.detail.replace(dir, "") ?? "not reached"})`;
        if (error === undefined) figures.swallowed += 1;
        else if (!(error instanceof DotagentError)) {
          figures.raw_errors += 1;
          problems.push(
            `${where}: not a DotagentError (the CLI would say "unexpected error … please report it"): ${String((error as Error).message ?? error).split("\n")[0]}`,
          );
        } else if (error.message.includes("\n") || !/ENOSPC/.test(error.message)) {
          problems.push(`${where}: message is not one line naming the failure: ${error.message}`);
        }
        // The CLI process would exit here: a lock, or a lock file in the making, that it could not
        // remove is then a dead process's, which the next command takes over or sweeps. This
        // process lives on, so remove them as its exit would make them removable.
        const stateDir = join(dir, "memory/state");
        const lock = readBytes(join(stateDir, ".lock"));
        if (lock !== undefined && JSON.parse(lock.toString("utf8")).pid === process.pid)
          rmSync(join(stateDir, ".lock"));
        for (const name of existsSync(stateDir) ? readdirSync(stateDir) : [])
          if (name.startsWith(`.lock.${process.pid}.`)) rmSync(join(stateDir, name));
        const parse = readState(dir).problems;
        const errors = validationErrors(dir);
        if (parse.length + errors.length > 0) {
          figures.invalid_after += 1;
          problems.push(
            `${where}: state not valid afterwards: ${[...parse, ...errors.map((e) => `${e.file}: ${e.path}: ${e.message}`)].join("; ")}`,
          );
        }
        try {
          // What the error message tells a person to do: run resume (it also finishes a cut-off clear).
          const code =
            existsSync(join(dir, "memory/state/phase.json")) || existsSync(join(dir, "memory/state/.clearing"))
              ? await runCommand("resume", [], {}, dir)
              : 0;
          if (code !== 0) throw new Error(`resume exited ${code}`);
          const left = stateLeftovers(dir);
          if (left.length > 0) throw new Error(`left in memory/state: ${left.join(", ")}`);
          const after = validationErrors(dir);
          if (after.length > 0) throw new Error(after.map((e) => `${e.file}: ${e.path}: ${e.message}`).join("; "));
        } catch (e) {
          figures.unrecoverable += 1;
          problems.push(`${where}: the next resume did not recover: ${(e as Error).message.split("\n")[0]}`);
        }
      }
      recordFigures(`fault-calls ${scenario.name}`, figures);
      expect(problems).toEqual([]);
    },
    600_000,
  );
});

// ---------------------------------------------------------------------------------------------
// At the CLI

/** A workflow in IMPLEMENTATION with a recorded one-task plan, so `task start t1` is allowed. */
async function cliProject(label: string): Promise<string> {
  const dir = await makeProject(label, [["init", [], { request: "ro", "workflow-id": "wf-ro" }]]);
  report(dir, "plan.json", { tasks: [{ id: "t1" }] });
  await runInProcess(dir, "task", ["import", "memory/reports/plan.json"]);
  return dir;
}

function snapshotFiles(dir: string): Record<string, string | undefined> {
  return Object.fromEntries(
    ["phase.json", "execution.json", "events.jsonl"].map((n) => [
      n,
      readBytes(join(dir, "memory/state", n))?.toString("base64"),
    ]),
  );
}

const isRoot = process.getuid?.() === 0;
function hasChattr(): boolean {
  try {
    execFileSync("chattr", ["--version"], { stdio: "ignore" });
    return true;
  } catch (error) {
    return (error as { status?: number }).status !== undefined; // it ran (and printed usage)
  }
}
/**
 * Makes a path read-only for this process: chmod when not root; as root chmod is ignored, so the
 * immutable attribute (chattr +i, honoured even for root on ext4/xfs/btrfs) instead. Returns the undo.
 */
function makeReadOnly(path: string, isDirectory: boolean): (() => void) | undefined {
  if (!isRoot) {
    chmodSync(path, isDirectory ? 0o555 : 0o444);
    return () => chmodSync(path, isDirectory ? 0o755 : 0o644);
  }
  if (!hasChattr()) return undefined;
  try {
    execFileSync("chattr", ["+i", path], { stdio: "ignore" });
  } catch {
    return undefined; // a file system without the attribute (tmpfs)
  }
  return () => execFileSync("chattr", ["-i", path], { stdio: "ignore" });
}

describe("at the CLI: a write that fails gives exit 1 and one line on stderr", () => {
  const cases = [
    { what: "memory/state read-only", target: "memory/state", dir: true },
    { what: "execution.json read-only", target: "memory/state/execution.json", dir: false },
  ];
  it.each(cases)(
    "$what: task add exits 1, one line, no stack trace, the state untouched",
    async ({ target, dir: isDir }) => {
      const dir = await cliProject("readonly");
      const before = snapshotFiles(dir);
      const undo = makeReadOnly(join(dir, target), isDir);
      if (undo === undefined) {
        console.warn(
          `skipped: running as root and ${target} cannot be made immutable here (no chattr +i); chmod does not bind root`,
        );
        return;
      }
      let run;
      try {
        run = await runCli(dir, ["task", "add", "t2"], { plain: true, env: { DOTAGENT_LOCK_WAIT_MS: "0" } });
      } finally {
        undo();
      }
      expect(run.code, describeRun(run)).toBe(1);
      expect(stackLines(run.stderr)).toEqual([]);
      expect(run.stderr.trim().split("\n"), `stderr: ${run.stderr}`).toHaveLength(1);
      expect(run.stderr).not.toMatch(/unexpected error|please report/);
      expect(snapshotFiles(dir)).toEqual(before);
      expect((await runCli(dir, ["validate", "--json"], { plain: true })).code).toBe(0);
    },
  );

  const injected = [
    { fault: "renameSync:ENOSPC:execution.json", file: "execution.json", code: "ENOSPC" },
    { fault: "fsyncSync:EIO:execution.json.", file: "execution.json", code: "EIO" },
    { fault: "writeSync:ENOSPC:execution.json.", file: "execution.json", code: "ENOSPC" },
  ];
  it.each(injected)(
    "injected $fault: exit 1, one line naming $file, the state untouched",
    async ({ fault, file, code }) => {
      const dir = await cliProject("injected");
      const before = snapshotFiles(dir);
      const run = await runCli(dir, ["task", "add", "t2"], { fault });
      expect(run.code, describeRun(run)).toBe(1);
      const lines = run.stderr.trim().split("\n");
      expect(lines, run.stderr).toHaveLength(1);
      expect(lines[0]).toContain(`memory/state/${file}`);
      expect(lines[0]).toContain(code);
      expect(stackLines(run.stderr)).toEqual([]);
      expect(snapshotFiles(dir)).toEqual(before);
      expect(stateLeftovers(dir)).toEqual([]);
      const resume = await runCli(dir, ["resume", "--json"], { plain: true });
      expect(resume.code, describeRun(resume)).toBe(0);
    },
  );

  it("--json: the error is one JSON object on stdout with code write_failed and exit_code 1", async () => {
    const dir = await cliProject("injected-json");
    const run = await runCli(dir, ["task", "add", "t2", "--json"], { fault: "renameSync:EIO:execution.json" });
    expect(run.code).toBe(1);
    const json = JSON.parse(run.stdout) as { error?: { code?: string; exit_code?: number; message?: string } };
    expect(json.error).toMatchObject({ code: "write_failed", exit_code: 1 });
    expect(json.error?.message).toContain("memory/state/execution.json");
  });
});

describe("at the CLI: the event log cannot be appended after the change was saved", () => {
  // Decided: the change landed, so the command succeeds (exit 0) and warns, naming the log; a
  // failure would make a caller retry, and a second `task start` would be refused.
  const faults = [
    { fault: "writeSync:ENOSPC:events.jsonl", code: "ENOSPC" },
    { fault: "openSync:EACCES:events.jsonl", code: "EACCES" },
    { fault: "fsyncSync:EIO:events.jsonl", code: "EIO" },
  ];
  it.each(faults)(
    "$fault: task start exits 0, the task is running, one warning names memory/state/events.jsonl",
    async ({ fault, code }) => {
      const dir = await cliProject("events-fault");
      const run = await runCli(dir, ["task", "start", "t1", "--json"], { fault });
      expect(run.code, describeRun(run)).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, task: { id: "t1", status: "running" } });
      // The round's first start also says, once, that its tasks share the checkout (no git here: SPEC §19).
      const lines = run.stderr
        .trim()
        .split("\n")
        .filter((l) => !/share one checkout/.test(l));
      expect(lines, run.stderr).toHaveLength(1);
      expect(lines[0]).toBe(
        `dotagent: warning: the change is saved, but memory/state/events.jsonl could not be appended (${code}): the event log may miss isolation_decided, task_started`,
      );
      expect(JSON.parse(readFileSync(join(dir, "memory/state/execution.json"), "utf8")).tasks[0].status).toBe(
        "running",
      );
      // The state is valid and the next command (and its log line) works.
      expect((await runCli(dir, ["validate", "--json"], { plain: true })).code).toBe(0);
      const again = await runCli(dir, ["task", "start", "t1"], { plain: true });
      expect(again.code).toBe(1);
      expect(again.stderr).toContain("running");
      expect(stateLeftovers(dir)).toEqual([]);
    },
  );

  it("phase approve with a full disk for the log: exit 0 and the approval is recorded", async () => {
    const dir = await cliProject("events-fault-phase");
    report(dir, "demand.json", { stories: ["sign in"] }); // REQUIREMENTS is approved on a demand
    const run = await runCli(dir, ["phase", "approve", "REQUIREMENTS"], { fault: "writeSync:ENOSPC:events.jsonl" });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.stderr).toContain(
      "memory/state/events.jsonl could not be appended (ENOSPC): the event log may miss phase_approved",
    );
    expect(JSON.parse(readFileSync(join(dir, "memory/state/phase.json"), "utf8")).user_checkpoints).toHaveLength(1);
  });
});
