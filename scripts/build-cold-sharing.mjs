// The cold half of the CLI takes the modules it shares with the hot half from the hot half at run
// time instead of carrying a copy of its own (scripts/build.mjs; issues 41/45).
//
// Bundled alone, src/cli/cold.ts would hold again much of src/core, src/store, src/ops and zod,
// which the hot half has already loaded: ~375 of its ~770 kB. So the build finds which modules of
// the cold bundle the hot bundle holds too (both builds' metafiles), and, in the cold build,
// replaces each such module by a stub that re-exports, by name, what the hot half hands over:
//
//   hot half: src/cli/cold-shared.ts, written here as `import { a, b } from "<module>"` for each
//             shared module and `coldShared()` returning their values (one object per module);
//             load-cold.ts imports it lazily and passes `coldShared()` to the cold half.
//   cold half: each shared module's source becomes `const m = __dotagent_shared[i];
//             const v0 = m["a"], v1 = m["b"]; export { v0 as a, v1 as b };`
//             (__dotagent_shared: a parameter of the cold script).
//
// So both halves run one instance of each shared module (module-level state such as a cache is
// not duplicated, a class is one class). The names are those the cold modules import (parsed from
// their sources), and a module is shared only when the hot half keeps all of them already
// (sharedModules), so the hot half grows only by the list itself. A name that a shared module does
// not export is a build error (esbuild: "No matching export"), never an undefined at run time. A
// module stays in the cold bundle (a copy) when sharing it could change what it means: CommonJS,
// reached by require(), or exporting a `let`/`var` whose value may change (a copy of a binding
// would not follow it).
import { build } from "esbuild";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { createRequire } from "node:module";

// Through require(): an ES import of typescript.js (9 MB of CommonJS) has Node parse it twice more
// to tell its format and its export names, ~0.5 s of CPU per build (issue 41).
const ts = createRequire(import.meta.url)("typescript");

/** metafile input keys that are files (not "namespace:path" of a plugin's virtual module). */
const isFile = (key) => !/^[\w-]+:(?![\\/])/.test(key) || /^[a-z]:[\\/]/i.test(key);

/**
 * What the cold bundle takes from the hot one: `[{ key, path, names }]` in a fixed order, `names`
 * sorted (empty: a module the cold half reaches only for its side effects or through a re-export
 * of nothing it uses). `hotMeta` and `coldMeta` are the metafiles of the two halves built without
 * sharing, `hotText` the hot half so built unminified; `entry` the cold entry's metafile key;
 * `exportsOf` gives a module's export names.
 *
 * A module is shared only when every name the cold half takes from it is code the hot half keeps
 * already (found in `hotText`); else the cold half keeps its own copy of that module, as before,
 * and the modules that copy imports are decided the same way. So sharing never makes the hot half,
 * which every command compiles, carry code that only the cold half runs (zod's toJSONSchema, the
 * installer's settings edits…). Through a copied module that re-exports (zod/mini's index), a
 * module is asked only for the names that pass through.
 */
export async function sharedModules({ hotMeta, hotText, coldMeta, entry, exportsOf }) {
  const hot = new Set(Object.keys(hotMeta.inputs).filter(isFile));
  const inputs = coldMeta.inputs;
  const required = new Set();
  for (const input of Object.values(inputs))
    for (const edge of input.imports)
      if (edge.kind !== "import-statement" && edge.kind !== "dynamic-import") required.add(edge.path);
  const shareable = (key) =>
    hot.has(key) && inputs[key]?.format !== "cjs" && !required.has(key) && !hasMutableExport(key);
  const alive = aliveIn(hotText, { ...hotMeta.inputs, ...inputs });

  const copied = new Set([entry]); // modules of the hot half's that the cold half keeps a copy of
  let asked = new Map(); // key -> the names the cold half asks of it (the previous round's)
  const bare = new Set(); // imported for its side effects (`import "…"`)
  for (;;) {
    const now = new Map();
    const ask = (key, names) => {
      const set = now.get(key) ?? new Set();
      for (const n of names) set.add(n);
      now.set(key, set);
    };
    bare.clear();
    const seen = new Set([entry]);
    const queue = [entry];
    while (queue.length > 0) {
      const key = queue.shift();
      const edges = inputs[key].imports.filter((e) => !e.external && isFile(e.path));
      // What passes through a copy of a hot module: only what it is asked.
      const through = hot.has(key) && key !== entry ? (asked.get(key) ?? new Set()) : undefined;
      const named = edges.some((e) => hot.has(e.path)) ? importedNames(key) : undefined;
      for (const edge of edges) {
        if (hot.has(edge.path)) {
          const found = named.get(edge.original);
          if (found === undefined)
            throw new Error(`build: cannot tell what ${key} imports from "${edge.original}" (${edge.path})`);
          const wholly = found.names.has("*") || found.star || found.namespaceAs.length > 0;
          const all = wholly ? await exportsOf(edge.path) : [];
          ask(edge.path, found.names.has("*") ? all : found.names);
          if (found.bare) bare.add(edge.path);
          if (found.star) ask(edge.path, through === undefined ? all : all.filter((n) => through.has(n)));
          for (const as of found.namespaceAs) if (through === undefined || through.has(as)) ask(edge.path, all);
        }
        if ((!shareable(edge.path) || copied.has(edge.path)) && !seen.has(edge.path)) {
          seen.add(edge.path);
          queue.push(edge.path);
        }
      }
    }
    let changed = [...now].some(([key, names]) => names.size !== (asked.get(key)?.size ?? 0));
    for (const [key, names] of now)
      if (shareable(key) && !copied.has(key) && ![...names].every((n) => alive(key, n))) {
        copied.add(key);
        changed = true;
      }
    asked = now;
    if (!changed) break;
  }
  return [...asked.keys()]
    .filter((key) => shareable(key) && !copied.has(key))
    .sort()
    .map((key) => ({ key, path: resolve(key), names: [...asked.get(key)].sort(), bare: bare.has(key) }));
}

/**
 * (key, name) -> whether the hot half, built unminified as `hotText`, keeps the code of `key`'s
 * export `name`: its declaration is in the part of the text esbuild headed `// key`, or it is a
 * re-export of such a name. An unsure answer is "no" (the cold half then keeps a copy, as before).
 */
function aliveIn(hotText, inputs) {
  const parts = new Map();
  // esbuild heads each module's code with `// <its metafile key>` (other such lines are comments).
  const heads = [...hotText.matchAll(/^\/\/ (\S.*)$/gm)].filter((m) => m[1] in inputs);
  heads.forEach((m, i) => parts.set(m[1], hotText.slice(m.index, heads[i + 1]?.index ?? hotText.length)));
  const target = (key, specifier) => inputs[key]?.imports.find((e) => e.original === specifier && !e.external)?.path;
  const declared = (key, local) =>
    new RegExp(
      `(?:\\b(?:function\\*?|class|let|const)\\s+|^var [^=;\\n]*\\b)${local.replace(/\$/g, "\\$")}\\d*\\b`,
      "m",
    ).test(parts.get(key) ?? "");
  const memo = new Map();
  const alive = (key, name) => {
    const id = `${key}\0${name}`;
    if (!memo.has(id)) {
      memo.set(id, false); // a cycle of re-exports is not an answer
      memo.set(id, name !== "default" && (declared(key, name) || reexported(key, name)));
    }
    return memo.get(id);
  };
  const reexported = (key, name) => {
    for (const s of parse(key).statements) {
      if (!ts.isExportDeclaration(s) || s.isTypeOnly) continue;
      const from = s.moduleSpecifier && target(key, s.moduleSpecifier.text);
      const clause = s.exportClause;
      if (clause !== undefined && ts.isNamedExports(clause)) {
        for (const e of clause.elements) {
          if (e.name.text !== name) continue;
          const local = (e.propertyName ?? e.name).text;
          if (s.moduleSpecifier) return from !== undefined && alive(from, local);
          const imported = importOf(key, local);
          if (imported === undefined) return declared(key, local); // `function _enum…; export { _enum as enum }`
          const at = target(key, imported.from);
          return at !== undefined && imported.name !== "*" && alive(at, imported.name);
        }
      } else if (clause === undefined && from !== undefined && starNames(from, target).has(name))
        return alive(from, name);
    }
    return false;
  };
  return alive;
}

/** The names `key` exports, read from its source and its `export *`s (`target` resolves a specifier). */
function starNames(key, target, seen = new Set()) {
  const names = new Set();
  if (seen.has(key)) return names;
  seen.add(key);
  for (const s of parse(key).statements) {
    if (ts.isExportDeclaration(s) && !s.isTypeOnly) {
      const clause = s.exportClause;
      if (clause === undefined) {
        const from = target(key, s.moduleSpecifier.text);
        if (from !== undefined) for (const n of starNames(from, target, seen)) if (n !== "default") names.add(n);
      } else if (ts.isNamespaceExport(clause)) names.add(clause.name.text);
      else for (const e of clause.elements) if (!e.isTypeOnly) names.add(e.name.text);
    } else if (s.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
      if (ts.isVariableStatement(s)) {
        for (const d of s.declarationList.declarations) if (ts.isIdentifier(d.name)) names.add(d.name.text);
      } else if (s.name !== undefined && !ts.isInterfaceDeclaration(s) && !ts.isTypeAliasDeclaration(s))
        names.add(s.name.text);
    }
  }
  return names;
}

/** The module and name a local binding of `key` was imported as, if it was. */
function importOf(key, local) {
  for (const s of parse(key).statements) {
    const bindings = ts.isImportDeclaration(s) ? s.importClause?.namedBindings : undefined;
    if (bindings === undefined) continue;
    if (ts.isNamespaceImport(bindings) && bindings.name.text === local)
      return { from: s.moduleSpecifier.text, name: "*" };
    if (ts.isNamedImports(bindings))
      for (const e of bindings.elements)
        if (e.name.text === local) return { from: s.moduleSpecifier.text, name: (e.propertyName ?? e.name).text };
  }
  return undefined;
}

/**
 * specifier -> what `key` takes from it: `names` it imports or re-exports by name ("*": all of
 * them; esbuild wants a re-exported name to exist even when nothing uses it); `star` when it
 * re-exports all (`export * from`); `namespaceAs`, the names under which it re-exports the whole
 * module (`export * as core from`, `import * as z` … `export { z }`).
 */
function importedNames(key) {
  const file = parse(key);
  const taken = new Map();
  const entry = (specifier) => {
    let found = taken.get(specifier);
    if (found === undefined) taken.set(specifier, (found = { names: new Set(), star: false, namespaceAs: [] }));
    return found;
  };
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly) {
      const found = entry(node.moduleSpecifier.text);
      const clause = node.importClause;
      if (clause === undefined) found.bare = true;
      if (clause?.name) found.names.add("default");
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) {
        const used = membersUsed(file, bindings.name);
        for (const name of used.names) found.names.add(name);
        found.namespaceAs.push(...used.exportedAs);
      } else if (bindings)
        for (const e of bindings.elements) if (!e.isTypeOnly) found.names.add((e.propertyName ?? e.name).text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && !node.isTypeOnly) {
      const found = entry(node.moduleSpecifier.text);
      const clause = node.exportClause;
      if (clause === undefined) found.star = true;
      else if (ts.isNamespaceExport(clause)) found.namespaceAs.push(clause.name.text);
      else for (const e of clause.elements) if (!e.isTypeOnly) found.names.add((e.propertyName ?? e.name).text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteralLike(node.arguments[0])
    )
      entry(node.arguments[0].text).names.add("*");
    ts.forEachChild(node, visit);
  };
  visit(file);
  return taken;
}

/**
 * The names read from a namespace import (`import * as z` … `z.object(…)`), as esbuild keeps only
 * those ("*" when the namespace itself is used as a value), and the names it is re-exported as
 * (`export { z }`). Type positions (`z.infer<…>`) need none.
 */
function membersUsed(file, binding) {
  const names = new Set();
  const exportedAs = [];
  const visit = (node) => {
    if (ts.isIdentifier(node) && node !== binding && node.text === binding.text) {
      const parent = node.parent;
      if (ts.isPropertyAccessExpression(parent) && parent.expression === node) names.add(parent.name.text);
      else if (ts.isExportSpecifier(parent) && !parent.parent.parent.moduleSpecifier) exportedAs.push(parent.name.text);
      else if (!(ts.isQualifiedName(parent) && parent.left === node)) names.add("*");
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return { names, exportedAs };
}

/** Whether `key` exports a `let` or `var` (which a copy in the cold half would not follow). */
function hasMutableExport(key) {
  const statements = parse(key).statements;
  const mutable = new Set();
  for (const s of statements)
    if (
      ts.isVariableStatement(s) &&
      (s.declarationList.flags & (ts.NodeFlags.Let | ts.NodeFlags.Const)) !== ts.NodeFlags.Const
    ) {
      if (s.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) return true;
      for (const d of s.declarationList.declarations) if (ts.isIdentifier(d.name)) mutable.add(d.name.text);
    }
  return statements.some(
    (s) =>
      ts.isExportDeclaration(s) &&
      s.moduleSpecifier === undefined &&
      s.exportClause !== undefined &&
      ts.isNamedExports(s.exportClause) &&
      s.exportClause.elements.some((e) => mutable.has((e.propertyName ?? e.name).text)),
  );
}

const parsed = new Map();
function parse(key) {
  let file = parsed.get(key);
  if (file === undefined) {
    const kind = /\.[mc]?tsx?$/.test(key) ? ts.ScriptKind.TS : ts.ScriptKind.JS;
    file = ts.createSourceFile(key, readFileSync(key, "utf8"), ts.ScriptTarget.Latest, true, kind);
    parsed.set(key, file);
  }
  return file;
}

/** A module's export names, as esbuild sees them (so `export *` chains are followed). */
export function exportsVia(options) {
  const cache = new Map();
  const exportsOf = (key) => {
    if (!cache.has(key))
      cache.set(
        key,
        build({ ...options, entryPoints: [key], write: false, metafile: true, minify: false }).then(
          (r) => Object.values(r.metafile.outputs)[0].exports,
        ),
      );
    return cache.get(key);
  };
  return exportsOf;
}

/** The cold build's plugin: each shared module's source becomes a stub over the hot half's values. */
export function coldStubs(shared) {
  const index = new Map(shared.map((m, i) => [m.path, i]));
  return {
    name: "cold-shared-stubs",
    setup(b) {
      b.onLoad({ filter: /.*/ }, (args) => {
        const i = index.get(args.path);
        if (i === undefined) return undefined;
        const { names } = shared[i];
        // By index, so a name that is a keyword (zod's `catch`) or `default` needs no care.
        const values = names.map((name, j) => `v${j} = m[${JSON.stringify(name)}]`);
        const exported = names.map((name, j) => `v${j} as ${name}`);
        const contents = `const m = __dotagent_shared[${i}];\n${values.length > 0 ? `const ${values.join(", ")};\n` : ""}export { ${exported.join(", ")} };`;
        return { contents, loader: "js" };
      });
    },
  };
}

/** The hot build's plugin: src/cli/cold-shared.ts becomes the values the cold half takes. */
export function hotRegistry(shared, registryPath) {
  // A module the cold half takes nothing from (reached through a re-export of names it does not
  // use) needs no import, unless the cold half imports it for its side effects.
  const lines = shared.map((m, i) =>
    m.names.length > 0
      ? `import { ${m.names.map((n, j) => `${n} as m${i}_${j}`).join(", ")} } from ${JSON.stringify(m.path)};`
      : m.bare
        ? `import ${JSON.stringify(m.path)};`
        : "",
  );
  const values = shared.map((m, i) => `{ ${m.names.map((n, j) => `${JSON.stringify(n)}: m${i}_${j}`).join(", ")} }`);
  lines.push(`export function coldShared() { return [${values.join(", ")}]; }`);
  return {
    name: "cold-shared-registry",
    setup(b) {
      b.onLoad({ filter: /cold-shared\.ts$/ }, (args) =>
        resolve(args.path) === registryPath ? { contents: lines.join("\n"), loader: "js" } : undefined,
      );
    },
  };
}
