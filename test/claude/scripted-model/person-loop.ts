// The person at an interactive client's terminal, for every client's terminal journey (Claude Code,
// Copilot, Codex): wait until the model's turn has ended and the server has been quiet a moment,
// read what the main agent said, type the person's answer; answer a box the client shows; after a
// kill, once the client is gone, start it again and go on. Each client supplies what differs: how
// a turn ends in its log, its boxes, how the person comes back.
import type { LogEntry } from "./server.js";
import type { Terminal } from "./terminal.js";

/** What the loop reads of a model server's log entry (the Messages and the Responses servers both log these). */
interface Entry {
  kind: string;
  k: number;
}

export interface PersonAtTerminal<E extends Entry = LogEntry> {
  terminal: Terminal;
  /** The model server's log so far. */
  log: () => E[];
  /** What the main agent said when its turn ended; undefined while the turn goes on. */
  endedTurn: (log: E[]) => string | undefined;
  /** The person's answer to that; null: nothing to say (see `waitForAgentsMs`). */
  answerTo: (said: string) => string | null;
  /** Types at the prompt (the caller records what was typed). */
  type: (text: string) => void;
  /** Requests that will never be answered (the killed client's): not pending. */
  hung: Set<number>;
  killed: () => boolean;
  /** After the kill, once the client is gone: the person starts it again; returns what they type then, or undefined when it cannot be done yet. */
  comeBack: () => Promise<string | undefined>;
  /** Answers a box the client shows (a permission, a hook review): true when there was one. */
  box?: () => Promise<boolean>;
  /** The screen shows this when the prompt takes input (checked before typing an answer). */
  ready?: RegExp;
  /** How long the log must stay unchanged before an ended turn counts (ms). */
  quietMs: number;
  /** With no answer, wait this long (quiet) for agents' notifications before giving up; default: give up at once. */
  waitForAgentsMs?: number;
  /** Before the person types `answer`; a string returned is typed instead. */
  beforeAnswer?: (answer: string) => string | undefined | void;
  deadline: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Plays the person until the model says the workflow is complete (true), or it stops without one (false). */
export async function playPerson<E extends Entry>(p: PersonAtTerminal<E>): Promise<boolean> {
  let restarted = false;
  let seen = 0;
  let lastSize = 0;
  let quietSince = Date.now();
  while (Date.now() < p.deadline) {
    await sleep(300);
    if (p.killed() && !restarted) {
      if (p.terminal.pid() !== undefined) continue;
      const text = await p.comeBack();
      if (text === undefined) continue;
      restarted = true;
      const log = p.log();
      // What the killed client asked and never got (a delayed answer to a dead connection) is not pending.
      for (const e of log) if (e.kind === "request") p.hung.add(e.k);
      seen = log.filter((e) => e.kind === "request").length;
      p.type(text);
      continue;
    }
    if (p.box && (await p.box())) continue;
    const log = p.log();
    if (log.length !== lastSize) {
      lastSize = log.length;
      quietSince = Date.now();
      continue;
    }
    const requests = log.filter((e) => e.kind === "request");
    const answered = new Set(log.filter((e) => e.kind === "response").map((e) => e.k));
    if (
      requests.some((e) => !answered.has(e.k) && !p.hung.has(e.k)) ||
      requests.length <= seen ||
      Date.now() - quietSince < p.quietMs
    )
      continue;
    const said = p.endedTurn(log);
    if (said === undefined || (p.ready !== undefined && !p.ready.test(p.terminal.screen()))) continue;
    if (/workflow is complete/i.test(said)) return true;
    const answer = p.answerTo(said);
    if (answer === null) {
      // Waiting for agents the model launched: their notifications come by themselves.
      if (p.waitForAgentsMs !== undefined && Date.now() - quietSince <= p.waitForAgentsMs) continue;
      return false;
    }
    seen = requests.length;
    p.type(p.beforeAnswer?.(answer) || answer);
  }
  return false;
}

/** The main agent's text when its last response ended its turn (Messages API log entries). */
export function mainTurnText(log: LogEntry[]): string | undefined {
  const last = log.filter((e) => e.kind === "response" && e.who === "main").at(-1);
  if (last === undefined || last.stop !== "end_turn") return undefined;
  return ((last.blocks as Array<{ type: string; text?: string }> | undefined) ?? [])
    .filter((b) => b.type === "text")
    .map((b) => b.text)
    .join("\n");
}
