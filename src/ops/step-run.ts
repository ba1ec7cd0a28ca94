// `step run STEP`: runs the shell command of the current shell or check step (SPEC §20) and
// records its result as the step's report (memory/reports/steps/<id>.json by default), which the
// planner reads like any report: passed → advance, a failed check → rework, a failed shell step
// → the workflow stops. A command is the person's: in an agent's shell it runs only after the
// person approved that exact command for this workflow (a decision, exit 5, SPEC §11); the
// approval is recorded (`command_approved`) so later rework rounds do not ask again.
import { dirname, join } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import { stepIn } from "../core/transitions.js";
import { isValidReport, reportAt } from "../core/reports.js";
import type { Decision, NextAction } from "../core/plan-resume.js";
import type { CheckStep, ShellStep } from "../core/flow.js";
import { loadSnapshot } from "../store/session.js";
import { appendEvents } from "../store/events.js";
import type { PhaseState } from "../schema/phase.js";
import { appendAuthority, authorityEvents } from "./person-gate.js";
import { mkdirInside, writeJsonInside } from "../store/write-file.js";
import { clearStepRunning, readStepRunning, writeStepRunning } from "../store/step-running.js";
import { runCommand } from "../store/run-command.js";
import { locked, type OpContext } from "./op-context.js";
import type { Decide } from "./resume.js";
import { nextFields, settle, type NextFields } from "./settle.js";
import { tellingLine } from "../core/telling-line.js";

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

interface CommandRun {
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  tail: string;
}

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
  if (snapshot.phase.kind === "missing")
    throw new DotagentError(
      "no_workflow",
      "no workflow here; start one with `dotagent init --workflow NAME`",
      EXIT.refused,
    );
  if (snapshot.phase.kind === "corrupt") {
    // Named, so a pinned command a hand edit broke (a NUL, an escape sequence) says where, and nothing is recorded.
    const first = snapshot.phase.problems[0];
    throw new DotagentError(
      "no_workflow",
      `${snapshot.phase.file} is not valid${first ? ` (${first.path ? `${first.path}: ` : ""}${first.message})` : ""}; run \`dotagent resume\``,
      EXIT.invalid,
    );
  }
  const state = snapshot.phase.value;
  let step;
  try {
    step = stepIn(state, id);
  } catch {
    throw new DotagentError(
      "unknown_step",
      `${id} is no step of this workflow (steps: ${state.workflow?.steps.map((s) => s.id).join(", ") ?? "REQUIREMENTS … REFLECTION"})`,
      EXIT.usage,
    );
  }
  if (!(step.kind === "shell" || (step.kind === "check" && step.run !== undefined)))
    throw new DotagentError(
      "not_a_command",
      `${id} is a ${step.kind} step; only shell and check steps with \`run\` have a command`,
      EXIT.refused,
    );
  if (state.current_phase !== id)
    throw new DotagentError(
      "wrong_phase",
      `${id} cannot run: the current step is ${state.current_phase} (${state.phase_status}); \`dotagent resume\` says what is next`,
      EXIT.refused,
    );
  const commandStep = step as (ShellStep | CheckStep) & { run: string };
  const report = commandStep.reports[0]!;
  const existing = reportAt(snapshot.reports, report);
  // At most once per round: a result already recorded is the answer (a failed one is run again only when asked).
  if (isValidReport(existing) && !options.again) {
    const settled = await locked(context, "step run", async () => settle(context, context.now()));
    const data = (existing as { data: Record<string, unknown> }).data;
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
  const decision: Decision = {
    question: `Step ${id} of workflow ${state.workflow?.name ?? "develop"} runs \`${commandStep.run}\` in ${context.paths.root}. Run it?`,
    default: true,
    yes: `dotagent step run ${id} --yes`,
    no: "dotagent status",
  };
  if (!approved(context, state, id, commandStep.run)) {
    const answer = await options.decide(decision);
    if (answer === "no-terminal")
      return {
        kind: "decision",
        decision,
        next: {
          action: "confirm_command",
          agent: null,
          tasks: [],
          reason: `the person approves ${id}'s command first: show them the decision's question, end your turn, and run its yes only after they say yes`,
          step: id,
        },
      };
    if (!answer)
      throw new DotagentError(
        "step_declined",
        `${id}'s command was not run; \`dotagent resume\` offers it again`,
        EXIT.refused,
      );
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
    refuseWhileRunning(context, id);
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
    } while (run.exit_code !== 0 && attempts <= (commandStep.retries ?? 0) && !options.signal?.aborted);
  } catch (error) {
    // Its command did not start (it waits for the record); a claim left behind is stale once this process ends.
    await unclaim().catch(() => undefined);
    throw error;
  }
  if (options.signal?.aborted) {
    await unclaim();
    return { kind: "stopped" };
  }
  const passed = run.exit_code === 0;
  // A failed command's report lists its failure as qa's does, so what plans the rework (the
  // model, the runner) reads one shape: what failed, in the output's telling line.
  const failures = passed ? [] : [commandFailure(commandStep.run, run)];
  const record = {
    step: id,
    command: commandStep.run,
    passed,
    exit_code: run.exit_code,
    signal: run.signal,
    timed_out: run.timed_out,
    attempts,
    started_at: startedAt.toISOString(),
    ended_at: context.now().toISOString(),
    output_tail: run.tail,
    failures,
  };
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

/** step_running (exit 4) while another `step run` of `id` is at work, or the command one started still runs. */
function refuseWhileRunning(context: OpContext, id: string): void {
  const running = readStepRunning(context.paths.stateDir, id);
  if (running.kind === "owner") {
    const { owner, started_at } = running.record;
    throw new DotagentError(
      "step_running",
      `${id}'s command is being run by another \`step run\` (pid ${owner}, since ${started_at}): wait for it to end; then \`dotagent step run ${id}\` gives its result`,
      EXIT.locked,
      { step: id, pid: owner },
    );
  }
  if (running.kind === "command") {
    const { pid, started_at } = running.record;
    throw new DotagentError(
      "step_running",
      `${id}'s command from an earlier \`step run\` is still running (pid ${pid}, since ${started_at}): wait for it to end, or stop it (\`kill -- -${pid}\`), then \`dotagent step run ${id}\``,
      EXIT.locked,
      { step: id, pid },
    );
  }
}

/**
 * Whether the person approved this exact command for this workflow instance: a `command_approved`
 * sealed by this checkout (one that arrived by git is history: a clone asks again, SPEC §11).
 */
function approved(context: OpContext, state: PhaseState, step: string, command: string): boolean {
  return authorityEvents(context.paths, state).some(
    (e) =>
      e.type === "command_approved" &&
      e.step === step &&
      e.command === command &&
      (e.instance ?? null) === (state.instance_id ?? null),
  );
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

/** The one failure of a failed command, as a check's report lists failures (SPEC §20). */
function commandFailure(
  command: string,
  run: { exit_code: number | null; timed_out: boolean; tail: string },
): { problem: string; suggested_fix: string } {
  const shown = command.replace(/\s+/g, " ").trim();
  const short = shown.length > 100 ? `${shown.slice(0, 99)}…` : shown;
  const how = run.timed_out ? "timed out" : run.exit_code === null ? "was stopped" : `failed (exit ${run.exit_code})`;
  const line = tellingLine(run.tail);
  return { problem: `\`${short}\` ${how}${line ? `: ${line}` : ""}`, suggested_fix: `make \`${short}\` pass` };
}
