// Copilot CLI installs Claude Code plugins from a marketplace (`copilot plugin marketplace add`,
// `copilot plugin install dotagent@dotagent`) and runs their hooks. dotagent's plugin is Claude
// Code's: under Copilot its hooks record nothing (SPEC §22.1), so the session is told at its start
// how to get the Copilot install. In the real binary (DOTAGENT_E2E_COPILOT=1), offline.
import { describe, expect, it } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { copilotEnv, fetchCopilotBinary } from "./journey.js";
import { startScriptedModel } from "../claude/scripted-model/server.js";
import { JOURNEY_MORE } from "../support/journey-tier.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const ENABLED = process.env.DOTAGENT_E2E_COPILOT === "1";

describe.skipIf(!ENABLED || !JOURNEY_MORE)("dotagent's Claude Code plugin installed into Copilot CLI", () => {
  it("installs from the marketplace; its session-start hook tells the session to run `install --client copilot`", async () => {
    const work = mkdtempSync(join(tmpdir(), "dotagent-copilot-plugin-"));
    const home = join(work, "home");
    const project = join(work, "project");
    mkdirSync(join(home, ".copilot"), { recursive: true });
    mkdirSync(project);
    spawnSync("git", ["init", "-q"], { cwd: project });
    writeFileSync(join(home, ".copilot/config.json"), JSON.stringify({ trusted_folders: [project] }));
    const copilot = fetchCopilotBinary();
    const env = copilotEnv(home, "http://127.0.0.1:9");
    for (const args of [
      ["plugin", "marketplace", "add", ROOT],
      ["plugin", "install", "dotagent@dotagent"],
    ]) {
      const run = spawnSync(copilot, args, { cwd: project, env, encoding: "utf8", timeout: 60_000 });
      expect(run.status, `${run.stdout}${run.stderr}`).toBe(0);
    }
    let first = "";
    const model = await startScriptedModel({
      logFile: join(work, "model.jsonl"),
      agentsDir: join(ROOT, "agents"),
      policy: (body) => {
        first ||= JSON.stringify(body);
        return { who: "main", stop: "end_turn", blocks: [{ type: "text", text: "hello" }] };
      },
    });
    try {
      const child = spawn(copilot, ["-p", "hi", "--allow-all-tools"], {
        cwd: project,
        env: copilotEnv(home, model.url),
        stdio: ["ignore", "pipe", "pipe"],
      });
      const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
      await new Promise((r) => child.on("close", r));
      clearTimeout(timer);
    } finally {
      await model.close();
    }
    expect(first).toContain("these are dotagent's hooks for Claude Code; in Copilot CLI they record nothing");
    expect(first).toContain("install --client copilot");
    // Nothing was recorded: no workflow, no state.
    expect(() => readFileSync(join(project, "memory/state/phase.json"))).toThrow();
  }, 600_000);
});
