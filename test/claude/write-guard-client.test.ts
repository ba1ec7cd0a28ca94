// The write guard in the REAL Claude Code binary (opt-in: DOTAGENT_E2E_CLAUDE=1; SPEC §11 "Who
// writes what"): a project installed with `dotagent install` (and one using the plugin folder),
// a workflow started, and a scripted main agent that tries to write the state. Checked:
// - a Write of memory/state/phase.json reaches the hook (matcher Write|Edit|…) and its deny comes
//   back to the model as the tool's error, the file unchanged (acceptEdits would have let it write);
// - the Bash entry's second `if` pattern, `Bash(*memory/state*)`, is honoured: the hook starts for
//   `sed -i … memory/state/phase.json` and `cd memory/state && echo x > phase.json` and denies
//   them; a read (`cat memory/state/phase.json > /dev/null`) runs. (The client matches `if`
//   against the line with its redirections taken off, so `echo x > memory/state/phase.json`
//   alone never starts the hook: test/claude/NOTES.md "Which Bash lines a hook's `if` sees".)
// - the main agent's Write of qa's verification.json is denied with who writes it.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENABLED, fetchClaude, ROOT } from "./harness.js";
import { runClaude } from "./scripted-model/client.js";
import { startScriptedModel } from "./scripted-model/server.js";
import type { ApiRequest, ContentBlock, Reply } from "./scripted-model/policy.js";

const CLI = join(ROOT, "dist/dotagent.mjs");
const systemOf = (b: ApiRequest) =>
  typeof b.system === "string" ? b.system : (b.system ?? []).map((s) => s.text ?? "").join("\n");
const blocks = (b: ApiRequest): ContentBlock[] =>
  (b.messages ?? []).flatMap((m) => (Array.isArray(m.content) ? m.content : []));
const textOf = (c: unknown) =>
  typeof c === "string"
    ? c
    : Array.isArray(c)
      ? c
          .map((x) => (x && typeof x === "object" && "text" in x ? String((x as { text: unknown }).text) : ""))
          .join("\n")
      : JSON.stringify(c);

describe.skipIf(!ENABLED)("the write guard in the real client (DOTAGENT_E2E_CLAUDE=1)", () => {
  let claude = "";
  let work = "";
  beforeAll(() => {
    claude = fetchClaude();
    work = mkdtempSync(join(tmpdir(), "dotagent-wguard-"));
  }, 600_000);
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  // A project install (settings.json) and the plugin (hooks/hooks.json, where `claude plugin
  // validate` lists the two Bash entries as one: the run shows both are honoured).
  it.each(["project", "plugin"] as const)(
    "%s: denies the main agent's Write and Bash writes into memory/state/ and its Write of qa's report, as tool errors; the state is unchanged",
    async (install) => {
      const home = join(work, install, "home");
      const project = join(work, install, "project");
      mkdirSync(home, { recursive: true });
      mkdirSync(project, { recursive: true });
      const cli = (...args: string[]) =>
        spawnSync(process.execPath, [CLI, ...args], {
          cwd: project,
          encoding: "utf8",
          env: { ...process.env, HOME: home, CLAUDE_CONFIG_DIR: "" },
        });
      if (install === "project") expect(cli("install", "--json").status).toBe(0);
      expect(cli("resume", "--json", "--start", "--request", "add login").status).toBe(0);
      const phaseFile = join(project, "memory/state/phase.json");
      const before = readFileSync(phaseFile, "utf8");
      const steps = [
        { name: "Write", input: { file_path: phaseFile, content: '{"phase":"REFLECTION"}\n' } },
        {
          name: "Bash",
          input: { command: "sed -i s/REQUIREMENTS/REFLECTION/ memory/state/phase.json", description: "forge" },
        },
        { name: "Bash", input: { command: "cd memory/state && echo x > phase.json", description: "forge" } },
        {
          name: "Bash",
          input: { command: "cat memory/state/phase.json > /dev/null && echo read-ok", description: "read" },
        },
        {
          name: "Write",
          input: { file_path: join(project, "memory/reports/verification.json"), content: '{"passed":true}\n' },
        },
      ];
      const results: Array<{ is_error: boolean; text: string }> = [];
      const model = await startScriptedModel({
        logFile: join(work, install, "model.jsonl"),
        agentsDir: install === "project" ? join(project, ".claude/agents") : join(ROOT, "plugin/agents"),
        policy: (body) => {
          if (
            !/Bash/.test(JSON.stringify(body.tools?.map((t) => t.name) ?? [])) ||
            /security monitor/.test(systemOf(body))
          )
            return { who: "side", stop: "end_turn", blocks: [{ type: "text", text: "side" }] };
          const made = blocks(body).filter((c) => c.type === "tool_use").length;
          const outcomes = blocks(body).filter((c) => c.type === "tool_result");
          if (outcomes.length > results.length) {
            const last = outcomes.at(-1)!;
            results.push({ is_error: (last as { is_error?: boolean }).is_error === true, text: textOf(last.content) });
          }
          if (made < steps.length)
            return {
              who: "main",
              stop: "tool_use",
              blocks: [
                {
                  type: "tool_use",
                  id: `toolu_wguard_${made + 1}`,
                  name: steps[made]!.name,
                  input: steps[made]!.input,
                },
              ],
            } satisfies Reply;
          return { who: "main", stop: "end_turn", blocks: [{ type: "text", text: "done" }] };
        },
      });
      try {
        writeFileSync(
          join(home, ".claude.json"),
          JSON.stringify({ projects: { [project]: { hasTrustDialogAccepted: true } } }),
        );
        // acceptEdits: without the hook, the Write would go through.
        await runClaude({ binary: claude, home, url: model.url }, project, [
          "-p",
          "try it",
          ...(install === "plugin" ? ["--plugin-dir", join(ROOT, "plugin")] : []),
          "--permission-mode",
          "acceptEdits",
          "--allowedTools",
          "Bash(sed:*)",
          "Bash(cd:*)",
          "Bash(echo:*)",
          "Bash(cat:*)",
        ]);
      } finally {
        await model.close();
      }
      expect(results).toHaveLength(5);
      const [write, sed, cdRedirect, read, report] = results;
      expect(write).toMatchObject({
        is_error: true,
        text: expect.stringContaining("memory/state/phase.json is dotagent's workflow state"),
      });
      expect(sed).toMatchObject({
        is_error: true,
        text: expect.stringContaining("this line writes memory/state/phase.json"),
      });
      expect(cdRedirect).toMatchObject({
        is_error: true,
        text: expect.stringContaining("this line writes memory/state/phase.json"),
      });
      expect(read).toMatchObject({ is_error: false, text: expect.stringContaining("read-ok") });
      expect(report).toMatchObject({
        is_error: true,
        text: expect.stringContaining("verification.json is not yours to write: it is qa's report: spawn qa"),
      });
      expect(readFileSync(phaseFile, "utf8")).toBe(before);
      expect(existsSync(join(project, "memory/reports/verification.json"))).toBe(false);
    },
    600_000,
  );
});
