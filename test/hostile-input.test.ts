// Issue 15: hostile and odd input that lost data, hung, or gave a wrong answer. One named test per
// case, run against the built CLI the way a user or an agent would (through pipes).
import { afterEach, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, dotagent, readJson, removeTemps, tempProject, treeBytes, writeJson } from "./support/cli.js";

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

describe("issue 15, case 1: a stray memory/state/.clearing never clears unarchived state", () => {
  it.each([
    ["garbage", "garbage\n"],
    ["a missing archive", '{"archive":"missing.tar.gz"}\n'],
    ["a path, not a name", '{"archive":"../../x.tar.gz"}\n'],
  ])("a marker with %s: resume asks (exit 5), validate names the marker (exit 3), nothing is removed", (_, marker) => {
    const p = tempProject();
    dotagent(p, ["init", "--request", "x"]);
    writeJson(p, "memory/reports/demand.json", { a: 1 });
    writeFileSync(join(p, "memory/state/.clearing"), marker);
    const before = treeBytes(p);
    const resumed = dotagent(p, ["resume", "--json"]);
    expect(resumed.code).toBe(5);
    expect(resumed.json).toMatchObject({ situation: "corrupt", next: { action: "confirm_fresh_start" } });
    expect(resumed.json.errors[0]).toMatchObject({ code: "clearing_invalid", file: "memory/state/.clearing" });
    const validated = dotagent(p, ["validate", "--json"]);
    expect(validated.code).toBe(3);
    expect(validated.json.errors[0]).toMatchObject({ file: "memory/state/.clearing" });
    expect(dotagent(p, ["phase", "approve"]).code).toBe(3);
    expect(treeBytes(p)).toEqual(before);
    // The way out it names: archive, which keeps everything.
    const archived = dotagent(p, ["archive", "--json"]);
    expect(archived.code).toBe(0);
    expect(existsSync(join(p, "memory/state/.clearing"))).toBe(false);
    expect(listTar(p, archived.json.archived)).toEqual(expect.arrayContaining(["memory/reports/demand.json", "memory/state/phase.json"]));
  });

  it("a marker naming a real archive whose content was altered is corrupt state, not a clear", () => {
    const p = tempProject();
    dotagent(p, ["init", "--request", "x"]);
    writeJson(p, "memory/reports/demand.json", { a: 1 });
    const archived = dotagent(p, ["archive", "--json"]).json.archived as string;
    dotagent(p, ["init", "--request", "y"]);
    writeJson(p, "memory/reports/demand.json", { b: 2 });
    // Damage the archive: same name, other content (a tar.gz of the wrong bytes).
    const file = join(p, "memory/state/.archive", archived);
    const bytes = readFileSync(file);
    writeFileSync(file, bytes.subarray(0, bytes.length - 40));
    writeFileSync(join(p, "memory/state/.clearing"), JSON.stringify({ archive: archived }));
    const before = treeBytes(join(p, "memory/reports"));
    const resumed = dotagent(p, ["resume", "--json"]);
    expect(resumed.code).toBe(5);
    expect(resumed.json.errors[0].message).toContain("does not verify");
    expect(treeBytes(join(p, "memory/reports"))).toEqual(before);
    expect(existsSync(join(p, "memory/state/phase.json"))).toBe(true);
  });

  it("a marker that is a folder is reported, not an internal error", () => {
    const p = tempProject();
    dotagent(p, ["init", "--request", "x"]);
    mkdirSync(join(p, "memory/state/.clearing"));
    const resumed = dotagent(p, ["resume"]);
    expect(resumed.code).toBe(3);
    expect(resumed.stderr).toContain("memory/state/.clearing is a folder");
    expect(resumed.stderr).not.toContain("unexpected");
    expect(existsSync(join(p, "memory/state/phase.json"))).toBe(true);
  });
});

describe("issue 15, case 2: archive and fresh starts never delete what they did not archive", () => {
  it("a report over 64 MiB: archive refuses, naming it, and changes nothing", () => {
    const p = tempProject();
    dotagent(p, ["init", "--request", "x"]);
    writeFileSync(join(p, "memory/reports/big.bin"), Buffer.alloc(64 * 1024 * 1024 + 1));
    const result = dotagent(p, ["archive", "--json"]);
    expect(result.code).toBe(1);
    expect(result.json.error).toMatchObject({ code: "not_archivable", path: "memory/reports/big.bin" });
    expect(statSync(join(p, "memory/reports/big.bin")).size).toBe(64 * 1024 * 1024 + 1);
    expect(existsSync(join(p, "memory/state/phase.json"))).toBe(true);
    expect(existsSync(join(p, "memory/state/.clearing"))).toBe(false);
  });

  it("a path deeper than 32 levels stays, and so does everything else", () => {
    const p = tempProject();
    dotagent(p, ["init", "--request", "x"]);
    const deep = join(p, "memory/reports", ...Array.from({ length: 32 }, (_, i) => `d${i}`));
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(deep, "deep.json"), "{}");
    const result = dotagent(p, ["init", "--request", "y", "--yes"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("cannot be archived");
    expect(readFileSync(join(deep, "deep.json"), "utf8")).toBe("{}");
    expect(readJson(p, "memory/state/phase.json").workflow_id).toBe("wf-x");
  });

  it("a folder named phase.json is refused as state, never removed", () => {
    const p = tempProject();
    dotagent(p, ["init", "--request", "x"]);
    rmSync(join(p, "memory/state/phase.json"));
    mkdirSync(join(p, "memory/state/phase.json"));
    writeFileSync(join(p, "memory/state/phase.json/keep.txt"), "mine");
    const result = dotagent(p, ["archive"]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("memory/state/phase.json is a folder");
    expect(readFileSync(join(p, "memory/state/phase.json/keep.txt"), "utf8")).toBe("mine");
  });
});

function listTar(root: string, name: string): string[] {
  const out = spawnSync("tar", ["-tzf", join(root, "memory/state/.archive", name)], { encoding: "utf8" });
  return out.stdout.split("\n").filter(Boolean).map((line) => line.replace(/\/$/, ""));
}
