// The package as a user gets it: `npm pack`, `npm install -g <tarball>` into a temp prefix with
// no network, then the installed binary does its job (--version, install, the hook, resume), it
// is one package under 2.5 MiB, and a TypeScript consumer compiles against its types with nothing
// else installed. Runs the built files (npm test builds first); packs with --ignore-scripts so
// the build is not rerun under the other tests' feet.
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO, removeTemps, tempProject } from "./support/cli.js";

const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { name: string; version: string; dependencies?: Record<string, string> };
const isWindows = process.platform === "win32";

function run(command: string, args: string[], options: { cwd?: string; input?: string; env?: Record<string, string> } = {}): SpawnSyncReturns<string> {
  const result = spawnSync(command, args, { cwd: options.cwd ?? REPO, input: options.input ?? "", encoding: "utf8", env: { ...process.env, NO_COLOR: "1", npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false", ...options.env }, shell: isWindows });
  if (result.error) throw result.error;
  return result;
}

function sizeOf(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 0);
}

let prefix = "";
let installed = "";
let bin = "";
let installMs = 0;

beforeAll(() => {
  const types = run(process.execPath, [join(REPO, "scripts", "build-types.mjs")]);
  expect(types.status, types.stderr).toBe(0);
  const packDir = tempProject();
  const pack = run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", packDir]);
  expect(pack.status, pack.stderr).toBe(0);
  const tarball = join(packDir, (JSON.parse(pack.stdout) as Array<{ filename: string }>)[0]!.filename);
  prefix = tempProject();
  const started = Date.now();
  // --offline: the install must not need the network (there is nothing to fetch).
  const install = run("npm", ["install", "--global", "--offline", "--no-audit", "--no-fund", "--prefix", prefix, tarball]);
  installMs = Date.now() - started;
  expect(install.status, install.stderr).toBe(0);
  installed = join(prefix, "lib", "node_modules", pkg.name);
  bin = join(prefix, "bin", "dotagent");
}, 180_000);
afterAll(removeTemps);

describe("npm install -g of the packed tarball", () => {
  it("declares no run-time dependency and installs one package under 2.5 MiB", () => {
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(readdirSync(join(prefix, "lib", "node_modules"))).toEqual([pkg.name]);
    expect(existsSync(join(installed, "node_modules"))).toBe(false);
    const bytes = sizeOf(installed);
    expect(bytes).toBeLessThan(2.5 * 1024 * 1024); // 2.3 MiB with the library API and the headless runner
    console.log(`installed: ${(bytes / 1024).toFixed(0)} KiB in ${installMs} ms`);
  });

  it("ships what the commands and the library read, and nothing of the sources or tests", () => {
    for (const file of ["dist/dotagent.mjs", "dist/index.mjs", "dist/types/index.d.ts", "skills/checkpoint/SKILL.md", "skills/checkpoint/scripts/dotagent.mjs", "skills/develop/SKILL.md", "agents/pm.md", "hooks/hooks.json", ".claude-plugin/plugin.json", "memory-template/memory/state/.gitkeep", "SPEC.md", "README.md"]) {
      expect(existsSync(join(installed, file)), file).toBe(true);
    }
    for (const absent of ["src", "test", "scripts", "package-lock.json", "tsconfig.json"]) expect(existsSync(join(installed, absent)), absent).toBe(false);
  });

  it("runs --version, install, the hook and resume from the installed copy", () => {
    expect(run(bin, ["--version"]).stdout.trim()).toBe(pkg.version);
    const project = tempProject();
    const install = run(bin, ["install", "--json"], { cwd: project });
    expect(install.status, install.stderr).toBe(0);
    expect(JSON.parse(install.stdout).settings).toBe("hook added");
    expect(existsSync(join(project, "memory", "state"))).toBe(true);
    const helper = join(project, ".claude", "skills", "checkpoint", "scripts", "dotagent.mjs");
    expect(readFileSync(helper)).toEqual(readFileSync(join(installed, "dist", "dotagent.mjs")));

    expect(run(bin, ["init", "--request", "add login"], { cwd: project }).status).toBe(0);
    const hook = run(process.execPath, [helper, "hook", "session-start"], { cwd: project, input: JSON.stringify({ source: "resume", cwd: project }) });
    expect(hook.status).toBe(0);
    expect(JSON.parse(hook.stdout).hookSpecificOutput.additionalContext).toContain("workflow wf-add-login is open (this session was resumed)");
    const resume = run(bin, ["resume", "--json"], { cwd: project });
    expect(resume.status, resume.stderr).toBe(0);
    expect(JSON.parse(resume.stdout)).toMatchObject({ situation: "interrupted", next: { action: "spawn_agent", agent: "pm" }, applied: true });
  });

  it("gives a TypeScript consumer the library's types with no other package installed", () => {
    const consumer = tempProject();
    mkdirSync(join(consumer, "node_modules"));
    symlinkSync(installed, join(consumer, "node_modules", pkg.name), "dir");
    writeFileSync(join(consumer, "package.json"), JSON.stringify({ type: "module" }));
    writeFileSync(join(consumer, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", noEmit: true, skipLibCheck: false, types: [] }, files: ["good.ts"] }));
    // The consumer of the public API (openWorkflow and its result types), as a user writes it.
    writeFileSync(join(consumer, "good.ts"), readFileSync(join(REPO, "test", "api-types", "consumer.ts")));
    writeFileSync(join(consumer, "bad.ts"), ['import type { PhaseState } from "dotagent";', 'const wrong: PhaseState["current_phase"] = "DEPLOYMENT";', "export { wrong };"].join("\n"));
    // Internals are not part of the API: the store's writer and the planner are not exported.
    writeFileSync(join(consumer, "internal.ts"), ['import { StateWriter, planResume, acquireLock } from "dotagent";', "export { StateWriter, planResume, acquireLock };"].join("\n"));
    writeFileSync(join(consumer, "wrong-call.ts"), ['import { openWorkflow } from "dotagent";', 'export const p = openWorkflow(".").phase.start("DEPLOYMENT");'].join("\n"));
    const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
    const good = run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: consumer });
    expect(good.stdout + good.stderr).toBe("");
    expect(good.status).toBe(0);
    // The types are real, not `any`: a phase that does not exist is refused.
    writeFileSync(join(consumer, "tsconfig.bad.json"), JSON.stringify({ extends: "./tsconfig.json", files: ["bad.ts"] }));
    const bad = run(process.execPath, [tsc, "-p", "tsconfig.bad.json"], { cwd: consumer });
    expect(bad.stdout).toContain("DEPLOYMENT");
    expect(bad.status).not.toBe(0);
    writeFileSync(join(consumer, "tsconfig.internal.json"), JSON.stringify({ extends: "./tsconfig.json", files: ["internal.ts"] }));
    const internal = run(process.execPath, [tsc, "-p", "tsconfig.internal.json"], { cwd: consumer });
    for (const name of ["StateWriter", "planResume", "acquireLock"]) expect(internal.stdout).toContain(`has no exported member '${name}'`);
    writeFileSync(join(consumer, "tsconfig.call.json"), JSON.stringify({ extends: "./tsconfig.json", files: ["wrong-call.ts"] }));
    const call = run(process.execPath, [tsc, "-p", "tsconfig.call.json"], { cwd: consumer });
    expect(call.stdout).toContain('"DEPLOYMENT"');
    expect(call.status).not.toBe(0);
  });
});
