// Issue 42 in the INTERACTIVE Claude Code client (DOTAGENT_E2E_CLAUDE=1 and DOTAGENT_JOURNEY_MORE=1;
// skipped, saying so, without tmux): the session dies while dotagent has a question for the person
// pending. The person's own README edit is uncommitted when the tasks would start, so their pick
// ("minimal") brings the uncommitted-changes question (`confirm_isolation`), recorded as asked; the
// client is killed (-9) at the very request that would relay it. The person runs `claude -r` and
// reads dotagent's line ("It waits for your answer: <question> Type yes or no."). Then either they
// type "continue": the model (following the SessionStart briefing) shows the question and its
// answers and runs nothing, and they say "yes"; or they type "yes" at once, as the line says: the
// model carries it out without asking again. Either way the decision is carried out once and the
// workflow goes on to its end.
import { fetchClaude } from "./harness.js";
import { describe, expect, it } from "vitest";
import { appendFileSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { isHelper, refused, spawns, toolCalls, toolResults } from "./scripted-model/journey.js";
import type { LogEntry } from "./scripted-model/server.js";
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
/** What the main agent's response said (its text, its calls named). */
const saidIn = (e: LogEntry) =>
  ((e.blocks as Array<{ type: string; text?: string; name?: string }>) ?? [])
    .map((b) => (b.type === "text" ? b.text : `[${b.name ?? b.type}]`))
    .join("\n");

describe.skipIf(!ENABLED || !JOURNEY_MORE || !TMUX)(
  "a question pending when the interactive client dies (DOTAGENT_E2E_CLAUDE=1, DOTAGENT_JOURNEY_MORE=1, tmux)",
  () => {
    it.each([
      {
        first: "continue",
        name: "the question and its answers first, nothing run; their yes is carried out once",
        replies: [null, "yes"],
      },
      {
        first: "yes",
        name: "a yes at once, as dotagent's line says, is carried out once: the question is not put again",
        replies: ["yes"],
      },
    ])(
      "kill -9 as the uncommitted-changes question is handed, `claude -r`, the person types $first: $name; the workflow completes",
      async ({ first, replies }) => {
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
          afterKill: first,
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
        expect(result.typed, detail).toEqual([
          "/develop add login",
          "approve",
          "minimal",
          ...(first === "yes" ? ["yes"] : [first, "yes"]),
        ]);

        // After `claude -r`: dotagent's one line says where the workflow is and what to type, with the question.
        const resumed = fold(screenAt(first)!.screen);
        expect(resumed, resumed).toMatch(
          /SessionStart:resume says: dotagent: workflow wf-add-login is open at IMPLEMENTATION\. It waits for your answer: The main checkout has uncommitted changes \(README\.md\)\..* Type yes or no\./,
        );
        // The main agent's responses from the person's first words after `claude -r` to their yes.
        const resumedAt = screenAt(first)!.at;
        const yesAt = screenAt("yes")!.at;
        const main = (from: number, to: number) =>
          result.log.filter(
            (e) => e.kind === "response" && e.who === "main" && Number(e.t) >= from && Number(e.t) < to,
          );
        if (first === "continue") {
          // The question and its answers as the model's words, and nothing run before them.
          const asked = fold(screenAt("yes")!.screen);
          const afterContinue = asked.slice(asked.lastIndexOf("❯ continue"));
          expect(afterContinue, afterContinue).toContain(QUESTION);
          expect(afterContinue, afterContinue).toContain(ANSWERS);
          expect(afterContinue, afterContinue).not.toMatch(
            /Bash\(|shell command|dotagent\.[cm]js|Exit code|"next"|"situation"/,
          );
          // The model log agrees: one turn, no call, the question and its answers word for word.
          const between = main(resumedAt, yesAt);
          expect(between.map(saidIn), JSON.stringify(between)).toHaveLength(1);
          expect(between[0]!.stop).toBe("end_turn");
          expect(saidIn(between[0]!)).toContain(QUESTION);
          expect(saidIn(between[0]!).trim().endsWith(ANSWERS), saidIn(between[0]!)).toBe(true);
        }
        // After the yes the question is never put again: the model's first step is the decision's yes.
        const afterYes = main(yesAt, Infinity);
        expect(afterYes.map(saidIn).filter((s) => s.includes(QUESTION))).toEqual([]);
        const helperLines = toolCalls(afterYes)
          .filter((c) => c.who === "main" && isHelper(c))
          .map((c) => String(c.input.command).replace(/^node "[^"]*" /, ""));
        expect(helperLines[0], JSON.stringify(helperLines)).toBe("resume --isolation commit --json");
        expect(helperLines.filter((l) => l.includes("--isolation"))).toHaveLength(1);
        const events = result.events as Array<Record<string, unknown>>;
        expect(events.filter((e) => e.type === "decision_asked").map((e) => e.key)).toEqual(["isolation"]);
        expect(
          events.filter((e) => e.type === "person_replied" && e.decision === "isolation").map((e) => e.answer),
        ).toEqual(replies);
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
      },
      600_000,
    );
  },
);
