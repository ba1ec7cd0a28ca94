// Issue 42 in the INTERACTIVE Claude Code client (DOTAGENT_E2E_CLAUDE=1 and DOTAGENT_JOURNEY_MORE=1;
// skipped, saying so, without tmux): the session dies while dotagent has a question for the person
// pending. The person's own README edit is uncommitted when the tasks would start, so their pick
// ("minimal") brings the uncommitted-changes question (`confirm_isolation`), recorded as asked; the
// client is killed (-9) at the very request that would relay it. The person runs `claude -r`,
// reads dotagent's line, types "continue": the model (following the SessionStart briefing) shows
// the question and its answers and runs nothing; the person says "yes"; the decision is carried out
// once and the workflow goes on to its end.
import { fetchClaude } from "./harness.js";
import { describe, expect, it } from "vitest";
import { appendFileSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { isHelper, refused, spawns, toolCalls, toolResults } from "./scripted-model/journey.js";
import { runTerminalJourney } from "./scripted-model/terminal-journey.js";
import { tmuxAvailable } from "./scripted-model/terminal.js";
import { JOURNEY_MORE } from "../support/journey-tier.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const ENABLED = process.env.DOTAGENT_E2E_CLAUDE === "1";
const TMUX = tmuxAvailable();
if (ENABLED && JOURNEY_MORE && !TMUX)
  console.warn(
    "warning: tmux is not installed; the pending-question terminal journey is skipped (apt-get install tmux)",
  );

const QUESTION = "The main checkout has uncommitted changes (README.md).";
const ANSWERS = 'Reply "yes" or "no"; any other reply is not taken as an answer.';
const fold = (s: string) => s.replace(/\s+/g, " ");

describe.skipIf(!ENABLED || !JOURNEY_MORE || !TMUX)(
  "a question pending when the interactive client dies (DOTAGENT_E2E_CLAUDE=1, DOTAGENT_JOURNEY_MORE=1, tmux)",
  () => {
    it("kill -9 as the uncommitted-changes question is handed, `claude -r`, continue: the question and its answers first, nothing run; yes is carried out once; the workflow completes", async () => {
      const claude = fetchClaude();
      let project = "";
      const eventsHere = () => {
        const file = join(project, "memory/state/events.jsonl");
        return existsSync(file) ? readFileSync(file, "utf8") : "";
      };
      const result = await runTerminalJourney({
        root: ROOT,
        claude,
        timeoutMs: 420_000,
        // The person's own change, not committed: whether to commit it is theirs to say (SPEC §19).
        afterInstall: (p) => {
          project = p;
          appendFileSync(join(p, "README.md"), "A line the person is still writing.\n");
        },
        // The main agent's first request once the question is recorded as asked: the one that would relay it.
        killWhen: (_k, who) => who === "main" && eventsHere().includes('"type":"decision_asked"'),
        // Once the pick is carried out (Claude Code records the prompt after the hook, and dotagent
        // carries a pick out only once that record confirms it): killed sooner, the client may never
        // record "minimal" at all, and the resumed session is back at the pick (a journey of its own).
        killAfter: () => eventsHere().includes('"type":"design_picked"'),
        // What the person sees once they said yes: the decision's command, then the tasks' agents.
        watch: { after: "yes", until: /❯ yes .*Backgrounded agent/ },
      });
      if (process.env.DOTAGENT_KEEP === "1")
        writeFileSync(join(result.work, "screens.json"), JSON.stringify(result.screens, null, 2));
      const screenAt = (before: string) => result.screens.find((s) => s.before === before);
      const detail = `typed ${JSON.stringify(result.typed)}; screen:\n${result.screen.split("\n").slice(-30).join("\n")}`;
      expect(result.killed, detail).toBe(true);
      expect(result.typed, detail).toEqual(["/develop add login", "approve", "minimal", "continue", "yes"]);

      // After `claude -r`: dotagent's one line says what happened and what to type, with the question.
      const resumed = fold(screenAt("continue")!.screen);
      expect(resumed, resumed).toMatch(
        /SessionStart:resume says: dotagent: .*workflow wf-add-login.* It waits for your answer: The main checkout has uncommitted changes \(README\.md\)\..* Type yes or no\./,
      );
      // After "continue": the question and its answers as the model's words, and nothing run before them.
      const asked = fold(screenAt("yes")!.screen);
      const afterContinue = asked.slice(asked.lastIndexOf("❯ continue"));
      expect(afterContinue, afterContinue).toContain(QUESTION);
      expect(afterContinue, afterContinue).toContain(ANSWERS);
      expect(afterContinue, afterContinue).not.toMatch(
        /Bash\(|shell command|dotagent\.mjs|Exit code|"next"|"situation"/,
      );
      // The model log agrees: from the kill to the person's yes the main agent called no tool, and
      // its one turn ended with the question word for word.
      const yesAt = screenAt("yes")!.at;
      const between = result.log.filter(
        (e) =>
          e.kind === "response" && e.who === "main" && Number(e.t) >= screenAt("continue")!.at && Number(e.t) < yesAt,
      );
      expect(between.length, JSON.stringify(between)).toBe(1);
      expect(between[0]!.stop).toBe("end_turn");
      const said = (between[0]!.blocks as Array<{ type: string; text?: string }>)
        .map((b) => (b.type === "text" ? b.text : `[${b.type}]`))
        .join("\n");
      expect(said).toContain(QUESTION);
      expect(said.trim().endsWith(ANSWERS), said).toBe(true);

      // The person's yes: the decision's yes is the first thing the model runs, once.
      const mainHelper = toolCalls(result.log)
        .filter((c) => c.who === "main" && isHelper(c))
        .map((c) => ({ c, at: Number(result.log.find((e) => e.kind === "response" && e.k === c.k)?.t) }));
      const afterYes = mainHelper
        .filter((h) => h.at >= yesAt)
        .map((h) => String(h.c.input.command).replace(/^node "[^"]*" /, ""));
      expect(afterYes[0], JSON.stringify(afterYes)).toBe("resume --isolation commit --json");
      expect(afterYes.filter((l) => l.includes("--isolation"))).toHaveLength(1);
      const events = result.events as Array<Record<string, unknown>>;
      expect(events.filter((e) => e.type === "decision_asked").map((e) => e.key)).toEqual(["isolation"]);
      expect(
        events.filter((e) => e.type === "person_replied" && e.decision === "isolation").map((e) => e.answer),
      ).toEqual([null, "yes"]);
      expect(events.filter((e) => e.type === "isolation_decided").map((e) => `${e.mode} ${e.chosen}`)).toEqual([
        "worktree commit",
      ]);
      // dotagent committed the person's change once, as the yes says.
      const commits = spawnSync("git", ["log", "--format=%s"], { cwd: result.project, encoding: "utf8" }).stdout;
      expect(
        commits.split("\n").filter((l) => l.includes("committed before the tasks")),
        commits,
      ).toHaveLength(1);

      // And the workflow goes on: every task once, to the end, the state valid, nothing refused.
      expect(result.complete, detail).toBe(true);
      expect(result.validateExit).toBe(0);
      expect([...toolResults(result.log).values()].filter(refused), "refused tool calls").toEqual([]);
      expect(spawns(toolCalls(result.log)).executor).toBe(3);
      expect(events.filter((e) => e.type === "task_completed").map((e) => e.task_id)).toEqual([
        "task-001",
        "task-002",
        "task-003",
      ]);
      // dotagent's state never fills the screen: the decision's command is one collapsed line, no
      // diffs of its files, no raw state JSON, from the yes to the end.
      const afterYesShown = fold(result.watched);
      expect(afterYesShown, afterYesShown).toMatch(/❯ yes Ran 1 shell command/);
      for (const shown of [afterYesShown, fold(result.screen)])
        expect(shown, shown).not.toMatch(/files that changed while this command ran|"phase_status"|"situation"|\{"/);
      if (process.env.DOTAGENT_KEEP !== "1") rmSync(result.work, { recursive: true, force: true });
      else console.log(`kept: ${result.work}`);
    }, 600_000);
  },
);
