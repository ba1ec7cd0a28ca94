// What the model reads from dotagent over a clean /develop workflow (issues 10 and 22, reading
// cost). Drives a 3-task workflow through the built CLI the way it now runs in Claude Code (print
// mode): the /develop expansion's `resume --start`, and for each agent the hooks Claude Code calls
// (PreToolUse on the Agent call, SubagentStop, PostToolUse), the person's two approvals; reports
// written in between. Counts the bytes the model reads: a helper call's stdout + stderr (the Bash
// tool gives it both) and a hook's additionalContext; the hooks' other answers go to Claude Code.
//
//   node scripts/measure-output.mjs                 table per call, per command, totals
//   node scripts/measure-output.mjs --json          the same as one JSON object
//   node scripts/measure-output.mjs --cli FILE      measure another build (e.g. an older one)
//   node scripts/measure-output.mjs --show          also print every output, as the model reads it
//   node scripts/measure-output.mjs --write         put the per-command table into docs/evidence.md
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    cli: { type: "string" },
    json: { type: "boolean" },
    show: { type: "boolean" },
    write: { type: "boolean" },
  },
});
const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const cli = resolve(values.cli ?? join(repo, "dist/dotagent.mjs"));
const dir = mkdtempSync(join(tmpdir(), "dotagent-measure-"));
const calls = [];
// The hooks run as Claude Code runs them: this process is the "session" that owns what they start.
const hookEnv = {
  ...process.env,
  NO_COLOR: "1",
  CLAUDE_PID: String(process.pid),
  CLAUDE_CODE_SESSION_ID: "measure",
  CLAUDE_PROJECT_DIR: dir,
};

function helper(...args) {
  const run = spawnSync(process.execPath, [cli, ...args], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
  const bytes = Buffer.byteLength(run.stdout) + Buffer.byteLength(run.stderr);
  calls.push({
    command: args.join(" "),
    kind: kindOf(args),
    exit: run.status,
    bytes,
    stderr_bytes: Buffer.byteLength(run.stderr),
  });
  if (values.show) process.stderr.write(`$ dotagent ${args.join(" ")}\n${run.stdout}${run.stderr}`);
  if (run.status !== 0)
    throw new Error(`\`dotagent ${args.join(" ")}\` exited ${run.status}: ${run.stderr}${run.stdout}`);
  return run.stdout.trim() === "" ? undefined : JSON.parse(run.stdout);
}

/** A hook as Claude Code runs it; what the model reads of it is its additionalContext, if any. */
function hook(event, input) {
  const run = spawnSync(process.execPath, [cli, "hook", event], {
    cwd: dir,
    encoding: "utf8",
    env: hookEnv,
    input: JSON.stringify({ session_id: "measure", cwd: dir, ...input }),
  });
  if (run.status !== 0 || run.stderr !== "") throw new Error(`hook ${event} exited ${run.status}: ${run.stderr}`);
  const out = run.stdout.trim() === "" ? {} : JSON.parse(run.stdout);
  const context = out.hookSpecificOutput?.additionalContext;
  if (typeof context === "string") {
    calls.push({
      command: `hook ${event}`,
      kind: `hook ${event}`,
      exit: 0,
      bytes: Buffer.byteLength(context),
      stderr_bytes: 0,
    });
    if (values.show) process.stderr.write(`[hook ${event}]\n${context}\n`);
  }
  return out;
}

/** One agent as Claude Code runs it in the foreground: the spawn, its report, its end. */
let agents = 0;
function agent(type, lines, report, value) {
  const prompt = ["Feature request: add login", ...lines].join("\n");
  const start = hook("pre-tool-use", {
    hook_event_name: "PreToolUse",
    tool_name: "Agent",
    tool_input: { subagent_type: type, prompt },
  });
  if (start.hookSpecificOutput?.permissionDecision !== "allow")
    throw new Error(`the ${type} spawn was refused: ${JSON.stringify(start)}`);
  write(report, value);
  const transcript = join(dir, ".transcripts", `agent-${++agents}.jsonl`);
  mkdirSync(dirname(transcript), { recursive: true });
  writeFileSync(transcript, `${JSON.stringify({ type: "user", message: { role: "user", content: prompt } })}\n`);
  hook("subagent-stop", {
    hook_event_name: "SubagentStop",
    agent_id: `a${agents}`,
    agent_type: type,
    agent_transcript_path: transcript,
  });
  return hook("post-tool-use", {
    hook_event_name: "PostToolUse",
    tool_name: "Agent",
    tool_input: { subagent_type: type, prompt },
    tool_response: { status: "completed" },
  });
}

/** "task start", "phase complete", "resume": the command without its ids and files. */
function kindOf(args) {
  return ["phase", "task"].includes(args[0]) ? `${args[0]} ${args[1]}` : args[0];
}

function write(rel, value) {
  const file = join(dir, rel);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value));
}

const request = "add login";
const tasks = [
  { id: "task-001", title: "Login form", depends_on: [] },
  { id: "task-002", title: "Session API", depends_on: ["task-001"] },
  { id: "task-003", title: "Logout", depends_on: ["task-002"] },
];
const nextOf = (out) => JSON.parse(out.hookSpecificOutput.additionalContext.split("dotagent next: ")[1]).next;

try {
  // /develop loads: its `!` command starts the workflow for the request.
  helper("resume", "--json", "--start", "--request", request);
  agent("pm", ["Phase: REQUIREMENTS", "Output file: memory/reports/demand.json"], "memory/reports/demand.json", {
    summary: "sign in and out",
    acceptance: ["a user signs in"],
  });
  // The person approves.
  const approved = helper("phase", "approve", "REQUIREMENTS", "--json");
  for (const name of approved.next.designs)
    agent(
      "architect",
      ["Phase: ARCHITECTURE", `Design name: ${name}`, "Angle: x", `Output file: memory/reports/designs/${name}.json`],
      `memory/reports/designs/${name}.json`,
      { name },
    );
  agent(
    "roundtable",
    ["Phase: ARCHITECTURE", "Output file: memory/reports/roundtable.json"],
    "memory/reports/roundtable.json",
    { recommendation: "minimal" },
  );
  // The person picks: the model writes final_design.json, then approves.
  write("memory/reports/final_design.json", { chosen: "minimal", approved_by: "user", tasks });
  let next = helper("phase", "approve", "ARCHITECTURE", "--json").next;
  while (next.action === "run_tasks") {
    for (const id of next.tasks) {
      const out = agent(
        "executor",
        ["Phase: IMPLEMENTATION", `Task: ${id}`, "Title: x", `Output file: memory/reports/tasks/${id}.json`],
        `memory/reports/tasks/${id}.json`,
        { task_id: id, status: "complete", summary: "done" },
      );
      next = nextOf(out);
    }
  }
  next = nextOf(
    agent(
      "qa",
      ["Phase: VERIFICATION", "Output file: memory/reports/verification.json"],
      "memory/reports/verification.json",
      { passed: true, checks: ["login works"] },
    ),
  );
  next = nextOf(
    agent(
      "reflector",
      ["Phase: REFLECTION", "Output file: memory/reports/reflection.md"],
      "memory/reports/reflection.md",
      "# Reflection\n\nIt went well.\n",
    ),
  );
  if (next.action !== "workflow_complete") throw new Error(`the workflow did not finish: ${JSON.stringify(next)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// A refused command (the model completes a gated phase before approval): what an error costs.
const refusedDir = mkdtempSync(join(tmpdir(), "dotagent-measure-"));
let refused;
try {
  spawnSync(process.execPath, [cli, "init", "--request", request], {
    cwd: refusedDir,
    env: { ...process.env, NO_COLOR: "1" },
  });
  mkdirSync(join(refusedDir, "memory/reports"), { recursive: true });
  writeFileSync(join(refusedDir, "memory/reports/demand.json"), JSON.stringify({ summary: "x" }));
  const run = spawnSync(
    process.execPath,
    [cli, "phase", "complete", "REQUIREMENTS", "--output", "memory/reports/demand.json", "--json"],
    { cwd: refusedDir, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } },
  );
  refused = {
    command: "phase complete REQUIREMENTS (not approved)",
    exit: run.status,
    bytes: Buffer.byteLength(run.stdout) + Buffer.byteLength(run.stderr),
    stderr_bytes: Buffer.byteLength(run.stderr),
  };
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
const result = {
  cli,
  calls: calls.length,
  total_bytes: total,
  largest: { command: largest.command, bytes: largest.bytes },
  by_command: [...byKind.values()],
  per_call: calls,
  refused,
};

if (values.write) {
  const table = [
    "| what the model reads | outputs | bytes | largest |",
    "|---|---|---|---|",
    ...[...byKind.values()].map(
      (k) => `| \`${k.kind}\` | ${k.calls} | ${k.bytes.toLocaleString("en")} B | ${k.largest} B |`,
    ),
    `| **total** | **${calls.length}** | **${total.toLocaleString("en")} B** | |`,
    "",
    `A refused command (\`${refused.command}\`) costs ${refused.bytes} B, exit ${refused.exit}, ${refused.stderr_bytes} B of it on stderr.`,
  ].join("\n");
  const file = join(repo, "docs/evidence.md");
  const text = readFileSync(file, "utf8");
  const [open, close] = ["<!-- measure-output -->", "<!-- /measure-output -->"];
  const a = text.indexOf(open);
  const b = text.indexOf(close);
  if (a === -1 || b === -1) throw new Error(`docs/evidence.md has no ${open} block`);
  writeFileSync(file, `${text.slice(0, a + open.length)}\n${table}\n${text.slice(b)}`);
} else if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
else {
  const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
  console.log(
    `${calls.length} outputs, ${total} bytes (${kib(total)}); largest ${largest.bytes} B: ${largest.command}`,
  );
  console.log("\nper command:");
  for (const k of byKind.values())
    console.log(
      `  ${k.kind.padEnd(16)} ${String(k.calls).padStart(3)} calls ${String(k.bytes).padStart(6)} B  (largest ${k.largest} B)`,
    );
  console.log("\nper call:");
  calls.forEach((c, i) =>
    console.log(`  ${String(i + 1).padStart(2)}. ${String(c.bytes).padStart(5)} B  ${c.command}`),
  );
  console.log(
    `\nrefused command: ${refused.bytes} B (${refused.stderr_bytes} B of it on stderr), exit ${refused.exit}: ${refused.command}`,
  );
}
