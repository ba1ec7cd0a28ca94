// The person's gates kept theirs (SPEC §11, "The person's answer"; the rule: core/person-answer.ts):
// a prompt the person types while a gate is open is recorded (`person_replied`), and an approval
// from an agent's shell is refused until such a reply is newer than the gate's question.
import { existsSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { DotagentError, EXIT } from "../core/errors.js";
import { flowOf } from "../core/flow-of.js";
import type { Flow } from "../core/flow.js";
import { commandAnswered, decisionAnswered, decisionKey, declinedMessage, gateAgents, gateAnswer, notAnsweredMessage, pendingAsked, pendingDecision, saysNo, type GateAnswer } from "../core/person-answer.js";
import { REPORT, type Phase } from "../core/phases.js";
import { saysApprove } from "../core/person-answer.js";
import type { PhaseResult } from "./phase-change.js";
import { planResume, type Decision, type ResumePlan } from "../core/plan-resume.js";
import { phasesOf } from "../core/phases.js";
import { COMMAND_RULES, readOptions } from "../core/helper-command.js";
import { findProjectRoot, projectPaths } from "../store/project.js";
import { loadSnapshot } from "../store/session.js";
import { appendEvents, readEvents } from "../store/events.js";
import type { ProjectPaths } from "../store/project.js";
import { designFiles, reportTimes } from "../store/reports.js";
import { MAX_STATE_BYTES, readProjectText } from "../store/read-file.js";
import { writeJsonInside } from "../store/write-file.js";
import { locked, type OpContext } from "./op-context.js";

/** The report the person is shown at a phase's gate, and every report whose writing puts the question again. */
function gateReports(root: string, phase: Phase, flow: Flow): { shown: string; reports: string[] } {
  const step = flow.steps.find((s) => s.id === phase);
  if (step !== undefined && step.kind === "agent") return { shown: step.reports.find((p) => existsSync(join(root, p))) ?? step.reports[0]!, reports: [...step.reports] };
  // The pick is asked from the roundtable; a final design nobody reduced is asked about itself
  // (the model writes final_design.json after the person's pick, so it does not count then).
  const roundtable = existsSync(join(root, REPORT.roundtable));
  return roundtable ? { shown: REPORT.roundtable, reports: [REPORT.roundtable, ...designFiles(root)] } : { shown: REPORT.finalDesign, reports: [REPORT.finalDesign, ...designFiles(root)] };
}

/** Whether the person answered `phase`'s gate (always true for a phase without one). */
export function personAnswered(paths: ProjectPaths, phase: Phase, flow: Flow): GateAnswer & { shown: string } {
  if (gateAgents(flow, phase) === undefined) return { answered: true, at: "", shown: "" };
  const { shown, reports } = gateReports(paths.root, phase, flow);
  return { ...gateAnswer(readEvents(paths.eventsFile), phase, reportTimes(paths.root, reports), flow), shown };
}

/** Refuses an approval the person has not given (`person_not_answered`, exit 1). */
export function requirePersonAnswer(paths: ProjectPaths, phase: Phase, flow: Flow): void {
  const answer = personAnswered(paths, phase, flow);
  if (!answer.answered) throw new DotagentError("person_not_answered", unansweredMessage(phase, answer, flow), EXIT.refused, { phase, ...(answer.declined ? { declined: true } : {}) });
}

/** Why the gate is not answered, in the model's words: the person said no, or has not replied. */
function unansweredMessage(phase: Phase, answer: GateAnswer & { shown: string }, flow: Flow): string {
  return !answer.answered && answer.declined ? declinedMessage(phase, answer.shown, gateAgents(flow, phase) ?? []) : notAnsweredMessage(phase, answer.shown);
}

/** A person's prompt (UserPromptSubmit, not a notification) while a gate is open: recorded as their reply; the gate it answered, or undefined. */
export async function recordPersonReply(context: OpContext, plan: ResumePlan, flow: Flow, prompt = ""): Promise<{ phase: Phase; gate: string | null } | undefined> {
  const phase = plan.phase;
  if (plan.next.action !== "await_approval" || phase === null || gateAgents(flow, phase) === undefined) return undefined;
  const gate = plan.next.gate ?? null;
  // A plain no at a yes-or-no gate lets no approval through (a pick names a design: "no, robust" picks).
  const declined = gate !== "pick_design" && saysNo(prompt);
  await locked(context, "person replied", () => {
    appendEvents(context.paths.root, context.paths.eventsFile, [{ type: "person_replied", phase, gate, ...(declined ? { declined } : {}) }], context.now());
  });
  return { phase, gate };
}

/** What the person's prompt did: nothing, their reply recorded, their approval recorded, or a failed phase started again (with the step after it). */
export type PersonPrompt = { kind: "none" } | { kind: "reply" } | { kind: "approved"; phase: Phase; result: PhaseResult; picked?: string } | { kind: "restarted"; phase: Phase; result: PhaseResult };

/**
 * The UserPromptSubmit hook's part: the person's prompt, at an open gate or after a decision was
 * put to the model, recorded as their reply. At a yes-or-no gate (the demand, a written final
 * design), a prompt that only says yes ("approve", "lgtm") is their approval, recorded here: the
 * model is spared its helper call and a turn, and acts on the next step the hook hands it.
 */
export async function recordReplyAtGate(context: OpContext, prompt = "", options: { command?: boolean } = {}): Promise<PersonPrompt> {
  // A /command (such as /develop, "go on") answers no gate, but does start a failed phase again.
  if (options.command === true) {
    const snapshot = await loadSnapshot(context.paths);
    return (snapshot.phase.kind === "ok" ? await restartFailedPhase(context, planResume(snapshot, context.now())) : undefined) ?? { kind: "none" };
  }
  const pending = pendingDecision(readEvents(context.paths.eventsFile));
  if (pending !== undefined) {
    await locked(context, "person replied", () => {
      appendEvents(context.paths.root, context.paths.eventsFile, [{ type: "person_replied", decision: pending, ...(saysNo(prompt) ? { declined: true } : {}) }], context.now());
    });
  }
  const snapshot = await loadSnapshot(context.paths);
  if (snapshot.phase.kind !== "ok") return pending !== undefined ? { kind: "reply" } : { kind: "none" };
  const plan = planResume(snapshot, context.now());
  const restarted = await restartFailedPhase(context, plan);
  if (restarted !== undefined) return restarted;
  const replied = await recordPersonReply(context, plan, flowOf(snapshot.phase.value), prompt);
  if (replied === undefined) return pending !== undefined ? { kind: "reply" } : { kind: "none" };
  const picked = replied.gate === "pick_design" ? pickedDesign(context.paths.root, prompt) : undefined;
  if (picked !== undefined) writeFinalDesign(context.paths.root, picked, prompt, context.now());
  if (picked !== undefined || ((replied.gate === "approve_requirements" || replied.gate === "approve_design" || replied.gate === "approve_report") && saysApprove(prompt))) {
    const { changePhase } = await import("./phase-change.js");
    const { result } = await changePhase({ ...context, byModel: false }, { action: "approve", phase: replied.phase });
    return { kind: "approved", phase: replied.phase, result, ...(picked ? { picked: picked.name } : {}) };
  }
  return { kind: "reply" };
}

/**
 * The person's prompt while a failed phase waits for them (`resolve_failed_agent`, SPEC §5): the
 * phase starts again (`phase start`, the person's act), so its agent may run. What they said
 * (try again, or stop) is the model's to follow; dotagent only made sure they were asked.
 */
async function restartFailedPhase(context: OpContext, plan: ResumePlan): Promise<PersonPrompt | undefined> {
  const phase = plan.phase;
  if (plan.next.action !== "resolve_failed_agent" || phase === null) return undefined;
  await locked(context, "person replied", () => {
    appendEvents(context.paths.root, context.paths.eventsFile, [{ type: "person_replied", phase, gate: null, failed: true }], context.now());
  });
  const { changePhase } = await import("./phase-change.js");
  const { result } = await changePhase({ ...context, byModel: false }, { action: "start", phase });
  return { kind: "restarted", phase, result };
}

/**
 * The design a pick names and nothing else ("minimal", "Minimal."), among the designs written,
 * when it lists its tasks (the plan is taken from them); anything more ("minimal, but keep the
 * old API") is a reply the model reads and writes final_design.json from.
 */
function pickedDesign(root: string, prompt: string): { name: string; design: Record<string, unknown> } | undefined {
  const said = prompt.trim().replace(/[.!]$/, "").toLowerCase();
  const file = designFiles(root).find((f) => f.slice(REPORT.designsDir.length + 1, -".json".length).toLowerCase() === said);
  if (file === undefined) return undefined;
  const read = readProjectText(join(root, file), { maxBytes: MAX_STATE_BYTES, links: "inside", root });
  if (read.kind !== "ok") return undefined;
  try {
    const design = JSON.parse(read.text) as unknown;
    if (design === null || typeof design !== "object" || Array.isArray(design)) return undefined;
    const tasks = (design as Record<string, unknown>).tasks;
    return Array.isArray(tasks) && tasks.length > 0 ? { name: file.slice(REPORT.designsDir.length + 1, -".json".length), design: design as Record<string, unknown> } : undefined;
  } catch {
    return undefined;
  }
}

/** final_design.json as /develop writes it after the person's pick (SPEC §1), from the picked design. */
function writeFinalDesign(root: string, picked: { name: string; design: Record<string, unknown> }, words: string, now: Date): void {
  const final = { chosen: picked.name, source: `${REPORT.designsDir}/${picked.name}.json`, approved_by: "user", decided_at: now.toISOString(), user_notes: words.trim(), design: picked.design, tasks: picked.design.tasks };
  writeJsonInside(root, join(root, REPORT.finalDesign), final);
}
/**
 * A decision (fresh start, archive, a changed request, stale state, rollback, isolation) met in
 * an agent's shell: asked, it is recorded (`decision_asked`) and handed back unanswered (exit 5:
 * the model relays it); answered with `--yes`, it counts only when the person replied after it
 * was asked. The person's decisions are theirs (SPEC §11).
 */
export async function decideAsModel(context: OpContext, decision: Decision, yes: boolean): Promise<boolean | "no-terminal"> {
  if (!yes) {
    await locked(context, "decision asked", () => {
      const events = readEvents(context.paths.eventsFile);
      // Asked again before the person spoke: once in the log.
      if (pendingAsked(events)?.yes !== decision.yes) appendEvents(context.paths.root, context.paths.eventsFile, [{ type: "decision_asked", key: decisionKey(decision), question: decision.question, yes: decision.yes, no: decision.no }], context.now());
    });
    return "no-terminal";
  }
  // A decision is told by what its yes runs, not by its words: a question names times ("last
  // active 8 days ago") that differ between the asking and the answer. So resume's "go back to
  // rev N?" is answered for the rollback command it names, too.
  const answered = commandAnswered(readEvents(context.paths.eventsFile), decision.yes);
  if (answered.ok) return true;
  throw answered.saidNo ? saidNo(decision) : notAnswered(decision);
}

/** `resume --keep-definition` from an agent's shell: going on with a changed definition is the person's answer (SPEC §20). */
export function requireKeepDefinitionAnswer(paths: ProjectPaths): void {
  if (commandAnswered(readEvents(paths.eventsFile), "dotagent resume --keep-definition").ok) return;
  throw new DotagentError("person_not_answered", "the person has not answered the changed-definition question yet: run `dotagent resume --json`, show them its decision, end your turn, and keep the pinned steps only if they say so", EXIT.refused, { decision: "definition_changed" });
}

/** `resume --keep-edit` from an agent's shell: adopting a hand edit is the person's answer to the hand-edit question. */
export function requireKeepEditAnswer(paths: ProjectPaths): void {
  if (commandAnswered(readEvents(paths.eventsFile), "dotagent resume --keep-edit").ok) return;
  throw new DotagentError("person_not_answered", "the person has not answered the hand-edit question yet: run `dotagent resume --json`, show them its decision, end your turn, and keep the edit only if they say so", EXIT.refused, { decision: "hand_edit" });
}

/** `resume --isolation commit|shared` from an agent's shell: the person must have answered the isolation question. */
export function requireIsolationAnswer(paths: ProjectPaths, mode: "commit" | "shared"): void {
  const answered = decisionAnswered(readEvents(paths.eventsFile), "isolation");
  // Their no is the question's no (run without worktrees), never a commit of their changes.
  if (answered.ok || (answered.saidNo && mode === "shared")) return;
  if (answered.saidNo) throw new DotagentError("person_not_answered", "the person said no to committing their uncommitted changes: run `dotagent resume --isolation shared --json` (the tasks run without worktrees), or ask them again", EXIT.refused, { decision: "isolation" });
  throw new DotagentError("person_not_answered", "the person has not answered the uncommitted-changes question yet: run `dotagent resume --json`, show them its decision, end your turn, and run the command for their answer after they reply", EXIT.refused, { decision: "isolation" });
}

function saidNo(decision: Decision): DotagentError {
  return new DotagentError("person_not_answered", `the person said no to this: ${decision.question} Run its no instead (\`${decision.no}\`), or ask them again`, EXIT.refused, { decision });
}

function notAnswered(decision: Decision): DotagentError {
  return new DotagentError("person_not_answered", `the person has not answered this yet: ${decision.question} Run the command without --yes to get the decision, show it to them and end your turn; run \`${decision.yes}\` only after they say yes`, EXIT.refused, { decision });
}

/**
 * The PreToolUse hook's part: why an allowed helper line `phase approve [PHASE]` must not run yet
 * (the person has not answered that gate), or undefined. `argv` is the line as the grammar read it.
 */
export async function unansweredApproval(context: OpContext, argv: readonly string[], cwd: string): Promise<string | undefined> {
  const [, subcommand, action, ...rest] = argv;
  if (subcommand !== "phase" || action !== "approve") return undefined;
  const dirAt = rest.findIndex((w) => w === "--dir" || w.startsWith("--dir="));
  const dir = dirAt === -1 ? undefined : rest[dirAt]!.startsWith("--dir=") ? rest[dirAt]!.slice(6) : rest[dirAt + 1];
  const paths = dir === undefined ? context.paths : projectPaths(findProjectRoot(undefined, isAbsolute(dir) ? dir : resolve(cwd, dir)));
  const snapshot = await loadSnapshot(paths);
  if (snapshot.phase.kind !== "ok") return undefined;
  const state = snapshot.phase.value;
  const read = readOptions(rest, COMMAND_RULES.phase.options);
  const named = read.ok ? read.positionals[0] : undefined;
  const phase = phasesOf(state).find((s) => s.toUpperCase() === named?.toUpperCase()) ?? state.current_phase;
  if (state.user_checkpoints.some((c) => c.phase === phase)) return undefined;
  const answer = personAnswered(paths, phase, flowOf(state));
  return answer.answered ? undefined : unansweredMessage(phase, answer, flowOf(state));
}
