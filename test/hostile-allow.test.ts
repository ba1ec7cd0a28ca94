// Issue 28's hostile review, through the built CLI as Claude Code runs it: one named test per case
// the review found (the allow hook's grammar, the spawn's fields, the trace, the log), each with
// its variants. The landing and the sweep have theirs in test/hostile-landing.test.ts; the grammar
// against the real shells is test/allow-grammar-shells.test.ts.
import { afterEach, describe, expect, it } from "vitest";
import { cpSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { dotagent, installedProject, removeTemps, tempProject } from "./support/cli.js";
import { copyOfTemplate } from "./support/template.js";

afterEach(removeTemps);

const installed = installedProject;

function preToolUse(p: string, helper: string, toolName: string, toolInput: Record<string, unknown>) {
  const r = dotagent(p, ["hook", "pre-tool-use"], {
    input: JSON.stringify({
      session_id: "s-1",
      cwd: p,
      hook_event_name: "PreToolUse",
      tool_name: toolName,
      tool_input: toolInput,
    }),
    env: { CLAUDE_PID: String(process.pid), CLAUDE_CODE_SESSION_ID: "s-1", CLAUDE_PROJECT_DIR: p },
    script: helper,
  });
  expect(r.code).toBe(0);
  return r.stdout.trim() === ""
    ? null
    : (JSON.parse(r.stdout) as {
        hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string; updatedInput?: unknown };
      });
}

describe("1. a here-document that bash closes early is never allowed", () => {
  it.each([
    ["EOF)", 'EOF)"; touch /tmp/x; echo "'],
    ["EOF )", 'EOF )"; touch /tmp/x; echo "'],
    ["EOF<TAB>)", 'EOF\t)"; touch /tmp/x; echo "'],
    ["EOF)$(…)", "EOF)$(touch /tmp/x)"],
    ["EOF) and backticks", "EOF)`touch /tmp/x`"],
    ["blanks, then EOF)", "   EOF)"],
    ["a NUL byte in the delimiter line", "EOF\u0000)"],
  ])("a body line %s", (_name, bodyLine) => {
    const { p, helper } = installed();
    const line = `node "${helper}" status --json --request "$(cat <<'EOF'\n${bodyLine}\nEOF\n)"`;
    expect(preToolUse(p, helper, "Bash", { command: line })).toBeNull();
  });

  it("the documented form is still allowed", () => {
    const { p, helper } = installed();
    const line = `node "${helper}" resume --json --start --request "$(cat <<'EOF'\nadd login; it's "quoted" $(not run)\nEOF\n)"`;
    expect(preToolUse(p, helper, "Bash", { command: line })?.hookSpecificOutput.permissionDecision).toBe("allow");
  });
});

describe("5. task import: the file is the positional the option table leaves", () => {
  it("`task import --title memory/reports/plan.json /etc/passwd` is not allowed", () => {
    const { p, helper } = installed();
    mkdirSync(join(p, "memory/reports"), { recursive: true });
    writeFileSync(join(p, "memory/reports/plan.json"), "[]");
    for (const line of [
      `task import --title memory/reports/plan.json /etc/passwd`,
      `task import --output memory/reports/plan.json /etc/passwd --json`,
      `task import memory/reports/plan.json /etc/passwd`,
      `task import -- /etc/passwd`,
    ]) {
      expect(preToolUse(p, helper, "Bash", { command: `node "${helper}" ${line}` }), line).toBeNull();
    }
    expect(
      preToolUse(p, helper, "Bash", { command: `node "${helper}" task import memory/reports/plan.json --json` })
        ?.hookSpecificOutput.permissionDecision,
    ).toBe("allow");
  });
});

describe("6. a spawn is allowed only with the fields /develop gives it", () => {
  /** Installed, the workflow started: made once per file, a copy per test. */
  function atRequirements() {
    const p = copyOfTemplate("atRequirements", (dir) => {
      cpSync(installed().p, dir, { recursive: true });
      expect(dotagent(dir, ["resume", "--json", "--start", "--request", "add login"]).code).toBe(0);
    });
    return { p, helper: join(p, ".claude/skills/checkpoint/scripts/dotagent.mjs") };
  }
  const pm = {
    subagent_type: "pm",
    description: "pm for REQUIREMENTS",
    prompt: "Feature request: add login\nPhase: REQUIREMENTS\nOutput file: memory/reports/demand.json",
    run_in_background: false,
  };

  it.each([
    ["isolation: remote (a cloud environment)", { isolation: "remote" }],
    ["isolation: worktree", { isolation: "worktree" }],
    ["a model", { model: "opus" }],
    ["a cwd", { cwd: "/tmp" }],
    ["run_in_background as a string", { run_in_background: "false" }],
    ["a prompt that is not a string", { prompt: ["Phase: REQUIREMENTS"] }],
  ])("%s: refused, nothing recorded, never copied into updatedInput", (_name, extra) => {
    const { p, helper } = atRequirements();
    const out = preToolUse(p, helper, "Agent", { ...pm, ...extra });
    expect(out?.hookSpecificOutput).toMatchObject({ permissionDecision: "deny" });
    expect(out?.hookSpecificOutput.updatedInput).toBeUndefined();
    expect(dotagent(p, ["status", "--json"]).json).toMatchObject({ phase_status: "pending", agents_in_flight: [] });
  });

  it("the same spawn without them is allowed and recorded", () => {
    const { p, helper } = atRequirements();
    expect(preToolUse(p, helper, "Agent", pm)?.hookSpecificOutput).toMatchObject({
      permissionDecision: "allow",
      permissionDecisionReason: "dotagent recorded: pm started",
    });
    expect(dotagent(p, ["status", "--json"]).json.agents_in_flight).toHaveLength(1);
  });
});

describe("7. a word zsh would expand", () => {
  it.each([["--dir =node"], ["--dir=. =status"], ["=status"]])("%s is not allowed", (words) => {
    const { p, helper } = installed();
    expect(preToolUse(p, helper, "Bash", { command: `node "${helper}" status ${words}` })).toBeNull();
  });
});

describe("9. a trace path that is not a regular file", () => {
  it("a FIFO nobody reads: the command ends at once, its output unchanged", () => {
    const p = tempProject();
    const fifo = join(p, "trace.fifo");
    execFileSync("mkfifo", [fifo]);
    const r = dotagent(p, ["status", "--json"], { env: { DOTAGENT_TRACE: fifo } });
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ situation: "none" });
  });

  it("a regular file gets its line", () => {
    const p = tempProject();
    const file = join(p, "trace.jsonl");
    expect(dotagent(p, ["status", "--json"], { env: { DOTAGENT_TRACE: file } }).code).toBe(0);
    expect(existsSync(file)).toBe(true);
  });
});

describe("10. `dotagent log` shows control characters instead of sending them to the terminal", () => {
  it.each([
    ["a window title (OSC 0)", "\u001b]0;owned\u0007"],
    ["the clipboard (OSC 52)", "\u001b]52;c;cm0gLXJmIH4=\u0007"],
    ["clear screen", "\u001b[2J\u001b[H"],
    ["a C1 CSI", "\u009b2J"],
  ])("%s in the request", (_name, evil) => {
    const p = tempProject();
    expect(dotagent(p, ["init", "--request", `add ${evil} login`, "--json"]).code).toBe(0);
    const r = dotagent(p, ["log"]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(r.stdout).toContain("\\u00");
    // --json keeps the exact text: a program reads fields, JSON escapes them.
    expect(JSON.stringify(dotagent(p, ["log", "--json"]).json)).toContain(JSON.stringify(evil).slice(1, -1));
  });
});
