// Issue 42: the uncommitted-changes question reached Copilot CLI and Codex CLI as a failed command
// (the model ran `dotagent resume --json` to learn it: exit 5, a red ✗ and raw JSON on the
// person's screen). Now whoever hands the model a next step that is the person's question hands
// the question with it (`decision` beside `next`, with the words that count as an answer) and
// records it as asked: the hook's `dotagent next:` line after the person's pick, and the answer of
// the model's own `phase approve`. The person's reply then answers it; no command exits 5 first.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { dotagent, removeTemps, tempProject, writeJson } from "./support/cli.js";
import { typedPrompt } from "./support/typed-prompt.js";
import { git, ok } from "./support/worktree-project.js";

afterEach(removeTemps);

const AS_MODEL = { CLAUDECODE: "1" };
const helperOf = (p: string) => join(p, ".claude/skills/checkpoint/scripts/dotagent.mjs");

/** A git project, installed and committed, at the pick (designs and roundtable written), with the person's own uncommitted change. */
function atPickWithChange(): string {
  const p = tempProject();
  writeFileSync(join(p, "README.md"), "# app\n");
  git(p, "init", "-q", "-b", "main");
  ok(dotagent(p, ["install", "--json"], { env: { HOME: join(p, "home") } }));
  git(p, "add", "-A");
  git(p, "commit", "-qm", "initial");
  ok(dotagent(p, ["init", "--request", "add login", "--json"]));
  writeJson(p, "memory/reports/demand.json", { summary: "login" });
  ok(dotagent(p, ["phase", "approve", "REQUIREMENTS", "--json"]));
  mkdirSync(join(p, "memory/reports/designs"), { recursive: true });
  const tasks = [{ id: "task-001", title: "one", depends_on: [] }];
  for (const name of ["minimal", "robust"])
    writeJson(p, `memory/reports/designs/${name}.json`, { name, summary: name, tasks });
  writeJson(p, "memory/reports/roundtable.json", { recommendation: "minimal" });
  writeFileSync(join(p, "README.md"), "# app, edited by the person\n");
  expect(dotagent(p, ["status", "--json"]).json.next).toMatchObject({ gate: "pick_design" });
  return p;
}

function personSays(p: string, prompt: ReturnType<typeof typedPrompt>, env: Record<string, string> = {}): string {
  const r = dotagent(p, ["hook", "user-prompt-submit"], {
    input: JSON.stringify({ session_id: "s-1", cwd: p, ...prompt.input }),
    env: { CLAUDE_PID: String(process.pid), CLAUDE_PROJECT_DIR: p, ...env },
    script: helperOf(p),
  });
  expect(r.code).toBe(0);
  return r.stdout.trim() === "" ? "" : String(JSON.parse(r.stdout).hookSpecificOutput.additionalContext);
}

/** The JSON of the `dotagent next:` line a hook handed the model. */
function nextLine(context: string): Record<string, any> {
  const line = /dotagent next: (\{.*\})$/m.exec(context);
  expect(line, context).not.toBeNull();
  return JSON.parse(line![1]!) as Record<string, any>;
}

const asked = (p: string) =>
  dotagent(p, ["log", "--json"]).json.events.filter((e: { type: string }) => e.type === "decision_asked");

describe("the uncommitted-changes question is handed to the model with its words", () => {
  it("the person's pick: the hook's next line carries the question, recorded as asked; their yes answers it, no exit 5 on the way", () => {
    const p = atPickWithChange();
    const next = nextLine(personSays(p, typedPrompt("minimal")));
    expect(next.next).toMatchObject({ action: "confirm_isolation", checkout: "uncommitted" });
    expect(next.decision).toMatchObject({
      yes: "dotagent resume --isolation commit",
      no: "dotagent resume --isolation shared",
      default: false,
      answers: 'Reply "yes" or "no"; any other reply is not taken as an answer.',
    });
    expect(next.decision.question).toContain("The main checkout has uncommitted changes (README.md)");
    expect(next.decision.question).toContain("Commit them now (yes)");
    expect(asked(p)).toEqual([
      expect.objectContaining({ key: "isolation", yes: "dotagent resume --isolation commit" }),
    ]);
    // The person's yes, then the model runs the decision's yes: nothing else in between.
    personSays(p, typedPrompt("yes"));
    const commit = dotagent(p, ["resume", "--isolation", "commit", "--json"], { env: AS_MODEL });
    expect(commit.code, commit.stdout).toBe(0);
    expect(commit.json.next).toMatchObject({ action: "run_tasks", tasks: ["task-001"] });
    expect(git(p, "log", "-1", "--format=%s")).toContain("dotagent");
  });

  it("a pick Claude Code records after the hook: the question is in the next line at once, asked before the pick is carried out, and the yes still answers it", () => {
    const p = atPickWithChange();
    const typed = typedPrompt("minimal", { when: "later" });
    // No carrier (src/store/reply-carrier.ts) here: the model's command itself must carry the pick out.
    const next = nextLine(personSays(p, typed, { DOTAGENT_REPLY_CARRIER: "0" }));
    expect(next.decision.question).toContain("uncommitted changes (README.md)");
    typed.record();
    // The model's next step carries the pick out before its answer is checked (a reader would not;
    // a locked command does, even one refused for want of the person's yes).
    expect(dotagent(p, ["resume", "--isolation", "commit", "--json"], { env: AS_MODEL }).json.error).toMatchObject({
      code: "person_not_answered",
    });
    expect(dotagent(p, ["status", "--json"]).json).toMatchObject({
      phase: "IMPLEMENTATION",
      next: { action: "confirm_isolation" },
    });
    personSays(p, typedPrompt("yes"));
    expect(ok(dotagent(p, ["resume", "--isolation", "commit", "--json"], { env: AS_MODEL })).json.next).toMatchObject({
      action: "run_tasks",
    });
  });

  it("a session started while the person's pick waits for the client's record: the hook carries the pick out first, so the briefing hands the next question, not the pick again", () => {
    const p = atPickWithChange();
    const typed = typedPrompt("minimal", { when: "later" });
    // No carrier: only the session start can carry the pick out here.
    personSays(p, typed, { DOTAGENT_REPLY_CARRIER: "0" });
    expect(dotagent(p, ["status", "--json"]).json.next).toMatchObject({ gate: "pick_design" });
    typed.record();
    const started = dotagent(p, ["hook", "session-start"], {
      input: JSON.stringify({ session_id: "s-2", cwd: p, source: "resume" }),
      env: { CLAUDE_PROJECT_DIR: p },
      script: helperOf(p),
    });
    expect(started.code).toBe(0);
    const briefing = String(JSON.parse(started.stdout).hookSpecificOutput.additionalContext);
    expect(briefing).toContain("uncommitted changes (README.md)");
    expect(briefing).not.toContain("pick_design");
    expect(dotagent(p, ["status", "--json"]).json).toMatchObject({
      phase: "IMPLEMENTATION",
      next: { action: "confirm_isolation" },
    });
  });

  it("the model's own `phase approve ARCHITECTURE --pick` (a pick with notes): its answer carries the question (exit 0), recorded as asked", () => {
    const p = atPickWithChange();
    expect(personSays(p, typedPrompt("minimal, and keep it small"))).toBe("");
    const approved = dotagent(p, ["phase", "approve", "ARCHITECTURE", "--pick", "minimal", "--json"], {
      env: AS_MODEL,
    });
    expect(approved.code, approved.stdout).toBe(0);
    expect(approved.json.next).toMatchObject({ action: "confirm_isolation" });
    expect(approved.json.decision).toMatchObject({
      yes: "dotagent resume --isolation commit",
      answers: expect.stringContaining("yes"),
    });
    expect(asked(p)).toHaveLength(1);
    personSays(p, typedPrompt("no"));
    expect(ok(dotagent(p, ["resume", "--isolation", "shared", "--json"], { env: AS_MODEL })).json.next).toMatchObject({
      action: "run_tasks",
    });
  });

  it("a person at a terminal approving gets the question beside the next step too, and nothing is recorded as asked of a model", () => {
    const p = atPickWithChange();
    const approved = ok(dotagent(p, ["phase", "approve", "ARCHITECTURE", "--pick", "minimal", "--json"]));
    expect(approved.json.decision.question).toContain("README.md");
    expect(asked(p)).toEqual([]);
  });
});

/** A session starts (Claude Code's SessionStart, or Codex's with `--client codex`): its JSON answer. */
function sessionStarts(p: string, source: string, args: string[] = [], input: Record<string, unknown> = {}) {
  const r = dotagent(p, ["hook", "session-start", ...args], {
    input: JSON.stringify({ session_id: "s-2", cwd: p, hook_event_name: "SessionStart", source, ...input }),
    env: { CLAUDE_PID: String(process.pid), CLAUDE_PROJECT_DIR: p },
    script: helperOf(p),
  });
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as { systemMessage?: string; hookSpecificOutput: { additionalContext: string } };
}

describe("a session killed while the uncommitted-changes question is pending", () => {
  it("the question had been handed: the new session's briefing hands it again as the next step (no second record), the person's yes answers it, no exit 5 on the way", () => {
    const p = atPickWithChange();
    expect(nextLine(personSays(p, typedPrompt("minimal"))).next.action).toBe("confirm_isolation");
    // The session is killed before the model relays the question; the person runs `claude -r`.
    const started = sessionStarts(p, "resume");
    expect(started.systemMessage).toMatch(
      /^dotagent: workflow wf-add-login is open at IMPLEMENTATION\. It waits for your answer: The main checkout has uncommitted changes \(README\.md\)\..* Type yes or no\.$/,
    );
    const briefing = started.hookSpecificOutput.additionalContext;
    expect(briefing).toContain("A person must decide, and dotagent recorded the question as asked");
    expect(briefing).not.toContain("resume --json` and follow its next");
    const handed = nextLine(briefing);
    expect(handed.next).toMatchObject({ action: "confirm_isolation", checkout: "uncommitted" });
    expect(handed.decision).toMatchObject({
      yes: "dotagent resume --isolation commit",
      no: "dotagent resume --isolation shared",
      answers: 'Reply "yes" or "no"; any other reply is not taken as an answer.',
      question: expect.stringContaining("The main checkout has uncommitted changes (README.md)"),
    });
    expect(asked(p)).toHaveLength(1);
    // The person answers the question the model relayed; the model runs its yes: the first command it runs.
    personSays(p, typedPrompt("yes"));
    const commit = dotagent(p, ["resume", "--isolation", "commit", "--json"], { env: AS_MODEL });
    expect(commit.code, commit.stdout).toBe(0);
    expect(commit.json.next).toMatchObject({ action: "run_tasks", tasks: ["task-001"] });
  });

  it("the question was never handed (the approval came from the person's terminal): the new session records it as asked, so the person's first reply, a yes, answers it", () => {
    const p = atPickWithChange();
    ok(dotagent(p, ["phase", "approve", "ARCHITECTURE", "--pick", "minimal", "--json"]));
    expect(asked(p)).toEqual([]);
    const briefing = sessionStarts(p, "startup").hookSpecificOutput.additionalContext;
    expect(nextLine(briefing).decision.yes).toBe("dotagent resume --isolation commit");
    expect(asked(p)).toEqual([
      expect.objectContaining({ key: "isolation", yes: "dotagent resume --isolation commit" }),
    ]);
    // Started again (compaction, another start): asked once in the log.
    sessionStarts(p, "compact");
    expect(asked(p)).toHaveLength(1);
    // `resume --json` from the model's shell gives the same decision (exit 5, as ever), and records nothing more.
    const resumed = dotagent(p, ["resume", "--json"], { env: AS_MODEL });
    expect(resumed.code).toBe(5);
    expect(resumed.json.decision).toEqual(nextLine(briefing).decision);
    expect(asked(p)).toHaveLength(1);
    personSays(p, typedPrompt("no"));
    expect(ok(dotagent(p, ["resume", "--isolation", "shared", "--json"], { env: AS_MODEL })).json.next).toMatchObject({
      action: "run_tasks",
    });
  });

  it("Codex: the briefing's question is worded for the model's sandboxed shell (its rollout's sandbox policy)", () => {
    const p = atPickWithChange();
    ok(dotagent(p, ["phase", "approve", "ARCHITECTURE", "--pick", "minimal", "--json"]));
    const rollout = join(p, "home", "rollout.jsonl");
    mkdirSync(join(p, "home"), { recursive: true });
    writeFileSync(
      rollout,
      `${JSON.stringify({ type: "turn_context", payload: { sandbox_policy: { type: "workspace-write", network_access: false } } })}\n`,
    );
    const started = sessionStarts(p, "resume", ["--client", "codex"], { transcript_path: rollout });
    const handed = nextLine(started.hookSpecificOutput.additionalContext);
    expect(handed.decision.question).toContain(
      "this shell cannot write the repository's .git, a sandbox, so commit them yourself first",
    );
    expect(asked(p)).toHaveLength(1);
  });

  it("the lock held by a live command: the briefing names the question as before (run `resume --json`), nothing recorded", () => {
    const p = atPickWithChange();
    ok(dotagent(p, ["phase", "approve", "ARCHITECTURE", "--pick", "minimal", "--json"]));
    writeJson(p, "memory/state/.lock", {
      pid: process.pid,
      hostname: hostname(),
      acquired_at: new Date().toISOString(),
      command: "resume",
      token: "x",
    });
    const briefing = sessionStarts(p, "resume").hookSpecificOutput.additionalContext;
    expect(briefing).toContain("A person must decide: The main checkout has uncommitted changes (README.md)");
    expect(briefing).toMatch(/resume --json` and follow its next/);
    expect(briefing).not.toContain("dotagent next:");
    rmSync(join(p, "memory/state/.lock"));
    expect(asked(p)).toEqual([]);
  });

  it("nothing pending: the briefing ends as before and nothing is written", () => {
    const p = atPickWithChange();
    const before = dotagent(p, ["log", "--json"]).json.events.length;
    const briefing = sessionStarts(p, "resume").hookSpecificOutput.additionalContext;
    expect(briefing).toMatch(
      /\nContinue: the person types \/develop, or you run `node "[^"]+" resume --json` and follow its next; never redo completed phases or tasks\.$/,
    );
    expect(briefing).not.toContain("dotagent next:");
    expect(dotagent(p, ["log", "--json"]).json.events).toHaveLength(before);
  });
});
