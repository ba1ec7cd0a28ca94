// The headless runner with a stand-in Agent SDK: each "agent" writes its report at once (or hangs
// until the run is interrupted), and what a person would read on stderr is kept line by line.
// Shared by runner.test.ts and runner-person.test.ts; the real SDK is in test/claude/run-journey.
import { afterEach } from "vitest";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { QueryMessage, QuerySdk } from "../api/recoverable-query.js";
import { findAgentsDir, loadAgentFiles, parseAgentFile } from "./agent-files.js";
import type { Asker, Choice, RunOptions } from "./runner.js";
import { createProgress, type Progress } from "./progress.js";

export const AGENTS = loadAgentFiles(findAgentsDir(resolve("agents"), ""));
const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A report to write, null for none, "hang" to work until the run is interrupted. */
export type Writer = (agent: string, prompt: string, output: string) => Record<string, unknown> | null | "hang";

/** The reports a well-behaved agent writes (the scripted model's, in short). */
export const good: Writer = (agent, prompt) => {
  const field = (name: string) => new RegExp(`^${name}: (.*)$`, "m").exec(prompt)?.[1] ?? "";
  switch (agent) {
    case "pm":
      return { summary: "sign in", acceptance_criteria: [{ id: "AC-1", text: "works" }] };
    case "architect":
      return {
        name: field("Design name"),
        tasks: [
          { id: "task-001", title: "model", depends_on: [] },
          { id: "task-002", title: "route", depends_on: ["task-001"] },
        ],
      };
    case "roundtable":
      return {
        recommendation: "minimal",
        options_for_user: [
          { name: "minimal", one_line: "small" },
          { name: "robust", one_line: "big" },
        ],
      };
    case "executor":
      return { task_id: field("Task"), status: "complete", summary: "done" };
    case "qa":
      return { passed: true, failures: [] };
    case "reproducer":
      return {
        request: field("Feature request"),
        reproduced: true,
        test: { file: "test/login.test.ts", command: "npm test" },
        tasks: [{ id: "fix-decode", title: "decode the body once", depends_on: [] }],
      };
    default:
      return { summary: "shipped", lessons: [] };
  }
};

export interface Harness {
  root: string;
  sessions: Array<{ agent: string; prompt: string; resumed: boolean; cwd?: unknown }>;
  lines: string[];
  options(extra?: Partial<RunOptions>): RunOptions;
}

export function harness(writer: Writer, setup?: (root: string) => void): Harness {
  const root = mkdtempSync(join(tmpdir(), "dotagent-runner-"));
  temps.push(root);
  setup?.(root);
  const sessions: Harness["sessions"] = [];
  const lines: string[] = [];
  let n = 0;
  const sdk: QuerySdk<QueryMessage> = {
    async *query({ prompt, options }) {
      const system = String(options?.systemPrompt ?? "");
      const agent = [...projectAgents(root), ...AGENTS.values()].find((a) => system.startsWith(a.body))?.name ?? "?";
      const output = /^Output file: (\S+)$/m.exec(prompt)?.[1] ?? "";
      sessions.push({ agent, prompt, resumed: options?.resume !== undefined, cwd: options?.cwd });
      const session_id = `s-${++n}`;
      yield { type: "system", subtype: "init", session_id };
      const report = writer(agent, prompt, output);
      if (report === "hang") {
        // Works until the SDK is told to stop (the runner's abortController, on Ctrl-C), then throws as the SDK does.
        const signal = (options?.abortController as AbortController | undefined)?.signal;
        await new Promise((_resolve, reject) => {
          const stop = () => reject(new Error("Operation aborted"));
          if (signal?.aborted) stop();
          signal?.addEventListener("abort", stop, { once: true });
        });
      }
      if (report && report !== "hang") {
        mkdirSync(dirname(join(root, output)), { recursive: true });
        writeFileSync(join(root, output), JSON.stringify(report));
      }
      yield {
        type: "result",
        subtype: "success",
        session_id,
        result: report ? `Wrote ${output}.` : "I could not do it.",
      };
    },
  };
  // What a person would read (no terminal: no live line, no colour), line by line.
  const stream = {
    isTTY: false,
    write: (text: string) => lines.push(...text.split("\n").filter((l) => l !== "")),
  } as unknown as NodeJS.WriteStream;
  const progress: Progress = createProgress(stream);
  const noTerminal: Asker = {
    interactive: false,
    confirm: async () => undefined,
    choose: async () => undefined,
    text: async () => undefined,
  };
  return {
    root,
    sessions,
    lines,
    options: (extra = {}) => ({
      root,
      request: "add login",
      approve: "auto",
      agents: AGENTS,
      helper: "node dotagent.mjs",
      ask: noTerminal,
      progress,
      sdk,
      ...extra,
    }),
  };
}

/** A project's own agents (.claude/agents/<name>.md, a definition's), known by their file names. */
function projectAgents(root: string): Array<{ name: string; body: string }> {
  const dir = join(root, ".claude", "agents");
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith(".md"));
  } catch {
    return [];
  }
  // Longest body first: a project's edit of a built-in agent wins over the built-in it starts like.
  return files
    .map((f) => ({ name: f.slice(0, -3), body: parseAgentFile(f, readFileSync(join(dir, f), "utf8")).body }))
    .sort((a, b) => b.body.length - a.body.length);
}

/** A person at a terminal: approves the gates, answers the design pick with `design` (undefined: no answer). */
export function person(design?: string, onApprove: () => void = () => {}): Asker {
  return {
    interactive: true,
    confirm: async () => true,
    choose: async (question) => {
      if (!question.startsWith("Approve")) return design;
      onApprove();
      return "approve";
    },
    text: async () => undefined,
  };
}

/**
 * A person at a terminal who gives these answers in turn, to every choose() and text() (a
 * function: its value then); `asked` keeps each question. Out of answers: Ctrl-C.
 */
export function personSaying(...answers: Array<string | ((question: string) => string)>): {
  asker: Asker;
  asked: string[];
} {
  const asked: string[] = [];
  const next = (question: string) => {
    asked.push(question);
    const answer = answers.shift();
    if (answer === undefined)
      throw Object.assign(new Error("interrupted; `dotagent run` continues"), { code: "interrupted" });
    return typeof answer === "function" ? answer(question) : answer;
  };
  return {
    asked,
    asker: {
      interactive: true,
      confirm: async (question) => next(question) === "yes",
      choose: async (question: string, choices: readonly Choice[]) => {
        const answer = next(question);
        const found = choices.find((c) => c.name === answer || c.title === answer || c.name.trim() === answer);
        if (!found)
          throw new Error(
            `"${answer}" is not among the choices of "${question}": ${choices.map((c) => c.name).join(", ")}`,
          );
        return found.name;
      },
      text: async (question) => next(question),
    },
  };
}
