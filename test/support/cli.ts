// Runs the BUILT CLI (dist/dotagent.mjs) the way a user or an agent does, in temp projects.
import { spawnSync } from "node:child_process";
import {
  cpSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
  mkdirSync,
  existsSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { copyOfTemplate } from "./template.js";
import { hostRun } from "./cli-host.js";

export const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const CLI = join(REPO, "dist", "dotagent.mjs");

if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first (npm test does)`);

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

/**
 * Runs the built CLI (or `script`, e.g. an installed helper) in `cwd` as a user would. The call
 * runs in the test worker's CLI host (cli-host.ts: the same built file, a fresh copy of its modules,
 * its own argv, folder, environment, stdin, output and exit code, without a new process); with
 * `spawn: true` or DOTAGENT_TEST_SPAWN=1 it is a process of its own.
 */
export function dotagent(
  cwd: string,
  args: string[],
  // An env value `undefined` takes the variable out (the host's request and spawnSync both drop it).
  options: {
    input?: string;
    env?: Record<string, string | undefined>;
    script?: string;
    spawn?: boolean;
    /** In the host only: stdout (and stdin unless `stdin` is false) read as a terminal `columns` wide (cli-host-process.mjs). */
    terminal?: { columns: number; stdin: boolean };
  } = {},
): RunResult {
  const env = { ...process.env, NO_COLOR: "1", DOTAGENT_LOCK_WAIT_MS: "300", ...options.env };
  const hosted =
    options.spawn !== true && process.env.DOTAGENT_TEST_SPAWN !== "1" && options.env?.DOTAGENT_TEST_SPAWN !== "1";
  if (options.terminal !== undefined && !hosted) throw new Error("a terminal is the host's: spawn one with `script`");
  const result = hosted
    ? hostRun(options.script ?? CLI, cwd, args, env, options.input, options.terminal)
    : (() => {
        const r = spawnSync(process.execPath, [options.script ?? CLI, ...args], {
          cwd,
          input: options.input ?? "",
          encoding: "utf8",
          env,
        });
        return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
      })();
  let json: unknown;
  try {
    json = JSON.parse(result.stdout);
  } catch {
    json = undefined;
  }
  return { code: result.code, stdout: result.stdout, stderr: result.stderr, json };
}

const temps: string[] = [];
export function tempProject(): string {
  const dir = mkdtempSync(join(tmpdir(), "dotagent-test-"));
  temps.push(dir);
  return dir;
}

export function removeTemps(): void {
  // A reply carrier a hook started (src/store/reply-carrier.ts, detached, up to a minute) may be
  // taking the state lock in a project as it is removed: its lock files come and go, so a folder
  // found not empty is tried again (ENOTEMPTY once failed person-gate.test.ts on a busy machine).
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
}

/** A copy of examples/NAME in a temp folder. */
export function exampleProject(name: string): string {
  const dir = tempProject();
  cpSync(join(REPO, "examples", name), dir, { recursive: true });
  return dir;
}

export function writeJson(root: string, rel: string, value: unknown): void {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), typeof value === "string" ? value : JSON.stringify(value));
}

export function readJson(root: string, rel: string): any {
  return JSON.parse(readFileSync(join(root, rel), "utf8"));
}

/** Every file under root with its bytes, to prove a command changed nothing. */
export function treeBytes(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else out[relative(root, path)] = readFileSync(path).toString("base64");
    }
  };
  if (existsSync(root)) walk(root);
  return out;
}

/** No line of a stack trace in output meant for people. */
export function expectNoStack(text: string): void {
  if (/^\s+at .+\(.+:\d+:\d+\)$/m.test(text) || /^\s+at /m.test(text))
    throw new Error(`output has a stack trace:\n${text}`);
}

/**
 * A temp project with `dotagent install` done: the hooks run the installed helper, as Claude Code
 * does. Installed once per test file and copied (install names no folder in what it writes).
 */
export function installedProject(): { p: string; helper: string } {
  const p = copyOfTemplate("installedProject", (dir) => {
    const r = dotagent(dir, ["install", "--json"], { env: { HOME: join(dir, "home") } });
    if (r.code !== 0) throw new Error(`dotagent install failed (exit ${r.code}): ${r.stdout}${r.stderr}`);
  });
  return { p, helper: join(p, ".claude/skills/checkpoint/scripts/dotagent.mjs") };
}

/** Runs `hook <event>` as Claude Code does: the installed helper, the JSON on stdin, the session's pid; `out` is its answer, or null. */
export function runHook(
  p: string,
  helper: string,
  event: string,
  input: Record<string, unknown>,
  env: Record<string, string> = {},
): RunResult & { out: Record<string, any> | null } {
  const r = dotagent(p, ["hook", event], {
    input: JSON.stringify({ session_id: "s-1", cwd: p, ...input }),
    env: { CLAUDE_PID: String(process.pid), CLAUDE_CODE_SESSION_ID: "s-1", CLAUDE_PROJECT_DIR: p, ...env },
    script: helper,
  });
  return { ...r, out: r.stdout.trim() === "" ? null : (JSON.parse(r.stdout) as Record<string, any>) };
}

/**
 * A temp project holding a stand-in Claude Agent SDK (`sdkSource`, an ES module exporting
 * `query`) in its node_modules, and a copy of the built CLI in `bin/` beside it, so that CLI finds
 * that SDK as `dotagent run` looks for one (beside dotagent, in the project).
 */
export function standInSdkProject(sdkSource: string): { root: string; cli: string } {
  const root = tempProject();
  const sdk = join(root, "node_modules/@anthropic-ai/claude-agent-sdk");
  mkdirSync(sdk, { recursive: true });
  writeFileSync(
    join(sdk, "package.json"),
    JSON.stringify({
      name: "@anthropic-ai/claude-agent-sdk",
      version: "0.0.0-fake",
      type: "module",
      main: "sdk.mjs",
      exports: { ".": "./sdk.mjs" },
    }),
  );
  writeFileSync(join(sdk, "sdk.mjs"), sdkSource);
  mkdirSync(join(root, "bin"));
  const cli = join(root, "bin/dotagent.mjs");
  cpSync(CLI, cli);
  return { root, cli };
}
