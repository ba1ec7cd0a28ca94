// A Claude Code Workflow run's journal, read (issue 43; SPEC §11 "Claude Code's Workflow runs").
// Pure: the caller hands the journal's text (the copy in `memory/state/workflow-runs/<runId>/`).
//
// The journal (Claude Code 2.1.332, test/claude/NOTES.md) is one JSON object per line, appended as
// the run goes: `{"type":"launched"}`, per agent `{"type":"started","key","agentId","label","phase"}`
// and later `{"type":"result","key","agentId","result",…}`. `key` is the agent's cache key: the same
// in every run of the same script and args, so a relaunch with `resumeFromRunId` replays the agents
// whose key has a result and runs the others again. A resumed run appends to the same journal (a
// new `started` with a new agentId for an agent cut off before).
//
// THREAT: the journal is the client's file, copied; a copy in a clone arrived by git. Reading it
// never throws and never trusts its shape: a line that is no JSON object, or of an unknown type,
// is counted and passed over, and text is cut short before anyone prints it.

/** One agent of the run, by its cache key, in the order of its first start. */
export interface JournalAgent {
  key: string;
  label: string | null;
  phase: string | null;
  /** done: a result is in the journal (a relaunch replays it); started: no result (a relaunch runs it again). */
  state: "done" | "started";
  /** How many times it was started (a resumed run starts a cut-off agent again). */
  starts: number;
  /** The first line of its result, at most 120 characters (null while it has none). */
  headline: string | null;
}

export interface JournalReading {
  launched: boolean;
  agents: JournalAgent[];
  /** Lines that are not a JSON object of a known type (a torn last line, a hand edit). */
  unreadLines: number;
}

const HEADLINE_CHARS = 120;

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

/** The first non-empty line of a result, cut to 120 characters, control characters dropped. */
export function headlineOf(result: unknown): string {
  const text = typeof result === "string" ? result : (JSON.stringify(result) ?? String(result));
  const first = text
    .split("\n")
    .map((line) => line.trim())
    .find((line) => line !== "");
  // eslint-disable-next-line no-control-regex
  const clean = (first ?? "").replace(/[\u0000-\u001f\u007f]/g, " ");
  return clean.length > HEADLINE_CHARS ? `${clean.slice(0, HEADLINE_CHARS - 1)}…` : clean;
}

/** Reads a journal's text: its agents by key, and how many lines could not be read. */
export function readJournal(text: string): JournalReading {
  const agents = new Map<string, JournalAgent>();
  let launched = false;
  let unreadLines = 0;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      unreadLines += 1;
      continue;
    }
    if (entry === null || typeof entry !== "object" || Array.isArray(entry)) {
      unreadLines += 1;
      continue;
    }
    const e = entry as Record<string, unknown>;
    const type = str(e.type);
    if (type === "launched") {
      launched = true;
      continue;
    }
    const key = str(e.key);
    if ((type !== "started" && type !== "result") || key === null) {
      unreadLines += 1;
      continue;
    }
    let agent = agents.get(key);
    if (agent === undefined) {
      agent = { key, label: null, phase: null, state: "started", starts: 0, headline: null };
      agents.set(key, agent);
    }
    if (type === "started") {
      agent.starts += 1;
      agent.label = str(e.label) ?? agent.label;
      agent.phase = str(e.phase) ?? agent.phase;
    } else {
      agent.state = "done";
      agent.headline = headlineOf(e.result);
    }
  }
  return { launched, agents: [...agents.values()], unreadLines };
}

/** The agents a relaunch with `resumeFromRunId` runs again (no result in the journal). */
export const rerunOnResume = (reading: JournalReading): JournalAgent[] =>
  reading.agents.filter((agent) => agent.state === "started");
