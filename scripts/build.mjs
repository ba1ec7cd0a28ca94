// Builds the CLI into ONE file, dist/dotagent.mjs, so start-up reads one module, not hundreds.
//
// The file has two halves. The hot half is ordinary bundled code: what every command needs.
// The cold half (src/cli/cold.ts: tar, prompts, globby, the JSON Schema export, the runner) is
// bundled separately, brotli-compressed and held as base64, inflated and run only by the commands
// that use it (src/cli/load-cold.ts): `status` or the SessionStart hook never need it. It takes
// the modules it shares with the hot half from the running hot half instead of carrying a copy
// (scripts/build-cold-sharing.mjs), so it is ~520 kB, ~200 kB of base64, and the file can ship
// once. Both halves sit in block comments after the loader, src/cli/boot.ts (see there why).
import { build } from "esbuild";
import { readFileSync, readdirSync, mkdirSync, copyFileSync, chmodSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { brotliCompressSync, constants as zlib } from "node:zlib";
import { dirname, join } from "node:path";
import { builtinModules, createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";
import { coldStubs, exportsVia, hotRegistry, sharedModules } from "./build-cold-sharing.mjs";

// Through require(): an ES import of typescript.js (9 MB of CommonJS) has Node parse it twice more
// to tell its format and its export names, ~0.5 s of CPU per build (issue 41).
const ts = createRequire(import.meta.url)("typescript");

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const common = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minify: process.env.DOTAGENT_NO_MINIFY !== "1", // DOTAGENT_NO_MINIFY=1 for readable profiles
  legalComments: "none",
  define: { __DOTAGENT_VERSION__: JSON.stringify(pkg.version) },
  logLevel: "warning",
  // An optional peer dependency, imported only inside recoverableQuery and `dotagent run`.
  external: ["@anthropic-ai/claude-agent-sdk"],
};
// CommonJS dependencies call require() for node built-ins (and may read __filename): an ESM
// bundle must provide both.
const fileBanner =
  "import { createRequire as __cr } from 'node:module'; import { fileURLToPath as __fu } from 'node:url'; const require = __cr(import.meta.url); const __filename = __fu(import.meta.url);";
/**
 * `import … from "node:fs"` in an ES module makes Node build the whole namespace, running every
 * lazy getter: fs alone then loads fs/promises, streams and readline (~50 extra internal
 * modules, ~15 ms). Through require() the getters stay lazy, so built-ins are required.
 *
 * With `named` (the hot half), each built-in our sources import is a small ES module that
 * requires it once and exports by name just what src/ imports from it (named imports are the only
 * form src/ uses), so importing modules bind to those names. As CommonJS modules, every importing
 * module would copy all of the built-in's properties into a wrapper of its own at start-up and
 * reach each through a getter (esbuild's __toESM: ~30 modules × ~100 properties for fs alone).
 * A dynamic import() or a package's require() of a built-in keeps the CommonJS form.
 *
 * The built-ins in LAZY_BUILTINS are not loaded until first used: each name is a function that
 * requires the built-in at its first call (see there).
 */
function builtinsViaRequire({ named = false } = {}) {
  const used = named ? namedBuiltinImports() : new Map();
  return {
    name: "builtins-via-require",
    setup(b) {
      b.onResolve({ filter: /^node:/ }, (args) => {
        if (args.namespace === "builtin" || args.namespace === "builtin-cjs")
          return { path: args.path, external: true };
        // Only static imports bind by name; a dynamic import() or a require() gets the whole module.
        const esm = named && args.kind === "import-statement" && used.has(args.path);
        return { path: args.path, namespace: esm ? "builtin" : "builtin-cjs" };
      });
      // Packages may import a built-in without `node:` (node-tar: "fs", "zlib"); a require() of
      // one stays as written.
      b.onResolve({ filter: BARE_BUILTIN }, (args) =>
        args.kind === "require-call" || args.namespace !== "file"
          ? undefined
          : { path: `node:${args.path}`, namespace: "builtin-cjs" },
      );
      b.onLoad({ filter: /.*/, namespace: "builtin-cjs" }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(args.path)});`,
        loader: "js",
      }));
      b.onLoad({ filter: /.*/, namespace: "builtin" }, (args) => {
        const names = [...used.get(args.path)].sort();
        const id = JSON.stringify(args.path);
        if (LAZY_BUILTINS.has(args.path)) {
          const lazy = names.map(
            (n) => `export function ${lazyName(args.path, n)}(...args) { return load().${n}(...args); }`,
          );
          return { contents: `let m;\nconst load = () => (m ??= require(${id}));\n${lazy.join("\n")}\n`, loader: "js" };
        }
        return {
          contents: `const m = require(${id});\n${names.map((n) => `export const ${n} = m.${n};`).join("\n")}\n`,
          loader: "js",
        };
      });
    },
  };
}

const BARE_BUILTIN = new RegExp(
  `^(${builtinModules
    .filter((m) => !m.startsWith("_"))
    .map((m) => m.replace(/[/]/g, "\\/"))
    .join("|")})$`,
);

/**
 * Built-ins that a bare `node` has not loaded and that most runs of the CLI never call, so a
 * `status` or a hook that needs none of them does not pay to load them: child_process (with net,
 * dgram and the stream wrappers, ~20 internal modules: only when git or a command is spawned), os
 * (hostname, homedir, tmpdir) and crypto (install's hash; the state's digests use
 * process.getBuiltinModule at their call). Only a function can stand in for its built-in's export
 * so, hence the check.
 */
const LAZY_BUILTINS = new Set(["node:child_process", "node:crypto", "node:os"]);

/** The name itself, once checked to be a plain function of the built-in (not a class, not a value). */
function lazyName(builtin, name) {
  const value = createRequire(import.meta.url)(builtin)[name];
  if (typeof value !== "function" || /^class\b/.test(Function.prototype.toString.call(value)))
    throw new Error(
      `build: ${builtin}'s ${name} is not a plain function, so it cannot be loaded lazily; import it through process.getBuiltinModule("${builtin}") where it is used, or take ${builtin} out of LAZY_BUILTINS`,
    );
  return name;
}

/** node:X → the names src/ imports from it (`import { a, b as c } from "node:X"`). */
function namedBuiltinImports() {
  const used = new Map();
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      // src/langgraph/ is its own bundle (below): its imports must not widen the CLI's.
      if (entry.isDirectory()) {
        if (entry.name !== "langgraph") walk(path);
      } else if (
        entry.name.endsWith(".ts") &&
        !entry.name.endsWith(".test.ts") &&
        !entry.name.includes("test-support")
      ) {
        const text = readFileSync(path, "utf8");
        for (const m of text.matchAll(/import\s*(type\s*)?\{([^}]*)\}\s*from\s*"(node:[^"]+)"/g)) {
          if (m[1]) continue;
          const names = used.get(m[3]) ?? new Set();
          for (const spec of m[2]
            .split(",")
            .map((x) => x.trim())
            .filter((x) => x && !x.startsWith("type ")))
            names.add(spec.split(/\s+as\s+/)[0]);
          used.set(m[3], names);
        }
        if (/import\s*(\*|[A-Za-z_$][\w$]*)\s*(as\s+\w+\s*)?from\s*"node:/.test(text))
          throw new Error(
            `build: ${path} imports a built-in without naming what it uses; write import { … } from "node:…"`,
          );
      }
    }
  };
  walk(join(dirname(fileURLToPath(import.meta.url)), "..", "src"));
  return used;
}
common.plugins = [builtinsViaRequire()];

/**
 * In the hot half, the source fallbacks `import("./cold.js")` and the library's
 * `import("../archive/index.js")` (src/ops/archive-module.ts; main.ts points it at the cold half)
 * stay unused externals, and the data: URL stays a runtime import (esbuild would otherwise bundle
 * a constant data: URL inline).
 */
const coldExternal = {
  name: "cold-external",
  setup(b) {
    b.onResolve({ filter: /^(\.\/cold\.js|\.\.\/archive\/index\.js|data:.*)$/ }, (args) => ({
      path: args.path,
      external: true,
    }));
  },
};

// The hot half is built as the body of a function that src/cli/boot.ts compiles with node:vm (from
// V8's code cache when there is one: src/store/code-cache.ts). A script has no import.meta and no
// import() of its own, so the boot hands both in: `import.meta.url` becomes a parameter by `define`,
// and each dynamic import left in the bundle (of a module outside it) a call of the boot's
// importer. The cold half stays a string of the boot's, handed in too.
/**
 * `code` with each dynamic `import(` call (found by TypeScript's parser, so never one inside a
 * string or a comment) made a call of `importer`; a build error when import.meta, a static import
 * or an export is left, since a script compiled by node:vm has none of them.
 */
function dynamicImportsCalled(code, importer, half, runner) {
  const file = ts.createSourceFile("hot.js", code, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const at = [];
  const left = [];
  const visit = (node) => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword)
      at.push(node.expression.getStart(file));
    if (ts.isMetaProperty(node) && node.keywordToken === ts.SyntaxKind.ImportKeyword) left.push("import.meta");
    ts.forEachChild(node, visit);
  };
  for (const statement of file.statements) {
    if (ts.isImportDeclaration(statement)) left.push("an import statement");
    if (ts.isExportDeclaration(statement) || ts.isExportAssignment(statement)) left.push("an export");
    visit(statement);
  }
  if (left.length > 0)
    throw new Error(`build: ${half} still has ${[...new Set(left)].join(", ")}; ${runner} runs it as a script`);
  let out = "";
  let from = 0;
  for (const start of at) {
    out += code.slice(from, start) + importer;
    from = start + "import".length;
  }
  return out + code.slice(from);
}

const HOT_PARAMS = ["require", "__filename", "__dotagent_url", "__dotagent_import", "__dotagent_cold"];
const hotOptions = {
  ...common,
  entryPoints: ["src/cli/main.ts"],
  write: false,
  define: { ...common.define, "import.meta.url": "__dotagent_url", __DOTAGENT_COLD__: "__dotagent_cold" },
  plugins: [coldExternal, builtinsViaRequire({ named: true })],
};

// The cold half, a script too (src/cli/load-cold.ts runs it): a function of the hot half's require,
// file, URL and import(), and of the values of the modules it shares with the hot half, which it
// takes from there instead of carrying a copy (scripts/build-cold-sharing.mjs). Which modules and
// names: from both halves built once without sharing.
const coldEntry = "src/cli/cold.ts";
const [hotAlone, coldAlone] = await Promise.all([
  build({ ...hotOptions, metafile: true, minify: false }),
  build({ ...common, entryPoints: [coldEntry], write: false, metafile: true, minify: false }),
]);
const shared = await sharedModules({
  hotMeta: hotAlone.metafile,
  hotText: hotAlone.outputFiles[0].text,
  coldMeta: coldAlone.metafile,
  entry: coldEntry,
  exportsOf: exportsVia({ ...common, plugins: [builtinsViaRequire()] }),
});
// prompts' entry picks at run time between two builds of itself, dist/ for Node.js before 8.6 and
// lib/ after, so a bundle held both (~45 kB); dotagent needs Node.js 20, so lib/ alone.
const promptsForThisNode = {
  name: "prompts-for-this-node",
  setup(b) {
    b.onResolve({ filter: /^prompts$/ }, (args) =>
      b.resolve("prompts/lib/index.js", { kind: args.kind, resolveDir: args.resolveDir }),
    );
  },
};
const COLD_PARAMS = ["require", "__filename", "__dotagent_url", "__dotagent_import", "__dotagent_shared"];
const cold = await build({
  ...common,
  stdin: {
    contents: `import * as cold from ${JSON.stringify(`./${coldEntry}`)};\n__dotagent_exports = cold;`,
    resolveDir: ROOT,
    sourcefile: "cold-entry.js",
    loader: "js",
  },
  write: false,
  define: { ...common.define, "import.meta.url": "__dotagent_url" },
  plugins: [coldStubs(shared), promptsForThisNode, ...common.plugins],
});
const coldScript = `(function(${COLD_PARAMS.join(",")}){"use strict";let __dotagent_exports;${dynamicImportsCalled(cold.outputFiles[0].text, "__dotagent_import", "the cold half", "src/cli/load-cold.ts")}\nreturn __dotagent_exports;})`;
new Script(coldScript, { filename: "cold half" }); // a syntax error (a top-level await) fails the build, not a command
const coldCode = Buffer.from(coldScript);
const coldPacked = brotliCompressSync(coldCode, {
  params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: coldCode.length },
});

const hot = await build({
  ...hotOptions,
  plugins: [hotRegistry(shared, join(ROOT, "src/cli/cold-shared.ts")), ...hotOptions.plugins],
});
const hotScript = `(function(${HOT_PARAMS.join(",")}){"use strict";${dynamicImportsCalled(hot.outputFiles[0].text, "__dotagent_import", "the hot half", "src/cli/boot.ts")}\n})`;
const hotKey = `${pkg.version}-${createHash("sha256").update(hotScript).digest("hex").slice(0, 16)}`;
// The loader (src/cli/boot.ts) as a function expression between two markers, called at once by
// dotagent.mjs with its require, URL and import(); dotagent.cjs (src/cli/boot-cjs.ts) takes it out of
// dotagent.mjs and calls it the same way (see there why a second entry).
// (`require` by that name: the bundle's require() calls of built-ins are calls of it.)
const LOADER_PARAMS = ["require", "__dotagent_url", "__dotagent_import", "__dotagent_file"];
const boot = await build({
  ...common,
  format: "cjs",
  entryPoints: ["src/cli/boot.ts"],
  write: false,
  define: { ...common.define, __dotagent_require: "require" },
  plugins: [builtinsViaRequire({ named: true })],
});
// A CommonJS entry beside each dotagent.mjs: it reads the loader out of that file, so it is small
// enough to ship in the plugin folder too. The version marker is doctor's, as below.
const bootCjs = await build({
  ...common,
  format: "cjs",
  entryPoints: ["src/cli/boot-cjs.ts"],
  write: false,
  plugins: [], // require() of a built-in as written: the file is CommonJS
  banner: { js: `#!/usr/bin/env node\n// dotagent ${pkg.version}` },
});
const cjsCode = bootCjs.outputFiles[0].text;
if (/\bimport\.meta\b|\bexports\b|\bmodule\b/.test(cjsCode) || !cjsCode.includes("import("))
  throw new Error("build: dotagent.cjs must call import() itself and use no import.meta, exports or module");
// `text` as the body of a block comment src/cli/boot.ts takes out again: each `*/` written with a
// \x01 between its two characters, which the loader drops (so the text must hold no \x01 of its
// own: a build error), and the comment cannot end early.
function commented(marker, text) {
  if (text.includes("\x01"))
    throw new Error("build: a half of the CLI holds the \\x01 character, which boot.ts escapes with");
  return `/*${marker}${text.replaceAll("*/", "*\x01/")}*/`;
}
let loaderCode = boot.outputFiles[0].text;
if (!loaderCode.includes("__DOTAGENT_HOT_KEY__"))
  throw new Error("build: src/cli/boot.ts no longer reads __DOTAGENT_HOT_KEY__");
if (
  !loaderCode.startsWith('"use strict";') ||
  /\bimport\b|\bexports\b|\bmodule\b/.test(loaderCode.replaceAll("__dotagent_import", ""))
)
  throw new Error("build: src/cli/boot.ts must not import, export or read import.meta: it runs as a function");
loaderCode = loaderCode.replaceAll("__DOTAGENT_HOT_KEY__", () => JSON.stringify(hotKey));
// Unminified (profiles), comments are kept, which may hold any character: the loader decodes UTF-8.
loaderCode = loaderCode.replaceAll("__DOTAGENT_TEXT__", () => JSON.stringify(common.minify ? "latin1" : "utf8"));
// The version marker lets `doctor` read an installed helper's version without running it.
let bootCode = [
  "#!/usr/bin/env node",
  `// dotagent ${pkg.version}`,
  // The hot half requires built-ins only: process.getBuiltinModule, not node:module's createRequire
  // (loading node:module costs every start ~4 M instructions); anything else still gets a real require.
  `/*\x01L*/(function(${LOADER_PARAMS.join(",")}){${loaderCode}\n})/*\x01E*/((id)=>process.getBuiltinModule(id)??process.getBuiltinModule("node:module").createRequire(import.meta.url)(id),import.meta.url,(s)=>import(s));\n`,
].join("\n");
// The halves after the loader, each in a comment the loader finds by its marker (\x01H, \x01C):
// the marker must be there once, never in the loader's own text (esbuild writes it escaped there).
bootCode = `${bootCode}${commented("\x01H", hotScript)}\n${commented("\x01C", coldPacked.toString("base64"))}\n`;
for (const marker of ["/*\x01L*/", "/*\x01E*/", "/*\x01H", "/*\x01C"])
  if (bootCode.split(marker).length !== 2)
    throw new Error(`build: the marker of a half or of the loader is not in dist/dotagent.mjs exactly once`);
mkdirSync("dist", { recursive: true }); // a fresh clone has none: esbuild made it when it wrote the file
writeFileSync("dist/dotagent.mjs", bootCode);
writeFileSync("dist/dotagent.cjs", cjsCode);
await build({ ...common, entryPoints: ["src/index.ts"], outfile: "dist/index.mjs", banner: { js: fileBanner } });
// The LangGraph checkpointer (`dotagent-workflow/langgraph`), a bundle of its own: LangGraph's
// packages are the user's (optional peer dependencies), so they stay imports, and neither the
// library nor the CLI carries any of it.
await build({
  ...common,
  entryPoints: ["src/langgraph/index.ts"],
  outfile: "dist/langgraph.mjs",
  banner: { js: fileBanner },
  external: [...common.external, "@langchain/*"],
});
chmodSync("dist/dotagent.mjs", 0o755);
chmodSync("dist/dotagent.cjs", 0o755);
// Node decodes the CLI's source before V8 compiles it; one character past ASCII (esbuild escapes
// them in strings, not in a regular expression) makes the whole file a two-byte string, which costs
// every start-up several milliseconds to decode and to scan. Write such a character as \uXXXX.
// (Unminified, for profiles, the file keeps comments, which may hold any character.)
const hotCode = readFileSync("dist/dotagent.mjs", "latin1");
const wide = common.minify ? hotCode.search(/[^\x00-\x7f]/) : -1;
if (wide >= 0)
  throw new Error(
    `build: dist/dotagent.mjs has a non-ASCII character near "${hotCode.slice(Math.max(0, wide - 60), wide + 20)}"; write it as a \\u escape in src/`,
  );

// The checkpoint skill carries the CLI beside it so it works without a global install.
mkdirSync("skills/checkpoint/scripts", { recursive: true });
for (const entry of ["dotagent.mjs", "dotagent.cjs"]) {
  copyFileSync(`dist/${entry}`, `skills/checkpoint/scripts/${entry}`);
  chmodSync(`skills/checkpoint/scripts/${entry}`, 0o755);
}

// The lean plugin folder (plugin/), from the same files and the helper just built.
const { buildPlugin } = await import("./build-plugin.mjs");
buildPlugin();
