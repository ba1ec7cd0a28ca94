// dotagent run for the person who runs it (issue 24): Ctrl-C keeps everything and marks nothing
// failed; the gates show what is approved and take feedback back to the pm and the architects;
// --approve auto is remembered for the workflow; the checks before anything starts; no "repaired"
// on a clean run. A stand-in SDK (stand-in-sdk.test-support.ts); through a real terminal in
// test/run-terminal.test.ts, with the real SDK in test/claude/run-journey.test.ts.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { checkpointStore } from "../api/checkpoint-store.js";
import { good, harness, personSaying, type Writer } from "./stand-in-sdk.test-support.js";
import { runWorkflow } from "./runner.js";

const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as { code?: string; exitCode?: number; message: string; details?: Record<string, unknown> },
  );

/** Writes as `good`, except that `agent` (matching `when`) works until the run is interrupted, which `interrupt` then does. */
function hangs(agent: string, interrupt: AbortController, when: RegExp = /./): Writer {
  return (a, prompt, output) => {
    if (a !== agent || !when.test(prompt)) return good(a, prompt, output);
    setTimeout(() => interrupt.abort(), 10);
    return "hang";
  };
}

describe("Ctrl-C: interrupted; `dotagent run` continues", () => {
  test("an agent at work: exit 130, its session kept and continued by the next run, nothing failed, the runner lock released", async () => {
    const interrupt = new AbortController();
    let stop = true;
    const h = harness((a, p, o) => (stop ? hangs("pm", interrupt)(a, p, o) : good(a, p, o)));
    const error = await errorOf(runWorkflow(h.options({ signal: interrupt.signal })));
    expect(error).toMatchObject({
      code: "interrupted",
      exitCode: 130,
      details: { sessions_kept: ["pm.REQUIREMENTS.s1"] },
    });
    expect(error?.message).toBe(
      "interrupted; `dotagent run` continues (the session of pm.REQUIREMENTS.s1 is kept; nothing was marked failed)",
    );
    // Said at once, before the agents are stopped.
    expect(h.lines).toContain(
      "  ! interrupted: stopping 1 agent; its session is kept for the next run (Ctrl-C again stops at once)",
    );
    expect(existsSync(join(h.root, "memory/runs/.lock"))).toBe(false);
    expect(readJson(join(h.root, "memory/state/phase.json"))).toMatchObject({
      current_phase: "REQUIREMENTS",
      phase_status: "in_progress",
    });
    expect(await checkpointStore(join(h.root, "memory/runs"), "wf-add-login").load("pm.REQUIREMENTS.s1")).toMatchObject(
      { session_id: "s-1", status: "running" },
    );
    stop = false;
    expect(await runWorkflow(h.options({ request: undefined }))).toMatchObject({ outcome: "complete" });
    expect(h.sessions.filter((s) => s.agent === "pm").map((s) => s.resumed)).toEqual([false, true]);
  });

  test("a session an earlier dotagent cut off under its former key (develop's agents were keyed by name alone) is continued, not started again", async () => {
    const interrupt = new AbortController();
    let stop = true;
    const h = harness((a, p, o) => (stop ? hangs("pm", interrupt)(a, p, o) : good(a, p, o)));
    await errorOf(runWorkflow(h.options({ signal: interrupt.signal })));
    // As dotagent 0.1 left it: the same record under "pm.s1".
    const store = checkpointStore<Record<string, unknown>>(join(h.root, "memory/runs"), "wf-add-login");
    await store.save("pm.s1", (await store.load("pm.REQUIREMENTS.s1"))!);
    rmSync(join(store.path, "pm.REQUIREMENTS.s1.checkpoint.json"));
    stop = false;
    expect(await runWorkflow(h.options({ request: undefined }))).toMatchObject({ outcome: "complete" });
    expect(h.sessions.filter((s) => s.agent === "pm").map((s) => s.resumed)).toEqual([false, true]);
    expect(await store.load("pm.s1")).toMatchObject({ status: "complete" });
    expect(await store.load("pm.REQUIREMENTS.s1")).toBeUndefined();
  });

  test("executors at work: their tasks given back (pending, no attempt counted, no error), the next run continues their sessions", async () => {
    const interrupt = new AbortController();
    let stop = true;
    const h = harness((a, p, o) => (stop ? hangs("executor", interrupt, /Task: task-001/)(a, p, o) : good(a, p, o)));
    const error = await errorOf(runWorkflow(h.options({ signal: interrupt.signal })));
    expect(error).toMatchObject({ code: "interrupted", details: { sessions_kept: ["executor.task-001.s1"] } });
    const task = (readJson(join(h.root, "memory/state/execution.json")).tasks as Array<Record<string, unknown>>).find(
      (t) => t.id === "task-001",
    );
    expect(task).toMatchObject({ status: "pending", attempts: 0, error: null, started_at: null });
    expect(task).not.toHaveProperty("owner");
    expect(h.lines).toContain("  · task task-001 given back: it starts again on the next run, no attempt counted");
    const events = readFileSync(join(h.root, "memory/state/events.jsonl"), "utf8");
    expect(events).toContain('"type":"task_released"');
    expect(events).not.toMatch(/"type":"task_(failed|reset|dead)"/);
    stop = false;
    expect(await runWorkflow(h.options({ request: undefined }))).toMatchObject({ outcome: "complete" });
    expect(h.sessions.filter((s) => /Task: task-001/.test(s.prompt)).map((s) => s.resumed)).toEqual([false, true]);
    const after = (
      readJson(join(h.root, "memory/state/execution.json")).tasks as Array<{
        id: string;
        attempts: number;
        status: string;
      }>
    ).find((t) => t.id === "task-001");
    expect(after).toMatchObject({ status: "complete", attempts: 0 });
    // The resume on the way said nothing about a repair: nothing was cut off.
    expect(h.lines.join("\n")).not.toMatch(/was running with no output|orphaned/);
  });

  test("at a gate (the question cancelled): exit 130, nothing approved, the lock released; the next run asks again", async () => {
    const h = harness(good);
    const first = personSaying(); // no answer: Ctrl-C at the first question
    await expect(runWorkflow(h.options({ approve: "ask", ask: first.asker }))).rejects.toMatchObject({
      code: "interrupted",
      exitCode: 130,
      message:
        "interrupted at the REQUIREMENTS gate: nothing approved, the workflow is as it was; `dotagent run` asks again",
    });
    expect(first.asked).toEqual(["Approve the requirements?"]);
    expect(existsSync(join(h.root, "memory/runs/.lock"))).toBe(false);
    expect(readJson(join(h.root, "memory/state/phase.json")).user_checkpoints).toEqual([]);
    // At the pick the same, in its words.
    await expect(
      runWorkflow(h.options({ request: undefined, approve: "ask", ask: personSaying("approve").asker })),
    ).rejects.toMatchObject({
      code: "interrupted",
      exitCode: 130,
      message: "interrupted at the design pick: nothing picked, the workflow is as it was; `dotagent run` asks again",
    });
    const second = personSaying("minimal");
    expect(await runWorkflow(h.options({ request: undefined, approve: "ask", ask: second.asker }))).toMatchObject({
      outcome: "complete",
    });
    expect(second.asked).toEqual(["Which design?"]);
  });

  test("before anything starts (during the checks): interrupted, nothing created", async () => {
    const h = harness(good);
    const interrupt = new AbortController();
    interrupt.abort();
    await expect(runWorkflow(h.options({ signal: interrupt.signal }))).rejects.toMatchObject({
      code: "interrupted",
      exitCode: 130,
    });
    expect(existsSync(join(h.root, "memory"))).toBe(false);
  });
});

describe("gates that show the substance and take feedback", () => {
  const pm: Writer = (agent, prompt, output) => {
    if (agent !== "pm") return good(agent, prompt, output);
    const feedback = /^Feedback from the person: (.*)$/m.exec(prompt)?.[1];
    return {
      summary: feedback ? `sign in; ${feedback}` : "sign in",
      user_stories: [{ id: "US-1", as_a: "registered user", i_want: "to sign in", so_that: "I reach my account" }],
      acceptance_criteria: [
        { id: "AC-1", text: "a right password signs in" },
        { id: "AC-2", text: "a wrong one does not" },
      ],
      open_questions: ["Should sessions end when the password changes?"],
    };
  };

  test("requirements: the stories, criteria and questions shown; feedback goes to the pm (Revise + Feedback lines), then the gate is asked again", async () => {
    const h = harness(pm);
    const person = personSaying("Change something", "sessions last 7 days", "approve", "minimal");
    expect(await runWorkflow(h.options({ approve: "ask", ask: person.asker }))).toMatchObject({ outcome: "complete" });
    expect(person.asked).toEqual([
      "Approve the requirements?",
      "What should the pm change?",
      "Approve the requirements?",
      "Which design?",
    ]);
    const text = h.lines.join("\n");
    expect(text).toContain(
      "  The requirements (memory/reports/demand.json):\n  sign in\n  Stories\n    US-1  as a registered user, I want to sign in, so that I reach my account\n  Acceptance criteria\n    AC-1  a right password signs in\n    AC-2  a wrong one does not\n  Open questions\n    -  Should sessions end when the password changes?",
    );
    const revision = h.sessions.filter((s) => s.agent === "pm")[1]!.prompt.split("\n");
    expect(revision).toEqual([
      "Feature request: add login",
      "Phase: REQUIREMENTS",
      "Revise: memory/reports/demand.json",
      "Feedback from the person: sessions last 7 days",
      "Output file: memory/reports/demand.json",
    ]);
    expect(text).toMatch(/✓ pm revised memory\/reports\/demand\.json +\d/);
    // The second time the gate shows the revised requirements.
    expect(text).toContain("  sign in; sessions last 7 days");
    expect(readJson(join(h.root, "memory/reports/demand.json")).summary).toBe("sign in; sessions last 7 days");
  });

  test("a pm that changes nothing: said plainly, and the gate is asked again", async () => {
    let pmSessions = 0;
    const h = harness((a, p, o) => (a === "pm" && ++pmSessions > 1 ? null : pm(a, p, o)));
    const person = personSaying("Change something", "more", "approve", "minimal");
    await runWorkflow(h.options({ approve: "ask", ask: person.asker }));
    expect(h.lines).toContainEqual(
      expect.stringMatching(/! pm left memory\/reports\/demand\.json as it was \(it said: "I could not do it\."\)/),
    );
    expect(person.asked.filter((q) => q === "Approve the requirements?")).toHaveLength(2);
  });

  test("design pick: each design's one line and the roundtable's rationale; feedback goes to every architect, then the roundtable compares again; final_design.json keeps the words", async () => {
    let roundtables = 0;
    const h = harness((agent, prompt, output) => {
      if (agent === "roundtable") {
        roundtables++;
        return {
          recommendation: "minimal",
          rationale: /^Feedback from the person/m.test(prompt) ? "both now use OAuth" : "a third of the change",
          options_for_user: [
            { name: "minimal", one_line: "signed cookie, one route" },
            { name: "robust", one_line: "session table, revocation later" },
          ],
        };
      }
      if (agent === "architect")
        return {
          ...(good(agent, prompt, output) as object),
          summary: /^Feedback from the person: (.*)$/m.exec(prompt)?.[1] ?? "first draft",
        };
      return good(agent, prompt, output);
    });
    const person = personSaying("approve", "Change something", "use OAuth", "robust");
    expect(await runWorkflow(h.options({ approve: "ask", ask: person.asker }))).toMatchObject({ outcome: "complete" });
    expect(person.asked).toEqual([
      "Approve the requirements?",
      "Which design?",
      "What should the architects change?",
      "Which design?",
    ]);
    const text = h.lines.join("\n");
    expect(text).toContain(
      "  Designs\n    minimal  signed cookie, one route  ← recommended\n    robust   session table, revocation later\n  The roundtable recommends minimal: a third of the change",
    );
    expect(text).toContain("  The roundtable recommends minimal: both now use OAuth");
    const revisions = h.sessions.filter((s) => s.agent === "architect" && /^Revise: /m.test(s.prompt));
    expect(revisions.map((s) => /^Design name: (.*)$/m.exec(s.prompt)?.[1]).sort()).toEqual(["minimal", "robust"]);
    expect(revisions.every((s) => s.prompt.includes("Feedback from the person: use OAuth"))).toBe(true);
    expect(roundtables).toBe(2);
    expect(h.sessions.filter((s) => s.agent === "roundtable")[1]!.prompt).toContain(
      "Feedback from the person: use OAuth",
    );
    expect(readJson(join(h.root, "memory/reports/final_design.json"))).toMatchObject({
      chosen: "robust",
      approved_by: "user",
      user_notes: "use OAuth",
      design: { summary: "use OAuth" },
    });
  });

  test("feedback survives Ctrl-C mid-revision: the next run (even without a terminal) finishes the revision first, then stops at the gate", async () => {
    const interrupt = new AbortController();
    const h = harness((a, p, o) =>
      /^Revise: /m.test(p) && !interrupt.signal.aborted ? hangs("pm", interrupt)(a, p, o) : pm(a, p, o),
    );
    const person = personSaying("Change something", "sessions last 7 days");
    await expect(
      runWorkflow(h.options({ approve: "ask", ask: person.asker, signal: interrupt.signal })),
    ).rejects.toMatchObject({ code: "interrupted", details: { sessions_kept: ["pm.REQUIREMENTS.revise-1.s1"] } });
    const next = await runWorkflow(h.options({ request: undefined, approve: "ask" }));
    expect(next).toMatchObject({ outcome: "decision", decision: { yes: "dotagent phase approve REQUIREMENTS" } });
    const revision = h.sessions.filter((s) => /^Revise: /m.test(s.prompt));
    expect(revision.map((s) => s.resumed)).toEqual([false, true]);
    expect(readJson(join(h.root, "memory/reports/demand.json")).summary).toBe("sign in; sessions last 7 days");
  });

  test("Stop here at a gate: a calm stop (interrupted, exit 130), nothing approved; the next run asks again", async () => {
    const h = harness(good);
    await expect(
      runWorkflow(h.options({ approve: "ask", ask: personSaying("Stop here").asker })),
    ).rejects.toMatchObject({
      code: "interrupted",
      exitCode: 130,
      message: expect.stringContaining("stopped at the REQUIREMENTS gate, as you chose: nothing approved"),
    });
    const again = await runWorkflow(h.options({ request: undefined, approve: "auto" }));
    expect(again.outcome).toBe("complete");
  });

  test("no terminal: the gate as fields (the lines a terminal shows, the commands); --change sends the report back to the pm, then the gate again; nothing approved", async () => {
    const h = harness(pm);
    const first = await runWorkflow(h.options({ approve: "ask" }));
    expect(first).toMatchObject({
      outcome: "decision",
      decision: {
        question: "Approve memory/reports/demand.json?",
        default: false,
        yes: "dotagent phase approve REQUIREMENTS",
        no: 'dotagent run --change "<what should change>"',
      },
      gate: {
        step: "REQUIREMENTS",
        report: "memory/reports/demand.json",
        approve: "dotagent phase approve REQUIREMENTS && dotagent run",
        change: 'dotagent run --change "<what should change>"',
      },
    });
    const shown = (first as { gate: { shown: string[] } }).gate.shown;
    expect(shown).toEqual([
      "  sign in",
      "  Stories",
      "    US-1  as a registered user, I want to sign in, so that I reach my account",
      "  Acceptance criteria",
      "    AC-1  a right password signs in",
      "    AC-2  a wrong one does not",
      "  Open questions",
      "    -  Should sessions end when the password changes?",
    ]);
    // Said once: the question is not repeated among the lines a person reads on stderr.
    expect(h.lines.filter((l) => l.includes("demand.json?"))).toEqual([]);
    expect(h.lines).toContain("  ! stopped at the REQUIREMENTS gate for your answer");
    const again = await runWorkflow(h.options({ request: undefined, approve: "ask", change: "sessions last 7 days" }));
    expect(again).toMatchObject({
      outcome: "decision",
      gate: { step: "REQUIREMENTS", shown: expect.arrayContaining(["  sign in; sessions last 7 days"]) },
    });
    expect(h.sessions.filter((s) => s.agent === "pm")[1]!.prompt.split("\n")).toEqual([
      "Feature request: add login",
      "Phase: REQUIREMENTS",
      "Revise: memory/reports/demand.json",
      "Feedback from the person: sessions last 7 days",
      "Output file: memory/reports/demand.json",
    ]);
    expect(readJson(join(h.root, "memory/state/phase.json")).user_checkpoints).toEqual([]);
    expect(await checkpointStore(join(h.root, "memory/runs"), "wf-add-login").load("run")).toMatchObject({
      feedback: [{ gate: "REQUIREMENTS", text: "sessions last 7 days" }],
      pending: null,
    });
    // Used once: the next run without it stops at the gate again, nothing revised.
    expect(await runWorkflow(h.options({ request: undefined, approve: "ask" }))).toMatchObject({ outcome: "decision" });
    expect(h.sessions.filter((s) => s.agent === "pm")).toHaveLength(2);
  });

  test("--change where no gate waits (an agent still to write, a complete workflow): usage, exit 2, nothing started", async () => {
    const h = harness(good);
    const { openWorkflow } = await import("../api/workflow.js");
    await openWorkflow(h.root).init("add login");
    await expect(runWorkflow(h.options({ request: undefined, approve: "ask", change: "more" }))).rejects.toMatchObject({
      code: "usage",
      exitCode: 2,
      message:
        "--change answers the gate a workflow waits at, and workflow wf-add-login is at REQUIREMENTS, not at a gate that takes changes; run dotagent run without --change",
    });
    expect(h.sessions).toHaveLength(0);
    expect(await runWorkflow(h.options({ request: undefined, approve: "auto" }))).toMatchObject({
      outcome: "complete",
    });
    await expect(runWorkflow(h.options({ request: undefined, change: "more" }))).rejects.toMatchObject({
      code: "usage",
      exitCode: 2,
    });
  });

  test("no terminal at the pick: the decision lists every design with the command that picks it", async () => {
    const three: Writer = (agent, prompt, output) =>
      agent === "roundtable"
        ? {
            recommendation: "robust",
            options_for_user: [
              { name: "minimal", one_line: "small" },
              { name: "robust", one_line: "big" },
              { name: "fancy", one_line: "shiny" },
            ],
          }
        : good(agent, prompt, output);
    const h = harness((agent, prompt, output) => three(agent, prompt, output));
    // "Stop here" at the pick: a calm stop (interrupted, exit 130), nothing picked.
    await expect(
      runWorkflow(h.options({ approve: "ask", ask: personSaying("approve", "Stop here").asker, maxParallel: 3 })),
    ).rejects.toMatchObject({
      code: "interrupted",
      exitCode: 130,
      message: expect.stringContaining("stopped at the pick, as you chose"),
    });
    // fancy.json was never asked for: a third design written by hand, then the pick without a terminal.
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(h.root, "memory/reports/designs/fancy.json"), JSON.stringify({ name: "fancy", tasks: [] }));
    const outcome = await runWorkflow(h.options({ request: undefined, approve: "ask", dirArg: "p" }));
    expect(outcome).toMatchObject({
      outcome: "decision",
      choices: [
        { design: "minimal", one_line: "small", recommended: false, command: "dotagent run --dir p --design minimal" },
        { design: "robust", one_line: "big", recommended: true, command: "dotagent run --dir p --design robust" },
        { design: "fancy", one_line: "shiny", recommended: false, command: "dotagent run --dir p --design fancy" },
      ],
    });
  });
});

describe("--approve auto is remembered for the workflow", () => {
  test("a later run without --approve keeps approving; --approve ask turns it off (and is remembered too)", async () => {
    const interrupt = new AbortController();
    let stop = true;
    const h = harness((a, p, o) => (stop ? hangs("roundtable", interrupt)(a, p, o) : good(a, p, o)));
    await expect(runWorkflow(h.options({ approve: "auto", signal: interrupt.signal }))).rejects.toMatchObject({
      code: "interrupted",
    });
    expect(await checkpointStore(join(h.root, "memory/runs"), "wf-add-login").load("run")).toMatchObject({
      approve: "auto",
    });
    stop = false;
    // No terminal and no --approve: still approved automatically (else it would stop at the pick).
    const again = await runWorkflow(h.options({ request: undefined, approve: undefined }));
    expect(again).toMatchObject({ outcome: "complete" });
    expect(h.lines).toContain(
      "  · gates approved automatically: --approve auto is remembered for this workflow (`dotagent run --approve ask` asks again)",
    );
    expect(readJson(join(h.root, "memory/reports/final_design.json"))).toMatchObject({
      approved_by: "dotagent run --approve auto",
    });
  });

  test("turned off: --approve ask stops at the next gate without a terminal, and so do the runs after it", async () => {
    const interrupt = new AbortController();
    const h = harness((a, p, o) => (interrupt.signal.aborted ? good(a, p, o) : hangs("pm", interrupt)(a, p, o)));
    await expect(runWorkflow(h.options({ approve: "auto", signal: interrupt.signal }))).rejects.toMatchObject({
      code: "interrupted",
    });
    expect(await runWorkflow(h.options({ request: undefined, approve: "ask" }))).toMatchObject({
      outcome: "decision",
      decision: { yes: "dotagent phase approve REQUIREMENTS" },
    });
    expect(await runWorkflow(h.options({ request: undefined, approve: undefined }))).toMatchObject({
      outcome: "decision",
    });
  });

  test("a new workflow that reuses the id remembers nothing of the old one", async () => {
    const h = harness(good);
    expect(await runWorkflow(h.options({ approve: "auto" }))).toMatchObject({ outcome: "complete" });
    const { openWorkflow } = await import("../api/workflow.js");
    await openWorkflow(h.root).init("add login", { decide: () => true });
    expect(await runWorkflow(h.options({ request: undefined, approve: undefined }))).toMatchObject({
      outcome: "decision",
    });
  });
});

describe("before anything starts: the login and the API", () => {
  test("an OAuth login in Claude Code's credentials file (accountInfo shows only subscriptionType) is a login", async () => {
    const h = harness(good);
    const base = h.options().sdk!;
    const sdk = {
      query: (p: Parameters<typeof base.query>[0]) =>
        Object.assign(base.query(p), {
          accountInfo: async () => ({ subscriptionType: "Claude Pro", apiProvider: "firstParty" }),
          close: () => {},
        }),
    };
    expect(await runWorkflow(h.options({ sdk }))).toMatchObject({ outcome: "complete" });
  });

  test("an API address nobody answers: api_unreachable (exit 1) in one line, at once, nothing created, no agent", async () => {
    const h = harness(good);
    const server = createServer().listen(0);
    await new Promise((resolve) => server.once("listening", resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise((resolve) => server.close(resolve)); // the port is free now: connection refused
    const error = await errorOf(runWorkflow(h.options({ apiUrl: `http://127.0.0.1:${port}` })));
    expect(error).toMatchObject({ code: "api_unreachable", exitCode: 1 });
    expect(error?.message).toBe(
      `the Claude API at http://127.0.0.1:${port} does not answer (connection refused); check the network, then run dotagent run again (nothing was started)`,
    );
    expect(existsSync(join(h.root, "memory"))).toBe(false);
    expect(h.sessions).toHaveLength(0);
  });

  test("an API that answers anything (here 404 to a HEAD): the run goes on", async () => {
    const h = harness(good);
    const server = createServer((_req, res) => {
      res.statusCode = 404;
      res.end();
    }).listen(0);
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      expect(
        await runWorkflow(h.options({ apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })),
      ).toMatchObject({ outcome: "complete" });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("what a clean run says", () => {
  test("no 'repaired', every agent line with its time, a task bar over the whole plan, the summary's figures", async () => {
    const h = harness(good);
    const outcome = await runWorkflow(h.options());
    const text = h.lines.join("\n");
    expect(text).not.toMatch(/repair/i);
    expect(text).not.toMatch(/\(s\)/);
    expect(h.lines).toContainEqual(expect.stringMatching(/^  ✓ pm wrote memory\/reports\/demand\.json +\d+\.\ds$/));
    expect(h.lines).toContainEqual(
      expect.stringMatching(/^  ✓ task-001 model +\d+\.\ds  \[######------\] 1\/2 tasks$/),
    );
    expect(h.lines).toContainEqual(
      expect.stringMatching(/^  ✓ task-002 route +\d+\.\ds  \[############\] 2\/2 tasks$/),
    );
    expect(h.lines.filter((l) => /^[A-Z]+$/.test(l))).toEqual([
      "REQUIREMENTS",
      "ARCHITECTURE",
      "IMPLEMENTATION",
      "VERIFICATION",
      "REFLECTION",
    ]);
    expect(outcome).toMatchObject({
      outcome: "complete",
      agents: 8,
      reports: [
        "memory/reports/demand.json",
        "memory/reports/designs/minimal.json",
        "memory/reports/designs/robust.json",
        "memory/reports/roundtable.json",
        "memory/reports/final_design.json",
        "memory/reports/tasks/task-001.json",
        "memory/reports/tasks/task-002.json",
        "memory/reports/verification.json",
        "memory/reports/reflection.json",
      ],
    });
    expect((outcome as { elapsed_ms: number }).elapsed_ms).toBeGreaterThanOrEqual(0);
  });
});
