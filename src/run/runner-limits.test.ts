// Limits and cost in `dotagent run` (SPEC §17): a usage or rate limit is never an agent's failure —
// the run waits for its reset (the time the API said, else a doubling guess) and goes on, the cut-off
// session resuming; Ctrl-C during the wait is a clean stop; a cost cap (--max-cost) stops the run
// cleanly once the sessions' estimated cost reaches it, nothing marked failed, and the next run goes on.
import { describe, expect, test } from "vitest";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { writeRunReport } from "../ops/run-report.js";
import { projectPaths } from "../store/project.js";
import { dirname, join } from "node:path";
import { DotagentError } from "../core/errors.js";
import type { QueryMessage, QuerySdk } from "../api/recoverable-query.js";
import { runWorkflow } from "./runner.js";
import { AGENTS, good, harness } from "./stand-in-sdk.test-support.js";

interface Script {
  /** The sessions that hit the limit (by output), and when the limit resets (ms; undefined: not said). */
  limited: Map<string, number | undefined>;
  cost: number;
  sessions: Array<{ output: string; resumed: boolean; budget: unknown; at: number }>;
}

/** A stand-in SDK: each agent writes its report (the scripted one), unless its output is limited (once). */
function sdkFor(root: string, script: Script): QuerySdk<QueryMessage> {
  let n = 0;
  return {
    async *query({ prompt, options }) {
      const output = /^Output file: (\S+)$/m.exec(prompt)?.[1] ?? "";
      const system = String(options?.systemPrompt ?? "");
      const agent = [...AGENTS.values()].find((a) => system.startsWith(a.body))?.name ?? "?";
      script.sessions.push({
        output,
        resumed: options?.resume !== undefined,
        budget: options?.maxBudgetUsd,
        at: Date.now(),
      });
      const session_id = typeof options?.resume === "string" ? options.resume : `s-${++n}`;
      yield { type: "system", subtype: "init", session_id };
      if (script.limited.has(output)) {
        const resetsAt = script.limited.get(output);
        script.limited.delete(output);
        if (resetsAt !== undefined)
          yield {
            type: "rate_limit_event",
            rate_limit_info: { status: "rejected", resetsAt: Math.floor(resetsAt / 1000) },
            session_id,
          };
        yield {
          type: "assistant",
          error: "rate_limit",
          message: { content: [{ type: "text", text: "API Error: usage limit reached" }] },
          session_id,
        };
        yield {
          type: "result",
          subtype: "success",
          is_error: true,
          result: "API Error: usage limit reached",
          session_id,
          total_cost_usd: 0,
        };
        return;
      }
      const report = good(agent, prompt, output);
      if (report && report !== "hang") {
        mkdirSync(dirname(join(root, output)), { recursive: true });
        writeFileSync(join(root, output), JSON.stringify(report));
      }
      yield { type: "result", subtype: "success", session_id, result: `Wrote ${output}.`, total_cost_usd: script.cost };
    },
  };
}

describe("dotagent run: usage limits and a cost cap", () => {
  test("a usage limit with a reset time: waits for it (the countdown said), then the pm's own session goes on; nothing failed", async () => {
    const h = harness(good);
    // The API says the reset in whole seconds: the run must not go on before it.
    const resetsAt = Math.ceil((Date.now() + 1200) / 1000) * 1000;
    const script: Script = { limited: new Map([["memory/reports/demand.json", resetsAt]]), cost: 0, sessions: [] };
    const outcome = await runWorkflow(h.options({ sdk: sdkFor(h.root, script), limitWaitMs: 100 }));
    expect(outcome.outcome).toBe("complete");
    // The pm's second session (its own, resumed) started only after the reset.
    const again = script.sessions.filter((s) => s.output.endsWith("demand.json"))[1];
    expect(again?.at).toBeGreaterThanOrEqual(resetsAt);
    const pm = script.sessions.filter((s) => s.output.endsWith("demand.json"));
    expect(pm.map((s) => s.resumed)).toEqual([false, true]);
    expect(
      h.lines.some((l) =>
        /usage limit reached: waiting until \d\d:\d\d UTC, then going on; Ctrl-C stops cleanly/.test(l),
      ),
    ).toBe(true);
    expect(h.lines.some((l) => /failed/.test(l))).toBe(false);
  }, 600_000);

  test("a limit with no reset time: a doubling wait; an executor's limit leaves its task as it was, never failed", async () => {
    const h = harness(good);
    const script: Script = {
      limited: new Map([["memory/reports/tasks/task-001.json", undefined]]),
      cost: 0,
      sessions: [],
    };
    const outcome = await runWorkflow(h.options({ sdk: sdkFor(h.root, script), limitWaitMs: 50 }));
    expect(outcome.outcome).toBe("complete");
    expect(h.lines.some((l) => l.includes("(the API gave no reset time)"))).toBe(true);
    expect(script.sessions.filter((s) => s.output.endsWith("task-001.json"))).toHaveLength(2);
    expect(h.lines.some((l) => /attempt \d of/.test(l))).toBe(false);
  }, 600_000);

  test("Ctrl-C during the wait: a clean stop (interrupted), the state kept; the next run goes on", async () => {
    const h = harness(good);
    const script: Script = {
      limited: new Map([["memory/reports/demand.json", Date.now() + 60_000]]),
      cost: 0,
      sessions: [],
    };
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 500);
    const error = await runWorkflow(h.options({ sdk: sdkFor(h.root, script), signal: stop.signal })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DotagentError);
    expect((error as DotagentError).code).toBe("interrupted");
    const again = await runWorkflow(h.options({ sdk: sdkFor(h.root, script), request: undefined }));
    expect(again.outcome).toBe("complete");
  }, 600_000);

  test("--max-cost: the run stops cleanly once the sessions' cost reaches the cap, each session bounded by what is left; the next run goes on", async () => {
    const h = harness(good);
    const script: Script = { limited: new Map(), cost: 0.4, sessions: [] };
    const error = await runWorkflow(h.options({ sdk: sdkFor(h.root, script), maxCostUsd: 1 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DotagentError);
    expect((error as DotagentError).code).toBe("budget_reached");
    expect((error as DotagentError).message).toMatch(
      /^the cost cap of \$1\.00 is reached: about \$1\.20 spent in this run/,
    );
    // pm (0.4 left of 1 → bounded 1), then the two architects (bounded 0.6 each): 1.2 ≥ 1, nothing more starts.
    expect(script.sessions.map((s) => s.budget)).toEqual([1, 0.6, 0.6]);
    const again = await runWorkflow(h.options({ sdk: sdkFor(h.root, script), request: undefined }));
    expect(again.outcome).toBe("complete");
    // Nothing that was done ran again.
    expect(script.sessions.filter((s) => s.output.endsWith("demand.json"))).toHaveLength(1);
    // The workflow's cost over both runs, kept for `dotagent report`: every session said 0.4.
    const report = await writeRunReport({ paths: projectPaths(h.root), now: () => new Date() }, undefined, h.root);
    expect(report.cost_recorded).toBe(true);
    const html = readFileSync(join(h.root, report.path), "utf8");
    expect(html).toContain(
      `about $${(0.4 * script.sessions.length).toFixed(2)} over ${script.sessions.length} dotagent run sessions`,
    );
  }, 600_000);
});
