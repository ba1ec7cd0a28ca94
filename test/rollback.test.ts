// `dotagent rollback` through the built CLI: from each stage to the start of each phase (the plan
// after it is what the phase table says; every pair's plan is src/core/rollback.test.ts's table), to
// a checkpoint, nothing deleted, and kill -9 at every step.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PHASE_TABLE, PHASES, type Phase } from "../src/core/phases.js";
import {
  CLI,
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
const PRELOAD = join(CLI, "../../test/torture/kill-at.mjs");

/** Each phase with its work under way (outputs written, gated ones approved), and the finished workflow. */
type Stage = Phase | "COMPLETE";
const stages = new Map<Stage, string>();
let base: string;

function ok(p: string, args: string[]): void {
  const r = dotagent(p, args);
  expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
}

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), "dotagent-rollback-stages-"));
  const p = join(base, "live");
  const keep = (stage: Stage) => {
    cpSync(p, join(base, stage), { recursive: true });
    stages.set(stage, join(base, stage));
  };
  mkdirSync(p); // --dir must name an existing folder (§2)
  ok(p.replace(/live$/, ""), ["init", "--dir", p, "--request", "add login"]);
  writeJson(p, "memory/reports/demand.json", { stories: ["sign in"] });
  keep("REQUIREMENTS"); // the report written, not yet approved (approving completes the phase)
  ok(p, ["phase", "approve", "--dir", p]);
  writeJson(p, "memory/reports/designs/a.json", { name: "a" });
  writeJson(p, "memory/reports/designs/b.json", { name: "b" });
  writeJson(p, "memory/reports/roundtable.json", { pick: "a" });
  writeJson(p, "memory/reports/final_design.json", { chosen: "a" });
  keep("ARCHITECTURE");
  ok(p, ["phase", "approve", "--dir", p]);
  writeJson(p, "tasks.json", [{ id: "t1" }, { id: "t2", depends_on: ["t1"] }]);
  ok(p, ["task", "import", "tasks.json", "--dir", p]);
  for (const id of ["t1", "t2"]) {
    ok(p, ["task", "start", id, "--dir", p]);
    writeJson(p, `memory/reports/tasks/${id}.json`, { task_id: id, status: "complete" });
    ok(p, ["task", "complete", id, "--dir", p]);
    if (id === "t1") keep("IMPLEMENTATION");
  } // the last task's completion completes IMPLEMENTATION
  writeJson(p, "memory/reports/verification.json", { passed: true });
  keep("VERIFICATION");
  ok(p, ["phase", "complete", "--dir", p]);
  writeJson(p, "memory/reports/reflection.md", "# What we learned\n");
  keep("REFLECTION");
  ok(p, ["phase", "complete", "--dir", p]);
  keep("COMPLETE");
}, 600_000);

afterAll(() => rmSync(base, { recursive: true, force: true }));

function copyOf(stage: Stage): string {
  const p = tempProject();
  cpSync(stages.get(stage)!, p, { recursive: true });
  return p;
}

const ORDER: Stage[] = [...PHASES, "COMPLETE"];
const reportFiles = (p: string) => Object.keys(treeBytes(join(p, "memory/reports"))).sort();
/** The next action the phase table names for a phase started afresh. */
const expectedNext = (phase: Phase) =>
  phase === "IMPLEMENTATION" ? { action: "plan_tasks" } : { action: "spawn_agent", agent: PHASE_TABLE[phase]!.agent };

describe("rollback from each stage, to the start of each phase", () => {
  /**
   * One pair from each stage and one to each phase, each kind of step among them: to the start of
   * the phase it is in (REQUIREMENTS, mid-IMPLEMENTATION), back one phase and its approval, back
   * over IMPLEMENTATION (execution.json goes), back to a phase after it (execution.json stays),
   * from the finished workflow. The plan of each of the 21 pairs (which reports move, the phase
   * state after, execution.json kept or not) is a table test of the pure plan:
   * src/core/rollback.test.ts, "planRollback from every stage to the start of every phase up to it".
   */
  const pairs: Array<readonly [Stage, Phase]> = [
    ["REQUIREMENTS", "REQUIREMENTS"],
    ["ARCHITECTURE", "REQUIREMENTS"],
    ["IMPLEMENTATION", "IMPLEMENTATION"],
    ["VERIFICATION", "ARCHITECTURE"],
    ["REFLECTION", "VERIFICATION"],
    ["COMPLETE", "REFLECTION"],
  ];
  it("one from each stage, one to each phase", () => {
    expect(new Set(pairs.map(([from]) => from))).toEqual(new Set(ORDER));
    expect(new Set(pairs.map(([, to]) => to))).toEqual(new Set(PHASES));
  });

  it.each(pairs)("from %s to the start of %s", (from, to) => {
    const p = copyOf(from);
    const before = reportFiles(p);
    const r = dotagent(p, ["rollback", "--to", to.toLowerCase(), "--yes", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ rolled_back: true, to: { phase: to, phase_status: "pending" }, decision: null });
    // The reports that moved are exactly those of this phase and later ones; the rest stay.
    const after = reportFiles(p);
    expect(before.filter((f) => !after.includes(f)).map((f) => `memory/reports/${f}`)).toEqual(r.json.moves);
    expect(after.every((f) => before.includes(f))).toBe(true);
    const laterPhase = PHASES.slice(PHASES.indexOf(to));
    const owned = (f: string, phase: Phase) =>
      (
        ({
          REQUIREMENTS: /^demand/,
          ARCHITECTURE: /^(designs\/|roundtable|final_design)/,
          IMPLEMENTATION: /^tasks\//,
          VERIFICATION: /^verification/,
          REFLECTION: /^reflection/,
        }) as Record<string, RegExp>
      )[phase]!.test(f);
    expect(after.filter((f) => laterPhase.some((ph) => owned(f, ph)))).toEqual([]);
    expect(before.filter((f) => !laterPhase.some((ph) => owned(f, ph)))).toEqual(after);
    expect(existsSync(join(p, "memory/state/execution.json"))).toBe(
      PHASES.indexOf(to) > PHASES.indexOf("IMPLEMENTATION"),
    );
    // The state is valid and the next action is what the phase table says.
    expect(dotagent(p, ["validate", ...NEVER]).code).toBe(0);
    const status = dotagent(p, ["status", "--json", ...NEVER]).json;
    expect(status).toMatchObject({
      phase: to,
      completed_phases: PHASES.slice(0, PHASES.indexOf(to)),
      next: expectedNext(to),
    });
    const phase = readJson(p, "memory/state/phase.json");
    expect(phase.user_checkpoints.map((c: { phase: string }) => c.phase)).toEqual(
      ["REQUIREMENTS", "ARCHITECTURE"].filter((ph) => PHASES.indexOf(ph as Phase) < PHASES.indexOf(to)),
    );
    expect(phase.revision).toBe(readJson(stages.get(from)!, "memory/state/phase.json").revision + 1);
    if (r.json.moves.length > 0) expect(r.json.archive).toMatch(/^wf-add-login_\d{8}T\d{6}Z(-\d+)?\.tar\.gz$/);
    expect(dotagent(p, ["history", "--json"]).json.checkpoints.at(-1)).toMatchObject({
      event: "rolled_back",
      phase: to,
    });
  });
});

describe("rollback: nothing is deleted", () => {
  it("the archive restores the state from before the rollback, byte for byte", () => {
    const p = copyOf("COMPLETE");
    const r = dotagent(p, ["rollback", "--to", "ARCHITECTURE", "--yes", "--json"]);
    expect(dotagent(p, ["archive", "restore", r.json.archive]).code).toBe(0);
    expect(treeBytes(join(p, "memory/reports"))).toEqual(treeBytes(join(stages.get("COMPLETE")!, "memory/reports")));
    expect(readJson(p, "memory/state/phase.json")).toEqual(
      readJson(stages.get("COMPLETE")!, "memory/state/phase.json"),
    );
    expect(readJson(p, "memory/state/execution.json")).toEqual(
      readJson(stages.get("COMPLETE")!, "memory/state/execution.json"),
    );
  });

  it("keeps the same retention as every archive: newest five", () => {
    const p = copyOf("COMPLETE");
    for (let i = 0; i < 7; i++) {
      dotagent(p, ["rollback", "--to", "REFLECTION", "--yes"]);
      writeJson(p, "memory/reports/reflection.md", `# take ${i}\n`);
      ok(p, ["phase", "complete", "REFLECTION"]);
    }
    expect(readdirSync(join(p, "memory/state/.archive")).filter((n) => n.endsWith(".tar.gz"))).toHaveLength(5);
  });
});

describe("rollback to a checkpoint", () => {
  it("returns to the exact state of that revision; later task outputs move", () => {
    const p = copyOf("VERIFICATION");
    const list = dotagent(p, ["history", "--json"]).json.checkpoints as Array<{ rev: number; what: string }>;
    const t1 = list.find((c) => c.what === "task t1 completed")!;
    const held = dotagent(p, ["history", "show", String(t1.rev), "--json"]).json;
    const r = dotagent(p, ["rollback", "--to", String(t1.rev), "--yes", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.moves).toEqual(["memory/reports/tasks/t2.json", "memory/reports/verification.json"]);
    const { revision: _r, last_updated: _l, ...phase } = readJson(p, "memory/state/phase.json");
    const { revision: _hr, last_updated: _hl, ...heldPhase } = held.phase_state;
    expect(phase).toEqual(heldPhase);
    expect(readJson(p, "memory/state/execution.json").tasks).toEqual(held.execution.tasks);
    expect(dotagent(p, ["status", "--json", ...NEVER]).json.next).toMatchObject({ action: "run_tasks", tasks: ["t2"] });
  });

  it("refuses a checkpoint whose reports an earlier rollback archived, and changes nothing", () => {
    const p = copyOf("VERIFICATION");
    const rev = (dotagent(p, ["history", "--json"]).json.checkpoints as Array<{ rev: number; what: string }>).find(
      (c) => c.what === "ARCHITECTURE completed",
    )!.rev;
    ok(p, ["rollback", "--to", "REQUIREMENTS", "--yes"]);
    const tree = treeBytes(join(p, "memory"));
    const r = dotagent(p, ["rollback", "--to", String(rev), "--yes"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("needs memory/reports/demand.json, memory/reports/final_design.json");
    expect(treeBytes(join(p, "memory"))).toEqual(tree);
  });
});

describe("rollback: a decision, and bad input", () => {
  it("without a terminal and without --yes: exit 5 with the decision, nothing changed", () => {
    const p = copyOf("IMPLEMENTATION");
    const tree = treeBytes(join(p, "memory"));
    const r = dotagent(p, ["rollback", "--to", "ARCHITECTURE", "--json"]);
    expect(r.code).toBe(5);
    expect(r.json).toMatchObject({
      rolled_back: false,
      decision: { default: false, yes: "dotagent rollback --to ARCHITECTURE --yes", no: "dotagent resume" },
    });
    expect(r.json.decision.question).toContain(
      "back from IMPLEMENTATION (pending) to the start of ARCHITECTURE? 5 report files move into an archive",
    );
    expect(treeBytes(join(p, "memory"))).toEqual(tree);
  });

  it("refuses when a report cannot be archived (a link), and changes nothing", () => {
    const p = copyOf("IMPLEMENTATION");
    symlinkSync("/etc/hostname", join(p, "memory/reports/designs/link.json"));
    const tree = treeBytes(join(p, "memory/state"));
    const r = dotagent(p, ["rollback", "--to", "REQUIREMENTS", "--yes"]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      "dotagent: memory/reports/designs/link.json cannot be archived (a link, a special file or over 64 MiB), and a rollback keeps what it moves only in an archive; nothing was changed. for the person: move it out of memory/reports, then run the command again",
    );
    expect(treeBytes(join(p, "memory/state"))).toEqual(tree);
    expect(existsSync(join(p, "memory/reports/demand.json"))).toBe(true);
  });

  it.each([
    [["rollback"], 2, "needs --to"],
    [["rollback", "--to", "LATER"], 2, "--to takes a phase"],
    [["rollback", "--to", "0"], 2, "--to takes a phase"],
    [
      ["rollback", "--to", "VERIFICATION", "--yes"],
      1,
      "rollback only goes back: VERIFICATION comes after the current phase IMPLEMENTATION",
    ],
    [["rollback", "--to", "999", "--yes"], 1, "there is no checkpoint 999"],
  ])("%j → exit %i", (args, code, text) => {
    const p = copyOf("IMPLEMENTATION");
    const r = dotagent(p, args);
    expect(r.code).toBe(code);
    expect(r.stderr).toContain(text);
    expectNoStack(r.stderr);
  });
});

describe("rollback: kill -9 at every step leaves the old state or the new one", () => {
  it("the next command finishes a committed rollback, or there was none; nothing is lost", async () => {
    const original = stages.get("COMPLETE")!;
    const allReports = reportFiles(original);
    const originalPhase = readJson(original, "memory/state/phase.json");
    // Each kill point works on its own copy, so three run at once (the steps wait on child processes).
    const checkPoint = async (n: number): Promise<"killed" | "finished"> => {
      const p = copyOf("COMPLETE");
      const killed = await run(
        process.execPath,
        ["--import", PRELOAD, CLI, "rollback", "--to", "ARCHITECTURE", "--yes"],
        p,
        { TORTURE_KILL_AT: String(n) },
      );
      if (killed.signal !== "SIGKILL") {
        expect(killed.code, killed.stderr).toBe(0);
        return "finished";
      }
      // The commands after the kill need no process of their own: the CLI host runs them (a
      // process each cost most of this test's CPU).
      const next = dotagent(p, ["resume", "--json", ...NEVER]);
      expect(next.code, next.stderr).toBe(0);
      expect(dotagent(p, ["validate", ...NEVER]).code).toBe(0);
      const phase = readJson(p, "memory/state/phase.json");
      const live = reportFiles(p);
      if (phase.current_phase === "ARCHITECTURE") {
        expect(live).toEqual(["demand.json"]);
        expect(existsSync(join(p, "memory/state/execution.json"))).toBe(false);
        expect(readdirSync(join(p, "memory/state/.archive")).filter((f) => f.endsWith(".tar.gz"))).toHaveLength(1);
      } else {
        expect(phase).toEqual(originalPhase);
        expect(live).toEqual(allReports);
      }
      expect(readdirSync(join(p, "memory/state")).filter((f) => f.startsWith(".rollback"))).toEqual([]);
      return "killed";
    };
    let steps = 0;
    let end = Number.POSITIVE_INFINITY; // the first kill point past the rollback's last disk change
    let next = 1;
    // Every 19th write point in `npm test` (CI's time is bounded); ROLLBACK_KILL_STRIDE=1 tries each.
    const stride = Math.max(1, Number(process.env.ROLLBACK_KILL_STRIDE ?? 19) || 19);
    const lane = async (): Promise<void> => {
      while (next < end) {
        const n = next;
        next += stride;
        if ((await checkPoint(n)) === "finished") end = Math.min(end, n);
        else steps++;
      }
    };
    await Promise.all([lane(), lane(), lane()]);
    expect(Number.isFinite(end)).toBe(true);
    expect(steps).toBeGreaterThan(stride > 5 ? 5 : 20);
  }, 900_000);
});

/** A child process, awaited without blocking the other lanes. */
function run(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, NO_COLOR: "1", DOTAGENT_LOCK_WAIT_MS: "300", ...env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stderr }));
  });
}
