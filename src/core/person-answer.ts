// Whether the person answered a gate, from the event log: the rule that keeps a gate the person's
// (SPEC §11, "The person's answer"). The model reads the report, shows it, asks and ends its
// turn; only a prompt the person types after that can let it approve. Claude Code's
// UserPromptSubmit hook sees every prompt a person types (notifications aside) and records one
// typed while a gate is open as `person_replied {phase, gate}`. An approval that comes from an
// agent's shell is accepted only when such a reply is newer than everything that put the gate's
// question: the gate's report written (its file's time), an agent of the phase started or ended,
// the workflow started or rolled back. So the model cannot approve before the person spoke, nor
// approve a report the person has not seen (a pm run again after their reply).
// What it cannot know: whether the words said yes. A reply is the person's turn, not a verdict,
// except a plain no ("no, add remember-me"), recorded `declined`: that reply lets no approval
// through, nor a decision's yes (its no stays open), until the person replies again.
import type { Phase } from "./phases.js";
import { hasGate, stepAgents, type Flow } from "./flow.js";
import { refuse, type Refusal } from "./errors.js";

/**
 * The agents whose work the gate of step `phase` asks about (develop: REQUIREMENTS the pm's,
 * ARCHITECTURE the architects' and the roundtable's), or undefined for a step without a gate.
 */
export function gateAgents(flow: Flow, phase: Phase): readonly string[] | undefined {
  const step = flow.steps.find((s) => s.id === phase);
  return step !== undefined && hasGate(step) ? stepAgents(step) : undefined;
}

/** How far a file's modification time may lag the clock events are stamped with. */
export const FILE_CLOCK_SLACK_MS = 25;

export interface LoggedEvent {
  readonly at: string;
  readonly type: string;
  readonly [key: string]: unknown;
}

export type GateAnswer =
  | { answered: true; at: string; design?: string; said?: string }
  | { answered: false; since: string | null; declined?: true; unclear?: true };

/**
 * Whether a `person_replied` for `phase` came after the gate's question was last put: after
 * `reportTimes` (ms: when the gate's reports were written) and the newest event that changed
 * what the gate asks about. `since` is when the question was put (null: never asked).
 */
export function gateAnswer(
  events: readonly LoggedEvent[],
  phase: Phase,
  reportTimes: readonly number[],
  flow: Flow,
): GateAnswer {
  const agents = gateAgents(flow, phase) ?? [];
  // A file's time comes from the kernel's coarse clock, up to a tick (4–10 ms) behind the clock
  // events are stamped with: a report counts as written that much later (no person replies faster).
  let putAt = Math.max(0, ...reportTimes.filter((t) => Number.isFinite(t)).map((t) => t + FILE_CLOCK_SLACK_MS));
  let reply: LoggedEvent | undefined;
  for (const event of events) {
    const at = Date.parse(event.at);
    if (!Number.isFinite(at)) continue;
    if (event.type === "person_replied") {
      if (event.phase === phase && event.failed !== true) reply = event;
      continue;
    }
    const reopens =
      event.type === "workflow_started" ||
      event.type === "rolled_back" ||
      (event.type.startsWith("agent_") && typeof event.agent === "string" && agents.includes(event.agent));
    if (reopens && at > putAt) putAt = at;
  }
  const since = putAt > 0 ? new Date(putAt).toISOString() : null;
  if (reply === undefined || !(Date.parse(reply.at) > putAt)) return { answered: false, since };
  // What the reply says: a yes (or, at the pick, a design named) answers; a plain no declines;
  // other words ("add remember-me", "continue") answer nothing: the model acts on them and asks again.
  const said = typeof reply.said === "string" ? { said: reply.said } : {};
  if (typeof reply.design === "string") return { answered: true, at: reply.at, design: reply.design, ...said };
  if (reply.answer === "no" || reply.declined === true) return { answered: false, since, declined: true };
  if (reply.answer === "yes") return { answered: true, at: reply.at, ...said };
  return { answered: false, since, unclear: true };
}

/** A gate's answer as read for an approval, with the report the person is shown there (`shown`). */
export type ShownAnswer = GateAnswer & { shown: string };

/**
 * Why an approval from an agent's shell is refused at `phase`'s gate (`person_not_answered`, exit
 * 1), or undefined when the person's reply lets it through; at the pick (`pick`: a choose step),
 * their reply must name the design approved.
 */
export function answerRefusal(
  phase: Phase,
  answer: ShownAnswer,
  flow: Flow,
  pick: boolean,
  design: string | undefined,
): Refusal | undefined {
  if (!answer.answered) {
    const message = answer.declined
      ? declinedMessage(phase, answer.shown, gateAgents(flow, phase) ?? [])
      : answer.unclear
        ? unclearMessage(phase, answer.shown, pick)
        : notAnsweredMessage(phase, answer.shown, pick);
    return refuse("person_not_answered", message, undefined, { phase, ...(answer.declined ? { declined: true } : {}) });
  }
  if (
    pick &&
    (answer.design === undefined || design === undefined || design.toLowerCase() !== answer.design.toLowerCase())
  ) {
    const named = answer.design === undefined ? "names no one design" : `names ${answer.design}`;
    return refuse(
      "person_not_answered",
      `the person's pick ${named}: run \`dotagent phase approve ${phase} --pick ${answer.design ?? "<the design they named>"}\` (dotagent writes final_design.json from their pick), or ask them again`,
      undefined,
      { phase, ...(answer.design ? { design: answer.design } : {}) },
    );
  }
  return undefined;
}

/** The line a model gets when it approves after the person said no at the gate. */
export function declinedMessage(phase: Phase, gateReport: string, agents: readonly string[]): string {
  const redo = agents.length > 0 ? `spawn ${agents.join(" or ")} again with their feedback, ` : "";
  return `the person said no at the ${phase} gate: do what they asked (${redo}then show ${gateReport} again) and ask again; dotagent records their next answer`;
}

/** The line a model gets when the person's reply at the gate neither approved nor said no. */
export function unclearMessage(phase: Phase, gateReport: string, pick: boolean): string {
  return pick
    ? `the person's reply at the ${phase} gate names no one design: show the options in ${gateReport} again and ask which one; dotagent takes a reply that names one design`
    : `the person's reply at the ${phase} gate did not approve: do what it asks, or show ${gateReport} again and ask "approve, or what should change?"; dotagent takes a reply that says approve (or yes, lgtm, looks good)`;
}

/** The line a model gets when it approves before the person answered (`pick`: the gate of a choose step). */
export function notAnsweredMessage(phase: Phase, gateReport: string, pick: boolean): string {
  const ask = pick ? "which design (or what should change)" : '"approve, or what should change?"';
  return `the person has not answered the ${phase} gate yet: show ${gateReport}, ask ${ask} and end your turn; dotagent records their answer when they reply, then approve`;
}

/** A decision as the log knows it: its question, or `isolation` for the round's uncommitted-changes question (answered by `--isolation`, not `--yes`). */
export function decisionKey(decision: { question: string; yes: string }): string {
  return / --isolation /.test(`${decision.yes} `) ? "isolation" : decision.question;
}

/** The newest decision put to an agent's shell (`decision_asked`) that no person's reply has followed yet. */
export function pendingAsked(events: readonly LoggedEvent[]): LoggedEvent | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    // Answered once the person said yes or no; a reply that said neither leaves it open (asked again).
    if (
      event.type === "person_replied" &&
      typeof event.decision === "string" &&
      (event.answer === "yes" || event.answer === "no" || event.declined === true)
    )
      return undefined;
    if (event.type === "decision_asked" && typeof event.key === "string") return event;
  }
  return undefined;
}

/** The key of the pending decision (pendingAsked), which the person's next prompt answers. */
export function pendingDecision(events: readonly LoggedEvent[]): string | undefined {
  return pendingAsked(events)?.key as string | undefined;
}

/**
 * What the person's reply to a decision lets through. `ok`: it does (they replied, and not with a
 * plain no, or this is the decision's own no); `saidNo`: their newest reply said no, and this is
 * not its no. Two fields, never a value that is truthy on a no: a caller tests `ok`.
 */
export interface PersonReply {
  readonly ok: boolean;
  readonly saidNo: boolean;
  /** They replied, but said neither yes nor no: asked again. */
  readonly unclear?: boolean;
}

const NO_REPLY: PersonReply = { ok: false, saidNo: false };

/** Whether the person replied after `key` was last asked (a `--yes` from an agent's shell needs it). */
export function decisionAnswered(events: readonly LoggedEvent[], key: string): PersonReply {
  let asked = -1;
  events.forEach((e, i) => {
    if (e.type === "decision_asked" && e.key === key) asked = i;
  });
  const reply =
    asked === -1
      ? undefined
      : events.findLast((e, i) => i > asked && e.type === "person_replied" && e.decision === key);
  if (reply === undefined) return NO_REPLY;
  // Only a yes answers yes ("continue" answers nothing): SPEC §11.
  if (reply.answer === "no" || reply.declined === true) return { ok: false, saidNo: true };
  return reply.answer === "yes" ? { ok: true, saidNo: false } : { ok: false, saidNo: false, unclear: true };
}

/**
 * Whether `command` is the person's answer: the yes or no of a decision put to the model (the
 * resume's "go back to checkpoint N?" names `dotagent rollback --to N --yes` and `dotagent resume
 * --keep-edit`) that the person replied to after it was last asked.
 */
export function commandAnswered(events: readonly LoggedEvent[], command: string): PersonReply {
  const asked = events
    .filter((e) => e.type === "decision_asked" && (e.yes === command || e.no === command) && typeof e.key === "string")
    .at(-1);
  if (asked === undefined) return NO_REPLY;
  const answered = decisionAnswered(events, asked.key as string);
  // A no lets the decision's no command through, never its yes; a yes only the yes.
  if (asked.no === command && asked.yes !== command)
    return answered.saidNo
      ? { ok: true, saidNo: false }
      : answered.ok
        ? { ok: false, saidNo: false, unclear: true }
        : answered;
  return answered;
}

/**
 * Whether the person's words only say yes to a yes-or-no gate: "approve", "approved", "yes",
 * "lgtm", "ok", "looks good", "go ahead", alone (a full stop or "!" allowed). Anything more ("yes,
 * but add remember-me") is a reply the model reads and acts on, never an approval by itself.
 */
export function saysApprove(prompt: string): boolean {
  return APPROVE.test(prompt.trim());
}
const APPROVE = /^(approve[ds]?|yes|y|lgtm|ok|okay|looks good( to me)?|go ahead|ship it|approve it)[.!]?$/i;

/**
 * Whether the person's words open with a plain no: "no", "nope", "not yet", "reject", "wait",
 * "stop", "hold on", "don't approve" (then anything: "no, add remember-me"). A no that also says
 * yes ("no problem, approve it") is not one: the model reads it.
 */
export function saysNo(prompt: string): boolean {
  const text = prompt.trim();
  if (/^(please )?(don'?t|do not) approve\b|^not approved\b/i.test(text)) return true;
  return (
    /^(no|nope|nah|not yet|reject(ed)?|decline[ds]?|wait|stop|hold on)\b(?!-)/i.test(text) &&
    !/\b(approve[ds]?|lgtm|looks good|go ahead|ship it|yes)\b/i.test(text)
  );
}
