#!/usr/bin/env node
// A coordinator that survives kill -9: three sub-agent jobs, two at a time, each a Claude Agent
// SDK session that writes one report. Kill it anywhere and start it again: finished jobs are
// never asked again, an interrupted job continues its own SDK session, and once all three are
// done a further start does nothing.
//
//   npm run build && node examples/agent-sdk/run.mjs [PROJECT_DIR]
//
// Needs `npm install @anthropic-ai/claude-agent-sdk` (a dev dependency of this repository) and a
// model: ANTHROPIC_API_KEY, or ANTHROPIC_BASE_URL of a compatible server. Progress goes to
// stderr, one line per step; the checkpoints live in PROJECT_DIR/.checkpoints/agent-sdk-example/.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { checkpointStore, coordinator, recoverableQuery } from "../../dist/index.mjs";

const JOBS = [
  { id: "login", input: "add login" },
  { id: "search", input: "add full-text search" },
  { id: "export", input: "add CSV export" },
];
const PARALLEL = 2;

const dir = resolve(process.argv[2] ?? ".");
const log = (line) => process.stderr.write(`${line}\n`);
// The sub-agent's instructions: the repository's product-manager agent, as Claude Code would give them.
const pmFile = fileURLToPath(new URL("../../agents/pm.md", import.meta.url));
const pmBody = readFileSync(pmFile, "utf8").replace(/^---[\s\S]*?\n---\n/, "").trim();

async function runJob(job, coord, store) {
  const prompt = `Feature request: ${job.input}\nPhase: REQUIREMENTS\nOutput file: reports/${job.id}.json`;
  const messages = recoverableQuery({
    prompt,
    store,
    key: `job-${job.id}`,
    options: {
      cwd: dir,
      systemPrompt: `${pmBody}\n\nPrimary working directory: ${dir}`,
      permissionMode: "dontAsk",
      allowedTools: ["Read", "Write"],
      settingSources: [],
    },
  });
  let step = await messages.next();
  let announced = false;
  let errors = [];
  for (; !step.done; step = await messages.next()) {
    if (step.value.type === "result") errors = step.value.errors ?? [];
    if (!announced && step.value.type === "system" && step.value.subtype === "init") {
      announced = true;
      log(`job ${job.id}: session ${step.value.session_id}`);
    }
  }
  const outcome = step.value;
  if (outcome.replayed) log(`job ${job.id}: already answered (${outcome.iterations} turns)`);
  if (outcome.subtype === "success") {
    await coord.complete(job.id, { report: `reports/${job.id}.json`, session_id: outcome.session_id, turns: outcome.iterations, resumed: outcome.resumed });
    log(`job ${job.id}: done in ${outcome.iterations} turns${outcome.resumed ? " (resumed its session)" : ""}`);
  } else {
    await coord.fail(job.id, outcome.subtype);
    log(`job ${job.id}: failed (${[outcome.subtype, ...errors.slice(0, 1)].join(": ")}); start again to continue it`);
  }
}

async function main() {
  const store = checkpointStore(join(dir, ".checkpoints"), "agent-sdk-example", { inputs: { jobs: JOBS } });
  if ((await store.status()) === "complete") {
    log("all 3 jobs were done before: nothing to do");
    return 0;
  }
  const coord = coordinator(store);
  await coord.plan(JOBS);
  const queue = await coord.pending();
  log(`${JOBS.length - queue.length} of ${JOBS.length} jobs done before; running ${queue.length}, ${PARALLEL} at a time`);
  const worker = async () => {
    for (let job = queue.shift(); job; job = queue.shift()) await runJob(job, coord, store);
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  const left = await coord.pending();
  if (left.length > 0) {
    log(`${left.length} job(s) not done: ${left.map((j) => j.id).join(", ")}`);
    return 1;
  }
  await store.complete(await coord.manifest());
  log(`all ${JOBS.length} jobs done; reports in ${join(dir, "reports")}`);
  return 0;
}

main().then(
  (code) => (process.exitCode = code),
  (error) => {
    // dotagent's errors are one line with what to do; anything else is a bug worth its stack.
    log(error?.name === "DotagentError" ? `error: ${error.message}` : (error?.stack ?? String(error)));
    process.exitCode = error?.exitCode ?? 1;
  },
);
