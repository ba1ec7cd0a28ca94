// The resume planner (CONTRACT §5): a pure function from what is on disk to a plan. It validates,
// finishes or undoes a cut-off change, recovers tasks, moves forward through every phase whose
// output already exists, and names the one next action. The plan carries the new state files;
// the resume command writes them, `--dry-run` and `status` only print the plan.
import { REPORT, REPORTS_DIR, specOf, type Phase, type PhaseStatus } from "./phases.js";
import { timeAgo } from "./time-ago.js";
import { DEVELOP, stepAgent, stepAgents, type StepCondition } from "./flow.js";
import { flowOf } from "./flow-of.js";
import { compilePattern, MAX_SUBJECT, runPattern, type Pattern } from "./linear-pattern.js";
import { ownedReports } from "./report-owners.js";
import { reportAt, type ReportSnapshot } from "./reports.js";
import { currentRound, isLegacyExecution } from "./plans.js";
import { recoverTasks, type Repair } from "./tasks.js";
import { kindOf, type PlannerRecord } from "./steps/index.js";
import { describeRun } from "./steps/shared.js";
import { agentOwnerKey, isInFlight, type OwnerVerdicts } from "./ownership.js";
import { DEFAULT_MAX_PARALLEL } from "../schema/json.js";
import {
  advance,
  applyRework,
  inputsHash,
  isApproved,
  isReworkOpen,
  isWorkflowComplete,
  nextReworkRound,
  provePhase,
  reworkCopyPath,
  reworkingCheck,
  reworkMoves,
  stepIn,
  verificationFailed,
  type MachineEvent,
  type MoveEffect,
} from "./transitions.js";
import { DEFAULT_STALE_AFTER_MS, lastActivity, validateState, type Problem } from "./validate.js";
import type { StateSnapshot } from "./snapshot.js";
import type { AgentRun, PhaseState } from "../schema/phase.js";
import type { ExecutionState } from "../schema/execution.js";
import { count, oneLine as errorLine } from "./words.js";
import { gitRefusedQuestion, isolationOf, isolationQuestion, type CheckoutFacts } from "./worktrees.js";

/** `started`: this very call started the workflow (`resume --start` with a request and no workflow). */
/** `hand_edit`: a state file holds bytes dotagent did not write (SPEC §15 Hand edits). */
export const SITUATIONS = [
  "none",
  "started",
  "interrupted",
  "complete",
  "corrupt",
  "stale",
  "request_changed",
  "hand_edit",
  "definition_changed",
] as const;
export type Situation = (typeof SITUATIONS)[number];

export const ACTIONS = [
  "start_workflow",
  "spawn_agent",
  "await_approval",
  "plan_tasks",
  "run_tasks",
  "resolve_dead_tasks",
  "resolve_failed_agent",
  "await_agents",
  "workflow_complete",
  "confirm_fresh_start",
  "confirm_rollback",
  "confirm_request_change",
  "confirm_isolation",
  "confirm_definition_change",
  "run_step",
  "confirm_command",
  "workflow_failed",
] as const;
export type Action = (typeof ACTIONS)[number];

/** Which approval `await_approval` asks for: the names `next.gate` carries (gates.ts: the gate as data, its name from its step). */
export const GATES = ["approve_requirements", "pick_design", "approve_design", "approve_report"] as const;
export type Gate = (typeof GATES)[number];

export interface NextAction {
  action: Action;
  agent: string | null;
  tasks: string[];
  reason: string;
  /** spawn_agent architect: the designs to write now (the missing ones asked for, else the default pair). */
  designs?: string[];
  /** await_approval: which approval. */
  gate?: Gate;
  /** IMPLEMENTATION: the planning round (0 = the first plan, N = rework round N). */
  round?: number;
  /** confirm_isolation: why the person decides: the main checkout has `uncommitted` changes, or git could not be run from this shell (`git_refused`: a sandbox). */
  checkout?: "uncommitted" | "git_refused";
  /** plan_tasks: the file to write the round's plan to, then `dotagent task import` it. */
  plan_file?: string;
  /** plan_tasks: the report the round's tasks come from (round 0 the design, round N the failed check's copy, with its `failures`). */
  plan_from?: string;
  /** confirm_rollback: the checkpoint to go back to (`dotagent rollback --to REV`). */
  rev?: number;
  /** In a workflow with a pinned definition: spawn_agent, the report the agent writes (its `Output file:` line); await_approval of an agent step, the report to approve. */
  output?: string;
  /** await_approval: the step to approve (`dotagent phase approve STEP`); run_step: the step whose command to run (`dotagent step run STEP`). */
  step?: string;
}

/** A phase agent at work (phase.json `agents`) whose owner lives: not spawned again. */
export interface AgentInFlight {
  agent: string;
  output: string;
  design?: string;
}

/**
 * `isolation`: the main checkout has uncommitted changes as a round's tasks are about to start (SPEC §19).
 * `corrupt_rollback`, `hand_edit`: go back to the newest checkpoint (yes), or not (SPEC §5).
 */
export type DecisionKind =
  "corrupt" | "corrupt_rollback" | "hand_edit" | "stale" | "request_changed" | "isolation" | "definition_changed";

export interface Decision {
  question: string;
  default: boolean;
  yes: string;
  no: string;
}

export interface ResumePlan {
  situation: Situation;
  workflow_id: string | null;
  phase: Phase | null;
  phase_status: PhaseStatus | null;
  completed_phases: Phase[];
  last_activity: string | null;
  last_activity_ago: string | null;
  next: NextAction;
  /** Running tasks whose owner is live (or on another host within the lease): left alone. */
  in_flight: string[];
  /** Phase agents at work whose owner is live (phase.json `agents`): never spawned twice. */
  agents_in_flight: AgentInFlight[];
  repairs: Repair[];
  warnings: Problem[];
  errors: Problem[];
  decision: Decision | null;
  /** Which question `decision` asks, for the command that answers it. Not part of the JSON. */
  decisionKind: DecisionKind | null;
  /** What carrying the plan out writes. Empty when nothing needs repairing or advancing. */
  writes: PlanWrites;
}

export interface PlanWrites {
  phase?: PhaseState;
  execution?: ExecutionState;
  /** File moves; when present the change spans several files and is journaled (CONTRACT §3). */
  moves: MoveEffect[];
  /** The journal entry to write before the moves. */
  journal?: NonNullable<PhaseState["pending_transition"]>;
  /** Finish clearing the live state of a fresh start that was cut off (it is in this archive). */
  finishClear?: string;
  /** The hand-edited state files kept: dotagent adopts them as its own (event `hand_edit_kept`). */
  adoptEdits?: string[];
  events: MachineEvent[];
}

/** The newest valid checkpoint, found by the shell when the state is corrupt or hand-edited. */
export interface RecoveryPoint {
  rev: number;
  at: string;
  phase: Phase;
  phase_status: string;
  /** e.g. "ARCHITECTURE approved". */
  what: string;
  /** Whether it holds what dotagent last wrote (false: dotagent wrote after it, a task start say; null: unknown). */
  last_write: boolean | null;
}

export interface ResumeOptions {
  request?: string | undefined;
  staleAfterMs?: number | undefined;
  /** Task id → verdict on its owner, for running tasks (the shell judges; see ownership.ts). Without it every running task is orphaned. */
  owners?: OwnerVerdicts | undefined;
  /** `--max-parallel N`: how many tasks run at once; stored in execution.json when it differs. */
  maxParallel?: number | undefined;
  /** The main checkout, looked at by the shell only when a round's first tasks are about to start (SPEC §19). */
  checkout?: CheckoutFacts | undefined;
  /**
   * The newest valid checkpoint, when the state is corrupt or hand-edited (null: there is none;
   * undefined: not looked for, and then a hand edit is only a warning). See needsRecoveryPoint.
   */
  recovery?: RecoveryPoint | null | undefined;
  /** `resume --keep-edit`: the hand-edited state files are adopted as they are. */
  keepEdits?: boolean | undefined;
  /** The person said no to going back to a checkpoint: ask about a fresh start instead. */
  declineRollback?: boolean | undefined;
  /**
   * The pinned definition's file resolves to other steps now (SPEC §20; null: it does not, or the
   * person kept going with this version; undefined: not looked at). The shell looks.
   */
  definitionChanged?: { name: string; source: string; hash: string } | null | undefined;
  /** The definition a workflow started for a changed request walks (`--workflow NAME`); absent: develop. */
  newWorkflow?: string | undefined;
}

/** ` --workflow NAME` for a command that starts a workflow of NAME; nothing for develop, the default. */
export function workflowFlag(name: string | undefined): string {
  return name === undefined || name === "develop" ? "" : ` --workflow ${shellQuote(name)}`;
}

/**
 * A new request over a complete workflow: the person's start command (`/develop <request>`,
 * `dotagent run "<request>"`) archives it and starts the new one without asking, as `init` does
 * (a complete workflow is never resumed, and the archive keeps it).
 */
export function replacesComplete(plan: {
  readonly situation: string;
  readonly phase_status: PhaseStatus | null;
}): boolean {
  return plan.situation === "request_changed" && plan.phase_status === "complete";
}

/** Whether a plan wants the newest valid checkpoint (`recovery`) before it is final: corrupt or hand-edited state. */
export function needsRecoveryPoint(plan: ResumePlan, options: ResumeOptions): boolean {
  if (options.recovery !== undefined) return false;
  // A stray .clearing marker is not fixed by going back: the fresh-start question stands (§8).
  if (plan.situation === "corrupt") return !plan.errors.some((e) => e.code === "clearing_invalid");
  return plan.warnings.some((w) => w.code === "hand_edit");
}

export function describeAgo(iso: string, now: Date): string {
  return timeAgo(new Date(iso), now);
}

/** Quotes an argument for a POSIX shell, for the commands a decision names. */
export function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The agent a new workflow starts with: the first of the default workflow (develop) a plain `init` starts. */
const FIRST_AGENT = stepAgent(DEVELOP.steps[0]!);

const FRESH_START_YES = (reason: string) => `dotagent archive --reason ${shellQuote(reason)}`;

function describePoint(point: RecoveryPoint, now: Date): string {
  const last =
    point.last_write === true
      ? "what dotagent last wrote"
      : point.last_write === false
        ? "the newest state dotagent kept; it wrote after it, and that is not kept"
        : "the newest state dotagent kept";
  return `checkpoint ${point.rev} (${point.what}, at ${point.phase} ${point.phase_status}, ${describeAgo(point.at, now)}: ${last})`;
}

function rollbackNext(point: RecoveryPoint, reason: string): NextAction {
  return { action: "confirm_rollback", agent: null, tasks: [], reason, rev: point.rev };
}

export function planResume(snapshot: StateSnapshot, now: Date, options: ResumeOptions = {}): ResumePlan {
  const staleAfterMs = options.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
  const validation = validateState(snapshot, now, { staleAfterMs });
  const phase = snapshot.phase.kind === "ok" ? snapshot.phase.value : undefined;
  const execution = snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined;
  const last = lastActivity(phase, execution) ?? null;
  const base = {
    workflow_id: phase?.workflow_id ?? execution?.workflow_id ?? null,
    phase: phase?.current_phase ?? null,
    phase_status: phase?.phase_status ?? null,
    completed_phases: phase?.completed_phases.map((c) => c.phase) ?? [],
    last_activity: last,
    last_activity_ago: last === null ? null : describeAgo(last, now),
    in_flight: [] as string[],
    agents_in_flight: [] as AgentInFlight[],
    repairs: [] as Repair[],
    warnings: validation.warnings,
    errors: validation.errors,
    decision: null,
    decisionKind: null,
    writes: { moves: [], events: [] } as PlanWrites,
  };

  if (snapshot.clearing && snapshot.clearing.problem === null && snapshot.clearing.archive !== null) {
    const archive = snapshot.clearing.archive;
    return {
      ...base,
      workflow_id: null,
      phase: null,
      phase_status: null,
      completed_phases: [],
      situation: "none",
      next: {
        action: "start_workflow",
        agent: FIRST_AGENT,
        tasks: [],
        reason: "no workflow: the last one was archived; run `dotagent init --request …`, then spawn the pm agent",
      },
      repairs: [
        {
          code: "clear_finished",
          message: `a fresh start was cut off after archiving the old state as ${archive}: finished clearing it`,
        },
      ],
      writes: { moves: [], events: [], finishClear: archive },
    };
  }
  if (validation.errors.length > 0) {
    const first = validation.errors[0]!;
    const point = options.recovery;
    if (point && !options.declineRollback && !validation.errors.some((e) => e.code === "clearing_invalid")) {
      // The state dotagent last kept comes first: nothing is re-run, the corrupt files are archived.
      return {
        ...base,
        situation: "corrupt",
        next: rollbackNext(
          point,
          `the state is not valid: ${first.file}${first.path ? `: ${first.path}` : ""}: ${first.message}`,
        ),
        decision: {
          question: `The workflow state is corrupt (${validation.errors.length} error${validation.errors.length === 1 ? "" : "s"}). Go back to ${describePoint(point, now)}? The current files go into an archive. (No: archive it all and start fresh.)`,
          default: false,
          yes: `dotagent rollback --to ${point.rev} --yes`,
          no: FRESH_START_YES("corrupt state"),
        },
        decisionKind: "corrupt_rollback",
      };
    }
    return {
      ...base,
      situation: "corrupt",
      next: {
        action: "confirm_fresh_start",
        agent: null,
        tasks: [],
        reason: `the state is not valid: ${first.file}${first.path ? `: ${first.path}` : ""}: ${first.message}`,
      },
      decision: {
        question: `The workflow state is corrupt (${validation.errors.length} error${validation.errors.length === 1 ? "" : "s"}). Archive it and start fresh?`,
        default: false,
        yes: FRESH_START_YES("corrupt state"),
        no: "dotagent validate",
      },
      decisionKind: "corrupt",
    };
  }
  if (phase === undefined) {
    return {
      ...base,
      situation: "none",
      next: { action: "start_workflow", agent: FIRST_AGENT, tasks: [], reason: "no workflow yet" },
    };
  }
  const edited = snapshot.handEdits ?? [];
  if (edited.length > 0 && options.recovery && !options.keepEdits) {
    const files = edited.map((f) => f.replace("memory/state/", "")).join(" and ");
    return {
      ...base,
      situation: "hand_edit",
      next: rollbackNext(options.recovery, `${files} changed outside dotagent (bytes it did not write)`),
      decision: {
        question: `${files} ${edited.length === 1 ? "was" : "were"} changed outside dotagent (by hand or by the model). Go back to ${describePoint(options.recovery, now)}? The edited files go into an archive. (No: keep the edit; dotagent adopts it.)`,
        default: false,
        yes: `dotagent rollback --to ${options.recovery.rev} --yes`,
        no: "dotagent resume --keep-edit",
      },
      decisionKind: "hand_edit",
    };
  }
  // Kept (asked for, or nothing to go back to): adopted as dotagent's own, and said so.
  const adopt = edited.length > 0 && (options.keepEdits === true || options.recovery === null) ? edited : [];
  if (options.request !== undefined && phase.inputs_hash && inputsHash(options.request) !== phase.inputs_hash) {
    return {
      ...base,
      situation: "request_changed",
      next: {
        action: "confirm_request_change",
        agent: null,
        tasks: [],
        reason: `workflow ${phase.workflow_id} was started for a different request`,
      },
      decision: {
        question: `Workflow ${phase.workflow_id} was started for ${JSON.stringify(phase.request ?? "another request")}, not ${JSON.stringify(options.request)}. Archive it and start a new workflow for the new request?`,
        default: false,
        // Run as printed, it starts what the question means: the workflow named with the request too.
        yes: `dotagent init --request ${shellQuote(options.request)}${workflowFlag(options.newWorkflow)} --yes`,
        no: "dotagent resume",
      },
      decisionKind: "request_changed",
    };
  }
  const changed = options.definitionChanged;
  if (changed && !isWorkflowComplete(phase)) {
    const request = phase.request ? ` --request ${shellQuote(phase.request)}` : "";
    return {
      ...base,
      situation: "definition_changed",
      next: {
        action: "confirm_definition_change",
        agent: null,
        tasks: [],
        reason: `${changed.source} changed since workflow ${phase.workflow_id} started with it (its steps are pinned)`,
      },
      decision: {
        question: `${changed.source} changed since workflow ${phase.workflow_id} started with it. Keep walking the steps it started with? (No: archive it and start the workflow again with the new definition.)`,
        default: true,
        yes: "dotagent resume --keep-definition",
        no: `dotagent init --workflow ${shellQuote(changed.name)}${request} --yes`,
      },
      decisionKind: "definition_changed",
    };
  }
  if (isWorkflowComplete(phase)) {
    return adopting(
      {
        ...base,
        situation: "complete",
        next: {
          action: "workflow_complete",
          agent: null,
          tasks: [],
          reason: `workflow ${phase.workflow_id} is complete`,
        },
      },
      adopt,
    );
  }
  if (validation.warnings.some((w) => w.code === "stale")) {
    return {
      ...base,
      situation: "stale",
      next: {
        action: "confirm_fresh_start",
        agent: null,
        tasks: [],
        reason: `the last activity was ${base.last_activity_ago}`,
      },
      decision: {
        question: `Workflow ${phase.workflow_id} was last active ${base.last_activity_ago}. Archive it and start fresh?`,
        default: false,
        yes: FRESH_START_YES("stale state"),
        no: "dotagent resume --stale-after never",
      },
      decisionKind: "stale",
    };
  }
  return adopting(planInterrupted(snapshot.reports, phase, execution, now, base, options), adopt);
}

/** A plan that also adopts the hand-edited files `files` (repair and event `hand_edit_kept`). */
function adopting(plan: ResumePlan, files: readonly string[]): ResumePlan {
  if (files.length === 0) return plan;
  const names = files.map((f) => f.replace("memory/state/", "")).join(" and ");
  return {
    ...plan,
    repairs: [
      { code: "hand_edit_kept", message: `${names}: changed outside dotagent, kept as it is (dotagent adopts it)` },
      ...plan.repairs,
    ],
    writes: { ...plan.writes, adoptEdits: [...files] },
  };
}

type Base = Omit<ResumePlan, "situation" | "next">;

function planInterrupted(
  allReports: ReportSnapshot,
  phase0: PhaseState,
  execution0: ExecutionState | undefined,
  now: Date,
  base: Base,
  options: ResumeOptions,
): ResumePlan {
  // A phase agent's report counts only when a hook saw its agent at work (core/report-owners.ts).
  const reports = ownedReports(allReports, phase0);
  const repairs: Repair[] = [];
  const events: MachineEvent[] = [];
  const moves: MoveEffect[] = [];
  let phase = phase0;
  let execution = execution0;
  let journal: PlanWrites["journal"];

  // 1. A multi-file change that was cut off: finish it where its files were moved, else undo.
  if (!phase.interruption_safe || phase.pending_transition) {
    const rolled = rollTransition(phase, reports, now);
    phase = rolled.phase;
    repairs.push(rolled.repair);
    events.push({ type: "transition_recovered", ...rolled.repair });
    moves.push(...rolled.moves);
  }
  // 2. Tasks that were running when their session died (those of a live owner are in flight).
  if (execution !== undefined) {
    const recovered = recoverTasks(execution, reports, options.owners);
    if (recovered.state !== execution) execution = { ...recovered.state, updated_at: now.toISOString() };
    repairs.push(...recovered.repairs);
    events.push(...recovered.events);
    if (!execution.interruption_safe) {
      execution = { ...execution, interruption_safe: true, updated_at: now.toISOString() };
      repairs.push({
        code: "execution_marked_safe",
        message: "execution.json had interruption_safe: false: tasks recovered, marked safe",
      });
    }
    if (options.maxParallel !== undefined && execution.max_parallel !== options.maxParallel) {
      execution = { ...execution, max_parallel: options.maxParallel, updated_at: now.toISOString() };
    }
  }
  // 2b. Phase agents whose session died, or whose phase is over: their records go.
  const kept = (phase.agents ?? []).filter(
    (a) =>
      a.owner !== undefined &&
      isInFlight(options.owners, agentOwnerKey(a.output)) &&
      phaseOfRun(phase, a) === phase.current_phase,
  );
  if (kept.length !== (phase.agents ?? []).length) {
    for (const gone of (phase.agents ?? []).filter((a) => !kept.includes(a))) {
      repairs.push({
        code: "agent_gone",
        message: `${describeRun(gone)} stopped without a recorded end: its session ended or its phase is over`,
      });
      events.push({ type: "agent_gone", agent: gone.agent, output: gone.output });
    }
    phase = { ...phase, agents: kept };
  }
  const record = (step: PlannerRecord | undefined) => {
    if (step === undefined) return;
    if (step.phase !== undefined) phase = step.phase;
    if (step.execution !== undefined) execution = step.execution;
    if (step.repair !== undefined) repairs.push(step.repair);
    events.push(...step.events);
  };
  // 3. Move forward through every phase whose output already exists and whose gate is met.
  for (;;) {
    // A legacy rework round (no plan records) stays open until `phase complete IMPLEMENTATION`.
    if (isWorkflowComplete(phase) || (isReworkOpen(phase) && isLegacyExecution(execution))) break;
    const current = phase.current_phase;
    const step = stepIn(phase, current);
    const check = reworkingCheck(phase);
    if (check !== undefined && verificationFailed(reports, check.reports[0]!)) {
      const round = nextReworkRound(phase);
      const name = check.reports[0]!.replace("memory/reports/", "");
      if (round > check.max_rounds) {
        if (phase.phase_status !== "failed") {
          const error = `${check.id} failed ${count(check.max_rounds, "rework round")} (max_rounds ${check.max_rounds}); the last report is ${name}`;
          phase = { ...phase, phase_status: "failed", error };
          repairs.push({ code: "rework_exhausted", message: `${error}: the workflow stops here` });
          events.push({ type: "phase_failed", phase: current, error, rounds: check.max_rounds });
        }
        break;
      }
      const reworkMoved = reworkMoves(flowOf(phase), check, round, reports);
      const copy = reworkMoved[0]!.to;
      journal = {
        type: "rework",
        started_at: now.toISOString(),
        round,
        moves: reworkMoved.map((m) => ({ from: m.from, to: m.to })),
      };
      moves.push(...reworkMoved);
      phase = applyRework(phase, check, round, copy, now, reworkMoved);
      repairs.push({
        code: "rework",
        message: `${check.said ?? check.id} failed: back to ${check.rework} for rework round ${round} (report kept as ${copy.replace("memory/reports/", "")})`,
      });
      events.push({ type: "phase_rework", phase: check.rework, round, verification: copy });
      break;
    }
    // A step whose condition does not hold is passed over (recorded as skipped), never run.
    if (
      step.when !== undefined &&
      phase.phase_status !== "in_progress" &&
      !conditionHolds(step.when, reports, phase.request ?? "")
    ) {
      phase = advance(phase, null, now, { skipped: true });
      const to = isWorkflowComplete(phase) ? "the end: workflow complete" : phase.current_phase;
      repairs.push({
        code: "step_skipped",
        message: `${current} was skipped (${describeCondition(step.when)} does not hold): advanced to ${to}`,
      });
      events.push({ type: "phase_skipped", phase: current, by: "plan" });
      continue;
    }
    // What the step records as the planner reaches it (a tasks step: the design's own task list, as its first plan).
    record(kindOf(step).recordBeforeProof(step, { phase, execution, reports, now }));
    const proof = provePhase(current, reports, execution, phase);
    if (!proof.done || (specOf(phase, current).gate && !isApproved(phase, current))) break;
    phase = advance(phase, proof.output, now);
    const to = isWorkflowComplete(phase) ? "the end: workflow complete" : phase.current_phase;
    repairs.push({
      code: "phase_advanced",
      message: `${current} was done (${proof.output.replace("memory/reports/", "").replace("memory/state/", "")} is there): advanced to ${to}`,
    });
    events.push({ type: "phase_completed", phase: current, output: proof.output, by: "plan" });
  }

  // 4. What the step the workflow stops at records (a choose step with nothing asked for and nothing
  // written yet: the default designs, so every reader spawns the same architects).
  const currentStep = stepIn(phase, phase.current_phase);
  if (!isWorkflowComplete(phase))
    record(kindOf(currentStep).recordAtStop(currentStep, { phase, execution, reports, now }));

  const inFlight = (execution?.tasks ?? [])
    .filter((t) => t.status === "running" && isInFlight(options.owners, t.id))
    .map((t) => t.id);
  const agentsInFlight: AgentInFlight[] = (phase.agents ?? []).map((a) => ({
    agent: a.agent,
    output: a.output,
    ...(a.design ? { design: a.design } : {}),
  }));
  const maxParallel = options.maxParallel ?? execution?.max_parallel ?? DEFAULT_MAX_PARALLEL;
  let next = failedAgentAsked(phase, decideNext(phase, execution, reports, inFlight, agentsInFlight, maxParallel));
  let decision: Decision | null = null;
  // A round's first tasks and a main checkout with uncommitted changes, or one git could not look
  // at from this shell (a sandbox refused it: never "no git", the hook outside would see it): the person decides first.
  const checkout = options.checkout;
  if (next.action === "run_tasks" && isolationOf(execution, currentRound(phase)) === undefined) {
    if (checkout?.git === true && checkout.dirty.length > 0) {
      next = {
        action: "confirm_isolation",
        agent: null,
        tasks: [],
        reason: `the main checkout has uncommitted changes (${checkout.dirty.slice(0, 3).join(", ")}${checkout.dirty.length > 3 ? ", …" : ""}): ask the person the decision's question (beside this next, or in \`dotagent resume --json\`): commit them, or run the tasks without worktrees`,
        round: currentRound(phase),
        checkout: "uncommitted",
      };
      decision = {
        question: isolationQuestion(checkout),
        default: false,
        yes: "dotagent resume --isolation commit",
        no: "dotagent resume --isolation shared",
      };
    } else if (checkout?.git === "refused") {
      next = {
        action: "confirm_isolation",
        agent: null,
        tasks: [],
        reason: `${checkout.reason}, so the main checkout cannot be looked at before the tasks start: ask the person the decision's question (beside this next, or in \`dotagent resume --json\`): commit what is uncommitted (outside the sandbox), or run the tasks without worktrees`,
        round: currentRound(phase),
        checkout: "git_refused",
      };
      decision = {
        question: gitRefusedQuestion(checkout),
        default: false,
        yes: "dotagent resume --isolation commit",
        no: "dotagent resume --isolation shared",
      };
    }
  }
  const changedPhase = phase !== phase0;
  const changedExecution = execution !== execution0;
  const writes: PlanWrites = {
    moves,
    events,
    ...(changedPhase ? { phase: { ...phase, pending_transition: null, interruption_safe: true } } : {}),
    ...(changedExecution && execution !== undefined ? { execution } : {}),
    ...(journal === undefined ? {} : { journal }),
  };
  return {
    ...base,
    situation: "interrupted",
    phase: phase.current_phase,
    phase_status: phase.phase_status,
    completed_phases: phase.completed_phases.map((c) => c.phase),
    next,
    in_flight: inFlight,
    agents_in_flight: agentsInFlight,
    repairs,
    writes,
    ...(decision ? { decision, decisionKind: "isolation" as const } : {}),
  };
}

/** The step an agent at work belongs to: the one whose report it writes (a design or the roundtable: the choose step). */
export function phaseOfRun(state: PhaseState, run: AgentRun): Phase | undefined {
  const flow = flowOf(state);
  if (
    run.output.startsWith(`${REPORT.designsDir}/`) ||
    run.output === REPORT.roundtable ||
    run.output === REPORT.finalDesign
  )
    return flow.steps.find((s) => kindOf(s).takesDesigns)?.id;
  return (
    flow.steps.find((s) => s.reports.includes(run.output)) ?? flow.steps.find((s) => stepAgents(s).includes(run.agent))
  )?.id;
}
function rollTransition(
  phase: PhaseState,
  reports: ReportSnapshot,
  now: Date,
): { phase: PhaseState; repair: Repair; moves: MoveEffect[] } {
  const pending = phase.pending_transition;
  const cleared: PhaseState = { ...phase, pending_transition: null, interruption_safe: true };
  if (!pending)
    return {
      phase: cleared,
      moves: [],
      repair: {
        code: "marked_safe",
        message: "phase.json had interruption_safe: false but no change recorded: marked safe",
      },
    };
  const present = (path: string) => {
    const s = reportAt(reports, path).status;
    return s !== "missing" && s !== "outside";
  };
  const moves = pending.moves ?? [];
  const done = moves.filter((m) => present(m.to) && !present(m.from));
  const what = `${pending.type}${pending.task_id ? ` of ${pending.task_id}` : ""}`;
  if (done.length === moves.length) {
    let next = cleared;
    const check = pending.type === "rework" ? reworkingCheck(phase) : undefined;
    if (check !== undefined) {
      const round = typeof pending.round === "number" ? pending.round : nextReworkRound(phase);
      next = applyRework(
        cleared,
        check,
        round,
        moves[0]?.to ?? reworkCopyPath(round),
        now,
        moves.map((m) => ({ type: "move" as const, from: m.from, to: m.to })),
      );
    }
    return {
      phase: next,
      moves: [],
      repair: {
        code: "transition_rolled_forward",
        message: `${what} was cut off after its files were moved: finished it`,
      },
    };
  }
  // Undo the moves that happened; the state files were not yet written for this change.
  const undo: MoveEffect[] = done.map((m) => ({ type: "move", from: m.to, to: m.from }));
  return {
    phase: cleared,
    moves: undo,
    repair: { code: "transition_rolled_back", message: `${what} was cut off before its files were moved: undone` },
  };
}

/**
 * A failed phase (its agent stopped without its report even when reminded, or `phase fail`) whose
 * agent would be spawned again: the person decides first (SPEC §5). Their next prompt starts the
 * phase again (§11); until then the hook refuses the spawn. The fields of the spawn are kept, so
 * `dotagent run` (whose run is the person's decision) spawns from them.
 */
function failedAgentAsked(phase: PhaseState, next: NextAction): NextAction {
  if (next.action !== "spawn_agent" || phase.phase_status !== "failed") return next;
  const error = errorLine(phase.error ?? "", 300);
  const why = error === "" ? `${phase.current_phase} failed` : `${phase.current_phase} failed: ${error}`;
  return {
    ...next,
    action: "resolve_failed_agent",
    reason: `${why}. Tell the person and end your turn: their reply starts ${phase.current_phase} again, and the ${next.agent} agent may then run (not before)`,
  };
}

function decideNext(
  phase: PhaseState,
  execution: ExecutionState | undefined,
  reports: ReportSnapshot,
  inFlight: readonly string[],
  agents: readonly AgentInFlight[],
  maxParallel: number,
): NextAction {
  if (isWorkflowComplete(phase))
    return { action: "workflow_complete", agent: null, tasks: [], reason: `workflow ${phase.workflow_id} is complete` };
  if (
    phase.phase_status === "failed" &&
    reworkingCheck(phase) !== undefined &&
    phase.error &&
    (phase.rework?.round ?? 0) >= (reworkingCheck(phase)?.max_rounds ?? Infinity)
  ) {
    return { action: "workflow_failed", agent: null, tasks: [], reason: phase.error };
  }
  // The step's kind decides the rest (src/core/steps/).
  const step = stepIn(phase, phase.current_phase);
  return kindOf(step).next(step, {
    phase,
    execution,
    reports,
    inFlight,
    agents,
    maxParallel,
    reworkOpen: isReworkOpen(phase),
  });
}

/** Whether a step's `when` holds, read from the reports on disk (or the request). A missing report or field is `undefined`. */
export function conditionHolds(when: StepCondition, reports: ReportSnapshot, request: string): boolean {
  let value: unknown;
  if (when.report === "request") value = request;
  else {
    const state = reportAt(reports, when.report);
    value =
      state.status === "valid"
        ? (when.field ?? "")
            .split(".")
            .reduce<unknown>(
              (v, key) =>
                v !== null && typeof v === "object" && !Array.isArray(v)
                  ? (v as Record<string, unknown>)[key]
                  : undefined,
              state.data,
            )
        : undefined;
    if (when.field === undefined) value = state.status === "valid" ? state.data : undefined;
  }
  if (when.equals !== undefined) return value === when.equals;
  if (when.not_equals !== undefined) return value !== when.not_equals;
  if (when.matches !== undefined)
    return (
      typeof value === "string" && value.length <= MAX_SUBJECT && runPattern(patternOf(when.matches), value).matched
    );
  return true;
}

const patterns = new Map<string, Pattern>();
/** A definition's pattern, compiled once: never RegExp, which backtracks (linear-pattern.ts). */
function patternOf(source: string): Pattern {
  let pattern = patterns.get(source);
  if (pattern === undefined) {
    const compiled = compilePattern(source);
    // Every Flow was checked (resolve-workflow.ts refuses a pattern that does not compile): reaching this is a bug.
    if (!compiled.ok)
      throw new Error(`a workflow's when.matches ${JSON.stringify(source)} does not compile: ${compiled.reason}`);
    pattern = compiled.pattern;
    patterns.set(source, pattern);
  }
  return pattern;
}

export function describeCondition(when: StepCondition): string {
  const what =
    when.report === "request"
      ? "the request"
      : `${when.report.replace(`${REPORTS_DIR}/`, "")}${when.field ? ` ${when.field}` : ""}`;
  if (when.equals !== undefined) return `${what} = ${JSON.stringify(when.equals)}`;
  if (when.not_equals !== undefined) return `${what} ≠ ${JSON.stringify(when.not_equals)}`;
  return `${what} matches /${when.matches ?? ""}/`;
}
