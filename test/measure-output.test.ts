// The model's reading cost (issues 10 and 22): what the model reads from dotagent over a clean
// 3-task /develop workflow (the helper's answers and the hooks' context lines), measured by
// scripts/measure-output.mjs through the built CLI. Before the hooks it read 31 helper outputs,
// 7,080 bytes; now the hooks record each step and the model reads 12 outputs, 3,734 bytes. The
// budget: no more calls, and at most 10% more bytes.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, REPO } from "./support/cli.js";

describe("scripts/measure-output.mjs", () => {
  it("drives the workflow to the end through the hooks; 12 outputs, at most 4,100 bytes; nothing reaches stderr", () => {
    const run = spawnSync(process.execPath, [join(REPO, "scripts/measure-output.mjs"), "--json", "--cli", CLI], {
      encoding: "utf8",
    });
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.calls).toBe(12);
    expect(result.by_command.map((c: { kind: string; calls: number }) => [c.kind, c.calls])).toEqual([
      ["resume", 1],
      ["hook post-tool-use", 9],
      ["phase approve", 2],
    ]);
    expect(result.total_bytes).toBeLessThanOrEqual(4_100);
    expect(result.per_call.filter((c: { stderr_bytes: number }) => c.stderr_bytes > 0)).toEqual([]);
    expect(result.refused).toMatchObject({ exit: 1, stderr_bytes: 0 });
    // docs/evidence.md quotes this run (`node scripts/measure-output.mjs --write`).
    const block = /<!-- measure-output -->\n([\s\S]*?)\n<!-- \/measure-output -->/.exec(
      readFileSync(join(REPO, "docs/evidence.md"), "utf8"),
    )?.[1];
    expect(block).toContain(`| **total** | **${result.calls}** | **${result.total_bytes.toLocaleString("en")} B** | |`);
  }, 600_000);
});
