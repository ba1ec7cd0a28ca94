// The person's prompts, recorded as their replies, and what a plain reply asks for carried out
// once the client's own record confirms that the person typed it (SPEC §11 "The person's answer";
// who counts as the person: src/core/authority.ts).
//
// Why in two steps: Claude Code writes a prompt into its transcript (where promptSource says
// "typed" or "scheduled") only after the UserPromptSubmit hook has run, so the hook cannot know
// yet whether the person typed "approve" or the model's scheduled prompt did. The hook records the
// reply (sealed, with the prompt's id in the client's record) and, when the words ask dotagent to
// act (a plain approve, a design's name alone, any reply after a failed phase), a marker,
// memory/state/.pending-reply.json. The next command that takes the lock (the model's next call,
// the next hook) reads the record: the person's → carried out (approved, picked, started again);
// not the person's → dropped, with the reason in the log; not written yet → left for the next.
// Clients whose record already holds the prompt when the hook runs (and the tests) get it carried
// out at once. Crash-safe: the marker is removed after what it asks for is done, and doing it
// again finds it done (the gate approved, the phase started), so a kill anywhere repeats nothing.
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { namedDesign, replyAnswer, sealInstance } from "../core/authority.js";
import { DotagentError, EXIT } from "../core/errors.js";
import { flowOf } from "../core/flow-of.js";
import { approvalAt } from "../core/gates.js";
import { gateAgents, gateAnswer, pendingAsked, saysApprove, saysNo } from "../core/person-answer.js";
import { REPORT, type Phase } from "../core/phases.js";
import { planResume, type ResumePlan } from "../core/plan-resume.js";
import { transition, type PhaseEvent } from "../core/transitions.js";
import { reportAt, type ReportState } from "../core/reports.js";
import type { StateSnapshot } from "../core/snapshot.js";
import type { PhaseState } from "../schema/phase.js";
import { fileDigest, promptOrigin, sealedHere, type ReplyEvidence } from "../store/authority.js";
import { writeFileInside } from "../store/write-file.js";
import { readEvents, type EventRecord } from "../store/events.js";
import { MAX_STATE_BYTES, readProjectText } from "../store/read-file.js";
import { designFiles, reportTimes } from "../store/reports.js";
import { loadSnapshot } from "../store/session.js";
import { checkoutFacts } from "../store/worktrees.js";
import { appendAuthority, authorityEvents } from "./person-gate.js";
import { checkoutAsModelSees } from "./settle.js";
import type { PhaseResult } from "./phase-change.js";
import { locked, type OpContext } from "./op-context.js";

/** The marker of a reply that asks dotagent to act, waiting for the client's record (machine-local, under the lock). */
export const PENDING_REPLY = ".pending-reply.json";

/** How long a reply waits for the client's record of it before it is dropped. */
const PENDING_FOR_MS = 10 * 60_000;

/**
 * How long a command that comes right after the person's prompt waits for the client's record of
 * it (at most; it looks sooner first), and how recent the prompt must be for that: Claude Code
 * writes the prompt just after the hook returns, Copilot a moment later still (test/copilot/NOTES.md).
 */
const RECORD_WAIT_MS = 3_000;
const RECORD_WAIT_WITHIN_MS = 30_000;

/** A prompt from a client's hook: the words, where the client records them, and whether it is a /command. */
export interface TypedPrompt {
  readonly text: string;
  readonly evidence?: ReplyEvidence | undefined;
  readonly command?: boolean;
}

/** What a plain reply asks dotagent to do. */
type Effect =
  | { kind: "approve"; phase: Phase }
  | { kind: "pick"; phase: Phase; design: string }
  | { kind: "restart"; phase: Phase };

/** What the person's prompt did. `pending`: recorded, carried out once the client's record confirms it (`plan`: the next step then). */
export type PersonPrompt =
  | { kind: "none" }
  | { kind: "reply" }
  | { kind: "approved"; phase: Phase; result: PhaseResult; picked?: string }
  | { kind: "restarted"; phase: Phase; result: PhaseResult }
  | { kind: "pending"; effect: Effect; plan: ResumePlan | undefined }
  | { kind: "ignored"; why: string };

/** The designs written (their names), for a pick. */
function designNames(root: string): string[] {
  return designFiles(root).map((f) => f.slice(REPORT.designsDir.length + 1, -".json".length));
}

/** Whether the words approve a yes-or-no gate: an approval word anywhere, and no leading no ("looks good, approve", "fine, approve it"). */
function gateYes(text: string): boolean {
  return (
    !saysNo(text) && (replyAnswer(text) === "yes" || /\b(approve[ds]?|lgtm|looks good|go ahead|ship it)\b/i.test(text))
  );
}

/**
 * The UserPromptSubmit hook's part: the person's prompt at an open gate, after a decision was put
 * to the model, or after a failed phase, recorded as their reply (sealed, with its evidence); what
 * a plain reply asks for is carried out now when the client's record already confirms it, else
 * at the next locked command.
 */
export async function recordPrompt(context: OpContext, prompt: TypedPrompt): Promise<PersonPrompt> {
  // A prompt the client names no record of could never be confirmed as the person's: no reply at
  // all (Copilot also runs the project's Claude Code hooks, whose payload names none).
  if (prompt.evidence === undefined) return { kind: "none" };
  return locked(context, "person replied", async () => {
    const snapshot = await loadSnapshot(context.paths);
    const state = snapshot.phase.kind === "ok" ? snapshot.phase.value : undefined;
    const evidence = prompt.evidence === undefined ? {} : { evidence: prompt.evidence };
    let replied = false;
    // A decision put to the model and not yet answered: this prompt is the person's reply to it.
    const asked = prompt.command === true ? undefined : pendingAsked(authorityEvents(context.paths, state));
    if (asked !== undefined) {
      const answer = replyAnswer(prompt.text);
      appendAuthority(context, state, [
        {
          type: "person_replied",
          decision: asked.key,
          answer,
          ...(answer === "no" ? { declined: true } : {}),
          ...evidence,
        },
      ]);
      replied = true;
    }
    if (state === undefined) return replied ? { kind: "reply" } : { kind: "none" };
    const plan = planResume(snapshot, context.now());
    const phase = plan.phase;
    let effect: Effect | undefined;
    if (plan.next.action === "resolve_failed_agent" && phase !== null) {
      // Any reply of the person (a /command too) starts the failed phase again.
      appendAuthority(context, state, [{ type: "person_replied", phase, gate: null, failed: true, ...evidence }]);
      effect = { kind: "restart", phase };
    } else if (
      prompt.command !== true &&
      plan.next.action === "await_approval" &&
      phase !== null &&
      gateAgents(flowOf(state), phase) !== undefined
    ) {
      const gate = plan.next.gate ?? null;
      const text = prompt.text;
      if (approvalAt(flowOf(state), plan.next)?.does === "pick") {
        // A pick names one design ("minimal", "no, robust"); only the name alone is carried out by dotagent.
        const design = namedDesign(text, designNames(context.paths.root));
        const alone = design !== null && text.trim().replace(/[.!]$/, "").toLowerCase() === design.toLowerCase();
        const answer = design === null && saysNo(text) ? "no" : null;
        appendAuthority(context, state, [
          {
            type: "person_replied",
            phase,
            gate,
            answer,
            ...(answer === "no" ? { declined: true } : {}),
            ...(design !== null ? { design } : {}),
            ...(alone ? { picks: true } : {}),
            ...evidence,
          },
        ]);
        if (alone) effect = { kind: "pick", phase, design: design! };
      } else {
        const answer = saysNo(text) ? "no" : gateYes(text) ? "yes" : null;
        const plain = answer === "yes" && saysApprove(text);
        appendAuthority(context, state, [
          {
            type: "person_replied",
            phase,
            gate,
            answer,
            ...(answer === "no" ? { declined: true } : {}),
            ...(plain ? { approves: true } : {}),
            ...evidence,
          },
        ]);
        if (plain) effect = { kind: "approve", phase };
      }
      replied = true;
    }
    if (effect === undefined)
      return replied || plan.next.action === "resolve_failed_agent" ? { kind: "reply" } : { kind: "none" };
    const seq = readEvents(context.paths.eventsFile).at(-1)?.seq;
    writeFileInside(
      context.paths.root,
      join(context.paths.stateDir, PENDING_REPLY),
      `${JSON.stringify({ seq, effect })}\n`,
    );
    const done = await carryOutPendingReply(context);
    if (done.kind !== "pending") return done;
    return { kind: "pending", effect, plan: planAssuming(context, snapshot, effect) };
  });
}

/**
 * Carries out the reply the marker names, the caller holding the lock: once the client's record
 * confirms the person typed it, what it asks for is done; a reply that was not the person's is
 * dropped (event `person_reply_ignored {reply: its seq, why}`). Returns `pending` while the record does not
 * have it yet; with `personOnly`, a reply that was not the person's is left as it is (`none`).
 */
export async function carryOutPendingReply(
  context: OpContext,
  options: { personOnly?: boolean; waitForRecord?: boolean } = {},
): Promise<PersonPrompt> {
  const marker = join(context.paths.stateDir, PENDING_REPLY);
  const read = readProjectText(marker, { maxBytes: 4096, links: "refuse" });
  const clear = () => rmSync(marker, { force: true });
  if (read.kind !== "ok") {
    if (read.kind !== "missing") clear();
    return { kind: "none" };
  }
  let pending: { seq?: unknown; effect?: Effect };
  try {
    pending = JSON.parse(read.text) as typeof pending;
  } catch {
    clear();
    return { kind: "none" };
  }
  const events = readEvents(context.paths.eventsFile);
  const reply = events.find((e) => e.seq === pending.seq && e.type === "person_replied");
  const snapshot = await loadSnapshot(context.paths);
  const state = snapshot.phase.kind === "ok" ? snapshot.phase.value : undefined;
  const effect = pending.effect;
  if (reply === undefined || state === undefined || effect === undefined) {
    clear();
    return { kind: "none" };
  }
  // Sealed here (a marker that arrived by git names a reply sealed elsewhere: dropped at once).
  if (!sealedHere(context.paths, sealInstance(state), reply)) {
    clear();
    return { kind: "none" };
  }
  const evidence = reply.evidence as ReplyEvidence | undefined;
  let origin =
    evidence === undefined
      ? { kind: "not_person" as const, why: "the client gave no record of the prompt" }
      : promptOrigin(context.paths, evidence);
  // The model was told the reply is carried out at its next step, and that step can come before
  // the client has written the prompt down (Copilot, under load): rather than refuse the step the
  // reply allows (the model would then ask the person again), wait a moment for the record.
  if (
    options.waitForRecord === true &&
    evidence !== undefined &&
    origin.kind === "unconfirmed" &&
    Date.parse(reply.at) >= context.now().getTime() - RECORD_WAIT_WITHIN_MS
  ) {
    const sleep = context.sleep ?? ((ms: number) => new Promise<void>((done) => setTimeout(done, ms)));
    for (let waited = 0, step = 25; origin.kind === "unconfirmed" && waited < RECORD_WAIT_MS; step *= 2) {
      await sleep(Math.min(step, RECORD_WAIT_MS - waited));
      waited += step;
      origin = promptOrigin(context.paths, evidence);
    }
  }
  // The carrier (src/ops/reply-carrier.ts) carries out only what the record confirms; a reply that
  // was not the person's is left for the next locked command, whose caller is told why.
  if (options.personOnly === true && origin.kind === "not_person") return { kind: "none" };
  if (options.personOnly === true && origin.kind !== "person") return { kind: "pending", effect, plan: undefined };
  // The client records a prompt within moments; one still missing after minutes never will be.
  const stale = Date.parse(reply.at) < context.now().getTime() - PENDING_FOR_MS;
  if (origin.kind === "unconfirmed" && !stale) return { kind: "pending", effect, plan: undefined };
  if (origin.kind === "unconfirmed") {
    appendAuthority(context, state, [
      { type: "person_reply_ignored", reply: reply.seq, why: `the client never recorded it (${origin.why})` },
    ]);
    clear();
    return { kind: "ignored", why: `the client never recorded it (${origin.why})` };
  }
  if (origin.kind === "not_person") {
    appendAuthority(context, state, [{ type: "person_reply_ignored", reply: reply.seq, why: origin.why }]);
    clear();
    return { kind: "ignored", why: origin.why };
  }
  // The person's: done unless the workflow has moved on since (the gate answered another way, the phase started).
  try {
    const outcome = await carryOut(context, snapshot, state, effect, reply, origin.text);
    clear();
    return outcome;
  } catch (error) {
    // Never a command stuck behind a reply that cannot be carried out: said once, then dropped.
    const why = `it could not be carried out: ${(error as Error).message}`;
    appendAuthority(context, state, [{ type: "person_reply_ignored", reply: reply.seq, why }]);
    context.warn(`the person's reply (event ${reply.seq}) ${why}`);
    clear();
    return { kind: "ignored", why };
  }
}

async function carryOut(
  context: OpContext,
  snapshot: StateSnapshot,
  state: PhaseState,
  effect: Effect,
  reply: EventRecord,
  words: string,
): Promise<PersonPrompt> {
  const { changePhaseLocked } = await import("./phase-change.js");
  const person = { ...context, byModel: false };
  if (effect.kind === "restart") {
    if (!(state.current_phase === effect.phase && state.phase_status === "failed")) return { kind: "reply" };
    const { result } = await changePhaseLocked(person, { action: "start", phase: effect.phase });
    return { kind: "restarted", phase: effect.phase, result };
  }
  if (state.user_checkpoints.some((c) => c.phase === effect.phase) || state.current_phase !== effect.phase)
    return { kind: "reply" };
  // Still the newest answer to the gate's question (no report written or agent run since).
  const flow = flowOf(state);
  const shown =
    effect.kind === "pick"
      ? [REPORT.roundtable, ...designFiles(context.paths.root)]
      : (flow.steps.find((s) => s.id === effect.phase)?.reports ?? []);
  const answer = gateAnswer(
    authorityEvents(context.paths, state),
    effect.phase,
    reportTimes(context.paths.root, shown),
    flow,
  );
  if (
    !answer.answered ||
    answer.at !== (authorityEvents(context.paths, state).find((e) => e.seq === reply.seq)?.at ?? "")
  )
    return { kind: "reply" };
  if (effect.kind === "pick") {
    const { result } = await changePhaseLocked(person, {
      action: "approve",
      phase: effect.phase,
      pick: { design: effect.design, words, via: "reply" },
    });
    return { kind: "approved", phase: effect.phase, result, picked: effect.design };
  }
  const { result } = await changePhaseLocked(person, { action: "approve", phase: effect.phase });
  return { kind: "approved", phase: effect.phase, result };
}

/** Whether a reply waits to be carried out (one stat: `locked` asks before every command). */
export function hasPendingReply(stateDir: string): boolean {
  return existsSync(join(stateDir, PENDING_REPLY));
}

/**
 * The plan as it will be once the pending reply is carried out (the hook's answer to the model
 * meanwhile): the approval (or the pick, or the restart) applied to the state as read, nothing
 * written. Undefined when the machine refuses it (then the model gets the plan as it is). Where
 * that plan starts a round's tasks, the main checkout is looked at as resume does, so the model is
 * told the isolation question rather than a run_tasks the spawn hook would refuse.
 */
function planAssuming(context: OpContext, snapshot: StateSnapshot, effect: Effect): ResumePlan | undefined {
  const now = context.now();
  if (snapshot.phase.kind !== "ok") return undefined;
  let reports = snapshot.reports;
  if (effect.kind === "pick") {
    const design = reportAt(snapshot.reports, `${REPORT.designsDir}/${effect.design}.json`);
    const data = design.status === "valid" ? (design.data as Record<string, unknown>) : {};
    const final: ReportState = {
      status: "valid",
      data: {
        chosen: effect.design,
        approved_by: "user",
        design: data,
        ...(Array.isArray(data.tasks) ? { tasks: data.tasks } : {}),
      },
    };
    reports = { ...snapshot.reports, files: new Map([...snapshot.reports.files, [REPORT.finalDesign, final]]) };
  }
  const event = { type: effect.kind === "restart" ? "start" : "approve", phase: effect.phase } as PhaseEvent;
  const execution = snapshot.execution.kind === "ok" ? snapshot.execution.value : undefined;
  const moved = transition(snapshot.phase.value, event, { reports, execution, now });
  if (!moved.ok) return undefined;
  const assumed: StateSnapshot = { ...snapshot, reports, phase: { ...snapshot.phase, value: moved.state } };
  const plan = planResume(assumed, now);
  return plan.next.action === "run_tasks"
    ? planResume(assumed, now, { checkout: checkoutAsModelSees(context, checkoutFacts(context.paths.root)) })
    : plan;
}

/**
 * final_design.json written by dotagent from the person's pick (SPEC §1): the picked design, their
 * words, the design's tasks; then `design_picked` (sealed) names its digest, so the file counts
 * only while its bytes are these (a model's write of it is seen, src/store/session.ts).
 */
export function writePick(
  context: OpContext,
  state: PhaseState,
  pick: { design: string; words: string; via: "reply" | "terminal" | "program" | "auto"; tasks?: readonly unknown[] },
): void {
  const name = designNames(context.paths.root).find((n) => n.toLowerCase() === pick.design.toLowerCase());
  if (name === undefined)
    throw new DotagentError(
      "unknown_design",
      `no design named "${pick.design}" (designs: ${designNames(context.paths.root).join(", ") || "none yet"})`,
      EXIT.refused,
      { design: pick.design },
    );
  const source = `${REPORT.designsDir}/${name}.json`;
  const read = readProjectText(join(context.paths.root, source), {
    maxBytes: MAX_STATE_BYTES,
    links: "inside",
    root: context.paths.root,
  });
  let design: Record<string, unknown> | undefined;
  try {
    const value = read.kind === "ok" ? (JSON.parse(read.text) as unknown) : undefined;
    if (value !== null && typeof value === "object" && !Array.isArray(value)) design = value as Record<string, unknown>;
  } catch {
    design = undefined;
  }
  if (design === undefined)
    throw new DotagentError(
      "unknown_design",
      `${source} is not a valid design (a JSON object): spawn its architect again`,
      EXIT.refused,
      { design: name },
    );
  const now = context.now();
  const final = {
    chosen: name,
    source,
    approved_by: pick.via === "auto" ? "dotagent run --approve auto" : "user",
    decided_at: now.toISOString(),
    user_notes: pick.words.trim(),
    design,
    ...(pick.tasks !== undefined ? { tasks: pick.tasks } : Array.isArray(design.tasks) ? { tasks: design.tasks } : {}),
  };
  const text = `${JSON.stringify(final, null, 2)}\n`;
  writeFileInside(context.paths.root, join(context.paths.root, REPORT.finalDesign), text);
  appendAuthority(context, state, [
    { type: "design_picked", phase: state.current_phase, name, digest: fileDigest(text), via: pick.via },
  ]);
}
