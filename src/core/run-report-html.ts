// The picture of a run (`dotagent report`, SPEC §10): one self-contained HTML page — inline CSS and
// SVG, no script, no network, no external font — with the steps on a timeline (durations, gates),
// the task graph coloured by status (attempts, merges), whether the checks passed, what interrupted
// the run and what was repaired (run-story.ts decides which events those are, from their fields),
// the failures and reworks apart, and the cost when something recorded it. The time axis ends
// where the run ended (its completion, or its last event), never at the moment the page is made. The threat: every string here comes from
// state files and an event log that anyone can commit (a request, a task title, an error, a
// hostile id), so every one passes through `escapeHtml` before it reaches the page, attributes
// included; the page's own words are the only markup. Pure: the caller reads the files and the clock.
import type { TaskRow } from "./task-list.js";
import {
  checkWords,
  classifyEvents,
  runSpan,
  verificationOf,
  verificationWords,
  type CheckOutcome,
  type RunEvent,
  type RunSpan,
  type StoryEvent,
} from "./run-story.js";
import { count } from "./words.js";
import { runLine, type WorkflowRunView } from "./workflow-run-view.js";
import type { CutOff } from "./step-standing.js";

export type RunReportEvent = RunEvent;

export interface RunReportInput {
  readonly workflowId: string | null;
  readonly request: string | null;
  readonly currentPhase: string | null;
  readonly phaseStatus: string | null;
  /** The workflow's steps in order (develop's five, or a definition's). */
  readonly steps: readonly string[];
  /** phase.json's completed_phases and user_checkpoints, as read (loose). */
  readonly completed: readonly { readonly phase: string; readonly completed_at?: string | undefined }[];
  readonly approvals: readonly { readonly phase: string; readonly approved_at?: string | undefined }[];
  readonly tasks: readonly TaskRow[];
  readonly events: readonly RunReportEvent[];
  /** Each check step's outcome (run-story.ts checkOutcomes); none: the workflow has no check step. */
  readonly checks: readonly CheckOutcome[];
  /** What is known of cost; `recorded: false` says why nothing is shown. */
  readonly cost:
    { readonly recorded: false; readonly why: string } | { readonly recorded: true; readonly lines: readonly string[] };
  /** When the page was made (ISO): said on the page, never an end of the timeline. */
  readonly generatedAt: string;
  /** Claude Code's Workflow runs recorded here (workflow-run-view.ts); none: no section. */
  readonly workflowRuns?: readonly WorkflowRunView[];
  /** What a kill left cut off, not yet recorded (step-standing.ts cutOffOf): said above the interruptions. */
  readonly cutOff?: CutOff | null;
}

/** Text made inert in HTML, in element content and in quoted attributes alike. */
export function escapeHtml(text: string): string {
  return text
    .replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)
    .replace(
      /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
    );
}

const e = (value: unknown): string =>
  escapeHtml(typeof value === "string" ? value : value === undefined || value === null ? "" : JSON.stringify(value));

const STATUS_COLOUR: Readonly<Record<string, string>> = {
  complete: "#2e7d32",
  running: "#1565c0",
  pending: "#9e9e9e",
  failed: "#ef6c00",
  dead: "#c62828",
  skipped: "#6d4c41",
  in_progress: "#1565c0",
};

/** A step's status in status's words (step-standing.ts): `in progress`, `not started`. */
const STEP_WORDS: Readonly<Record<StepSpan["status"], string>> = {
  complete: "complete",
  in_progress: "in progress",
  failed: "failed",
  pending: "not started",
};

/** A check's outcome colour: passed green, failed orange, anything else grey. */
const CHECK_COLOUR: Readonly<Record<CheckOutcome["outcome"], string>> = {
  passed: "#2e7d32",
  failed: "#ef6c00",
  none: "#9e9e9e",
  invalid: "#c62828",
  skipped: "#6d4c41",
};

const ms = (iso: string | undefined | null): number | undefined => {
  if (typeof iso !== "string") return undefined;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? undefined : t;
};

/** A duration in words: `45 s`, `12 min`, `2 h 05 min`, `3 d 4 h`. */
export function formatDuration(millis: number): string {
  const s = Math.max(0, Math.round(millis / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h} h ${String(m % 60).padStart(2, "0")} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}

/** An axis end: to the second, since a run may last seconds. */
const tickTime = (t: number): string =>
  new Date(t)
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d+Z$/, " UTC");

const time = (iso: string | undefined): string =>
  iso === undefined ? "" : iso.replace("T", " ").replace(/:\d\d(\.\d+)?Z$/, " UTC");

export interface StepSpan {
  readonly step: string;
  readonly status: "complete" | "in_progress" | "failed" | "pending";
  readonly start: number | undefined;
  readonly end: number | undefined;
  readonly approvedAt: number | undefined;
  /** How many times the step started (reworks and rollbacks start it again). */
  readonly starts: number;
}

/** Each step's span on the timeline: from its first start to its last completion (events first, phase.json as fallback). */
export function stepSpans(input: RunReportInput): StepSpan[] {
  const firstAt = input.events[0]?.at;
  return input.steps.map((step, index) => {
    const started = input.events
      .filter((ev) => ev.type === "phase_started" && ev.phase === step)
      .map((ev) => ms(ev.at));
    const completedEv = input.events
      .filter((ev) => ev.type === "phase_completed" && ev.phase === step)
      .map((ev) => ms(ev.at));
    const completedPhase = input.completed.find((c) => c.phase === step);
    const approved = input.approvals.find((a) => a.phase === step);
    let start = started.find((t) => t !== undefined);
    if (start === undefined && index === 0) start = ms(firstAt);
    const before = index > 0 ? input.steps[index - 1] : undefined;
    if (start === undefined && before !== undefined)
      start = ms(input.completed.find((c) => c.phase === before)?.completed_at);
    const end = completedEv.filter((t) => t !== undefined).pop() ?? ms(completedPhase?.completed_at);
    const current = step === input.currentPhase;
    const status =
      completedPhase !== undefined && !current
        ? "complete"
        : current
          ? input.phaseStatus === "failed"
            ? "failed"
            : input.phaseStatus === "complete"
              ? "complete"
              : "in_progress"
          : "pending";
    return {
      step,
      status,
      start,
      end: status === "complete" ? end : undefined,
      approvedAt: ms(approved?.approved_at),
      starts: Math.max(started.length, start === undefined ? 0 : 1),
    };
  });
}

function timelineSvg(spans: readonly StepSpan[], story: readonly StoryEvent[], run: RunSpan): string {
  const width = 960;
  const left = 150;
  const right = 90;
  const rowH = 34;
  const height = spans.length * rowH + 60;
  if (run.start === undefined || run.end === undefined)
    return `<p class="muted">No times recorded yet: the timeline starts with the first event.</p>`;
  const t0 = run.start;
  const t1 = Math.max(run.end, t0);
  const span = Math.max(1, t1 - t0);
  const x = (t: number) => left + ((Math.min(Math.max(t, t0), t1) - t0) / span) * (width - left - right);
  const parts: string[] = [
    `<svg class="timeline" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="steps on a timeline">`,
  ];
  spans.forEach((s, i) => {
    const y = 20 + i * rowH;
    parts.push(`<text x="8" y="${y + 17}" class="label">${e(s.step)}</text>`);
    parts.push(`<line x1="${left}" y1="${y + 12}" x2="${width - right}" y2="${y + 12}" class="lane"/>`);
    if (s.start !== undefined) {
      const endT = Math.max(
        s.start,
        Math.min(s.end ?? (s.status === "in_progress" || s.status === "failed" ? t1 : s.start), t1),
      );
      const w = Math.max(4, x(endT) - x(s.start));
      const colour = STATUS_COLOUR[s.status] ?? "#9e9e9e";
      const title = `${s.step}: ${STEP_WORDS[s.status]}, ${formatDuration(endT - s.start)}${s.starts > 1 ? `, started ${s.starts} times` : ""}`;
      parts.push(
        `<rect x="${x(s.start).toFixed(1)}" y="${y + 2}" width="${w.toFixed(1)}" height="20" rx="3" fill="${colour}"${s.status === "in_progress" ? ' class="open"' : ""}><title>${e(title)}</title></rect>`,
      );
      parts.push(
        `<text x="${(x(s.start) + w + 6).toFixed(1)}" y="${y + 17}" class="dur">${e(formatDuration(endT - s.start))}${s.status === "in_progress" ? " so far" : ""}</text>`,
      );
    }
    if (s.approvedAt !== undefined) {
      const gx = x(s.approvedAt);
      parts.push(
        `<path d="M${gx.toFixed(1)} ${y} l6 12 l-6 12 l-6 -12 z" class="gate"><title>${e(`${s.step} approved ${time(new Date(s.approvedAt).toISOString())}`)}</title></path>`,
      );
    }
  });
  const axisY = 20 + spans.length * rowH + 8;
  for (const { event: ev, kind } of story) {
    const t = ms(ev.at);
    if (t === undefined || t < t0 || t > t1) continue;
    parts.push(
      `<line x1="${x(t).toFixed(1)}" y1="14" x2="${x(t).toFixed(1)}" y2="${axisY}" class="${kind === "failure" ? "fail" : "break"}"><title>${e(`#${ev.seq} ${ev.type} ${time(ev.at)}`)}</title></line>`,
    );
  }
  parts.push(`<line x1="${left}" y1="${axisY}" x2="${width - right}" y2="${axisY}" class="axis"/>`);
  parts.push(`<text x="${left}" y="${axisY + 18}" class="tick">${e(tickTime(t0))}</text>`);
  parts.push(
    `<text x="${width - right}" y="${axisY + 18}" class="tick" text-anchor="end">${e(tickTime(t1))}${run.complete ? " (complete)" : " (last event)"}</text>`,
  );
  parts.push(
    `<text x="${(left + width - right) / 2}" y="${axisY + 18}" class="tick" text-anchor="middle">${e(formatDuration(t1 - t0))} ${run.complete ? "in all" : "so far"}</text>`,
  );
  parts.push("</svg>");
  return parts.join("\n");
}

/** Columns by dependency depth (a task sits right of everything it waits for); cycles and unknown ids are cut. */
export function taskColumns(tasks: readonly TaskRow[]): Map<string, number> {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const depth = new Map<string, number>();
  const visit = (id: string, path: Set<string>): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    const task = byId.get(id);
    if (task === undefined || path.has(id)) return -1;
    path.add(id);
    const d = 1 + Math.max(-1, ...task.depends_on.map((dep) => visit(dep, path)));
    path.delete(id);
    depth.set(id, d);
    return d;
  };
  for (const t of tasks) visit(t.id, new Set());
  return depth;
}

function taskGraphSvg(tasks: readonly TaskRow[]): string {
  if (tasks.length === 0) return `<p class="muted">No task planned yet.</p>`;
  const columns = taskColumns(tasks);
  const perColumn = new Map<number, number>();
  const place = new Map<string, { x: number; y: number }>();
  const boxW = 200;
  const boxH = 58;
  const gapX = 60;
  const gapY = 16;
  for (const t of tasks) {
    const c = columns.get(t.id) ?? 0;
    const r = perColumn.get(c) ?? 0;
    perColumn.set(c, r + 1);
    place.set(t.id, { x: 10 + c * (boxW + gapX), y: 10 + r * (boxH + gapY) });
  }
  const width = 20 + (Math.max(...columns.values(), 0) + 1) * (boxW + gapX);
  const height = 20 + Math.max(...perColumn.values()) * (boxH + gapY);
  const parts = [
    `<svg class="graph" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="task graph">`,
  ];
  for (const t of tasks) {
    const to = place.get(t.id)!;
    for (const dep of t.depends_on) {
      const from = place.get(dep);
      if (from === undefined) continue;
      parts.push(
        `<path d="M${from.x + boxW} ${from.y + boxH / 2} C${from.x + boxW + gapX / 2} ${from.y + boxH / 2} ${to.x - gapX / 2} ${to.y + boxH / 2} ${to.x} ${to.y + boxH / 2}" class="edge"/>`,
      );
    }
  }
  for (const t of tasks) {
    const p = place.get(t.id)!;
    const colour = STATUS_COLOUR[t.status] ?? "#9e9e9e";
    const merge =
      t.merge === null
        ? ""
        : t.merge.state === "merged"
          ? t.merge.commit === null
            ? "nothing to merge"
            : `merged ${t.merge.commit.slice(0, 7)}`
          : t.merge.state;
    const second = [`${t.status}`, `attempts ${t.attempts}/${t.max_attempts}`].join(" · ");
    const tip = [t.id, t.title ?? "", t.status, t.error ?? "", merge].filter((s) => s !== "").join(" — ");
    parts.push(
      `<g class="task"><title>${e(tip)}</title><rect x="${p.x}" y="${p.y}" width="${boxW}" height="${boxH}" rx="6" fill="${colour}"/>`,
    );
    parts.push(`<text x="${p.x + 8}" y="${p.y + 17}" class="tid">${e(clip(`${t.id} ${t.title ?? ""}`, 25))}</text>`);
    parts.push(`<text x="${p.x + 8}" y="${p.y + 34}" class="tsub">${e(second)}</text>`);
    if (merge !== "") parts.push(`<text x="${p.x + 8}" y="${p.y + 50}" class="tsub">${e(clip(merge, 32))}</text>`);
    parts.push("</g>");
  }
  parts.push("</svg>");
  return parts.join("\n");
}

const clip = (text: string, n: number): string => (text.length > n ? `${text.slice(0, n - 1)}…` : text);

const detailsOf = (ev: RunReportEvent): string =>
  Object.entries(ev)
    .filter(([k]) => k !== "seq" && k !== "at" && k !== "type")
    .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(" ");

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;color:#212121;background:#fafafa}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
.muted{color:#757575}.cut{color:#c62828;font-weight:600}.request{font-size:15px;margin:4px 0 12px}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;color:#fff;font-size:12px;margin-right:6px}
table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}th{background:#eee}
svg text{font:12px system-ui,sans-serif}.label{font-weight:600;fill:#333}.dur,.tick{fill:#555}
.lane{stroke:#e0e0e0}.axis{stroke:#999}.break{stroke:#c62828;stroke-width:2;stroke-dasharray:4 3}.fail{stroke:#ef6c00;stroke-width:2;stroke-dasharray:2 3}.gate{fill:#f9a825;stroke:#333}
.open{opacity:.75}.edge{fill:none;stroke:#757575;stroke-width:1.5}.tid{fill:#fff;font-weight:600}.tsub{fill:#fff}
.legend span{margin-right:14px}.swatch{display:inline-block;width:12px;height:12px;border-radius:2px;vertical-align:-1px;margin-right:4px}
.scroll{overflow-x:auto}
`;

/** The page's numbers, for the CLI's line and `--json` as much as for the page. */
export interface RunReportFacts {
  readonly story: readonly StoryEvent[];
  /** The interruptions and repairs (the page's table). */
  readonly interruptions: readonly StoryEvent[];
  /** `resumed` events that repaired nothing and followed no interruption: dotagent planning the next step. */
  readonly bookkeeping: number;
  readonly run: RunSpan;
  readonly verification: ReturnType<typeof verificationOf>;
}

export function runReportFacts(input: RunReportInput): RunReportFacts {
  const story = classifyEvents(input.events);
  const interruptions = story.filter((s) => s.kind !== "failure");
  const counted = new Set(interruptions.map((s) => s.event));
  const bookkeeping = input.events.filter((ev) => ev.type === "resumed" && !counted.has(ev)).length;
  return { story, interruptions, bookkeeping, run: runSpan(input), verification: verificationOf(input.checks) };
}

function verificationSection(checks: readonly CheckOutcome[], words: string | null): string {
  if (checks.length === 0) return '<p class="muted">This workflow has no check step.</p>';
  const rows = checks
    .map(
      (c) =>
        `<tr><td>${e(c.step)}</td><td>${e(c.kind === "command" ? "its command" : "its agent")}</td><td><span class="badge" style="background:${CHECK_COLOUR[c.outcome]}">${e(checkWords(c).slice(c.step.length + 1))}</span></td><td>${c.rework_rounds}</td><td>${e(c.report)}</td><td>${e(c.detail ?? "")}</td></tr>`,
    )
    .join("\n");
  return `<p><strong>${e(words ?? "")}</strong></p>\n<table><tr><th>Check</th><th>Checked by</th><th>Outcome</th><th>Rework rounds</th><th>Report</th><th>Summary</th></tr>\n${rows}\n</table>`;
}

/** The whole page. */
const AGENT_COLOUR: Readonly<Record<string, string>> = { done: "#2e7d32", running: "#1565c0", lost: "#c62828" };

/** A section per Claude Code Workflow run: its line, then each agent with its state and its result's headline. */
function workflowRunsSection(runs: readonly WorkflowRunView[]): string {
  if (runs.length === 0) return "";
  const sections = runs.map((run) => {
    const rows = run.agents
      .map(
        (a, i) =>
          `<tr><td>${e(a.label ?? `agent ${i + 1}`)}</td><td>${e(a.phase ?? "")}</td><td><span class="badge" style="background:${AGENT_COLOUR[a.state]}">${e(a.state)}</span></td><td>${e(a.headline ?? "")}</td></tr>`,
      )
      .join("\n");
    return `<h3>${e(run.run_id)}</h3>\n<p class="muted">${e(runLine(run))}${run.session_id === null ? "" : ` · session ${e(run.session_id)}`}</p>\n${run.agents.length === 0 ? '<p class="muted">No agent started yet.</p>' : `<table><tr><th>Agent</th><th>Phase</th><th>State</th><th>Result</th></tr>\n${rows}\n</table>`}`;
  });
  return `<h2>Claude Code workflow runs</h2>\n${sections.join("\n")}\n`;
}

export function renderRunReportHtml(input: RunReportInput): string {
  const facts = runReportFacts(input);
  const { run } = facts;
  const cut = input.cutOff;
  const end = run.end ?? 0;
  const spans = stepSpans(input);
  const failures = facts.story.filter((s) => s.kind === "failure");
  const counts = new Map<string, number>();
  for (const t of input.tasks) counts.set(t.status, (counts.get(t.status) ?? 0) + 1);
  // The current step in the step table's words (phase.json's `pending` under a step at work is not what a person sees).
  const current = spans.find((sp) => sp.step === input.currentPhase);
  const state =
    input.workflowId === null
      ? "no workflow"
      : run.complete
        ? "complete"
        : `at ${input.currentPhase ?? "?"} (${current === undefined ? (input.phaseStatus ?? "?") : STEP_WORDS[current.status]})`;
  const verdict = verificationWords(facts.verification);
  const merged = input.tasks.filter((t) => t.merge?.state === "merged" && t.merge.commit !== null);
  const legend = ["complete", "running", "pending", "failed", "dead", "skipped"]
    .map((s) => `<span><i class="swatch" style="background:${STATUS_COLOUR[s]}"></i>${s}</span>`)
    .join("");
  const stepRows = spans
    .map((s) => {
      const dur =
        s.start !== undefined
          ? formatDuration(Math.max(0, (s.end ?? (s.status === "in_progress" ? end : s.start)) - s.start))
          : "";
      return `<tr><td>${e(s.step)}</td><td><span class="badge" style="background:${STATUS_COLOUR[s.status] ?? "#9e9e9e"}">${e(STEP_WORDS[s.status])}</span></td><td>${e(s.start === undefined ? "" : time(new Date(s.start).toISOString()))}</td><td>${e(dur)}</td><td>${e(s.approvedAt === undefined ? "" : `approved ${time(new Date(s.approvedAt).toISOString())}`)}</td><td>${s.starts > 1 ? e(`${s.starts}×`) : ""}</td></tr>`;
    })
    .join("\n");
  const taskRows = input.tasks
    .map((t) => {
      const where =
        t.merge === null
          ? ""
          : t.merge.state === "merged"
            ? t.merge.commit === null
              ? `nothing to merge into ${t.merge.into}`
              : `merged into ${t.merge.into} as ${t.merge.commit.slice(0, 7)}`
            : `${t.merge.state}${t.merge.reason ? `: ${t.merge.reason}` : ""}`;
      return `<tr><td>${e(t.id)}</td><td>${e(t.title ?? "")}</td><td><span class="badge" style="background:${STATUS_COLOUR[t.status] ?? "#9e9e9e"}">${e(t.status)}</span></td><td>${t.attempts}/${t.max_attempts}</td><td>${e(t.depends_on.join(", "))}</td><td>${e(where)}</td><td>${e(t.skipped?.reason ?? t.error ?? "")}</td></tr>`;
    })
    .join("\n");
  const storyRows = (rows: readonly StoryEvent[]) =>
    rows
      .map(
        ({ event: ev, kind }) =>
          `<tr><td>${ev.seq}</td><td>${e(time(ev.at))}</td><td>${e(kind)}</td><td>${e(ev.type)}</td><td>${e(detailsOf(ev))}</td></tr>`,
      )
      .join("\n");
  const bookkeeping =
    facts.bookkeeping === 0
      ? ""
      : ` ${count(facts.bookkeeping, "resumed event")} that repaired nothing and followed no interruption ${facts.bookkeeping === 1 ? "is" : "are"} dotagent planning the next step, not listed.`;
  const cost = input.cost.recorded
    ? `<ul>${input.cost.lines.map((l) => `<li>${e(l)}</li>`).join("")}</ul>`
    : `<p>Not recorded: ${e(input.cost.why)}</p>`;
  const summary = [
    state,
    count(input.tasks.length, "task") + [...counts].map(([s, n]) => `, ${n} ${s}`).join(""),
    count(facts.interruptions.length, "interruption or repair event"),
    ...(verdict === null ? [] : [verdict]),
    run.start === undefined || run.end === undefined
      ? null
      : `${formatDuration(run.end - run.start)} ${run.complete ? "in all" : "so far"}`,
    `generated ${time(input.generatedAt)}`,
  ].filter((p): p is string => p !== null);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>dotagent report: ${e(input.workflowId ?? "no workflow")}</title>
<style>${CSS}</style>
</head>
<body>
<h1>${e(input.workflowId ?? "No workflow")}</h1>
<p class="request">${input.request === null ? '<span class="muted">no request recorded</span>' : e(input.request)}</p>
<p class="muted">${summary.map(e).join(" · ")}</p>
<h2>Timeline</h2>
<div class="scroll">${timelineSvg(spans, facts.story, run)}</div>
<p class="legend muted"><span><i class="swatch" style="background:#f9a825"></i>gate approved</span><span><i class="swatch" style="background:#c62828"></i>interruption or repair</span><span><i class="swatch" style="background:#ef6c00"></i>failure or rework</span></p>
<table><tr><th>Step</th><th>Status</th><th>Started</th><th>Duration</th><th>Gate</th><th>Starts</th></tr>
${stepRows}
</table>
<h2>Verification</h2>
${verificationSection(input.checks, verdict)}
<h2>Tasks</h2>
<p class="legend">${legend}</p>
<div class="scroll">${taskGraphSvg(input.tasks)}</div>
${input.tasks.length === 0 ? "" : `<table><tr><th>ID</th><th>Title</th><th>Status</th><th>Attempts</th><th>Depends on</th><th>Merge</th><th>Error or skip reason</th></tr>\n${taskRows}\n</table>`}
<p class="muted">${e(count(merged.length, "merge commit"))}</p>
<h2>Interruptions and repairs</h2>
${cut == null ? "" : `<p class="cut">Cut off, not recorded yet: at ${e(cut.step)} (${e(cut.words)})${cut.finished.length === 0 ? "" : `; done before it: ${e(cut.finished.join(", "))}`}. The workflow records it when it goes on.</p>\n`}${facts.interruptions.length === 0 ? `<p class="muted">${cut == null ? "None: no work was cut off and nothing was repaired." : "None recorded."}${e(bookkeeping)}</p>` : `<table><tr><th>#</th><th>Time</th><th>Kind</th><th>Event</th><th>Details</th></tr>\n${storyRows(facts.interruptions)}\n</table>${bookkeeping === "" ? "" : `\n<p class="muted">${e(bookkeeping.trim())}</p>`}`}
<h2>Failures and reworks</h2>
${failures.length === 0 ? '<p class="muted">None.</p>' : `<table><tr><th>#</th><th>Time</th><th>Kind</th><th>Event</th><th>Details</th></tr>\n${storyRows(failures)}\n</table>`}
${workflowRunsSection(input.workflowRuns ?? [])}<h2>Cost</h2>
${cost}
</body>
</html>
`;
}
