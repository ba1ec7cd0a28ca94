// `step run STEP`: runs the shell command of the current shell or check step (SPEC §20) and
// records its result as the step's report (memory/reports/steps/<id>.json by default), which the
// planner reads like any report: passed → advance, a failed check → rework, a failed shell step
// → the workflow stops. A command is the person's: in an agent's shell it runs only after the
// person approved that exact command for this workflow (a decision, exit 5, SPEC §11); the
// approval is recorded (`command_approved`) so later rework rounds do not ask again. What it
// decides (refusals, the question, whether an attempt runs again, the record) is planned in
// src/core/step-plan.ts; this op reads the facts, asks, claims the step, runs the command, writes.
import { dirname, join } from "node:path";
import { refusalError } from "../core/errors.js";
import type { Decision, NextAction } from "../core/plan-resume.js";
import {
  commandApproved,
  confirmCommand,
  planStepRun,
  runsAgain,
  stepDeclined,
  stepRecord,
  stepRunningRefusal,
  type CommandRun,
} from "../core/step-plan.js";
import { loadSnapshot } from "../store/session.js";
import { appendEvents } from "../store/events.js";
import { appendAuthority, authorityEvents } from "./person-gate.js";
import { mkdirInside, writeJsonInside } from "../store/write-file.js";
import { clearStepRunning, readStepRunning, writeStepRunning } from "../store/step-running.js";
import { runCommand } from "../store/run-command.js";
import { locked, type OpContext } from "./op-context.js";
import type { Decide } from "./resume.js";
import { nextFields, settle, type NextFields } from "./settle.js";

export const OUTPUT_TAIL_BYTES = 4096;

export interface StepRunResult extends NextFields {
  step: string;
  /** Where the workflow stands after the result was recorded (a passed check: the next step). */
  phase: string | null;
  phase_status: string | null;
  ran: boolean;
  passed: boolean;
  exit_code: number | null;
  timed_out: boolean;
  attempts: number;
  report: string;
  /** The command's last output (at most 4 KB), when it failed. */
  output_tail: string | null;
}

/** `stopped`: the caller's signal stopped the command (dotagent run's Ctrl-C): nothing recorded, it runs again next time. */
export type StepRunOutcome =
  | { kind: "ran"; result: StepRunResult }
  | { kind: "decision"; decision: Decision; next: NextAction }
  | { kind: "stopped" };

/**
 * `onStart`: called once the command is approved, just before it starts (`dotagent run`'s live
 * line). `signal`: aborting it ends the command and all it started; nothing is recorded (`stopped`).
 */
export async function runStep(
  context: OpContext,
  id: string,
  options: {
    again?: boolean;
    decide: Decide;
    onOutput?: (chunk: Buffer) => void;
    onStart?: () => void;
    signal?: AbortSignal;
  },
): Promise<StepRunOutcome> {
  // What the reports on disk already prove is carried out first (a qa report just written moves
  // the workflow on to this step), so the step is judged where the workflow really stands.
  if ((await loadSnapshot(context.paths)).phase.kind === "ok")
    await locked(context, "step run", async () => settle(context, context.now()));
  const snapshot = await loadSnapshot(context.paths);
  const plan = planStepRun(snapshot, context.paths.root, { id, again: options.again });
  if (plan.kind === "refuse") throw refusalError(plan);
  const { report } = plan;
  if (plan.kind === "answered") {
    const settled = await locked(context, "step run", async () => settle(context, context.now()));
    const { data } = plan;
    return {
      kind: "ran",
      result: {
        step: id,
        phase: settled.plan.phase,
        phase_status: settled.plan.phase_status,
        ran: false,
        passed: data.passed === true,
        exit_code: typeof data.exit_code === "number" ? data.exit_code : null,
        timed_out: data.timed_out === true,
        attempts: 0,
        report,
        output_tail: null,
        ...nextFields(settled.plan),
      },
    };
  }
  const { state, step: commandStep } = plan;
  if (!commandApproved(authorityEvents(context.paths, state), state, id, commandStep.run)) {
    const answer = await options.decide(plan.decision);
    if (answer === "no-terminal") return { kind: "decision", decision: plan.decision, next: confirmCommand(id) };
    if (!answer) throw refusalError(stepDeclined(id));
    await locked(context, "step run", () =>
      appendAuthority(context, state, [
        { type: "command_approved", step: id, command: commandStep.run, instance: state.instance_id ?? null },
      ]),
    );
  }
  // Never a second copy of the command beside one that runs: another `step run` at it now, or a
  // command an earlier one started and outlived (a kill -9 of the CLI leaves its process group
  // running). Checked and claimed under the lock, so two `step run`s at once cannot both start it.
  const startedAt = context.now();
  const claim = { step: id, owner: process.pid, started_at: startedAt.toISOString() };
  await locked(context, "step run", () => {
    const running = stepRunningRefusal(id, readStepRunning(context.paths.stateDir, id));
    if (running !== undefined) throw refusalError(running);
    writeStepRunning(context.paths.root, context.paths.stateDir, { ...claim, pid: null });
    appendEvents(context.paths.root, context.paths.eventsFile, [{ type: "step_run_started", step: id }], startedAt);
  });
  options.onStart?.();
  // Every write of the record is under the lock, as every state writer's is (the lock holder
  // sweeps temp files it finds: a write outside it could lose its temp file mid-rename).
  const unclaim = () => locked(context, "step run", () => clearStepRunning(context.paths.stateDir));
  let run: CommandRun;
  let attempts = 0;
  try {
    do {
      attempts++;
      run = await runShellCommand(
        commandStep.run,
        context.paths.root,
        commandStep.timeout,
        options.onOutput,
        options.signal,
        (pid) =>
          locked(context, "step run", () =>
            writeStepRunning(context.paths.root, context.paths.stateDir, { ...claim, pid }),
          ),
      );
    } while (runsAgain(run, attempts, commandStep.retries, options.signal?.aborted === true));
  } catch (error) {
    // Its command did not start (it waits for the record); a claim left behind is stale once this process ends.
    await unclaim().catch(() => undefined);
    throw error;
  }
  if (options.signal?.aborted) {
    await unclaim();
    return { kind: "stopped" };
  }
  const record = stepRecord(id, commandStep.run, run, attempts, startedAt, context.now());
  const { passed } = record;
  const settled = await locked(context, "step run", async () => {
    mkdirInside(context.paths.root, dirname(join(context.paths.root, report)));
    writeJsonInside(context.paths.root, join(context.paths.root, report), record);
    appendEvents(
      context.paths.root,
      context.paths.eventsFile,
      [{ type: "step_run_ended", step: id, passed, exit_code: run.exit_code, attempts }],
      context.now(),
    );
    clearStepRunning(context.paths.stateDir);
    return settle(context, context.now());
  });
  return {
    kind: "ran",
    result: {
      step: id,
      phase: settled.plan.phase,
      phase_status: settled.plan.phase_status,
      ran: true,
      passed,
      exit_code: run.exit_code,
      timed_out: run.timed_out,
      attempts,
      report,
      output_tail: passed ? null : run.tail,
      ...nextFields(settled.plan),
    },
  };
}

/** Runs `command` with sh in `cwd` (run-command.ts: gated on its record, bounded by `timeout` seconds, stopped by `signal`); its output kept as the last 4 KB. */
async function runShellCommand(
  command: string,
  cwd: string,
  timeout: number | undefined,
  onOutput?: (chunk: Buffer) => void,
  signal?: AbortSignal,
  recorded?: (pid: number) => Promise<void>,
): Promise<CommandRun> {
  let tail = Buffer.alloc(0);
  const outcome = await runCommand({
    argv: ["sh", "-c", command],
    cwd,
    stdin: "ignore",
    stderr: "pipe",
    ownSession: true,
    timeoutMs: timeout === undefined ? undefined : timeout * 1000,
    signal,
    onOutput: (chunk) => {
      onOutput?.(chunk);
      tail = Buffer.concat([tail, chunk]);
      if (tail.length > OUTPUT_TAIL_BYTES) tail = tail.subarray(tail.length - OUTPUT_TAIL_BYTES);
    },
    recorded: async (pid) => recorded?.(pid),
  });
  if (outcome.kind === "not_started")
    return { exit_code: null, signal: null, timed_out: false, tail: `could not start sh: ${outcome.message}` };
  return { exit_code: outcome.code, signal: outcome.signal, timed_out: outcome.timedOut, tail: tail.toString("utf8") };
}
