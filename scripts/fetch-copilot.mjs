#!/usr/bin/env node
// Fetches the native GitHub Copilot CLI binary for the opt-in end-to-end test (test/copilot/) and
// prints its path on stdout. The npm package `@github/copilot` is a loader; the binary ships in a
// per-platform package (its optionalDependencies), installed here into a cache folder OUTSIDE
// this repository's node_modules, so the project never depends on it.
//
//   node scripts/fetch-copilot.mjs           prints /tmp/dotagent-copilot/1.0.102/node_modules/…/copilot
//
// DOTAGENT_COPILOT_VERSION picks the version (default: the one test/copilot/NOTES.md was written
// against), DOTAGENT_COPILOT_CACHE the cache folder.
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fetchNpmBinary, platformKey, printWhenRun } from "./fetch-npm-binary.mjs";

export const DEFAULT_COPILOT_VERSION = "1.0.102";

const PLATFORM_PACKAGES = {
  "linux-x64": "@github/copilot-linux-x64",
  "linux-arm64": "@github/copilot-linux-arm64",
  "linux-x64-musl": "@github/copilot-linuxmusl-x64",
  "linux-arm64-musl": "@github/copilot-linuxmusl-arm64",
  "darwin-x64": "@github/copilot-darwin-x64",
  "darwin-arm64": "@github/copilot-darwin-arm64",
};

function works(binary) {
  const run = spawnSync(binary, ["--version"], {
    encoding: "utf8",
    timeout: 30_000,
    env: { ...process.env, COPILOT_OFFLINE: "true" },
  });
  return run.status === 0 && /\d+\.\d+\.\d+/.test(run.stdout);
}

/** Returns the path of a working `copilot` binary, installing it into the cache when needed. */
export function fetchCopilot({
  version = process.env.DOTAGENT_COPILOT_VERSION || DEFAULT_COPILOT_VERSION,
  cacheDir = process.env.DOTAGENT_COPILOT_CACHE || join(tmpdir(), "dotagent-copilot"),
} = {}) {
  const pkg = PLATFORM_PACKAGES[platformKey()];
  if (pkg === undefined) throw new Error(`no Copilot CLI binary package for ${platformKey()}`);
  return fetchNpmBinary({ pkg, version, cacheDir, binary: "copilot", works });
}

printWhenRun(import.meta.url, "fetch-copilot", () => fetchCopilot());
