// The rollouts the real Codex 0.169.0 wrote in multi-agent v2 (`node test/codex/probe.mjs --model
// gpt-6.1-sol`; long texts trimmed, the temp folder renamed /tmp/probe): the parent's and the
// agent's as they were on disk when SubagentStart ran (copied by the probe's hook), and the agent's
// at its end (the SubagentStart hook's additionalContext as a developer message, then its NEW_TASK).
// `layCapturedRollouts` puts them under a sessions/ folder with their real names, the spawn's
// message, the agent's type (and the developer message) replaced by a test's own.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const HERE = new URL(".", import.meta.url).pathname;
export const PARENT_ID = "01a218a9-5559-7390-96d3-b683fbc5ceac";
export const AGENT_ID = "01a218a9-58ed-7273-acca-bfe3b4c05474";
/** The hook's stdin at SubagentStart, as captured (its transcript_path is the agent's rollout). */
export const SUBAGENT_START_INPUT = JSON.parse(
  readFileSync(join(HERE, "v2-subagent-start-input.json"), "utf8"),
) as Record<string, unknown>;

type Entry = { type: string; payload: Record<string, any> };
const entries = (name: string): Entry[] =>
  readFileSync(join(HERE, name), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Entry);
const lines = (list: Entry[]) => `${list.map((e) => JSON.stringify(e)).join("\n")}\n`;

export interface Laid {
  readonly parent: string;
  readonly agent: string;
}

/**
 * The parent's and the agent's rollouts in `<home>/sessions/2026/11/26/`, the spawn's `message`
 * (and agent_type) set to the given ones; `done` lays the agent's rollout as it ends, its
 * SubagentStart developer message `startContext` (undefined: taken out).
 */
export function layCapturedRollouts(
  home: string,
  spawn: { message: string; agentType: string; taskName?: string },
  done?: { startContext: string | undefined; payload?: string },
): Laid {
  const day = join(home, "sessions", "2026", "11", "26");
  mkdirSync(day, { recursive: true });
  const parent = entries("v2-start-parent.jsonl").map((e) => {
    if (e.payload.type !== "function_call" || e.payload.name !== "spawn_agent") return e;
    const args = {
      ...JSON.parse(e.payload.arguments),
      message: spawn.message,
      agent_type: spawn.agentType,
      ...(spawn.taskName ? { task_name: spawn.taskName } : {}),
    };
    return { ...e, payload: { ...e.payload, arguments: JSON.stringify(args) } };
  });
  const agentEntries = (done === undefined ? entries("v2-start-agent.jsonl") : entries("v2-agent-done.jsonl"))
    .map((e) => {
      if (e.type === "session_meta")
        return {
          ...e,
          payload: {
            ...e.payload,
            agent_role: spawn.agentType,
            source: {
              subagent: { thread_spawn: { ...e.payload.source.subagent.thread_spawn, agent_role: spawn.agentType } },
            },
          },
        };
      if (done === undefined) return e;
      const text = e.payload.content?.[0]?.text;
      if (e.payload.type === "message" && e.payload.role === "developer" && text === "PROBE-SUBAGENT-START-CONTEXT")
        return done.startContext === undefined
          ? undefined
          : { ...e, payload: { ...e.payload, content: [{ type: "input_text", text: done.startContext }] } };
      if (e.payload.type === "agent_message")
        return {
          ...e,
          payload: {
            ...e.payload,
            content: [
              e.payload.content[0],
              { type: "encrypted_content", encrypted_content: done.payload ?? spawn.message },
            ],
          },
        };
      return e;
    })
    .filter((e): e is Entry => e !== undefined);
  const laid = {
    parent: join(day, `rollout-2026-11-26T16-21-20-${PARENT_ID}.jsonl`),
    agent: join(day, `rollout-2026-11-26T16-21-21-${AGENT_ID}.jsonl`),
  };
  writeFileSync(laid.parent, lines(parent));
  writeFileSync(laid.agent, lines(agentEntries));
  return laid;
}

/** The session_meta of a laid agent rollout changed (a v1 agent: agent_path null). */
export function editAgentMeta(file: string, edit: (payload: Record<string, any>) => void): void {
  const list = readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Entry);
  for (const e of list) if (e.type === "session_meta") edit(e.payload);
  writeFileSync(file, lines(list));
}
