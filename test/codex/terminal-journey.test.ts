// /develop in the INTERACTIVE Codex CLI (its terminal UI, in tmux), offline against the scripted
// model (opt-in like the exec journeys: DOTAGENT_E2E_CODEX=1; skipped, saying so, without tmux).
// The person trusts the project's hooks in Codex's review box, types `$develop add login` and their
// answers at the prompt. Two things only the terminal showed (NOTES.md, "The interactive
// terminal"): one session keeps every completed agent open until closed (a 7th spawn failed:
// "agent thread limit reached"), and Codex rejects a PreToolUse "allow" ("Hook failed").
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { tmuxAvailable } from "../claude/scripted-model/terminal.js";
import { spawnCounts } from "./scripted-model/journey.js";
import { runCodexTerminalJourney, type CodexTerminalResult } from "./scripted-model/terminal-journey.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const ENABLED = process.env.DOTAGENT_E2E_CODEX === "1";
const TMUX = tmuxAvailable();
/** `npm test` (CI): the clean journey; `npm run journey`: the kill too. */
const ALL = process.env.DOTAGENT_JOURNEY_ALL === "1";
if (ENABLED && !TMUX)
  console.warn("warning: tmux is not installed; the interactive Codex journey is skipped (apt-get install tmux)");

function fetchCodex(): string {
  const fetched = spawnSync(process.execPath, [join(ROOT, "scripts/fetch-codex.mjs")], {
    encoding: "utf8",
    timeout: 600_000,
  });
  if (fetched.status !== 0) throw new Error(`scripts/fetch-codex.mjs failed: ${fetched.stderr}`);
  return fetched.stdout.trim();
}

const detail = (result: CodexTerminalResult) =>
  `work ${result.work}; typed ${JSON.stringify(result.typed)}; events ${result.events.map((e) => `${e.type} ${e.phase ?? e.task_id ?? ""}`).join(",")}; screen:\n${result.screen
    .split("\n")
    .filter((l) => l.trim() !== "")
    .slice(-40)
    .join("\n")}`;
const gateTrail = (result: CodexTerminalResult) =>
  result.events
    .filter((e) => e.type === "phase_approved" || e.type === "person_replied")
    .map((e) => `${e.type} ${e.phase}`);
const requests = (result: CodexTerminalResult) => result.log.filter((e) => e.kind === "request").length;

describe.skipIf(!ENABLED || !TMUX)(
  "the /develop journey in the interactive Codex CLI (DOTAGENT_E2E_CODEX=1, tmux)",
  () => {
    let codex = "";

    beforeAll(() => {
      if (!existsSync(join(ROOT, "dist/dotagent.mjs")))
        throw new Error("dist/dotagent.mjs is missing: run `npm run build`");
      codex = fetchCodex();
    }, 600_000);

    // In `npm run journey` (about 35 s of CI's two busy cores): what the terminal taught, closing
    // each agent (its thread limit), is held by the skill text's test (src/clients/codex/skill-text.test.ts)
    // in npm test; `codex exec`'s journeys run there in the binary.
    it.runIf(ALL)(
      "the person trusts the hooks, types `$develop add login`, `approve`, `minimal`: every agent once, both gates theirs, complete",
      async () => {
        const started = Date.now();
        const result = await runCodexTerminalJourney({ root: ROOT, codex });
        const info = detail(result);
        expect(result.complete, info).toBe(true);
        expect(result.typed).toEqual(["$develop add login", "approve", "minimal"]);
        // A trusted project's new hooks: one review box at the start, answered "Trust all and continue".
        expect(result.hookReviews).toBe(1);
        expect(result.validateExit).toBe(0);
        expect(
          result.events.find((e) => e.type === "workflow_started"),
          info,
        ).toMatchObject({ request: "add login" });
        expect(gateTrail(result)).toEqual([
          "person_replied REQUIREMENTS",
          "phase_approved REQUIREMENTS",
          "person_replied ARCHITECTURE",
          "phase_approved ARCHITECTURE",
        ]);
        // Nine agents in one session: each closed after its result (past six open ones Codex refuses a spawn).
        const { perTask, perType } = spawnCounts(result.log);
        expect(perTask, info).toEqual({ "task-001": 1, "task-002": 1, "task-003": 1 });
        expect(perType).toEqual({ pm: 1, architect: 2, roundtable: 1, executor: 3, qa: 1, reflector: 1 });
        expect(result.events.filter((e) => e.type === "task_completed").map((e) => e.task_id)).toEqual([
          "task-001",
          "task-002",
          "task-003",
        ]);
        expect(result.events.some((e) => e.type === "task_reset" || e.type === "task_dead")).toBe(false);
        // What the person saw: no failed hook, no failed spawn, their answers after `›`, the end.
        expect(result.screen).not.toMatch(/Hook failed|unsupported permissionDecision|Agent spawn failed/);
        expect(result.screen).toMatch(/› minimal/);
        expect(result.screen).toMatch(/workflow is complete/i);
        process.stdout.write(
          `codex terminal journey: ${Date.now() - started} ms, ${requests(result)} model requests\n`,
        );
        if (!process.env.KEEP) rmSync(result.work, { recursive: true, force: true });
      },
      600_000,
    );

    it.runIf(ALL)(
      "the person's own edit and the install left uncommitted in a git project (Codex's default sandbox): the question about their edit reaches the person as the model's words, no failed command (exit 5) with raw JSON before it; they commit by hand as it says, say yes, the tasks get worktrees",
      async () => {
        const started = Date.now();
        const question = /› minimal[\s\S]*The main checkout has uncommitted changes[\s\S]*Yes or no\?/;
        const result = await runCodexTerminalJourney({
          root: ROOT,
          codex,
          git: true,
          commitInstall: false,
          // The person's own edit, not committed: theirs to decide about (the install's files are not, SPEC §19).
          prepare: (project) => writeFileSync(join(project, "README.md"), "# demo app, edited by the person\n"),
          watchFor: question,
          beforeAnswer: (project, answer, said) => {
            if (!said.includes("uncommitted changes")) return;
            // The question says this shell (the sandbox) cannot commit: the person commits in their own terminal, then says yes.
            for (const args of [
              ["add", "-A"],
              ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "dotagent install"],
            ]) {
              const run = spawnSync("git", args, { cwd: project, encoding: "utf8" });
              if (run.status !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr}`);
            }
            return answer;
          },
        });
        const info = `${detail(result)}\nscreen at the question:\n${result.screenWatched}`;
        expect(result.complete, info).toBe(true);
        expect(result.typed).toEqual(["$develop add login", "approve", "minimal", "yes"]);
        // Before: `• Exited (status 5) node "…/dotagent.mjs" resume --json └ {"situation":"interrupted",…` between the pick and the question.
        const shown = result.screenWatched.replace(/\s+/g, " ");
        expect(shown, info).toMatch(question);
        const between = shown.slice(
          shown.lastIndexOf("› minimal"),
          shown.indexOf("The main checkout has uncommitted changes"),
        );
        expect(between, info).not.toMatch(/Exited \(status|"situation"|resume --json/);
        // Handed by the hook, which runs outside the sandbox: the words are still those for the model's sandboxed shell.
        expect(shown).toContain(
          "this shell cannot write the repository's .git, a sandbox, so commit them yourself first",
        );
        process.stdout.write(
          `the question on screen:\n${result.screenWatched
            .split("\n")
            .filter((l) => /› minimal|uncommitted|Exited|Ran/.test(l))
            .join("\n")}\n`,
        );
        expect(result.events.filter((e) => e.type === "decision_asked").map((e) => e.key)).toEqual(["isolation"]);
        expect(result.events.filter((e) => e.type === "isolation_decided").map((e) => `${e.mode} ${e.chosen}`)).toEqual(
          ["worktree commit"],
        );
        expect(spawnCounts(result.log).perTask, info).toEqual({ "task-001": 1, "task-002": 1, "task-003": 1 });
        expect(result.validateExit).toBe(0);
        process.stdout.write(
          `codex terminal uncommitted-question journey: ${Date.now() - started} ms, ${requests(result)} model requests\n`,
        );
        if (!process.env.KEEP) rmSync(result.work, { recursive: true, force: true });
      },
      600_000,
    );

    it.runIf(ALL)(
      "kill -9 of the client mid task batch, `codex resume <id>`, `continue`: completes, no complete task runs again",
      async () => {
        const started = Date.now();
        // The executor of task-002 asks for its first step: codex (and every process of its group) dies.
        const told =
          /› continue ↳ Hook · dotagent: the last session ended during workflow wf-add-login: task-002 was cut off and runs again\. Typing continue \(or \$develop\) goes on from there\./;
        const result = await runCodexTerminalJourney({
          root: ROOT,
          codex,
          watchAfterResume: told,
          killWhen: (_k, who, items) => who === "executor" && JSON.stringify(items).includes("task-002.json"),
        });
        const info = `${detail(result)}\nscreen at the kill:\n${result.screenAtKill
          .split("\n")
          .filter((l) => l.trim() !== "")
          .slice(-15)
          .join("\n")}`;
        expect(result.killed, info).toBe(true);
        expect(result.complete, info).toBe(true);
        expect(result.typed).toEqual(["$develop add login", "approve", "minimal", "continue"]);
        expect(result.hookReviews).toBe(1);
        expect(result.validateExit).toBe(0);
        expect(
          result.eventsAtKill.filter((e) => e.type === "task_completed").map((e) => e.task_id),
          info,
        ).toEqual(["task-001"]);
        // task-001 was complete before the kill: never again; task-002 (cut off) once more; task-003 once.
        expect(spawnCounts(result.log).perTask, info).toEqual({ "task-001": 1, "task-002": 2, "task-003": 1 });
        expect(result.events.filter((e) => e.type === "task_completed").map((e) => e.task_id)).toEqual([
          "task-001",
          "task-002",
          "task-003",
        ]);
        expect(gateTrail(result)).toEqual([
          "person_replied REQUIREMENTS",
          "phase_approved REQUIREMENTS",
          "person_replied ARCHITECTURE",
          "phase_approved ARCHITECTURE",
        ]);
        // Under their first prompt after `codex resume` the person read what happened and what to type:
        // the SessionStart hook's systemMessage, which Codex shows as `↳ Hook · …` (NOTES.md).
        expect(result.screenAfterResume.replace(/\s+/g, " "), result.screenAfterResume).toMatch(told);
        process.stdout.write(
          `after the resumed prompt the screen showed:\n${result.screenAfterResume
            .split("\n")
            .filter((l) => /dotagent:|[›❯] (continue|\/develop)/.test(l))
            .join("\n")}\n`,
        );
        process.stdout.write(
          `codex terminal crash journey: ${Date.now() - started} ms, ${requests(result)} model requests\n`,
        );
        if (!process.env.KEEP) rmSync(result.work, { recursive: true, force: true });
      },
      600_000,
    );

    it.runIf(ALL)(
      "the model's own `phase approve` before the person answered is refused in the terminal too (its shell is known as the model's)",
      async () => {
        const result = await runCodexTerminalJourney({ root: ROOT, codex, policy: { deviation: "approve_unasked" } });
        const info = detail(result);
        expect(result.complete, info).toBe(true);
        expect(gateTrail(result)).toEqual([
          "person_replied REQUIREMENTS",
          "phase_approved REQUIREMENTS",
          "person_replied ARCHITECTURE",
          "phase_approved ARCHITECTURE",
        ]);
        expect(JSON.stringify(result.log)).toContain("phase approve REQUIREMENTS");
        // The call's output in the session (what the model read): dotagent's deny, through the daemon's hook.
        const sessions = join(result.work, "codex-home/sessions");
        const rollouts = readdirSync(sessions, { recursive: true, encoding: "utf8" })
          .filter((f) => f.endsWith(".jsonl"))
          .map((f) => readFileSync(join(sessions, f), "utf8"))
          .join("\n");
        expect(rollouts, info).toContain(
          "Command blocked by PreToolUse hook: dotagent: the person has not answered the REQUIREMENTS gate yet",
        );
        if (!process.env.KEEP) rmSync(result.work, { recursive: true, force: true });
      },
      600_000,
    );
  },
);
