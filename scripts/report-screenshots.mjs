// Screenshots of `dotagent report` in headless Chromium (SPEC §10 "report"; docs/evidence.md):
// drives two workflows through the built CLI in temp folders — one to the end with a rework round,
// one cut off mid-IMPLEMENTATION (a task owner killed, resume repairing it) — writes each one's
// HTML page and photographs it. Real time passes between the steps (a few seconds), so the
// durations on the timeline are measured, not typed. Not part of `npm test`: Chromium is not on CI.
//   npm run build && node scripts/report-screenshots.mjs [chromium binary]
// writes docs/report-finished.png, docs/report-interrupted.png (and prints the pages' paths).
import { spawnSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..");
const CLI = join(REPO, "dist", "dotagent.mjs");
const browser =
  process.argv[2] ??
  ["chromium", "chromium-browser", "google-chrome"].find((b) => spawnSync("which", [b]).status === 0);
if (!existsSync(CLI)) throw new Error("dist/dotagent.mjs is missing: npm run build first");
if (browser === undefined) throw new Error("no Chromium found: apt-get install -y chromium, or give its path");

const pause = (seconds) => spawnSync("sleep", [String(seconds)]);
function dotagent(dir, ...args) {
  const r = spawnSync(process.execPath, [CLI, ...args, "--dir", dir], {
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", CLAUDECODE: "" },
  });
  if (r.status !== 0) throw new Error(`dotagent ${args.join(" ")}: exit ${r.status}\n${r.stderr}`);
  return r.stdout;
}
function write(dir, rel, value) {
  mkdirSync(dirname(join(dir, rel)), { recursive: true });
  writeFileSync(join(dir, rel), typeof value === "string" ? value : JSON.stringify(value, null, 2));
}

const TASKS = [
  { id: "task-001", title: "users.password_hash column" },
  { id: "task-002", title: "Session store" },
  { id: "task-003", title: "POST /login route", depends_on: ["task-001", "task-002"] },
  { id: "task-004", title: "Rate limiter", depends_on: ["task-003"] },
  { id: "task-005", title: "Login form", depends_on: ["task-003"] },
];

const IDENT = ["-c", "user.name=demo", "-c", "user.email=demo@example.com"];
function git(cwd, ...args) {
  const r = spawnSync("git", [...IDENT, ...args], { cwd, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout.trim();
}

/** A git project (so each task gets its worktree and lands as a merge commit, SPEC §19), REQUIREMENTS and ARCHITECTURE with their gates, then the plan recorded. */
function planned(dir) {
  write(dir, "README.md", "# app\n");
  git(dir, "init", "-q", "-b", "main");
  git(dir, "add", "-A");
  git(dir, "commit", "-qm", "initial");
  dotagent(dir, "init", "--request", "add login with email and password");
  pause(2);
  write(dir, "memory/reports/demand.json", {
    request: "add login",
    summary: "Users sign in with email and password and stay signed in for 30 days.",
  });
  pause(1);
  dotagent(dir, "phase", "approve", "REQUIREMENTS");
  pause(2);
  write(dir, "memory/reports/designs/minimal.json", { name: "minimal", summary: "signed cookie" });
  pause(1);
  write(dir, "memory/reports/designs/robust.json", { name: "robust", summary: "session table" });
  pause(1);
  write(dir, "memory/reports/roundtable.json", { recommendation: "minimal" });
  write(dir, "memory/reports/final_design.json", { chosen: "minimal", tasks: TASKS });
  pause(2);
  dotagent(dir, "phase", "approve", "ARCHITECTURE");
  // The approval records final_design.json's tasks as round 0's plan by itself.
}

/** What an executor does: a file in its task's worktree, committed there; its report in the main checkout. */
function work(dir, id, started) {
  const tree = JSON.parse(started).task?.worktree?.dir;
  if (tree !== undefined) {
    write(tree, `src/${id}.txt`, `${id}\n`);
    git(tree, "add", "-A");
    git(tree, "commit", "-qm", id);
  }
}

function land(dir, id) {
  work(dir, id, dotagent(dir, "task", "start", id, "--json"));
  pause(1);
  write(dir, `memory/reports/tasks/${id}.json`, { task_id: id, status: "complete", summary: `done: ${id}` });
  dotagent(dir, "task", "complete", id);
}

function finished(dir) {
  planned(dir);
  for (const id of ["task-001", "task-002", "task-003", "task-004", "task-005"]) land(dir, id);
  pause(2);
  write(dir, "memory/reports/verification.json", {
    passed: false,
    failures: [{ criterion: "AC-4", problem: "cookie not HttpOnly" }],
  });
  dotagent(dir, "phase", "rework");
  write(dir, "memory/reports/plan.rework-1.json", { tasks: [{ id: "rework-1-1", title: "HttpOnly session cookie" }] });
  dotagent(dir, "task", "import", "memory/reports/plan.rework-1.json");
  land(dir, "rework-1-1");
  dotagent(dir, "resume");
  pause(2);
  write(dir, "memory/reports/verification.json", { passed: true, failures: [] });
  dotagent(dir, "phase", "complete");
  pause(1);
  write(dir, "memory/reports/reflection.json", { summary: "Login shipped in 6 tasks and one rework round." });
  dotagent(dir, "phase", "complete");
}

function interrupted(dir) {
  planned(dir);
  land(dir, "task-001");
  // task-002's executor is a process that dies (the machine went to sleep, the terminal closed).
  const doomed = spawn("sleep", ["30"]);
  dotagent(dir, "task", "start", "task-002", "--owner", String(doomed.pid));
  pause(2);
  doomed.kill("SIGKILL");
  pause(1);
  dotagent(dir, "resume", "--stale-after", "never");
  pause(1);
  dotagent(dir, "task", "start", "task-002");
  pause(1);
  dotagent(dir, "task", "fail", "task-002", "--error", "npm test: session store test timed out");
  pause(1);
  dotagent(dir, "resume", "--stale-after", "never");
  dotagent(dir, "task", "start", "task-002");
}

const outputs = [];
for (const [name, drive] of [
  ["finished", finished],
  ["interrupted", interrupted],
]) {
  const dir = mkdtempSync(join(tmpdir(), `dotagent-report-${name}-`));
  drive(dir);
  const page = join(dir, "report.html");
  const began = process.hrtime.bigint();
  const written = JSON.parse(dotagent(dir, "report", "--out", page, "--json"));
  const ms = Number(process.hrtime.bigint() - began) / 1e6;
  const png = join(REPO, "docs", `report-${name}.png`);
  const shot = spawnSync(
    browser,
    [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--hide-scrollbars",
      "--window-size=1100,1700",
      `--screenshot=${png}`,
      `file://${page}`,
    ],
    { encoding: "utf8" },
  );
  if (shot.status !== 0 || !existsSync(png)) throw new Error(`${browser} failed (exit ${shot.status}): ${shot.stderr}`);
  outputs.push({ name, page, png, written, ms });
}
for (const o of outputs) {
  console.log(`${o.name}: ${o.page} -> ${o.png}`);
  console.log(
    `  ${o.written.bytes} bytes, ${o.written.tasks} tasks, ${o.written.interruptions} interruption or repair events, cost recorded: ${o.written.cost_recorded}; \`dotagent report\` took ${o.ms.toFixed(0)} ms (the process included)`,
  );
}
