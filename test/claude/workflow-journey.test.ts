// A workflow definition of the project's own (SPEC §20) in the REAL Claude Code, driven by the
// scripted model: develop's choose step, the project's tests as a `check` that runs a shell
// command and sends the work back once, a `shell` step, and an extra gate the person answers.
// `/develop --workflow review add login` from the first prompt to the end, then kill -9 inside
// each step kind and `/develop` again: nothing complete runs again, no command runs twice. The notes
// are the project's own agent's, which ends its first turn without them and is sent back.
// Opt-in like the other journeys (DOTAGENT_E2E_CLAUDE=1); `npm run journey` runs every kill point.
import { describe, it, expect, beforeAll } from "vitest";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { fetchClaude } from "./harness.js";
import {
  isHelper,
  refused,
  runJourney,
  spawns,
  toolCalls,
  toolResults,
  type JourneyResult,
} from "./scripted-model/journey.js";
import { runTerminalJourney } from "./scripted-model/terminal-journey.js";
import { tmuxAvailable } from "./scripted-model/terminal.js";
import { JOURNEY_MORE } from "../support/journey-tier.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const ENABLED = process.env.DOTAGENT_E2E_CLAUDE === "1";
const ALL = process.env.DOTAGENT_JOURNEY_ALL === "1";

export const REVIEW = {
  description: "develop, then the project's tests as a check, a shipping command, and notes the person approves",
  extends: "develop",
  remove: ["REFLECTION"],
  insert: [
    {
      after: "VERIFICATION",
      steps: [
        // Fails until the rework round's task has written rework-1-1.txt: the work goes back once.
        { id: "TESTS", kind: "check", run: "test -f rework-1-1.txt", rework: "IMPLEMENTATION", max_rounds: 1 },
        { id: "SHIP", kind: "shell", run: "echo shipped >> shipped.txt" },
        // The project's own agent (.claude/agents/scribe.md), which stops the first time without
        // its report: only the SubagentStop hook sees it, and sends it back.
        { id: "NOTES", kind: "agent", agent: "scribe", report: "notes.md", gate: "approve" },
      ],
    },
  ],
};

/** Agents spawned by a clean run: the rework round adds an executor and a second qa. */
const CLEAN = { pm: 1, architect: 2, roundtable: 1, executor: 4, qa: 2, scribe: 1 };
const POLICY = { executorWrites: "own" as const, forgetsReport: ["scribe"] };

const SCRIBE = `---
name: scribe
description: Writes the release notes of the project's review workflow (its NOTES step).
tools: Read, Write
---

You write short release notes for what the workflow built, at the Output file your prompt names.
`;
const STEPS = ["REQUIREMENTS", "ARCHITECTURE", "IMPLEMENTATION", "VERIFICATION", "TESTS", "SHIP", "NOTES"];

function addDefinition(project: string): void {
  mkdirSync(join(project, ".dotagent", "workflows"), { recursive: true });
  writeFileSync(join(project, ".dotagent", "workflows", "review.json"), `${JSON.stringify(REVIEW, null, 2)}\n`);
  writeFileSync(join(project, ".claude", "agents", "scribe.md"), SCRIBE);
  const git = (...args: string[]) =>
    spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: project });
  git("add", "-A");
  git("commit", "-qm", "the review workflow");
}

function journey(
  killAt?: (k: number, who: string, last: string) => boolean,
  afterKill = "/develop",
  claude = "",
): Promise<JourneyResult> {
  return runJourney({
    root: ROOT,
    claude,
    developCommand: "/develop --workflow review",
    policy: POLICY,
    afterInstall: addDefinition,
    ...(killAt ? { killAt, afterKill } : {}),
  });
}

interface Judged {
  complete: boolean;
  valid: boolean;
  steps: string[];
  spawns: Record<string, number>;
  testsRuns: number;
  shipped: number;
  denials: number;
  helperFailures: string[];
}

function judge(result: JourneyResult): Judged {
  const calls = toolCalls(result.log);
  const results = toolResults(result.log);
  const ran = (step: string) =>
    result.events.filter((e) => e.type === "step_run_ended" && (e as { step?: string }).step === step).length;
  const shippedFile = join(result.project, "shipped.txt");
  return {
    complete: result.complete,
    valid: result.validateExit === 0,
    steps: result.events
      .filter((e) => e.type === "phase_completed")
      .map((e) => String(e.phase))
      .filter((p, i, all) => all.indexOf(p) === i),
    spawns: spawns(calls),
    testsRuns: ran("TESTS"),
    shipped: existsSync(shippedFile) ? readFileSync(shippedFile, "utf8").trim().split("\n").length : 0,
    denials: [...results.values()].filter(refused).length,
    helperFailures: calls
      .filter(isHelper)
      .filter((c) => {
        const r = results.get(c.id);
        // `step run` exits 1 when the command failed and 5 when the person must approve it: both are answers.
        return r?.is_error === true && /Exit code [2-4]\b/.test(r.text);
      })
      .map((c) => String(c.input.command).replace(/^node "[^"]*" /, "dotagent ")),
  };
}

describe.skipIf(!ENABLED || !JOURNEY_MORE)(
  "a project's workflow definition in the real Claude Code (DOTAGENT_E2E_CLAUDE=1)",
  () => {
    let claude = "";
    let clean: JourneyResult;

    beforeAll(() => {
      if (!existsSync(join(ROOT, "dist/dotagent.mjs")))
        throw new Error("dist/dotagent.mjs is missing: run `npm run build`");
      claude = fetchClaude();
    }, 600_000);

    it("/develop --workflow review: both of develop's gates, the command asked of the person, one rework round, the shell step once, the notes approved", async () => {
      clean = await journey(undefined, undefined, claude);
      const said = clean.runs.map((r) => r.run.result?.result ?? r.run.stderr).join("\n---\n");
      // The person: the request, the demand, the pick, the test command, the shipping command, the notes.
      expect(
        clean.runs.map((r) => r.prompt),
        said,
      ).toEqual(["/develop --workflow review add login", "approve", "minimal", "yes", "yes", "approve"]);
      const judged = judge(clean);
      expect(judged).toEqual({
        complete: true,
        valid: true,
        steps: STEPS,
        spawns: CLEAN,
        testsRuns: 2,
        shipped: 1,
        denials: 0,
        helperFailures: [],
      });
      const phase = JSON.parse(readFileSync(join(clean.project, "memory/state/phase.json"), "utf8")) as {
        workflow: { name: string };
        rework: { step: string; round: number };
      };
      expect(phase.workflow.name).toBe("review");
      expect(phase.rework).toMatchObject({ step: "TESTS", round: 1 });
      // The commands ran only after the person's yes: each was asked once (exit 5) before it ran.
      const asked = clean.events.filter((e) => e.type === "decision_asked").length;
      expect(asked).toBe(2);
      // The scribe ended its first turn without notes.md: SubagentStop sent it back once (its next
      // request carries the stop hook's reminder), and it wrote them; spawned once.
      const feedback = clean.log.filter((e) => e.kind === "feedback" && e.who === "scribe").map((e) => String(e.text));
      expect(
        feedback.filter((t) => /dotagent reminder 1/.test(t)),
        said,
      ).toHaveLength(1);
      expect(readFileSync(join(clean.project, "memory/reports/notes.md"), "utf8")).toContain("Login shipped");
      // The rework round's task landed its file in the main checkout, which is why TESTS passed.
      expect(existsSync(join(clean.project, "rework-1-1.txt"))).toBe(true);
      if (!process.env.KEEP) rmSync(clean.work, { recursive: true, force: true });
    }, 600_000);

    /** Kill points: inside each step kind (all in `npm run journey`), or the check's (CI). */
    const POINTS: Array<[string, (k: number, who: string, last: string) => boolean]> = [
      ["agent: the pm at work", (_k, who) => who === "pm"],
      ["choose: an architect at work", (_k, who) => who === "architect"],
      ["tasks: an executor at work", (_k, who) => who === "executor"],
      ["check (agent): qa at work", (_k, who) => who === "qa"],
      [
        "check (run): TESTS's failed run recorded, the model not yet told",
        (_k, who, last) => who === "main" && /"step":\s*"TESTS"[\s\S]*"ran":\s*true/.test(last),
      ],
      [
        "shell: SHIP's command ran, the model not yet told",
        (_k, who, last) => who === "main" && /"step":\s*"SHIP"[\s\S]*"ran":\s*true/.test(last),
      ],
      ["agent with a gate: the project's scribe writing notes.md", (_k, who) => who === "scribe"],
    ];
    // CI runs the clean journey here and a kill in the terminal journey below; every point is in `npm run journey`.
    const chosen = ALL ? POINTS : [];

    for (const [i, [name, killAt]] of chosen.entries()) {
      it(
        `kill -9 inside ${name}, then ${i % 2 === 0 ? "/develop" : "continue"}: completes, nothing complete runs again, no command twice`,
        async () => {
          const result = await journey(killAt, i % 2 === 0 ? "/develop" : "continue", claude);
          expect(result.killed).toBe(true);
          const judged = judge(result);
          const said = result.runs
            .map((r) => `${r.prompt} → ${(r.run.result?.result ?? r.run.stderr).slice(0, 120)}`)
            .join("\n");
          expect(judged.complete && judged.valid, said).toBe(true);
          expect(judged.steps).toEqual(STEPS);
          // Agents killed at work run again (their reports were not in: both architects, spawned
          // together, or the one agent at work); nothing complete does.
          const atWork = (agent: string) => (killAt(0, agent, "") ? (agent === "architect" ? 2 : 1) : 0);
          for (const [agent, n] of Object.entries(judged.spawns))
            expect(n, `${agent} spawned ${n} times`).toBeLessThanOrEqual(
              CLEAN[agent as keyof typeof CLEAN] + atWork(agent),
            );
          expect(judged.testsRuns).toBe(2);
          expect(judged.shipped).toBe(1);
          expect(judged.helperFailures).toEqual([]);
          if (!process.env.KEEP) rmSync(result.work, { recursive: true, force: true });
        },
        ALL ? 600_000 : 300_000,
      );
    }
  },
);

// About a minute in CI, so it runs in `npm run journey`; the print journey above stays in `npm test`.
describe.skipIf(!ENABLED || !tmuxAvailable() || !ALL)(
  "a project's workflow definition in the interactive terminal (DOTAGENT_E2E_CLAUDE=1, tmux)",
  () => {
    let claude = "";
    beforeAll(() => {
      claude = fetchClaude();
    }, 600_000);

    // Background agents, notifications and auto mode's monitor, as a person runs it; killed (-9)
    // while TESTS's failed run is recorded, then `claude -r` and "continue".
    it("/develop --workflow review in the terminal, killed after the check's failed run, `claude -r`: completes, each command once", async () => {
      const result = await runTerminalJourney({
        root: ROOT,
        claude,
        developArgs: "--workflow review add login",
        policy: POLICY,
        afterInstall: addDefinition,
        killWhen: (_k, who, log) =>
          who === "main" &&
          /"step":\s*"TESTS"[\s\S]*"ran":\s*true/.test(
            String(log.filter((e) => e.kind === "tool_result").at(-1)?.text ?? ""),
          ),
        timeoutMs: 300_000,
      });
      const said = result.screens.map((s) => `${s.before}`).join(" | ");
      expect(result.killed, said).toBe(true);
      expect(result.complete, `${said}\n${result.screen}`).toBe(true);
      expect(result.validateExit).toBe(0);
      const ran = (step: string) =>
        result.events.filter((e) => e.type === "step_run_ended" && (e as { step?: string }).step === step).length;
      expect([ran("TESTS"), ran("SHIP")]).toEqual([2, 1]);
      expect(readFileSync(join(result.project, "shipped.txt"), "utf8").trim().split("\n")).toHaveLength(1);
      expect(
        result.events
          .filter((e) => e.type === "phase_completed")
          .map((e) => String(e.phase))
          .filter((p, i, all) => all.indexOf(p) === i),
      ).toEqual(STEPS);
      // The person answered every gate and both commands: the demand, the pick, TESTS, SHIP, the notes.
      expect(result.typed.filter((t) => t !== "continue")).toEqual([
        "/develop --workflow review add login",
        "approve",
        "minimal",
        "yes",
        "yes",
        "approve",
      ]);
      if (!process.env.KEEP) rmSync(result.work, { recursive: true, force: true });
    }, 600_000);
  },
);
