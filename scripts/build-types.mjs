// Declarations of the library entry (dist/types/), usable without any package installed.
//
// The package has no run-time dependencies: the bundles carry what they use. The state types
// (PhaseState, ExecutionState, Task, …) are `z.infer<…>` of the zod schemas that parse the
// files, so tsc's declarations name zod's types, which a consumer does not have. Instead of
// shipping zod's ~90 declaration files, the declarations that name zod are rewritten: each
// exported type is written out in full (the JSON shape the schema accepts, with its doc comments)
// and the schemas themselves, which the API never exposes, are left out. A consumer's `tsc` then
// resolves every type from this package alone (test/package.test.ts checks it), and the build
// fails if a declaration the API reaches still names zod.
//
//   node scripts/build-types.mjs [--no-check]
//
// --no-check: the declarations without type-checking the sources they come from (as tsc's
// noCheck), for those who check them otherwise: test/package.test.ts, which runs after `npm run
// typecheck` in CI and `npm run check`. The same declarations (a union may list its members in
// another order), at about half the CPU.
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { createRequire } from "node:module";

// Through require(): an ES import of typescript.js (9 MB of CommonJS) has Node parse it twice more
// to tell its format and its export names, ~1 s of CPU.
const ts = createRequire(import.meta.url)("typescript");

const root = resolve(dirname(new URL(import.meta.url).pathname), "..");
const out = join(root, "dist", "types");
rmSync(out, { recursive: true, force: true });
// One program for tsc's declarations and for writing the state types out (below).
const config = ts.getParsedCommandLineOfConfigFile(
  join(root, "tsconfig.build.json"),
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    },
  },
);
// The Claude Agent SDK's types (4 MB of declarations: its own, the Anthropic API's, MCP's; ~300
// files, 40% of what the program would parse) are read only for the library's dynamic import() of
// the SDK, whose result it casts to a type of its own. No declaration of the package names them (a
// consumer's tsc with nothing else installed, test/package.test.ts, fails on one that does), and
// `npm run typecheck` checks that code against them. Here a one-line stand-in is read instead:
// the same declarations, ~1 s less CPU (issue 41).
const host = ts.createCompilerHost(config.options);
const SDK_TYPES = join("node_modules", "@anthropic-ai", "claude-agent-sdk", "sdk.d.ts");
const getSourceFile = host.getSourceFile.bind(host);
host.getSourceFile = (file, version, ...rest) =>
  file.endsWith(SDK_TYPES)
    ? ts.createSourceFile(file, "export declare const query: unknown;\n", version)
    : getSourceFile(file, version, ...rest);
const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, host });
const checker = program.getTypeChecker();

// Only the declarations index.d.ts (and langgraph/index.d.ts) reach are written: a consumer's tsc
// reads no others, and the modules the public API never names (the archive code, which names
// node-tar's types; the CLI's operations) are neither emitted nor checked here. Emitting a file's
// declarations type-checks that file in full, so its errors are reported below at no extra cost;
// the whole of src/ is type-checked by `npm run typecheck` (tsconfig.json: these options, less the
// emit). Checking and emitting the 150-odd modules the library's code reaches, for ~60 kept,
// cost a third more CPU (issue 41). With --no-check (above), a file's declarations are emitted
// without checking it first: the checker then answers only what the declarations ask.
const check = !process.argv.includes("--no-check");
const diagnostics = [...program.getConfigFileParsingDiagnostics(), ...program.getOptionsDiagnostics()];
const reached = new Set();
/** The declaration file of a module of src/ (src/a/b.ts → dist/types/a/b.d.ts). */
const declarationOf = (source) => join(out, relative(join(root, "src"), source)).replace(/\.ts$/, ".d.ts");
function reach(source) {
  const file = declarationOf(source);
  if (reached.has(file)) return;
  reached.add(file);
  const sourceFile = program.getSourceFile(source);
  diagnostics.push(
    ...program.getSyntacticDiagnostics(sourceFile),
    ...(check ? program.getSemanticDiagnostics(sourceFile) : []),
    // emitOnlyDtsFiles, and forceDtsEmit when not checking (TypeScript's emit skips its check then).
    ...program.emit(sourceFile, undefined, undefined, true, undefined, !check).diagnostics,
  );
  if (!existsSync(file)) return; // not emitted: its errors are in diagnostics
  for (const match of readFileSync(file, "utf8").matchAll(/from\s+["'](\.[^"']+)["']|import\(["'](\.[^"']+)["']\)/g)) {
    const base = resolve(dirname(source), (match[1] ?? match[2]).replace(/\.js$/, ""));
    const target = [`${base}.ts`, join(base, "index.ts")].find(
      (f) => program.getSourceFile(f)?.isDeclarationFile === false,
    );
    if (target !== undefined) reach(target);
  }
}
reach(join(root, "src", "index.ts"));
// dotagent-workflow/langgraph's declarations: a LangGraph checkpointer's types extend LangGraph's,
// so these (and only these) import @langchain/* packages, the optional peers its users install.
const library = new Set(reached);
reach(join(root, "src", "langgraph", "index.ts"));
diagnostics.push(...program.getGlobalDiagnostics());
if (diagnostics.length > 0) {
  process.stderr.write(
    ts.formatDiagnostics(diagnostics, {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => root,
      getNewLine: () => "\n",
    }),
  );
  process.exit(1);
}
const peerImports = (file) => !library.has(file);
const pruned = program.getSourceFiles().filter((f) => !f.isDeclarationFile).length - reached.size;

// --- the declarations that name zod, written out without it -------------------------------

/** A type as plain TypeScript: the JSON shapes the schemas describe, nothing that needs zod. */
function print(type, indent) {
  const F = ts.TypeFlags;
  if (type.flags & F.String) return "string";
  if (type.flags & F.Number) return "number";
  if (type.flags & F.Boolean) return "boolean";
  if (type.flags & F.Null) return "null";
  if (type.flags & F.Undefined) return "undefined";
  if (type.flags & F.Unknown) return "unknown";
  if (type.flags & F.Never) return "never";
  if (type.flags & F.StringLiteral) return JSON.stringify(type.value);
  if (type.flags & F.NumberLiteral) return String(type.value);
  if (type.flags & F.BooleanLiteral) return type.intrinsicName;
  if (type.flags & F.Union) {
    let members = type.types;
    const hasTrue = members.some((t) => t.flags & F.BooleanLiteral && t.intrinsicName === "true");
    const hasFalse = members.some((t) => t.flags & F.BooleanLiteral && t.intrinsicName === "false");
    const parts = [];
    if (hasTrue && hasFalse) {
      members = members.filter((t) => !(t.flags & F.BooleanLiteral));
      parts.push("boolean");
    }
    parts.unshift(...members.map((t) => print(t, indent)));
    // Written as a person would: the value first, then null, then undefined.
    const rank = (p) => (p === "undefined" ? 2 : p === "null" ? 1 : 0);
    return parts
      .sort((a, b) => rank(a) - rank(b))
      .map((p) => (p.includes("=>") ? `(${p})` : p))
      .join(" | ");
  }
  if (checker.isArrayType(type)) {
    const element = print(checker.getTypeArguments(type)[0], indent);
    return /^[\w"]+$/.test(element) ? `${element}[]` : `Array<${element}>`;
  }
  if (type.flags & (F.Object | F.Intersection)) {
    if (type.getCallSignatures().length > 0 || type.getConstructSignatures().length > 0)
      throw new Error(`build-types: a function type in a state type (${checker.typeToString(type)})`);
    const inner = `${indent}  `;
    const lines = [];
    for (const info of checker.getIndexInfosOfType(type))
      lines.push(`${inner}[key: ${print(info.keyType, inner)}]: ${print(info.type, inner)};`);
    for (const prop of checker.getPropertiesOfType(type)) {
      const doc = ts.displayPartsToString(prop.getDocumentationComment(checker));
      if (doc) lines.push(`${inner}/** ${doc.replace(/\s*\n\s*/g, " ")} */`);
      const optional = (prop.flags & ts.SymbolFlags.Optional) !== 0;
      lines.push(`${inner}${prop.name}${optional ? "?" : ""}: ${print(checker.getTypeOfSymbol(prop), inner)};`);
    }
    return lines.length === 0 ? "{}" : `{\n${lines.join("\n")}\n${indent}}`;
  }
  throw new Error(`build-types: cannot write out the type ${checker.typeToString(type)}`);
}

/** An exported type alias of a source file, written out in full. */
function expandAlias(sourcePath, name) {
  const source = program.getSourceFile(sourcePath);
  if (source === undefined) throw new Error(`build-types: ${sourcePath} is not part of the library`);
  const statement = source.statements.find((s) => ts.isTypeAliasDeclaration(s) && s.name.text === name);
  if (statement === undefined) return undefined;
  try {
    return print(checker.getDeclaredTypeOfSymbol(checker.getSymbolAtLocation(statement.name)), "");
  } catch (error) {
    throw new Error(`${relative(root, sourcePath)}: type ${name}: ${error.message}`);
  }
}

const ZOD_IMPORT = /^import \* as z from ["']zod\/mini["'];$/;
const namesZod = (file) => /["']zod\/mini["']/.test(readFileSync(file, "utf8"));
const targetOf = (file, spec) => resolve(dirname(file), spec.replace(/\.js$/, ".d.ts"));
// Files that import another file to rewrite come after it, so its left-out names are known.
const order = [];
const visit = (file) => {
  if (order.includes(file)) return;
  for (const m of readFileSync(file, "utf8").matchAll(/from ["'](\.[^"']+)["']/g)) {
    const target = targetOf(file, m[1]);
    if (target !== file && reached.has(target) && namesZod(target)) visit(target);
  }
  order.push(file);
};
for (const file of reached) if (namesZod(file)) visit(file);

let rewritten = 0;
const dropped = new Map(); // declaration file → names left out
for (const file of order) {
  const text = readFileSync(file, "utf8");
  const sourcePath = join(root, "src", relative(out, file)).replace(/\.d\.ts$/, ".ts");
  const declaration = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const gone = [];
  const kept = [];
  for (const statement of declaration.statements) {
    const full = statement.getFullText(declaration);
    const own = statement.getText(declaration);
    if (ts.isImportDeclaration(statement) && ZOD_IMPORT.test(own)) continue;
    const expanded =
      ts.isTypeAliasDeclaration(statement) && /\bz\./.test(own)
        ? expandAlias(sourcePath, statement.name.text)
        : undefined;
    if (expanded !== undefined) {
      const comment = full.slice(0, full.length - own.length);
      kept.push({ statement, text: `${comment}export type ${statement.name.text} = ${expanded};` });
    } else if (!/\bz\./.test(own)) {
      kept.push({ statement, text: full });
    } else if (ts.isVariableStatement(statement)) {
      // A schema, or a helper that takes one: the API never hands these out.
      gone.push(...statement.declarationList.declarations.map((d) => d.name.getText(declaration)));
    } else if (ts.isFunctionDeclaration(statement) && statement.name) {
      gone.push(statement.name.text);
    } else {
      throw new Error(
        `build-types: ${file} names zod in a declaration this script cannot leave out: ${own.slice(0, 120)}`,
      );
    }
  }
  // Imports and re-exports of names left out (here or in the file they come from) go too.
  const importedGone = new Set();
  const specifiersOf = (node) =>
    node.elements.map((e) => ({
      name: (e.propertyName ?? e.name).text,
      local: e.name.text,
      text: e.getText(declaration),
    }));
  const body = kept
    .map((k) =>
      ts.isImportDeclaration(k.statement) || (ts.isExportDeclaration(k.statement) && k.statement.moduleSpecifier)
        ? ""
        : k.text,
    )
    .join("\n");
  const lines = [];
  for (const { statement, text: full } of kept) {
    const from =
      statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)
        ? statement.moduleSpecifier.text
        : null;
    const goneThere = from?.startsWith(".") ? (dropped.get(targetOf(file, from)) ?? []) : [];
    if (
      ts.isImportDeclaration(statement) &&
      statement.importClause?.namedBindings &&
      ts.isNamedImports(statement.importClause.namedBindings)
    ) {
      const specs = specifiersOf(statement.importClause.namedBindings);
      for (const s of specs) if (goneThere.includes(s.name)) importedGone.add(s.local);
      const used = specs.filter((s) => !goneThere.includes(s.name) && new RegExp(`\\b${s.local}\\b`).test(body));
      if (used.length > 0) lines.push(`import { ${used.map((s) => s.text).join(", ")} } from ${JSON.stringify(from)};`);
    } else if (
      ts.isExportDeclaration(statement) &&
      statement.exportClause &&
      ts.isNamedExports(statement.exportClause)
    ) {
      const specs = specifiersOf(statement.exportClause);
      const keep = specs.filter((s) => !(from === null ? importedGone.has(s.name) : goneThere.includes(s.name)));
      gone.push(...specs.filter((s) => !keep.includes(s)).map((s) => s.local));
      const typeOnly = statement.isTypeOnly ? "type " : "";
      if (keep.length > 0)
        lines.push(
          `export ${typeOnly}{ ${keep.map((s) => s.text).join(", ")} }${from === null ? "" : ` from ${JSON.stringify(from)}`};`,
        );
    } else {
      lines.push(full.replace(/^\n+/, ""));
    }
  }
  const next = `${lines.join("\n").trim()}\n`;
  if (/zod|\bz\./.test(next.replace(/\/\*\*[\s\S]*?\*\//g, "")))
    throw new Error(`build-types: ${file} still names zod`);
  writeFileSync(file, next);
  dropped.set(file, gone);
  rewritten++;
}

// No declaration the API reaches may import a name that was left out.
for (const file of reached) {
  const text = readFileSync(file, "utf8");
  for (const match of text.matchAll(/import(?: type)? \{([^}]*)\} from ["'](\.[^"']+)["']/g)) {
    const target = resolve(dirname(file), match[2].replace(/\.js$/, ".d.ts"));
    const gone = dropped.get(target) ?? [];
    for (const name of match[1].split(",").map(
      (n) =>
        n
          .trim()
          .replace(/^type\s+/, "")
          .split(/\s+as\s+/)[0],
    )) {
      if (gone.includes(name))
        throw new Error(`build-types: ${file} imports ${name} from ${match[2]}, which names zod and was left out`);
    }
  }
  for (const bare of text.matchAll(/from\s+["']([^."'][^"']*)["']/g)) {
    if (bare[1].startsWith("node:") || (peerImports(file) && bare[1].startsWith("@langchain/"))) continue;
    throw new Error(`build-types: ${file} still imports the package ${bare[1]}`);
  }
}
console.log(
  `dist/types: ${reached.size} declaration files (${pruned} the API does not reach left out), ${rewritten} rewritten without zod's types (${[...dropped.values()].flat().length} schema declarations left out)`,
);
