#!/usr/bin/env node
// `npm run demo`: dotagent's best screen without an account. It runs `dotagent run "add login"`
// through the real Claude Agent SDK and Claude Code against the scripted model the tests use
// (test/claude/scripted-model/, a local server that answers like a model following /develop), in
// a new git project that is kept, and ends with `dotagent tasks`. Offline: the model is local, and
// Claude Code is the one the SDK brings (its platform package, a devDependency). On a terminal the
// gates are the person's, as in real use (approve the requirements, pick a design); without one
// (CI, a pipe) they are approved for them (`--approve auto`). Every command it prints runs as
// printed from the checkout, where `dotagent` is `node dist/dotagent.mjs`.
//
//   npm run demo                 (builds first)
//   node scripts/demo.mjs        with a build already there
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const cli = join(repo, "dist", "dotagent.mjs");
const say = (line) => process.stderr.write(`${line}\n`);

// The scripted model is TypeScript (the tests'): bundled here with esbuild, a devDependency.
const { build } = await import("esbuild");
const work = mkdtempSync(join(tmpdir(), "dotagent-demo-model-"));
await build({
  entryPoints: [join(repo, "test", "claude", "scripted-model", "server.ts")],
  bundle: true,
  platform: "node",
  format: "esm",
  outfile: join(work, "server.mjs"),
  logLevel: "error",
});
const { startScriptedModel } = await import(pathToFileURL(join(work, "server.mjs")).href);
// Its executors change code (a file each), so each task lands as a merge commit you can look at.
const model = await startScriptedModel({
  logFile: join(work, "model.jsonl"),
  agentsDir: join(repo, "agents"),
  policyOptions: { executorWrites: "own" },
});

// A new git project, kept for you to look at.
const project = mkdtempSync(join(tmpdir(), "dotagent-demo-"));
const home = join(project, ".demo-home");
mkdirSync(home);
const git = (...args) =>
  spawnSync("git", ["-c", "user.name=demo", "-c", "user.email=demo@example.invalid", ...args], { cwd: project });
writeFileSync(join(project, "README.md"), "# demo app\n");
writeFileSync(join(project, ".gitignore"), ".demo-home/\n");
git("init", "-q");
git("add", "-A");
git("commit", "-qm", "a demo app");

const env = {};
for (const [key, value] of Object.entries(process.env))
  if (!/^(CLAUDE|ANTHROPIC|CLAUDECODE)/.test(key)) env[key] = value;
Object.assign(env, {
  HOME: home,
  ANTHROPIC_API_KEY: "demo",
  ANTHROPIC_BASE_URL: model.url,
  CLAUDE_CODE_MAX_RETRIES: "0",
  DISABLE_AUTOUPDATER: "1",
  DISABLE_TELEMETRY: "1",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
});

// The person at a terminal answers the gates; anything else gets them approved.
const person = process.stdin.isTTY === true && process.stderr.isTTY === true;
const approve = person ? "ask" : "auto";
const dotagent = `node ${cli}`;
const started = Date.now();
say(`A new git project: ${project}`);
say(`The model: a scripted one on ${model.url} (no account, no network).`);
say(
  person
    ? "The two gates are yours: read the requirements and approve them, then pick a design.\n"
    : "No terminal: the gates are approved for you (--approve auto).\n",
);
say(`$ dotagent run "add login" --approve ${approve}\n`);
const code = await new Promise((resolve) => {
  const child = spawn(process.execPath, [cli, "run", "add login", "--approve", approve], {
    cwd: project,
    env,
    stdio: [person ? "inherit" : "ignore", "inherit", "inherit"],
  });
  child.on("close", (c) => resolve(c ?? 1));
});
await model.close();
rmSync(work, { recursive: true, force: true });
say(`\n$ dotagent tasks`);
spawnSync(process.execPath, [cli, "tasks"], { cwd: project, stdio: "inherit" });
say(
  `\nThe demo took ${Math.round((Date.now() - started) / 1000)} s. From this checkout dotagent is \`${dotagent}\`; look around:`,
);
say(`  cd ${project} && ${dotagent} status && ${dotagent} log && git log --oneline`);
process.exit(code);
