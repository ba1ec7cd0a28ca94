#!/usr/bin/env node
// Runs `dotagent resume` on the interrupted workflows in examples/, the way a user would after
// `claude -r`. Each example is copied to a temp folder first (the repository stays untouched) and
// its timestamps are moved so the last activity was an hour ago (so it is not stale today).
//
//   node scripts/try-example.mjs                  every example
//   node scripts/try-example.mjs orphaned-tasks   one
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, statSync } from "node:fs";
import { join, dirname } from "node:path";
import { tmpdir } from "node:os";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const cli = join(repo, "dist", "dotagent.mjs");
const examples = join(repo, "examples");
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

function walkFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walkFiles(path) : [path];
  });
}

function mapTimes(value, fn) {
  if (typeof value === "string" && ISO.test(value)) return fn(value);
  if (Array.isArray(value)) return value.map((v) => mapTimes(v, fn));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapTimes(v, fn)]));
  return value;
}

/** Shifts every timestamp in the state files by the same amount: the latest becomes an hour ago. */
function freshen(dir) {
  const files = walkFiles(join(dir, "memory", "state")).filter((f) => f.endsWith(".json"));
  const parsed = [];
  let latest = 0;
  for (const file of files) {
    try {
      const value = JSON.parse(readFileSync(file, "utf8"));
      mapTimes(value, (t) => ((latest = Math.max(latest, Date.parse(t))), t));
      parsed.push([file, value]);
    } catch {
      // a corrupt example stays exactly as it is
    }
  }
  const shift = Date.now() - 3600_000 - latest;
  for (const [file, value] of parsed)
    writeFileSync(
      file,
      `${JSON.stringify(
        mapTimes(value, (t) => new Date(Date.parse(t) + shift).toISOString().replace(/\.000Z$/, "Z")),
        null,
        1,
      )}\n`,
    );
}

function run(dir, args) {
  const result = spawnSync(process.execPath, [cli, ...args, "--dir", dir], {
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: process.env.NO_COLOR ?? "" },
  });
  process.stdout.write(result.stdout);
  process.stdout.write(result.stderr);
  return result.status;
}

const wanted = process.argv.slice(2);
const names =
  wanted.length > 0
    ? wanted
    : readdirSync(examples)
        .filter((n) => statSync(join(examples, n)).isDirectory() && existsSync(join(examples, n, "memory")))
        .sort(); // agent-sdk/ is a program, not a workflow
for (const name of names) {
  const work = mkdtempSync(join(tmpdir(), `dotagent-${name}-`));
  try {
    cpSync(join(examples, name), work, { recursive: true });
    freshen(work);
    console.log(`\n━━ examples/${name} ━━ (a copy in ${work})`);
    console.log("$ dotagent resume");
    const code = run(work, ["resume"]);
    console.log(`(exit ${code})`);
    if (code === 0) {
      console.log("$ dotagent resume      # again: same next action, nothing left to repair");
      run(work, ["resume"]);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
