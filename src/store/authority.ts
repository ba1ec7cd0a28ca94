// The person's authority, read and written (the rules and the threat: src/core/authority.ts).
// Writing: every authority event is appended with its seal (this checkout's key over the record
// and the workflow instance). Reading: `authorityView` keeps an authority event only when its seal
// verifies here, and a reply only when the client's own record confirms that a person typed those
// words (its time then is the record's); everything else in the log is history, read as before.
// Never throws for what it cannot verify: an unverifiable record simply does not count.
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { StringDecoder } from "node:string_decoder";
import { isAbsolute, join, sep } from "node:path";
import {
  claudePromptOrigin,
  codexPromptOrigin,
  codexRolloutIsMain,
  copilotPromptOrigin,
  isAuthorityEvent,
  sealText,
  type Client,
  type PromptOrigin,
} from "../core/authority.js";
import { checkoutKey, sameSeal, sealWith } from "./checkout-key.js";
import { appendEvents, type EventRecord } from "./events.js";
import type { ProjectPaths } from "./project.js";

/** Where a reply's proof is: the client, its record of the session, the prompt's id there, and a digest of the words. */
export interface ReplyEvidence {
  readonly client: Client;
  readonly record: string;
  readonly id: string;
  readonly sha: string;
}

/** The full sha256 of a file dotagent wrote (final_design.json's, in `design_picked`). */
export const fileDigest = (bytes: string | Buffer) =>
  process.getBuiltinModule("node:crypto").createHash("sha256").update(bytes).digest("hex");

/** A digest of a prompt's words as the client records them (surrounding blanks aside). */
export const textDigest = (text: string) =>
  process.getBuiltinModule("node:crypto").createHash("sha256").update(text.trim()).digest("hex").slice(0, 16);

/**
 * Appends events under the lock the caller holds; authority events get this checkout's seal. When
 * no key can be had (a state folder that cannot be written), they are appended unsealed, which
 * counts for nothing: `warn` says why.
 */
export function appendWithSeals(
  paths: ProjectPaths,
  instance: string,
  events: ReadonlyArray<{ type: string; [key: string]: unknown }>,
  at: Date,
  warn?: (message: string) => void,
): EventRecord[] {
  if (!events.some((e) => isAuthorityEvent(e.type))) return appendEvents(paths.root, paths.eventsFile, events, at);
  const key = checkoutKey(paths.root, { create: true });
  if (!key.ok)
    warn?.(
      `the person's answers cannot be kept in this checkout: ${key.reason}; set DOTAGENT_STATE_HOME to a folder of yours outside the project`,
    );
  const stamped = events.map((e) => {
    if (!isAuthorityEvent(e.type) || !key.ok) return e;
    const { seal: _ignored, ...rest } = e;
    return { ...rest, seal: sealWith(key.key, sealText(instance, { at: at.toISOString(), ...rest })) };
  });
  return appendEvents(paths.root, paths.eventsFile, stamped, at);
}

/** Whether an event carries this checkout's seal for this workflow instance (its evidence aside). */
export function sealedHere(paths: ProjectPaths, instance: string, event: Readonly<Record<string, unknown>>): boolean {
  const key = checkoutKey(paths.root, { create: false });
  return key.ok && sealed(key.key, instance, event);
}

/** Whether an event's seal is this checkout's for this workflow instance. */
function sealed(key: Buffer, instance: string, event: Readonly<Record<string, unknown>>): boolean {
  return typeof event.seal === "string" && sameSeal(event.seal, sealWith(key, sealText(instance, event)));
}

export interface AuthorityOptions {
  /** Where a reply not yet confirmed is said to be (the hook's context, the refusal's reason). */
  readonly onUnconfirmed?: (event: EventRecord, why: string) => void;
}

/**
 * The log as authority reads it: history events as they are; authority events only when sealed
 * here for `instance`; a reply only when the client's record says the person typed it (its `at`
 * becomes the record's time, and `said` holds their words as the client recorded them).
 */
export function authorityView(
  paths: ProjectPaths,
  instance: string,
  events: readonly EventRecord[],
  options: AuthorityOptions = {},
): EventRecord[] {
  if (!events.some((e) => isAuthorityEvent(e.type))) return [...events];
  const key = checkoutKey(paths.root, { create: false });
  const out: EventRecord[] = [];
  for (const event of events) {
    if (!isAuthorityEvent(event.type)) {
      out.push(event);
      continue;
    }
    if (!key.ok || !sealed(key.key, instance, event)) continue;
    const evidence = readEvidence(event.evidence);
    if (evidence === undefined) {
      // A reply is the person's only on the client's record of it; other authority on its seal.
      if (event.type !== "person_replied") out.push(event);
      continue;
    }
    const origin = promptOrigin(paths, evidence);
    if (origin.kind === "person") out.push({ ...event, at: origin.at, said: origin.text });
    else options.onUnconfirmed?.(event, origin.why);
  }
  return out;
}

function readEvidence(value: unknown): ReplyEvidence | undefined {
  const v = value as Partial<ReplyEvidence> | null | undefined;
  if (v === null || typeof v !== "object") return undefined;
  return typeof v.client === "string" &&
    Object.hasOwn(CLIENT_RECORDS, v.client) &&
    typeof v.record === "string" &&
    typeof v.id === "string" &&
    typeof v.sha === "string"
    ? (v as ReplyEvidence)
    : undefined;
}

/** What the client's own record says of the prompt the evidence names. */
export function promptOrigin(paths: ProjectPaths, evidence: ReplyEvidence): PromptOrigin {
  const record = recordFile(paths, evidence);
  if (typeof record !== "string") return record;
  const origin = CLIENT_RECORDS[evidence.client].origin(record, evidence);
  if (origin.kind !== "person") return origin;
  return textDigest(origin.text) === evidence.sha
    ? origin
    : { kind: "not_person", why: "the client's record holds other words for that prompt" };
}

/**
 * Each client's records of its sessions: their home (outside any project), and what the record
 * says of the prompt the evidence names. One row per client, so a reply's client is one of these.
 */
const CLIENT_RECORDS: Readonly<
  Record<
    Client,
    { home(env: NodeJS.ProcessEnv): string; origin(record: string, evidence: ReplyEvidence): PromptOrigin }
  >
> = {
  claude: {
    home: (env) => join(env.CLAUDE_CONFIG_DIR || join(homedir(), ".claude"), "projects"),
    origin: (record, evidence) => claudeOrigin(record, evidence.id),
  },
  codex: {
    home: (env) => join(env.CODEX_HOME || join(homedir(), ".codex"), "sessions"),
    origin: (record, evidence) => codexOrigin(record, evidence.id, evidence.sha),
  },
  copilot: {
    home: (env) => join(env.COPILOT_HOME || join(homedir(), ".copilot"), "session-state"),
    origin: (record, evidence) => copilotOrigin(record, evidence.id),
  },
};

/** The client's home, where its records of sessions live (outside any project). */
const clientRecords = (client: Client): string => CLIENT_RECORDS[client].home(process.env);

/** The record's real path, when it is a regular file in the client's home and outside the project; else why not. */
function recordFile(paths: ProjectPaths, evidence: ReplyEvidence): string | PromptOrigin {
  if (!isAbsolute(evidence.record))
    return { kind: "unconfirmed", why: "the prompt's record is not named by an absolute path" };
  let real: string;
  let home: string;
  let project: string;
  try {
    real = realpathSync.native(evidence.record);
  } catch {
    return {
      kind: "unconfirmed",
      why: `the client's record of the session (${evidence.record}) is not on this machine`,
    };
  }
  try {
    home = realpathSync.native(clientRecords(evidence.client));
    project = realpathSync.native(paths.root);
  } catch {
    return { kind: "unconfirmed", why: `the ${evidence.client} records folder is not on this machine` };
  }
  if (real === project || real.startsWith(project + sep))
    return { kind: "not_person", why: "the prompt's record is a file inside the project, which anyone can write" };
  if (!real.startsWith(home + sep))
    return { kind: "not_person", why: `the prompt's record is not in ${evidence.client}'s own folder (${home})` };
  return real;
}

/** Claude Code's transcript line for prompt `id` (the `user` line carrying its promptId). */
function claudeOrigin(file: string, id: string): PromptOrigin {
  const needle = `"promptId":"${id}"`;
  let found: PromptOrigin = { kind: "unconfirmed", why: "Claude Code has not recorded the prompt yet" };
  scanLines(file, (line) => {
    if (!line.includes(needle) || !line.includes('"type":"user"')) return false;
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return false;
    }
    if (
      entry.type !== "user" ||
      entry.promptId !== id ||
      typeof (entry.message as { content?: unknown } | undefined)?.content !== "string"
    )
      return false;
    found = claudePromptOrigin(entry);
    return true;
  });
  return found;
}

/** The person's prompt of turn `turn` in a Codex rollout: the user message with those words (several may share a turn). */
function codexOrigin(file: string, turn: string, sha: string): PromptOrigin {
  let found: PromptOrigin = { kind: "unconfirmed", why: "Codex has not recorded the prompt yet" };
  let first = true;
  scanLines(file, (line) => {
    const entry = parseLine(line);
    if (first) {
      first = false;
      if (!codexRolloutIsMain(entry)) {
        found = { kind: "not_person", why: "the record is a sub-agent's rollout: its prompts are the model's" };
        return true;
      }
    }
    if (entry === undefined || !line.includes(turn)) return false;
    const origin = codexPromptOrigin(entry, turn);
    if (origin === undefined || (origin.kind === "person" && textDigest(origin.text) !== sha)) return false;
    found = origin;
    return origin.kind === "person";
  });
  return found;
}

/**
 * Copilot's record of the prompt its hook saw at `timestamp` (ms): the `hook.start` of that
 * userPromptSubmitted, its `hook.end`, and the line that end leads to (its parentId).
 */
function copilotOrigin(file: string, timestamp: string): PromptOrigin {
  let invocation: string | undefined;
  let end: string | undefined;
  let found: PromptOrigin = { kind: "unconfirmed", why: "Copilot has not recorded the prompt yet" };
  scanLines(file, (line) => {
    if (invocation === undefined) {
      if (!line.includes('"hook.start"') || !line.includes(timestamp)) return false;
      const entry = parseLine(line);
      const data = entry?.data as
        { hookType?: unknown; hookInvocationId?: unknown; input?: { timestamp?: unknown } } | undefined;
      if (
        entry?.type === "hook.start" &&
        data?.hookType === "userPromptSubmitted" &&
        String(data.input?.timestamp) === timestamp &&
        typeof data.hookInvocationId === "string"
      )
        invocation = data.hookInvocationId;
      return false;
    }
    if (end === undefined) {
      if (!line.includes(invocation)) return false;
      const entry = parseLine(line);
      if (
        entry?.type === "hook.end" &&
        (entry.data as { hookInvocationId?: unknown } | undefined)?.hookInvocationId === invocation &&
        typeof entry.id === "string"
      )
        end = entry.id;
      return false;
    }
    if (!line.includes(end)) return false;
    const entry = parseLine(line);
    if (entry === undefined || entry.parentId !== end) return false;
    found = copilotPromptOrigin(entry);
    return true;
  });
  return found;
}

function parseLine(line: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(line) as unknown;
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Every whole line of a file, in order, until `visit` says stop; bounded reads, never a link, never a FIFO. */
function scanLines(file: string, visit: (line: string) => boolean): void {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return;
  }
  try {
    if (!fstatSync(fd).isFile()) return;
    const chunk = Buffer.alloc(1 << 20);
    const decoder = new StringDecoder("utf8");
    let carry = "";
    let position = 0;
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, position);
      if (n <= 0) break;
      position += n;
      const lines = (carry + decoder.write(chunk.subarray(0, n))).split("\n");
      carry = lines.pop() ?? "";
      for (const line of lines) if (visit(line)) return;
    }
  } finally {
    closeSync(fd);
  }
}
