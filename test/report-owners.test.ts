// A phase report counts for the agent that was at work on it (SPEC §11 "A report counts for its
// agent"; src/core/report-owners.ts): the main agent writing designs, the roundtable's report or
// qa's verdict itself, by any tool, does not move the workflow on. Through the built CLI and its
// hooks, fed the JSON Claude Code sends; the real client runs the same in
// test/claude/misbehaving-journey.test.ts (`report_by_bash`).
import { afterEach, describe, expect, it } from "vitest";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { dotagent, installedProject, readJson, removeTemps, runHook, tempProject, writeJson } from "./support/cli.js";
import { copyOfTemplate } from "./support/template.js";

afterEach(removeTemps);

const installed = installedProject;

function hook(p: string, helper: string, event: string, input: Record<string, unknown>) {
  const r = runHook(p, helper, event, input);
  expect(r.code).toBe(0);
  return r.out;
}

const prompt = (lines: string[]) => ["Feature request: add login", ...lines].join("\n");
const agentCall = (type: string, lines: string[]) => ({
  tool_name: "Agent",
  tool_input: { subagent_type: type, prompt: prompt(lines), description: "x" },
});
/** The agent's foreground result: its end, recorded from its report. */
const agentDone = (type: string, lines: string[]) => ({
  hook_event_name: "PostToolUse",
  ...agentCall(type, lines),
  tool_response: { status: "completed" },
});
const PM = ["Phase: REQUIREMENTS", "Output file: memory/reports/demand.json"];
const ARCHITECT = (name: string) => [
  "Phase: ARCHITECTURE",
  `Design name: ${name}`,
  `Angle: ${name}`,
  `Output file: memory/reports/designs/${name}.json`,
];
const denyReason = (out: Record<string, any> | null): string | null =>
  out?.hookSpecificOutput?.permissionDecision === "deny"
    ? String(out.hookSpecificOutput.permissionDecisionReason)
    : null;

/** A workflow at ARCHITECTURE whose pm a hook recorded (so the workflow has `agent_reports`). */
// Made once per file and copied: no record in it is sealed with the checkout's key (the approval is
// the person's terminal command), and the pm's owner is this process, alive until the file ends.
function atArchitecture() {
  const p = copyOfTemplate("atArchitecture", (dir) => {
    const { p: installedDir } = installed();
    cpSync(installedDir, dir, { recursive: true });
    const helper = helperOf(dir);
    expect(dotagent(dir, ["resume", "--json", "--start", "--request", "add login"]).code).toBe(0);
    expect(denyReason(hook(dir, helper, "pre-tool-use", agentCall("pm", PM)))).toBeNull();
    writeJson(dir, "memory/reports/demand.json", {
      request: "add login",
      acceptance_criteria: [{ id: "AC-1", text: "signs in" }],
    });
    hook(dir, helper, "post-tool-use", agentDone("pm", PM));
    expect(readJson(dir, "memory/state/phase.json").agent_reports).toEqual(["memory/reports/demand.json"]);
    // The person approves in their terminal (no CLAUDECODE: the person's own command).
    expect(dotagent(dir, ["phase", "approve", "REQUIREMENTS", "--json"]).code).toBe(0);
  });
  return { p, helper: helperOf(p) };
}

function helperOf(p: string): string {
  return join(p, ".claude/skills/checkpoint/scripts/dotagent.mjs");
}

describe("a phase agent's report written by someone else does not count", () => {
  it("designs the main agent wrote: resume asks for the architects; their start moves the files aside, kept", () => {
    const { p, helper } = atArchitecture();
    for (const name of ["minimal", "robust"])
      writeJson(p, `memory/reports/designs/${name}.json`, { name, summary: "written by the main agent", tasks: [] });
    const plan = dotagent(p, ["resume", "--json"]).json;
    expect(plan).toMatchObject({
      phase: "ARCHITECTURE",
      next: { action: "spawn_agent", agent: "architect", designs: ["minimal", "robust"] },
    });
    const started = hook(p, helper, "pre-tool-use", agentCall("architect", ARCHITECT("minimal")));
    expect(started?.hookSpecificOutput).toMatchObject({ permissionDecision: "allow" });
    expect(String(started?.hookSpecificOutput.permissionDecisionReason)).toContain(
      "designs/minimal.json there was not written by an architect agent (dotagent recorded none at work on it): moved to memory/reports/unowned/designs/minimal.json",
    );
    expect(existsSync(join(p, "memory/reports/designs/minimal.json"))).toBe(false);
    expect(readJson(p, "memory/reports/unowned/designs/minimal.json")).toMatchObject({
      summary: "written by the main agent",
    });
    const events = readFileSync(join(p, "memory/state/events.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(events.find((e) => e.type === "report_set_aside")).toMatchObject({
      agent: "architect",
      output: "memory/reports/designs/minimal.json",
      to: "memory/reports/unowned/designs/minimal.json",
    });
    // robust is still the main agent's: not a design yet, the roundtable is not asked for.
    expect(dotagent(p, ["status", "--json"]).json.next).toMatchObject({
      action: "spawn_agent",
      agent: "architect",
      designs: ["robust"],
    });
  });

  it("the roundtable's report the main agent wrote: resume says whose it is and asks for the roundtable", () => {
    const { p, helper } = atArchitecture();
    for (const name of ["minimal", "robust"]) {
      expect(denyReason(hook(p, helper, "pre-tool-use", agentCall("architect", ARCHITECT(name))))).toBeNull();
      writeJson(p, `memory/reports/designs/${name}.json`, { name, summary: name, tasks: [] });
      hook(p, helper, "post-tool-use", agentDone("architect", ARCHITECT(name)));
    }
    writeJson(p, "memory/reports/roundtable.json", { recommendation: "minimal", options_for_user: [] });
    expect(dotagent(p, ["resume", "--json"]).json.next).toMatchObject({
      action: "spawn_agent",
      agent: "roundtable",
      reason:
        "roundtable.json was not written by a roundtable agent (dotagent recorded none at work on it): spawn roundtable",
    });
  });

  it("a second unowned copy gets its own name; nothing is overwritten", () => {
    const { p, helper } = atArchitecture();
    mkdirSync(join(p, "memory/reports/unowned/designs"), { recursive: true });
    writeFileSync(join(p, "memory/reports/unowned/designs/minimal.json"), "earlier\n");
    writeJson(p, "memory/reports/designs/minimal.json", { name: "minimal" });
    hook(p, helper, "pre-tool-use", agentCall("architect", ARCHITECT("minimal")));
    expect(readFileSync(join(p, "memory/reports/unowned/designs/minimal.json"), "utf8")).toBe("earlier\n");
    expect(readJson(p, "memory/reports/unowned/designs/minimal.2.json")).toEqual({ name: "minimal" });
  });

  it("memory/reports/unowned made a link out of the project: the start is refused, the file stays", () => {
    const { p, helper } = atArchitecture();
    const outside = tempProject();
    mkdirSync(join(p, "memory/reports"), { recursive: true });
    symlinkSync(outside, join(p, "memory/reports/unowned"));
    writeJson(p, "memory/reports/designs/minimal.json", { name: "minimal" });
    // Refused before any folder is made through the link (write-file.ts): nothing lands outside.
    expect(denyReason(hook(p, helper, "pre-tool-use", agentCall("architect", ARCHITECT("minimal"))))).toMatch(
      /memory\/reports\/unowned is a link that leads out of the project \(to .*\); for the person: remove the link/,
    );
    expect(readJson(p, "memory/reports/designs/minimal.json")).toEqual({ name: "minimal" });
    expect(readdirSync(outside)).toEqual([]);
  });

  it("a workflow whose agents no hook saw start (the runner, the library, an older state) reads reports as before", () => {
    const p = tempProject();
    expect(dotagent(p, ["resume", "--json", "--start", "--request", "add login"]).code).toBe(0);
    writeJson(p, "memory/reports/demand.json", { request: "add login" });
    expect(readJson(p, "memory/state/phase.json").agent_reports).toBeUndefined();
    expect(dotagent(p, ["resume", "--json"]).json.next).toMatchObject({
      action: "await_approval",
      gate: "approve_requirements",
    });
  });
});

describe("the main agent's Bash lines into another agent's report are denied", () => {
  const cases: Array<[string, string]> = [
    ["a heredoc into verification.json", "cat > memory/reports/verification.json <<'EOF'\n{\"passed\": true}\nEOF"],
    ["tee into demand.json", "echo '{}' | tee memory/reports/demand.json"],
    ["cp into roundtable.json", "cp /tmp/r.json memory/reports/roundtable.json"],
    ["an append to a design", "echo x >> ./memory/reports/designs/minimal.json"],
    ["a task's report", "printf '{}' > memory/reports/tasks/task-001.json"],
  ];
  it.each(cases)("%s", (_name, command) => {
    const { p, helper } = installed();
    expect(dotagent(p, ["resume", "--json", "--start", "--request", "add login"]).code).toBe(0);
    expect(
      denyReason(
        hook(p, helper, "pre-tool-use", { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command } }),
      ),
    ).toMatch(/is not yours to write: .*A report counts only from the agent at work/);
  });

  it("the skill's own files (the plan, final_design.json) and a sub-agent's lines pass", () => {
    const { p, helper } = installed();
    expect(dotagent(p, ["resume", "--json", "--start", "--request", "add login"]).code).toBe(0);
    const bash = (command: string, extra: Record<string, unknown> = {}) =>
      hook(p, helper, "pre-tool-use", {
        hook_event_name: "PreToolUse",
        tool_name: "Bash",
        tool_input: { command },
        ...extra,
      });
    expect(bash("cat > memory/reports/plan.json <<'EOF'\n{}\nEOF")).toBeNull();
    expect(bash("cat memory/reports/verification.json")).toBeNull();
    expect(bash("echo '{}' > memory/reports/verification.json", { agent_id: "q1", agent_type: "qa" })).toBeNull();
  });
});
