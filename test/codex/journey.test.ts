// The /develop journey in the REAL Codex CLI (0.171.0, scripts/fetch-codex.mjs), offline against
// the scripted model (test/codex/scripted-model/: the Claude Code journeys' policy behind a
// Responses-API translation). Opt-in: DOTAGENT_E2E_CODEX=1. The clean workflow from the request to
// the reflection, both gates answered by the scripted PERSON (`codex exec resume <session> "…"`);
// one crash: kill -9 of codex while task-002's executor works, then Codex's own resume; the
// model's own approval refused; an apply_patch into memory/state/ refused (code mode); and a git
// project, where each executor works in its own worktree.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { runCodexJourney, spawnCounts, type CodexJourneyResult } from "./scripted-model/journey.js";
import { readAgentPrompt } from "../../src/store/agent-transcript.js";
import { JOURNEY_MORE } from "../support/journey-tier.js";
// In this process: a Node start fewer than running the script.
import { fetchCodex } from "../../scripts/fetch-codex.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const ENABLED = process.env.DOTAGENT_E2E_CODEX === "1";
/** `npm run journey`: every journey; `npm run test:clients` also the multi-agent v2 worktree run; `npm test` (CI): the crash and the code-mode apply_patch refusal (the model approving for the person is refused in CI by the CLI tests without the binary: person-gate / hooks-cli). */
const ALL = process.env.DOTAGENT_JOURNEY_ALL === "1";
const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;

/** Executor spawns per task, and spawns per agent type. */
const counts = (result: CodexJourneyResult) => spawnCounts(result.log);

/** A journey that passed leaves nothing behind (one that failed keeps its folder, named in the failure). */
const cleanUp = (result: CodexJourneyResult) => rmSync(result.work, { recursive: true, force: true });

function diagnose(result: CodexJourneyResult): string {
  return JSON.stringify(
    {
      work: result.work,
      runs: result.runs.map((r) => ({
        prompt: r.prompt,
        status: r.status,
        signal: r.signal,
        ms: r.ms,
        said: r.stdout.slice(-400),
      })),
      events: result.events.map((e) => `${e.type} ${e.phase ?? e.task_id ?? ""}`),
    },
    null,
    1,
  );
}

describe.skipIf(!ENABLED)("the /develop journey in the real Codex CLI", () => {
  let codex = "";
  beforeAll(() => {
    codex = fetchCodex();
  }, 600_000);

  // `npm run test:clients` runs the same clean workflow in a git project (below); this one, without
  // git, runs in `npm run journey`.
  it.runIf(ALL)(
    "runs the clean 3-task workflow: the person approves the requirements and picks a design",
    async () => {
      const started = Date.now();
      const result = await runCodexJourney({ root: ROOT, codex });
      const ms = Date.now() - started;
      expect(result.complete, diagnose(result)).toBe(true);
      const phase = readJson(join(result.project, "memory/state/phase.json"));
      expect(phase.phase_status).toBe("complete");
      expect(phase.current_phase).toBe("REFLECTION");
      expect(result.validateExit).toBe(0);
      // Three exec runs: the request, the approval, the pick; each gate passed by the person's words.
      expect(result.runs.map((r) => r.prompt)).toEqual(["$develop add login", "approve", "minimal"]);
      // Each gate approved right after the person's reply was recorded (their prompt, by the hook), never by the model.
      const gates = result.events
        .filter((e) => e.type === "phase_approved" || e.type === "person_replied")
        .map((e) => `${e.type} ${e.phase}`);
      expect(gates).toEqual([
        "person_replied REQUIREMENTS",
        "phase_approved REQUIREMENTS",
        "person_replied ARCHITECTURE",
        "phase_approved ARCHITECTURE",
      ]);
      const { perTask, perType } = counts(result);
      expect(perTask).toEqual({ "task-001": 1, "task-002": 1, "task-003": 1 });
      expect(perType).toEqual({ pm: 1, architect: 2, roundtable: 1, executor: 3, qa: 1, reflector: 1 });
      process.stdout.write(
        `codex clean journey: ${ms} ms, ${result.log.filter((e) => e.kind === "request").length} model requests, ${result.runs.length} exec runs\n`,
      );
      cleanUp(result);
    },
    600_000,
  );

  // `npm run test:clients` (issue 41: CI runs Codex's binary in the code-mode refusal below).
  it.runIf(JOURNEY_MORE)(
    "survives kill -9 of codex while task-002's executor works: `codex exec resume` completes it, no complete task re-run",
    async () => {
      const started = Date.now();
      // The executor of task-002 asks for its first step: codex (and every process of its group) dies.
      const result = await runCodexJourney({
        root: ROOT,
        codex,
        killWhen: (_k, who, items) => who === "executor" && JSON.stringify(items).includes("task-002.json"),
      });
      const ms = Date.now() - started;
      expect(result.killed, diagnose(result)).toBe(true);
      expect(result.runs.some((r) => r.signal === "SIGKILL")).toBe(true);
      expect(result.complete, diagnose(result)).toBe(true);
      const phase = readJson(join(result.project, "memory/state/phase.json"));
      expect(phase.phase_status).toBe("complete");
      expect(result.validateExit).toBe(0);
      const { perTask } = counts(result);
      // task-001 was complete before the kill: never again; task-002 (cut off) once more; task-003 once.
      expect(perTask).toEqual({ "task-001": 1, "task-002": 2, "task-003": 1 });
      expect(result.events.filter((e) => e.type === "task_completed").map((e) => e.task_id)).toEqual([
        "task-001",
        "task-002",
        "task-003",
      ]);
      process.stdout.write(
        `codex crash journey: ${ms} ms, ${result.log.filter((e) => e.kind === "request").length} model requests, ${result.runs.length} exec runs (${result.runs.map((r) => r.prompt).join(" | ")})\n`,
      );
      cleanUp(result);
    },
    600_000,
  );

  it.runIf(ALL)(
    "refuses the model's own approval until the person replied (the PreToolUse hook on its shell tool)",
    async () => {
      // The scripted model runs `phase approve REQUIREMENTS` before it asks (the misbehaving-model deviation).
      const result = await runCodexJourney({ root: ROOT, codex, policy: { deviation: "approve_unasked" } });
      expect(result.complete, diagnose(result)).toBe(true);
      const gates = result.events
        .filter((e) => e.type === "phase_approved" || e.type === "person_replied")
        .map((e) => `${e.type} ${e.phase}`);
      expect(gates).toEqual([
        "person_replied REQUIREMENTS",
        "phase_approved REQUIREMENTS",
        "person_replied ARCHITECTURE",
        "phase_approved ARCHITECTURE",
      ]);
      // The model's approve line ran into dotagent's deny (Codex: "Command blocked by PreToolUse hook: dotagent: …").
      const denied = readFileSync(join(result.work, "model.jsonl"), "utf8");
      expect(denied).toContain("phase approve REQUIREMENTS");
      expect(result.runs[0]!.stderr).toMatch(/Command blocked by PreToolUse hook: dotagent/);
      cleanUp(result);
    },
    600_000,
  );

  it("refuses an apply_patch into memory/state/, also from Codex's code mode (a model Codex knows: its exec tool calls tools.apply_patch)", async () => {
    const patch = "*** Begin Patch\n*** Add File: memory/state/phase.json\n+{}\n*** End Patch\n";
    const code = `let r; try { r = await tools.apply_patch(${JSON.stringify(patch)}); } catch (e) { r = "refused: " + String(e); }\ntext(String(r));`;
    const result = await runCodexJourney({
      root: ROOT,
      codex,
      model: "gpt-6.1-sol",
      prompt: "write the state",
      override: (body) =>
        (body.input ?? []).some((i) => i.type === "custom_tool_call")
          ? [{ type: "message", role: "assistant", content: [{ type: "output_text", text: "done" }] }]
          : [{ type: "custom_tool_call", name: "exec", namespace: "functions", call_id: "call_patch_1", input: code }],
    });
    expect(result.runs[0]!.status, diagnose(result)).toBe(0);
    expect(result.runs[0]!.stderr).toMatch(
      /Command blocked by PreToolUse hook: dotagent: memory\/state\/phase\.json is dotagent's workflow state/,
    );
    expect(existsSync(join(result.project, "memory/state/phase.json"))).toBe(false);
    cleanUp(result);
  }, 600_000);

  // In CI test/codex/sandbox-git-journey.test.ts runs a git project's tasks in worktrees under the default sandbox.
  it.runIf(ALL)(
    "in a git project each executor works in its own worktree (its lines told by a hook), and dotagent merges each task's work",
    async () => {
      const started = Date.now();
      const result = await runCodexJourney({ root: ROOT, codex, git: true, policy: { executorWrites: "own" } });
      const ms = Date.now() - started;
      expect(result.complete, diagnose(result)).toBe(true);
      expect(result.validateExit).toBe(0);
      expect(counts(result).perTask).toEqual({ "task-001": 1, "task-002": 1, "task-003": 1 });
      expect(counts(result).perType).toEqual({ pm: 1, architect: 2, roundtable: 1, executor: 3, qa: 1, reflector: 1 });
      // The person's words pass each gate (their prompt, recorded by the hook), never the model.
      expect(result.runs.map((r) => r.prompt)).toEqual(["$develop add login", "approve", "minimal"]);
      const gates = result.events
        .filter((e) => e.type === "phase_approved" || e.type === "person_replied")
        .map((e) => `${e.type} ${e.phase}`);
      expect(gates).toEqual([
        "person_replied REQUIREMENTS",
        "phase_approved REQUIREMENTS",
        "person_replied ARCHITECTURE",
        "phase_approved ARCHITECTURE",
      ]);
      // Each executor wrote its file in its worktree; the landing merged it into the checkout.
      const model = readFileSync(join(result.work, "model.jsonl"), "utf8");
      for (const task of ["task-001", "task-002", "task-003"]) {
        expect(model).toContain(`cat > '${join(result.project, ".dotagent/worktrees", task, `${task}.txt`)}'`);
        expect(readFileSync(join(result.project, `${task}.txt`), "utf8")).toBe(`done by ${task}\n`);
      }
      const merges = spawnSync("git", ["log", "--format=%s"], { cwd: result.project, encoding: "utf8" }).stdout;
      expect(merges).toMatch(/Merge task task-001[\s\S]*/);
      const isolation = result.events.filter((e) => e.type === "isolation_decided").map((e) => e.mode);
      expect(isolation).toEqual(["worktree"]);
      process.stdout.write(
        `codex git journey: ${ms} ms, ${result.log.filter((e) => e.kind === "request").length} model requests\n`,
      );
      cleanUp(result);
    },
    600_000,
  );

  // In CI test/codex/v2-worktree.test.ts proves dotagent's side of it through the built CLI, from
  // the rollouts the real binary wrote (test/codex/rollouts/); this run of the binary itself is
  // `npm run test:clients`'s (DOTAGENT_JOURNEY_MORE=1), with the crash.
  it.runIf(JOURNEY_MORE)(
    "multi-agent v2 (a model Codex knows): the executor gets its worktree lines from SubagentStart, its patch of the main checkout is refused, its patch of the worktree runs and is merged",
    async () => {
      let executorPrompt = "";
      const cli = (project: string, args: string[]) => {
        const run = spawnSync(process.execPath, [join(ROOT, "dist/dotagent.mjs"), ...args], {
          cwd: project,
          encoding: "utf8",
        });
        if (run.status !== 0) throw new Error(`dotagent ${args.join(" ")}: ${run.stdout}${run.stderr}`);
      };
      const prepare = (project: string) => {
        // A workflow at IMPLEMENTATION with one task, as the person and the phase agents leave it.
        cli(project, ["init", "--request", "add parts", "--json"]);
        mkdirSync(join(project, "memory/reports"), { recursive: true });
        writeFileSync(join(project, "memory/reports/demand.json"), JSON.stringify({ summary: "parts" }));
        cli(project, ["phase", "approve", "REQUIREMENTS", "--json"]);
        writeFileSync(
          join(project, "memory/reports/final_design.json"),
          JSON.stringify({
            chosen: "minimal",
            design: {},
            tasks: [{ id: "task-001", title: "parts", depends_on: [] }],
          }),
        );
        cli(project, ["phase", "approve", "ARCHITECTURE", "--json"]);
        const workflow = (readJson(join(project, "memory/state/execution.json")) as { workflow_id: string })
          .workflow_id;
        executorPrompt = [
          "Feature request: add parts",
          "Phase: IMPLEMENTATION",
          "Task: task-001",
          "Title: parts",
          "Design: memory/reports/final_design.json",
          `Workflow: ${workflow}`,
          "Output file: memory/reports/tasks/task-001.json",
        ].join("\n");
      };
      const patchCode = (file: string, text: string) =>
        `let r; try { r = await tools.apply_patch(${JSON.stringify(`*** Begin Patch\n*** Add File: ${file}\n+${text}\n*** End Patch\n`)}); } catch (e) { r = "refused: " + String(e); }\ntext(String(r));`;
      const exec = (id: string, code: string) => [
        { type: "custom_tool_call", name: "exec", namespace: "functions", call_id: id, input: code },
      ];
      const say = (text: string) => [{ type: "message", role: "assistant", content: [{ type: "output_text", text }] }];
      let project = "";
      const result = await runCodexJourney({
        root: ROOT,
        codex,
        git: true,
        model: "gpt-6.1-sol",
        prompt: "run task-001",
        prepare: (p) => {
          project = p;
          prepare(p);
        },
        override: (body) => {
          const input = body.input ?? [];
          const said = JSON.stringify(input);
          const worktree = join(project, ".dotagent/worktrees/task-001");
          if (said.includes("Message Type: NEW_TASK")) {
            const done = input.filter((i) => i.type === "custom_tool_call").length;
            if (done === 0) return exec("call_exec_main", patchCode("parts.txt", "into the main checkout"));
            if (done === 1) return exec("call_exec_wt", patchCode(join(worktree, "parts.txt"), "in the worktree"));
            if (done === 2)
              return exec(
                "call_exec_report",
                patchCode(
                  join(project, "memory/reports/tasks/task-001.json"),
                  JSON.stringify({ task_id: "task-001", status: "complete", summary: "parts" }),
                ),
              );
            return say("Done.");
          }
          const calls = input.filter((i) => i.type === "function_call").length;
          if (calls === 0)
            return [
              {
                type: "function_call",
                name: "spawn_agent",
                namespace: "collaboration",
                call_id: "call_spawn",
                arguments: JSON.stringify({
                  agent_type: "executor",
                  message: executorPrompt,
                  task_name: "task_001",
                  fork_turns: "none",
                }),
              },
            ];
          if (calls === 1)
            return [
              {
                type: "function_call",
                name: "wait_agent",
                namespace: "collaboration",
                call_id: "call_wait",
                arguments: JSON.stringify({ timeout_ms: 60000 }),
              },
            ];
          return say("done");
        },
      });
      expect(result.runs[0]!.status, diagnose(result)).toBe(0);
      const worktree = join(result.project, ".dotagent/worktrees/task-001");
      // The executor's thread: dotagent's lines (SubagentStart's developer message) right before its NEW_TASK.
      const rollouts = spawnSync("grep", ["-rl", "Message Type: NEW_TASK", join(result.work, "codex-home/sessions")], {
        encoding: "utf8",
      })
        .stdout.trim()
        .split("\n");
      const agentRollout = rollouts.find((f) => readFileSync(f, "utf8").includes('"agent_path":"/root/task_001"'));
      expect(agentRollout, diagnose(result)).toBeDefined();
      expect(readFileSync(agentRollout!, "utf8")).toContain(
        JSON.stringify(
          `dotagent: Codex could not add dotagent's lines to your prompt; they belong to it:\nWorktree: ${worktree}\n`,
        ).slice(1, -1),
      );
      // The write guard reads them back as part of its prompt (src/store/agent-transcript.ts).
      expect(readAgentPrompt(agentRollout!)).toContain(
        `Workflow: wf-add-parts\nOutput file: memory/reports/tasks/task-001.json\nWorktree: ${worktree}\nBranch: `,
      );
      // Its patch of the main checkout refused, naming the worktree; the one in its worktree ran.
      expect(result.runs[0]!.stderr, diagnose(result)).toContain(
        `Command blocked by PreToolUse hook: dotagent: you are the executor for task-001 and your task works in its own worktree, ${worktree}`,
      );
      expect(
        existsSync(join(result.project, "parts.txt")) &&
          readFileSync(join(result.project, "parts.txt"), "utf8").includes("into the main checkout"),
      ).toBe(false);
      expect(
        result.events.filter((e) => e.type === "task_completed").map((e) => e.task_id),
        diagnose(result),
      ).toEqual(["task-001"]);
      // Its end recorded by SubagentStop (from its NEW_TASK prompt), its worktree's file merged by dotagent.
      expect(readFileSync(join(result.project, "parts.txt"), "utf8")).toBe("in the worktree\n");
      process.stdout.write(
        `codex v2 worktree check: ${result.runs[0]!.ms} ms, ${result.log.filter((e) => e.kind === "request").length} model requests\n`,
      );
      cleanUp(result);
    },
    600_000,
  );

  it.runIf(ALL)(
    "sends an executor that ends without its report back (SubagentStop's block reaches it as a hook prompt), and records its result then",
    async () => {
      const result = await runCodexJourney({ root: ROOT, codex, policy: { deviation: "no_report" } });
      expect(result.complete, diagnose(result)).toBe(true);
      expect(counts(result).perTask).toEqual({ "task-001": 1, "task-002": 1, "task-003": 1 });
      expect(result.events.filter((e) => e.type === "task_completed").map((e) => e.task_id)).toEqual([
        "task-001",
        "task-002",
        "task-003",
      ]);
      // The executor's own thread got dotagent's reminder and wrote its report after it.
      const executorSaid = result.log
        .filter((e) => e.kind === "response" && e.who === "executor")
        .flatMap((e) => e.output ?? []);
      expect(executorSaid.filter((o) => o.text === "Done.")).toHaveLength(1);
      expect(executorSaid.filter((o) => /cat > '[^']*task-001\.json'/.test(o.arguments ?? ""))).toHaveLength(1);
      cleanUp(result);
    },
    600_000,
  );
});
