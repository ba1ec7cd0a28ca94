#!/usr/bin/env node
// Fetches the native Claude Code binary for the opt-in end-to-end test (test/claude/) and prints
// its path on stdout. The npm package `@anthropic-ai/claude-code` is only a wrapper that needs
// Node 22; the binary itself ships in a per-platform package, which is installed here into a
// cache folder OUTSIDE this repository's node_modules, so the project never depends on it.
//
//   node scripts/fetch-claude.mjs            prints /tmp/dotagent-claude/2.1.329/node_modules/…/claude
//
// DOTAGENT_CLAUDE_VERSION picks the version (default: the one test/claude/NOTES.md was written
// against; `latest` works too), DOTAGENT_CLAUDE_CACHE the cache folder.
// The cache is filled by fetch-npm-binary.mjs (complete or absent, never half).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fetchNpmBinary, platformKey, printWhenRun } from "./fetch-npm-binary.mjs";

/** The version dotagent was tested with: CLAUDE_TESTED_VERSION in src/core/claude-workflow-run.ts, the one source. */
export const DEFAULT_CLAUDE_VERSION = /export const CLAUDE_TESTED_VERSION = "([^"]+)";/.exec(
  readFileSync(new URL("../src/core/claude-workflow-run.ts", import.meta.url), "utf8"),
)[1];

const PLATFORM_PACKAGES = {
  "linux-x64": "@anthropic-ai/claude-code-linux-x64",
  "linux-arm64": "@anthropic-ai/claude-code-linux-arm64",
  "linux-x64-musl": "@anthropic-ai/claude-code-linux-x64-musl",
  "linux-arm64-musl": "@anthropic-ai/claude-code-linux-arm64-musl",
  "darwin-x64": "@anthropic-ai/claude-code-darwin-x64",
  "darwin-arm64": "@anthropic-ai/claude-code-darwin-arm64",
};

function works(binary) {
  const run = spawnSync(binary, ["--version"], {
    encoding: "utf8",
    timeout: 30_000,
    env: { ...process.env, DISABLE_AUTOUPDATER: "1" },
  });
  return run.status === 0 && /Claude Code/.test(run.stdout);
}

/** Returns the path of a working `claude` binary, installing it into the cache when needed. */
export function fetchClaude({
  version = process.env.DOTAGENT_CLAUDE_VERSION || DEFAULT_CLAUDE_VERSION,
  cacheDir = process.env.DOTAGENT_CLAUDE_CACHE || join(tmpdir(), "dotagent-claude"),
} = {}) {
  const pkg = PLATFORM_PACKAGES[platformKey()];
  if (pkg === undefined) throw new Error(`no Claude Code binary package for ${platformKey()}`);
  return fetchNpmBinary({ pkg, version, cacheDir, binary: "claude", works });
}

printWhenRun(import.meta.url, "fetch-claude", () => fetchClaude());
