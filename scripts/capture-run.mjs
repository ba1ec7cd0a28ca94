#!/usr/bin/env node
// What a person sees of `dotagent run "add login"` on a terminal, captured for the docs: the built
// CLI with the real Agent SDK and its Claude Code, against the scripted model of the tests
// (test/claude/scripted-model, bundled here with esbuild), on a 100-column pty (util-linux
// `script`). The person approves the requirements and takes the recommended design, pressing
// Enter at each question. Writes docs/run-session.txt: the terminal as it is left at the end (the
// live line, redrawn while agents work, is erased by then; one sample of it is kept in the
// header). Then prints the figures of the checks before a run starts, measured with the same SDK:
// an API address nobody answers, and no key or login.
// Usage: npm run build && node scripts/capture-run.mjs [--out docs/run-session.txt] [--delay-ms 400]
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { screenLines } from "./terminal-screen.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const cli = join(repo, "dist/dotagent.mjs");
const option = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const OUT = join(repo, option("out", "docs/run-session.txt"));
const DELAY_MS = Number(option("delay-ms", "400"));
const ESC = "\u001b";

if (spawnSync("script", ["--version"]).status !== 0) throw new Error("needs util-linux `script` for a terminal");
const temps = [];
const temp = (prefix) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
};

// The scripted model is TypeScript: bundled once into a temp module.
const bundle = join(temp("dotagent-capture-model-"), "server.mjs");
await build({
  entryPoints: [join(repo, "test/claude/scripted-model/server.ts")],
  bundle: true,
  platform: "node",
  format: "esm",
  outfile: bundle,
  logLevel: "warning",
});
const { startScriptedModel } = await import(pathToFileURL(bundle).href);

/** The environment of test/claude/harness.ts claudeEnv: nothing of an outer Claude Code session or a real account. */
function claudeEnv(home, extra) {
  const env = {};
  for (const [key, value] of Object.entries(process.env))
    if (!/^(CLAUDE|ANTHROPIC|CLAUDECODE)/.test(key)) env[key] = value;
  return {
    ...env,
    HOME: home,
    ANTHROPIC_API_KEY: "dummy",
    CLAUDE_CODE_MAX_RETRIES: "0",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    ...extra,
  };
}

const stripAnsi = (text) => text.replace(new RegExp(`${ESC}\\[[0-9;?]*[A-Za-z]`, "g"), "");

function onTerminal(cwd, args, env, react) {
  const quoted = [process.execPath, cli, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  const child = spawn("script", ["-qefc", `stty cols 100 rows 40; ${quoted}`, "/dev/null"], {
    cwd,
    env: { ...env, TERM: "xterm" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let raw = "";
  const started = performance.now();
  child.stdout.on("data", (d) => {
    raw += d.toString();
    const keys = react(raw);
    if (keys !== undefined) child.stdin.write(keys);
  });
  return new Promise((done) => child.on("close", (code) => done({ code, raw, ms: performance.now() - started })));
}

function runPiped(cwd, args, env) {
  const started = performance.now();
  const child = spawn(process.execPath, [cli, ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d.toString()));
  return new Promise((done) =>
    child.on("close", (code) => done({ code, stderr: stderr.trim(), ms: performance.now() - started })),
  );
}

try {
  // ---- The session ----
  const project = temp("dotagent-capture-");
  const home = temp("dotagent-capture-home-");
  const model = await startScriptedModel({
    logFile: join(temp("dotagent-capture-log-"), "log.jsonl"),
    agentsDir: join(repo, "agents"),
    delayMs: (who) => (who === "side" || who === "monitor" ? 0 : DELAY_MS),
  });
  const env = claudeEnv(home, { ANTHROPIC_BASE_URL: model.url, NO_COLOR: "1" });
  const questions = [/Approve the requirements\?/, /Which design\?/];
  let answered = 0;
  const session = await onTerminal(project, ["run", "add login"], env, (raw) => {
    if (answered < questions.length && questions[answered].test(raw)) {
      answered++;
      return "\r"; // Enter: Approve; then the recommended design
    }
    return undefined;
  });
  await model.close();
  if (session.code !== 0) throw new Error(`dotagent run exited ${session.code}:\n${stripAnsi(session.raw)}`);
  const live = stripAnsi(session.raw.split(`${ESC}[2K`).find((part) => / · \d+\.\ds · (Read|Write)/.test(part)) ?? "")
    .split("\r")[0]
    .trim();
  // The terminal as it is left: redrawn lines (the live line, a question answered) in their last form.
  const lines = screenLines(session.raw).map((l) => l.replaceAll(project, "~/shop"));
  while (lines.at(-1) === "") lines.pop();
  const header = [`$ dotagent run "add login"`, ""];
  const text = [
    `# What a person sees of \`dotagent run "add login"\` on a terminal (100 columns, NO_COLOR), answering`,
    "# both gates with Enter. Captured by scripts/capture-run.mjs: the real Agent SDK and Claude Code",
    `# against the scripted model of the tests (it answers after ${DELAY_MS} ms), so the times are its times.`,
    "# While an agent works, a live line at the bottom shows who, for how long and its last move, e.g.",
    `#   ${live}`,
    "# and is erased before the next line: the scrollback below is what stays.",
    "",
    ...header,
    ...lines,
    "",
  ].join("\n");
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(OUT, text);
  console.log(`${OUT}: ${lines.length} lines; the run took ${(session.ms / 1000).toFixed(1)} s`);

  // ---- The checks before anything starts, with the same SDK ----
  const port = await new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
  const unreachable = await runPiped(
    temp("dotagent-capture-"),
    ["run", "add login", "--approve", "auto"],
    claudeEnv(temp("dotagent-capture-home-"), { ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`, NO_COLOR: "1" }),
  );
  console.log(
    `an API address nobody answers: exit ${unreachable.code} in ${(unreachable.ms / 1000).toFixed(2)} s: ${unreachable.stderr}`,
  );
  const noLoginEnv = claudeEnv(temp("dotagent-capture-home-"), {
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
    NO_COLOR: "1",
  });
  delete noLoginEnv.ANTHROPIC_API_KEY;
  const noLogin = await runPiped(temp("dotagent-capture-"), ["run", "add login", "--approve", "auto"], noLoginEnv);
  console.log(`no key and no login: exit ${noLogin.code} in ${(noLogin.ms / 1000).toFixed(2)} s: ${noLogin.stderr}`);

  // ---- Ctrl-C while an executor works (its model answers after 5 s): how long until the prompt is back ----
  const slow = await startScriptedModel({
    logFile: join(temp("dotagent-capture-log-"), "log.jsonl"),
    agentsDir: join(repo, "agents"),
    delayMs: (who) => (who === "executor" ? 5000 : 0),
  });
  let pressed = 0;
  const stopped = await onTerminal(
    temp("dotagent-capture-"),
    ["run", "add login", "--approve", "auto"],
    claudeEnv(temp("dotagent-capture-home-"), { ANTHROPIC_BASE_URL: slow.url, NO_COLOR: "1" }),
    (raw) => {
      if (pressed > 0 || !/task-001 .* · \d/.test(stripAnsi(raw))) return undefined;
      pressed = performance.now();
      return "\u0003";
    },
  );
  await slow.close();
  const said = screenLines(stopped.raw).find((l) => l.startsWith("dotagent: interrupted")) ?? "(no message)";
  console.log(
    `Ctrl-C with an executor at work: exit ${stopped.code} ${((performance.now() - pressed) / 1000).toFixed(2)} s after the key: ${said}`,
  );
} finally {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
}
