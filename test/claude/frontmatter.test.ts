// The Claude Code content (skills, agents, plugin manifest, hooks) is data that Claude Code reads
// with its own rules; these tests hold it to those rules and to dotagent's contract, so a typo
// shows up here rather than as a skill that silently never loads.
import { BUILTIN_WORKFLOWS } from "../../src/core/workflow-defs.js";
import { describe, it, expect } from "vitest";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join, posix, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ACTIONS } from "../../src/core/plan-resume.js";
import { PHASE_TABLE, PHASES, REPORT } from "../../src/core/phases.js";
import { HOOK_MATCHER } from "../../src/claude/install.js";
import {
  bashRuleToRegExp,
  parseFrontmatter,
  shellCommandsIn,
  splitToolList,
  type FrontmatterValue,
} from "./frontmatter.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const HELPER = "skills/checkpoint/scripts/dotagent.mjs";
/** What the hooks run: the helper's CommonJS entry beside it (SPEC §13 "Start-up"). */
const HOOK_ENTRY = "skills/checkpoint/scripts/dotagent.cjs";

const read = (rel: string) => readFileSync(join(ROOT, rel), "utf8");
const readJson = (rel: string) => JSON.parse(read(rel)) as Record<string, unknown>;

function frontmatterOf(rel: string): { data: Record<string, FrontmatterValue>; body: string } {
  const parsed = parseFrontmatter(read(rel));
  if (!parsed.ok) throw new Error(`${rel}: ${parsed.error}`);
  return parsed;
}

const skills = readdirSync(join(ROOT, "skills"), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();
const agents = readdirSync(join(ROOT, "agents"))
  .filter((f) => f.endsWith(".md"))
  .map((f) => basename(f, ".md"))
  .sort();

// Keys Claude Code reads in SKILL.md and agent frontmatter; anything else is most likely a typo
// (allowed_tools, disable-model-invokation) that Claude Code would ignore without a word.
const SKILL_KEYS = new Set([
  "name",
  "description",
  "allowed-tools",
  "argument-hint",
  "disable-model-invocation",
  "user-invocable",
  "model",
  "effort",
  "context",
  "agent",
  "when_to_use",
  "license",
  "version",
]);
const AGENT_KEYS = new Set(["name", "description", "tools", "disallowedTools", "model", "color", "effort"]);
const AGENT_TOOLS = new Set([
  "Read",
  "Write",
  "Edit",
  "MultiEdit",
  "Bash",
  "Grep",
  "Glob",
  "WebFetch",
  "WebSearch",
  "NotebookEdit",
  "TodoWrite",
]);

describe("the frontmatter reader", () => {
  it.each([
    ["---\nname: x\ndescription: Does y.\n---\nbody", { name: "x", description: "Does y." }],
    ["---\nflag: true\nquoted: \"a: b\"\nsingle: 'it''s'\n---\n", { flag: true, quoted: "a: b", single: "it's" }],
    ["---\nname: x\n# a comment\n\n---\n", { name: "x" }],
  ])("reads %j", (source, expected) => {
    const parsed = parseFrontmatter(source);
    expect(parsed.ok && parsed.data).toEqual(expected);
  });

  it.each([
    ["no frontmatter", "name: x\n"],
    ["no closing line", "---\nname: x\n"],
    ["a second ': ' in a plain value", "---\ndescription: Runs: a feature\n---\n"],
    ["a ' #' comment in a plain value", "---\ndescription: Use it #1\n---\n"],
    ["an indented list", "---\ntools:\n  - Read\n---\n"],
    ["a duplicate key", "---\nname: a\nname: b\n---\n"],
    ["a backtick at the start of a value", "---\ndescription: `x` y\n---\n"],
    ["an unterminated quote", '---\ndescription: "abc\n---\n'],
  ])("refuses %s", (_, source) => {
    expect(parseFrontmatter(source).ok).toBe(false);
  });

  it("finds the shell commands Claude Code would run", () => {
    expect(shellCommandsIn("a\n```!\necho hi\n```\nand !`date` but not `!x` nor a!`b`")).toEqual(["echo hi", "date"]);
  });

  it("matches Bash(…) permission rules like Claude Code's wildcard", () => {
    const rule = bashRuleToRegExp("Bash(node *dotagent.mjs *)")!;
    expect(rule.test("node /p/.claude/skills/develop/../checkpoint/scripts/dotagent.mjs resume --json")).toBe(true);
    expect(rule.test('node "/p/dotagent.mjs" resume --json')).toBe(false);
    expect(rule.test("npm test")).toBe(false);
    // The skills' rule (and the PreToolUse entry's `if`): either entry of the helper, nothing else.
    const either = bashRuleToRegExp("Bash(node *dotagent.*js*)")!;
    for (const entry of ["cjs", "mjs"]) expect(either.test(`node "/p/x/scripts/dotagent.${entry}" status`)).toBe(true);
    expect(either.test('node "/p/x/scripts/other.cjs" status')).toBe(false);
    expect(splitToolList("Bash(node *dotagent.mjs*), Read Glob")).toEqual([
      "Bash(node *dotagent.mjs*)",
      "Read",
      "Glob",
    ]);
  });
});

describe.each(skills)("skills/%s/SKILL.md", (skill) => {
  const rel = `skills/${skill}/SKILL.md`;

  it("has frontmatter with a name matching its folder and a description", () => {
    const { data } = frontmatterOf(rel);
    expect(data.name).toBe(skill);
    expect(skill).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    expect(skill.length).toBeLessThanOrEqual(64);
    expect(typeof data.description).toBe("string");
    expect((data.description as string).length).toBeGreaterThan(40);
    expect((data.description as string).length).toBeLessThanOrEqual(1024);
    for (const key of Object.keys(data)) expect(SKILL_KEYS, `unknown key ${key}`).toContain(key);
  });

  it("lets the agent run the helper script without a permission prompt", () => {
    const { data } = frontmatterOf(rel);
    const rules = splitToolList(String(data["allowed-tools"] ?? ""))
      .map(bashRuleToRegExp)
      .filter((r) => r !== null);
    // Claude Code matches a simple command as written (quotes included) and the parts of a
    // compound one (`… || true`) unquoted: the rule must permit both spellings.
    // The skills' lines run dotagent.cjs; an earlier skill's (a resumed session's) dotagent.mjs.
    for (const helperRun of ["cjs", "mjs"].flatMap((entry) => [
      `node "/project/.claude/skills/${skill}/../checkpoint/scripts/dotagent.${entry}" resume --json`,
      `node /project/.claude/skills/${skill}/../checkpoint/scripts/dotagent.${entry} resume --json`,
    ])) {
      expect(
        rules.some((r) => r.test(helperRun)),
        `allowed-tools must permit ${helperRun}`,
      ).toBe(true);
    }
  });

  it("refers to the helper by a path relative to its own folder, which is where the build puts it", () => {
    const { body } = frontmatterOf(rel);
    const refs = [...body.matchAll(/\$\{CLAUDE_SKILL_DIR\}([^"\s`]*)/g)].map((m) => m[1] ?? "");
    // Its lines run the helper through its CommonJS entry (SPEC §13 "Start-up"), never the .mjs.
    expect(refs.filter((r) => r.endsWith("dotagent.mjs"))).toEqual([]);
    const helperRefs = refs.filter((r) => r.endsWith("dotagent.cjs"));
    expect(helperRefs.length).toBeGreaterThan(0);
    for (const ref of helperRefs) expect(posix.normalize(`skills/${skill}${ref}`)).toBe(HOOK_ENTRY);
    // Any other file it names (what only some situations need) is there, beside it.
    for (const ref of refs.filter((r) => !r.endsWith("dotagent.cjs")))
      expect(existsSync(join(ROOT, `skills/${skill}${ref}`)), ref).toBe(true);
    // The build copies the helper there (scripts/build.mjs), with its CommonJS entry for the hooks.
    expect(existsSync(join(ROOT, HELPER)) && existsSync(join(ROOT, HOOK_ENTRY))).toBe(true);
  });

  // /status only shows `dotagent status` to the person: it acts on no next.action.
  it.skipIf(skill === "status")("names every next.action and tells the agent never to edit memory/state", () => {
    const { body } = frontmatterOf(rel);
    for (const action of ACTIONS) expect(body, action).toContain(action);
    expect(body).toMatch(/[Nn]ever write `memory\/state\/`|Never create, edit, move or delete anything there/);
  });
});

describe("skills/checkpoint/SKILL.md", () => {
  const { data, body } = frontmatterOf("skills/checkpoint/SKILL.md");

  it("is for the model to load on its own, with the trigger first in its description", () => {
    expect(data["disable-model-invocation"]).not.toBe(true);
    expect(String(data.description)).toMatch(/^Use (at|when)/);
  });

  it("runs nothing while it loads", () => {
    expect(shellCommandsIn(body)).toEqual([]);
  });

  it("explains every exit code, decisions, and that the hooks record agents' starts and results", () => {
    for (const code of [0, 1, 2, 3, 4, 5]) expect(body).toMatch(new RegExp(`^\\| ${code} \\|`, "m"));
    expect(body).toContain("decision.yes");
    expect(body).toContain("--json");
    expect(body).toContain("dotagent resume --json");
    expect(body).toMatch(/hooks record each agent's start and result/);
  });
});

describe("skills/develop/SKILL.md", () => {
  const { data, body } = frontmatterOf("skills/develop/SKILL.md");

  it("is the /develop command: user-invocable, not model-invocable, with an argument hint", () => {
    expect(data["user-invocable"]).not.toBe(false);
    expect(data["disable-model-invocation"]).toBe(true);
    expect(String(data["argument-hint"] ?? "")).not.toBe("");
  });

  it("runs exactly one shell command at load: resume --json with the request, and never fails the expansion", () => {
    const commands = shellCommandsIn(body);
    expect(commands).toHaveLength(1);
    const command = commands[0]!;
    expect(command).toMatch(
      /^node "\$\{CLAUDE_SKILL_DIR\}\/\.\.\/checkpoint\/scripts\/dotagent\.cjs" resume --json --start --request=/,
    );
    // The request travels in a quoted here-document, so no character of it reaches the shell.
    expect(command).toMatch(/"\$\(cat <<'([A-Z_]+)'\n\$ARGUMENTS\n\1\n\)"/);
    // Claude Code drops the whole skill when a `!` command exits non-zero; resume exits 3 or 5.
    expect(command).toMatch(/\|\| true$/);
  });

  it("spawns every agent of the phase table, the roundtable included", () => {
    for (const phase of PHASES) expect(body).toContain(`\`${PHASE_TABLE[phase]!.agent}\``);
    expect(body).toContain("`roundtable`");
  });

  it("drives the gates, plans and dead tasks through dotagent; leaves starts and results to the hooks", () => {
    const tasks = read("skills/develop/references/tasks.md");
    for (const step of ["phase approve REQUIREMENTS --json", "phase approve ARCHITECTURE --pick", "resume --json"])
      expect(body, step).toContain(step);
    for (const step of ["task import <next.plan_file> --json", "task retry <id> --extra-attempts N"])
      expect(tasks, step).toContain(step);
    expect(body).toContain(REPORT.finalDesign);
    // The model never records an agent's start or result: dotagent's hooks do.
    for (const never of ["task start", "task complete", "phase complete"]) expect(body, never).not.toContain(never);
    expect(body).toMatch(/You never start, complete or fail tasks or phases/);
    // Every agent gets the prompt lines the hooks read.
    for (const line of ["Feature request:", "Phase:", "Design name:", "Task:", "Output file:"])
      expect(body, line).toContain(line);
    expect(body.length, "the skill body stays small: it is read on every /develop").toBeLessThan(8000);
  });

  it("tells a literal follower what to do with a cut-off Claude Code Workflow run (issue 43)", () => {
    for (const skill of [body, frontmatterOf("skills/checkpoint/SKILL.md").body]) {
      expect(skill).toContain("`claude_workflow_runs`");
      expect(skill).toContain("`dotagent: Claude");
      expect(skill).toMatch(/`resumable`: when the person asks to\s+go on, make its `call` exactly/);
      expect(skill).toMatch(/`ask`: /);
      expect(skill).toMatch(/`running`: [^.]*leave it/);
    }
  });
});

describe("agents", () => {
  const outputs: Record<string, string> = {
    pm: REPORT.demand,
    architect: `${REPORT.designsDir}/<name>.json`,
    roundtable: REPORT.roundtable,
    executor: `${REPORT.tasksDir}/<task-id>.json`,
    qa: REPORT.verification,
    reflector: REPORT.reflectionJson,
    reproducer: "memory/reports/reproduction.json",
  };

  it("has one agent for every agent a built-in workflow names (develop's phase table, fix)", () => {
    const needed = new Set([
      ...PHASES.map((p) => PHASE_TABLE[p]!.agent!),
      "roundtable",
      ...Object.values(BUILTIN_WORKFLOWS).flatMap((d) =>
        (d.steps ?? []).flatMap((s) => [s.agent, s.reducer]).filter((a): a is string => a !== undefined),
      ),
    ]);
    expect(agents).toEqual([...needed].sort());
  });

  it.each(agents)("agents/%s.md has valid frontmatter, its output file, and leaves the state to /develop", (agent) => {
    const { data, body } = frontmatterOf(`agents/${agent}.md`);
    expect(data.name).toBe(agent);
    expect(String(data.description ?? "").length).toBeGreaterThan(40);
    for (const key of Object.keys(data)) expect(AGENT_KEYS, `unknown key ${key}`).toContain(key);
    const tools = String(data.tools ?? "")
      .split(",")
      .map((t) => t.trim());
    for (const tool of tools) expect(AGENT_TOOLS, `unknown tool ${tool}`).toContain(tool);
    expect(tools).toContain("Write");
    if (data.model !== undefined) expect(["sonnet", "opus", "haiku", "inherit"]).toContain(data.model);
    const prose = body.replace(/\s+/g, " ");
    expect(body).toContain(outputs[agent]);
    expect(prose).toContain("single Write call holding the complete content");
    expect(body).toMatch(/Idempotent/);
    expect(prose).toContain("do not run dotagent");
    expect(body).toContain("memory/state/");
    expect(shellCommandsIn(body)).toEqual([]);
  });

  it("asks for the fields dotagent checks: passed in verification.json, task_id and status in a task report", () => {
    expect(frontmatterOf("agents/qa.md").body).toMatch(/"passed": (true|false)/);
    const executor = frontmatterOf("agents/executor.md").body;
    expect(executor).toContain('"task_id"');
    expect(executor).toContain('"status": "complete"');
  });
});

describe("the plugin", () => {
  const plugin = readJson(".claude-plugin/plugin.json");
  const hooks = readJson("hooks/hooks.json") as {
    hooks?: Record<
      string,
      Array<{ matcher?: string; hooks?: Array<{ type?: string; command?: string; timeout?: number }> }>
    >;
  };

  it("plugin.json names the plugin and keeps the package's version", () => {
    expect(plugin.name).toBe("dotagent");
    expect(plugin.version).toBe(readJson("package.json").version);
    expect(String(plugin.description ?? "")).not.toBe("");
    // Component paths, when given, must exist (the default folders are found without them).
    for (const key of ["skills", "agents", "commands", "hooks"]) {
      const value = plugin[key];
      for (const path of value === undefined ? [] : Array.isArray(value) ? value : [value])
        expect(existsSync(join(ROOT, String(path))), `${key}: ${String(path)}`).toBe(true);
    }
  });

  it("hooks.json runs the helper's session-start hook on every kind of session start, and the loop's hooks", () => {
    expect(Object.keys(hooks.hooks ?? {})).toEqual([
      "SessionStart",
      "PreToolUse",
      "PostToolUse",
      "PostToolUseFailure",
      "SubagentStart",
      "SubagentStop",
      "UserPromptSubmit",
    ]);
    const groups = hooks.hooks?.SessionStart ?? [];
    expect(groups).toHaveLength(1);
    expect(groups[0]!.matcher).toBe(HOOK_MATCHER);
    const hook = groups[0]!.hooks?.[0];
    expect(hook?.type).toBe("command");
    expect(hook?.command).toBe(`node "\${CLAUDE_PLUGIN_ROOT}/${HOOK_ENTRY}" hook session-start`);
    expect(hook?.timeout).toBeLessThanOrEqual(30);
  });

  it("marketplace.json lists the lean plugin folder as the plugin", () => {
    const market = readJson(".claude-plugin/marketplace.json") as {
      name?: string;
      owner?: { name?: string };
      plugins?: Array<{ name?: string; source?: string }>;
    };
    expect(market.name).toMatch(/^[a-z0-9-]+$/);
    expect(market.owner?.name).toBeTruthy();
    expect(market.plugins).toHaveLength(1);
    expect(market.plugins![0]!.name).toBe(plugin.name);
    expect(market.plugins![0]!.source).toBe("./plugin");
    expect(existsSync(join(ROOT, market.plugins![0]!.source!, ".claude-plugin/plugin.json"))).toBe(true);
  });

  it("ships in the npm package", () => {
    const files = readJson("package.json").files as string[];
    for (const dir of ["skills/", "agents/", "hooks/", ".claude-plugin/"]) expect(files).toContain(dir);
  });
});
