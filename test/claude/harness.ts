// Running the REAL Claude Code binary in tests (opt-in: DOTAGENT_E2E_CLAUDE=1): an isolated HOME,
// a dummy key and an API address nobody listens on. With no model, Claude Code still runs the
// SessionStart hook, expands skills with their shell lines, and writes the session transcript
// before the model call fails; the transcript is what the tests read. test/claude/NOTES.md has
// what was learned about the binary.
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { fetchClaude as fetchClaudeBinary } from "../../scripts/fetch-claude.mjs";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const ENABLED = process.env.DOTAGENT_E2E_CLAUDE === "1";

export interface TranscriptLine {
  type?: string;
  subtype?: string;
  isMeta?: boolean;
  message?: { content?: unknown };
  attachment?: { type?: string; content?: unknown; hookName?: string; exitCode?: number; stdout?: string };
  commandOutcome?: { kind?: string };
  content?: string;
}

/** The Claude Code binary (fetched from the npm registry once, then cached; in this process, no Node start). */
export function fetchClaude(): string {
  return fetchClaudeBinary();
}

/** "2.1.332", from the binary itself. */
export const clientVersion = (binary: string) =>
  spawnSync(binary, ["--version"], { encoding: "utf8" }).stdout.split(" ")[0] ?? "?";

/** The environment for the binary: nothing of an outer Claude Code session or a real account. */
export function claudeEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env))
    if (!/^(CLAUDE|ANTHROPIC|CLAUDECODE)/.test(key)) env[key] = value;
  return {
    ...env,
    HOME: home,
    ANTHROPIC_API_KEY: "dummy",
    ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
    CLAUDE_CODE_MAX_RETRIES: "0",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    NO_COLOR: "1",
    ...extra,
  };
}

/** Runs a session (`-p …`) in `cwd`; the JSON result carries the session id. */
export function runClaude(
  claude: string,
  home: string,
  cwd: string,
  args: string[],
  extraEnv: Record<string, string> = {},
): { run: SpawnSyncReturns<string>; result: { session_id?: string; is_error?: boolean } } {
  const run = spawnSync(claude, [...args, "--output-format", "json"], {
    cwd,
    env: claudeEnv(home, extraEnv),
    encoding: "utf8",
    timeout: 90_000,
    input: "",
  });
  let result = {};
  try {
    result = JSON.parse(run.stdout) as object;
  } catch {
    throw new Error(`claude printed no JSON result (exit ${run.status ?? run.signal}):\n${run.stdout}\n${run.stderr}`);
  }
  return { run, result };
}

export function transcript(home: string, cwd: string, sessionId: string): TranscriptLine[] {
  const file = join(home, ".claude", "projects", cwd.replace(/[^a-zA-Z0-9]/g, "-"), `${sessionId}.jsonl`);
  expect(existsSync(file), `transcript ${file}`).toBe(true);
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as TranscriptLine);
}

/** Every top-level JSON object in a text: the scripted model's reader, one copy for both. */
export { jsonObjectsIn } from "./scripted-model/policy.js";
import { jsonObjectsIn } from "./scripted-model/policy.js";

export function textOf(line: TranscriptLine): string {
  const content = line.message?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content
      .map((c) => (typeof c === "object" && c !== null && "text" in c ? String((c as { text: unknown }).text) : ""))
      .join("\n");
  return "";
}

/** The resume plan /develop put into the prompt: the JSON object in the expanded skill text. */
export function developPlan(lines: TranscriptLine[]): Record<string, unknown> {
  const failed = lines.filter((l) => l.subtype === "local_command" && l.commandOutcome?.kind === "failed");
  expect(
    failed.map((l) => l.content),
    "the skill expansion failed",
  ).toEqual([]);
  const expanded = lines.filter(
    (l) => l.type === "user" && l.isMeta === true && textOf(l).includes("# /develop: drive the dotagent workflow"),
  );
  expect(expanded).toHaveLength(1);
  const plans = jsonObjectsIn(textOf(expanded[0]!)).filter((o) => "next" in o && "situation" in o);
  expect(plans).toHaveLength(1);
  return plans[0]!;
}

/** The SessionStart briefings Claude Code put into the session's context. */
export const briefings = (lines: TranscriptLine[]) =>
  lines
    .filter((l) => l.attachment?.type === "hook_additional_context")
    .map((l) => [l.attachment!.content].flat().join("\n"));
