// End to end with the REAL Claude Code binary (opt-in: DOTAGENT_E2E_CLAUDE=1), through the
// harness (test/claude/harness.ts): no model, an isolated HOME, the session transcript read back.
// See test/claude/NOTES.md for what was learned about the binary. The README's first session in a
// project set up by `dotagent install` (the resume plan before the model's first word, the resume's
// briefing, the installed agents) is read from the clean print-mode journey's own transcript
// (journey.test.ts, expectFirstSession): one Claude Code start per case is its cost here.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HOOK_MATCHER, hookCommand } from "../../src/claude/install.js";
import {
  briefings,
  developPlan,
  textOf,
  ENABLED,
  fetchClaude,
  ROOT,
  runClaude as runClaudeIn,
  transcript as transcriptIn,
  type TranscriptLine,
} from "./harness.js";

const CLI = join(ROOT, "dist/dotagent.mjs");
const NOT_BUILT =
  "dist/dotagent.mjs is missing: run `npm run build` (npm test does) before the Claude Code end-to-end test";

describe.skipIf(!ENABLED)("Claude Code end to end (DOTAGENT_E2E_CLAUDE=1)", () => {
  const built = existsSync(CLI);
  let claude = "";
  let work = "";
  let home = "";

  const runClaude = (
    cwd: string,
    args: string[],
  ): { run: SpawnSyncReturns<string>; result: { session_id?: string; is_error?: boolean } } =>
    runClaudeIn(claude, home, cwd, args);
  const transcript = (cwd: string, sessionId: string): TranscriptLine[] => transcriptIn(home, cwd, sessionId);

  function cli(cwd: string, ...args: string[]): Record<string, unknown> {
    const run = spawnSync(process.execPath, [CLI, ...args, "--json"], { cwd, encoding: "utf8" });
    expect(run.status, `dotagent ${args.join(" ")}: ${run.stdout}${run.stderr}`).toBe(0);
    return JSON.parse(run.stdout) as Record<string, unknown>;
  }

  /** A project set up the way `dotagent install --scope project` does it, by hand. */
  function makeProject(name: string): string {
    const project = join(work, name);
    mkdirSync(join(project, ".claude"), { recursive: true });
    cpSync(join(ROOT, "skills"), join(project, ".claude", "skills"), { recursive: true });
    cpSync(join(ROOT, "agents"), join(project, ".claude", "agents"), { recursive: true });
    cpSync(CLI, join(project, ".claude/skills/checkpoint/scripts/dotagent.mjs"));
    // The hook line runs the CommonJS entry beside the helper (SPEC §13 "Start-up").
    cpSync(CLI.replace(/\.mjs$/, ".cjs"), join(project, ".claude/skills/checkpoint/scripts/dotagent.cjs"));
    const settings = {
      hooks: {
        SessionStart: [
          { matcher: HOOK_MATCHER, hooks: [{ type: "command", command: hookCommand("project"), timeout: 10 }] },
        ],
      },
    };
    writeFileSync(join(project, ".claude", "settings.json"), `${JSON.stringify(settings, null, 2)}\n`);
    return project;
  }

  beforeAll(() => {
    if (!built) console.warn(`skipping the Claude Code end-to-end tests that need the CLI: ${NOT_BUILT}`);
    claude = fetchClaude();
    work = mkdtempSync(join(tmpdir(), "dotagent-e2e-"));
    home = join(work, "home");
    mkdirSync(home);
  }, 600_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("claude plugin validate accepts the repository as a plugin and a marketplace", () => {
    const { status, stdout, stderr } = spawnSync(claude, ["plugin", "validate", ".", "--json"], {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, HOME: home },
    });
    expect(status, `${stdout}${stderr}`).toBe(0);
    const report = JSON.parse(stdout) as {
      success?: boolean;
      manifest?: { errors?: unknown[] };
      contents?: Array<{ errors?: unknown[] }>;
      provides?: { skills?: string[]; agents?: string[]; hooks?: Array<{ event?: string }> };
    };
    expect(report.success).toBe(true);
    expect([report.manifest?.errors ?? [], ...(report.contents ?? []).map((c) => c.errors ?? [])].flat()).toEqual([]);
    expect(report.provides?.skills).toEqual(["dotagent:checkpoint", "dotagent:develop", "dotagent:status"]);
    expect(report.provides?.agents).toHaveLength(7);
    // validate lists the two Bash entries (same command, each its own `if`) as one; both run (write-guard-client.test.ts).
    expect(report.provides?.hooks?.map((h) => h.event)).toEqual([
      "SessionStart",
      "PreToolUse",
      "PreToolUse",
      "PreToolUse",
      "PostToolUse",
      "PostToolUseFailure",
      "SubagentStart",
      "SubagentStop",
      "UserPromptSubmit",
    ]);
  });

  it("/status shows the person where the workflow stands, with no global dotagent command (the skill runs the helper)", (ctx) => {
    if (!built) ctx.skip(NOT_BUILT);
    const project = makeProject("status");
    cli(project, "init", "--request", "add login");
    const { result } = runClaude(project, ["-p", "/status"]);
    const lines = transcript(project, result.session_id!);
    expect(lines.filter((l) => l.subtype === "local_command" && l.commandOutcome?.kind === "failed")).toEqual([]);
    const expanded = lines.filter(
      (l) => l.type === "user" && l.isMeta === true && textOf(l).includes("Show the person this"),
    );
    expect(expanded).toHaveLength(1);
    const text = textOf(expanded[0]!);
    expect(text).toContain("wf-add-login");
    expect(text).toMatch(/REQ · ─ ARCH · ─ IMPL · ─ VERIF · ─ REFL ·|at REQUIREMENTS/);
    // Nothing was written: status reads only.
    expect(cli(project, "log").total).toBe(1);
  });

  it("/develop hands the request to dotagent byte for byte, whatever characters it holds", (ctx) => {
    if (!built) ctx.skip(NOT_BUILT);
    const project = makeProject("hostile");
    const marker = join(work, "pwned");
    const request = `add "login" for $HOME users; it's \`id\` $(touch ${marker}) & (really) | done`;
    cli(project, "init", "--request", request);

    const { result } = runClaude(project, ["-p", `/develop ${request}`]);
    const lines = transcript(project, result.session_id!);
    const plan = developPlan(lines);
    // A request that differed by one character would ask to start over instead.
    expect(plan.decision).toBeNull();
    expect(plan.situation).not.toBe("request_changed");
    expect(plan.next).toMatchObject({ action: "spawn_agent", agent: "pm" });
    expect(existsSync(marker)).toBe(false);
    // The startup hook briefed this new session on the open workflow.
    expect(briefings(lines)).toHaveLength(1);
  });

  it("/develop shows a decision (resume exit 5) instead of failing the command", (ctx) => {
    if (!built) ctx.skip(NOT_BUILT);
    const project = makeProject("decision");
    cli(project, "init", "--request", "add login");

    const { result } = runClaude(project, ["-p", "/develop add signup"]);
    const plan = developPlan(transcript(project, result.session_id!));
    expect(plan.next).toMatchObject({ action: "confirm_request_change" });
    expect(plan.decision).toMatchObject({ default: false });
  });

  it("works as a plugin: /dotagent:develop and the plugin's SessionStart hook", (ctx) => {
    if (!built) ctx.skip(NOT_BUILT);
    const plugin = join(ROOT, "plugin");
    const project = join(work, "plugin-user");
    mkdirSync(project);
    const started = cli(project, "init", "--request", "add login");

    const { result } = runClaude(project, ["-p", "/dotagent:develop add login", "--plugin-dir", plugin]);
    const lines = transcript(project, result.session_id!);
    const plan = developPlan(lines);
    expect(plan.workflow_id).toBe(started.workflow_id);
    expect(plan.next).toMatchObject({ action: "spawn_agent", agent: "pm" });
    const briefing = briefings(lines);
    expect(briefing).toHaveLength(1);
    expect(briefing[0]).toContain(String(started.workflow_id));
  });
});
