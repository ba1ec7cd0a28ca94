// `dotagent run` walking workflow definitions (SPEC §20) with a stand-in SDK: a project definition
// (develop + a check command that sends the work back once + an agent gate of the project's own
// agent) end to end; the built-in fix workflow with a rework round; a definition of its own
// (a choose step with other agents, a shell step); the gates and the command asked, or a decision;
// a failed workflow in one line. Kill -9 of the built CLI inside each step kind: test/run-kill-steps.test.ts.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { good, harness, personSaying, type Harness, type Writer } from "./stand-in-sdk.test-support.js";
import { runWorkflow } from "./runner.js";
import { openWorkflow } from "../api/workflow.js";

const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Record<string, any>;
const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as { code?: string; exitCode?: number; message: string },
  );
const agentsRun = (h: Harness) => h.sessions.map((s) => s.agent);
const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : []);

const CHECK = "echo run >> runs.log; test -f ok.txt";
/** develop, then the project's tests (a command: fails until a rework task makes ok.txt) and a review the person approves. */
const REVIEW = {
  description: "develop, the project's tests as a check, a review the person approves",
  extends: "develop",
  insert: [
    {
      after: "VERIFICATION",
      steps: [
        { id: "TESTS", kind: "check", run: CHECK, rework: "IMPLEMENTATION", max_rounds: 2 },
        { id: "REVIEW", kind: "agent", agent: "reviewer", report: "review.json", gate: "approve" },
      ],
    },
  ],
};
const REVIEWER =
  "---\nname: reviewer\ntools: Read, Grep\n---\nYou review the change of this project and write memory/reports/review.json.\n";

function project(
  root: string,
  defs: Record<string, unknown>,
  agents: Record<string, string> = { reviewer: REVIEWER },
): void {
  mkdirSync(join(root, ".dotagent/workflows"), { recursive: true });
  for (const [name, def] of Object.entries(defs))
    writeFileSync(join(root, ".dotagent/workflows", `${name}.json`), JSON.stringify(def));
  mkdirSync(join(root, ".claude/agents"), { recursive: true });
  for (const [name, text] of Object.entries(agents)) writeFileSync(join(root, ".claude/agents", `${name}.md`), text);
}

/** As `good`, and the executor of a rework task makes the check's command pass. */
function fixesInRework(root: () => string): Writer {
  return (agent, prompt, output) => {
    if (agent === "executor" && /^Task: rework-/m.test(prompt)) writeFileSync(join(root(), "ok.txt"), "");
    return good(agent, prompt, output);
  };
}

describe("dotagent run --workflow: a project definition end to end", () => {
  test("develop + a failing-once check command + the project's own agent's gate: every step done once, one rework round", async () => {
    let root = "";
    const h = harness(
      fixesInRework(() => root),
      (r) => {
        root = r;
        project(r, { review: REVIEW });
      },
    );
    const outcome = await runWorkflow(h.options({ workflow: "review" }));
    expect(outcome).toMatchObject({ outcome: "complete", workflow_id: "wf-add-login", agents: 11 });
    // qa and the executors again in the rework round only; the command twice (failed, then passed).
    expect(agentsRun(h)).toEqual([
      "pm",
      "architect",
      "architect",
      "roundtable",
      "executor",
      "executor",
      "qa",
      "executor",
      "qa",
      "reviewer",
      "reflector",
    ]);
    expect(lines(join(root, "runs.log"))).toHaveLength(2);
    const phase = readJson(join(root, "memory/state/phase.json"));
    expect(phase.workflow.name).toBe("review");
    expect(phase.rework).toMatchObject({
      round: 1,
      step: "TESTS",
      to: "IMPLEMENTATION",
      verification: "memory/reports/steps/TESTS.rework-1.json",
    });
    expect(phase.completed_phases.map((c: { phase: string }) => c.phase)).toEqual([
      "REQUIREMENTS",
      "ARCHITECTURE",
      "IMPLEMENTATION",
      "VERIFICATION",
      "TESTS",
      "REVIEW",
      "REFLECTION",
    ]);
    expect(phase.user_checkpoints.map((c: { phase: string }) => c.phase)).toEqual([
      "REQUIREMENTS",
      "ARCHITECTURE",
      "REVIEW",
    ]);
    // Round 1 planned from the failed command's report (phase.json rework.verification), not from verification.rework-1.json.
    expect(readJson(join(root, "memory/reports/plan.rework-1.json")).tasks).toEqual([
      { id: "rework-1-1", title: `Make \`${CHECK}\` pass (exit 1)`, depends_on: [] },
    ]);
    expect(existsSync(join(root, "memory/reports/plan.rework-2.json"))).toBe(false);
    expect(h.sessions.find((s) => /Task: rework-1-1/.test(s.prompt))!.prompt).toMatch(
      /^Fixes: memory\/reports\/steps\/TESTS\.rework-1\.json$/m,
    );
    // The project's agent, with its report named in the prompt.
    expect(h.sessions.find((s) => s.agent === "reviewer")!.prompt.split("\n")).toEqual([
      "Feature request: add login",
      "Phase: REVIEW",
      "Output file: memory/reports/review.json",
    ]);
    expect(readJson(join(root, "memory/reports/steps/TESTS.json"))).toMatchObject({
      step: "TESTS",
      passed: true,
      exit_code: 0,
    });
    expect(h.lines).toContainEqual(
      expect.stringMatching(/^ {2}✗ TESTS: `echo run >> runs\.log; test -f ok\.txt` failed \(exit 1\)/),
    );
    expect(h.lines).toContain("  · back to IMPLEMENTATION to fix what TESTS found");
    expect(h.lines).toContainEqual(
      expect.stringMatching(/^ {2}✓ REVIEW's report approved \(--approve auto\): shipped/),
    );
    expect(h.lines[0]).toBe('dotagent run: workflow wf-add-login (review) "add login" started');
    // Nothing left to do: a second run asks no agent and runs no command.
    expect(await runWorkflow(h.options({ request: undefined }))).toMatchObject({ outcome: "complete", agents: 0 });
    expect(h.sessions).toHaveLength(11);
    expect(lines(join(root, "runs.log"))).toHaveLength(2);
  });

  test("on a terminal: the command is asked (shown) once per workflow; the review gate takes feedback to the project's agent, then asks again", async () => {
    let root = "";
    const h = harness(
      fixesInRework(() => root),
      (r) => {
        root = r;
        project(r, { review: REVIEW });
      },
    );
    const person = personSaying("approve", "minimal", "yes", "Change something", "name the tests you ran", "approve");
    expect(await runWorkflow(h.options({ workflow: "review", approve: "ask", ask: person.asker }))).toMatchObject({
      outcome: "complete",
    });
    expect(person.asked).toEqual([
      "Approve the requirements?",
      "Which design?",
      `Step TESTS of workflow review runs \`${CHECK}\` in ${root}. Run it?`,
      "Approve REVIEW's report?",
      "What should the reviewer change?",
      "Approve REVIEW's report?",
    ]);
    const revision = h.sessions.filter((s) => s.agent === "reviewer");
    expect(revision).toHaveLength(2);
    expect(revision[1]!.prompt.split("\n")).toEqual([
      "Feature request: add login",
      "Phase: REVIEW",
      "Revise: memory/reports/review.json",
      "Feedback from the person: name the tests you ran",
      "Output file: memory/reports/review.json",
    ]);
    expect(lines(join(root, "runs.log"))).toHaveLength(2);
    const events = readFileSync(join(root, "memory/state/events.jsonl"), "utf8");
    expect(events.match(/"type":"command_approved"/g)).toHaveLength(1);
  });

  test("no terminal: the report gate and the command are decisions (exit 5) naming the command that answers; nothing runs unasked", async () => {
    let root = "";
    const h = harness(
      fixesInRework(() => root),
      (r) => {
        root = r;
        project(r, { review: REVIEW });
      },
    );
    expect(await runWorkflow(h.options({ workflow: "review", approve: "ask" }))).toMatchObject({
      outcome: "decision",
      decision: { yes: "dotagent phase approve REQUIREMENTS" },
    });
    await openWorkflow(root).phase.approve("REQUIREMENTS");
    const command = await runWorkflow(h.options({ request: undefined, approve: "ask", design: "minimal" }));
    expect(command).toMatchObject({
      outcome: "decision",
      decision: {
        question: `Step TESTS of workflow review runs \`${CHECK}\` in ${root}. Run it?`,
        yes: "dotagent step run TESTS --yes",
      },
    });
    expect(existsSync(join(root, "runs.log"))).toBe(false);
    expect(existsSync(join(root, "memory/reports/steps/TESTS.json"))).toBe(false);
    // --approve auto answers it (and the gates after it).
    expect(await runWorkflow(h.options({ request: undefined, approve: "auto" }))).toMatchObject({
      outcome: "complete",
    });
    expect(lines(join(root, "runs.log"))).toHaveLength(2);
    // A gated agent step without a terminal: the decision names `phase approve STEP`.
    const gated = harness(good, (r) =>
      project(r, {
        gated: { steps: [{ id: "NOTES", kind: "agent", agent: "reviewer", report: "notes.md", gate: "approve" }] },
      }),
    );
    expect(await runWorkflow(gated.options({ workflow: "gated", approve: "ask" }))).toMatchObject({
      outcome: "decision",
      decision: { question: "Approve memory/reports/notes.md?", yes: "dotagent phase approve NOTES" },
      gate: {
        step: "NOTES",
        report: "memory/reports/notes.md",
        approve: "dotagent phase approve NOTES && dotagent run",
        change: 'dotagent run --change "<what should change>"',
      },
    });
    // --change: the step's own agent revises its report with the person's words, then the gate again.
    expect(await runWorkflow(gated.options({ request: undefined, approve: "ask", change: "shorter" }))).toMatchObject({
      outcome: "decision",
      gate: { step: "NOTES" },
    });
    expect(gated.sessions.map((s) => s.agent)).toEqual(["reviewer", "reviewer"]);
    expect(gated.sessions[1]!.prompt).toMatch(
      /^Revise: memory\/reports\/notes\.md\nFeedback from the person: shorter$/m,
    );
  });
});

describe("dotagent run --workflow fix", () => {
  test("reproduce (approved), the fix planned from reproduction.json's tasks, a failed test sends it back to FIX once, reflection", async () => {
    let qa = 0;
    const h = harness((agent, prompt, output) =>
      agent === "qa" && ++qa === 1
        ? { passed: false, failures: [{ criterion: "the reproduction passes", problem: "still 401 with +" }] }
        : good(agent, prompt, output),
    );
    const outcome = await runWorkflow(h.options({ workflow: "fix", request: "login fails with +" }));
    expect(outcome).toMatchObject({ outcome: "complete", workflow_id: "wf-login-fails-with" });
    expect(agentsRun(h)).toEqual(["reproducer", "executor", "qa", "executor", "qa", "reflector"]);
    const fix = h.sessions[1]!.prompt.split("\n");
    expect(fix.slice(0, 5)).toEqual([
      "Feature request: login fails with +",
      "Phase: FIX",
      "Task: fix-decode",
      "Title: decode the body once",
      "Design: memory/reports/reproduction.json",
    ]);
    expect(h.sessions[3]!.prompt).toMatch(
      /^Task: rework-1-1$[\s\S]*^Fixes: memory\/reports\/verification\.rework-1\.json$/m,
    );
    const execution = readJson(join(h.root, "memory/state/execution.json"));
    expect(execution.plans.map((p: { round: number }) => p.round)).toEqual([0, 1]);
    expect(execution.tasks.map((t: { id: string; status: string }) => [t.id, t.status])).toEqual([
      ["fix-decode", "complete"],
      ["rework-1-1", "complete"],
    ]);
    const phase = readJson(join(h.root, "memory/state/phase.json"));
    expect(phase.completed_phases.map((c: { phase: string }) => c.phase)).toEqual([
      "REPRODUCE",
      "FIX",
      "TEST",
      "REFLECTION",
    ]);
    expect(phase.user_checkpoints.map((c: { phase: string }) => c.phase)).toEqual(["REPRODUCE"]);
    expect(h.lines).toContain("  · back to FIX to fix what TEST found");
  });

  test("a workflow here that walks another definition is not continued under --workflow; an invalid definition is one line, nothing written", async () => {
    const h = harness(good);
    await runWorkflow(h.options({ approve: "ask" })); // a develop workflow, stopped at its first gate
    const error = await errorOf(runWorkflow(h.options({ request: undefined, workflow: "fix" })));
    expect(error).toMatchObject({ code: "usage", exitCode: 2 });
    expect(error!.message).toMatch(/^--workflow fix: workflow wf-add-login here walks develop \(at REQUIREMENTS\)/);
    const bad = harness(good, (r) => project(r, { broken: { extends: "develop", remove: ["NOPE"] } }));
    const refused = await errorOf(runWorkflow(bad.options({ workflow: "broken" })));
    expect(refused).toMatchObject({ code: "workflow_invalid", exitCode: 3 });
    expect(refused!.message).toContain(".dotagent/workflows/broken.json");
    expect(existsSync(join(bad.root, "memory"))).toBe(false);
    expect(bad.sessions).toHaveLength(0);
  });
});

describe("issue 42: dotagent run with a new request", () => {
  test("after a complete workflow: archived and the new one started without asking, --workflow fix walked", async () => {
    const h = harness(good);
    expect(await runWorkflow(h.options())).toMatchObject({ outcome: "complete", workflow_id: "wf-add-login" });
    // A terminal that would say no to any question: none is asked.
    const asked: string[] = [];
    const ask = {
      interactive: true,
      confirm: async (q: string) => (asked.push(q), false),
      choose: async (q: string) => (asked.push(q), undefined),
      text: async () => undefined,
    };
    const outcome = await runWorkflow(h.options({ workflow: "fix", request: "login fails with +", ask }));
    expect(asked).toEqual([]);
    expect(outcome).toMatchObject({ outcome: "complete", workflow_id: "wf-login-fails-with" });
    expect(readJson(join(h.root, "memory/state/phase.json"))).toMatchObject({
      request: "login fails with +",
      workflow: { name: "fix" },
    });
    const archived = readdirSync(join(h.root, "memory/state/.archive"));
    expect(archived).toEqual([expect.stringMatching(/^wf-add-login_.*\.tar\.gz$/)]);
    expect(h.lines).toContain(`  · the previous workflow is archived as ${archived[0]}`);
    // Without --workflow the same: develop again, no decision (no terminal at all here).
    expect(await runWorkflow(h.options({ request: "add logout" }))).toMatchObject({
      outcome: "complete",
      workflow_id: "wf-add-logout",
    });
    expect(readdirSync(join(h.root, "memory/state/.archive"))).toHaveLength(2);
    // The same request as the complete workflow's: nothing to start, nothing asked.
    expect(await runWorkflow(h.options({ request: "add logout" }))).toMatchObject({ outcome: "complete", agents: 0 });
  });

  test("over an open workflow the person decides, and the printed yes names the workflow, so it starts what was asked", async () => {
    const h = harness(good);
    await runWorkflow(h.options({ workflow: "fix", request: "login fails with +", approve: "ask" })); // fix, stopped at its first gate
    const outcome = await runWorkflow(h.options({ workflow: "fix", request: "signup fails with é", approve: "ask" }));
    expect(outcome).toMatchObject({
      outcome: "decision",
      decision: { yes: "dotagent init --request 'signup fails with é' --workflow fix --yes", no: "dotagent resume" },
    });
  });
});

describe("a definition of the project's own", () => {
  // A brief the person approves, a choose step with other agents and designs, tasks, a check command, a shell step.
  const OWN = {
    description: "brief, two sketches judged, build, test, package",
    steps: [
      { id: "BRIEF", kind: "agent", agent: "pm", report: "brief.json", gate: "approve" },
      {
        id: "SKETCH",
        kind: "choose",
        agent: "designer",
        reducer: "judge",
        designs: [
          { name: "small", angle: "fewest lines" },
          { name: "safe", angle: "most checks" },
        ],
      },
      { id: "BUILD", kind: "tasks" },
      { id: "CHECK", kind: "check", run: "test -f built.txt", rework: "BUILD", max_rounds: 1 },
      { id: "PACKAGE", kind: "shell", run: "echo packed > package.txt" },
    ],
  };
  const AGENTS = {
    designer: "---\nname: designer\ntools: Read, Write\n---\nYou sketch one design.\n",
    judge: "---\nname: judge\ntools: Read, Write\n---\nYou compare the sketches.\n",
  };
  const writer =
    (root: () => string): Writer =>
    (agent, prompt, output) => {
      if (agent === "designer")
        return {
          name: /^Design name: (.*)$/m.exec(prompt)![1],
          summary: "a sketch",
          tasks: [{ id: "build-1", title: "build it" }],
        };
      if (agent === "judge")
        return {
          recommendation: "safe",
          options_for_user: [
            { name: "small", one_line: "few lines" },
            { name: "safe", one_line: "checked" },
          ],
        };
      if (agent === "executor") writeFileSync(join(root(), "built.txt"), "");
      return good(agent, prompt, output);
    };

  test("the choose step's designer and judge (not architect and roundtable), the pick, the tasks, the check and the shell command", async () => {
    let root = "";
    const h = harness(
      writer(() => root),
      (r) => {
        root = r;
        project(r, { own: OWN }, AGENTS);
      },
    );
    expect(await runWorkflow(h.options({ workflow: "own" }))).toMatchObject({ outcome: "complete" });
    expect(agentsRun(h)).toEqual(["pm", "designer", "designer", "judge", "executor"]);
    expect(h.sessions[1]!.prompt.split("\n")).toEqual([
      "Feature request: add login",
      "Phase: SKETCH",
      "Design name: small",
      "Angle: fewest lines",
      "Output file: memory/reports/designs/small.json",
    ]);
    expect(h.sessions[0]!.prompt).toMatch(/^Output file: memory\/reports\/brief\.json$/m);
    expect(readJson(join(root, "memory/reports/final_design.json"))).toMatchObject({
      chosen: "safe",
      approved_by: "dotagent run --approve auto",
      tasks: [{ id: "build-1" }],
    });
    expect(readFileSync(join(root, "package.txt"), "utf8")).toBe("packed\n");
    expect(readJson(join(root, "memory/reports/steps/PACKAGE.json"))).toMatchObject({ step: "PACKAGE", passed: true });
    expect(
      readJson(join(root, "memory/state/phase.json")).completed_phases.map((c: { phase: string }) => c.phase),
    ).toEqual(["BRIEF", "SKETCH", "BUILD", "CHECK", "PACKAGE"]);
  });

  test("on a terminal the pick's feedback goes to every designer, then the judge compares again", async () => {
    let root = "";
    const h = harness(
      writer(() => root),
      (r) => {
        root = r;
        project(r, { own: OWN }, AGENTS);
      },
    );
    const person = personSaying("approve", "Change something", "smaller please", "small", "yes", "yes");
    expect(await runWorkflow(h.options({ workflow: "own", approve: "ask", ask: person.asker }))).toMatchObject({
      outcome: "complete",
    });
    expect(person.asked.slice(0, 4)).toEqual([
      "Approve BRIEF's report?",
      "Which design?",
      "What should the designers change?",
      "Which design?",
    ]);
    expect(agentsRun(h)).toEqual(["pm", "designer", "designer", "judge", "designer", "designer", "judge", "executor"]);
    expect(
      h.sessions
        .slice(4, 6)
        .map((s) => /^Revise: (.*)$/m.exec(s.prompt)?.[1])
        .sort(),
    ).toEqual(["memory/reports/designs/safe.json", "memory/reports/designs/small.json"]);
    expect(h.sessions[4]!.prompt).toMatch(/^Feedback from the person: smaller please$/m);
    expect(h.sessions[6]!.prompt).toMatch(/^Feedback from the person: smaller please$/m);
    expect(readJson(join(root, "memory/reports/final_design.json"))).toMatchObject({
      chosen: "small",
      user_notes: "smaller please",
      approved_by: "user",
    });
  });

  test("Ctrl-C while a command runs: its process group is stopped, nothing recorded (exit 130); the next run runs it again and goes on", async () => {
    const hold = {
      steps: [
        {
          id: "SLOW",
          kind: "shell",
          run: "echo $$ > pid.txt; if [ -f hold ]; then sleep 30; fi; echo done >> runs.log",
        },
        { id: "NOTES", kind: "agent", agent: "reviewer", report: "notes.json" },
      ],
    };
    const h = harness(good, (r) => {
      project(r, { hold });
      writeFileSync(join(r, "hold"), "");
    });
    const interrupt = new AbortController();
    const watching = setInterval(() => existsSync(join(h.root, "pid.txt")) && interrupt.abort(), 10);
    const error = await errorOf(runWorkflow(h.options({ workflow: "hold", signal: interrupt.signal })));
    clearInterval(watching);
    expect(error).toMatchObject({ code: "interrupted", exitCode: 130 });
    expect(h.lines).toContain("  ! interrupted: SLOW's command stopped; it runs again on the next run");
    const pid = Number(readFileSync(join(h.root, "pid.txt"), "utf8"));
    let alive = true;
    // Up to 10 s: on a loaded machine the kill and the reaping of the shell can take a while.
    for (let i = 0; i < 500 && alive; i++) {
      try {
        process.kill(pid, 0);
        await new Promise((resolve) => setTimeout(resolve, 20));
      } catch {
        alive = false;
      }
    }
    expect(alive, "the command's shell was stopped").toBe(false);
    expect(existsSync(join(h.root, "memory/reports/steps/SLOW.json"))).toBe(false);
    expect(existsSync(join(h.root, "memory/runs/.lock"))).toBe(false);
    writeFileSync(join(h.root, "pid.txt"), "");
    rmSync(join(h.root, "hold"));
    expect(await runWorkflow(h.options({ request: undefined }))).toMatchObject({ outcome: "complete" });
    expect(lines(join(h.root, "runs.log"))).toEqual(["done"]);
    expect(agentsRun(h)).toEqual(["reviewer"]);
  });

  test("a shell step that fails stops the run in one line (workflow_failed, exit 1); the next run says the same", async () => {
    const h = harness(good, (r) =>
      project(r, { broken: { steps: [{ id: "SHIP", kind: "shell", run: "echo nope; exit 3" }] } }),
    );
    const error = await errorOf(runWorkflow(h.options({ workflow: "broken" })));
    expect(error).toMatchObject({ code: "workflow_failed", exitCode: 1 });
    expect(error!.message.split("\n")).toHaveLength(1);
    expect(error!.message).toContain("dotagent step run SHIP --again");
    expect(h.lines).toContainEqual(expect.stringMatching(/^ {2}✗ SHIP: `echo nope; exit 3` failed \(exit 3\): nope/));
    await expect(runWorkflow(h.options({ request: undefined }))).rejects.toMatchObject({ code: "workflow_failed" });
    expect(readJson(join(h.root, "memory/reports/steps/SHIP.json")).attempts).toBe(1);
  });
});
