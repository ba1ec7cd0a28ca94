// `dotagent run` with the project's context (SPEC §17), as a session in the project has it: its
// installed `.claude/agents/` first (here an edited pm), its CLAUDE.md in every agent's system
// prompt, the .gitignore lines `dotagent install` writes, and under --approve auto the agents that
// run Bash unattended said once. `--agents DIR` names other agent files and leaves all that out.
// The built CLI with a stand-in Agent SDK that logs each session's system prompt.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO, removeTemps, standInSdkProject } from "./support/cli.js";
import { startApiStandIn, type ApiStandIn } from "./support/api-stand-in.js";

afterEach(removeTemps);
let api: ApiStandIn;
beforeAll(async () => {
  api = await startApiStandIn();
});
afterAll(() => api.stop());

const FAKE_SDK = `
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
function reportFor(output, prompt) {
  if (output.endsWith("/demand.json")) return { summary: "sign in", acceptance_criteria: [{ id: "AC-1", text: "works" }] };
  if (output.includes("/designs/")) return { name: /^Design name: (.*)$/m.exec(prompt)[1], tasks: [{ id: "task-001", title: "all", depends_on: [] }] };
  if (output.endsWith("/roundtable.json")) return { recommendation: "minimal", options_for_user: [{ name: "minimal", one_line: "small" }, { name: "robust", one_line: "big" }] };
  if (output.includes("/tasks/")) return { task_id: /^Task: (.*)$/m.exec(prompt)[1], status: "complete" };
  if (output.endsWith("/verification.json")) return { passed: true, failures: [] };
  if (output.endsWith("/reproduction.json")) return { reproduced: true, tasks: [{ id: "t1", title: "the fix" }] };
  return { summary: "shipped" };
}
export function query({ prompt, options }) {
  return (async function* () {
    const output = /^Output file: (\\S+)$/m.exec(prompt)[1];
    appendFileSync(join(options.cwd, "sdk-calls.log"), JSON.stringify({ output, system: options.systemPrompt }) + "\\n");
    const session_id = "fake-" + Math.random().toString(36).slice(2);
    yield { type: "system", subtype: "init", session_id };
    mkdirSync(dirname(join(options.cwd, output)), { recursive: true });
    writeFileSync(join(options.cwd, output), JSON.stringify(reportFor(output, prompt)));
    yield { type: "result", subtype: "success", session_id, result: "wrote " + output };
  })();
}
`;

function project(): { root: string; cli: string } {
  const { root, cli } = standInSdkProject(FAKE_SDK);
  writeFileSync(join(root, "CLAUDE.md"), "# House rules\nAlways write tests first.\n");
  mkdirSync(join(root, ".claude/agents"), { recursive: true });
  const pm = readFileSync(join(REPO, "agents/pm.md"), "utf8").replace(
    "You are the product manager",
    "You are this project's own product manager",
  );
  writeFileSync(join(root, ".claude/agents/pm.md"), pm);
  // The stand-in's files and the copied CLI stay out of the checkout's changes (its tasks get worktrees).
  writeFileSync(join(root, ".gitignore"), IGNORED);
  const git = (...args: string[]) =>
    spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: root });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-qm", "init");
  // The CLI copied into the project finds the stand-in SDK; its agent files beside it, as in the package.
  cpSync(join(REPO, "agents"), join(root, "agents"), { recursive: true });
  return { root, cli };
}

const IGNORED = "node_modules/\nbin/\nagents/\nsdk-calls.log\n";
const calls = (root: string) =>
  readFileSync(join(root, "sdk-calls.log"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { output: string; system: string });

describe("dotagent run with the project's context", () => {
  it("the project's edited pm, CLAUDE.md in every agent's prompt, the .gitignore lines, what runs unattended: said once", () => {
    const { root, cli } = project();
    const run = spawnSync(process.execPath, [cli, "run", "add login", "--approve", "auto", "--json"], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1", ANTHROPIC_BASE_URL: api.url },
    });
    expect(run.status, run.stderr).toBe(0);
    const sessions = calls(root);
    expect(sessions.find((c) => c.output.endsWith("demand.json"))?.system).toContain(
      "You are this project's own product manager",
    );
    expect(sessions.find((c) => c.output.endsWith("verification.json"))?.system).not.toContain("this project's own");
    for (const s of sessions)
      expect(s.system).toContain(
        "# The project's instructions (CLAUDE.md)\n\n# House rules\nAlways write tests first.",
      );
    expect(run.stderr).toContain("agents: the project's .claude/agents/ (pm), dotagent's for the rest");
    expect(run.stderr).toContain("the agents read the project's CLAUDE.md");
    expect(run.stderr).toMatch(/\.gitignore: added \d+ lines for dotagent's machine-local files/);
    expect(run.stderr).toContain(
      "unattended: executor and qa run shell commands (Bash) with your user's rights, nobody asked",
    );
    expect(run.stderr.match(/the agents read the project's CLAUDE\.md/g)).toHaveLength(1);
    const ignored = readFileSync(join(root, ".gitignore"), "utf8");
    expect(ignored.startsWith(IGNORED)).toBe(true);
    expect(ignored).toContain("/memory/runs/");
  }, 600_000);

  it("--workflow fix: what is said is the fix workflow's agents, not develop's (the project's pm is none of them)", () => {
    const { root, cli } = project();
    const run = spawnSync(
      process.execPath,
      [cli, "run", "--workflow", "fix", "login fails with +", "--approve", "auto", "--json"],
      { cwd: root, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", ANTHROPIC_BASE_URL: api.url } },
    );
    expect(run.stderr).toContain("(fix)");
    expect(run.stderr).not.toContain("agents: the project's .claude/agents/");
    expect(run.stderr).toContain(
      "unattended: reproducer and executor and qa run shell commands (Bash) with your user's rights, nobody asked",
    );
  }, 600_000);

  it("--agents DIR: those agent files only, no CLAUDE.md, nothing said about the project", () => {
    const { root, cli } = project();
    const run = spawnSync(
      process.execPath,
      [cli, "run", "add login", "--approve", "auto", "--agents", join(REPO, "agents"), "--json"],
      { cwd: root, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", ANTHROPIC_BASE_URL: api.url } },
    );
    expect(run.status, run.stderr).toBe(0);
    for (const s of calls(root)) expect(s.system).not.toContain("CLAUDE.md");
    expect(calls(root).find((c) => c.output.endsWith("demand.json"))?.system).not.toContain("this project's own");
    expect(run.stderr).not.toContain("CLAUDE.md");
    expect(readFileSync(join(root, ".gitignore"), "utf8")).toBe(IGNORED);
  }, 600_000);
});
