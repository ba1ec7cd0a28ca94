#!/usr/bin/env node
// What the model reads from the helper over a clean /develop workflow (issue 10, reading cost).
// Drives a 3-task workflow through the built CLI with the command lines skills/develop/SKILL.md
// shows, in the order the loop runs them, writing each agent's report in between, and counts the
// bytes of every helper output (stdout + stderr: the Bash tool gives the model both).
//
//   node scripts/measure-output.mjs                 table per call, per command, totals
//   node scripts/measure-output.mjs --json          the same as one JSON object
//   node scripts/measure-output.mjs --cli FILE      measure another build (e.g. an older one)
//   node scripts/measure-output.mjs --show          also print every output, as the model reads it
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { cli: { type: "string" }, json: { type: "boolean" }, show: { type: "boolean" } } });
const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const cli = resolve(values.cli ?? join(repo, "dist/dotagent.mjs"));
const dir = mkdtempSync(join(tmpdir(), "dotagent-measure-"));
const calls = [];

function helper(...args) {
  const run = spawnSync(process.execPath, [cli, ...args], { cwd: dir, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  const bytes = Buffer.byteLength(run.stdout) + Buffer.byteLength(run.stderr);
  calls.push({ command: args.join(" "), kind: kindOf(args), exit: run.status, bytes, stderr_bytes: Buffer.byteLength(run.stderr) });
  if (values.show) process.stderr.write(`$ dotagent ${args.join(" ")}\n${run.stdout}${run.stderr}`);
  if (run.status !== 0 && !(args[0] === "resume" && args.includes("--request"))) throw new Error(`\`dotagent ${args.join(" ")}\` exited ${run.status}: ${run.stderr}${run.stdout}`);
  return run.stdout.trim() === "" ? undefined : JSON.parse(run.stdout);
}

/** "task start", "phase complete", "resume": the command without its ids and files. */
function kindOf(args) {
  return ["phase", "task"].includes(args[0]) ? `${args[0]} ${args[1]}` : args[0];
}

function report(rel, value) {
  const file = join(dir, "memory/reports", rel);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value));
}

const request = "add login";
const tasks = [
  { id: "task-001", title: "Login form", depends_on: [] },
  { id: "task-002", title: "Session API", depends_on: ["task-001"] },
  { id: "task-003", title: "Logout", depends_on: ["task-002"] },
];

try {
  // /develop loads: its `!` command runs resume with the request.
  helper("resume", "--json", "--request", request);
  // start_workflow
  helper("init", "--json", "--request", request);
  helper("phase", "start", "REQUIREMENTS", "--json");
  report("demand.json", { summary: "sign in and out", acceptance: ["a user signs in"] });
  helper("resume", "--json"); // await_approval
  helper("phase", "approve", "REQUIREMENTS", "--json");
  helper("phase", "complete", "REQUIREMENTS", "--output", "memory/reports/demand.json", "--json");
  helper("resume", "--json"); // spawn_agent architect
  helper("phase", "start", "ARCHITECTURE", "--designs", "minimal,robust", "--json");
  report("designs/minimal.json", { name: "minimal" });
  report("designs/robust.json", { name: "robust" });
  helper("resume", "--json"); // spawn_agent roundtable
  helper("phase", "start", "ARCHITECTURE", "--json");
  report("roundtable.json", { recommend: "minimal" });
  helper("resume", "--json"); // await_approval
  report("final_design.json", { chosen: "minimal", approved_by: "user", tasks });
  helper("phase", "approve", "ARCHITECTURE", "--json");
  helper("phase", "complete", "ARCHITECTURE", "--output", "memory/reports/final_design.json", "--json");
  helper("resume", "--json"); // plan_tasks
  report("plan.json", { tasks });
  helper("task", "import", "memory/reports/plan.json", "--json");
  for (;;) {
    const plan = helper("resume", "--json");
    if (plan.next.action !== "run_tasks") break;
    for (const id of plan.next.tasks) {
      helper("task", "start", id, "--json");
      report(`tasks/${id}.json`, { task_id: id, status: "complete", summary: "done" });
      helper("task", "complete", id, "--output", `memory/reports/tasks/${id}.json`, "--json");
    }
  }
  // spawn_agent qa
  helper("phase", "start", "VERIFICATION", "--json");
  report("verification.json", { passed: true, checks: ["login works"] });
  helper("phase", "complete", "VERIFICATION", "--output", "memory/reports/verification.json", "--json");
  helper("resume", "--json"); // spawn_agent reflector
  helper("phase", "start", "REFLECTION", "--json");
  report("reflection.md", "# Reflection\n\nIt went well.\n");
  helper("phase", "complete", "REFLECTION", "--output", "memory/reports/reflection.md", "--json");
  const last = helper("resume", "--json");
  if (last.next.action !== "workflow_complete") throw new Error(`the workflow did not finish: ${JSON.stringify(last.next)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// A refused command (the model completes a gated phase before approval): what an error costs.
const refusedDir = mkdtempSync(join(tmpdir(), "dotagent-measure-"));
let refused;
try {
  spawnSync(process.execPath, [cli, "init", "--request", request], { cwd: refusedDir, env: { ...process.env, NO_COLOR: "1" } });
  mkdirSync(join(refusedDir, "memory/reports"), { recursive: true });
  writeFileSync(join(refusedDir, "memory/reports/demand.json"), JSON.stringify({ summary: "x" }));
  const run = spawnSync(process.execPath, [cli, "phase", "complete", "REQUIREMENTS", "--output", "memory/reports/demand.json", "--json"], { cwd: refusedDir, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  refused = { command: "phase complete REQUIREMENTS (not approved)", exit: run.status, bytes: Buffer.byteLength(run.stdout) + Buffer.byteLength(run.stderr), stderr_bytes: Buffer.byteLength(run.stderr) };
} finally {
  rmSync(refusedDir, { recursive: true, force: true });
}

const total = calls.reduce((sum, c) => sum + c.bytes, 0);
const largest = calls.reduce((max, c) => (c.bytes > max.bytes ? c : max), calls[0]);
const byKind = new Map();
for (const c of calls) {
  const k = byKind.get(c.kind) ?? { kind: c.kind, calls: 0, bytes: 0, largest: 0 };
  k.calls += 1;
  k.bytes += c.bytes;
  k.largest = Math.max(k.largest, c.bytes);
  byKind.set(c.kind, k);
}
const result = { cli, calls: calls.length, total_bytes: total, largest: { command: largest.command, bytes: largest.bytes }, by_command: [...byKind.values()], per_call: calls, refused };

if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
else {
  const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
  console.log(`${calls.length} helper calls, ${total} bytes (${kib(total)}); largest ${largest.bytes} B: ${largest.command}`);
  console.log("\nper command:");
  for (const k of byKind.values()) console.log(`  ${k.kind.padEnd(16)} ${String(k.calls).padStart(3)} calls ${String(k.bytes).padStart(6)} B  (largest ${k.largest} B)`);
  console.log("\nper call:");
  calls.forEach((c, i) => console.log(`  ${String(i + 1).padStart(2)}. ${String(c.bytes).padStart(5)} B  ${c.command}`));
  console.log(`\nrefused command: ${refused.bytes} B (${refused.stderr_bytes} B of it on stderr), exit ${refused.exit}: ${refused.command}`);
}
