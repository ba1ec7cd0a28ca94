// Records `resume --json --dry-run` and `status --json` of every example in examples/ with the
// CLI given (the state each example holds was written before workflow definitions existed):
//   node scripts/record-examples.mjs <dotagent.mjs> examples > test/golden/examples-before-definitions.json
// test/examples-golden.test.ts compares today's CLI with the recording made by the last dotagent
// without definitions (8da0e98): develop's workflows resume exactly as before (SPEC §20).
import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { tmpdir } from "node:os";
const [cli, examples] = process.argv.slice(2);
const out = {};
const normal = (text) =>
  JSON.parse(
    text
      .replace(/"last_activity_ago":"[^"]*"/g, '"last_activity_ago":"…"')
      .replace(/last active [^.?]*(ago)/g, "last active … ago"),
  );
for (const name of readdirSync(examples).sort()) {
  const dir = mkdtempSync(join(tmpdir(), "golden-"));
  cpSync(join(examples, name), dir, { recursive: true });
  const run = (args) => {
    const r = spawnSync(process.execPath, [cli, ...args, "--stale-after", "never"], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, CLAUDECODE: "" },
    });
    return { code: r.status, json: r.stdout.trim() ? normal(r.stdout) : null };
  };
  out[name] = { resume: run(["resume", "--json", "--dry-run"]), status: run(["status", "--json"]) };
  rmSync(dir, { recursive: true, force: true });
}
process.stdout.write(JSON.stringify(out, null, 1) + "\n");
