// What the record of a run says happened, for `dotagent report` (SPEC §10): which events tell of an
// interruption or a repair, when the run started and ended, and whether its checks passed. Read
// from the events' fields, never from their prose, so a program and the page agree.
//
// The trap this module exists for: counting by event type. `resume` logs a `resumed` event every
// time it plans (the headless runner once per step, `/develop` at each session's start), so a run
// never cut off read "11 interruption or repair events"; a failed check's rework and a task's
// retry are the run's own course, not an interruption either. So:
// - an **interruption** is work a session left cut off and dotagent found afterwards: an agent
//   gone without its end (`agent_gone`) or its session continued by the next `dotagent run`
//   (`agent_continued`), a task running with no owner (`task_reset`, `task_dead` with `orphaned`),
//   a task's or merge's end finished for it (`recovered`), a change cut off between its files
//   (`transition_recovered`), a task given back by a stopped run (`task_released`), a step's
//   command started again while its last start has no end (`step_run_started`, read in order);
// - a **repair** is the state set right: a rollback, a hand edit kept, a report set aside, a task
//   worktree moved or mended, and a `resumed` whose `repair_codes` hold one of RESUME_REPAIR_CODES
//   (a log written before that field: a `resumed` with `repairs` > 0 right after an event that is
//   an interruption or a repair, which resume logs just before its own);
// - a **failure** (a task failed or given up, a step failed, a check sent back for rework, a
//   merge conflict) is shown for what it is, never counted as an interruption.
// Pure: the caller reads the files.
import type { Step } from "./flow.js";
import { reportAt, type ReportSnapshot } from "./reports.js";
import { count } from "./words.js";

export interface RunEvent {
  readonly seq: number;
  readonly at: string;
  readonly type: string;
  readonly [key: string]: unknown;
}

export type EventKind = "interruption" | "repair" | "failure";

/** The repair codes of a resume plan (SPEC §5 `repairs[].code`) that set right what an interruption or a hand edit left. */
export const RESUME_REPAIR_CODES: ReadonlySet<string> = new Set([
  "transition_rolled_forward",
  "transition_rolled_back",
  "marked_safe",
  "execution_marked_safe",
  "task_completed_from_output",
  "task_failed_from_output",
  "task_reset",
  "agent_gone",
  "clear_finished",
  "hand_edit_kept",
  "rolled_back",
]);

/** Each event type's kind, read from its fields; absent: neither (the run's course, or bookkeeping). */
const KINDS: Readonly<Record<string, (ev: RunEvent) => EventKind | null>> = {
  agent_gone: () => "interruption",
  agent_continued: () => "interruption",
  task_reset: () => "interruption",
  task_released: () => "interruption",
  transition_recovered: () => "interruption",
  task_dead: (ev) => (ev.orphaned === true ? "interruption" : "failure"),
  task_completed: (ev) => (ev.recovered === true ? "interruption" : null),
  task_failed: (ev) => (ev.recovered === true ? "interruption" : "failure"),
  task_merged: (ev) => (ev.recovered === true ? "interruption" : null),
  rolled_back: () => "repair",
  hand_edit_kept: () => "repair",
  report_set_aside: () => "repair",
  worktree_moved: () => "repair",
  worktree_mended: () => "repair",
  task_requeued: () => "failure",
  task_conflict: () => "failure",
  phase_failed: () => "failure",
  phase_rework: () => "failure",
};

/** `ev`'s kind; `before` is the event logged just before it (an old log's `resumed` is judged by it). */
export function kindOfEvent(ev: RunEvent, before?: RunEvent): EventKind | null {
  if (ev.type === "resumed") {
    if (Array.isArray(ev.repair_codes))
      return ev.repair_codes.some((code) => typeof code === "string" && RESUME_REPAIR_CODES.has(code))
        ? "repair"
        : null;
    const repaired = typeof ev.repairs === "number" && ev.repairs > 0;
    const kind = before === undefined ? null : kindOfEvent(before);
    return repaired && (kind === "interruption" || kind === "repair") ? "repair" : null;
  }
  return KINDS[ev.type]?.(ev) ?? null;
}

export interface StoryEvent {
  readonly event: RunEvent;
  readonly kind: EventKind;
}

/** The events that are an interruption, a repair or a failure, in log order, with their kind. */
export function classifyEvents(events: readonly RunEvent[]): StoryEvent[] {
  const out: StoryEvent[] = [];
  /** Steps whose command started and has not ended yet: a second start means the first was cut off. */
  const running = new Set<unknown>();
  events.forEach((event, i) => {
    let kind = kindOfEvent(event, i > 0 ? events[i - 1] : undefined);
    if (event.type === "step_run_started") {
      if (running.has(event.step)) kind = "interruption";
      running.add(event.step);
    } else if (event.type === "step_run_ended") running.delete(event.step);
    if (kind !== null) out.push({ event, kind });
  });
  return out;
}

const ms = (iso: unknown): number | undefined => {
  if (typeof iso !== "string") return undefined;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? undefined : t;
};

export interface RunSpanInput {
  readonly steps: readonly string[];
  readonly currentPhase: string | null;
  readonly phaseStatus: string | null;
  readonly completed: readonly { readonly phase: string; readonly completed_at?: string | undefined }[];
  readonly approvals: readonly { readonly approved_at?: string | undefined }[];
  readonly events: readonly RunEvent[];
}

export interface RunSpan {
  readonly start: number | undefined;
  /** The workflow's completion when complete, else its last recorded moment; never the moment the report is made. */
  readonly end: number | undefined;
  readonly complete: boolean;
}

/** When the run started and ended: from the first event to the last step's completion (complete), or to the last event (open). */
export function runSpan(input: RunSpanInput): RunSpan {
  const last = input.steps[input.steps.length - 1];
  const complete = last !== undefined && input.currentPhase === last && input.phaseStatus === "complete";
  const recorded = [
    ...input.events.map((ev) => ms(ev.at)),
    ...input.completed.map((c) => ms(c.completed_at)),
    ...input.approvals.map((a) => ms(a.approved_at)),
  ].filter((t): t is number => t !== undefined);
  const start = recorded.length === 0 ? undefined : Math.min(...recorded);
  if (complete) {
    const ends = [
      ...input.events
        .filter((ev) => (ev.type === "phase_completed" || ev.type === "phase_skipped") && ev.phase === last)
        .map((ev) => ms(ev.at)),
      ...input.completed.filter((c) => c.phase === last).map((c) => ms(c.completed_at)),
    ].filter((t): t is number => t !== undefined);
    if (ends.length > 0) return { start, end: Math.max(...ends), complete };
  }
  return { start, end: recorded.length === 0 ? undefined : Math.max(...recorded), complete };
}

/** A check step's outcome in show's words: its report says passed or failed; else none yet, not valid, or the step skipped. */
export type CheckVerdict = "passed" | "failed" | "none" | "invalid" | "skipped";

export interface CheckOutcome {
  readonly step: string;
  /** `agent`: a checking agent writes the report; `command`: dotagent runs the step's command and writes it. */
  readonly kind: "agent" | "command";
  readonly report: string;
  readonly outcome: CheckVerdict;
  /** Times this check failed and sent the work back (its `phase_rework` events). */
  readonly rework_rounds: number;
  /** The report's summary (an agent's) or exit code (a command's), in one line for the page. */
  readonly detail: string | null;
}

const reworkCopyOf = (report: string) =>
  new RegExp(
    `^${report.replace(/\.(json|md)$/, "").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\.rework-\\d+\\.(json|md)$`,
  );

/** Each check step's outcome: the report as read, the rework rounds it caused (from the log), whether its `when` passed it over. */
export function checkOutcomes(
  steps: readonly Step[],
  reports: ReportSnapshot,
  events: readonly RunEvent[],
  skipped: ReadonlySet<string>,
): CheckOutcome[] {
  return steps.flatMap((step): CheckOutcome[] => {
    if (step.kind !== "check") return [];
    const report = step.reports[0]!;
    const copy = reworkCopyOf(report);
    const rework_rounds = events.filter(
      (ev) => ev.type === "phase_rework" && typeof ev.verification === "string" && copy.test(ev.verification),
    ).length;
    const read = reportAt(reports, report);
    const data =
      read.status === "valid" && typeof read.data === "object" && read.data !== null
        ? (read.data as Record<string, unknown>)
        : undefined;
    const outcome: CheckVerdict =
      data !== undefined && typeof data.passed === "boolean"
        ? data.passed
          ? "passed"
          : "failed"
        : read.status === "invalid" || read.status === "outside" || read.status === "valid"
          ? "invalid"
          : skipped.has(step.id)
            ? "skipped"
            : "none";
    const detail =
      data === undefined
        ? null
        : typeof data.exit_code === "number"
          ? `exit ${data.exit_code}`
          : typeof data.summary === "string"
            ? data.summary
            : null;
    return [
      { step: step.id, kind: step.run !== undefined ? "command" : "agent", report, outcome, rework_rounds, detail },
    ];
  });
}

export interface VerificationOutcome {
  /** true: every check that ran passed; false: one failed (its report says so now); null: no check, or one not decided yet. */
  readonly passed: boolean | null;
  readonly checks: readonly CheckOutcome[];
}

export function verificationOf(checks: readonly CheckOutcome[]): VerificationOutcome {
  const decided = checks.filter((c) => c.outcome !== "skipped");
  const passed =
    decided.length === 0
      ? null
      : decided.some((c) => c.outcome === "failed")
        ? false
        : decided.every((c) => c.outcome === "passed")
          ? true
          : null;
  return { passed, checks };
}

/** One check in a person's words, as `show` says a verdict: `VERIFICATION passed after 1 rework round`. */
export function checkWords(check: CheckOutcome): string {
  const verdict = {
    passed: "passed",
    failed: "failed",
    none: "no report yet",
    invalid: "report not valid",
    skipped: "skipped",
  }[check.outcome];
  const rounds =
    check.rework_rounds === 0
      ? ""
      : check.outcome === "passed"
        ? ` after ${count(check.rework_rounds, "rework round")}`
        : `, ${count(check.rework_rounds, "rework round")} so far`;
  return `${check.step} ${verdict}${rounds}`;
}

/** The whole verdict in a few words for the one-line summary: `verification passed`, `verification failed (TESTS)`; null: no check step. */
export function verificationWords(verification: VerificationOutcome): string | null {
  const { checks, passed } = verification;
  if (checks.length === 0) return null;
  if (checks.every((c) => c.outcome === "skipped")) return "verification skipped";
  const rounds = checks.reduce((n, c) => n + c.rework_rounds, 0);
  if (passed === true) return `verification passed${rounds === 0 ? "" : ` after ${count(rounds, "rework round")}`}`;
  if (passed === false)
    return `verification failed (${checks
      .filter((c) => c.outcome === "failed")
      .map((c) => c.step)
      .join(", ")})`;
  return `verification not done yet (${checks
    .filter((c) => c.outcome !== "passed" && c.outcome !== "skipped")
    .map(checkWords)
    .join("; ")})`;
}
