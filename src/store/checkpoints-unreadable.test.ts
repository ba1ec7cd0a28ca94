// Issue 21, case 13 (history part), where the disk refuses: `.history` or a checkpoint folder that
// cannot be read is `state_unreadable` (exit 3), never "no checkpoints" (§2). The refusal is made
// by wrapping node:fs (chmod proves nothing when the tests run as root).
import { afterEach, describe, expect, it, vi } from "vitest";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const refused = new Set<string>();
vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const guard =
    <A extends unknown[], R>(fn: (...args: A) => R) =>
    (...args: A): R => {
      if (typeof args[0] === "string" && refused.has(args[0]))
        throw Object.assign(new Error(`EACCES: permission denied, ${args[0]}`), { code: "EACCES" });
      return fn(...args);
    };
  return { ...fs, default: fs, readdirSync: guard(fs.readdirSync), openSync: guard(fs.openSync) };
});

const { projectPaths } = await import("./project.js");
const { recordCheckpoint } = await import("./checkpoints.js");
const { listCheckpoints, readCheckpoint } = await import("./checkpoint-read.js");

const dirs: string[] = [];
afterEach(() => {
  refused.clear();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function project() {
  const root = mkdtempSync(join(tmpdir(), "dotagent-checkpoints-"));
  dirs.push(root);
  const paths = projectPaths(root);
  mkdirSync(paths.stateDir, { recursive: true });
  const at = "2026-11-20T10:00:00Z";
  writeFileSync(
    paths.phaseFile,
    JSON.stringify({
      workflow_id: "wf",
      instance_id: "aaaaaaaaaaaaaaaa",
      started_at: at,
      last_updated: at,
      current_phase: "REQUIREMENTS",
      phase_status: "pending",
      completed_phases: [],
      user_checkpoints: [],
      interruption_safe: true,
    }),
  );
  recordCheckpoint(paths, [{ seq: 1, at, type: "workflow_started" }]);
  return paths;
}

const NOW = new Date("2026-11-20T12:00:00Z");

describe("issue 21, case 13: unreadable checkpoints are unreadable, not missing", () => {
  it("an unreadable .history: history and rollback --to REV say state_unreadable naming it", () => {
    const paths = project();
    expect(listCheckpoints(paths, "aaaaaaaaaaaaaaaa", NOW)).toHaveLength(1);
    refused.add(join(paths.stateDir, ".history"));
    expect(() => listCheckpoints(paths, "aaaaaaaaaaaaaaaa", NOW)).toThrow(
      expect.objectContaining({
        code: "state_unreadable",
        exitCode: 3,
        details: { path: "memory/state/.history", errno: "EACCES" },
      }),
    );
    expect(() => readCheckpoint(paths, 1, "aaaaaaaaaaaaaaaa", NOW)).toThrow(
      expect.objectContaining({ code: "state_unreadable" }),
    );
  });

  it("a checkpoint whose checkpoint.json the disk refuses: state_unreadable naming the file, not left out", () => {
    const paths = project();
    refused.add(join(paths.stateDir, ".history/00000001/checkpoint.json"));
    expect(() => listCheckpoints(paths, "aaaaaaaaaaaaaaaa", NOW)).toThrow(
      expect.objectContaining({
        code: "state_unreadable",
        details: { path: "memory/state/.history/00000001/checkpoint.json", errno: "EACCES" },
      }),
    );
    expect(() => readCheckpoint(paths, 1, "aaaaaaaaaaaaaaaa", NOW)).toThrow(
      /memory\/state\/\.history\/00000001\/checkpoint\.json cannot be read \(EACCES\)/,
    );
  });

  it("a held phase.json the disk refuses: state_unreadable too", () => {
    const paths = project();
    refused.add(join(paths.stateDir, ".history/00000001/phase.json"));
    expect(() => readCheckpoint(paths, 1, "aaaaaaaaaaaaaaaa", NOW)).toThrow(
      expect.objectContaining({
        code: "state_unreadable",
        details: expect.objectContaining({ path: "memory/state/.history/00000001/phase.json" }),
      }),
    );
  });
});
