#!/usr/bin/env node
// The probe test/codex/NOTES.md was measured with: runs the real Codex binary offline, with an
// isolated HOME and CODEX_HOME, against a local server that logs every request and plays a short
// fixed script (a shell call, a spawn_agent of a probe agent, a wait_agent), with a hook on every
// event that logs its stdin. Prints what it captured as JSON; leaves the folder for a closer look.
//
//   node test/codex/probe.mjs [--model gpt-6.1-sol]     (default model "scripted": unknown to Codex)
//   node test/codex/probe.mjs --matchers [--bad-matcher] [--model …]   (which hook each tool call starts)
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fetchCodex } from "../../scripts/fetch-codex.mjs";

const model = process.argv.includes("--model") ? process.argv[process.argv.indexOf("--model") + 1] : "scripted";
const work = mkdtempSync(join(tmpdir(), "dotagent-codex-probe-"));
const [home, codexHome, project] = ["home", "codex-home", "project"].map((d) => join(work, d));
for (const dir of [home, codexHome, join(project, ".codex", "agents"), join(project, ".agents", "skills", "probe")])
  mkdirSync(dir, { recursive: true });
writeFileSync(
  join(project, ".agents/skills/probe/SKILL.md"),
  "---\nname: probe\ndescription: A probe skill.\n---\nPROBE-SKILL $ARGUMENTS ${CLAUDE_SKILL_DIR}\n\n```!\necho BANG-LINE\n```\n",
);
writeFileSync(
  join(project, ".codex/agents/helper.toml"),
  'name = "helper"\ndescription = "A probe agent."\ndeveloper_instructions = """\nPROBE-AGENT: answer in one line.\n"""\n',
);
const hook = join(work, "hook.mjs");
mkdirSync(join(work, "hooks"));
mkdirSync(join(work, "snapshots"));
// One file per hook run (they run in parallel), named by the time it started. At SubagentStart it
// also copies every rollout as it is on disk then (what a hook can read of the agent and its
// parent), and answers with a marked additionalContext (where it lands in the agent's context).
writeFileSync(
  hook,
  `import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
const event = process.argv[2];
const stamp = String(process.hrtime.bigint()).padStart(24, "0");
writeFileSync(${JSON.stringify(join(work, "hooks"))} + "/" + stamp + "-" + event + ".json", readFileSync(0));
if (event === "SubagentStart") {
  const files = {};
  const walk = (d) => { for (const f of readdirSync(d)) { const p = join(d, f); if (statSync(p).isDirectory()) walk(p); else files[p] = readFileSync(p, "utf8"); } };
  walk(${JSON.stringify(join(codexHome, "sessions"))});
  writeFileSync(${JSON.stringify(join(work, "snapshots"))} + "/" + stamp + "-SubagentStart.json", JSON.stringify(files, null, 1));
  process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: "SubagentStart", additionalContext: "PROBE-SUBAGENT-START-CONTEXT" } }));
}
`,
);
const events = [
  "SessionStart",
  "UserPromptSubmit",
  "PreToolUse",
  "PostToolUse",
  "SubagentStart",
  "SubagentStop",
  "Stop",
];
writeFileSync(
  join(project, ".codex/hooks.json"),
  JSON.stringify(
    {
      hooks: Object.fromEntries(
        events.map((e) => [e, [{ hooks: [{ type: "command", command: `node ${hook} ${e}`, timeout: 10 }] }]]),
      ),
    },
    null,
    1,
  ),
);

// --matchers: PreToolUse/PostToolUse hooks narrowed by `matcher` instead (each logs as
// `<Event>~<label>`): which names a matcher sees and how it matches (test/codex/NOTES.md, "Matchers").
// --bad-matcher adds one whose regex does not compile.
if (process.argv.includes("--matchers")) {
  const matchers = {
    all: undefined,
    empty: "",
    star: "*",
    plain: "wait_agent",
    glued: "multi_agent_v1wait_agent|collaborationwait_agent",
    anchored: "^wait_agent$",
    suffix: ".*wait_agent$",
    part: "wait",
    tail: "wait_agent$",
    head: "^multi_agent_v1wait",
    bash: "Bash",
    exec: "exec_command",
    spawn: "spawn_agent",
    none: "no_such_tool",
    ...(process.argv.includes("--bad-matcher") ? { bad: "wait_agent(" } : {}),
  };
  const entries = (event) =>
    Object.entries(matchers).map(([label, matcher]) => ({
      ...(matcher === undefined ? {} : { matcher }),
      hooks: [{ type: "command", command: `node ${hook} ${event}~${label}`, timeout: 10 }],
    }));
  writeFileSync(
    join(project, ".codex/hooks.json"),
    JSON.stringify({ hooks: { PreToolUse: entries("PreToolUse"), PostToolUse: entries("PostToolUse") } }, null, 1),
  );
}

const requests = [];
const text = (t) => ({ type: "message", role: "assistant", content: [{ type: "output_text", text: t }] });
const call = (name, args, namespace) => ({
  type: "function_call",
  name,
  call_id: `call_${requests.length}`,
  arguments: JSON.stringify(args),
  ...(namespace ? { namespace } : {}),
});
/** The script: by what the request holds (a sub-agent is told by its instructions). */
function answer(body) {
  const input = body.input ?? [];
  if (JSON.stringify(input).includes("PROBE-AGENT")) return [text("helper: done")];
  const calls = input.filter((i) => i.type === "function_call");
  if (calls.length === 0) return [call("exec_command", { cmd: "echo probe; env | grep ^CODEX_ | sort" })];
  if (calls.length === 1)
    return [call("spawn_agent", { agent_type: "helper", message: "say hello" }, "multi_agent_v1")];
  if (calls.length === 2)
    return [
      call(
        "wait_agent",
        {
          targets: [JSON.parse(input.findLast((i) => i.type === "function_call_output").output).agent_id],
          timeout_ms: 60000,
        },
        "multi_agent_v1",
      ),
    ];
  return [text("probe: done")];
}
/** The same moves with the tools of a model Codex knows: code mode's exec, multi-agent v2. */
function answerV2(body) {
  const input = body.input ?? [];
  if (JSON.stringify(input).includes("PROBE-AGENT")) return [text("helper: done")];
  const calls = input.filter((i) => i.type === "function_call" || i.type === "custom_tool_call");
  if (calls.length === 0)
    return [
      {
        type: "custom_tool_call",
        name: "exec",
        namespace: "functions",
        call_id: "call_exec",
        input:
          'const r = await tools.exec_command({ cmd: "echo probe" });\ntext(typeof r === "string" ? r : JSON.stringify(r));',
      },
    ];
  if (calls.length === 1)
    return [
      call(
        "spawn_agent",
        { agent_type: "helper", message: "Task: task-001\nsay hello", task_name: "probe_helper", fork_turns: "none" },
        "collaboration",
      ),
    ];
  if (calls.length === 2) return [call("wait_agent", { timeout_ms: 60000 }, "collaboration")];
  return [text("probe: done")];
}
const server = createServer((req, res) => {
  let raw = "";
  req.on("data", (c) => (raw += c));
  req.on("end", () => {
    const body = JSON.parse(raw || "{}");
    requests.push({ path: req.url, headers: req.headers, body });
    const items = model === "scripted" ? answer(body) : answerV2(body);
    res.writeHead(200, { "content-type": "text/event-stream" });
    const ev = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    const id = `resp_${requests.length}`;
    const output = items.map((item, i) => ({ id: `item_${requests.length}_${i}`, status: "completed", ...item }));
    ev("response.created", { response: { id, output: [] } });
    output.forEach((item, i) => ev("response.output_item.done", { output_index: i, item }));
    ev("response.completed", {
      response: {
        id,
        output,
        usage: {
          input_tokens: 1,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 1,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 2,
        },
      },
    });
    res.end();
  });
});
await new Promise((done) => server.listen(0, "127.0.0.1", done));
const url = `http://127.0.0.1:${server.address().port}/v1`;
writeFileSync(
  join(codexHome, "config.toml"),
  `model = ${JSON.stringify(model)}\nmodel_provider = "probe"\n[model_providers.probe]\nname = "probe"\nbase_url = "${url}"\nenv_key = "PROBE_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\nstream_max_retries = 0\n[projects.${JSON.stringify(project)}]\ntrust_level = "trusted"\n`,
);
const run = await new Promise((done) => {
  // spawnSync would block the server this process runs: the binary runs asynchronously.
  import("node:child_process").then(({ spawn }) => {
    const child = spawn(
      fetchCodex(),
      [
        "exec",
        "--dangerously-bypass-approvals-and-sandbox",
        "--dangerously-bypass-hook-trust",
        "--skip-git-repo-check",
        "$probe hello",
      ],
      {
        cwd: project,
        env: { PATH: process.env.PATH, HOME: home, CODEX_HOME: codexHome, PROBE_KEY: "dummy" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("close", (status) => done({ status, stdout: out, stderr: err }));
  });
});
server.close();
const summary = {
  work,
  exit: run.status,
  requests: requests.map((r) => ({
    path: r.path,
    keys: Object.keys(r.body),
    tools: [...(r.body.tools ?? []), ...(r.body.input ?? []).flatMap((i) => i.tools ?? [])].map((t) =>
      t.tools ? `${t.name}{${t.tools.map((s) => s.name).join(",")}}` : (t.name ?? t.type),
    ),
    input: (r.body.input ?? []).map(
      (i) =>
        `${i.type}${i.role ? `:${i.role}` : ""}${i.name ? `:${i.name}` : ""} ${JSON.stringify(i.content?.[0]?.text ?? i.output ?? i.arguments ?? i.input ?? "").slice(0, 300)}`,
    ),
  })),
  hooks: readdirSync(join(work, "hooks"))
    .sort()
    .map((f) => ({
      event: f.replace(/^\d+-|\.json$/g, ""),
      input: JSON.parse(readFileSync(join(work, "hooks", f), "utf8")),
    })),
};
writeFileSync(join(work, "probe.json"), JSON.stringify(summary, null, 1));
appendFileSync(join(work, "stderr.txt"), run.stderr);
process.stdout.write(`${JSON.stringify(summary, null, 1)}\n`);
