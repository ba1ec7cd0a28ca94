// The plugin path of the journey, in the REAL Claude Code (opt-in: DOTAGENT_E2E_CLAUDE=1):
// `claude plugin marketplace add <this checkout>`, `claude plugin install <plugin>@<marketplace>`
// (names read from .claude-plugin/marketplace.json, so the test does not depend on the plugin's
// layout), then `/<plugin>:develop add login` and the person's answers until workflow_complete.
import { fetchClaude } from "./harness.js";
import { describe, it, expect, beforeAll } from "vitest";
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { claudeEnv } from "./scripted-model/client.js";
import { isHelper, refused, runJourney, spawns, toolCalls, toolResults } from "./scripted-model/journey.js";
import { JOURNEY_MORE } from "../support/journey-tier.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const ENABLED = process.env.DOTAGENT_E2E_CLAUDE === "1";

describe.skipIf(!ENABLED || !JOURNEY_MORE)(
  "the /develop journey as an installed plugin (DOTAGENT_E2E_CLAUDE=1)",
  () => {
    let claude = "";
    beforeAll(() => {
      claude = fetchClaude();
    }, 600_000);

    it("marketplace add, plugin install, /<plugin>:develop: the whole workflow, nothing refused, no permission rule", async () => {
      const marketplace = JSON.parse(readFileSync(join(ROOT, ".claude-plugin/marketplace.json"), "utf8")) as {
        name: string;
        plugins: Array<{ name: string; source?: string }>;
      };
      const plugin = marketplace.plugins[0]!.name;
      const result = await runJourney({
        root: ROOT,
        claude,
        developCommand: `/${plugin}:develop`,
        setup: (project, home) => {
          const env = claudeEnv({ binary: claude, home, url: "http://127.0.0.1:9" });
          for (const args of [
            ["plugin", "marketplace", "add", ROOT],
            ["plugin", "install", `${plugin}@${marketplace.name}`],
          ]) {
            const run = spawnSync(claude, args, { cwd: project, env, encoding: "utf8", timeout: 60_000 });
            expect(run.status, `claude ${args.join(" ")}: ${run.stdout}${run.stderr}`).toBe(0);
          }
          // No permission rule anywhere and no trust recorded: the plugin's PreToolUse hook allows
          // exactly the helper's own lines in the answer turns too.
        },
      });
      const calls = toolCalls(result.log);
      expect(result.complete, result.runs.map((r) => r.run.result?.result ?? r.run.stderr).join("\n")).toBe(true);
      // The plugin's agents, under the plugin's prefix.
      expect(
        calls.filter((c) => c.name === "Agent").every((c) => String(c.input.subagent_type).startsWith(`${plugin}:`)),
      ).toBe(true);
      expect(spawns(calls)).toEqual({ pm: 1, architect: 2, roundtable: 1, executor: 3, qa: 1, reflector: 1 });
      // The helper the loop ran is the plugin's own copy: in place for a local marketplace (the
      // source folder the marketplace names), or in the plugin cache.
      const source = resolve(ROOT, marketplace.plugins[0]!.source ?? ".");
      const helpers = calls.filter(isHelper).map((c) => /^node "([^"]+)"/.exec(String(c.input.command))![1]!);
      // None: the plugin's hooks record the rest, and its UserPromptSubmit hook takes the person's
      // plain "approve" and pick itself (no project install here, so only the plugin's hooks can have).
      expect(
        helpers.filter((h) => !h.startsWith(`${source}/`) && !h.startsWith(join(result.home, ".claude/plugins/"))),
      ).toEqual([]);
      expect(helpers.length).toBe(0);
      const types = result.events.map((e) => `${e.type} ${e.phase ?? ""}`.trim());
      for (const phase of ["REQUIREMENTS", "ARCHITECTURE"])
        expect(types.indexOf(`phase_approved ${phase}`)).toBeGreaterThan(types.indexOf(`person_replied ${phase}`));
      expect([...toolResults(result.log).values()].filter(refused)).toEqual([]);
      expect(result.validateExit).toBe(0);
      rmSync(result.work, { recursive: true, force: true });
    }, 600_000);
  },
);
