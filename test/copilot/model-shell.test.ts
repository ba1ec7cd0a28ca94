// What dotagent relies on to know a command is the model's (SPEC §22: the person's gates stay
// theirs even with no hook): Copilot CLI's `bash` tool runs commands with COPILOT_CLI=1 and no
// terminal, in print mode and in the interactive terminal alike. Checked in the real binary
// (DOTAGENT_E2E_COPILOT=1): the scripted model makes one bash call that writes what it saw.
import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { copilotEnv, fetchCopilotBinary, prepareCopilotProject } from "./journey.js";
import { startScriptedModel, type ScriptedModel } from "../claude/scripted-model/server.js";
import { startClientTerminal } from "../claude/scripted-model/terminal.js";
import { tmuxAvailable } from "../claude/scripted-model/terminal.js";
import { JOURNEY_MORE } from "../support/journey-tier.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const ENABLED = process.env.DOTAGENT_E2E_COPILOT === "1";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A model whose one move is a bash call writing the command's view of its terminal and environment. */
async function probeModel(work: string, out: string): Promise<ScriptedModel> {
  const command = `node -e 'require("fs").writeFileSync(${JSON.stringify(out)}, JSON.stringify({stdin: process.stdin.isTTY === true, stdout: process.stdout.isTTY === true, copilot: process.env.COPILOT_CLI ?? null}))'`;
  return startScriptedModel({
    logFile: join(work, "probe.jsonl"),
    agentsDir: join(ROOT, "agents"),
    policy: (body) =>
      JSON.stringify(body.messages ?? []).includes("tool_result")
        ? { who: "main", stop: "end_turn", blocks: [{ type: "text", text: "done" }] }
        : {
            who: "main",
            stop: "tool_use",
            blocks: [{ type: "tool_use", id: "toolu_probe", name: "bash", input: { command, description: "probe" } }],
          },
  });
}

/** The probe's answer once it is whole: writeFileSync makes the file before it writes it, and a read in between sees it empty. */
async function seen(out: string, ms: number): Promise<unknown> {
  const read = () => {
    try {
      return JSON.parse(readFileSync(out, "utf8")) as unknown;
    } catch {
      return null;
    }
  };
  for (const end = Date.now() + ms; Date.now() < end && read() === null;) await sleep(250);
  return read();
}

describe.skipIf(!ENABLED || !JOURNEY_MORE)("the model's shell in the real Copilot CLI", () => {
  const expected = { stdin: false, stdout: false, copilot: "1" };

  it("print mode: COPILOT_CLI=1, no terminal", async () => {
    const { work, home, project } = prepareCopilotProject(ROOT);
    const out = join(project, "shell.json");
    const model = await probeModel(work, out);
    try {
      const child = spawn(fetchCopilotBinary(), ["-p", "probe", "--allow-all-tools"], {
        cwd: project,
        env: copilotEnv(home, model.url),
        stdio: ["ignore", "pipe", "pipe"],
      });
      const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
      await new Promise((r) => child.on("close", r));
      clearTimeout(timer);
      expect(await seen(out, 1000)).toEqual(expected);
    } finally {
      await model.close();
    }
  }, 600_000);

  it.skipIf(!tmuxAvailable())(
    "the interactive terminal: the same",
    async () => {
      const { work, home, project } = prepareCopilotProject(ROOT);
      const out = join(project, "shell.json");
      const model = await probeModel(work, out);
      const terminal = startClientTerminal(fetchCopilotBinary(), copilotEnv(home, model.url), project, [
        "--allow-all-tools",
      ]);
      try {
        await terminal.waitFor(/Interactive · /, 30_000);
        terminal.type("probe");
        expect(await seen(out, 30_000), terminal.screen()).toEqual(expected);
      } finally {
        terminal.close();
        await model.close();
      }
    },
    600_000,
  );
});
