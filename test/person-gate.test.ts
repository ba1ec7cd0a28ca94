// The person's gates stay theirs (issue 29, case 1): from an agent's shell in Claude Code
// (CLAUDECODE=1, no terminal), `phase approve` of a gate is refused until the person has replied
// after the gate's question was put, whether the line comes through dotagent's allow hook or in a
// form the hook does not know. The UserPromptSubmit hook records the person's reply.
import { afterEach, describe, expect, it } from "vitest";
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { CLI, dotagent, readJson, removeTemps, tempProject } from "./support/cli.js";
import { copyOfTemplate } from "./support/template.js";
import { typedPrompt } from "./support/typed-prompt.js";

afterEach(removeTemps);

const AS_MODEL = { CLAUDECODE: "1" };
const DEMAND = { feature: "add login", user_stories: ["sign in"], acceptance: ["wrong password shows an error"] };

const helperOf = (p: string) => join(p, ".claude/skills/checkpoint/scripts/dotagent.mjs");

/** Installed, a workflow started at REQUIREMENTS (no gate open yet): made once per file, a copy per test. */
function started(): string {
  return copyOfTemplate("started", (p) => {
    expect(dotagent(p, ["install", "--json"], { env: { HOME: join(p, "home") } }).code).toBe(0);
    expect(dotagent(p, ["resume", "--json", "--start", "--request", "add login"]).code).toBe(0);
  });
}

/** The demand written, the REQUIREMENTS gate open, nobody answered: made once per file (no record sealed with the checkout's key), a copy per test. */
function atRequirementsGate(): { p: string; helper: string } {
  const p = copyOfTemplate("atRequirementsGate", (dir) => {
    cpSync(started(), dir, { recursive: true });
    mkdirSync(join(dir, "memory/reports"), { recursive: true });
    writeFileSync(join(dir, "memory/reports/demand.json"), JSON.stringify(DEMAND));
    expect(dotagent(dir, ["status", "--json"]).json).toMatchObject({
      next: { action: "await_approval", gate: "approve_requirements" },
    });
  });
  return { p, helper: helperOf(p) };
}

function hook(p: string, helper: string, event: string, input: Record<string, unknown>) {
  const r = dotagent(p, ["hook", event], {
    input: JSON.stringify({ session_id: "s-1", cwd: p, ...input }),
    env: { CLAUDE_PID: String(process.pid), CLAUDE_PROJECT_DIR: p },
    script: helper,
  });
  expect(r.code).toBe(0);
  return r.stdout.trim() === ""
    ? null
    : (JSON.parse(r.stdout) as {
        hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string };
      });
}

const approveLine = (helper: string, phase: string) => ({
  hook_event_name: "PreToolUse",
  tool_name: "Bash",
  tool_input: { command: `node "${helper}" phase approve ${phase} --json` },
});
// The person types it: Claude Code's transcript records the prompt as typed (test/support/typed-prompt.ts).
const personSays = (p: string, helper: string, prompt: string) =>
  hook(p, helper, "user-prompt-submit", typedPrompt(prompt).input);
const replies = (p: string) =>
  dotagent(p, ["log", "--json"]).json.events.filter((e: { type: string }) => e.type === "person_replied");

describe("approving a gate before the person answered", () => {
  it("the model's `phase approve REQUIREMENTS`: refused through the CLI (exit 1) and denied by the hook, with what to do", () => {
    const { p, helper } = atRequirementsGate();
    const cli = dotagent(p, ["phase", "approve", "REQUIREMENTS", "--json"], { env: AS_MODEL });
    expect(cli.code).toBe(1);
    expect(cli.json.error).toMatchObject({ code: "person_not_answered", phase: "REQUIREMENTS" });
    expect(cli.json.error.message).toContain("show memory/reports/demand.json");
    expect(hook(p, helper, "pre-tool-use", approveLine(helper, "REQUIREMENTS"))?.hookSpecificOutput).toMatchObject({
      permissionDecision: "deny",
      permissionDecisionReason: expect.stringContaining("the person has not answered the REQUIREMENTS gate yet"),
    });
    // Without the phase named, the current one.
    expect(
      hook(p, helper, "pre-tool-use", {
        ...approveLine(helper, ""),
        tool_input: { command: `node "${helper}" phase approve --json` },
      })?.hookSpecificOutput.permissionDecision,
    ).toBe("deny");
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({
      current_phase: "REQUIREMENTS",
      user_checkpoints: [],
    });
  });

  it("after the person's reply at the gate: allowed by the hook and accepted by the CLI", () => {
    const { p, helper } = atRequirementsGate();
    expect(personSays(p, helper, "looks good, approve")).toBeNull();
    expect(replies(p)).toEqual([expect.objectContaining({ phase: "REQUIREMENTS", gate: "approve_requirements" })]);
    expect(
      hook(p, helper, "pre-tool-use", approveLine(helper, "REQUIREMENTS"))?.hookSpecificOutput.permissionDecision,
    ).toBe("allow");
    const cli = dotagent(p, ["phase", "approve", "REQUIREMENTS", "--json"], { env: AS_MODEL });
    expect(cli.code).toBe(0);
    expect(cli.json).toMatchObject({ phase: "ARCHITECTURE" });
  });

  it('the person said no ("no, add remember-me"): the model\'s approval is refused by the hook and the CLI, told to do what they asked; their next reply lets it through', () => {
    const { p, helper } = atRequirementsGate();
    expect(personSays(p, helper, "no, add remember-me")).toBeNull();
    expect(replies(p)).toEqual([expect.objectContaining({ phase: "REQUIREMENTS", declined: true })]);
    const denied = hook(p, helper, "pre-tool-use", approveLine(helper, "REQUIREMENTS"))?.hookSpecificOutput;
    expect(denied).toMatchObject({
      permissionDecision: "deny",
      permissionDecisionReason:
        "dotagent: the person said no at the REQUIREMENTS gate: do what they asked (spawn pm again with their feedback, then show memory/reports/demand.json again) and ask again; dotagent records their next answer",
    });
    const cli = dotagent(p, ["phase", "approve", "REQUIREMENTS", "--json"], { env: AS_MODEL });
    expect([cli.code, cli.json.error.code, cli.json.error.declined]).toEqual([1, "person_not_answered", true]);
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({ user_checkpoints: [] });
    // Asked again (the same demand, say), the person now agrees in their own words.
    expect(personSays(p, helper, "fine, it can wait for later: approve it")).toBeNull();
    expect(dotagent(p, ["phase", "approve", "REQUIREMENTS", "--json"], { env: AS_MODEL }).code).toBe(0);
  });

  it("an agent's notification is not the person's reply", () => {
    const { p, helper } = atRequirementsGate();
    personSays(p, helper, "<task-notification><task-id>a1</task-id><status>completed</status></task-notification>");
    personSays(p, helper, '<agent-message from="a1">done</agent-message>');
    expect(replies(p)).toEqual([]);
    expect(dotagent(p, ["phase", "approve", "REQUIREMENTS", "--json"], { env: AS_MODEL }).code).toBe(1);
  });

  it("/develop at the gate asks to go on, it is no reply", () => {
    const { p, helper } = atRequirementsGate();
    personSays(p, helper, "/develop");
    personSays(p, helper, "  /dotagent:develop continue");
    expect(replies(p)).toEqual([]);
  });

  it("a reply to an older question does not approve a demand written after it", () => {
    const { p, helper } = atRequirementsGate();
    personSays(p, helper, "add remember-me, then show me again");
    writeFileSync(
      join(p, "memory/reports/demand.json"),
      JSON.stringify({ ...DEMAND, user_stories: ["sign in", "remember me"] }),
    );
    expect(dotagent(p, ["phase", "approve", "REQUIREMENTS", "--json"], { env: AS_MODEL }).json.error).toMatchObject({
      code: "person_not_answered",
    });
  });

  it("a reply, then the pm run again: the person has not seen its demand", () => {
    const { p, helper } = atRequirementsGate();
    personSays(p, helper, "add remember-me");
    const pm = {
      subagent_type: "pm",
      description: "pm",
      prompt: "Feature request: add login\nPhase: REQUIREMENTS\nOutput file: memory/reports/demand.json",
    };
    expect(
      hook(p, helper, "pre-tool-use", { hook_event_name: "PreToolUse", tool_name: "Agent", tool_input: pm })
        ?.hookSpecificOutput.permissionDecision,
    ).toBe("allow");
    expect(
      hook(p, helper, "pre-tool-use", approveLine(helper, "REQUIREMENTS"))?.hookSpecificOutput.permissionDecision,
    ).toBe("deny");
  });

  it("a prompt while no gate is open records nothing", () => {
    const p = started();
    personSays(p, helperOf(p), "approve");
    expect(replies(p)).toEqual([]);
  });

  it("the person at a terminal or in a script (no CLAUDECODE) approves as before", () => {
    const { p } = atRequirementsGate();
    expect(dotagent(p, ["phase", "approve", "REQUIREMENTS", "--json"]).code).toBe(0);
  });

  it("the design: final_design.json written by the model and approved without the person's pick is refused", () => {
    const { p, helper } = atRequirementsGate();
    personSays(p, helper, "approve");
    expect(dotagent(p, ["phase", "approve", "REQUIREMENTS", "--json"], { env: AS_MODEL }).code).toBe(0);
    for (const name of ["minimal", "robust"]) {
      mkdirSync(join(p, "memory/reports/designs"), { recursive: true });
      writeFileSync(join(p, `memory/reports/designs/${name}.json`), JSON.stringify({ name, summary: name }));
    }
    writeFileSync(join(p, "memory/reports/roundtable.json"), JSON.stringify({ recommendation: "minimal" }));
    expect(dotagent(p, ["status", "--json"]).json.next).toMatchObject({
      action: "await_approval",
      gate: "pick_design",
    });
    writeFileSync(
      join(p, "memory/reports/final_design.json"),
      JSON.stringify({
        chosen: "minimal",
        approved_by: "user",
        design: {},
        tasks: [{ id: "task-001", title: "x", depends_on: [] }],
      }),
    );
    const refused = dotagent(p, ["phase", "approve", "ARCHITECTURE", "--json"], { env: AS_MODEL });
    expect(refused.json.error).toMatchObject({ code: "person_not_answered", phase: "ARCHITECTURE" });
    expect(refused.json.error.message).toContain("show memory/reports/roundtable.json");
    expect(
      hook(p, helper, "pre-tool-use", approveLine(helper, "ARCHITECTURE"))?.hookSpecificOutput.permissionDecision,
    ).toBe("deny");
  });

  it("the design: the person's pick with notes, then the model's `phase approve ARCHITECTURE --pick NAME`: dotagent writes final_design.json from it; the model's own final_design.json never counts", () => {
    const { p, helper } = atRequirementsGate();
    personSays(p, helper, "approve");
    mkdirSync(join(p, "memory/reports/designs"), { recursive: true });
    for (const name of ["minimal", "robust"])
      writeFileSync(join(p, `memory/reports/designs/${name}.json`), JSON.stringify({ name, summary: name }));
    writeFileSync(join(p, "memory/reports/roundtable.json"), JSON.stringify({ recommendation: "minimal" }));
    expect(personSays(p, helper, "minimal, but keep the old API")).toBeNull();
    expect(replies(p).map((e: { gate: string; design?: string }) => [e.gate, e.design])).toEqual([
      ["approve_requirements", undefined],
      ["pick_design", "minimal"],
    ]);
    // The model writes the file itself (any tool): it is not dotagent's, so the pick is asked again with its options.
    const write = hook(p, helper, "pre-tool-use", {
      hook_event_name: "PreToolUse",
      tool_name: "Write",
      tool_input: { file_path: join(p, "memory/reports/final_design.json"), content: "{}" },
    })?.hookSpecificOutput;
    expect(write).toMatchObject({
      permissionDecision: "deny",
      permissionDecisionReason: expect.stringContaining("--pick <name>"),
    });
    writeFileSync(
      join(p, "memory/reports/final_design.json"),
      JSON.stringify({
        chosen: "robust",
        approved_by: "user",
        design: {},
        tasks: [{ id: "task-001", title: "x", depends_on: [] }],
      }),
    );
    expect(dotagent(p, ["status", "--json"]).json.next).toMatchObject({
      action: "await_approval",
      gate: "pick_design",
      reason: expect.stringContaining("was not written by dotagent from the person's pick"),
    });
    const plain = dotagent(p, ["phase", "approve", "ARCHITECTURE", "--json"], { env: AS_MODEL });
    expect([plain.code, plain.json.error.code]).toEqual([1, "person_not_answered"]);
    expect(plain.json.error.message).toContain("--pick minimal");
    expect(
      dotagent(p, ["phase", "approve", "ARCHITECTURE", "--pick", "robust", "--json"], { env: AS_MODEL }).json.error,
    ).toMatchObject({ code: "person_not_answered", design: "minimal" });
    const picked = dotagent(
      p,
      ["phase", "approve", "ARCHITECTURE", "--pick", "minimal", "--notes", "the model's words", "--json"],
      { env: AS_MODEL },
    );
    expect(picked.code).toBe(0);
    expect(readJson(p, "memory/reports/final_design.json")).toMatchObject({
      chosen: "minimal",
      source: "memory/reports/designs/minimal.json",
      approved_by: "user",
      user_notes: "minimal, but keep the old API",
      design: { name: "minimal" },
    });
    expect(readJson(p, "memory/state/phase.json").user_checkpoints.map((c: { phase: string }) => c.phase)).toEqual([
      "REQUIREMENTS",
      "ARCHITECTURE",
    ]);
  });
});

describe("a person's decision taken by the model (issue 29, case 2)", () => {
  /** REQUIREMENTS approved by the person at a terminal, ARCHITECTURE under way: made once per file, a copy per test. */
  function midWorkflow() {
    const p = copyOfTemplate("midWorkflow", (dir) => {
      cpSync(atRequirementsGate().p, dir, { recursive: true });
      expect(dotagent(dir, ["phase", "approve", "REQUIREMENTS", "--json"]).code).toBe(0);
    });
    return { p, helper: helperOf(p) };
  }
  const asked = (p: string) =>
    dotagent(p, ["log", "--json"]).json.events.filter((e: { type: string }) => e.type === "decision_asked");

  it("`init --request … --yes` mid-workflow, nobody asked: refused, the workflow kept", () => {
    const { p } = midWorkflow();
    const r = dotagent(p, ["init", "--request", "add login", "--yes", "--json"], { env: AS_MODEL });
    expect(r.code).toBe(1);
    expect(r.json.error).toMatchObject({ code: "person_not_answered" });
    expect(r.json.error.message).toContain("Archive it and start a new one?");
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({ current_phase: "ARCHITECTURE" });
  });

  it("asked (exit 5, recorded once), then `--yes` before the person replied: still refused", () => {
    const { p } = midWorkflow();
    for (let i = 0; i < 2; i++) {
      const r = dotagent(p, ["init", "--request", "add login", "--json"], { env: AS_MODEL });
      expect(r.code).toBe(5);
      expect(r.json.decision.question).toContain("Archive it and start a new one?");
    }
    expect(asked(p)).toHaveLength(1);
    expect(dotagent(p, ["init", "--request", "add login", "--yes", "--json"], { env: AS_MODEL }).code).toBe(1);
  });

  it("asked, the person replied, then `--yes`: the fresh start goes ahead", () => {
    const { p, helper } = midWorkflow();
    expect(dotagent(p, ["init", "--request", "add signup", "--json"], { env: AS_MODEL }).code).toBe(5);
    personSays(p, helper, "yes, start over");
    expect(replies(p)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ decision: expect.stringContaining("Archive it and start a new one?") }),
      ]),
    );
    const r = dotagent(p, ["init", "--request", "add signup", "--yes", "--json"], { env: AS_MODEL });
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ created: true, phase: "REQUIREMENTS" });
  });

  it("asked, the person said no: the yes stays refused (told to run the no), nothing archived", () => {
    const { p, helper } = midWorkflow();
    expect(dotagent(p, ["init", "--request", "add signup", "--json"], { env: AS_MODEL }).code).toBe(5);
    personSays(p, helper, "no, keep going");
    const r = dotagent(p, ["init", "--request", "add signup", "--yes", "--json"], { env: AS_MODEL });
    expect(r.code).toBe(1);
    expect(r.json.error).toMatchObject({
      code: "person_not_answered",
      message: expect.stringMatching(
        /^the person said no to this: .*Archive it and start a new one\? Run its no instead \(`dotagent /,
      ),
    });
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({
      current_phase: "ARCHITECTURE",
      request: "add login",
    });
  });

  it("a reply to another question does not answer this one", () => {
    const { p, helper } = midWorkflow();
    expect(dotagent(p, ["init", "--request", "add signup", "--json"], { env: AS_MODEL }).code).toBe(5);
    personSays(p, helper, "no, keep it");
    expect(
      dotagent(p, ["rollback", "--to", "REQUIREMENTS", "--yes", "--json"], { env: AS_MODEL }).json.error,
    ).toMatchObject({ code: "person_not_answered" });
  });

  it("`rollback --to … --yes` nobody asked: refused; asked and answered: done", () => {
    const { p, helper } = midWorkflow();
    expect(dotagent(p, ["rollback", "--to", "REQUIREMENTS", "--yes", "--json"], { env: AS_MODEL }).code).toBe(1);
    expect(dotagent(p, ["rollback", "--to", "REQUIREMENTS", "--json"], { env: AS_MODEL }).code).toBe(5);
    personSays(p, helper, "yes, go back");
    const r = dotagent(p, ["rollback", "--to", "REQUIREMENTS", "--yes", "--json"], { env: AS_MODEL });
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ rolled_back: true });
  });

  it("`resume --isolation commit` nobody asked: refused", () => {
    const { p } = midWorkflow();
    const r = dotagent(p, ["resume", "--isolation", "commit", "--json"], { env: AS_MODEL });
    expect(r.code).toBe(1);
    expect(r.json.error).toMatchObject({ code: "person_not_answered", decision: "isolation" });
  });

  it("a person at a terminal or a script decides with --yes as before", () => {
    const { p } = midWorkflow();
    expect(dotagent(p, ["init", "--request", "add signup", "--yes", "--json"]).code).toBe(0);
  });
});

describe("archiving the live workflow from an agent's shell", () => {
  it("`archive`: handed back as a decision (exit 5), its --yes refused until the person replied, then done", () => {
    const { p, helper } = atRequirementsGate();
    expect(dotagent(p, ["archive", "--yes", "--json"], { env: AS_MODEL }).json.error).toMatchObject({
      code: "person_not_answered",
    });
    const asked = dotagent(p, ["archive", "--json"], { env: AS_MODEL });
    expect(asked.code).toBe(5);
    expect(asked.json.decision).toMatchObject({ yes: "dotagent archive --yes" });
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({ current_phase: "REQUIREMENTS" });
    personSays(p, helper, "yes");
    const done = dotagent(p, ["archive", "--yes", "--json"], { env: AS_MODEL });
    expect(done.code).toBe(0);
    expect(done.json.archived).toMatch(/\.tar\.gz$/);
  });

  it("`archive restore NAME --yes` nobody asked: refused, the live workflow kept", () => {
    const { p } = atRequirementsGate();
    const name = dotagent(p, ["archive", "--json"]).json.archived as string;
    expect(dotagent(p, ["init", "--request", "add signup", "--json"]).code).toBe(0);
    expect(dotagent(p, ["archive", "restore", name, "--yes", "--json"], { env: AS_MODEL }).json.error).toMatchObject({
      code: "person_not_answered",
    });
    expect(readJson(p, "memory/state/phase.json").request).toBe("add signup");
  });
});

describe("the person's plain answer is recorded by dotagent itself (no helper call by the model)", () => {
  it('"approve" at the REQUIREMENTS gate: approved and completed by the hook, with the next step for the model', () => {
    const { p, helper } = atRequirementsGate();
    const out = personSays(p, helper, "approve") as unknown as { hookSpecificOutput: { additionalContext: string } };
    expect(out.hookSpecificOutput.additionalContext).toMatch(
      /^dotagent recorded: the person approved REQUIREMENTS \(their prompt\); do not run phase approve\.\ndotagent next: \{"phase":"ARCHITECTURE"/,
    );
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({
      current_phase: "ARCHITECTURE",
      user_checkpoints: [expect.objectContaining({ phase: "REQUIREMENTS" })],
    });
  });

  it('"yes, but add remember-me": a reply for the model, nothing approved', () => {
    const { p, helper } = atRequirementsGate();
    expect(personSays(p, helper, "yes, but add remember-me")).toBeNull();
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({
      current_phase: "REQUIREMENTS",
      user_checkpoints: [],
    });
  });

  function atPick() {
    const { p, helper } = atRequirementsGate();
    personSays(p, helper, "approve");
    mkdirSync(join(p, "memory/reports/designs"), { recursive: true });
    const tasks = [{ id: "task-001", title: "one", depends_on: [] }];
    for (const name of ["minimal", "robust"])
      writeFileSync(join(p, `memory/reports/designs/${name}.json`), JSON.stringify({ name, summary: name, tasks }));
    writeFileSync(join(p, "memory/reports/roundtable.json"), JSON.stringify({ recommendation: "minimal" }));
    expect(dotagent(p, ["status", "--json"]).json.next).toMatchObject({ gate: "pick_design" });
    return { p, helper };
  }

  it("a design's name alone at the pick: final_design.json written from it, ARCHITECTURE approved, the tasks planned", () => {
    const { p, helper } = atPick();
    const out = personSays(p, helper, "Robust.") as unknown as { hookSpecificOutput: { additionalContext: string } };
    expect(out.hookSpecificOutput.additionalContext).toContain("the person picked robust");
    expect(readJson(p, "memory/reports/final_design.json")).toMatchObject({
      chosen: "robust",
      source: "memory/reports/designs/robust.json",
      approved_by: "user",
      user_notes: "Robust.",
      tasks: [{ id: "task-001" }],
    });
    expect(dotagent(p, ["status", "--json"]).json).toMatchObject({
      phase: "IMPLEMENTATION",
      next: { action: "run_tasks", tasks: ["task-001"] },
    });
  });

  it("a pick with notes: a reply for the model, nothing written", () => {
    const { p, helper } = atPick();
    expect(personSays(p, helper, "minimal, but keep the old API")).toBeNull();
    expect(existsSync(join(p, "memory/reports/final_design.json"))).toBe(false);
  });
});

// Issue 40: the person's word at the mechanism. Claude Code writes a prompt into its transcript only
// after UserPromptSubmit; the hook records the reply and carries it out at the next locked command,
// once the transcript says who sent it (SPEC §11 "Who decides").
describe("a reply counts only when the client's record says the person typed it", () => {
  const architect = {
    hook_event_name: "PreToolUse",
    tool_name: "Agent",
    tool_input: {
      subagent_type: "architect",
      description: "minimal",
      prompt:
        "Feature request: add login\nPhase: ARCHITECTURE\nDesign name: minimal\nAngle: small\nOutput file: memory/reports/designs/minimal.json",
    },
  };

  it("Claude Code records the prompt after the hook: the approval is carried out at the model's next step, which the hook already names", () => {
    const { p, helper } = atRequirementsGate();
    const typed = typedPrompt("approve", { when: "later" });
    const out = hook(p, helper, "user-prompt-submit", typed.input) as unknown as {
      hookSpecificOutput: { additionalContext: string };
    };
    expect(out.hookSpecificOutput.additionalContext).toMatch(
      /^dotagent recorded: the person's reply approves REQUIREMENTS; dotagent carries it out at your next step/,
    );
    expect(out.hookSpecificOutput.additionalContext).toContain('dotagent next: {"phase":"ARCHITECTURE"');
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({
      current_phase: "REQUIREMENTS",
      user_checkpoints: [],
    });
    typed.record();
    expect(hook(p, helper, "pre-tool-use", architect)?.hookSpecificOutput.permissionDecision).toBe("allow");
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({
      current_phase: "ARCHITECTURE",
      user_checkpoints: [expect.objectContaining({ phase: "REQUIREMENTS" })],
    });
    expect(existsSync(join(p, "memory/state/.pending-reply.json"))).toBe(false);
  });

  it("the approval lands as soon as the client records the prompt, with no command after it (the workflow's last gate: the model only says it is complete)", async () => {
    const { p, helper } = atRequirementsGate();
    const typed = typedPrompt("approve", { when: "later" });
    hook(p, helper, "user-prompt-submit", typed.input);
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({ user_checkpoints: [] });
    typed.record();
    // The hook's carrier (src/store/reply-carrier.ts) looks for the record for a minute.
    for (let waited = 0; waited < 30_000 && existsSync(join(p, "memory/state/.pending-reply.json")); waited += 100)
      await new Promise((done) => setTimeout(done, 100));
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({
      current_phase: "ARCHITECTURE",
      user_checkpoints: [expect.objectContaining({ phase: "REQUIREMENTS" })],
    });
    expect(existsSync(join(p, "memory/state/.pending-reply.json"))).toBe(false);
  });

  it("a scheduled prompt (the model's CronCreate or ScheduleWakeup) saying approve: recorded, never carried out, and no approval of the model's goes through on it", () => {
    const { p, helper } = atRequirementsGate();
    const fired = typedPrompt("approve", { when: "later", source: "scheduled" });
    hook(p, helper, "user-prompt-submit", fired.input);
    fired.record();
    const spawn = hook(p, helper, "pre-tool-use", architect)?.hookSpecificOutput;
    expect(spawn?.permissionDecision).toBe("deny");
    // The model acted on the hook's word that the reply would be carried out: the refusal says why it was not.
    expect(spawn?.permissionDecisionReason).toContain(
      "dotagent: the prompt that would have approved, picked or started a step again was not the person's (Claude Code recorded it as a schedule_wakeup prompt, not one the person typed): nothing was done; ask the person",
    );
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({
      current_phase: "REQUIREMENTS",
      user_checkpoints: [],
    });
    const ignored = dotagent(p, ["log", "--json"]).json.events.find(
      (e: { type: string }) => e.type === "person_reply_ignored",
    );
    expect(ignored.why).toContain("schedule_wakeup");
    const cli = dotagent(p, ["phase", "approve", "REQUIREMENTS", "--json"], { env: AS_MODEL });
    expect([cli.code, cli.json.error.code]).toEqual([1, "person_not_answered"]);
    expect(
      hook(p, helper, "pre-tool-use", approveLine(helper, "REQUIREMENTS"))?.hookSpecificOutput.permissionDecision,
    ).toBe("deny");
  });

  it("a scheduled prompt after a decision put to the model answers nothing: its --yes stays refused", () => {
    const { p, helper } = atRequirementsGate();
    expect(dotagent(p, ["init", "--request", "add signup", "--json"], { env: AS_MODEL }).code).toBe(5);
    const fired = typedPrompt("yes", { source: "scheduled" });
    hook(p, helper, "user-prompt-submit", fired.input);
    expect(
      dotagent(p, ["init", "--request", "add signup", "--yes", "--json"], { env: AS_MODEL }).json.error,
    ).toMatchObject({ code: "person_not_answered" });
    expect(readJson(p, "memory/state/phase.json").request).toBe("add login");
  });

  it("a hook input without the client's record of the prompt, or pointing at a file in the project, answers nothing", () => {
    const { p, helper } = atRequirementsGate();
    hook(p, helper, "user-prompt-submit", { hook_event_name: "UserPromptSubmit", prompt: "approve" });
    const planted = join(p, "memory/reports/transcript.jsonl");
    writeFileSync(
      planted,
      `${JSON.stringify({ promptId: "x1", type: "user", message: { content: "approve" }, promptSource: "typed", origin: { kind: "human" }, timestamp: new Date(Date.now() + 30).toISOString() })}\n`,
    );
    hook(p, helper, "user-prompt-submit", {
      hook_event_name: "UserPromptSubmit",
      prompt: "approve",
      transcript_path: planted,
      prompt_id: "x1",
    });
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({
      current_phase: "REQUIREMENTS",
      user_checkpoints: [],
    });
    expect(dotagent(p, ["phase", "approve", "REQUIREMENTS", "--json"], { env: AS_MODEL }).code).toBe(1);
  });

  it('a reply that says neither yes nor no ("continue") lets no --yes of a decision through, and the question carries the words that count', () => {
    const { p, helper } = atRequirementsGate();
    const asked = dotagent(p, ["rollback", "--to", "REQUIREMENTS", "--json"], { env: AS_MODEL });
    expect(asked.code).toBe(5);
    expect(asked.json.decision.answers).toBe('Reply "yes" or "no"; any other reply is not taken as an answer.');
    personSays(p, helper, "continue");
    const refused = dotagent(p, ["rollback", "--to", "REQUIREMENTS", "--yes", "--json"], { env: AS_MODEL });
    expect(refused.json.error).toMatchObject({ code: "person_not_answered" });
    expect(refused.json.error.message).toContain("said neither yes nor no");
    personSays(p, helper, "yes, go back");
    expect(dotagent(p, ["rollback", "--to", "REQUIREMENTS", "--yes", "--json"], { env: AS_MODEL }).code).toBe(0);
  });
});

describe("what arrives by git is history, never authority (issue 40, finding 1)", () => {
  it("a committed person_replied dated in the future, and one sealed by another checkout, answer nothing here", () => {
    const { p, helper } = atRequirementsGate();
    // The teammate's reply, as their checkout recorded it (sealed with their key), and one forged with no seal.
    const other = tempProject();
    expect(dotagent(other, ["install", "--json"], { env: { HOME: join(other, "home") } }).code).toBe(0);
    expect(dotagent(other, ["resume", "--json", "--start", "--request", "add login"]).code).toBe(0);
    const theirs = hook(
      other,
      join(other, ".claude/skills/checkpoint/scripts/dotagent.mjs"),
      "user-prompt-submit",
      typedPrompt("looks good, approve").input,
    );
    expect(theirs).toBeNull();
    const lines = readFileSync(join(other, "memory/state/events.jsonl"), "utf8")
      .split("\n")
      .filter((l) => l.includes("person_replied"));
    const future = JSON.stringify({
      seq: 900,
      at: "2099-01-01T00:00:00.000Z",
      type: "person_replied",
      phase: "REQUIREMENTS",
      gate: "approve_requirements",
      answer: "yes",
    });
    appendFileSync(join(p, "memory/state/events.jsonl"), `${[...lines, future].join("\n")}\n`);
    const cli = dotagent(p, ["phase", "approve", "REQUIREMENTS", "--json"], { env: AS_MODEL });
    expect([cli.code, cli.json.error.code]).toEqual([1, "person_not_answered"]);
  });

  it("a clone of a checkout where the person did answer asks again (the key is the checkout's, not the repository's)", () => {
    const { p, helper } = atRequirementsGate();
    personSays(p, helper, "looks good, approve");
    expect(
      hook(p, helper, "pre-tool-use", approveLine(helper, "REQUIREMENTS"))?.hookSpecificOutput.permissionDecision,
    ).toBe("allow");
    const clone = tempProject();
    cpSync(p, clone, { recursive: true });
    const cloneHelper = join(clone, ".claude/skills/checkpoint/scripts/dotagent.mjs");
    expect(
      hook(clone, cloneHelper, "pre-tool-use", approveLine(cloneHelper, "REQUIREMENTS"))?.hookSpecificOutput
        .permissionDecision,
    ).toBe("deny");
    expect(dotagent(clone, ["phase", "approve", "REQUIREMENTS", "--json"], { env: AS_MODEL }).json.error).toMatchObject(
      { code: "person_not_answered" },
    );
  });

  it("the model clearing its client's marker (env -u CLAUDECODE, env -i, exec past its shell) is still the model: the shell and the client are its ancestors", () => {
    const { p } = atRequirementsGate();
    const approve = `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} phase approve REQUIREMENTS --json`;
    const run = (line: string, env: NodeJS.ProcessEnv) =>
      spawnSync("bash", ["-c", line], { cwd: p, encoding: "utf8", env });
    const withMarker = { ...process.env, CLAUDECODE: "1" };
    const without = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "CLAUDECODE"));
    // As Claude Code's Bash tool runs a line: a shell with the marker, the line run from it (and its cwd recorded after it).
    for (const line of [
      `true; env -u CLAUDECODE ${approve}; true`,
      `true; env -i PATH="$PATH" HOME="$HOME" DOTAGENT_STATE_HOME="$DOTAGENT_STATE_HOME" sh -c '${approve.replace(/'/g, "'\\''")}'; true`,
    ]) {
      expect(JSON.parse(run(line, withMarker).stdout).error).toMatchObject({ code: "person_not_answered" });
    }
    // A line that execs past the shell runs as the client's own child (a process named claude, no marker anywhere).
    expect(
      JSON.parse(
        run(`exec -a claude bash -c 'bash -c "exec env -u CLAUDECODE ${approve.replace(/"/g, '\\"')}"; true'`, without)
          .stdout,
      ).error,
    ).toMatchObject({ code: "person_not_answered" });
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({ user_checkpoints: [] });
  });
});
