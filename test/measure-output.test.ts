// The model's reading cost (issue 10): the helper output of a clean 3-task /develop workflow,
// measured by scripts/measure-output.mjs through the built CLI, stays at least a third under the
// 11,097 bytes it was before outputs were made compact.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, REPO } from "./support/cli.js";

describe("scripts/measure-output.mjs", () => {
  it("drives the workflow to the end; the total is at most two thirds of before; nothing reaches stderr", () => {
    const run = spawnSync(process.execPath, [join(REPO, "scripts/measure-output.mjs"), "--json", "--cli", CLI], { encoding: "utf8" });
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.calls).toBe(31);
    expect(result.total_bytes).toBeLessThanOrEqual(Math.floor((11_097 * 2) / 3));
    expect(result.per_call.filter((c: { stderr_bytes: number }) => c.stderr_bytes > 0)).toEqual([]);
    expect(result.refused).toMatchObject({ exit: 1, stderr_bytes: 0 });
  }, 60_000);
});
