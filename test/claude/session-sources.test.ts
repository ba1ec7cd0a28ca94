// The `compact` and `clear` sources of SessionStart in print mode, in the REAL Claude Code
// (opt-in: DOTAGENT_E2E_CLAUDE=1). `claude -p --resume <id> "/compact"` makes the client ask the
// model for a summary (the scripted model answers it) and then runs the hook with source
// `compact`; `"/clear"` starts a new session with source `clear`. The briefing must follow both,
// and the model must be able to go on from it (after /clear the session holds nothing else).
import { fetchClaude } from "./harness.js";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { runClaude, transcript, type ClaudeClient, type TranscriptLine } from "./scripted-model/client.js";
import { isHelper, refused, toolCalls, toolResults } from "./scripted-model/journey.js";
import { startScriptedModel, type LogEntry, type ScriptedModel } from "./scripted-model/server.js";
import { JOURNEY_MORE } from "../support/journey-tier.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const ENABLED = process.env.DOTAGENT_E2E_CLAUDE === "1";

const hookRan = (lines: TranscriptLine[], source: string) =>
  lines.some(
    (l) =>
      l.attachment?.type === "hook_success" &&
      l.attachment.hookName === `SessionStart:${source}` &&
      l.attachment.exitCode === 0,
  );
const briefings = (lines: TranscriptLine[]) =>
  lines
    .filter((l) => l.attachment?.type === "hook_additional_context")
    .map((l) => [l.attachment!.content].flat().join("\n"));

describe.skipIf(!ENABLED || !JOURNEY_MORE)(
  "SessionStart compact and clear in print mode (DOTAGENT_E2E_CLAUDE=1)",
  () => {
    let work = "";
    let project = "";
    let client: ClaudeClient;
    let model: ScriptedModel;
    let logFile = "";
    let session = "";
    const claude = (args: string[]) => runClaude(client, project, [...args, "--permission-mode", "acceptEdits"]);
    const log = () =>
      readFileSync(logFile, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as LogEntry);

    beforeAll(async () => {
      const binary = fetchClaude();
      work = mkdtempSync(join(tmpdir(), "dotagent-sources-"));
      const home = join(work, "home");
      project = join(work, "project");
      mkdirSync(home);
      mkdirSync(project);
      spawnSync("git", ["init", "-q"], { cwd: project });
      const installed = spawnSync(process.execPath, [join(ROOT, "dist/dotagent.mjs"), "install", "--json"], {
        cwd: project,
        encoding: "utf8",
      });
      if (installed.status !== 0) throw new Error(installed.stdout);
      writeFileSync(
        join(home, ".claude.json"),
        JSON.stringify({ projects: { [project]: { hasTrustDialogAccepted: true } } }),
      );
      logFile = join(work, "model.jsonl");
      model = await startScriptedModel({ logFile, agentsDir: join(ROOT, "agents") });
      client = { binary, home, url: model.url };
      const first = await claude(["-p", "/develop add login"]);
      session = first.result!.session_id!;
      expect(first.result?.result).toMatch(/approve/);
    }, 600_000);

    afterAll(async () => {
      await model?.close();
      if (work) rmSync(work, { recursive: true, force: true });
    });

    it("/compact: the model summarises, the hook runs with source compact, the briefing follows, and the next answer goes on", async () => {
      const before = transcript(client.home, project, session).length;
      const compacted = await claude(["-p", "--resume", session, "/compact"]);
      expect(compacted.result?.is_error, compacted.result?.result).toBe(false);
      const lines = transcript(client.home, project, session).slice(before);
      expect(lines.some((l) => l.type === "system" && l.subtype === "compact_boundary")).toBe(true);
      expect(hookRan(lines, "compact")).toBe(true);
      const briefing = briefings(lines).at(-1) ?? "";
      expect(briefing).toContain("workflow wf-add-login is open");
      expect(briefing).toContain("Next action: await_approval");

      // The history is a summary now: the person's plain yes is taken by the hook (it answers the
      // gate the briefing named), and the model goes on from the next step it hands over.
      const k = log().length;
      const approved = await claude(["-p", "--resume", session, "approve"]);
      expect(approved.result?.result).toMatch(/Which one\?/);
      const entries = log().slice(k);
      expect([...toolResults(entries).values()].filter(refused)).toEqual([]);
      // No helper call: the approval was the person's own prompt, the rest is the hooks' bookkeeping.
      expect(
        toolCalls(entries)
          .filter(isHelper)
          .map((c) => String(c.input.command).replace(/^node "[^"]*" /, "")),
      ).toEqual([]);
    }, 600_000);

    it('/clear: a new session, the hook runs with source clear, and "continue" goes on from the briefing alone', async () => {
      const cleared = await claude(["-p", "--resume", session, "/clear"]);
      const fresh = cleared.result?.session_id;
      expect(fresh).toBeTruthy();
      const lines = transcript(client.home, project, fresh!);
      expect(hookRan(lines, "clear")).toBe(true);
      const briefing = briefings(lines).at(-1) ?? "";
      expect(briefing).toContain("workflow wf-add-login is open");
      expect(briefing).toMatch(/`node "[^"]+dotagent\.cjs" resume --json`/);

      const k = log().length;
      const next = await claude(["-p", "--resume", fresh!, "continue"]);
      expect(next.result?.is_error).toBe(false);
      const entries = log().slice(k);
      const calls = toolCalls(entries).filter(isHelper);
      // The first thing the model ran is the briefing's own line.
      expect(String(calls[0]?.input.command)).toMatch(/resume --json$/);
      expect([...toolResults(entries).values()].filter(refused)).toEqual([]);
    }, 600_000);
  },
);
