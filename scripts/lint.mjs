// Architecture rules the type checker cannot see (STYLE.md):
// - src/core/ is pure: no node:fs, no process.exit, no console, no clock (new Date() / Date.now());
// - only src/cli/main.ts calls process.exit;
// - heavy modules (tar, prompts, globby) are imported only where a command needs them.
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
const HEAVY = { tar: ["src/archive/"], prompts: ["src/cli/ask.ts"], globby: ["src/claude/install.ts"] };
for (const file of files) {
  const rel = relative(root, file);
  const text = readFileSync(file, "utf8");
  const lines = text.split("\n");
  lines.forEach((line, i) => {
    const where = `${rel}:${i + 1}`;
    if (rel.startsWith("src/core/")) {
      if (/from "node:fs"|require\("node:fs"\)/.test(line)) problems.push(`${where}: src/core is pure; move file access to src/store`);
      if (/\bconsole\./.test(line)) problems.push(`${where}: no console in src/core`);
      if (/new Date\(\)|Date\.now\(\)/.test(line)) problems.push(`${where}: the clock is passed in to src/core, not read`);
    }
    if (/process\.exit\(/.test(line) && rel !== "src/cli/main.ts") problems.push(`${where}: only src/cli/main.ts calls process.exit`);
    const imported = /^import .* from "([^"]+)";/.exec(line)?.[1];
    if (imported && imported in HEAVY && !HEAVY[imported].some((allowed) => rel.startsWith(allowed))) problems.push(`${where}: ${imported} is heavy; import it only in ${HEAVY[imported].join(", ")}`);
  });
}
if (problems.length > 0) {
  console.error(problems.join("\n"));
  process.exit(1);
}
console.log(`lint: ${files.length} files ok`);
