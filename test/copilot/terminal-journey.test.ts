// /develop in the INTERACTIVE GitHub Copilot CLI (its terminal UI, in tmux), offline against the
// scripted model (opt-in like the print journeys: DOTAGENT_E2E_COPILOT=1; skipped, saying so,
// without tmux). The person types `/develop add login` and their answers at the prompt; the client
// expands the skill itself there (NOTES.md, "The interactive terminal"), and the hooks must still
// find the request and the person's replies.
import { spawnSync } from "node:child_process";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { tmuxAvailable } from "../claude/scripted-model/terminal.js";
import { denials, gateTrail, sessionText, spawnCounts, fetchCopilotBinary, expectBackgroundSafe } from "./journey.js";
import { runCopilotTerminalJourney, type CopilotTerminalResult } from "./terminal-journey.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const ENABLED = process.env.DOTAGENT_E2E_COPILOT === "1";
const TMUX = tmuxAvailable();
/** `npm test` (CI): the clean journey; `npm run journey`: the kill too (the print journey kills in CI). */
const ALL = process.env.DOTAGENT_JOURNEY_ALL === "1";
if (ENABLED && !TMUX)
  console.warn("warning: tmux is not installed; the interactive Copilot journey is skipped (apt-get install tmux)");

const detail = (result: CopilotTerminalResult) =>
  `typed ${JSON.stringify(result.typed)}; events ${result.events.map((e) => e.type).join(",")}; screen:\n${result.screen
    .split("\n")
    .filter((l) => l.trim() !== "")
    .slice(-30)
    .join("\n")}`;

describe.skipIf(!ENABLED || !TMUX)(
  "the /develop journey in the interactive Copilot CLI (DOTAGENT_E2E_COPILOT=1, tmux)",
  () => {
    let copilot = "";

    beforeAll(() => {
      if (!existsSync(join(ROOT, "dist/dotagent.mjs")))
        throw new Error("dist/dotagent.mjs is missing: run `npm run build`");
      copilot = fetchCopilotBinary();
    }, 600_000);

    // In `npm run journey` (about 35 s of CI's two busy cores): what only the terminal does, the
    // skill it expands itself, is read from the same text by test/copilot/hooks-cli.test.ts and
    // src/clients/copilot/hook-io.test.ts in npm test; print mode's journeys run there in the binary.
    it.runIf(ALL)(
      "the person types `/develop add login`, `approve`, `minimal`: every agent once, both gates theirs, workflow_complete",
      async () => {
        const result = await runCopilotTerminalJourney({ root: ROOT, copilot });
        const info = detail(result);
        expect(result.complete, info).toBe(true);
        expect(result.typed).toEqual(["/develop add login", "approve", "minimal"]);
        // The client's default mode asks before the first file write (the pm's report); "don't ask again
        // in this repo" covers the rest. The hook's allow spares the helper's lines and the spawns a box.
        expect(result.permissionBoxes, info).toBe(1);
        const { byTask, byAgent } = spawnCounts(result);
        expect(byTask).toEqual({ "task-001": 1, "task-002": 1, "task-003": 1 });
        expect(byAgent).toEqual({ pm: 1, architect: 2, roundtable: 1, executor: 3, qa: 1, reflector: 1 });
        expect(denials(result)).toEqual([]);
        expect(result.validateExit).toBe(0);
        // The request came from the skill the client expanded (its ARGUMENTS line), through the hook's plan.
        expect(result.events.find((e) => e.type === "workflow_started")).toMatchObject({ request: "add login" });
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
        // What the person saw (the client draws its own scrolling view, so the pane holds its last screen):
        // each agent a block in the conversation, the person's answers after `❯`, the end.
        expect(result.screen).toMatch(/❯ minimal/);
        expect(result.screen).toMatch(/● Executor \(model: [^)]*\) executor for IMPLEMENTATION/);
        expect(result.screen).toMatch(/● The workflow is complete/);
        if (!process.env.KEEP) rmSync(result.work, { recursive: true, force: true });
      },
      600_000,
    );

    it.runIf(ALL)(
      "the model starts every agent in the background (against the skill): each agent ends once, the notifications are not the person's, the workflow completes",
      async () => {
        const result = await runCopilotTerminalJourney({ root: ROOT, copilot, background: true });
        const info = detail(result);
        expect(result.typed).toEqual(["/develop add login", "approve", "minimal"]);
        expectBackgroundSafe(result, info);
        if (!process.env.KEEP) rmSync(result.work, { recursive: true, force: true });
      },
      600_000,
    );

    it.runIf(ALL)(
      "the person's own edit and the install left uncommitted: the uncommitted-changes question about their edit reaches the person as the model's words, no failed command (✗) with raw JSON before it; their yes commits and the tasks get worktrees",
      async () => {
        const question = /❯ minimal[\s\S]*The main checkout has uncommitted changes[\s\S]*Yes or no\?/;
        const result = await runCopilotTerminalJourney({
          root: ROOT,
          copilot,
          allowAllTools: true,
          commitInstall: false,
          // The person's own edit, not committed: theirs to decide about (the install's files are not, SPEC §19).
          prepare: (project) => writeFileSync(join(project, "README.md"), "# demo app, edited by the person\n"),
          watchFor: question,
        });
        const info = `${detail(result)}\nscreen at the question:\n${result.screenWatched}`;
        expect(result.complete, info).toBe(true);
        expect(result.typed).toEqual(["/develop add login", "approve", "minimal", "yes"]);
        // What the person read between their pick and the question (before: `✗ Shell  {"situation":"interrupted",…` and
        // the helper's `resume --json` line, a command that exited 5). Now the hook's next line carried the question.
        const shown = result.screenWatched.replace(/\s+/g, " ");
        expect(shown, info).toMatch(question);
        const between = shown.slice(
          shown.lastIndexOf("❯ minimal"),
          shown.indexOf("The main checkout has uncommitted changes"),
        );
        expect(between, info).not.toMatch(/✗|"situation"|resume --json/);
        expect(shown).toContain(
          "Commit them now (yes), run the tasks without worktrees, all in the one checkout (no), or stop and let me handle it (neither)?",
        );
        process.stdout.write(
          `the question on screen:\n${result.screenWatched
            .split("\n")
            .filter((l) => /❯ minimal|uncommitted|✗|Shell/.test(l))
            .join("\n")}\n`,
        );
        // Asked by the hook (once), answered by the person's yes, carried out by the decision's yes: no `resume --json` call needed.
        expect(result.events.filter((e) => e.type === "decision_asked").map((e) => e.key)).toEqual(["isolation"]);
        expect(result.events.filter((e) => e.type === "isolation_decided").map((e) => `${e.mode} ${e.chosen}`)).toEqual(
          ["worktree commit"],
        );
        // No helper call exited 5 on the way (Copilot's result text names the exit code: before, `… completed with exit code 5>`).
        expect(
          result.log.filter((e) => e.kind === "tool_result" && /exit code 5>/.test(String(e.text))).length,
          info,
        ).toBe(0);
        expect(result.validateExit).toBe(0);
        if (!process.env.KEEP) rmSync(result.work, { recursive: true, force: true });
      },
      600_000,
    );

    it.runIf(ALL)(
      "kill -9 of the client mid task batch, `copilot --resume <id>`, `/develop`: completes, no complete task runs again",
      async () => {
        // The kill: task-002's executor has written its report and asks the model again (not returned yet).
        const told =
          /! dotagent: the last session ended during workflow wf-add-login: .*task-002 had finished.*Typing continue \(or \/develop\) goes on from there\./;
        const result = await runCopilotTerminalJourney({
          root: ROOT,
          copilot,
          allowAllTools: true,
          watchAfterResume: told,
          killAt: (_k, who, last) => who === "executor" && /task-002\.json/.test(last) && /created/i.test(last),
        });
        const info = `${detail(result)}\nscreen at the kill:\n${result.screenAtKill
          .split("\n")
          .filter((l) => l.trim() !== "")
          .slice(-15)
          .join("\n")}`;
        expect(result.killed, info).toBe(true);
        expect(result.complete, info).toBe(true);
        expect(result.typed).toEqual(["/develop add login", "approve", "minimal", "/develop"]);
        // --allow-all-tools in the terminal: no permission box at all.
        expect(result.permissionBoxes).toBe(0);
        expect(result.validateExit).toBe(0);
        expect(
          result.eventsAtKill.filter((e) => e.type === "task_completed").map((e) => e.task_id),
          info,
        ).toEqual(["task-001"]);
        expect(result.eventsAtKill.some((e) => e.type === "task_started" && e.task_id === "task-002")).toBe(true);
        const { byTask } = spawnCounts(result);
        expect(byTask).toEqual({ "task-001": 1, "task-002": 1, "task-003": 1 });
        expect(result.events.filter((e) => e.type === "task_completed").map((e) => e.task_id)).toEqual([
          "task-001",
          "task-002",
          "task-003",
        ]);
        expect(gateTrail(result)).toEqual([
          "replied REQUIREMENTS",
          "approved REQUIREMENTS",
          "replied ARCHITECTURE",
          "approved ARCHITECTURE",
        ]);
        expect(result.events.filter((e) => e.type === "person_replied").length).toBe(2);
        // The resumed session was briefed by the sessionStart hook.
        expect(sessionText(result)).toMatch(/dotagent: workflow wf-add-login is open \(this session was resumed\)/);
        // And the person read, under their first prompt after `copilot --resume`, what happened and what
        // to type: the hook's stderr with exit status 2, which Copilot shows as a `!` line (NOTES.md).
        expect(result.screenAfterResume.replace(/\s+/g, " "), result.screenAfterResume).toMatch(told);
        process.stdout.write(
          `after the resumed prompt the screen showed:\n${result.screenAfterResume
            .split("\n")
            .filter((l) => /dotagent:|[›❯] (continue|\/develop)/.test(l))
            .join("\n")}\n`,
        );
        expect(sessionText(result)).toMatch(
          /"type":"session.warning","data":\{"warningType":"hook","message":"dotagent: the last session ended during workflow wf-add-login: /,
        );
        expect(denials(result)).toEqual([]);
        if (!process.env.KEEP) rmSync(result.work, { recursive: true, force: true });
      },
      600_000,
    );
  },
);
