// `dotagent run` again after the workflow's end (issue 42, the first hour: the demo, then `dotagent
// run` once more): it said `continues at REFLECTION` and `complete in 0.1s, 0 agent sessions, 0
// reports written`, as if something had run. Now it says the workflow is complete, nothing to run,
// and what starts the next one. The built CLI with the stand-in SDK (support/fake-agent-sdk.mjs).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO, removeTemps, standInSdkProject } from "./support/cli.js";
import { startApiStandIn, type ApiStandIn } from "./support/api-stand-in.js";

const hasScript = spawnSync("script", ["--version"]).status === 0;
let api: ApiStandIn;
beforeAll(async () => {
  api = await startApiStandIn();
});
afterAll(() => {
  removeTemps();
  api.stop();
});

/** A project with the stand-in SDK in its node_modules and the CLI copied into it (so it finds that SDK). */
const project = () => standInSdkProject(readFileSync(join(REPO, "test/support/fake-agent-sdk.mjs"), "utf8"));

/** The CLI without a terminal; asynchronous, so this process's API stand-in keeps answering. */
function run(cwd: string, args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, args, {
    cwd,
    env: {
      ...process.env,
      NO_COLOR: "1",
      ANTHROPIC_BASE_URL: api.url,
      ANTHROPIC_API_KEY: "test",
      FAKE_SDK_DELAY_MS: "10",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((done) => child.on("close", (status) => done({ status, stdout, stderr })));
}

describe("dotagent run after the workflow's end", () => {
  it("says the workflow is complete, nothing to run, and what starts the next one (exit 0)", async () => {
    const { root, cli } = project();
    const first = await run(root, [cli, "run", "add login", "--approve", "auto", "--agents", join(REPO, "agents")]);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^Workflow wf-add-login complete in /);
    const again = await run(root, [cli, "run", "--agents", join(REPO, "agents")]);
    expect(again.status, again.stderr).toBe(0);
    // One line on stderr: no gates or agents to introduce when nothing runs.
    expect(again.stderr).toBe('dotagent run: workflow wf-add-login "add login" is complete\n');
    expect(again.stderr).not.toContain("continues at");
    expect(again.stdout).toBe(
      [
        "Workflow wf-add-login is complete: nothing to run.",
        'A new request starts the next one: dotagent run "<what to build>"; `dotagent show` reads this one\'s reports.',
        "",
      ].join("\n"),
    );
    const json = await run(root, [cli, "run", "--json", "--agents", join(REPO, "agents")]);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, outcome: "complete", steps: 0, agents: 0, reports: [] });
    // status on a terminal ends with what starts the next one, not only "nothing to do".
    if (hasScript) {
      const screen = spawnSync(
        "script",
        ["-qec", `stty cols 200; '${process.execPath}' '${cli}' status`, "/dev/null"],
        {
          cwd: root,
          encoding: "utf8",
          env: { ...process.env, NO_COLOR: "1", TERM: "xterm", CLAUDECODE: "" },
        },
      ).stdout.replace(/\r/g, "");
      expect(screen).toContain(
        'Next: nothing to do — workflow wf-add-login is complete; start another: dotagent run "<what to build>" (`dotagent show` reads this one\'s reports)\n',
      );
    }
  }, 120_000);
});
