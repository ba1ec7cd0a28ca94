// The person's gates stay theirs in Codex too (the built CLI, as Codex runs it; the real binary's
// journey is journey.test.ts): from a command Codex's model runs (CODEX_TOOL_CALL_ID set, no
// terminal) `phase approve` is refused until the person replied, also when Codex runs no hook
// (untrusted hooks are skipped silently); through `hook … --client codex` the approve line is
// denied, a sub-agent's first prompt is not the person's reply, `$develop` is not a reply either,
// and the person's "approve" is recorded with the next step.
import { afterEach, describe, expect, it } from "vitest";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { dotagent, readJson, removeTemps, tempProject } from "../support/cli.js";
import { clientHome, codexTyped } from "../support/typed-prompt.js";

afterEach(removeTemps);

const AS_CODEX_MODEL = { CODEX_TOOL_CALL_ID: "call_1", CLAUDECODE: "" };
const codexHome = (p: string) => clientHome("codex", p);
const DEMAND = { feature: "add login", user_stories: ["sign in"], acceptance: ["wrong password shows an error"] };

function atRequirementsGate(under?: string): { p: string; helper: string } {
  const p = under === undefined ? tempProject() : join(tempProject(), under);
  mkdirSync(p, { recursive: true });
  expect(dotagent(p, ["install", "--client", "codex", "--json"]).code).toBe(0);
  expect(dotagent(p, ["resume", "--json", "--start", "--request", "add login"]).code).toBe(0);
  mkdirSync(join(p, "memory/reports"), { recursive: true });
  writeFileSync(join(p, "memory/reports/demand.json"), JSON.stringify(DEMAND));
  expect(dotagent(p, ["status", "--json"]).json).toMatchObject({
    next: { action: "await_approval", gate: "approve_requirements" },
  });
  return { p, helper: join(p, ".agents/skills/checkpoint/scripts/dotagent.mjs") };
}

/** A Codex hook: its stdin as Codex 0.169.0 writes it (test/codex/NOTES.md). */
function hook(p: string, helper: string, event: string, input: Record<string, unknown>) {
  // The person's prompt as Codex records it (the thread's rollout): what dotagent checks a reply against.
  const typed =
    event === "user-prompt-submit" && input.agent_id === undefined
      ? codexTyped(codexHome(p), String(input.prompt ?? ""))
      : {};
  const r = dotagent(p, ["hook", event, "--client", "codex"], {
    input: JSON.stringify({
      session_id: "s-1",
      transcript_path: join(p, "rollout.jsonl"),
      cwd: p,
      model: "scripted",
      permission_mode: "bypassPermissions",
      ...typed,
      ...input,
    }),
    env: { CODEX_HOME: codexHome(p) },
    script: helper,
  });
  expect(r.code).toBe(0);
  return r.stdout.trim() === ""
    ? null
    : (JSON.parse(r.stdout) as {
        hookSpecificOutput: {
          permissionDecision?: string;
          permissionDecisionReason?: string;
          additionalContext?: string;
        };
      });
}
const replies = (p: string) =>
  dotagent(p, ["log", "--json"]).json.events.filter((e: { type: string }) => e.type === "person_replied");

describe("the person's gates in Codex", () => {
  it("the model's `phase approve` is refused by the CLI itself (no hook needed) and denied by the PreToolUse hook", () => {
    const { p, helper } = atRequirementsGate();
    const cli = dotagent(p, ["phase", "approve", "REQUIREMENTS", "--json"], { env: AS_CODEX_MODEL });
    expect(cli.code).toBe(1);
    expect(cli.json.error).toMatchObject({ code: "person_not_answered", phase: "REQUIREMENTS" });
    const denied = hook(p, helper, "pre-tool-use", {
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: `node "${helper}" phase approve REQUIREMENTS --json` },
      tool_use_id: "call_2",
    });
    expect(denied?.hookSpecificOutput).toMatchObject({
      permissionDecision: "deny",
      permissionDecisionReason: expect.stringContaining("the person has not answered the REQUIREMENTS gate yet"),
    });
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({
      current_phase: "REQUIREMENTS",
      user_checkpoints: [],
    });
  });

  it("a sub-agent's first prompt and `$develop` are not the person's reply; the person's `approve` is, with the next step", () => {
    const { p, helper } = atRequirementsGate();
    expect(
      hook(p, helper, "user-prompt-submit", {
        hook_event_name: "UserPromptSubmit",
        agent_id: "a-1",
        agent_type: "pm",
        prompt: "approve",
      }),
    ).toBeNull();
    expect(
      hook(p, helper, "user-prompt-submit", { hook_event_name: "UserPromptSubmit", prompt: "$develop approve" }),
    ).toBeNull();
    expect(replies(p)).toEqual([]);
    const said = hook(p, helper, "user-prompt-submit", { hook_event_name: "UserPromptSubmit", prompt: "approve" });
    expect(said?.hookSpecificOutput.additionalContext).toMatch(
      /dotagent recorded: the person approved REQUIREMENTS[\s\S]*dotagent next: \{/,
    );
    expect(replies(p)).toEqual([expect.objectContaining({ phase: "REQUIREMENTS", gate: "approve_requirements" })]);
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({ current_phase: "ARCHITECTURE" });
  });

  it("the model's shell writing memory/state/ is denied (Bash and apply_patch)", () => {
    const { p, helper } = atRequirementsGate();
    const bash = hook(p, helper, "pre-tool-use", {
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "echo {} > memory/state/phase.json" },
    });
    expect(bash?.hookSpecificOutput.permissionDecision).toBe("deny");
    const patch = hook(p, helper, "pre-tool-use", {
      hook_event_name: "PreToolUse",
      tool_name: "apply_patch",
      tool_input: {
        command: "*** Begin Patch\n*** Update File: memory/state/execution.json\n@@\n-a\n+b\n*** End Patch\n",
      },
    });
    expect(patch?.hookSpecificOutput.permissionDecision).toBe("deny");
    const fine = hook(p, helper, "pre-tool-use", {
      hook_event_name: "PreToolUse",
      tool_name: "apply_patch",
      tool_input: { command: "*** Begin Patch\n*** Add File: src/login.ts\n+x\n*** End Patch\n" },
    });
    expect(fine).toBeNull();
  });

  it("a spawn with fields /develop does not give (a forked context) is refused, and no start recorded", () => {
    const { p, helper } = atRequirementsGate();
    const r = hook(p, helper, "pre-tool-use", {
      hook_event_name: "PreToolUse",
      tool_name: "spawn_agent",
      tool_input: {
        agent_type: "architect",
        message: "Feature request: add login\nPhase: ARCHITECTURE\nOutput file: memory/reports/designs/minimal.json",
        fork_context: true,
      },
    });
    expect(r?.hookSpecificOutput).toMatchObject({
      permissionDecision: "deny",
      permissionDecisionReason: expect.stringContaining("fork_context"),
    });
    expect(
      dotagent(p, ["log", "--json"]).json.events.filter(
        (e: { type: string }) => e.type === "agent_started" && (e as { agent?: string }).agent === "architect",
      ),
    ).toEqual([]);
  });

  it("an executor whose task has a worktree (its lines from dotagent's hook, in its rollout) may not patch the main checkout", () => {
    const { p, helper } = atRequirementsGate();
    const worktree = join(p, ".dotagent/worktrees/task-001");
    const prompt =
      "Feature request: add login\nPhase: IMPLEMENTATION\nTask: task-001\nTitle: t\nOutput file: memory/reports/tasks/task-001.json";
    const lines = `dotagent: Codex could not add dotagent's lines to your prompt; they belong to it:\nWorktree: ${worktree}\nBranch: b\nReport file: ${join(p, "memory/reports/tasks/task-001.json")}`;
    const entry = (role: string, text: string) =>
      JSON.stringify({
        type: "response_item",
        payload: { type: "message", role, content: [{ type: "input_text", text }] },
      });
    const rollout = join(p, "agent-rollout.jsonl");
    writeFileSync(
      rollout,
      [
        entry("user", "<environment_context>\n</environment_context>"),
        entry("user", prompt),
        entry("developer", lines),
      ].join("\n") + "\n",
    );
    const patch = (file: string) =>
      hook(p, helper, "pre-tool-use", {
        hook_event_name: "PreToolUse",
        agent_id: "a-1",
        agent_type: "executor",
        transcript_path: rollout,
        tool_name: "apply_patch",
        tool_input: { command: `*** Begin Patch\n*** Add File: ${file}\n+x\n*** End Patch\n` },
      });
    expect(patch("src/login.ts")?.hookSpecificOutput).toMatchObject({
      permissionDecision: "deny",
      permissionDecisionReason: expect.stringContaining(`your task works in its own worktree, ${worktree}`),
    });
    expect(patch(join(worktree, "src/login.ts"))).toBeNull();
  });

  it("briefs a resumed Codex session with `$develop`, the way the person invokes the skill there", () => {
    const { p, helper } = atRequirementsGate();
    const r = dotagent(p, ["hook", "session-start", "--client", "codex"], {
      input: JSON.stringify({ session_id: "s-1", cwd: p, hook_event_name: "SessionStart", source: "resume" }),
      script: helper,
    });
    const text = (JSON.parse(r.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput
      .additionalContext;
    expect(text).toContain("workflow wf-add-login is open");
    expect(text).toContain("the person types $develop");
    expect(text).not.toMatch(/(^|[^$\w])\/develop/);
  });

  it("tells the person one line at startup and resume (`systemMessage`, shown as `↳ Hook · …`), none after compaction", () => {
    const { p, helper } = atRequirementsGate();
    const start = (source: string) => {
      const r = dotagent(p, ["hook", "session-start", "--client", "codex"], {
        input: JSON.stringify({ session_id: "s-1", cwd: p, hook_event_name: "SessionStart", source }),
        script: helper,
      });
      expect(r.code).toBe(0);
      return JSON.parse(r.stdout) as { systemMessage?: string; hookSpecificOutput: { additionalContext: string } };
    };
    const line =
      "dotagent: workflow wf-add-login is open at REQUIREMENTS. It waits for your approval of memory/reports/demand.json: type approve, or what should change.";
    expect(start("resume").systemMessage).toBe(line);
    expect(start("startup").systemMessage).toBe(line);
    expect(start("compact").systemMessage).toBeUndefined();
    expect(start("compact").hookSpecificOutput.additionalContext).toContain("workflow wf-add-login is open");
    // What to type names the skill as Codex's person types it.
    const fresh = tempProject();
    expect(dotagent(fresh, ["install", "--client", "codex", "--json"]).code).toBe(0);
    expect(dotagent(fresh, ["resume", "--json", "--start", "--request", "add login"]).code).toBe(0);
    const r = dotagent(fresh, ["hook", "session-start", "--client", "codex"], {
      input: JSON.stringify({ session_id: "s-1", cwd: fresh, hook_event_name: "SessionStart", source: "resume" }),
      script: join(fresh, ".agents/skills/checkpoint/scripts/dotagent.mjs"),
    });
    expect(JSON.parse(r.stdout).systemMessage).toBe(
      "dotagent: workflow wf-add-login is open at REQUIREMENTS. Typing continue (or $develop) goes on from there.",
    );
  });

  it("leaves a project path that holds /develop as it is (the helper line still runs)", () => {
    const { p, helper } = atRequirementsGate("develop/app");
    const r = dotagent(p, ["hook", "session-start", "--client", "codex"], {
      input: JSON.stringify({ session_id: "s-1", cwd: p, hook_event_name: "SessionStart", source: "resume" }),
      script: helper,
    });
    const text = (JSON.parse(r.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput
      .additionalContext;
    expect(text).toContain(`node "${helper}" resume --json`);
    expect(text).toContain("the person types $develop");
  });
});
