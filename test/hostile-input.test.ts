// Issue 15: hostile and odd input that lost data, hung, or gave a wrong answer. One named test per
// case, run against the built CLI the way a user or an agent would (through pipes).
import { afterEach, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, dotagent, removeTemps, tempProject, writeJson } from "./support/cli.js";

afterEach(removeTemps);

/** A workflow at IMPLEMENTATION, gates passed through the CLI. */
function atImplementation(): string {
  const p = tempProject();
  dotagent(p, ["init", "--request", "add login"]);
  writeJson(p, "memory/reports/demand.json", { stories: ["sign in"] });
  dotagent(p, ["phase", "approve", "REQUIREMENTS"]);
  dotagent(p, ["phase", "complete"]);
  writeJson(p, "memory/reports/roundtable.json", { recommend: "a" });
  writeJson(p, "memory/reports/final_design.json", { chosen: "a" });
  dotagent(p, ["phase", "approve", "ARCHITECTURE"]);
  expect(dotagent(p, ["phase", "complete"]).code).toBe(0);
  return p;
}

/** Runs the CLI with stdout on a pipe and a large buffer: what an agent reads. */
function throughPipe(cwd: string, args: string[]): { code: number; bytes: number; stdout: string } {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NO_COLOR: "1" } });
  return { code: result.status ?? -1, bytes: Buffer.byteLength(result.stdout), stdout: result.stdout };
}

describe("issue 15, case 3: output over 64 KiB through a pipe arrives whole", () => {
  it("task next --json and log print every byte before exiting", () => {
    const p = atImplementation();
    const tasks = Array.from({ length: 5000 }, (_, i) => ({ id: `t${i}`, title: `task number ${i}` }));
    writeJson(p, "tasks.json", tasks);
    expect(dotagent(p, ["task", "import", "tasks.json"]).code).toBe(0);
    const next = throughPipe(p, ["task", "next", "--json"]);
    expect(next.code).toBe(0);
    expect(next.bytes).toBeGreaterThan(256 * 1024);
    expect(JSON.parse(next.stdout).tasks).toHaveLength(5000);

    const events = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ seq: 100 + i, at: "2026-11-20T10:00:00.000Z", type: "note", text: "x".repeat(40) }));
    writeFileSync(join(p, "memory/state/events.jsonl"), `${events.join("\n")}\n`, { flag: "a" });
    const log = throughPipe(p, ["log", "-n", "5000", "--json"]);
    expect(log.code).toBe(0);
    expect(log.bytes).toBeGreaterThan(128 * 1024);
    expect(JSON.parse(log.stdout).events.length).toBeGreaterThan(3000);
  });
});
