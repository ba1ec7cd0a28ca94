// What the Codex hooks read of a sub-agent's rollout (Codex's session file, JSON lines, in
// $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl; test/codex/NOTES.md): the prompt
// it was spawned with (its first user message after the environment context; multi-agent v2: the
// NEW_TASK agent_message's payload) and its agent type
// (session_meta.source.subagent.thread_spawn.agent_role), and for a multi-agent v2 agent at its
// SubagentStart (its task not in its rollout yet) the message its parent spawned it with. Reads are
// bounded and never throw.
import { readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { codexTaskPayload } from "../../store/agent-transcript.js";
import { MAX_STATE_BYTES, readProjectHead, readProjectText } from "../../store/read-file.js";

export interface RolloutAgent {
  readonly transcript: string;
  readonly prompt: string | undefined;
  readonly type: string | undefined;
}

/** The first 40 lines' entries of a rollout (its head: at most 4 MiB). */
function headEntries(file: string): Array<Record<string, unknown>> {
  const head = readProjectHead(file, 4 * 1024 * 1024, { links: "refuse" });
  if (head.kind !== "ok") return [];
  const entries: Array<Record<string, unknown>> = [];
  for (const line of head.bytes.toString("utf8").split("\n").slice(0, 40)) {
    try {
      const entry = JSON.parse(line) as unknown;
      if (entry !== null && typeof entry === "object") entries.push(entry as Record<string, unknown>);
    } catch {
      // a torn line (the head cut it, or a kill did)
    }
  }
  return entries;
}

const obj = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** The agent a rollout file is about. */
export function readRolloutAgent(file: string): RolloutAgent {
  const entries = headEntries(file);
  const meta = entries.find((e) => e.type === "session_meta");
  const role = obj(obj(obj(obj(meta?.payload).source).subagent).thread_spawn).agent_role;
  let prompt: string | undefined;
  for (const e of entries) {
    const p = obj(e.payload);
    const v2 =
      e.type === "response_item" && p.type === "agent_message" && Array.isArray(p.content)
        ? codexTaskPayload(p.content)
        : undefined;
    if (v2 !== undefined) {
      prompt = v2;
      break;
    }
    if (e.type !== "response_item" || p.type !== "message" || p.role !== "user" || !Array.isArray(p.content)) continue;
    const text = p.content.map((c) => (typeof obj(c).text === "string" ? (obj(c).text as string) : "")).join("\n");
    if (text.startsWith("<environment_context>")) continue;
    prompt = text;
    break;
  }
  return { transcript: file, prompt, type: typeof role === "string" ? role : undefined };
}

/**
 * The rollout of thread `agentId`, looked for beside the session's own (same day) and then in the
 * days' folders under the same sessions/ folder (an agent spawned just before midnight).
 */
export function findRollout(sessionTranscript: string, agentId: string): string | undefined {
  if (!/^[\w-]{1,128}$/.test(agentId)) return undefined;
  const suffix = `-${agentId}.jsonl`;
  const inDir = (dir: string) => {
    try {
      const name = readdirSync(dir).find((f) => f.startsWith("rollout-") && f.endsWith(suffix));
      return name === undefined ? undefined : join(dir, name);
    } catch {
      return undefined;
    }
  };
  const day = dirname(sessionTranscript);
  const found = inDir(day);
  if (found !== undefined) return found;
  // sessions/YYYY/MM/DD: the neighbouring days of the same and the next month.
  const sessions = dirname(dirname(dirname(day)));
  if (basename(sessions) !== "sessions") return undefined;
  try {
    for (const year of readdirSync(sessions).sort().reverse().slice(0, 2))
      for (const month of readdirSync(join(sessions, year)).sort().reverse().slice(0, 2))
        for (const d of readdirSync(join(sessions, year, month))
          .sort()
          .reverse()
          .slice(0, 3)) {
          const hit = inDir(join(sessions, year, month, d));
          if (hit !== undefined) return hit;
        }
  } catch {
    return undefined;
  }
  return undefined;
}

/**
 * The message a multi-agent v2 agent was spawned with, read at its SubagentStart, when its own
 * rollout holds only its session_meta and context (the NEW_TASK comes after the hook: NOTES.md).
 * Its session_meta names it (`agent_path: "/root/<task_name>"`) and its parent thread; the
 * parent's rollout (found beside it by that id) already holds the `collaboration` spawn_agent call
 * with that task_name: the newest such call is this agent's (a task_name is unique among the
 * parent's live agents). A v1 agent (agent_path null) gives undefined: its prompt comes with its
 * own UserPromptSubmit. A parent rollout over 64 MiB is not read.
 */
export function readV2SpawnMessage(agentRollout: string): string | undefined {
  const meta = obj(headEntries(agentRollout).find((e) => e.type === "session_meta")?.payload);
  const spawn = obj(obj(obj(meta.source).subagent).thread_spawn);
  const path = spawn.agent_path ?? meta.agent_path;
  const parent = spawn.parent_thread_id ?? meta.parent_thread_id;
  const name = typeof path === "string" ? /^\/root(?:\/[^/]+)*\/([^/]+)$/.exec(path)?.[1] : undefined;
  if (name === undefined || typeof parent !== "string") return undefined;
  const parentRollout = findRollout(agentRollout, parent);
  const read =
    parentRollout === undefined
      ? undefined
      : readProjectText(parentRollout, { maxBytes: MAX_STATE_BYTES, links: "refuse" });
  if (read?.kind !== "ok") return undefined;
  for (const line of read.text.split("\n").reverse()) {
    if (!line.includes('"spawn_agent"')) continue;
    try {
      const p = obj(obj(JSON.parse(line) as unknown).payload);
      if (
        p.type !== "function_call" ||
        p.name !== "spawn_agent" ||
        p.namespace !== "collaboration" ||
        typeof p.arguments !== "string"
      )
        continue;
      const args = obj(JSON.parse(p.arguments) as unknown);
      if (args.task_name === name && typeof args.message === "string") return args.message;
    } catch {
      // a torn line (a kill), or one that is not a spawn
    }
  }
  return undefined;
}

/**
 * Whether the session's newest turn ran the model's commands in a sandbox that keeps the
 * repository's .git read-only: Codex's `workspace-write` (its default; `.git` is mounted read-only
 * for the model's commands) and `read-only` (the newest `turn_context`'s `sandbox_policy.type`,
 * test/codex/NOTES.md). False without a sandbox (`danger-full-access`) or when the rollout does not
 * say. Read only when a question is about to be handed to the model (a rollout can be megabytes).
 */
export function modelSandboxKeepsGit(rollout: string): boolean {
  const read = readProjectText(rollout, { maxBytes: MAX_STATE_BYTES, links: "refuse" });
  if (read.kind !== "ok") return false;
  const lines = read.text.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    if (!lines[i]!.includes('"turn_context"')) continue;
    try {
      const entry = obj(JSON.parse(lines[i]!) as unknown);
      if (entry.type !== "turn_context") continue;
      const type = obj(obj(entry.payload).sandbox_policy).type;
      return type === "workspace-write" || type === "read-only";
    } catch {
      // a torn line (a kill)
    }
  }
  return false;
}
