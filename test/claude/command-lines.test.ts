// Every dotagent command line the skills and agents show passes Claude Code's Bash permission
// check, in the REAL client (opt-in: DOTAGENT_E2E_CLAUDE=1): the scripted model sends each one as
// a Bash tool call, once inside the /develop turn (the skill's allowed-tools, an untrusted
// workspace) and once in a later turn of the project, where no permission rule allows them: the
// PreToolUse hook `dotagent install` writes does.
// Exit codes do not matter here (there is no workflow); a refusal does.
import { fetchClaude } from "./harness.js";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { runClaude } from "./scripted-model/client.js";
import { shownCommands, type ShownCommand } from "./scripted-model/command-lines.js";
import { refused as notRun } from "./scripted-model/journey.js";
import { startScriptedModel, type LogEntry } from "./scripted-model/server.js";
import type { ApiRequest, Reply } from "./scripted-model/policy.js";
import { JOURNEY_MORE } from "../support/journey-tier.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const ENABLED = process.env.DOTAGENT_E2E_CLAUDE === "1";

describe.skipIf(!ENABLED || !JOURNEY_MORE)(
  "command lines shown to the model pass Claude Code's Bash check (DOTAGENT_E2E_CLAUDE=1)",
  () => {
    let claude = "";
    let work = "";

    beforeAll(() => {
      claude = fetchClaude();
      work = mkdtempSync(join(tmpdir(), "dotagent-commands-"));
    }, 600_000);
    afterAll(() => {
      if (work && !process.env.KEEP) rmSync(work, { recursive: true, force: true });
    });

    /** Sends every shown command in one assistant message; returns the refused ones. */
    async function refusals(
      name: string,
      prompt: string,
      trusted: boolean,
    ): Promise<{ commands: ShownCommand[]; refused: string[] }> {
      const home = join(work, `${name}-home`);
      const project = join(work, name);
      mkdirSync(home);
      mkdirSync(project);
      const install = spawnSync(process.execPath, [join(ROOT, "dist/dotagent.mjs"), "install", "--json"], {
        cwd: project,
        encoding: "utf8",
      });
      expect(install.status, install.stdout).toBe(0);
      if (trusted)
        writeFileSync(
          join(home, ".claude.json"),
          JSON.stringify({ projects: { [project]: { hasTrustDialogAccepted: true } } }),
        );
      const commands = shownCommands(ROOT, join(project, ".claude/skills/develop/../checkpoint/scripts/dotagent.mjs"));
      const logFile = join(work, `${name}.jsonl`);
      const policy = (body: ApiRequest): Reply => {
        const tools = (body.tools ?? []).map((t) => t.name);
        const sent = JSON.stringify(body.messages ?? []).includes("toolu_cmd_0");
        if (!tools.includes("Bash") || sent)
          return {
            who: tools.includes("Bash") ? "main" : "side",
            stop: "end_turn",
            blocks: [{ type: "text", text: "checked" }],
          };
        return {
          who: "main",
          stop: "tool_use",
          blocks: commands.map((c, i) => ({
            type: "tool_use" as const,
            id: `toolu_cmd_${i}`,
            name: "Bash",
            input: { command: c.command, description: "Run dotagent" },
          })),
        };
      };
      const model = await startScriptedModel({ logFile, agentsDir: join(ROOT, "agents"), policy });
      try {
        await runClaude({ binary: claude, home, url: model.url }, project, [
          "-p",
          prompt,
          "--permission-mode",
          "acceptEdits",
        ]);
      } finally {
        await model.close();
      }
      const results = readFileSync(logFile, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as LogEntry)
        .filter((e) => e.kind === "tool_result");
      expect(results.length, "every command got a result").toBe(commands.length);
      const refused = results
        .filter((r) => notRun({ is_error: r.is_error === true, text: String(r.text) }))
        .map((r) => {
          const c = commands[Number(String(r.tool_use_id).replace("toolu_cmd_", ""))]!;
          return `${c.file}: ${c.shown.split("\n")[0]} → ${String(r.text).slice(0, 160)}`;
        });
      return { commands, refused };
    }

    it("inside the /develop turn (the skill's allowed-tools; workspace not trusted)", async () => {
      const { commands, refused } = await refusals("develop-turn", "/develop", false);
      expect(commands.length).toBeGreaterThanOrEqual(8);
      expect(refused).toEqual([]);
    }, 600_000);

    it("in a later turn of the project, no permission rule anywhere (the PreToolUse hook allows them)", async () => {
      const { refused } = await refusals("answer-turn", "approve", true);
      expect(refused).toEqual([]);
    }, 600_000);
  },
);
