// Operations as plans (issue 41): what `step run STEP` decides, as values, around the one thing it
// cannot decide, the shell command's run. planStepRun takes the state as loaded and the project
// root the question names, and returns a refusal, the result recorded already (at most once per
// round), or the run: the command, its report, and the question put to the person unless they
// approved that command already (the event log: the op reads it after the plan). The refusals
// around the run (declined, another run at it: stepRunningRefusal), whether an attempt runs again,
// and the record a run leaves (stepRecord: the report, a failed command's one failure) are here
// too. Pure: no file system, no process table, no clock. The op (src/ops/step-run.ts) reads the
// facts, asks, claims the step under the lock, runs the command and writes what these return.
// The decisions are tested as tables in step-plan.test.ts.
import { EXIT, refuse, type Refusal } from "./errors.js";
import type { CheckStep, ShellStep } from "./flow.js";
import type { Decision, NextAction } from "./plan-resume.js";
import { isValidReport, reportAt } from "./reports.js";
import type { StateSnapshot } from "./snapshot.js";
import { tellingLine } from "./telling-line.js";
import { stepIn } from "./transitions.js";
import type { PhaseState } from "../schema/phase.js";

/** A step with a command: a shell step, or a check step with `run`. */
export type CommandStep = (ShellStep | CheckStep) & { run: string };

export type StepRunPlan =
  | Refusal
  /** A result recorded already this round (a failed one runs again only with `--again`): answered from its report. */
  | { readonly kind: "answered"; readonly report: string; readonly data: Record<string, unknown> }
  | {
      readonly kind: "run";
      /** The state planned from: the workflow instance an approval is sealed to. */
      readonly state: PhaseState;
      readonly step: CommandStep;
      readonly report: string;
      /** The question put to the person before the command runs, unless they approved this exact command for this workflow already (the op reads that). */
      readonly decision: Decision;
    };

/** The plan of `step run ID [--again]` on the state as loaded (after what the reports prove was settled). */
export function planStepRun(
  snapshot: Pick<StateSnapshot, "phase" | "reports">,
  /** The project root, named in the question. */
  root: string,
  request: { readonly id: string; readonly again?: boolean | undefined },
): StepRunPlan {
  const { id } = request;
  if (snapshot.phase.kind === "missing")
    return refuse(
      "no_workflow",
      "no workflow here (memory/state/phase.json does not exist); `dotagent status` says how to start one",
      EXIT.refused,
    );
  if (snapshot.phase.kind === "corrupt") {
    // Named, so a pinned command a hand edit broke (a NUL, an escape sequence) says where, and nothing is recorded.
    const first = snapshot.phase.problems[0];
    return refuse(
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
    return refuse(
      "unknown_step",
      `${id} is no step of this workflow (steps: ${state.workflow?.steps.map((s) => s.id).join(", ") ?? "REQUIREMENTS … REFLECTION"})`,
      EXIT.usage,
    );
  }
  if (!(step.kind === "shell" || (step.kind === "check" && step.run !== undefined)))
    return refuse(
      "not_a_command",
      `${id} is a ${step.kind} step; only shell and check steps with \`run\` have a command`,
      EXIT.refused,
    );
  if (state.current_phase !== id)
    return refuse(
      "wrong_phase",
      `${id} cannot run: the current step is ${state.current_phase} (${state.phase_status}); \`dotagent resume\` says what is next`,
      EXIT.refused,
    );
  const commandStep = step as CommandStep;
  const report = commandStep.reports[0]!;
  const existing = reportAt(snapshot.reports, report);
  // At most once per round: a result already recorded is the answer (a failed one is run again only when asked).
  if (isValidReport(existing) && !request.again)
    return { kind: "answered", report, data: (existing as { data: Record<string, unknown> }).data };
  return {
    kind: "run",
    state,
    step: commandStep,
    report,
    decision: commandQuestion(state, id, commandStep.run, root),
  };
}

/** The person's question before a step's command runs (SPEC §11: a command is the person's). */
function commandQuestion(state: PhaseState, id: string, command: string, root: string): Decision {
  return {
    question: `Step ${id} of workflow ${state.workflow?.name ?? "develop"} runs \`${command}\` in ${root}. Run it?`,
    default: true,
    yes: `dotagent step run ${id} --yes`,
    no: "dotagent status",
  };
}

/**
 * Whether the person approved this exact command of step `id` for this workflow instance, from the
 * authority view of the event log (src/ops/person-gate.ts authorityEvents: sealed by this checkout;
 * one that arrived by git is history, a clone asks again, SPEC §11).
 */
export function commandApproved(
  events: ReadonlyArray<{ readonly type: string; readonly [key: string]: unknown }>,
  state: PhaseState,
  id: string,
  command: string,
): boolean {
  return events.some(
    (e) =>
      e.type === "command_approved" &&
      e.step === id &&
      e.command === command &&
      (e.instance ?? null) === (state.instance_id ?? null),
  );
}

/** The model's next step while the person has not answered the command's question (exit 5). */
export function confirmCommand(id: string): NextAction {
  return {
    action: "confirm_command",
    agent: null,
    tasks: [],
    reason: `the person approves ${id}'s command first: show them the decision's question, end your turn, and run its yes only after they say yes`,
    step: id,
  };
}

/** The person said no to the command. */
export function stepDeclined(id: string): Refusal {
  return refuse("step_declined", `${id}'s command was not run; \`dotagent resume\` offers it again`, EXIT.refused);
}

/** What the step's running record says (src/store/step-running.ts): another `step run` at work, its command still running, or neither. */
export type StepRunning =
  | { readonly kind: "owner"; readonly record: { readonly owner: number; readonly started_at: string } }
  | { readonly kind: "command"; readonly record: { readonly pid: number | null; readonly started_at: string } }
  | { readonly kind: "none" };

/** step_running (exit 4) while another `step run` of `id` is at work, or the command one started still runs. */
export function stepRunningRefusal(id: string, running: StepRunning): Refusal | undefined {
  if (running.kind === "owner") {
    const { owner, started_at } = running.record;
    return refuse(
      "step_running",
      `${id}'s command is being run by another \`step run\` (pid ${owner}, since ${started_at}): wait for it to end; then \`dotagent step run ${id}\` gives its result`,
      EXIT.locked,
      { step: id, pid: owner },
    );
  }
  if (running.kind === "command") {
    const { pid, started_at } = running.record;
    return refuse(
      "step_running",
      `${id}'s command from an earlier \`step run\` is still running (pid ${pid}, since ${started_at}): wait for it to end, or stop it (\`kill -- -${pid}\`), then \`dotagent step run ${id}\``,
      EXIT.locked,
      { step: id, pid },
    );
  }
  return undefined;
}

/** One run of the command, as src/ops/step-run.ts saw it (its output kept as the last 4 KB). */
export interface CommandRun {
  readonly exit_code: number | null;
  readonly signal: string | null;
  readonly timed_out: boolean;
  readonly tail: string;
}

/** Whether the command runs again: it failed, and attempts are left (`retries`), and nobody stopped it. */
export function runsAgain(run: CommandRun, attempts: number, retries: number | undefined, stopped: boolean): boolean {
  return run.exit_code !== 0 && attempts <= (retries ?? 0) && !stopped;
}

/** The report a run leaves (memory/reports/steps/<id>.json by default), read by the planner like any report. */
export function stepRecord(
  id: string,
  command: string,
  run: CommandRun,
  attempts: number,
  startedAt: Date,
  endedAt: Date,
): {
  step: string;
  command: string;
  passed: boolean;
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  attempts: number;
  started_at: string;
  ended_at: string;
  output_tail: string;
  failures: { problem: string; suggested_fix: string }[];
} {
  const passed = run.exit_code === 0;
  // A failed command's report lists its failure as qa's does, so what plans the rework (the
  // model, the runner) reads one shape: what failed, in the output's telling line.
  return {
    step: id,
    command,
    passed,
    exit_code: run.exit_code,
    signal: run.signal,
    timed_out: run.timed_out,
    attempts,
    started_at: startedAt.toISOString(),
    ended_at: endedAt.toISOString(),
    output_tail: run.tail,
    failures: passed ? [] : [commandFailure(command, run)],
  };
}

/** The one failure of a failed command, as a check's report lists failures (SPEC §20). */
function commandFailure(command: string, run: CommandRun): { problem: string; suggested_fix: string } {
  const shown = command.replace(/\s+/g, " ").trim();
  const short = shown.length > 100 ? `${shown.slice(0, 99)}…` : shown;
  const how = run.timed_out ? "timed out" : run.exit_code === null ? "was stopped" : `failed (exit ${run.exit_code})`;
  const line = tellingLine(run.tail);
  return { problem: `\`${short}\` ${how}${line ? `: ${line}` : ""}`, suggested_fix: `make \`${short}\` pass` };
}
