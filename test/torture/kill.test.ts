// kill -9 at random moments during every kind of write the built CLI makes. After each kill:
// acknowledged changes (commands that exited 0) are still on disk, both state files parse,
// validation finds no error, the next command (`resume`, the first thing an agent runs after a
// crash) succeeds, and once it has run no temp file or stale lock is left in memory/state.
//
// Kills land right before a randomly chosen disk-changing call of the command (through the
// kill-at.mjs preload: every open-for-write, write, fsync, rename, link and unlink is a
// candidate, plus "as it exits"), or after a random delay over the command's run time.
// TORTURE_KILLS sets how many (default: bounded for `npm test`); TORTURE_SEED replays a run.
import { cpSync, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it, onTestFailed } from "vitest";
import {
  Calibration,
  archiveContents,
  archiveNames,
  describeRun,
  envInt,
  inLanes,
  makeProject,
  makeRng,
  makeTempDir,
  parseStdoutJson,
  planKill,
  planOnDisk,
  readBytes,
  readState,
  recordFigures,
  removeTempDir,
  removeTempDirs,
  runCli,
  runCliHosted,
  seedFor,
  stackLines,
  stateLeftovers,
  toImplementation,
  validationErrors,
  writeReport,
  type CliResult,
  type FixtureStep,
  type Figures,
  type Rng,
} from "./helpers.js";
import { AckModel, WorkflowDriver, type Step } from "./workflow-driver.js";

// 8 in `npm test` (CI's time is bounded: about 0.7 s of CPU a kill, issue 41; it was 14); `npm run
// torture` runs 3,000.
const KILLS = envInt("TORTURE_KILLS", 8);
/** Run the CLI `validate --json` after every n-th kill (the same rules run in-process after every kill). */
const VALIDATE_EVERY = Math.max(1, envInt("TORTURE_VALIDATE_EVERY", 4));
const LANES = Math.max(1, envInt("TORTURE_LANES", 2));
/** Share of the kills spent on `archive` / `init --yes` (the rest: the workflow commands). */
const ARCHIVE_SHARE = 0.2;
const MAX_REPORTED = 40;

afterAll(removeTempDirs);

class Findings {
  readonly figures: Figures = {
    workflows_completed: 0,
    kills: 0,
    kills_mid_write: 0,
    kills_at_exit: 0,
    planned_kills_survived: 0,
    commands: 0,
    corrupt_after_kill: 0,
    lost_updates: 0,
    stale_locks_left: 0,
    temp_files_left: 0,
    next_command_failed: 0,
    resume_not_idempotent: 0,
  };
  readonly violations: string[] = [];
  readonly landed = new Map<string, number>();
  /** Leftovers already reported (one left file is one finding, however often it is seen again). */
  readonly seenLeftovers = new Set<string>();

  constructor(readonly seed: number) {}

  add(where: string, message: string): void {
    if (this.violations.length < MAX_REPORTED) this.violations.push(`${where}: ${message}`);
    if (/lost update|is gone|went back|changed from/.test(message)) this.figures.lost_updates! += 1;
  }

  countKill(kind: string, run: CliResult): void {
    this.figures.kills! += 1;
    if (run.landed === "exit") this.figures.kills_at_exit! += 1;
    else if (run.ops.length > 0) this.figures.kills_mid_write! += 1;
    // Which call the kill preceded (or followed, for a timer kill): before_renameSync, …
    const call = run.landed?.replace(/^(before|after) /, "$1_").replace(/[^\w.]/g, "_") ?? "unknown";
    this.figures[`at_${call}`] = (this.figures[`at_${call}`] ?? 0) + 1;
    const key = `${kind} ${run.landed ?? "?"}`;
    this.landed.set(key, (this.landed.get(key) ?? 0) + 1);
  }

  /** Which kinds of command were killed, and right before which call. */
  coverage(): string {
    const byKind = new Map<string, number>();
    for (const [key, n] of this.landed) {
      const kind = key.split(" before ")[0]!.split(" after ")[0]!.split(" exit")[0]!;
      byKind.set(kind, (byKind.get(kind) ?? 0) + n);
    }
    return [...byKind]
      .sort()
      .map(([kind, n]) => `${kind}: ${n}`)
      .join(", ");
  }
}

interface Lane {
  readonly id: number;
  readonly rng: Rng;
  readonly calibration: Calibration;
  readonly findings: Findings;
}

/**
 * After a kill: check, then run the next command (`resume --json`, itself killed now and then),
 * then check it repaired and swept everything. False when the project cannot be used further.
 */
async function recoverAfterKill(lane: Lane, dir: string, model: AckModel, where: string, depth = 0): Promise<boolean> {
  const { findings, rng } = lane;
  for (const problem of model.check(dir)) findings.add(where, `right after the kill: ${problem}`);
  const parse = readState(dir).problems;
  const errors = validationErrors(dir);
  if (parse.length > 0 || errors.length > 0) {
    findings.figures.corrupt_after_kill! += 1;
    findings.add(
      where,
      `state not valid right after the kill: ${[...parse, ...errors.map((e) => `${e.file}: ${e.path}: ${e.message}`)].join("; ")}`,
    );
  }
  if (findings.figures.kills! % VALIDATE_EVERY === 0) {
    const validate = runCliHosted(dir, ["validate", "--json"]);
    findings.figures.commands! += 1;
    const json = validate.code === 0 || validate.code === 3 ? parseStdoutJson(validate) : undefined;
    if (validate.code !== 0 || json?.valid !== true)
      findings.add(where, `validate after the kill: ${describeRun(validate)} ${JSON.stringify(json?.errors ?? null)}`);
  }
  // The next command. Sometimes it is killed too: a crash during recovery.
  if (depth < 3 && rng.chance(0.3)) {
    const killed = await runCli(dir, ["resume", "--json"], planKill(rng, lane.calibration, "resume"));
    findings.figures.commands! += 1;
    lane.calibration.learn("resume", killed);
    if (killed.killed) {
      findings.countKill("resume (recovering)", killed);
      return recoverAfterKill(lane, dir, model, `${where} → resume killed ${killed.landed}`, depth + 1);
    }
    findings.figures.planned_kills_survived! += 1;
  }
  // Not killed: a process of its own only while its calls are still to be counted (the calibration).
  const counted = !lane.calibration.knows("resume");
  const resume = counted ? await runCli(dir, ["resume", "--json"]) : runCliHosted(dir, ["resume", "--json"]);
  findings.figures.commands! += 1;
  if (counted) lane.calibration.learn("resume", resume);
  if (resume.code !== 0) {
    findings.figures.next_command_failed! += 1;
    findings.add(where, `the next command failed: ${describeRun(resume)}`);
    return false;
  }
  if (stackLines(resume.stderr).length > 0) findings.add(where, `stack trace from resume: ${resume.stderr}`);
  const plan = parseStdoutJson(resume);
  if (plan.situation === "corrupt" || plan.decision !== null)
    findings.add(where, `resume found ${String(plan.situation)}: ${JSON.stringify((plan as { next?: unknown }).next)}`);
  const left = stateLeftovers(dir).filter((name) => !findings.seenLeftovers.has(`${dir}/${name}`));
  if (left.length > 0) {
    for (const name of left) findings.seenLeftovers.add(`${dir}/${name}`);
    if (left.some((name) => name === ".lock")) findings.figures.stale_locks_left! += 1;
    if (left.some((name) => name !== ".lock")) findings.figures.temp_files_left! += 1;
    findings.add(where, `left in memory/state after the next command: ${left.join(", ")}`);
  }
  const again = planOnDisk(dir);
  const next = (plan.next as { action?: string } | undefined)?.action;
  if (again.repairs.length > 0 || again.next.action !== next) {
    findings.figures.resume_not_idempotent! += 1;
    findings.add(
      where,
      `resume is not idempotent: a second run would repair ${JSON.stringify(again.repairs)} and do ${again.next.action} (first: ${next})`,
    );
  }
  for (const problem of model.check(dir)) findings.add(where, `after resume: ${problem}`);
  model.observe(dir);
  return true;
}

/** One lane: whole workflows, one project each, killing commands until the lane's share is spent. */
async function runWorkflowLane(lane: Lane, kills: number): Promise<void> {
  const { findings, rng } = lane;
  let cycle = 0;
  while (findings.figures.kills! < kills) {
    cycle += 1;
    const workflowId = `wf-l${lane.id}-c${cycle}`;
    const start = await startingPoint(rng, lane.id, workflowId);
    const dir = start.dir;
    const driver = new WorkflowDriver(dir, rng, {
      tasks: rng.int(2, 4),
      reworks: start.reworks,
      workflowId,
      verificationsDone: start.verificationsDone,
    });
    const model = new AckModel();
    model.observe(dir);
    const history: string[] = [];
    let usable = true;
    for (let stepNo = 0; usable && findings.figures.kills! < kills; stepNo++) {
      if (stepNo > 400) {
        findings.add(
          `lane ${lane.id} cycle ${cycle}`,
          `no progress after 400 steps; last: ${history.slice(-5).join(" ; ")}`,
        );
        break;
      }
      let step: Step | "done";
      try {
        step = driver.decide();
      } catch (error) {
        findings.add(
          `lane ${lane.id} cycle ${cycle}`,
          `the agent cannot go on: ${(error as Error).message}; last: ${history.slice(-5).join(" ; ")}`,
        );
        break;
      }
      if (step === "done") {
        findings.figures.workflows_completed! += 1;
        break;
      }
      const where = `seed ${findings.seed} lane ${lane.id} cycle ${cycle} step ${stepNo} (${step.args.join(" ")})`;
      const known = lane.calibration.knows(step.kind);
      const kill = known && rng.chance(0.7);
      // A run not killed of a kind whose calls are counted already needs no process of its own.
      const run = kill
        ? await runCli(dir, step.args, planKill(rng, lane.calibration, step.kind))
        : known
          ? runCliHosted(dir, step.args)
          : await runCli(dir, step.args);
      findings.figures.commands! += 1;
      history.push(describeRun(run));
      if (kill || !known) lane.calibration.learn(step.kind, run);
      if (run.killed) {
        findings.countKill(step.kind, run);
        driver.forgetRunning();
        usable = await recoverAfterKill(lane, dir, model, `${where} killed ${run.landed}`);
        continue;
      }
      if (kill) findings.figures.planned_kills_survived! += 1;
      if (run.code !== 0) {
        findings.figures.next_command_failed! += 1;
        findings.add(where, `command failed: ${describeRun(run)}`);
        usable = false;
        continue;
      }
      step.ack?.(model);
      driver.acknowledge(step);
      for (const problem of model.check(dir)) findings.add(where, problem);
      model.observe(dir);
    }
    removeTempDir(dir);
  }
}

/**
 * Where a cycle starts: a fresh project, or one built in-process (fast) further on, so that even
 * a bounded run kills commands of the later phases: task runs, a failed verification's rework
 * (resume or `phase rework` moving verification.json aside under the journal), REFLECTION.
 */
async function startingPoint(
  rng: Rng,
  lane: number,
  workflowId: string,
): Promise<{ dir: string; reworks: number; verificationsDone: number }> {
  const kind = rng.pick(["fresh", "implementation", "verification failed", "reflection"] as const);
  if (kind === "fresh")
    return { dir: makeTempDir(`kill-${lane}`), reworks: rng.chance(0.5) ? 1 : 0, verificationsDone: 0 };
  const steps: FixtureStep[] = [
    ...toImplementation(`torture ${workflowId}`, workflowId, [{ id: "t1" }, { id: "t2", depends_on: ["t1"] }]),
    ["task", ["import", "memory/reports/final_design.json"]],
  ];
  if (kind === "implementation")
    return { dir: await makeProject(`kill-${lane}`, steps), reworks: rng.chance(0.5) ? 1 : 0, verificationsDone: 0 };
  for (const id of ["t1", "t2"]) {
    steps.push(
      ["task", ["start", id]],
      (dir) => writeReport(dir, `tasks/${id}.json`, { task_id: id, status: "complete" }),
      ["task", ["complete", id]],
    );
  }
  steps.push(["phase", ["complete", "IMPLEMENTATION"]]);
  if (kind === "verification failed") {
    steps.push((dir) => writeReport(dir, "verification.json", { passed: false, notes: "round 1" }));
    return { dir: await makeProject(`kill-${lane}`, steps), reworks: 1, verificationsDone: 1 };
  }
  steps.push((dir) => writeReport(dir, "verification.json", { passed: true }), ["phase", ["complete", "VERIFICATION"]]);
  return { dir: await makeProject(`kill-${lane}`, steps), reworks: 0, verificationsDone: 1 };
}

describe("kill -9 during writes", () => {
  it(
    "task add/import/start/complete/fail/retry, phase start/approve/complete/rework and resume repairs leave a valid state",
    async () => {
      const seed = seedFor("kill-workflow");
      onTestFailed(() => console.error(`kill.test.ts workflow: replay with TORTURE_SEED=${seed}`));
      const findings = new Findings(seed);
      const root = makeRng(seed);
      const total = Math.max(1, Math.round(KILLS * (1 - ARCHIVE_SHARE)));
      const lanes: Lane[] = Array.from({ length: LANES }, (_, id) => ({
        id,
        rng: root.fork(`lane${id}`),
        calibration: new Calibration(),
        findings,
      }));
      await inLanes(lanes, LANES, (lane) => runWorkflowLane(lane, total));
      console.log(
        `kill workflow (seed ${seed}): ${JSON.stringify(findings.figures)}\n  killed: ${findings.coverage()}`,
      );
      recordFigures("kill-workflow", findings.figures);
      expect(findings.violations, `seed ${seed}`).toEqual([]);
      expect(findings.figures.kills).toBeGreaterThanOrEqual(total);
      expect(findings.figures.kills_mid_write, "some kills must land between writes").toBeGreaterThan(0);
    },
    600_000 + KILLS * 3_000,
  );

  it(
    "archive and init --yes (which archives first) never lose the state: it is live, or in a complete archive",
    async () => {
      const seed = seedFor("kill-archive");
      onTestFailed(() => console.error(`kill.test.ts archive: replay with TORTURE_SEED=${seed}`));
      const findings = new Findings(seed);
      const rng = makeRng(seed);
      const calibration = new Calibration();
      const template = await makeArchiveTemplate();
      const livePhase = readBytes(join(template, "memory/state/phase.json"))!;
      const liveExecution = readBytes(join(template, "memory/state/execution.json"))!;
      const total = Math.max(1, Math.round(KILLS * ARCHIVE_SHARE));
      // One unkilled run of each, to learn how many calls they make (kills are spread over them).
      for (const [kind, args] of [
        ["archive", ["archive"]],
        ["init --yes", ["init", "--request", "x", "--yes"]],
      ] as const) {
        const dir = makeTempDir("kill-archive-calibration");
        cpSync(template, dir, { recursive: true });
        const run = await runCli(dir, [...args]);
        if (run.code !== 0) findings.add(`seed ${seed} calibration`, `command failed: ${describeRun(run)}`);
        calibration.learn(kind, run);
        removeTempDir(dir);
      }
      let iteration = 0;
      while (findings.figures.kills! < total && iteration < total * 4) {
        iteration += 1;
        const dir = makeTempDir("kill-archive");
        cpSync(template, dir, { recursive: true });
        const viaInit = rng.chance(0.35);
        const args = viaInit
          ? ["init", "--request", "next one", "--workflow-id", "wf-next", "--yes"]
          : ["archive", "--reason", "torture"];
        const kind = viaInit ? "init --yes" : "archive";
        const where = `seed ${seed} iteration ${iteration} (${args.join(" ")})`;
        const run = await runCli(dir, args, planKill(rng, calibration, kind));
        findings.figures.commands! += 1;
        calibration.learn(kind, run);
        if (!run.killed) {
          findings.figures.planned_kills_survived! += 1;
          if (run.code !== 0) findings.add(where, `command failed: ${describeRun(run)}`);
        } else {
          findings.countKill(kind, run);
        }
        // 1. Every archive on disk is complete, and the old workflow is live or archived whole.
        await checkNothingLost(dir, livePhase, liveExecution, where, findings);
        // 2. What is live is valid.
        const errors = [
          ...readState(dir).problems,
          ...validationErrors(dir).map((e) => `${e.file}: ${e.path}: ${e.message}`),
        ];
        if (errors.length > 0) {
          findings.figures.corrupt_after_kill! += 1;
          findings.add(
            where,
            `live state not valid after ${run.killed ? `the kill ${run.landed}` : "the command"}: ${errors.join("; ")}`,
          );
        }
        // 3. The next command finishes the job: the same command again, or resume if it had finished.
        if (run.killed) {
          const now = readState(dir).phase;
          const finished = viaInit
            ? now?.workflow_id === "wf-next"
            : now === undefined && !existsSync(join(dir, "memory/state/execution.json"));
          const again = runCliHosted(dir, finished ? ["resume", "--json"] : args);
          findings.figures.commands! += 1;
          if (again.code !== 0) {
            findings.figures.next_command_failed! += 1;
            findings.add(where, `the next command failed: ${describeRun(again)}`);
          }
        }
        // 4. Done means done: no live state after `archive`; after `init --yes` the new workflow alone.
        const phase = readState(dir).phase;
        const what = run.killed ? "after the kill and the next command" : "after it exited 0";
        if (!viaInit && phase !== undefined)
          findings.add(where, `${what} the live state is still there (phase.json of ${phase.workflow_id})`);
        if (viaInit && phase?.workflow_id !== "wf-next")
          findings.add(
            where,
            `${what} phase.json is ${phase ? `still ${phase.workflow_id}` : "missing"}, not the new workflow wf-next`,
          );
        if (viaInit && existsSync(join(dir, "memory/reports/demand.json")))
          findings.add(where, `${what} the old workflow's demand.json is still live beside the new workflow`);
        await checkNothingLost(dir, livePhase, liveExecution, `${where}, after the next command`, findings);
        const left = [
          ...stateLeftovers(dir),
          ...readdirSafe(join(dir, "memory/state/.archive")).filter((n) => n.startsWith(".")),
        ];
        if (left.length > 0) {
          if (left.includes(".lock")) findings.figures.stale_locks_left! += 1;
          else findings.figures.temp_files_left! += 1;
          findings.add(where, `left after the next command: ${left.join(", ")}`);
        }
        removeTempDir(dir);
      }
      console.log(`kill archive (seed ${seed}): ${JSON.stringify(findings.figures)}\n  killed: ${findings.coverage()}`);
      recordFigures("kill-archive", findings.figures);
      expect(findings.violations, `seed ${seed}`).toEqual([]);
      expect(findings.figures.kills).toBeGreaterThanOrEqual(Math.min(total, 1));
    },
    600_000 + KILLS * 3_000,
  );
});

describe("kill -9 at a chosen moment of an archive", () => {
  it("killed while clearing the live state (the archive is written, a report already moved): the state left is valid and the next resume succeeds", async () => {
    const template = await makeArchiveTemplate();
    const livePhase = readBytes(join(template, "memory/state/phase.json"))!;
    const liveExecution = readBytes(join(template, "memory/state/execution.json"))!;
    const dir = makeTempDir("kill-mid-clear");
    cpSync(template, dir, { recursive: true });
    // The clear moves the reports into .archive/.clear-*/ one by one: die before the second move.
    const run = await runCli(dir, ["archive", "--reason", "torture"], { killAtOp: "promises.rename:/.clear-:2" });
    expect(run.killed, describeRun(run)).toBe(true);
    const findings = new Findings(0);
    await checkNothingLost(dir, livePhase, liveExecution, "after the kill", findings);
    expect(findings.violations).toEqual([]);
    const errors = [
      ...readState(dir).problems,
      ...validationErrors(dir).map((e) => `${e.file}: ${e.path}: ${e.message}`),
    ];
    expect(errors, "§9 errors in the state a kill left behind").toEqual([]);
    const resume = runCliHosted(dir, ["resume", "--json"]);
    expect(resume.code, describeRun(resume)).toBe(0);
    expect(validationErrors(dir)).toEqual([]);
  }, 600_000);
});

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** A small workflow in IMPLEMENTATION with reports and tasks, made once and copied per kill. */
function makeArchiveTemplate(): Promise<string> {
  return makeProject("archive-template", [
    ["init", [], { request: "archive me", "workflow-id": "wf-archived" }],
    (dir) => {
      writeReport(dir, "demand.json", { summary: "x" });
      writeReport(dir, "designs/a.json", { name: "a" });
      writeReport(dir, "roundtable.json", { winner: "a" });
      writeReport(dir, "final_design.json", { chosen: "a", tasks: [{ id: "t1" }, { id: "t2", depends_on: ["t1"] }] });
    },
    ["phase", ["approve", "REQUIREMENTS"]],
    ["resume", []], // REQUIREMENTS is done: on to ARCHITECTURE
    ["phase", ["approve", "ARCHITECTURE"]],
    ["resume", []], // and on to IMPLEMENTATION
    ["task", ["import", "memory/reports/final_design.json"]],
    ["task", ["start", "t1"]],
    (dir) => writeReport(dir, "tasks/t1.json", { task_id: "t1", status: "complete" }),
    ["task", ["complete", "t1"]],
  ]);
}

/** The workflow being archived is either live (byte for byte) or inside a complete archive. */
async function checkNothingLost(
  dir: string,
  livePhase: Buffer,
  liveExecution: Buffer,
  where: string,
  findings: Findings,
): Promise<void> {
  const archived: Array<Map<string, Buffer>> = [];
  for (const name of archiveNames(dir)) {
    try {
      archived.push(await archiveContents(join(dir, "memory/state/.archive", name)));
    } catch (error) {
      findings.figures.corrupt_after_kill! += 1;
      findings.add(where, `archive ${name} is not a complete tar.gz: ${(error as Error).message}`);
    }
  }
  const inArchive = archived.some(
    (files) =>
      files.get("memory/state/phase.json")?.equals(livePhase) &&
      files.get("memory/state/execution.json")?.equals(liveExecution),
  );
  const phaseLive = readBytes(join(dir, "memory/state/phase.json"))?.equals(livePhase) === true;
  const executionLive = readBytes(join(dir, "memory/state/execution.json"))?.equals(liveExecution) === true;
  if (!inArchive && !(phaseLive && executionLive)) {
    findings.figures.lost_updates! += 1;
    findings.add(
      where,
      `the archived workflow is neither live (phase.json ${phaseLive ? "intact" : "changed or gone"}, execution.json ${executionLive ? "intact" : "changed or gone"}) nor in an archive (${archiveNames(dir).join(", ") || "none"})`,
    );
  }
}
