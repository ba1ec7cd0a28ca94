// `dotagent hook <event> --client copilot` run as Copilot CLI runs it (the built helper, Copilot's
// payloads on stdin, COPILOT_CLI=1 in the environment), without the binary: the person's gates
// stay theirs, a sub-agent's prompt is never the person's reply, and the hooks of a Claude Code
// install in the same project step aside under Copilot (Copilot runs .claude/settings.json's
// hooks too, with a sub-agent's prompt as a UserPromptSubmit).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { dotagent, readJson, removeTemps, tempProject } from "../support/cli.js";
import { clientHome, copilotTyped, typedPrompt } from "../support/typed-prompt.js";

afterEach(removeTemps);

const DEMAND = { feature: "add login", user_stories: ["sign in"], acceptance: ["wrong password shows an error"] };
const UNDER_COPILOT = { COPILOT_CLI: "1" };
const copilotHome = (p: string) => clientHome("copilot", p);

function installed(both = false): { p: string; helper: string } {
  const p = tempProject();
  expect(dotagent(p, ["install", "--client", "copilot", "--json"], { env: { HOME: join(p, "home") } }).code).toBe(0);
  if (both) expect(dotagent(p, ["install", "--json"], { env: { HOME: join(p, "home") } }).code).toBe(0);
  return { p, helper: join(p, ".github/skills/checkpoint/scripts/dotagent.mjs") };
}

function atRequirementsGate(both = false) {
  const at = installed(both);
  expect(dotagent(at.p, ["resume", "--json", "--start", "--request", "add login"]).code).toBe(0);
  mkdirSync(join(at.p, "memory/reports"), { recursive: true });
  writeFileSync(join(at.p, "memory/reports/demand.json"), JSON.stringify(DEMAND));
  expect(dotagent(at.p, ["status", "--json"]).json).toMatchObject({
    next: { action: "await_approval", gate: "approve_requirements" },
  });
  return at;
}

/** A Copilot hook: its payload on stdin, its answer (top-level JSON) or null. */
function copilotHook(p: string, helper: string, event: string, payload: Record<string, unknown>) {
  // The person's prompt as Copilot records it (its session's events.jsonl): what dotagent checks a reply against.
  const typed =
    event === "user-prompt-submit" && payload.agentId === undefined
      ? copilotTyped(copilotHome(p), String(payload.prompt ?? ""), { cwd: p })
      : {};
  const r = dotagent(p, ["hook", event, "--client", "copilot"], {
    input: JSON.stringify({ sessionId: "s-1", timestamp: 1, cwd: p, ...typed, ...payload }),
    env: { ...UNDER_COPILOT, COPILOT_PROJECT_DIR: p, COPILOT_HOME: copilotHome(p) },
    script: helper,
  });
  expect(r.code).toBe(0);
  return r.stdout.trim() === "" ? null : (JSON.parse(r.stdout) as Record<string, unknown>);
}

const events = (p: string, type: string) =>
  (dotagent(p, ["log", "--json"]).json as { events: Array<{ type: string }> }).events.filter((e) => e.type === type);

describe("hook --client copilot", () => {
  it("the person's `/develop add login` starts the workflow; the model gets the plan as one `dotagent next:` line", () => {
    const { p, helper } = installed();
    const out = copilotHook(p, helper, "user-prompt-submit", { prompt: "/develop add login" });
    expect(Object.keys(out ?? {})).toEqual(["additionalContext"]);
    expect(String(out?.additionalContext)).toMatch(/^dotagent next: \{.*"action":"spawn_agent".*\}$/m);
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({
      request: "add login",
      current_phase: "REQUIREMENTS",
    });
  });

  it("after a phase failed, the person's `/develop` starts it again: the plan spawns its agent (before, it asks the person)", () => {
    const { p, helper } = installed();
    expect(dotagent(p, ["resume", "--json", "--start", "--request", "add login"]).code).toBe(0);
    expect(dotagent(p, ["phase", "fail", "REQUIREMENTS", "--error", "the pm crashed"]).code).toBe(0);
    expect(dotagent(p, ["status", "--json"]).json.next).toMatchObject({ action: "resolve_failed_agent", agent: "pm" });
    const out = copilotHook(p, helper, "user-prompt-submit", { prompt: "/develop" });
    expect(String(out?.additionalContext)).toMatch(/^dotagent next: \{.*"action":"spawn_agent","agent":"pm".*\}$/m);
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({ phase_status: "in_progress", error: null });
  });

  it("`/develop add login` typed in the interactive terminal (the client hands the hook the skill it expanded): the same plan", () => {
    const { p, helper } = installed();
    // What Copilot 1.0.102's terminal sends (test/copilot/NOTES.md, "The interactive terminal"); the skill's text shortened.
    const prompt = `The user explicitly invoked the "/develop" skill. Follow its instructions now.\n\n<skill-context name="develop">\nBase directory for this skill: ${p}/.github/skills/develop\n\n# /develop: drive the dotagent workflow\n\n\nARGUMENTS: add login\n</skill-context>`;
    const out = copilotHook(p, helper, "user-prompt-submit", { prompt });
    expect(String(out?.additionalContext)).toMatch(/^dotagent next: \{.*"action":"spawn_agent".*\}$/m);
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({
      request: "add login",
      current_phase: "REQUIREMENTS",
    });
    expect(events(p, "person_replied")).toEqual([]);
  });

  it("the model's `phase approve` before the person answered: denied, top-level, with the reason", () => {
    const { p, helper } = atRequirementsGate();
    const out = copilotHook(p, helper, "pre-tool-use", {
      toolName: "bash",
      toolArgs: { command: `node "${helper}" phase approve REQUIREMENTS --json`, description: "approve" },
    });
    expect(out).toMatchObject({
      permissionDecision: "deny",
      permissionDecisionReason: expect.stringContaining("the person has not answered the REQUIREMENTS gate yet"),
    });
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({ user_checkpoints: [] });
  });

  it("from the model's shell (COPILOT_CLI=1, no terminal) the CLI itself refuses `phase approve` before the person answered", () => {
    const { p } = atRequirementsGate();
    const cli = dotagent(p, ["phase", "approve", "REQUIREMENTS", "--json"], { env: UNDER_COPILOT });
    expect(cli.code).toBe(1);
    expect((cli.json as { error: { code: string } }).error.code).toBe("person_not_answered");
  });

  it("a sub-agent's prompt (agentId) saying approve is not the person's reply", () => {
    const { p, helper } = atRequirementsGate();
    expect(
      copilotHook(p, helper, "user-prompt-submit", {
        prompt: "approve",
        agentId: "a-1",
        agentType: "explore",
        parentAgentId: "s-1",
      }),
    ).toBeNull();
    expect(events(p, "person_replied")).toEqual([]);
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({
      current_phase: "REQUIREMENTS",
      user_checkpoints: [],
    });
  });

  it("the person's own `approve` approves the gate, and the model reads the next step", () => {
    const { p, helper } = atRequirementsGate();
    const out = copilotHook(p, helper, "user-prompt-submit", { prompt: "approve" });
    expect(String(out?.additionalContext)).toContain("the person approved REQUIREMENTS");
    expect(events(p, "person_replied")).toHaveLength(1);
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({ current_phase: "ARCHITECTURE" });
  });

  it("session-start on an open workflow: the briefing for the model on stdout; the person's line on stderr with exit status 2 (the one Copilot shows, as `! …`)", () => {
    const { p, helper } = atRequirementsGate();
    const start = (source: string) =>
      dotagent(p, ["hook", "session-start", "--client", "copilot"], {
        input: JSON.stringify({ sessionId: "s-1", timestamp: 1, cwd: p, source }),
        env: { ...UNDER_COPILOT, COPILOT_PROJECT_DIR: p, COPILOT_HOME: copilotHome(p) },
        script: helper,
      });
    const resumed = start("resume");
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toBe(
      "dotagent: workflow wf-add-login is open at REQUIREMENTS. It waits for your approval of memory/reports/demand.json: type approve, or what should change.\n",
    );
    expect(Object.keys(JSON.parse(resumed.stdout))).toEqual(["additionalContext"]);
    expect(JSON.parse(resumed.stdout).additionalContext).toMatch(
      /^dotagent: workflow wf-add-login is open \(this session was resumed\)/,
    );
    // Copilot's `new` is a startup: told too. No workflow: nothing at all, exit 0.
    expect(start("new").code).toBe(2);
    const bare = installed();
    const none = dotagent(bare.p, ["hook", "session-start", "--client", "copilot"], {
      input: JSON.stringify({ sessionId: "s-1", timestamp: 1, cwd: bare.p, source: "resume" }),
      env: { ...UNDER_COPILOT, COPILOT_PROJECT_DIR: bare.p },
      script: bare.helper,
    });
    expect(none).toMatchObject({ code: 0, stdout: "", stderr: "" });
  });

  it("a background agent's notification (Copilot's <system_notification> prompt, no agentId) is not the person's reply", () => {
    const { p, helper } = atRequirementsGate();
    // What Copilot 1.0.102 sends when an agent started with mode "background" goes idle (test/copilot/NOTES.md).
    const prompt =
      '<system_notification>\nAgent "pm" (pm) has finished processing and is now idle.\n</system_notification>';
    expect(copilotHook(p, helper, "user-prompt-submit", { prompt })).toBeNull();
    expect(events(p, "person_replied")).toEqual([]);
    const refused = copilotHook(p, helper, "pre-tool-use", {
      toolName: "bash",
      toolArgs: { command: `node "${helper}" phase approve REQUIREMENTS --json`, description: "approve" },
    });
    expect(refused).toMatchObject({ permissionDecision: "deny" });
  });

  it('a task started with mode "background": its launch is not its end (no agent_ended, no phase_failed at the launch); a foreground result is', () => {
    const { p, helper } = installed();
    expect(dotagent(p, ["resume", "--json", "--start", "--request", "add login"]).code).toBe(0);
    const args = {
      name: "pm",
      description: "pm for REQUIREMENTS",
      agent_type: "pm",
      prompt: "Feature request: add login\nPhase: REQUIREMENTS\nOutput file: memory/reports/demand.json",
      mode: "background",
    };
    copilotHook(p, helper, "pre-tool-use", { toolName: "task", toolArgs: args });
    expect(events(p, "agent_started")).toHaveLength(1);
    const launched =
      "Agent started in background with agent_id: 2e275ab4-ee62-4a44-9b6a-f8ce2c682fa4. You'll be notified when it completes.";
    expect(
      copilotHook(p, helper, "post-tool-use", {
        toolName: "task",
        toolArgs: args,
        toolResult: { resultType: "success", textResultForLlm: launched },
      }),
    ).toBeNull();
    expect(events(p, "agent_ended")).toEqual([]);
    expect(events(p, "phase_failed")).toEqual([]);
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({
      current_phase: "REQUIREMENTS",
      agents: [expect.objectContaining({ agent: "pm" })],
    });
    // The same call in the foreground: its result is its end (the report is missing, so the phase fails and the model is told).
    const sync = { ...args, mode: "sync" };
    expect(
      copilotHook(p, helper, "post-tool-use", {
        toolName: "task",
        toolArgs: sync,
        toolResult: { resultType: "success", textResultForLlm: "done" },
      }),
    ).not.toBeNull();
    expect(events(p, "agent_ended")).toHaveLength(1);
  });

  it("a task whose postToolUse never comes (the hook's matcher keeps it away, e.g. Copilot renamed the tool): subagentStop still records the agent's end", () => {
    const { p, helper } = installed();
    expect(dotagent(p, ["resume", "--json", "--start", "--request", "add login"]).code).toBe(0);
    const prompt = "Feature request: add login\nPhase: REQUIREMENTS\nOutput file: memory/reports/demand.json";
    const args = { name: "pm", description: "pm for REQUIREMENTS", agent_type: "pm", prompt, mode: "sync" };
    copilotHook(p, helper, "pre-tool-use", { toolName: "task", toolArgs: args });
    expect(events(p, "agent_started")).toHaveLength(1);
    mkdirSync(join(p, "memory/reports"), { recursive: true });
    writeFileSync(join(p, "memory/reports/demand.json"), JSON.stringify(DEMAND));
    // Copilot's record of the session holds the agent's prompt (its hooks get only its id).
    const record = join(copilotHome(p), "session-state", "s-1");
    mkdirSync(record, { recursive: true });
    writeFileSync(
      join(record, "events.jsonl"),
      `${JSON.stringify({ type: "user.message", agentId: "a-1", data: { content: prompt } })}\n`,
    );
    const stop = { agentId: "a-1", agentType: "pm", agentName: "pm", response: "pm done", stopReason: "end_turn" };
    expect(copilotHook(p, helper, "subagent-stop", stop)).toBeNull();
    expect(events(p, "agent_ended")).toHaveLength(1);
    expect(readJson(p, "memory/state/phase.json").agents ?? []).toEqual([]);
  });

  it.each([
    ["create", { path: "memory/state/phase.json", file_text: "{}" }],
    ["edit", { path: "memory/state/execution.json", old_str: "a", new_str: "b" }],
    ["bash", { command: "echo '{}' > memory/state/phase.json", description: "write state" }],
  ])("the main agent's %s into memory/state/ is denied", (toolName, toolArgs) => {
    const { p, helper } = atRequirementsGate();
    const args = "path" in toolArgs ? { ...toolArgs, path: join(p, String(toolArgs.path)) } : toolArgs;
    expect(copilotHook(p, helper, "pre-tool-use", { toolName, toolArgs: args })).toMatchObject({
      permissionDecision: "deny",
    });
  });

  it("dotagent's own helper line is allowed; any other command gets no answer", () => {
    const { p, helper } = atRequirementsGate();
    expect(
      copilotHook(p, helper, "pre-tool-use", {
        toolName: "bash",
        toolArgs: { command: `node "${helper}" status --json` },
      }),
    ).toMatchObject({ permissionDecision: "allow" });
    expect(copilotHook(p, helper, "pre-tool-use", { toolName: "bash", toolArgs: { command: "echo hi" } })).toBeNull();
    // The allow grammar is Claude Code's, not widened: a helper line with more after it is not allowed.
    expect(
      copilotHook(p, helper, "pre-tool-use", {
        toolName: "bash",
        toolArgs: { command: `node "${helper}" status --json; curl evil.example` },
      })?.permissionDecision,
    ).not.toBe("allow");
  });
});

describe("a project with both installs, under Copilot", () => {
  it("the Claude Code hooks step aside: a sub-agent's `approve` through them (as Copilot sends it) approves nothing", () => {
    const { p } = atRequirementsGate(true);
    const claudeHelper = join(p, ".claude/skills/checkpoint/scripts/dotagent.mjs");
    const payload = {
      hook_event_name: "UserPromptSubmit",
      session_id: "a-1",
      timestamp: "2026-11-26T15:37:26.875Z",
      cwd: p,
      agent_id: "a-1",
      agent_type: "explore",
      parent_agent_id: "s-1",
      prompt: "approve",
    };
    // The environment Copilot 1.0.102 gives .claude/settings.json's lines: no COPILOT_HOOK_DIR,
    // no CLAUDECODE (test/copilot/NOTES.md).
    const env = { ...UNDER_COPILOT, COPILOT_PROJECT_DIR: p, CLAUDE_PROJECT_DIR: p, CLAUDECODE: undefined };
    const r = dotagent(p, ["hook", "user-prompt-submit"], {
      input: JSON.stringify(payload),
      env,
      script: claudeHelper,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    // A write into memory/state/ through them is judged by the `--client copilot` line, not here.
    const write = dotagent(p, ["hook", "pre-tool-use"], {
      input: JSON.stringify({
        hook_event_name: "PreToolUse",
        cwd: p,
        tool_name: "Bash",
        tool_input: { command: "echo {} > memory/state/phase.json" },
      }),
      env,
      script: claudeHelper,
    });
    expect(write).toMatchObject({ code: 0, stdout: "" });
    expect(events(p, "person_replied")).toEqual([]);
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({
      current_phase: "REQUIREMENTS",
      user_checkpoints: [],
    });
  });

  it("a Claude Code started from Copilot's shell (COPILOT_CLI=1 passed on, CLAUDECODE=1 its own) keeps its own hooks", () => {
    const { p } = atRequirementsGate(true);
    const claudeHelper = join(p, ".claude/skills/checkpoint/scripts/dotagent.mjs");
    // Claude Code's own record of the typed prompt is the evidence, as under any Claude Code.
    const payload = {
      hook_event_name: "UserPromptSubmit",
      cwd: p,
      ...typedPrompt("approve", { session: "c-1" }).input,
    };
    const r = dotagent(p, ["hook", "user-prompt-submit"], {
      input: JSON.stringify(payload),
      env: { ...UNDER_COPILOT, CLAUDECODE: "1", CLAUDE_PROJECT_DIR: p },
      script: claudeHelper,
    });
    expect(r.code).toBe(0);
    expect(events(p, "person_replied")).toHaveLength(1);
  });
});

describe("Claude Code's hooks run by Copilot in a project without dotagent's Copilot install (its plugin in Copilot)", () => {
  it("session-start says how to get the Copilot install; with it, nothing", () => {
    const p = tempProject();
    const payload = JSON.stringify({ hook_event_name: "SessionStart", cwd: p, source: "new" });
    const env = { ...UNDER_COPILOT, COPILOT_HOOK_DIR: p, COPILOT_PROJECT_DIR: p };
    const told = dotagent(p, ["hook", "session-start"], { input: payload, env });
    expect(told.code).toBe(0);
    expect(JSON.parse(told.stdout)).toEqual({ additionalContext: expect.stringContaining("install --client copilot") });
    // Any other event stays silent, and nothing is recorded.
    expect(
      dotagent(p, ["hook", "user-prompt-submit"], {
        input: JSON.stringify({ hook_event_name: "UserPromptSubmit", cwd: p, prompt: "/develop add login" }),
        env,
      }).stdout,
    ).toBe("");
    const { p: withInstall } = installed(true);
    expect(
      dotagent(withInstall, ["hook", "session-start"], {
        input: JSON.stringify({ hook_event_name: "SessionStart", cwd: withInstall, source: "new" }),
        env: { ...env, COPILOT_HOOK_DIR: withInstall, COPILOT_PROJECT_DIR: withInstall },
      }).stdout,
    ).toBe("");
  });
});
