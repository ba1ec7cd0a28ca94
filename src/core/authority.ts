// Who decided: the one home for the person's authority (SPEC §11 "Who decides"). Pure rules; the
// facts come from src/store/authority.ts (the checkout's key, the seals, the clients' own records)
// and src/store/caller-facts.ts (the process's ancestors).
//
// THREAT. Three parties write where dotagent reads:
// - the model: it runs commands (its client's shell tool), writes files in the project, and can
//   schedule prompts that reach the session as if typed (Claude Code's CronCreate, ScheduleWakeup);
// - a cloned repository or a teammate's branch: it carries memory/state/ (the README asks teams to
//   commit events.jsonl), so any event, any report, any definition arrives by git;
// - the person: their typed prompts, their answers at a terminal.
// Only the person's acts carry authority: a gate's approval, a pick, a decision's yes, a command
// approved to run. So an act counts only on evidence neither other party can produce:
// - **a prompt the client recorded as typed**: the client's own record of the session (Claude
//   Code's transcript, Codex's rollout, Copilot's session events), outside the project, says the
//   prompt with that id and those words came from a person (`promptSource` typed/sdk, never a
//   scheduled or system turn) and when; a hook's input alone is not evidence (the model can call
//   a hook command, a clone can write an event);
// - **a terminal**: the CLI run by a process none of whose ancestors is a client's agent shell (a
//   marker in its own environment or in any ancestor's, read from /proc where the model's
//   `env -u` cannot reach), so its prompts and --yes are the person's;
// - **a seal**: every record that carries authority (a reply, a question put, an approved command,
//   a kept definition, a pick) is sealed with a key kept outside the repository and outside what
//   install writes, one per checkout (src/store/checkout-key.ts), and bound to the workflow
//   instance: a record that arrives by git does not verify here, so it is history, never
//   authority, and a clone asks again.
// What cannot be promised: a model with an unrestricted shell in a permissive mode (Claude Code's
// bypassPermissions, a broad Bash allow rule, Codex's danger-full-access with approvals off,
// Copilot's --allow-all-tools) runs as the user and can do what the user can, writing the
// client's records or reading the key included; `doctor` says when the client's mode makes it so.
// A client dotagent does not know sets no marker: its model's shell looks like a program.

/** Events that carry the person's authority: counted only when sealed by this checkout (and, for replies, confirmed by the client's record). */
export const AUTHORITY_EVENTS = [
  "person_replied",
  "decision_asked",
  "command_approved",
  "definition_kept",
  "design_picked",
] as const;
export type AuthorityEvent = (typeof AUTHORITY_EVENTS)[number];

export function isAuthorityEvent(type: string): type is AuthorityEvent {
  return (AUTHORITY_EVENTS as readonly string[]).includes(type);
}

// ---- The caller: the person (or their program) or a model's shell ----

/** An environment variable a client sets in the commands its model runs (each client's test/<client>/NOTES.md). */
const MARKERS: ReadonlyArray<{ client: Client; name: string; test: (value: string) => boolean }> = [
  { client: "claude", name: "CLAUDECODE", test: (v) => v === "1" },
  { client: "copilot", name: "COPILOT_CLI", test: (v) => v === "1" },
  { client: "codex", name: "CODEX_TOOL_CALL_ID", test: (v) => v !== "" },
  { client: "codex", name: "CODEX_THREAD_ID", test: (v) => v !== "" },
];

export type Client = "claude" | "copilot" | "codex";

/** The clients whose model-shell markers an environment carries. */
export function markersIn(env: Readonly<Record<string, string | undefined>>): Client[] {
  return [
    ...new Set(MARKERS.filter((m) => typeof env[m.name] === "string" && m.test(env[m.name]!)).map((m) => m.client)),
  ];
}

/** Each client's programs: its binaries' names, and its npm package run by node (clientIn, first match). */
const PROGRAMS: ReadonlyArray<{ client: Client; names: readonly string[]; module: RegExp }> = [
  { client: "claude", names: ["claude"], module: /@anthropic-ai\/claude-code[^/]*\// },
  { client: "copilot", names: ["copilot"], module: /@github\/copilot[^/]*\// },
  { client: "codex", names: ["codex", "codex-linux-sandbox"], module: /@openai\/codex[^/]*\// },
];

/**
 * The client a process's command line shows it to be: Claude Code (its native binary `claude`, or
 * the npm package's cli.js), Copilot CLI (`copilot`, or its package under node), Codex (`codex`,
 * and `codex-linux-sandbox`, pid 1 inside Codex's sandbox).
 */
export function clientIn(argv: readonly string[]): Client | undefined {
  // A process that rewrote its title (npm: `npm exec vitest run test/codex`) shows one string with
  // spaces: its words are its argv, or `test/codex` would read as the program `codex`.
  const words = argv.length === 1 && /\s/.test(argv[0]!) ? argv[0]!.split(/\s+/) : argv;
  const base = (words[0] ?? "").split("/").at(-1) ?? "";
  const script = words.slice(1, 3).join(" ");
  return PROGRAMS.find((p) => p.names.includes(base) || p.module.test(`${words[0] ?? ""} ${script}`))?.client;
}

/** What is known of the calling process: the markers in its own environment and in its ancestors' (as they were started). */
export interface CallerFacts {
  readonly own: readonly Client[];
  readonly ancestors: readonly Client[];
}

export type Caller = { kind: "agent_shell"; client: Client; seen: "own" | "ancestor" } | { kind: "person" };

/**
 * A model's shell when a client's marker is in the process's environment or in any ancestor's: a
 * line that clears the variable (`env -u CLAUDECODE …`) still runs under the client's shell. A
 * terminal does not make a model's shell the person's (`script -c` gives it one). Anything else is
 * the person or a program they run.
 */
export function judgeCaller(facts: CallerFacts): Caller {
  const own = facts.own[0];
  if (own !== undefined) return { kind: "agent_shell", client: own, seen: "own" };
  const ancestor = facts.ancestors[0];
  return ancestor !== undefined ? { kind: "agent_shell", client: ancestor, seen: "ancestor" } : { kind: "person" };
}

// ---- Seals ----

/** JSON with keys sorted at every level: the same record always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The text a record's seal is computed over: the workflow instance and every field but `seq` and `seal`. */
export function sealText(instance: string, record: Readonly<Record<string, unknown>>): string {
  const { seq: _seq, seal: _seal, ...rest } = record;
  return `dotagent-seal/1\n${instance}\n${canonicalJson(rest)}`;
}

/** The instance a seal binds to: phase.json's instance_id, else (older state) its workflow id and start. */
export function sealInstance(
  state: { workflow_id: string; started_at: string; instance_id?: string | undefined } | undefined,
): string {
  if (state === undefined) return "no-workflow";
  return state.instance_id ?? `${state.workflow_id}@${state.started_at}`;
}

// ---- What a reply says ----

const YES =
  /^(yes|y|yeah|yep|yup|sure|ok|okay|approve[ds]?|approve it|go ahead|do it|confirm(ed)?|lgtm|ship it|looks good( to me)?)\b/i;
const NO_START =
  /^(no|nope|nah|not yet|reject(ed)?|decline[ds]?|wait|stop|hold on|cancel)\b(?!-)|^(please )?(don'?t|do not)\b|^not approved\b/i;
const YES_ANYWHERE = /\b(approve[ds]?|lgtm|looks good|go ahead|ship it|yes)\b/i;

/**
 * What a reply answers to a yes-or-no question: "yes" when it opens with a yes ("yes", "yes, go
 * back", "ok", "go ahead"), "no" when it opens with a no and says no yes anywhere ("no, keep
 * going"), else null ("continue", "what does it do?"): a reply that says neither answers nothing,
 * and the person is asked again. The words that count are shown with the question.
 */
export function replyAnswer(text: string): "yes" | "no" | null {
  const t = text.trim();
  if (NO_START.test(t) && !YES_ANYWHERE.test(t.replace(NO_START, ""))) return "no";
  if (YES.test(t) && !NO_START.test(t)) return "yes";
  return null;
}

/** Why a final_design.json does not count before the pick is approved: dotagent did not write it from the person's pick. */
export const NOT_PICKED =
  "was not written by dotagent from the person's pick (only dotagent writes final_design.json, from the design the person names)";

/** The line shown with every yes-or-no question put to the person. */
export const YES_OR_NO = 'Reply "yes" or "no"; any other reply is not taken as an answer.';

/**
 * The design a pick names: the one design among `names` whose name the reply mentions as a word
 * ("minimal", "Robust.", "minimal, but keep the old API"); null when it names none, or more than
 * one ("not minimal, robust" is asked again: dotagent does not guess which).
 */
export function namedDesign(text: string, names: readonly string[]): string | null {
  const words = new Set(
    text
      .toLowerCase()
      .split(/[^a-z0-9_-]+/)
      .filter(Boolean),
  );
  const named = names.filter((n) => words.has(n.toLowerCase()));
  return named.length === 1 ? named[0]! : null;
}

// ---- A prompt's origin, from the client's own record ----

export type PromptOrigin =
  | { kind: "person"; at: string; text: string }
  | { kind: "not_person"; why: string }
  | { kind: "unconfirmed"; why: string };

/** Claude Code's promptSource of a person's prompt: typed (also queued while busy, a suggestion taken) or sent by `claude -p` / the Agent SDK. */
const CLAUDE_PERSON_SOURCES = new Set(["typed", "queued", "suggestion_accepted", "sdk"]);

/**
 * Whether Claude Code's transcript entry for a prompt (the `user` line with its `promptId`) records
 * a person's prompt. Measured on 2.1.332 (test/claude/NOTES.md "Who typed a prompt"): a typed
 * prompt has `promptSource: "typed"`, `origin.kind: "human"`; `claude -p` has `promptSource:
 * "sdk"`; a scheduled prompt (CronCreate, ScheduleWakeup) `promptSource: "system"`, `isMeta:
 * true`, `wakeupSource`, `turnOrigin: "scheduled"`. A line without promptSource (another version)
 * is not taken as the person's: an unknown source is not the person.
 */
export function claudePromptOrigin(entry: Readonly<Record<string, unknown>>): PromptOrigin {
  const message = entry.message as { content?: unknown } | undefined;
  const content = message?.content;
  const at = typeof entry.timestamp === "string" ? entry.timestamp : undefined;
  if (typeof content !== "string") return { kind: "not_person", why: "the prompt is not text a person typed" };
  if (entry.isMeta === true || entry.wakeupSource !== undefined || entry.scheduledTaskId !== undefined)
    return {
      kind: "not_person",
      why: `Claude Code recorded it as a ${String(entry.wakeupSource ?? "scheduled")} prompt, not one the person typed`,
    };
  // A /command the person typed is recorded as its parts (and, in 2.1.332, without promptSource).
  const command =
    /^<command-message>[^<]*<\/command-message>\n<command-name>(\/[^<]*)<\/command-name>(?:\n<command-args>([\s\S]*)<\/command-args>)?/.exec(
      content,
    );
  const text = command === null ? content : `${command[1]}${command[2] ? ` ${command[2]}` : ""}`;
  const source = entry.promptSource;
  const turn = entry.turnOrigin;
  if (typeof source === "string") {
    if (!CLAUDE_PERSON_SOURCES.has(source))
      return { kind: "not_person", why: `Claude Code recorded it as sent by "${source}", not typed by the person` };
  } else if (command === null || (turn !== "human" && turn !== "sdk"))
    return { kind: "not_person", why: "Claude Code did not record who sent it (no promptSource)" };
  const origin = (entry.origin as { kind?: unknown } | undefined)?.kind;
  if (origin !== undefined && origin !== "human")
    return { kind: "not_person", why: `Claude Code recorded its origin as "${String(origin)}"` };
  if (turn !== undefined && turn !== "human" && turn !== "sdk")
    return { kind: "not_person", why: `Claude Code recorded its turn as "${String(turn)}"` };
  if (at === undefined || !Number.isFinite(Date.parse(at)))
    return { kind: "unconfirmed", why: "the transcript line has no time" };
  return { kind: "person", at, text };
}

/**
 * Whether a Codex rollout line is the person's prompt of turn `turn`: a user message whose every
 * content item Codex marks `provenance: {type: "user"}` (0.169.0, test/codex/NOTES.md "Who typed a
 * prompt"); a sub-agent's task, a goal's continuation, a hook's words or a notification carry
 * another provenance (or live in a sub-agent's rollout, `subagent` set: see codexRolloutIsMain).
 */
export function codexPromptOrigin(entry: Readonly<Record<string, unknown>>, turn: string): PromptOrigin | undefined {
  const payload = entry.payload as Record<string, unknown> | undefined;
  if (entry.type !== "response_item" || payload?.type !== "message" || payload.role !== "user") return undefined;
  const meta = payload.internal_chat_message_metadata_passthrough as
    { turn_id?: unknown; content_item_metadata?: unknown } | undefined;
  if (meta?.turn_id !== turn) return undefined;
  const content = Array.isArray(payload.content) ? (payload.content as Array<Record<string, unknown>>) : [];
  const text = content.map((c) => (typeof c.text === "string" ? c.text : "")).join("\n");
  const items = Array.isArray(meta.content_item_metadata)
    ? (meta.content_item_metadata as Array<{ provenance?: { type?: unknown } }>)
    : [];
  const at = typeof entry.timestamp === "string" ? entry.timestamp : undefined;
  if (items.length === 0 || items.some((i) => i.provenance?.type !== "user"))
    return {
      kind: "not_person",
      why: `Codex recorded it as ${String(items.find((i) => i.provenance?.type !== "user")?.provenance?.type ?? "unmarked")} input, not the person's`,
    };
  if (at === undefined || !Number.isFinite(Date.parse(at)))
    return { kind: "unconfirmed", why: "the rollout line has no time" };
  return { kind: "person", at, text };
}

/** Whether a Codex rollout is a main session's (a sub-agent's rollout says `source.subagent`; its prompts are the model's). */
export function codexRolloutIsMain(meta: Readonly<Record<string, unknown>> | undefined): boolean {
  const payload = meta?.payload as { source?: unknown; thread_source?: unknown } | undefined;
  if (meta?.type !== "session_meta" || payload === undefined) return false;
  const source = payload.source as { subagent?: unknown } | string | undefined;
  return (
    !(typeof source === "object" && source !== null && source.subagent !== undefined) &&
    payload.thread_source !== "subagent"
  );
}

/**
 * Whether Copilot's record of the prompt a `userPromptSubmitted` hook saw is the person's: the
 * line its hook's end leads to (parentId) is a `user.message` with no `agentId` and no `source`
 * (a scheduled prompt says `schedule-N`, an autopilot continuation `autopilot`, a sub-agent's
 * prompt `agent-…`), not a `system.notification` (1.0.102, test/copilot/NOTES.md "Who typed a prompt").
 */
export function copilotPromptOrigin(entry: Readonly<Record<string, unknown>>): PromptOrigin {
  const data = (entry.data ?? {}) as Record<string, unknown>;
  const at = typeof entry.timestamp === "string" ? entry.timestamp : undefined;
  if (entry.type !== "user.message")
    return { kind: "not_person", why: `Copilot recorded it as a ${String(entry.type)}, not the person's message` };
  if (entry.agentId !== undefined || data.agentId !== undefined)
    return { kind: "not_person", why: "Copilot recorded it as a sub-agent's prompt" };
  if (data.source !== undefined && data.source !== "user")
    return {
      kind: "not_person",
      why: `Copilot recorded it as sent by "${String(data.source)}", not typed by the person`,
    };
  if (typeof data.content !== "string") return { kind: "not_person", why: "the message is not text" };
  if (at === undefined || !Number.isFinite(Date.parse(at)))
    return { kind: "unconfirmed", why: "the record line has no time" };
  return { kind: "person", at, text: data.content };
}
