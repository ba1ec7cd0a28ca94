#!/usr/bin/env node
// What the built CLI's start-up costs in instructions, which the machine's load does not change:
// `valgrind --tool=callgrind` counts every instruction a process runs (its threads too). Each
// command at 20 tasks (scripts/bench-fixtures.mjs) runs against `node -e 0`, without the code cache
// (DOTAGENT_CODE_CACHE=0: the hot half parsed and compiled as on a first run) and with it warm
// (SPEC §13 "Code cache"). NODE_EXTRA_CA_CERTS is unset for every run: where an image sets it, Node
// parses that bundle at each start (~416 M instructions here), which would hide the CLI's own cost.
// Every command runs through dotagent.cjs, as the hook lines install writes and the skills' helper
// lines do (SPEC §13 "Start-up"), and once more, warm, through dotagent.mjs (an earlier install's
// lines, `bin`) for the comparison.
//
//   node scripts/startup-instructions.mjs            the table (needs valgrind: apt-get install valgrind)
//   node scripts/startup-instructions.mjs --write    also put it into docs/evidence.md's
//                                                    <!-- startup-instructions --> block
// It runs the built dist/dotagent.mjs and dist/dotagent.cjs (`npm run build` first); about a minute per command.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildFixture } from "./bench-fixtures.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CLI = join(ROOT, "dist/dotagent.mjs");
const ENTRY = join(ROOT, "dist/dotagent.cjs");
const write = process.argv.includes("--write");
if (!existsSync(CLI) || !existsSync(ENTRY)) fail("dist/dotagent.mjs or .cjs is missing: run `npm run build` first");
if (spawnSync("valgrind", ["--version"]).status !== 0)
  fail("valgrind is not installed (Debian: apt-get install valgrind)");

const work = mkdtempSync(join(tmpdir(), "dotagent-startup-ir-"));
try {
  const fixture = buildFixture(join(work, "project"), 20);
  const env = { ...process.env, DOTAGENT_STATE_HOME: join(work, "state"), NO_COLOR: "1" };
  delete env.NODE_EXTRA_CA_CERTS;
  delete env.DOTAGENT_CODE_CACHE;
  const hookInput = JSON.stringify({ source: "resume", cwd: fixture.root, session_id: "s-ir" });
  const commands = [
    { label: "`status --json`", entry: ENTRY, args: ["status", "--json"] },
    { label: "`resume --json --dry-run`", entry: ENTRY, args: ["resume", "--json", "--dry-run"] },
    { label: "`hook session-start`", entry: ENTRY, args: ["hook", "session-start"], input: hookInput },
    {
      label: "`hook pre-tool-use` (a helper line)",
      entry: ENTRY,
      args: ["hook", "pre-tool-use"],
      input: JSON.stringify({
        session_id: "s-ir",
        hook_event_name: "PreToolUse",
        tool_name: "Bash",
        tool_input: { command: `node "${ENTRY}" status --json` },
        cwd: fixture.root,
      }),
    },
    {
      label: "`hook post-tool-use` (an Agent's result)",
      entry: ENTRY,
      args: ["hook", "post-tool-use"],
      input: JSON.stringify({
        session_id: "s-ir",
        hook_event_name: "PostToolUse",
        tool_name: "Agent",
        tool_input: { subagent_type: "general-purpose", prompt: "look around" },
        tool_response: { content: [{ type: "text", text: "done" }] },
        cwd: fixture.root,
      }),
    },
  ];
  // Less V8's search for a random prime at each start (the hash seed's, `detail::sprp`): it costs
  // 5 to 18 M instructions, at random, in every process alike, and would hide changes of a few M.
  const profile = join(work, "callgrind.out");
  const count = (args, extra = {}, input = "") => {
    const run = spawnSync(
      "valgrind",
      ["--tool=callgrind", `--callgrind-out-file=${profile}`, process.execPath, ...args],
      { cwd: fixture.root, env: { ...env, ...extra }, input, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
    );
    const found = /Collected : (\d+)/.exec(run.stderr);
    if (run.status !== 0 || found === null)
      fail(`\`node ${args.join(" ")}\` under valgrind: exit ${run.status}\n${run.stderr.slice(-2000)}`);
    const annotated = spawnSync("callgrind_annotate", ["--threshold=100", profile], {
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    const prime = /^\s*([\d,]+) .*detail::sprp/m.exec(annotated.stdout ?? "");
    return Number(found[1]) - (prime === null ? 0 : Number(prime[1].replaceAll(",", "")));
  };
  const base = count(["-e", "0"]);
  const rows = [];
  for (const c of commands) {
    const entry = c.entry ?? CLI;
    const cold = count([entry, ...c.args], { DOTAGENT_CODE_CACHE: "0" }, c.input);
    count([entry, ...c.args], {}, c.input); // makes the blob
    const warm = count([entry, ...c.args], {}, c.input);
    // The same blob through dotagent.mjs (both entries share it).
    const viaMjs = c.entry === undefined ? undefined : count([CLI, ...c.args], {}, c.input);
    rows.push({ ...c, cold, warm, viaMjs });
    process.stderr.write(`${c.label}: ${cold} → ${warm}${viaMjs === undefined ? "" : ` (.mjs ${viaMjs})`}\n`);
  }
  const m = (n) => `${(n / 1e6).toFixed(0)} M`;
  const x = (n) => `${(n / base).toFixed(2)}×`;
  const table = [
    `| command, 20 tasks | no code cache | code cache warm | change | warm through dotagent.mjs |`,
    `|---|---|---|---|---|`,
    `| \`node -e 0\` | ${m(base)} (1.00×) | | | |`,
    ...rows.map(
      (r) =>
        `| ${r.label}${r.entry === undefined ? "" : ", through dotagent.cjs"} | ${m(r.cold)} (${x(r.cold)}) | ${m(r.warm)} (${x(r.warm)}) | ${(((r.warm - r.cold) / r.cold) * 100).toFixed(0)}% | ${r.viaMjs === undefined ? "" : `${m(r.viaMjs)} (${x(r.viaMjs)})`} |`,
    ),
    "",
    `Node ${process.version}, instructions counted by \`valgrind --tool=callgrind\` (\`node scripts/startup-instructions.mjs\`), less V8's random hash-seed prime search (5–18 M in any process).`,
  ].join("\n");
  process.stdout.write(`${table}\n`);
  if (write) {
    const evidence = join(ROOT, "docs/evidence.md");
    const text = readFileSync(evidence, "utf8");
    const block = /<!-- startup-instructions -->\n(?:[\s\S]*?\n)?<!-- \/startup-instructions -->/;
    if (!block.test(text)) fail("docs/evidence.md has no <!-- startup-instructions --> block");
    writeFileSync(
      evidence,
      text.replace(block, () => `<!-- startup-instructions -->\n${table}\n<!-- /startup-instructions -->`),
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

function fail(message) {
  process.stderr.write(`startup-instructions: ${message}\n`);
  process.exit(1);
}
