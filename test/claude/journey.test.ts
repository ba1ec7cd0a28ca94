// The whole /develop journey in the REAL Claude Code, driven by the scripted model
// (test/claude/scripted-model/), and the crash matrix: kill -9 at tool-call boundaries, then
// `claude -p --resume <session> "/develop"`. Opt-in like the e2e test (DOTAGENT_E2E_CLAUDE=1).
// `npm run test:clients` (DOTAGENT_JOURNEY_MORE=1) runs the clean journey and a bounded sample of
// crash points (CI walks /develop in the interactive terminal instead: issue 41, CI's time), and
// `npm run journey` (DOTAGENT_JOURNEY_ALL=1) every point and
// prints the table. CI's kill -9 and resume of Claude Code is the interactive terminal's
// (terminal-journey.test.ts: killed with an executor's report written, not handed back, like the
// sample here). The clean journey is also the README's first session in print mode, in a project
// set up by `dotagent install`: the resume plan in the prompt before the model's first word, and
// the installed SessionStart hook's briefing at each resume (both were claude-code-e2e.test.ts's
// own sessions; read here from the journey's transcript, two Claude Code starts fewer).
import { briefings, clientVersion, developPlan, fetchClaude, transcript as transcriptOf } from "./harness.js";
import { describe, it, expect, beforeAll } from "vitest";
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { transcript } from "./scripted-model/client.js";
import { costTable, readingCost } from "./scripted-model/reading-cost.js";
import {
  CLEAN_SPAWNS,
  isHelper,
  refused,
  runJourney,
  spawns,
  toolCalls,
  toolResults,
  writes,
  type JourneyResult,
} from "./scripted-model/journey.js";
import { journeyFigures, overBudget, recordedFigures, recordFigures, recordMatrix } from "./scripted-model/figures.js";
import { JOURNEY_MORE } from "../support/journey-tier.js";

/** The clean print-mode journey's cost, as recorded (DOTAGENT_RECORD_FIGURES=1 writes it). */
export const PRINT_FIGURES = join(ROOT_DIR(), "docs/figures/journey-print.json");
function ROOT_DIR(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), "../..");
}

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
const ENABLED = process.env.DOTAGENT_E2E_CLAUDE === "1";
const ALL = process.env.DOTAGENT_JOURNEY_ALL === "1";

const REPORTS = [
  "memory/reports/demand.json",
  "memory/reports/designs/minimal.json",
  "memory/reports/designs/robust.json",
  "memory/reports/roundtable.json",
  "memory/reports/final_design.json",
  "memory/reports/tasks/task-001.json",
  "memory/reports/tasks/task-002.json",
  "memory/reports/tasks/task-003.json",
  "memory/reports/verification.json",
  "memory/reports/reflection.json",
];
/** The log's milestones, in the order the clean journey records them. */
const MILESTONES = [
  "workflow_started",
  "phase_started REQUIREMENTS",
  "phase_approved REQUIREMENTS",
  "phase_completed REQUIREMENTS",
  "phase_started ARCHITECTURE",
  "phase_approved ARCHITECTURE",
  "phase_completed ARCHITECTURE",
  "task_completed task-001",
  "task_completed task-002",
  "task_completed task-003",
  "phase_completed IMPLEMENTATION",
  "phase_started VERIFICATION",
  "phase_completed VERIFICATION",
  "phase_started REFLECTION",
  "phase_completed REFLECTION",
];
const milestone = (e: { type: string; phase?: string; task_id?: string }) =>
  [e.type, e.phase ?? e.task_id].filter(Boolean).join(" ");
const PHASE_OF: Record<string, string> = {
  pm: "REQUIREMENTS",
  architect: "ARCHITECTURE",
  roundtable: "ARCHITECTURE",
  qa: "VERIFICATION",
  reflector: "REFLECTION",
};

export interface PointOutcome {
  point: number;
  then: string;
  where: string;
  recovered: boolean;
  reruns: number;
  forbidden: string[];
  denials: number;
  /**
   * Denials at a gate after a kill that took the person's reply with it (`replyLost`): the model
   * acted on a reply the session's record does not hold, and the gate held. Not failures.
   */
  gateHeld: number;
  helperFailures: string[];
  briefed: boolean;
}

/** A refusal of the gate's: the model approved or picked on a reply the record does not hold (src/core/person-answer.ts). */
const GATE_REFUSAL =
  /the person's reply at the \w+ gate|the person has not answered the \w+ gate|the person's pick names/;

/**
 * Whether the kill took the person's reply with it: the killed request was their reply at a gate
 * (a plain prompt), and the resumed session's record has no such prompt where it was typed.
 * Claude Code writes a prompt's line after its UserPromptSubmit hook, so a kill in the turn's
 * first request can come before it; whether it does is the client's timing. With the reply gone,
 * "continue" answers nothing (SPEC §11 "Who decides"), and a model that approves anyway is denied.
 */
function replyLost(result: JourneyResult, killedRun: number, sessionId: string | undefined): boolean {
  const killed = result.runs[killedRun]?.prompt;
  if (killed === undefined || killed.startsWith("/") || sessionId === undefined) return false;
  const prompts = transcript(result.home, result.project, sessionId)
    .filter((l) => l.type === "user" && typeof l.message?.content === "string" && l.isMeta !== true)
    .map((l) => String(l.message!.content).trim());
  return prompts[killedRun] !== killed;
}

function denials(result: JourneyResult): number {
  const refusedResults = [...toolResults(result.log).values()].filter(refused).length;
  const reported = result.runs.reduce((n, r) => n + (r.run.result?.permission_denials?.length ?? 0), 0);
  return Math.max(refusedResults, reported);
}

function helperFailures(result: JourneyResult): string[] {
  const results = toolResults(result.log);
  return toolCalls(result.log)
    .filter(isHelper)
    .filter((c) => {
      const r = results.get(c.id);
      // A call cut off by the kill gets a synthetic "interrupted" result: not a helper failure.
      return r?.is_error === true && /Exit code [1-4]\b/.test(r.text);
    })
    .map(
      (c) =>
        `${String(c.input.command).replace(/^node "[^"]*" /, "dotagent ")} → ${results.get(c.id)!.text.slice(0, 200)}`,
    );
}

/** Judges one crash point: recovered, and nothing finished before the kill ran again. */
function judge(point: number, then: string, result: JourneyResult, killedAtEvent: number): PointOutcome {
  const before = result.events.slice(0, killedAtEvent).map(milestone);
  const done = new Set(before);
  const killK = point;
  const after = toolCalls(result.log).filter((c) => c.k > killK && c.name === "Agent");
  const forbidden = after
    .filter((c) => {
      const type = String(c.input.subagent_type).replace(/^.*:/, "");
      if (type === "executor") return done.has(`task_completed ${/^Task: (\S+)/m.exec(String(c.input.prompt))?.[1]}`);
      return done.has(`phase_completed ${PHASE_OF[type]}`);
    })
    .map((c) => `${String(c.input.subagent_type)} at request ${c.k}`);
  const counts = spawns(toolCalls(result.log));
  const reruns = Object.entries(counts).reduce(
    (n, [type, count]) => n + Math.max(0, count - (CLEAN_SPAWNS[type as keyof typeof CLEAN_SPAWNS] ?? 0)),
    0,
  );
  const killedRun = result.runs.findIndex(
    (r) => r.run.signal === "SIGKILL" || (r.run.result === null && r.run.code !== 0),
  );
  // "continue" right after a kill in the first request finds no saved conversation (Claude Code
  // says so and exits 1); the person then types the next prompt, which is the session to judge.
  const resumed = result.runs.slice(killedRun + 1).find((r) => r.run.result?.session_id);
  // No workflow yet when killed: there is nothing to brief on.
  let briefed = killedAtEvent === 0;
  if (!briefed && resumed?.run.result?.session_id) {
    const lines = transcript(result.home, result.project, resumed.run.result.session_id);
    const briefings = lines
      .filter((l) => l.attachment?.type === "hook_additional_context")
      .map((l) => [l.attachment!.content].flat().join("\n"));
    const plan = result.events.length > 0;
    briefed =
      !plan || briefings.some((b) => b.includes("wf-add-login") && /Next action: \w+/.test(b)) || done.size === 0;
  }
  const who = result.log.find((e) => e.kind === "request" && e.k === point)?.who ?? "?";
  const reportWritten =
    who !== "main" &&
    result.log.some(
      (e) => e.kind === "tool_result" && e.k === point && /File created successfully/.test(String(e.text)),
    );
  const where = reportWritten ? `${who} (report written, not returned)` : who;
  const gateHeld = replyLost(result, killedRun, resumed?.run.result?.session_id)
    ? [...toolResults(result.log).values()].filter((r) => refused(r) && GATE_REFUSAL.test(r.text)).length
    : 0;
  return {
    point,
    then,
    where,
    recovered:
      result.complete &&
      result.validateExit === 0 &&
      !MILESTONES.some((m) => !result.events.map(milestone).includes(m)),
    reruns,
    forbidden,
    denials: Math.max(0, denials(result) - gateHeld),
    gateHeld,
    helperFailures: helperFailures(result),
    briefed,
  };
}

describe.skipIf(!ENABLED)("the /develop journey in the real Claude Code (DOTAGENT_E2E_CLAUDE=1)", () => {
  let claude = "";
  let clean: JourneyResult;

  beforeAll(() => {
    if (!existsSync(join(ROOT, "dist/dotagent.mjs")))
      throw new Error("dist/dotagent.mjs is missing: run `npm run build`");
    claude = fetchClaude();
  }, 600_000);

  // `npm run test:clients` (issue 41: CI walks /develop in the interactive terminal instead).
  it.runIf(JOURNEY_MORE)(
    "runs from `/develop add login` through both approvals to workflow_complete, clean",
    async () => {
      clean = await runJourney({ root: ROOT, claude });
      const calls = toolCalls(clean.log);
      expect(clean.runs.map((r) => r.prompt)).toEqual(["/develop add login", "approve", "minimal"]);
      expect(clean.complete, clean.runs.map((r) => r.run.result?.result).join("\n")).toBe(true);
      expect(denials(clean)).toBe(0);
      expect(helperFailures(clean)).toEqual([]);
      expect(spawns(calls)).toEqual(CLEAN_SPAWNS);
      // Every report once, by its agent; final_design.json by dotagent from the person's plain pick.
      const written = writes(calls, clean.project);
      expect(Object.keys(written).sort()).toEqual(REPORTS.filter((r) => !r.endsWith("final_design.json")).sort());
      expect(readJson(join(clean.project, "memory/reports/final_design.json"))).toMatchObject({
        chosen: "minimal",
        approved_by: "user",
        user_notes: "minimal",
      });
      expect(Object.values(written).every((n) => n === 1)).toBe(true);
      // Every Agent call ran in the foreground, so the loop saw each report before going on.
      expect(calls.filter((c) => c.name === "Agent").every((c) => c.input.run_in_background === false)).toBe(true);
      // The hooks did the bookkeeping, and the person's plain "approve" and plain pick are recorded
      // by the hook from their own prompt: the model runs the helper not once on the clean path.
      const helperLines = calls
        .filter((c) => c.who === "main" && isHelper(c))
        .map((c) => String(c.input.command).replace(/^node "[^"]*" /, ""));
      expect(helperLines).toEqual([]);
      // What it cost (issue 22's bar: ≤ 26 main requests, ≤ 2.4 MB sent by the main agent, ≤ 15
      // helper calls), and no more than 10% over the figures recorded in docs/figures/.
      const figures = journeyFigures(clean.log);
      if (ALL || process.env.DOTAGENT_JOURNEY_COST) console.log(JSON.stringify(figures));
      expect(figures.main_requests).toBeLessThanOrEqual(26);
      // Issue 29's bar: the hooks take over the model's helper calls, print mode ≤ 14 main requests.
      expect(figures.main_requests).toBeLessThanOrEqual(14);
      expect(figures.main_bytes).toBeLessThanOrEqual(2_400_000);
      expect(figures.helper_calls).toBeLessThanOrEqual(15);
      if (process.env.DOTAGENT_RECORD_FIGURES === "1") recordFigures(PRINT_FIGURES, figures, clientVersion(claude));
      const recorded = recordedFigures(PRINT_FIGURES);
      expect(recorded, "docs/figures/journey-print.json (DOTAGENT_RECORD_FIGURES=1 writes it)").toBeDefined();
      expect(overBudget(figures, recorded!)).toEqual([]);
      expect(clean.validateExit).toBe(0);
      const seen = clean.events.map(milestone).filter((m) => MILESTONES.includes(m));
      expect(seen).toEqual(MILESTONES);
      expect(clean.events.map((e) => (e as { seq?: number }).seq)).toEqual(clean.events.map((_, i) => i + 1));
      const cost = costTable(readingCost(clean.log, join(ROOT, "agents")));
      if (ALL || process.env.DOTAGENT_JOURNEY_COST) console.log(cost);
      if (process.env.DOTAGENT_RECORD_FIGURES === "1")
        writeFileSync(join(ROOT, "docs/figures/reading-cost.md"), `${cost}\n`);
      expectFirstSession(clean);
      rmSync(clean.work, { recursive: true, force: true });
    },
    600_000,
  );

  /**
   * The README's first session, read from the clean journey's transcript: `/develop add login`
   * started the workflow before the model's first word (the plan in the expanded skill), the
   * startup hook said nothing (no workflow yet), and each `claude -p --resume` got the installed
   * SessionStart:resume hook's briefing on the open workflow; `dotagent install` put every agent
   * where the client finds them.
   */
  function expectFirstSession(result: JourneyResult): void {
    const sessionId = result.runs[0]!.run.result?.session_id ?? "";
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.runs.slice(1).every((r) => r.run.result?.session_id === sessionId)).toBe(true);
    const lines = transcriptOf(result.home, result.project, sessionId);
    const plan = developPlan(lines);
    expect(plan.situation).toBe("started");
    expect(plan).toMatchObject({ workflow_id: "wf-add-login", phase: "REQUIREMENTS" });
    expect(plan.next).toMatchObject({ action: "spawn_agent", agent: "pm" });
    // The SessionStart hook's context (the PostToolUse hooks' "dotagent recorded" lines are context too).
    const briefed = (from: typeof lines) =>
      briefings(from.filter((l) => l.attachment?.hookName?.startsWith("SessionStart") === true));
    const resumes = lines.flatMap((l, i) =>
      l.attachment?.type === "hook_success" && l.attachment.hookName === "SessionStart:resume" ? [i] : [],
    );
    expect(resumes).toHaveLength(result.runs.length - 1);
    expect(resumes.map((i) => lines[i]!.attachment?.exitCode)).toEqual(resumes.map(() => 0));
    // No workflow when the first session started: the startup hook ran and said nothing.
    expect(briefed(lines.slice(0, resumes[0]))).toEqual([]);
    const briefing = briefed(lines.slice(resumes[0], resumes[1]));
    expect(briefing).toHaveLength(1);
    expect(briefing[0]).toContain("wf-add-login");
    expect(briefing[0]).toContain("REQUIREMENTS");
    expect(briefing[0]).toContain("/develop");
    expect(briefing[0]!.length).toBeLessThan(10_000);
    expect(briefed(lines)).toHaveLength(result.runs.length - 1);
    expect(readdirSync(join(result.project, ".claude", "agents")).sort()).toEqual([
      "architect.md",
      "executor.md",
      "pm.md",
      "qa.md",
      "reflector.md",
      "reproducer.md",
      "roundtable.md",
    ]);
  }

  /** Crash points: all of them (`npm run journey`), or a bounded sample. */
  function points(): number[] {
    if (process.env.DOTAGENT_JOURNEY_POINTS) return process.env.DOTAGENT_JOURNEY_POINTS.split(",").map(Number);
    const requests = clean.log.filter((e) => e.kind === "request");
    if (ALL) {
      // Every boundary of the main agent's loop, and once inside each kind of sub-agent: its
      // report written, not yet returned (the request carrying its Write's result).
      const written = new Set(
        clean.log
          .filter((e) => e.kind === "tool_result" && /File created successfully/.test(String(e.text)))
          .map((e) => e.k),
      );
      const kinds = new Set<string>();
      return requests
        .filter((e) => {
          if (e.who === "main") return true;
          if (e.who === "side" || !written.has(e.k) || kinds.has(String(e.who))) return false;
          kinds.add(String(e.who));
          return true;
        })
        .map((e) => e.k);
    }
    // The sample (`npm run test:clients`): a kill inside an executor, its report written, not yet
    // returned; the main agent's boundaries are all in `npm run journey`.
    const insideExecutor = requests.find((e, i) => e.who === "executor" && requests[i + 1]?.who === "main")?.k;
    return [insideExecutor].filter((k): k is number => k !== undefined);
  }
  /** How the person goes on after the kill: `/develop`, and at every other point "continue". */
  const afterKill = (i: number) => (i % 2 === 0 ? "continue" : "/develop");

  it.runIf(JOURNEY_MORE)(
    "recovers from kill -9 at tool-call boundaries: briefed, nothing finished runs again, the workflow completes and validates",
    async () => {
      const outcomes: PointOutcome[] = [];
      const started = Date.now();
      for (const [i, point] of points().entries()) {
        const result = await runJourney({ root: ROOT, claude, killAt: point, afterKill: afterKill(i) });
        outcomes.push(judge(point, afterKill(i), result, result.eventsAtKill));
        if (ALL || process.env.DOTAGENT_JOURNEY_POINTS)
          console.log(
            JSON.stringify(outcomes.at(-1)),
            JSON.stringify(
              result.runs.map((r) => [
                r.prompt,
                r.run.code,
                r.run.signal,
                r.run.result?.session_id ?? null,
                (r.run.result?.result ?? r.run.stderr).slice(0, 80),
              ]),
            ),
          );
        if (!process.env.KEEP) rmSync(result.work, { recursive: true, force: true });
      }
      if (ALL) console.log(table(outcomes));
      if (ALL && process.env.DOTAGENT_RECORD_FIGURES === "1")
        recordMatrix(
          join(ROOT, "docs/figures/crash-matrix-print.json"),
          outcomes,
          clientVersion(claude),
          (Date.now() - started) / 60_000,
        );
      expect(
        outcomes.filter(
          (o) => !o.recovered || o.forbidden.length > 0 || o.denials > 0 || o.helperFailures.length > 0 || !o.briefed,
        ),
      ).toEqual([]);
    },
    ALL ? 3_600_000 : 180_000,
  );
});

/** A denials cell's note for the gate holding after a reply the kill took (journey-figures.mjs writes the same). */
const gateNote = (held: number | undefined) => (held ? ` (+${held} at the gate: the reply died with the kill)` : "");

export function table(outcomes: PointOutcome[]): string {
  const lines = [
    "| point | killed in | then | recovered | re-runs | forbidden re-runs | denials | helper failures | briefed |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const o of outcomes)
    lines.push(
      `| ${o.point} | ${o.where} | ${o.then} | ${o.recovered ? "yes" : "NO"} | ${o.reruns} | ${o.forbidden.length} | ${o.denials}${gateNote(o.gateHeld)} | ${o.helperFailures.length} | ${o.briefed ? "yes" : "NO"} |`,
    );
  const sum = (f: (o: PointOutcome) => number) => outcomes.reduce((n, o) => n + f(o), 0);
  lines.push(
    `| **${outcomes.length} points** | | | **${sum((o) => (o.recovered ? 1 : 0))}** | **${sum((o) => o.reruns)}** | **${sum((o) => o.forbidden.length)}** | **${sum((o) => o.denials)}** | **${sum((o) => o.helperFailures.length)}** | **${sum((o) => (o.briefed ? 1 : 0))}** |`,
  );
  return lines.join("\n");
}
