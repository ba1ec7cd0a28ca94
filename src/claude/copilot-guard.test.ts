// The Copilot guard of dotagent's Claude Code hook lines (settings.ts COPILOT_GUARD) in real shells:
// Claude Code runs a hook line with /bin/sh -c (test/claude/NOTES.md), and Copilot CLI runs the
// same lines when a project has both installs. Run by Copilot (COPILOT_CLI=1 and no CLAUDECODE,
// which Claude Code sets for its hooks: the environments are the real binaries', test/*/NOTES.md)
// every line but session-start's must start no Node and exit 0; anywhere else each runs Node and
// exits with its status. A stand-in `node`, alone on PATH, notes each start and exits 7.
import { chmodSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COPILOT_GUARD, hookEntries } from "./settings.js";

/** The shells installed here, by path (the lines run with only the stand-in on PATH). */
const SHELLS = ["sh", "dash", "bash", "zsh"]
  .map((s) => spawnSync("sh", ["-c", `command -v ${s}`], { encoding: "utf8" }).stdout.trim())
  .filter((path, i, all) => path.startsWith("/") && all.findIndex((p) => realpathSync(p) === realpathSync(path)) === i);

let root: string;
const ran = () => join(root, "ran");
beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "dotagent-guard-")));
  writeFileSync(join(root, "node"), `#!/bin/sh\necho "$*" >> "${join(root, "ran")}"\nexit 7\n`);
  chmodSync(join(root, "node"), 0o755);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The plugin's lines as the build ships them (hooks/hooks.json). */
function pluginLines(): Array<{ event: string; command: string }> {
  const file = join(dirname(fileURLToPath(import.meta.url)), "../../hooks/hooks.json");
  const hooks = JSON.parse(readFileSync(file, "utf8")).hooks as Record<
    string,
    Array<{ hooks: Array<{ command: string }> }>
  >;
  return Object.entries(hooks).flatMap(([event, groups]) =>
    groups.flatMap((g) => g.hooks.map((h) => ({ event, command: h.command }))),
  );
}

const LINES = [
  ...hookEntries("project").map((e) => ({ scope: "project", ...e })),
  ...hookEntries("user", "/home/someone/.claude").map((e) => ({ scope: "user", ...e })),
  ...pluginLines().map((e) => ({ scope: "plugin", ...e })),
];

/** Runs the line; what `node` got (null: not started) and the exit status. */
function runLine(
  shell: string,
  command: string,
  env: Record<string, string>,
): { node: string | null; status: number | null } {
  rmSync(ran(), { force: true });
  const result = spawnSync(shell, ["-c", command], {
    env: { PATH: root, CLAUDE_PROJECT_DIR: "/project", CLAUDE_PLUGIN_ROOT: "/plugin", ...env },
    encoding: "utf8",
  });
  return { node: existsSync(ran()) ? readFileSync(ran(), "utf8").trim() : null, status: result.status };
}

/**
 * Copilot 1.0.102 running .claude/settings.json's lines (no COPILOT_HOOK_DIR), and its plugin's
 * (COPILOT_HOOK_DIR set; empty too).
 */
const UNDER_COPILOT_HOOKS: Array<Record<string, string>> = [
  { COPILOT_CLI: "1", COPILOT_PROJECT_DIR: "/project" },
  { COPILOT_CLI: "1", COPILOT_HOOK_DIR: "/plugin/hooks" },
  { COPILOT_CLI: "1", COPILOT_HOOK_DIR: "" },
];
/** Claude Code's own hooks, and a Claude Code started from Copilot's shell (COPILOT_CLI=1 passed on). */
const ELSEWHERE: Array<Record<string, string>> = [{ CLAUDECODE: "1" }, { CLAUDECODE: "1", COPILOT_CLI: "1" }, {}];
/** Near misses, tried on one guarded line of each scope: Node runs (and hook-run.ts decides). */
const NEAR: Array<Record<string, string>> = [
  { CLAUDECODE: "", COPILOT_CLI: "1" },
  { CLAUDECODE: "1", COPILOT_CLI: "1", COPILOT_HOOK_DIR: "/x" },
  { COPILOT_CLI: "" },
  { COPILOT_CLI: "0" },
  { COPILOT_CLI: "1x" },
  { COPILOT_CLI: " 1" },
  { COPILOT_CLI: "x", CLAUDECODE: "1" },
];

/**
 * Every line is the guard and then a plain `node "<helper>" hook <event>` (the first test), so one
 * line of each scope stands for the others in the shells: its guarded line and its session-start.
 */
const SAMPLES = ["project", "user", "plugin"].flatMap((scope) => [
  LINES.find((l) => l.scope === scope && l.event !== "SessionStart")!,
  LINES.find((l) => l.scope === scope && l.event === "SessionStart")!,
]);

describe("dotagent's Claude Code hook lines under Copilot CLI", () => {
  it("every line but session-start's is the guard and then the plain helper line; the plugin's lines are the install's", () => {
    expect(SHELLS.some((path) => path.endsWith("/sh"))).toBe(true);
    expect(LINES.filter((l) => l.command.startsWith(COPILOT_GUARD)).map((l) => l.event)).toEqual(
      LINES.filter((l) => l.event !== "SessionStart").map((l) => l.event),
    );
    for (const line of LINES)
      expect(line.command.slice(line.event === "SessionStart" ? 0 : COPILOT_GUARD.length)).toMatch(
        /^node "[^"`\\]*" hook [a-z-]+$/,
      );
    expect(LINES.filter((l) => l.scope === "plugin")).toHaveLength(hookEntries("plugin").length);
  });

  it.each(SHELLS)("%s: under Copilot's hooks no Node starts but session-start's, and the line exits 0", (shell) => {
    for (const env of UNDER_COPILOT_HOOKS)
      for (const line of SAMPLES) {
        const got = runLine(shell, line.command, env);
        if (line.event === "SessionStart")
          expect(got, `${line.scope} ${line.command}`).toEqual({
            node: expect.stringMatching(/ hook session-start$/),
            status: 7,
          });
        else expect(got, `${line.scope} ${line.command} ${JSON.stringify(env)}`).toEqual({ node: null, status: 0 });
      }
  });

  it.each(SHELLS)("%s: anywhere else each line runs Node with its event and exits with Node's status", (shell) => {
    const runs = [
      ...ELSEWHERE.flatMap((env) => SAMPLES.map((line) => ({ env, line }))),
      ...NEAR.map((env) => ({ env, line: SAMPLES[0]! })),
    ];
    for (const { env, line } of runs) {
      const got = runLine(shell, line.command, env);
      expect(got, `${line.scope} ${line.command} ${JSON.stringify(env)}`).toEqual({
        node: expect.stringMatching(/\/dotagent\.cjs hook [a-z-]+$/),
        status: 7,
      });
      expect(got.node).toContain(line.command.slice(line.command.lastIndexOf(" hook ")).trim());
    }
  });
});
