// `status`, `init` and `resume` for a person (SPEC §10 "Next steps for people", "status for
// people"): the phase bar, the request and a short plan's task table in plain output; on a
// terminal the Next line says what the person types. Programs and the model keep the model's
// line and the same JSON: piped output, --json, and Claude Code's Bash tool (CLAUDECODE=1 with
// no terminal on stdin) are checked beside the terminal.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLI, dotagent, exampleProject, readJson, removeTemps, tempProject, writeJson } from "./support/cli.js";
import { copyOfTemplate } from "./support/template.js";
import {
  deadPid,
  executorWork,
  ok,
  projectAtImplementation,
  startTask,
  stopOwner,
} from "./support/worktree-project.js";

afterEach(async () => {
  await stopOwner();
  removeTemps();
});

const hasScript = spawnSync("script", ["--version"]).status === 0;

/** The built CLI on a pseudo-terminal (util-linux `script`); `stdinFromNull` leaves stdin off the terminal, as Claude Code's Bash tool does. */
function onRealTerminal(cwd: string, args: string[], env: Record<string, string> = {}, stdinFromNull = false): string {
  const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  const run = spawnSync(
    "script",
    ["-qec", `stty cols 200; ${quoted}${stdinFromNull ? " </dev/null" : ""}`, "/dev/null"],
    { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", TERM: "xterm", CLAUDECODE: "", ...env } },
  );
  return run.stdout.replace(/\r/g, "");
}

/**
 * The same call in the test worker's CLI host with stdout (and stdin unless `stdinFromNull`) read
 * as a terminal 200 columns wide: a process and a pseudo-terminal less per call (issue 41). The
 * real pseudo-terminal is run by the checks marked so below (onRealTerminal), and by every call
 * when DOTAGENT_TEST_SPAWN=1 (no host).
 */
function onTerminal(cwd: string, args: string[], env: Record<string, string> = {}, stdinFromNull = false): string {
  if (process.env.DOTAGENT_TEST_SPAWN === "1") return onRealTerminal(cwd, args, env, stdinFromNull);
  const run = dotagent(cwd, args, {
    env: { TERM: "xterm", CLAUDECODE: "", ...env },
    terminal: { columns: 200, stdin: !stdinFromNull },
  });
  // A terminal shows stdout and stderr together, as `script` gives them.
  return run.stdout + run.stderr;
}

/**
 * orphaned-tasks cut to three tasks, with a request: REQ and ARCH done, IMPLEMENTATION under way,
 * last active an hour ago (the example's own times are fixed, so a week later it would be stale).
 */
function threeTaskProject(): string {
  const root = exampleProject("orphaned-tasks");
  const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
  const execution = readJson(root, "memory/state/execution.json");
  execution.tasks = execution.tasks.filter((t: { id: string }) => t.id !== "task-004");
  writeJson(root, "memory/state/execution.json", { ...execution, updated_at: hourAgo });
  writeJson(root, "memory/state/phase.json", {
    ...readJson(root, "memory/state/phase.json"),
    request: "add login\nwith a form",
    last_updated: hourAgo,
  });
  return root;
}

const installed = (root: string) => {
  mkdirSync(join(root, ".claude"), { recursive: true });
  writeFileSync(join(root, ".claude", ".dotagent-install.json"), "{}");
};

describe("status for people", () => {
  it("shows the phase bar, the request and the task table; --json gains nothing", () => {
    const root = threeTaskProject();
    const plain = dotagent(root, ["status"]);
    expect(plain.code).toBe(0);
    const lines = plain.stdout.split("\n");
    // The example's two running tasks belong to sessions that ended (issue 42): the line says so, not "in_progress".
    expect(lines[0]).toBe(
      "Workflow wf-login at IMPLEMENTATION phase (interrupted: the sessions running task-001, task-002 ended)",
    );
    expect(lines[1]).toBe("REQ ✓ ─ ARCH ✓ ─ IMPL 0/3 ─ VERIF · ─ REFL ·");
    expect(lines[2]).toBe("Request: add login with a form");
    expect(plain.stdout).not.toContain("Completed:");
    const tasksAt = lines.findIndex((l) => l.startsWith("Tasks: "));
    expect(lines[tasksAt + 1]).toMatch(/^ {2}ID +STATUS +FAILED +DEPENDS ON +TIME +WHERE +TITLE$/);
    expect(lines.slice(tasksAt + 2, tasksAt + 5).map((l) => l.trim().split(/\s+/)[0])).toEqual([
      "task-001",
      "task-002",
      "task-003",
    ]);
    // Piped: the model's Next line, as before.
    expect(plain.stdout).toMatch(/\nNext: run tasks? task-/);
    const json = dotagent(root, ["status", "--json"]).json;
    expect(Object.keys(json).sort()).toEqual([
      "agents_in_flight",
      "applied",
      "completed_phases",
      "decision",
      "errors",
      "in_flight",
      "isolation",
      "last_activity",
      "last_activity_ago",
      "next",
      "ops",
      "phase",
      "phase_status",
      "repairs",
      "situation",
      "tasks",
      "warnings",
      "workflow_id",
      "worktrees",
    ]);
  });

  it("counts a plan of more than 8 tasks and points at `dotagent tasks`", () => {
    const root = threeTaskProject();
    const execution = readJson(root, "memory/state/execution.json");
    for (let i = 10; i < 16; i++)
      execution.tasks.push({ id: `task-0${i}`, title: `more ${i}`, status: "pending", attempts: 0, depends_on: [] });
    writeJson(root, "memory/state/execution.json", execution);
    const out = dotagent(root, ["status"]).stdout;
    expect(out).toContain("IMPL 0/9");
    expect(out).toContain("  (`dotagent tasks` lists them)");
    expect(out).not.toMatch(/ID +STATUS/);
  });
});

/** Three tasks in worktrees: two done and merged, the third started by a session that is gone (issue 42's kill). */
function killedAtLastTask(options: { reportWritten: boolean }): string {
  // The two merged tasks are made once per file and copied (no worktree is left to point at the copy).
  const root = copyOfTemplate("twoMerged", (dir) => {
    cpSync(projectAtImplementation([{ id: "task-001" }, { id: "task-002" }, { id: "task-003" }]), dir, {
      recursive: true,
      verbatimSymlinks: true,
    });
    for (const id of ["task-001", "task-002"]) {
      const started = startTask(dir, id);
      executorWork(dir, id, started.dir!, { [`${id}.txt`]: `${id}\n` });
      ok(dotagent(dir, ["task", "complete", id, "--json"]));
    }
  });
  const { dir } = startTask(root, "task-003", deadPid());
  if (options.reportWritten) executorWork(root, "task-003", dir!, { "task-003.txt": "3\n" });
  return root;
}

describe("the first line of status tells the bar's story (issue 42)", () => {
  it("right after a kill: the step as stored, interrupted, and what resume would record below it", () => {
    const root = killedAtLastTask({ reportWritten: true });
    const lines = dotagent(root, ["status"]).stdout.split("\n");
    // Was `at VERIFICATION phase (pending)` above `IMPL 2/3` and `task-003 running … (gone)`.
    expect(lines[0]).toBe(
      "Workflow wf-add-parts at IMPLEMENTATION phase (interrupted: the session running task-003 ended)",
    );
    expect(lines[1]).toBe("REQ ✓ ─ ARCH ✓ ─ IMPL 2/3 ─ VERIF · ─ REFL ·");
    expect(lines.find((l) => l.trim().startsWith("task-003"))).toMatch(/running .*\(gone\)/);
    expect(lines).toContain("  • IMPLEMENTATION was done (execution.json is there): advanced to VERIFICATION");
    // Programs keep the plan's fields as they were.
    expect(dotagent(root, ["status", "--json"]).json).toMatchObject({ phase: "VERIFICATION", phase_status: "pending" });
  });

  it("tasks running under a live session read in progress, not pending; a task's session gone, interrupted", () => {
    const root = projectAtImplementation([{ id: "task-001" }, { id: "task-002" }]);
    expect(dotagent(root, ["status"]).stdout.split("\n")[0]).toBe(
      "Workflow wf-add-parts at IMPLEMENTATION phase (not started)",
    );
    startTask(root, "task-001");
    expect(dotagent(root, ["status"]).stdout.split("\n")[0]).toBe(
      "Workflow wf-add-parts at IMPLEMENTATION phase (in progress)",
    );
    expect(dotagent(root, ["status", "--json"]).json.phase_status).toBe("pending");
    startTask(root, "task-002", deadPid());
    expect(dotagent(root, ["status"]).stdout.split("\n")[0]).toBe(
      "Workflow wf-add-parts at IMPLEMENTATION phase (interrupted: the session running task-002 ended)",
    );
  });

  it.skipIf(!hasScript)("on a terminal the Next line says what to type to go on", () => {
    const root = killedAtLastTask({ reportWritten: false });
    const out = onTerminal(root, ["status"]);
    expect(out).toMatch(
      /^Workflow wf-add-parts at IMPLEMENTATION phase \(interrupted: the session running task-003 ended\)\n/,
    );
    expect(out).toContain("\nNext: dotagent run goes on (task task-003 next)\n");
  });
});

describe.skipIf(!hasScript)("Next for a person at a terminal", () => {
  it("no workflow: dotagent run headless, /develop where dotagent is installed into Claude Code", () => {
    const root = tempProject();
    // On a real pseudo-terminal: the person's line as `script` shows it.
    expect(onRealTerminal(root, ["status"])).toContain(
      'Next: dotagent run "<what to build>", e.g. dotagent run "add login"',
    );
    installed(root);
    expect(onTerminal(root, ["status"])).toContain(
      "Next: type /develop <what to build> in Claude Code, e.g. /develop add login",
    );
  });

  it("installed for Copilot CLI or Codex CLI: status, tasks and a gate name what to type there, not `dotagent run` (which needs the Agent SDK and a key; issue 42)", () => {
    for (const [client, command, name] of [
      ["copilot", "/develop", "Copilot CLI"],
      ["codex", "$develop", "Codex CLI"],
    ] as const) {
      const root = tempProject();
      ok(dotagent(root, ["install", "--client", client, "--json"], { env: { HOME: join(root, "home") } }));
      const none = onTerminal(root, ["status"]) + onTerminal(root, ["tasks"]);
      expect(none).toContain(`Next: type ${command} <what to build> in ${name}, e.g. ${command} add login`);
      expect(none).toContain(`No workflow here; start one: type ${command} <what to build> in ${name}\n`);
      expect(none).not.toContain("dotagent run");
      dotagent(root, ["init", "--request", "add login"]);
      writeJson(root, "memory/reports/demand.json", {
        status: "complete",
        summary: "login",
        requirements: ["a form"],
        acceptance_criteria: ["it logs in"],
      });
      expect(onTerminal(root, ["status"])).toContain(
        `Next: read memory/reports/demand.json, then type approve in ${name} (or what to change)`,
      );
    }
  });

  it("init and a workflow under way: what the person types to go on", () => {
    const root = tempProject();
    installed(root);
    const init = onTerminal(root, ["init", "--request", "add login"]);
    expect(init).toContain("Next: type /develop in Claude Code to go on (the pm agent is next)");
    expect(init).not.toContain("spawn");
    expect(onTerminal(threeTaskProject(), ["status"])).toMatch(
      /\nNext: dotagent run goes on \(tasks? task-001[^)]* next\)\n/,
    );
  });

  it("at a gate: what to answer", () => {
    const root = tempProject();
    installed(root);
    dotagent(root, ["init", "--request", "add login"]);
    writeJson(root, "memory/reports/demand.json", {
      status: "complete",
      summary: "login",
      requirements: ["a form"],
      acceptance_criteria: ["it logs in"],
    });
    const out = onTerminal(root, ["resume"]);
    expect(out).toContain(
      "Next: read memory/reports/demand.json, then type approve in Claude Code (or what to change)",
    );
  });

  it("no workflow: workflows, tasks and report say what starts one, as status does (issue 42)", () => {
    const root = tempProject();
    const shown = () => onTerminal(root, ["workflows"]) + onTerminal(root, ["tasks"]) + onTerminal(root, ["report"]);
    const headless = shown();
    expect(headless).toContain('Start one: dotagent run --workflow NAME "<what to build>"\n');
    expect(headless).toContain('No workflow here; start one: dotagent run "<what to build>"\n');
    expect(headless).toContain(
      'dotagent: no workflow here (memory/state holds no phase.json, execution.json or events.jsonl); start one: dotagent run "<what to build>" (or pass --dir)\n',
    );
    installed(root);
    const claude = shown();
    expect(claude).toContain("Start one: type /develop --workflow NAME <what to build> in Claude Code\n");
    expect(claude).toContain("No workflow here; start one: type /develop <what to build> in Claude Code\n");
    expect(claude).toContain("start one: type /develop <what to build> in Claude Code (or pass --dir)\n");
    expect(headless + claude).not.toContain("dotagent init");
    // The model and programs keep the commands they run.
    expect(dotagent(root, ["tasks"]).stdout).toBe("No workflow here; `dotagent init --request …` starts one.\n");
    expect(dotagent(root, ["workflows"]).stdout).toContain(
      "Start one: dotagent init --workflow NAME --request '…' (in Claude Code: /develop --workflow NAME …)\n",
    );
    expect(onTerminal(root, ["tasks"], { CLAUDECODE: "1" }, true)).toContain("`dotagent init --request …` starts one");
  });

  it("phase approve: the person is told what they type next, as status would; piped and --json unchanged (issue 42)", () => {
    const approved = (install: boolean) => {
      const root = tempProject();
      if (install) installed(root);
      dotagent(root, ["init", "--request", "add login"]);
      writeJson(root, "memory/reports/demand.json", {
        status: "complete",
        summary: "login",
        requirements: ["a form"],
        acceptance_criteria: ["it logs in"],
      });
      return root;
    };
    // On a real pseudo-terminal: exactly these two lines, nothing else on the terminal.
    expect(onRealTerminal(approved(false), ["phase", "approve"])).toBe(
      "approve: wf-add-login is now at ARCHITECTURE (pending)\nNext: dotagent run goes on (the architect agent is next)\n",
    );
    const root = approved(true);
    expect(onTerminal(root, ["phase", "approve"])).toBe(
      "approve: wf-add-login is now at ARCHITECTURE (pending)\nNext: type /develop in Claude Code to go on (the architect agent is next)\n",
    );
    expect(onTerminal(root, ["status"])).toContain(
      "\nNext: type /develop in Claude Code to go on (the architect agent is next)\n",
    );
    const piped = approved(false);
    expect(dotagent(piped, ["phase", "approve"]).stdout).toBe(
      "approve: wf-add-login is now at ARCHITECTURE (pending)\n",
    );
    const json = approved(false);
    expect(Object.keys(dotagent(json, ["phase", "approve", "--json"]).json).sort()).toEqual([
      "agents_in_flight",
      "changed",
      "in_flight",
      "next",
      "ok",
      "phase",
      "phase_status",
    ]);
  });

  it("the model keeps its line: Claude Code's Bash tool, and --json on a terminal", () => {
    const root = tempProject();
    installed(root);
    // On a real pseudo-terminal: stdin from /dev/null as the Bash tool runs it, and --json.
    expect(onRealTerminal(root, ["status"], { CLAUDECODE: "1" }, true)).toContain(
      "Next: start a workflow — `dotagent init --request …`",
    );
    const json = JSON.parse(onRealTerminal(root, ["status", "--json"]).trim());
    expect(json.next.action).toBe("start_workflow");
    expect(json.next.reason).toBe(dotagent(root, ["status", "--json"]).json.next.reason);
  });
});
