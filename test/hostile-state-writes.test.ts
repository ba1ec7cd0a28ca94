// The model writing what is not its to write (SPEC §11 "Who writes what"; src/core/write-guard.ts):
// the state in memory/state/, another agent's report, an executor's code outside its worktree.
// One named test per case, each through the built CLI's `hook pre-tool-use` fed the JSON Claude
// Code sends (a sub-agent's calls carry agent_id and agent_type; its prompt is the first line of
// its transcript). The real client carries a deny to the model: test/claude/write-guard-client.test.ts.
import { afterEach, describe, expect, it } from "vitest";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { dotagent, removeTemps, tempProject } from "./support/cli.js";
import { projectAtImplementation, readExecution, startTask, stopOwner } from "./support/worktree-project.js";

afterEach(async () => {
  await stopOwner();
  removeTemps();
});

/** A project with a workflow at REQUIREMENTS. */
function project(): string {
  const p = tempProject();
  expect(dotagent(p, ["resume", "--json", "--start", "--request", "add login"]).code).toBe(0);
  return p;
}

type Input = Record<string, unknown>;

function preToolUse(p: string, input: Input): Record<string, any> | null {
  const r = dotagent(p, ["hook", "pre-tool-use"], {
    input: JSON.stringify({
      session_id: "s-1",
      transcript_path: join(p, "t", "s-1.jsonl"),
      cwd: p,
      hook_event_name: "PreToolUse",
      ...input,
    }),
    env: { CLAUDE_PROJECT_DIR: p },
  });
  expect(r.code).toBe(0);
  return r.stdout.trim() === "" ? null : (JSON.parse(r.stdout) as Record<string, any>);
}

const reasonOf = (out: Record<string, any> | null): string | null =>
  out?.hookSpecificOutput?.permissionDecision === "deny"
    ? String(out.hookSpecificOutput.permissionDecisionReason)
    : null;

const write = (file_path: string) => ({
  tool_name: "Write",
  tool_input: { file_path, content: '{"phase":"REFLECTION"}\n' },
});
const edit = (file_path: string) => ({
  tool_name: "Edit",
  tool_input: { file_path, old_string: "REQUIREMENTS", new_string: "REFLECTION" },
});
const multiEdit = (file_path: string) => ({
  tool_name: "MultiEdit",
  tool_input: { file_path, edits: [{ old_string: "a", new_string: "b" }] },
});
const notebookEdit = (notebook_path: string) => ({
  tool_name: "NotebookEdit",
  tool_input: { notebook_path, new_source: "x" },
});
const bash = (command: string) => ({ tool_name: "Bash", tool_input: { command } });

/** A sub-agent's call: its transcript (prompt on the first line) where Claude Code keeps it. */
function asAgent(p: string, type: string, prompt: string[], id = "a1"): Input {
  const dir = join(p, "t", "s-1", "subagents");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, `agent-${id}.jsonl`),
    `${JSON.stringify({ type: "user", message: { role: "user", content: prompt.join("\n") } })}\n`,
  );
  return { agent_id: id, agent_type: type };
}

describe("memory/state/ is dotagent's: every file tool is denied, however the path is written", () => {
  const cases: Array<[string, (p: string) => Input, RegExp]> = [
    [
      "Write phase.json, absolute",
      (p) => write(join(p, "memory/state/phase.json")),
      /memory\/state\/phase\.json is dotagent's workflow state.*phase approve <PHASE>/,
    ],
    [
      "Write phase.json, relative",
      () => write("memory/state/phase.json"),
      /memory\/state\/phase\.json is dotagent's workflow state/,
    ],
    [
      "Edit execution.json",
      (p) => edit(join(p, "memory/state/execution.json")),
      /memory\/state\/execution\.json is dotagent's workflow state.*task import/,
    ],
    [
      "MultiEdit events.jsonl",
      (p) => multiEdit(join(p, "memory/state/events.jsonl")),
      /memory\/state\/events\.jsonl is dotagent's workflow state/,
    ],
    [
      "NotebookEdit in memory/state/",
      (p) => notebookEdit(join(p, "memory/state/x.ipynb")),
      /memory\/state\/x\.ipynb is dotagent's/,
    ],
    [
      "Write through `..`",
      (p) => write(join(p, "src/../memory/reports/../state/phase.json")),
      /memory\/state\/phase\.json is dotagent's/,
    ],
    [
      "Write a new file in memory/state/",
      () => write("memory/state/phase.json.forged"),
      /is dotagent's workflow state/,
    ],
  ];
  it.each(cases)("%s: denied with the command to use", (_name, input, reason) => {
    const p = project();
    mkdirSync(join(p, "src"));
    const before = readFileSync(join(p, "memory/state/phase.json"), "utf8");
    const denied = reasonOf(preToolUse(p, input(p)));
    expect(denied).toMatch(reason);
    expect(denied).toContain("resume --json");
    expect(readFileSync(join(p, "memory/state/phase.json"), "utf8")).toBe(before);
  });

  it("Write through a symlinked folder that leads into memory/state/: denied", () => {
    const p = project();
    symlinkSync(join(p, "memory/state"), join(p, "innocent"));
    expect(reasonOf(preToolUse(p, write(join(p, "innocent/phase.json"))))).toMatch(
      /memory\/state\/phase\.json is dotagent's/,
    );
    expect(reasonOf(preToolUse(p, write("innocent/execution.json")))).toMatch(
      /memory\/state\/execution\.json is dotagent's/,
    );
  });

  it("relative to the call's cwd: from memory/, state/phase.json is denied", () => {
    const p = project();
    expect(reasonOf(preToolUse(p, { ...write("state/phase.json"), cwd: join(p, "memory") }))).toMatch(
      /memory\/state\/phase\.json is dotagent's/,
    );
  });

  it("a sub-agent of dotagent's and another agent type are denied too", () => {
    const p = project();
    const qa = asAgent(p, "qa", [
      "Feature request: add login",
      "Phase: VERIFICATION",
      "Output file: memory/reports/verification.json",
    ]);
    expect(reasonOf(preToolUse(p, { ...write("memory/state/phase.json"), ...qa }))).toMatch(
      /is dotagent's workflow state/,
    );
    expect(
      reasonOf(preToolUse(p, { ...write("memory/state/phase.json"), agent_id: "g1", agent_type: "general-purpose" })),
    ).toMatch(/is dotagent's workflow state/);
  });
});

describe("Bash lines that write into memory/state/ (the hook starts for lines naming memory/state)", () => {
  it.each([
    ["echo x > memory/state/phase.json"],
    ["sed -i s/REQUIREMENTS/REFLECTION/ memory/state/phase.json"],
    ["printf x | tee -a memory/state/events.jsonl"],
    ["cp /tmp/forged.json memory/state/execution.json"],
    ["rm memory/state/phase.json"],
    ["cd memory/state && echo x > phase.json"],
    ["git checkout HEAD -- memory/state/phase.json"],
  ])("%s: denied", (command) => {
    const p = project();
    expect(reasonOf(preToolUse(p, bash(command)))).toMatch(
      /this line writes memory\/state\/(phase\.json|events\.jsonl|execution\.json), which is dotagent's workflow state/,
    );
  });

  it("removing or restoring a folder that holds memory/state/ (rm -rf memory, git checkout .): denied", () => {
    const p = project();
    expect(reasonOf(preToolUse(p, bash("rm -rf memory")))).toMatch(
      /this line removes, moves or restores memory, which holds memory\/state\//,
    );
    expect(reasonOf(preToolUse(p, bash("git checkout . && cat memory/state/phase.json")))).toMatch(
      /this line removes, moves or restores \., which holds memory\/state\//,
    );
  });

  it("reading the state is left alone", () => {
    const p = project();
    expect(preToolUse(p, bash("cat memory/state/phase.json"))).toBeNull();
    expect(preToolUse(p, bash("cp memory/state/phase.json /tmp/copy.json"))).toBeNull();
  });
});

describe("a report counts for the agent at work", () => {
  it("the main agent writing qa's verification.json: denied, naming qa", () => {
    const p = project();
    expect(reasonOf(preToolUse(p, write(join(p, "memory/reports/verification.json"))))).toMatch(
      /verification\.json is not yours to write: it is qa's report: spawn qa/,
    );
  });

  it("the main agent writing pm's demand.json: denied, naming pm", () => {
    const p = project();
    expect(reasonOf(preToolUse(p, write("memory/reports/demand.json")))).toMatch(
      /demand\.json is not yours to write: it is pm's report: spawn pm/,
    );
  });

  it("the main agent writing final_design.json: denied, naming the pick (issue 40); the plan files: left to Claude Code", () => {
    const p = project();
    expect(reasonOf(preToolUse(p, write("memory/reports/final_design.json")))).toMatch(
      /dotagent writes it from the person's pick: .*phase approve <STEP> --pick <name> --json/,
    );
    for (const file of ["memory/reports/plan.json", "memory/reports/plan.rework-1.json", "src/app.ts"])
      expect(preToolUse(p, write(file)), file).toBeNull();
  });

  it("qa writing verification.json: left to Claude Code; qa writing demand.json: denied", () => {
    const p = project();
    const qa = asAgent(p, "dotagent:qa", [
      "Feature request: add login",
      "Phase: VERIFICATION",
      "Output file: memory/reports/verification.json",
    ]);
    expect(preToolUse(p, { ...write(join(p, "memory/reports/verification.json")), ...qa })).toBeNull();
    expect(reasonOf(preToolUse(p, { ...write("memory/reports/demand.json"), ...qa }))).toMatch(
      /not your report \(it is pm's report: spawn pm\); you are the qa agent and your report is memory\/reports\/verification\.json/,
    );
  });

  it("a non-dotagent agent writing a report: left alone", () => {
    const p = project();
    expect(
      preToolUse(p, { ...write("memory/reports/verification.json"), agent_id: "g1", agent_type: "general-purpose" }),
    ).toBeNull();
  });
});

describe("an executor whose task has a worktree writes only there", () => {
  const prompt = (wt: string) => [
    "Feature request: add login",
    "Phase: IMPLEMENTATION",
    "Task: t1",
    "Title: one",
    "Output file: memory/reports/tasks/t1.json",
    `Worktree: ${wt}`,
    "Branch: dotagent/t1 (dotagent merges it into main when you finish)",
    "Report file: x",
  ];

  it("its code in the main checkout: denied, with the worktree path to use", () => {
    const p = project();
    const wt = join(p, ".dotagent/worktrees/t1");
    mkdirSync(wt, { recursive: true });
    const executor = asAgent(p, "executor", prompt(wt));
    expect(reasonOf(preToolUse(p, { ...write(join(p, "src/app.ts")), ...executor }))).toMatch(
      new RegExp(
        `your task works in its own worktree, ${wt}: write your changes there \\(this file there: ${wt}/src/app\\.ts\\)`,
      ),
    );
  });

  it("its code in its worktree and its report in the main checkout: left to Claude Code", () => {
    const p = project();
    const wt = join(p, ".dotagent/worktrees/t1");
    mkdirSync(wt, { recursive: true });
    const executor = asAgent(p, "executor", prompt(wt));
    expect(preToolUse(p, { ...write(join(wt, "src/app.ts")), ...executor })).toBeNull();
    expect(preToolUse(p, { ...write(join(p, "memory/reports/tasks/t1.json")), ...executor })).toBeNull();
    expect(reasonOf(preToolUse(p, { ...write(join(p, "memory/reports/tasks/t2.json")), ...executor }))).toMatch(
      /own worktree/,
    );
  });
});

describe("an executor whose prompt lacks its Worktree line (a client that could not add it) is held to the worktree execution.json records", () => {
  const prompt = (workflow: string | undefined) => [
    "Feature request: add parts",
    "Phase: IMPLEMENTATION",
    "Task: task-001",
    "Title: one",
    ...(workflow ? [`Workflow: ${workflow}`] : []),
    "Output file: memory/reports/tasks/task-001.json",
  ];

  it("its code in the main checkout: denied, naming the worktree; in its worktree, and its report: left alone", () => {
    const p = projectAtImplementation([{ id: "task-001" }]);
    const { dir } = startTask(p, "task-001");
    expect(dir).toBe(join(p, ".dotagent/worktrees/task-001"));
    const executor = asAgent(p, "executor", prompt(readExecution(p).workflow_id));
    expect(reasonOf(preToolUse(p, { ...write(join(p, "src/app.ts")), ...executor }))).toContain(
      `your task works in its own worktree, ${dir}: write your changes there (this file there: ${dir}/src/app.ts)`,
    );
    expect(preToolUse(p, { ...write(join(dir!, "src/app.ts")), ...executor })).toBeNull();
    expect(preToolUse(p, { ...write(join(p, "memory/reports/tasks/task-001.json")), ...executor })).toBeNull();
  });

  it("a prompt without its Workflow line, or naming another workflow, is not held (its task id may be another run's)", () => {
    const p = projectAtImplementation([{ id: "task-001" }]);
    startTask(p, "task-001");
    expect(preToolUse(p, { ...write(join(p, "src/app.ts")), ...asAgent(p, "executor", prompt(undefined)) })).toBeNull();
    expect(
      preToolUse(p, { ...write(join(p, "src/app.ts")), ...asAgent(p, "executor", prompt("wf-another-run"), "a2") }),
    ).toBeNull();
  });

  it("a task without a worktree (no git): nothing changes", () => {
    const p = projectAtImplementation([{ id: "task-001" }], { git: false });
    expect(startTask(p, "task-001").dir).toBeUndefined();
    expect(
      preToolUse(p, {
        ...write(join(p, "src/app.ts")),
        ...asAgent(p, "executor", prompt(readExecution(p).workflow_id)),
      }),
    ).toBeNull();
  });
});
