// Installs a package that carries a native binary (the Claude Code binary, a Node.js build) into a
// cache folder OUTSIDE this repository's node_modules, so the project never depends on it, and
// returns the binary's path. Promise: a cache entry is complete or absent. npm installs into a
// private temp folder that is renamed into place only after the binary passed `works`, so a
// killed install is never reused.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/**
 * `pkg@version` into `<cacheDir>/<version>/`; `binary` is the path below node_modules/<pkg>/;
 * `works(path)` says whether a binary there runs. `latest` moves, so it is fetched each time.
 */
export function fetchNpmBinary({ pkg, version, cacheDir, binary, works }) {
  const binaryIn = (dir) => join(dir, "node_modules", ...pkg.split("/"), ...binary.split("/"));
  const target = join(cacheDir, version);
  const cached = binaryIn(target);
  if (version !== "latest" && existsSync(cached) && works(cached)) return cached;

  mkdirSync(cacheDir, { recursive: true });
  const staging = join(cacheDir, `.${version}.${process.pid}.${Date.now()}`);
  try {
    const npm = spawnSync(
      "npm",
      [
        "install",
        "--prefix",
        staging,
        "--no-save",
        "--no-package-lock",
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        `${pkg}@${version}`,
      ],
      {
        encoding: "utf8",
        timeout: 600_000,
        // The test workers drop NODE_EXTRA_CA_CERTS (test/support/isolated-env.ts); npm may need it.
        ...(process.env.DOTAGENT_NODE_EXTRA_CA_CERTS
          ? { env: { ...process.env, NODE_EXTRA_CA_CERTS: process.env.DOTAGENT_NODE_EXTRA_CA_CERTS } }
          : {}),
      },
    );
    if (npm.status !== 0)
      throw new Error(
        `npm install ${pkg}@${version} failed (exit ${npm.status ?? npm.signal}): ${(npm.stderr || npm.error?.message || "").trim()}`,
      );
    const fresh = binaryIn(staging);
    if (!existsSync(fresh) || !works(fresh)) throw new Error(`${fresh} does not run`);
    rmSync(target, { recursive: true, force: true });
    try {
      renameSync(staging, target);
    } catch (error) {
      // Another process won the race and put a complete copy there: use it.
      if (!works(cached)) throw error;
    }
    return cached;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** `linux-x64`, `darwin-arm64`, …; on Linux with musl (Alpine) `linux-x64-musl`. */
export function platformKey() {
  const base = `${process.platform}-${process.arch}`;
  if (process.platform !== "linux") return base;
  // glibc Node reports its glibc version; musl builds do not.
  const glibc = process.report?.getReport?.().header?.glibcVersionRuntime;
  return glibc ? base : `${base}-musl`;
}

/** A fetch script run as a command: prints the binary's path, or one line and exit 1. */
export function printWhenRun(metaUrl, name, fetch) {
  if (process.argv[1] === undefined || metaUrl !== pathToFileURL(process.argv[1]).href) return;
  try {
    process.stdout.write(`${fetch()}\n`);
  } catch (error) {
    process.stderr.write(`${name}: ${error.message}\n`);
    process.exit(1);
  }
}
