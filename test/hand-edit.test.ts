// State dotagent did not write, through the built CLI: the model's Write or Edit of phase.json or
// execution.json, a person's `head -c 100 … > phase.json`. Each case: the edit is named
// (`hand_edit`, or corrupt), the checkpoints stay usable with phase.json unreadable, the first way
// out offered is the newest checkpoint, and going back restores what dotagent last kept, exactly.
import { afterEach, describe, expect, it } from "vitest";
import {
  closeSync,
  cpSync,
  ftruncateSync,
  openSync,
  readFileSync,
  readdirSync,
  statSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { CLI, dotagent, expectNoStack, readJson, removeTemps, tempProject, writeJson } from "./support/cli.js";
import { copyOfTemplate } from "./support/template.js";
import { typedPrompt } from "./support/typed-prompt.js";

afterEach(removeTemps);

const PHASE = "memory/state/phase.json";
const EXECUTION = "memory/state/execution.json";

function ok(p: string, args: string[]) {
  const r = dotagent(p, args);
  expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
  return r;
}

/** A workflow at ARCHITECTURE (REQUIREMENTS approved and complete): the design not yet picked. Made once per file, a copy per test. */
function atArchitecture(): string {
  return copyOfTemplate("atArchitecture", (p) => {
    ok(p, ["init", "--request", "add login"]);
    writeJson(p, "memory/reports/demand.json", { stories: ["sign in"] });
    ok(p, ["phase", "approve"]); // demand.json is there: REQUIREMENTS completes with the approval
    expect(readJson(p, PHASE).current_phase).toBe("ARCHITECTURE");
  });
}

/** A workflow in IMPLEMENTATION with tasks t1, t2 planned and t2 started. Made once per file, a copy per test. */
function atImplementation(): string {
  return copyOfTemplate("atImplementation", (p) => {
    cpSync(atArchitecture(), p, { recursive: true });
    writeJson(p, "memory/reports/designs/a.json", { name: "a" });
    writeJson(p, "memory/reports/roundtable.json", { pick: "a" });
    writeJson(p, "memory/reports/final_design.json", { chosen: "a" });
    ok(p, ["phase", "approve"]);
    expect(readJson(p, PHASE).current_phase).toBe("IMPLEMENTATION");
    writeJson(p, "tasks.json", [{ id: "t1" }, { id: "t2" }]);
    ok(p, ["task", "import", "tasks.json"]);
    ok(p, ["task", "start", "t2"]);
  });
}

const newestRev = (p: string): number => ok(p, ["history", "--json"]).json.checkpoints.at(-1).rev;
const held = (p: string, rev: number, name: string) =>
  JSON.parse(readFileSync(join(p, `memory/state/.history/${String(rev).padStart(8, "0")}/${name}`), "utf8"));
/** A state file without what every write changes (revision, time): what it says. */
const content = (value: Record<string, unknown>) => {
  const { revision: _r, last_updated: _l, updated_at: _u, ...rest } = value;
  return rest;
};

/** The model's Write: ARCHITECTURE marked complete and approved, the workflow moved on to IMPLEMENTATION. */
function markArchitectureComplete(p: string): void {
  const phase = readJson(p, PHASE);
  phase.completed_phases.push({ phase: "ARCHITECTURE", completed_at: phase.last_updated });
  phase.user_checkpoints.push({ phase: "ARCHITECTURE", approved_at: phase.last_updated });
  phase.current_phase = "IMPLEMENTATION";
  phase.phase_status = "pending";
  writeFileSync(join(p, PHASE), JSON.stringify(phase, null, 2));
}

/** `head -c 100 phase.json > cut; cat cut > phase.json`: written through the file (same inode). */
function truncateInPlace(file: string, bytes: number): void {
  const fd = openSync(file, "r+");
  ftruncateSync(fd, bytes);
  closeSync(fd);
}

/**
 * The reproduction (issue 40): `text` written over `file` through its own descriptor (same
 * inode), at the same size, and its mtime put back to the nanosecond (GNU touch; utimesSync's
 * double loses the last digits): inode, size and mtime all as dotagent left them.
 */
function rewriteUnseen(file: string, text: string): void {
  const before = statSync(file, { bigint: true });
  const bytes = Buffer.from(text);
  expect(bytes.length).toBe(Number(before.size));
  const fd = openSync(file, "r+");
  writeSync(fd, bytes, 0, bytes.length, 0);
  closeSync(fd);
  const ns = before.mtimeNs;
  expect(
    spawnSync("touch", ["-m", "-d", `@${ns / 1_000_000_000n}.${String(ns % 1_000_000_000n).padStart(9, "0")}`, file])
      .status,
  ).toBe(0);
  const after = statSync(file, { bigint: true });
  expect([after.ino, after.size, after.mtimeNs]).toEqual([before.ino, before.size, before.mtimeNs]);
}

describe("hand edits: detected and named", () => {
  it("hand edit: execution.json rewritten in place at the same size, every task complete, its inode, size and mtime as dotagent left them: named by its content (status, resume, validate)", () => {
    const p = atImplementation();
    const rev = newestRev(p);
    const file = join(p, EXECUTION);
    const original = readFileSync(file, "utf8");
    const execution = JSON.parse(original);
    for (const task of execution.tasks) {
      Object.assign(task, {
        status: "complete",
        started_at: task.started_at ?? execution.updated_at,
        completed_at: execution.updated_at,
      });
      writeJson(p, `memory/reports/tasks/${task.id}.json`, { task_id: task.id, status: "complete" });
    }
    const compact = JSON.stringify(execution);
    expect(compact.length + 1).toBeLessThanOrEqual(original.length);
    rewriteUnseen(file, `${compact}${" ".repeat(original.length - compact.length - 1)}\n`);
    const status = ok(p, ["status", "--json"]);
    expect(status.json.errors).toEqual([]);
    expect(status.json).toMatchObject({ situation: "hand_edit", next: { action: "confirm_rollback", rev } });
    expect(status.json.warnings).toContainEqual(expect.objectContaining({ code: "hand_edit", file: EXECUTION }));
    const resumed = dotagent(p, ["resume", "--json"]);
    expect(resumed.code).toBe(5);
    expect(resumed.json).toMatchObject({
      situation: "hand_edit",
      decision: { yes: `dotagent rollback --to ${rev} --yes`, no: "dotagent resume --keep-edit" },
    });
    expect(ok(p, ["validate", "--json"]).json.warnings).toContainEqual(
      expect.objectContaining({ code: "hand_edit", file: EXECUTION }),
    );
  });

  it("hand edit: phase.json rewritten valid, marking ARCHITECTURE complete: validate and status warn hand_edit; resume asks to go back first (exit 5), nothing written", () => {
    const p = atArchitecture();
    const rev = newestRev(p);
    markArchitectureComplete(p);
    const before = readFileSync(join(p, PHASE));
    const validate = ok(p, ["validate", "--json"]);
    expect(validate.json.warnings).toContainEqual(expect.objectContaining({ code: "hand_edit", file: PHASE }));
    const status = ok(p, ["status", "--json"]);
    expect(status.json).toMatchObject({ situation: "hand_edit", next: { action: "confirm_rollback", rev } });
    const resumed = dotagent(p, ["resume", "--json"]);
    expect(resumed.code).toBe(5);
    expect(resumed.json).toMatchObject({
      situation: "hand_edit",
      applied: false,
      next: { action: "confirm_rollback", rev },
      decision: { default: false, yes: `dotagent rollback --to ${rev} --yes`, no: "dotagent resume --keep-edit" },
    });
    expect(resumed.json.decision.question).toContain(
      `checkpoint ${rev} (REQUIREMENTS completed, at ARCHITECTURE pending`,
    );
    expect(resumed.json.decision.question).toContain(": what dotagent last wrote)");
    expect(readFileSync(join(p, PHASE))).toEqual(before);
  });

  it("hand edit: going back (resume --yes) restores exactly what dotagent last kept; the edited file is in the archive; validate exits 0", () => {
    const p = atArchitecture();
    const rev = newestRev(p);
    const kept = held(p, rev, "phase.json");
    markArchitectureComplete(p);
    const resumed = ok(p, ["resume", "--yes", "--json"]);
    expect(resumed.json.repairs[0]).toMatchObject({ code: "rolled_back" });
    expect(resumed.json.phase).toBe("ARCHITECTURE");
    expect(content(readJson(p, PHASE))).toEqual(content(kept));
    const validate = ok(p, ["validate", "--json"]);
    expect(validate.json.warnings.map((w: { code: string }) => w.code)).not.toContain("hand_edit");
    expect(readdirSync(join(p, "memory/state/.archive"))).toHaveLength(1);
  });

  it("hand edit: keeping it (resume --keep-edit) adopts it: event hand_edit_kept, a checkpoint of it, no warning after", () => {
    const p = atArchitecture();
    markArchitectureComplete(p);
    const resumed = ok(p, ["resume", "--keep-edit", "--json"]);
    expect(resumed.json.repairs[0]).toMatchObject({ code: "hand_edit_kept" });
    expect(resumed.json).toMatchObject({ situation: "interrupted", phase: "IMPLEMENTATION" });
    const log = ok(p, ["log", "--json"]).json.events as Array<{ type: string; files?: string[] }>;
    expect(log.find((e) => e.type === "hand_edit_kept")).toMatchObject({ files: [PHASE] });
    expect(ok(p, ["history", "--json"]).json.checkpoints.at(-1)).toMatchObject({
      event: "hand_edit_kept",
      phase: "IMPLEMENTATION",
    });
    expect(ok(p, ["validate", "--json"]).json.warnings.map((w: { code: string }) => w.code)).not.toContain("hand_edit");
    expect(ok(p, ["resume", "--json"]).json.repairs).toEqual([]);
  });

  it("hand edit: execution.json edited to mark a running task complete: named; going back (to the newest checkpoint, said to be older than the last write) archives the edit", () => {
    const p = atImplementation();
    const rev = newestRev(p);
    const execution = readJson(p, EXECUTION);
    const t2 = execution.tasks.find((t: { id: string }) => t.id === "t2");
    t2.status = "complete";
    t2.completed_at = execution.updated_at;
    writeFileSync(join(p, EXECUTION), JSON.stringify(execution, null, 2));
    const resumed = dotagent(p, ["resume", "--json"]);
    expect(resumed.code).toBe(5);
    expect(resumed.json.warnings).toContainEqual(expect.objectContaining({ code: "hand_edit", file: EXECUTION }));
    expect(resumed.json).toMatchObject({
      next: { action: "confirm_rollback", rev },
      decision: { yes: `dotagent rollback --to ${rev} --yes` },
    });
    // The task import and start after the newest checkpoint are dotagent's writes no checkpoint holds: said so.
    expect(resumed.json.decision.question).toContain("it wrote after it, and that is not kept");
    const back = ok(p, ["resume", "--yes", "--json"]);
    expect(back.json.repairs[0]).toMatchObject({ code: "rolled_back" });
    expect(content(readJson(p, PHASE))).toEqual(content(held(p, rev, "phase.json")));
    // The newest checkpoint is the task plan's: both tasks planned, neither started nor complete.
    expect(readJson(p, EXECUTION).tasks.map((t: { id: string; status: string }) => [t.id, t.status])).toEqual([
      ["t1", "pending"],
      ["t2", "pending"],
    ]);
    expect(ok(p, ["validate", "--json"]).json.valid).toBe(true);
    expect(ok(p, ["validate", "--json"]).json.warnings.map((w: { code: string }) => w.code)).not.toContain("hand_edit");
  });

  it("hand edit: a touch (same bytes, a new mtime) is not a hand edit", () => {
    const p = atArchitecture();
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(p, PHASE), later, later);
    expect(ok(p, ["validate", "--json"]).json.warnings).toEqual([]);
    expect(ok(p, ["status", "--json"]).json.situation).toBe("interrupted");
  });

  it("hand edit: without dotagent's record (a project from before it) nothing is claimed", () => {
    const p = atArchitecture();
    markArchitectureComplete(p);
    writeFileSync(join(p, "memory/state/.last-write.json"), "torn");
    expect(ok(p, ["validate", "--json"]).json.warnings.map((w: { code: string }) => w.code)).not.toContain("hand_edit");
  });
});

describe("hand edits: phase.json truncated (head -c 100), recovered from the checkpoints", () => {
  it("hand edit: head -c 100 phase.json: history lists the checkpoints (of the newest checkpoint's workflow, saying so)", () => {
    const p = atArchitecture();
    const listed = ok(p, ["history", "--json"]).json.checkpoints;
    truncateInPlace(join(p, PHASE), 100);
    const history = ok(p, ["history", "--json"]);
    expect(history.json).toMatchObject({ workflow_id: "wf-add-login", listed_for: "newest_checkpoint" });
    expect(history.json.checkpoints).toEqual(listed);
    const plain = ok(p, ["history"]);
    expect(plain.stdout).toContain("memory/state/phase.json is corrupt: the checkpoints of workflow wf-add-login");
  });

  it("hand edit: head -c 100 phase.json: the newest checkpoint stays intact (a copy, not the same inode)", () => {
    const p = atArchitecture();
    const rev = newestRev(p);
    const file = join(p, `memory/state/.history/${String(rev).padStart(8, "0")}/phase.json`);
    const before = readFileSync(file);
    truncateInPlace(join(p, PHASE), 100);
    expect(statSync(file).ino).not.toBe(statSync(join(p, PHASE)).ino);
    expect(readFileSync(file)).toEqual(before);
    expect(ok(p, ["history", "show", String(rev), "--json"]).json.rev).toBe(rev);
  });

  it("hand edit: head -c 100 phase.json: resume offers going back to the newest checkpoint before a fresh start (exit 5), changing nothing", () => {
    const p = atArchitecture();
    const rev = newestRev(p);
    truncateInPlace(join(p, PHASE), 100);
    const before = readFileSync(join(p, PHASE));
    const resumed = dotagent(p, ["resume", "--json"]);
    expect(resumed.code).toBe(5);
    expect(resumed.json).toMatchObject({
      situation: "corrupt",
      next: { action: "confirm_rollback", rev },
      decision: {
        default: false,
        yes: `dotagent rollback --to ${rev} --yes`,
        no: "dotagent archive --reason 'corrupt state'",
      },
    });
    expect(readFileSync(join(p, PHASE))).toEqual(before);
    expect(readdirSync(join(p, "memory/state")).includes(".archive")).toBe(false);
  });

  it("hand edit: head -c 100 phase.json: rollback --to N restores what dotagent last kept, the corrupt file goes into the archive, validate exits 0", () => {
    const p = atArchitecture();
    const rev = newestRev(p);
    const kept = held(p, rev, "phase.json");
    truncateInPlace(join(p, PHASE), 100);
    const asked = dotagent(p, ["rollback", "--to", String(rev), "--json"]);
    expect(asked.code).toBe(5);
    expect(asked.json.decision.question).toContain("back from its corrupt state to checkpoint");
    const rolled = ok(p, ["rollback", "--to", String(rev), "--yes", "--json"]);
    expect(rolled.json).toMatchObject({
      rolled_back: true,
      from: { phase_status: "corrupt" },
      to: { phase: "ARCHITECTURE" },
    });
    expect(content(readJson(p, PHASE))).toEqual(content(kept));
    expect(rolled.json.archive).toMatch(/\.tar\.gz$/);
    const listed = ok(p, ["archive", "list", "--json"]).json;
    expect(JSON.stringify(listed)).toContain(rolled.json.archive);
    expect(ok(p, ["validate"]).code).toBe(0);
    expect(ok(p, ["resume", "--json"]).json).toMatchObject({ situation: "interrupted", phase: "ARCHITECTURE" });
  });

  it("hand edit: rollback --to PHASE with phase.json corrupt is refused (exit 1, no_workflow) naming rollback --to REV", () => {
    const p = atArchitecture();
    truncateInPlace(join(p, PHASE), 100);
    const r = dotagent(p, ["rollback", "--to", "REQUIREMENTS", "--yes"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("rollback --to REV");
    expectNoStack(r.stderr);
  });
});

describe("hand edits through the library", () => {
  it("hand edit: openWorkflow(dir).resume() asks as the CLI does; keepEdit: true keeps the edit, a decide that says yes goes back", async () => {
    const { openWorkflow } = await import("../src/api/workflow.js");
    const p = atArchitecture();
    const rev = newestRev(p);
    markArchitectureComplete(p);
    const w = openWorkflow(p);
    expect(await w.resume()).toMatchObject({
      situation: "hand_edit",
      applied: false,
      next: { action: "confirm_rollback", rev },
    });
    expect(await w.resume({ decide: () => true })).toMatchObject({
      situation: "interrupted",
      phase: "ARCHITECTURE",
      repairs: [{ code: "rolled_back" }],
    });
    markArchitectureComplete(p);
    expect(await w.resume({ keepEdit: true })).toMatchObject({
      situation: "interrupted",
      phase: "IMPLEMENTATION",
      repairs: [{ code: "hand_edit_kept" }],
    });
  });
});

describe("hand edits: dotagent's own write cut off is never one", () => {
  const PRELOAD = join(CLI, "../../test/torture/kill-at.mjs");
  it.each([
    ["before the record forgets phase.json", "openSync:.last-write.json.:1"],
    ["as the record forgets phase.json", "renameSync:.last-write.json:1"],
    ["after phase.json was replaced, before the record names it", "openSync:.last-write.json.:2"],
    ["as the record names the new phase.json", "renameSync:.last-write.json:2"],
  ])("hand edit: a kill -9 %s leaves no hand_edit, and resume goes on", (_when, at) => {
    const p = tempProject();
    ok(p, ["init", "--request", "add login"]);
    writeJson(p, "memory/reports/demand.json", { stories: ["sign in"] });
    const killed = spawnSync(process.execPath, ["--import", PRELOAD, CLI, "phase", "approve"], {
      cwd: p,
      env: { ...process.env, TORTURE_KILL_AT: at },
    });
    expect(killed.signal).toBe("SIGKILL");
    const validate = dotagent(p, ["validate", "--json"]);
    expect(validate.code).toBe(0);
    expect(validate.json.warnings.map((w: { code: string }) => w.code)).not.toContain("hand_edit");
    const resumed = dotagent(p, ["resume", "--json"]);
    expect(resumed.code).toBe(0);
    expect(resumed.json.situation).toBe("interrupted");
  });
});

describe("hand edits from an agent's shell: the way out is the person's (issue 29)", () => {
  const AS_MODEL = { CLAUDECODE: "1" };
  const personSays = (p: string, prompt: string) =>
    dotagent(p, ["hook", "user-prompt-submit"], {
      input: JSON.stringify({ cwd: p, ...typedPrompt(prompt).input }),
      env: { CLAUDE_PROJECT_DIR: p },
    });

  it("the model's `resume --keep-edit` of its own edit: refused; going back after the person's yes: done", () => {
    const p = atArchitecture();
    markArchitectureComplete(p);
    expect(dotagent(p, ["resume", "--keep-edit", "--json"], { env: AS_MODEL }).json.error).toMatchObject({
      code: "person_not_answered",
      decision: "hand_edit",
    });
    const asked = dotagent(p, ["resume", "--json"], { env: AS_MODEL });
    expect(asked.code).toBe(5);
    const yes = asked.json.decision.yes as string;
    expect(yes).toMatch(/^dotagent rollback --to \d+ --yes$/);
    const args = yes.replace(/^dotagent /, "").split(" ");
    expect(dotagent(p, [...args, "--json"], { env: AS_MODEL }).json.error).toMatchObject({
      code: "person_not_answered",
    });
    personSays(p, "yes, go back");
    const back = dotagent(p, [...args, "--json"], { env: AS_MODEL });
    expect(back.code, back.stdout).toBe(0);
    expect(readJson(p, PHASE).current_phase).toBe("ARCHITECTURE");
    expect(dotagent(p, ["validate", "--json"]).code).toBe(0);
  });
});
