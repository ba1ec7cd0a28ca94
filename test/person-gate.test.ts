// The person's gates stay theirs (issue 29, case 1): from an agent's shell in Claude Code
// (CLAUDECODE=1, no terminal), `phase approve` of a gate is refused until the person has replied
// after the gate's question was put, whether the line comes through dotagent's allow hook or in a
// form the hook does not know. The UserPromptSubmit hook records the person's reply.
import { afterEach, describe, expect, it } from "vitest";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { dotagent, readJson, removeTemps, tempProject } from "./support/cli.js";

afterEach(removeTemps);

const AS_MODEL = { CLAUDECODE: "1" };
const DEMAND = { feature: "add login", user_stories: ["sign in"], acceptance: ["wrong password shows an error"] };

function atRequirementsGate(): { p: string; helper: string } {
  const p = tempProject();
  expect(dotagent(p, ["install", "--json"], { env: { HOME: join(p, "home") } }).code).toBe(0);
  expect(dotagent(p, ["resume", "--json", "--start", "--request", "add login"]).code).toBe(0);
  mkdirSync(join(p, "memory/reports"), { recursive: true });
  writeFileSync(join(p, "memory/reports/demand.json"), JSON.stringify(DEMAND));
  expect(dotagent(p, ["status", "--json"]).json).toMatchObject({ next: { action: "await_approval", gate: "approve_requirements" } });
  return { p, helper: join(p, ".claude/skills/checkpoint/scripts/dotagent.mjs") };
}

function hook(p: string, helper: string, event: string, input: Record<string, unknown>) {
  const r = dotagent(p, ["hook", event], { input: JSON.stringify({ session_id: "s-1", cwd: p, ...input }), env: { CLAUDE_PID: String(process.pid), CLAUDE_PROJECT_DIR: p }, script: helper });
  expect(r.code).toBe(0);
  return r.stdout.trim() === "" ? null : (JSON.parse(r.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } });
}

const approveLine = (helper: string, phase: string) => ({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: `node "${helper}" phase approve ${phase} --json` } });
const personSays = (p: string, helper: string, prompt: string) => hook(p, helper, "user-prompt-submit", { hook_event_name: "UserPromptSubmit", prompt });
const replies = (p: string) => dotagent(p, ["log", "--json"]).json.events.filter((e: { type: string }) => e.type === "person_replied");

describe("approving a gate before the person answered", () => {
  it("the model's `phase approve REQUIREMENTS`: refused through the CLI (exit 1) and denied by the hook, with what to do", () => {
    const { p, helper } = atRequirementsGate();
    const cli = dotagent(p, ["phase", "approve", "REQUIREMENTS", "--json"], { env: AS_MODEL });
    expect(cli.code).toBe(1);
    expect(cli.json.error).toMatchObject({ code: "person_not_answered", phase: "REQUIREMENTS" });
    expect(cli.json.error.message).toContain("show memory/reports/demand.json");
    expect(hook(p, helper, "pre-tool-use", approveLine(helper, "REQUIREMENTS"))?.hookSpecificOutput).toMatchObject({ permissionDecision: "deny", permissionDecisionReason: expect.stringContaining("the person has not answered the REQUIREMENTS gate yet") });
    // Without the phase named, the current one.
    expect(hook(p, helper, "pre-tool-use", { ...approveLine(helper, ""), tool_input: { command: `node "${helper}" phase approve --json` } })?.hookSpecificOutput.permissionDecision).toBe("deny");
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({ current_phase: "REQUIREMENTS", user_checkpoints: [] });
  });

  it("after the person's reply at the gate: allowed by the hook and accepted by the CLI", () => {
    const { p, helper } = atRequirementsGate();
    expect(personSays(p, helper, "looks good, approve")).toBeNull();
    expect(replies(p)).toEqual([expect.objectContaining({ phase: "REQUIREMENTS", gate: "approve_requirements" })]);
    expect(hook(p, helper, "pre-tool-use", approveLine(helper, "REQUIREMENTS"))?.hookSpecificOutput.permissionDecision).toBe("allow");
    const cli = dotagent(p, ["phase", "approve", "REQUIREMENTS", "--json"], { env: AS_MODEL });
    expect(cli.code).toBe(0);
    expect(cli.json).toMatchObject({ phase: "ARCHITECTURE" });
  });

  it("the person said no (\"no, add remember-me\"): the model's approval is refused by the hook and the CLI, told to do what they asked; their next reply lets it through", () => {
    const { p, helper } = atRequirementsGate();
    expect(personSays(p, helper, "no, add remember-me")).toBeNull();
    expect(replies(p)).toEqual([expect.objectContaining({ phase: "REQUIREMENTS", declined: true })]);
    const denied = hook(p, helper, "pre-tool-use", approveLine(helper, "REQUIREMENTS"))?.hookSpecificOutput;
    expect(denied).toMatchObject({ permissionDecision: "deny", permissionDecisionReason: "dotagent: the person said no at the REQUIREMENTS gate: do what they asked (spawn pm again with their feedback, then show memory/reports/demand.json again) and ask again; dotagent records their next answer" });
    const cli = dotagent(p, ["phase", "approve", "REQUIREMENTS", "--json"], { env: AS_MODEL });
    expect([cli.code, cli.json.error.code, cli.json.error.declined]).toEqual([1, "person_not_answered", true]);
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({ user_checkpoints: [] });
    // Asked again (the same demand, say), the person now agrees in their own words.
    expect(personSays(p, helper, "fine, it can wait for later: approve it")).toBeNull();
    expect(dotagent(p, ["phase", "approve", "REQUIREMENTS", "--json"], { env: AS_MODEL }).code).toBe(0);
  });

  it("an agent's notification is not the person's reply", () => {
    const { p, helper } = atRequirementsGate();
    personSays(p, helper, '<task-notification><task-id>a1</task-id><status>completed</status></task-notification>');
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
    writeFileSync(join(p, "memory/reports/demand.json"), JSON.stringify({ ...DEMAND, user_stories: ["sign in", "remember me"] }));
    expect(dotagent(p, ["phase", "approve", "REQUIREMENTS", "--json"], { env: AS_MODEL }).json.error).toMatchObject({ code: "person_not_answered" });
  });

  it("a reply, then the pm run again: the person has not seen its demand", () => {
    const { p, helper } = atRequirementsGate();
    personSays(p, helper, "add remember-me");
    const pm = { subagent_type: "pm", description: "pm", prompt: "Feature request: add login\nPhase: REQUIREMENTS\nOutput file: memory/reports/demand.json" };
    expect(hook(p, helper, "pre-tool-use", { hook_event_name: "PreToolUse", tool_name: "Agent", tool_input: pm })?.hookSpecificOutput.permissionDecision).toBe("allow");
    expect(hook(p, helper, "pre-tool-use", approveLine(helper, "REQUIREMENTS"))?.hookSpecificOutput.permissionDecision).toBe("deny");
  });

  it("a prompt while no gate is open records nothing", () => {
    const p = tempProject();
    expect(dotagent(p, ["install", "--json"], { env: { HOME: join(p, "home") } }).code).toBe(0);
    expect(dotagent(p, ["resume", "--json", "--start", "--request", "add login"]).code).toBe(0);
    personSays(p, join(p, ".claude/skills/checkpoint/scripts/dotagent.mjs"), "approve");
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
    expect(dotagent(p, ["status", "--json"]).json.next).toMatchObject({ action: "await_approval", gate: "pick_design" });
    writeFileSync(join(p, "memory/reports/final_design.json"), JSON.stringify({ chosen: "minimal", approved_by: "user", design: {}, tasks: [{ id: "task-001", title: "x", depends_on: [] }] }));
    const refused = dotagent(p, ["phase", "approve", "ARCHITECTURE", "--json"], { env: AS_MODEL });
    expect(refused.json.error).toMatchObject({ code: "person_not_answered", phase: "ARCHITECTURE" });
    expect(refused.json.error.message).toContain("show memory/reports/roundtable.json");
    expect(hook(p, helper, "pre-tool-use", approveLine(helper, "ARCHITECTURE"))?.hookSpecificOutput.permissionDecision).toBe("deny");
  });

  it("the design: the person's pick at the gate, then the model writes final_design.json and approves", () => {
    const { p, helper } = atRequirementsGate();
    personSays(p, helper, "approve");
    expect(dotagent(p, ["phase", "approve", "REQUIREMENTS", "--json"], { env: AS_MODEL }).code).toBe(0);
    mkdirSync(join(p, "memory/reports/designs"), { recursive: true });
    for (const name of ["minimal", "robust"]) writeFileSync(join(p, `memory/reports/designs/${name}.json`), JSON.stringify({ name, summary: name }));
    writeFileSync(join(p, "memory/reports/roundtable.json"), JSON.stringify({ recommendation: "minimal" }));
    personSays(p, helper, "minimal");
    expect(replies(p).map((e: { gate: string }) => e.gate)).toEqual(["approve_requirements", "pick_design"]);
    writeFileSync(join(p, "memory/reports/final_design.json"), JSON.stringify({ chosen: "minimal", approved_by: "user", design: {}, tasks: [{ id: "task-001", title: "x", depends_on: [] }] }));
    expect(dotagent(p, ["phase", "approve", "ARCHITECTURE", "--json"], { env: AS_MODEL }).code).toBe(0);
  });
});

describe("a person's decision taken by the model (issue 29, case 2)", () => {
  function midWorkflow() {
    const { p, helper } = atRequirementsGate();
    expect(dotagent(p, ["phase", "approve", "REQUIREMENTS", "--json"]).code).toBe(0);
    return { p, helper };
  }
  const asked = (p: string) => dotagent(p, ["log", "--json"]).json.events.filter((e: { type: string }) => e.type === "decision_asked");

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
    expect(replies(p)).toEqual(expect.arrayContaining([expect.objectContaining({ decision: expect.stringContaining("Archive it and start a new one?") })]));
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
    expect(r.json.error).toMatchObject({ code: "person_not_answered", message: expect.stringMatching(/^the person said no to this: .*Archive it and start a new one\? Run its no instead \(`dotagent /) });
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({ current_phase: "ARCHITECTURE", request: "add login" });
  });

  it("a reply to another question does not answer this one", () => {
    const { p, helper } = midWorkflow();
    expect(dotagent(p, ["init", "--request", "add signup", "--json"], { env: AS_MODEL }).code).toBe(5);
    personSays(p, helper, "no, keep it");
    expect(dotagent(p, ["rollback", "--to", "REQUIREMENTS", "--yes", "--json"], { env: AS_MODEL }).json.error).toMatchObject({ code: "person_not_answered" });
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
    expect(dotagent(p, ["archive", "--yes", "--json"], { env: AS_MODEL }).json.error).toMatchObject({ code: "person_not_answered" });
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
    expect(dotagent(p, ["archive", "restore", name, "--yes", "--json"], { env: AS_MODEL }).json.error).toMatchObject({ code: "person_not_answered" });
    expect(readJson(p, "memory/state/phase.json").request).toBe("add signup");
  });
});

describe("the person's plain answer is recorded by dotagent itself (no helper call by the model)", () => {
  it("\"approve\" at the REQUIREMENTS gate: approved and completed by the hook, with the next step for the model", () => {
    const { p, helper } = atRequirementsGate();
    const out = personSays(p, helper, "approve") as unknown as { hookSpecificOutput: { additionalContext: string } };
    expect(out.hookSpecificOutput.additionalContext).toMatch(/^dotagent recorded: the person approved REQUIREMENTS \(their prompt\); do not run phase approve\.\ndotagent next: \{"phase":"ARCHITECTURE"/);
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({ current_phase: "ARCHITECTURE", user_checkpoints: [expect.objectContaining({ phase: "REQUIREMENTS" })] });
  });

  it("\"yes, but add remember-me\": a reply for the model, nothing approved", () => {
    const { p, helper } = atRequirementsGate();
    expect(personSays(p, helper, "yes, but add remember-me")).toBeNull();
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({ current_phase: "REQUIREMENTS", user_checkpoints: [] });
  });

  function atPick() {
    const { p, helper } = atRequirementsGate();
    personSays(p, helper, "approve");
    mkdirSync(join(p, "memory/reports/designs"), { recursive: true });
    const tasks = [{ id: "task-001", title: "one", depends_on: [] }];
    for (const name of ["minimal", "robust"]) writeFileSync(join(p, `memory/reports/designs/${name}.json`), JSON.stringify({ name, summary: name, tasks }));
    writeFileSync(join(p, "memory/reports/roundtable.json"), JSON.stringify({ recommendation: "minimal" }));
    expect(dotagent(p, ["status", "--json"]).json.next).toMatchObject({ gate: "pick_design" });
    return { p, helper };
  }

  it("a design's name alone at the pick: final_design.json written from it, ARCHITECTURE approved, the tasks planned", () => {
    const { p, helper } = atPick();
    const out = personSays(p, helper, "Robust.") as unknown as { hookSpecificOutput: { additionalContext: string } };
    expect(out.hookSpecificOutput.additionalContext).toContain("the person picked robust");
    expect(readJson(p, "memory/reports/final_design.json")).toMatchObject({ chosen: "robust", source: "memory/reports/designs/robust.json", approved_by: "user", user_notes: "Robust.", tasks: [{ id: "task-001" }] });
    expect(dotagent(p, ["status", "--json"]).json).toMatchObject({ phase: "IMPLEMENTATION", next: { action: "run_tasks", tasks: ["task-001"] } });
  });

  it("a pick with notes: a reply for the model, nothing written", () => {
    const { p, helper } = atPick();
    expect(personSays(p, helper, "minimal, but keep the old API")).toBeNull();
    expect(existsSync(join(p, "memory/reports/final_design.json"))).toBe(false);
  });
});
