// `npm run demo` as the README says it (the build is npm test's): a whole `dotagent run` through the
// real Agent SDK and Claude Code against the local scripted model, in a kept git project, ending
// with `dotagent tasks`. It runs Claude Code, so it is opt-in like the other e2e tests.
import { spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "./support/cli.js";

describe.skipIf(process.env.DOTAGENT_E2E_CLAUDE !== "1")("npm run demo (DOTAGENT_E2E_CLAUDE=1)", () => {
  it("runs the workflow to the end and shows the tasks merged, in a project it keeps", () => {
    const run = spawnSync(process.execPath, [join(REPO, "scripts/demo.mjs")], {
      cwd: REPO,
      encoding: "utf8",
      timeout: 180_000,
    });
    const text = `${run.stdout}${run.stderr}`;
    expect(run.status, text).toBe(0);
    expect(text).toMatch(/Workflow wf-add-login complete in .*, 9 agent sessions, 10 reports written/);
    expect(text.match(/merged into \S+ as [0-9a-f]{7}/g)).toHaveLength(3);
    // No terminal here: the gates are approved for the person, and the demo says so.
    expect(text).toContain("No terminal: the gates are approved for you (--approve auto).");
    const project = /^A new git project: (\S+)$/m.exec(text)?.[1];
    // The look-around line runs as printed from a checkout (no `dotagent` on PATH there).
    const look =
      /^ {2}(cd \S+ && node \S+dotagent\.mjs status && node \S+dotagent\.mjs log && git log --oneline)$/m.exec(
        text,
      )?.[1];
    expect(look, text).toBeDefined();
    expect(spawnSync("sh", ["-c", look!], { encoding: "utf8" }).status).toBe(0);
    expect(project && existsSync(join(project, "memory/state/phase.json"))).toBe(true);
    rmSync(project!, { recursive: true, force: true });
  }, 600_000);
});
