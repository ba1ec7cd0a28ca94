// Runs the real Claude Code binary against the scripted model: an isolated HOME, nothing of an
// outer session's environment, its own process group (so a test can kill -9 the whole tree).
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface ClaudeRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  result: {
    session_id?: string;
    is_error?: boolean;
    result?: string;
    permission_denials?: unknown[];
    num_turns?: number;
  } | null;
}

export interface ClaudeClient {
  binary: string;
  home: string;
  url: string;
}

export function claudeEnv(client: ClaudeClient): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env))
    if (!/^(CLAUDE|ANTHROPIC|CLAUDECODE)/.test(key)) env[key] = value;
  return Object.assign(env, {
    HOME: client.home,
    ANTHROPIC_API_KEY: "dummy",
    ANTHROPIC_BASE_URL: client.url,
    CLAUDE_CODE_MAX_RETRIES: "0",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    NO_COLOR: "1",
  });
}

let current: ChildProcess | null = null;

/** Kills the running claude and everything it started (kill -9 of its process group). */
export function killClaude(): void {
  if (current?.pid !== undefined && current.exitCode === null) {
    try {
      process.kill(-current.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

export function runClaude(
  client: ClaudeClient & { env?: Record<string, string> },
  cwd: string,
  args: string[],
  timeoutMs = 120_000,
): Promise<ClaudeRun> {
  return new Promise((done) => {
    const child = spawn(client.binary, [...args, "--output-format", "json"], {
      cwd,
      env: { ...claudeEnv(client), ...client.env },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    current = child;
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr!.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    const timer = setTimeout(killClaude, timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (current === child) current = null;
      let result: ClaudeRun["result"] = null;
      try {
        result = JSON.parse(stdout) as ClaudeRun["result"];
      } catch {
        // killed, or no JSON: the caller decides
      }
      done({ code, signal, stdout, stderr, result });
    });
  });
}

export type { TranscriptLine } from "../harness.js";
import type { TranscriptLine } from "../harness.js";

export function transcript(home: string, cwd: string, sessionId: string): TranscriptLine[] {
  const file = join(home, ".claude", "projects", cwd.replace(/[^a-zA-Z0-9]/g, "-"), `${sessionId}.jsonl`);
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as TranscriptLine);
}
