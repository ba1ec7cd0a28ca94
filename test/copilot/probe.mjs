#!/usr/bin/env node
// Which repository hook a tool call starts in the real Copilot CLI binary, by `matcher`
// (test/copilot/NOTES.md, "Matchers"): runs it offline (print mode, an isolated HOME) against a
// local Messages-API server playing a short fixed script (a bash call, a sync `task` of a probe
// agent, a `create` that fails), with `.github/hooks/probe.json` holding, for preToolUse,
// postToolUse and postToolUseFailure, one logging hook per matcher. Prints, per event and tool,
// the matchers whose hook ran; leaves the folder for a closer look.
//
//   node test/copilot/probe.mjs [--bad-matcher]     (adds a matcher whose regex does not compile)
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const binary = spawnSync(
  process.execPath,
  [fileURLToPath(new URL("../../scripts/fetch-copilot.mjs", import.meta.url))],
  {
    encoding: "utf8",
  },
).stdout.trim();
const work = mkdtempSync(join(tmpdir(), "dotagent-copilot-probe-"));
const [home, project, logs] = ["home", "project", "hooks"].map((d) => join(work, d));
for (const dir of [home, logs, join(project, ".github", "hooks"), join(project, ".github", "agents")])
  mkdirSync(dir, { recursive: true });
writeFileSync(
  join(project, ".github/agents/helper.agent.md"),
  "---\nname: helper\ndescription: A probe agent.\ntools: [Read]\n---\nPROBE-AGENT: answer in one line.\n",
);
const hook = join(work, "hook.mjs");
writeFileSync(
  hook,
  `import { readFileSync, writeFileSync } from "node:fs";
const stamp = String(process.hrtime.bigint()).padStart(24, "0");
writeFileSync(${JSON.stringify(logs)} + "/" + stamp + "-" + process.argv[2] + ".json", readFileSync(0));
`,
);
const matchers = {
  all: undefined,
  empty: "",
  star: "*",
  task: "task",
  Agent: "Agent",
  anchored: "^task$",
  part: "tas",
  tail: "ask$",
  either: "task|bash",
  bash: "bash",
  Bash: "Bash",
  none: "no_such_tool",
  ...(process.argv.includes("--bad-matcher") ? { bad: "task(" } : {}),
};
const events = ["preToolUse", "postToolUse", "postToolUseFailure"];
writeFileSync(
  join(project, ".github/hooks/probe.json"),
  JSON.stringify(
    {
      version: 1,
      hooks: Object.fromEntries(
        events.map((event) => [
          event,
          Object.entries(matchers).map(([label, matcher]) => ({
            type: "command",
            bash: `node ${hook} ${event}~${label}`,
            ...(matcher === undefined ? {} : { matcher }),
            timeoutSec: 10,
          })),
        ]),
      ),
    },
    null,
    1,
  ),
);

/** The script: by how many tool calls the conversation holds (the agent knows itself by its prompt). */
function answer(body) {
  if (JSON.stringify(body.system ?? "").includes("PROBE-AGENT")) return [{ type: "text", text: "helper: done" }];
  const calls = (body.messages ?? []).flatMap((m) =>
    Array.isArray(m.content) ? m.content.filter((b) => b.type === "tool_use") : [],
  );
  const use = (name, input) => ({ type: "tool_use", id: `toolu_${calls.length}`, name, input });
  if (calls.length === 0) return [use("bash", { command: "echo probe", description: "probe" })];
  if (calls.length === 1)
    return [
      use("task", { name: "helper", description: "probe", agent_type: "helper", prompt: "say hello", mode: "sync" }),
    ];
  if (calls.length === 2) return [use("create", { path: join(project, "missing/dir/file.txt"), file_text: "x" })];
  return [{ type: "text", text: "probe: done" }];
}
const server = createServer((req, res) => {
  let raw = "";
  req.on("data", (c) => (raw += c));
  req.on("end", () => {
    const body = JSON.parse(raw || "{}");
    const blocks = answer(body);
    res.writeHead(200, { "content-type": "text/event-stream" });
    const event = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    event("message_start", {
      message: {
        id: "msg_probe",
        type: "message",
        role: "assistant",
        model: body.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    });
    blocks.forEach((block, index) => {
      if (block.type === "text") {
        event("content_block_start", { index, content_block: { type: "text", text: "" } });
        event("content_block_delta", { index, delta: { type: "text_delta", text: block.text } });
      } else {
        event("content_block_start", {
          index,
          content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
        });
        event("content_block_delta", {
          index,
          delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
        });
      }
      event("content_block_stop", { index });
    });
    const stop = blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
    event("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 1 } });
    event("message_stop", {});
    res.end();
  });
});
await new Promise((done) => server.listen(0, "127.0.0.1", done));
const env = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !/^(COPILOT|GH_|GITHUB|CLAUDE|ANTHROPIC)/.test(k)),
);
const run = await new Promise((done) => {
  const child = spawn(binary, ["-p", "probe", "--allow-all-tools", "--output-format", "json"], {
    cwd: project,
    env: {
      ...env,
      HOME: home,
      COPILOT_PROVIDER_BASE_URL: `http://127.0.0.1:${server.address().port}`,
      COPILOT_PROVIDER_TYPE: "anthropic",
      COPILOT_PROVIDER_API_KEY: "x",
      COPILOT_MODEL: "claude-sonnet-4.5",
      COPILOT_OFFLINE: "true",
      COPILOT_AUTO_UPDATE: "false",
      COPILOT_ALLOW_ALL: "true",
      NO_COLOR: "1",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  child.on("close", (status) => done({ status, stdout: out, stderr: err }));
});
server.close();
writeFileSync(join(work, "stdout.txt"), run.stdout);
writeFileSync(join(work, "stderr.txt"), run.stderr);
const ran = {};
for (const file of readdirSync(logs).sort()) {
  const [event, label] = file.replace(/^\d+-|\.json$/g, "").split("~");
  const input = JSON.parse(readFileSync(join(logs, file), "utf8"));
  const key = `${event} ${input.toolName}${input.agentId ? " (sub-agent)" : ""}`;
  (ran[key] ??= []).push(label);
}
for (const labels of Object.values(ran)) labels.sort();
process.stdout.write(`${JSON.stringify({ work, exit: run.status, ran }, null, 1)}\n`);
