#!/usr/bin/env node
// Fetches the native OpenAI Codex CLI binary for the opt-in end-to-end test (test/codex/) and
// prints its path on stdout. The npm package `@openai/codex` is a Node wrapper; the binary ships
// in a per-platform build published under the same name with a platform dist version
// (`@openai/codex@0.171.0-linux-x64`), installed here into a cache folder OUTSIDE this
// repository's node_modules, so the project never depends on it.
//
//   node scripts/fetch-codex.mjs      prints /tmp/dotagent-codex/0.171.0-linux-x64/node_modules/@openai/codex/vendor/…/codex
//
// DOTAGENT_CODEX_VERSION picks the version (default: the one test/codex/NOTES.md was written
// against), DOTAGENT_CODEX_CACHE the cache folder.
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fetchNpmBinary, printWhenRun } from "./fetch-npm-binary.mjs";

export const DEFAULT_CODEX_VERSION = "0.171.0";

// platform key → [dist version suffix, vendor triple]
const PLATFORM_BUILDS = {
  "linux-x64": ["linux-x64", "x86_64-unknown-linux-musl"],
  "linux-arm64": ["linux-arm64", "aarch64-unknown-linux-musl"],
  "darwin-x64": ["darwin-x64", "x86_64-apple-darwin"],
  "darwin-arm64": ["darwin-arm64", "aarch64-apple-darwin"],
};

function works(binary) {
  const run = spawnSync(binary, ["--version"], { encoding: "utf8", timeout: 30_000 });
  return run.status === 0 && /codex/i.test(run.stdout);
}

/** Returns the path of a working `codex` binary, installing it into the cache when needed. */
export function fetchCodex({
  version = process.env.DOTAGENT_CODEX_VERSION || DEFAULT_CODEX_VERSION,
  cacheDir = process.env.DOTAGENT_CODEX_CACHE || join(tmpdir(), "dotagent-codex"),
} = {}) {
  const key = `${process.platform}-${process.arch}`;
  const build = PLATFORM_BUILDS[key];
  if (build === undefined) throw new Error(`no Codex binary build for ${key}`);
  const [suffix, triple] = build;
  return fetchNpmBinary({
    pkg: "@openai/codex",
    version: `${version}-${suffix}`,
    cacheDir,
    binary: `vendor/${triple}/bin/codex`,
    works,
  });
}

printWhenRun(import.meta.url, "fetch-codex", () => fetchCodex());
