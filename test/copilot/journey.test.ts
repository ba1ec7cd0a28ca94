// The /develop workflow in the REAL GitHub Copilot CLI binary, offline against the scripted model
// (opt-in: DOTAGENT_E2E_COPILOT=1; the binary comes from scripts/fetch-copilot.mjs). The person's
// answers at the two gates are follow-up prompts (`copilot -p "approve" --resume <id>`), recorded
// by the userPromptSubmitted hook; the model never approves for them.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import {
  denials,
  gateTrail,
  runCopilotJourney,
  sessionText,
  spawnCounts,
  type CopilotJourneyResult,
  fetchCopilotBinary,
  expectBackgroundSafe,
} from "./journey.js";
import { JOURNEY_MORE } from "../support/journey-tier.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const ENABLED = process.env.DOTAGENT_E2E_COPILOT === "1";
/** `npm run journey`: every journey; `npm run test:clients`: the crash; CI: the first gate only (issue 41: CI's time), beside the CLI tests without the binary (hooks-cli, install-cli). */
const ALL = process.env.DOTAGENT_JOURNEY_ALL === "1";

const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;

function summary(result: CopilotJourneyResult): string {
  return JSON.stringify({
    runs: result.runs.map((r) => [r.prompt, r.code, r.signal, r.ms, r.stderr.slice(0, 200)]),
    requests: result.log.filter((e) => e.kind === "request").length,
    phase: existsSync(join(result.project, "memory/state/phase.json"))
      ? readJson(join(result.project, "memory/state/phase.json"))
      : null,
    events: result.events.map((e) => e.type),
  });
}

describe.skipIf(!ENABLED)("the /develop journey in the real Copilot CLI (DOTAGENT_E2E_COPILOT=1)", () => {
  let copilot = "";

  beforeAll(() => {
    if (!existsSync(join(ROOT, "dist/dotagent.mjs")))
      throw new Error("dist/dotagent.mjs is missing: run `npm run build`");
    copilot = fetchCopilotBinary();
  }, 600_000);

  // `npm run test:clients` runs the kill journey (which also walks both gates to workflow_complete); the
  // clean run, with its exact spawn counts, is in `npm run journey`.
  it.runIf(ALL)(
    "runs from `/develop add login` through both gates (answered by the person) to workflow_complete",
    async () => {
      const result = await runCopilotJourney({ root: ROOT, copilot });
      const info = summary(result);
      if (process.env.DOTAGENT_JOURNEY_COST) console.log(info);
      expect(
        result.runs.map((r) => r.prompt),
        info,
      ).toEqual(["/develop add login", "approve", "minimal"]);
      expect(result.complete, info).toBe(true);
      const phase = readJson(join(result.project, "memory/state/phase.json"));
      expect(phase.phase_status ?? phase.status, info).toBe("complete");
      const { byTask, byAgent } = spawnCounts(result);
      expect(byTask).toEqual({ "task-001": 1, "task-002": 1, "task-003": 1 });
      expect(byAgent).toEqual({ pm: 1, architect: 2, roundtable: 1, executor: 3, qa: 1, reflector: 1 });
      expect(denials(result)).toEqual([]);
      expect(result.validateExit).toBe(0);
      // Both gates: approved from the person's own prompt (the hook), never by a helper call of the model.
      expect(gateTrail(result)).toEqual([
        "replied REQUIREMENTS",
        "approved REQUIREMENTS",
        "replied ARCHITECTURE",
        "approved ARCHITECTURE",
      ]);
      const helperApprovals = result.log.filter(
        (e) => e.kind === "response" && JSON.stringify(e.blocks).includes("phase approve"),
      );
      expect(helperApprovals).toEqual([]);
      expect(readJson(join(result.project, "memory/reports/final_design.json"))).toMatchObject({
        chosen: "minimal",
        approved_by: "user",
      });
      if (!process.env.KEEP) rmSync(result.work, { recursive: true, force: true });
    },
    600_000,
  );

  // CI's run of the binary (issue 41: the whole journeys are `npm run test:clients`'s): the first
  // gate, cut short once the architects would start. The hooks Copilot runs hold the person's reply.
  it("`/develop add login`, then the person's `approve`: the hooks record the reply as the person's, the gate passes, the architects start", async () => {
    const result = await runCopilotJourney({ root: ROOT, copilot, stopAt: (_k, who) => who === "architect" });
    const info = summary(result);
    expect(
      result.runs.map((r) => r.prompt),
      info,
    ).toEqual(["/develop add login", "approve"]);
    expect(result.runs[0]!.code, info).toBe(0);
    expect(
      result.events.filter((e) => e.type === "person_replied").map((e) => `${String(e.phase)} ${String(e.gate)}`),
      info,
    ).toEqual(["REQUIREMENTS approve_requirements"]);
    expect(result.events.filter((e) => e.type === "phase_approved").map((e) => e.phase)).toEqual(["REQUIREMENTS"]);
    expect(readJson(join(result.project, "memory/state/phase.json"))).toMatchObject({ current_phase: "ARCHITECTURE" });
    expect(existsSync(join(result.project, "memory/reports/demand.json"))).toBe(true);
    expect(denials(result)).toEqual([]);
    // Cut off there (kill -9 of copilot's group): the state is valid all the same.
    expect(result.validateExit).toBe(0);
    if (!process.env.KEEP) rmSync(result.work, { recursive: true, force: true });
  }, 600_000);

  // `npm run test:clients` (issue 41: CI's time).
  it.runIf(JOURNEY_MORE)(
    "kill -9 of copilot mid task batch, `copilot --resume`: the workflow completes, no complete task runs again",
    async () => {
      // The kill: task-002's executor has written its report and asks the model again (not returned yet).
      // The project has both installs (Claude Code's .claude/ too): Copilot runs both sets of hooks.
      const result = await runCopilotJourney({
        root: ROOT,
        copilot,
        alsoClaude: true,
        killAt: (_k, who, last) => who === "executor" && /task-002\.json/.test(last) && /created/i.test(last),
      });
      const info = summary(result);
      if (process.env.DOTAGENT_JOURNEY_COST) console.log(info);
      expect(result.killed, info).toBe(true);
      expect(
        result.runs.some((r) => r.signal === "SIGKILL"),
        info,
      ).toBe(true);
      expect(result.complete, info).toBe(true);
      expect(result.validateExit).toBe(0);
      // Killed mid batch: task-001 complete, task-002 started and its report written, not yet returned.
      const before = result.eventsAtKill.filter((e) => e.type === "task_completed").map((e) => e.task_id);
      expect(before, info).toEqual(["task-001"]);
      expect(result.eventsAtKill.some((e) => e.type === "task_started" && e.task_id === "task-002")).toBe(true);
      // No complete task runs again; task-002's report on disk is taken, not redone.
      const { byTask } = spawnCounts(result);
      expect(byTask).toEqual({ "task-001": 1, "task-002": 1, "task-003": 1 });
      expect(result.events.filter((e) => e.type === "task_completed").map((e) => e.task_id)).toEqual([
        "task-001",
        "task-002",
        "task-003",
      ]);
      expect(result.events.filter((e) => e.type === "phase_approved").map((e) => e.phase)).toEqual([
        "REQUIREMENTS",
        "ARCHITECTURE",
      ]);
      // Both installs, one set of books: every agent's start recorded once.
      expect(existsSync(join(result.project, ".claude/settings.json"))).toBe(true);
      expect(result.events.filter((e) => e.type === "agent_started").length).toBe(6);
      expect(result.events.filter((e) => e.type === "task_started").length).toBe(3);
      // The person answered each gate once: never asked again (a step the reply allowed, refused
      // because Copilot had not yet written the prompt down, had made the model ask once in CI).
      expect(
        result.events.filter((e) => e.type === "person_replied").map((e) => `${String(e.phase)} ${String(e.gate)}`),
        info,
      ).toEqual(["REQUIREMENTS approve_requirements", "ARCHITECTURE pick_design"]);
      // The resumed session was briefed by the sessionStart hook.
      expect(sessionText(result)).toMatch(
        /dotagent: workflow wf-add-login is open \(this session was resumed\)\.\\nFeature request: add login\\nPhase: IMPLEMENTATION/,
      );
      expect(denials(result)).toEqual([]);
      if (!process.env.KEEP) rmSync(result.work, { recursive: true, force: true });
    },
    600_000,
  );

  // In `npm run journey`: both of its mechanisms are in the CLI tests without the binary
  // (test/copilot/hooks-cli.test.ts: a background launch is not the agent's end; a notification is not the person).
  it.runIf(ALL)(
    "the model starts every agent in the background (mode \"background\", against the skill): each agent ends once, at its stop; Copilot's notifications are not the person's; the workflow completes",
    async () => {
      const result = await runCopilotJourney({ root: ROOT, copilot, background: true });
      const info = summary(result);
      expectBackgroundSafe(result, info);
      if (!process.env.KEEP) rmSync(result.work, { recursive: true, force: true });
    },
    600_000,
  );

  it.runIf(ALL)(
    "the model's own `phase approve` before the person answered is refused by the preToolUse hook; the person's approve counts",
    async () => {
      const result = await runCopilotJourney({ root: ROOT, copilot, policy: { deviation: "approve_unasked" } });
      const info = summary(result);
      expect(result.complete, info).toBe(true);
      const refused = denials(result);
      expect(refused.length, info).toBe(1);
      expect(refused[0]).toMatch(/^Denied by preToolUse hook: dotagent: /);
      expect(gateTrail(result)).toEqual([
        "replied REQUIREMENTS",
        "approved REQUIREMENTS",
        "replied ARCHITECTURE",
        "approved ARCHITECTURE",
      ]);
      if (!process.env.KEEP) rmSync(result.work, { recursive: true, force: true });
    },
    600_000,
  );

  it.runIf(ALL)(
    "an executor's code into the main checkout is denied (its prompt, from Copilot's session record, names its worktree); it writes there instead, each task once",
    async () => {
      const result = await runCopilotJourney({ root: ROOT, copilot, policy: { deviation: "executor_strays" } });
      const info = summary(result);
      if (process.env.DOTAGENT_JOURNEY_COST) console.log(info, denials(result));
      expect(result.complete, info).toBe(true);
      const refused = denials(result);
      expect(refused.length, info).toBe(3);
      for (const text of refused) expect(text).toMatch(/worktree/);
      expect(spawnCounts(result).byTask).toEqual({ "task-001": 1, "task-002": 1, "task-003": 1 });
      if (!process.env.KEEP) rmSync(result.work, { recursive: true, force: true });
    },
    600_000,
  );

  it.runIf(ALL)(
    "an executor that stops without its report is sent back by the subagentStop hook (a numbered reminder), writes it, and its task completes once",
    async () => {
      const result = await runCopilotJourney({ root: ROOT, copilot, policy: { deviation: "no_report" } });
      const info = summary(result);
      if (process.env.DOTAGENT_JOURNEY_COST) console.log(info);
      expect(result.complete, info).toBe(true);
      expect(sessionText(result)).toMatch(/dotagent reminder 1 of 2: your report is not done/);
      expect(spawnCounts(result).byTask).toEqual({ "task-001": 1, "task-002": 1, "task-003": 1 });
      expect(result.events.filter((e) => e.type === "task_failed")).toEqual([]);
      if (!process.env.KEEP) rmSync(result.work, { recursive: true, force: true });
    },
    600_000,
  );
});
