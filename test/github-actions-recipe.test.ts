// The GitHub Actions recipe (docs/github-actions/dotagent.yml, docs/github-actions.md; issue 45)
// stays true: the shape the doc promises (a dispatch with the person's inputs, one run per branch,
// the three jobs and how they follow each other), no input spliced into a shell line, and every
// `dotagent` line of its `run:` steps takes only flags the built CLI's `run --help` and the run
// command's option table list: renaming a flag fails here. Cheap: no network, no agent.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { command as phaseCommand } from "../src/cli/commands/phase.js";
import { command as runCommand } from "../src/cli/commands/run.js";
import { command as statusCommand } from "../src/cli/commands/status.js";
import { CLI, REPO } from "./support/cli.js";

const RECIPE = "docs/github-actions/dotagent.yml";
const text = readFileSync(join(REPO, RECIPE), "utf8");
const recipe = parse(text) as Record<string, any>;
const jobs = recipe.jobs as Record<string, any>;
const steps = (job: string): Array<Record<string, any>> => jobs[job].steps;

/** Options every command takes (src/cli/main.ts), beside the run command's own. */
const GLOBAL = ["--dir", "--json", "--help"];

/** One `dotagent …` command of a `run:` script: its job, and its words (quotes kept). */
interface DotagentLine {
  job: string;
  words: string[];
}

/** A shell line's words, split at blanks outside quotes (`${VAR:+--flag "$VAR"}` gives `${VAR:+--flag` and `"$VAR"}`). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let quote: string | null = null;
  for (const c of line) {
    if (quote) {
      word += c;
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") {
      quote = c;
      word += c;
    } else if (/\s/.test(c)) {
      if (word) words.push(word);
      word = "";
    } else word += c;
  }
  if (word) words.push(word);
  return words;
}

/** Every `dotagent` command in the `run:` scripts of the recipe's jobs. */
function dotagentLines(): DotagentLine[] {
  const out: DotagentLine[] = [];
  for (const job of Object.keys(jobs)) {
    for (const step of steps(job)) {
      if (typeof step.run !== "string") continue;
      const lines = step.run.replace(/\\\n/g, " ").split("\n");
      for (const line of lines) {
        if (/^\s*#/.test(line)) continue;
        // Commands of a list, a pipeline or a substitution: `a || b`, `a | tee f`, `if a; then b`, `x=$(a)`.
        for (const part of line.split(/\|\||&&|;|\||\$\(/)) {
          const words = shellWords(part.trim()).filter((w) => !["if", "then", "elif", "else", "!"].includes(w));
          if (words[0] === "dotagent") out.push({ job, words: words.slice(1) });
        }
      }
    }
  }
  return out;
}

/** The flags a dotagent line gives (`${VAR:+--flag "$VAR"}` unwrapped), each with whether a value follows it. */
function flagsOf(words: string[]): Array<{ flag: string; value: boolean }> {
  const bare = words.map((w) => w.replace(/^\$\{[A-Z_]+:\+/, "").replace(/\}$/, ""));
  return bare
    .map((w, i) => ({ w, next: bare[i + 1] }))
    .filter(({ w }) => /^--?[a-z]/.test(w))
    .map(({ w, next }) => ({
      flag: w.split("=")[0]!,
      value: w.includes("=") || (next !== undefined && !next.startsWith("-")),
    }));
}

/** The commands the recipe may run: `run`, and for `approve: once` reading the gate and approving it. */
const COMMANDS = { run: runCommand, status: statusCommand, phase: phaseCommand } as const;
const helpOf = (name: string) =>
  spawnSync(process.execPath, [CLI, name, "--help"], { encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } })
    .stdout;
const HELPS = new Map(Object.keys(COMMANDS).map((name) => [name, helpOf(name)]));
const HELP = HELPS.get("run")!;

/** Why a dotagent line's flags are not the CLI's (empty: they are). */
function problems(line: DotagentLine): string[] {
  const found: string[] = [];
  const name0 = line.words[0] as keyof typeof COMMANDS;
  if (!(name0 in COMMANDS)) return [`dotagent ${line.words[0]}: the recipe runs only dotagent run, status and phase`];
  const OPTIONS = COMMANDS[name0].options ?? {};
  const HELP = HELPS.get(name0)!;
  const file = `src/cli/commands/${name0}.ts`;
  for (const { flag, value } of flagsOf(line.words)) {
    if (GLOBAL.includes(flag)) continue;
    const name = flag.startsWith("--")
      ? flag.slice(2)
      : Object.keys(OPTIONS).find((k) => OPTIONS[k]!.short === flag.slice(1));
    const spec = name === undefined ? undefined : OPTIONS[name];
    if (spec === undefined) found.push(`${flag}: not an option of dotagent ${name0} (${file})`);
    else if (!new RegExp(`(^|[\\s\\[,])${flag}(?![\\w-])`, "m").test(HELP))
      found.push(`${flag}: not in dotagent ${name0} --help`);
    else if (spec.type === "string" && !value) found.push(`${flag} takes a value`);
  }
  return found;
}

describe("the GitHub Actions recipe", () => {
  it("is dispatched by a person, with the inputs that answer a gate", () => {
    expect(Object.keys(recipe.on)).toEqual(["workflow_dispatch"]);
    const inputs = recipe.on.workflow_dispatch.inputs;
    expect(Object.keys(inputs).sort()).toEqual(["approve", "change", "design", "request"]);
    expect(inputs.approve).toMatchObject({ type: "choice", options: ["ask", "once", "auto"], default: "ask" });
  });

  it("runs once per branch at a time, never cancelling a run midway, with a token that may push", () => {
    expect(recipe.concurrency.group).toContain("${{ github.ref }}");
    expect(recipe.concurrency["cancel-in-progress"]).toBe(false);
    expect(recipe.permissions).toEqual({ contents: "write" });
  });

  it("plans, then a matrix of workers, then one job that finishes even when a worker failed", () => {
    expect(Object.keys(jobs)).toEqual(["plan", "workers", "finish"]);
    expect([jobs.workers.needs].flat()).toEqual(["plan"]);
    expect([jobs.finish.needs].flat()).toContain("workers");
    expect(jobs.finish.if).toMatch(/!cancelled\(\)|always\(\)/);
    expect(jobs.workers.strategy["fail-fast"]).toBe(false);
    const matrix = jobs.workers.strategy.matrix;
    expect(Object.values(matrix).some((v) => Array.isArray(v) && v.length >= 2)).toBe(true);
    for (const job of Object.keys(jobs)) expect(jobs[job]["timeout-minutes"], job).toBeGreaterThan(0);
  });

  it("every job checks out the whole history, installs dotagent and the Agent SDK, and has a git identity", () => {
    const peer = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")).peerDependencies[
      "@anthropic-ai/claude-agent-sdk"
    ] as string;
    expect(peer.startsWith(`>=${recipe.env.AGENT_SDK_VERSION}.`), peer).toBe(true);
    for (const job of Object.keys(jobs)) {
      const checkout = steps(job).find((s) => String(s.uses).startsWith("actions/checkout@"));
      expect(checkout?.with?.["fetch-depth"], job).toBe(0);
      const runs = steps(job)
        .map((s) => s.run)
        .filter((r): r is string => typeof r === "string")
        .join("\n");
      expect(runs, job).toMatch(
        /npm install -g "dotagent-workflow@\$DOTAGENT_VERSION" "@anthropic-ai\/claude-agent-sdk@/,
      );
      expect(runs, job).toMatch(/git config user\.name/);
      expect(runs, job).toMatch(/git config user\.email/);
      // The model's key is a secret, given only to the steps that run dotagent.
      for (const step of steps(job).filter((s) => /\bdotagent run\b/.test(String(s.run ?? ""))))
        expect(step.env?.ANTHROPIC_API_KEY, `${job}: ${step.name}`).toBe("${{ secrets.ANTHROPIC_API_KEY }}");
    }
  });

  it("no expression is spliced into a shell line: inputs reach run: through env (no script injection)", () => {
    for (const job of Object.keys(jobs))
      for (const step of steps(job))
        if (typeof step.run === "string") expect(step.run, `${job}: ${step.name}`).not.toContain("${{");
    expect(text).toMatch(/REQUEST: \$\{\{ inputs\.request \}\}/);
  });

  it("plan walks up to the tasks, each worker runs `--worker`, finish takes in with `--claims`; memory/ is committed back by plan and finish", () => {
    const lines = dotagentLines();
    const of = (job: string) =>
      lines.filter((l) => l.job === job && l.words[0] === "run").map((l) => l.words.join(" "));
    // approve: once reads the gate waiting now and approves it, in the plan job only: never a worker.
    const others = lines.filter((l) => l.words[0] !== "run").map((l) => `${l.job}: ${l.words.join(" ")}`);
    expect(others).toEqual(["plan: status --json", 'plan: phase approve "$gate"']);
    expect(of("plan")).toHaveLength(1);
    expect(of("plan")[0]).toMatch(/^run .*--until-tasks/);
    expect(of("workers")).toEqual([expect.stringMatching(/^run --worker\b/)]);
    // A worker never answers a gate or starts a workflow: none of what --worker refuses.
    expect(of("workers")[0]).not.toMatch(/--(approve|change|design|workflow|until-tasks)\b|"\$REQUEST"/);
    expect(of("finish")).toEqual([expect.stringMatching(/^run --claims\b/)]);
    for (const job of ["plan", "finish"]) {
      const memory = steps(job).find((s) => s.id === "memory");
      expect(memory?.run, job).toMatch(/git add -A memory\//);
      expect(memory?.run, job).toMatch(/git push origin/);
      expect(memory?.if, job).toMatch(/!cancelled\(\)/);
    }
  });

  it("every flag of every dotagent line is one the built CLI's run --help and the run command's options list", () => {
    const lines = dotagentLines();
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(HELP).toContain("Usage: dotagent run");
    for (const line of lines) expect(problems(line), `${line.job}: dotagent ${line.words.join(" ")}`).toEqual([]);
    // A renamed flag is caught: the check itself, on lines that differ from the recipe's by one flag.
    const renamed = (from: string, to: string) =>
      lines.flatMap((l) => problems({ ...l, words: l.words.map((w) => w.replace(from, to)) }));
    expect(renamed("--until-tasks", "--until-task")).toContain(
      "--until-task: not an option of dotagent run (src/cli/commands/run.ts)",
    );
    expect(renamed("--worker", "--workers")).toContain(
      "--workers: not an option of dotagent run (src/cli/commands/run.ts)",
    );
    expect(renamed("--approve", "--approval")).toContain(
      "--approval: not an option of dotagent run (src/cli/commands/run.ts)",
    );
  });
});
