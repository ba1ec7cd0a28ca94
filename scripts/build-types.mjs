// Declarations of the library entry (dist/types/), usable without any package installed.
//
// The package has no run-time dependencies: the bundles carry what they use. The declarations
// still name zod's types (PhaseState is `z.infer<…>` of the schema that parses phase.json), so
// the declaration files of zod/mini that they reach (~230 KB, MIT) are copied to
// dist/types/vendor/zod/ and `zod/mini` is rewritten to that relative path. A consumer's `tsc`
// then resolves every type from this package alone (test/package.test.ts checks it).
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";

const root = resolve(dirname(new URL(import.meta.url).pathname), "..");
const out = join(root, "dist", "types");
rmSync(out, { recursive: true, force: true });
execFileSync(process.execPath, [createRequire(import.meta.url).resolve("typescript/bin/tsc"), "-p", join(root, "tsconfig.build.json")], { stdio: "inherit" });

const zodRoot = dirname(createRequire(import.meta.url).resolve("zod/package.json"));
const vendor = join(out, "vendor", "zod");
const seen = new Set();
function copyClosure(file) {
  if (seen.has(file)) return;
  seen.add(file);
  const dest = join(vendor, relative(zodRoot, file));
  mkdirSync(dirname(dest), { recursive: true });
  copyFileSync(file, dest);
  for (const match of readFileSync(file, "utf8").matchAll(/from\s+"(\.[^"]+)"|import\("(\.[^"]+)"\)/g)) {
    const base = resolve(dirname(file), (match[1] ?? match[2]).replace(/\.js$/, ""));
    const target = [`${base}.d.ts`, join(base, "index.d.ts")].find((f) => existsSync(f));
    if (target === undefined) throw new Error(`build-types: ${file} imports ${match[1] ?? match[2]}, which has no declaration file`);
    copyClosure(target);
  }
}
copyClosure(join(zodRoot, "mini", "index.d.ts"));
copyFileSync(join(zodRoot, "LICENSE"), join(vendor, "LICENSE"));

// tsc emits a declaration for every module the library's code reaches, also internal ones whose
// types the public API never names (the archive code, which names node-tar's types). Only the
// files index.d.ts reaches are kept: a consumer's tsc reads no others.
const reached = new Set();
function reach(file) {
  if (reached.has(file)) return;
  reached.add(file);
  for (const match of readFileSync(file, "utf8").matchAll(/from\s+["'](\.[^"']+)["']|import\(["'](\.[^"']+)["']\)/g)) {
    const base = resolve(dirname(file), (match[1] ?? match[2]).replace(/\.js$/, ""));
    const target = [`${base}.d.ts`, join(base, "index.d.ts")].find((f) => existsSync(f));
    if (target !== undefined && !target.startsWith(join(out, "vendor"))) reach(target);
  }
}
reach(join(out, "index.d.ts"));
let pruned = 0;
function prune(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (path === join(out, "vendor")) continue;
    if (statSync(path).isDirectory()) {
      prune(path);
      if (readdirSync(path).length === 0) rmSync(path, { recursive: true });
    } else if (name.endsWith(".d.ts") && !reached.has(path)) {
      rmSync(path);
      pruned++;
    }
  }
}
prune(out);

let rewritten = 0;
function rewrite(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (path === join(out, "vendor")) continue;
    if (statSync(path).isDirectory()) rewrite(path);
    else if (name.endsWith(".d.ts")) {
      const text = readFileSync(path, "utf8");
      let spec = relative(dirname(path), join(vendor, "mini", "index.js")).split("\\").join("/");
      if (!spec.startsWith(".")) spec = `./${spec}`;
      const next = text.replace(/(["'])zod\/mini\1/g, `"${spec}"`);
      if (next !== text) {
        writeFileSync(path, next);
        rewritten++;
      }
      const bare = /from\s+["']([^."'][^"']*)["']/.exec(next);
      if (bare && !bare[1].startsWith("node:")) throw new Error(`build-types: ${path} still imports the package ${bare[1]}`);
    }
  }
}
rewrite(out);
console.log(`dist/types: ${reached.size} declaration files (${pruned} the API does not reach left out), zod/mini declarations vendored (${seen.size} files), ${rewritten} declaration files point at them`);
