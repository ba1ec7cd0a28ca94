// The Workflow script both real-binary suites of Claude Code's Workflow runs launch
// (workflow-tool.test.ts in print mode, workflow-terminal.test.ts under tmux), its args, and a
// reader of the client's journal, and the installed project both start from.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { ROOT } from "./harness.js";

/** In `work`: a home and a git project with dotagent installed by the built CLI (its hooks in .claude/settings.json). */
export function installedProject(work: string): { home: string; project: string } {
  const home = join(work, "home");
  const project = join(work, "project");
  mkdirSync(home);
  mkdirSync(project);
  spawnSync("git", ["init", "-q"], { cwd: project });
  const installed = spawnSync(process.execPath, [join(ROOT, "dist/dotagent.mjs"), "install", "--json"], {
    cwd: project,
    encoding: "utf8",
    env: { ...process.env, HOME: home, CLAUDE_CONFIG_DIR: "" },
  });
  expect(installed.status, installed.stderr).toBe(0);
  return { home, project };
}

export const SCRIPT = `export const meta = { name: 'three-agents', description: 'Three agents, two in parallel', phases: [{ title: 'Fan' }, { title: 'Join' }] }
const [a, b] = await parallel([() => agent('alpha: answer alpha', { label: 'alpha', phase: 'Fan' }), () => agent('beta: answer beta', { label: 'beta', phase: 'Fan' })])
const c = await agent('gamma: join ' + a + ' and ' + b + ' for ' + JSON.stringify(args), { label: 'gamma', phase: 'Join' })
return { a, b, c }
`;
export const ARGS = { topic: "probe", n: 3 };

export interface JournalLine {
  type: string;
  key?: string;
  agentId?: string;
  label?: string;
  result?: string;
}

/** The lines of a Workflow run's journal.jsonl. */
export const lines = (file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as JournalLine);
