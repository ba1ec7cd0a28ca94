// What a person sees at `dotagent run`'s gates, as lines: the substance to approve, never just a
// file name. The requirements: the summary, the stories, the acceptance criteria and the open
// questions of demand.json; the design pick: each design's one line (the recommended one marked)
// and the roundtable's rationale. Reads report objects as the agents wrote them, tolerating
// what is missing (a report is the agent's, not a schema dotagent enforces).

/** Per list, at most this many items; the rest is counted. */
const MAX_ITEMS = 12;
/** Per item, at most this many characters. */
const MAX_TEXT = 300;

type Json = Record<string, unknown>;

const str = (value: unknown): string => (typeof value === "string" ? value.replace(/\s+/g, " ").trim() : "");
const clip = (text: string): string => (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** One item of a list: a string as it is; an object by its id and its text (or the fields that say it). */
function itemLine(item: unknown, texts: (o: Json) => string): { id: string; text: string } | undefined {
  if (typeof item === "string") return str(item) === "" ? undefined : { id: "", text: str(item) };
  if (!item || typeof item !== "object") return undefined;
  const o = item as Json;
  const text = texts(o);
  return text === "" ? undefined : { id: str(o.id), text };
}

function section(title: string, items: unknown[], texts: (o: Json) => string, file: string): string[] {
  const lines = items.map((i) => itemLine(i, texts)).filter((l): l is { id: string; text: string } => l !== undefined);
  if (lines.length === 0) return [];
  const idWidth = Math.max(0, ...lines.map((l) => l.id.length));
  const shown = lines
    .slice(0, MAX_ITEMS)
    .map((l) => `    ${(l.id === "" ? "-" : l.id).padEnd(idWidth)}  ${clip(l.text)}`);
  const more = lines.length > MAX_ITEMS ? [`    … ${lines.length - MAX_ITEMS} more in ${file}`] : [];
  return [`  ${title}`, ...shown, ...more];
}

function storyText(o: Json): string {
  const who = str(o.as_a);
  const parts = [
    who && `as ${/^(a|an|the|my|our) /i.test(who) ? who : `${/^[aeio]/i.test(who) ? "an" : "a"} ${who}`}`,
    str(o.i_want) && `I want ${str(o.i_want)}`,
    str(o.so_that) && `so that ${str(o.so_that)}`,
  ].filter((p) => p !== "");
  if (parts.length > 0) return parts.join(", ");
  return str(o.text) || str(o.story) || str(o.title) || str(o.description);
}

const criterionText = (o: Json): string => str(o.text) || str(o.criterion) || str(o.description) || str(o.title);
const questionText = (o: Json): string => str(o.question) || str(o.text);

/** The requirements gate: what demand.json asks for. */
export function requirementsView(demand: Json, file: string): string[] {
  const summary = str(demand.summary);
  return [
    ...(summary ? [`  ${clip(summary)}`] : []),
    ...section("Stories", list(demand.user_stories ?? demand.stories), storyText, file),
    ...section("Acceptance criteria", list(demand.acceptance_criteria ?? demand.criteria), criterionText, file),
    ...section("Out of scope", list(demand.out_of_scope), questionText, file),
    ...section("Open questions", list(demand.open_questions), questionText, file),
  ];
}

export interface DesignOption {
  readonly name: string;
  /** The roundtable's one line for it, else the design's own summary; may be empty. */
  readonly oneLine: string;
}

/** The design pick: each design in a line (the recommended one marked), then why. */
export function designsView(options: readonly DesignOption[], recommended: string, roundtable: Json): string[] {
  const width = Math.max(...options.map((o) => o.name.length));
  const lines = options.map(
    (o) =>
      `    ${o.name.padEnd(width)}  ${o.oneLine ? clip(o.oneLine) : "(no summary)"}${o.name === recommended ? "  ← recommended" : ""}`,
  );
  const rationale = str(roundtable.rationale) || str(roundtable.comparison);
  return [
    "  Designs",
    ...lines,
    `  The roundtable recommends ${recommended}${rationale ? `: ${clip(rationale)}` : "."}`,
    ...section(
      "Questions for you",
      list(roundtable.questions_for_user),
      questionText,
      "memory/reports/roundtable.json",
    ),
  ];
}

/** Lines of a Markdown (or any text) report shown at a gate, before "… N more lines". */
const MAX_LINES = 20;

/**
 * Any other report a definition's gate approves (SPEC §20): a JSON report's `summary` (else its
 * first text field), then each of its lists as a section (its items' text, title, description or
 * summary); a Markdown report's first lines.
 */
export function reportView(text: string, file: string): string[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    data = undefined;
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    const lines = text.replace(/\s+$/, "").split("\n");
    const shown = lines.slice(0, MAX_LINES).map((l) => `    ${clip(l.replace(/\t/g, "  "))}`);
    return lines.length > MAX_LINES ? [...shown, `    … ${lines.length - MAX_LINES} more lines in ${file}`] : shown;
  }
  const report = data as Json;
  const first = Object.entries(report).find(([, v]) => typeof v === "string" && str(v) !== "");
  const summary = str(report.summary) || (first ? `${first[0]}: ${str(first[1])}` : "");
  const itemText = (o: Json): string =>
    str(o.text) || str(o.title) || str(o.description) || str(o.summary) || str(o.problem) || str(o.name);
  const lists = Object.entries(report).filter(([, v]) => Array.isArray(v) && v.length > 0);
  return [
    ...(summary ? [`  ${clip(summary)}`] : []),
    ...lists.flatMap(([key, v]) =>
      section(`${key[0]!.toUpperCase()}${key.slice(1).replace(/_/g, " ")}`, v as unknown[], itemText, file),
    ),
  ];
}
