// What the REAL Claude Code does that the task worktrees depend on (opt-in: DOTAGENT_E2E_CLAUDE=1;
// SPEC §19, test/claude/NOTES.md "Task worktrees"). A project with a probe agent and logging hooks;
// the scripted model's place is taken by a probe policy that spawns the agent once and has it try
// things. Checked:
// - `isolation: "worktree"` on the Agent call (why dotagent makes its own worktrees instead):
//   the worktree branches from the default branch (origin/HEAD), not the checkout's branch, unless
//   `worktree.baseRef` is "head"; the isolated agent cannot Write the main checkout (so not its
//   report in memory/reports/); nothing is merged and the worktree stays after the agent ends;
// - a PreToolUse hook's `updatedInput` rewrites the Agent call's prompt (how an executor learns its
//   worktree), in print mode and in the interactive terminal (there the agent runs in the background);
// - in a sub-agent's Bash a `cd` does not carry over to the next command; `cd <dir> && git …`
//   always asks; `git -C <dir> …` runs once the person allows `Bash(git -C:*)`.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENABLED, fetchClaude } from "./harness.js";
import { runClaude } from "./scripted-model/client.js";
import { startScriptedModel } from "./scripted-model/server.js";
import type { ApiRequest, ContentBlock, Reply } from "./scripted-model/policy.js";
import { startTerminal, tmuxAvailable } from "./scripted-model/terminal.js";

const IDENT = ["-c", "user.name=t", "-c", "user.email=t@t"];
const git = (cwd: string, ...a: string[]) =>
  spawnSync("git", [...IDENT, ...a], { cwd, encoding: "utf8" }).stdout.trim();
const systemOf = (b: ApiRequest) =>
  typeof b.system === "string" ? b.system : (b.system ?? []).map((s) => s.text ?? "").join("\n");
const blocks = (b: ApiRequest): ContentBlock[] =>
  (b.messages ?? []).flatMap((m) => (Array.isArray(m.content) ? m.content : []));
const textOf = (c: unknown) => (typeof c === "string" ? c : JSON.stringify(c));
let ids = 0;
const tool = (who: string, name: string, input: Record<string, unknown>): Reply => ({
  who,
  stop: "tool_use",
  blocks: [{ type: "tool_use", id: `toolu_wtprobe_${++ids}`, name, input }],
});
const say = (who: string, text: string): Reply => ({ who, stop: "end_turn", blocks: [{ type: "text", text }] });

interface Probe {
  agentCall?: Record<string, unknown>;
  addLine?: string;
  settings?: Record<string, unknown>;
  /** The probe agent's tool calls, given the project folder. */
  steps: (project: string) => Array<{ name: string; input: Record<string, unknown> }>;
  terminal?: boolean;
  before?: (project: string) => void;
}

interface Observed {
  project: string;
  results: string[];
  hooks: Array<Record<string, unknown>>;
  agentPrompt: string;
}

/** A repository on branch `feature`, one commit ahead of `main`, which origin/HEAD names the default. */
function repository(work: string): string {
  const origin = join(work, "origin.git");
  const project = join(work, "project");
  mkdirSync(project);
  git(work, "init", "-q", "--bare", "-b", "main", origin);
  git(project, "init", "-q", "-b", "main");
  writeFileSync(join(project, "README.md"), "# demo\n");
  git(project, "add", ".");
  git(project, "commit", "-qm", "on main");
  git(project, "remote", "add", "origin", origin);
  git(project, "push", "-q", "origin", "main");
  git(project, "remote", "set-head", "origin", "main");
  git(project, "switch", "-q", "-c", "feature");
  writeFileSync(join(project, "feature.txt"), "feature\n");
  git(project, "add", ".");
  git(project, "commit", "-qm", "on feature");
  return project;
}

const works: string[] = [];
afterAll(() => {
  for (const w of works) rmSync(w, { recursive: true, force: true });
});

async function probe(claude: string, options: Probe): Promise<Observed> {
  const work = mkdtempSync(join(tmpdir(), "dotagent-wtclient-"));
  works.push(work);
  const home = join(work, "home");
  mkdirSync(home);
  const project = repository(work);
  options.before?.(project);
  const log = join(work, "hooks.jsonl");
  mkdirSync(join(project, ".claude", "agents"), { recursive: true });
  writeFileSync(
    join(project, ".claude/agents/probe.md"),
    "---\nname: probe\ndescription: probe agent\ntools: Bash, Write, Read\n---\n\nPROBE AGENT BODY. Do what you are told.\n",
  );
  const hook = join(work, "hook.mjs");
  const add = options.addLine ? JSON.stringify(options.addLine) : "null";
  writeFileSync(
    hook,
    `import { appendFileSync, readFileSync } from "node:fs";
const input = JSON.parse(readFileSync(0, "utf8"));
appendFileSync(${JSON.stringify(log)}, JSON.stringify(input) + "\\n");
const add = ${add};
if (process.argv[2] === "pre" && add && input.tool_name === "Agent") {
  const ti = input.tool_input;
  process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", permissionDecisionReason: "probe", updatedInput: { ...ti, prompt: ti.prompt + "\\n" + add } } }));
}
`,
  );
  const h = (arg: string) => [{ type: "command", command: `node ${hook} ${arg}`, timeout: 10 }];
  writeFileSync(
    join(project, ".claude/settings.json"),
    JSON.stringify(
      {
        hooks: {
          PreToolUse: [{ matcher: "Agent", hooks: h("pre") }],
          PostToolUse: [{ matcher: "Agent", hooks: h("post") }],
          SubagentStop: [{ matcher: "", hooks: h("stop") }],
        },
        ...options.settings,
      },
      null,
      2,
    ),
  );
  const results: string[] = [];
  const steps = options.steps(project);
  const model = await startScriptedModel({
    logFile: join(work, "model.jsonl"),
    agentsDir: join(project, ".claude/agents"),
    policy: (body) => {
      const tools = (body.tools ?? []).map((t) => t.name);
      if (systemOf(body).includes("PROBE AGENT BODY")) {
        const made = blocks(body).filter((c) => c.type === "tool_use").length;
        const last = blocks(body)
          .filter((c) => c.type === "tool_result")
          .at(-1);
        if (last && results.length < made) results.push(textOf(last.content));
        if (made < steps.length) return tool("probe", steps[made]!.name, steps[made]!.input);
        if (tools.includes("SubagentHandback") && made === steps.length)
          return tool("probe", "SubagentHandback", { message: "probe done" });
        return say("probe", "probe done");
      }
      if (/security monitor/.test(systemOf(body)))
        return say(
          "monitor",
          /<severity>N<\/severity>/.test(JSON.stringify(body.messages?.at(-1)))
            ? "<severity>0</severity>"
            : "<block>no</block>",
        );
      if (tools.includes("Agent") && tools.includes("Bash")) {
        if (!JSON.stringify(body.messages ?? []).includes("toolu_wtprobe_main"))
          return {
            who: "main",
            stop: "tool_use",
            blocks: [
              {
                type: "tool_use",
                id: "toolu_wtprobe_main",
                name: "Agent",
                input: {
                  description: "probe",
                  prompt: "Task: probe\nOutput file: x",
                  subagent_type: "probe",
                  run_in_background: false,
                  ...options.agentCall,
                },
              },
            ],
          };
        return say("main", "all done");
      }
      return say("side", "side");
    },
  });
  try {
    if (options.terminal) {
      const key = "sk-ant-dummy-key-0123456789abcdefghij";
      writeFileSync(
        join(home, ".claude.json"),
        JSON.stringify({
          hasCompletedOnboarding: true,
          customApiKeyResponses: { approved: [key.slice(-20)], rejected: [] },
          projects: { [project]: { hasTrustDialogAccepted: true } },
        }),
      );
      const term = startTerminal(
        { binary: claude, home, url: model.url, env: { ANTHROPIC_API_KEY: key, CLAUDE_CODE_AUTO_MODE_SERVER: "0" } },
        project,
      );
      try {
        await term.waitFor(/auto mode on/, 30_000);
        await new Promise((r) => setTimeout(r, 800));
        term.type("probe");
        const deadline = Date.now() + 60_000;
        while (Date.now() < deadline && !(existsSync(log) && readFileSync(log, "utf8").includes("SubagentStop")))
          await new Promise((r) => setTimeout(r, 300));
      } finally {
        term.close();
      }
    } else {
      writeFileSync(
        join(home, ".claude.json"),
        JSON.stringify({ projects: { [project]: { hasTrustDialogAccepted: true } } }),
      );
      await runClaude({ binary: claude, home, url: model.url }, project, [
        "-p",
        "probe",
        "--permission-mode",
        "acceptEdits",
      ]);
    }
  } finally {
    await model.close();
  }
  const hooks = existsSync(log)
    ? readFileSync(log, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>)
    : [];
  const stop = hooks.find((hk) => hk.hook_event_name === "SubagentStop");
  const first =
    stop?.agent_transcript_path && existsSync(String(stop.agent_transcript_path))
      ? (JSON.parse(readFileSync(String(stop.agent_transcript_path), "utf8").split("\n")[0]!) as {
          message?: { content?: unknown };
        })
      : undefined;
  return { project, results, hooks, agentPrompt: textOf(first?.message?.content ?? "") };
}

describe.skipIf(!ENABLED)("what Claude Code does that task worktrees depend on (DOTAGENT_E2E_CLAUDE=1)", () => {
  let claude = "";
  beforeAll(() => {
    claude = fetchClaude();
  }, 600_000);

  it('isolation: "worktree" branches from the default branch, refuses writes to the main checkout, merges nothing', async () => {
    const seen = await probe(claude, {
      agentCall: { isolation: "worktree" },
      steps: (project) => [
        {
          name: "Bash",
          input: { command: "pwd; git rev-parse --abbrev-ref HEAD; git log --format=%s -1", description: "where" },
        },
        { name: "Write", input: { file_path: join(project, "memory/reports/tasks/probe.json"), content: "{}\n" } },
        // A relative path lands in the agent's own folder (its worktree): a change, so the worktree stays.
        { name: "Write", input: { file_path: "written-by-the-agent.txt", content: "x\n" } },
      ],
    });
    const [where = "", report = ""] = seen.results;
    expect(where).toMatch(/\/\.claude\/worktrees\/agent-[0-9a-f]+\nworktree-agent-[0-9a-f]+\non main$/); // not "on feature", the checkout's branch
    expect(report).toMatch(
      /This agent is isolated in the worktree .*\. Edit the worktree copy of this file instead of the shared-checkout path/,
    );
    expect(existsSync(join(seen.project, "memory/reports/tasks/probe.json"))).toBe(false);
    const worktrees = git(seen.project, "worktree", "list", "--porcelain")
      .split("\n")
      .filter((l) => l.startsWith("worktree "));
    expect(worktrees).toHaveLength(2); // left behind, with the agent's file
    expect(existsSync(join(worktrees[1]!.slice("worktree ".length), "written-by-the-agent.txt"))).toBe(true);
    expect(git(seen.project, "log", "--format=%s", "-1", "feature")).toBe("on feature"); // nothing merged
    const post = seen.hooks.find((h) => h.hook_event_name === "PostToolUse");
    expect(JSON.stringify(post?.tool_response)).toMatch(/worktreePath/);
    expect(String(seen.hooks.find((h) => h.hook_event_name === "SubagentStop")?.cwd)).toMatch(
      /\/\.claude\/worktrees\/agent-/,
    );
  }, 600_000);

  it('… and with worktree.baseRef "head" from the checkout\'s branch', async () => {
    const seen = await probe(claude, {
      agentCall: { isolation: "worktree" },
      settings: { worktree: { baseRef: "head" } },
      steps: () => [{ name: "Bash", input: { command: "git log --format=%s -1", description: "base" } }],
    });
    expect(seen.results[0]).toBe("on feature");
  }, 600_000);

  it("a PreToolUse hook's updatedInput rewrites the Agent call's prompt (print mode)", async () => {
    const seen = await probe(claude, { addLine: "Worktree: /probe/added-by-the-hook", steps: () => [] });
    expect(seen.agentPrompt).toBe("Task: probe\nOutput file: x\nWorktree: /probe/added-by-the-hook");
    const post = seen.hooks.find((h) => h.hook_event_name === "PostToolUse");
    expect((post?.tool_input as { prompt?: string }).prompt).toBe(
      "Task: probe\nOutput file: x\nWorktree: /probe/added-by-the-hook",
    );
  }, 600_000);

  it.runIf(tmuxAvailable())(
    "… and in the interactive terminal, where the agent runs in the background",
    async () => {
      const seen = await probe(claude, {
        addLine: "Worktree: /probe/added-by-the-hook",
        steps: () => [],
        terminal: true,
      });
      expect(seen.agentPrompt).toBe("Task: probe\nOutput file: x\nWorktree: /probe/added-by-the-hook");
      const post = seen.hooks.find((h) => h.hook_event_name === "PostToolUse");
      expect(post?.tool_response).toMatchObject({ status: "async_launched" });
    },
    600_000,
  );

  it("a sub-agent's Bash: no cd carries over; `cd <dir> && git …` asks; `git -C <dir> …` runs once Bash(git -C:*) is allowed", async () => {
    const wt = (project: string) => join(project, ".dotagent/worktrees/x");
    const seen = await probe(claude, {
      settings: { permissions: { allow: ["Bash(git -C:*)"] } },
      before: (project) => {
        git(project, "worktree", "add", "-q", "-b", "x", wt(project));
        git(project, "config", "user.name", "t");
        git(project, "config", "user.email", "t@t");
      },
      steps: (project) => [
        { name: "Bash", input: { command: `cd ${wt(project)}`, description: "cd" } },
        { name: "Bash", input: { command: "pwd", description: "where now" } },
        { name: "Write", input: { file_path: join(wt(project), "w.txt"), content: "w\n" } },
        { name: "Bash", input: { command: `cd ${wt(project)} && git add -A`, description: "cd then git" } },
        { name: "Bash", input: { command: `git -C ${wt(project)} add -A`, description: "git -C add" } },
        {
          name: "Bash",
          input: { command: `git -C ${wt(project)} commit -qm from-the-agent`, description: "git -C commit" },
        },
      ],
    });
    const [, pwd, write, cdGit, add, commit] = seen.results;
    expect(pwd).toBe(seen.project);
    expect(write).toMatch(/File created successfully/);
    expect(cdGit).toMatch(/changes directory before running a version-control command/);
    expect(add).toMatch(/completed with no output/);
    expect(commit).toMatch(/completed with no output/);
    expect(git(seen.project, "log", "--format=%s", "-1", "x")).toBe("from-the-agent");
  }, 600_000);
});
