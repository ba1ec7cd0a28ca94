// The person's gates and decisions kept theirs (SPEC §11 "Who decides"; the threat and the rules:
// src/core/authority.ts, src/core/person-answer.ts). Every refusal of the model's act for the
// person asks this module, and this module reads the person's answers only through
// authorityEvents: sealed by this checkout, and a reply only when the client's own record says the
// person typed it. The replies themselves are recorded by src/ops/person-replies.ts.
import { existsSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { DotagentError, EXIT, refusalError } from "../core/errors.js";
import { flowOf } from "../core/flow-of.js";
import type { Flow } from "../core/flow.js";
import { sealInstance, YES_OR_NO } from "../core/authority.js";
import {
  answerRefusal,
  commandAnswered,
  decisionAnswered,
  decisionKey,
  gateAgents,
  gateAnswer,
  pendingAsked,
  type GateAnswer,
  type PersonReply,
} from "../core/person-answer.js";
import { REPORT, type Phase } from "../core/phases.js";
import type { Decision } from "../core/plan-resume.js";
import { phasesOf } from "../core/phases.js";
import { COMMAND_RULES, readOptions } from "../core/helper-command.js";
import type { PhaseState } from "../schema/phase.js";
import { findProjectRoot, projectPaths } from "../store/project.js";
import { loadSnapshot } from "../store/session.js";
import { readEvents, type EventRecord } from "../store/events.js";
import type { ProjectPaths } from "../store/project.js";
import { authorityView, appendWithSeals } from "../store/authority.js";
import { designFiles, reportTimes } from "../store/reports.js";
import { readPhaseFile } from "../store/state-files.js";
import { locked, type OpContext } from "./op-context.js";

/** The workflow state as read now (undefined: none, or not readable), for the instance a seal binds to. */
async function currentState(paths: ProjectPaths): Promise<PhaseState | undefined> {
  try {
    const read = await readPhaseFile(paths);
    return read.kind === "ok" ? read.value : undefined;
  } catch {
    return undefined;
  }
}

/** The event log as the person's authority reads it (src/store/authority.ts): everything else is history. */
export function authorityEvents(
  paths: ProjectPaths,
  state: PhaseState | undefined,
  events: readonly EventRecord[] = readEvents(paths.eventsFile),
): EventRecord[] {
  return authorityView(paths, sealInstance(state), events);
}

/** Appends events, sealing those that carry authority for this workflow instance; the caller holds the lock. */
export function appendAuthority(
  context: OpContext,
  state: PhaseState | undefined,
  events: ReadonlyArray<{ type: string; [key: string]: unknown }>,
): EventRecord[] {
  return appendWithSeals(context.paths, sealInstance(state), events, context.now(), context.warn);
}

/** The report the person is shown at a phase's gate, and every report whose writing puts the question again. */
function gateReports(root: string, phase: Phase, flow: Flow): { shown: string; reports: string[] } {
  const step = flow.steps.find((s) => s.id === phase);
  if (step !== undefined && step.kind === "agent")
    return {
      shown: step.reports.find((p) => existsSync(join(root, p))) ?? step.reports[0]!,
      reports: [...step.reports],
    };
  // The pick is asked from the roundtable (final_design.json is dotagent's, written from the pick).
  const roundtable = existsSync(join(root, REPORT.roundtable));
  return roundtable
    ? { shown: REPORT.roundtable, reports: [REPORT.roundtable, ...designFiles(root)] }
    : { shown: REPORT.finalDesign, reports: designFiles(root) };
}

/** Whether the person answered `phase`'s gate (always true for a phase without one). */
export function personAnswered(paths: ProjectPaths, phase: Phase, state: PhaseState): GateAnswer & { shown: string } {
  const flow = flowOf(state);
  if (gateAgents(flow, phase) === undefined) return { answered: true, at: "", shown: "" };
  const { shown, reports } = gateReports(paths.root, phase, flow);
  return { ...gateAnswer(authorityEvents(paths, state), phase, reportTimes(paths.root, reports), flow), shown };
}

const isPick = (state: PhaseState, phase: Phase) => flowOf(state).steps.find((s) => s.id === phase)?.kind === "choose";

/** Refuses an approval the person has not given (`person_not_answered`, exit 1); at the pick, the design they named. */
export function requirePersonAnswer(
  paths: ProjectPaths,
  phase: Phase,
  state: PhaseState,
  pick?: string,
): Extract<GateAnswer, { answered: true }> & { shown: string } {
  const answer = personAnswered(paths, phase, state);
  const refusal = answerRefusal(phase, answer, flowOf(state), isPick(state, phase), pick);
  if (refusal !== undefined) throw refusalError(refusal);
  return answer as Extract<GateAnswer, { answered: true }> & { shown: string };
}

/**
 * A decision (fresh start, archive, a changed request, stale state, rollback, isolation, a step's
 * command) met in an agent's shell: asked, it is recorded (`decision_asked`, sealed) and handed
 * back unanswered (exit 5: the model relays it, with the words that count); answered with `--yes`,
 * it counts only when the person's reply after it says yes.
 */
export async function decideAsModel(
  context: OpContext,
  decision: Decision,
  yes: boolean,
): Promise<boolean | "no-terminal"> {
  const state = await currentState(context.paths);
  if (!yes) {
    await locked(context, "decision asked", () => recordAskedLocked(context, state, decision));
    return "no-terminal";
  }
  // A decision is told by what its yes runs, not by its words: a question names times ("last
  // active 8 days ago") that differ between the asking and the answer. So resume's "go back to
  // rev N?" is answered for the rollback command it names, too.
  const answered = commandAnswered(authorityEvents(context.paths, state), decision.yes);
  if (answered.ok) return true;
  throw refusal(answered, decision);
}

/**
 * Records `decision` as put to the person through the model (`decision_asked`, sealed), once while
 * it is unanswered; the caller holds the lock. Whoever hands a question to the model records it
 * (a command run from its shell, a hook's `dotagent next:` line), so the person's next prompt
 * answers it and the model never runs a failing command only to learn the question.
 */
export function recordAskedLocked(context: OpContext, state: PhaseState | undefined, decision: Decision): void {
  // Asked again before the person spoke: once in the log.
  if (pendingAsked(authorityEvents(context.paths, state))?.yes !== decision.yes)
    appendAuthority(context, state, [
      {
        type: "decision_asked",
        key: decisionKey(decision),
        question: decision.question,
        yes: decision.yes,
        no: decision.no,
      },
    ]);
}

/** recordAskedLocked under the state lock (a hook handing the model a plan with a decision). */
export async function recordAsked(context: OpContext, decision: Decision): Promise<void> {
  await locked(context, "decision asked", async () =>
    recordAskedLocked(context, await currentState(context.paths), decision),
  );
}

/** The question as the person is shown it: with the words that count as an answer. */
export function withReplyWords(decision: Decision): Decision {
  return decision.question.endsWith(YES_OR_NO)
    ? decision
    : { ...decision, question: `${decision.question} ${YES_OR_NO}` };
}

/** Whether the person approved `command` (a decision's yes they replied yes to), for a caller that checks without asking. */
export async function commandApprovedByReply(paths: ProjectPaths, command: string): Promise<PersonReply> {
  return commandAnswered(authorityEvents(paths, await currentState(paths)), command);
}

/** `resume --keep-definition` from an agent's shell: going on with a changed definition is the person's answer (SPEC §20). */
export async function requireKeepDefinitionAnswer(paths: ProjectPaths): Promise<void> {
  const answered = await commandApprovedByReply(paths, "dotagent resume --keep-definition");
  if (answered.ok) return;
  throw new DotagentError(
    "person_not_answered",
    `${answered.unclear ? "the person's reply to the changed-definition question said neither yes nor no" : "the person has not answered the changed-definition question yet"}: run \`dotagent resume --json\`, show them its decision, end your turn, and keep the pinned steps only if they say so`,
    EXIT.refused,
    { decision: "definition_changed" },
  );
}

/** `resume --keep-edit` from an agent's shell: adopting a hand edit is the person's answer to the hand-edit question. */
export async function requireKeepEditAnswer(paths: ProjectPaths): Promise<void> {
  const answered = await commandApprovedByReply(paths, "dotagent resume --keep-edit");
  if (answered.ok) return;
  throw new DotagentError(
    "person_not_answered",
    `${answered.unclear ? "the person's reply to the hand-edit question said neither yes nor no" : "the person has not answered the hand-edit question yet"}: run \`dotagent resume --json\`, show them its decision, end your turn, and keep the edit only if they say so`,
    EXIT.refused,
    { decision: "hand_edit" },
  );
}

/** `resume --isolation commit|shared` from an agent's shell: the person must have answered the isolation question. */
export async function requireIsolationAnswer(paths: ProjectPaths, mode: "commit" | "shared"): Promise<void> {
  const answered = decisionAnswered(authorityEvents(paths, await currentState(paths)), "isolation");
  // Their no is the question's no (run without worktrees), never a commit of their changes.
  if (answered.ok || (answered.saidNo && mode === "shared")) return;
  if (answered.saidNo)
    throw new DotagentError(
      "person_not_answered",
      "the person said no to committing their uncommitted changes: run `dotagent resume --isolation shared --json` (the tasks run without worktrees), or ask them again",
      EXIT.refused,
      { decision: "isolation" },
    );
  throw new DotagentError(
    "person_not_answered",
    `${answered.unclear ? "the person's reply to the uncommitted-changes question said neither yes nor no" : "the person has not answered the uncommitted-changes question yet"}: run \`dotagent resume --json\`, show them its decision, end your turn, and run the command for their answer after they reply`,
    EXIT.refused,
    { decision: "isolation" },
  );
}

function refusal(answered: PersonReply, decision: Decision): DotagentError {
  if (answered.saidNo)
    return new DotagentError(
      "person_not_answered",
      `the person said no to this: ${decision.question} Run its no instead (\`${decision.no}\`), or ask them again`,
      EXIT.refused,
      { decision },
    );
  if (answered.unclear)
    return new DotagentError(
      "person_not_answered",
      `the person's reply said neither yes nor no to this: ${decision.question} Ask them again (${YES_OR_NO}); run \`${decision.yes}\` only after they say yes`,
      EXIT.refused,
      { decision },
    );
  return new DotagentError(
    "person_not_answered",
    `the person has not answered this yet: ${decision.question} Run the command without --yes to get the decision, show it to them and end your turn; run \`${decision.yes}\` only after they say yes`,
    EXIT.refused,
    { decision },
  );
}

/**
 * The PreToolUse hook's part: why an allowed helper line `phase approve [PHASE]` must not run yet
 * (the person has not answered that gate, or at the pick named another design), or undefined.
 * `argv` is the line as the grammar read it.
 */
export async function unansweredApproval(
  context: OpContext,
  argv: readonly string[],
  cwd: string,
): Promise<string | undefined> {
  const [, subcommand, action, ...rest] = argv;
  if (subcommand !== "phase" || action !== "approve") return undefined;
  const dirAt = rest.findIndex((w) => w === "--dir" || w.startsWith("--dir="));
  const dir = dirAt === -1 ? undefined : rest[dirAt]!.startsWith("--dir=") ? rest[dirAt]!.slice(6) : rest[dirAt + 1];
  const paths =
    dir === undefined
      ? context.paths
      : projectPaths(findProjectRoot(undefined, isAbsolute(dir) ? dir : resolve(cwd, dir)));
  const snapshot = await loadSnapshot(paths);
  if (snapshot.phase.kind !== "ok") return undefined;
  const state = snapshot.phase.value;
  const read = readOptions(rest, COMMAND_RULES.phase.options);
  const named = read.ok ? read.positionals[0] : undefined;
  const phase = phasesOf(state).find((s) => s.toUpperCase() === named?.toUpperCase()) ?? state.current_phase;
  if (state.user_checkpoints.some((c) => c.phase === phase)) return undefined;
  const pick = read.ok ? read.values.pick : undefined;
  try {
    requirePersonAnswer(paths, phase, state, pick);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
