#!/usr/bin/env node
// Where start-up goes, beside `npm run bench`'s wall times: for the commands with a start-up goal,
// how many of Node's internal modules each one loads (against `node -e 0` and an empty ES module),
// the built-ins the CLI requires and how long each took to load, and how long V8 takes to compile
// the one-file CLI. Runs the built file on a bench fixture of 20 tasks, output on pipes.
//
//   node scripts/startup-profile.mjs [--cli FILE] [--json]
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { buildFixture } from "./bench-fixtures.mjs";

const { values } = parseArgs({ options: { cli: { type: "string" }, json: { type: "boolean" } } });
const cli = resolve(values.cli ?? fileURLToPath(new URL("../dist/dotagent.mjs", import.meta.url)));
const work = mkdtempSync(join(tmpdir(), "dotagent-startup-"));
try {
  const fixture = buildFixture(join(work, "p20"), 20, new Date());
  // A preload that reports, at exit, the internal modules loaded and each built-in the program required.
  const probe = join(work, "probe.cjs");
  writeFileSync(
    probe,
    `const M = require("module"); const load = M._load; const seen = [];
M._load = function (request) { const t = process.hrtime.bigint(); const r = load.apply(this, arguments); if (!seen.some((s) => s.request === request)) seen.push({ request, ms: Number(process.hrtime.bigint() - t) / 1e6 }); return r; };
process.on("exit", () => require("fs").writeSync(3, JSON.stringify({ modules: process.moduleLoadList.filter((m) => m.startsWith("NativeModule ")).length, required: seen })));`,
  );
  const empty = join(work, "empty.mjs");
  writeFileSync(empty, "export {};\n");
  const measure = (argv, input = "") => {
    const run = spawnSync(process.execPath, ["-r", probe, ...argv], {
      cwd: fixture.root,
      input,
      encoding: "utf8",
      stdio: ["pipe", "pipe", "pipe", "pipe"],
    });
    return JSON.parse(run.output[3]);
  };
  const cases = [
    ["node -e 0", ["-e", "0"]],
    ["an empty ES module", [empty]],
    ["--version", [cli, "--version"]],
    ["status --json", [cli, "status", "--json"]],
    ["resume --json --dry-run", [cli, "resume", "--json", "--dry-run"]],
    ["hook session-start", [cli, "hook", "session-start"], JSON.stringify({ source: "resume", cwd: fixture.root })],
  ];
  const rows = cases.map(([label, argv, input]) => ({ label, ...measure(argv, input) }));
  // Compile time of the file as an ES module (the median of 5, each in a fresh process).
  const compile = [];
  for (let i = 0; i < 5; i++) {
    const code = `const vm = require("vm"); const src = require("fs").readFileSync(${JSON.stringify(cli)}, "utf8").replace(/^#!.*\\n/, ""); const t = process.hrtime.bigint(); new vm.SourceTextModule(src); console.log(Number(process.hrtime.bigint() - t) / 1e6);`;
    compile.push(
      Number(
        spawnSync(process.execPath, ["--experimental-vm-modules", "--no-warnings", "-e", code], { encoding: "utf8" })
          .stdout,
      ),
    );
  }
  compile.sort((a, b) => a - b);
  const result = { cli, bytes: readFileSync(cli).length, compile_ms: compile[2], commands: rows };
  if (values.json) console.log(JSON.stringify(result));
  else {
    console.log(
      `${cli} (${Math.round(result.bytes / 1000)} kB): compiled in ${result.compile_ms.toFixed(1)} ms (median of 5) — node scripts/startup-profile.mjs`,
    );
    for (const r of rows) {
      const builtins = r.required
        .filter((q) => !q.request.startsWith("/"))
        .map((q) => `${q.request.replace(/^node:/, "")} ${q.ms.toFixed(1)}`);
      console.log(
        `  ${r.label.padEnd(24)} ${String(r.modules).padStart(4)} internal modules${builtins.length > 0 ? `; requires (ms): ${builtins.join(", ")}` : ""}`,
      );
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
