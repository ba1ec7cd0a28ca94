// Claude Code 2.1.332's PreSkillShellCommand hook: an organisation's hook that refuses every
// skill shell line removes /develop's plan (`[not run: blocked by hook: …]`). The skill then has
// the model run the same helper call itself: the whole journey still completes, in the real
// binary, and `dotagent doctor` names the hook. Opt-in like every journey (DOTAGENT_E2E_CLAUDE=1).
import { describe, expect, it } from "vitest";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { fetchClaude } from "./harness.js";
import {
  CLEAN_SPAWNS,
  isHelper,
  refused,
  runJourney,
  spawns,
  toolCalls,
  toolResults,
} from "./scripted-model/journey.js";
import { runTerminalJourney } from "./scripted-model/terminal-journey.js";
import { tmuxAvailable } from "./scripted-model/terminal.js";
import { JOURNEY_MORE } from "../support/journey-tier.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const ENABLED = process.env.DOTAGENT_E2E_CLAUDE === "1";
/** `npm run journey`: the interactive terminal too (CI runs print mode). */
const ALL = process.env.DOTAGENT_JOURNEY_ALL === "1";

/** An organisation's hook (in the user settings here) that refuses every skill shell line. */
function refuseSkillLines(home: string): void {
  mkdirSync(join(home, ".claude"), { recursive: true });
  const hook = `cat >> "${home}/refused.jsonl"; echo >> "${home}/refused.jsonl"; echo 'org policy: no shell lines in skills' >&2; exit 2`;
  const file = join(home, ".claude/settings.json");
  const settings = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>) : {};
  writeFileSync(
    file,
    JSON.stringify({ ...settings, hooks: { PreSkillShellCommand: [{ hooks: [{ type: "command", command: hook }] }] } }),
  );
}

describe.skipIf(!ENABLED || !JOURNEY_MORE)(
  "/develop when a PreSkillShellCommand hook refuses its plan line (real Claude Code)",
  () => {
    it("the model runs the plan's helper call itself; the workflow completes; doctor names the hook", async () => {
      const claude = fetchClaude();
      const r = await runJourney({
        root: ROOT,
        claude,
        afterInstall: (_project, home) => refuseSkillLines(home),
      });
      expect(r.complete, r.runs.map((x) => x.run.result?.result).join("\n")).toBe(true);
      expect(r.validateExit).toBe(0);
      // The hook saw (and refused) dotagent's line, as Claude Code hands it over.
      const seen = readFileSync(join(r.home, "refused.jsonl"), "utf8")
        .trim()
        .split("\n")
        .filter(Boolean)
        .map(
          (l) =>
            JSON.parse(l) as {
              hook_event_name: string;
              tool_name: string;
              tool_input: { command: string };
              command_name: string;
            },
        );
      expect(seen.length).toBeGreaterThanOrEqual(1);
      expect(seen[0]).toMatchObject({
        hook_event_name: "PreSkillShellCommand",
        tool_name: "Bash",
        command_name: "develop",
      });
      expect(seen[0]!.tool_input.command).toContain('dotagent.cjs" resume --json --start --request=');
      // The model's first move is the plan's own call, with the request; nothing is refused.
      const calls = toolCalls(r.log);
      const first = calls.find((c) => c.who === "main")!;
      expect(
        isHelper(first) &&
          /resume --json --start --request "\$\(cat <<'EOF'\nadd login\nEOF/.test(String(first.input.command)),
        String(first.input.command),
      ).toBe(true);
      const results = toolResults(r.log);
      expect([...results.values()].filter(refused)).toEqual([]);
      expect(spawns(calls)).toEqual(CLEAN_SPAWNS);
      expect(r.events.filter((e) => e.type === "workflow_started")).toHaveLength(1);
      // doctor, as the person runs it in that project with that HOME.
      const doctor = spawnSync(process.execPath, [join(ROOT, "dist/dotagent.mjs"), "doctor", "--json"], {
        cwd: r.project,
        encoding: "utf8",
        env: { ...process.env, HOME: r.home, CLAUDE_CONFIG_DIR: "" },
      });
      const checks = (
        JSON.parse(doctor.stdout) as { checks: Array<{ name: string; status: string; message: string }> }
      ).checks.filter((c) => c.name === "skill-shell");
      expect(checks).toHaveLength(1);
      expect(checks[0]).toMatchObject({ status: "warn" });
      expect(checks[0]!.message).toContain(join(r.home, ".claude/settings.json"));
      expect(existsSync(join(r.project, "memory/reports/reflection.json"))).toBe(true);
    }, 600_000);

    it.runIf(ALL && tmuxAvailable())(
      "the same in the interactive terminal: the person types /develop add login, approve, minimal",
      async () => {
        const claude = fetchClaude();
        const r = await runTerminalJourney({
          root: ROOT,
          claude,
          afterInstall: (_project, home) => refuseSkillLines(home),
        });
        expect(r.complete, r.screen.split("\n").slice(-25).join("\n")).toBe(true);
        expect(r.validateExit).toBe(0);
        expect(r.typed).toEqual(["/develop add login", "approve", "minimal"]);
        expect(readFileSync(join(r.home, "refused.jsonl"), "utf8")).toContain("PreSkillShellCommand");
        const calls = toolCalls(r.log);
        const first = calls.find((c) => c.who === "main")!;
        expect(
          isHelper(first) && /resume --json --start --request/.test(String(first.input.command)),
          String(first.input.command),
        ).toBe(true);
        expect([...toolResults(r.log).values()].filter(refused)).toEqual([]);
        expect(spawns(calls)).toEqual(CLEAN_SPAWNS);
      },
      600_000,
    );
  },
);
