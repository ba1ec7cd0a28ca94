// The package's size figures, measured: `node scripts/package-figures.mjs` builds and packs the
// package (what `npm pack` with its prepack script does), installs the tarball with `npm install -g` into a temp
// prefix, offline, and prints what the docs quote. Every size the docs give is written in one
// form — "N kB packed", "N kB unpacked", "N MB installed", "N kB plugin folder" (k = 1,000,
// M = 1,000,000; installed is the space on disk, as `du` counts it) — and test/package.test.ts
// fails when one of them is more than 10% off these measurements.
//
//   node scripts/package-figures.mjs [--json]
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, lstatSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** Where the docs quote figures: the test reads these files (not CHANGELOG.md: its figures are history). */
export const QUOTING_FILES = ["README.md", "SPEC.md", "CONTRIBUTING.md", "docs/architecture.md", "docs/evidence.md"];
export const TOLERANCE = 0.1;

function npm(args, cwd = ROOT) {
  const result = spawnSync("npm", args, {
    cwd,
    encoding: "utf8",
    shell: process.platform === "win32",
    env: { ...process.env, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" },
  });
  if (result.error) throw result.error;
  if (result.status !== 0)
    throw new Error(
      `npm ${args.join(" ")} failed (exit ${result.status}): ${result.stderr.trim().split("\n").slice(-3).join(" ")}`,
    );
  return result.stdout;
}

/** Bytes on disk (allocated blocks, as `du` counts them) and apparent bytes under a path. */
export function diskUsage(path) {
  const stat = lstatSync(path);
  let disk = stat.blocks * 512;
  let apparent = stat.isDirectory() ? 0 : stat.size;
  let files = stat.isFile() ? 1 : 0;
  if (stat.isDirectory()) {
    for (const name of readdirSync(path)) {
      const child = diskUsage(join(path, name));
      disk += child.disk;
      apparent += child.apparent;
      files += child.files;
    }
  }
  return { disk, apparent, files };
}

/** `npm pack` of the built files into packDir (no prepack: build first): the tarball and npm's figures. */
export function pack(packDir) {
  const info = JSON.parse(npm(["pack", "--json", "--ignore-scripts", "--pack-destination", packDir]))[0];
  return {
    tarball: join(packDir, info.filename),
    packed: info.size,
    unpacked: info.unpackedSize,
    files: info.entryCount,
    name: info.name,
    version: info.version,
  };
}

/** `npm install -g` of the tarball into prefix, offline: what lands on disk. */
export function installGlobal(tarball, prefix) {
  const started = Date.now();
  npm(["install", "--global", "--offline", "--no-audit", "--no-fund", "--prefix", prefix, tarball]);
  const ms = Date.now() - started;
  const modules = join(prefix, process.platform === "win32" ? "" : "lib", "node_modules");
  const packages = readdirSync(modules).filter((n) => !n.startsWith("."));
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  const installed = join(modules, pkg.name);
  return { installed, packages, ms, ...diskUsage(installed) };
}

export function pluginFigures() {
  return {
    plugin: diskUsage(join(ROOT, "plugin")),
    helper: lstatSync(join(ROOT, "plugin", "skills", "checkpoint", "scripts", "dotagent.mjs")).size,
  };
}

/** The figures the docs may quote, in bytes (installed: on disk). */
export function figuresFrom(packed, installed, plugin) {
  return {
    packed: packed.packed,
    unpacked: packed.unpacked,
    installed: installed.disk,
    plugin: plugin.plugin.apparent,
  };
}

const UNIT = { kB: 1e3, MB: 1e6 };
const QUOTE = /(\d+(?:\.\d+)?) (kB|MB) (packed|unpacked|installed|plugin folder)\b/g;

/** Every size quoted in the docs' one form, with where it is. */
export function quotedFigures(root = ROOT) {
  const quotes = [];
  for (const file of QUOTING_FILES) {
    let text;
    try {
      text = readFileSync(join(root, file), "utf8");
    } catch {
      continue;
    }
    for (const m of text.matchAll(QUOTE)) {
      const line = text.slice(0, m.index).split("\n").length;
      quotes.push({
        where: `${file}:${line}`,
        text: m[0],
        kind: m[3] === "plugin folder" ? "plugin" : m[3],
        bytes: Number(m[1]) * UNIT[m[2]],
      });
    }
  }
  return quotes;
}

/** Quotes more than TOLERANCE away from the measured figure. */
export function staleQuotes(figures, quotes) {
  return quotes
    .filter((q) => Math.abs(q.bytes - figures[q.kind]) > TOLERANCE * figures[q.kind])
    .map((q) => ({ ...q, measured: figures[q.kind] }));
}

export const kB = (bytes) => `${Math.round(bytes / 1e3)} kB`;
export const MB = (bytes) => `${(bytes / 1e6).toFixed(2)} MB`;

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const work = mkdtempSync(join(tmpdir(), "dotagent-figures-"));
  try {
    for (const script of ["build", "build:types"]) npm(["run", "--silent", script]);
    const packed = pack(work);
    const installed = installGlobal(packed.tarball, join(work, "prefix"));
    const plugin = pluginFigures();
    const figures = figuresFrom(packed, installed, plugin);
    if (process.argv.includes("--json")) {
      console.log(
        JSON.stringify({
          ...figures,
          files: packed.files,
          installed_apparent: installed.apparent,
          packages: installed.packages.length,
          helper: plugin.helper,
          install_ms: installed.ms,
        }),
      );
    } else {
      console.log(`${packed.name}@${packed.version} (node scripts/package-figures.mjs; k = 1,000)`);
      console.log(`  ${kB(figures.packed)} packed (npm pack), ${kB(figures.unpacked)} unpacked, ${packed.files} files`);
      console.log(
        `  ${MB(figures.installed)} installed (npm install -g, on disk as du counts it; ${kB(installed.apparent)} of file contents), ${installed.packages.length} package, ${installed.ms} ms offline`,
      );
      console.log(
        `  ${kB(figures.plugin)} plugin folder (plugin/, ${plugin.plugin.files} files; the helper ${kB(plugin.helper)})`,
      );
      const stale = staleQuotes(figures, quotedFigures());
      for (const q of stale) console.log(`  stale: ${q.where} says "${q.text}", measured ${kB(q.measured)}`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
