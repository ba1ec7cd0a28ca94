// /develop in the INTERACTIVE Claude Code client (opt-in like every real-client test:
// DOTAGENT_E2E_CLAUDE=1; skipped, saying so, without tmux): in a terminal, sub-agents always run in
// the background and auto mode is the default permission mode. The clean workflow for a project
// install and a plugin install, with the person typing the answers, and a kill -9 of the client
// inside a background batch followed by `claude -r`. `npm test` runs these three;
// `npm run journey` (DOTAGENT_JOURNEY_ALL=1) also kills the client at more points of the batch.
import { clientVersion, fetchClaude } from "./harness.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CLEAN_SPAWNS, refused, spawns, toolCalls, toolResults, isHelper } from "./scripted-model/journey.js";
import { independentTasks } from "./scripted-model/policy.js";
import { runTerminalJourney, type TerminalJourneyResult } from "./scripted-model/terminal-journey.js";
import { tmuxAvailable } from "./scripted-model/terminal.js";
import { journeyFigures, overBudget, recordedFigures, recordFigures, recordMatrix } from "./scripted-model/figures.js";
import { fillBlock, sessionText } from "./scripted-model/session-capture.js";
import { writeFileSync } from "node:fs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const ENABLED = process.env.DOTAGENT_E2E_CLAUDE === "1";
const ALL = process.env.DOTAGENT_JOURNEY_ALL === "1";
const TMUX = tmuxAvailable();
export const TERMINAL_FIGURES = join(ROOT, "docs/figures/journey-terminal.json");
if (ENABLED && !TMUX)
  console.warn("warning: tmux is not installed; the interactive-terminal journey is skipped (apt-get install tmux)");

const milestone = (e: { type: string; phase?: string; task_id?: string }) =>
  [e.type, e.phase ?? e.task_id].filter(Boolean).join(" ");

/** What every interactive journey must show: done, valid, nothing refused, dotagent's calls never judged. */
function expectSound(result: TerminalJourneyResult): void {
  const detail = `typed ${JSON.stringify(result.typed)}; screen:\n${result.screen.split("\n").slice(-25).join("\n")}`;
  expect(result.complete, detail).toBe(true);
  expect(result.validateExit).toBe(0);
  expect([...toolResults(result.log).values()].filter(refused), "refused tool calls").toEqual([]);
  const figures = journeyFigures(result.log);
  // Auto mode's monitor never judged a helper line or a dotagent spawn: the PreToolUse hook allowed them.
  expect(figures.monitor_about.helper ?? 0, JSON.stringify(figures.monitor_about)).toBe(0);
  expect(figures.monitor_about.spawn ?? 0, JSON.stringify(figures.monitor_about)).toBe(0);
  const seen = result.events.map(milestone);
  expect(
    seen.filter((m) => /^(task_failed|task_dead|phase_failed)/.test(m)),
    "failed or dead",
  ).toEqual([]);
  expect(result.events.map((e) => e.seq)).toEqual(result.events.map((_, i) => i + 1));
}

describe.skipIf(!ENABLED || !TMUX)(
  "the /develop journey in the interactive terminal (DOTAGENT_E2E_CLAUDE=1, tmux)",
  () => {
    let claude = "";
    beforeAll(() => {
      claude = fetchClaude();
    }, 600_000);

    // In `npm run journey`: the kill below walks the same journey in the terminal up to its kill and
    // on to the end, and the clean journey's request budget is checked in print mode (journey.test.ts).
    it.runIf(ALL)(
      "project install: `/develop add login`, the person answers, background agents to workflow_complete",
      async () => {
        const result = await runTerminalJourney({ root: ROOT, claude });
        expectSound(result);
        expect(result.typed).toEqual(["/develop add login", "approve", "minimal"]);
        const calls = toolCalls(result.log);
        expect(spawns(calls)).toEqual(CLEAN_SPAWNS);
        // Every sub-agent ran in the background, as the interactive client runs them all.
        expect(toolResults(result.log).size).toBeGreaterThan(0);
        expect(
          calls
            .filter((c) => c.who === "main" && c.name === "Agent")
            .every((c) => /Async agent launched/.test(toolResults(result.log).get(c.id)?.text ?? "")),
        ).toBe(true);
        const helperLines = calls
          .filter((c) => c.who === "main" && isHelper(c))
          .map((c) => String(c.input.command).replace(/^node "[^"]*" /, ""));
        // The person's plain "approve" and pick are recorded by the hook: no helper call by the model.
        expect(helperLines).toEqual([]);
        const figures = journeyFigures(result.log);
        if (ALL || process.env.DOTAGENT_JOURNEY_COST) console.log(JSON.stringify(figures));
        expect(figures.main_requests).toBeLessThanOrEqual(26);
        if (process.env.DOTAGENT_RECORD_FIGURES === "1")
          recordFigures(TERMINAL_FIGURES, figures, clientVersion(claude));
        const recorded = recordedFigures(TERMINAL_FIGURES);
        expect(recorded, "docs/figures/journey-terminal.json (DOTAGENT_RECORD_FIGURES=1 writes it)").toBeDefined();
        expect(overBudget(figures, recorded!)).toEqual([]);
        rmSync(result.work, { recursive: true, force: true });
      },
      600_000,
    );

    // In `npm run journey` (CI's two cores are busy): npm test has the plugin's hooks in the real
    // client in print mode (plugin-journey.test.ts) and the terminal with a project install above.
    it.runIf(ALL)(
      "plugin install: `/dotagent:develop add login` to workflow_complete, no permission rule anywhere",
      async () => {
        const marketplace = JSON.parse(readFileSync(join(ROOT, ".claude-plugin/marketplace.json"), "utf8")) as {
          name: string;
          plugins: Array<{ name: string }>;
        };
        const result = await runTerminalJourney({
          root: ROOT,
          claude,
          plugin: { marketplace: marketplace.name, name: marketplace.plugins[0]!.name },
        });
        expectSound(result);
        const calls = toolCalls(result.log);
        expect(
          calls
            .filter((c) => c.name === "Agent")
            .every((c) => String(c.input.subagent_type).startsWith(`${marketplace.plugins[0]!.name}:`)),
        ).toBe(true);
        expect(spawns(calls)).toEqual(CLEAN_SPAWNS);
        const settings = JSON.parse(readFileSync(join(result.home, ".claude/settings.json"), "utf8")) as {
          permissions?: unknown;
        };
        expect(settings.permissions).toBeUndefined();
        rmSync(result.work, { recursive: true, force: true });
      },
      600_000,
    );

    /**
     * Three independent tasks run as one background batch: task-001 works 1 s, task-002 4 s,
     * task-003 8 s. The client is killed when a chosen executor's request arrives; the person runs
     * `claude -r`, picks the session and says "continue".
     */
    const batch = [
      // task-002's report written, not yet recorded; task-001 recorded; task-003 still working.
      {
        name: "task-002 wrote its report, not yet handed back",
        at: (who: string, log: readonly { kind: string; who?: string; text?: unknown; k: number }[]) =>
          who === "executor" &&
          log.filter(
            (e) =>
              e.kind === "tool_result" &&
              e.who === "executor" &&
              /File created successfully at: .*task-002\.json/.test(String(e.text)),
          ).length === 1,
      },
      ...(ALL
        ? [
            {
              name: "the batch just launched",
              at: (who: string, log: readonly { kind: string; who?: string }[]) =>
                who === "executor" && log.filter((e) => e.kind === "request" && e.who === "executor").length === 3,
            },
            // task-001 (1 s) hands back first; its SubagentStop hook records it; the main agent's
            // next request is the turn its notification brings.
            {
              name: "task-001 recorded, the main agent waiting",
              at: (who: string, log: readonly { kind: string; who?: string; blocks?: unknown }[]) =>
                who === "main" &&
                log.some(
                  (e) =>
                    e.kind === "response" &&
                    e.who === "executor" &&
                    /"name":"SubagentHandback"/.test(JSON.stringify(e.blocks ?? [])),
                ),
            },
          ]
        : []),
    ];
    // The crash matrix in the terminal (recorded with DOTAGENT_JOURNEY_ALL=1 DOTAGENT_RECORD_FIGURES=1).
    const matrix: object[] = [];
    const matrixStarted = Date.now();
    afterAll(() => {
      if (ALL && process.env.DOTAGENT_RECORD_FIGURES === "1" && matrix.length === batch.length)
        recordMatrix(
          join(ROOT, "docs/figures/crash-matrix-terminal.json"),
          matrix,
          clientVersion(claude),
          (Date.now() - matrixStarted) / 60_000,
        );
    });
    it.each(batch)(
      "kill -9 inside a background batch ($name), then `claude -r`: nothing complete runs again",
      async ({ name, at }) => {
        let completedAtKill: string[] = [];
        const result = await runTerminalJourney({
          root: ROOT,
          claude,
          policy: { tasks: independentTasks(3) },
          executorMs: (report) =>
            report.endsWith("task-001.json") ? 1000 : report.endsWith("task-002.json") ? 4000 : 8000,
          killWhen: (_k, who, log) => at(who, log as never),
        });
        expect(result.killed).toBe(true);
        completedAtKill = result.events
          .slice(0, result.eventsAtKill)
          .filter((e) => e.type === "task_completed")
          .map((e) => String(e.task_id));
        expectSound(result);
        expect(result.typed.slice(0, 3)).toEqual(["/develop add login", "approve", "minimal"]);
        expect(result.typed).toContain("continue");
        // After `claude -r` the person reads what happened and what to type (the hook's systemMessage),
        // and dotagent's state changes never fill the screen as diffs (install turned them off).
        const resumed = result.screens.find((s) => s.before === "continue")?.screen.replace(/\s+/g, " ") ?? "";
        expect(resumed, resumed).toMatch(
          /SessionStart:resume says: dotagent: the last session ended during workflow wf-add-login: .*Type continue \(or \/develop\) to go on\./,
        );
        for (const s of result.screens)
          expect(s.screen, `before ${s.before}`).not.toContain("files that changed while this command ran");
        // Each executor once, plus once more for a task in flight at the kill without its report.
        const executors = toolCalls(result.log).filter(
          (c) => c.name === "Agent" && /executor$/.test(String(c.input.subagent_type)),
        );
        const perTask = new Map<string, number>();
        for (const c of executors) {
          const task = /^Task: (\S+)$/m.exec(String(c.input.prompt))?.[1] ?? "?";
          perTask.set(task, (perTask.get(task) ?? 0) + 1);
        }
        const complete = result.complete && result.validateExit === 0;
        matrix.push({
          point: name,
          completed_at_kill: completedAtKill,
          executors: executors.length,
          forbidden: completedAtKill.filter((id) => perTask.get(id) !== 1),
          recovered: complete,
        });
        for (const id of completedAtKill) expect(perTask.get(id), `${id} was complete before the kill`).toBe(1);
        // `npm run capture-session`: this run, as a person saw it, for the README and docs/.
        if (process.env.DOTAGENT_CAPTURE_SESSION === "1" && result.screens.some((s) => s.before === "claude -r")) {
          const text = sessionText(result.screens, result.project);
          writeFileSync(
            join(ROOT, "docs/terminal-session.md"),
            `# A captured session\n\nThe interactive Claude Code ${clientVersion(claude)} in a terminal, against the scripted model (test/claude/scripted-model/), as \`npm run capture-session\` recorded it: \`/develop add login\`, the two gates, three tasks in one background batch, the terminal killed (kill -9) while they work, \`claude -r\`, and the rest. Each \`❯\` line is what the person typed.\n\n\`\`\`text\n${text}\n\`\`\`\n`,
          );
          fillBlock(join(ROOT, "README.md"), "terminal-session", `\`\`\`text\n${text}\n\`\`\``);
        }
        for (const [id, n] of perTask) expect(n, id).toBeLessThanOrEqual(2);
        expect(spawns(toolCalls(result.log)).executor).toBeLessThanOrEqual(3 + 3 - completedAtKill.length);
        rmSync(result.work, { recursive: true, force: true });
      },
      600_000,
    );
  },
);
