// The Workflow script both real-binary suites of Claude Code's Workflow runs launch
// (workflow-tool.test.ts in print mode, workflow-terminal.test.ts under tmux), its args, and a
// reader of the client's journal.
import { readFileSync } from "node:fs";

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
