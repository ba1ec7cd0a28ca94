// Issue 21 ("hostile input, round two"), the history, rollback, readers, decisions and --dir cases:
// one named test per case, run against the built CLI the way a user or an agent would.
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
  CLI,
  REPO,
  dotagent,
  expectNoStack,
  readJson,
  removeTemps,
  tempProject,
  treeBytes,
  writeJson,
} from "./support/cli.js";

afterEach(removeTemps);
const NEVER = ["--stale-after", "never"];

function ok(p: string, args: string[]): ReturnType<typeof dotagent> {
  const r = dotagent(p, args);
  expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
  return r;
}

// Each workflow below is made once through the CLI, then copied into every project that needs it
// (no state file holds the project's path): a CLI run is ~0.1 s of CPU, and CI's cores are busy.
const made = new Map<string, string>();
afterAll(() => {
  for (const dir of made.values()) rmSync(dir, { recursive: true, force: true });
});
function fromFixture(p: string, key: string, make: (dir: string) => void): void {
  let dir = made.get(key);
  if (dir === undefined) {
    dir = mkdtempSync(join(tmpdir(), "dotagent-fixture-"));
    make(dir);
    made.set(key, dir);
  }
  cpSync(dir, p, { recursive: true });
}

/** Through REQUIREMENTS and ARCHITECTURE; `planned` also records a task plan (plan.json) with one task done. */
function toImplementation(p: string, id = "wf-a", planned = true): void {
  fromFixture(p, `implementation ${id} ${planned}`, (dir) => makeImplementation(dir, id, planned));
}

function makeImplementation(p: string, id: string, planned: boolean): void {
  ok(p, ["init", "--request", "add login", "--workflow-id", id, "--yes"]);
  writeJson(p, "memory/reports/demand.json", { stories: ["sign in"] });
  ok(p, ["phase", "approve", "REQUIREMENTS"]);
  ok(p, ["phase", "complete", "REQUIREMENTS"]);
  writeJson(p, "memory/reports/designs/a.json", { name: "a" });
  writeJson(p, "memory/reports/roundtable.json", { pick: "a" });
  writeJson(p, "memory/reports/final_design.json", { chosen: "a" });
  ok(p, ["phase", "approve", "ARCHITECTURE"]);
  ok(p, ["phase", "complete", "ARCHITECTURE"]);
  if (!planned) return;
  writeJson(p, "memory/reports/plan.json", { tasks: [{ id: "t1" }] });
  ok(p, ["task", "import", "memory/reports/plan.json"]);
  ok(p, ["task", "start", "t1"]);
  writeJson(p, "memory/reports/tasks/t1.json", { task_id: "t1", status: "complete" });
  ok(p, ["task", "complete", "t1"]);
}

/** A whole workflow, complete. */
function finished(p: string, id = "wf-a"): void {
  fromFixture(p, `finished ${id}`, (dir) => {
    toImplementation(dir, id);
    ok(dir, ["phase", "complete", "IMPLEMENTATION"]);
    writeJson(dir, "memory/reports/verification.json", { passed: true });
    ok(dir, ["phase", "complete", "VERIFICATION"]);
    writeJson(dir, "memory/reports/reflection.md", "# lessons\n");
    ok(dir, ["phase", "complete", "REFLECTION"]);
  });
}

const revs = (p: string) =>
  dotagent(p, ["history", "--json"]).json.checkpoints.map((c: { rev: number; what: string }) => `${c.rev} ${c.what}`);

describe("issue 21, case 2: a reused workflow id never brings back the old run's checkpoints", () => {
  it("init --workflow-id wf-a --yes over a finished wf-a: history lists only the new run; rollback --to an old rev is refused and changes nothing", () => {
    const p = tempProject();
    finished(p);
    const old = dotagent(p, ["history", "--json"]).json.checkpoints as Array<{ rev: number; what: string }>;
    const approved = old.find((c) => c.what === "ARCHITECTURE approved")!.rev;
    expect(approved).toBeGreaterThan(2);
    ok(p, ["init", "--request", "add login", "--workflow-id", "wf-a", "--yes"]);
    expect(revs(p)).toEqual(["1 workflow started"]);
    const before = treeBytes(join(p, "memory"));
    const r = dotagent(p, ["rollback", "--to", String(approved), "--yes", "--json"]);
    expect([r.code, r.json.error.code]).toEqual([1, "no_checkpoint"]); // the new run's first checkpoint pruned the old ones
    expect(treeBytes(join(p, "memory"))).toEqual(before);
    expect(readJson(p, "memory/state/phase.json").user_checkpoints).toEqual([]);
    expect(dotagent(p, ["history", "show", String(approved)]).code).toBe(1);
  });

  it("variant: the old run's checkpoints still on disk (not yet pruned) are never listed nor restored", () => {
    const p = tempProject();
    toImplementation(p);
    const approved = (dotagent(p, ["history", "--json"]).json.checkpoints as Array<{ rev: number; what: string }>).find(
      (c) => c.what === "ARCHITECTURE approved",
    )!.rev;
    const held = join(p, "memory/state/.history");
    const keep = join(p, "kept-history");
    renameSync(held, keep);
    ok(p, ["init", "--request", "add login", "--workflow-id", "wf-a", "--yes"]);
    // The old folders come back beside the new run's (as if written by a crash-free older run).
    for (const name of readdirSync(keep))
      if (!existsSync(join(held, name))) renameSync(join(keep, name), join(held, name));
    expect(revs(p)).toEqual(["1 workflow started"]);
    const before = treeBytes(join(p, "memory"));
    const r = dotagent(p, ["rollback", "--to", String(approved), "--yes", "--json"]);
    expect(r.code).toBe(1);
    expect(r.json.error.code).toBe("rollback_other_workflow");
    expect(r.json.error.message).toContain("another run of a workflow (wf-a");
    expect(treeBytes(join(p, "memory"))).toEqual(before);
    const shown = dotagent(p, ["history", "show", String(approved), "--json"]);
    expect([shown.code, shown.json.error.code]).toEqual([1, "no_checkpoint"]);
  });

  it("variant: archive, then init with the same id: the archived run's checkpoints are not the new run's", () => {
    const p = tempProject();
    toImplementation(p, "wf-a", false);
    ok(p, ["archive"]);
    ok(p, ["init", "--request", "add login", "--workflow-id", "wf-a"]);
    expect(revs(p)).toEqual(["1 workflow started"]);
  });
});

describe("issue 21, case 7: rollback to a phase up to IMPLEMENTATION takes the task plans along", () => {
  it.each(["REQUIREMENTS", "ARCHITECTURE", "IMPLEMENTATION"])(
    "rollback --to %s moves plan.json and plan.rework-N.json into the archive",
    (to) => {
      const p = tempProject();
      toImplementation(p);
      writeJson(p, "memory/reports/plan.rework-1.json", { tasks: [{ id: "r1" }] }); // a later round's plan left by an earlier rollback
      const r = dotagent(p, ["rollback", "--to", to, "--yes", "--json"]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.json.moves).toEqual(
        expect.arrayContaining(["memory/reports/plan.json", "memory/reports/plan.rework-1.json"]),
      );
      expect(existsSync(join(p, "memory/reports/plan.json"))).toBe(false);
      expect(existsSync(join(p, "memory/reports/plan.rework-1.json"))).toBe(false);
      expect(ok(p, ["status", "--json", ...NEVER]).json.warnings).toEqual([]);
    },
  );

  it("rollback --to VERIFICATION keeps the plan of the round that completed", () => {
    const p = tempProject();
    toImplementation(p);
    ok(p, ["phase", "complete", "IMPLEMENTATION"]);
    writeJson(p, "memory/reports/verification.json", { passed: true });
    ok(p, ["phase", "complete", "VERIFICATION"]);
    const r = dotagent(p, ["rollback", "--to", "VERIFICATION", "--yes", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.moves).toEqual(["memory/reports/verification.json"]);
    expect(existsSync(join(p, "memory/reports/plan.json"))).toBe(true);
  });
});

/** Rewrites checkpoint `rev`'s phase.json (replacing the hard link) and its checksum, so only validation can tell. */
function forgeCheckpoint(p: string, rev: number, text: string): void {
  const folder = join(p, "memory/state/.history", String(rev).padStart(8, "0"));
  rmSync(join(folder, "phase.json"));
  writeFileSync(join(folder, "phase.json"), text);
  const meta = JSON.parse(readFileSync(join(folder, "checkpoint.json"), "utf8"));
  meta.files["phase.json"] = createHash("sha256").update(text).digest("hex");
  writeFileSync(join(folder, "checkpoint.json"), JSON.stringify(meta));
}

describe("issue 21, case 8: a checkpoint is judged like the live state before it is listed or restored", () => {
  it.each([
    [
      "a phase completed twice",
      (held: Record<string, unknown>) =>
        JSON.stringify({
          ...held,
          completed_phases: [...(held.completed_phases as unknown[]), ...(held.completed_phases as unknown[])],
        }),
      "not valid",
    ],
    [
      "the current phase not after the completed ones",
      (held: Record<string, unknown>) => JSON.stringify({ ...held, current_phase: "REFLECTION" }),
      "not valid",
    ],
    ["not JSON", () => '{"workflow_id": ', "is not JSON"],
    ["a JSON array", () => "[]", "not valid"],
  ])(
    "checksums match but %s: not listed, rollback --to REV refused (checkpoint_invalid, exit 1), history show exit 1, no internal error",
    (_name, forge, reason) => {
      const p = tempProject();
      toImplementation(p, "wf-a", false);
      const rev = (dotagent(p, ["history", "--json"]).json.checkpoints as Array<{ rev: number; what: string }>).find(
        (c) => c.what === "ARCHITECTURE approved",
      )!.rev;
      const folder = join(p, "memory/state/.history", String(rev).padStart(8, "0"));
      forgeCheckpoint(p, rev, forge(JSON.parse(readFileSync(join(folder, "phase.json"), "utf8"))));
      expect(revs(p)).not.toContain(`${rev} ARCHITECTURE approved`);
      const before = treeBytes(join(p, "memory"));
      const r = dotagent(p, ["rollback", "--to", String(rev), "--yes", "--json"]);
      expect([r.code, r.json.error.code]).toEqual([1, "checkpoint_invalid"]);
      expect(r.json.error.message).toContain(reason);
      expect(treeBytes(join(p, "memory"))).toEqual(before);
      const shown = dotagent(p, ["history", "show", String(rev)]);
      expect(shown.code).toBe(1);
      expect(shown.stderr).toContain(`checkpoint ${rev} is damaged`);
      expect(shown.stderr).not.toContain("unexpected error");
      expectNoStack(shown.stderr);
    },
  );

  it("a checkpoint.json that is not JSON (or a folder where it belongs) is ignored, never an internal error", () => {
    const p = tempProject();
    toImplementation(p, "wf-a", false);
    writeFileSync(join(p, "memory/state/.history/00000001/checkpoint.json"), "garbage");
    rmSync(join(p, "memory/state/.history/00000002/checkpoint.json"));
    mkdirSync(join(p, "memory/state/.history/00000002/checkpoint.json"));
    expect(revs(p).some((r: string) => /^[12] /.test(r))).toBe(false);
    for (const rev of ["1", "2"]) {
      const r = dotagent(p, ["rollback", "--to", rev, "--yes", "--json"]);
      expect([r.code, r.json.error.code]).toEqual([1, "checkpoint_invalid"]);
    }
  });

  it.each([
    [
      "a link out of the project",
      (p: string, outside: string) => symlinkSync(outside, join(p, "memory/state/.history")),
    ],
    [
      "a link inside the project",
      (p: string) => symlinkSync(join(p, "memory/reports"), join(p, "memory/state/.history")),
    ],
    ["a file", (p: string) => writeFileSync(join(p, "memory/state/.history"), "x")],
  ])(
    ".history that is %s: history, history show, rollback and status refuse it (state_path_invalid, exit 3); nothing is read from it",
    (_name, plant) => {
      const p = tempProject();
      toImplementation(p, "wf-a", false);
      const outside = tempProject();
      renameSync(join(p, "memory/state/.history"), join(outside, "held"));
      rmSync(outside, { recursive: true });
      mkdirSync(outside);
      plant(p, outside);
      const before = treeBytes(join(p, "memory"));
      for (const args of [
        ["history"],
        ["history", "show", "1"],
        ["rollback", "--to", "1", "--yes"],
        ["rollback", "--to", "ARCHITECTURE", "--yes"],
        ["status"],
      ]) {
        const r = dotagent(p, [...args, "--json"]);
        expect([r.code, r.json.error.code], args.join(" ")).toEqual([3, "state_path_invalid"]);
        expect(r.json.error.path).toBe("memory/state/.history");
      }
      expect(treeBytes(join(p, "memory"))).toEqual(before);
    },
  );
});

describe("issue 21, case 14: one REV parser for history show and rollback", () => {
  it.each(["0", "1e3", "0x10", " 12", "12.0", "+3", "１２", "1000000000", "NaN", "Infinity", ""])(
    "%j: the same usage error (exit 2) from both",
    (rev) => {
      const p = tempProject();
      toImplementation(p, "wf-a", false);
      const shown = dotagent(p, ["history", "show", rev, "--json"]);
      const rolled = dotagent(p, ["rollback", "--to", rev, "--yes", "--json"]);
      expect([shown.code, shown.json.error.code]).toEqual([2, "usage"]);
      expect([rolled.code, rolled.json.error.code]).toEqual([2, "usage"]);
      expect(shown.json.error.message).toContain("is not a checkpoint revision");
      expect(rolled.json.error.message).toContain(
        shown.json.error.message.replace(/^.*?(is not a checkpoint revision)/, "$1"),
      );
    },
  );

  it.each(["1", "01", "00000001"])("%j: accepted by both", (rev) => {
    const p = tempProject();
    toImplementation(p, "wf-a", false);
    expect(dotagent(p, ["history", "show", rev, "--json"]).json.rev).toBe(1);
    expect(dotagent(p, ["rollback", "--to", rev, "--json"]).json).toMatchObject({
      rolled_back: false,
      to: { phase: "REQUIREMENTS" },
    });
  });
});

describe('issue 21, case 14: --dir that does not exist is state_path_invalid (exit 3), never "no workflow"', () => {
  const commands: string[][] = [
    ["status"],
    ["resume", "--dry-run"],
    ["resume"],
    ["validate"],
    ["init", "--request", "x"],
    ["history"],
    ["history", "show", "1"],
    ["rollback", "--to", "REQUIREMENTS", "--yes"],
    ["log"],
    ["phase", "start", "REQUIREMENTS"],
    ["task", "next"],
    ["task", "add", "t1"],
    ["archive"],
    ["archive", "list"],
    ["doctor"],
    ["install", "--dry-run"],
    ["once", "op-1", "--", "true"],
    ["run", "add login"],
  ];
  it.each(commands)("%s … --dir /nonexistent", (...args) => {
    const p = tempProject();
    const missing = join(p, "no-such-project");
    const end = args.includes("--") ? args.indexOf("--") : args.length;
    const r = dotagent(p, [...args.slice(0, end), "--dir", missing, "--json", ...args.slice(end)]);
    expect([r.code, r.json?.error?.code], r.stdout + r.stderr).toEqual([3, "state_path_invalid"]);
    expect(r.json.error.message).toContain(`${missing} does not exist`);
    expect(existsSync(missing)).toBe(false);
  });
});

describe("issue 21, case 3: a rollback cut off after its commit point reads as a rollback resume finishes, never as corrupt", () => {
  const PRELOAD = join(REPO, "test/torture/kill-at.mjs");
  it("at every kill point after the commit: status, resume --dry-run, validate, doctor and the hook show the plan resume carries out, with rollback_interrupted", () => {
    const base = tempProject();
    finished(base);
    let checked = 0;
    // Every 37th write point in `npm test` (4 after the commit); ROLLBACK_KILL_STRIDE=1 tries each
    // (131 after the commit, about 5 min).
    const stride = Math.max(1, Number(process.env.ROLLBACK_KILL_STRIDE ?? 37) || 37);
    for (let n = 1; ; n += stride) {
      const p = tempProject();
      cpSync(base, p, { recursive: true });
      const killed = spawnSync(
        process.execPath,
        ["--import", PRELOAD, CLI, "rollback", "--to", "ARCHITECTURE", "--yes"],
        { cwd: p, env: { ...process.env, TORTURE_KILL_AT: String(n), NO_COLOR: "1" } },
      );
      if (killed.signal !== "SIGKILL") break;
      if (!existsSync(join(p, "memory/state/.rollback/journal.json"))) continue; // before the commit point (or after the end)
      checked++;
      if (process.env.ROLLBACK_KILL_COUNT) console.log(`kill point ${n}: after the commit`);
      const status = dotagent(p, ["status", "--json", ...NEVER]);
      expect(status.code, status.stderr).toBe(0);
      expect(status.json.situation).toBe("interrupted");
      expect(status.json.decision).toBeNull();
      expect(status.json.warnings.map((w: { code: string }) => w.code)).toContain("rollback_interrupted");
      const dry = dotagent(p, ["resume", "--dry-run", "--json", ...NEVER]);
      expect([dry.code, dry.json.situation, dry.json.decision]).toEqual([0, "interrupted", null]);
      const validate = dotagent(p, ["validate", "--json", ...NEVER]);
      expect([validate.code, validate.json.valid], JSON.stringify(validate.json)).toEqual([0, true]);
      expect(validate.json.warnings.map((w: { code: string }) => w.code)).toContain("rollback_interrupted");
      const doctor = dotagent(p, ["doctor", "--json", ...NEVER]);
      const state = doctor.json.checks.find((c: { name: string }) => c.name === "state");
      expect(state.status).toBe("warn");
      expect(state.message).toContain("cut off");
      expect(state.message).not.toMatch(/corrupt|error\(s\)/);
      const hook = dotagent(p, ["hook", "session-start"], { input: JSON.stringify({ source: "resume", cwd: p }) });
      expect(hook.stdout).not.toMatch(/corrupt|start fresh/i);
      expect(JSON.parse(hook.stdout).hookSpecificOutput.additionalContext).toContain("ARCHITECTURE");
      // What they showed is what resume does.
      const resumed = dotagent(p, ["resume", "--json", ...NEVER]);
      expect(resumed.code, resumed.stderr).toBe(0);
      for (const key of ["situation", "phase", "phase_status", "completed_phases", "next"])
        expect(resumed.json[key], key).toEqual(status.json[key]);
      expect(existsSync(join(p, "memory/state/.rollback"))).toBe(false);
      expect(dotagent(p, ["validate", ...NEVER]).code).toBe(0);
    }
    expect(checked).toBeGreaterThan(stride > 7 ? 1 : 3);
  }, 600_000);

  it.each([
    ["not JSON", "{"],
    [
      "a move out of the reports",
      JSON.stringify({
        format: 1,
        started_at: "2026-11-20T10:00:00Z",
        workflow_id: "wf-a",
        reason: "x",
        moves: ["../../victim.txt"],
        phase: {},
        execution: null,
        event: { type: "rolled_back" },
      }),
    ],
  ])(
    "a journal that is %s: readers and resume say rollback_journal_invalid (exit 3), never corrupt/fresh start; nothing moves",
    (_name, text) => {
      const p = tempProject();
      toImplementation(p, "wf-a", false);
      writeFileSync(join(p, "victim.txt"), "keep me");
      mkdirSync(join(p, "memory/state/.rollback"));
      writeFileSync(join(p, "memory/state/.rollback/journal.json"), text);
      const before = treeBytes(p);
      for (const args of [["status"], ["resume", "--dry-run"], ["validate"], ["resume"], ["doctor"]]) {
        const r = dotagent(p, [...args, "--json", ...NEVER]);
        expect([r.code, r.json?.error?.code], args.join(" ")).toEqual([3, "rollback_journal_invalid"]);
      }
      expect(treeBytes(p)).toEqual(before);
    },
  );
});

describe("issue 21, case 10: the yes/no commands of a decision keep --dir", () => {
  /**
   * Runs a decision's command as a person would paste it, in a shell from `cwd`: the shell parses
   * it (its quoting of --dir is what is checked) and its `dotagent` hands the words it got, and
   * the folder it ran in, to the built CLI run in the test worker's CLI host (a Node process fewer
   * a paste; issue 41). One dotagent call a command.
   */
  function paste(command: string, cwd: string): number {
    const stub = join(tempProject(), "dotagent");
    writeFileSync(stub, `#!/bin/sh\npwd >> "$0.cwd"\nprintf '%s\\0' "$@" > "$0.argv"\n`, { mode: 0o755 });
    const shell = spawnSync("/bin/sh", ["-c", `${command} >/dev/null 2>&1 </dev/null`], {
      cwd,
      env: { ...process.env, PATH: `${dirname(stub)}:${process.env.PATH}` },
    });
    if (shell.status !== 0 || !existsSync(`${stub}.argv`)) return shell.status ?? -1;
    const from = readFileSync(`${stub}.cwd`, "utf8").trimEnd().split("\n");
    expect(from, `${command}: one dotagent call`).toHaveLength(1);
    return dotagent(from[0]!, readFileSync(`${stub}.argv`, "utf8").split("\0").slice(0, -1)).code;
  }
  /** The project a decision is about (its folder has a space and a quote), and another one the person stands in. */
  function twoProjects(): { target: string; elsewhere: string } {
    const target = join(tempProject(), "my 'proj'");
    mkdirSync(target);
    const elsewhere = tempProject();
    ok(elsewhere, ["init", "--request", "other work"]);
    return { target, elsewhere };
  }

  it("corrupt state: status, resume --dry-run and resume name --dir in yes and no; the pasted yes archives that project, not the current one", () => {
    const { target, elsewhere } = twoProjects();
    ok(target, ["init", "--request", "add login"]);
    writeFileSync(join(target, "memory/state/phase.json"), "{garbage");
    // The first choice is the checkpoint `init` took (§5); no is the fresh start.
    for (const args of [["status"], ["resume", "--dry-run"], ["resume"]]) {
      const r = dotagent(elsewhere, [...args, "--dir", target, "--json"]);
      expect(r.json.decision.yes, args.join(" ")).toBe(
        `dotagent rollback --dir '${target.replace(/'/g, "'\\''")}' --to 1 --yes`,
      );
      expect(r.json.decision.no).toBe(
        `dotagent archive --dir '${target.replace(/'/g, "'\\''")}' --reason 'corrupt state'`,
      );
    }
    const elsewhereBefore = treeBytes(join(elsewhere, "memory"));
    const decision = dotagent(elsewhere, ["resume", "--dir", target, "--json"]).json.decision;
    expect(paste(decision.yes, elsewhere)).toBe(0);
    expect(dotagent(target, ["validate"]).code).toBe(0);
    writeFileSync(join(target, "memory/state/phase.json"), "{garbage");
    expect(paste(decision.no, elsewhere)).toBe(0);
    expect(existsSync(join(target, "memory/state/phase.json"))).toBe(false);
    expect(readdirSync(join(target, "memory/state/.archive")).filter((f) => f.endsWith(".tar.gz"))).toHaveLength(2);
    expect(treeBytes(join(elsewhere, "memory"))).toEqual(elsewhereBefore);
  });

  it("init over a workflow, rollback, and the request-changed decision: pasted from elsewhere they act on --dir's project", () => {
    const { target, elsewhere } = twoProjects();
    toImplementation(target, "wf-a", false);
    const elsewhereBefore = treeBytes(join(elsewhere, "memory"));
    const rollback = dotagent(elsewhere, ["rollback", "--to", "ARCHITECTURE", "--dir", target, "--json"]);
    expect(rollback.code).toBe(5);
    expect(rollback.json.decision.no).toContain("--dir '");
    expect(paste(rollback.json.decision.yes, elsewhere)).toBe(0);
    expect(readJson(target, "memory/state/phase.json").current_phase).toBe("ARCHITECTURE");
    const changed = dotagent(elsewhere, ["resume", "--request", "add logout", "--dir", target, "--json", ...NEVER]);
    expect(changed.json.decision.yes).toMatch(/^dotagent init --dir '.*' --request 'add logout' --yes$/);
    const init = dotagent(elsewhere, ["init", "--request", "add logout", "--dir", target, "--json"]);
    expect(init.code).toBe(5);
    expect(paste(init.json.decision.yes, elsewhere)).toBe(0);
    expect(readJson(target, "memory/state/phase.json").request).toBe("add logout");
    expect(treeBytes(join(elsewhere, "memory"))).toEqual(elsewhereBefore);
  });

  it("once: the cut-off run's question names --dir, and its pasted yes marks that project's op done", () => {
    const { target, elsewhere } = twoProjects();
    ok(target, ["init", "--request", "add login"]);
    // Killed after the command ran, before its result was recorded: the op is left `running`.
    const killed = spawnSync(
      process.execPath,
      ["--import", join(REPO, "test/torture/kill-at.mjs"), CLI, "once", "op-1", "--", "true"],
      { cwd: target, env: { ...process.env, TORTURE_KILL_AT: "renameSync:op.json:2" } },
    );
    expect(killed.signal).toBe("SIGKILL");
    const asked = dotagent(elsewhere, ["once", "op-1", "--dir", target, "--json", "--", "true"]);
    expect(asked.code).toBe(5);
    expect(asked.json.decision.yes).toMatch(/^dotagent once --dir '.*' op-1 --mark-done$/);
    expect(asked.json.decision.no).toMatch(/^dotagent once --dir '.*' op-1 --redo -- true$/);
    expect(paste(asked.json.decision.yes, elsewhere)).toBe(0);
    expect(readJson(target, "memory/state/once/op-1/op.json")).toMatchObject({ status: "done", how: "marked_done" });
    expect(existsSync(join(elsewhere, "memory/state/once"))).toBe(false);
  });

  it("without --dir the commands stay as they were", () => {
    const p = tempProject();
    ok(p, ["init", "--request", "add login"]);
    writeFileSync(join(p, "memory/state/phase.json"), "{garbage");
    expect(dotagent(p, ["status", "--json"]).json.decision).toMatchObject({
      yes: "dotagent rollback --to 1 --yes",
      no: "dotagent archive --reason 'corrupt state'",
    });
  });
});

describe("issue 21, case 10 (library): openWorkflow(dir) decisions name that dir", () => {
  it("status, resume and rollback of openWorkflow(dir) carry --dir dir in yes and no", async () => {
    const { openWorkflow } = await import("../src/api/workflow.js");
    const p = tempProject();
    toImplementation(p, "wf-a", false);
    const wf = openWorkflow(p);
    expect((await wf.rollback("ARCHITECTURE")).decision).toMatchObject({
      yes: `dotagent rollback --dir ${p} --to ARCHITECTURE --yes`,
      no: `dotagent resume --dir ${p}`,
    });
    writeFileSync(join(p, "memory/state/phase.json"), "{garbage");
    expect((await wf.status()).decision).toMatchObject({
      yes: expect.stringMatching(new RegExp(`^dotagent rollback --dir ${p} --to \\d+ --yes$`)),
    });
    expect((await wf.resume()).decision).toMatchObject({ no: `dotagent archive --dir ${p} --reason 'corrupt state'` });
  });
});

describe("issue 21, case 12 (library): a bad callback or clock is a DotagentError, never a crash of the host", () => {
  it("an onStdout that throws: once() rejects with usage, the command ran to its end and is recorded, the next call replays it", async () => {
    const { openWorkflow } = await import("../src/api/workflow.js");
    const p = tempProject();
    ok(p, ["init", "--request", "x"]);
    const wf = openWorkflow(p);
    const command = [
      process.execPath,
      "-e",
      "process.stdout.write('one'); setTimeout(() => process.stdout.write('two'), 50)",
    ];
    const error = await wf
      .once("op-1", command, {
        onStdout: () => {
          throw new Error("boom");
        },
      })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "DotagentError", code: "usage", exitCode: 2 });
    expect((error as Error).message).toContain("onStdout threw (boom)");
    expect(readJson(p, "memory/state/once/op-1/op.json")).toMatchObject({
      status: "done",
      exit_code: 0,
      stdout: "onetwo",
    });
    expect(await wf.once("op-1", command)).toMatchObject({ outcome: "replayed", stdout: "onetwo" });
  });

  it.each([
    ["a string", () => "2026-11-20T10:00:00Z"],
    ["an Invalid Date", () => new Date("garbage")],
    ["a number", () => 1_700_000_000_000],
    ["undefined", () => undefined],
  ])("a now() returning %s: every call rejects with usage (exit 2) and writes nothing", async (_name, now) => {
    const { openWorkflow } = await import("../src/api/workflow.js");
    const p = tempProject();
    const wf = openWorkflow(p, { now: now as unknown as () => Date });
    for (const call of [() => wf.init("x"), () => wf.status(), () => wf.resume()]) {
      await expect(call()).rejects.toMatchObject({
        name: "DotagentError",
        code: "usage",
        exitCode: 2,
        message: expect.stringContaining("options.now() must return a valid Date"),
      });
    }
    expect(existsSync(join(p, "memory"))).toBe(false);
  });

  it.each([
    ["now", 5],
    ["onWarning", "loud"],
    ["options", null],
  ])("openWorkflow with %s = %j: usage at once", async (name, value) => {
    const { openWorkflow } = await import("../src/api/workflow.js");
    const options = name === "options" ? value : { [name]: value };
    expect(() => openWorkflow(tempProject(), options as never)).toThrow(
      expect.objectContaining({ code: "usage", exitCode: 2 }),
    );
  });
});

describe("issue 21, case 11 (library): openWorkflow's lock wait does not block the event loop", () => {
  it("a call waiting for another process's state lock lets timers run, then rejects with locked (exit 4)", async () => {
    const { openWorkflow } = await import("../src/api/workflow.js");
    const { acquireLock } = await import("../src/store/lock.js");
    const p = tempProject();
    ok(p, ["init", "--request", "x"]);
    const holder = acquireLock(join(p, "memory/state"), { command: "someone" });
    const saved = process.env.DOTAGENT_LOCK_WAIT_MS;
    process.env.DOTAGENT_LOCK_WAIT_MS = "600";
    try {
      let ticks = 0;
      const timer = setInterval(() => ticks++, 20);
      await expect(openWorkflow(p).phase.start("REQUIREMENTS")).rejects.toMatchObject({ code: "locked", exitCode: 4 });
      clearInterval(timer);
      expect(ticks).toBeGreaterThan(5);
    } finally {
      process.env.DOTAGENT_LOCK_WAIT_MS = saved;
      if (saved === undefined) delete process.env.DOTAGENT_LOCK_WAIT_MS;
      holder.release();
    }
  });
});

describe('issue 21, case 13 (history part): an unreadable .history is unreadable, never "no checkpoints"', () => {
  // As root the disk refuses nothing; src/store/checkpoints-unreadable.test.ts makes the same refusal with a wrapped node:fs.
  it.skipIf(process.getuid?.() === 0)(
    "history, history show and rollback --to REV: state_unreadable (exit 3) naming the folder",
    () => {
      const p = tempProject();
      toImplementation(p, "wf-a", false);
      const history = join(p, "memory/state/.history");
      chmodSync(history, 0o000);
      try {
        for (const args of [["history"], ["history", "show", "1"], ["rollback", "--to", "1", "--yes"]]) {
          const r = dotagent(p, [...args, "--json"]);
          expect([r.code, r.json.error.code], args.join(" ")).toEqual([3, "state_unreadable"]);
          expect(r.json.error.path).toBe("memory/state/.history");
        }
      } finally {
        chmodSync(history, 0o755);
      }
    },
  );
});
