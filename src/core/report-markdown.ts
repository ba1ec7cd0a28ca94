// A report as Markdown for a person (`dotagent show`, SPEC §10): the requirements, the designs, the
// pick, the tasks' results, the verification and the reflection in prose a pull request shows.
// The threat: reports are agents' free-form JSON, and an agent (or whatever it read) can put
// Markdown or HTML in any string — an `<img onerror>`, a `[link](javascript:…)`, a fake heading
// or a table break. So every string from a report goes through `escapeMarkdown` (HTML-significant
// characters become entities, Markdown punctuation is backslash-escaped, line breaks fold into one
// line), and only this module's own words are markup. Tolerant: a field missing or of an odd type
// is skipped or shown as it is, never a throw; fields no renderer knows are listed after the known
// ones. Pure.

/** The kinds of report, each with its title and the fields it shows first, in this order. */
export type ReportMarkdownKind =
  | "demand"
  | "design"
  | "roundtable"
  | "final_design"
  | "plan"
  | "task"
  | "verification"
  | "command"
  | "reflection"
  | "other";

interface KindSpec {
  readonly title: string;
  /** Known fields, in the order a reader wants them, with their headings. */
  readonly fields: readonly (readonly [string, string])[];
  /** The field that names the report in its title (a design's `name`, a task's `task_id`). */
  readonly nameField?: string;
}

const KINDS: Readonly<Record<ReportMarkdownKind, KindSpec>> = {
  demand: {
    title: "Requirements",
    fields: [
      ["request", "Request"],
      ["feature", "Feature"],
      ["summary", "Summary"],
      ["user_stories", "User stories"],
      ["acceptance_criteria", "Acceptance criteria"],
      ["acceptance", "Acceptance criteria"],
      ["constraints", "Constraints"],
      ["out_of_scope", "Out of scope"],
      ["open_questions", "Open questions"],
      ["context", "Context"],
    ],
  },
  design: {
    title: "Design",
    nameField: "name",
    fields: [
      ["angle", "Angle"],
      ["summary", "Summary"],
      ["components", "Components"],
      ["data_flow", "Data flow"],
      ["data_model", "Data model"],
      ["interfaces", "Interfaces"],
      ["acceptance_coverage", "Acceptance coverage"],
      ["tradeoffs", "Trade-offs"],
      ["risks", "Risks"],
      ["tasks", "Tasks"],
      ["estimate", "Estimate"],
    ],
  },
  roundtable: {
    title: "Design roundtable",
    fields: [
      ["recommendation", "Recommendation"],
      ["rationale", "Rationale"],
      ["comparison", "Comparison"],
      ["designs", "Designs compared"],
      ["options_for_user", "Options"],
      ["questions_for_user", "Questions"],
      ["unreadable", "Unreadable designs"],
    ],
  },
  final_design: {
    title: "Chosen design",
    fields: [
      ["chosen", "Chosen"],
      ["summary", "Summary"],
      ["why", "Why"],
      ["rationale", "Why"],
      ["user_notes", "Your notes"],
      ["design", "Design"],
      ["components", "Components"],
      ["tasks", "Tasks"],
      ["source", "From"],
      ["approved_by", "Approved by"],
      ["decided_at", "Decided at"],
    ],
  },
  plan: { title: "Task plan", fields: [["tasks", "Tasks"]] },
  task: {
    title: "Task",
    nameField: "task_id",
    fields: [
      ["status", "Status"],
      ["summary", "Summary"],
      ["files_changed", "Files changed"],
      ["tests", "Tests"],
      ["notes", "Notes"],
      ["error", "Error"],
    ],
  },
  verification: {
    title: "Verification",
    fields: [
      ["passed", "Passed"],
      ["summary", "Summary"],
      ["failures", "Failures"],
      ["checks", "Checks"],
      ["commands", "Commands"],
    ],
  },
  // A check or shell step's command, as `dotagent step run` records it (SPEC §20).
  command: {
    title: "Step",
    nameField: "step",
    fields: [
      ["command", "Command"],
      ["exit_code", "Exit code"],
      ["signal", "Signal"],
      ["timed_out", "Timed out"],
      ["attempts", "Attempts"],
      ["failures", "Failures"],
      ["output_tail", "Output (its last lines)"],
      ["started_at", "Started"],
      ["ended_at", "Ended"],
    ],
  },
  reflection: {
    title: "Reflection",
    fields: [
      ["summary", "Summary"],
      ["outcome", "Outcome"],
      ["went_well", "Went well"],
      ["went_badly", "Went badly"],
      ["lessons", "Lessons"],
      ["follow_ups", "Follow-ups"],
    ],
  },
  other: { title: "Report", fields: [] },
};

/** The kind of the report at a project-relative path under memory/reports/. */
export function markdownKindOf(path: string): ReportMarkdownKind {
  const name = path.replace(/^memory\/reports\//, "");
  if (name === "demand.json") return "demand";
  if (/^designs\/[^/]+\.json$/.test(name)) return "design";
  if (name === "roundtable.json") return "roundtable";
  if (name === "final_design.json") return "final_design";
  if (/^plan(\.rework-\d+)?\.json$/.test(name)) return "plan";
  if (/^tasks\/[^/]+\.json$/.test(name)) return "task";
  if (/^verification(\.rework-\d+)?\.json$/.test(name)) return "verification";
  if (name === "reflection.json") return "reflection";
  return "other";
}

// Inline markup (emphasis, code, links, strike-through, tables, escapes). `#`, `-`, `+`, `.`, `=`
// and `>` make markup only at the start of a line: escaped there (a value never starts any other line).
// An `_` inside a word (final_design) is no emphasis in CommonMark: left as it is.
const MD_PUNCTUATION = /[\\`*[\]|~]|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu;
const LINE_START = /^(\s*)([#>+\-=]|\d+(?=[.)]))/;

/**
 * Agent text made inert in Markdown and HTML: `&`, `<`, `>`, `"` become entities, Markdown
 * punctuation is backslash-escaped (block markers only at the start), control characters are shown as `\u001b`, and line breaks
 * fold into spaces (a value never starts a new block: no heading, list, fence or table row).
 */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/\r\n?|\n|\u2028|\u2029/g, " ")
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(MD_PUNCTUATION, (c) => `\\${c}`)
    .replace(LINE_START, (_all, space: string, mark: string) =>
      /\d/.test(mark) ? `${space}${mark}\\` : `${space}\\${mark}`,
    );
}

/**
 * How the renderer writes: Markdown for a file and a pull request (`dotagent show > x.md`, --json),
 * or plain text for a terminal, where `&amp;` and `\_` would be noise a person has to decode. Both
 * keep agent text inert: Markdown escapes it (above); the terminal's text gets its line breaks
 * folded and its control characters shown as `\u001b`, so a report can move no cursor, set no
 * colour and start no line of its own.
 */
export interface ReportStyle {
  /** Agent text, made inert for this output. */
  text(text: string): string;
  /** This module's own emphasis (a list item's id, Passed./Failed.). */
  strong(text: string): string;
  /** A heading of `level` (1 the document, 2 a report, 3 a field) over this module's own words. */
  heading(level: 1 | 2 | 3, text: string): string;
  /** The report's file under its heading. */
  source(path: string): string;
  /** A line kept as a line (a command's output, reflection.md): a hard break in Markdown. */
  line(text: string): string;
}

export const MARKDOWN_STYLE: ReportStyle = {
  text: escapeMarkdown,
  strong: (text) => `**${text}**`,
  heading: (level, text) => `${"#".repeat(level)} ${text}`,
  source: (path) => `<sub>${escapeMarkdown(path)}</sub>`,
  line: (text) => `${escapeMarkdown(text)}  `,
};

/** Agent text for a terminal: one line, control characters shown as `\u001b`, nothing else changed. */
export function terminalText(text: string): string {
  return text
    .replace(/\r\n?|\n|\u2028|\u2029/g, " ")
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * Plain text for a terminal; `bold` and `dim` are the caller's colours (identity without colour,
 * so the headings keep their `#` marks and read as Markdown's).
 */
export function terminalStyle(
  bold: (s: string) => string = (s) => s,
  dim: (s: string) => string = (s) => s,
): ReportStyle {
  return {
    text: terminalText,
    strong: bold,
    heading: (level, text) => bold(`${"#".repeat(level)} ${text}`),
    source: (path) => dim(terminalText(path)),
    line: terminalText,
  };
}

/** A JSON key in words (`depends_on` → `depends on`); `heading` capitalises it (`### Root cause`). */
function keyWords(key: string, heading = false): string {
  const words = key.replace(/_+/g, " ").trim() || key;
  return heading ? words.charAt(0).toUpperCase() + words.slice(1) : words;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** A scalar as inline text: strings escaped, booleans as yes/no, null as "none". */
function inline(value: unknown, style: ReportStyle): string {
  if (typeof value === "string") return style.text(value);
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "—";
  if (value === null || value === undefined) return "none";
  if (Array.isArray(value)) return value.length === 0 ? "none" : value.map((v) => inline(v, style)).join(", ");
  return Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => `${style.text(keyWords(k))}: ${inline(v, style)}`)
    .join("; ");
}

/** Fields that name an item in a list (its bold lead). */
const LEADS = ["id", "name", "criterion", "title", "task_id", "risk", "command"] as const;

/** An item inside a sub-field's list: by its name (a design's tasks: task-001, task-002), else inline. */
function named(value: unknown, style: ReportStyle): string {
  const lead = isRecord(value) ? LEADS.find((key) => typeof value[key] === "string") : undefined;
  return lead === undefined ? inline(value, style) : inline((value as Record<string, unknown>)[lead], style);
}

/** One item of a list: a user story reads as one, an object with a name leads with it in bold. */
function item(value: unknown, style: ReportStyle): string {
  if (!isRecord(value)) return inline(value, style);
  if (typeof value.as_a === "string" || typeof value.i_want === "string") {
    const id = typeof value.id === "string" ? `${style.strong(style.text(value.id))} ` : "";
    const soThat = value.so_that === undefined ? "" : `, so that ${inline(value.so_that, style)}`;
    return `${id}As ${inline(value.as_a, style)}, I want ${inline(value.i_want, style)}${soThat}`;
  }
  const lead = LEADS.find((key) => typeof value[key] === "string" || typeof value[key] === "number");
  const rest = Object.entries(value).filter(([key]) => key !== lead);
  const passed = typeof value.passed === "boolean" ? (value.passed ? "✅ " : "❌ ") : "";
  const head = lead === undefined ? "" : style.strong(inline(value[lead], style));
  const body = rest
    .filter(([key]) => key !== "passed")
    .map(([key, v]) =>
      key === "text" || key === "summary" || key === "one_line"
        ? inline(v, style)
        : `${style.text(keyWords(key))}: ${inline(v, style)}`,
    )
    .join("; ");
  return `${passed}${head}${head !== "" && body !== "" ? " — " : ""}${body}`;
}

/** A field's value as lines: a paragraph, a bullet list, or sub-fields as bullets. */
function block(value: unknown, style: ReportStyle): string[] {
  if (Array.isArray(value)) return value.length === 0 ? ["none"] : value.map((v) => `- ${item(v, style)}`);
  if (isRecord(value)) {
    const entries = Object.entries(value);
    return entries.length === 0
      ? ["none"]
      : entries.map(
          ([key, v]) =>
            `- ${style.text(keyWords(key))}: ${Array.isArray(v) ? v.map((x) => named(x, style)).join(", ") : inline(v, style)}`,
        );
  }
  return [inline(value, style)];
}

/**
 * The Markdown of one report: a level-2 heading (the kind's title, the report's name), then each
 * field as a level-3 heading and its text. `data` is the parsed report (anything: a string
 * report, reflection.md, is shown as text, escaped); `path` names the file in the heading.
 * `style` writes it for a terminal instead (`terminalStyle`). `stepId`: the workflow step that
 * writes a report of no kind this module knows (a definition's agent step): titled `Step: <ID>`,
 * as a check's command is, instead of `Report`.
 */
export function renderReportMarkdown(
  path: string,
  data: unknown,
  kindOf: ReportMarkdownKind = markdownKindOf(path),
  style: ReportStyle = MARKDOWN_STYLE,
  stepId?: string,
): string {
  const kind = kindOf;
  const spec = KINDS[kind];
  const lines: string[] = [];
  const name =
    isRecord(data) && spec.nameField !== undefined && typeof data[spec.nameField] === "string"
      ? `: ${style.text(data[spec.nameField] as string)}`
      : kind === "other" && stepId !== undefined
        ? `: ${style.text(stepId)}`
        : "";
  const title = kind === "other" && stepId !== undefined ? "Step" : spec.title;
  lines.push(style.heading(2, `${title}${name}${roundLabel(path, kind)}`), "", style.source(path), "");
  if (typeof data === "string") {
    // A Markdown report (reflection.md) is the agent's own text: shown as lines, every one escaped.
    for (const line of data.split(/\r\n?|\n/)) lines.push(line.trim() === "" ? "" : style.line(line));
    return `${lines.join("\n").trimEnd()}\n`;
  }
  if (!isRecord(data)) return `${[...lines, inline(data, style)].join("\n")}\n`;
  const verdict = kind === "verification" || kind === "command";
  if (verdict && typeof data.passed === "boolean") lines.push(style.strong(data.passed ? "Passed." : "Failed."), "");
  const shown = new Set<string>(spec.nameField === undefined ? [] : [spec.nameField]);
  if (verdict) shown.add("passed");
  // An empty text (the pick's user_notes when the person added none) is no field: no heading over nothing.
  for (const [key, heading] of spec.fields) {
    if (shown.has(key) || !(key in data) || data[key] === "") continue;
    shown.add(key);
    // A command's output keeps its lines (each escaped, as reflection.md's), so the failure reads as the terminal showed it.
    const text = data[key];
    const body =
      key === "output_tail" && typeof text === "string"
        ? text
            .replace(/\s+$/, "")
            .split(/\r\n?|\n/)
            .map((line) => (line.trim() === "" ? "" : style.line(line)))
        : block(text, style);
    lines.push(style.heading(3, heading), "", ...body, "");
  }
  for (const [key, value] of Object.entries(data)) {
    if (shown.has(key) || value === "") continue;
    lines.push(style.heading(3, style.text(keyWords(key, true))), "", ...block(value, style), "");
  }
  return `${lines.join("\n").trimEnd()}\n`;
}

/** The order reports read in a document of the whole workflow: requirements first, reflection last. */
export function reportOrder(path: string, kind: ReportMarkdownKind = markdownKindOf(path)): number {
  const order: Record<ReportMarkdownKind, number> = {
    demand: 0,
    design: 1,
    roundtable: 2,
    final_design: 3,
    plan: 4,
    task: 5,
    verification: 6,
    command: 6,
    reflection: 7,
    other: 8,
  };
  const name = path.replace(/^memory\/reports\//, "");
  return name === "reflection.md" ? 7 : order[kind];
}

/**
 * A report to render: `kind` when the workflow's step says what it is (a check's command report
 * lies anywhere its definition puts it), `step` the index of the step that writes it, so a
 * definition's reports read in its own order.
 */
export interface ReportToRender {
  readonly path: string;
  readonly data: unknown;
  readonly kind?: ReportMarkdownKind | undefined;
  readonly step?: number | undefined;
  /** The id of the step that writes it (its title when the report is of no known kind). */
  readonly stepId?: string | undefined;
}

const REWORK_COPY = /\.rework-(\d+)(\.(?:json|md))$/;

/**
 * Which round a report belongs to, for the reader: a `.rework-N` copy is the report that sent the
 * work back into rework round N (SPEC §20, §3), a plan's `.rework-N` the plan of round N.
 */
function roundLabel(path: string, kind: ReportMarkdownKind): string {
  const round = REWORK_COPY.exec(path)?.[1];
  if (round === undefined) return "";
  return kind === "plan" ? ` (rework round ${round})` : ` (before rework round ${round})`;
}

/** A report's rounds in the order they happened: a plan's live file is round 0, any other's the latest. */
function roundOf(path: string, kind: ReportMarkdownKind): number {
  const round = REWORK_COPY.exec(path)?.[1];
  return round !== undefined ? Number(round) : kind === "plan" ? 0 : Number.MAX_SAFE_INTEGER;
}

/**
 * Reports in workflow order: by the step that writes them (none: last), then by kind (develop's
 * order), then by path, a report's rework copies before it as the rounds happened.
 */
export function compareReports(a: ReportToRender, b: ReportToRender): number {
  const step = (a.step ?? Number.MAX_SAFE_INTEGER) - (b.step ?? Number.MAX_SAFE_INTEGER);
  const kindA = a.kind ?? markdownKindOf(a.path);
  const kindB = b.kind ?? markdownKindOf(b.path);
  const baseA = a.path.replace(REWORK_COPY, "$2");
  const baseB = b.path.replace(REWORK_COPY, "$2");
  return (
    step ||
    reportOrder(a.path, a.kind) - reportOrder(b.path, b.kind) ||
    (baseA < baseB ? -1 : baseA > baseB ? 1 : 0) ||
    Math.sign(roundOf(a.path, kindA) - roundOf(b.path, kindB))
  );
}

/**
 * Several reports as one document: a title, then each report in workflow order; `invalid` (there
 * but not valid) listed last under "Not shown".
 */
export function renderReportsMarkdown(
  title: string,
  reports: readonly ReportToRender[],
  style: ReportStyle = MARKDOWN_STYLE,
  invalid: readonly { readonly path: string; readonly reason: string }[] = [],
): string {
  const sorted = [...reports].sort(compareReports);
  const parts = [`${style.heading(1, style.text(title))}\n`];
  if (sorted.length === 0) parts.push("No reports yet.\n");
  for (const report of sorted)
    parts.push(renderReportMarkdown(report.path, report.data, report.kind, style, report.stepId));
  if (invalid.length > 0)
    parts.push(
      `${style.heading(2, "Not shown")}\n\n${invalid.map((i) => `- ${style.text(i.path)}: ${style.text(i.reason)}`).join("\n")}\n`,
    );
  return parts.join("\n");
}
