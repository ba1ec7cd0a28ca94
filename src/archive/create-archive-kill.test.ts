// kill -9 during createArchive: a child process archives a big state and is killed at points
// spread over a measured full run. Whatever moment the kill lands on, every `*.tar.gz` left in
// .archive/ must list without error and restore to the original bytes, and pruneArchives must
// sweep the temp files the dead archivers left.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";
import { afterEach, beforeEach, expect, test } from "vitest";
import { listArchives } from "./list-archives.js";
import { pruneArchives } from "./prune-archives.js";
import { restoreArchive } from "./restore-archive.js";
import {
  makeSandbox,
  sampleExecution,
  samplePhase,
  snapshotTree,
  writeLiveState,
  type Sandbox,
} from "./test-support.js";

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox();
});
afterEach(() => box.cleanup());

const HERE = fileURLToPath(new URL(".", import.meta.url));
const CHILD_SOURCE = `
import { createArchive } from "./create-archive.ts";
const [root, nowMs] = process.argv.slice(2);
process.stdout.write("ready\\n");
await createArchive(root, { now: new Date(Number(nowMs)) });
process.stdout.write("done\\n");
`;

function bundleChild(outfile: string): void {
  buildSync({
    stdin: { contents: CHILD_SOURCE, resolveDir: HERE, loader: "ts", sourcefile: "kill-child.ts" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile,
    // A CommonJS dependency require()s Node built-ins.
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    logLevel: "silent",
  });
}

interface ChildRun {
  /** ms from "ready" to "done"; null when killed first. */
  readonly elapsed: number | null;
}

/** Runs the child; kills it with SIGKILL `killAfter` ms after it says ready (never, if null). */
function runChild(script: string, nowMs: number, killAfter: number | null): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, box.root, String(nowMs)], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    let readyAt = 0;
    let doneAt: number | null = null;
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (readyAt === 0 && out.includes("ready\n")) {
        readyAt = performance.now();
        if (killAfter !== null) setTimeout(() => child.kill("SIGKILL"), killAfter);
      }
      if (doneAt === null && out.includes("done\n")) doneAt = performance.now();
    });
    child.on("error", reject);
    child.on("close", (code, signal) => {
      if (signal === "SIGKILL") return resolve({ elapsed: doneAt === null ? null : doneAt - readyAt });
      if (code !== 0) return reject(new Error(`child exited ${code}: ${err}`));
      resolve({ elapsed: doneAt === null ? null : doneAt - readyAt });
    });
  });
}

test("kill -9 during createArchive never leaves an archive that does not list and restore", async () => {
  // Random bytes do not compress: big enough that a run takes a while, small enough for a unit test.
  const reports: Record<string, Buffer> = { "big.bin": randomBytes(3 * 1024 * 1024) };
  for (let i = 0; i < 150; i += 1) reports[`tasks/task-${String(i).padStart(3, "0")}.json`] = randomBytes(8 * 1024);
  writeLiveState(box.root, {
    phase: samplePhase("wf-kill"),
    execution: sampleExecution("wf-kill"),
    events: '{"seq":1}\n',
    reports,
  });
  const original = snapshotTree(join(box.root, "memory"));
  const script = join(box.base, "kill-child.mjs");
  bundleChild(script);

  const base = Date.UTC(2026, 10, 20, 9, 0, 0);
  const full = await runChild(script, base, null);
  expect(full.elapsed).not.toBeNull();
  const duration = full.elapsed!;

  const archiveDir = join(box.root, "memory/state/.archive");
  const leftoversSeen = new Set<string>();
  // Spread over a full run; the last one usually lets the child finish, adding a complete archive.
  const fractions = [0.05, 0.25, 0.45, 0.65, 0.85, 0.97, 1.5];
  for (const [i, fraction] of fractions.entries()) {
    const jitter = Math.random() * 0.05 * duration;
    await runChild(script, base + (i + 1) * 1000, Math.round(fraction * duration + jitter));
    for (const name of readdirSync(archiveDir)) if (name.startsWith(".")) leftoversSeen.add(name);
  }
  // A loaded machine can make the measured run slow and the later ones fast, so that every kill
  // lands after the end: then kill earlier and earlier until one lands mid-archive.
  for (
    let delay = Math.round(0.05 * duration), i = fractions.length;
    leftoversSeen.size === 0 && i < fractions.length + 12;
    delay = Math.floor(delay / 2), i += 1
  ) {
    await runChild(script, base + (i + 1) * 1000, delay);
    for (const name of readdirSync(archiveDir)) if (name.startsWith(".")) leftoversSeen.add(name);
  }
  // The kills landed mid-archive at least once, or this test proved nothing.
  expect(leftoversSeen.size).toBeGreaterThan(0);

  const archives = await listArchives(box.root);
  expect(archives.length).toBeGreaterThanOrEqual(1);
  for (const archive of archives) expect(archive.error, archive.name).toBeUndefined();
  for (const name of readdirSync(archiveDir)) {
    if (name.endsWith(".tar.gz")) expect(archives.map((a) => a.name)).toContain(name);
  }

  const swept = await pruneArchives(box.root, 1000);
  expect([...swept.leftovers].sort()).toEqual([...leftoversSeen].sort());
  expect(swept.removed).toEqual([]);
  expect(readdirSync(archiveDir).filter((name) => name.startsWith("."))).toEqual([]);

  let clock = base + 100_000;
  for (const archive of archives) {
    await restoreArchive(box.root, archive.name, { now: new Date((clock += 1000)) });
    const restored = snapshotTree(join(box.root, "memory"));
    for (const [rel, what] of Object.entries(original)) expect(restored[rel], `${archive.name}: ${rel}`).toBe(what);
    expect(readFileSync(join(box.root, "memory/reports/big.bin")).equals(reports["big.bin"]!)).toBe(true);
  }
});
