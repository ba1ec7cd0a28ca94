// A stand-in for @anthropic-ai/claude-agent-sdk, installed into a temp project's node_modules so the
// BUILT CLI's `dotagent run` loads it as it loads the real one (test/run-terminal.test.ts). Each
// "agent" reads, then writes its report (a tool call each, so the live line has something to
// show), taking FAKE_SDK_DELAY_MS. Like the real SDK it honours `abortController` (throws
// "Operation aborted") and starts its "Claude Code" through spawnClaudeCodeProcess.
//   FAKE_SDK_HANG=<output file substring>  that agent works until it is aborted
//   FAKE_SDK_LOG=<file>                     one JSON line per session: {output, resume, feedback}
//   FAKE_SDK_ACCOUNT=logged-out             accountInfo() says no key and no login
//   FAKE_SDK_TASKS=6                        the designs plan SIX_TASKS, and each executor writes
//                                           <task>.txt in its worktree (each landing a commit)
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const TASKS = [
  { id: "task-001", title: "Add password_hash to users", depends_on: [] },
  { id: "task-002", title: "Login route with tests", depends_on: ["task-001"] },
  { id: "task-003", title: "Sign-in form", depends_on: [] },
];
/** Six tasks, three of them after others (scripts/worker-figures.mjs). */
const SIX_TASKS = [
  ...TASKS,
  { id: "task-004", title: "Sign-out route", depends_on: ["task-002"] },
  { id: "task-005", title: "Remember me", depends_on: [] },
  { id: "task-006", title: "Login rate limit", depends_on: ["task-002", "task-005"] },
];
const SIX = process.env.FAKE_SDK_TASKS === "6";

function report(output, prompt) {
  const field = (name) => new RegExp(`^${name}: (.*)$`, "m").exec(prompt)?.[1] ?? "";
  const feedback = field("Feedback from the person");
  if (output.endsWith("demand.json")) {
    return {
      request: field("Feature request"),
      summary: `Users sign in with email and password${feedback ? `; ${feedback}` : ""}.`,
      user_stories: [
        {
          id: "US-1",
          as_a: "registered user",
          i_want: "to sign in with my email and password",
          so_that: "I can reach my account",
        },
      ],
      acceptance_criteria: [
        { id: "AC-1", story: "US-1", text: "A correct email and password open the dashboard." },
        { id: "AC-2", story: "US-1", text: "A wrong password shows an error and creates no session." },
      ],
      open_questions: ["Should sessions end when the password changes?"],
    };
  }
  if (output.includes("/designs/"))
    return {
      name: field("Design name"),
      summary: `${field("Design name")} login${feedback ? ` (${feedback})` : ""}`,
      tasks: SIX ? SIX_TASKS : TASKS,
    };
  if (output.endsWith("roundtable.json")) {
    return {
      recommendation: "minimal",
      rationale: feedback
        ? `both designs now ${feedback}; minimal is still a third of the work`
        : "meets every criterion with a third of the change",
      options_for_user: [
        { name: "minimal", one_line: "Signed cookie, one route, one middleware." },
        { name: "robust", one_line: "Session table; revocation possible later; three times the work." },
      ],
    };
  }
  const worktree = field("Worktree");
  if (output.includes("/tasks/") && SIX && worktree) writeFileSync(join(worktree, `${field("Task")}.txt`), "done\n");
  if (output.includes("/tasks/"))
    return { task_id: field("Task"), status: "complete", summary: `Did ${field("Title")}` };
  if (output.endsWith("verification.json")) return { passed: true, failures: [] };
  return { summary: "Login shipped.", lessons: ["Keep tasks small"] };
}

const wait = (ms, signal) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), reject(new Error("Operation aborted"))), {
      once: true,
    });
  });

const SLEEP = ["/usr/bin/sleep", "/bin/sleep"].find((path) => existsSync(path)) ?? "sleep";

let sessions = 0;

export function query({ prompt, options }) {
  const signal = options.abortController?.signal;
  const output = /^Output file: (\S+)$/m.exec(String(prompt))?.[1];
  const messages = (async function* () {
    const session_id = options.resume ?? `fake-${process.pid}-${++sessions}`;
    if (process.env.FAKE_SDK_LOG)
      appendFileSync(
        process.env.FAKE_SDK_LOG,
        `${JSON.stringify({ output, resume: options.resume ?? null, feedback: /^Feedback from the person: (.*)$/m.exec(String(prompt))?.[1] ?? null })}\n`,
      );
    // Its "Claude Code": a process that waits until it is killed. `sleep`, not a Node: a Node's
    // start costs ~200 ms of CPU, one per session (issue 41); what the runner does with it (records
    // its pid, kills it with the query) is the same.
    const child = options.spawnClaudeCodeProcess?.({
      command: SLEEP,
      args: ["120"],
      env: process.env,
      cwd: options.cwd,
      signal: signal ?? new AbortController().signal,
    });
    child?.on?.("error", () => {}); // as the real SDK does: an aborted spawn reports AbortError there
    try {
      yield { type: "system", subtype: "init", session_id };
      const delay = Number(process.env.FAKE_SDK_DELAY_MS ?? 0);
      const path = join(options.cwd, output);
      yield {
        type: "assistant",
        parent_tool_use_id: null,
        session_id,
        message: {
          id: `m-${sessions}-1`,
          content: [{ type: "tool_use", id: "t1", name: "Read", input: { file_path: path } }],
        },
      };
      await wait(delay, signal);
      if (process.env.FAKE_SDK_HANG && output.includes(process.env.FAKE_SDK_HANG) && !options.resume)
        await wait(600_000, signal);
      yield {
        type: "assistant",
        parent_tool_use_id: null,
        session_id,
        message: {
          id: `m-${sessions}-2`,
          content: [{ type: "tool_use", id: "t2", name: "Write", input: { file_path: path } }],
        },
      };
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, JSON.stringify(report(output, String(prompt)), null, 2));
      await wait(delay, signal);
      yield { type: "result", subtype: "success", session_id, result: `Wrote ${output}.` };
    } finally {
      child?.kill?.();
    }
  })();
  const account =
    process.env.FAKE_SDK_ACCOUNT === "logged-out"
      ? { tokenSource: "none", apiProvider: "firstParty" }
      : { apiKeySource: "ANTHROPIC_API_KEY", apiProvider: "firstParty" };
  return Object.assign(messages, { accountInfo: async () => account, close() {} });
}
