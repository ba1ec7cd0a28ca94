// Architecture rules the type checker cannot see (STYLE.md):
// - src/core/ is pure: no node:fs, no process.exit, no console, no clock (new Date() / Date.now());
// - only src/cli/main.ts calls process.exit;
// - heavy modules (tar, prompts, globby) are imported only where a command needs them;
// - layers import downwards only: src/ops (the operations) never imports src/cli (argv, printing,
//   prompts); src/api (the library) builds on src/ops, src/store, src/core, src/schema and never
//   on src/cli or src/claude; src/core, src/schema and src/store never import src/ops or src/api;
//   src/clients (every client's adapter) and src/claude (what Claude Code's adapter wraps) never
//   import src/cli or src/api;
// - the clients are a closed class behind one adapter (src/clients/adapter.ts, the registry in
//   src/clients/index.ts): no file outside src/clients/ compares a client's id to a literal
//   (`=== "codex"`, `case "copilot":`); it reads the client's adapter instead;
// - src/langgraph/ (its own bundle, dist/langgraph.mjs) is the only code that imports LangGraph's
//   packages, and nothing else imports it: the library and the CLI stay free of them.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const files = [];
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (path.endsWith(".ts") && !path.endsWith(".test.ts") && !path.includes("test-support")) files.push(path);
  }
};
walk(join(root, "src"));

const problems = [];
/** Folder of src/ → the folders its modules must not import from (static or dynamic import). */
const FORBIDDEN_LAYERS = {
  "src/ops/": ["src/cli/", "src/api/", "src/claude/"],
  "src/api/": ["src/cli/", "src/claude/"],
  "src/core/": ["src/ops/", "src/api/", "src/cli/", "src/store/"],
  "src/schema/": ["src/ops/", "src/api/", "src/cli/"],
  "src/store/": ["src/ops/", "src/api/", "src/cli/"],
  "src/langgraph/": ["src/cli/", "src/claude/", "src/ops/", "src/run/"],
  // The clients are adapters under the CLI (install, doctor, hook input and output, skill text):
  // the commands that run them live in src/cli/commands.
  "src/clients/": ["src/cli/", "src/api/"],
  "src/claude/": ["src/cli/", "src/api/"],
};
/** A client's id compared to a literal: `=== "codex"`, `"claude" !==`, `case "copilot":`. */
const CLIENT_ID_TEST =
  /[!=]==?\s*"(?:claude|copilot|codex)"|"(?:claude|copilot|codex)"\s*[!=]==?|\bcase\s+"(?:claude|copilot|codex)"\s*:/;
const HEAVY = { tar: ["src/archive/"], prompts: ["src/cli/ask.ts"], globby: ["src/install/plan-files.ts"] };
for (const file of files) {
  const rel = relative(root, file);
  const text = readFileSync(file, "utf8");
  const lines = text.split("\n");
  lines.forEach((line, i) => {
    const where = `${rel}:${i + 1}`;
    if (rel.startsWith("src/core/")) {
      if (/from "node:fs"|require\("node:fs"\)/.test(line))
        problems.push(`${where}: src/core is pure; move file access to src/store`);
      if (/\bconsole\./.test(line)) problems.push(`${where}: no console in src/core`);
      if (/new Date\(\)|Date\.now\(\)/.test(line))
        problems.push(`${where}: the clock is passed in to src/core, not read`);
    }
    if (CLIENT_ID_TEST.test(line) && !rel.startsWith("src/clients/"))
      problems.push(
        `${where}: a client's id compared to a literal outside src/clients/; read its adapter (src/clients/index.ts) instead`,
      );
    if (/process\.exit\(/.test(line) && rel !== "src/cli/main.ts")
      problems.push(`${where}: only src/cli/main.ts calls process.exit`);
    for (const match of line.matchAll(/(?:from |import\()"(\.[^"]+)"/g)) {
      const target = relative(root, join(file, "..", match[1]));
      const layer = Object.keys(FORBIDDEN_LAYERS).find((l) => rel.startsWith(l));
      const bad = layer && FORBIDDEN_LAYERS[layer].find((f) => target.startsWith(f));
      if (bad)
        problems.push(
          `${where}: ${layer} must not import ${bad} (${target}); see the layer rules at the top of scripts/lint.mjs`,
        );
      if (target.startsWith("src/langgraph/") && !rel.startsWith("src/langgraph/"))
        problems.push(
          `${where}: only src/langgraph/ imports src/langgraph/ (its own bundle); the library and the CLI must not carry it`,
        );
    }
    if (/(?:from |import\()"@langchain\//.test(line) && !rel.startsWith("src/langgraph/"))
      problems.push(
        `${where}: LangGraph's packages are optional peer dependencies; import them in src/langgraph/ only`,
      );
    const imported = /^import .* from "([^"]+)";/.exec(line)?.[1];
    if (imported && imported in HEAVY && !HEAVY[imported].some((allowed) => rel.startsWith(allowed)))
      problems.push(`${where}: ${imported} is heavy; import it only in ${HEAVY[imported].join(", ")}`);
  });
}
if (problems.length > 0) {
  console.error(problems.join("\n"));
  process.exit(1);
}
console.log(`lint: ${files.length} files ok`);
