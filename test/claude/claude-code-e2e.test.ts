// End to end with the REAL Claude Code binary (opt-in: DOTAGENT_E2E_CLAUDE=1). There is no model
// here: Claude Code runs with an isolated HOME, a dummy key and an API address nobody listens
// on. It still runs the SessionStart hook, expands /develop with its shell line, and writes the
// session transcript before the model call fails, and the transcript is what these tests read.
// See test/claude/NOTES.md for what was learned about the binary.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { HOOK_MATCHER, hookCommand } from "../../src/claude/install.js";
import { jsonObjectsIn } from "./scripted-model/policy.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const CLI = join(ROOT, "dist/dotagent.mjs");
const ENABLED = process.env.DOTAGENT_E2E_CLAUDE === "1";
const NOT_BUILT = "dist/dotagent.mjs is missing: run `npm run build` (npm test does) before the Claude Code end-to-end test";

interface TranscriptLine {
  type?: string;
  subtype?: string;
  isMeta?: boolean;
  message?: { content?: unknown };
  attachment?: { type?: string; content?: unknown; hookName?: string; exitCode?: number; stdout?: string };
  commandOutcome?: { kind?: string };
  content?: string;
}

function textOf(line: TranscriptLine): string {
  const content = line.message?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((c) => (typeof c === "object" && c !== null && "text" in c ? String((c as { text: unknown }).text) : "")).join("\n");
  return "";
}

describe.skipIf(!ENABLED)("Claude Code end to end (DOTAGENT_E2E_CLAUDE=1)", () => {
  const built = existsSync(CLI);
  let claude = "";
  let work = "";
  let home = "";

  /** Runs the claude binary in `cwd` with an isolated HOME and no reachable model. */
  function runClaude(cwd: string, args: string[]): { run: SpawnSyncReturns<string>; result: { session_id?: string; is_error?: boolean } } {
    const env: NodeJS.ProcessEnv = {};
    // Nothing of an outer Claude Code session (or of a real account) may leak in.
    for (const [key, value] of Object.entries(process.env)) if (!/^(CLAUDE|ANTHROPIC|CLAUDECODE)/.test(key)) env[key] = value;
    Object.assign(env, {
      HOME: home,
      ANTHROPIC_API_KEY: "dummy",
      ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
      CLAUDE_CODE_MAX_RETRIES: "0",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_TELEMETRY: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      NO_COLOR: "1",
    });
    const run = spawnSync(claude, [...args, "--output-format", "json"], { cwd, env, encoding: "utf8", timeout: 90_000, input: "" });
    let result = {};
    try {
      result = JSON.parse(run.stdout) as object;
    } catch {
      throw new Error(`claude printed no JSON result (exit ${run.status ?? run.signal}):\n${run.stdout}\n${run.stderr}`);
    }
    return { run, result };
  }

  function transcript(cwd: string, sessionId: string): TranscriptLine[] {
    const file = join(home, ".claude", "projects", cwd.replace(/[^a-zA-Z0-9]/g, "-"), `${sessionId}.jsonl`);
    expect(existsSync(file), `transcript ${file}`).toBe(true);
    return readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as TranscriptLine);
  }

  /** The resume plan /develop put into the prompt: the JSON object in the expanded skill text. */
  function developPlan(lines: TranscriptLine[]): Record<string, unknown> {
    const failed = lines.filter((l) => l.subtype === "local_command" && l.commandOutcome?.kind === "failed");
    expect(failed.map((l) => l.content), "the skill expansion failed").toEqual([]);
    const expanded = lines.filter((l) => l.type === "user" && l.isMeta === true && textOf(l).includes("# /develop: drive the dotagent workflow"));
    expect(expanded).toHaveLength(1);
    const plans = jsonObjectsIn(textOf(expanded[0]!)).filter((o) => "next" in o && "situation" in o);
    expect(plans).toHaveLength(1);
    return plans[0]!;
  }

  const briefings = (lines: TranscriptLine[]) => lines.filter((l) => l.attachment?.type === "hook_additional_context").map((l) => [l.attachment!.content].flat().join("\n"));

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
    const settings = { hooks: { SessionStart: [{ matcher: HOOK_MATCHER, hooks: [{ type: "command", command: hookCommand("project"), timeout: 10 }] }] } };
    writeFileSync(join(project, ".claude", "settings.json"), `${JSON.stringify(settings, null, 2)}\n`);
    return project;
  }

  beforeAll(() => {
    if (!built) console.warn(`skipping the Claude Code end-to-end tests that need the CLI: ${NOT_BUILT}`);
    const fetched = spawnSync(process.execPath, [join(ROOT, "scripts/fetch-claude.mjs")], { encoding: "utf8", timeout: 600_000 });
    if (fetched.status !== 0) throw new Error(`scripts/fetch-claude.mjs failed: ${fetched.stderr}`);
    claude = fetched.stdout.trim();
    work = mkdtempSync(join(tmpdir(), "dotagent-e2e-"));
    home = join(work, "home");
    mkdirSync(home);
  }, 600_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("claude plugin validate accepts the repository as a plugin and a marketplace", () => {
    const { status, stdout, stderr } = spawnSync(claude, ["plugin", "validate", ".", "--json"], { cwd: ROOT, encoding: "utf8", env: { ...process.env, HOME: home } });
    expect(status, `${stdout}${stderr}`).toBe(0);
    const report = JSON.parse(stdout) as { success?: boolean; manifest?: { errors?: unknown[] }; contents?: Array<{ errors?: unknown[] }>; provides?: { skills?: string[]; agents?: string[]; hooks?: Array<{ event?: string }> } };
    expect(report.success).toBe(true);
    expect([report.manifest?.errors ?? [], ...(report.contents ?? []).map((c) => c.errors ?? [])].flat()).toEqual([]);
    expect(report.provides?.skills).toEqual(["dotagent:checkpoint", "dotagent:develop"]);
    expect(report.provides?.agents).toHaveLength(6);
    expect(report.provides?.hooks?.map((h) => h.event)).toEqual(["SessionStart"]);
  });

  it("/develop has the resume plan in the prompt before the model's first word; a resumed session gets the briefing", (ctx) => {
    if (!built) ctx.skip(NOT_BUILT);
    const project = makeProject("fresh");

    const first = runClaude(project, ["-p", "/develop add login"]);
    const sessionId = first.result.session_id!;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const lines = transcript(project, sessionId);
    const plan = developPlan(lines);
    expect(plan.situation).toBe("none");
    expect(plan.next).toMatchObject({ action: "start_workflow", agent: "pm" });
    // No workflow yet: the startup hook ran and said nothing.
    expect(briefings(lines)).toEqual([]);
    expect(existsSync(join(project, "memory/state/phase.json"))).toBe(false);

    // The agent would now start the workflow; do it as it would, then resume the session.
    const started = cli(project, "init", "--request", "add login");
    cli(project, "phase", "start", "REQUIREMENTS");
    runClaude(project, ["-p", "--resume", sessionId, "continue"]);
    const resumed = transcript(project, sessionId);
    const hook = resumed.find((l) => l.attachment?.type === "hook_success" && l.attachment.hookName === "SessionStart:resume");
    expect(hook?.attachment?.exitCode).toBe(0);
    const briefing = briefings(resumed);
    expect(briefing).toHaveLength(1);
    expect(briefing[0]).toContain(String(started.workflow_id));
    expect(briefing[0]).toContain("REQUIREMENTS");
    expect(briefing[0]).toContain("/develop");
    expect(briefing[0]!.length).toBeLessThan(10_000);
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
    const plugin = join(work, "plugin");
    for (const part of [".claude-plugin", "skills", "agents", "hooks"]) cpSync(join(ROOT, part), join(plugin, part), { recursive: true });
    cpSync(CLI, join(plugin, "skills/checkpoint/scripts/dotagent.mjs"));
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

  it("works in a project set up by `dotagent install`", (ctx) => {
    if (!built) ctx.skip(NOT_BUILT);
    const project = join(work, "installed");
    mkdirSync(project);
    cli(project, "install", "--scope", "project", "--dir", project);
    const started = cli(project, "init", "--request", "add login");

    const { result } = runClaude(project, ["-p", "/develop add login"]);
    const lines = transcript(project, result.session_id!);
    expect(developPlan(lines).workflow_id).toBe(started.workflow_id);
    expect(briefings(lines)).toHaveLength(1);
    expect(readdirSync(join(project, ".claude", "agents")).sort()).toEqual(["architect.md", "executor.md", "pm.md", "qa.md", "reflector.md", "roundtable.md"]);
  });
});
