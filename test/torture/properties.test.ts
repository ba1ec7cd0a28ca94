// Properties (fast-check, bounded runs; TORTURE_MODEL_RUNS, TORTURE_CLI_RUNS, TORTURE_CORRUPT_RUNS
// raise them):
// (a) any sequence of valid operations keeps `validate` error-free and the phase order legal, and
//     resume is idempotent. Most runs drive the library's pure functions against an in-memory
//     disk (what the CLI does, minus the disk); a few drive the built CLI with the same operations
//     and check it ends up where the pure model does, step by step.
// (b) any byte-level corruption of phase.json or execution.json (truncation, a flipped byte,
//     injected garbage, a value of the wrong type): `validate` exits 3, `resume` (no terminal)
//     says corrupt and exits 5, `status --json` exits 0 and says corrupt, no stack trace, and the
//     corrupt file is byte-identical afterwards: never a silent repair.
import { cpSync, mkdirSync, readdirSync, writeFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { PHASES, REPORT, type Phase } from "../../src/core/phases.js";
import { judgeReport, presentReport, reportAt, reportKind, type ReportSnapshot } from "../../src/core/reports.js";
import {
  addTasks,
  completeTask,
  emptyExecution,
  failTask,
  outputOf,
  retryTask,
  type NewTask,
  type TaskResult,
} from "../../src/core/tasks.js";
import { importPlan, startPlannedTask, type ImportResult } from "../../src/core/plans.js";
import { createWorkflow, transition, type PhaseEvent } from "../../src/core/transitions.js";
import { planResume } from "../../src/core/plan-resume.js";
import { validateState } from "../../src/core/validate.js";
import type { StateSnapshot } from "../../src/core/snapshot.js";
import type { PhaseState } from "../../src/schema/phase.js";
import type { ExecutionState } from "../../src/schema/execution.js";
import {
  archiveNames,
  describeRun,
  envInt,
  makeProject,
  makeTempDir,
  parseStdoutJson,
  readBytes,
  readState,
  recordFigures,
  removeTempDir,
  removeTempDirs,
  runCli,
  stackLines,
  stateLeftovers,
  validationErrors,
  writeReport,
} from "./helpers.js";

const MODEL_RUNS = envInt("TORTURE_MODEL_RUNS", 500);
const CLI_RUNS = envInt("TORTURE_CLI_RUNS", 1);
const CORRUPT_RUNS = envInt("TORTURE_CORRUPT_RUNS", 6);
const SEED = process.env.TORTURE_SEED ? Number(process.env.TORTURE_SEED) : undefined;

afterAll(removeTempDirs);

// ---------------------------------------------------------------------------------------------
// Operations, as data: the same list drives the pure model and the CLI.

type ReportName = "demand" | "design" | "roundtable" | "final" | "reflection";
type Op =
  | { t: "init" }
  | { t: "report"; which: ReportName }
  | { t: "verification"; passed: boolean }
  | { t: "phase"; action: "start" | "complete" | "fail" | "approve"; phase?: Phase }
  | { t: "rework" }
  | { t: "add"; n: number; dep: number | null }
  /** `task import` of a whole plan: each task t<n> with title "task <n>", like add. */
  | { t: "import"; tasks: Array<{ n: number; dep: number | null }> }
  | { t: "start" | "complete" | "fail"; n: number }
  | { t: "output"; n: number; status: "complete" | "failed" }
  | { t: "retry"; n: number; extra: number }
  | { t: "resume" }
  /** Whatever a sensible agent would do next (expanded on the model into the operations above). */
  | { t: "agent"; passed: boolean };

const REPORT_PATH: Record<ReportName, string> = {
  demand: REPORT.demand,
  design: `${REPORT.designsDir}/a.json`,
  roundtable: REPORT.roundtable,
  final: REPORT.finalDesign,
  reflection: REPORT.reflectionMd,
};

const taskN = fc.integer({ min: 1, max: 4 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 1, arbitrary: fc.constant<Op>({ t: "init" }) },
  {
    weight: 4,
    arbitrary: fc
      .constantFrom<ReportName>("demand", "design", "roundtable", "final", "reflection")
      .map((which): Op => ({ t: "report", which })),
  },
  { weight: 2, arbitrary: fc.boolean().map((passed): Op => ({ t: "verification", passed })) },
  {
    weight: 6,
    arbitrary: fc
      .record({
        action: fc.constantFrom("start", "complete", "complete", "fail", "approve", "approve"),
        phase: fc.oneof(
          { weight: 3, arbitrary: fc.constant(undefined) },
          { weight: 1, arbitrary: fc.constantFrom(...PHASES) },
        ),
      })
      .map((r): Op => ({
        t: "phase",
        action: r.action as "start",
        ...(r.phase === undefined ? {} : { phase: r.phase }),
      })),
  },
  { weight: 1, arbitrary: fc.constant<Op>({ t: "rework" }) },
  {
    weight: 4,
    arbitrary: fc.record({ n: taskN, dep: fc.option(taskN, { nil: null }) }).map((r): Op => ({ t: "add", ...r })),
  },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.record({ n: taskN, dep: fc.option(taskN, { nil: null }) }), { minLength: 1, maxLength: 3 })
      .map((tasks): Op => ({ t: "import", tasks })),
  },
  {
    weight: 8,
    arbitrary: fc.record({ t: fc.constantFrom("start", "complete", "fail"), n: taskN }).map((r) => r as Op),
  },
  {
    weight: 5,
    arbitrary: fc
      .record({ n: taskN, status: fc.constantFrom("complete", "complete", "failed") })
      .map((r): Op => ({ t: "output", n: r.n, status: r.status as "complete" })),
  },
  {
    weight: 1,
    arbitrary: fc.record({ n: taskN, extra: fc.integer({ min: 0, max: 2 }) }).map((r): Op => ({ t: "retry", ...r })),
  },
  { weight: 3, arbitrary: fc.constant<Op>({ t: "resume" }) },
  { weight: 12, arbitrary: fc.boolean().map((passed): Op => ({ t: "agent", passed })) },
);

function planOf(tasks: ReadonlyArray<{ n: number; dep: number | null }>): NewTask[] {
  return tasks.map(({ n, dep }) => ({ id: `t${n}`, title: `task ${n}`, depends_on: dep === null ? [] : [`t${dep}`] }));
}

function describeOp(op: Op): string {
  return JSON.stringify(op);
}

// ---------------------------------------------------------------------------------------------
// The pure model: state files and reports in memory, changed only through the library's functions

class ModelDisk {
  phase: PhaseState | undefined;
  execution: ExecutionState | undefined;
  readonly reports = new Map<string, string>();
  private clock = Date.parse("2026-11-20T09:00:00Z");

  now(): Date {
    this.clock += 1000;
    return new Date(this.clock);
  }

  reportSnapshot(): ReportSnapshot {
    const files = new Map<string, ReturnType<typeof judgeReport>>();
    for (const [path, text] of this.reports) files.set(path, judgeReport(reportKind(path), text));
    // execution.json is IMPLEMENTATION's output; the store reports it like any other output file.
    if (this.execution) files.set(REPORT.execution, { status: "exists" });
    const designs = [...this.reports.keys()]
      .filter((p) => p.startsWith(`${REPORT.designsDir}/`) && p.endsWith(".json") && files.get(p)!.status === "valid")
      .sort();
    return { files, designs };
  }

  snapshot(): StateSnapshot {
    return {
      phase: this.phase
        ? { kind: "ok", file: "memory/state/phase.json", value: this.phase, stamp: "m" }
        : { kind: "missing", file: "memory/state/phase.json" },
      execution: this.execution
        ? { kind: "ok", file: "memory/state/execution.json", value: this.execution, stamp: "m" }
        : { kind: "missing", file: "memory/state/execution.json" },
      reports: this.reportSnapshot(),
      tempFiles: [],
    };
  }

  move(from: string, to: string): void {
    const text = this.reports.get(from);
    if (text === undefined) return;
    this.reports.delete(from);
    this.reports.set(to, text);
  }

  /**
   * What every command that records a step does after its write (src/ops/settle.ts): the planner's
   * own steps, with every owner gone (the CLI runs with a dead CLAUDE_PID) except the task this
   * very command started.
   */
  settle(started?: string): void {
    if (!this.phase) return;
    const owners = new Map(started === undefined ? [] : [[started, "live" as const]]);
    const plan = planResume(this.snapshot(), this.now(), { staleAfterMs: Number.POSITIVE_INFINITY, owners });
    if (plan.decision !== null) return;
    for (const m of plan.writes.moves) this.move(m.from, m.to);
    if (plan.writes.execution) this.execution = plan.writes.execution;
    if (plan.writes.phase) this.phase = plan.writes.phase;
  }

  /** Applies one operation as the CLI would; false when the CLI would refuse it (nothing changes). */
  apply(op: Op): boolean {
    const applied = this.applyOnly(op);
    if (applied && op.t !== "report" && op.t !== "verification" && op.t !== "output" && op.t !== "resume")
      this.settle(op.t === "start" ? `t${op.n}` : undefined);
    return applied;
  }

  private applyOnly(op: Op): boolean {
    const now = this.now();
    switch (op.t) {
      case "init":
        if (this.phase || this.execution) return false; // the CLI asks first (exit 5 without a terminal)
        this.phase = createWorkflow("wf-prop", "property", now);
        return true;
      case "report":
        this.reports.set(
          REPORT_PATH[op.which],
          op.which === "reflection" ? "# done\n" : JSON.stringify({ by: op.which }),
        );
        return true;
      case "verification":
        this.reports.set(REPORT.verification, JSON.stringify({ passed: op.passed }));
        return true;
      case "output":
        this.reports.set(
          `${REPORT.tasksDir}/t${op.n}.json`,
          JSON.stringify({ task_id: `t${op.n}`, status: op.status }),
        );
        return true;
      case "phase":
      case "rework": {
        if (!this.phase) return false;
        const event = (op.t === "rework" ? { type: "rework" } : { type: op.action, phase: op.phase }) as PhaseEvent;
        const outcome = transition(this.phase, event, {
          reports: this.reportSnapshot(),
          execution: this.execution,
          now,
        });
        if (!outcome.ok) return false;
        for (const effect of outcome.effects) this.move(effect.from, effect.to);
        this.phase = outcome.state;
        return true;
      }
      case "agent":
        throw new Error("expand() agent operations first");
      case "resume": {
        if (!this.phase) return true; // nothing to resume: exit 0, nothing written
        const plan = planResume(this.snapshot(), now, { staleAfterMs: Number.POSITIVE_INFINITY });
        if (plan.decision !== null) throw new Error(`the model reached a decision: ${plan.next.reason}`);
        for (const m of plan.writes.moves) this.move(m.from, m.to);
        if (plan.writes.execution) this.execution = plan.writes.execution;
        if (plan.writes.phase) this.phase = plan.writes.phase;
        return true;
      }
      case "import": {
        if (!this.phase) return false;
        const result = importPlan(
          this.execution ?? emptyExecution(this.phase.workflow_id, now),
          this.phase,
          planOf(op.tasks),
          now,
        );
        if (!result.ok) return false;
        this.execution = result.state;
        return true;
      }
      default: {
        if (!this.phase) return false;
        const id = `t${op.n}`;
        const execution = this.execution ?? emptyExecution(this.phase.workflow_id, now);
        let result: TaskResult | ImportResult;
        if (op.t === "add") {
          const dep = op.dep === null ? [] : [`t${op.dep}`];
          result = addTasks(execution, [{ id, title: `task ${op.n}`, depends_on: dep }], now);
        } else if (op.t === "start") result = startPlannedTask(execution, this.phase, id, now);
        else if (op.t === "complete") result = completeTask(execution, id, this.reportSnapshot(), now);
        else if (op.t === "fail") result = failTask(execution, id, "red", now);
        else if (op.t === "retry") result = retryTask(execution, id, op.extra, now);
        else throw new Error(`unknown operation ${describeOp(op)}`);
        if (!result.ok) return false;
        if (op.t === "start") {
          // The CLI sets an earlier attempt's output aside before a new attempt starts.
          const task = execution.tasks.find((t) => t.id === id)!;
          const stale = outputOf(task);
          const state = reportAt(this.reportSnapshot(), stale);
          if (presentReport(state) || state.status === "invalid")
            this.move(stale, stale.replace(/\.json$/, `.attempt-${task.attempts}-${now.getTime()}.json`));
        }
        this.execution = result.state;
        return true;
      }
    }
  }
}

/** The concrete operations an agent following the resume plan would do next, on this model. */
function expand(model: ModelDisk, op: Op): Op[] {
  if (op.t !== "agent") return [op];
  if (!model.phase) return [{ t: "init" }];
  const plan = planResume(model.snapshot(), new Date(Date.parse("2026-11-20T09:00:00Z") + 86400_000), {
    staleAfterMs: Number.POSITIVE_INFINITY,
  });
  if (plan.repairs.length > 0) return [{ t: "resume" }];
  const next = plan.next;
  const ids = model.execution?.tasks.map((t) => t.id) ?? [];
  const free = [1, 2, 3, 4].find((n) => !ids.includes(`t${n}`));
  switch (next.action) {
    case "spawn_agent":
      if (next.agent === "pm") return [{ t: "report", which: "demand" }];
      if (next.agent === "architect") return [{ t: "report", which: "design" }];
      if (next.agent === "roundtable") return [{ t: "report", which: "roundtable" }];
      if (next.agent === "qa") return [{ t: "verification", passed: op.passed }];
      if (next.agent === "reflector") return [{ t: "report", which: "reflection" }];
      return [{ t: "phase", action: "complete" }];
    case "await_approval":
      if (model.phase.current_phase === "ARCHITECTURE" && !model.reports.has(REPORT.finalDesign))
        return [{ t: "report", which: "final" }];
      return [{ t: "phase", action: "approve" }];
    case "plan_tasks": {
      // The whole plan: the tasks already there (added one by one), verbatim, and a new one.
      const existing = (model.execution?.tasks ?? []).map((t) => ({
        n: Number(t.id.slice(1)),
        dep: t.depends_on?.[0] === undefined ? null : Number(t.depends_on[0].slice(1)),
      }));
      return [{ t: "import", tasks: free === undefined ? existing : [...existing, { n: free, dep: null }] }];
    }
    case "run_tasks": {
      const id = next.tasks[0] ?? model.execution?.tasks.find((t) => t.status === "running")?.id;
      if (id === undefined) return [];
      const n = Number(id.slice(1));
      const start: Op[] = next.tasks.length > 0 ? [{ t: "start", n }] : [];
      return [
        ...start,
        { t: "output", n, status: op.passed ? "complete" : "failed" },
        { t: op.passed ? "complete" : "fail", n },
      ];
    }
    case "await_agents": {
      const id = model.execution?.tasks.find((t) => t.status === "running")?.id;
      if (id === undefined) return [];
      const n = Number(id.slice(1));
      return [
        { t: "output", n, status: op.passed ? "complete" : "failed" },
        { t: op.passed ? "complete" : "fail", n },
      ];
    }
    case "resolve_dead_tasks":
      return [{ t: "retry", n: Number(next.tasks[0]!.slice(1)), extra: 2 }];
    case "resolve_failed_agent":
      // The person said go on: the phase starts again (their prompt does it in Claude Code).
      return [{ t: "phase", action: "start" }];
    default:
      return [];
  }
}

/** What must agree between the model and the CLI (no timestamps, no attempt-copy times). */
function summary(phase: PhaseState | undefined, execution: ExecutionState | undefined, reports: readonly string[]) {
  return {
    phase: phase
      ? {
          current: phase.current_phase,
          status: phase.phase_status,
          completed: phase.completed_phases.map((c) => c.phase),
          approved: phase.user_checkpoints.map((c) => c.phase).sort(),
          round: phase.rework?.round ?? 0,
          safe: phase.interruption_safe,
        }
      : null,
    tasks: (execution?.tasks ?? []).map((t) => `${t.id}:${t.status}:${t.attempts}:${t.max_attempts ?? "-"}`),
    plans: (execution?.plans ?? []).map((p) => `${p.round}:${p.tasks}`),
    reports: reports.map((r) => r.replace(/\.attempt-(\d+)-\d+\.json$/, ".attempt-$1.json")).sort(),
  };
}

function problemsOf(model: ModelDisk): string[] {
  const out: string[] = [];
  const snapshot = model.snapshot();
  const { errors } = validateState(snapshot, new Date(Date.parse("2026-11-20T09:00:00Z") + 10 * 86400_000), {
    staleAfterMs: Number.POSITIVE_INFINITY,
  });
  out.push(...errors.map((e) => `validate: ${e.file}: ${e.path}: ${e.message}`));
  const phase = model.phase;
  if (phase) {
    const done = phase.completed_phases.map((c) => c.phase);
    if (done.some((p, i) => p !== PHASES[i])) out.push(`completed_phases out of order: ${done.join(",")}`);
    const complete =
      done.length === PHASES.length && phase.current_phase === "REFLECTION" && phase.phase_status === "complete";
    if (!complete && phase.current_phase !== PHASES[done.length])
      out.push(`current phase ${phase.current_phase} after ${done.length} completed phases`);
  }
  return out;
}

describe("(a) any sequence of valid operations keeps the state valid", () => {
  it(`pure functions, ${MODEL_RUNS} sequences: validate error-free, phase order legal, resume idempotent`, () => {
    let steps = 0;
    let furthest = 0;
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 20, maxLength: 80, size: "max" }), (ops) => {
        const model = new ModelDisk();
        model.apply({ t: "init" });
        for (const op of ops)
          for (const concrete of expand(model, op)) {
            model.apply(concrete);
            steps += 1;
            furthest = Math.max(furthest, model.phase?.completed_phases.length ?? 0);
            const problems = problemsOf(model);
            if (problems.length > 0) throw new Error(`after ${describeOp(concrete)}: ${problems.join("; ")}`);
            // Resume twice: the second run repairs nothing and names the same next action.
            if (concrete.t === "resume" && model.phase) {
              const again = planResume(model.snapshot(), model.now(), { staleAfterMs: Number.POSITIVE_INFINITY });
              if (again.repairs.length > 0)
                throw new Error(`resume is not idempotent: ${JSON.stringify(again.repairs)}`);
            }
          }
      }),
      { numRuns: MODEL_RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
    );
    recordFigures("properties-model", { sequences: MODEL_RUNS, steps, furthest_phase_reached: furthest });
    expect(furthest, `the generator reaches past IMPLEMENTATION (${steps} steps)`).toBeGreaterThanOrEqual(3);
  }, 600_000);

  it(
    `built CLI, ${CLI_RUNS} sequences: the same operations give the same state as the pure model, and validate stays error-free`,
    async () => {
      const progressOps = fc.array(opArb, { minLength: 4, maxLength: 9 });
      // Start each CLI sequence from a workflow in IMPLEMENTATION so short sequences reach tasks and rework.
      const prefix: Op[] = [
        { t: "report", which: "demand" },
        { t: "phase", action: "approve" },
        { t: "phase", action: "complete" },
        { t: "report", which: "design" },
        { t: "report", which: "roundtable" },
        { t: "report", which: "final" },
        { t: "phase", action: "approve" },
        { t: "resume" },
        {
          t: "import",
          tasks: [
            { n: 1, dep: null },
            { n: 2, dep: 1 },
          ],
        },
      ];
      let commands = 0;
      await fc.assert(
        fc.asyncProperty(progressOps, async (ops) => {
          const dir = makeTempDir("prop-cli");
          try {
            const model = new ModelDisk();
            const all: Op[] = [{ t: "init" }, ...prefix, ...ops];
            let i = -1;
            for (const op of all)
              for (const concrete of expand(model, op)) {
                i += 1;
                const ok = model.apply(concrete);
                const run = await cliApply(dir, concrete);
                if (run !== undefined) commands += 1;
                const code = run?.code ?? 0;
                if ((code === 0) !== ok)
                  throw new Error(
                    `op ${i} ${describeOp(concrete)}: model ${ok ? "accepts" : "refuses"} but ${run ? describeRun(run) : "no command"}`,
                  );
                if (run && stackLines(run.stderr).length > 0) throw new Error(`op ${i}: stack trace: ${run.stderr}`);
                const onDisk = readState(dir);
                const expected = summary(model.phase, model.execution, [...model.reports.keys()]);
                const actual = summary(onDisk.phase, onDisk.execution, listReports(dir));
                expect(actual, `after op ${i} ${describeOp(concrete)}`).toEqual(expected);
                const errors = validationErrors(dir);
                if (errors.length > 0) throw new Error(`op ${i}: validate: ${JSON.stringify(errors)}`);
              }
            const validate = await runCli(dir, ["validate", "--json"], { plain: true });
            commands += 1;
            expect(validate.code, describeRun(validate)).toBe(0);
            expect(stateLeftovers(dir)).toEqual([]);
          } finally {
            removeTempDir(dir);
          }
        }),
        { numRuns: CLI_RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
      );
      recordFigures("properties-cli", { sequences: CLI_RUNS, commands });
    },
    600_000 + CLI_RUNS * 40_000,
  );
});

function listReports(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    const abs = join(dir, rel);
    if (!existsSync(abs)) return;
    for (const entry of readdirSync(abs, { withFileTypes: true })) {
      const child = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else out.push(child);
    }
  };
  walk("memory/reports");
  return out;
}

function writeAt(dir: string, rel: string, text: string): void {
  mkdirSync(dirname(join(dir, rel)), { recursive: true });
  writeFileSync(join(dir, rel), text);
}

/** The same operation through the built CLI (report writes are the agent's, not commands). */
async function cliApply(dir: string, op: Op) {
  switch (op.t) {
    case "init":
      return runCli(dir, ["init", "--request", "property", "--workflow-id", "wf-prop"], { plain: true });
    case "report":
      writeAt(dir, REPORT_PATH[op.which], op.which === "reflection" ? "# done\n" : JSON.stringify({ by: op.which }));
      return undefined;
    case "verification":
      writeAt(dir, REPORT.verification, JSON.stringify({ passed: op.passed }));
      return undefined;
    case "output":
      writeAt(dir, `${REPORT.tasksDir}/t${op.n}.json`, JSON.stringify({ task_id: `t${op.n}`, status: op.status }));
      return undefined;
    case "phase":
      return runCli(dir, ["phase", op.action, ...(op.phase ? [op.phase] : [])], { plain: true });
    case "rework":
      return runCli(dir, ["phase", "rework"], { plain: true });
    case "import":
      writeFileSync(join(dir, "plan-import.json"), JSON.stringify(planOf(op.tasks)));
      return runCli(dir, ["task", "import", "plan-import.json"], { plain: true });
    case "add":
      return runCli(
        dir,
        [
          "task",
          "add",
          `t${op.n}`,
          "--title",
          `task ${op.n}`,
          ...(op.dep === null ? [] : ["--depends-on", `t${op.dep}`]),
        ],
        { plain: true },
      );
    case "start":
    case "complete":
      return runCli(dir, ["task", op.t, `t${op.n}`], { plain: true });
    case "fail":
      return runCli(dir, ["task", "fail", `t${op.n}`, "--error", "red"], { plain: true });
    case "retry":
      return runCli(dir, ["task", "retry", `t${op.n}`, "--extra-attempts", String(op.extra)], { plain: true });
    case "resume":
      return runCli(dir, ["resume", "--json"], { plain: true });
    case "agent":
      throw new Error("expand() agent operations first");
  }
}

// ---------------------------------------------------------------------------------------------
// (b) corruption

type Corruption =
  | { kind: "truncate"; at: number }
  | { kind: "flip"; at: number; mask: number }
  | { kind: "inject"; at: number; garbage: number[] }
  | { kind: "wrong type"; pick: number; variant: number };

const corruptionArb: fc.Arbitrary<{ file: "phase.json" | "execution.json"; corruption: Corruption }> = fc.record({
  file: fc.constantFrom("phase.json" as const, "execution.json" as const),
  corruption: fc.oneof(
    fc.nat().map((at): Corruption => ({ kind: "truncate", at })),
    fc
      .record({ at: fc.nat(), mask: fc.integer({ min: 1, max: 255 }) })
      .map((r): Corruption => ({ kind: "flip", ...r })),
    fc
      .record({ at: fc.nat(), garbage: fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 12 }) })
      .map((r): Corruption => ({ kind: "inject", ...r })),
    fc.record({ pick: fc.nat(), variant: fc.nat({ max: 3 }) }).map((r): Corruption => ({ kind: "wrong type", ...r })),
  ),
});

/** Every JSON path to a value inside `value`, parents before children. */
function pathsOf(value: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
  const out: Array<Array<string | number>> = [];
  if (Array.isArray(value)) value.forEach((v, i) => out.push([...prefix, i], ...pathsOf(v, [...prefix, i])));
  else if (value !== null && typeof value === "object")
    for (const [k, v] of Object.entries(value)) out.push([...prefix, k], ...pathsOf(v, [...prefix, k]));
  return out;
}

function wrongTypeFor(original: unknown, variant: number): unknown {
  const pool: unknown[] = [42, "text", true, [1], { x: 1 }, -1.5];
  const kind = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
  // For a null, a string is no wrong type: several nullable fields hold strings (error, output).
  const candidates = pool.filter((v) => kind(v) !== kind(original) && !(original === null && typeof v === "string"));
  return candidates[variant % candidates.length];
}

function corrupt(bytes: Buffer, corruption: Corruption): Buffer {
  switch (corruption.kind) {
    case "truncate":
      // Anywhere before the closing brace: no prefix of a JSON object is a JSON object.
      return bytes.subarray(0, corruption.at % Math.max(1, bytes.lastIndexOf("}")));
    case "flip": {
      const out = Buffer.from(bytes);
      const at = corruption.at % out.length;
      out[at] = out[at]! ^ corruption.mask;
      return out;
    }
    case "inject": {
      const at = corruption.at % (bytes.length + 1);
      return Buffer.concat([bytes.subarray(0, at), Buffer.from(corruption.garbage), bytes.subarray(at)]);
    }
    case "wrong type": {
      const data = JSON.parse(bytes.toString("utf8")) as Record<string, unknown>;
      const paths = pathsOf(data);
      const path = paths[corruption.pick % paths.length]!;
      let parent: Record<string | number, unknown> = data;
      for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
      const last = path[path.length - 1]!;
      parent[last] = wrongTypeFor(parent[last], corruption.variant);
      return Buffer.from(`${JSON.stringify(data, null, 2)}\n`);
    }
  }
}

/** A valid workflow in IMPLEMENTATION, with tasks, made once and copied per run. */
function corruptionTemplate(): Promise<string> {
  return makeProject("corrupt-template", [
    ["init", [], { request: "corrupt me", "workflow-id": "wf-corrupt" }],
    (dir) => writeReport(dir, "demand.json", { a: 1 }),
    ["phase", ["approve", "REQUIREMENTS"]],
    ["phase", ["complete", "REQUIREMENTS"]],
    (dir) =>
      writeReport(dir, "final_design.json", {
        tasks: [
          { id: "t1", title: "first" },
          { id: "t2", depends_on: ["t1"] },
        ],
      }),
    ["task", ["import", "memory/reports/final_design.json"]],
    ["task", ["start", "t1"]],
  ]);
}

describe("(b) any corruption of a state file gives a clear error, never a crash or a silent repair", () => {
  it(
    `${CORRUPT_RUNS} corruptions: validate exit 3, resume corrupt + exit 5, status --json exit 0 corrupt, file byte-identical`,
    async () => {
      const template = await corruptionTemplate();
      const figures = { corruptions: 0, still_valid: 0, commands: 0 };
      await fc.assert(
        fc.asyncProperty(corruptionArb, async ({ file, corruption }) => {
          const dir = makeTempDir("corrupt");
          try {
            cpSync(template, dir, { recursive: true });
            const target = join(dir, "memory/state", file);
            const other = join(dir, "memory/state", file === "phase.json" ? "execution.json" : "phase.json");
            const bytes = corrupt(readBytes(target)!, corruption);
            writeFileSync(target, bytes);
            const otherBytes = readBytes(other)!;
            figures.corruptions += 1;
            const oracle = [...readState(dir).problems, ...validationErrors(dir).map((e) => e.message)];
            if (corruption.kind === "truncate" || corruption.kind === "wrong type") {
              expect(
                oracle.length,
                `${corruption.kind} must make ${file} invalid: ${JSON.stringify(corruption)}`,
              ).toBeGreaterThan(0);
            }
            if (oracle.length === 0) {
              // Still a valid file (a byte inside a string, say): the CLI must agree.
              figures.still_valid += 1;
              const validate = await runCli(dir, ["validate", "--json"], { plain: true });
              figures.commands += 1;
              expect(validate.code, describeRun(validate)).toBe(0);
              return;
            }
            // One after the other: run at once, they would also meet the concurrency bug that
            // concurrency.test.ts pins down (validate sweeping resume's lock in the making).
            const validate = await runCli(dir, ["validate", "--json"], { plain: true });
            const resume = await runCli(dir, ["resume", "--json"], { plain: true });
            const status = await runCli(dir, ["status", "--json"], { plain: true });
            figures.commands += 3;
            const what = `${file} ${JSON.stringify(corruption)}`;
            for (const run of [validate, resume, status])
              expect(stackLines(run.stderr), `${what}: ${describeRun(run)}`).toEqual([]);
            expect(validate.code, `${what}: ${describeRun(validate)}`).toBe(3);
            const v = parseStdoutJson(validate) as {
              valid?: boolean;
              errors?: Array<{ file?: string; message?: string }>;
            };
            expect(v.valid).toBe(false);
            // The error is on the corrupted file, or (a workflow id no longer matching) names it.
            const named = v.errors?.some((e) => e.file === `memory/state/${file}` || e.message?.includes(file));
            expect(named, `${what}: validate names ${file}: ${JSON.stringify(v.errors)}`).toBe(true);
            expect(resume.code, `${what}: ${describeRun(resume)}`).toBe(5);
            const r = parseStdoutJson(resume) as {
              situation?: string;
              decision?: { default?: boolean; yes?: string; no?: string } | null;
              next?: { action?: string; rev?: number };
            };
            expect(r.situation).toBe("corrupt");
            // The first choice is the newest valid checkpoint when there is one (§5), else a fresh start.
            if (r.next?.action === "confirm_rollback") {
              expect(r.decision?.yes).toMatch(new RegExp(`^dotagent rollback (--dir \\S+ )?--to ${r.next.rev} --yes$`));
              expect(r.decision?.no).toMatch(/^dotagent archive (--dir \S+ )?--reason 'corrupt state'$/);
            } else expect(r.next?.action).toBe("confirm_fresh_start");
            expect(r.decision?.default).toBe(false);
            expect(status.code, `${what}: ${describeRun(status)}`).toBe(0);
            expect((parseStdoutJson(status) as { situation?: string }).situation).toBe("corrupt");
            expect(readBytes(target)?.equals(bytes), `${what}: the corrupt file was changed`).toBe(true);
            expect(readBytes(other)?.equals(otherBytes), `${what}: the other state file was changed`).toBe(true);
            expect(archiveNames(dir), "nothing archived without a yes").toEqual([]);
            expect(stateLeftovers(dir)).toEqual([]);
          } finally {
            removeTempDir(dir);
          }
        }),
        { numRuns: CORRUPT_RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
      );
      recordFigures("properties-corruption", figures);
    },
    600_000 + CORRUPT_RUNS * 10_000,
  );
});
